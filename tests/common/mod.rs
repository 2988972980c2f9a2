//! Helpers shared by the integration tests: running the `simulate` binary and the library,
//! the files a run writes, reading them back, and checking that bad input is rejected.
//!
//! Each test binary includes this module with `mod common;` and uses a part of it.
#![allow(dead_code)]

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use engine::Silent;
use simulate::model::article::{self as model, ArticleModel, ArticleResults, Engine};
use tempfile::TempDir;

/// The files an article-model run writes (docs/models/article.md, "Outputs"), sorted.
pub const ARTICLE_FILES: [&str; 12] = [
    "attempts.csv",
    "attempts.svg",
    "deliveries.svg",
    "double_charge_rate.svg",
    "double_charges.svg",
    "extra_charges.svg",
    "parameters.csv",
    "report.html",
    "report.md",
    "results.csv",
    "retry_amplification.svg",
    "summary.csv",
];

/// The files a timeline scenario writes (not a sweep), sorted.
pub const TIMELINE_FILES: [&str; 8] = [
    "differences.csv",
    "parameters.csv",
    "summary.csv",
    "timeline.csv",
    "timeline_answers.svg",
    "timeline_charges.svg",
    "timeline_latency.svg",
    "timeline_outcomes.svg",
];

/// The timeline scenarios shipped in `configs/`, by file name (`key-ttl.toml` is a sweep).
pub const SCENARIOS: [&str; 10] = [
    "same-key-burst.toml",
    "mobile-network.toml",
    "retry-storm.toml",
    "same-key-different-body.toml",
    "error-replay.toml",
    "webhook-receiver.toml",
    "redis-vs-transaction.toml",
    "receipts-outbox.toml",
    "provider-without-key.toml",
    "measured-latency.toml",
];

/// The `simulate` binary built by cargo for these tests.
pub fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// An article experiment with one run.
pub fn article_model(seed: u64, requests: u64, max_retries: u32, ack_loss: &[f64]) -> ArticleModel {
    ArticleModel {
        ack_loss: ack_loss.to_vec(),
        requests,
        max_retries,
        seed,
        runs: 1,
    }
}

/// Simulates an article experiment through the library, without progress reports.
pub fn run_model(model: &ArticleModel, engine: Engine) -> ArticleResults {
    model::simulate(model, engine, &Silent).expect("Silent never stops a run")
}

/// A file of `configs/`.
pub fn scenario_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("configs")
        .join(name)
}

/// Runs `simulate --config FILE` with `args` into a fresh folder; returns stdout and the folder.
pub fn run(config: &Path, args: &[&str]) -> (String, TempDir) {
    let out = TempDir::new().unwrap();
    let assert = simulate()
        .arg("--config")
        .arg(config)
        .args(args)
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    (
        String::from_utf8(assert.get_output().stdout.clone()).unwrap(),
        out,
    )
}

/// The names of the entries of `folder`, sorted (none if it does not exist), without the
/// list of files a run keeps for the next run.
pub fn files_in(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                // The list of files the run wrote, which the next run reads (docs/guide.md).
                .filter(|name| !(name.starts_with(".simulate-") && name.ends_with("-files")))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The rows of a CSV file as maps from column name to value.
pub fn csv_rows(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|record| {
            headers
                .iter()
                .map(String::from)
                .zip(record.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

/// The header line of a CSV file.
pub fn csv_header(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().next().unwrap_or_default().to_string()
}

/// Runs `simulate ARGS --out FOLDER/out` in `folder` and checks that it is rejected: exit
/// `code`, nothing on stdout, every needle on stderr, no file in the output folder. Returns
/// stderr and the output folder's path.
pub fn rejected_in<S: AsRef<OsStr>>(
    folder: &Path,
    args: &[S],
    code: i32,
    needles: &[&str],
) -> (String, PathBuf) {
    let out = folder.join("out");
    let shown: Vec<_> = args.iter().map(|arg| arg.as_ref().to_owned()).collect();
    let assert = simulate()
        .current_dir(folder)
        .args(args)
        .arg("--out")
        .arg(&out)
        .assert()
        .failure()
        .code(code)
        .stdout("");
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    for needle in needles {
        assert!(
            stderr.contains(needle),
            "{shown:?}: stderr lacks {needle:?}:\n{stderr}"
        );
    }
    assert!(
        files_in(&out).is_empty(),
        "{shown:?} left files: {:?}",
        files_in(&out)
    );
    (stderr, out)
}
