//! The key store on the shared clock, worked by hand (issue #30): a `key_first` lock that
//! expires while its request waits in the queue, and the key store down with the server
//! failing open or closed. Every expected count follows from the fixed latencies in the
//! comments, not from the code.

use super::tests::{run, scenario};
use super::*;
use crate::model::semantics::{KeyServer, KeyStore, KeyStoreOutages, OnUnavailable};
use engine::distribution::Distribution;

/// One worker, 1,000 ms processing, 10 ms each way, a 1,500 ms timeout and one retry sent at
/// once, the key in `store` with a 1,200 ms lock.
fn lock_scenario(store: KeyStore) -> LoadScenario {
    let mut scenario = scenario();
    scenario.server.processing = Distribution::Fixed { ms: 1_000.0 };
    scenario.client.timeout_ms = 1_500.0;
    scenario.client.max_retries = 1;
    scenario.server.key_server = KeyServer {
        key_store: store,
        key_lock_ttl_ms: 1_200.0,
        ..KeyServer::default()
    };
    scenario
}

/// A and B arrive at 0 ms and reach the server at 10. A takes the worker (10 to 1,010 ms,
/// answered at 1,020: a success). B reserves its key at 10 (the lock holds until 1,210) and
/// waits for the worker until 1,010, then processes until 2,010. B's client times out at
/// 1,500 and retries at once; the retry reaches at 1,510, after the lock expired: it reserves
/// the key again and queues behind B's first delivery. At 2,010 the first delivery charges
/// (its answer is for an attempt the client no longer waits for); the retry takes the worker
/// and charges again at 3,010, after its client gave up at 3,000 (1,500 + 1,500). So three
/// charges, B charged twice and told it failed.
#[test]
fn a_lock_that_expires_while_its_request_waits_in_the_queue_charges_twice() {
    let tally = run(
        &lock_scenario(KeyStore::KeyFirst),
        LoadStrategy::UniqueKey,
        &[0.0, 0.0],
    );
    let counts = tally.counts;
    assert_eq!((counts.charges, counts.double_charges), (3, 1));
    assert_eq!(tally.key_store.lock_expiries, 1);
    assert_eq!(
        (counts.succeeded, counts.failed, counts.failed_charged),
        (1, 1, 1)
    );
    assert_eq!((counts.conflicts, counts.wasted_work), (0, 2));
}

/// The same arrivals with a lock that outlasts the queue (30 s): B's retry at 1,510 finds the
/// key held and gets a 409 at once (answered at 1,520), and B gives up then; its first
/// delivery charges once at 2,010.
#[test]
fn a_lock_longer_than_the_queue_answers_409_and_charges_once() {
    let mut scenario = lock_scenario(KeyStore::KeyFirst);
    scenario.server.key_server.key_lock_ttl_ms = 30_000.0;
    let tally = run(&scenario, LoadStrategy::UniqueKey, &[0.0, 0.0]);
    let counts = tally.counts;
    assert_eq!((counts.charges, counts.double_charges), (2, 0));
    assert_eq!((counts.conflicts, tally.key_store.lock_expiries), (1, 0));
    assert_eq!((counts.failed, counts.failed_charged), (1, 1));
}

/// The key in the charge's transaction, checked by the worker: B's first delivery marks it in
/// flight at 1,010 and completes it at 2,010; the retry, queued since 1,510, is taken at 2,010
/// and gets the replay, answered at 2,020, before its client's timeout at 3,000: B succeeds.
/// One charge each.
#[test]
fn the_same_wait_with_the_key_in_the_transaction_charges_once() {
    let tally = run(
        &lock_scenario(KeyStore::SameTransaction),
        LoadStrategy::UniqueKey,
        &[0.0, 0.0],
    );
    let counts = tally.counts;
    assert_eq!((counts.charges, counts.double_charges), (2, 0));
    assert_eq!((counts.replays, counts.succeeded, counts.failed), (1, 2, 0));
    assert_eq!(tally.key_store.lock_expiries, 0);
}

/// Unlimited workers, 100 ms processing, 10 ms each way, a 50 ms timeout and one retry at
/// once, the key written to Redis after the commit (`separate_store`), Redis down from 0 to
/// 100 ms.
fn outage_scenario(on_unavailable: OnUnavailable) -> LoadScenario {
    let mut scenario = scenario();
    scenario.server.workers = None;
    scenario.client.timeout_ms = 50.0;
    scenario.client.max_retries = 1;
    scenario.server.key_server.key_store = KeyStore::SeparateStore;
    scenario.server.key_store_outages = KeyStoreOutages {
        windows: vec![(0.0, 100.0)],
        on_unavailable,
    };
    scenario
}

