//! A load run's `--json`, in the one shape of every model ([`crate::report::json`]): its
//! parameters, the rows of `load.csv` (`results`, the steady-state queueing columns
//! included), its summary (none yet: see
//! [`summary_csv`]) and the files written.

use std::path::PathBuf;

use crate::model::load::steady::{Steady, SteadyValue};
use crate::model::load::tally::LoadCounts;
use crate::model::load::{LoadModel, LoadResults};
use crate::report::json::{Field, Json, Shape, envelope, estimate_fields, parameters};

parameters! {
    /// The parameters of a load run.
    struct LoadParameters<'a>(model: LoadModel) {
        /// The config file's name.
        config_file: &'a str = Text => &model.title,
        /// The seed of the run streams.
        seed: u64 = Integer => model.seed,
        /// Replications.
        runs: u32 = Integer => model.runs,
        /// The scenarios, in the order reported.
        scenarios: Vec<&'a str> = Texts => model.scenarios.iter().map(|s| s.name.as_str()).collect(),
        /// The strategies, in the order reported.
        strategies: Vec<&'static str> = Texts => model.strategies.iter().map(|s| s.name()).collect(),
        /// The time series' bucket (ms).
        bucket_ms: f64 = Number => model.bucket_ms,
    }
}

/// The load model's `--json`, declared once: [`LoadParameters`] and the columns of
/// `load.csv` ([`super::csv::LoadCsvRow`]: the run's columns, the counters of
/// [`LoadCounts::COLUMNS`], every one a whole number, the derived columns, then the trailing
/// counters; documented there).
pub fn shape() -> Shape {
    let integer = |name| Field::new(name, Json::Integer);
    let number = |name| Field::new(name, Json::Number);
    let text = |name| Field::new(name, Json::Text);
    let leading = LoadCounts::COLUMNS.len() - LoadCounts::TRAILING_COLUMNS;
    let counters = |columns: &[engine::counters::Column]| -> Vec<Field> {
        columns.iter().map(|column| integer(column.name)).collect()
    };
    let mut results = vec![
        integer("run"),
        text("scenario"),
        text("strategy"),
        integer("seed"),
    ];
    results.extend(counters(&LoadCounts::COLUMNS[..leading]));
    results.extend([
        number("offered_load_per_s"),
        number("throughput_per_s"),
        number("goodput_per_s"),
        number("amplification"),
        number("mean_queue_wait_ms"),
        number("mean_queue_length"),
        integer("queue_length_p50"),
        integer("queue_length_p99"),
        integer("queue_length_max"),
        integer("in_flight_p50"),
        integer("in_flight_p99"),
        integer("in_flight_max"),
        Field::new("recovered", Json::Boolean).nullable(),
        number("recovered_at_s").nullable(),
        number("end_s"),
    ]);
    results.extend(counters(&LoadCounts::COLUMNS[leading..]));
    // The steady-state columns, typed by their declared kind.
    results.extend(
        Steady::default()
            .columns()
            .map(|(name, value)| match value {
                SteadyValue::Count(_) => integer(name),
                SteadyValue::Share(_) | SteadyValue::Real(_) => number(name).nullable(),
            }),
    );
    Shape {
        model: "load",
        results_file: "load.csv",
        parameters: LoadParameters::FIELDS.to_vec(),
        results,
        // The cell's columns (scenario, strategy), then the shared summary's.
        summary: [text("scenario"), text("strategy")]
            .into_iter()
            .chain(estimate_fields())
            .collect(),
    }
}

/// The bytes of the load model's `summary.csv` for `--json`.
fn summary_csv(results: &LoadResults) -> Option<Vec<u8>> {
    Some(crate::report::summary::summary_csv(
        &super::summary::summary(results),
    ))
}

/// The `--json` of a load run, `files` the paths written.
pub fn summary(results: &LoadResults, files: &[PathBuf]) -> Vec<u8> {
    envelope(
        &shape(),
        &LoadParameters::of(&results.model),
        &super::csv::load_csv(results),
        summary_csv(results).as_deref(),
        files,
    )
}
