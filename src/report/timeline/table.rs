//! The stdout tables of a timeline run (run 0): charges per strategy and scenario, as in the
//! companion piece's table, then every metric per scenario and strategy, then the key
//! lifecycle counts and the ambiguous outcomes.

use crate::model::timeline::{Scenario, StrategyTally, TimelineResults};
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

/// A table with one row per scenario and strategy of run 0, under `headers` (which name the
/// scenario and the strategy first): the scenario's name, the strategy's, then `cells` of the
/// row's scenario and tally.
pub(super) fn run_zero_table(
    results: &TimelineResults,
    headers: &[&str],
    cells: impl Fn(&Scenario, &StrategyTally) -> Vec<String>,
) -> String {
    let rows: Vec<Vec<String>> = results
        .first_run()
        .map(|row| {
            let scenario = results.scenario(row);
            let mut line = vec![scenario.name.clone(), row.strategy.name().to_string()];
            line.extend(cells(scenario, &row.tally));
            line
        })
        .collect();
    layout(headers, &rows)
}

/// The detail table: one row per scenario and strategy of run 0.
pub fn detail_table(results: &TimelineResults) -> String {
    run_zero_table(results, &HEADERS, |_, tally| {
        let counts = &tally.counts;
        vec![
            grouped(counts.payments),
            grouped(counts.deliveries),
            grouped(counts.charges),
            grouped(counts.double_charged_payments),
            grouped(counts.replays),
            grouped(counts.conflicts),
            percent(counts.succeeded, counts.payments),
            percent(counts.gave_up_charged, counts.payments),
            percent(counts.gave_up_not_charged, counts.payments),
            milliseconds(tally.latency.quantile_ms(0.5)),
            milliseconds(tally.latency.quantile_ms(0.99)),
        ]
    })
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
    run_zero_table(results, &LIFECYCLE_HEADERS, |scenario, tally| {
        let counts = &tally.counts;
        vec![
            scenario
                .key
                .key_ttl_ms
                .map_or_else(|| "never".to_string(), |ttl| grouped(ttl.round() as u64)),
            grouped(counts.rejected_mismatches),
            grouped(counts.wrong_replays),
            grouped(counts.server_errors),
            grouped(counts.errors_replayed),
            grouped(counts.errors_retried),
            grouped(counts.expired_key_charges),
            grouped(counts.gave_up_charged),
            grouped(counts.told_succeeded_not_charged),
        ]
    })
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
