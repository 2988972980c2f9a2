//! The stdout table of a load run and its `report.md`: per scenario and strategy, what a
//! design review asks first, as means over the runs, `mean ± half-width` of the 95% interval
//! with more than one run (from the summary, [`super::summary`]).

use engine::replications::Estimate;

use super::summary::{LoadMetric, metric};
use crate::model::load::LoadResults;
use crate::report::format::layout;
use crate::report::summary::{DifferenceColumn, Summary, differences_markdown, plus_minus};

/// The metric columns of the table, in order: header, metric, decimals, and whether it is a
/// share shown as a percentage.
const METRIC_COLUMNS: [(&str, LoadMetric, usize, bool); 6] = [
    ("payments", LoadMetric::Payments, 0, false),
    ("succeeded %", LoadMetric::SuccessRate, 1, true),
    ("double charges", LoadMetric::DoubleCharges, 1, false),
    ("amplification", LoadMetric::Amplification, 2, false),
    ("goodput/s", LoadMetric::GoodputPerS, 1, false),
    ("p99 queue", LoadMetric::QueueLengthP99, 0, false),
];

/// The column headers of [`rows`]: the cell, the metrics, then the recovery.
pub const HEADERS: [&str; 9] = [
    "scenario",
    "strategy",
    METRIC_COLUMNS[0].0,
    METRIC_COLUMNS[1].0,
    METRIC_COLUMNS[2].0,
    METRIC_COLUMNS[3].0,
    METRIC_COLUMNS[4].0,
    METRIC_COLUMNS[5].0,
    "recovered",
];

/// The estimate of `metric` in the cell (`scenario`, `strategy`) of `summary`.
fn estimate<'a>(
    summary: &'a Summary,
    scenario: &str,
    strategy: &str,
    metric: LoadMetric,
) -> &'a Estimate {
    let row = summary
        .rows
        .iter()
        .find(|row| row.cell == [scenario, strategy] && row.metric.column.name == metric.name())
        .expect("every cell has every metric");
    &row.estimate
}

/// `estimate` scaled by `factor` (a share as a percentage).
fn scaled(estimate: &Estimate, factor: f64) -> Estimate {
    let mut scaled = *estimate;
    scaled.mean *= factor;
    scaled.interval = estimate.interval.map(|mut interval| {
        interval.low *= factor;
        interval.high *= factor;
        interval
    });
    scaled
}

/// The recovery cell: `k/n` runs recovered and, when some did, when (`at 36 ± 2 s`, the mean
/// over the runs that recovered); `no trigger` for a scenario without one.
fn recovery_cell(summary: &Summary, scenario: &str, strategy: &str, has_trigger: bool) -> String {
    if !has_trigger {
        return "no trigger".into();
    }
    let share = estimate(summary, scenario, strategy, LoadMetric::Recovered);
    let recovered = (share.mean * f64::from(share.runs)).round();
    let at = estimate(summary, scenario, strategy, LoadMetric::RecoveredAtS);
    let mut cell = format!("{recovered}/{}", share.runs);
    if at.runs > 0 {
        let when = plus_minus(metric(LoadMetric::RecoveredAtS), at, 0);
        cell.push_str(&format!(" at {when} s"));
    }
    cell
}

/// One row per (scenario, strategy), in the file's order, from `summary`.
pub fn rows_of(results: &LoadResults, summary: &Summary) -> Vec<Vec<String>> {
    let model = &results.model;
    let mut rows = Vec::new();
    for scenario in &model.scenarios {
        let has_trigger = !scenario.trigger_windows().is_empty();
        for &strategy in &model.strategies {
            let (name, strategy) = (scenario.name.as_str(), strategy.name());
            let mut row = vec![name.to_string(), strategy.to_string()];
            for (_, column, decimals, percent) in METRIC_COLUMNS {
                let found = estimate(summary, name, strategy, column);
                let shown = scaled(found, if percent { 100.0 } else { 1.0 });
                row.push(plus_minus(metric(column), &shown, decimals));
            }
            row.push(recovery_cell(summary, name, strategy, has_trigger));
            rows.push(row);
        }
    }
    rows
}

