//! The load model: queue waits against queueing theory (M/M/1 and M/M/c, Erlang C), the
//! conservation of requests, Little's law on the time series, determinism across thread
//! counts, bad load files through the binary, the key TTL under a backlog, and Brooker's two
//! simulations reproduced within the tolerances of docs/validation.md (this build's runs
//! against the originals' committed reference numbers).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::common::{csv_header, csv_rows, rejected_in, simulate};
use engine::Silent;
use engine::backoff::Backoff;
use engine::distribution::Distribution;
use simulate::model::load::{
    self, LoadArrivals, LoadClient, LoadDuplicateAnswer, LoadModel, LoadNetwork, LoadScenario,
    LoadServer, LoadStrategy, LoadTally, Phase, PhaseRate,
};
use simulate::model::semantics::ErrorPolicy;
use tempfile::TempDir;

/// An M/M/c queue: Poisson arrivals at `rate_per_s`, `workers` workers, exponential service
/// with mean `service_ms`, no latency, no timeout (10^9 ms), no retry.
fn queue(workers: u32, rate_per_s: f64, service_ms: f64, duration_s: f64) -> LoadScenario {
    LoadScenario {
        name: format!("M/M/{workers}"),
        arrivals: LoadArrivals {
            clients: None,
            duration_ms: duration_s * 1000.0,
            phases: vec![Phase {
                until_ms: duration_s * 1000.0,
                rate: PhaseRate::Constant(rate_per_s),
            }],
        },
        network: LoadNetwork {
            request_latency: Distribution::Fixed { ms: 0.0 },
            response_latency: Distribution::Fixed { ms: 0.0 },
            request_loss: 0.0,
            ack_loss: 0.0,
            outages: Vec::new(),
        },
        server: LoadServer {
            workers: Some(workers),
            queue_limit: None,
            drop_expired: false,
            processing: Distribution::Exponential {
                mean_ms: service_ms,
            },
            processing_per_in_flight_ms: 0.0,
            error_rate: 0.0,
            error_policy: ErrorPolicy::Store,
            key_ttl_ms: None,
            duplicate_answer: LoadDuplicateAnswer::Replay,
            capacity: Vec::new(),
            key_server: Default::default(),
            key_store_outages: Default::default(),
        },
        client: LoadClient {
            timeout_ms: 1e9,
            max_retries: 0,
            backoff: Backoff::None,
            token_bucket: None,
            adaptive_bucket: None,
            breaker: None,
            retry_ratio: None,
            controls: Default::default(),
            payment_deadline_ms: None,
        },
    }
}

fn model(scenarios: Vec<LoadScenario>, runs: u32, strategies: &[LoadStrategy]) -> LoadModel {
    LoadModel {
        title: "test".into(),
        seed: 7,
        runs,
        strategies: strategies.to_vec(),
        scenarios,
        bucket_ms: 1_000.0,
        warm_up_ms: 0.0,
        recovery_window_ms: 5_000.0,
    }
}

/// Erlang C: the probability that an arrival waits in an M/M/c queue with offered load
/// `a = λ/μ` (Erlangs), from its closed form.
fn erlang_c(workers: u32, a: f64) -> f64 {
    let c = f64::from(workers);
    let mut term = 1.0;
    let mut below = 0.0;
    for k in 0..workers {
        if k > 0 {
            term *= a / f64::from(k);
        }
        below += term;
    }
    let top = term * a / c * c / (c - a);
    top / (below + top)
}

/// Mean wait in the queue of M/M/c: `C(c, a) / (cμ − λ)` (ms).
fn mean_wait_ms(workers: u32, rate_per_s: f64, service_ms: f64) -> f64 {
    let mu = 1000.0 / service_ms;
    let a = rate_per_s / mu;
    erlang_c(workers, a) / (f64::from(workers) * mu - rate_per_s) * 1000.0
}

