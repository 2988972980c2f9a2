//! What one event loop counts: totals, time-weighted queue and in-flight histograms, and the
//! time series by bucket. The totals ([`LoadCounts`]) and a bucket ([`Bucket`]) are each
//! declared once, field, doc and unit, in the column order of the CSV that writes them.

engine::counters! {
    /// Totals of one event loop (counts over the whole run, drain included), declared once:
    /// the fields in `load.csv`'s column order, each documented with its meaning and unit, and
    /// `events` in the trailing group (the CSV's last column, after the derived ones).
    pub struct LoadCounts {
        /// Payments issued during the arrival window.
        payments: "payments",
        /// Payments that got a success answer.
        succeeded: "payments",
        /// Payments given up without a success answer: retries exhausted, deadline passed or a
        /// retry refused.
        failed: "payments",
        /// Deliveries that reached the server, answered or not: server work.
        calls: "deliveries",
        /// Attempts the clients sent: first sends plus retries.
        attempts: "attempts",
        /// Retries sent.
        retries: "attempts",
        /// Retries refused by the token bucket, the adaptive bucket, the breaker or the retry
        /// budget.
        throttled: "retries",
        /// Deliveries answered 503 at once because the queue was full.
        shed: "deliveries",
        /// Deliveries a worker dropped unprocessed because they had waited longer than their
        /// client's timeout (`drop_expired`).
        dropped_expired: "deliveries",
        /// Attempts whose client stopped waiting (timeout or payment deadline).
        timeouts: "attempts",
        /// Deliveries answered 409 because their key was in flight (unless
        /// `duplicate_answer` is `ok_200` or `error_500`), or stored under
        /// `duplicate_answer = "conflict_409"`.
        conflicts: "deliveries",
        /// Deliveries answered with a stored response, or with a receiver's 200 or 500 to a
        /// duplicate (`duplicate_answer = "ok_200"` or `"error_500"`).
        replays: "deliveries",
        /// Deliveries that waited for their key's lock holding a worker (`lock_wait`).
        lock_waits: "deliveries",
        /// Deliveries a worker processed: each charges or fails with a 500.
        processings: "processings",
        /// Processings that failed with a 500.
        server_errors: "processings",
        /// Charges made.
        charges: "charges",
        /// Payments charged two or more times: customers charged twice.
        double_charges: "payments",
        /// Charges made by deliveries a worker took after their key had been pruned (`key_ttl_ms`).
        expired_key_charges: "charges",
        /// Payments given up although charged: told it failed, money taken.
        failed_charged: "payments",
        /// Processings finished for an attempt its client had already stopped waiting for (timed
        /// out, answered by another attempt, or given up): wasted work.
        wasted_work: "processings",
        /// Answers the server sent: one per call not dropped.
        answers: "answers",
        /// Requests lost on the way to the server, to `request_loss` or an outage.
        lost_requests: "attempts",
        /// Answers lost on the way back, to `ack_loss` or an outage.
        lost_answers: "answers",
    }
    trailing {
        /// Events the loop handled.
        events: "events",
    }
}

engine::counters! {
    /// What the key store did in one event loop (issue #30): crashes, keys lost, locks left in
    /// flight and the other store's outages, declared once in `load_key_store.csv`'s column
    /// order (written when some scenario sets a crash rate, another key store or its outages).
    pub struct KeyStoreCounts {
        /// Processings that crashed before the charge: nothing done, no answer.
        crashes_before_charge: "processings",
        /// Processings that crashed after the charge, before the key was saved: no answer.
        crashes_after_charge: "processings",
        /// Processings that crashed after saving the key, before answering.
        crashes_after_save: "processings",
        /// Charges rolled back with their transaction by a crash (`same_transaction`).
        charges_lost_by_crash: "charges",
        /// Writes of the key to the other store after the commit that failed
        /// (`key_write_failure`, or the store down).
        key_write_failures: "writes",
        /// Committed charges whose key was never stored: a later delivery charges again.
        keys_lost: "charges",
        /// `key_first` keys left in flight by a crash or a failed write (409s until their lock
        /// expires or the completer runs).
        keys_abandoned: "keys",
        /// Of those, the keys the completer completed or released before their lock expired.
        completer_recoveries: "keys",
        /// Deliveries that found their payment's `key_first` lock expired while the key was
        /// still in flight (its request crashed, or still waited or processed): the store had
        /// dropped it, and the delivery reserved it again.
        lock_expiries: "deliveries",
        /// Deliveries answered 503 at once because the key store was down
        /// (`on_unavailable = "fail_closed"`).
        key_store_unavailable: "deliveries",
        /// Deliveries processed without their key because the key store was down
        /// (`on_unavailable = "fail_open"`): double charges possible.
        unkeyed_processings: "deliveries",
    }
}

