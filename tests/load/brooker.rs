//! Brooker's two simulations (retries with token buckets and circuit breakers, congestive
//! collapse) reproduced by this build within the tolerances of docs/validation.md, against the
//! originals' committed reference numbers.

use super::{CsvRow, run_shipped};
use crate::common::csv_rows;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// `(mean, standard error, runs)` of per-run values (the standard error is the sample
/// standard deviation over √runs).
fn estimate(values: &[f64]) -> (f64, f64, usize) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (variance / n).sqrt(), values.len())
}

/// Welch's test of `ours − original` (each a mean, its standard error and its runs): the
/// two-sided p-value from Student's t at the Welch–Satterthwaite degrees of freedom (rounded
/// down), as `benches/brooker_compare.py` computes it; 1 for two equal exact means.
fn welch_p(ours: (f64, f64, usize), original: (f64, f64, usize)) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let ((a, sa, na), (b, sb, nb)) = (original, ours);
    let se = sa.hypot(sb);
    if se == 0.0 {
        return if a == b { 1.0 } else { 0.0 };
    }
    let part = |s: f64, n: usize| {
        if s > 0.0 {
            s.powi(4) / (n as f64 - 1.0)
        } else {
            0.0
        }
    };
    let df = (se.powi(4) / (part(sa, na) + part(sb, nb)))
        .floor()
        .max(1.0);
    let t = (b - a) / se;
    2.0 * (1.0 - StudentsT::new(0.0, 1.0, df).unwrap().cdf(t.abs()))
}

/// The harness's reference numbers (`benches/brooker_*_reference.csv`, the originals' own
/// seeded runs): `(mean, standard error, runs)` by the values of `keys`.
fn brooker_reference(file: &str, keys: &[&str]) -> HashMap<Vec<String>, (f64, f64, usize)> {
    csv_rows(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("benches")
            .join(file),
    )
    .into_iter()
    .map(|row| {
        let key = keys.iter().map(|key| row[*key].clone()).collect();
        let number = |column: &str| row[column].parse::<f64>().unwrap();
        (
            key,
            (
                number("mean"),
                number("standard_error"),
                row["runs"].parse().unwrap(),
            ),
        )
    })
    .collect()
}

/// Brooker's `retry_sim` ("Fixing retries with token buckets and circuit breakers"),
/// reproduced: `configs/brooker-retry.toml`, swept over the failure rates of the harness's
/// reference, run by this build; per failure rate and policy its successes, total calls,
/// success rate and calls per payment (means over the 10 runs) against the original's, each
/// Welch's test at p ≥ 0.05 / 128 (Bonferroni over the 128 comparisons: under 5% chance that
/// any fails if both simulate the same model). And the two policies with closed forms agree
/// with them (success rate 1 − p and 1 − p⁴, calls per payment 1 and 1 + p + p² + p³), each
/// within the same family-wise 5% over its 32 comparisons.
#[test]
fn brookers_retry_simulation_is_reproduced_within_tolerance() {
    use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
    let reference = brooker_reference(
        "brooker_retry_reference.csv",
        &["failure_rate", "policy", "metric"],
    );
    let mut rates: Vec<f64> = reference
        .keys()
        .map(|key| key[0].parse::<f64>().unwrap())
        .collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let sweep = format!("\"server.error_rate\" = {rates:?}");
    let (_folder, out) = run_shipped(
        "brooker-retry.toml",
        |text| {
            let start = text.find("\"server.error_rate\" = [").unwrap();
            let end = start + text[start..].find(']').unwrap() + 1;
            format!("{}{sweep}{}", &text[..start], &text[end..])
        },
        &[],
    );
    let runs = csv_rows(&out.join("load.csv"));
    let policies = [
        "no_retries",
        "three_retries",
        "adaptive_10pct",
        "breaker_10pct",
    ];
    let comparisons = rates.len() * policies.len() * 4;
    assert_eq!(comparisons, 128);
    let mut worst: f64 = 1.0;
    for &rate in &rates {
        for policy in policies {
            let cell: Vec<&CsvRow> = runs
                .iter()
                .filter(|row| {
                    row["scenario"] == policy
                        && row["server.error_rate"].parse::<f64>().unwrap() == rate
                })
                .collect();
            assert_eq!(cell.len(), 10, "{policy} at {rate}");
            let per_run = |f: &dyn Fn(f64, f64, f64) -> f64| {
                let values: Vec<f64> = cell
                    .iter()
                    .map(|row| {
                        let number = |column: &str| row[column].parse::<f64>().unwrap();
                        f(number("succeeded"), number("attempts"), number("payments"))
                    })
                    .collect();
                estimate(&values)
            };
            let ours = [
                ("successes", per_run(&|s, _, _| s)),
                ("total_calls", per_run(&|_, a, _| a)),
                ("success_rate", per_run(&|s, _, p| s / p)),
                ("calls_per_payment", per_run(&|_, a, p| a / p)),
            ];
            for (metric, ours) in ours {
                let key = vec![format!("{rate:?}"), policy.to_string(), metric.to_string()];
                let original = reference[&key];
                let p = welch_p(ours, original);
                worst = worst.min(p);
                assert!(
                    p >= 0.05 / comparisons as f64,
                    "{key:?}: ours {ours:?}, original {original:?}, p = {p}"
                );
                let closed = match (policy, metric) {
                    ("no_retries", "success_rate") => Some(1.0 - rate),
                    ("no_retries", "calls_per_payment") => Some(1.0),
                    ("three_retries", "success_rate") => Some(1.0 - rate.powi(4)),
                    ("three_retries", "calls_per_payment") => {
                        Some(1.0 + rate + rate.powi(2) + rate.powi(3))
                    }
                    _ => None,
                };
                if let Some(value) = closed {
                    let threshold = 0.05 / 32.0;
                    let (mean, se, n) = ours;
                    let p = if se > 0.0 {
                        let t = (mean - value) / se;
                        let df = (n - 1) as f64;
                        2.0 * (1.0 - StudentsT::new(0.0, 1.0, df).unwrap().cdf(t.abs()))
                    } else if value == mean {
                        1.0
                    } else {
                        // Every run saw the same ratio: the binomial error of the expected
                        // success rate over all the runs' payments.
                        let payments: f64 = cell
                            .iter()
                            .map(|row| row["payments"].parse::<f64>().unwrap())
                            .sum();
                        let sd = (value * (1.0 - value) / payments).sqrt();
                        2.0 * (1.0 - Normal::standard().cdf(((mean - value) / sd).abs()))
                    };
                    assert!(p >= threshold, "{key:?}: {mean} vs the closed form {value}");
                }
            }
        }
    }
    // Not vacuous: the comparisons do vary.
    assert!(worst < 0.5, "{worst}");
}

