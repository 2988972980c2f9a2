//! `simulate compare`: the comparison's CSV holds each folder's estimates exactly as its own
//! `summary.csv` states them, a difference of two shares is Newcombe's interval computed here
//! from the two inputs, the text table a person reads is kept as a snapshot, and every
//! refusal is one line, exit code 2, with nothing written.

use std::collections::HashMap;
use std::path::Path;

use tempfile::TempDir;

use crate::common::{csv_rows, files_in, rejected_in, scenario_file, simulate};

/// Runs `redis-vs-transaction.toml` at 400 payments into `folder/name` with `args`.
fn redis_run(folder: &Path, name: &str, args: &[&str]) {
    simulate()
        .current_dir(folder)
        .arg("--config")
        .arg(scenario_file("redis-vs-transaction.toml"))
        .args(["--payments", "400", "--quiet", "--out", name])
        .args(args)
        .assert()
        .success();
}

/// Two folders of one design, the Redis lock at 3 s (`lock-3s`) and 30 s (`lock-30s`).
fn two_folders() -> TempDir {
    let folder = TempDir::new().unwrap();
    redis_run(folder.path(), "lock-3s", &[]);
    redis_run(
        folder.path(),
        "lock-30s",
        &["--set", "server.key_lock_ttl_ms=30000"],
    );
    folder
}

/// Runs `simulate compare ARGS` in `folder`; returns stdout.
fn compare(folder: &Path, args: &[&str]) -> String {
    let assert = simulate()
        .current_dir(folder)
        .arg("compare")
        .args(args)
        .assert()
        .success();
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

/// A row's identity in a summary: scenario, strategy, metric.
fn key(row: &HashMap<String, String>) -> (String, String, String) {
    (
        row["scenario"].clone(),
        row["strategy"].clone(),
        row["metric"].clone(),
    )
}

#[test]
fn the_csv_holds_each_folders_summary_and_newcombes_differences() {
    let folder = two_folders();
    let stdout = compare(
        folder.path(),
        &["lock-3s", "lock-30s", "--out", "both", "--quiet"],
    );
    assert_eq!(stdout, "");
    let rows = csv_rows(&folder.path().join("both/compare.csv"));
    let estimates: HashMap<(String, String, String, String), &HashMap<String, String>> = rows
        .iter()
        .filter(|row| row["baseline"].is_empty())
        .map(|row| {
            let (scenario, strategy, metric) = key(row);
            ((row["folder"].clone(), scenario, strategy, metric), row)
        })
        .collect();
    let mut inputs: HashMap<&str, Vec<HashMap<String, String>>> = HashMap::new();
    for name in ["lock-3s", "lock-30s"] {
        let summary = csv_rows(&folder.path().join(name).join("summary.csv"));
        for row in &summary {
            let (scenario, strategy, metric) = key(row);
            let found = estimates[&(name.to_string(), scenario, strategy, metric)];
            for column in [
                "unit", "kind", "runs", "mean", "sd", "se", "ci_low", "ci_high",
            ] {
                assert_eq!(found[column], row[column], "{name} {column} {row:?}");
            }
            assert_eq!(found["interval"], row["interval"]);
        }
        inputs.insert(name, summary);
    }
    // Every estimate of the CSV is one of the inputs'.
    assert_eq!(
        estimates.len(),
        inputs["lock-3s"].len() + inputs["lock-30s"].len()
    );
    // The key reserved first with a unique key: a share in each folder, so the difference is
    // Newcombe's hybrid score interval of the two Wilson intervals, computed here by hand.
    let of = |name: &str| {
        let row = inputs[name]
            .iter()
            .find(|row| {
                key(row)
                    == (
                        "redis-lock-first".into(),
                        "unique_key".into(),
                        "double_charged_payments".into(),
                    )
            })
            .unwrap();
        let number = |column: &str| row[column].parse::<f64>().unwrap();
        (number("mean"), number("ci_low"), number("ci_high"))
    };
    let (p1, l1, u1) = of("lock-30s");
    let (p2, l2, u2) = of("lock-3s");
    let d = p1 - p2;
    let low = d - ((p1 - l1).powi(2) + (u2 - p2).powi(2)).sqrt();
    let high = d + ((u1 - p1).powi(2) + (p2 - l2).powi(2)).sqrt();
    let difference = rows
        .iter()
        .find(|row| {
            row["baseline"] == "lock-3s"
                && key(row)
                    == (
                        "redis-lock-first".into(),
                        "unique_key".into(),
                        "double_charged_payments".into(),
                    )
        })
        .unwrap();
    assert_eq!(
        (difference["folder"].as_str(), difference["kind"].as_str()),
        ("lock-30s", "difference")
    );
    assert_eq!(difference["interval"], "newcombe");
    let number = |column: &str| difference[column].parse::<f64>().unwrap();
    assert!((number("mean") - d).abs() < 1e-15);
    assert!(
        (number("ci_low") - low).abs() < 1e-12,
        "{low} {difference:?}"
    );
    assert!(
        (number("ci_high") - high).abs() < 1e-12,
        "{high} {difference:?}"
    );
    // The page and a chart per headline metric are written with it.
    let written = files_in(&folder.path().join("both"));
    for name in [
        "compare.csv",
        "compare_double_charged_payments.svg",
        "report.html",
    ] {
        assert!(written.iter().any(|file| file == name), "{written:?}");
    }
    let page = std::fs::read_to_string(folder.path().join("both/report.html")).unwrap();
    assert!(page.contains("<td class=\"key\">server.key_lock_ttl_ms</td>"));
    assert!(page.contains("1 of the "), "one key differs");
}

#[test]
fn the_side_by_side_table() {
    let folder = two_folders();
    let stdout = compare(
        folder.path(),
        &[
            "lock-3s",
            "lock-30s",
            "--out",
            "both",
            "--title",
            "3 s or 30 s?",
        ],
    );
    let table = stdout.split("\nwrote ").next().unwrap();
    insta::assert_snapshot!(table);
}

#[test]
fn folders_of_two_models_are_refused_in_one_line() {
    let folder = two_folders();
    simulate()
        .current_dir(folder.path())
        .args([
            "--requests",
            "100",
            "--p",
            "0.1",
            "--quiet",
            "--out",
            "article",
        ])
        .assert()
        .success();
    let (stderr, _) = rejected_in(
        folder.path(),
        &["compare", "lock-3s", "article"],
        2,
        &["lock-3s holds timeline outputs but article holds article outputs"],
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn other_refusals_are_one_line_and_write_nothing() {
    let folder = two_folders();
    std::fs::create_dir(folder.path().join("empty")).unwrap();
    for (args, needle) in [
        (
            &["compare", "lock-3s"][..],
            "needs two output folders or more, got 1",
        ),
        (
            &["compare", "lock-3s", "empty"][..],
            "empty is not a simulate output folder",
        ),
        (
            &["compare", "lock-3s", "missing"][..],
            "missing is not a simulate output folder: not a folder",
        ),
    ] {
        let (stderr, _) = rejected_in(folder.path(), args, 2, &[needle]);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    // --out one of the inputs: refused before anything is read or written.
    let before = std::fs::read(folder.path().join("lock-3s/report.html")).unwrap();
    let assert = simulate()
        .current_dir(folder.path())
        .args(["compare", "lock-3s", "lock-30s", "--out", "./lock-3s"])
        .assert()
        .failure()
        .code(2);
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("--out ./lock-3s is one of the folders"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1);
    assert_eq!(
        std::fs::read(folder.path().join("lock-3s/report.html")).unwrap(),
        before
    );
    assert!(!folder.path().join("lock-3s/compare.csv").exists());
}
