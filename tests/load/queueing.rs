//! The queue against queueing theory (M/M/1 and M/M/c, Erlang C; M/D/1, Pollaczek-Khinchine), the conservation of
//! requests, Little's law on the time series, determinism across thread counts, and the key TTL
//! against the run's length and under a backlog.

use super::{mean_over_runs, recovered_runs, run_shipped, runs_of};
use crate::common::csv_rows;
use engine::Silent;
use engine::backoff::Backoff;
use engine::distribution::Distribution;
use simulate::model::load::{
    self, LoadArrivals, LoadClient, LoadModel, LoadNetwork, LoadScenario, LoadServer, LoadStrategy,
    LoadTally, Phase, PhaseRate,
};
use simulate::model::semantics::{DuplicateAnswer, ErrorPolicy, KeyServer, KeyStore};

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
            copies: Default::default(),
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
            duplicate_answer: DuplicateAnswer::Replay,
            fingerprint: true,
            capacity: Vec::new(),
            key_server: Default::default(),
            key_store_outages: Default::default(),
            receipts: None,
            provider: None,
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
            different_body_rate: 0.0,
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

/// The mean over runs of each run's mean queue wait (ms), its standard error (ms) and its
/// z-score against `expected_ms` (each run's mean is one observation: waits within a run are
/// correlated, runs are independent).
fn mean_wait_z(results: &load::LoadResults, expected_ms: f64) -> (f64, f64, f64) {
    let means: Vec<f64> = results
        .rows
        .iter()
        .map(|row| row.tally.mean_queue_wait_ms())
        .collect();
    let n = means.len() as f64;
    let mean = means.iter().sum::<f64>() / n;
    let sd = (means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    let error = sd / n.sqrt();
    (mean, error, (mean - expected_ms) / error)
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
    let expected = mean_wait_ms(workers, rate, service_ms);
    let (mean, error, z) = mean_wait_z(&results, expected);
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

/// M/D/1 with the key in another store: Poisson arrivals at 50/s, 6 ms fixed processing and
/// two 2 ms key-store calls (check_then_insert), so a deterministic 10 ms service, ρ = 0.5.
/// Pollaczek-Khinchine: Wq = ρ D / (2 (1 − ρ)) = 0.5 × 10 / 1 = 5 ms. The mean over 10 runs
/// of 400 s must lie within 4 standard errors of it.
#[test]
fn md1_wait_with_key_store_calls_matches_pollaczek_khinchine() {
    let mut scenario = queue(1, 50.0, 6.0, 400.0);
    scenario.server.processing = Distribution::Fixed { ms: 6.0 };
    scenario.server.key_server = KeyServer {
        key_store: KeyStore::SeparateStore,
        key_store_latency: Some(Distribution::Fixed { ms: 2.0 }),
        ..Default::default()
    };
    let results = load::simulate(
        &model(vec![scenario], 10, &[LoadStrategy::CheckThenInsert]),
        2,
        &Silent,
    )
    .unwrap();
    let (mean, _, z) = mean_wait_z(&results, 5.0);
    assert!(
        z.abs() < 4.0,
        "mean wait {mean:.3} ms, P-K 5 ms, z = {z:.2}"
    );
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
