//! What a timeline run will cost: every copy's expected attempts (retries included, at the
//! share of attempts that fail), for every payment, run and scenario and the TTL sweep's run
//! 0, at a measured rate on the threads that really run at once. Its memory is bounded by the
//! payments in flight in one chunk, not by the total, so only time is estimated.

use super::{CHUNK_PAYMENTS, TimelineModel};
use engine::estimate::{Estimate, expected_attempts, failure_share, threads_at_once};

/// Attempts per second one thread simulates with three strategies (measured: 10^6 payments of
/// `configs/mobile-network.toml`, one copy each, about 1.08 attempts per copy, in 1.0 s on one
/// thread; 150 payments of 1,000 copies of 1,001 attempts, every answer lost, in 81.5 s).
pub const TIMELINE_ATTEMPTS_PER_SECOND_PER_THREAD: f64 = 1e6;

/// The threads a timeline run of `model` keeps busy at once, of `threads` asked on `cores`:
/// the payments of one run and scenario are cut into chunks of [`CHUNK_PAYMENTS`], one chunk
/// per thread.
pub fn threads(model: &TimelineModel, threads: usize, cores: usize) -> usize {
    threads_at_once(threads, cores, model.payments.div_ceil(CHUNK_PAYMENTS))
}

/// The expected cost of a timeline run on `threads` threads running at once (see
/// [`threads`]): every copy's expected attempts, for every payment, run and scenario
/// and the TTL sweep's run 0, at [`TIMELINE_ATTEMPTS_PER_SECOND_PER_THREAD`] for three
/// strategies. Its memory is bounded by the payments in flight in one chunk, not by the
/// total, so only time is estimated.
pub fn estimate(model: &TimelineModel, threads: usize) -> Estimate {
    let attempts: f64 = model
        .scenarios
        .iter()
        .map(|scenario| {
            let network = &scenario.network;
            let round_trip_ms = network.request_latency.median_ms()
                + scenario.processing.median_ms()
                + network.response_latency.median_ms();
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
    let runs = f64::from(model.runs);
    let work = model.payments as f64 * runs * attempts * (model.strategies.len() as f64 / 3.0);
    Estimate {
        seconds: work / (TIMELINE_ATTEMPTS_PER_SECOND_PER_THREAD * threads.max(1) as f64),
        memory_bytes: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(threads(&model, 2, 2), 1);
        assert_eq!(threads(&model, 1024, 2), 1);
        let seconds = self::estimate(&model, 1).seconds;
        assert!((seconds - 150.15).abs() < 1e-9, "{seconds}");
    }
}
