//! The contention model in the shared summary shape ([`crate::report::summary`]): one cell per
//! (client count, policy), the metrics of [`Metric`] (declared once in the model), each a mean
//! per run with Student's t interval; `summary.csv` and `differences.csv` are written from it.
//!
//! The differences compare the policies at the same client count, run `k` of one against run
//! `k` of the other. The policies do **not** share random numbers: every (run, clients,
//! policy) draws from its own stream (the policy's code is part of the spawn key), so the two
//! runs of a pair are independent. The difference's t interval is still valid (the runs' pairs
//! are independent of each other), but pairing buys nothing: its width is that of comparing
//! two independent means.

use crate::model::contention::summary::Metric;
use crate::model::contention::{ContentionResults, Policy};
use crate::report::summary::{self, Observation, Row, Summary, SummaryBuilder};
use engine::counters::Column;

/// The columns naming a cell of the contention summary.
pub const CELL_COLUMNS: [Column; 2] = [
    Column {
        name: "clients",
        unit: "clients",
        doc: &["Clients racing to update the row, as in `contention.csv`."],
    },
    Column {
        name: "policy",
        unit: "",
        doc: &["The backoff policy, as in `contention.csv`."],
    },
];

/// The cell column the differences compare over: the policies at one client count.
pub const COMPARED: &str = "policy";

/// The metrics as the shared summary takes them, in [`Metric::ALL`]'s order.
pub fn metrics() -> Vec<summary::Metric> {
    Metric::ALL
        .iter()
        .map(|metric| summary::Metric {
            column: metric.column(),
            kind: metric.kind(),
        })
        .collect()
}

/// A cell's labels: the client count and the policy's name.
fn labels(clients: u32, policy: Policy) -> Vec<String> {
    vec![clients.to_string(), policy.name().to_string()]
}

/// The summary of every run: cells in the results' order (client counts as given, then
/// policies as given), metrics as in [`Metric::ALL`], differences between the policies at
/// each client count (each later policy against each earlier one).
pub fn summarise(results: &ContentionResults) -> Summary {
    let model = &results.model;
    let runs = model.runs as usize;
    let mut builder = SummaryBuilder::new(CELL_COLUMNS.to_vec(), &[COMPARED], metrics());
    let cells = results.rows.len() / runs.max(1);
    for run in 0..runs {
        let observations = (0..cells)
            .map(|cell| {
                let row = &results.rows[cell * runs + run];
                debug_assert_eq!(row.run as usize, run, "rows are by cell, then run");
                let values = Metric::ALL
                    .iter()
                    .map(|metric| Observation::Value(metric.of(&row.tally)))
                    .collect();
                (labels(row.clients, row.policy), values)
            })
            .collect();
        builder.run(observations);
    }
    builder.finish()
}

/// The estimate of `metric` for `clients` clients under `policy`.
pub fn find(summary: &Summary, clients: u32, policy: Policy, metric: Metric) -> Option<&Row> {
    let cell = labels(clients, policy);
    summary
        .rows
        .iter()
        .find(|row| row.cell == cell && row.metric.column.name == metric.name())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::contention::{
        ContentionModel, ContentionRow, ContentionSetup, Delay, RunTally,
    };
    use engine::distribution::Distribution;

    /// Three runs of two policies at two clients, worked by hand.
    #[test]
    fn means_intervals_and_differences_by_hand() {
        let tally = |writes: u64, completion_ms: f64| RunTally {
            writes,
            completion_ms,
            ..RunTally::default()
        };
        let model = ContentionModel {
            title: "t".into(),
            seed: 1,
            runs: 3,
            clients: vec![2],
            policies: vec![Policy::None, Policy::FullJitter],
            base_ms: 5.0,
            cap_ms: 10.0,
            setup: ContentionSetup {
                delay: Delay::Timeline(Distribution::Fixed { ms: 1.0 }),
                max_retries: None,
            },
        };
        let none = [tally(2, 10.0), tally(4, 20.0), tally(6, 60.0)];
        let jitter = [tally(1, 10.0), tally(2, 20.0), tally(6, 30.0)];
        let rows = [(Policy::None, none), (Policy::FullJitter, jitter)]
            .into_iter()
            .flat_map(|(policy, tallies)| {
                tallies
                    .into_iter()
                    .enumerate()
                    .map(move |(run, tally)| ContentionRow {
                        clients: 2,
                        policy,
                        run: run as u32,
                        tally,
                    })
            })
            .collect();
        let summary = summarise(&ContentionResults { model, rows });
        assert_eq!(summary.rows.len(), 2 * Metric::ALL.len());
        let writes = find(&summary, 2, Policy::None, Metric::Writes).unwrap();
        // Mean 4, sd 2, standard error 2 / √3; t(0.975, 2) = 4.302653.
        let estimate = &writes.estimate;
        assert_eq!(estimate.mean, 4.0);
        assert_eq!(estimate.sd, Some(2.0));
        assert!((estimate.se.unwrap() - 2.0 / 3f64.sqrt()).abs() < 1e-15);
        let half = 4.302_653 * 2.0 / 3f64.sqrt();
        assert!((estimate.half_width().unwrap() - half).abs() < 1e-5);
        let time = find(&summary, 2, Policy::None, Metric::CompletionMs).unwrap();
        assert_eq!(time.estimate.mean, 30.0);
        // One pair (full_jitter against none), per metric; writes differ by −1, −2, 0: mean
        // −1, sd 1.
        assert_eq!(summary.differences.len(), Metric::ALL.len());
        let difference = &summary.differences[0];
        assert_eq!(difference.cell, ["2", "full_jitter"]);
        assert_eq!(
            (difference.compared, difference.baseline.as_str()),
            ("policy", "none")
        );
        assert_eq!(difference.metric.column.name, "writes");
        assert_eq!(difference.estimate.mean, -1.0);
        assert_eq!(difference.estimate.sd, Some(1.0));
    }
}
