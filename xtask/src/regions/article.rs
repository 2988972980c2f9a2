//! The article model's tables: its run 0 (the article's table), the summary with intervals and
//! closed forms, and numpy's own counts beside ours.

use super::no_argument;
use crate::data::{Csv, Ctx, Row};
use crate::numbers::{grouped, percent, short};

/// The article's table from `output/results.csv`, run 0: per p, the customers charged twice
/// without a key and with one, the extra charges and the duplicates the key absorbed.
pub fn table_of(results: &Csv) -> String {
    let rows: Vec<Vec<String>> = results
        .rows()
        .filter(|row| row.get("run") == "0" && row.get("server") == "non_idempotent")
        .map(|plain| {
            let keyed = results
                .rows()
                .find(|row| {
                    row.get("run") == "0"
                        && row.get("server") == "idempotency_key"
                        && row.get("p") == plain.get("p")
                })
                .expect("both servers at every p");
            let requests = plain.int("requests");
            let twice = plain.int("double_charged_requests");
            vec![
                plain.get("p").to_string(),
                grouped(requests),
                grouped(twice),
                percent(twice as f64 / requests as f64, 2),
                grouped(plain.int("extra_charges")),
                grouped(keyed.int("double_charged_requests")),
                grouped(keyed.int("prevented_duplicates")),
            ]
        })
        .collect();
    super::table(
        &[
            "ACK loss p",
            "requests",
            "charged twice, no key",
            "rate",
            "extra charges, no key",
            "charged twice, with key",
            "duplicates the key absorbed",
        ],
        &[true; 7],
        &rows,
    )
}

/// `article-table`: the article's table from the default run's `output/results.csv`.
pub fn table(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let results = ctx.csv("output/results.csv")?;
    Ok(table_of(&results))
}

/// A number with four significant digits (`0.05028`, `0.0001200`, `1.053`), 0 as `0`, below
/// 10^-4 in scientific notation (`1.921e-5`).
pub fn significant(value: f64) -> String {
    if value == 0.0 {
        return "0".to_string();
    }
    if value.abs() < 1e-4 {
        return format!("{value:.3e}");
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (3 - magnitude).max(0) as usize;
    format!("{value:.decimals$}")
}

/// The metrics the summary table shows, by server.
const SUMMARY: [(&str, &str, &str); 6] = [
    (
        "non_idempotent",
        "double_charge_rate",
        "share charged twice, no key",
    ),
    (
        "idempotency_key",
        "double_charge_rate",
        "share charged twice, with key",
    ),
    (
        "non_idempotent",
        "extra_charges_per_request",
        "extra charges per request, no key",
    ),
    (
        "idempotency_key",
        "prevented_duplicates_per_request",
        "duplicates absorbed per request, with key",
    ),
    (
        "non_idempotent",
        "retries_exhausted_rate",
        "share whose client gave up",
    ),
    (
        "non_idempotent",
        "deliveries_per_request",
        "deliveries per request",
    ),
];

/// The summary row of (p, server, metric).
fn summary_row<'a>(summary: &'a Csv, p: &str, server: &str, metric: &str) -> Row<'a> {
    summary
        .rows()
        .find(|row| row.get("p") == p && row.get("server") == server && row.get("metric") == metric)
        .unwrap_or_else(|| panic!("{}: no row {p} {server} {metric}", summary.path))
}

/// `article-summary [FOLDER]`: `FOLDER/summary.csv` (default `output`): per p, the means of
/// the main metrics with their 95% intervals, the closed form and the z-score.
pub fn summary(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    let folder = argument.unwrap_or("output");
    let summary = ctx.csv(&format!("{folder}/summary.csv"))?;
    let mut rows = Vec::new();
    for p in summary.distinct("p") {
        for (server, metric, label) in SUMMARY {
            let row = summary_row(&summary, &p, server, metric);
            let z = row.num("z_score");
            rows.push(vec![
                p.clone(),
                label.to_string(),
                grouped(row.int("runs")),
                significant(row.num("mean")),
                format!(
                    "{} to {} ({})",
                    significant(row.num("ci_low")),
                    significant(row.num("ci_high")),
                    row.get("interval")
                ),
                significant(row.num("closed_form")),
                if z.is_nan() {
                    "—".to_string()
                } else {
                    format!("{z:+.2}")
                },
            ]);
        }
    }
    Ok(super::table(
        &[
            "p",
            "metric",
            "runs",
            "mean",
            "95% interval",
            "closed form",
            "z",
        ],
        &[true, false, true, true, false, true, true],
        &rows,
    ))
}

/// `numpy-article`: the article's numpy code's counts (`tests/reference/article_seed42.csv`,
/// made with numpy) beside the default run's (`output/results.csv`).
pub fn numpy(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let numpy = ctx.csv("tests/reference/article_seed42.csv")?;
    let ours = ctx.csv("output/results.csv")?;
    let mut rows = Vec::new();
    for reference in numpy.rows() {
        let p: f64 = reference.num("p");
        let mine = ours
            .rows()
            .find(|row| {
                row.get("run") == "0" && row.get("server") == "non_idempotent" && row.num("p") == p
            })
            .ok_or_else(|| format!("output/results.csv has no p = {p}"))?;
        let mut cells = vec![short(p)];
        let mut identical = true;
        for column in [
            "deliveries",
            "double_charged_requests",
            "extra_charges",
            "retries_exhausted",
        ] {
            let (a, b) = (reference.int(column), mine.int(column));
            identical &= a == b;
            cells.push(format!("{} / {}", grouped(a), grouped(b)));
        }
        cells.push(if identical { "identical" } else { "**differ**" }.to_string());
        rows.push(cells);
    }
    Ok(super::table(
        &[
            "p",
            "deliveries: numpy / simulate",
            "charged twice",
            "extra charges",
            "gave up",
            "counts",
        ],
        &[true, true, true, true, true, false],
        &rows,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits() {
        assert_eq!(significant(0.050_28), "0.05028");
        assert_eq!(significant(1.920_692_519_040_967e-5), "1.921e-5");
        assert_eq!(significant(0.000_12), "0.0001200");
        assert_eq!(significant(1.052_915), "1.053");
        assert_eq!(significant(0.0), "0");
    }

    #[test]
    fn the_table_pairs_both_servers_of_run_0() {
        let csv = Csv::parse(
            "results.csv",
            "run,p,server,requests,double_charged_requests,extra_charges,prevented_duplicates\n\
             0,0.1,non_idempotent,10000,984,1082,0\n\
             0,0.1,idempotency_key,10000,0,0,1082\n\
             1,0.1,non_idempotent,10000,1,1,0\n\
             1,0.1,idempotency_key,10000,0,0,1\n",
        )
        .unwrap();
        let text = table_of(&csv);
        assert!(
            text.ends_with("| 0.1 | 10,000 | 984 | 9.84% | 1,082 | 0 | 1,082 |\n"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 3);
    }
}
