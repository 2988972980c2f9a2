//! `summary.csv` and `differences.csv` of a load run against its per-run rows, by hand.

use super::{CsvRow, run_shipped, runs_of};
use crate::common::csv_rows;

/// The 95% two-sided quantile of Student's t with `runs − 1` degrees of freedom (statrs).
fn t_975(runs: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    StudentsT::new(0.0, 1.0, (runs - 1) as f64)
        .unwrap()
        .inverse_cdf(0.975)
}

/// (mean, sample sd, se, half-width of the t interval) of per-run values, by the two-pass
/// formulas.
fn by_hand(values: &[f64]) -> (f64, f64, f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let se = sd / n.sqrt();
    (mean, sd, se, t_975(values.len()) * se)
}

/// Within `1e-9` of `expected`, relative to its size (at least 1).
fn close(actual: &str, expected: f64) -> bool {
    let actual: f64 = actual.parse().unwrap();
    (actual - expected).abs() <= 1e-9 * expected.abs().max(1.0)
}

/// `summary.csv` of `configs/capacity-drop.toml` is its `load.csv` over the runs: for every
/// (scenario, strategy), the mean, SD, SE and t interval of the per-run double charges, the
/// per-run success share (`succeeded / payments`) and the recovery time over the runs that
/// recovered, computed here from `load.csv`'s rows; and the share of runs recovered with the
/// Wilson interval of k of n (z = 1.959964, Wilson 1927).
#[test]
fn summary_rows_are_the_per_run_rows_by_hand() {
    let (_folder, out) = run_shipped("capacity-drop.toml", |text| text, &[]);
    let rows = csv_rows(&out.join("load.csv"));
    let summary = csv_rows(&out.join("summary.csv"));
    let row_of = |scenario: &str, strategy: &str, metric: &str| -> CsvRow {
        let found: Vec<&CsvRow> = summary
            .iter()
            .filter(|row| {
                row["scenario"] == scenario
                    && row["strategy"] == strategy
                    && row["metric"] == metric
            })
            .collect();
        assert_eq!(found.len(), 1, "{scenario} {strategy} {metric}");
        found[0].clone()
    };
    let number = |row: &CsvRow, column: &str| row[column].parse::<f64>().unwrap();
    let mut checked = 0;
    for cell in rows.iter().filter(|row| row["run"] == "0") {
        let (scenario, strategy) = (cell["scenario"].as_str(), cell["strategy"].as_str());
        let runs = runs_of(&rows, scenario, strategy);
        assert_eq!(runs.len(), 5);
        let recovered: Vec<&&CsvRow> = runs
            .iter()
            .filter(|row| row["recovered"] == "true")
            .collect();
        let per_run: [(&str, Vec<f64>); 3] = [
            (
                "double_charges",
                runs.iter()
                    .map(|row| number(row, "double_charges"))
                    .collect(),
            ),
            (
                "success_rate",
                runs.iter()
                    .map(|row| number(row, "succeeded") / number(row, "payments"))
                    .collect(),
            ),
            (
                "recovered_at_s",
                recovered
                    .iter()
                    .map(|row| number(row, "recovered_at_s"))
                    .collect(),
            ),
        ];
        for (metric, values) in per_run {
            let row = row_of(scenario, strategy, metric);
            assert_eq!(row["runs"], values.len().to_string(), "{metric}");
            if values.len() < 2 {
                continue;
            }
            let (mean, sd, se, half) = by_hand(&values);
            assert_eq!(
                (row["kind"].as_str(), row["interval"].as_str()),
                ("mean", "t")
            );
            for (column, expected) in [
                ("mean", mean),
                ("sd", sd),
                ("se", se),
                ("ci_low", mean - half),
                ("ci_high", mean + half),
            ] {
                assert!(
                    close(&row[column], expected),
                    "{scenario} {strategy} {metric} {column}: {} against {expected}",
                    row[column]
                );
            }
            checked += 1;
        }
        // Wilson: (p + z²/2n ± z √(p(1 − p)/n + z²/4n²)) / (1 + z²/n).
        let (k, n, z) = (recovered.len() as f64, 5.0, 1.959_963_984_540_054_f64);
        let p = k / n;
        let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
        let row = row_of(scenario, strategy, "recovered");
        assert_eq!(
            (row["kind"].as_str(), row["interval"].as_str()),
            ("proportion", "wilson")
        );
        assert!(close(&row["mean"], p));
        assert!(close(&row["ci_low"], (centre - half).max(0.0)), "{row:?}");
        assert!(close(&row["ci_high"], (centre + half).min(1.0)), "{row:?}");
    }
    assert!(checked >= 16 * 2, "{checked}");
}

/// The strategies of a run share its random numbers, so the paired difference of two is
/// estimated from the per-run differences: in `configs/capacity-drop.toml`, `unique_key`
/// against `check_then_insert` under the token bucket, the attempts per run differ far less
/// from run to run than either design's own. `differences.csv`'s row is the mean and t
/// interval of the per-run differences of `load.csv` (by hand), and its half-width is under
/// a third of the unpaired one (Welch's, from the two designs' own runs).
#[test]
fn paired_differences_are_the_per_run_differences_and_narrower_than_unpaired() {
    let (_folder, out) = run_shipped("capacity-drop.toml", |text| text, &[]);
    let rows = csv_rows(&out.join("load.csv"));
    let differences = csv_rows(&out.join("differences.csv"));
    let attempts = |strategy: &str| -> Vec<f64> {
        runs_of(&rows, "token_bucket", strategy)
            .iter()
            .map(|row| row["attempts"].parse::<f64>().unwrap())
            .collect()
    };
    let (design, baseline) = (attempts("unique_key"), attempts("check_then_insert"));
    let paired: Vec<f64> = design.iter().zip(&baseline).map(|(a, b)| a - b).collect();
    let (mean, sd, _, half) = by_hand(&paired);
    let row = differences
        .iter()
        .find(|row| {
            row["scenario"] == "token_bucket"
                && row["strategy"] == "unique_key"
                && row["compared"] == "strategy"
                && row["baseline"] == "check_then_insert"
                && row["metric"] == "attempts"
        })
        .expect("a paired difference");
    assert_eq!(
        (row["kind"].as_str(), row["runs"].as_str()),
        ("difference", "5")
    );
    assert!(
        close(&row["mean"], mean) && close(&row["sd"], sd),
        "{row:?}"
    );
    assert!(close(&row["ci_high"], mean + half), "{row:?}");
    // Welch: se² = s₁²/n + s₂²/n, degrees of freedom by Welch–Satterthwaite.
    let (_, sd_a, se_a, _) = by_hand(&design);
    let (_, sd_b, se_b, _) = by_hand(&baseline);
    let se = (se_a.powi(2) + se_b.powi(2)).sqrt();
    let df = se.powi(4) / (se_a.powi(4) / 4.0 + se_b.powi(4) / 4.0);
    let unpaired = t_975(df.floor() as usize + 1) * se;
    assert!(sd_a > 0.0 && sd_b > 0.0);
    assert!(
        half * 3.0 < unpaired,
        "paired ±{half}, unpaired ±{unpaired}"
    );
}
