//! The timeline model's summary over its runs: per cell (scenario, strategy) and metric the
//! estimate across runs (`summary.csv`), and the paired differences between strategies of a
//! scenario and between scenarios of a strategy (`differences.csv`), from the shared
//! [`SummaryBuilder`]. The metrics are declared once, in [`TimelineMetric`]; the builder is
//! fed one run at a time from [`TimelineResults::every_run`], so it holds cells × metrics
//! running sums whatever the number of runs.

use crate::model::timeline::{RunRow, TimelineResults};
use crate::report::summary::{Metric, Observation, Row, Summary, SummaryBuilder};
use engine::counters::Column;
use engine::replications::Estimate;

engine::metrics! {
    /// The quantities the timeline summary estimates across runs, in the order of
    /// `summary.csv`: the headline columns of `timeline.csv`. A share of payments is a
    /// proportion (the Wilson interval of the payments pooled over the runs: payments are
    /// independent); a count, a ratio or a percentile per run is a mean (Student's t across
    /// runs).
    pub enum TimelineMetric {
        /// Payments charged two or more times, as a share of the payments.
        DoubleCharged = "double_charged_payments": proportion "payments",
        /// Charges beyond one per payment, per run.
        ExtraCharges = "extra_charges": mean "charges",
        /// Charges the server made, per run.
        Charges = "charges": mean "charges",
        /// Attempts that reached the server, per run.
        Deliveries = "deliveries": mean "deliveries",
        /// Deliveries answered with the stored response, per run.
        Replays = "replays": mean "deliveries",
        /// Deliveries answered 409 Conflict, per run.
        Conflicts = "conflicts": mean "deliveries",
        /// Payments for which some copy received a success response, as a share of the
        /// payments.
        Succeeded = "succeeded": proportion "payments",
        /// Payments charged although no copy got a success response, as a share of the
        /// payments.
        GaveUpCharged = "gave_up_charged": proportion "payments",
        /// Payments with no success response that were never charged, as a share of the
        /// payments.
        GaveUpNotCharged = "gave_up_not_charged": proportion "payments",
        /// Deliveries answered 422 (another body under the key), per run.
        RejectedMismatches = "rejected_mismatches": mean "deliveries",
        /// Deliveries answered with another body's stored response, per run.
        WrongReplays = "wrong_replays": mean "deliveries",
        /// Processings that failed with a 500, per run.
        ServerErrors = "server_errors": mean "processings",
        /// Deliveries answered 500 without processing, per run.
        ErrorsReplayed = "errors_replayed": mean "deliveries",
        /// Deliveries processed again after a 500 that was not stored, per run.
        ErrorsRetried = "errors_retried": mean "deliveries",
        /// Charges made after the payment's key had been pruned, per run.
        ExpiredKeyCharges = "expired_key_charges": mean "charges",
        /// Payments told they succeeded although no charge of their body backs it, as a
        /// share of the payments.
        ToldSucceededNotCharged = "told_succeeded_not_charged": proportion "payments",
        /// Deliveries per payment (the retry amplification), per run.
        DeliveriesPerPayment = "deliveries_per_payment": mean "deliveries per payment",
        /// The run's median client latency to the final outcome.
        LatencyP50 = "latency_p50_ms": mean "ms",
        /// The run's 95th percentile of client latency to the final outcome.
        LatencyP95 = "latency_p95_ms": mean "ms",
        /// The run's 99th percentile of client latency to the final outcome.
        LatencyP99 = "latency_p99_ms": mean "ms",
        /// Payments whose client went offline after its first send, as a share of the
        /// payments (only with `client.offline` or `client.reconciliation`, as the three
        /// below).
        OfflinePayments = "offline_payments": proportion "payments",
        /// Offline clients' payments charged two or more times, as a share of the offline
        /// clients' payments.
        OfflineDoubleCharged = "offline_double_charged": proportion "offline payments",
        /// Payments charged and told failed that the look-up by key corrected, as a share of
        /// the payments.
        Reconciled = "reconciled": proportion "payments",
        /// Payments charged and told failed that no look-up corrected, as a share of the
        /// payments.
        ToldFailedAfterReconciliation = "told_failed_after_reconciliation": proportion "payments",
    }
}

