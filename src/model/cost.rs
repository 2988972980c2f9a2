//! Rough estimates of what a run will cost (time and memory), so that a run that would
//! clearly take very long or not fit in memory can say so before it starts.
//!
//! The rates are measured (release build, `lto = "thin"`, on the 2-core x86-64 machine with
//! AVX-512 this project is developed on, under load), not promises; the estimate aims to be
//! within a factor of 3 of the wall-clock time. For the article model a run costs:
//!
//! - the fast engine's pass: every request's first draw at
//!   [`FAST_REQUESTS_PER_SECOND_PER_THREAD`], every retry of the largest p (a jump of the
//!   generator) at [`FAST_RETRIES_PER_SECOND_PER_THREAD`], and per run turning its loss counts
//!   into histograms, `P² × rounds` additions at [`FAST_HISTOGRAM_ADDITIONS_PER_SECOND`];
//! - the servers engine's deliveries at [`SERVER_DELIVERIES_PER_SECOND`] and
//!   [`SERVER_BYTES_PER_REQUEST`] (plus [`SERVER_BASE_BYTES`]) at its peak;
//! - for either engine, the results of every (run, p) kept for the output files
//!   ([`POINT_BYTES`] each, plus 8 bytes per attempt count stored), and rendering and writing
//!   them at [`REPORT_SECONDS_PER_POINT`] (`results.csv`, `summary.csv`, charts, `report.md`).
//!
//! The other models' times count every attempt a retry adds: [`expected_attempts`] at the
//! share of attempts that fail ([`failure_share`]: lost either way, failed by the server, or
//! all of them when the typical round trip does not beat the timeout). Every time is for the
//! threads that really run at once ([`threads_at_once`]): those asked, at most the machine's
//! cores and the run's parallel tasks. A load run's memory counts its time series (every
//! bucket kept for the files, [`LOAD_BYTES_PER_BUCKET`], and run 0's for the charts), and,
//! in each loop running at once, its client population ([`LOAD_BYTES_PER_CLIENT`]) and its
//! payments in flight ([`LOAD_BYTES_PER_PAYMENT`]).

use super::article::{ArticleModel, Engine};
use super::contention::ContentionModel;
use super::load::client::ClientState;
use super::load::{LoadModel, LoadScenario, MAX_BUCKETS, PhaseRate, Window};
use super::timeline::{CHUNK_PAYMENTS, TimelineModel};
use engine::distribution::Distribution;
use engine::distribution::Z_99;

/// Requests per second one thread of the fast engine scans in round 0 (measured: 2 x 10^9
/// requests at the article's p on one thread in 5.0 s, with the retries below).
pub const FAST_REQUESTS_PER_SECOND_PER_THREAD: f64 = 7e8;
/// Retries per second one thread of the fast engine follows (jumps of the generator; measured:
/// 2 x 10^8 requests at p = 0.9, 1.58 x 10^9 retries, in 16.4 s on one thread).
pub const FAST_RETRIES_PER_SECOND_PER_THREAD: f64 = 1e8;
/// Additions per second (all threads) that turn a run's loss counts into one histogram per p:
/// `P² × rounds` per run (measured: 40 runs of 10,000 p values, 20 rounds, in 18.6 s).
pub const FAST_HISTOGRAM_ADDITIONS_PER_SECOND: f64 = 5e9;
/// Deliveries per second the servers engine sends through both servers (measured: 2 x 10^7
/// requests at p = 0.1, 0.2, 0.3, 7.6 x 10^7 deliveries, in 159 s; 2 x 10^6 in 8.5 s).
pub const SERVER_DELIVERIES_PER_SECOND: f64 = 5e5;
/// Memory the servers engine holds per request at its peak, rounded up (measured with
/// `/usr/bin/time -v`: 7,340,033 requests peak at 1,015,116 KB and 1,835,009 at 257,072 KB,
/// 142-144 bytes per request just after the key tables double).
pub const SERVER_BYTES_PER_REQUEST: u64 = 160;
/// Memory the servers engine holds whatever the requests (program, buffers).
pub const SERVER_BASE_BYTES: u64 = 16 << 20;
/// Memory one (run, p) result holds until the files are written, without its attempt counts:
/// the point, its share of `results.csv` and of the other files (measured: 10^6 points peak
/// at 580 MB, 2 x 10^6 at 1,146 MB, including the counts).
pub const POINT_BYTES: u64 = 640;
/// Seconds to summarise, render and write the files for one (run, p) (measured: 10^6 points
/// with `--requests 1` in 7.8 s, of which the model is a small part).
pub const REPORT_SECONDS_PER_POINT: f64 = 5e-6;

/// Attempts per second one thread simulates with three strategies (measured: 10^6 payments of
/// `configs/mobile-network.toml`, one copy each, about 1.08 attempts per copy, in 1.0 s on one
/// thread; 150 payments of 1,000 copies of 1,001 attempts, every answer lost, in 81.5 s).
pub const TIMELINE_ATTEMPTS_PER_SECOND_PER_THREAD: f64 = 1e6;

/// Messages per second one thread simulates in the contention model (measured:
/// `configs/aws-backoff.toml`, about 8.5 × 10^7 messages, in about 2 s on one thread).
pub const CONTENTION_MESSAGES_PER_SECOND_PER_THREAD: f64 = 4e7;