/// The table's rows: means over runs per (scenario, strategy), in the file's order.
pub fn rows(results: &LoadResults) -> Vec<Vec<String>> {
    rows_of(results, &results.summary())
}

/// What a cell reads as, under the table.
fn legend(results: &LoadResults) -> String {
    let model = &results.model;
    let spread = if model.runs > 1 {
        " ± the half-width of the 95% interval (Student's t across runs)"
    } else {
        " (one run: no interval)"
    };
    format!(
        "means over {} runs{spread}; amplification = server calls per payment; recovered = \
         runs whose success ratio over every {} s window came back to 90% of the pre-trigger \
         one after the trigger and stayed there, at = when, over those runs; summary.csv has \
         every metric, and the Wilson interval of the share of runs recovered",
        model.runs,
        model.recovery_window_buckets() as f64 * model.bucket_ms / 1000.0
    )
}

/// The table as text.
pub fn render(results: &LoadResults) -> String {
    let mut text = layout(&HEADERS, &rows(results));
    text.push_str(&format!("\n{}\n", legend(results)));
    text
}

/// The metrics of the paired differences in `report.md`: a share in percentage points.
const DIFFERENCE_COLUMNS: [DifferenceColumn; 3] = [
    DifferenceColumn {
        header: "double charges",
        metric: "double_charges",
        factor: 1.0,
        decimals: 1,
    },
    DifferenceColumn {
        header: "succeeded, points",
        metric: "success_rate",
        factor: 100.0,
        decimals: 1,
    },
    DifferenceColumn {
        header: "amplification",
        metric: "amplification",
        factor: 1.0,
        decimals: 2,
    },
];

/// `report.md`'s paired differences: each strategy against the file's first one within each
/// scenario, run by run (empty with one strategy).
fn differences(results: &LoadResults, summary: &Summary) -> String {
    let model = &results.model;
    let Some(first) = model.strategies.first().map(|strategy| strategy.name()) else {
        return String::new();
    };
    if model.strategies.len() < 2 {
        return String::new();
    }
    let mut text = format!(
        "## Paired differences\n\nEach strategy minus `{first}` in the same scenario, run by \
         run (the strategies of a run share its random numbers), mean over the runs{}.\n\n",
        if model.runs > 1 {
            " ± the half-width of its 95% interval (t across runs)"
        } else {
            ""
        }
    );
    text.push_str(&differences_markdown(
        summary,
        "strategy",
        first,
        &DIFFERENCE_COLUMNS,
    ));
    text.push_str(
        "\n`differences.csv` has every metric, and the differences between scenarios.\n\n",
    );
    text
}

/// `report.md`: the table, the paired differences and the charts.
pub fn report(results: &LoadResults) -> String {
    let model = &results.model;
    let mut text = format!("# Load: {}\n\n", model.title);
    text.push_str(
        "Every payment of a run shares one server: a pool of workers with a FIFO queue. \
         Timeouts come from queueing, retries add load, and an overload can outlive its \
         trigger. Parameters: see the scenario file; every row of `load.csv` is one run.\n\n",
    );
    let summary = results.summary();
    text.push_str(&format!("| {} |\n", HEADERS.join(" | ")));
    text.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
    for row in rows_of(results, &summary) {
        text.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    let mut legend = legend(results);
    if let Some(first) = legend.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    text.push_str(&format!(
        "\n{legend}. `load_timeseries.csv` has every bucket; `differences.csv` the paired \
         differences between strategies and between scenarios.\n\n"
    ));
    text.push_str(&differences(results, &summary));
    text.push_str("## Charts\n\n");
    for chart in super::charts::names(results) {
        text.push_str(&format!("![{chart}]({chart})\n\n"));
    }
    text
}