/// The last [`TimelineMetric`]s, the client lifecycle's: summarised only in a file with
/// offline clients or reconciliation, so that the others keep their rows.
const CLIENT_METRICS: usize = 4;

impl TimelineMetric {
    /// The metrics `model`'s summary has, in order: all of them, or all but the client
    /// lifecycle's when no scenario uses it.
    pub fn of_model(model: &crate::model::timeline::TimelineModel) -> &'static [TimelineMetric] {
        let all = TimelineMetric::ALL;
        if model.uses_client_lifecycle() {
            all
        } else {
            &all[..all.len() - CLIENT_METRICS]
        }
    }

    /// Its [`Metric`] for the summary builder.
    pub fn metric(self) -> Metric {
        Metric {
            column: self.column(),
            kind: self.kind(),
        }
    }

    /// Its observation in one run's row.
    fn observe(self, row: &RunRow) -> Observation {
        let counts = &row.counts;
        let share = |with_property: u64| Observation::Share {
            with_property,
            units: counts.payments,
        };
        let value = |count: u64| Observation::Value(count as f64);
        // A run always has payments (the config asks for one at least), so its percentiles
        // exist; 0 stands in should one not.
        let latency = |index: usize| Observation::Value(row.latency_ms[index].unwrap_or(0.0));
        match self {
            TimelineMetric::DoubleCharged => share(counts.double_charged_payments),
            TimelineMetric::ExtraCharges => value(counts.extra_charges),
            TimelineMetric::Charges => value(counts.charges),
            TimelineMetric::Deliveries => value(counts.deliveries),
            TimelineMetric::Replays => value(counts.replays),
            TimelineMetric::Conflicts => value(counts.conflicts),
            TimelineMetric::Succeeded => share(counts.succeeded),
            TimelineMetric::GaveUpCharged => share(counts.gave_up_charged),
            TimelineMetric::GaveUpNotCharged => share(counts.gave_up_not_charged),
            TimelineMetric::RejectedMismatches => value(counts.rejected_mismatches),
            TimelineMetric::WrongReplays => value(counts.wrong_replays),
            TimelineMetric::ServerErrors => value(counts.server_errors),
            TimelineMetric::ErrorsReplayed => value(counts.errors_replayed),
            TimelineMetric::ErrorsRetried => value(counts.errors_retried),
            TimelineMetric::ExpiredKeyCharges => value(counts.expired_key_charges),
            TimelineMetric::ToldSucceededNotCharged => share(counts.told_succeeded_not_charged),
            TimelineMetric::DeliveriesPerPayment => {
                Observation::Value(counts.deliveries_per_payment())
            }
            TimelineMetric::LatencyP50 => latency(0),
            TimelineMetric::LatencyP95 => latency(1),
            TimelineMetric::LatencyP99 => latency(2),
            TimelineMetric::OfflinePayments => share(counts.offline_payments),
            TimelineMetric::OfflineDoubleCharged => Observation::Share {
                with_property: counts.offline_double_charged,
                units: counts.offline_payments,
            },
            TimelineMetric::Reconciled => share(counts.reconciled),
            TimelineMetric::ToldFailedAfterReconciliation => {
                share(counts.told_failed_after_reconciliation)
            }
        }
    }
}

/// The columns naming a cell of the timeline summary.
pub const CELL_COLUMNS: [Column; 2] = [
    Column {
        name: "scenario",
        unit: "",
        doc: &["The `[[scenario]]` name, or the file's name."],
    },
    Column {
        name: "strategy",
        unit: "",
        doc: &["`none`, `check_then_insert` or `unique_key`."],
    },
];

/// The summary of every run of `results`: one cell per scenario and strategy (in the order
/// of `timeline.csv`), every [`TimelineMetric`], and the paired differences between
/// strategies within a scenario and between scenarios for a strategy.
pub fn summarise(results: &TimelineResults) -> Summary {
    let written = TimelineMetric::of_model(&results.model);
    let metrics = written.iter().map(|m| m.metric()).collect();
    let mut builder =
        SummaryBuilder::new(CELL_COLUMNS.to_vec(), &["strategy", "scenario"], metrics);
    let cells_per_run = results.model.scenarios.len() * results.model.strategies.len();
    let mut rows = results.every_run().peekable();
    while rows.peek().is_some() {
        let cells = rows
            .by_ref()
            .take(cells_per_run)
            .map(|row| {
                let labels = vec![
                    results.model.scenarios[row.scenario].name.clone(),
                    row.strategy.name().to_string(),
                ];
                let observations = written.iter().map(|m| m.observe(row)).collect();
                (labels, observations)
            })
            .collect();
        builder.run(cells);
    }
    builder.finish()
}

