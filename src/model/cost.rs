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

use super::article::{ArticleModel, Engine};
use super::contention::ContentionModel;
use super::load::LoadModel;
use super::timeline::TimelineModel;

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

/// Payment-copies per second one thread simulates with three strategies (measured: 10^6
/// payments of `configs/mobile-network.toml`, one copy each, in 1.0 s on one thread).
pub const TIMELINE_COPIES_PER_SECOND_PER_THREAD: f64 = 1e6;

/// Messages per second one thread simulates in the contention model (measured:
/// `configs/aws-backoff.toml`, about 8.5 × 10^7 messages, in about 2 s on one thread).
pub const CONTENTION_MESSAGES_PER_SECOND_PER_THREAD: f64 = 4e7;

/// Events per second one thread handles in the load model (measured with `benches/load.rs`:
/// 2.3 to 2.6 x 10^6 events/s on one thread of the shared 2-core machine, under load).
pub const LOAD_EVENTS_PER_SECOND_PER_THREAD: f64 = 2e6;
/// Events per payment the estimate plans on: arrival, send, reach, done, reply and timeout
/// of the first attempt, and as much again for retries (an upper estimate for healthy runs;
/// a retry storm can exceed it).
pub const LOAD_EVENTS_PER_PAYMENT: f64 = 12.0;

/// What a run is expected to cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Wall-clock time, in seconds.
    pub seconds: f64,
    /// Memory the model holds at its peak, in bytes (saturating at `u64::MAX`).
    pub memory_bytes: u64,
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

/// The expected cost of a timeline run on `threads` threads. Its memory is bounded by the
/// payments in flight in one chunk, not by the total, so only time is estimated.
pub fn estimate_timeline(model: &TimelineModel, threads: usize) -> Estimate {
    let copies: f64 = model
        .scenarios
        .iter()
        .map(|scenario| f64::from(scenario.arrivals.copies))
        .sum();
    let work = model.payments as f64
        * f64::from(model.runs)
        * copies
        * (model.strategies.len() as f64 / 3.0);
    Estimate {
        seconds: work / (TIMELINE_COPIES_PER_SECOND_PER_THREAD * threads.max(1) as f64),
        memory_bytes: 0,
    }
}

/// The expected cost of a contention run on `threads` threads. `n` clients without backoff
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

/// The expected cost of a load run on `threads` threads: the expected payments (the integral
/// of the arrival rate) times [`LOAD_EVENTS_PER_PAYMENT`] for every run, scenario and strategy.
/// Memory is bounded by the requests in flight and the time series, not estimated.
pub fn estimate_load(model: &LoadModel, threads: usize) -> Estimate {
    let payments: f64 = model
        .scenarios
        .iter()
        .map(|scenario| scenario.arrivals.expected_payments())
        .sum();
    let events =
        payments * LOAD_EVENTS_PER_PAYMENT * f64::from(model.runs) * model.strategies.len() as f64;
    Estimate {
        seconds: events / (LOAD_EVENTS_PER_SECOND_PER_THREAD * threads.max(1) as f64),
        memory_bytes: 0,
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
}