/// The mean queue wait over runs against the closed form, within 4 standard errors of the
/// mean of the runs' means (each run's mean is one observation: waits within a run are
/// correlated, runs are independent).
fn check_wait(workers: u32, load: f64, runs: u32, duration_s: f64) {
    let service_ms = 100.0;
    let rate = load * f64::from(workers) * 1000.0 / service_ms;
    let results = load::simulate(
        &model(
            vec![queue(workers, rate, service_ms, duration_s)],
            runs,
            &[LoadStrategy::None],
        ),
        2,
        &Silent,
    )
    .unwrap();
    let means: Vec<f64> = results
        .rows
        .iter()
        .map(|row| row.tally.mean_queue_wait_ms())
        .collect();
    let n = means.len() as f64;
    let mean = means.iter().sum::<f64>() / n;
    let sd = (means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let error = sd / n.sqrt();
    let expected = mean_wait_ms(workers, rate, service_ms);
    let z = (mean - expected) / error;
    assert!(
        z.abs() < 4.0,
        "M/M/{workers} at load {load}: mean wait {mean:.2} ms, closed form {expected:.2} ms, \
         standard error {error:.2} ms, z = {z:.2}"
    );
}

#[test]
fn closed_forms_of_the_test_are_right() {
    // M/M/1: Wq = ρ / (μ − λ); at ρ = 0.5, μ = 10/s: 0.5 / 5 s = 100 ms.
    assert!((mean_wait_ms(1, 5.0, 100.0) - 100.0).abs() < 1e-9);
    // Erlang C for c = 2, a = 1: (1/2 · 2) / (1 + 1 + 1) = 1/3.
    assert!((erlang_c(2, 1.0) - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn mm1_waits_match_the_closed_form_at_loads_half_and_ninety_percent() {
    check_wait(1, 0.5, 10, 1_000.0);
    check_wait(1, 0.9, 10, 4_000.0);
}

#[test]
fn mmc_waits_match_erlang_c_at_loads_half_and_ninety_percent() {
    check_wait(4, 0.5, 10, 250.0);
    check_wait(4, 0.9, 10, 1_000.0);
}

/// A busy scenario with every mechanism on: losses, errors, a queue limit, drop_expired, a
/// capacity drop, an outage, a client population with a bucket and a breaker.
fn stormy(strategy_seed: u64) -> LoadModel {
    let mut scenario = queue(4, 20.0, 150.0, 60.0);
    scenario.network.request_latency = Distribution::Exponential { mean_ms: 20.0 };
    scenario.network.response_latency = Distribution::Exponential { mean_ms: 20.0 };
    scenario.network.request_loss = 0.02;
    scenario.network.ack_loss = 0.02;
    scenario.network.outages = vec![load::Window {
        from_ms: 40_000.0,
        to_ms: 42_000.0,
    }];
    scenario.server.queue_limit = Some(10);
    scenario.server.drop_expired = true;
    scenario.server.error_rate = 0.05;
    scenario.server.error_policy = ErrorPolicy::Retry;
    scenario.server.processing_per_in_flight_ms = 2.0;
    scenario.server.capacity = vec![load::CapacityWindow {
        window: load::Window {
            from_ms: 20_000.0,
            to_ms: 30_000.0,
        },
        workers: 1,
    }];
    scenario.arrivals.clients = Some(20);
    scenario.client.timeout_ms = 500.0;
    scenario.client.max_retries = 3;
    scenario.client.backoff = Backoff::FullJitter {
        base_ms: 50.0,
        cap_ms: 1_000.0,
    };
    scenario.client.token_bucket = Some(load::TokenBucket {
        capacity: 100.0,
        retry_cost: 5.0,
        timeout_cost: 10.0,
        success_refund: 1.0,
        refund: load::Refund::Fixed,
    });
    scenario.client.breaker = Some(load::Breaker {
        threshold: 0.8,
        window_ms: Some(5_000.0),
        cooldown_ms: Some(2_000.0),
    });
    let mut model = model(vec![scenario], 2, &LoadStrategy::ALL);
    model.seed = strategy_seed;
    model
}

/// Every delivery that reached the server ends exactly once: shed, dropped, 409, replayed or
/// processed (so none is served twice by the pool); every processing charges or fails; every
/// attempt reaches the server or is lost; every delivery not dropped gets exactly one answer;
/// every payment ends exactly once.
fn check_conservation(tally: &LoadTally) {
    let c = tally.counts;
    assert_eq!(
        c.calls,
        c.shed + c.dropped_expired + c.conflicts + c.replays + c.processings,
        "{c:?}"
    );
    assert_eq!(c.processings, c.charges + c.server_errors, "{c:?}");
    assert!(c.expired_key_charges <= c.charges, "{c:?}");
    assert_eq!(c.attempts, c.calls + c.lost_requests, "{c:?}");
    assert_eq!(c.answers, c.calls - c.dropped_expired, "{c:?}");
    assert_eq!(c.payments, c.succeeded + c.failed, "{c:?}");
    assert_eq!(c.attempts, c.payments + c.retries, "{c:?}");
    // Everything that left the queue was counted once.
    assert_eq!(tally.dequeued, c.calls - c.shed, "{c:?}");
    // The series sums to the totals.
    let sum = |field: fn(&load::Bucket) -> u64| tally.buckets.iter().map(field).sum::<u64>();
    assert_eq!(sum(|b| b.arrivals), c.payments);
    assert_eq!(sum(|b| b.retries), c.retries);
    assert_eq!(sum(|b| b.successes), c.succeeded);
    assert_eq!(sum(|b| b.calls), c.calls);
    assert_eq!(sum(|b| b.conflicts), c.conflicts);
    assert_eq!(sum(|b| b.shed), c.shed);
    assert_eq!(
        tally.buckets.last().map_or(0, |b| b.double_charges),
        c.double_charges
    );
}

#[test]
fn every_request_is_answered_or_dropped_exactly_once() {
    for seed in [1, 2, 3] {
        let results = load::simulate(&stormy(seed), 2, &Silent).unwrap();
        for row in &results.rows {
            check_conservation(&row.tally);
            let c = row.tally.counts;
            // The mechanisms were exercised.
            assert!(
                c.shed > 0 && c.dropped_expired > 0 && c.throttled > 0,
                "{c:?}"
            );
            assert!(c.lost_requests > 0 && c.lost_answers > 0 && c.server_errors > 0);
            match row.strategy {
                LoadStrategy::UniqueKey => assert!(c.conflicts > 0),
                LoadStrategy::LockWait => assert!(c.lock_waits > 0 && c.conflicts == 0),
                LoadStrategy::None => assert_eq!(c.replays + c.conflicts, 0),
                LoadStrategy::CheckThenInsert => assert_eq!(c.conflicts, 0),
            }
        }
    }
}

/// Little's law on the time series: the time-averaged queue length of each bucket, summed over
/// the buckets and times their width, is the area under the queue-length curve, which is the
/// total time the requests spent waiting; so the mean queue length over the run is the rate
/// of requests through the queue times their mean wait.
#[test]
fn littles_law_holds_on_the_time_series() {
    let results = load::simulate(&stormy(4), 2, &Silent).unwrap();
    let bucket_ms = results.model.bucket_ms;
    for row in &results.rows {
        let tally = &row.tally;
        let area: f64 = tally
            .buckets
            .iter()
            .map(|bucket| bucket.queue_length * bucket_ms)
            .sum::<f64>();
        // The last bucket is averaged over its elapsed part only.
        let last = tally.buckets.last().unwrap();
        let last_start = (tally.buckets.len() - 1) as f64 * bucket_ms;
        let area =
            area - last.queue_length * bucket_ms + last.queue_length * (tally.end_ms - last_start);
        let waits = tally.queue_wait_ms;
        assert!(
            (area - waits).abs() <= 1e-6 * waits.max(1.0),
            "area {area} vs waits {waits}"
        );
        // L = λ W over the run.
        let throughput_per_ms = tally.dequeued as f64 / tally.end_ms;
        let little = throughput_per_ms * tally.mean_queue_wait_ms();
        assert!(
            (tally.queue.mean() - little).abs() <= 1e-6 * little.max(1e-9),
            "L {} vs λW {little}",
            tally.queue.mean()
        );
    }
}

#[test]
fn any_thread_count_gives_the_same_results() {
    let model = stormy(5);
    let one = load::simulate(&model, 1, &Silent).unwrap();
    let three = load::simulate(&model, 3, &Silent).unwrap();
    assert_eq!(one, three);
}

/// `stormy(seed)` with every scenario's key TTL set to `key_ttl_ms`.
fn stormy_with_ttl(seed: u64, key_ttl_ms: Option<f64>) -> LoadModel {
    let mut model = stormy(seed);
    for scenario in &mut model.scenarios {
        scenario.server.key_ttl_ms = key_ttl_ms;
    }
    model
}

/// A key TTL longer than the run (every loop's last event) never prunes a key: every row is
/// the one without a TTL, draw for draw. A short one changes the keeping strategies' rows
/// (retries of payments whose keys expired are charged again) and never `none`'s, which
/// keeps no key.
#[test]
fn a_ttl_longer_than_the_run_changes_nothing_and_a_short_one_charges_again() {
    for seed in [1, 2, 3] {
        let plain = load::simulate(&stormy_with_ttl(seed, None), 2, &Silent).unwrap();
        let longest_run_ms = plain
            .rows
            .iter()
            .map(|row| row.tally.end_ms)
            .fold(0.0, f64::max);
        let long = stormy_with_ttl(seed, Some(longest_run_ms + 1.0));
        let long = load::simulate(&long, 2, &Silent).unwrap();
        assert_eq!(plain.rows, long.rows, "seed {seed}");
        let short = load::simulate(&stormy_with_ttl(seed, Some(100.0)), 2, &Silent).unwrap();
        for (plain, short) in plain.rows.iter().zip(&short.rows) {
            check_conservation(&short.tally);
            let (before, after) = (plain.tally.counts, short.tally.counts);
            if plain.strategy == LoadStrategy::None {
                assert_eq!(plain, short);
            } else {
                assert_eq!(before.expired_key_charges, 0);
                assert!(
                    after.charges > before.charges
                        && after.replays < before.replays
                        && after.expired_key_charges > 0,
                    "{:?}: {before:?} then {after:?}",
                    plain.strategy
                );
            }
        }
    }
}

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
    let cases: [(&str, &[&str]); 29] = [
        (
            "[server]\nworkers = 1\nduplicate_answer = \"ok_200\"",
            &[
                "`server.duplicate_answer`",
                "ok_200",
                "replay or conflict_409",
            ],
        ),
        (
            "[server]\nworkers = 1\nduplicate_answer = \"error_500\"",
            &[
                "`server.duplicate_answer`",
                "error_500",
                "replay or conflict_409",
            ],
        ),
        (
            "[server]\nworkers = 1\nfingerprint = false",
            &["`server.fingerprint`", "false", "one body"],
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
            "[server]\nworkers = 2\n[provider]\nloss = 0.1",
            &["[provider]", "does not model a provider or receipts"],
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

/// The key's TTL under a backlog (`configs/key-ttl-under-load.toml`, the payment API of
/// `configs/capacity-drop.toml` and its capacity drop, no retry control): a 30 s TTL outlasts
/// every retry's meeting with its key (three retries 1.1 s apart plus the queue's growth), so
/// it is the key kept for the whole run, row for row; a 5 s TTL lets the backlog's retries
/// through (under `unique_key` and `lock_wait` every double charge is a charge after the key
/// expired) and its runs recover later (no more of them than with the key kept); a 2 s TTL is no key at all: the double charges within 2%
/// of `none`'s in the same storm, the share that succeeds within one percentage point, no run
/// recovering.
#[test]
fn a_key_ttl_under_load_is_safe_only_when_it_outlasts_the_backlog() {
    let (_a, ttl) = run_shipped("key-ttl-under-load.toml", |text| text, &[]);
    let (_b, storm) = run_shipped("capacity-drop.toml", |text| text, &[]);
    let rows = csv_rows(&ttl.join("load.csv"));
    let storm = csv_rows(&storm.join("load.csv"));
    let without_scenario = |scenario: &str| {
        rows.iter()
            .filter(|row| row["scenario"] == scenario)
            .map(|row| {
                let mut row = row.clone();
                row.remove("scenario");
                row
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(without_scenario("kept"), without_scenario("ttl_30s"));
    let strategies = ["check_then_insert", "unique_key", "lock_wait"];
    let recovered = |scenario: &str| -> usize {
        strategies
            .iter()
            .map(|strategy| recovered_runs(&rows, (scenario, strategy)))
            .sum()
    };
    assert!(recovered("ttl_5s") <= recovered("kept"));
    // When: the mean of `recovered_at_s` over the runs that recovered.
    let recovered_at = |scenario: &str, strategy: &str| {
        let at: Vec<f64> = runs_of(&rows, scenario, strategy)
            .iter()
            .filter(|row| row["recovered"] == "true")
            .map(|row| row["recovered_at_s"].parse::<f64>().unwrap())
            .collect();
        at.iter().sum::<f64>() / at.len() as f64
    };
    for strategy in strategies {
        assert!(
            recovered_at("ttl_5s", strategy) > recovered_at("kept", strategy),
            "{strategy}"
        );
    }
    let none = |column: &str| mean_over_runs(&storm, ("no_budget", "none"), column);
    for strategy in strategies {
        let five = |column: &str| mean_over_runs(&rows, ("ttl_5s", strategy), column);
        assert!(five("double_charges") > 0.0, "{strategy}");
        if strategy != "check_then_insert" {
            assert_eq!(
                five("double_charges"),
                five("expired_key_charges"),
                "{strategy}"
            );
        }
        let two = |column: &str| mean_over_runs(&rows, ("ttl_2s", strategy), column);
        let charged_twice = (two("double_charges") - none("double_charges")).abs();
        assert!(charged_twice <= 0.02 * none("double_charges"), "{strategy}");
        let share = |of: &dyn Fn(&str) -> f64| 100.0 * of("succeeded") / of("payments");
        assert!((share(&two) - share(&none)).abs() <= 1.0, "{strategy}");
        assert_eq!(recovered_runs(&rows, ("ttl_2s", strategy)), 0, "{strategy}");
    }
}

/// `(mean, standard error, runs)` of per-run values (the standard error is the sample
/// standard deviation over √runs).
fn estimate(values: &[f64]) -> (f64, f64, usize) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (variance / n).sqrt(), values.len())
}

/// Welch's test of `ours − original` (each a mean, its standard error and its runs): the
/// two-sided p-value from Student's t at the Welch–Satterthwaite degrees of freedom (rounded
/// down), as `benches/brooker_compare.py` computes it; 1 for two equal exact means.
fn welch_p(ours: (f64, f64, usize), original: (f64, f64, usize)) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    let ((a, sa, na), (b, sb, nb)) = (original, ours);
    let se = sa.hypot(sb);
    if se == 0.0 {
        return if a == b { 1.0 } else { 0.0 };
    }
    let part = |s: f64, n: usize| {
        if s > 0.0 {
            s.powi(4) / (n as f64 - 1.0)
        } else {
            0.0
        }
    };
    let df = (se.powi(4) / (part(sa, na) + part(sb, nb)))
        .floor()
        .max(1.0);
    let t = (b - a) / se;
    2.0 * (1.0 - StudentsT::new(0.0, 1.0, df).unwrap().cdf(t.abs()))
}

/// The harness's reference numbers (`benches/brooker_*_reference.csv`, the originals' own
/// seeded runs): `(mean, standard error, runs)` by the values of `keys`.
fn brooker_reference(file: &str, keys: &[&str]) -> HashMap<Vec<String>, (f64, f64, usize)> {
    csv_rows(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("benches")
            .join(file),
    )
    .into_iter()
    .map(|row| {
        let key = keys.iter().map(|key| row[*key].clone()).collect();
        let number = |column: &str| row[column].parse::<f64>().unwrap();
        (
            key,
            (
                number("mean"),
                number("standard_error"),
                row["runs"].parse().unwrap(),
            ),
        )
    })
    .collect()
}

/// Brooker's `retry_sim` ("Fixing retries with token buckets and circuit breakers"),
/// reproduced: `configs/brooker-retry.toml`, swept over the failure rates of the harness's
/// reference, run by this build; per failure rate and policy its successes, total calls,
/// success rate and calls per payment (means over the 10 runs) against the original's, each
/// Welch's test at p ≥ 0.05 / 128 (Bonferroni over the 128 comparisons: under 5% chance that
/// any fails if both simulate the same model). And the two policies with closed forms agree
/// with them (success rate 1 − p and 1 − p⁴, calls per payment 1 and 1 + p + p² + p³), each
/// within the same family-wise 5% over its 32 comparisons.
#[test]
fn brookers_retry_simulation_is_reproduced_within_tolerance() {
    use statrs::distribution::{ContinuousCDF, Normal, StudentsT};
    let reference = brooker_reference(
        "brooker_retry_reference.csv",
        &["failure_rate", "policy", "metric"],
    );
    let mut rates: Vec<f64> = reference
        .keys()
        .map(|key| key[0].parse::<f64>().unwrap())
        .collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let sweep = format!("\"server.error_rate\" = {rates:?}");
    let (_folder, out) = run_shipped(
        "brooker-retry.toml",
        |text| {
            let start = text.find("\"server.error_rate\" = [").unwrap();
            let end = start + text[start..].find(']').unwrap() + 1;
            format!("{}{sweep}{}", &text[..start], &text[end..])
        },
        &[],
    );
    let runs = csv_rows(&out.join("load.csv"));
    let policies = [
        "no_retries",
        "three_retries",
        "adaptive_10pct",
        "breaker_10pct",
    ];
    let comparisons = rates.len() * policies.len() * 4;
    assert_eq!(comparisons, 128);
    let mut worst: f64 = 1.0;
    for &rate in &rates {
        for policy in policies {
            let cell: Vec<&CsvRow> = runs
                .iter()
                .filter(|row| {
                    row["scenario"] == policy
                        && row["server.error_rate"].parse::<f64>().unwrap() == rate
                })
                .collect();
            assert_eq!(cell.len(), 10, "{policy} at {rate}");
            let per_run = |f: &dyn Fn(f64, f64, f64) -> f64| {
                let values: Vec<f64> = cell
                    .iter()
                    .map(|row| {
                        let number = |column: &str| row[column].parse::<f64>().unwrap();
                        f(number("succeeded"), number("attempts"), number("payments"))
                    })
                    .collect();
                estimate(&values)
            };
            let ours = [
                ("successes", per_run(&|s, _, _| s)),
                ("total_calls", per_run(&|_, a, _| a)),
                ("success_rate", per_run(&|s, _, p| s / p)),
                ("calls_per_payment", per_run(&|_, a, p| a / p)),
            ];
            for (metric, ours) in ours {
                let key = vec![format!("{rate:?}"), policy.to_string(), metric.to_string()];
                let original = reference[&key];
                let p = welch_p(ours, original);
                worst = worst.min(p);
                assert!(
                    p >= 0.05 / comparisons as f64,
                    "{key:?}: ours {ours:?}, original {original:?}, p = {p}"
                );
                let closed = match (policy, metric) {
                    ("no_retries", "success_rate") => Some(1.0 - rate),
                    ("no_retries", "calls_per_payment") => Some(1.0),
                    ("three_retries", "success_rate") => Some(1.0 - rate.powi(4)),
                    ("three_retries", "calls_per_payment") => {
                        Some(1.0 + rate + rate.powi(2) + rate.powi(3))
                    }
                    _ => None,
                };
                if let Some(value) = closed {
                    let threshold = 0.05 / 32.0;
                    let (mean, se, n) = ours;
                    let p = if se > 0.0 {
                        let t = (mean - value) / se;
                        let df = (n - 1) as f64;
                        2.0 * (1.0 - StudentsT::new(0.0, 1.0, df).unwrap().cdf(t.abs()))
                    } else if value == mean {
                        1.0
                    } else {
                        // Every run saw the same ratio: the binomial error of the expected
                        // success rate over all the runs' payments.
                        let payments: f64 = cell
                            .iter()
                            .map(|row| row["payments"].parse::<f64>().unwrap())
                            .sum();
                        let sd = (value * (1.0 - value) / payments).sqrt();
                        2.0 * (1.0 - Normal::standard().cdf(((mean - value) / sd).abs()))
                    };
                    assert!(p >= threshold, "{key:?}: {mean} vs the closed form {value}");
                }
            }
        }
    }
    // Not vacuous: the comparisons do vary.
    assert!(worst < 0.5, "{worst}");
}

/// Per-second rows of one run: (second, arrivals, successes, retries, timeouts).
type Seconds = Vec<(f64, f64, f64, f64, f64)>;

/// The first second k ≥ 25 (the spike's end) from which every 5-second window k, k + 5, ...
/// up to the last has a mean goodput of at least 90% of the base rate of 40/s
/// (`benches/brooker_reference.py`, `recovered_at`).
fn recovered_at(seconds: &Seconds) -> Option<f64> {
    let goodput: BTreeMap<i64, f64> = seconds.iter().map(|s| (s.0 as i64, s.2)).collect();
    let last = seconds.iter().map(|s| s.0 as i64).max().unwrap() + 1;
    let good = |k: i64| {
        let sum: f64 = (k..k + 5)
            .map(|s| goodput.get(&s).copied().unwrap_or(0.0))
            .sum();
        sum / 5.0 >= 0.9 * 40.0
    };
    (25..=last - 5)
        .find(|&k| (k..=last - 5).step_by(5).all(good))
        .map(|k| k as f64)
}

/// Per-run summaries of one client's runs by measure, as the harness makes them of the
/// original (`benches/brooker_reference.py`, `summarise_runs`): the mean per second of each
/// count in each window, whether the run recovered and when.
fn collapse_summaries(runs: &[Seconds]) -> Vec<(String, Vec<f64>)> {
    let mut out = Vec::new();
    for (low, high) in [(10, 20), (20, 25), (25, 30), (30, 40), (40, 60), (60, 80)] {
        for (index, name) in ["arrivals", "goodput", "retries", "timeouts"]
            .iter()
            .enumerate()
        {
            let values = runs
                .iter()
                .map(|seconds| {
                    let (low, high) = (f64::from(low), f64::from(high));
                    seconds
                        .iter()
                        .filter(|s| low <= s.0 && s.0 < high)
                        .map(|s| [s.1, s.2, s.3, s.4][index])
                        .sum::<f64>()
                        / (high - low)
                })
                .collect();
            out.push((format!("{name}_per_s_{low}_{high}s"), values));
        }
    }
    let recoveries: Vec<Option<f64>> = runs.iter().map(recovered_at).collect();
    out.push((
        "recovered_share".into(),
        recoveries
            .iter()
            .map(|k| f64::from(u8::from(k.is_some())))
            .collect(),
    ));
    out.push((
        "recovered_at_s".into(),
        recoveries.into_iter().flatten().collect(),
    ));
    out
}

/// Brooker's `simple_collapse_sim` (congestive collapse after a 5-second spike), reproduced:
/// `configs/brooker-collapse.toml` run by this build, its per-second series cut at 80 s and
/// summarised per run as the harness summarises the original's; every measure with a standard
/// error on both sides against the original's, each Welch's test at p ≥ 0.05 / m (Bonferroni
/// over the m comparisons). And Brooker's result: without backoff most runs never recover,
/// with backoff and jitter nearly all do.
#[test]
fn brookers_collapse_is_reproduced_within_tolerance() {
    let reference = brooker_reference("brooker_collapse_reference.csv", &["policy", "metric"]);
    let (_folder, out) = run_shipped("brooker-collapse.toml", |text| text, &[]);
    let mut by_client: BTreeMap<String, BTreeMap<u64, Seconds>> = BTreeMap::new();
    for row in csv_rows(&out.join("load_timeseries.csv")) {
        let number = |column: &str| row[column].parse::<f64>().unwrap();
        let second = number("bucket_start_s");
        if second >= 80.0 {
            continue;
        }
        by_client
            .entry(row["scenario"].clone())
            .or_default()
            .entry(row["run"].parse().unwrap())
            .or_default()
            .push((
                second,
                number("arrivals"),
                number("successes"),
                number("retries"),
                number("timeouts"),
            ));
    }
    let mut comparisons = Vec::new();
    let mut share = HashMap::new();
    for client in ["no_backoff", "backoff_and_jitter"] {
        let runs: Vec<Seconds> = by_client[client].values().cloned().collect();
        assert_eq!(runs.len(), 100, "{client}");
        for (measure, values) in collapse_summaries(&runs) {
            if measure == "recovered_share" {
                share.insert(client, estimate(&values).0);
            }
            let Some(&original) = reference.get(&vec![client.to_string(), measure.clone()]) else {
                continue;
            };
            if values.len() < 2 || original.2 < 2 {
                continue;
            }
            comparisons.push((format!("{client} {measure}"), estimate(&values), original));
        }
    }
    assert_eq!(comparisons.len(), 52);
    let threshold = 0.05 / comparisons.len() as f64;
    for (name, ours, original) in &comparisons {
        let p = welch_p(*ours, *original);
        assert!(
            p >= threshold,
            "{name}: ours {ours:?}, original {original:?}, p = {p}"
        );
    }
    assert!(share["no_backoff"] < 0.5, "{share:?}");
    assert!(share["backoff_and_jitter"] > 0.9, "{share:?}");
}

/// The 95% two-sided quantile of Student's t with `runs − 1` degrees of freedom (statrs).
fn t_975(runs: usize) -> f64 {
    use statrs::distribution::{ContinuousCDF, StudentsT};
    StudentsT::new(0.0, 1.0, (runs - 1) as f64)
        .unwrap()
        .inverse_cdf(0.975)
}

/// (mean, sample sd, se, half-width of the t interval) of per-run values, by the two-pass
/// formulas.
fn by_hand(values: &[f64]) -> (f64, f64, f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let se = sd / n.sqrt();
    (mean, sd, se, t_975(values.len()) * se)
}

/// Within `1e-9` of `expected`, relative to its size (at least 1).
fn close(actual: &str, expected: f64) -> bool {
    let actual: f64 = actual.parse().unwrap();
    (actual - expected).abs() <= 1e-9 * expected.abs().max(1.0)
}

/// `summary.csv` of `configs/capacity-drop.toml` is its `load.csv` over the runs: for every
/// (scenario, strategy), the mean, SD, SE and t interval of the per-run double charges, the
/// per-run success share (`succeeded / payments`) and the recovery time over the runs that
/// recovered, computed here from `load.csv`'s rows; and the share of runs recovered with the
/// Wilson interval of k of n (z = 1.959964, Wilson 1927).
#[test]
fn summary_rows_are_the_per_run_rows_by_hand() {
    let (_folder, out) = run_shipped("capacity-drop.toml", |text| text, &[]);
    let rows = csv_rows(&out.join("load.csv"));
    let summary = csv_rows(&out.join("summary.csv"));
    let row_of = |scenario: &str, strategy: &str, metric: &str| -> CsvRow {
        let found: Vec<&CsvRow> = summary
            .iter()
            .filter(|row| {
                row["scenario"] == scenario
                    && row["strategy"] == strategy
                    && row["metric"] == metric
            })
            .collect();
        assert_eq!(found.len(), 1, "{scenario} {strategy} {metric}");
        found[0].clone()
    };
    let number = |row: &CsvRow, column: &str| row[column].parse::<f64>().unwrap();
    let mut checked = 0;
    for cell in rows.iter().filter(|row| row["run"] == "0") {
        let (scenario, strategy) = (cell["scenario"].as_str(), cell["strategy"].as_str());
        let runs = runs_of(&rows, scenario, strategy);
        assert_eq!(runs.len(), 5);
        let recovered: Vec<&&CsvRow> = runs
            .iter()
            .filter(|row| row["recovered"] == "true")
            .collect();
        let per_run: [(&str, Vec<f64>); 3] = [
            (
                "double_charges",
                runs.iter()
                    .map(|row| number(row, "double_charges"))
                    .collect(),
            ),
            (
                "success_rate",
                runs.iter()
                    .map(|row| number(row, "succeeded") / number(row, "payments"))
                    .collect(),
            ),
            (
                "recovered_at_s",
                recovered
                    .iter()
                    .map(|row| number(row, "recovered_at_s"))
                    .collect(),
            ),
        ];
        for (metric, values) in per_run {
            let row = row_of(scenario, strategy, metric);
            assert_eq!(row["runs"], values.len().to_string(), "{metric}");
            if values.len() < 2 {
                continue;
            }
            let (mean, sd, se, half) = by_hand(&values);
            assert_eq!(
                (row["kind"].as_str(), row["interval"].as_str()),
                ("mean", "t")
            );
            for (column, expected) in [
                ("mean", mean),
                ("sd", sd),
                ("se", se),
                ("ci_low", mean - half),
                ("ci_high", mean + half),
            ] {
                assert!(
                    close(&row[column], expected),
                    "{scenario} {strategy} {metric} {column}: {} against {expected}",
                    row[column]
                );
            }
            checked += 1;
        }
        // Wilson: (p + z²/2n ± z √(p(1 − p)/n + z²/4n²)) / (1 + z²/n).
        let (k, n, z) = (recovered.len() as f64, 5.0, 1.959_963_984_540_054_f64);
        let p = k / n;
        let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
        let half = z / (1.0 + z * z / n) * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt();
        let row = row_of(scenario, strategy, "recovered");
        assert_eq!(
            (row["kind"].as_str(), row["interval"].as_str()),
            ("proportion", "wilson")
        );
        assert!(close(&row["mean"], p));
        assert!(close(&row["ci_low"], (centre - half).max(0.0)), "{row:?}");
        assert!(close(&row["ci_high"], (centre + half).min(1.0)), "{row:?}");
    }
    assert!(checked >= 16 * 2, "{checked}");
}

/// The strategies of a run share its random numbers, so the paired difference of two is
/// estimated from the per-run differences: in `configs/capacity-drop.toml`, `unique_key`
/// against `check_then_insert` under the token bucket, the attempts per run differ far less
/// from run to run than either design's own. `differences.csv`'s row is the mean and t
/// interval of the per-run differences of `load.csv` (by hand), and its half-width is under
/// a third of the unpaired one (Welch's, from the two designs' own runs).
#[test]
fn paired_differences_are_the_per_run_differences_and_narrower_than_unpaired() {
    let (_folder, out) = run_shipped("capacity-drop.toml", |text| text, &[]);
    let rows = csv_rows(&out.join("load.csv"));
    let differences = csv_rows(&out.join("differences.csv"));
    let attempts = |strategy: &str| -> Vec<f64> {
        runs_of(&rows, "token_bucket", strategy)
            .iter()
            .map(|row| row["attempts"].parse::<f64>().unwrap())
            .collect()
    };
    let (design, baseline) = (attempts("unique_key"), attempts("check_then_insert"));
    let paired: Vec<f64> = design.iter().zip(&baseline).map(|(a, b)| a - b).collect();
    let (mean, sd, _, half) = by_hand(&paired);
    let row = differences
        .iter()
        .find(|row| {
            row["scenario"] == "token_bucket"
                && row["strategy"] == "unique_key"
                && row["compared"] == "strategy"
                && row["baseline"] == "check_then_insert"
                && row["metric"] == "attempts"
        })
        .expect("a paired difference");
    assert_eq!(
        (row["kind"].as_str(), row["runs"].as_str()),
        ("difference", "5")
    );
    assert!(
        close(&row["mean"], mean) && close(&row["sd"], sd),
        "{row:?}"
    );
    assert!(close(&row["ci_high"], mean + half), "{row:?}");
    // Welch: se² = s₁²/n + s₂²/n, degrees of freedom by Welch–Satterthwaite.
    let (_, sd_a, se_a, _) = by_hand(&design);
    let (_, sd_b, se_b, _) = by_hand(&baseline);
    let se = (se_a.powi(2) + se_b.powi(2)).sqrt();
    let df = se.powi(4) / (se_a.powi(4) / 4.0 + se_b.powi(4) / 4.0);
    let unpaired = t_975(df.floor() as usize + 1) * se;
    assert!(sd_a > 0.0 && sd_b > 0.0);
    assert!(
        half * 3.0 < unpaired,
        "paired ±{half}, unpaired ±{unpaired}"
    );
}
