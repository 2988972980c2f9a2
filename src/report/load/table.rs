//! The stdout table of a load run and its `report.md`: per scenario and strategy, means over
//! the runs of what a design review asks first.

use crate::model::load::{LoadResults, LoadStrategy};
use crate::report::format::layout;

/// The column headers of [`rows`].
pub const HEADERS: [&str; 9] = [
    "scenario",
    "strategy",
    "payments",
    "succeeded %",
    "double charges",
    "amplification",
    "goodput/s",
    "p99 queue",
    "recovered",
];

/// Means over runs per (scenario, strategy), in the file's order.
pub fn rows(results: &LoadResults) -> Vec<Vec<String>> {
    let model = &results.model;
    let mut rows = Vec::new();
    for (index, scenario) in model.scenarios.iter().enumerate() {
        for &strategy in &model.strategies {
            rows.push(row(results, index, strategy, &scenario.name));
        }
    }
    rows
}

fn row(results: &LoadResults, scenario: usize, strategy: LoadStrategy, name: &str) -> Vec<String> {
    let matching: Vec<_> = results
        .rows
        .iter()
        .filter(|row| row.scenario == scenario && row.strategy == strategy)
        .collect();
    let runs = matching.len().max(1) as f64;
    let mean = |value: &dyn Fn(&crate::model::load::LoadRow) -> f64| {
        matching.iter().map(|row| value(row)).sum::<f64>() / runs
    };
    let payments = mean(&|row| row.tally.counts.payments as f64);
    let succeeded = mean(&|row| row.tally.counts.succeeded as f64);
    let window_s = results.model.scenarios[scenario].arrivals.duration_ms / 1000.0;
    let recovered = matching.iter().filter(|row| row.tally.recovered()).count();
    let has_trigger = matching.iter().any(|row| row.tally.has_trigger);
    vec![
        name.to_string(),
        strategy.name().to_string(),
        format!("{payments:.0}"),
        format!("{:.1}", 100.0 * succeeded / payments.max(1.0)),
        format!("{:.1}", mean(&|row| row.tally.counts.double_charges as f64)),
        format!(
            "{:.2}",
            mean(&|row| row.tally.counts.calls as f64 / row.tally.counts.payments.max(1) as f64)
        ),
        format!("{:.1}", succeeded / window_s),
        format!("{:.0}", mean(&|row| row.tally.queue.quantile(0.99) as f64)),
        if has_trigger {
            format!("{recovered}/{}", matching.len())
        } else {
            "-".into()
        },
    ]
}

/// The table as text.
pub fn render(results: &LoadResults) -> String {
    let mut text = layout(&HEADERS, &rows(results));
    text.push_str(&format!(
        "\nmeans over {} runs; amplification = server calls per payment; recovered = runs whose \
         successes came back to 90% of arrivals after the trigger and stayed there\n",
        results.model.runs
    ));
    text
}

/// `report.md`: the table and the charts.
pub fn report(results: &LoadResults) -> String {
    let model = &results.model;
    let mut text = format!("# Load: {}\n\n", model.title);
    text.push_str(
        "Every payment of a run shares one server: a pool of workers with a FIFO queue. \
         Timeouts come from queueing, retries add load, and an overload can outlive its \
         trigger. Parameters: see the scenario file; every row of `load.csv` is one run.\n\n",
    );
    text.push_str(&format!("| {} |\n", HEADERS.join(" | ")));
    text.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
    for row in rows(results) {
        text.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    text.push_str(&format!(
        "\nMeans over {} runs. `load_timeseries.csv` has every bucket.\n\n## Charts\n\n",
        model.runs
    ));
    for chart in super::charts::names(results) {
        text.push_str(&format!("![{chart}]({chart})\n\n"));
    }
    text
}