/// Events per second one thread handles in the load model (measured with `benches/load.rs`:
/// 2.3 to 2.6 x 10^6 events/s on one thread of the shared 2-core machine, under load).
pub const LOAD_EVENTS_PER_SECOND_PER_THREAD: f64 = 2e6;
/// Events per attempt the estimate plans on: its timeout, its request reaching the server, the
/// worker's end, its answer reaching the client, and a retry's send (measured: 4.7 to 4.9 per
/// attempt in the committed load runs, one more per payment for its arrival).
pub const LOAD_EVENTS_PER_ATTEMPT: f64 = 5.0;
/// Memory one time-series bucket kept for the files holds (bytes): the bucket (80 bytes), as
/// much again of its vector's spare capacity at worst, and its row of `load_timeseries.csv`
/// (measured: 136 bytes per bucket, 4 x 10^6 and 1.6 x 10^7 buckets of 1 ms).
pub const LOAD_BYTES_PER_BUCKET: u64 = 216;
/// Memory run 0's buckets hold for the charts, per bucket (bytes; measured: 46).
pub const LOAD_CHART_BYTES_PER_BUCKET: u64 = 64;
/// Seconds to close, write and chart one bucket kept for the files (measured: 1.6 x 10^7
/// buckets of 1 ms in 11.4 s, 4 x 10^6 in 3.3 s, charts included).
pub const LOAD_SECONDS_PER_BUCKET: f64 = 8e-7;
/// Memory each client of a population holds in every loop (bytes): its state.
pub const LOAD_BYTES_PER_CLIENT: u64 = std::mem::size_of::<ClientState>() as u64;
/// Memory one payment in flight holds (bytes): its slot, its events on the agenda and its
/// request in the queue, with their vectors' spare capacity (measured: 284 bytes per payment
/// with 10^6 and 2 x 10^6 payments in flight at once).
pub const LOAD_BYTES_PER_PAYMENT: u64 = 512;

/// What a run is expected to cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Wall-clock time, in seconds.
    pub seconds: f64,
    /// Memory the model holds at its peak, in bytes (saturating at `u64::MAX`).
    pub memory_bytes: u64,
}

/// The threads that really run at once: the `threads` asked, at most the machine's `cores`
/// and the run's `tasks` that can run in parallel (one simulation runs on one thread).
pub fn threads_at_once(threads: usize, cores: usize, tasks: u64) -> usize {
    let tasks = usize::try_from(tasks).unwrap_or(usize::MAX);
    threads.min(cores).min(tasks).max(1)
}

/// The share of attempts that get no success answer: those lost on the way
/// (`request_loss`), failed by the server (`error_rate`) or whose answer is lost
/// (`ack_loss`); all of them when the typical round trip (`round_trip_ms`, the medians of the
/// latencies and the processing added) is not shorter than `timeout_ms`.
pub fn failure_share(
    request_loss: f64,
    error_rate: f64,
    ack_loss: f64,
    round_trip_ms: f64,
    timeout_ms: f64,
) -> f64 {
    if round_trip_ms >= timeout_ms {
        return 1.0;
    }
    1.0 - (1.0 - request_loss) * (1.0 - error_rate) * (1.0 - ack_loss)
}

/// The median of a duration distribution (ms).
fn median_ms(distribution: &Distribution) -> f64 {
    distribution.quantile(0.5)
}

/// The mean of a duration distribution (ms): a log-normal's is `median × e^(σ²/2)`.
fn mean_ms(distribution: &Distribution) -> f64 {
    match *distribution {
        Distribution::Fixed { ms } => ms,
        Distribution::Uniform { low_ms, high_ms } => (low_ms + high_ms) / 2.0,
        Distribution::Exponential { mean_ms } => mean_ms,
        Distribution::LogNormal { median_ms, p99_ms } => {
            let sigma = (p99_ms / median_ms).ln() / Z_99;
            median_ms * (sigma * sigma / 2.0).exp()
        }
    }
}

/// Expected deliveries of one request: `1 + p + p^2 + ... + p^max_retries`.
pub fn expected_attempts(ack_loss: f64, max_retries: u32) -> f64 {
    if ack_loss >= 1.0 {
        return f64::from(max_retries) + 1.0;
    }
    // The geometric sum in closed form; p^(n+1) underflows harmlessly to 0.
    (1.0 - ack_loss.powf(f64::from(max_retries) + 1.0)) / (1.0 - ack_loss)
}

/// About the largest attempt count any of `requests` requests makes at `ack_loss`: the `k`
/// with `requests · p^k` near 1/20 (the chance that one goes further), at most `R + 1`.
pub fn largest_attempts(requests: u64, ack_loss: f64, max_retries: u32) -> u64 {
    let limit = u64::from(max_retries) + 1;
    if ack_loss >= 1.0 {
        return limit;
    }
    if ack_loss <= 0.0 {
        return 1;
    }
    let beyond = (20.0 * requests as f64).ln() / -ack_loss.ln();
    limit.min(1 + beyond.ceil().max(0.0) as u64)
}

/// The memory the results of every (run, p) hold until the files are written.
fn results_bytes(model: &ArticleModel) -> u64 {
    let per_run: u64 = model
        .ack_loss
        .iter()
        .map(|&p| POINT_BYTES + 8 * largest_attempts(model.requests, p, model.max_retries))
        .fold(0u64, u64::saturating_add);
    per_run.saturating_mul(u64::from(model.runs))
}

