//! The timeline model through the `simulate` binary: the companion piece's table, the shipped
//! scenarios, determinism across thread counts and bad scenario files.

use std::path::Path;

use crate::common::{SCENARIOS, rejected_in, run, scenario_file, simulate};
use tempfile::TempDir;

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
    assert!(csv.starts_with(
        "run,scenario,strategy,seed,copies,max_retries,key_ttl_ms,retry_window_ms,key_store,\
         crash_rate,key_write_failure,provider_pass_key,provider_max_retries,receipts,payments,"
    ));
    // The retry window is 6 timeouts of 1000 ms and 5 backoffs of 20 ms: 6100 ms.
    // The backend columns hold their defaults: the key in the charge's transaction, no crash.
    // unique_key, concurrent: copies 1-3 arrive while the key is in flight (at 4, 7, 10 ms)
    // and get 409; each asks again 20 ms later and gets the stored response.
    assert!(
        csv.contains("0,concurrent,unique_key,42,10,5,,6100,same_transaction,0.0,0.0,,,,1,13,13,1,0,0,9,3,1,0,0,"),
        "{csv}"
    );
}

/// Copies `gap` ms apart (even spacing over `9 × gap`): the naive check charges
/// `min(10, ceil(10 / gap))` times, as docs/models/timeline.md says.
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
    for name in SCENARIOS {
        let (_, out) = run(&scenario_file(name), &["--payments", "2000", "--quiet"]);
        let mut reader = csv::Reader::from_path(out.path().join("timeline.csv")).unwrap();
        let headers = reader.headers().unwrap().clone();
        let column = |field: &str| headers.iter().position(|h| h == field).unwrap();
        for record in reader.records() {
            let record = record.unwrap();
            let count = |field: &str| record[column(field)].parse::<u64>().unwrap();
            // A backend column is 0 (and a key store `same_transaction`) when the file has
            // none.
            let backend = |field: &str| {
                headers
                    .iter()
                    .position(|h| h == field)
                    .map_or(0, |at| record[at].parse::<u64>().unwrap())
            };
            let same_transaction = headers
                .iter()
                .position(|h| h == "key_store")
                .is_none_or(|at| &record[at] == "same_transaction");
            // A TTL shorter than the retry window lets unique_key charge twice (key-ttl.toml),
            // and so does a key kept outside the charge's transaction when the server crashes
            // (redis-vs-transaction.toml).
            if &record[column("strategy")] == "unique_key"
                && record[column("key_ttl_ms")].is_empty()
                && same_transaction
            {
                assert_eq!(count("double_charged_payments"), 0, "{name}");
            }
            // Only a server without a fingerprint tells a success no charge backs.
            if &record[column("scenario")] != "no fingerprint" {
                assert_eq!(count("told_succeeded_not_charged"), 0, "{name}");
            }
            let answers: u64 = [
                "charges",
                "server_errors",
                "replays",
                "conflicts",
                "errors_replayed",
                "rejected_mismatches",
            ]
            .iter()
            .map(|field| count(field))
            .sum();
            // A crash answers nothing: before the charge, or with the charge rolled back;
            // after a committed charge it is among the charges.
            let crashed = backend("crashes_before_charge") + backend("charges_lost_by_crash");
            assert_eq!(
                answers + crashed,
                count("deliveries"),
                "{name}: one answer (or crash) per delivery"
            );
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
    for (name, files) in [
        (
            "retry-storm.toml",
            &["timeline.csv", "timeline_answers.svg"][..],
        ),
        (
            "same-key-different-body.toml",
            &["timeline.csv", "timeline_outcomes.svg"][..],
        ),
        ("key-ttl.toml", &["timeline.csv", "report.md"][..]),
        (
            "provider-without-key.toml",
            &["timeline.csv", "timeline_side_effects.svg", "report.md"][..],
        ),
        (
            "redis-vs-transaction.toml",
            &["timeline.csv", "timeline_key_stores.svg"][..],
        ),
    ] {
        identical_for_any_thread_count(name, files);
    }
}

fn identical_for_any_thread_count(name: &str, names: &[&str]) {
    let files = |threads: &str| {
        let (_, out) = run(
            &scenario_file(name),
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
        names
            .iter()
            .map(|name| std::fs::read(out.path().join(name)).unwrap())
            .collect::<Vec<_>>()
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
    let mut arguments = vec!["--config", path.to_str().unwrap()];
    arguments.extend_from_slice(args);
    let needles: Vec<&str> = ["bad-scenario.toml"]
        .iter()
        .chain(needles)
        .copied()
        .collect();
    let (_, out) = rejected_in(folder.path(), &arguments, 2, &needles);
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
        &["strategies", "lock_free", "expected one of"],
    );
    rejected(
        "[server]\nprocessing = { distribution = \"weibull\", ms = 3 }",
        &[],
        &["processing", "weibull", "expected one of"],
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
    rejected(
        "[client]\nretries = 3",
        &[],
        &[
            "unknown key `client.retries`",
            "did you mean `client.max_retries`?",
        ],
    );
    rejected(
        "[server]\nkey_ttl_ms = 0",
        &[],
        &["key `server.key_ttl_ms`", "value 0", "more than 0"],
    );
    rejected(
        "[server]\nerror_rate = 1.5",
        &[],
        &["key `server.error_rate`", "1.5", "probability"],
    );
    rejected(
        "[[scenario]]\nname = \"buggy\"\nclient = { different_body_rate = -0.1 }",
        &[],
        &["key `scenario[0].client.different_body_rate`", "-0.1"],
    );
    rejected(
        "[server]\nerror_policy = \"ignore\"",
        &[],
        &["error_policy", "ignore", "expected one of"],
    );
    rejected(
        "[server]\nduplicate_answer = \"ok\"",
        &[],
        &["duplicate_answer", "ok", "expected one of"],
    );
    rejected(
        "[sweep]\n\"server.key_ttl_ms\" = [1000.0, -1.0]",
        &[],
        &["key `sweep.server.key_ttl_ms`", "-1.0"],
    );
    rejected(
        "payments = 0",
        &[],
        &["key `payments`", "value 0", "from 1"],
    );
    rejected(
        "[server]\ncrash_rate = 1.5",
        &[],
        &["key `server.crash_rate`", "1.5", "probability"],
    );
    rejected(
        "[server]\nkey_write_failure = -0.5",
        &[],
        &["key `server.key_write_failure`", "-0.5"],
    );
    rejected(
        "[server]\nkey_lock_ttl_ms = -100",
        &[],
        &["key `server.key_lock_ttl_ms`", "-100"],
    );
    rejected(
        "[server]\ncompleter_interval_ms = 0",
        &[],
        &["key `server.completer_interval_ms`", "value 0"],
    );
    rejected(
        "[server]\nkey_store = \"redis\"",
        &[],
        &["key_store", "redis", "expected one of"],
    );
    rejected(
        "[provider]\nloss = 2",
        &[],
        &["key `provider.loss`", "2", "probability"],
    );
    rejected(
        "[[scenario]]\nname = \"psp\"\nprovider = { timeout_ms = 0 }",
        &[],
        &["key `scenario[0].provider.timeout_ms`", "value 0"],
    );
    rejected(
        "[provider]\nlatency = { distribution = \"fixed\", ms = -1 }",
        &[],
        &["key `provider.latency.ms`", "-1"],
    );
    rejected(
        "[receipts]\nmode = \"sms\"",
        &[],
        &["mode", "sms", "expected one of"],
    );
    rejected(
        "[receipts]\nsend_failure = 1",
        &[],
        &["key `receipts.send_failure`", "value 1", "less than 1"],
    );
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
    assert_eq!(json["parameters"]["config_file"], "same-key-burst.toml");
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
    // Numbers are JSON numbers: a sequential copy's first success is received at 12 ms (1 ms
    // there, 10 ms processing, 1 ms back); no TTL is `null`.
    for row in json["results"].as_array().unwrap() {
        for key in ["latency_p50_ms", "latency_p95_ms", "latency_p99_ms"] {
            assert!(row[key].is_f64(), "{key}: {}", row[key]);
        }
        assert!(row["key_ttl_ms"].is_null(), "{}", row["key_ttl_ms"]);
    }
    let first = &json["results"][0];
    assert_eq!(first["scenario"], "sequential");
    let p50 = first["latency_p50_ms"].as_f64().unwrap();
    assert!((12.0..=12.0 * 1.001 + 0.001).contains(&p50), "{p50}");
    // `files` lists exactly what the run wrote.
    let mut listed: Vec<String> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|path| path.as_str().unwrap().to_string())
        .collect();
    let mut written: Vec<String> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|entry| entry.unwrap().path().to_string_lossy().into_owned())
        .filter(|path| !path.ends_with("/.simulate-timeline-files"))
        .collect();
    listed.sort();
    written.sort();
    assert_eq!(listed, written);
    assert!(listed.iter().any(|path| path.ends_with("timeline.csv")));
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

/// The rows of `file` in `folder` as (strategy, the values of `fields`).
fn columns(folder: &Path, file: &str, fields: &[&str]) -> Vec<(String, Vec<String>)> {
    let mut reader = csv::Reader::from_path(folder.join(file)).unwrap();
    let headers = reader.headers().unwrap().clone();
    let column = |field: &str| headers.iter().position(|h| h == field).unwrap();
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            (
                record[column("strategy")].to_string(),
                fields
                    .iter()
                    .map(|f| record[column(f)].to_string())
                    .collect(),
            )
        })
        .collect()
}

