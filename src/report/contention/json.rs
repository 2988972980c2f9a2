//! A contention run's `--json` summary for scripts: its parameters, the rows of
//! `contention_summary.csv` and of `contention.csv` (same keys, same order, numbers as JSON
//! numbers) and the files written, as one JSON object on stdout.

use std::path::PathBuf;

use serde::Serialize;

use super::csv::{RunRow, SummaryRow, millis};
use crate::model::contention::ContentionResults;
use crate::model::contention::summary::MetricSummary;
use crate::report::json::{paths, pretty};

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

/// The `--json` summary of a contention run.
#[derive(Debug, Serialize)]
struct ContentionSummary<'a> {
    /// The run's parameters.
    parameters: ContentionParameters<'a>,
    /// The rows of `contention_summary.csv`; the values absent for one run are `null`.
    summary: Vec<SummaryRow<f64>>,
    /// The rows of `contention.csv`, times rounded to 3 decimals as there; `max_retries` is
    /// `null` when clients retry until their write is accepted.
    runs: Vec<RunRow<f64, f64>>,
    /// The paths written.
    files: Vec<String>,
}

/// `value` rounded to the 3 decimals `contention.csv` prints (ms).
fn rounded_millis(value: f64) -> f64 {
    millis(value)
        .parse()
        .expect("a formatted number parses back")
}

/// The summary of a contention run: its parameters, the rows of `contention_summary.csv`
/// (`summary`) and of `contention.csv` (`runs`), and the paths written, as pretty-printed JSON
/// ending in a newline.
pub fn summary(
    results: &ContentionResults,
    summary: &[MetricSummary],
    files: &[PathBuf],
) -> Vec<u8> {
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
    let same = |value: f64| value;
    let summary = summary
        .iter()
        .map(|row| SummaryRow::new(row, same))
        .collect();
    let runs = results
        .rows
        .iter()
        .map(|row| RunRow::new(model, row, same, rounded_millis))
        .collect();
    pretty(&ContentionSummary {
        parameters,
        summary,
        runs,
        files: paths(files),
    })
}