/// One cell's estimates (its rows of the summary, in metric order).
#[derive(Debug, Clone, Copy)]
pub struct CellEstimates<'a> {
    rows: &'a [Row],
}

impl<'a> CellEstimates<'a> {
    /// The estimate of `metric`.
    pub fn of(&self, metric: TimelineMetric) -> &'a Estimate {
        &self.rows[metric as usize].estimate
    }
}

/// The estimates of cell `index` (the order of [`TimelineResults::first_run`]) of a summary
/// with `metrics` metrics per cell ([`TimelineMetric::of_model`]).
pub fn cell(summary: &Summary, index: usize, metrics: usize) -> CellEstimates<'_> {
    CellEstimates {
        rows: &summary.rows[index * metrics..(index + 1) * metrics],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Job, Overrides};
    use crate::report::summary::Observation;
    use crate::report::timeline::csv::Cell;

    /// Two scenarios (their own copies and retries) × two strategies, three runs.
    fn results() -> TimelineResults {
        let text = "model = \"timeline\"\npayments = 200\nruns = 3\n\
                    strategies = [\"none\", \"unique_key\"]\n\
                    [network]\nack_loss = 0.1\n\
                    [[scenario]]\nname = \"one\"\n\
                    [[scenario]]\nname = \"two\"\nclient = { max_retries = 1 }\n";
        let path = std::path::Path::new("summary.toml");
        let Ok(Job::Timeline(config)) = Job::from_text(text, path, &Overrides::default()) else {
            panic!("a plain timeline file");
        };
        crate::model::timeline::simulate(&config.model, 1, &engine::Silent).unwrap()
    }

    #[test]
    fn every_metric_observes_its_own_timeline_csv_column() {
        let results = results();
        let rows = super::super::csv::rows(&results);
        for (run, cells) in results.every_run().zip(&rows) {
            let cell = |name: &str| {
                let (_, cell) = cells.iter().find(|(column, _)| *column == name).unwrap();
                match cell {
                    Cell::Count(count) => *count as f64,
                    Cell::Real(value) => *value,
                    Cell::Number { value, .. } => value.unwrap(),
                    Cell::Text(text) => panic!("{name} is text: {text}"),
                }
            };
            for &metric in TimelineMetric::of_model(&results.model) {
                let expected = cell(metric.name());
                match metric.observe(run) {
                    Observation::Value(value) => assert_eq!(value, expected, "{metric:?}"),
                    Observation::Share {
                        with_property,
                        units,
                    } => {
                        assert_eq!(with_property as f64, expected, "{metric:?}");
                        let of = match metric {
                            TimelineMetric::OfflineDoubleCharged => "offline_payments",
                            _ => "payments",
                        };
                        assert_eq!(units as f64, cell(of), "{metric:?}");
                    }
                    Observation::Absent => panic!("{metric:?}: every run has every metric"),
                }
            }
        }
    }

    #[test]
    fn a_cells_estimates_are_its_own_in_metric_order() {
        let results = results();
        let summary = summarise(&results);
        let cells = 2 * 2;
        let metrics = TimelineMetric::of_model(&results.model);
        assert_eq!(metrics.len(), TimelineMetric::ALL.len() - CLIENT_METRICS);
        assert_eq!(summary.rows.len(), cells * metrics.len());
        for (index, row) in results.first_run().enumerate() {
            let estimates = cell(&summary, index, metrics.len());
            let labels = [
                results.scenario(row).name.clone(),
                row.strategy.name().to_string(),
            ];
            for (&metric, summary_row) in metrics.iter().zip(estimates.rows) {
                assert_eq!(summary_row.cell, labels);
                assert_eq!(summary_row.metric, metric.metric());
                assert_eq!(summary_row.estimate.runs, 3);
            }
        }
        // Strategy pairs in each scenario, scenario pairs for each strategy.
        let pairs = summary.differences.len() / metrics.len();
        assert_eq!(pairs, 2 + 2);
    }
}
