//! Cases worked by hand on the load model's event loop.

use super::simulation::Simulation;
use super::*;
use crate::model::semantics::ErrorPolicy;
use engine::Silent;
use engine::backoff::Backoff;
use engine::distribution::Distribution;
use engine::rng::SeedSequence;

/// One worker, fixed 10 ms each way, 100 ms processing, 1 s timeout, no retry control.
pub(super) fn scenario() -> LoadScenario {
    LoadScenario {
        name: "hand".into(),
        arrivals: LoadArrivals {
            clients: None,
            duration_ms: 10_000.0,
            phases: vec![Phase {
                until_ms: 10_000.0,
                rate: PhaseRate::Constant(1.0),
            }],
            copies: Default::default(),
        },
        network: LoadNetwork {
            request_latency: Distribution::Fixed { ms: 10.0 },
            response_latency: Distribution::Fixed { ms: 10.0 },
            request_loss: 0.0,
            ack_loss: 0.0,
            outages: Vec::new(),
        },
        server: LoadServer {
            workers: Some(1),
            queue_limit: None,
            drop_expired: false,
            processing: Distribution::Fixed { ms: 100.0 },
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
            timeout_ms: 1_000.0,
            max_retries: 3,
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

pub(super) fn run(scenario: &LoadScenario, strategy: LoadStrategy, arrivals: &[f64]) -> LoadTally {
    let stream = || SeedSequence::new(1).pcg64();
    Simulation::new(scenario, strategy, 100.0, stream(), stream())
        .with_arrival_times(arrivals)
        .run(&Silent)
        .unwrap()
}

/// A at 0 ms: reaches at 10, processed 10-110, answered at 120. B at 10 ms: reaches at 20,
/// waits for the worker until 110, processed 110-210, answered at 220.
#[test]
fn two_payments_and_one_worker() {
    let tally = run(&scenario(), LoadStrategy::None, &[0.0, 10.0]);
    let counts = tally.counts;
    assert_eq!(
        (counts.payments, counts.succeeded, counts.failed),
        (2, 2, 0)
    );
    assert_eq!(
        (counts.calls, counts.processings, counts.charges),
        (2, 2, 2)
    );
    assert_eq!(
        (counts.timeouts, counts.retries, counts.wasted_work),
        (0, 0, 0)
    );
    // Waits 0 and 90 ms.
    assert_eq!(tally.dequeued, 2);
    assert_eq!(tally.queue_wait_ms, 90.0);
    // Queue length 1 from 20 to 110 ms: bucket 0 (0-100 ms) holds 80 ms, bucket 1 10 ms.
    assert_eq!(tally.buckets[0].queue_length, 0.8);
    assert!((tally.buckets[1].queue_length - 0.1).abs() < 1e-12);
    // The worker is busy 10-210 ms: 0.9 of bucket 0, all of bucket 1, 0.1 of bucket 2.
    assert!((tally.buckets[0].workers_busy - 0.9).abs() < 1e-12);
    assert_eq!(tally.buckets[1].workers_busy, 1.0);
    assert_eq!(tally.buckets[1].successes, 1);
    assert_eq!(tally.buckets[2].successes, 1);
    assert_eq!(tally.queue.max(), 1);
    assert_eq!(tally.in_flight.max(), 2);
    // The last event that changes anything is B's answer at 220 ms (the timers at 1,000 and
    // 1,010 ms find their payments answered and do not stretch the series).
    assert_eq!(tally.end_ms, 220.0);
    assert_eq!(tally.buckets.len(), 3);
}

/// Two workers, 300 ms processing, 150 ms timeout, two retries, no backoff.
fn conflict_scenario() -> LoadScenario {
    let mut scenario = scenario();
    scenario.server.workers = Some(2);
    scenario.server.processing = Distribution::Fixed { ms: 300.0 };
    scenario.client.timeout_ms = 150.0;
    scenario.client.max_retries = 2;
    scenario
}

/// A at 0: processed 10-310; times out at 150 and 300, retries reach at 160 (queued) and
/// 310. B at 100: processed 110-410; times out at 250, its retry reaches at 260 and waits
/// behind A's. At 310 A's first processing ends: A's retry gets the replay, B's retry leaves
/// the queue after 50 ms and gets a 409 (B's key is still in flight); A's second retry gets
/// the replay at 310 and A succeeds at 320. B retries at 320, gets a 409 at once and gives up
/// at 340; its first processing charges at 410 for nobody.
#[test]
fn a_409_that_waited_in_the_queue() {
    let tally = run(&conflict_scenario(), LoadStrategy::UniqueKey, &[0.0, 100.0]);
    let counts = tally.counts;
    assert_eq!((counts.succeeded, counts.failed), (1, 1));
    assert_eq!((counts.attempts, counts.retries, counts.calls), (6, 4, 6));
    assert_eq!(
        (counts.processings, counts.conflicts, counts.replays),
        (2, 2, 2)
    );
    assert_eq!((counts.charges, counts.double_charges), (2, 0));
    assert_eq!((counts.failed_charged, counts.wasted_work), (1, 2));
    assert_eq!(counts.timeouts, 3);
    // A's first retry waited 160-310, B's 260-310.
    assert_eq!((tally.dequeued, tally.queue_wait_ms), (6, 200.0));
    assert_eq!(tally.buckets[3].conflicts, 2);
}

/// The same script with check-then-insert: B's retry leaves the queue at 310 while B's key
/// is not yet stored, is processed 310-610 and charges B a second time.
#[test]
fn check_then_insert_charges_the_queued_retry_again() {
    let tally = run(
        &conflict_scenario(),
        LoadStrategy::CheckThenInsert,
        &[0.0, 100.0],
    );
    let counts = tally.counts;
    assert_eq!((counts.charges, counts.double_charges), (3, 1));
    assert_eq!((counts.succeeded, counts.conflicts), (2, 0));
    assert_eq!(tally.buckets.last().unwrap().double_charges, 1);
}

/// The same script with the lock: B's retry holds the second worker from 310 until B's first
/// processing ends at 410, then gets the stored success; no double charge, no 409.
#[test]
fn lock_wait_holds_a_worker_until_the_key_completes() {
    let tally = run(&conflict_scenario(), LoadStrategy::LockWait, &[0.0, 100.0]);
    let counts = tally.counts;
    assert_eq!(
        (counts.charges, counts.double_charges, counts.conflicts),
        (2, 0, 0)
    );
    assert_eq!(counts.lock_waits, 1);
    // Both workers busy 310-410: one processing B, one waiting for B's lock.
    assert_eq!(tally.buckets[3].workers_busy, 2.0);
}

/// One thread or two, the same tallies.
#[test]
fn the_same_inputs_give_the_same_tally() {
    let mut scenario = scenario();
    scenario.server.workers = Some(4);
    scenario.server.processing = Distribution::Exponential { mean_ms: 30.0 };
    scenario.arrivals.phases[0].rate = PhaseRate::Constant(100.0);
    let model = LoadModel {
        title: "t".into(),
        seed: 3,
        runs: 2,
        strategies: LoadStrategy::ALL.to_vec(),
        scenarios: vec![scenario],
        bucket_ms: 1_000.0,
        warm_up_ms: 0.0,
        recovery_window_ms: 5_000.0,
    };
    let one = simulate(&model, 1, &Silent).unwrap();
    let two = simulate(&model, 2, &Silent).unwrap();
    assert_eq!(one, two);
    assert_eq!(one.rows.len(), 8);
    assert!(one.rows[0].tally.counts.payments > 900);
}

/// One payment, one worker, 100 ms processing, 1 s timeout, one retry with no backoff; the
/// first answer (sent at 110 ms) falls in an outage and is lost. Attempt 0 reaches at 10 ms
/// (`unique_key` and `lock_wait` create the key then) and is charged 10-110
/// (`check_then_insert` creates the key at 110). The client times out at 1,000 ms; its retry
/// reaches at 1,010 ms and succeeds at 1,020 (replayed) or 1,120 (processed again).
fn lost_ack_scenario(key_ttl_ms: Option<f64>) -> LoadScenario {
    let mut scenario = scenario();
    scenario.client.max_retries = 1;
    scenario.network.outages = vec![Window {
        from_ms: 100.0,
        to_ms: 200.0,
    }];
    scenario.server.key_ttl_ms = key_ttl_ms;
    scenario
}

/// `(charges, double_charges, replays, succeeded, expired_key_charges)` of the lost-ACK case.
fn lost_ack(key_ttl_ms: Option<f64>, strategy: LoadStrategy) -> (u64, u64, u64, u64, u64) {
    let tally = run(&lost_ack_scenario(key_ttl_ms), strategy, &[0.0]);
    let c = tally.counts;
    assert_eq!(
        (c.attempts, c.calls, c.lost_answers, c.timeouts),
        (2, 2, 1, 1)
    );
    (
        c.charges,
        c.double_charges,
        c.replays,
        c.succeeded,
        c.expired_key_charges,
    )
}

#[test]
fn without_a_ttl_the_retry_after_a_lost_ack_is_replayed() {
    for strategy in [
        LoadStrategy::UniqueKey,
        LoadStrategy::LockWait,
        LoadStrategy::CheckThenInsert,
    ] {
        assert_eq!(lost_ack(None, strategy), (1, 0, 1, 1, 0), "{strategy:?}");
    }
}

/// A 500 ms TTL (shorter than the timeout): the key created at 10 (or 110) ms is pruned when
/// the retry meets it at 1,010 ms, and the retry is charged again.
#[test]
fn a_ttl_shorter_than_the_timeout_charges_the_retry_after_a_lost_ack_again() {
    for strategy in [
        LoadStrategy::UniqueKey,
        LoadStrategy::LockWait,
        LoadStrategy::CheckThenInsert,
    ] {
        assert_eq!(
            lost_ack(Some(500.0), strategy),
            (2, 1, 0, 1, 1),
            "{strategy:?}"
        );
    }
}

/// The TTL counts from the key's creation, and a key met at exactly creation + TTL is gone:
/// `unique_key`'s key (created at 10 ms) is pruned when the retry meets it at 1,010 with a
/// 1,000 ms TTL, kept with 1,000.5 ms; `check_then_insert`'s (created at 110 ms) is pruned at
/// 1,010 with 900 ms or less, kept with 900.5 ms or more.
#[test]
fn the_ttl_counts_from_the_keys_creation_and_ends_at_creation_plus_ttl() {
    let unique = LoadStrategy::UniqueKey;
    let check = LoadStrategy::CheckThenInsert;
    assert_eq!(lost_ack(Some(1_000.0), unique), (2, 1, 0, 1, 1));
    assert_eq!(lost_ack(Some(1_000.5), unique), (1, 0, 1, 1, 0));
    assert_eq!(lost_ack(Some(950.0), check), (1, 0, 1, 1, 0));
    assert_eq!(lost_ack(Some(900.0), check), (2, 1, 0, 1, 1));
    assert_eq!(lost_ack(Some(899.5), check), (2, 1, 0, 1, 1));
    assert_eq!(lost_ack(Some(900.5), check), (1, 0, 1, 1, 0));
}

/// `lock_wait`: a waiter meets the key when the processing it waits for ends. Two workers,
/// 300 ms processing, 150 ms timeout: attempt 0 reaches at 10 and holds the key (created at
/// 10) until 310; the retry reaches at 160 and waits for the lock. With a 250 ms TTL the key
/// stored at 310 is already 300 ms old: the waiter processes again (310-610, a second charge).
/// With 400 ms it gets the stored success.
#[test]
fn a_lock_waiter_meets_the_key_when_the_lock_is_released() {
    let mut scenario = conflict_scenario();
    scenario.client.max_retries = 1;
    scenario.server.key_ttl_ms = Some(250.0);
    let pruned = run(&scenario, LoadStrategy::LockWait, &[0.0]).counts;
    assert_eq!(
        (pruned.lock_waits, pruned.charges, pruned.replays),
        (1, 2, 0)
    );
    assert_eq!((pruned.double_charges, pruned.expired_key_charges), (1, 1));
    scenario.server.key_ttl_ms = Some(400.0);
    let kept = run(&scenario, LoadStrategy::LockWait, &[0.0]).counts;
    assert_eq!((kept.lock_waits, kept.charges, kept.replays), (1, 1, 1));
    assert_eq!(kept.expired_key_charges, 0);
}

/// `unique_key` with a key that expires in flight: two workers, 300 ms processing, 150 ms
/// timeout, 100 ms TTL. Attempt 0 reaches at 10 (key created) and is processed 10-310; the
/// retry reaches at 160, finds the key (in flight, 150 ms old) pruned, gets no 409 and is
/// processed 160-460 alongside. Two charges; only the retry's counts as an expired-key charge
/// (the first processing started before the key was pruned).
#[test]
fn a_key_pruned_in_flight_lets_the_retry_process_alongside() {
    let mut scenario = conflict_scenario();
    scenario.client.max_retries = 1;
    scenario.server.key_ttl_ms = Some(100.0);
    let counts = run(&scenario, LoadStrategy::UniqueKey, &[0.0]).counts;
    assert_eq!((counts.conflicts, counts.processings), (0, 2));
    assert_eq!((counts.charges, counts.double_charges), (2, 1));
    assert_eq!(counts.expired_key_charges, 1);
    scenario.server.key_ttl_ms = None;
    let kept = run(&scenario, LoadStrategy::UniqueKey, &[0.0]).counts;
    assert_eq!(
        (kept.conflicts, kept.charges, kept.expired_key_charges),
        (1, 1, 0)
    );
}

/// `duplicate_answer = "conflict_409"` in the lost-ACK case: the retry meets the stored key
/// at 1,010 ms and gets 409 instead of the replay; with no retry left the client gives up,
/// charged but told it failed. With a 500 ms TTL the key is gone by then: the retry is
/// charged again and succeeds.
#[test]
fn conflict_409_answers_the_retry_of_a_stored_key_with_409() {
    for strategy in [
        LoadStrategy::UniqueKey,
        LoadStrategy::LockWait,
        LoadStrategy::CheckThenInsert,
    ] {
        let mut scenario = lost_ack_scenario(None);
        scenario.server.duplicate_answer = DuplicateAnswer::Conflict409;
        let c = run(&scenario, strategy, &[0.0]).counts;
        assert_eq!(
            (c.charges, c.conflicts, c.replays),
            (1, 1, 0),
            "{strategy:?}"
        );
        assert_eq!((c.succeeded, c.failed_charged), (0, 1), "{strategy:?}");
        scenario.server.key_ttl_ms = Some(500.0);
        let c = run(&scenario, strategy, &[0.0]).counts;
        assert_eq!(
            (c.charges, c.conflicts, c.replays),
            (2, 0, 0),
            "{strategy:?}"
        );
        assert_eq!((c.succeeded, c.double_charges), (1, 1), "{strategy:?}");
    }
}

/// `lock_wait` with `conflict_409`: the waiter of the lock-waiter case (key kept, 400 ms TTL)
/// gets 409 when the lock is released at 310 instead of the stored success.
#[test]
fn conflict_409_answers_a_lock_waiter_with_409() {
    let mut scenario = conflict_scenario();
    scenario.client.max_retries = 1;
    scenario.server.key_ttl_ms = Some(400.0);
    scenario.server.duplicate_answer = DuplicateAnswer::Conflict409;
    let c = run(&scenario, LoadStrategy::LockWait, &[0.0]).counts;
    assert_eq!(
        (c.lock_waits, c.charges, c.replays, c.conflicts),
        (1, 1, 0, 1)
    );
}

/// A run of `duration_ms` of `scenario`, arrivals drawn from the seeded stream (no script).
fn run_for(scenario: &LoadScenario, duration_ms: f64) -> LoadTally {
    let mut scenario = scenario.clone();
    scenario.arrivals.duration_ms = duration_ms;
    scenario.arrivals.phases.last_mut().unwrap().until_ms = duration_ms;
    let stream = |n| SeedSequence::new(n).pcg64();
    Simulation::new(&scenario, LoadStrategy::None, 1_000.0, stream(1), stream(2))
        .run(&Silent)
        .unwrap()
}

/// Memory is bounded by what is in flight, not by the payments issued: ten times as long a
/// run reuses the same payment slots. `steady` is 80 payments/s on 8 workers of 50 ms (load
/// 0.5); `collapsed` is the same server at 200 payments/s (load 1.25) with a queue of at most
/// 400: a wait of 400 / (8 / 50 ms) = 2.5 s, longer than the 1 s timeout, so nearly every
/// processing is for a client that has stopped waiting (under 5% of payments succeed) and the
/// run never recovers, its queue full to the end (a metastable collapse in bounded memory).
/// Slots are held by the requests in the queue (400), on the workers (8), on the wire and in
/// the clients' retries: a few per ms of delay at most, so the bound is the same for both
/// durations.
#[test]
fn a_long_run_reuses_payment_slots_even_in_a_collapse() {
    let mut steady = scenario();
    steady.server.workers = Some(8);
    steady.server.processing = Distribution::Exponential { mean_ms: 50.0 };
    steady.arrivals.phases[0].rate = PhaseRate::Constant(80.0);
    let mut collapsed = steady.clone();
    collapsed.arrivals.phases[0].rate = PhaseRate::Constant(200.0);
    collapsed.server.queue_limit = Some(400);
    for (name, scenario, bound) in [("steady", &steady, 100), ("collapsed", &collapsed, 2_000)] {
        let short = run_for(scenario, 20_000.0);
        let long = run_for(scenario, 200_000.0);
        assert!(
            long.counts.payments > 9 * short.counts.payments,
            "{name}: {} and {} payments",
            short.counts.payments,
            long.counts.payments
        );
        for tally in [&short, &long] {
            assert!(
                tally.payment_slots <= bound,
                "{name}: {} slots for {} payments",
                tally.payment_slots,
                tally.counts.payments
            );
        }
    }
    let collapse = run_for(&collapsed, 200_000.0);
    assert!(
        collapse.counts.succeeded * 20 < collapse.counts.payments,
        "{:?} {}",
        collapse.counts,
        collapse.queue.quantile(0.5)
    );
    assert!(collapse.queue.quantile(0.5) > 390, "the queue stays full");
}

/// The drain adds buckets while the server works, but at most [`MAX_BUCKETS`] in all: one
/// payment whose processing takes 10^8 ms (its client gave up at 1,000 ms) keeps the server
/// busy until 10^8 + 10 ms and its answer arrives at 10^8 + 20 ms, which would be 1,000,001
/// buckets of 100 ms. The series stops at 10^6 buckets (the first 10^8 ms); the totals and
/// the end of the run count the whole drain.
#[test]
fn the_drain_stops_the_time_series_at_its_bucket_limit() {
    let mut long = scenario();
    long.server.processing = Distribution::Fixed { ms: 1e8 };
    long.client.max_retries = 0;
    let tally = run(&long, LoadStrategy::None, &[0.0]);
    assert_eq!(tally.buckets.len(), MAX_BUCKETS);
    assert_eq!(MAX_BUCKETS, 1_000_000);
    assert_eq!(tally.end_ms, 1e8 + 20.0);
    let counts = tally.counts;
    assert_eq!((counts.processings, counts.charges), (1, 1));
    assert_eq!(
        (counts.timeouts, counts.failed, counts.failed_charged),
        (1, 1, 1)
    );
    // The worker was busy from 10 ms on: every bucket but the first is all busy.
    assert!((tally.buckets[0].workers_busy - 0.9).abs() < 1e-12);
    assert_eq!(tally.buckets[MAX_BUCKETS - 1].workers_busy, 1.0);
    // The histograms cover the whole run: one request in the server for 10^8 ms.
    assert_eq!(tally.in_flight.max(), 1);
    assert!((tally.in_flight.mean() - 1e8 / (1e8 + 20.0)).abs() < 1e-9);
}

/// `a` within 0.1% (the histograms' 3 significant digits) above `b`.
fn near(a: Option<f64>, b: f64) {
    let a = a.unwrap();
    assert!(a >= b && a <= b * 1.001 + 0.001, "{a} vs {b}");
}

/// The two payments of one worker, in the steady-state view over the 10 s arrival window: A
/// waits 0 ms and is in the server 10-110, B waits 20-110 and is in the server 20-210; their
/// latencies are 120 and 210 ms; the worker is busy 200 ms of 10,000 (0.02); in the system one
/// request 10-20 and 110-210, two 20-110: 10 + 180 + 100 = 290 request·ms (0.029). With a
/// 15 ms warm-up only B's delivery (reached at 20) is observed and no payment (both arrived
/// before 15), and the worker is busy 195 of 9,985 ms.
#[test]
fn the_steady_state_columns_of_two_payments_and_one_worker() {
    let steady = run(&scenario(), LoadStrategy::None, &[0.0, 10.0]).steady;
    assert_eq!((steady.steady_payments, steady.steady_deliveries), (2, 2));
    assert_eq!(steady.delayed_share, Some(0.5));
    assert_eq!(steady.utilisation, Some(0.02));
    assert!((steady.mean_in_system.unwrap() - 0.029).abs() < 1e-15);
    assert_eq!(steady.wait_mean_ms, Some(45.0));
    assert_eq!(steady.wait_p50_ms, Some(0.0));
    near(steady.wait_p90_ms, 90.0);
    assert_eq!(steady.in_server_mean_ms, Some(145.0));
    near(steady.in_server_p50_ms, 100.0);
    near(steady.in_server_p99_ms, 190.0);
    assert_eq!(steady.latency_mean_ms, Some(165.0));
    near(steady.latency_p50_ms, 120.0);
    near(steady.latency_p90_ms, 210.0);

    let stream = || SeedSequence::new(1).pcg64();
    let late = Simulation::new(&scenario(), LoadStrategy::None, 100.0, stream(), stream())
        .with_arrival_times(&[0.0, 10.0])
        .with_warm_up_ms(15.0)
        .run(&Silent)
        .unwrap();
    let steady = late.steady;
    assert_eq!((steady.steady_payments, steady.steady_deliveries), (0, 1));
    assert_eq!(steady.delayed_share, Some(1.0));
    assert_eq!(steady.wait_mean_ms, Some(90.0));
    assert_eq!(steady.in_server_mean_ms, Some(190.0));
    assert_eq!(steady.latency_mean_ms, None);
    assert_eq!(steady.utilisation, Some(195.0 / 9_985.0));
    // The counts do not depend on the warm-up.
    assert_eq!(
        late.counts,
        run(&scenario(), LoadStrategy::None, &[0.0, 10.0]).counts
    );
}

/// A lock waiter is in the server until the lock it waits for is released: one payment on two
/// workers, 300 ms processing, a 150 ms timeout and one retry. Attempt 0 reaches at 10 and is
/// processed 10-310; the retry reaches at 160, takes the free worker and waits for the lock
/// until 310, then gets the stored success; but its client timed out at 300 and gave up
/// (latency 300 ms). In the server 300 and 150 ms, no wait in the queue; the workers busy 300
/// + 150 worker·ms of 2 × 10,000.
#[test]
fn a_lock_waiter_is_in_the_server_until_the_lock_is_released() {
    let mut scenario = conflict_scenario();
    scenario.client.max_retries = 1;
    let tally = run(&scenario, LoadStrategy::LockWait, &[0.0]);
    assert_eq!((tally.counts.lock_waits, tally.counts.failed), (1, 1));
    let steady = tally.steady;
    assert_eq!(steady.steady_deliveries, 2);
    assert_eq!(steady.delayed_share, Some(0.0));
    assert_eq!(steady.wait_mean_ms, Some(0.0));
    assert_eq!(steady.in_server_mean_ms, Some(225.0));
    assert_eq!(steady.utilisation, Some(450.0 / 20_000.0));
    assert_eq!(steady.latency_mean_ms, Some(300.0));
}

/// The load model of a load file's `text`.
fn load_model(text: &str) -> LoadModel {
    let overrides = crate::config::Overrides::default();
    match crate::config::Job::from_text(text, std::path::Path::new("t.toml"), &overrides) {
        Ok(crate::config::Job::Load(config)) => config.model,
        other => panic!("not a load file: {other:?}"),
    }
}

/// A run without a trigger (no capacity window, no outage, one phase) has nothing to recover
/// from: every run reads recovered at 0 s, at a load of 0.5 and in an overload alike.
#[test]
fn a_steady_run_without_a_trigger_always_reads_recovered() {
    for rate in [10.0, 40.0] {
        let mut steady = scenario();
        steady.arrivals.phases[0].rate = PhaseRate::Constant(rate);
        let model = LoadModel {
            title: "steady".into(),
            seed: 5,
            runs: 3,
            strategies: vec![LoadStrategy::None, LoadStrategy::UniqueKey],
            scenarios: vec![steady],
            bucket_ms: 1_000.0,
            warm_up_ms: 0.0,
            recovery_window_ms: 5_000.0,
        };
        let results = simulate(&model, 1, &Silent).unwrap();
        assert_eq!(results.rows.len(), 6);
        for row in &results.rows {
            assert!(!row.tally.has_trigger);
            assert_eq!(row.tally.recovered_at_ms, Some(0.0), "{rate}/s");
        }
    }
}

/// Brooker's collapse (`configs/brooker-collapse.toml`) with a spike strong enough to tip
/// every run (85/s from 20 s to 26 s instead of 80/s to 25 s, arrivals until 60 s, 8 runs):
/// without backoff the retries keep the server collapsed, no run recovers; with backoff and
/// jitter the same spike passes, most runs recover (so the check can see a recovery).
#[test]
fn brookers_collapse_without_backoff_never_recovers() {
    let text = "model = \"timeline\"\nseed = 2023\nruns = 8\nstrategies = [\"none\"]\n\
        [arrivals]\nduration_s = 60.0\nphases = [{ until_s = 20.0, rate_per_s = 40.0 }, \
        { until_s = 26.0, rate_per_s = 85.0 }, { until_s = 60.0, rate_per_s = 40.0 }]\n\
        [network]\n\
        request_latency = { distribution = \"exponential\", mean_ms = 100.0 }\n\
        response_latency = { distribution = \"exponential\", mean_ms = 100.0 }\n\
        [server]\nprocessing = { distribution = \"fixed\", ms = 1000.0 }\n\
        processing_per_in_flight_ms = 10.0\n\
        [client]\ntimeout_ms = 3000.0\nmax_retries = 2\n[output]\nbucket_s = 1.0\n\
        [[scenario]]\nname = \"no_backoff\"\nclient = { backoff = { policy = \"none\" } }\n\
        [[scenario]]\nname = \"backoff_and_jitter\"\nclient = { backoff = { policy = \
        \"full_jitter\", base_ms = 20000.0, cap_ms = 40000.0 } }\n";
    let results = simulate(&load_model(text), 2, &Silent).unwrap();
    let recovered = |scenario: usize| {
        let runs: Vec<_> = results
            .rows
            .iter()
            .filter(|row| row.scenario == scenario)
            .collect();
        assert_eq!(runs.len(), 8);
        assert!(runs.iter().all(|row| row.tally.has_trigger));
        runs.iter().filter(|row| row.tally.recovered()).count()
    };
    assert_eq!(recovered(0), 0, "no_backoff");
    assert!(recovered(1) >= 6, "backoff_and_jitter: {}", recovered(1));
}

/// Envoy's budget in the event loop, worked by hand: one client, 1.5 s processing against a
/// 1 s timeout (every attempt times out), no backoff, a budget of 0% with at least 1 active
/// retry. A at 0 ms times out at 1,000: nothing active, its retry goes out (1 active until it
/// times out at 2,000). B at 500 ms times out at 1,500 while A's retry is active: refused, B
/// gives up. A's retries at 2,000 and 3,000 each find the previous one ended: allowed; its
/// third times out at 4,000 and it gives up. 5 attempts, 3 retries, 1 refused, none answered
/// in time.
#[test]
fn envoy_budget_in_the_loop_counts_a_retry_until_its_attempt_ends() {
    let mut scenario = scenario();
    scenario.arrivals.clients = Some(1);
    scenario.server.processing = Distribution::Fixed { ms: 1_500.0 };
    scenario.client.controls.concurrent_retry_budget = Some(ConcurrentRetryBudget {
        budget_percent: 0.0,
        min_retry_concurrency: 1,
    });
    let counts = run(&scenario, LoadStrategy::None, &[0.0, 500.0]).counts;
    assert_eq!(
        (counts.payments, counts.succeeded, counts.failed),
        (2, 0, 2)
    );
    assert_eq!(
        (counts.attempts, counts.retries, counts.throttled),
        (5, 3, 1)
    );
}

/// gRPC's throttling in the event loop: 2 tokens, ratio 1, threshold 1. A at 0 ms times out
/// at 1,000 (1.5 s processing): its failure takes the tokens to 1, not above 1, so its retry
/// is refused; it gives up after one attempt.
#[test]
fn grpc_throttling_in_the_loop_counts_the_failure_before_the_retry() {
    let mut scenario = scenario();
    scenario.arrivals.clients = Some(1);
    scenario.server.processing = Distribution::Fixed { ms: 1_500.0 };
    scenario.client.controls.retry_throttling = Some(RetryThrottling {
        max_tokens: 2.0,
        token_ratio: 1.0,
    });
    let counts = run(&scenario, LoadStrategy::None, &[0.0]).counts;
    assert_eq!(
        (
            counts.attempts,
            counts.retries,
            counts.throttled,
            counts.failed
        ),
        (1, 0, 1, 1)
    );
}

/// The SRE adaptive throttling in the event loop: one client, no retries, 20 payments 100 ms
/// apart against 1.5 s processing, so no answer comes back in time and there is never an
/// accept. The first attempt goes out (0 requests: probability 0); the k-th is rejected with
/// probability (k - 1) / k, so some are (all 19 passing has probability 1/20), and a rejected
/// one is never sent: attempts and rejections add up to the payments, every payment fails.
#[test]
fn adaptive_throttling_in_the_loop_rejects_attempts_before_they_are_sent() {
    let mut scenario = scenario();
    scenario.arrivals.clients = Some(1);
    scenario.server.processing = Distribution::Fixed { ms: 1_500.0 };
    scenario.client.max_retries = 0;
    scenario.client.controls.adaptive_throttling = Some(AdaptiveThrottling {
        k: 2.0,
        window_ms: 120_000.0,
    });
    let arrivals: Vec<f64> = (0..20).map(|i| f64::from(i) * 100.0).collect();
    let counts = run(&scenario, LoadStrategy::None, &arrivals).counts;
    assert_eq!((counts.payments, counts.failed), (20, 20));
    assert_eq!(counts.attempts + counts.throttled, 20);
    assert!(counts.throttled > 0 && counts.attempts >= 1, "{counts:?}");
    assert_eq!(counts.calls, counts.attempts);
}

/// A webhook receiver's answers to a duplicate whose key is in flight, under `unique_key`
/// (the conflict scenario's timings, one payment): the first delivery is processed 10-310;
/// the client times out at 150 and its retry is taken at 160 by the second worker, the key
/// in flight. `ok_200` acknowledges it (received at 170: the payment succeeded, charged at
/// 310); `error_500` and the Idempotency-Key's 409 make the client retry at once, reaching at
/// 180 with the key still in flight; answered again, it has no retry left and gives up at
/// 190, charged and told it failed.
#[test]
fn a_receivers_duplicate_answer_decides_what_a_retry_of_a_key_in_flight_hears() {
    for (answer, replays, conflicts, succeeded, attempts) in [
        (DuplicateAnswer::Ok200, 1, 0, 1, 2),
        (DuplicateAnswer::Error500, 2, 0, 0, 3),
        (DuplicateAnswer::Replay, 0, 2, 0, 3),
        (DuplicateAnswer::Conflict409, 0, 2, 0, 3),
    ] {
        let mut scenario = conflict_scenario();
        scenario.server.duplicate_answer = answer;
        let c = run(&scenario, LoadStrategy::UniqueKey, &[0.0]).counts;
        assert_eq!(
            (c.charges, c.replays, c.conflicts, c.succeeded),
            (1, replays, conflicts, succeeded),
            "{answer:?}"
        );
        assert_eq!(c.failed_charged, 1 - succeeded, "{answer:?}");
        assert_eq!(c.attempts, attempts, "{answer:?}");
    }
}
