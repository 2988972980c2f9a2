//! The helper commands and scripts: stdout closed early is not an error, `--json`, completions
//! and the man page, and what the help and man page document.

use super::finish;
use crate::common::{ARTICLE_FILES, simulate};
use assert_cmd::cargo::cargo_bin;
use predicates::prelude::*;
use std::path::PathBuf;
use std::process::{Command as Process, Stdio};
use tempfile::TempDir;

/// Runs with stdout closed before anything is written, as `simulate | head -0` does.
fn with_stdout_closed(args: &[&str]) -> (Option<i32>, String) {
    let out = TempDir::new().unwrap();
    let mut child = Process::new(cargo_bin("simulate"))
        .current_dir(out.path())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    finish(child)
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    for args in [
        &["--requests", "1000"][..],
        &["--requests", "1000", "--json"],
        &["completions", "bash"],
        &["man"],
    ] {
        let (code, stderr) = with_stdout_closed(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

#[test]
fn json_prints_the_article_numbers_for_scripts() {
    let out = TempDir::new().unwrap();
    let assert = simulate()
        .args(["--json", "--out"])
        .arg(out.path())
        .assert()
        .success()
        .stderr("");
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(json["parameters"]["seed"], 42);
    assert_eq!(
        json["parameters"]["p"],
        serde_json::json!([0.01, 0.05, 0.1])
    );
    // The article's figures: 101, 508 and 984 customers charged twice without a key.
    let double_charged: Vec<(f64, u64)> = json["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["server"] == "non_idempotent")
        .map(|row| {
            (
                row["p"].as_f64().unwrap(),
                row["double_charged_requests"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(double_charged, [(0.01, 101), (0.05, 508), (0.1, 984)]);
    let files: Vec<PathBuf> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|path| PathBuf::from(path.as_str().unwrap()))
        .collect();
    assert_eq!(files.len(), ARTICLE_FILES.len());
    assert!(files.iter().all(|path| path.is_file()), "{files:?}");
}

#[test]
fn completions_and_man_page_are_printed() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        simulate()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains("max-retries"));
    }
    simulate()
        .arg("man")
        .assert()
        .success()
        .stdout(predicate::str::starts_with(".ie"))
        .stdout(predicate::str::contains(".TH simulate 1"))
        .stdout(predicate::str::contains("max\\-retries"));
    simulate()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stdout("");
}

#[test]
fn help_and_man_page_document_the_signals_and_only_existing_pages() {
    let help = simulate().arg("--help").assert().success();
    let help = String::from_utf8(help.get_output().stdout.clone()).unwrap();
    assert!(help.contains("SIGHUP"), "{help}");
    // Flags that every model takes say so, not only the article's.
    let threads = help.split("--threads").nth(1).unwrap();
    assert!(!threads.contains("fast engine"), "--threads: {threads}");
    let runs = help.split("--runs").nth(1).unwrap();
    assert!(runs.contains("scenario"), "--runs: {runs}");
    // Every model and the helper commands are named.
    for word in [
        "timeline",
        "contention",
        "load model",
        "simulate keys",
        "simulate check",
    ] {
        assert!(help.contains(word), "{word} not in the help");
    }
    let man = simulate().arg("man").assert().success();
    let man = String::from_utf8(man.get_output().stdout.clone()).unwrap();
    for missing in [
        "simulate\\-completions(1)",
        "simulate\\-man(1)",
        "simulate\\-help(1)",
    ] {
        assert!(!man.contains(missing), "the man page names {missing}");
    }
    let synopsis = man.split(".SH SYNOPSIS").nth(1).unwrap();
    let synopsis = synopsis.split(".SH").next().unwrap();
    for value in [
        "\\-\\-p\\fR \\fILIST\\fR",
        "\\-\\-out\\fR \\fIDIR\\fR",
        "completions\\fR \\fISHELL",
    ] {
        assert!(synopsis.contains(value), "{value} not in {synopsis}");
    }
    assert!(man.contains("SIGHUP"));
}
