//! The random numbers of one payment, in a fixed layout of its slices of the run's two
//! streams: attempt `a` of copy `c` always uses the same six draws whatever the strategy, so
//! the strategies are compared on common random numbers, and the key's lifecycle (failures,
//! different bodies) draws from a second stream, so that the attempts' draws do not depend on
//! the lifecycle settings.

use super::Scenario;
use super::offline::ClientDraws;
use engine::distribution::{LANES, Sampler};
use engine::numerics::ln_estimate as estimate;
#[cfg(target_arch = "x86_64")]
use engine::numerics::quantile_simd::log_normal_quantiles;
#[cfg(target_arch = "x86_64")]
use engine::numerics::vector::{Avx2, Avx512};
use engine::rng::{Jump, PcgState, unit_f64};

/// Uniform draws each attempt consumes, whether or not it needs them all: request loss,
/// request latency, processing time, ACK loss, response latency, backoff jitter.
pub const DRAWS_PER_ATTEMPT: u64 = 6;

/// One attempt's network and server, sampled from its six draws (in this order: request loss,
/// request latency, processing time, ACK loss, response latency, backoff jitter).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AttemptSample {
    /// The request never reaches the server.
    pub request_lost: bool,
    /// Client to server (ms).
    pub request_ms: f64,
    /// Processing time if this attempt is processed (ms).
    pub processing_ms: f64,
    /// The response (ACK) is lost on the way back.
    pub ack_lost: bool,
    /// Server to client (ms).
    pub response_ms: f64,
    /// The uniform draw of the backoff before the next retry.
    pub jitter: f64,
}

/// A scenario's network and server, ready to sample attempts: its loss rates and its three
/// distributions' [`Sampler`]s.
#[derive(Debug, Clone, Copy)]
struct AttemptSamplers {
    request_loss: f64,
    ack_loss: f64,
    request_latency: Sampler,
    processing: Sampler,
    response_latency: Sampler,
}

impl AttemptSamplers {
    fn of(scenario: &Scenario) -> Self {
        let network = &scenario.network;
        Self {
            request_loss: network.request_loss,
            ack_loss: network.ack_loss,
            request_latency: network.request_latency.sampler(),
            processing: scenario.processing.sampler(),
            response_latency: network.response_latency.sampler(),
        }
    }
}

impl AttemptSample {
    fn draw(stream: &mut PcgState, samplers: &AttemptSamplers) -> Self {
        let uniforms = AttemptUniforms::draw(stream);
        let [request_latency, processing, response_latency] = uniforms.durations();
        uniforms.sample(
            samplers,
            [
                samplers.request_latency.quantile(request_latency),
                samplers.processing.quantile(processing),
                samplers.response_latency.quantile(response_latency),
            ],
        )
    }
}

/// An attempt's six uniform draws, in their order (see [`AttemptSample`]).
#[derive(Debug, Clone, Copy, Default)]
struct AttemptUniforms([f64; DRAWS_PER_ATTEMPT as usize]);

impl AttemptUniforms {
    #[inline(always)]
    fn draw(stream: &mut PcgState) -> Self {
        Self(std::array::from_fn(|_| unit_f64(stream.next_u64())))
    }

    /// The draws of the request latency, the processing time and the response latency.
    #[inline(always)]
    fn durations(&self) -> [f64; 3] {
        let [_, request_latency, processing, _, response_latency, _] = self.0;
        [request_latency, processing, response_latency]
    }

    /// The sample, given the request latency, processing time and response latency sampled
    /// from [`AttemptUniforms::durations`].
    #[inline(always)]
    fn sample(&self, samplers: &AttemptSamplers, durations: [f64; 3]) -> AttemptSample {
        let [request_loss, _, _, ack_loss, _, jitter] = self.0;
        let [request_ms, processing_ms, response_ms] = durations;
        AttemptSample {
            request_lost: request_loss < samplers.request_loss,
            request_ms,
            processing_ms,
            ack_lost: ack_loss < samplers.ack_loss,
            response_ms,
            jitter,
        }
    }
}

/// The draws of a one-copy payment up to and including its first attempt, sampled with
/// seven other payments' by [`PaymentDraws::sample_first_attempts`].
#[derive(Debug, Clone, Copy)]
pub struct FirstAttempt {
    arrival_gap: f64,
    /// [`estimate::ln_1m`]`(arrival_gap)`.
    arrival_gap_ln_1m: f64,
    copy_offset: f64,
    /// The payment's stream after its first attempt's draws.
    stream_after: PcgState,
    sample: AttemptSample,
}

