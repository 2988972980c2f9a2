//! The stdout table of a contention run: per client count and policy, the mean write calls,
//! rejected writes and completion time over the runs, with standard errors.

use crate::model::contention::ContentionResults;
use crate::model::contention::summary::{Metric, MetricSummary, find};
use crate::report::format::layout;

/// `mean ± standard error` with `decimals` decimals (the mean alone for one run).
pub fn with_error(row: &MetricSummary, decimals: usize) -> String {
    match row.standard_error() {
        Some(error) => format!("{:.decimals$} ± {:.decimals$}", row.mean, error),
        None => format!("{:.decimals$}", row.mean),
    }
}

/// The table's rows: clients, policy, write calls, rejected writes, completion time (reads
/// equal write calls whenever no client gives up; they are in the CSV files).
pub fn rows(results: &ContentionResults, summary: &[MetricSummary]) -> Vec<Vec<String>> {
    let model = &results.model;
    let mut rows = Vec::new();
    for &clients in &model.clients {
        for &policy in &model.policies {
            let cell = |metric: Metric, decimals: usize| {
                find(summary, clients, policy, metric)
                    .map_or_else(String::new, |row| with_error(row, decimals))
            };
            rows.push(vec![
                clients.to_string(),
                policy.name().to_string(),
                cell(Metric::Writes, 1),
                cell(Metric::FailedWrites, 1),
                cell(Metric::CompletionMs, 1),
            ]);
        }
    }
    rows
}

/// The column headers of [`rows`].
pub const HEADERS: [&str; 5] = [
    "clients",
    "policy",
    "write calls",
    "rejected writes",
    "completion ms",
];

/// The table as text.
pub fn render(results: &ContentionResults, summary: &[MetricSummary]) -> String {
    let runs = results.model.runs;
    let mut text = layout(&HEADERS, &rows(results, summary));
    text.push_str(&format!(
        "\nmeans over {runs} runs per row ± their standard errors; write calls are the AWS \
         post's \"calls\", completion is when the last client's write was accepted\n"
    ));
    text
}
