//! The article model's promises about its inputs and limits, through the binary: repeated,
//! negative-zero, unrepresentable and enormous values, config arrays held to the same limits
//! as `--p`, and echoed values kept short.

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// Runs `args` (plus a small `--requests` and a fresh `--out`) and returns the folder.
fn run_ok(args: &[&str]) -> TempDir {
    let out = TempDir::new().unwrap();
    simulate()
        .args(args)
        .args(["--requests", "20", "--quiet", "--out"])
        .arg(out.path())
        .assert()
        .success();
    out
}

/// Runs `args` and expects a usage error (exit 2) whose one line contains every `phrase`, and
/// no output files.
fn refused(args: &[&str], phrases: &[&str]) -> String {
    let out = TempDir::new().unwrap();
    let output = simulate()
        .args(args)
        .arg("--out")
        .arg(out.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    for phrase in phrases {
        assert!(
            stderr.contains(phrase),
            "{args:?}: {phrase:?} not in {stderr}"
        );
    }
    assert!(!out.path().join("out").exists(), "{args:?} wrote files");
    stderr
}

/// A config file with `text` in a fresh folder; returns (folder, path).
fn config(text: &str) -> (TempDir, std::path::PathBuf) {
    let folder = TempDir::new().unwrap();
    let path = folder.path().join("scenario.toml");
    std::fs::write(&path, text).unwrap();
    (folder, path)
}

fn p_column(out: &TempDir) -> Vec<String> {
    let text = std::fs::read_to_string(out.path().join("results.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|line| line.split(',').nth(1).unwrap().to_string())
        .collect()
}

#[test]
fn repeated_p_values_are_refused_naming_the_flag_or_key_and_the_value() {
    refused(&["--p", "0.1,0.1"], &["--p", "p = 0.1 is given twice"]);
    // The same number written twice, once from a range.
    refused(
        &["--p", "0.2,0:0.3:0.1"],
        &["--p", "p = 0.2 is given twice"],
    );
    let (_folder, path) = config("p = [0.05, 0.1, 0.05]\n");
    refused(
        &["--config", path.to_str().unwrap()],
        &["key `p`", "scenario.toml", "p = 0.05 is given twice"],
    );
    let (_folder, path) = config("p = \"0.1,0.10\"\n");
    refused(
        &["--config", path.to_str().unwrap()],
        &["key `p`", "p = 0.1 is given twice"],
    );
}

#[test]
fn negative_zero_is_written_as_zero() {
    let out = run_ok(&["--p", "-0,0.5"]);
    assert_eq!(p_column(&out), ["0", "0", "0.5", "0.5"]);
    for file in ["summary.csv", "report.md", "attempts.csv"] {
        let text = std::fs::read_to_string(out.path().join(file)).unwrap();
        assert!(
            !text.contains("-0,") && !text.contains("| -0 |"),
            "{file}: {text}"
        );
    }
}

#[test]
fn values_that_do_not_round_trip_are_refused_by_name() {
    refused(
        &["--p", "0.1,1.0000000000000000001"],
        &[
            "'1.0000000000000000001' cannot be held exactly",
            "nearest",
            " is 1;",
        ],
    );
    refused(
        &["--p", "1e-400"],
        &["'1e-400' cannot be held exactly", "is 0;"],
    );
    // 4.9e-324 is read as the smallest subnormal, whose shortest form is 5e-324.
    refused(&["--p", "4.9e-324"], &["'4.9e-324'", "5e-324"]);
}

#[test]
fn subnormal_p_is_printed_in_its_shortest_form() {
    let out = run_ok(&["--p", "5e-324"]);
    assert_eq!(p_column(&out), ["5e-324", "5e-324"]);
    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    assert!(
        report.contains("| ACK-loss probability p | 5e-324 |"),
        "{report}"
    );
}

#[test]
fn integer_p_in_a_config_file_is_a_probability() {
    for text in ["p = 1\n", "p = 1.0\n", "p = [0, 1]\n"] {
        let (_folder, path) = config(text);
        let out = run_ok(&["--config", path.to_str().unwrap()]);
        assert!(p_column(&out).contains(&"1".to_string()), "{text}");
    }
    let (_folder, path) = config("p = 2\n");
    refused(
        &["--config", path.to_str().unwrap()],
        &["key `p`", "2 is not a probability"],
    );
}

#[test]
fn config_arrays_have_the_same_value_limit_as_the_flag() {
    // 10,001 distinct values: one over the limit, refused before anything runs.
    let values: Vec<String> = (0..=10_000)
        .map(|i| format!("{}", i as f64 / 10_000.0))
        .collect();
    let (_folder, path) = config(&format!("p = [{}]\n", values.join(", ")));
    let stderr = refused(
        &["--config", path.to_str().unwrap()],
        &["key `p`", "more than 10000 probabilities"],
    );
    assert!(stderr.len() < 300, "{} bytes: {stderr}", stderr.len());
}

#[test]
fn echoed_values_are_cut_short() {
    let huge = refused(&["--p", "1e308"], &["1e308 is not a probability"]);
    assert!(!huge.contains("000000000"), "{huge}");
    let many: Vec<String> = (0..=10_000)
        .map(|i| format!("{}", i as f64 / 10_000.0))
        .collect();
    let stderr = refused(
        &["--p", &many.join(",")],
        &["more than 10000 probabilities", "…"],
    );
    assert!(
        stderr.len() < 300,
        "{} bytes echoed: {stderr}",
        stderr.len()
    );
    let (_folder, path) = config(&format!("p = \"{}\"\n", many.join(",")));
    let stderr = refused(&["--config", path.to_str().unwrap()], &["key `p`", "…"]);
    assert!(
        stderr.len() < 300,
        "{} bytes echoed: {stderr}",
        stderr.len()
    );
}

#[test]
fn a_too_large_number_says_so_with_the_maximum() {
    refused(
        &["--requests", "99999999999999999999999"],
        &["--requests", "too large", "1000000000000000"],
    );
    refused(&["--runs", "99999999999"], &["too large", "100000"]);
    refused(
        &["--requests", "ten"],
        &["'ten' is not a number of requests"],
    );
    simulate()
        .args(["--requests", "99999999999999999999999"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a number").not());
}
