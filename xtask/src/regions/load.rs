//! The load model's tables: a load file's means over runs per scenario and strategy.

use super::required;
use crate::data::{Csv, Ctx, Row};
use crate::numbers::{decimal, grouped};

/// The runs of (scenario, strategy) in a `load.csv`.
pub fn runs<'a>(csv: &'a Csv, scenario: &str, strategy: &str) -> Vec<Row<'a>> {
    csv.rows()
        .filter(|row| row.get("scenario") == scenario && row.get("strategy") == strategy)
        .collect()
}

/// The mean of `column` over `runs`.
pub fn mean(runs: &[Row], column: &str) -> f64 {
    runs.iter().map(|row| row.num(column)).sum::<f64>() / runs.len() as f64
}

/// The smallest and largest `column` over `runs`.
pub fn range(runs: &[Row], column: &str) -> (f64, f64) {
    runs.iter()
        .map(|row| row.num(column))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), value| {
            (low.min(value), high.max(value))
        })
}

/// The mean share of payments that succeeded over `runs` (each run's share, averaged).
pub fn succeeded(runs: &[Row]) -> f64 {
    runs.iter()
        .map(|row| row.num("succeeded") / row.num("payments"))
        .sum::<f64>()
        / runs.len() as f64
}

/// `k/n`: how many of `runs` recovered, or `—` without a trigger.
pub fn recovered(runs: &[Row]) -> String {
    if runs.iter().all(|row| row.get("recovered").is_empty()) {
        return "—".to_string();
    }
    let count = runs
        .iter()
        .filter(|row| row.get("recovered") == "true")
        .count();
    format!("{count}/{}", runs.len())
}

/// `mean (low–high)` of a count over runs, the mean with one decimal.
pub fn mean_and_range(runs: &[Row], column: &str) -> String {
    let (low, high) = range(runs, column);
    if runs.len() == 1 || low == high {
        return decimal(mean(runs, column), 1);
    }
    format!(
        "{} ({}–{})",
        decimal(mean(runs, column), 1),
        decimal(low, 0),
        decimal(high, 0)
    )
}

/// `load-table FOLDER`: `output/FOLDER/load.csv`: per scenario and strategy, means over the
/// runs (with the smallest and largest run for the double charges): the share that succeeded,
/// the double charges, the customers charged and told it failed, the calls per payment, the
/// retries refused and the charges after a key expired (each only when some run has one), and
/// how many runs recovered.
pub fn table(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    let folder = required(
        argument,
        "an output folder under output/, e.g. capacity-drop",
    )?;
    let csv = ctx.csv(&format!("output/{folder}/load.csv"))?;
    let used = |column: &str| csv.rows().any(|row| row.num(column) > 0.0);
    let (throttled, expired) = (used("throttled"), used("expired_key_charges"));
    let mut rows = Vec::new();
    let mut count = 0;
    let mut payments = Vec::new();
    for scenario in csv.distinct("scenario") {
        for strategy in csv.distinct("strategy") {
            let runs = runs(&csv, &scenario, &strategy);
            count = runs.len();
            payments.extend(runs.iter().map(|row| row.num("payments")));
            let mut cells = vec![
                scenario.clone(),
                strategy.clone(),
                decimal(100.0 * succeeded(&runs), 1),
                mean_and_range(&runs, "double_charges"),
                decimal(mean(&runs, "failed_charged"), 1),
                decimal(mean(&runs, "amplification"), 2),
            ];
            if throttled {
                cells.push(decimal(mean(&runs, "throttled"), 1));
            }
            if expired {
                cells.push(decimal(mean(&runs, "expired_key_charges"), 1));
            }
            cells.push(recovered(&runs));
            rows.push(cells);
        }
    }
    let mut header = vec![
        "scenario",
        "strategy",
        "succeeded %",
        "charged twice (runs' range)",
        "charged, told failed",
        "calls per payment",
    ];
    if throttled {
        header.push("retries refused");
    }
    if expired {
        header.push("expired-key charges");
    }
    header.push("runs recovered");
    let mut right = vec![false, false];
    right.resize(header.len(), true);
    let (low, high) = payments
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &p| {
            (a.min(p), b.max(p))
        });
    let issued = if low == high {
        grouped(low as u64)
    } else {
        format!("{} to {}", grouped(low as u64), grouped(high as u64))
    };
    Ok(format!(
        "Means over {count} runs of {issued} payments each (the run with the fewest and the \
         most double charges in brackets).\n\n{}",
        super::table(&header, &right, &rows)
    ))
}

/// `key-store-table FOLDER`: `output/FOLDER/load.csv` and `load_key_store.csv` (issue #30):
/// per scenario and strategy, means over the runs of the share that succeeded, the double
/// charges (with the runs' range), the goodput, the payments charged and told they failed
/// (when some run has one), and of the key store's counts that some run has: the deliveries
/// answered 503 because the store was down, those processed without their key, the expired
/// `key_first` locks, the keys lost, the keys left in flight and those the completer
/// recovered.
pub fn key_store_table(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    let folder = required(
        argument,
        "an output folder under output/ with a load_key_store.csv, e.g. key-store-outage",
    )?;
    let load = ctx.csv(&format!("output/{folder}/load.csv"))?;
    let keys = ctx.csv(&format!("output/{folder}/load_key_store.csv"))?;
    let optional = [
        ("key_store_unavailable", "503s from the key store"),
        ("unkeyed_processings", "processed without the key"),
        ("lock_expiries", "expired locks met"),
        ("keys_lost", "keys lost"),
        ("keys_abandoned", "keys left in flight"),
        ("completer_recoveries", "recovered by the completer"),
    ];
    let used: Vec<_> = optional
        .iter()
        .filter(|(column, _)| keys.rows().any(|row| row.num(column) > 0.0))
        .collect();
    let told_failed = load.rows().any(|row| row.num("failed_charged") > 0.0);
    let mut rows = Vec::new();
    let mut count = 0;
    for scenario in load.distinct("scenario") {
        for strategy in load.distinct("strategy") {
            let runs = runs(&load, &scenario, &strategy);
            let key_runs = self::runs(&keys, &scenario, &strategy);
            count = runs.len();
            let mut cells = vec![
                scenario.clone(),
                strategy.clone(),
                decimal(100.0 * succeeded(&runs), 1),
                mean_and_range(&runs, "double_charges"),
                decimal(mean(&runs, "goodput_per_s"), 1),
            ];
            if told_failed {
                cells.push(decimal(mean(&runs, "failed_charged"), 1));
            }
            for (column, _) in &used {
                cells.push(decimal(mean(&key_runs, column), 1));
            }
            rows.push(cells);
        }
    }
    let mut header = vec![
        "scenario",
        "strategy",
        "succeeded %",
        "charged twice (runs' range)",
        "goodput/s",
    ];
    if told_failed {
        header.push("charged, told failed");
    }
    header.extend(used.iter().map(|(_, title)| *title));
    let mut right = vec![false, false];
    right.resize(header.len(), true);
    Ok(format!(
        "Means over {count} runs (the run with the fewest and the most double charges in \
         brackets), per run: payments, and the key store's deliveries and keys.\n\n{}",
        super::table(&header, &right, &rows)
    ))
}
