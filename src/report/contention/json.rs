//! A contention run's `--json`, in the one shape of every model ([`crate::report::json`]):
//! its parameters, the rows of `contention.csv` (`results`) and of `summary.csv` (`summary`),
//! and the files written.

use std::path::PathBuf;

use serde::Serialize;

use super::summary::CELL_COLUMNS;
use crate::model::contention::ContentionResults;
use crate::report::json::{Field, Json, Shape, envelope, estimate_fields};

/// The parameters of a contention run, as the config file and flags set them.
#[derive(Debug, Serialize)]
struct ContentionParameters<'a> {
    /// The config file's name.
    config_file: &'a str,
    /// The seed of every run's stream.
    seed: u64,
    /// Runs per (clients, policy).
    runs: u32,
    /// The client counts, in the order reported.
    clients: &'a [u32],
    /// The backoff policies, in the order reported.
    policies: Vec<&'static str>,
    /// The backoff's base (ms).
    base_ms: f64,
    /// The backoff's cap (ms).
    cap_ms: f64,
    /// Every message's delay, e.g. `|N(10, 2)| ms`.
    delay: String,
    /// Rejected retries after which a client gives up (`null`: never).
    max_retries: Option<u32>,
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
        parameters: vec![
            text("config_file"),
            integer("seed"),
            integer("runs"),
            Field::new("clients", Json::Integers),
            Field::new("policies", Json::Texts),
            number("base_ms"),
            number("cap_ms"),
            text("delay"),
            integer("max_retries").nullable(),
        ],
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
    let model = &results.model;
    let parameters = ContentionParameters {
        config_file: &model.title,
        seed: model.seed,
        runs: model.runs,
        clients: &model.clients,
        policies: model.policies.iter().map(|policy| policy.name()).collect(),
        base_ms: model.base_ms,
        cap_ms: model.cap_ms,
        delay: model.setup.delay.describe(),
        max_retries: model.setup.max_retries,
    };
    let summary = super::summary::summarise(results);
    envelope(
        &shape(),
        &parameters,
        &super::csv::contention_csv(results),
        Some(&crate::report::summary::summary_csv(&summary)),
        files,
    )
}
