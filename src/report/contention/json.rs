//! A contention run's `--json` summary for scripts: its parameters, the rows of
//! `contention_summary.csv` and of `contention.csv` (same keys, same order, numbers as JSON
//! numbers) and the files written, as one JSON object on stdout.

use std::path::PathBuf;

use serde::Serialize;

use super::csv::millis;
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

/// One row of `contention_summary.csv`; the values absent for one run are `null`.
#[derive(Debug, Serialize)]
struct SummaryRow {
    clients: u32,
    policy: &'static str,
    metric: &'static str,
    runs: u32,
    mean: f64,
    standard_error: Option<f64>,
    sd_across_runs: Option<f64>,
    ci_low: Option<f64>,
    ci_high: Option<f64>,
}

/// One row of `contention.csv`, times rounded to 3 decimals as there; `max_retries` is `null`
/// when clients retry until their write is accepted.
#[derive(Debug, Serialize)]
struct RunRow {
    clients: u32,
    policy: &'static str,
    run: u32,
    seed: u64,
    base_ms: f64,
    cap_ms: f64,
    max_retries: Option<u32>,
    reads: u64,
    writes: u64,
    failed_writes: u64,
    succeeded: u32,
    gave_up: u32,
    completion_ms: f64,
    mean_client_completion_ms: f64,
    final_version: u64,
}

#[derive(Debug, Serialize)]
struct ContentionSummary<'a> {
    parameters: ContentionParameters<'a>,
    summary: Vec<SummaryRow>,
    runs: Vec<RunRow>,
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
    let max_retries = model.setup.max_retries;
    let parameters = ContentionParameters {
        config_file: &model.title,
        seed: model.seed,
        runs: model.runs,
        clients: &model.clients,
        policies: model.policies.iter().map(|policy| policy.name()).collect(),
        base_ms: model.base_ms,
        cap_ms: model.cap_ms,
        delay: model.setup.delay.describe(),
        max_retries,
    };
    let summary = summary
        .iter()
        .map(|row| SummaryRow {
            clients: row.clients,
            policy: row.policy.name(),
            metric: row.metric.name(),
            runs: row.runs,
            mean: row.mean,
            standard_error: row.standard_error(),
            sd_across_runs: row.sd,
            ci_low: row.interval.map(|interval| interval.low),
            ci_high: row.interval.map(|interval| interval.high),
        })
        .collect();
    let runs = results
        .rows
        .iter()
        .map(|row| RunRow {
            clients: row.clients,
            policy: row.policy.name(),
            run: row.run,
            seed: model.seed,
            base_ms: model.base_ms,
            cap_ms: model.cap_ms,
            max_retries,
            reads: row.tally.reads,
            writes: row.tally.writes,
            failed_writes: row.tally.failed_writes,
            succeeded: row.tally.succeeded,
            gave_up: row.tally.gave_up,
            completion_ms: rounded_millis(row.tally.completion_ms),
            mean_client_completion_ms: rounded_millis(row.tally.mean_client_completion_ms),
            final_version: row.tally.final_version,
        })
        .collect();
    pretty(&ContentionSummary {
        parameters,
        summary,
        runs,
        files: paths(files),
    })
}