/// The expected cost of running `model` on `engine`, files included.
pub fn estimate(model: &ArticleModel, engine: Engine) -> Estimate {
    let runs = f64::from(model.runs);
    let requests = model.requests as f64 * runs;
    let points = model.ack_loss.len() as f64 * runs;
    let report_seconds = points * REPORT_SECONDS_PER_POINT;
    let results = results_bytes(model);
    match engine {
        Engine::Fast { threads } => {
            // One pass serves every p; its retries are those of the largest p.
            let largest = model.ack_loss.iter().copied().fold(0.0, f64::max);
            let retries = requests * (expected_attempts(largest, model.max_retries) - 1.0);
            let threads = threads.max(1) as f64;
            let pass = (requests / FAST_REQUESTS_PER_SECOND_PER_THREAD
                + retries / FAST_RETRIES_PER_SECOND_PER_THREAD)
                / threads;
            let rounds = largest_attempts(model.requests, largest, model.max_retries) as f64;
            let p_values = model.ack_loss.len() as f64;
            let histograms =
                runs * p_values * p_values * rounds / FAST_HISTOGRAM_ADDITIONS_PER_SECOND;
            Estimate {
                seconds: pass + histograms + report_seconds,
                memory_bytes: results,
            }
        }
        Engine::Servers => {
            let deliveries: f64 = model
                .ack_loss
                .iter()
                .map(|&p| requests * expected_attempts(p, model.max_retries))
                .sum();
            Estimate {
                seconds: deliveries / SERVER_DELIVERIES_PER_SECOND + report_seconds,
                memory_bytes: model
                    .requests
                    .saturating_mul(SERVER_BYTES_PER_REQUEST)
                    .saturating_add(SERVER_BASE_BYTES)
                    .saturating_add(results),
            }
        }
    }
}

/// The threads a timeline run of `model` keeps busy at once, of `threads` asked on `cores`:
/// the payments of one run and scenario are cut into chunks of [`CHUNK_PAYMENTS`], one chunk
/// per thread.
pub fn timeline_threads(model: &TimelineModel, threads: usize, cores: usize) -> usize {
    threads_at_once(threads, cores, model.payments.div_ceil(CHUNK_PAYMENTS))
}

/// The expected cost of a timeline run on `threads` threads running at once (see
/// [`timeline_threads`]): every copy's expected attempts, for every payment, run and scenario
/// and the TTL sweep's run 0, at [`TIMELINE_ATTEMPTS_PER_SECOND_PER_THREAD`] for three
/// strategies. Its memory is bounded by the payments in flight in one chunk, not by the
/// total, so only time is estimated.
pub fn estimate_timeline(model: &TimelineModel, threads: usize) -> Estimate {
    let attempts: f64 = model
        .scenarios
        .iter()
        .map(|scenario| {
            let network = &scenario.network;
            let round_trip_ms = median_ms(&network.request_latency)
                + median_ms(&scenario.processing)
                + median_ms(&network.response_latency);
            let failing = failure_share(
                network.request_loss,
                scenario.key.error_rate,
                network.ack_loss,
                round_trip_ms,
                scenario.client.timeout_ms,
            );
            f64::from(scenario.arrivals.copies)
                * expected_attempts(failing, scenario.client.max_retries)
        })
        .sum();
    let runs = f64::from(model.runs) + model.ttl_sweep_ms.len() as f64;
    let work = model.payments as f64 * runs * attempts * (model.strategies.len() as f64 / 3.0);
    Estimate {
        seconds: work / (TIMELINE_ATTEMPTS_PER_SECOND_PER_THREAD * threads.max(1) as f64),
        memory_bytes: 0,
    }
}

/// The threads a contention run of `model` keeps busy at once, of `threads` asked on
/// `cores`: one chunk of 16 simulations per thread.
pub fn contention_threads(model: &ContentionModel, threads: usize, cores: usize) -> usize {
    threads_at_once(threads, cores, model.simulations().div_ceil(16))
}

/// The expected cost of a contention run on `threads` threads running at once (see
/// [`contention_threads`]). `n` clients without backoff
/// make about `n + n²/4` writes (each of 4 messages); the jittered policies make fewer, so this
/// is an upper estimate. Memory is a few events per client.
pub fn estimate_contention(model: &ContentionModel, threads: usize) -> Estimate {
    let writes: f64 = model
        .clients
        .iter()
        .map(|&clients| {
            let n = f64::from(clients);
            n + n * n / 4.0
        })
        .sum();
    let messages = 4.0 * writes * f64::from(model.runs) * model.policies.len() as f64;
    Estimate {
        seconds: messages / (CONTENTION_MESSAGES_PER_SECOND_PER_THREAD * threads.max(1) as f64),
        memory_bytes: 0,
    }
}

/// The threads a load run of `model` keeps busy at once, of `threads` asked on `cores`: one
/// event loop per thread.
pub fn load_threads(model: &LoadModel, threads: usize, cores: usize) -> usize {
    threads_at_once(threads, cores, model.simulations())
}