/// Fail open: the first delivery reaches at 10 ms with Redis down, is processed without its
/// key and charges at 110, when Redis is back: its key is written. The client timed out at
/// 50 and retried; the retry reached at 60, Redis still down, and was processed without the
/// key too: a second charge at 160 (its answer, at 170, comes after its client gave up at
/// 100). Two unkeyed processings, no failed write, a double charge.
#[test]
fn a_fail_open_outage_processes_the_retry_without_its_key() {
    let tally = run(
        &outage_scenario(OnUnavailable::FailOpen),
        LoadStrategy::UniqueKey,
        &[0.0],
    );
    let counts = tally.counts;
    assert_eq!((counts.charges, counts.double_charges), (2, 1));
    assert_eq!(tally.key_store.unkeyed_processings, 2);
    assert_eq!(
        (
            tally.key_store.key_write_failures,
            tally.key_store.keys_lost
        ),
        (0, 0)
    );
    assert_eq!((counts.failed, counts.failed_charged), (1, 1));
}

/// Fail closed: the first delivery gets a 503 at 10 ms (answered at 20), the retry sent at
/// once reaches at 30 and gets a 503 too (answered at 40), and the client gives up: nothing
/// charged, the payment lost.
#[test]
fn a_fail_closed_outage_answers_503_and_charges_nothing() {
    let tally = run(
        &outage_scenario(OnUnavailable::FailClosed),
        LoadStrategy::UniqueKey,
        &[0.0],
    );
    let counts = tally.counts;
    assert_eq!(counts.charges, 0);
    assert_eq!(tally.key_store.key_store_unavailable, 2);
    assert_eq!((counts.succeeded, counts.failed), (0, 1));
    assert_eq!(counts.processings, 0);
}

/// No outage: the first delivery is processed 10 to 110 ms, the retry reaching at 60 finds
/// the key in flight and gets a 409; one charge.
#[test]
fn without_the_outage_the_retry_meets_its_key() {
    let mut scenario = outage_scenario(OnUnavailable::FailOpen);
    scenario.server.key_store_outages = KeyStoreOutages::default();
    let tally = run(&scenario, LoadStrategy::UniqueKey, &[0.0]);
    assert_eq!((tally.counts.charges, tally.counts.conflicts), (1, 1));
}

/// `key_first` with Redis going down at 15 ms (until 1 s), failing closed; one worker, 100 ms
/// processing, no retry. A reaches at 10 with Redis up: it reserves its key and takes the
/// worker; B reaches at 20, Redis down: its reservation fails and it gets a 503 there and then,
/// without waiting for the busy worker. A charges at 110, but its key's completion write fails
/// (Redis still down): the key is lost and its reservation stays in flight until the lock
/// expires (30 s). A still gets its success.
#[test]
fn a_key_first_outage_answers_before_the_queue_and_strands_the_lock() {
    let mut scenario = scenario();
    scenario.client.max_retries = 0;
    scenario.server.key_server.key_store = KeyStore::KeyFirst;
    scenario.server.key_store_outages = KeyStoreOutages {
        windows: vec![(15.0, 1_000.0)],
        on_unavailable: OnUnavailable::FailClosed,
    };
    let tally = run(&scenario, LoadStrategy::UniqueKey, &[0.0, 10.0]);
    let (counts, keys) = (tally.counts, tally.key_store);
    assert_eq!((counts.charges, counts.succeeded, counts.failed), (1, 1, 1));
    assert_eq!(keys.key_store_unavailable, 1);
    // Only A reached a worker; B never queued.
    assert_eq!((tally.dequeued, tally.queue_wait_ms), (1, 0.0));
    assert_eq!(
        (keys.key_write_failures, keys.keys_lost, keys.keys_abandoned),
        (1, 1, 1)
    );
}

/// One worker, 10 ms processing, 10 ms each way, the key in `store`, each key-store call
/// taking `latency_ms`.
fn latency_scenario(store: KeyStore, latency_ms: f64) -> LoadScenario {
    let mut scenario = scenario();
    scenario.server.processing = Distribution::Fixed { ms: 10.0 };
    scenario.server.key_server = KeyServer {
        key_store: store,
        key_store_latency: Some(Distribution::Fixed { ms: latency_ms }),
        ..KeyServer::default()
    };
    scenario
}

