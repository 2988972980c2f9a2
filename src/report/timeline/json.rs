//! A timeline run's `--json`, in the one shape of every model ([`crate::report::json`]): its
//! parameters, the rows of `timeline.csv` (`results`), its summary (none yet: see
//! [`summary_csv`]) and the files written.

use std::path::PathBuf;

use super::TimelineReport;
use crate::model::timeline::{Counters, TimelineModel};
use crate::report::json::{Field, Json, Shape, envelope, estimate_fields, parameters};

parameters! {
    /// The parameters of a timeline run.
    struct TimelineParameters<'a>(model: TimelineModel) {
        /// The config file's name.
        config_file: &'a str = Text => &model.title,
        /// The seed of the run streams.
        seed: u64 = Integer => model.seed,
        /// Payments per scenario and run.
        payments: u64 = Integer => model.payments,
        /// Replications.
        runs: u32 = Integer => model.runs,
        /// The scenarios, in the order reported.
        scenarios: Vec<&'a str> = Texts => model.scenarios.iter().map(|s| s.name.as_str()).collect(),
    }
}

/// The timeline model's `--json`, declared once: [`TimelineParameters`] and the columns of
/// `timeline.csv` (written in [`super::csv`]; the counters' from [`Counters::COLUMNS`], every
/// one a whole number). Every file writes every column, the backend's too.
pub fn shape() -> Shape {
    let integer = |name| Field::new(name, Json::Integer);
    let number = |name| Field::new(name, Json::Number);
    let text = |name| Field::new(name, Json::Text);
    let mut results = vec![
        integer("run"),
        text("scenario"),
        text("strategy"),
        integer("seed"),
        integer("copies"),
        integer("max_retries"),
        number("key_ttl_ms").nullable(),
        number("retry_window_ms"),
        text("key_store"),
        number("crash_rate"),
        number("key_write_failure"),
        Field::new("provider_pass_key", Json::Boolean).nullable(),
        integer("provider_max_retries").nullable(),
        text("receipts").nullable(),
    ];
    let backend_end = Counters::COLUMNS.len() - Counters::CLIENT_COLUMNS;
    results.extend(
        Counters::COLUMNS[..backend_end]
            .iter()
            .map(|column| integer(column.name)),
    );
    // The client lifecycle's counters: only in a file that has offline clients or
    // reconciliation.
    results.extend(
        Counters::COLUMNS[backend_end..]
            .iter()
            .map(|column| integer(column.name).optional()),
    );
    results.extend([
        number("latency_p50_ms").nullable(),
        number("latency_p95_ms").nullable(),
        number("latency_p99_ms").nullable(),
        number("deliveries_per_payment"),
        number("simulated_span_ms"),
    ]);
    Shape {
        model: "timeline",
        results_file: "timeline.csv",
        parameters: TimelineParameters::FIELDS.to_vec(),
        results,
        // The cell's columns (scenario, strategy), then the shared summary's.
        summary: [text("scenario"), text("strategy")]
            .into_iter()
            .chain(estimate_fields())
            .collect(),
    }
}

/// The `--json` of a timeline run: its results, its `summary` the rows of `summary.csv`,
/// `files` the paths written.
pub fn summary(report: &TimelineReport, files: &[PathBuf]) -> Vec<u8> {
    let results = report.results();
    envelope(
        &shape(),
        &TimelineParameters::of(&results.model),
        &super::csv::timeline_csv(results),
        Some(&crate::report::summary::summary_csv(report.summary())),
        files,
    )
}
