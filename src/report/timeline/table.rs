//! The stdout tables of a timeline run (run 0): charges per strategy and scenario, as in the
//! companion piece's table, then every metric per scenario and strategy, then the key
//! lifecycle counts and the ambiguous outcomes.

use crate::model::timeline::TimelineResults;
use crate::report::format::{grouped, layout, percent};

/// Latency quantile in ms with one decimal, `-` when there are no payments.
fn milliseconds(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |ms| format!("{ms:.1}"))
}

/// The charges table: one row per scenario, one column per strategy.
pub fn charges_table(results: &TimelineResults) -> String {
    let strategies = &results.model.strategies;
    let mut headers = vec!["charges"];
    headers.extend(strategies.iter().map(|strategy| strategy.name()));
    let rows: Vec<Vec<String>> = results
        .model
        .scenarios
        .iter()
        .enumerate()
        .map(|(index, scenario)| {
            let mut row = vec![scenario.name.clone()];
            row.extend(
                results
                    .first_run()
                    .filter(|row| row.scenario == index)
                    .map(|row| grouped(row.tally.counts.charges)),
            );
            row
        })
        .collect();
    layout(&headers, &rows)
}

/// The column headers of the detail table.
pub const HEADERS: [&str; 13] = [
    "scenario",
    "strategy",
    "payments",
    "deliveries",
    "charges",
    "double-charged",
    "replays",
    "409s",
    "succeeded",
    "gave up, charged",
    "gave up, not charged",
    "p50 ms",
    "p99 ms",
];

/// The detail table: one row per scenario and strategy of run 0.
pub fn detail_table(results: &TimelineResults) -> String {
    let rows: Vec<Vec<String>> = results
        .first_run()
        .map(|row| {
            let tally = &row.tally;
            vec![
                results.scenario(row).name.clone(),
                row.strategy.name().to_string(),
                grouped(tally.counts.payments),
                grouped(tally.counts.deliveries),
                grouped(tally.counts.charges),
                grouped(tally.counts.double_charged_payments),
                grouped(tally.counts.replays),
                grouped(tally.counts.conflicts),
                percent(tally.counts.succeeded, tally.counts.payments),
                percent(tally.counts.gave_up_charged, tally.counts.payments),
                percent(tally.counts.gave_up_not_charged, tally.counts.payments),
                milliseconds(tally.latency.quantile_ms(0.5)),
                milliseconds(tally.latency.quantile_ms(0.99)),
            ]
        })
        .collect();
    layout(&HEADERS, &rows)
}

/// The column headers of the key lifecycle table.
pub const LIFECYCLE_HEADERS: [&str; 11] = [
    "scenario",
    "strategy",
    "key TTL ms",
    "422s",
    "wrong replays",
    "500s",
    "500s replayed",
    "reprocessed after 500",
    "expired-key charges",
    "charged, told failed",
    "told ok, not charged",
];

/// The key lifecycle table: one row per scenario and strategy of run 0.
pub fn lifecycle_table(results: &TimelineResults) -> String {
    let rows: Vec<Vec<String>> = results
        .first_run()
        .map(|row| {
            let tally = &row.tally;
            vec![
                results.scenario(row).name.clone(),
                row.strategy.name().to_string(),
                results
                    .scenario(row)
                    .key
                    .key_ttl_ms
                    .map_or_else(|| "never".to_string(), |ttl| grouped(ttl.round() as u64)),
                grouped(tally.counts.rejected_mismatches),
                grouped(tally.counts.wrong_replays),
                grouped(tally.counts.server_errors),
                grouped(tally.counts.errors_replayed),
                grouped(tally.counts.errors_retried),
                grouped(tally.counts.expired_key_charges),
                grouped(tally.counts.gave_up_charged),
                grouped(tally.counts.told_succeeded_not_charged),
            ]
        })
        .collect();
    layout(&LIFECYCLE_HEADERS, &rows)
}

/// The three tables, a blank line apart: charges, details, key lifecycle (with the ambiguous
/// outcomes, reported for every scenario); then the backend's tables, when it is used.
pub fn render(results: &TimelineResults) -> String {
    format!(
        "{}\n{}\n{}{}",
        charges_table(results),
        detail_table(results),
        lifecycle_table(results),
        super::backend_report::tables(results)
    )
}
