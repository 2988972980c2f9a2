//! A contention run's `--json`, in the one shape of every model ([`crate::report::json`]):
//! its parameters, the rows of `contention.csv` (`results`) and of `summary.csv` (`summary`),
//! and the files written.

use std::path::PathBuf;

use super::summary::CELL_COLUMNS;
use crate::model::contention::{ContentionModel, ContentionResults};
use crate::report::json::{Field, Json, Shape, envelope, estimate_fields, parameters};

parameters! {
    /// The parameters of a contention run, as the config file and flags set them.
    struct ContentionParameters<'a>(model: ContentionModel) {
        /// The config file's name.
        config_file: &'a str = Text => &model.title,
        /// The seed of every run's stream.
        seed: u64 = Integer => model.seed,
        /// Runs per (clients, policy).
        runs: u32 = Integer => model.runs,
        /// The client counts, in the order reported.
        clients: &'a [u32] = Integers => &model.clients,
        /// The backoff policies, in the order reported.
        policies: Vec<&'static str> = Texts => model.policies.iter().map(|p| p.name()).collect(),
        /// The backoff's base (ms).
        base_ms: f64 = Number => model.base_ms,
        /// The backoff's cap (ms).
        cap_ms: f64 = Number => model.cap_ms,
        /// Every message's delay, e.g. `|N(10, 2)| ms`.
        delay: String = Text => model.setup.delay.describe(),
        /// Rejected retries after which a client gives up (`null`: never).
        max_retries: Option<u32> = Integer nullable => model.setup.max_retries,
    }
}

/// The contention model's `--json`, declared once: [`ContentionParameters`], the columns of
/// `contention.csv` ([`super::csv::RunRow`], documented there) and of `summary.csv`.
pub fn shape() -> Shape {
    let integer = |name| Field::new(name, Json::Integer);
    let number = |name| Field::new(name, Json::Number);
    let text = |name| Field::new(name, Json::Text);
    let [clients, policy] = CELL_COLUMNS.map(|column| column.name);
    Shape {
        model: "contention",
        results_file: "contention.csv",
        parameters: ContentionParameters::FIELDS.to_vec(),
        results: vec![
            integer("clients"),
            text("policy"),
            integer("run"),
            integer("seed"),
            number("base_ms"),
            number("cap_ms"),
            integer("max_retries").nullable(),
            integer("reads"),
            integer("writes"),
            integer("failed_writes"),
            integer("succeeded"),
            integer("gave_up"),
            number("completion_ms"),
            number("mean_client_completion_ms"),
            integer("final_version"),
        ],
        summary: [integer(clients), text(policy)]
            .into_iter()
            .chain(estimate_fields())
            .collect(),
    }
}

/// The `--json` of a contention run, `files` the paths written.
pub fn summary(results: &ContentionResults, files: &[PathBuf]) -> Vec<u8> {
    let summary = super::summary::summarise(results);
    envelope(
        &shape(),
        &ContentionParameters::of(&results.model),
        &super::csv::contention_csv(results),
        Some(&crate::report::summary::summary_csv(&summary)),
        files,
    )
}