/// Per-second rows of one run: (second, arrivals, successes, retries, timeouts).
type Seconds = Vec<(f64, f64, f64, f64, f64)>;

/// The first second k ≥ 25 (the spike's end) from which every 5-second window k, k + 5, ...
/// up to the last has a mean goodput of at least 90% of the base rate of 40/s
/// (`benches/brooker_reference.py`, `recovered_at`).
fn recovered_at(seconds: &Seconds) -> Option<f64> {
    let goodput: BTreeMap<i64, f64> = seconds.iter().map(|s| (s.0 as i64, s.2)).collect();
    let last = seconds.iter().map(|s| s.0 as i64).max().unwrap() + 1;
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

/// Per-run summaries of one client's runs by measure, as the harness makes them of the
/// original (`benches/brooker_reference.py`, `summarise_runs`): the mean per second of each
/// count in each window, whether the run recovered and when.
fn collapse_summaries(runs: &[Seconds]) -> Vec<(String, Vec<f64>)> {
    let mut out = Vec::new();
    for (low, high) in [(10, 20), (20, 25), (25, 30), (30, 40), (40, 60), (60, 80)] {
        for (index, name) in ["arrivals", "goodput", "retries", "timeouts"]
            .iter()
            .enumerate()
        {
            let values = runs
                .iter()
                .map(|seconds| {
                    let (low, high) = (f64::from(low), f64::from(high));
                    seconds
                        .iter()
                        .filter(|s| low <= s.0 && s.0 < high)
                        .map(|s| [s.1, s.2, s.3, s.4][index])
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
    out.push((
        "recovered_at_s".into(),
        recoveries.into_iter().flatten().collect(),
    ));
    out
}

/// Brooker's `simple_collapse_sim` (congestive collapse after a 5-second spike), reproduced:
/// `configs/brooker-collapse.toml` run by this build, its per-second series cut at 80 s and
/// summarised per run as the harness summarises the original's; every measure with a standard
/// error on both sides against the original's, each Welch's test at p ≥ 0.05 / m (Bonferroni
/// over the m comparisons). And Brooker's result: without backoff most runs never recover,
/// with backoff and jitter nearly all do.
#[test]
fn brookers_collapse_is_reproduced_within_tolerance() {
    let reference = brooker_reference("brooker_collapse_reference.csv", &["policy", "metric"]);
    let (_folder, out) = run_shipped("brooker-collapse.toml", |text| text, &[]);
    let mut by_client: BTreeMap<String, BTreeMap<u64, Seconds>> = BTreeMap::new();
    for row in csv_rows(&out.join("load_timeseries.csv")) {
        let number = |column: &str| row[column].parse::<f64>().unwrap();
        let second = number("bucket_start_s");
        if second >= 80.0 {
            continue;
        }
        by_client
            .entry(row["scenario"].clone())
            .or_default()
            .entry(row["run"].parse().unwrap())
            .or_default()
            .push((
                second,
                number("arrivals"),
                number("successes"),
                number("retries"),
                number("timeouts"),
            ));
    }
    let mut comparisons = Vec::new();
    let mut share = HashMap::new();
    for client in ["no_backoff", "backoff_and_jitter"] {
        let runs: Vec<Seconds> = by_client[client].values().cloned().collect();
        assert_eq!(runs.len(), 100, "{client}");
        for (measure, values) in collapse_summaries(&runs) {
            if measure == "recovered_share" {
                share.insert(client, estimate(&values).0);
            }
            let Some(&original) = reference.get(&vec![client.to_string(), measure.clone()]) else {
                continue;
            };
            if values.len() < 2 || original.2 < 2 {
                continue;
            }
            comparisons.push((format!("{client} {measure}"), estimate(&values), original));
        }
    }
    assert_eq!(comparisons.len(), 52);
    let threshold = 0.05 / comparisons.len() as f64;
    for (name, ours, original) in &comparisons {
        let p = welch_p(*ours, *original);
        assert!(
            p >= threshold,
            "{name}: ours {ours:?}, original {original:?}, p = {p}"
        );
    }
    assert!(share["no_backoff"] < 0.5, "{share:?}");
    assert!(share["backoff_and_jitter"] > 0.9, "{share:?}");
}
