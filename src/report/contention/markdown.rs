//! `report.md` of a contention run: the parameters, the table of means with their 95% intervals,
//! and the two charts with one sentence each.

use crate::model::contention::ContentionResults;
use crate::report::summary::Summary;

use super::charts::parameters;
use super::table::{HEADERS, legend, rows};

/// The report's Markdown.
pub fn report(results: &ContentionResults, summary: &Summary) -> String {
    let model = &results.model;
    let mut text = format!("# Contention on one row: {}\n\n", model.title);
    text.push_str(&format!(
        "{} clients race to update one row under optimistic concurrency control: each reads \
         the row's version, then writes with it; a write carrying a stale version is \
         rejected, and its client backs off, reads again and writes again until its write is \
         accepted. Every message takes one network delay.\n\n",
        model
            .clients
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    ));
    text.push_str(&format!("Parameters: {}.\n\n", parameters(results)));
    text.push_str(&format!(
        "Each (clients, policy, run) draws from numpy's \
         `default_rng(SeedSequence({}, spawn_key=(run, clients, policy_code)))` stream, policy \
         codes 0 to 5 for none, constant, exponential, full_jitter, equal_jitter, \
         decorrelated_jitter.\n\n",
        model.seed
    ));
    text.push_str("## Means over runs\n\n");
    text.push_str(&format!("{}.\n\n", capitalised(&legend(model.runs))));
    text.push_str(&format!("| {} |\n", HEADERS.join(" | ")));
    text.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
    for row in rows(results, summary) {
        text.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    text.push_str(
        "\nWrite calls are what the AWS post calls \"calls\" (reads are not counted there); \
         completion is the time at which the last client received its accepted write's \
         reply, the post's \"time\". `contention.csv` has every run, `summary.csv` every \
         mean with its standard deviation, standard error and 95% interval, and \
         `differences.csv` each policy minus each policy listed before it at the same client \
         count, run k against run k (the policies' runs draw from independent streams, so \
         these are differences of independent runs, not paired ones: the interval is valid \
         but no narrower than comparing the two means).\n\n",
    );
    text.push_str("## Charts\n\n");
    text.push_str(
        "![Write calls against clients](calls.svg)\n\n\
         The work the row's server does: write calls per run until every client has written, \
         one line per policy, with 95% intervals.\n\n\
         ![Completion time against clients](completion_time.svg)\n\n\
         How long until the last client has written, one line per policy, with 95% \
         intervals.\n",
    );
    text
}

/// `text` with its first letter upper-case.
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}
