//! The stdout tables of a timeline run: charges per strategy and scenario, as in the
//! companion piece's table, then every metric per scenario and strategy, then the key
//! lifecycle counts and the ambiguous outcomes. With one run they show it; with several,
//! every summarised cell is the mean over the runs ± the half-width of its 95% interval
//! ([`plus_minus`]; a share of the payments in a count column is scaled to payments per run).

use super::TimelineReport;
use super::summary::{CellEstimates, TimelineMetric};
use crate::model::timeline::{Scenario, StrategyTally, TimelineResults};
use crate::report::format::{grouped, layout, percent};
use crate::report::summary::{DifferenceColumn, Metric, differences_rows, plus_minus};
use engine::metric::Kind;
use engine::replications::Estimate;

/// Decimals of a mean ± half-width in a table (a count or a time).
const DECIMALS: usize = 1;

/// Decimals of a share's mean ± half-width in a table, in percent (as [`percent`]).
const SHARE_DECIMALS: usize = 2;

/// `metric`'s cell over the runs: its mean ± half-width, a share shown as a percentage.
fn estimated(estimates: CellEstimates, metric: TimelineMetric) -> String {
    let decimals = match metric.kind() {
        Kind::Proportion => SHARE_DECIMALS,
        Kind::Mean => DECIMALS,
    };
    plus_minus(metric.metric(), estimates.of(metric), decimals)
}

/// A count column's cell over the runs: `metric`'s mean per run ± half-width (a share of the
/// payments scaled to payments per run, `payments` of them).
pub(super) fn estimated_count(
    estimates: CellEstimates,
    metric: TimelineMetric,
    payments: u64,
) -> String {
    let estimate = estimates.of(metric);
    if metric.kind() == Kind::Mean {
        return plus_minus(metric.metric(), estimate, DECIMALS);
    }
    let scale = payments as f64;
    let scaled = Estimate {
        mean: estimate.mean * scale,
        sd: estimate.sd.map(|sd| sd * scale),
        se: estimate.se.map(|se| se * scale),
        interval: estimate.interval.map(|interval| engine::stats::Interval {
            low: interval.low * scale,
            high: interval.high * scale,
        }),
        ..*estimate
    };
    let as_count = Metric {
        kind: Kind::Mean,
        ..metric.metric()
    };
    plus_minus(as_count, &scaled, DECIMALS)
}

/// Latency quantile in ms with one decimal, `-` when there are no payments.
fn milliseconds(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_string(), |ms| format!("{ms:.1}"))
}

