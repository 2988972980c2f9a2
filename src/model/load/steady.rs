//! The queueing view of one event loop, measured over its steady-state window `[warm_up,
//! duration)` (the arrival window after the warm-up, `[output] warm_up_s`): the workers'
//! utilisation, the share of deliveries that waited, the waits in the queue, the times in
//! the server and the payments' end-to-end latencies (means and HdrHistogram percentiles, as
//! the timeline model's latencies), and the time-averaged number in the system.
//!
//! What it measures, so that a queueing model can be checked against it:
//! - a **delivery** (one request reaching the server) is observed when it reaches the server
//!   within the window and a worker takes it (a 503 is never taken); its **wait** runs from
//!   reaching the server to a worker taking it, its **time in server** from reaching the server
//!   to leaving it: the end of its processing, its 409 or replay, its drop, or for a lock waiter
//!   the release of the lock;
//! - a **payment** is observed when it arrives within the window; its **latency** runs from its
//!   first send to its success answer or to its client giving up (as in the timeline model);
//! - the **time averages** (workers busy, requests in the system: queued or holding a worker,
//!   lock waiters included) are integrated exactly between events over the window.
//!
//! The loop keeps its histograms while it runs and hands back only the numbers
//! ([`Steady`]), so a kept row costs the same whatever its latencies.

use engine::latency::LatencyHistogram;

use super::{LoadServer, Window};

super::record::record! {
    /// An event loop's queueing metrics over its steady-state window (see the module), in
    /// `load.csv`'s column order.
    pub struct Steady {
        /// Payments that arrived in the steady-state window (`[output] warm_up_s` to the end of
        /// the arrivals): the ones the latency columns describe.
        steady_payments: Count "payments",
        /// Deliveries that reached the server in the window and that a worker took (processed,
        /// answered 409 or replayed, dropped, or waiting for a lock): the ones the wait and
        /// time-in-server columns describe.
        steady_deliveries: Count "deliveries",
        /// Utilisation of the workers: busy worker-time (lock waiters included) over the workers'
        /// capacity-time (`capacity` windows followed) in the window; above 1 only while requests
        /// already on a worker finish after a capacity drop. Empty with unlimited workers.
        utilisation: Share "share of worker time",
        /// Share of those deliveries that waited in the queue before a worker took them (Erlang
        /// C's probability of waiting). Empty without a delivery.
        delayed_share: Share "share of deliveries",
        /// Mean wait in the queue of those deliveries, from reaching the server to a worker
        /// taking them (3 decimals).
        wait_mean_ms: Real "ms",
        /// Median of the same wait (HdrHistogram of whole µs at 3 significant digits, as
        /// `timeline.csv`'s latencies; 3 decimals).
        wait_p50_ms: Real "ms",
        /// 90th percentile of the same wait.
        wait_p90_ms: Real "ms",
        /// 99th percentile of the same wait.
        wait_p99_ms: Real "ms",
        /// Mean time in the server of those deliveries, wait plus service: from reaching the
        /// server to leaving it (processing done, 409 or replay sent, dropped, or the lock it
        /// waited for released; 3 decimals).
        in_server_mean_ms: Real "ms",
        /// Median of the same time in server.
        in_server_p50_ms: Real "ms",
        /// 90th percentile of the same time in server.
        in_server_p90_ms: Real "ms",
        /// 99th percentile of the same time in server.
        in_server_p99_ms: Real "ms",
        /// Mean end-to-end latency of the window's payments: from the first send to the success
        /// answer, or to the client giving up, retries included (3 decimals).
        latency_mean_ms: Real "ms",
        /// Median of the same latency.
        latency_p50_ms: Real "ms",
        /// 90th percentile of the same latency.
        latency_p90_ms: Real "ms",
        /// 99th percentile of the same latency.
        latency_p99_ms: Real "ms",
        /// Time-averaged requests in the system (queued or holding a worker, lock waiters
        /// included) over the window: Little's L (3 decimals).
        mean_in_system: Real "requests",
    }
    /// A value of a [`Steady`] column.
    pub enum SteadyValue {
        /// A count (a whole number).
        Count(u64),
        /// A share (shortest round-trip decimal in CSV; empty when undefined).
        Share(Option<f64>),
        /// A duration in ms or a time-averaged level (3 decimals in CSV; empty when undefined).
        Real(Option<f64>),
    }
}

/// Observations of one duration: their sum and their HdrHistogram.
#[derive(Debug, Clone, Default)]
struct Sample {
    /// Their sum (ms).
    sum_ms: f64,
    /// Their histogram.
    histogram: LatencyHistogram,
}