/// Eight payments' first attempts, sampled side by side: the same draws, in the same places
/// of the stream, and the same values bit for bit as [`PaymentDraws::read`] and
/// [`PaymentDraws::attempt`] one payment at a time: `quantiles` gives each lane
/// [`Sampler::quantile`]'s value bit for bit ([`quantiles_one_at_a_time`], or the same
/// arithmetic in vector registers).
#[inline(always)]
fn sample_first_attempts(
    starts: &[PcgState; LANES],
    samplers: &AttemptSamplers,
    quantiles: impl Fn(&Sampler, &[f64; LANES]) -> [f64; LANES],
) -> [FirstAttempt; LANES] {
    let mut streams = *starts;
    let mut gaps = [0.0; LANES];
    let mut offsets = [0.0; LANES];
    let mut uniforms = [AttemptUniforms::default(); LANES];
    for lane in 0..LANES {
        let stream = &mut streams[lane];
        gaps[lane] = unit_f64(stream.next_u64());
        offsets[lane] = unit_f64(stream.next_u64());
        uniforms[lane] = AttemptUniforms::draw(stream);
    }
    let mut gaps_ln_1m = [0.0; LANES];
    for (ln, &gap) in gaps_ln_1m.iter_mut().zip(&gaps) {
        *ln = estimate::ln_1m(gap);
    }
    let durations = uniforms.map(|uniforms| uniforms.durations());
    let lanes_of = |duration: usize| durations.map(|draws| draws[duration]);
    let request_ms = quantiles(&samplers.request_latency, &lanes_of(0));
    let processing_ms = quantiles(&samplers.processing, &lanes_of(1));
    let response_ms = quantiles(&samplers.response_latency, &lanes_of(2));
    std::array::from_fn(|lane| FirstAttempt {
        arrival_gap: gaps[lane],
        arrival_gap_ln_1m: gaps_ln_1m[lane],
        copy_offset: offsets[lane],
        stream_after: streams[lane],
        sample: uniforms[lane].sample(
            samplers,
            [request_ms[lane], processing_ms[lane], response_ms[lane]],
        ),
    })
}

/// [`sample_first_attempts`] compiled for AVX-512 (its lane-by-lane arithmetic in 512-bit
/// registers).
///
/// # Safety
/// The processor must have AVX-512F and AVX-512DQ.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn sample_first_attempts_avx512(
    starts: &[PcgState; LANES],
    samplers: &AttemptSamplers,
) -> [FirstAttempt; LANES] {
    sample_first_attempts(starts, samplers, |sampler, u| match *sampler {
        // SAFETY: the caller guarantees AVX-512F and DQ.
        Sampler::LogNormal { median_ms, sigma } => unsafe {
            log_normal_quantiles::<Avx512>(median_ms, sigma, u)
        },
        Sampler::Other(_) => quantiles_one_at_a_time(sampler, u),
    })
}

/// [`sample_first_attempts`] compiled for AVX2 and FMA (processors without AVX-512: the
/// log-normal quantiles as two halves of four lanes).
///
/// # Safety
/// The processor must have AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn sample_first_attempts_avx2(
    starts: &[PcgState; LANES],
    samplers: &AttemptSamplers,
) -> [FirstAttempt; LANES] {
    sample_first_attempts(starts, samplers, |sampler, u| match *sampler {
        // SAFETY: the caller guarantees AVX2 and FMA.
        Sampler::LogNormal { median_ms, sigma } => unsafe {
            log_normal_quantiles::<Avx2>(median_ms, sigma, u)
        },
        Sampler::Other(_) => quantiles_one_at_a_time(sampler, u),
    })
}

/// [`sample_first_attempts`] for any processor, each quantile one lane at a time (never
/// inlined, like the SIMD copies).
#[inline(never)]
fn sample_first_attempts_portable(
    starts: &[PcgState; LANES],
    samplers: &AttemptSamplers,
) -> [FirstAttempt; LANES] {
    sample_first_attempts(starts, samplers, quantiles_one_at_a_time)
}

/// [`Sampler::quantile`] of each of `u`.
#[inline(always)]
fn quantiles_one_at_a_time(sampler: &Sampler, u: &[f64; LANES]) -> [f64; LANES] {
    u.map(|u| sampler.quantile(u))
}

