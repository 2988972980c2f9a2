//! The stdout table of a contention run: per client count and policy, the mean write calls,
//! rejected writes and completion time over the runs, each ± the half-width of its 95%
//! interval when there are two runs or more.

use super::summary::find;
use crate::model::contention::ContentionResults;
use crate::model::contention::summary::Metric;
use crate::report::format::layout;
use crate::report::summary::{Summary, plus_minus};

/// The table's rows: clients, policy, write calls, rejected writes, completion time (reads
/// equal write calls whenever no client gives up; they are in the CSV files).
pub fn rows(results: &ContentionResults, summary: &Summary) -> Vec<Vec<String>> {
    let model = &results.model;
    let mut rows = Vec::new();
    for &clients in &model.clients {
        for &policy in &model.policies {
            let cell = |metric: Metric, decimals: usize| {
                find(summary, clients, policy, metric).map_or_else(String::new, |row| {
                    plus_minus(row.metric, &row.estimate, decimals)
                })
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

/// What the numbers are, after the table: means over the runs, with the interval's
/// half-width when there is one.
pub fn legend(runs: u32) -> String {
    if runs > 1 {
        format!("means over {runs} runs per row ± the half-width of their 95% t intervals")
    } else {
        "one run per row (no interval)".to_string()
    }
}

/// The table as text.
pub fn render(results: &ContentionResults, summary: &Summary) -> String {
    let mut text = layout(&HEADERS, &rows(results, summary));
    text.push_str(&format!(
        "\n{}; write calls are the AWS post's \"calls\", completion is when the last client's \
         write was accepted\n",
        legend(results.model.runs)
    ));
    text
}
