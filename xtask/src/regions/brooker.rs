//! Brooker's two simulations side by side: the committed reference numbers of the original
//! scripts (`benches/brooker_*_reference.csv`, written by `benches/brooker_compare.sh --save`)
//! against the committed runs of `configs/brooker-retry.toml` and
//! `configs/brooker-collapse.toml`, compared as `benches/brooker_compare.py` compares them.

use std::collections::BTreeMap;

use super::{no_argument, table};
use crate::data::{Csv, Ctx};
use crate::numbers::{Estimate, mean_and_standard_error, plus_minus, student_critical, welch};

/// The retry policies in the order of the blog post.
const POLICIES: [&str; 4] = [
    "no_retries",
    "three_retries",
    "adaptive_10pct",
    "breaker_10pct",
];

/// `(mean, standard error, runs)` by key columns from a reference CSV of the harness.
fn reference(csv: &Csv, keys: &[&str]) -> BTreeMap<Vec<String>, Estimate> {
    csv.rows()
        .map(|row| {
            let key = keys.iter().map(|key| row.get(key).to_string()).collect();
            let runs = row.int("runs") as usize;
            (key, (row.num("mean"), row.num("standard_error"), runs))
        })
        .collect()
}

/// The estimate of a list of per-run values.
fn estimate(values: &[f64]) -> Estimate {
    let (mean, se) = mean_and_standard_error(values);
    (mean, se, values.len())
}

/// One comparison: its cells, the original's estimate and ours.
struct Comparison {
    original: Estimate,
    ours: Estimate,
}

/// The sentence on a family of comparisons, as `benches/brooker_compare.py` prints it: `m`
/// comparisons, the largest |t|, the Bonferroni tolerance (p ≥ 0.05 / m each, and the |t| that
/// is at the smallest runs' degrees of freedom) and how many are beyond it.
fn verdict(name: &str, comparisons: &[Comparison]) -> String {
    let m = comparisons.len();
    let threshold = 0.05 / m as f64;
    let runs = comparisons
        .iter()
        .map(|c| c.original.2.min(c.ours.2))
        .min()
        .unwrap_or(2);
    let df = 2 * (runs as u64 - 1);
    let (mut largest, mut beyond) = (0.0_f64, 0);
    for comparison in comparisons {
        let (t, p) = welch(comparison.ours, comparison.original);
        largest = largest.max(t.abs());
        beyond += usize::from(p < threshold);
    }
    format!(
        "{name}: {m} comparisons, largest |t| = {largest:.2}; tolerance p ≥ 0.05 / {m} each \
         (|t| ≤ {:.2} at {df} degrees of freedom); beyond it: {beyond}.",
        student_critical(threshold, df)
    )
}

