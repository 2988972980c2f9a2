//! The load model: queue waits against queueing theory (M/M/1 and M/M/c, Erlang C), the
//! conservation of requests, Little's law on the time series, determinism across thread
//! counts, and bad load files through the binary.

mod common;

use common::speed_logs::{self, LATEST, PREVIOUS};
use common::{assert_readme_says, csv_header, rejected_in, simulate};
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
        },
        client: LoadClient {
            timeout_ms: 1e9,
            max_retries: 0,
            backoff: Backoff::None,
            token_bucket: None,
            adaptive_bucket: None,
            breaker: None,
            retry_ratio: None,
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
        error_rate_sweep: Vec::new(),
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
    let cases: [(&str, &[&str]); 26] = [
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
            &["`server.key_ttl_ms`", "value 0", "key TTL"],
        ),
        (
            "[server]\nworkers = 1\nkey_ttl_ms = -5",
            &["`server.key_ttl_ms`", "-5", "key TTL"],
        ),
        (
            "[server]\nworkers = 1\nkey_ttl_ms = 1e13",
            &["`server.key_ttl_ms`", "10000000000000", "key TTL"],
        ),
        ("[server]\nworkers = 0", &["`server.workers`", "value 0"]),
        ("[server]\nworkers = 2.5", &["`server.workers`", "2.5"]),
        (
            "[server]\nworkers = 2\ncrash_rate = 0.1",
            &["crash_rate", "does not model crashes"],
        ),
        (
            "[output]\nerror_rate_sweep = [0.1, 1.5]",
            &["`output.error_rate_sweep`", "1.5"],
        ),
        (
            "[server]\nworkers = 2\nwrokers = 3",
            &["wrokers", "or a load key of that table"],
        ),
        // A wrong type in a timeline key of a load file: the line of the file and the key.
        (
            "[server]\nworkers = 1\nkey_ttl_ms = \"abc\"",
            &["line ", "expected f64", "(in `key_ttl_ms = \"abc\"`)"],
        ),
        (
            "[[scenario]]\nname = \"a\"\nserver = { workers = 1, key_ttl_ms = \"abc\" }",
            &["expected f64", "key_ttl_ms = \"abc\""],
        ),
        (
            "[server]\nqueue_limit = 0",
            &["`server.queue_limit`", "value 0"],
        ),
        (
            "[arrivals]\nphases = [{ until_s = 5, rate_per_s = -1 }]",
            &["`arrivals.phases`", "-1"],
        ),
        (
            "[arrivals]\nphases = [{ until_s = 5, rate_per_s = nan }]",
            &["`arrivals.phases`", "NaN"],
        ),
        (
            "[arrivals]\nphases = [{ until_s = 5, rate_per_s = inf }]",
            &["`arrivals.phases`", "inf"],
        ),
        (
            "[arrivals]\nphases = [{ until_s = 5, rate_per_s = 1 }, { until_s = 3, rate_per_s = 2 }]",
            &["`arrivals.phases`", "until_s = 3", "increasing"],
        ),
        (
            "[server]\nworkers = 1\n[arrivals]\nrate_per_s = -3",
            &["`arrivals.rate_per_s`", "-3"],
        ),
        (
            "[client]\ntoken_bucket = { capacity = 10, retry_cost = 20 }",
            &["`client.token_bucket`", "20", "above the quota"],
        ),
        (
            "[client]\nbreaker = { threshold = 1.5 }",
            &["`client.breaker`", "1.5", "0 to 1"],
        ),
        (
            "[client]\nbreaker = { threshold = -0.1 }",
            &["`client.breaker`", "-0.1"],
        ),
        (
            "[server]\nworkers = 1\n[client]\nbackoff = { policy = \"sometimes\" }",
            &["sometimes"],
        ),
        (
            "strategies = [\"optimistic\"]\n[server]\nworkers = 1",
            &["`strategies`", "optimistic", "unknown strategy"],
        ),
        (
            "[server]\ncapacity = [{ from_s = 5, to_s = 2, workers = 1 }]",
            &["`server.capacity`", "from_s = 5"],
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

/// A row of a committed `load.csv`, by column.
type CsvRow = std::collections::HashMap<String, String>;

/// The mean over the runs of (`scenario`, `strategy`) of `column` in `rows`.
fn mean_over_runs(rows: &[CsvRow], (scenario, strategy): (&str, &str), column: &str) -> f64 {
    let runs: Vec<f64> = rows
        .iter()
        .filter(|row| row["scenario"] == scenario && row["strategy"] == strategy)
        .map(|row| row[column].parse::<f64>().unwrap())
        .collect();
    assert!(!runs.is_empty(), "no runs of {scenario} {strategy}");
    runs.iter().sum::<f64>() / runs.len() as f64
}

/// How many runs of (`scenario`, `strategy`) in `rows` recovered, and how many there are.
fn recovered_runs(rows: &[CsvRow], (scenario, strategy): (&str, &str)) -> (usize, usize) {
    let runs: Vec<_> = rows
        .iter()
        .filter(|row| row["scenario"] == scenario && row["strategy"] == strategy)
        .collect();
    let recovered = runs.iter().filter(|row| row["recovered"] == "true").count();
    (recovered, runs.len())
}

/// The README's table of `configs/capacity-drop.toml` is the committed `load.csv`: every row
/// recomputed from it (means over runs) appears in the README as written.
#[test]
fn the_readme_table_matches_the_committed_capacity_drop_outputs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = common::readme();
    let rows = common::csv_rows(&root.join("output/capacity-drop/load.csv"));
    let mut keys: Vec<(String, String)> = Vec::new();
    for row in &rows {
        let key = (row["scenario"].clone(), row["strategy"].clone());
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    assert_eq!(keys.len(), 16);
    let mean = |scenario: &str, strategy: &str, column: &str| {
        mean_over_runs(&rows, (scenario, strategy), column)
    };
    for (scenario, strategy) in &keys {
        let (recovered, runs) = recovered_runs(&rows, (scenario, strategy));
        let m = |column: &str| mean(scenario, strategy, column);
        let line = format!(
            "| {scenario} | {strategy} | {:.1} | {:.1} | {:.1} | {:.2} | {:.1} | {recovered}/{runs} |",
            100.0 * m("succeeded") / m("payments"),
            m("double_charges"),
            m("failed_charged"),
            m("amplification"),
            m("throttled"),
        );
        assert!(readme.contains(&line), "README lacks {line}");
    }
    // The sentences of the worked example.
    let storm = |column: &str| mean("no_budget", "none", column);
    let grouped = |value: f64| {
        let digits = format!("{:.0}", value);
        let mut out = String::new();
        for (index, digit) in digits.chars().enumerate() {
            if index > 0 && (digits.len() - index) % 3 == 0 {
                out.push(',');
            }
            out.push(digit);
        }
        out
    };
    let phrases = [
        format!(
            "{:.2} calls of work per payment, {:.1}% of the payments succeed, {} of {}",
            storm("amplification"),
            100.0 * storm("succeeded") / storm("payments"),
            grouped(storm("double_charges")),
            grouped(storm("payments")),
        ),
        format!("({} payments each;", grouped(storm("payments"))),
        format!(
            "strategies ({:.1}%)",
            100.0 * mean("no_budget", "lock_wait", "succeeded") / storm("payments")
        ),
    ];
    for phrase in phrases {
        assert!(readme.contains(&phrase), "README lacks {phrase}");
    }
}

/// A point of the error-rate sweep is the same loop as the scenario with that error rate.
#[test]
fn a_sweep_point_is_the_scenario_at_that_error_rate() {
    let mut swept = stormy(6);
    swept.error_rate_sweep = vec![0.3];
    let mut direct = stormy(6);
    direct.scenarios[0].server.error_rate = 0.3;
    let swept = load::simulate(&swept, 2, &Silent).unwrap();
    let direct = load::simulate(&direct, 2, &Silent).unwrap();
    assert_eq!(swept.sweep.len(), direct.rows.len());
    for (point, row) in swept.sweep.iter().zip(&direct.rows) {
        assert_eq!(point.error_rate, 0.3);
        assert_eq!((point.row.run, point.row.strategy), (row.run, row.strategy));
        assert_eq!(point.row.tally.counts, row.tally.counts);
        assert!(point.row.tally.buckets.is_empty());
    }
    // The scenario's own rows are untouched by the sweep.
    assert_eq!(
        swept.rows,
        load::simulate(&stormy(6), 2, &Silent).unwrap().rows
    );
}

/// The README's table of `configs/key-ttl-under-load.toml` is the committed `load.csv`, and
/// what the text says of it holds: the 30 s TTL gives the kept key's rows, the 5 s TTL 390 to
/// 460 double charges (one expired charge each under `unique_key` and `lock_wait`), the 2 s
/// TTL close to the storm without a key in `capacity-drop` (the sentence's bounds).
#[test]
fn the_readme_table_matches_the_committed_key_ttl_outputs() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = common::readme();
    let rows = common::csv_rows(&root.join("output/key-ttl-under-load/load.csv"));
    let storm = common::csv_rows(&root.join("output/capacity-drop/load.csv"));
    let mean = mean_over_runs;
    let recovered = |key: (&str, &str)| {
        let (recovered, runs) = recovered_runs(&rows, key);
        assert_eq!(runs, 5, "{key:?}");
        recovered
    };
    let strategies = ["check_then_insert", "unique_key", "lock_wait"];
    for scenario in ["kept", "ttl_30s", "ttl_5s", "ttl_2s"] {
        for strategy in strategies {
            let key = (scenario, strategy);
            let m = |column: &str| mean(&rows, key, column);
            let line = format!(
                "| {scenario} | {strategy} | {:.1} | {:.1} | {:.1} | {:.2} | {}/5 |",
                100.0 * m("succeeded") / m("payments"),
                m("double_charges"),
                m("expired_key_charges"),
                m("amplification"),
                recovered(key)
            );
            assert!(readme.contains(&line), "README lacks {line}");
        }
    }
    // The 30 s key: every row of the kept key's, column for column.
    let of = |scenario: &str| {
        rows.iter()
            .filter(|row| row["scenario"] == scenario)
            .map(|row| {
                let mut row = row.clone();
                row.remove("scenario");
                row
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(of("kept"), of("ttl_30s"));
    let all_recovered = |scenario: &str| -> usize {
        strategies
            .iter()
            .map(|strategy| recovered((scenario, strategy)))
            .sum()
    };
    assert!(all_recovered("ttl_5s") < all_recovered("kept"));
    for strategy in strategies {
        let five = mean(&rows, ("ttl_5s", strategy), "double_charges");
        assert!((390.0..=460.0).contains(&five), "{strategy}: {five}");
        if strategy != "check_then_insert" {
            assert_eq!(
                five,
                mean(&rows, ("ttl_5s", strategy), "expired_key_charges")
            );
        }
        let none = |column: &str| mean(&storm, ("no_budget", "none"), column);
        let two = |column: &str| mean(&rows, ("ttl_2s", strategy), column);
        let charged_twice = (two("double_charges") - none("double_charges")).abs();
        assert!(charged_twice <= 0.02 * none("double_charges"), "{strategy}");
        let share = |succeeded: f64, payments: f64| 100.0 * succeeded / payments;
        let points =
            share(two("succeeded"), two("payments")) - share(none("succeeded"), none("payments"));
        assert!(points.abs() <= 1.0, "{strategy}: {points}");
        assert_eq!(recovered(("ttl_2s", strategy)), 0);
    }
}

/// The README's instruction counts of the two bench cases are the latest recorded ones
/// (`benches/instructions_record.sh`), and the counts before the steps it lists are the ones
/// docs/performance.md records.
#[test]
fn the_readme_instruction_counts_are_the_recorded_ones() {
    common::assert_readme_says(
        &common::flat_readme(),
        &format!(
            "{}, recorded by `benches/instructions_record.sh`): the steady case {} (1,538 M before the two steps below that touch it: the draws made ahead and the calendar queue), `capacity-drop.toml` {} (2,147 M;",
            LATEST.link("instructions.log"),
            speed_logs::millions(LATEST.instructions("load steady")),
            speed_logs::millions(LATEST.instructions("load capacity-drop")),
        ),
    );
    let performance = common::flat_performance_log();
    assert!(performance.contains("the steady case 1,538 M → 1,382 M"));
    assert!(performance.contains("`capacity-drop.toml` 2,147 M → 2,059 M"));
}

/// For one case of a recording's bench runs (0: steady, 1: `capacity-drop.toml`): how many
/// runs reach the target of 10^7 events per second per thread at their median sample,
/// and the lowest median (10^6 events/s).
fn target_reached(runs: &[speed_logs::LoadRun], case: usize) -> (usize, f64) {
    let medians: Vec<f64> = runs
        .iter()
        .map(|run| run.million_events_per_second[case].parse::<f64>().unwrap())
        .collect();
    let reached = medians.iter().filter(|&&median| median >= 10.0).count();
    (
        reached,
        medians.iter().copied().fold(f64::INFINITY, f64::min),
    )
}

/// The README's Speed table is the latest recorded runs of `cargo bench --bench load`
/// (`benches/speed_record.sh`), run by run as the bench printed them, on the machine it names;
/// the target's sentence counts the runs that reach it and quotes the lowest of them, for
/// these runs and for the machine before.
#[test]
fn the_readme_speed_table_is_the_recorded_bench() {
    let runs = LATEST.load_runs();
    assert!(runs.len() >= 3, "{runs:?}");
    let expected: Vec<Vec<String>> = runs
        .iter()
        .map(|run| {
            assert_eq!(run.million_events_per_second.len(), 2, "{run:?}");
            let mut row = vec![run.time.clone(), run.load_average.clone()];
            row.extend(
                run.million_events_per_second
                    .iter()
                    .map(|figure| format!("{figure} × 10^6")),
            );
            row
        })
        .collect();
    assert_eq!(common::readme_table("<!-- load-speed -->"), expected);
    let target = |case: usize, name: &str| {
        let (reached, lowest) = target_reached(&runs, case);
        format!(
            "{name} in {reached} of these {} runs (lowest median {lowest:.1} × 10^6)",
            runs.len()
        )
    };
    let before = PREVIOUS.load_runs();
    let (steady_reached, steady_lowest) = target_reached(&before, 0);
    let (drop_reached, drop_lowest) = target_reached(&before, 1);
    let flat = common::flat_readme();
    for claim in [
        format!(
            "{}, is {} runs one after another on an {}",
            LATEST.link("load_bench.log"),
            speed_logs::count_word(runs.len()),
            LATEST.machine_name()
        ),
        format!(
            "holds for {} and for {}",
            target(0, "the steady case"),
            target(1, "`capacity-drop.toml`")
        ),
        format!(
            "an {} (Zen 5), the same code held it in {steady_reached} of {n} runs for the steady case and {drop_reached} of {n} for `capacity-drop.toml`, with lowest medians of {steady_lowest:.1} × 10^6 and {drop_lowest:.1} × 10^6 ({})",
            PREVIOUS.machine_name(),
            PREVIOUS.link("load_bench.log"),
            n = before.len(),
        ),
    ] {
        assert_readme_says(&flat, &claim);
    }
}