impl Sample {
    fn record(&mut self, ms: f64) {
        self.sum_ms += ms;
        self.histogram.record(ms);
    }

    /// `(mean, p50, p90, p99)` in ms; all `None` without an observation.
    fn summary(&self) -> [Option<f64>; 4] {
        let count = self.histogram.count();
        let mean = (count > 0).then(|| self.sum_ms / count as f64);
        let q = |q| self.histogram.quantile_ms(q);
        [mean, q(0.5), q(0.9), q(0.99)]
    }
}

/// What the loop accumulates for [`Steady`] while it runs.
#[derive(Debug, Clone)]
pub struct SteadyRecorder {
    /// The steady-state window.
    window: Window,
    /// Busy worker-time in the window (worker·ms).
    busy_area: f64,
    /// Requests in the system × time in the window (request·ms).
    in_system_area: f64,
    /// Payments that arrived in the window.
    payments: u64,
    /// Deliveries that reached the server in the window and were taken by a worker.
    deliveries: u64,
    /// Those of them that waited in the queue.
    delayed: u64,
    /// Their waits.
    wait: Sample,
    /// Their times in the server.
    in_server: Sample,
    /// The window's payments' latencies.
    latency: Sample,
}

impl SteadyRecorder {
    /// A recorder for the window `[from_ms, to_ms)`.
    pub fn new(from_ms: f64, to_ms: f64) -> Self {
        Self {
            window: Window { from_ms, to_ms },
            busy_area: 0.0,
            in_system_area: 0.0,
            payments: 0,
            deliveries: 0,
            delayed: 0,
            wait: Sample::default(),
            in_server: Sample::default(),
            latency: Sample::default(),
        }
    }

    /// Whether an observation that began at `time_ms` is in the window.
    #[inline]
    fn observes(&self, time_ms: f64) -> bool {
        self.window.contains(time_ms)
    }

    /// `busy` workers busy and `in_system` requests in the system from `from_ms` to `to_ms`.
    #[inline]
    pub fn integrate(&mut self, from_ms: f64, to_ms: f64, busy: u32, in_system: usize) {
        let overlap = to_ms.min(self.window.to_ms) - from_ms.max(self.window.from_ms);
        if overlap > 0.0 {
            self.busy_area += f64::from(busy) * overlap;
            self.in_system_area += in_system as f64 * overlap;
        }
    }

    /// A payment arrived at `now`.
    #[inline]
    pub fn arrival(&mut self, now: f64) {
        self.payments += u64::from(self.observes(now));
    }

    /// A worker took at `now` a delivery that reached the server at `reached_ms`, from the
    /// queue (`queued`) or at once.
    #[inline]
    pub fn taken(&mut self, now: f64, reached_ms: f64, queued: bool) {
        if self.observes(reached_ms) {
            self.deliveries += 1;
            self.delayed += u64::from(queued);
            self.wait.record(now - reached_ms);
        }
    }

    /// A delivery that reached the server at `reached_ms` left it at `now`.
    #[inline]
    pub fn left(&mut self, now: f64, reached_ms: f64) {
        if self.observes(reached_ms) {
            self.in_server.record(now - reached_ms);
        }
    }

    /// A payment that arrived at `started_ms` ended at `now` (success answer or given up).
    #[inline]
    pub fn ended(&mut self, now: f64, started_ms: f64) {
        if self.observes(started_ms) {
            self.latency.record(now - started_ms);
        }
    }

    /// The numbers, for `server`'s capacity over the window.
    pub fn finish(&self, server: &LoadServer) -> Steady {
        let span_ms = self.window.to_ms - self.window.from_ms;
        let [wait_mean_ms, wait_p50_ms, wait_p90_ms, wait_p99_ms] = self.wait.summary();
        let [
            in_server_mean_ms,
            in_server_p50_ms,
            in_server_p90_ms,
            in_server_p99_ms,
        ] = self.in_server.summary();
        let [
            latency_mean_ms,
            latency_p50_ms,
            latency_p90_ms,
            latency_p99_ms,
        ] = self.latency.summary();
        Steady {
            steady_payments: self.payments,
            steady_deliveries: self.deliveries,
            utilisation: capacity_time_ms(server, self.window)
                .filter(|&capacity| capacity > 0.0)
                .map(|capacity| self.busy_area / capacity),
            delayed_share: (self.deliveries > 0)
                .then(|| self.delayed as f64 / self.deliveries as f64),
            wait_mean_ms,
            wait_p50_ms,
            wait_p90_ms,
            wait_p99_ms,
            in_server_mean_ms,
            in_server_p50_ms,
            in_server_p90_ms,
            in_server_p99_ms,
            latency_mean_ms,
            latency_p50_ms,
            latency_p90_ms,
            latency_p99_ms,
            mean_in_system: (span_ms > 0.0).then(|| self.in_system_area / span_ms),
        }
    }
}