/// Writes a scenario file into a fresh folder and runs it.
fn run_text(text: &str, args: &[&str]) -> (String, TempDir) {
    let folder = TempDir::new().unwrap();
    let path = folder.path().join("lifecycle.toml");
    std::fs::write(&path, text).unwrap();
    let (stdout, out) = run(&path, args);
    drop(folder);
    (stdout, out)
}

/// One payment, 1 ms each way, 10 ms processing, every ACK lost, a 1 s timeout and one
/// immediate retry: the first delivery arrives at 1 ms (unique_key creates the key) and is
/// charged at 11 ms (check_then_insert creates it); the retry arrives at 1001 ms. The retry
/// window is 2 × 1000 ms.
const EXPIRING: &str = r#"model = "timeline"
payments = 1
[arrivals]
process = "burst"
[network]
request_latency = { distribution = "fixed", ms = 1.0 }
response_latency = { distribution = "fixed", ms = 1.0 }
ack_loss = 1.0
[server]
processing = { distribution = "fixed", ms = 10.0 }
key_ttl_ms = 500.0
[client]
timeout_ms = 1000.0
max_retries = 1
backoff = { policy = "none" }
"#;

#[test]
fn a_retry_after_the_ttl_charges_again_and_the_sweep_shows_it() {
    let (stdout, out) = run_text(EXPIRING, &[]);
    // The lifecycle table's last row (unique_key): TTL 500 ms, one expired-key charge, charged and told it failed
    // (every ACK lost).
    let (tables, _differences) = stdout.split_once("paired differences").unwrap();
    let row: Vec<&str> = tables
        .lines()
        .rfind(|line| line.starts_with("lifecycle "))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(
        row,
        [
            "lifecycle",
            "unique_key",
            "500",
            "0",
            "0",
            "0",
            "0",
            "0",
            "1",
            "1",
            "0"
        ]
    );
    let fields = ["charges", "expired_key_charges", "key_ttl_ms"];
    let expected = |strategy: &str, charges: &str, expired: &str| {
        (
            strategy.to_string(),
            vec![charges.to_string(), expired.to_string(), "500".to_string()],
        )
    };
    assert_eq!(
        columns(out.path(), "timeline.csv", &fields),
        [
            expected("none", "2", "0"),
            expected("check_then_insert", "2", "1"),
            expected("unique_key", "2", "1"),
        ]
    );
    // Swept to 2000 ms, both keys outlive the retry: one charge with a key.
    let (_, swept) = run_text(EXPIRING, &["--sweep", "server.key_ttl_ms=500,2s"]);
    let sweep = columns(
        swept.path(),
        "timeline.csv",
        &["server.key_ttl_ms", "charges", "expired_key_charges"],
    );
    let row = |strategy: &str, ttl: &str, charges: &str, expired: &str| {
        (
            strategy.to_string(),
            vec![ttl.to_string(), charges.to_string(), expired.to_string()],
        )
    };
    assert_eq!(
        sweep,
        [
            row("none", "500", "2", "0"),
            row("check_then_insert", "500", "2", "1"),
            row("unique_key", "500", "2", "1"),
            row("none", "2000", "2", "0"),
            row("check_then_insert", "2000", "1", "0"),
            row("unique_key", "2000", "1", "0"),
        ]
    );
}

