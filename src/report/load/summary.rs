//! The load model's answer across runs: per (scenario, strategy) and metric of
//! [`LoadMetric`], the estimate over the runs (`summary.csv`), and the paired differences
//! between the strategies of a scenario and between the scenarios of a strategy
//! (`differences.csv`), built with the shared [`SummaryBuilder`].
//!
//! Every interval over payments is Student's t across runs, not a Wilson interval of the
//! payments pooled over runs: the payments of a run share one server, so they are not
//! independent units (a storm hits them all). In `configs/capacity-drop.toml` the run-to-run
//! standard deviation of the share that succeeds is 2 to 20 times the binomial one (e.g.
//! `no_budget`/`lock_wait`: 0.089 across runs against 0.0045 for 8,400 independent
//! payments), so a pooled Wilson interval would be several times too narrow. The run is the
//! independent unit; so the share of runs that recovered is the one Wilson interval here.

use engine::counters::Column;

use crate::model::load::{LoadResults, LoadRow};
use crate::report::summary::{Metric, Observation, Summary, SummaryBuilder};

engine::metrics! {
    /// The load model's summary metrics, declared once, in report order: each a column of
    /// `load.csv` (or, for `success_rate`, of `load_sweep.csv`), estimated over the runs of a
    /// (scenario, strategy). To add one, add its line here and its value in [`observe`].
    pub enum LoadMetric {
        /// Payments issued per run.
        Payments = "payments": mean "payments",
        /// The share of a run's payments that got a success answer (`succeeded / payments`),
        /// its mean over runs (t interval across runs).
        SuccessRate = "success_rate": mean "share of payments",
        /// Payments charged two or more times per run.
        DoubleCharges = "double_charges": mean "payments",
        /// Payments given up without a success answer per run.
        Failed = "failed": mean "payments",
        /// Payments given up although charged per run.
        FailedCharged = "failed_charged": mean "payments",
        /// Attempts sent per run (first sends plus retries).
        Attempts = "attempts": mean "attempts",
        /// Retries sent per run.
        Retries = "retries": mean "attempts",
        /// Retries refused by the retry control per run.
        Throttled = "throttled": mean "retries",
        /// Calls per payment: server work per payment.
        Amplification = "amplification": mean "deliveries per payment",
        /// Successful payments per second of the arrival window.
        GoodputPerS = "goodput_per_s": mean "payments/s",
        /// Mean wait in the queue of the requests a worker took.
        MeanQueueWaitMs = "mean_queue_wait_ms": mean "ms",
        /// 99th percentile over time of the queue length.
        QueueLengthP99 = "queue_length_p99": mean "requests",
        /// The share of runs that recovered after their trigger (`recovered`; every run
        /// without a trigger): a Wilson interval over the runs.
        Recovered = "recovered": proportion "runs",
        /// When a run recovered (`recovered_at_s`), over the runs that recovered only (`runs`
        /// says how many; empty when none did): s of simulated time, 0 without a trigger.
        RecoveredAtS = "recovered_at_s": mean "s",
    }
}

/// The cell columns of `summary.csv` and `differences.csv`.
pub const CELL_COLUMNS: [Column; 2] = [
    Column {
        name: "scenario",
        unit: "",
        doc: &["The scenario's name."],
    },
    Column {
        name: "strategy",
        unit: "",
        doc: &["`none`, `check_then_insert`, `unique_key` or `lock_wait`."],
    },
];

/// The metric's [`Metric`] for the shared summary.
pub fn metric(metric: LoadMetric) -> Metric {
    Metric {
        column: metric.column(),
        kind: metric.kind(),
    }
}

/// One event loop's observation of `metric`.
pub fn observe(results: &LoadResults, row: &LoadRow, metric: LoadMetric) -> Observation {
    let tally = &row.tally;
    let counts = &tally.counts;
    let window_s = results.model.scenarios[row.scenario].arrivals.duration_ms / 1000.0;
    let count = |count: u64| Observation::Value(count as f64);
    match metric {
        LoadMetric::Payments => count(counts.payments),
        LoadMetric::SuccessRate => Observation::Share {
            with_property: counts.succeeded,
            units: counts.payments,
        },
        LoadMetric::DoubleCharges => count(counts.double_charges),
        LoadMetric::Failed => count(counts.failed),
        LoadMetric::FailedCharged => count(counts.failed_charged),
        LoadMetric::Attempts => count(counts.attempts),
        LoadMetric::Retries => count(counts.retries),
        LoadMetric::Throttled => count(counts.throttled),
        LoadMetric::Amplification => {
            Observation::Value(counts.calls as f64 / counts.payments.max(1) as f64)
        }
        LoadMetric::GoodputPerS => Observation::Value(counts.succeeded as f64 / window_s),
        LoadMetric::MeanQueueWaitMs => Observation::Value(tally.mean_queue_wait_ms()),
        LoadMetric::QueueLengthP99 => count(tally.queue.quantile(0.99)),
        LoadMetric::Recovered => Observation::Share {
            with_property: u64::from(tally.recovered()),
            units: 1,
        },
        LoadMetric::RecoveredAtS => tally
            .recovered_at_ms
            .map_or(Observation::Absent, |at| Observation::Value(at / 1000.0)),
    }
}

/// The summary of every run: cells (scenario, strategy) in the file's order, every metric of
/// [`LoadMetric`], differences between strategies within a scenario and between scenarios
/// under a strategy.
pub fn summary(results: &LoadResults) -> Summary {
    let model = &results.model;
    let metrics = LoadMetric::ALL.iter().map(|&m| metric(m)).collect();
    let mut builder =
        SummaryBuilder::new(CELL_COLUMNS.to_vec(), &["strategy", "scenario"], metrics);
    let per_run = (model.scenarios.len() * model.strategies.len()).max(1);
    for run in results.rows.chunks(per_run) {
        builder.run(
            run.iter()
                .map(|row| {
                    let labels = vec![
                        model.scenarios[row.scenario].name.clone(),
                        row.strategy.name().to_string(),
                    ];
                    let observations = LoadMetric::ALL
                        .iter()
                        .map(|&metric| observe(results, row, metric))
                        .collect();
                    (labels, observations)
                })
                .collect(),
        );
    }
    builder.finish()
}

impl LoadResults {
    /// The summary over runs ([`summary`]), for the files, the table and `--json`.
    pub fn summary(&self) -> Summary {
        summary(self)
    }
}