/// `brooker-retry-comparison`: `retry_sim` at every failure rate of the reference and every
/// policy: success rate and calls per payment, the original's and ours, and Welch's t; the
/// verdict over the four metrics of every cell (successes, total calls, and the two shown).
pub fn retry(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let original = reference(
        &*ctx.csv("benches/brooker_retry_reference.csv")?,
        &["failure_rate", "policy", "metric"],
    );
    let sweep = ctx.csv("output/brooker-retry/load.csv")?;
    let mut rates: Vec<String> = original.keys().map(|key| key[0].clone()).collect();
    rates.sort_by(|a, b| a.parse::<f64>().unwrap().total_cmp(&b.parse().unwrap()));
    rates.dedup();
    let mut rows = Vec::new();
    let mut comparisons = Vec::new();
    for rate in &rates {
        let rate_value: f64 = rate.parse().unwrap();
        for policy in POLICIES {
            let runs: Vec<_> = sweep
                .rows()
                .filter(|row| {
                    row.get("scenario") == policy && row.num("server.error_rate") == rate_value
                })
                .collect();
            if runs.is_empty() {
                return Err(format!("load.csv has no runs of {policy} at {rate}"));
            }
            let per_run = |f: &dyn Fn(f64, f64, f64) -> f64| -> Estimate {
                estimate(
                    &runs
                        .iter()
                        .map(|row| {
                            f(
                                row.num("succeeded"),
                                row.num("attempts"),
                                row.num("payments"),
                            )
                        })
                        .collect::<Vec<_>>(),
                )
            };
            let ours = [
                ("successes", per_run(&|s, _, _| s)),
                ("total_calls", per_run(&|_, a, _| a)),
                ("success_rate", per_run(&|s, _, p| s / p)),
                ("calls_per_payment", per_run(&|_, a, p| a / p)),
            ];
            let mut cells = vec![crate::numbers::short(rate_value), policy.to_string()];
            for (metric, ours) in ours {
                let key = vec![rate.clone(), policy.to_string(), metric.to_string()];
                let original = *original
                    .get(&key)
                    .ok_or_else(|| format!("no reference {key:?}"))?;
                comparisons.push(Comparison { original, ours });
                let shown = match metric {
                    "success_rate" => Some((100.0, 2)),
                    "calls_per_payment" => Some((1.0, 4)),
                    _ => None,
                };
                if let Some((scale, digits)) = shown {
                    let (t, _) = welch(ours, original);
                    cells.push(plus_minus((original.0, original.1), scale, digits));
                    cells.push(plus_minus((ours.0, ours.1), scale, digits));
                    cells.push(format!("{t:+.2}"));
                }
            }
            rows.push(cells);
        }
    }
    Ok(format!(
        "{}\n{}",
        table(
            &[
                "failure rate",
                "policy",
                "success %: original",
                "simulate",
                "t",
                "calls per payment: original",
                "simulate",
                "t",
            ],
            &[true, false, true, true, true, true, true, true],
            &rows,
        ),
        verdict("retry_sim", &comparisons)
    ))
}

/// Per-second rows of one run: (second, arrivals, successes, retries, timeouts).
type Seconds = Vec<(f64, f64, f64, f64, f64)>;

/// The first second k ≥ 25 (the spike's end) from which every 5-second window k, k + 5, ...
/// up to the last has a mean goodput of at least 90% of the base rate of 40/s
/// (`benches/brooker_reference.py`, `recovered_at`).
fn recovered_at(seconds: &Seconds) -> Option<f64> {
    let goodput: BTreeMap<i64, f64> = seconds.iter().map(|s| (s.0 as i64, s.2)).collect();
    let last = seconds.iter().map(|s| s.0 as i64).max()? + 1;
    let good = |k: i64| {
        let sum: f64 = (k..k + 5)
            .map(|s| goodput.get(&s).copied().unwrap_or(0.0))
            .sum();
        sum / 5.0 >= 0.9 * 40.0
    };
    (25..=last - 5)
        .find(|&k| (k..=last - 5).step_by(5).all(good))
        .map(|k| k as f64)
}

/// The windows of the collapse's time series (s, `[from, to)`).
const WINDOWS: [(f64, f64); 6] = [
    (10.0, 20.0),
    (20.0, 25.0),
    (25.0, 30.0),
    (30.0, 40.0),
    (40.0, 60.0),
    (60.0, 80.0),
];

/// Per-run summaries of one client's runs, by measure name, as
/// `benches/brooker_reference.py`'s `summarise_runs` makes them (without the requests in
/// progress at 80 s, which the comparison leaves out).
fn summarise(runs: &[Seconds]) -> Vec<(String, Vec<f64>)> {
    let mut out = Vec::new();
    for (low, high) in WINDOWS {
        for (index, name) in [
            (1, "arrivals"),
            (2, "goodput"),
            (3, "retries"),
            (4, "timeouts"),
        ] {
            let values = runs
                .iter()
                .map(|seconds| {
                    seconds
                        .iter()
                        .filter(|s| low <= s.0 && s.0 < high)
                        .map(|s| [s.1, s.2, s.3, s.4][index - 1])
                        .sum::<f64>()
                        / (high - low)
                })
                .collect();
            out.push((format!("{name}_per_s_{low}_{high}s"), values));
        }
    }
    let recoveries: Vec<Option<f64>> = runs.iter().map(recovered_at).collect();
    out.push((
        "recovered_share".into(),
        recoveries
            .iter()
            .map(|k| f64::from(u8::from(k.is_some())))
            .collect(),
    ));
    let recovered: Vec<f64> = recoveries.into_iter().flatten().collect();
    if !recovered.is_empty() {
        out.push(("recovered_at_s".into(), recovered));
    }
    out
}

