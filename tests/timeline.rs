//! The timeline model through the `simulate` binary: the companion piece's table, the shipped
//! scenarios, determinism across thread counts and bad scenario files.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

fn scenario_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("configs")
        .join(name)
}

/// Runs `simulate --config FILE` with `args` into a fresh folder; returns stdout and the folder.
fn run(config: &Path, args: &[&str]) -> (String, TempDir) {
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

/// The charges table's row for `scenario`: the cells after the name.
fn charges(stdout: &str, scenario: &str) -> Vec<String> {
    let table = stdout.split("\n\n").next().unwrap();
    let line = table
        .lines()
        .find(|line| line.starts_with(&format!("{scenario} ")))
        .unwrap_or_else(|| panic!("no row {scenario} in\n{stdout}"));
    line[scenario.len()..]
        .split_whitespace()
        .map(String::from)
        .collect()
}

/// The companion piece: 10 same-key requests one after another are charged 10 / 1 / 1 times;
/// 10 parallel copies 3 ms apart with a 10 ms processing window, 1 ms each way: look-ups at
/// 1, 4, 7, 10 ms precede the first insert at 11 ms, so the naive check charges 4.
#[test]
fn the_same_key_burst_reproduces_the_companion_table() {
    let (stdout, out) = run(&scenario_file("same-key-burst.toml"), &[]);
    assert!(
        stdout.starts_with("charges     none  check_then_insert  unique_key\n"),
        "{stdout}"
    );
    assert_eq!(charges(&stdout, "sequential"), ["10", "1", "1"]);
    assert_eq!(charges(&stdout, "concurrent"), ["10", "4", "1"]);
    for name in [
        "timeline.csv",
        "timeline_charges.svg",
        "timeline_outcomes.svg",
        "timeline_latency.svg",
    ] {
        assert!(out.path().join(name).exists(), "{name} missing");
    }
    let csv = std::fs::read_to_string(out.path().join("timeline.csv")).unwrap();
    assert!(csv.starts_with("run,scenario,strategy,seed,payments,copies,max_retries,attempts,"));
    // unique_key, concurrent: copies 1-3 arrive while the key is in flight (at 4, 7, 10 ms)
    // and get 409; each asks again 20 ms later and gets the stored response.
    assert!(
        csv.contains("0,concurrent,unique_key,42,1,10,5,13,13,1,0,0,9,3,1,0,0,"),
        "{csv}"
    );
}

/// Copies `gap` ms apart (even spacing over `9 × gap`): the naive check charges
/// `min(10, ceil(10 / gap))` times, as the README's table says.
#[test]
fn the_naive_count_follows_the_gap_between_copies() {
    let text = std::fs::read_to_string(scenario_file("same-key-burst.toml")).unwrap();
    let folder = TempDir::new().unwrap();
    for (gap, expected) in [
        (0.0, "10"),
        (1.0, "10"),
        (2.0, "5"),
        (2.5, "4"),
        (5.0, "2"),
        (12.0, "1"),
    ] {
        let spread = format!("copy_spread_ms = {:?}", 9.0 * gap);
        let path = folder.path().join("burst.toml");
        std::fs::write(&path, text.replace("copy_spread_ms = 27.0", &spread)).unwrap();
        let (stdout, _) = run(&path, &[]);
        assert_eq!(
            charges(&stdout, "concurrent"),
            ["10", expected, "1"],
            "gap {gap} ms"
        );
        assert_eq!(
            charges(&stdout, "sequential"),
            ["10", "1", "1"],
            "gap {gap} ms"
        );
    }
}

#[test]
fn every_shipped_scenario_runs_and_unique_key_never_double_charges() {
    for name in [
        "same-key-burst.toml",
        "mobile-network.toml",
        "retry-storm.toml",
    ] {
        let (_, out) = run(&scenario_file(name), &["--payments", "2000", "--quiet"]);
        let mut reader = csv::Reader::from_path(out.path().join("timeline.csv")).unwrap();
        let headers = reader.headers().unwrap().clone();
        let column = |field: &str| headers.iter().position(|h| h == field).unwrap();
        for record in reader.records() {
            let record = record.unwrap();
            if &record[column("strategy")] == "unique_key" {
                assert_eq!(&record[column("double_charged_payments")], "0", "{name}");
            }
            let outcomes: u64 = ["succeeded", "gave_up_charged", "gave_up_not_charged"]
                .iter()
                .map(|field| record[column(field)].parse::<u64>().unwrap())
                .sum();
            assert_eq!(outcomes, 2000, "{name}: one outcome per payment");
        }
    }
}

#[test]
fn runs_are_byte_identical_for_any_thread_count() {
    let files = |threads: &str| {
        let (_, out) = run(
            &scenario_file("retry-storm.toml"),
            &[
                "--payments",
                "9000",
                "--runs",
                "2",
                "--threads",
                threads,
                "--quiet",
            ],
        );
        [
            "timeline.csv",
            "timeline_charges.svg",
            "timeline_outcomes.svg",
            "timeline_latency.svg",
        ]
        .map(|name| std::fs::read(out.path().join(name)).unwrap())
    };
    let one = files("1");
    assert_eq!(files("2"), one);
    assert_eq!(files("7"), one);
}

/// A bad scenario file: exit code 2, stderr naming the file, the key and the value, no files.
fn rejected(text: &str, args: &[&str], needles: &[&str]) {
    let folder = TempDir::new().unwrap();
    let path = folder.path().join("bad-scenario.toml");
    std::fs::write(&path, format!("model = \"timeline\"\n{text}")).unwrap();
    let out = folder.path().join("out");
    let assert = simulate()
        .arg("--config")
        .arg(&path)
        .args(args)
        .arg("--out")
        .arg(&out)
        .assert()
        .failure()
        .code(2)
        .stdout("");
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    for needle in ["bad-scenario.toml"].iter().chain(needles) {
        assert!(
            stderr.contains(needle),
            "{text}: stderr lacks {needle:?}:\n{stderr}"
        );
    }
    assert!(!out.exists(), "{text}: files were written");
}

#[test]
fn bad_scenario_files_name_file_key_and_value() {
    rejected(
        "[network]\nrequest_latency = { distribution = \"fixed\", ms = -5.0 }",
        &[],
        &["key `network.request_latency.ms`", "-5"],
    );
    rejected(
        "[network]\nack_loss = 1.2",
        &[],
        &["key `network.ack_loss`", "1.2", "probability"],
    );
    rejected(
        "[network]\nrequest_loss = -0.1",
        &[],
        &["key `network.request_loss`", "-0.1"],
    );
    rejected(
        "[client]\ntimeout_ms = 0",
        &[],
        &["key `client.timeout_ms`", "value 0"],
    );
    rejected(
        "strategies = [\"none\", \"lock_free\"]",
        &[],
        &["strategies", "lock_free", "unknown variant"],
    );
    rejected(
        "[server]\nprocessing = { distribution = \"weibull\", ms = 3 }",
        &[],
        &["processing", "weibull", "unknown variant"],
    );
    rejected(
        "[network]\nresponse_latency = { distribution = \"log_normal\", median_ms = 50, p99_ms = 10 }",
        &[],
        &[
            "key `network.response_latency.p99_ms`",
            "10",
            "median_ms = 50",
        ],
    );
    rejected(
        "[[scenario]]\nname = \"slow\"\nclient = { backoff = { policy = \"full_jitter\", base_ms = -1, cap_ms = 10 } }",
        &[],
        &["key `scenario[0].client.backoff.base_ms`", "-1"],
    );
    rejected("[client]\nretries = 3", &[], &["unknown field `retries`"]);
    rejected("payments = 0", &[], &["key `payments`", "got 0"]);
    rejected("", &["--p", "0.1"], &["--p does not apply"]);
}

#[test]
fn payments_is_a_timeline_flag() {
    simulate()
        .args(["--payments", "10", "--quiet"])
        .assert()
        .failure()
        .code(2)
        .stderr(predicates::str::contains("--payments does not apply"));
}

#[test]
fn json_prints_the_companion_charges_for_scripts() {
    let out = TempDir::new().unwrap();
    let assert = simulate()
        .arg("--json")
        .arg("--config")
        .arg(scenario_file("same-key-burst.toml"))
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(json["parameters"]["scenario_file"], "same-key-burst.toml");
    // The companion piece: 10 / 1 / 1 sequentially, 10 / more than 1 / 1 concurrently.
    let charges = |scenario: &str| -> Vec<u64> {
        json["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|row| row["scenario"] == scenario)
            .map(|row| row["charges"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(charges("sequential"), [10, 1, 1]);
    let concurrent = charges("concurrent");
    assert_eq!((concurrent[0], concurrent[2]), (10, 1));
    assert!(concurrent[1] > 1, "{concurrent:?}");
    assert_eq!(json["files"].as_array().unwrap().len(), 4);
}

#[test]
fn a_long_timeline_run_is_announced_before_it_starts() {
    // 10^12 payments of one copy at about 10^6 per second per thread: days, not seconds.
    let folder = TempDir::new().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("simulate"))
        .arg("--config")
        .arg(scenario_file("mobile-network.toml"))
        .args(["--payments", "1000000000000", "--threads", "1", "--out"])
        .arg(folder.path().join("out"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut first_line = String::new();
    std::io::BufRead::read_line(&mut stderr, &mut first_line).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        first_line.starts_with("warning: this run is estimated to take about")
            && first_line.contains("days on 1 thread"),
        "{first_line}"
    );
    assert!(!folder.path().join("out").join("timeline.csv").exists());
}