/// What a load run is expected to cost, by part.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadEstimate {
    /// Wall-clock time (s).
    pub seconds: f64,
    /// Time-series buckets kept for the files, every loop but the error-rate sweep's
    /// (buckets).
    pub buckets: f64,
    /// Memory of the series: those buckets and run 0's charts (bytes).
    pub series_bytes: f64,
    /// Event loops running at once: one per thread asked, at most the loops (loops).
    pub loops_at_once: usize,
    /// Memory of the largest loop at its peak, without the buckets kept: its clients, its
    /// payments in flight, and its own buckets when an error-rate sweep drops them (bytes).
    pub loop_bytes: f64,
}

impl LoadEstimate {
    /// Memory at the peak: the series and every loop running at once (bytes, saturating).
    pub fn memory_bytes(&self) -> u64 {
        let total = self.series_bytes + self.loops_at_once as f64 * self.loop_bytes;
        // A float beyond `u64::MAX` converts to `u64::MAX`.
        total as u64
    }
}

/// One load scenario as the estimate sees it: its payments, their attempts, how long the
/// last of them lasts and what the server holds.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LoadShape {
    /// Expected payments (payments).
    payments: f64,
    /// Expected attempts per payment (attempts).
    attempts: f64,
    /// Time-series buckets of one loop, drain included, at most [`MAX_BUCKETS`] (buckets).
    buckets: f64,
    /// Payments in flight at the peak, at most every payment (payments).
    in_flight: f64,
}

/// The share of the arrival window `[0, duration_ms)` a window overlaps (ms).
fn overlap_ms(window: &Window, duration_ms: f64) -> f64 {
    (window.to_ms.min(duration_ms) - window.from_ms).max(0.0)
}

/// The highest arrival rate of a scenario (payments per ms).
fn peak_rate_per_ms(scenario: &LoadScenario) -> f64 {
    scenario
        .arrivals
        .phases
        .iter()
        .map(|phase| match phase.rate {
            PhaseRate::Constant(rate) => rate,
            PhaseRate::Ramp { from, to } => from.max(to),
        })
        .fold(0.0, f64::max)
        / 1000.0
}

/// A load scenario's payments, attempts, buckets (with `bucket_ms`) and payments in flight,
/// at the server's `error_rate` (its own, or an error-rate sweep's):
///
/// - the attempts are [`expected_attempts`] at the [`failure_share`] of an attempt;
/// - a payment lasts at most its longest chain of attempts, [`largest_attempts`] of them,
///   each a timeout when attempts can go unanswered (else a round trip), with the longest
///   backoff between them, cut at the payment deadline;
/// - the server's backlog at the end of the window is the calls (payments × attempts) beyond
///   what its workers can process in the window (their mean processing time, slope included
///   at every worker busy; all of them wait with no worker limit when the slope grows faster
///   than they leave), at most the queue limit; the drain is that backlog processed, then
///   the longest payment;
/// - the payments in flight are those arriving at the peak rate during a payment's longest
///   life, plus the backlog, at most every payment.
fn load_shape(scenario: &LoadScenario, bucket_ms: f64, error_rate: f64) -> LoadShape {
    let arrivals = &scenario.arrivals;
    let (network, server, client) = (&scenario.network, &scenario.server, &scenario.client);
    let payments = arrivals.expected_payments();
    let slope = server.processing_per_in_flight_ms;
    let round_trip_ms = median_ms(&network.request_latency)
        + median_ms(&server.processing)
        + slope
        + median_ms(&network.response_latency);
    let failing = failure_share(
        network.request_loss,
        error_rate,
        network.ack_loss,
        round_trip_ms,
        client.timeout_ms,
    );
    let attempts = expected_attempts(failing, client.max_retries);
    // The longest payment.
    let silent = 1.0 - (1.0 - network.request_loss) * (1.0 - network.ack_loss);
    let attempt_ms = if silent > 0.0 || round_trip_ms >= client.timeout_ms {
        client.timeout_ms
    } else {
        round_trip_ms
    };
    let chain = largest_attempts(payments.ceil() as u64, failing, client.max_retries);
    let backoffs: f64 = (0..chain.saturating_sub(1).min(u64::from(u32::MAX)) as u32)
        .map(|retry| client.backoff.max_delay_ms(retry))
        .sum();
    let life_ms = (chain as f64 * attempt_ms + backoffs)
        .min(client.payment_deadline_ms.unwrap_or(f64::INFINITY));
    // The server's backlog.
    let calls = payments * attempts;
    let peak_per_ms = peak_rate_per_ms(scenario);
    let (backlog, drain_ms) = match server.workers {
        Some(workers) => {
            let service_ms = mean_ms(&server.processing) + slope * f64::from(workers);
            let reduced: f64 = server
                .capacity
                .iter()
                .map(|change| {
                    (f64::from(workers) - f64::from(change.workers))
                        * overlap_ms(&change.window, arrivals.duration_ms)
                })
                .sum();
            let worker_ms = f64::from(workers) * arrivals.duration_ms - reduced;
            let mut backlog =
                (calls - worker_ms.max(0.0) / service_ms.max(f64::MIN_POSITIVE)).max(0.0);
            if let Some(limit) = server.queue_limit {
                backlog = backlog.min(f64::from(limit));
            }
            (backlog, backlog * service_ms / f64::from(workers))
        }
        None => {
            // Little's law with the slope: n = rate × (base + slope × n).
            let base_ms = mean_ms(&server.processing);
            let load = peak_per_ms * slope;
            let busy = if load < 1.0 {
                (peak_per_ms * base_ms / (1.0 - load)).min(calls)
            } else {
                calls
            };
            (0.0, base_ms + slope * busy)
        }
    };
    let series_ms = arrivals.duration_ms + drain_ms + life_ms;
    let buckets = ((series_ms / bucket_ms).ceil() + 1.0).min(MAX_BUCKETS as f64);
    let in_flight = (peak_per_ms * life_ms + backlog).min(payments).max(1.0);
    LoadShape {
        payments,
        attempts,
        buckets,
        in_flight,
    }
}