/// The measures the table shows (the verdict covers every measure).
fn shown(measure: &str) -> bool {
    measure.starts_with("goodput_per_s_")
        || measure == "retries_per_s_60_80s"
        || measure.starts_with("recovered_")
}

/// `brooker-collapse-comparison`: `simple_collapse_sim`: per client, the goodput per window,
/// the late retries and the recovery, the original's and ours with Welch's t, and the verdict
/// over every measure (arrivals, goodput, retries and timeouts per window, and the recovery).
pub fn collapse(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let original = reference(
        &*ctx.csv("benches/brooker_collapse_reference.csv")?,
        &["policy", "metric"],
    );
    let series = ctx.csv("output/brooker-collapse/load_timeseries.csv")?;
    let mut by_client: BTreeMap<String, BTreeMap<u64, Seconds>> = BTreeMap::new();
    for row in series.rows() {
        let second = row.num("bucket_start_s");
        if second >= 80.0 {
            continue;
        }
        by_client
            .entry(row.get("scenario").to_string())
            .or_default()
            .entry(row.int("run"))
            .or_default()
            .push((
                second,
                row.num("arrivals"),
                row.num("successes"),
                row.num("retries"),
                row.num("timeouts"),
            ));
    }
    let mut rows = Vec::new();
    let mut comparisons = Vec::new();
    for client in ["no_backoff", "backoff_and_jitter"] {
        let runs: Vec<Seconds> = by_client
            .get(client)
            .ok_or_else(|| format!("load_timeseries.csv has no scenario {client}"))?
            .values()
            .cloned()
            .collect();
        for (measure, values) in summarise(&runs) {
            let Some(&reference) = original.get(&vec![client.to_string(), measure.clone()]) else {
                continue;
            };
            if values.len() < 2 || reference.2 < 2 {
                continue; // a mean of one run has no standard error
            }
            let ours = estimate(&values);
            comparisons.push(Comparison {
                original: reference,
                ours,
            });
            if shown(&measure) {
                let (t, _) = welch(ours, reference);
                rows.push(vec![
                    client.to_string(),
                    measure.clone(),
                    plus_minus((reference.0, reference.1), 1.0, 2),
                    plus_minus((ours.0, ours.1), 1.0, 2),
                    format!("{t:+.2}"),
                ]);
            }
        }
    }
    let runs = by_client.values().map(BTreeMap::len).min().unwrap_or(0);
    Ok(format!(
        "{runs} runs of each client on our side.\n\n{}\n{}",
        table(
            &[
                "client",
                "measure (per second)",
                "original",
                "simulate",
                "t"
            ],
            &[false, false, true, true, true],
            &rows,
        ),
        verdict("simple_collapse_sim", &comparisons)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_recovers_when_every_later_window_is_healthy() {
        // 40/s until 30 s, nothing from 30 s to 40 s, 40/s again until 80 s.
        let seconds: Seconds = (0..80)
            .map(|s| {
                let goodput = if (30..40).contains(&s) { 0.0 } else { 40.0 };
                (f64::from(s), 40.0, goodput, 0.0, 0.0)
            })
            .collect();
        assert_eq!(recovered_at(&seconds), Some(40.0));
        let collapsed: Seconds = (0..80)
            .map(|s| {
                (
                    f64::from(s),
                    40.0,
                    if s < 30 { 40.0 } else { 0.0 },
                    0.0,
                    0.0,
                )
            })
            .collect();
        assert_eq!(recovered_at(&collapsed), None);
    }
}