/// The random numbers of one payment, laid out in its slice of the run's stream as
/// `[arrival gap, copy offset × copies, copy 0's attempts, copy 1's attempts, ...]`, each copy
/// owning `(max_retries + 1) × 6` draws. Attempts are sampled on first use and kept, so every
/// strategy replays the same samples without drawing or sampling them again.
#[derive(Debug, Clone)]
pub struct PaymentDraws {
    /// The uniform of the gap to the next payment's arrival (Poisson arrivals).
    pub arrival_gap: f64,
    /// [`estimate::ln_1m`]`(arrival_gap)` when it was computed with the draws (by
    /// [`PaymentDraws::read_first`]).
    pub arrival_gap_ln_1m: Option<f64>,
    /// One uniform per copy, for its send offset (random copy spacing).
    pub copy_offsets: Vec<f64>,
    /// Each copy's stream, positioned after its last sampled attempt.
    copy_streams: Vec<PcgState>,
    /// Each copy's sampled attempts, in order.
    attempts: Vec<Vec<AttemptSample>>,
    /// From one copy's first draw to the next copy's.
    copy_jump: Jump,
    /// The scenario's distributions, ready to sample.
    samplers: AttemptSamplers,
    /// The payment's lifecycle draws.
    pub lifecycle: LifecycleDraws,
    /// The payment's client draws (offline clients).
    pub client: ClientDraws,
    /// The vector instructions [`PaymentDraws::sample_first_attempts`] uses on this
    /// processor.
    vectors: Vectors,
}

/// The vector instructions that sample eight first attempts at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Vectors {
    /// AVX-512F and AVX-512DQ: the eight lanes in one register.
    Avx512,
    /// AVX2 and FMA: the eight lanes in two registers of four.
    Avx2,
    /// Neither: one payment at a time is faster (the eight-lane code is portable, but the
    /// compiler's plain build of it gains nothing).
    None,
}

impl Vectors {
    /// The best the simulations may use here ([`engine::cpu`]), in the order AVX-512, AVX2
    /// with FMA, none.
    fn detect() -> Self {
        if engine::cpu::avx512() {
            Self::Avx512
        } else if engine::cpu::avx2_fma() {
            Self::Avx2
        } else {
            Self::None
        }
    }
}

/// Uniform draws each attempt has in the lifecycle stream: first-processing failure,
/// different body.
pub const LIFECYCLE_DRAWS_PER_ATTEMPT: u64 = 2;

/// The lifecycle draws of one payment, laid out in its slice of the run's lifecycle stream as
/// `[copy 0's attempts, copy 1's attempts, ...]`, each attempt owning
/// [`LIFECYCLE_DRAWS_PER_ATTEMPT`] draws: `[failure, different body]`. Read only when a
/// scenario has failures or different bodies; otherwise every draw reads as 1 (never below a
/// rate).
#[derive(Debug, Clone)]
pub struct LifecycleDraws {
    draws: Vec<[f64; 2]>,
    attempts_per_copy: usize,
    /// Attempts of all copies: `copies × (max_retries + 1)`.
    attempts: usize,
}

impl LifecycleDraws {
    /// Draws one payment uses with `copies` copies and `max_retries`.
    pub fn stride(copies: u32, max_retries: u32) -> u128 {
        u128::from(copies) * (u128::from(max_retries) + 1) * u128::from(LIFECYCLE_DRAWS_PER_ATTEMPT)
    }

    /// Empty buffers for payments with `copies` copies and `max_retries`, filled by
    /// [`LifecycleDraws::read`].
    pub fn new(copies: u32, max_retries: u32) -> Self {
        let attempts = copies as usize * (max_retries as usize + 1);
        Self {
            draws: Vec::with_capacity(attempts),
            attempts_per_copy: max_retries as usize + 1,
            attempts,
        }
    }

    /// Reads the next payment's draws from `stream`, leaving it at the payment after.
    pub fn read(&mut self, stream: &mut PcgState) {
        self.draws.clear();
        self.draws.extend(
            (0..self.attempts).map(|_| [unit_f64(stream.next_u64()), unit_f64(stream.next_u64())]),
        );
    }

