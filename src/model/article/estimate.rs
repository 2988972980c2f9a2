//! What an article run will cost (time and memory), so that a run that would clearly take
//! very long or not fit in memory can say so before it starts. The rates are measured
//! (release build, `lto = "thin"`, on a 2-core x86-64 machine with AVX-512, under load), not
//! promises; the estimate aims to be within a factor of 3 of the wall-clock time. A run costs:
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

use super::{ArticleModel, Engine};
use engine::estimate::{Estimate, expected_attempts, largest_attempts};

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
    fn servers_estimates_count_deliveries_and_memory() {
        // p = 1 with 4 retries: 5 deliveries per request; 1e6 requests -> 5e6 deliveries,
        // plus p = 0: 1e6 more; 6e6 / 5e5 = 12 s, plus 2 points to write. Memory: 1e6 x 160
        // bytes + 16 MiB, plus the points: 640 + 8 x 5 counts at p = 1, 640 + 8 at p = 0.
        let estimate = self::estimate(&model(vec![1.0, 0.0], 1_000_000, 4, 1), Engine::Servers);
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
        // Each row the measured command's flags (`--p`, `--requests`, `--max-retries`,
        // `--runs`, `--engine servers` or `--threads`) and its wall-clock seconds.
        let servers = Engine::Servers;
        let fast = |threads| Engine::Fast { threads };
        let cases = [
            (vec![0.1, 0.2, 0.3], 20_000_000, 20, 1, servers, 159.0),
            (vec![0.1, 0.2, 0.3], 2_000_000, 20, 1, servers, 8.5),
            (vec![0.01, 0.05, 0.1], 2_000_000_000, 20, 1, fast(1), 5.0),
            (vec![0.9], 200_000_000, 20, 1, fast(1), 16.4),
            (ten_thousand_p, 1, 20, 40, fast(2), 18.6),
            (thousand_p, 1, 20, 2_000, fast(2), 16.9),
            (tenths, 1, 1_000, 100_000, fast(2), 7.8),
        ];
        for (p, requests, max_retries, runs, engine, measured) in cases {
            let what = format!(
                "{engine:?}, {} p values from {} to {}, {requests} requests, {max_retries} \
                 retries, {runs} runs",
                p.len(),
                p[0],
                p[p.len() - 1]
            );
            let model = model(p, requests, max_retries, runs);
            let seconds = self::estimate(&model, engine).seconds;
            assert!(
                (measured / 3.0..=measured * 3.0).contains(&seconds),
                "{what}: estimated {seconds} s, measured {measured} s"
            );
        }
    }
}
