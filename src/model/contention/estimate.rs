//! What a contention run will cost: `n` clients without backoff make about `n + n²/4` writes
//! of 4 messages each (the jittered policies make fewer, so this is an upper estimate), at a
//! measured rate on the threads that really run at once. Memory is a few events per client.

use super::ContentionModel;
use engine::estimate::{Estimate, threads_at_once};

/// Messages per second one thread simulates in the contention model (measured:
/// `configs/aws-backoff.toml`, about 8.5 × 10^7 messages, in about 2 s on one thread).
pub const CONTENTION_MESSAGES_PER_SECOND_PER_THREAD: f64 = 4e7;

/// The threads a contention run of `model` keeps busy at once, of `threads` asked on
/// `cores`: one chunk of 16 simulations per thread.
pub fn threads(model: &ContentionModel, threads: usize, cores: usize) -> usize {
    threads_at_once(threads, cores, model.simulations().div_ceil(16))
}

/// The expected cost of a contention run on `threads` threads running at once (see
/// [`threads`]). `n` clients without backoff
/// make about `n + n²/4` writes (each of 4 messages); the jittered policies make fewer, so this
/// is an upper estimate. Memory is a few events per client.
pub fn estimate(model: &ContentionModel, threads: usize) -> Estimate {
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
        let estimate = self::estimate(&model, 2);
        assert!((estimate.seconds - 0.0128).abs() < 1e-12, "{estimate:?}");
        // 10 runs x 2 client counts x 2 policies = 40 simulations, 3 chunks of 16.
        assert_eq!(threads(&model, 1024, 2), 2);
        assert_eq!(threads(&model, 1024, 64), 3);
    }
}