/// A webhook sender with a 1 s timeout and 5 retries 100 ms apart, a receiver that takes
/// 1.5 s and deduplicates by event id: the first retry arrives at 1101 ms, while the event is
/// in flight.
fn webhook(answer: &str) -> Vec<(String, Vec<String>)> {
    let text = format!(
        r#"model = "timeline"
payments = 1
strategies = ["unique_key"]
[arrivals]
process = "burst"
[network]
request_latency = {{ distribution = "fixed", ms = 1.0 }}
response_latency = {{ distribution = "fixed", ms = 1.0 }}
[server]
processing = {{ distribution = "fixed", ms = 1500.0 }}
duplicate_answer = "{answer}"
[client]
timeout_ms = 1000.0
max_retries = 5
backoff = {{ policy = "constant", base_ms = 100.0 }}
"#
    );
    let (_, out) = run_text(&text, &["--quiet"]);
    columns(
        out.path(),
        "timeline.csv",
        &["deliveries", "charges", "succeeded"],
    )
}

#[test]
fn webhook_senders_stop_at_a_200_and_run_to_their_limit_otherwise() {
    let row = |deliveries: &str, succeeded: &str| {
        vec![(
            "unique_key".to_string(),
            vec![
                deliveries.to_string(),
                "1".to_string(),
                succeeded.to_string(),
            ],
        )]
    };
    // 200 to the duplicate at 1101 ms: two deliveries.
    assert_eq!(webhook("ok_200"), row("2", "1"));
    // 409 or 500 to every duplicate: 1 + max_retries deliveries, and the sender gives up.
    assert_eq!(webhook("conflict_409"), row("6", "0"));
    assert_eq!(webhook("error_500"), row("6", "0"));
}