engine::counters! {
    /// What became of retries sent with another body under the same key
    /// (`different_body_rate`), declared once in `load_bodies.csv`'s column order (written
    /// when some scenario sets a different body rate). The names are the timeline model's.
    pub struct BodyCounts {
        /// Deliveries answered 422 because their body did not match the key's fingerprint;
        /// nothing charged.
        rejected_mismatches: "deliveries",
        /// Deliveries answered with the stored success of another body because the server
        /// keeps no fingerprint.
        wrong_replays: "deliveries",
        /// Payments told they succeeded although no charge was made with the body the success
        /// answered: a replay of another body's success, or of a key no charge of the
        /// payment's own body made.
        told_succeeded_not_charged: "payments",
    }
}

engine::counters! {
    /// The receipts of the charges (`[receipts]`), declared once in `load_receipts.csv`'s
    /// column order (written when some scenario sends receipts). The names are the timeline
    /// model's.
    pub struct ReceiptCounts {
        /// Receipts that reached customers: one per charge sent directly, one per payment
        /// through the outbox (its sender deduplicates by message id).
        receipts_sent: "receipts",
        /// Receipts beyond one per payment: customers who got two or more.
        receipts_duplicated: "receipts",
        /// Payments charged but whose customer got no receipt (a direct send that failed, or
        /// a crash before it).
        receipts_missing: "payments",
        /// Sends of a receipt that failed: lost when direct, retried by the outbox's sender.
        receipt_send_failures: "sends",
    }
}

engine::counters! {
    /// The calls to the downstream provider (`[provider]`), declared once in
    /// `load_provider.csv`'s column order (written when some scenario has a provider). The
    /// names are the timeline model's.
    pub struct ProviderCounts {
        /// Calls the server made to the provider, retries included.
        provider_calls: "calls",
        /// Provider calls with no answer in time: lost either way or slower than the provider
        /// timeout.
        provider_timeouts: "calls",
        /// Charges the provider made: the money that moved.
        provider_charges: "charges",
        /// Provider charges beyond one per payment: money moved twice.
        duplicate_provider_charges: "charges",
    }
}

super::record::record! {
    /// One time-series bucket: what happened during `[start, start + width)`, in
    /// `load_timeseries.csv`'s column order.
    pub struct Bucket {
        /// New payments.
        arrivals: Count "payments",
        /// Retries sent.
        retries: Count "attempts",
        /// Payments that got their success answer.
        successes: Count "payments",
        /// Attempts timed out at their client.
        timeouts: Count "attempts",
        /// 409 answers.
        conflicts: Count "deliveries",
        /// 503 answers.
        shed: Count "deliveries",
        /// Deliveries that reached the server.
        calls: Count "deliveries",
        /// Time-averaged requests waiting for a worker (3 decimals in CSV).
        queue_length: Mean "requests",
        /// Time-averaged workers busy, lock waiters included (3 decimals in CSV).
        workers_busy: Mean "workers",
        /// Payments charged two or more times so far, cumulative.
        double_charges: Count "payments",
    }
    /// A value of a [`Bucket`] column.
    pub enum BucketValue {
        /// A count over the bucket, or cumulative (a whole number).
        Count(u64),
        /// A time average over the bucket.
        Mean(f64),
    }
}

/// A histogram of time spent at each integer level (queue length, requests in the server).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TimeHistogram {
    /// Time (ms) spent at each level.
    time_at: Vec<f64>,
}