/// A and B are sent at 0 ms and reach the server at 10. With the key in another store
/// (check_then_insert), A's worker looks the key up (10 to 15), processes (15 to 25) and
/// writes the key (25 to 30): B starts service at 30, after a 20 ms wait. With `key_first`
/// under unique_key the reservation was made in front of the queue: A holds the worker for
/// the processing and the write, 15 ms, and B waits 15. In the charge's transaction, or
/// without a key, no call is made: B waits A's 10 ms processing.
#[test]
fn a_second_payment_waits_for_the_first_ones_key_store_calls() {
    let wait = |store, strategy| {
        let tally = run(&latency_scenario(store, 5.0), strategy, &[0.0, 0.0]);
        assert_eq!(tally.counts.charges, 2);
        (tally.dequeued, tally.queue_wait_ms)
    };
    let separate = wait(KeyStore::SeparateStore, LoadStrategy::CheckThenInsert);
    assert_eq!(separate, (2, 20.0));
    let unique = wait(KeyStore::SeparateStore, LoadStrategy::UniqueKey);
    assert_eq!(unique, (2, 20.0));
    assert_eq!(wait(KeyStore::KeyFirst, LoadStrategy::UniqueKey), (2, 15.0));
    // key_first under check_then_insert reserves nothing: a look-up and a write, as separate.
    let first = wait(KeyStore::KeyFirst, LoadStrategy::CheckThenInsert);
    assert_eq!(first, (2, 20.0));
    let same = wait(KeyStore::SameTransaction, LoadStrategy::CheckThenInsert);
    assert_eq!(same, (2, 10.0));
    assert_eq!(wait(KeyStore::SeparateStore, LoadStrategy::None), (2, 10.0));
}

/// Two workers, 100 ms processing, a 105 ms timeout and one retry sent at once
/// (check_then_insert, the key in another store). A is sent at 0 and reaches the server at
/// 10. Without latency its key is stored at 110; the retry, sent at 105, reaches at 115 and
/// gets the replay: one charge. With 10 ms per call A's worker looks up 10 to 20, processes
/// 20 to 120 and writes 120 to 130; the retry, on the other worker at 115, finds no key and
/// charges again (at 235): the look-up-to-insert window grew from 100 to 120 ms.
#[test]
fn key_store_latency_widens_the_look_up_to_insert_window() {
    let charges = |latency_ms| {
        let mut scenario = latency_scenario(KeyStore::SeparateStore, latency_ms);
        scenario.server.workers = Some(2);
        scenario.server.processing = Distribution::Fixed { ms: 100.0 };
        scenario.client.timeout_ms = 105.0;
        scenario.client.max_retries = 1;
        let tally = run(&scenario, LoadStrategy::CheckThenInsert, &[0.0]);
        (tally.counts.charges, tally.counts.double_charges)
    };
    assert_eq!(charges(0.0), (1, 0));
    assert_eq!(charges(10.0), (2, 1));
}

/// During an outage a fail-open processing makes no call to the store (it cannot reach it):
/// B waits only A's 10 ms processing.
#[test]
fn a_fail_open_processing_waits_for_no_key_store_call() {
    let mut scenario = latency_scenario(KeyStore::SeparateStore, 5.0);
    scenario.server.key_store_outages = KeyStoreOutages {
        windows: vec![(0.0, 1_000.0)],
        on_unavailable: OnUnavailable::FailOpen,
    };
    let tally = run(&scenario, LoadStrategy::CheckThenInsert, &[0.0, 0.0]);
    assert_eq!((tally.dequeued, tally.queue_wait_ms), (2, 10.0));
}

/// Two payments at 0 ms, one worker, 100 ms processing, 10 ms each way, every answer lost and
/// every key write failing, the key first in Redis with a 700 ms lock, a completer 200 ms
/// after each abandonment, one retry after a 1,000 ms timeout; the completer's work takes
/// `work_ms` of a worker (`None`: none).
fn completer_scenario(work_ms: Option<f64>) -> LoadScenario {
    let mut scenario = scenario();
    scenario.network.ack_loss = 1.0;
    scenario.client.max_retries = 1;
    scenario.server.key_server = KeyServer {
        key_store: KeyStore::KeyFirst,
        key_write_failure: 1.0,
        key_lock_ttl_ms: 700.0,
        completer_interval_ms: Some(200.0),
        completer_work: work_ms.map(|ms| Distribution::Fixed { ms }),
        ..KeyServer::default()
    };
    scenario
}