/// Runs a scenario that must be refused at once: exit 2 within 20 s (a hang fails the test
/// instead of hanging it), one line naming the file, the key and the value, no files.
fn refused_quickly(text: &str, key: &str, value: &str) {
    let folder = TempDir::new().unwrap();
    let path = folder.path().join("huge.toml");
    std::fs::write(&path, format!("model = \"timeline\"\n{text}")).unwrap();
    let out = folder.path().join("out");
    let assert = simulate()
        .arg("--config")
        .arg(&path)
        .args(["--payments", "10", "--quiet", "--out"])
        .arg(&out)
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .code(2);
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for needle in ["huge.toml", &format!("key `{key}`"), value] {
        assert!(
            stderr.contains(needle),
            "{text}: lacks {needle:?}: {stderr}"
        );
    }
    assert!(!out.exists(), "{text}: files were written");
}

/// Issue #11 item 2: durations the model cannot represent used to spin forever at 100% CPU
/// (the latency histogram looked for the bucket of an infinite latency one bucket at a time).
#[test]
fn durations_beyond_the_model_are_refused_at_once() {
    refused_quickly(
        "[network]\nack_loss = 1\n[client]\ntimeout_ms = 1e305\nmax_retries = 1",
        "client.timeout_ms",
        "1e305",
    );
    refused_quickly(
        "[client]\nbackoff = { policy = \"exponential\", base_ms = 1e308, cap_ms = 1000 }",
        "client.backoff.base_ms",
        "1e308",
    );
    refused_quickly(
        "[client]\nbackoff = { policy = \"decorrelated_jitter\", base_ms = 1e300, cap_ms = 1e300 }",
        "client.backoff.base_ms",
        "1e300",
    );
    refused_quickly(
        "[server]\nprocessing = { distribution = \"log_normal\", median_ms = 5, p99_ms = 1e10 }",
        "server.processing.p99_ms",
        "1e10",
    );
    refused_quickly(
        "[arrivals]\nrate_per_s = 1e-300",
        "arrivals.rate_per_s",
        "1e-300",
    );
    refused_quickly("[server]\nkey_ttl_ms = 1e13", "server.key_ttl_ms", "1e13");
}

/// The longest durations accepted finish: every ACK lost, a timeout of 10^9 ms and one retry
/// after a backoff of 10^9 ms: the client gives up at 3 × 10^9 ms, which the latency columns
/// report to 3 significant digits (not capped at 10^8 ms as the old histogram did).
#[test]
fn the_longest_durations_finish_with_their_latencies() {
    let text = "[network]\nack_loss = 1\n\
                [client]\ntimeout_ms = 1e9\nmax_retries = 1\n\
                backoff = { policy = \"constant\", base_ms = 1e9 }\n\
                [arrivals]\nprocess = \"sequential\"\n";
    let folder = TempDir::new().unwrap();
    let path = folder.path().join("slow.toml");
    std::fs::write(&path, format!("model = \"timeline\"\n{text}")).unwrap();
    simulate()
        .arg("--config")
        .arg(&path)
        .args(["--payments", "3", "--quiet", "--out"])
        .arg(folder.path())
        .timeout(std::time::Duration::from_secs(20))
        .assert()
        .success();
    for (_, values) in columns(
        folder.path(),
        "timeline.csv",
        &["latency_p50_ms", "latency_p99_ms", "simulated_span_ms"],
    ) {
        for latency in &values[..2] {
            let ms: f64 = latency.parse().unwrap();
            assert!((3e9..=3e9 * 1.001).contains(&ms), "{latency}");
        }
        // Three sequential payments of 3 × 10^9 ms each, in plain decimal.
        assert_eq!(values[2], "9000000000.0");
    }
}

/// Issue #11 item 5: Ctrl-C stops a huge timeline run within a few seconds (it used to take
/// minutes: every remaining chunk was still visited).
#[test]
fn sigint_stops_a_huge_timeline_run_promptly() {
    use nix::sys::signal::{self, Signal};
    use nix::unistd::Pid;
    use std::time::{Duration, Instant};
    let out = TempDir::new().unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("simulate"))
        .arg("--config")
        .arg(scenario_file("mobile-network.toml"))
        .args(["--payments", "1000000000000", "--quiet", "--out"])
        .arg(out.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(1));
    signal::kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let sent = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if sent.elapsed() > Duration::from_secs(10) {
            child.kill().unwrap();
            panic!("still running 10 s after SIGINT");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let waited = sent.elapsed();
    assert_eq!(status.code(), Some(130));
    assert!(
        waited < Duration::from_secs(3),
        "stopped {waited:?} after SIGINT"
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 0);
}