impl TimeHistogram {
    /// `duration_ms` spent at `level`.
    #[inline]
    pub fn add(&mut self, level: usize, duration_ms: f64) {
        match self.time_at.get_mut(level) {
            Some(time) => *time += duration_ms,
            None => self.grow_to(level, duration_ms),
        }
    }

    /// The first time at `level` or above: the levels up to it start at 0.
    #[cold]
    fn grow_to(&mut self, level: usize, duration_ms: f64) {
        self.time_at.resize(level, 0.0);
        self.time_at.push(duration_ms);
    }

    /// The smallest level at or below which a share `q` of the time was spent.
    pub fn quantile(&self, q: f64) -> u64 {
        let total: f64 = self.time_at.iter().sum();
        let mut seen = 0.0;
        for (level, &time) in self.time_at.iter().enumerate() {
            seen += time;
            if seen >= q * total && time > 0.0 {
                return level as u64;
            }
        }
        self.max()
    }

    /// The highest level reached for some time.
    pub fn max(&self) -> u64 {
        self.time_at
            .iter()
            .rposition(|&time| time > 0.0)
            .unwrap_or(0) as u64
    }

    /// The time-weighted mean level.
    pub fn mean(&self) -> f64 {
        let total: f64 = self.time_at.iter().sum();
        if total == 0.0 {
            return 0.0;
        }
        let weighted: f64 = self
            .time_at
            .iter()
            .enumerate()
            .map(|(level, &time)| level as f64 * time)
            .sum();
        weighted / total
    }
}

/// Everything one event loop reports.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LoadTally {
    /// The totals.
    pub counts: LoadCounts,
    /// What the key store did (all 0 with the default key settings).
    pub key_store: KeyStoreCounts,
    /// What the retries with another body met (all 0 without a different body rate).
    pub bodies: BodyCounts,
    /// The charges' receipts (all 0 without `[receipts]`).
    pub receipts: ReceiptCounts,
    /// The calls to the provider (all 0 without `[provider]`).
    #[serde(default)]
    pub provider: ProviderCounts,
    /// Time spent at each queue length.
    pub queue: TimeHistogram,
    /// Time spent at each number of requests inside the server (queued or holding a worker).
    pub in_flight: TimeHistogram,
    /// Requests that left the queue for a worker, at once or after waiting (requests).
    pub dequeued: u64,
    /// Their total wait in the queue (ms).
    pub queue_wait_ms: f64,
    /// The time series, bucket 0 from 0 ms.
    pub buckets: Vec<Bucket>,
    /// The queueing metrics over the steady-state window.
    pub steady: super::Steady,
    /// When the last event happened (ms).
    pub end_ms: f64,
    /// When the run recovered from its trigger (ms of simulated time), as [`recovery`]
    /// defines it: the start of the first window after the trigger from which every window of
    /// `[output] recovery_window_s` until the arrivals end has a success ratio at least 90%
    /// of the pre-trigger one. `Some(0.0)` without a trigger; `None`: it never recovered.
    pub recovered_at_ms: Option<f64>,
    /// Whether the scenario has a trigger (capacity change, outage or spike).
    pub has_trigger: bool,
    /// Payment slots the run allocated: the most payments held at once (in flight, waiting
    /// to retry, or given up but still referred to by a queued request or a pending event).
    /// The run's memory grows with this, not with the payments issued (slots).
    pub payment_slots: usize,
}

impl LoadTally {
    /// The mean wait in the queue of the requests that left it (ms).
    pub fn mean_queue_wait_ms(&self) -> f64 {
        if self.dequeued == 0 {
            0.0
        } else {
            self.queue_wait_ms / self.dequeued as f64
        }
    }

    /// Whether the run recovered after its trigger.
    pub fn recovered(&self) -> bool {
        self.recovered_at_ms.is_some()
    }
}

/// The share of the baseline's success ratio a window must reach to count as healthy: 90%.
pub const RECOVERY_THRESHOLD: f64 = 0.9;

