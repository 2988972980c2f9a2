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
        /// Deliveries answered 409 because their key was in flight, or stored under
        /// `duplicate_answer = "conflict_409"`.
        conflicts: "deliveries",
        /// Deliveries answered with a stored response.
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

/// A value of a [`Bucket`] column.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BucketValue {
    /// A count over the bucket, or cumulative (a whole number).
    Count(u64),
    /// A time average over the bucket.
    Mean(f64),
}

/// Declares [`Bucket`] once: its fields, each a `Count` (`u64`) or a `Mean` (`f64`) with its
/// doc (meaning and unit), in `load_timeseries.csv`'s column order, and [`Bucket::columns`].
macro_rules! bucket {
    ( $( $(#[doc = $doc:literal])+ $name:ident: $kind:ident $unit:literal, )+ ) => {
        /// One time-series bucket: what happened during `[start, start + width)`.
        #[derive(Debug, Clone, Copy, Default, PartialEq)]
        pub struct Bucket {
            $( $(#[doc = $doc])+ pub $name: bucket!(@type $kind), )+
        }

        impl Bucket {
            /// Every field as `(column name, value)`, in column order.
            pub fn columns(&self) -> impl Iterator<Item = (&'static str, BucketValue)> + use<> {
                [$( (stringify!($name), BucketValue::$kind(self.$name)), )+].into_iter()
            }

            /// Every field's name, unit and doc, in column order.
            pub const COLUMNS: &'static [engine::counters::Column] = &[
                $( engine::counters::Column {
                    name: stringify!($name),
                    unit: $unit,
                    doc: &[$($doc),+],
                }, )+
            ];
        }
    };
    (@type Count) => { u64 };
    (@type Mean) => { f64 };
}

bucket! {
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

/// A histogram of time spent at each integer level (queue length, requests in the server).
#[derive(Debug, Clone, Default, PartialEq)]
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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadTally {
    /// The totals.
    pub counts: LoadCounts,
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
    /// When the run recovered from its trigger (ms): the start of the first bucket after the
    /// trigger from which every bucket until the arrivals end has successes at least 90% of
    /// its arrivals. `None`: no trigger, or it never recovered.
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

/// The recovery time: the start of the first bucket at or after `trigger_end_ms` from which
/// every bucket starting before `arrivals_end_ms` has `successes ≥ 0.9 × arrivals`.
pub fn recovery(
    buckets: &[Bucket],
    bucket_ms: f64,
    trigger_end_ms: f64,
    arrivals_end_ms: f64,
) -> Option<f64> {
    let first = (trigger_end_ms / bucket_ms).ceil() as usize;
    let last = ((arrivals_end_ms / bucket_ms).ceil() as usize).min(buckets.len());
    if first >= last {
        return None;
    }
    let healthy = |bucket: &Bucket| bucket.successes as f64 >= 0.9 * bucket.arrivals as f64;
    let mut since = None;
    for (index, bucket) in buckets.iter().enumerate().take(last).skip(first) {
        match (healthy(bucket), since) {
            (true, None) => since = Some(index),
            (false, _) => since = None,
            (true, Some(_)) => {}
        }
    }
    since.map(|index| index as f64 * bucket_ms)
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

    #[test]
    fn recovery_is_the_start_of_the_last_healthy_stretch() {
        let bucket = |arrivals, successes| Bucket {
            arrivals,
            successes,
            ..Bucket::default()
        };
        let buckets = [
            bucket(10, 10),
            bucket(10, 2),
            bucket(10, 9),
            bucket(10, 3),
            bucket(10, 12),
            bucket(10, 9),
            bucket(0, 0),
        ];
        // Trigger ends at 1 s; buckets 4 and 5 are healthy until the arrivals end at 6 s.
        assert_eq!(recovery(&buckets, 1_000.0, 1_000.0, 6_000.0), Some(4_000.0));
        // A bad last bucket: never recovered.
        let mut worse = buckets;
        worse[5] = bucket(10, 8);
        assert_eq!(recovery(&worse, 1_000.0, 1_000.0, 6_000.0), None);
    }
}
