//! What a timeline run produces: per run, scenario and strategy the counters, the latency
//! percentiles and the span of simulated time, and for run 0 the latency histograms the
//! charts draw ([`TimelineResults`]). A later run keeps its few hundred bytes of counters
//! and percentiles, not its histograms, so memory grows by that much per run.

use super::simulation::PaymentOutcome;
use super::{Counters, Scenario, Strategy, TimelineModel};
use engine::latency::LatencyHistogram;

/// The time the payments of a run took, from the first send to the last final outcome,
/// in whole microseconds (so that chunks merge exactly in any grouping; 128 bits, so that no
/// run the configuration accepts can overflow it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Span {
    /// From the first payment's start to the start of the payment after the last (µs).
    starts_us: u128,
    /// From the first payment's start to the latest final outcome (µs).
    end_us: u128,
}

impl Span {
    /// Appends a payment that reaches its final outcome `latency_us` after it starts, with the
    /// next payment starting `gap_us` after it.
    pub(super) fn push(&mut self, latency_us: u64, gap_us: u64) {
        self.end_us = self.end_us.max(self.starts_us + u128::from(latency_us));
        self.starts_us += u128::from(gap_us);
    }

    /// The span of `self`'s payments followed by `later`'s (associative, not commutative).
    pub(super) fn then(self, later: Span) -> Span {
        Span {
            starts_us: self.starts_us + later.starts_us,
            end_us: self.end_us.max(self.starts_us + later.end_us),
        }
    }

    /// Simulated time from the first send to the last final outcome (µs).
    pub fn us(&self) -> u128 {
        self.end_us
    }

    /// The same in ms (rounded to the nearest `f64`).
    pub fn ms(&self) -> f64 {
        self.end_us as f64 / 1000.0
    }
}

/// What one strategy did with all payments of one run and scenario.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StrategyTally {
    /// The counters, summed over the payments.
    pub counts: Counters,
    /// Client latency to the final outcome, per payment.
    pub latency: LatencyHistogram,
    /// The simulated time the payments took.
    pub span: Span,
}

impl StrategyTally {
    pub(super) fn record(&mut self, outcome: &PaymentOutcome, gap_us: Option<u64>) {
        self.record_counts(outcome);
        self.record_span(
            engine::latency::whole_microseconds(outcome.latency_ms),
            gap_us,
        );
    }

    /// Counts a payment's outcome and latency, but not its place in the span.
    pub(super) fn record_counts(&mut self, outcome: &PaymentOutcome) {
        self.counts += outcome.counts;
        self.latency.record(outcome.latency_ms);
    }

    /// Appends a payment that took `latency_us` to the span.
    pub(super) fn record_span(&mut self, latency_us: u64, gap_us: Option<u64>) {
        self.span.push(latency_us, gap_us.unwrap_or(latency_us));
    }

    /// Adds the counts and latencies of `shared`, the payments whose outcome was the same
    /// under every strategy (their spans were recorded strategy by strategy).
    pub(super) fn with_shared(mut self, shared: &StrategyTally) -> StrategyTally {
        self.counts += shared.counts;
        self.latency.merge(&shared.latency);
        self
    }

    /// Adds the tally of the payments that come after these.
    pub(super) fn then(mut self, later: &StrategyTally) -> StrategyTally {
        self.counts += later.counts;
        self.latency.merge(&later.latency);
        self.span = self.span.then(later.span);
        self
    }
}

/// The latency quantiles `timeline.csv` writes and the summary estimates, in order: p50,
/// p95, p99.
pub const LATENCY_QUANTILES: [f64; 3] = [0.5, 0.95, 0.99];

/// One strategy's results in one run and scenario, as `timeline.csv` writes them: counters,
/// latency percentiles and span, without the histogram.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunRow {
    /// The replication.
    pub run: u32,
    /// Index into [`TimelineModel::scenarios`].
    pub scenario: usize,
    /// The strategy.
    pub strategy: Strategy,
    /// The counters, summed over the payments.
    pub counts: Counters,
    /// Client latency to the final outcome at each of [`LATENCY_QUANTILES`] (ms; `None`
    /// without payments).
    pub latency_ms: [Option<f64>; 3],
    /// The simulated time the payments took.
    pub span: Span,
}

impl RunRow {
    /// The row of `tally`, without its histogram.
    pub fn of(run: u32, scenario: usize, strategy: Strategy, tally: &StrategyTally) -> Self {
        Self {
            run,
            scenario,
            strategy,
            counts: tally.counts,
            latency_ms: LATENCY_QUANTILES.map(|q| tally.latency.quantile_ms(q)),
            span: tally.span,
        }
    }
}

/// One strategy's results in run 0 of one scenario, with its latency histogram.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRow {
    /// The replication: 0 (only run 0 keeps its histograms; every run is in
    /// [`TimelineResults::runs`]).
    pub run: u32,
    /// Index into [`TimelineModel::scenarios`].
    pub scenario: usize,
    /// The strategy.
    pub strategy: Strategy,
    /// What happened.
    pub tally: StrategyTally,
}

/// The results of a timeline experiment: rows by run, then scenario, then strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineResults {
    /// The parameters.
    pub model: TimelineModel,
    /// Run 0's rows, by scenario then strategy, with their histograms: what the tables and
    /// charts of one run show.
    pub rows: Vec<TimelineRow>,
    /// Every run's rows (run 0's too) by run, then scenario, then strategy, without
    /// histograms: `timeline.csv` and the summary over the runs.
    pub runs: Vec<RunRow>,
}

impl TimelineResults {
    /// The rows of run 0.
    pub fn first_run(&self) -> impl Iterator<Item = &TimelineRow> {
        self.rows.iter()
    }

    /// The scenario of a row.
    pub fn scenario(&self, row: &TimelineRow) -> &Scenario {
        &self.model.scenarios[row.scenario]
    }

    /// The rows of every run, in run order (run 0's from its tallies).
    pub fn every_run(&self) -> impl Iterator<Item = &RunRow> {
        self.runs.iter()
    }
}
