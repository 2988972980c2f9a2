//! What a load run will cost (time and memory): per event loop the expected payments and
//! their attempts (retries included) at a measured event rate on the threads that really run
//! at once; its memory counts its time series (every bucket kept for the files, and run 0's
//! for the charts), and, in each loop running at once, its client population and its
//! payments in flight.

use super::client::{ClientState, ControlState};
use super::{LoadModel, LoadScenario, MAX_BUCKETS, PhaseRate, Window};
use engine::estimate::{expected_attempts, failure_share, largest_attempts, threads_at_once};

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
/// Memory a client's or a payment's retry-control state holds on the heap when a scenario has
/// gRPC's throttling, Envoy's or Finagle's budget or the adaptive throttling (bytes): its
/// counts and the slices of its two windows.
pub const LOAD_CONTROL_BYTES: u64 = std::mem::size_of::<ControlState>() as u64;
/// Memory one payment in flight holds (bytes): its slot, its events on the agenda and its
/// request in the queue, with their vectors' spare capacity (measured: 284 bytes per payment
/// with 10^6 and 2 x 10^6 payments in flight at once).
pub const LOAD_BYTES_PER_PAYMENT: u64 = 512;

/// The threads a load run of `model` keeps busy at once, of `threads` asked on `cores`: one
/// event loop per thread.
pub fn threads(model: &LoadModel, threads: usize, cores: usize) -> usize {
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
///   life, plus the backlog, at most every payment; each copy of a payment (double clicks)
///   sends its own attempts and holds its own slot.
fn load_shape(scenario: &LoadScenario, bucket_ms: f64, error_rate: f64) -> LoadShape {
    let arrivals = &scenario.arrivals;
    let (network, server, client) = (&scenario.network, &scenario.server, &scenario.client);
    let payments = arrivals.expected_payments();
    let slope = server.processing_per_in_flight_ms;
    let round_trip_ms = network.request_latency.median_ms()
        + server.processing.median_ms()
        + slope
        + network.response_latency.median_ms();
    let failing = failure_share(
        network.request_loss,
        error_rate,
        network.ack_loss,
        round_trip_ms,
        client.timeout_ms,
    );
    // Each copy of a payment sends its own attempts and holds its own slot.
    let copies = f64::from(arrivals.copies.count);
    let attempts = expected_attempts(failing, client.max_retries) * copies;
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
            let service_ms = server.processing.mean_ms() + slope * f64::from(workers);
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
            let base_ms = server.processing.mean_ms();
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
    let in_flight = ((peak_per_ms * life_ms + backlog).min(payments) * copies).max(1.0);
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
///   on the threads running at once ([`threads`]), and the buckets kept at
///   [`LOAD_SECONDS_PER_BUCKET`];
/// - memory: the buckets of every loop kept for the files at [`LOAD_BYTES_PER_BUCKET`] and
///   run 0's for the charts at [`LOAD_CHART_BYTES_PER_BUCKET`], and in each of the loops
///   running at once (one per thread asked: each holds its own state, on a core or not), the
///   largest scenario's clients at [`LOAD_BYTES_PER_CLIENT`] and payments in flight at
///   [`LOAD_BYTES_PER_PAYMENT`], each with [`LOAD_CONTROL_BYTES`] more when the scenario has
///   one of the controls that keep it.
pub fn estimate(model: &LoadModel, threads: usize, cores: usize) -> LoadEstimate {
    let strategies = model.strategies.len() as f64;
    let runs = f64::from(model.runs);
    let bucket_ms = model.bucket_ms;
    // Per scenario: its loops' shape.
    let shapes: Vec<LoadShape> = model
        .scenarios
        .iter()
        .map(|scenario| load_shape(scenario, bucket_ms, scenario.server.error_rate))
        .collect();
    let events_of =
        |shape: &LoadShape| shape.payments * (1.0 + LOAD_EVENTS_PER_ATTEMPT * shape.attempts);
    let events: f64 = shapes.iter().map(events_of).sum::<f64>() * runs * strategies;
    let per_run_buckets: f64 = shapes.iter().map(|own| own.buckets).sum::<f64>() * strategies;
    let buckets = per_run_buckets * runs;
    let threads_busy = self::threads(model, threads, cores) as f64;
    let seconds = events / (LOAD_EVENTS_PER_SECOND_PER_THREAD * threads_busy)
        + buckets * LOAD_SECONDS_PER_BUCKET;
    let series_bytes = buckets * LOAD_BYTES_PER_BUCKET as f64
        + per_run_buckets * LOAD_CHART_BYTES_PER_BUCKET as f64;
    // A loop's buckets are in the series; it holds its clients and payments in flight.
    let loop_bytes = model
        .scenarios
        .iter()
        .zip(&shapes)
        .map(|(scenario, own)| {
            let clients = f64::from(scenario.arrivals.clients.unwrap_or(0));
            let control = if scenario.client.controls == Default::default() {
                0.0
            } else {
                LOAD_CONTROL_BYTES as f64
            };
            clients * (LOAD_BYTES_PER_CLIENT as f64 + control)
                + own.in_flight * (LOAD_BYTES_PER_PAYMENT as f64 + control)
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
    fn load_estimates_count_every_attempt() {
        // 24,000 payments of 1,001 attempts (every processing fails): 1 + 5 x 1,001 = 5,006
        // events each, 4 strategies: 480,576,000 events at 2 x 10^6 per second on 2 threads
        // (4 loops on 2 cores): 120.144 s. Each loop keeps 283 buckets of 1 s: the window
        // (240 s), the backlog (24,024,000 calls for 100 workers x 240,000 ms / 1 ms =
        // 24,000,000: 24,000 more, 240 ms of work) and the longest payment (1,001 round trips
        // of 20 + 1 + 20 ms = 41,041 ms): 281,281 ms, 282 buckets and one more; 1,132 buckets
        // at 8 x 10^-7 s.
        let model = load_model(STORM);
        assert_eq!(threads(&model, 2, 2), 2);
        assert_eq!(threads(&model, 1024, 2), 2);
        assert_eq!(threads(&model, 1024, 64), 4);
        let estimate = self::estimate(&model, 2, 2);
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
        let estimate = self::estimate(&series, 2, 2);
        assert_eq!(estimate.buckets, 1.6e7);
        assert_eq!(estimate.memory_bytes(), 3_712_000_000 + 2 * 512);
        // The clients: 10^7 of 80 bytes in each of 16 loops at once (16 threads asked, 32
        // loops), one payment in flight each; 8 runs x 4 strategies of 12 buckets of 1 s (10 s
        // and the longest payment's 90 ms round trip: 11 and one more): 384 x 216 + 48 x 64.
        let crowd = load_model(
            "model = \"timeline\"\nruns = 8\n[arrivals]\nclients = 10000000\nrate_per_s = 1\n\
             duration_s = 10\n[server]\nworkers = 4\n",
        );
        assert_eq!(LOAD_BYTES_PER_CLIENT, 80);
        let estimate = self::estimate(&crowd, 16, 2);
        assert_eq!(estimate.loops_at_once, 16);
        assert_eq!(estimate.loop_bytes, 800_000_512.0);
        assert_eq!(
            estimate.memory_bytes(),
            384 * 216 + 48 * 64 + 16 * 800_000_512
        );
        // With a control that keeps state, each client and payment holds 2,064 bytes more on
        // the heap: gRPC's tokens (8), Envoy's two counts (4 + 4), Finagle's 10 slices (a
        // width, a head and 10 x 8) and the adaptive throttling's two windows of 120 slices
        // (2 x (8 + 8 + 120 x 8)).
        assert_eq!(LOAD_CONTROL_BYTES, 8 + 4 + 4 + (16 + 80) + 2 * (16 + 960));
        let controlled = load_model(
            "model = \"timeline\"\nruns = 8\n[arrivals]\nclients = 10000000\nrate_per_s = 1\n\
             duration_s = 10\n[server]\nworkers = 4\n[client]\nretry_client = \"grpc\"\n",
        );
        assert_eq!(
            self::estimate(&controlled, 16, 2).loop_bytes,
            1e7 * (80.0 + 2_064.0) + 512.0 + 2_064.0
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
        assert_eq!(self::estimate(&flight, 1, 2).loop_bytes, 512e6);
        // 10^9 per second for 60 s at 4 workers: every payment is still queued at the end.
        let flood = load_model(
            "model = \"timeline\"\n[arrivals]\nrate_per_s = 1e9\n[server]\nworkers = 4\n",
        );
        assert_eq!(self::estimate(&flood, 2, 2).loop_bytes, 6e10 * 512.0);
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
            let estimate = self::estimate(&model, threads, 2);
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