/// The workers' capacity-time over `window` (worker·ms): the integral of
/// [`LoadServer::workers_at`]; `None` when the pool is unlimited at some time in it.
pub fn capacity_time_ms(server: &LoadServer, window: Window) -> Option<f64> {
    let mut edges: Vec<f64> = vec![window.from_ms, window.to_ms];
    for change in &server.capacity {
        for edge in [change.window.from_ms, change.window.to_ms] {
            if window.contains(edge) {
                edges.push(edge);
            }
        }
    }
    edges.sort_by(f64::total_cmp);
    edges.dedup();
    let mut total = 0.0;
    for pair in edges.windows(2) {
        let workers = server.workers_at(pair[0]);
        if workers == u32::MAX {
            return None;
        }
        total += f64::from(workers) * (pair[1] - pair[0]);
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::load::CapacityWindow;
    use engine::distribution::Distribution;

    fn server(workers: Option<u32>, capacity: Vec<CapacityWindow>) -> LoadServer {
        LoadServer {
            workers,
            processing: Distribution::Fixed { ms: 1.0 },
            capacity,
            ..crate::model::load::tests::scenario().server
        }
    }

    /// 8 workers over [0, 60 s) with 4 from 20 to 30 s: 8 × 50 + 4 × 10 = 440 worker·s; from
    /// 25 s: 4 × 5 + 8 × 30 = 260 worker·s. Unlimited: none.
    #[test]
    fn capacity_time_follows_the_capacity_windows() {
        let drop = CapacityWindow {
            window: Window {
                from_ms: 20_000.0,
                to_ms: 30_000.0,
            },
            workers: 4,
        };
        let shared = server(Some(8), vec![drop]);
        let whole = Window {
            from_ms: 0.0,
            to_ms: 60_000.0,
        };
        assert_eq!(capacity_time_ms(&shared, whole), Some(440_000.0));
        let late = Window {
            from_ms: 25_000.0,
            to_ms: 60_000.0,
        };
        assert_eq!(capacity_time_ms(&shared, late), Some(260_000.0));
        assert_eq!(capacity_time_ms(&server(None, Vec::new()), whole), None);
    }

    /// Two workers over [10, 20) ms: one busy 0-15 and two 15-30 give 5 + 10 = 15 worker·ms
    /// in the window, of 20 (0.75); one in the system 0-15 and three 15-30 give 5 + 15 = 20
    /// request·ms over 10 ms (2).
    /// A delivery that reached at 12 and left at 18 after a 2 ms queue wait is observed, one
    /// that reached at 9 or 20 is not.
    #[test]
    fn only_the_window_is_measured() {
        let mut recorder = SteadyRecorder::new(10.0, 20.0);
        recorder.integrate(0.0, 15.0, 1, 1);
        recorder.integrate(15.0, 30.0, 2, 3);
        recorder.taken(14.0, 12.0, true);
        recorder.left(18.0, 12.0);
        recorder.taken(9.0, 9.0, false);
        recorder.left(10.0, 9.0);
        recorder.taken(20.0, 20.0, false);
        recorder.arrival(9.5);
        recorder.arrival(10.0);
        recorder.ended(50.0, 10.0);
        let steady = recorder.finish(&server(Some(2), Vec::new()));
        assert_eq!((steady.steady_payments, steady.steady_deliveries), (1, 1));
        assert_eq!(steady.utilisation, Some(0.75));
        assert_eq!(steady.mean_in_system, Some(2.0));
        assert_eq!(steady.delayed_share, Some(1.0));
        assert_eq!(steady.wait_mean_ms, Some(2.0));
        assert_eq!(steady.wait_p99_ms, Some(2.0));
        assert_eq!(steady.in_server_mean_ms, Some(6.0));
        // 40 ms in the histogram's bucket of 40,000 to 40,031 µs (3 significant digits).
        let p50 = steady.latency_p50_ms.unwrap();
        assert!((40.0..=40.04).contains(&p50), "{p50}");
        let columns: Vec<_> = steady.columns().map(|(name, _)| name).collect();
        let declared: Vec<_> = Steady::COLUMNS.iter().map(|column| column.name).collect();
        assert_eq!(columns, declared);
    }
}
