//! The contention model's tables: the AWS scenario's means, and the side-by-side comparison
//! with the AWS simulator.

use super::{no_argument, table};
use crate::data::{Csv, Ctx, Row};
use crate::numbers::{decimal, grouped, normal_quantile};

/// The client counts the means table shows.
const CLIENTS: [&str; 4] = ["10", "50", "100", "190"];

/// The summary row of (clients, policy, metric) in the contention model's `summary.csv`.
pub fn summary_row<'a>(
    csv: &'a Csv,
    clients: &str,
    policy: &str,
    metric: &str,
) -> Result<Row<'a>, String> {
    csv.rows()
        .find(|row| {
            row.get("clients") == clients
                && row.get("policy") == policy
                && row.get("metric") == metric
        })
        .ok_or_else(|| format!("{}: no row {clients} {policy} {metric}", csv.path))
}

/// `mean ± half-width` of the 95% interval with `decimals` decimals.
fn with_error(row: Row, decimals: usize) -> String {
    format!(
        "{} ± {}",
        decimal(row.num("mean"), decimals),
        decimal(row.num("ci_high") - row.num("mean"), decimals)
    )
}

/// `contention-means`: `output/aws-backoff/summary.csv`: write calls and completion time per
/// policy at 10, 50, 100 and 190 clients, means over the runs ± the half-widths of their 95%
/// intervals.
pub fn means(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let csv = ctx.csv("output/aws-backoff/summary.csv")?;
    let policies = csv.distinct("policy");
    let mut rows = Vec::new();
    for clients in CLIENTS {
        for policy in &policies {
            let writes = summary_row(&csv, clients, policy, "writes")?;
            let time = summary_row(&csv, clients, policy, "completion_ms")?;
            rows.push(vec![
                clients.to_string(),
                policy.clone(),
                grouped(writes.int("runs")),
                with_error(writes, 1),
                with_error(time, 0),
            ]);
        }
    }
    Ok(table(
        &[
            "clients",
            "policy",
            "runs",
            "write calls",
            "completion (ms)",
        ],
        &[true, false, true, true, true],
        &rows,
    ))
}

/// The standard error of the difference of a comparison's two means.
fn error_of(row: Row) -> f64 {
    row.num("original_standard_error")
        .hypot(row.num("simulate_standard_error"))
}

/// A comparison's z, recomputed from its means and standard errors:
/// `(simulate − original) / √(se_simulate² + se_original²)`.
fn z_of(row: Row) -> f64 {
    (row.num("simulate_mean") - row.num("original_mean")) / error_of(row)
}

/// The client counts the comparison table shows (the CSV has all nineteen).
const COMPARED: [&str; 5] = ["10", "50", "100", "130", "190"];

/// `aws-comparison`: `benches/aws_backoff_compare.csv` (written by
/// `benches/aws_backoff_compare.sh --save`): the original's and our means side by side at five
/// client counts, and over all comparisons the largest |z|, the count beyond the Bonferroni
/// tolerance and the difference each comparison could detect.
pub fn comparison(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let csv = ctx.csv("benches/aws_backoff_compare.csv")?;
    let all: Vec<Row> = csv.rows().collect();
    let m = all.len();
    let tolerance = normal_quantile(1.0 - 0.05 / (2.0 * m as f64));
    let find = |clients: &str, policy: &str, metric: &str| {
        all.iter()
            .find(|row| {
                row.get("clients") == clients
                    && row.get("policy") == policy
                    && row.get("metric") == metric
            })
            .copied()
            .ok_or_else(|| format!("no comparison {clients} {policy} {metric}"))
    };
    let mut rows = Vec::new();
    for clients in COMPARED {
        for policy in csv.distinct("policy") {
            let mut cells = vec![clients.to_string(), policy.clone()];
            for (metric, decimals) in [("writes", 1), ("completion_ms", 0)] {
                let row = find(clients, &policy, metric)?;
                let side = |prefix: &str| {
                    format!(
                        "{} ± {}",
                        decimal(row.num(&format!("{prefix}_mean")), decimals),
                        decimal(row.num(&format!("{prefix}_standard_error")), decimals)
                    )
                };
                cells.push(side("original"));
                cells.push(side("simulate"));
                cells.push(format!("{:+.1}", z_of(row)));
            }
            rows.push(cells);
        }
    }
    let largest = all.iter().map(|row| row.num("z").abs()).fold(0.0, f64::max);
    let beyond = all
        .iter()
        .filter(|row| row.num("z").abs() > tolerance)
        .count();
    let mut detectable: Vec<f64> = all
        .iter()
        .map(|row| row.num("detectable_difference"))
        .collect();
    detectable.sort_by(f64::total_cmp);
    let first = all.first().ok_or("the comparison is empty")?;
    Ok(format!(
        "{} runs on each side (the original after `random.seed(2015)`, `simulate` at seed 42), \
         {m} comparisons (2 metrics × {} client counts × {} policies), five client counts shown:\n\n{}\n\
         Tolerance: |z| ≤ {tolerance:.2} for every comparison (Bonferroni, 5% family-wise). \
         Largest |z|: {largest:.2}; beyond the tolerance: {beyond}. Each comparison would \
         detect a true difference of a median {:.1}% of the original's mean (largest {:.1}%) \
         with probability 90%.",
        grouped(first.int("simulate_runs")),
        csv.distinct("clients").len(),
        csv.distinct("policy").len(),
        table(
            &[
                "clients",
                "policy",
                "write calls: original",
                "simulate",
                "z",
                "completion ms: original",
                "simulate",
                "z",
            ],
            &[true, false, true, true, true, true, true, true],
            &rows,
        ),
        100.0 * (detectable[(detectable.len() - 1) / 2] + detectable[detectable.len() / 2]) / 2.0,
        100.0 * detectable[detectable.len() - 1],
    ))
}
