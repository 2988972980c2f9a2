//! The load model: queue waits against queueing theory (M/M/1 and M/M/c, Erlang C), the
//! conservation of requests, Little's law on the time series, determinism across thread
//! counts, bad load files through the binary, the key TTL under a backlog, and Brooker's two
//! simulations reproduced within the tolerances of docs/validation.md (this build's runs
//! against the originals' committed reference numbers).

mod brooker;
mod files;
mod queueing;
mod summary;

use crate::common::simulate;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A row of a `load.csv`, by column.
type CsvRow = HashMap<String, String>;

/// Runs the shipped `configs/NAME` (its text changed by `edit`) with `args` into a fresh
/// folder; returns the folder and the output folder inside it.
fn run_shipped(name: &str, edit: impl Fn(String) -> String, args: &[&str]) -> (TempDir, PathBuf) {
    let folder = TempDir::new().unwrap();
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("configs")
            .join(name),
    )
    .unwrap();
    let config = folder.path().join(name);
    std::fs::write(&config, edit(text)).unwrap();
    let out = folder.path().join("out");
    simulate()
        .arg("--quiet")
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .args(args)
        .assert()
        .success();
    (folder, out)
}

/// The runs of (`scenario`, `strategy`) in `rows`.
fn runs_of<'a>(rows: &'a [CsvRow], scenario: &str, strategy: &str) -> Vec<&'a CsvRow> {
    let runs: Vec<&CsvRow> = rows
        .iter()
        .filter(|row| row["scenario"] == scenario && row["strategy"] == strategy)
        .collect();
    assert!(!runs.is_empty(), "no runs of {scenario} {strategy}");
    runs
}

/// The mean over the runs of (`scenario`, `strategy`) of `column` in `rows`.
fn mean_over_runs(rows: &[CsvRow], (scenario, strategy): (&str, &str), column: &str) -> f64 {
    let runs = runs_of(rows, scenario, strategy);
    runs.iter()
        .map(|row| row[column].parse::<f64>().unwrap())
        .sum::<f64>()
        / runs.len() as f64
}

/// How many runs of (`scenario`, `strategy`) in `rows` recovered.
fn recovered_runs(rows: &[CsvRow], (scenario, strategy): (&str, &str)) -> usize {
    runs_of(rows, scenario, strategy)
        .iter()
        .filter(|row| row["recovered"] == "true")
        .count()
}
