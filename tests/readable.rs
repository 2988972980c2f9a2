//! Snapshots (insta) of what a person reads, for small fixed runs: the tables printed on
//! stdout, the CSV headers and the article run's report.md. The accepted texts are under
//! `tests/snapshots/`; a change shows as a diff and fails the test (and CI, which sets
//! `INSTA_UPDATE=no`). To accept an intended change: `INSTA_UPDATE=always cargo test --test
//! readable`, then review `git diff tests/snapshots/`.

use std::path::Path;

use crate::common::{csv_header, scenario_file, simulate};
use tempfile::TempDir;

/// Runs `simulate ARGS --out out` in a fresh folder; returns stdout and the folder.
fn run_in_folder(args: &[&str]) -> (String, TempDir) {
    let folder = TempDir::new().unwrap();
    let assert = simulate()
        .current_dir(folder.path())
        .args(args)
        .args(["--out", "out"])
        .assert()
        .success();
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    (stdout, folder)
}

/// The article's run as `simulate` prints it: the table and the files written.
#[test]
fn article_table() {
    let (stdout, _folder) = run_in_folder(&[]);
    insta::assert_snapshot!(stdout);
}

/// The companion piece's burst: the charges table and the per-strategy tables.
#[test]
fn same_key_burst_tables() {
    let config = scenario_file("same-key-burst.toml");
    let (stdout, _folder) = run_in_folder(&["--config", config.to_str().unwrap()]);
    insta::assert_snapshot!(stdout);
}

/// A timeline run over several runs: every summarised cell as mean ± half-width.
#[test]
fn timeline_tables_over_runs() {
    let config = scenario_file("mobile-network.toml");
    let (stdout, _folder) = run_in_folder(&[
        "--config",
        config.to_str().unwrap(),
        "--payments",
        "300",
        "--runs",
        "3",
    ]);
    insta::assert_snapshot!(stdout);
}

/// The header line of every CSV file the two models write.
#[test]
fn csv_headers() {
    let (_, article) = run_in_folder(&["--quiet", "--requests", "100"]);
    let config = scenario_file("mobile-network.toml");
    let (_, timeline) = run_in_folder(&[
        "--quiet",
        "--config",
        config.to_str().unwrap(),
        "--payments",
        "50",
    ]);
    let out = |folder: &TempDir, name: &str| folder.path().join("out").join(name);
    let headers: Vec<String> = [
        out(&article, "results.csv"),
        out(&article, "attempts.csv"),
        out(&article, "summary.csv"),
        out(&timeline, "timeline.csv"),
        out(&timeline, "summary.csv"),
        out(&timeline, "differences.csv"),
    ]
    .iter()
    .map(|path| format!("{}: {}", file_name(path), csv_header(path)))
    .collect();
    insta::assert_snapshot!(headers.join("\n"));
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// The report of a small sweep with replications: parameters, table, intervals, charts.
#[test]
fn article_report() {
    let (_, folder) = run_in_folder(&[
        "--quiet",
        "--p",
        "0.01,0.05,0.1",
        "--requests",
        "2000",
        "--runs",
        "5",
    ]);
    let report = std::fs::read_to_string(folder.path().join("out/report.md")).unwrap();
    insta::assert_snapshot!(report);
}
