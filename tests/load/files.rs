//! Load files through the binary: the files a load run writes, and bad load files refused with
//! one line naming file, key and value.

use crate::common::{csv_header, rejected_in, simulate};
use tempfile::TempDir;

/// A minimal load file.
const FILE: &str = "model = \"timeline\"\nruns = 1\n[arrivals]\nduration_s = 5\nrate_per_s = 20\n\
                    [server]\nworkers = 2\n";

#[test]
fn a_load_file_writes_its_files_and_a_timeline_file_does_not() {
    let folder = TempDir::new().unwrap();
    let config = folder.path().join("small.toml");
    std::fs::write(&config, FILE).unwrap();
    let out = folder.path().join("out");
    simulate()
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .arg("--quiet")
        .assert()
        .success();
    let header = csv_header(&out.join("load.csv"));
    for column in [
        "run",
        "scenario",
        "strategy",
        "payments",
        "succeeded",
        "failed",
        "calls",
        "attempts",
        "retries",
        "throttled",
        "shed",
        "dropped_expired",
        "timeouts",
        "conflicts",
        "charges",
        "double_charges",
        "expired_key_charges",
        "wasted_work",
        "offered_load_per_s",
        "throughput_per_s",
        "goodput_per_s",
        "amplification",
        "recovered",
        "recovered_at_s",
    ] {
        assert!(
            header.split(',').any(|name| name == column),
            "{column} missing from {header}"
        );
    }
    let series = csv_header(&out.join("load_timeseries.csv"));
    assert_eq!(
        series,
        "run,scenario,strategy,bucket_start_s,arrivals,retries,successes,timeouts,conflicts,\
         shed,calls,queue_length,workers_busy,double_charges"
    );
}

#[test]
fn bad_load_files_are_one_line_naming_file_key_and_value() {
    let cases: [(&str, &[&str]); 28] = [
        (
            "[server]\nworkers = 1\n[client]\ndifferent_body_rate = 1.5",
            &["`client.different_body_rate`", "1.5", "0 to 1"],
        ),
        (
            "[server]\nworkers = 1\nkey_ttl_ms = 0",
            &["`server.key_ttl_ms`", "value 0", "more than 0"],
        ),
        (
            "[server]\nworkers = 1\nkey_ttl_ms = -5",
            &["`server.key_ttl_ms`", "-5", "more than 0"],
        ),
        (
            "[server]\nworkers = 1\nkey_ttl_ms = 1e13",
            &["`server.key_ttl_ms`", "1e13", "at most 1000000000000 ms"],
        ),
        ("[server]\nworkers = 0", &["`server.workers`", "value 0"]),
        ("[server]\nworkers = 2.5", &["`server.workers`", "2.5"]),
        (
            "[server]\nworkers = 2\n[provider]\nloss = 1.1",
            &["`provider.loss`", "1.1", "0 to 1"],
        ),
        (
            "[server]\nworkers = 2\n[arrivals]\ncopies = 0",
            &["`arrivals.copies`", "value 0", "from 1 to 1000"],
        ),
        (
            "[server]\nworkers = 2\ncrash_rate = 1.5",
            &["`server.crash_rate`", "1.5", "0 to 1"],
        ),
        (
            "[key_store]\noutages = [{ from_s = 40, to_s = 10 }]",
            &["`key_store.outages[0]`", "from_s < to_s"],
        ),
        (
            "[key_store]\noutages = [{ from_s = 1, to_s = 2 }]\non_unavailable = \"maybe\"",
            &["`key_store.on_unavailable`", "maybe", "fail_closed"],
        ),
        (
            "[sweep]\n\"server.error_rate\" = [0.1, 1.5]",
            &["`sweep.server.error_rate`", "1.5"],
        ),
        (
            "[server]\nworkers = 2\nwrokers = 3",
            &["wrokers", "line 4", "did you mean `server.workers`?"],
        ),
        // A wrong type in a timeline key of a load file: the line of the file and the key.
        (
            "[server]\nworkers = 1\nkey_ttl_ms = \"abc\"",
            &[
                "(line 4, column 14)",
                "not a duration",
                "`server.key_ttl_ms`",
            ],
        ),
        (
            "[[scenario]]\nname = \"a\"\nserver = { workers = 1, key_ttl_ms = \"abc\" }",
            &[
                "not a duration",
                "`scenario[0].server.key_ttl_ms`",
                "\"abc\"",
            ],
        ),
        (
            "[server]\nqueue_limit = 0",
            &["`server.queue_limit`", "value 0"],
        ),
        (
            "[arrivals]\nphases = [{ until_s = 5, rate_per_s = -1 }]",
            &["`arrivals.phases[0].rate_per_s`", "-1"],
        ),
        (
            "[arrivals]\nphases = [{ until_s = 5, rate_per_s = nan }]",
            &["`arrivals.phases[0].rate_per_s`", "nan"],
        ),
        (
            "[arrivals]\nphases = [{ until_s = 5, rate_per_s = inf }]",
            &["`arrivals.phases[0].rate_per_s`", "inf"],
        ),
        (
            "[arrivals]\nphases = [{ until_s = 5, rate_per_s = 1 }, { until_s = 3, rate_per_s = 2 }]",
            &["`arrivals.phases[1].until_s`", "3", "increasing"],
        ),
        (
            "[server]\nworkers = 1\n[arrivals]\nrate_per_s = -3",
            &["`arrivals.rate_per_s`", "-3"],
        ),
        (
            "[client]\ntoken_bucket = { capacity = 10, retry_cost = 20 }",
            &["`client.token_bucket.retry_cost`", "20", "above the quota"],
        ),
        (
            "[client]\nbreaker = { threshold = 1.5 }",
            &["`client.breaker.threshold`", "1.5", "0 to 1"],
        ),
        (
            "[client]\nbreaker = { threshold = -0.1 }",
            &["`client.breaker.threshold`", "-0.1"],
        ),
        (
            "[server]\nworkers = 1\n[client]\nbackoff = { policy = \"sometimes\" }",
            &["sometimes"],
        ),
        (
            "strategies = [\"optimistic\"]\n[server]\nworkers = 1",
            &["`strategies[0]`", "optimistic", "expected one of"],
        ),
        (
            "[server]\ncapacity = [{ from_s = 5, to_s = 2, workers = 1 }]",
            &["`server.capacity[0]`", "from_s = 5", "from_s < to_s"],
        ),
        (
            "[[scenario]]\nname = \"a\"\nserver = { workers = 0 }",
            &["`scenario[0].server.workers`", "value 0"],
        ),
    ];
    for (text, needles) in cases {
        let folder = TempDir::new().unwrap();
        let config = folder.path().join("bad.toml");
        std::fs::write(&config, format!("model = \"timeline\"\n{text}\n")).unwrap();
        let mut all = vec!["bad.toml"];
        all.extend_from_slice(needles);
        let (stderr, _) = rejected_in(folder.path(), &["--config", "bad.toml"], 2, &all);
        assert_eq!(stderr.trim_end().lines().count(), 1, "{text}: {stderr}");
    }
}

#[test]
fn lock_wait_is_refused_without_a_shared_server() {
    let folder = TempDir::new().unwrap();
    std::fs::write(
        folder.path().join("plain.toml"),
        "model = \"timeline\"\nstrategies = [\"none\", \"lock_wait\"]\n",
    )
    .unwrap();
    let (stderr, _) = rejected_in(
        folder.path(),
        &["--config", "plain.toml"],
        2,
        &[
            "`strategies`",
            "plain.toml",
            "lock_wait needs a shared server",
        ],
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}
