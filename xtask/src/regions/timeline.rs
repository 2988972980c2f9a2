//! The timeline model's tables: the companion piece's table, each shipped scenario's outcomes
//! and the key-TTL sweep.

use super::{no_argument, required, table};
use crate::data::{Csv, Ctx, Row};
use crate::numbers::{grouped, short};

/// The strategies in report order.
const STRATEGIES: [&str; 3] = ["none", "check_then_insert", "unique_key"];

/// The run-0 row of (scenario, strategy) in a `timeline.csv`.
pub fn row<'a>(csv: &'a Csv, scenario: &str, strategy: &str) -> Result<Row<'a>, String> {
    csv.rows()
        .find(|row| {
            row.get("run") == "0"
                && row.get("scenario") == scenario
                && row.get("strategy") == strategy
        })
        .ok_or_else(|| format!("{}: no run 0 of {scenario} / {strategy}", csv.path))
}

/// `companion-table`: `output/same-key-burst/timeline.csv`, charges per scenario (sequential,
/// concurrent) and strategy.
pub fn companion(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let csv = ctx.csv("output/same-key-burst/timeline.csv")?;
    let mut rows = Vec::new();
    for scenario in csv.distinct("scenario") {
        let mut cells = vec![format!("{scenario} copies")];
        for strategy in STRATEGIES {
            cells.push(grouped(row(&csv, &scenario, strategy)?.int("charges")));
        }
        rows.push(cells);
    }
    Ok(table(
        &[
            "charges of one payment",
            "none",
            "check_then_insert",
            "unique_key",
        ],
        &[false, true, true, true],
        &rows,
    ))
}

/// The columns every outcomes table shows, with their headings.
const ALWAYS: [(&str, &str); 4] = [
    ("double_charged_payments", "charged twice"),
    ("extra_charges", "extra charges"),
    ("conflicts", "409s"),
    ("gave_up_charged", "charged, told failed"),
];

/// The columns shown only when some row of the file has a non-zero count.
const WHEN_USED: [(&str, &str); 15] = [
    ("told_succeeded_not_charged", "told ok, not charged"),
    ("rejected_mismatches", "422s"),
    ("wrong_replays", "wrong replays"),
    ("errors_replayed", "500s replayed"),
    ("errors_retried", "500s retried"),
    ("expired_key_charges", "expired-key charges"),
    ("keys_lost", "keys lost"),
    ("stuck_payments", "stuck in flight"),
    ("duplicate_provider_charges", "money moved twice"),
    ("receipts_duplicated", "receipts twice"),
    ("receipts_missing", "receipts missing"),
    ("deliveries", "deliveries"),
    ("replays", "replays"),
    ("reconciled", "reconciled"),
    ("told_failed_after_reconciliation", "still told failed"),
];

/// `timeline-outcomes SCENARIO`: `output/SCENARIO/timeline.csv`, run 0: per scenario and
/// strategy, the payments, the customers charged twice and the other outcomes the file's
/// settings produce (a column only when some row has a non-zero count).
pub fn outcomes(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    let folder = required(
        argument,
        "an output folder under output/, e.g. mobile-network",
    )?;
    let csv = ctx.csv(&format!("output/{folder}/timeline.csv"))?;
    let mut columns: Vec<(&str, &str)> = ALWAYS.to_vec();
    for (column, heading) in WHEN_USED {
        // Deliveries and replays only where the scenario is about how duplicates are answered.
        let shown = match column {
            "deliveries" | "replays" => folder == "webhook-receiver",
            // What reconciliation changes, in a file with the look-up.
            "reconciled" | "told_failed_after_reconciliation" => csv.has(column),
            _ => csv.has(column) && csv.rows().any(|row| row.int(column) > 0),
        };
        if shown {
            columns.push((column, heading));
        }
    }
    let mut rows = Vec::new();
    for scenario in csv.distinct("scenario") {
        for strategy in csv.distinct("strategy") {
            let row = row(&csv, &scenario, &strategy)?;
            let mut cells = vec![
                scenario.clone(),
                strategy.clone(),
                grouped(row.int("payments")),
            ];
            cells.extend(columns.iter().map(|(column, _)| grouped(row.int(column))));
            rows.push(cells);
        }
    }
    let mut header = vec!["scenario", "strategy", "payments"];
    header.extend(columns.iter().map(|(_, heading)| *heading));
    let mut right = vec![false, false];
    right.resize(header.len(), true);
    Ok(table(&header, &right, &rows))
}

/// The double charges of the sweep at each TTL, per strategy, and the retry window.
pub struct Sweep {
    /// The TTLs swept (ms), in file order.
    pub ttls: Vec<f64>,
    /// The client's whole retry window (ms), the closed form.
    pub window_ms: f64,
    /// Payments per TTL.
    pub payments: u64,
    /// Double charges per strategy (in [`STRATEGIES`] order) at each TTL.
    pub double_charged: Vec<[u64; 3]>,
}

/// The column of `output/key-ttl/timeline.csv` that holds each sweep point's key TTL.
const SWEPT_TTL: &str = "server.key_ttl_ms";

/// Reads the key-TTL sweep of `output/key-ttl/timeline.csv` (run 0 of every point).
pub fn sweep(ctx: &Ctx) -> Result<Sweep, String> {
    let csv = ctx.csv("output/key-ttl/timeline.csv")?;
    let ttls: Vec<f64> = csv
        .distinct(SWEPT_TTL)
        .iter()
        .map(|ttl| ttl.parse().expect("a TTL"))
        .collect();
    let first = csv.rows().next().ok_or("key-ttl/timeline.csv is empty")?;
    let mut double_charged = Vec::new();
    for &ttl in &ttls {
        let mut counts = [0; 3];
        for (index, strategy) in STRATEGIES.iter().enumerate() {
            counts[index] = csv
                .rows()
                .find(|row| {
                    row.num(SWEPT_TTL) == ttl
                        && row.get("run") == "0"
                        && row.get("strategy") == *strategy
                })
                .ok_or_else(|| format!("key-ttl/timeline.csv: no {strategy} at {ttl} ms"))?
                .int("double_charged_payments");
        }
        double_charged.push(counts);
    }
    Ok(Sweep {
        ttls,
        window_ms: first.num("retry_window_ms"),
        payments: first.int("payments"),
        double_charged,
    })
}

/// `ttl-sweep`: the sweep of `output/key-ttl/timeline.csv`: customers charged twice at each key TTL, per
/// strategy, against the clients' retry window.
pub fn ttl_sweep(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let sweep = sweep(ctx)?;
    let rows: Vec<Vec<String>> = sweep
        .ttls
        .iter()
        .zip(&sweep.double_charged)
        .map(|(&ttl, counts)| {
            let mut cells = vec![
                short(ttl / 1000.0),
                if ttl > sweep.window_ms {
                    "longer"
                } else {
                    "shorter"
                }
                .to_string(),
            ];
            cells.extend(counts.iter().map(|&count| grouped(count)));
            cells
        })
        .collect();
    Ok(format!(
        "{} payments at each TTL (run 0); the clients' retry window is {} s.\n\n{}",
        grouped(sweep.payments),
        short(sweep.window_ms / 1000.0),
        table(
            &[
                "key TTL (s)",
                "than the window",
                "charged twice: none",
                "check_then_insert",
                "unique_key",
            ],
            &[true, false, true, true, true],
            &rows,
        )
    ))
}
