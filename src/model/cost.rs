//! Rough estimates of what a run will cost (time and memory), so that a run that would
//! clearly take very long or not fit in memory can say so before it starts.
//!
//! The rates are measured orders of magnitude, not promises: the fast engine walks about
//! [`FAST_REQUESTS_PER_SECOND_PER_THREAD`] requests per second per thread, the servers engine
//! sends about [`SERVER_DELIVERIES_PER_SECOND`] deliveries per second to both servers and keeps
//! about [`SERVER_BYTES_PER_REQUEST`] bytes per request (attempt counters, flags, both ledgers).

use super::article::{ArticleModel, Engine};
use super::contention::ContentionModel;
use super::timeline::TimelineModel;

/// Requests the fast engine walks per second on one thread (including the jumps of retries).
pub const FAST_REQUESTS_PER_SECOND_PER_THREAD: f64 = 5e8;
/// Deliveries per second the servers engine sends through both servers.
pub const SERVER_DELIVERIES_PER_SECOND: f64 = 1e7;
/// Memory the servers engine holds per request at its peak (measured: 4 million requests at
/// p = 0.1 peak at 514 MB, 1 million at 134 MB; hash tables grow by doubling).
pub const SERVER_BYTES_PER_REQUEST: u64 = 128;

/// Payment-copies per second one thread simulates with three strategies (measured: 10^6
/// payments of `configs/mobile-network.toml`, one copy each, in 1.0 s on one thread).
pub const TIMELINE_COPIES_PER_SECOND_PER_THREAD: f64 = 1e6;

/// Messages per second one thread simulates in the contention model (measured:
/// `configs/aws-backoff.toml`, about 8.5 × 10^7 messages, in about 2 s on one thread).
pub const CONTENTION_MESSAGES_PER_SECOND_PER_THREAD: f64 = 4e7;

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

/// The expected cost of running `model` on `engine`.
pub fn estimate(model: &ArticleModel, engine: Engine) -> Estimate {
    let requests = model.requests as f64 * f64::from(model.runs);
    match engine {
        Engine::Fast { threads } => {
            // One pass serves every p; its retries are those of the largest p.
            let largest = model.ack_loss.iter().copied().fold(0.0, f64::max);
            let work = requests * expected_attempts(largest, model.max_retries);
            Estimate {
                seconds: work / (FAST_REQUESTS_PER_SECOND_PER_THREAD * threads.max(1) as f64),
                memory_bytes: 0,
            }
        }
        Engine::Servers => {
            let deliveries: f64 = model
                .ack_loss
                .iter()
                .map(|&p| requests * expected_attempts(p, model.max_retries))
                .sum();
            Estimate {
                seconds: deliveries / SERVER_DELIVERIES_PER_SECOND,
                memory_bytes: model.requests.saturating_mul(SERVER_BYTES_PER_REQUEST),
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
        // 1e12 requests x 2 runs, p = 0: 2e12 / (5e8 x 4) = 1000 s.
        let estimate = estimate(
            &model(vec![0.0], 1_000_000_000_000, 20, 2),
            Engine::Fast { threads: 4 },
        );
        assert!((estimate.seconds - 1000.0).abs() < 1e-6, "{estimate:?}");
        assert_eq!(estimate.memory_bytes, 0);
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
        // plus p = 0: 1e6 more; 6e6 / 1e7 = 0.6 s; 1e6 x 128 bytes.
        let estimate = estimate(&model(vec![1.0, 0.0], 1_000_000, 4, 1), Engine::Servers);
        assert!((estimate.seconds - 0.6).abs() < 1e-9, "{estimate:?}");
        assert_eq!(estimate.memory_bytes, 128_000_000);
        let huge = super::estimate(&model(vec![0.1], u64::MAX, 0, 1), Engine::Servers);
        assert_eq!(huge.memory_bytes, u64::MAX);
    }
}