    fn get(&self, copy: u32, attempt: u32) -> [f64; 2] {
        self.draws
            .get(copy as usize * self.attempts_per_copy + attempt as usize)
            .copied()
            .unwrap_or([1.0, 1.0])
    }

    /// The uniform deciding whether attempt `attempt` of copy `copy` fails if it is the
    /// payment's first processing.
    pub fn failure(&self, copy: u32, attempt: u32) -> f64 {
        self.get(copy, attempt)[0]
    }

    /// The uniform deciding whether attempt `attempt` of copy `copy` carries a different body
    /// (retries only).
    pub fn different_body(&self, copy: u32, attempt: u32) -> f64 {
        self.get(copy, attempt)[1]
    }
}

impl PaymentDraws {
    /// Draws in `PcgState`-steps one payment uses with `copies` copies and `max_retries`.
    pub fn stride(copies: u32, max_retries: u32) -> u128 {
        1 + u128::from(copies) + u128::from(copies) * Self::copy_stride(max_retries)
    }

    fn copy_stride(max_retries: u32) -> u128 {
        (u128::from(max_retries) + 1) * u128::from(DRAWS_PER_ATTEMPT)
    }

    /// Empty buffers for the payments of `scenario` in a stream like `stream`, filled by
    /// [`PaymentDraws::read`].
    pub fn new(stream: &PcgState, scenario: &Scenario) -> Self {
        let (copies, max_retries) = (scenario.arrivals.copies, scenario.client.max_retries);
        Self {
            arrival_gap: 0.0,
            arrival_gap_ln_1m: None,
            copy_offsets: vec![0.0; copies as usize],
            copy_streams: vec![*stream; copies as usize],
            attempts: vec![Vec::new(); copies as usize],
            copy_jump: stream.jump(Self::copy_stride(max_retries)),
            samplers: AttemptSamplers::of(scenario),
            lifecycle: LifecycleDraws::new(copies, max_retries),
            client: ClientDraws::new(&scenario.client_lifecycle),
            vectors: Vectors::detect(),
        }
    }

    /// Whether one-copy payments are faster read eight at a time
    /// ([`PaymentDraws::sample_first_attempts`], [`PaymentDraws::read_first`]) than one at a
    /// time ([`PaymentDraws::read`]): with AVX-512, or with AVX2 and FMA. Either way gives the
    /// same draws.
    pub fn samples_eight_at_a_time(&self) -> bool {
        self.vectors != Vectors::None
    }

    /// The first attempts of the eight one-copy payments whose streams start at `starts`
    /// (each the state before its first draw), for [`PaymentDraws::read_first`].
    pub fn sample_first_attempts(&self, starts: &[PcgState; LANES]) -> [FirstAttempt; LANES] {
        match self.vectors {
            // SAFETY: `Vectors::detect` found AVX-512F and DQ on this processor.
            #[cfg(target_arch = "x86_64")]
            Vectors::Avx512 => unsafe { sample_first_attempts_avx512(starts, &self.samplers) },
            // SAFETY: `Vectors::detect` found AVX2 and FMA on this processor.
            #[cfg(target_arch = "x86_64")]
            Vectors::Avx2 => unsafe { sample_first_attempts_avx2(starts, &self.samplers) },
            _ => sample_first_attempts_portable(starts, &self.samplers),
        }
    }

    /// Reads a one-copy payment whose draws up to its first attempt are in `first`: the
    /// same as [`PaymentDraws::read`] from its start, then [`PaymentDraws::attempt`]`(0, 0)`.
    pub fn read_first(&mut self, first: &FirstAttempt) {
        debug_assert_eq!(self.copy_streams.len(), 1, "one copy");
        self.arrival_gap = first.arrival_gap;
        self.arrival_gap_ln_1m = Some(first.arrival_gap_ln_1m);
        self.copy_offsets[0] = first.copy_offset;
        self.copy_streams[0] = first.stream_after;
        self.attempts[0].clear();
        self.attempts[0].push(first.sample);
    }

    /// Reads the payment whose stream starts at `start` (the state before its first draw).
    pub fn read(&mut self, start: &PcgState) {
        let mut stream = *start;
        self.arrival_gap = unit_f64(stream.next_u64());
        self.arrival_gap_ln_1m = None;
        for offset in &mut self.copy_offsets {
            *offset = unit_f64(stream.next_u64());
        }
        let copies = self.copy_streams.iter_mut().zip(&mut self.attempts);
        for (copy, (copy_stream, attempts)) in copies.enumerate() {
            if copy > 0 {
                stream.apply(&self.copy_jump);
            }
            *copy_stream = stream;
            attempts.clear();
        }
    }

