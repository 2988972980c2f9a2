//! Brooker's two simulations side by side (README, "Side by side with Brooker's
//! simulations"): every number of the README's two tables is recomputed here from the
//! committed reference numbers of the original scripts (`benches/brooker_*_reference.csv`,
//! written by `benches/brooker_compare.sh --save`) and the committed runs of
//! `configs/brooker-retry.toml` and `configs/brooker-collapse.toml` (`output/brooker-*/`, which
//! CI regenerates), independently of the Python that printed them.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use common::speed_logs::{self, LATEST, PREVIOUS};
use common::{assert_readme_says, csv_rows, flat_readme, readme_table};

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Mean and standard error of the mean (sample standard deviation / √n), summed in order.
fn mean_and_standard_error(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (variance / n).sqrt())
}

/// Welch's t of ours − original (0 when both standard errors are 0 and the means equal).
fn welch_t(ours: (f64, f64), original: (f64, f64)) -> f64 {
    let se = original.1.hypot(ours.1);
    if se == 0.0 {
        assert!(
            ours.0 == original.0,
            "two exact means differ: {ours:?} {original:?}"
        );
        return 0.0;
    }
    (ours.0 - original.0) / se
}

/// `(mean, standard error)` by key columns from a reference CSV of the harness.
fn reference(path: &Path, keys: &[&str]) -> HashMap<Vec<String>, (f64, f64)> {
    csv_rows(path)
        .into_iter()
        .map(|row| {
            let key = keys.iter().map(|key| row[*key].clone()).collect();
            (
                key,
                (
                    row["mean"].parse().unwrap(),
                    row["standard_error"].parse().unwrap(),
                ),
            )
        })
        .collect()
}

/// `mean ± se` with `digits` decimals, as the README writes it.
fn plus_minus((mean, se): (f64, f64), scale: f64, digits: usize) -> String {
    format!("{:.digits$} ± {:.digits$}", scale * mean, scale * se)
}

/// The retry table: per failure rate and policy, the success rate (%) and the attempts per
/// payment of the original (harness CSV) and of the committed 10 runs (`load_sweep.csv`: the
/// policies are the scenarios, the failure rates the error-rate sweep), and Welch's t.
#[test]
fn readme_retry_table_is_the_committed_numbers() {
    let original = reference(
        &root().join("benches/brooker_retry_reference.csv"),
        &["failure_rate", "policy", "metric"],
    );
    let runs = csv_rows(&root().join("output/brooker-retry/load_sweep.csv"));
    let rows = readme_table("<!-- brooker-retry -->");
    assert_eq!(rows.len(), 8 * 4, "eight failure rates, four policies");
    for cells in rows {
        let (rate, policy) = (&cells[0], &cells[1]);
        let rate_value: f64 = rate.parse().unwrap();
        let scenario = format!("{policy} at {rate}");
        let ours: Vec<&HashMap<String, String>> = runs
            .iter()
            .filter(|row| {
                row["scenario"] == *policy
                    && row["error_rate"].parse::<f64>().unwrap() == rate_value
            })
            .collect();
        assert_eq!(ours.len(), 10, "{scenario}: 10 runs");
        let rate_key = format!("{rate_value:?}");
        for (column, metric, numerator, scale, digits) in [
            (2, "success_rate", "succeeded", 100.0, 2),
            (5, "calls_per_payment", "attempts", 1.0, 4),
        ] {
            let per_run: Vec<f64> = ours
                .iter()
                .map(|row| {
                    row[numerator].parse::<f64>().unwrap() / row["payments"].parse::<f64>().unwrap()
                })
                .collect();
            let simulate = mean_and_standard_error(&per_run);
            let key = vec![rate_key.clone(), policy.clone(), metric.to_string()];
            let reference = original[&key];
            assert_eq!(
                cells[column],
                plus_minus(reference, scale, digits),
                "{scenario} {metric}"
            );
            assert_eq!(
                cells[column + 1],
                plus_minus(simulate, scale, digits),
                "{scenario} {metric}"
            );
            let t = welch_t(simulate, reference);
            assert_eq!(cells[column + 2], format!("{t:+.2}"), "{scenario} {metric}");
        }
    }
}

/// Per-second rows of one run of the collapse: (second, arrivals, successes, retries).
type Seconds = Vec<(f64, u64, u64, u64)>;

/// The committed collapse runs before 80 s, per scenario, runs in file order.
fn collapse_runs() -> HashMap<String, Vec<Seconds>> {
    let mut runs: HashMap<String, Vec<(String, Seconds)>> = HashMap::new();
    for row in csv_rows(&root().join("output/brooker-collapse/load_timeseries.csv")) {
        let second: f64 = row["bucket_start_s"].parse().unwrap();
        if second >= 80.0 {
            continue;
        }
        let scenario = runs.entry(row["scenario"].clone()).or_default();
        if scenario.last().is_none_or(|(run, _)| *run != row["run"]) {
            scenario.push((row["run"].clone(), Vec::new()));
        }
        let count = |column: &str| row[column].parse::<u64>().unwrap();
        scenario.last_mut().unwrap().1.push((
            second,
            count("arrivals"),
            count("successes"),
            count("retries"),
        ));
    }
    runs.into_iter()
        .map(|(name, runs)| (name, runs.into_iter().map(|(_, seconds)| seconds).collect()))
        .collect()
}

