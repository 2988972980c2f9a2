//! The arithmetic every model's run-time estimate shares: what an estimate holds, the threads
//! that really run at once, the share of attempts that fail, and the expected and largest
//! number of attempts of a retried request (a geometric law).

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_attempts_is_the_geometric_sum() {
        // Summed term by term: 1 + 0.5 + 0.25 + 0.125.
        assert!((expected_attempts(0.5, 3) - 1.875).abs() < 1e-12);
        assert_eq!(expected_attempts(0.0, 20), 1.0);
        assert_eq!(expected_attempts(1.0, 20), 21.0);
        assert_eq!(expected_attempts(0.3, 0), 1.0);
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
}