    /// Attempt `attempt` of copy `copy`, already sampled by [`PaymentDraws::attempt`].
    #[inline]
    pub fn sampled(&self, copy: u32, attempt: u32) -> &AttemptSample {
        &self.attempts[copy as usize][attempt as usize]
    }

    /// Attempt `attempt` of copy `copy`, sampled on first use.
    pub fn attempt(&mut self, copy: u32, attempt: u32) -> AttemptSample {
        let (copy, attempt) = (copy as usize, attempt as usize);
        let samples = &mut self.attempts[copy];
        while samples.len() <= attempt {
            samples.push(AttemptSample::draw(
                &mut self.copy_streams[copy],
                &self.samplers,
            ));
        }
        samples[attempt]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::timeline::Streams;
    use crate::model::timeline::test_support::{mobile, model};
    use engine::distribution::Distribution;

    /// What a test compares of a payment's draws: the arrival gap, its estimate (if any), the
    /// copy's offset, and its first two attempts (the second shows where the first left the
    /// stream).
    fn seen(draws: &mut PaymentDraws) -> (f64, f64, AttemptSample, AttemptSample) {
        (
            draws.arrival_gap,
            draws.copy_offsets[0],
            draws.attempt(0, 0),
            draws.attempt(0, 1),
        )
    }

    /// The first attempts of the payments starting at `starts` by every eight-at-a-time path
    /// this processor can run: portable, AVX2 with FMA, AVX-512, and the one `draws` picks.
    fn every_path(starts: &[PcgState; LANES], draws: &PaymentDraws) -> Vec<[FirstAttempt; LANES]> {
        let mut paths = vec![
            sample_first_attempts_portable(starts, &draws.samplers),
            draws.sample_first_attempts(starts),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            if engine::cpu::processor().avx2_fma {
                // SAFETY: the processor has AVX2 and FMA (just detected).
                paths.push(unsafe { sample_first_attempts_avx2(starts, &draws.samplers) });
            }
            if engine::cpu::processor().avx512 {
                // SAFETY: the processor has AVX-512F and DQ (just detected).
                paths.push(unsafe { sample_first_attempts_avx512(starts, &draws.samplers) });
            }
        }
        paths
    }

    /// Eight payments at a time, portable and (where the processor has them) with AVX2 and
    /// FMA and with AVX-512, read the same draws and sample the same first attempts, bit for
    /// bit, as one at a time; for log-normal, exponential, uniform and fixed distributions.
    #[test]
    fn first_attempts_eight_at_a_time_are_one_at_a_times() {
        let mut scenarios = vec![mobile()];
        let mut other = mobile();
        other.processing = Distribution::Exponential { mean_ms: 90.0 };
        other.network.request_latency = Distribution::Uniform {
            low_ms: 5.0,
            high_ms: 50.0,
        };
        other.network.response_latency = Distribution::Fixed { ms: 12.0 };
        scenarios.push(other);
        for scenario in &scenarios {
            let streams = Streams::of(&model(scenario, 2_026), 0);
            let jump = streams
                .attempts
                .jump(PaymentDraws::stride(1, scenario.client.max_retries));
            let mut one = PaymentDraws::new(&streams.attempts, scenario);
            let mut batched = PaymentDraws::new(&streams.attempts, scenario);
            let mut start = streams.attempts;
            for _ in 0..250 {
                let starts: [PcgState; LANES] = std::array::from_fn(|_| {
                    let this = start;
                    start.apply(&jump);
                    this
                });
                let paths = every_path(&starts, &batched);
                for (lane, start) in starts.iter().enumerate() {
                    one.read(start);
                    let expected = seen(&mut one);
                    let expected_ln = estimate::ln_1m(expected.0);
                    for first in paths.iter().map(|path| &path[lane]) {
                        batched.read_first(first);
                        assert_eq!(
                            batched.arrival_gap_ln_1m.map(f64::to_bits),
                            Some(expected_ln.to_bits())
                        );
                        let actual = seen(&mut batched);
                        assert_eq!(format!("{actual:?}"), format!("{expected:?}"));
                        assert_eq!(actual, expected);
                    }
                }
            }
        }
    }
}