/// The first second k ≥ 25 (the spike's end) from which every 5-second window k, k + 5, ...
/// up to the last has a mean goodput of at least 90% of the base rate of 40/s.
fn recovered_at(seconds: &Seconds) -> Option<f64> {
    let goodput: HashMap<i64, u64> = seconds.iter().map(|s| (s.0 as i64, s.2)).collect();
    let last = seconds.iter().map(|s| s.0 as i64).max().unwrap() + 1;
    let good = |k: i64| {
        let sum: u64 = (k..k + 5)
            .map(|s| goodput.get(&s).copied().unwrap_or(0))
            .sum();
        sum as f64 / 5.0 >= 0.9 * 40.0
    };
    (25..=last - 5)
        .find(|&k| (k..=last - 5).step_by(5).all(good))
        .map(|k| k as f64)
}

/// A per-run summary of the collapse, by the README's measure name.
fn summary(measure: &str, runs: &[Seconds]) -> Vec<f64> {
    let window = |column: usize, low: f64, high: f64| -> Vec<f64> {
        runs.iter()
            .map(|seconds| {
                let sum: u64 = seconds
                    .iter()
                    .filter(|s| low <= s.0 && s.0 < high)
                    .map(|s| [s.1, s.2, s.3][column])
                    .sum();
                sum as f64 / (high - low)
            })
            .collect()
    };
    match measure {
        "recovered_share" => runs
            .iter()
            .map(|seconds| f64::from(u8::from(recovered_at(seconds).is_some())))
            .collect(),
        "recovered_at_s" => runs.iter().filter_map(recovered_at).collect(),
        _ => {
            let (name, bounds) = measure.split_once("_per_s_").unwrap();
            let (low, high) = bounds.trim_end_matches('s').split_once('_').unwrap();
            let column = ["arrivals", "goodput", "retries"]
                .iter()
                .position(|known| *known == name)
                .unwrap();
            window(column, low.parse().unwrap(), high.parse().unwrap())
        }
    }
}

/// The collapse table: per client and measure, the original's mean (harness CSV) and the
/// committed 100 runs', and Welch's t.
#[test]
fn readme_collapse_table_is_the_committed_numbers() {
    let original = reference(
        &root().join("benches/brooker_collapse_reference.csv"),
        &["policy", "metric"],
    );
    let runs = collapse_runs();
    let rows = readme_table("<!-- brooker-collapse -->");
    assert!(
        rows.len() >= 16,
        "goodput windows and recovery of both clients"
    );
    for cells in rows {
        let (policy, measure) = (&cells[0], &cells[1]);
        let reference = original[&vec![policy.clone(), measure.clone()]];
        let simulate = mean_and_standard_error(&summary(measure, &runs[policy]));
        assert_eq!(
            cells[2],
            plus_minus(reference, 1.0, 2),
            "{policy} {measure}"
        );
        assert_eq!(cells[3], plus_minus(simulate, 1.0, 2), "{policy} {measure}");
        assert_eq!(
            cells[4],
            format!("{:+.2}", welch_t(simulate, reference)),
            "{policy} {measure}"
        );
    }
}

/// The double charges the README quotes are the committed collapse runs' means.
#[test]
fn readme_double_charges_are_the_committed_runs() {
    let runs = csv_rows(&root().join("output/brooker-collapse/load.csv"));
    let mean = |scenario: &str, column: &str| {
        let values: Vec<f64> = runs
            .iter()
            .filter(|row| row["scenario"] == scenario)
            .map(|row| row[column].parse().unwrap())
            .collect();
        assert_eq!(values.len(), 100, "{scenario}: 100 runs");
        values.iter().sum::<f64>() / values.len() as f64
    };
    let claim = format!(
        "the collapse charges {:.2} payments twice or more per run without backoff and {:.2} with \
         backoff and jitter, of {:.2} payments per run",
        mean("no_backoff", "double_charges"),
        mean("backoff_and_jitter", "double_charges"),
        mean("no_backoff", "payments"),
    );
    assert_readme_says(&flat_readme(), &claim);
}