/// The expected cost of a load run of `model` with `threads` threads asked on `cores`:
///
/// - time: per loop, the expected payments times one arrival and
///   [`LOAD_EVENTS_PER_ATTEMPT`] per expected attempt, at [`LOAD_EVENTS_PER_SECOND_PER_THREAD`]
///   on the threads running at once ([`load_threads`]), and the buckets kept at
///   [`LOAD_SECONDS_PER_BUCKET`];
/// - memory: the buckets of every loop kept for the files at [`LOAD_BYTES_PER_BUCKET`] and
///   run 0's for the charts at [`LOAD_CHART_BYTES_PER_BUCKET`], and in each of the loops
///   running at once (one per thread asked: each holds its own state, on a core or not), the
///   largest scenario's clients at [`LOAD_BYTES_PER_CLIENT`] and payments in flight at
///   [`LOAD_BYTES_PER_PAYMENT`].
pub fn estimate_load(model: &LoadModel, threads: usize, cores: usize) -> LoadEstimate {
    let strategies = model.strategies.len() as f64;
    let runs = f64::from(model.runs);
    let bucket_ms = model.bucket_ms;
    // Per scenario: its own loops' shape, then each sweep point's.
    let shapes: Vec<(LoadShape, Vec<LoadShape>)> = model
        .scenarios
        .iter()
        .map(|scenario| {
            let own = load_shape(scenario, bucket_ms, scenario.server.error_rate);
            let swept = model
                .error_rate_sweep
                .iter()
                .map(|&rate| load_shape(scenario, bucket_ms, rate))
                .collect();
            (own, swept)
        })
        .collect();
    let events_of =
        |shape: &LoadShape| shape.payments * (1.0 + LOAD_EVENTS_PER_ATTEMPT * shape.attempts);
    let events: f64 = shapes
        .iter()
        .map(|(own, swept)| events_of(own) + swept.iter().map(events_of).sum::<f64>())
        .sum::<f64>()
        * runs
        * strategies;
    let per_run_buckets: f64 = shapes.iter().map(|(own, _)| own.buckets).sum::<f64>() * strategies;
    let buckets = per_run_buckets * runs;
    let threads_busy = load_threads(model, threads, cores) as f64;
    let seconds = events / (LOAD_EVENTS_PER_SECOND_PER_THREAD * threads_busy)
        + buckets * LOAD_SECONDS_PER_BUCKET;
    let series_bytes = buckets * LOAD_BYTES_PER_BUCKET as f64
        + per_run_buckets * LOAD_CHART_BYTES_PER_BUCKET as f64;
    // A sweep's loop holds its own buckets until it ends; the others' are in the series.
    let loop_bytes = model
        .scenarios
        .iter()
        .zip(&shapes)
        .flat_map(|(scenario, (own, swept))| {
            let clients = f64::from(scenario.arrivals.clients.unwrap_or(0));
            let clients_bytes = clients * LOAD_BYTES_PER_CLIENT as f64;
            let held = |shape: &LoadShape| shape.in_flight * LOAD_BYTES_PER_PAYMENT as f64;
            std::iter::once(clients_bytes + held(own)).chain(swept.iter().map(move |shape| {
                clients_bytes + held(shape) + shape.buckets * LOAD_BYTES_PER_BUCKET as f64
            }))
        })
        .fold(0.0, f64::max);
    let loops = usize::try_from(model.simulations()).unwrap_or(usize::MAX);
    LoadEstimate {
        seconds,
        buckets,
        series_bytes,
        loops_at_once: threads.clamp(1, loops.max(1)),
        loop_bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(ack_loss: Vec<f64>, requests: u64, max_retries: u32, runs: u32) -> ArticleModel {
        ArticleModel {
            ack_loss,
            requests,
            max_retries,
            seed: 42,
            runs,
        }
    }

    #[test]
    fn expected_attempts_is_the_geometric_sum() {
        // Summed term by term: 1 + 0.5 + 0.25 + 0.125.
        assert!((expected_attempts(0.5, 3) - 1.875).abs() < 1e-12);
        assert_eq!(expected_attempts(0.0, 20), 1.0);
        assert_eq!(expected_attempts(1.0, 20), 21.0);
        assert_eq!(expected_attempts(0.3, 0), 1.0);
    }

    #[test]
    fn fast_estimates_scale_with_requests_runs_and_threads() {
        // 1e12 requests x 2 runs at p = 0 on 4 threads: 2e12 / (7e8 x 4) = 714.2857 s, no
        // retries, one round of histograms (2 / 5e9 s) and 2 points to write (1e-5 s).
        let estimate = estimate(
            &model(vec![0.0], 1_000_000_000_000, 20, 2),
            Engine::Fast { threads: 4 },
        );
        let expected = 2e12 / 2.8e9 + 2.0 / 5e9 + 2.0 * 5e-6;
        assert!((estimate.seconds - expected).abs() < 1e-6, "{estimate:?}");
        // Two points of 640 bytes and one attempt count each.
        assert_eq!(estimate.memory_bytes, 2 * (640 + 8));
    }

    #[test]
    fn contention_estimates_grow_with_the_square_of_the_clients() {
        use crate::model::contention::{ContentionModel, ContentionSetup, Delay, Policy};
        let model = ContentionModel {
            title: "t".into(),
            seed: 1,
            runs: 10,
            clients: vec![100, 200],
            policies: vec![Policy::None, Policy::FullJitter],
            base_ms: 5.0,
            cap_ms: 2_000.0,
            setup: ContentionSetup {
                delay: Delay::FoldedNormal {
                    mean_ms: 10.0,
                    sd_ms: 2.0,
                },
                max_retries: None,
            },
        };
        // Writes per run: (100 + 2,500) + (200 + 10,000) = 12,800; x 4 messages x 10 runs x
        // 2 policies = 1,024,000 messages; / (4e7 x 2 threads) = 0.0128 s.
        let estimate = estimate_contention(&model, 2);
        assert!((estimate.seconds - 0.0128).abs() < 1e-12, "{estimate:?}");
        // 10 runs x 2 client counts x 2 policies = 40 simulations, 3 chunks of 16.
        assert_eq!(contention_threads(&model, 1024, 2), 2);
        assert_eq!(contention_threads(&model, 1024, 64), 3);
    }

    #[test]
    fn servers_estimates_count_deliveries_and_memory() {
        // p = 1 with 4 retries: 5 deliveries per request; 1e6 requests -> 5e6 deliveries,
        // plus p = 0: 1e6 more; 6e6 / 5e5 = 12 s, plus 2 points to write. Memory: 1e6 x 160
        // bytes + 16 MiB, plus the points: 640 + 8 x 5 counts at p = 1, 640 + 8 at p = 0.
        let estimate = estimate(&model(vec![1.0, 0.0], 1_000_000, 4, 1), Engine::Servers);
        assert!(
            (estimate.seconds - (12.0 + 1e-5)).abs() < 1e-9,
            "{estimate:?}"
        );
        assert_eq!(estimate.memory_bytes, 160_000_000 + (16 << 20) + 680 + 648);
        let huge = super::estimate(&model(vec![0.1], u64::MAX, 0, 1), Engine::Servers);
        assert_eq!(huge.memory_bytes, u64::MAX);
    }

    /// Wall-clock times measured with the release build (`/usr/bin/time -v`, 2 cores); the
    /// estimate must be within a factor of 3 of each, whole run (files included).
    #[test]
    fn estimates_are_within_a_factor_of_three_of_measured_runs() {
        let ten_thousand_p: Vec<f64> = (0..10_000).map(|i| f64::from(i) / 10_000.0).collect();
        let thousand_p: Vec<f64> = (0..1_000).map(|i| f64::from(i) / 1_000.0).collect();
        let tenths: Vec<f64> = (0..10).map(|i| f64::from(i) / 10.0).collect();
        for (what, model, engine, measured) in [
            (
                "--engine servers --requests 20000000 --p 0.1,0.2,0.3",
                model(vec![0.1, 0.2, 0.3], 20_000_000, 20, 1),
                Engine::Servers,
                159.0,
            ),
            (
                "--engine servers --requests 2000000 --p 0.1,0.2,0.3",
                model(vec![0.1, 0.2, 0.3], 2_000_000, 20, 1),
                Engine::Servers,
                8.5,
            ),
            (
                "--requests 2000000000 --threads 1",
                model(vec![0.01, 0.05, 0.1], 2_000_000_000, 20, 1),
                Engine::Fast { threads: 1 },
                5.0,
            ),
            (
                "--requests 200000000 --threads 1 --p 0.9",
                model(vec![0.9], 200_000_000, 20, 1),
                Engine::Fast { threads: 1 },
                16.4,
            ),
            (
                "--runs 40 --p 0:0.9999:0.0001 --requests 1",
                model(ten_thousand_p, 1, 20, 40),
                Engine::Fast { threads: 2 },
                18.6,
            ),
            (
                "--runs 2000 --p 0:0.999:0.001 --requests 1",
                model(thousand_p, 1, 20, 2_000),
                Engine::Fast { threads: 2 },
                16.9,
            ),
            (
                "--runs 100000 --p 0:0.9:0.1 --max-retries 1000 --requests 1",
                model(tenths, 1, 1_000, 100_000),
                Engine::Fast { threads: 2 },
                7.8,
            ),
        ] {
            let seconds = estimate(&model, engine).seconds;
            assert!(
                (measured / 3.0..=measured * 3.0).contains(&seconds),
                "{what}: estimated {seconds} s, measured {measured} s"
            );
        }
    }

    /// The largest attempt count grows like log(requests) / log(1/p), capped at R + 1.
    #[test]
    fn largest_attempts_follow_the_tail() {
        assert_eq!(largest_attempts(1_000, 0.0, 20), 1);
        assert_eq!(largest_attempts(1_000, 1.0, 20), 21);
        // 20 x 10^4 = 2 x 10^5 = 10^5.3: ln / ln 10 = 5.3 -> 6 more attempts at p = 0.1.
        assert_eq!(largest_attempts(10_000, 0.1, 20), 7);
        assert_eq!(largest_attempts(1, 0.9999, 20), 21);
    }
    /// A load or timeline file's model, as the command line reads it (no flags).
    fn load_model(text: &str) -> LoadModel {
        let path = std::path::Path::new("estimate.toml");
        match crate::config::Job::from_text(text, path, &Default::default()) {
            Ok(crate::config::Job::Load(config)) => config.model,
            other => panic!("not a load file: {other:?}"),
        }
    }

    /// The adversary's retry storm: 100 payments per second for 240 s, every processing
    /// fails, retried at once up to 1,000 times, 100 workers, 1 ms of processing.
    const STORM: &str = "model = \"timeline\"\n[arrivals]\nrate_per_s = 100\nduration_s = 240\n\
        [server]\nworkers = 100\nerror_rate = 1.0\nprocessing = { distribution = \"fixed\", ms = 1 }\n\
        [client]\nmax_retries = 1000\nbackoff = { policy = \"none\" }\n";

    #[test]
    fn threads_at_once_are_the_fewest_of_threads_cores_and_tasks() {
        assert_eq!(threads_at_once(1024, 2, 32), 2);
        assert_eq!(threads_at_once(16, 2, 1), 1);
        assert_eq!(threads_at_once(4, 8, 100), 4);
        assert_eq!(threads_at_once(0, 2, 5), 1);
        assert_eq!(threads_at_once(3, 8, u64::MAX), 3);
    }

    #[test]
    fn an_attempt_fails_when_lost_either_way_failed_or_too_slow() {
        // mobile-network: 2% of requests and 5% of answers lost: 1 - 0.98 x 0.95.
        let share = failure_share(0.02, 0.0, 0.05, 100.0, 1_000.0);
        assert!((share - 0.069).abs() < 1e-12, "{share}");
        // A server error on top: 1 - 0.98 x 0.5 x 0.95 = 0.5345.
        let share = failure_share(0.02, 0.5, 0.05, 100.0, 1_000.0);
        assert!((share - 0.5345).abs() < 1e-12, "{share}");
        // A round trip of 10^9 ms never beats a 1 s timeout.
        assert_eq!(failure_share(0.0, 0.0, 0.0, 1e9, 1_000.0), 1.0);
        assert_eq!(failure_share(0.0, 0.0, 0.0, 10.0, 1_000.0), 0.0);
    }

    #[test]
    fn timeline_estimates_count_every_attempt() {
        // 150 payments x 1,000 copies, every answer lost: each copy makes all 1,001 attempts;
        // three strategies at 10^6 attempts per second on one thread (150 payments are one
        // chunk): 150 x 1,000 x 1,001 / 10^6 = 150.15 s (it ran 81.5 s).
        let text = "model = \"timeline\"\npayments = 150\n[arrivals]\ncopies = 1000\n[network]\n\
                    ack_loss = 1.0\n[client]\ntimeout_ms = 1000\nmax_retries = 1000\n\
                    backoff = { policy = \"none\" }\n";
        let path = std::path::Path::new("lost.toml");
        let Ok(crate::config::Job::Timeline(config)) =
            crate::config::Job::from_text(text, path, &Default::default())
        else {
            panic!("a timeline file")
        };
        let model = config.model;
        assert_eq!(model.strategies.len(), 3);
        assert_eq!(timeline_threads(&model, 2, 2), 1);
        assert_eq!(timeline_threads(&model, 1024, 2), 1);
        let seconds = estimate_timeline(&model, 1).seconds;
        assert!((seconds - 150.15).abs() < 1e-9, "{seconds}");
    }

    #[test]
    fn load_estimates_count_every_attempt() {
        // 24,000 payments of 1,001 attempts (every processing fails): 1 + 5 x 1,001 = 5,006
        // events each, 4 strategies: 480,576,000 events at 2 x 10^6 per second on 2 threads
        // (4 loops on 2 cores): 120.144 s. Each loop keeps 283 buckets of 1 s: the window
        // (240 s), the backlog (24,024,000 calls for 100 workers x 240,000 ms / 1 ms =
        // 24,000,000: 24,000 more, 240 ms of work) and the longest payment (1,001 round trips
        // of 20 + 1 + 20 ms = 41,041 ms): 281,281 ms, 282 buckets and one more; 1,132 buckets
        // at 8 x 10^-7 s.
        let model = load_model(STORM);
        assert_eq!(load_threads(&model, 2, 2), 2);
        assert_eq!(load_threads(&model, 1024, 2), 2);
        assert_eq!(load_threads(&model, 1024, 64), 4);
        let estimate = estimate_load(&model, 2, 2);
        assert_eq!(estimate.buckets, 1_132.0);
        let expected = 480_576_000.0 / 4e6 + 1_132.0 * 8e-7;
        assert!((estimate.seconds - expected).abs() < 1e-9, "{estimate:?}");
    }

    #[test]
    fn load_memory_counts_buckets_clients_and_payments_in_flight() {
        // The time series: 4 runs x 4 strategies of 10^6 buckets of 1 ms (the window's 10^6
        // already reach the limit): 1.6 x 10^7 x 216 bytes, and run 0's 4 x 10^6 x 64 for the
        // charts: 3,712,000,000 bytes; each of the 2 loops at once holds one payment (512).
        let series = load_model(
            "model = \"timeline\"\nruns = 4\n[arrivals]\nrate_per_s = 1\nduration_s = 1000\n\
             [server]\nworkers = 4\n[output]\nbucket_s = 0.001\n",
        );
        let estimate = estimate_load(&series, 2, 2);
        assert_eq!(estimate.buckets, 1.6e7);
        assert_eq!(estimate.memory_bytes(), 3_712_000_000 + 2 * 512);
        // The clients: 10^7 of 72 bytes in each of 16 loops at once (16 threads asked, 32
        // loops), one payment in flight each; 8 runs x 4 strategies of 12 buckets of 1 s (10 s
        // and the longest payment's 90 ms round trip: 11 and one more): 384 x 216 + 48 x 64.
        let crowd = load_model(
            "model = \"timeline\"\nruns = 8\n[arrivals]\nclients = 10000000\nrate_per_s = 1\n\
             duration_s = 10\n[server]\nworkers = 4\n",
        );
        assert_eq!(LOAD_BYTES_PER_CLIENT, 72);
        let estimate = estimate_load(&crowd, 16, 2);
        assert_eq!(estimate.loops_at_once, 16);
        assert_eq!(estimate.loop_bytes, 720_000_512.0);
        assert_eq!(
            estimate.memory_bytes(),
            384 * 216 + 48 * 64 + 16 * 720_000_512
        );
        // Payments in flight: 10^6 per second for 1 s, each served 2,000 ms by workers without
        // a limit: the 2,040 ms round trip at 1,000 per ms is 2.04 x 10^6, at most the 10^6
        // payments, 512 bytes each.
        let flight = load_model(
            "model = \"timeline\"\nstrategies = [\"unique_key\"]\n[arrivals]\n\
             rate_per_s = 1000000\nduration_s = 1\n[server]\n\
             processing = { distribution = \"fixed\", ms = 2000 }\n\
             [client]\ntimeout_ms = 5000\nmax_retries = 0\n",
        );
        assert_eq!(estimate_load(&flight, 1, 2).loop_bytes, 512e6);
        // 10^9 per second for 60 s at 4 workers: every payment is still queued at the end.
        let flood = load_model(
            "model = \"timeline\"\n[arrivals]\nrate_per_s = 1e9\n[server]\nworkers = 4\n",
        );
        assert_eq!(estimate_load(&flood, 2, 2).loop_bytes, 6e10 * 512.0);
    }

    /// Load runs measured with the release build (`/usr/bin/time -v`, the shared 2-core
    /// machine): the estimates of time and memory are within a factor of 3 of each.
    #[test]
    fn load_estimates_are_within_a_factor_of_three_of_measured_runs() {
        let window = "[arrivals]\nrate_per_s = 1\nduration_s = 1000\n[server]\nworkers = 4\n\
                      [output]\nbucket_s = 0.001\n";
        let drain = "[arrivals]\nrate_per_s = 1\nduration_s = 10\n[server]\nworkers = 1\n\
                     processing = { distribution = \"fixed\", ms = 1e9 }\n[output]\nbucket_s = 1\n";
        let flight = "strategies = [\"unique_key\"]\n[arrivals]\nrate_per_s = 1000000\n\
                      duration_s = 1\n[server]\nprocessing = { distribution = \"fixed\", ms = 2000 }\n\
                      [client]\ntimeout_ms = 5000\nmax_retries = 0\n";
        let crowd = "strategies = [\"none\"]\n[arrivals]\nrate_per_s = 10\nduration_s = 1\n\
                     clients = 10000000\n[server]\nworkers = 2\n";
        // (what, file after `model`, threads, seconds, peak resident KiB)
        for (what, text, threads, seconds, kib) in [
            (
                "10^6 buckets, 1 run",
                format!("runs = 1\n{window}"),
                2,
                3.31,
                711_172.0,
            ),
            (
                "10^6 buckets, 4 runs",
                format!("runs = 4\n{window}"),
                2,
                11.36,
                2_309_848.0,
            ),
            (
                "a drain of 4 x 10^7 s",
                drain.to_string(),
                2,
                4.43,
                723_544.0,
            ),
            (
                "10^6 payments in flight",
                flight.to_string(),
                1,
                0.69,
                282_156.0,
            ),
            ("10^7 clients", crowd.to_string(), 1, 0.30, 707_732.0),
        ] {
            let model = load_model(&format!("model = \"timeline\"\n{text}"));
            let estimate = estimate_load(&model, threads, 2);
            let bytes = kib * 1024.0;
            let memory = estimate.memory_bytes() as f64;
            assert!(
                (bytes / 3.0..=bytes * 3.0).contains(&memory),
                "{what}: estimated {memory} bytes, measured {bytes}"
            );
            // Runs under a second are mostly the program starting.
            if seconds >= 1.0 {
                assert!(
                    (seconds / 3.0..=seconds * 3.0).contains(&estimate.seconds),
                    "{what}: estimated {} s, measured {seconds} s",
                    estimate.seconds
                );
            }
        }
    }
}
