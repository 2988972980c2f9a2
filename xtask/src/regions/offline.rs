//! The tables of offline clients and reconciliation (issue #34): the share of offline
//! clients charged twice at each key TTL of `output/mobile-offline/`, with its interval.

use super::{no_argument, table};
use crate::data::Ctx;
use crate::numbers::{grouped, percent};

/// The column of `output/mobile-offline/summary.csv` that holds each sweep point's key TTL.
const SWEPT_TTL: &str = "server.key_ttl_ms";

/// A TTL in ms as hours or days (`24 h`, `7 days`).
fn ttl_text(ms: f64) -> String {
    let hours = ms / 3_600_000.0;
    if hours >= 168.0 && hours % 24.0 == 0.0 {
        format!("{} days", hours / 24.0)
    } else {
        format!("{hours} h")
    }
}

/// `offline-ttl`: `output/mobile-offline/summary.csv` and `timeline.csv`: per key TTL, the
/// share of offline clients charged twice under `check_then_insert` and `unique_key` with its
/// 95% Wilson interval, and `unique_key`'s customers charged twice among all payments.
pub fn ttl(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let summary = ctx.csv("output/mobile-offline/summary.csv")?;
    let timeline = ctx.csv("output/mobile-offline/timeline.csv")?;
    let estimate = |ttl: &str, strategy: &str, metric: &str| {
        summary
            .rows()
            .find(|row| {
                row.get(SWEPT_TTL) == ttl
                    && row.get("strategy") == strategy
                    && row.get("metric") == metric
            })
            .map(|row| (row.num("mean"), row.num("ci_low"), row.num("ci_high")))
            .ok_or_else(|| format!("mobile-offline/summary.csv: no {strategy} {metric} at {ttl}"))
    };
    let with_interval = |(mean, low, high): (f64, f64, f64)| {
        format!(
            "{} ({}–{})",
            percent(mean, 2),
            percent(low, 2),
            percent(high, 2)
        )
    };
    let first = timeline
        .rows()
        .find(|row| row.get("strategy") == "unique_key")
        .ok_or("mobile-offline/timeline.csv is empty")?;
    let mut rows = Vec::new();
    for ttl in summary.distinct(SWEPT_TTL) {
        let ms: f64 = ttl.parse().map_err(|_| format!("a TTL: {ttl}"))?;
        let charged_twice = timeline
            .rows()
            .find(|row| row.get(SWEPT_TTL) == ttl && row.get("strategy") == "unique_key")
            .ok_or_else(|| format!("mobile-offline/timeline.csv: no unique_key at {ttl}"))?
            .int("double_charged_payments");
        rows.push(vec![
            ttl_text(ms),
            with_interval(estimate(
                &ttl,
                "check_then_insert",
                "offline_double_charged",
            )?),
            with_interval(estimate(&ttl, "unique_key", "offline_double_charged")?),
            grouped(charged_twice),
        ]);
    }
    Ok(format!(
        "{} payments at each TTL (run 0), {} of them offline after their first send.\n\n{}",
        grouped(first.int("payments")),
        grouped(first.int("offline_payments")),
        table(
            &[
                "key TTL",
                "offline clients charged twice: check_then_insert",
                "unique_key (95% interval)",
                "customers charged twice, unique_key",
            ],
            &[true, true, true, true],
            &rows,
        )
    ))
}