/// The charges table: one row per scenario, one column per strategy.
pub fn charges_table(report: &TimelineReport) -> String {
    let results = report.results();
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
                    .enumerate()
                    .filter(|(_, row)| row.scenario == index)
                    .map(|(cell, row)| match report.estimates(cell) {
                        Some(estimates) => estimated(estimates, TimelineMetric::Charges),
                        None => grouped(row.tally.counts.charges),
                    }),
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

/// A table with one row per scenario and strategy under `headers` (which name the scenario
/// and the strategy first): with one run, `cells` of run 0's row; with several, `estimated`
/// of the cell's estimates and run 0's scenario and tally (for what is not summarised).
fn summary_table(
    report: &TimelineReport,
    headers: &[&str],
    cells: impl Fn(&Scenario, &StrategyTally) -> Vec<String>,
    estimated: impl Fn(&Scenario, &StrategyTally, CellEstimates) -> Vec<String>,
) -> String {
    let results = report.results();
    let rows: Vec<Vec<String>> = results
        .first_run()
        .enumerate()
        .map(|(cell, row)| {
            let scenario = results.scenario(row);
            let mut line = vec![scenario.name.clone(), row.strategy.name().to_string()];
            line.extend(match report.estimates(cell) {
                Some(estimates) => estimated(scenario, &row.tally, estimates),
                None => cells(scenario, &row.tally),
            });
            line
        })
        .collect();
    layout(headers, &rows)
}

/// The detail table: one row per scenario and strategy.
pub fn detail_table(report: &TimelineReport) -> String {
    let payments = report.results().model.payments;
    let estimated = |_: &Scenario, tally: &StrategyTally, estimates: CellEstimates| {
        let count = |metric| estimated_count(estimates, metric, payments);
        let share = |metric| format!("{}%", estimated(estimates, metric));
        vec![
            grouped(tally.counts.payments),
            count(TimelineMetric::Deliveries),
            count(TimelineMetric::Charges),
            count(TimelineMetric::DoubleCharged),
            count(TimelineMetric::Replays),
            count(TimelineMetric::Conflicts),
            share(TimelineMetric::Succeeded),
            share(TimelineMetric::GaveUpCharged),
            share(TimelineMetric::GaveUpNotCharged),
            estimated(estimates, TimelineMetric::LatencyP50),
            estimated(estimates, TimelineMetric::LatencyP99),
        ]
    };
    summary_table(
        report,
        &HEADERS,
        |_, tally| {
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
        },
        estimated,
    )
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

/// A scenario's key TTL as the lifecycle table writes it.
fn key_ttl(scenario: &Scenario) -> String {
    scenario
        .key
        .key_ttl_ms
        .map_or_else(|| "never".to_string(), |ttl| grouped(ttl.round() as u64))
}

/// The key lifecycle table: one row per scenario and strategy.
pub fn lifecycle_table(report: &TimelineReport) -> String {
    let payments = report.results().model.payments;
    let estimated = |scenario: &Scenario, _: &StrategyTally, estimates: CellEstimates| {
        let count = |metric| estimated_count(estimates, metric, payments);
        vec![
            key_ttl(scenario),
            count(TimelineMetric::RejectedMismatches),
            count(TimelineMetric::WrongReplays),
            count(TimelineMetric::ServerErrors),
            count(TimelineMetric::ErrorsReplayed),
            count(TimelineMetric::ErrorsRetried),
            count(TimelineMetric::ExpiredKeyCharges),
            count(TimelineMetric::GaveUpCharged),
            count(TimelineMetric::ToldSucceededNotCharged),
        ]
    };
    summary_table(
        report,
        &LIFECYCLE_HEADERS,
        |scenario, tally| {
            let counts = &tally.counts;
            vec![
                key_ttl(scenario),
                grouped(counts.rejected_mismatches),
                grouped(counts.wrong_replays),
                grouped(counts.server_errors),
                grouped(counts.errors_replayed),
                grouped(counts.errors_retried),
                grouped(counts.expired_key_charges),
                grouped(counts.gave_up_charged),
                grouped(counts.told_succeeded_not_charged),
            ]
        },
        estimated,
    )
}

/// The column headers of the client lifecycle table.
pub const CLIENT_HEADERS: [&str; 8] = [
    "scenario",
    "strategy",
    "key TTL ms",
    "offline",
    "offline, charged twice",
    "charged, told failed",
    "reconciled",
    "still told failed",
];

/// The client lifecycle table (offline clients and reconciliation): one row per scenario
/// and strategy, empty when no scenario has either.
pub fn client_table(report: &TimelineReport) -> String {
    if !report.results().model.uses_client_lifecycle() {
        return String::new();
    }
    let payments = report.results().model.payments;
    let estimated = |scenario: &Scenario, _: &StrategyTally, estimates: CellEstimates| {
        let count = |metric| estimated_count(estimates, metric, payments);
        vec![
            key_ttl(scenario),
            count(TimelineMetric::OfflinePayments),
            format!(
                "{}%",
                estimated(estimates, TimelineMetric::OfflineDoubleCharged)
            ),
            count(TimelineMetric::GaveUpCharged),
            count(TimelineMetric::Reconciled),
            count(TimelineMetric::ToldFailedAfterReconciliation),
        ]
    };
    summary_table(
        report,
        &CLIENT_HEADERS,
        |scenario, tally| {
            let counts = &tally.counts;
            vec![
                key_ttl(scenario),
                grouped(counts.offline_payments),
                grouped(counts.offline_double_charged),
                grouped(counts.gave_up_charged),
                grouped(counts.reconciled),
                grouped(counts.told_failed_after_reconciliation),
            ]
        },
        estimated,
    )
}

/// The paired differences shown: the payments charged twice and the extra charges per run
/// (a share of the payments shown as a count), and the share that succeeded in percentage
/// points.
pub fn difference_columns(payments: u64) -> [DifferenceColumn; 3] {
    [
        DifferenceColumn {
            header: "charged twice",
            metric: "double_charged_payments",
            factor: payments as f64,
            decimals: DECIMALS,
        },
        DifferenceColumn {
            header: "extra charges",
            metric: "extra_charges",
            factor: 1.0,
            decimals: DECIMALS,
        },
        DifferenceColumn {
            header: "succeeded, points",
            metric: "succeeded",
            factor: 100.0,
            decimals: SHARE_DECIMALS,
        },
    ]
}

/// `1 payment`, `10,000 payments`.
pub fn payments_text(payments: u64) -> String {
    match payments {
        1 => "1 payment".to_string(),
        n => format!("{} payments", grouped(n)),
    }
}

/// Each strategy minus the file's first one in the same scenario, run by run (the strategies
/// of a run share its random numbers), as the last stdout table: its title line and the
/// table; empty with one strategy.
pub fn differences_table(report: &TimelineReport) -> String {
    let model = &report.results().model;
    let Some(first) = model.strategies.first().map(|strategy| strategy.name()) else {
        return String::new();
    };
    let (headers, rows) = differences_rows(
        report.summary(),
        "strategy",
        first,
        &difference_columns(model.payments),
    );
    if rows.is_empty() {
        return String::new();
    }
    let interval = if model.runs > 1 {
        " ± 95% half-width"
    } else {
        ""
    };
    format!(
        "paired differences: each strategy minus {first} in its scenario, per run of {} \
         (mean{interval})\n{}",
        payments_text(model.payments),
        layout(&headers, &rows)
    )
}
