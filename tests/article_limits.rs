//! The article model's promises about its inputs and limits, through the binary: repeated,
//! negative-zero, unrepresentable and enormous values, config arrays held to the same limits
//! as `--p`, and echoed values kept short.

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// Runs `args` (plus a small `--requests` unless given, and a fresh `--out`) and returns the
/// folder.
fn run_ok(args: &[&str]) -> TempDir {
    let out = TempDir::new().unwrap();
    let requests: &[&str] = if args.contains(&"--requests") {
        &[]
    } else {
        &["--requests", "20"]
    };
    simulate()
        .args(args)
        .args(requests)
        .args(["--quiet", "--out"])
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

/// The largest resident set of any child this test process has waited for, in bytes.
fn children_peak_rss() -> u64 {
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    // Linux reports kibibytes.
    usage.max_rss() as u64 * 1024
}

#[test]
fn many_runs_with_a_high_retry_limit_keep_little_per_run() {
    // Each run kept a histogram of 1,001 counters per p (about 83 KB per run with 10 p
    // values: 1.6 GB here, and 3.9 GB with 100,000 runs, which aborted). Requests stop after
    // a few attempts, so only a few counters per p are needed.
    run_ok(&[
        "--runs",
        "20000",
        "--p",
        "0:0.9:0.1",
        "--max-retries",
        "1000",
        "--requests",
        "1",
    ]);
    let peak = children_peak_rss();
    assert!(peak < 800 << 20, "peak {} MB", peak >> 20);
}

#[test]
fn runs_whose_results_cannot_fit_are_refused_before_they_start() {
    // 100,000 runs x 10,000 p values: 10^9 results, hundreds of GB.
    let out = TempDir::new().unwrap();
    let output = simulate()
        .args([
            "--runs",
            "100000",
            "--p",
            "0:0.9999:0.0001",
            "--requests",
            "1",
        ])
        .arg("--out")
        .arg(out.path().join("out"))
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("keeping the results of 100000 runs x 10000 p values"),
        "{stderr}"
    );
    assert!(stderr.contains("GiB of memory"), "{stderr}");
    assert!(!out.path().join("out").exists());
}

#[test]
fn the_servers_engine_memory_estimate_is_not_below_its_peak() {
    // 1,835,009 = 7/8 x 2^21 + 1 requests: the key tables have just doubled, the worst case
    // per request (measured 257,072 KB peak, against the old estimate of 128 bytes per
    // request: 229,376 KB).
    let requests = 1_835_009u64;
    run_ok(&[
        "--engine",
        "servers",
        "--p",
        "0.1",
        "--requests",
        &requests.to_string(),
    ]);
    let model = simulate::model::article::ArticleModel {
        ack_loss: vec![0.1],
        requests,
        max_retries: 20,
        seed: 42,
        runs: 1,
    };
    let estimate = simulate::model::article::estimate::estimate(
        &model,
        simulate::model::article::Engine::Servers,
    );
    let peak = children_peak_rss();
    assert!(
        peak <= estimate.memory_bytes,
        "peak {} KB above the estimate {} KB",
        peak >> 10,
        estimate.memory_bytes >> 10
    );
}

#[test]
fn runs_dominated_by_many_p_values_or_rendering_are_announced() {
    // 2,000 runs x 10,000 p values with one request each: about 15 minutes (mostly turning
    // each run's counts into 10,000 histograms, then 2 x 10^7 results to write). The old
    // estimate counted only the requests (2,000 of them: a millisecond) and said nothing.
    use std::io::BufRead;
    let out = TempDir::new().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("simulate"))
        .args([
            "--runs",
            "2000",
            "--p",
            "0:0.9999:0.0001",
            "--requests",
            "1",
        ])
        .arg("--out")
        .arg(out.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufReader::new(stderr).read_line(&mut line);
        let _ = sender.send(line);
    });
    // The warning comes before any work; without one, nothing is printed for minutes.
    let first_line = receiver
        .recv_timeout(std::time::Duration::from_secs(30))
        .unwrap_or_default();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        first_line.starts_with("warning: this run is estimated to take about"),
        "{first_line}"
    );
    assert!(first_line.contains(" min on "), "{first_line}");
}