/// The README's "goodput is zero from some second between A s and B s until 80 s" for the
/// committed no-backoff runs that do not recover.
#[test]
fn readme_collapsed_runs_stay_at_zero_goodput() {
    let runs = collapse_runs();
    let zero_from: Vec<f64> = runs["no_backoff"]
        .iter()
        .filter(|seconds| recovered_at(seconds).is_none())
        .map(|seconds| {
            let last_success = seconds
                .iter()
                .filter(|s| s.2 > 0)
                .map(|s| s.0)
                .fold(-1.0, f64::max);
            last_success + 1.0
        })
        .collect();
    assert!(!zero_from.is_empty());
    let (first, last) = zero_from
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &s| {
            (low.min(s), high.max(s))
        });
    let claim = format!(
        "in every other run of ours goodput is zero from some second between {first} s and {last} s \
         until 80 s"
    );
    assert_readme_says(&flat_readme(), &claim);
}

/// Every t of both tables is within the tolerance the README states for them, and every
/// decimal number of the two paragraphs that discuss them is a number of the tables.
#[test]
fn readme_tables_are_within_tolerance_and_the_prose_quotes_them() {
    let mut numbers: Vec<String> = Vec::new();
    for (marker, t_columns, tolerance) in [
        ("<!-- brooker-retry -->", &[4_usize, 7][..], 4.3),
        ("<!-- brooker-collapse -->", &[4][..], 3.5),
    ] {
        for cells in readme_table(marker) {
            for &column in t_columns {
                let t: f64 = cells[column].parse().unwrap();
                assert!(t.abs() <= tolerance, "{cells:?}: |t| above {tolerance}");
            }
            for cell in &cells {
                numbers.extend(
                    cell.split([' ', '±'])
                        .filter(|n| !n.is_empty())
                        .map(String::from),
                );
            }
        }
    }
    // The tolerances themselves, checked above, and the family-wise rate 0.05.
    numbers.extend(["4.3", "3.5", "0.05"].map(String::from));
    let flat = flat_readme();
    for (from, to) in [
        (
            "`benches/brooker_compare.sh` makes 128",
            "<!-- brooker-collapse -->",
        ),
        (
            "The script's 52 comparisons",
            "The originals do not count double",
        ),
    ] {
        let start = flat.find(from).expect("the README discusses the tables");
        let paragraph = &flat[start..start + flat[start..].find(to).unwrap()];
        for word in paragraph.split(|c: char| !(c.is_ascii_digit() || c == '.')) {
            let number = word.trim_matches('.');
            if number.contains('.') {
                assert!(
                    numbers.iter().any(|n| n == number),
                    "{number} is not in the tables"
                );
            }
        }
    }
}

/// The README's Speed table against Brooker's originals is the latest recorded run of
/// `benches/load_speed_compare.sh` (`benches/speed_record.sh`), figure for figure, on the
/// machine it names; the sentence after it says whether the target is met from its CPU
/// ratios, quotes its CPU time per event loop, and the machine before's CPU ratios from that
/// machine's log.
#[test]
fn readme_speed_table_is_the_recorded_comparison() {
    let rows = readme_table("<!-- brooker-speed -->");
    assert_eq!(rows.len(), 2, "{rows:?}");
    let mut claims = vec![format!(
        "{}, on an {}, with nothing else running; {}",
        LATEST.link("load_speed_compare.log"),
        LATEST.machine_name(),
        LATEST.python()
    )];
    let mut met = Vec::new();
    let mut before = Vec::new();
    for (row, (simulation, script)) in rows.iter().zip([
        ("retry", "`retry_sim`"),
        ("collapse", "`simple_collapse_sim`"),
    ]) {
        let speed = LATEST.brooker_speed(simulation);
        assert!(row[0].starts_with(script), "{row:?}");
        assert_eq!(
            row[1..],
            [
                speed.event_loops.clone(),
                format!("{} s ({} s)", speed.original_cpu, speed.original_wall),
                format!("{} s ({} s)", speed.one_thread_cpu, speed.one_thread_wall),
                format!("{} ({})", speed.ratio_cpu, speed.ratio_wall),
                format!("{} s ({})", speed.all_cores_wall, speed.ratio_all_cores),
            ],
            "{simulation}"
        );
        claims.push(format!(
            "{} against {}",
            speed.original_per_loop, speed.one_thread_per_loop
        ));
        if speed_logs::speedup(&speed.ratio_cpu) >= 100 {
            met.push(script);
        }
        before.push(PREVIOUS.brooker_speed(simulation).ratio_cpu);
    }
    claims.push(match met.len() {
        2 => "The issue's target of at least 100x is met for both".to_string(),
        1 => format!(
            "The issue's target of at least 100x is met for {} only",
            met[0]
        ),
        _ => "The issue's target of at least 100x is met for neither".to_string(),
    });
    claims.push(format!(
        "{} and {} on an {} ({})",
        before[0],
        before[1],
        PREVIOUS.machine_name(),
        PREVIOUS.link("load_speed_compare.log")
    ));
    let flat = flat_readme();
    for claim in claims {
        assert_readme_says(&flat, &claim);
    }
}
