//! The random numbers of one payment, in a fixed layout of its slices of the run's two
//! streams: attempt `a` of copy `c` always uses the same six draws whatever the strategy, so
//! the strategies are compared on common random numbers, and the key's lifecycle (failures,
//! different bodies) draws from a second stream, so that the attempts' draws do not depend on
//! the lifecycle settings.

use super::Scenario;
use super::distribution::Sampler;
use crate::rng::{Jump, PcgState, unit_f64};

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
        let mut next = || unit_f64(stream.next_u64());
        let (request_loss, request_latency, processing, ack_loss, response_latency, jitter) =
            (next(), next(), next(), next(), next(), next());
        Self {
            request_lost: request_loss < samplers.request_loss,
            request_ms: samplers.request_latency.quantile(request_latency),
            processing_ms: samplers.processing.quantile(processing),
            ack_lost: ack_loss < samplers.ack_loss,
            response_ms: samplers.response_latency.quantile(response_latency),
            jitter,
        }
    }
}

/// The random numbers of one payment, laid out in its slice of the run's stream as
/// `[arrival gap, copy offset × copies, copy 0's attempts, copy 1's attempts, ...]`, each copy
/// owning `(max_retries + 1) × 6` draws. Attempts are sampled on first use and kept, so every
/// strategy replays the same samples without drawing or sampling them again.
#[derive(Debug, Clone)]
pub struct PaymentDraws {
    /// The uniform of the gap to the next payment's arrival (Poisson arrivals).
    pub arrival_gap: f64,
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
            copy_offsets: vec![0.0; copies as usize],
            copy_streams: vec![*stream; copies as usize],
            attempts: vec![Vec::new(); copies as usize],
            copy_jump: stream.jump(Self::copy_stride(max_retries)),
            samplers: AttemptSamplers::of(scenario),
            lifecycle: LifecycleDraws::new(copies, max_retries),
        }
    }

    /// Reads the payment whose stream starts at `start` (the state before its first draw).
    pub fn read(&mut self, start: &PcgState) {
        let mut stream = *start;
        self.arrival_gap = unit_f64(stream.next_u64());
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