/// When a run recovered from its trigger windows `triggers` (sorted by start; see
/// [`LoadScenario::trigger_windows`](super::LoadScenario::trigger_windows)), from its time
/// series `buckets` of `bucket_ms` each, judged over windows of `window_buckets` buckets
/// (at least 1), up to the end of the arrivals at `arrivals_end_ms`:
///
/// - the **baseline** is the success ratio before the trigger: the successes over the
///   arrivals of the buckets that end by the first trigger's start (1 when they have no
///   arrival, e.g. a trigger from 0 s);
/// - a **window** of `window_buckets` consecutive buckets is healthy when its successes are at
///   least [`RECOVERY_THRESHOLD`] × baseline × its arrivals (a window without arrivals is);
/// - the windows considered start at every bucket from the first that starts at or after the
///   last trigger's end, up to the last window that ends by the end of the arrivals (when
///   fewer buckets than a window are left, one window covers them all);
/// - the run **recovered at** the start of the earliest such window from which every later
///   window is healthy too: back, and staying back until the arrivals end. A single bad
///   bucket undoes that only if it pulls a whole window below the threshold.
///
/// `Some(0.0)` without a trigger (nothing to recover from: recovered from the start);
/// `None` if it never recovered, or no bucket is left after the trigger before the
/// arrivals end.
pub fn recovery(
    buckets: &[Bucket],
    bucket_ms: f64,
    window_buckets: usize,
    triggers: &[super::Window],
    arrivals_end_ms: f64,
) -> Option<f64> {
    let (Some(first_trigger), Some(trigger_end)) = (
        triggers.first(),
        triggers.iter().map(|window| window.to_ms).reduce(f64::max),
    ) else {
        return Some(0.0);
    };
    let ratio_sums = |range: &[Bucket]| {
        range
            .iter()
            .fold((0u64, 0u64), |(successes, arrivals), bucket| {
                (successes + bucket.successes, arrivals + bucket.arrivals)
            })
    };
    let before = ((first_trigger.from_ms / bucket_ms).floor() as usize).min(buckets.len());
    let baseline = match ratio_sums(&buckets[..before]) {
        (_, 0) => 1.0,
        (successes, arrivals) => successes as f64 / arrivals as f64,
    };
    let first = (trigger_end / bucket_ms).ceil() as usize;
    let last = ((arrivals_end_ms / bucket_ms).ceil() as usize).min(buckets.len());
    if first >= last {
        return None;
    }
    let window = window_buckets.max(1);
    let healthy = |start: usize| {
        let (successes, arrivals) = ratio_sums(&buckets[start..(start + window).min(last)]);
        successes as f64 >= RECOVERY_THRESHOLD * baseline * arrivals as f64
    };
    let last_start = last.saturating_sub(window).max(first);
    let mut since = None;
    for start in (first..=last_start).rev() {
        if !healthy(start) {
            break;
        }
        since = Some(start);
    }
    since.map(|start| start as f64 * bucket_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_columns_are_its_fields_in_order() {
        let bucket = Bucket {
            arrivals: 3,
            queue_length: 1.5,
            double_charges: 2,
            ..Bucket::default()
        };
        let columns: Vec<_> = bucket.columns().collect();
        assert_eq!(columns.len(), 10);
        assert_eq!(columns[0], ("arrivals", BucketValue::Count(3)));
        assert_eq!(columns[7], ("queue_length", BucketValue::Mean(1.5)));
        assert_eq!(columns[9], ("double_charges", BucketValue::Count(2)));
    }

    #[test]
    fn time_weighted_quantiles() {
        let mut histogram = TimeHistogram::default();
        histogram.add(0, 90.0);
        histogram.add(5, 9.0);
        histogram.add(40, 1.0);
        assert_eq!(histogram.quantile(0.5), 0);
        assert_eq!(histogram.quantile(0.95), 5);
        assert_eq!(histogram.quantile(0.995), 40);
        assert_eq!(histogram.max(), 40);
        assert!((histogram.mean() - (45.0 + 40.0) / 100.0).abs() < 1e-12);
    }

    /// `buckets` with the successes of some changed, as (bucket, successes).
    fn with_successes(buckets: &[Bucket], changed: &[(usize, u64)]) -> Vec<Bucket> {
        let mut buckets = buckets.to_vec();
        for &(index, successes) in changed {
            buckets[index].successes = successes;
        }
        buckets
    }

    /// Buckets of 1 s as (arrivals, successes).
    fn series(counts: &[(u64, u64)]) -> Vec<Bucket> {
        counts
            .iter()
            .map(|&(arrivals, successes)| Bucket {
                arrivals,
                successes,
                ..Bucket::default()
            })
            .collect()
    }

    /// The trigger window from 2 s to 4 s.
    const TRIGGER: [super::super::Window; 1] = [super::super::Window {
        from_ms: 2_000.0,
        to_ms: 4_000.0,
    }];

    /// Worked by hand, windows of 3 buckets, arrivals until 12 s. Baseline: buckets 0 and 1,
    /// 18 successes of 20 arrivals = 0.9, so a window is healthy at 0.9 × 0.9 = 0.81 of its
    /// arrivals, 24.3 of 30. Windows from 4 s (the trigger's end) to 9 s (the last ending by
    /// 12 s): 4: 5 + 9 + 10 = 24 (not healthy); 5: 9 + 10 + 6 = 25; 6: 26; 7: 26; 8: 29;
    /// 9: 29. Recovered at 5 s: the dip to 6 of 10 at 7 s does not undo it (a rule on single
    /// buckets at 90% would say 8 s), and the drain's bucket at 12 s is not judged.
    #[test]
    fn a_single_dip_after_recovery_does_not_undo_it() {
        let mut counts = vec![(10, 10), (10, 8), (10, 2), (10, 1), (10, 5), (10, 9)];
        counts.extend([
            (10, 10),
            (10, 6),
            (10, 10),
            (10, 10),
            (10, 9),
            (10, 10),
            (0, 3),
        ]);
        let buckets = series(&counts);
        assert_eq!(
            recovery(&buckets, 1_000.0, 3, &TRIGGER, 12_000.0),
            Some(5_000.0)
        );
        // A dip that lasts: buckets 7 and 8 at 4 of 10. Windows 6: 18, 7: 18, 8: 4 + 10 + 9
        // = 23, all below 24.3; 9: 29. Back at 9 s.
        let lasting = with_successes(&buckets, &[(7, 4), (8, 4)]);
        assert_eq!(
            recovery(&lasting, 1_000.0, 3, &TRIGGER, 12_000.0),
            Some(9_000.0)
        );
        // The last window below it (10: 5, 11: 0, so window 9 has 10 + 5 + 0 = 15): never.
        let relapse = with_successes(&buckets, &[(10, 5), (11, 0)]);
        assert_eq!(recovery(&relapse, 1_000.0, 3, &TRIGGER, 12_000.0), None);
        // Windows of one bucket are the single-bucket rule against 0.81: bucket 7 (6 of 10)
        // undoes it, and bucket 8 on is healthy.
        assert_eq!(
            recovery(&buckets, 1_000.0, 1, &TRIGGER, 12_000.0),
            Some(8_000.0)
        );
        // Fewer buckets than a window after the trigger: one window of buckets 4 and 5, 14 of
        // 20 = 0.7 < 0.81 (arrivals end at 6 s): never; 7 and 10 give 17 of 20 = 0.85: back.
        assert_eq!(recovery(&buckets, 1_000.0, 3, &TRIGGER, 6_000.0), None);
        let quick = with_successes(&buckets, &[(4, 7), (5, 10)]);
        assert_eq!(
            recovery(&quick, 1_000.0, 3, &TRIGGER, 6_000.0),
            Some(4_000.0)
        );
    }

    /// Without a trigger a run is recovered from its start, however it went; a trigger that
    /// lasts until the arrivals end leaves nothing to recover in.
    #[test]
    fn no_trigger_reads_recovered_at_zero_and_a_trigger_to_the_end_never() {
        let buckets = series(&[(10, 0), (10, 0), (10, 0)]);
        assert_eq!(recovery(&buckets, 1_000.0, 5, &[], 3_000.0), Some(0.0));
        assert_eq!(recovery(&buckets, 1_000.0, 5, &TRIGGER, 4_000.0), None);
    }
}