/// A and B reach the server at 10 and reserve their keys (locks until 710). A processes 10
/// to 110, B 110 to 210; each charges, fails to write its key and leaves it in flight. With
/// 250 ms of completer work: A's completer comes at 310 and works 310 to 560, completing A's
/// key before its lock expires; B's comes at 410, waits for the worker until 560 and ends at
/// 810, after B's lock expired at 710: too late (had it not waited, it would have ended at
/// 660, in time). At 1,010 A's retry gets the replay; B's finds the lock expired, reserves
/// again (lock until 1,710) and charges a second time (1,010 to 1,110), whose key the
/// completer completes at 1,560 (found 1,310, the worker free). Without the work both
/// completers finish at once (310 and 410) and both retries get the replay.
#[test]
fn a_completer_that_waits_for_a_worker_lets_a_lock_expire_and_a_retry_charge_again() {
    let tally = run(
        &completer_scenario(Some(250.0)),
        LoadStrategy::UniqueKey,
        &[0.0, 0.0],
    );
    let (counts, keys) = (tally.counts, tally.key_store);
    assert_eq!(
        (counts.charges, counts.double_charges, counts.replays),
        (3, 1, 1)
    );
    assert_eq!(
        (
            keys.keys_abandoned,
            keys.completer_recoveries,
            keys.lock_expiries
        ),
        (3, 2, 1)
    );
    assert_eq!((counts.failed, counts.failed_charged), (2, 2));
    let instant = run(
        &completer_scenario(None),
        LoadStrategy::UniqueKey,
        &[0.0, 0.0],
    );
    let (counts, keys) = (instant.counts, instant.key_store);
    assert_eq!(
        (counts.charges, counts.double_charges, counts.replays),
        (2, 0, 2)
    );
    assert_eq!(
        (
            keys.keys_abandoned,
            keys.completer_recoveries,
            keys.lock_expiries
        ),
        (2, 2, 0)
    );
}

/// The lock that expires while its request queues (above) with receipts that never fail to
/// send: A is charged once, B twice. Sent directly, each charge sends one: three receipts, B's
/// customer gets two. Through the outbox, each charge commits a row and the sender
/// deduplicates by the payment's key: one receipt per payment.
#[test]
fn receipts_follow_the_charges_directly_and_once_per_payment_through_the_outbox() {
    use crate::model::semantics::{ReceiptMode, Receipts};
    for (mode, sent, duplicated) in [(ReceiptMode::Direct, 3, 1), (ReceiptMode::Outbox, 2, 0)] {
        let mut scenario = lock_scenario(KeyStore::KeyFirst);
        scenario.server.receipts = Some(Receipts {
            mode,
            send_failure: 0.0,
            relay_work: None,
        });
        let tally = run(&scenario, LoadStrategy::UniqueKey, &[0.0, 0.0]);
        assert_eq!(tally.counts.charges, 3, "{mode:?}");
        let receipts = tally.receipts;
        assert_eq!(
            (
                receipts.receipts_sent,
                receipts.receipts_duplicated,
                receipts.receipts_missing
            ),
            (sent, duplicated, 0),
            "{mode:?}"
        );
    }
}

/// The outbox relay on the shared pool: one worker, 100 ms processing, 10 ms each way, the
/// relay's work on each row 300 ms. A (at 0 ms) is processed 10 to 110 and commits its row;
/// the relay's job takes the free worker at 110 and holds it until 410. B, arriving at 150,
/// reaches the server at 160 and waits for it: processed 410 to 510, answered at 520 (a
/// 370 ms latency instead of 120), and its own row's job holds the worker 510 to 810. Without
/// the relay's work B is processed at once.
#[test]
fn the_outbox_relay_takes_a_worker_from_the_payments() {
    use crate::model::semantics::{ReceiptMode, Receipts};
    let relay = |work_ms: Option<f64>| {
        let mut scenario = scenario();
        scenario.server.receipts = Some(Receipts {
            mode: ReceiptMode::Outbox,
            send_failure: 0.0,
            relay_work: work_ms.map(|ms| Distribution::Fixed { ms }),
        });
        run(&scenario, LoadStrategy::UniqueKey, &[0.0, 150.0])
    };
    let busy = relay(Some(300.0));
    assert_eq!((busy.counts.succeeded, busy.counts.charges), (2, 2));
    assert_eq!(busy.receipts.receipts_sent, 2);
    // B waited 250 ms for the worker, A none: 125 ms on average over the two.
    assert_eq!(busy.mean_queue_wait_ms(), 125.0);
    assert_eq!(busy.end_ms, 810.0);
    let free = relay(None);
    assert_eq!(free.mean_queue_wait_ms(), 0.0);
    assert_eq!(free.end_ms, 270.0);
}
