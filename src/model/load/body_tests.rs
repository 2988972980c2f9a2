//! Retries with another body under the same key on the shared clock, worked by hand (issue
//! #30): the fingerprint's 422 against the replay of another body's success. Every expected
//! count follows from the fixed latencies in the comments, not from the code.

use super::tests::{run, scenario};
use super::*;
use engine::distribution::Distribution;

/// One payment at 0 ms: 10 ms each way, 1,500 ms processing, a 1,000 ms timeout, retries sent
/// at once, every retry with another body (`different_body_rate = 1`), `workers` workers and
/// a fingerprint or not.
fn body_scenario(workers: u32, fingerprint: bool) -> LoadScenario {
    let mut scenario = scenario();
    scenario.server.workers = Some(workers);
    scenario.server.processing = Distribution::Fixed { ms: 1_500.0 };
    scenario.server.fingerprint = fingerprint;
    scenario.client.different_body_rate = 1.0;
    scenario
}

/// The first delivery reaches the server at 10 and processes until 1,510; its client times
/// out at 1,000 and retries with another body, which reaches at 1,010 and queues behind it.
/// At 1,510 the first charges and stores its key (its answer, at 1,520, is for an attempt the
/// client no longer waits for); the worker then takes the retry, whose body differs from the
/// key's: 422 at once, received at 1,520, and the client gives up, charged and told it failed.
#[test]
fn a_fingerprint_answers_another_body_422_and_the_client_gives_up() {
    let tally = run(&body_scenario(1, true), LoadStrategy::UniqueKey, &[0.0]);
    let counts = tally.counts;
    assert_eq!((counts.charges, counts.replays), (1, 0));
    assert_eq!(tally.bodies.rejected_mismatches, 1);
    assert_eq!(
        (counts.succeeded, counts.failed, counts.failed_charged),
        (0, 1, 1)
    );
    assert_eq!(counts.attempts, 2);
    assert_eq!(
        (
            tally.bodies.wrong_replays,
            tally.bodies.told_succeeded_not_charged
        ),
        (0, 0)
    );
}

/// The same payment without a fingerprint: at 1,510 the retry gets the stored success of the
/// first body, received at 1,520: the client is told its other body succeeded, which nothing
/// charged.
#[test]
fn without_a_fingerprint_another_body_gets_the_first_ones_success() {
    let tally = run(&body_scenario(1, false), LoadStrategy::UniqueKey, &[0.0]);
    let counts = tally.counts;
    assert_eq!((counts.charges, counts.replays), (1, 1));
    assert_eq!((counts.succeeded, counts.failed), (1, 0));
    let bodies = tally.bodies;
    assert_eq!(bodies.rejected_mismatches, 0);
    assert_eq!(
        (bodies.wrong_replays, bodies.told_succeeded_not_charged),
        (1, 1)
    );
}

/// Two workers: the retry is taken at 1,010 while the first delivery's key is in flight. With
/// a fingerprint it gets 422 there and then (not the 409 of a key in flight), received at
/// 1,020; `lock_wait` answers it the same, rather than holding a worker until 1,510.
#[test]
fn a_fingerprint_rejects_another_body_while_the_key_is_in_flight() {
    for strategy in [LoadStrategy::UniqueKey, LoadStrategy::LockWait] {
        let tally = run(&body_scenario(2, true), strategy, &[0.0]);
        let counts = tally.counts;
        assert_eq!(tally.bodies.rejected_mismatches, 1, "{strategy:?}");
        assert_eq!(
            (counts.conflicts, counts.lock_waits, counts.charges),
            (0, 0, 1),
            "{strategy:?}"
        );
        assert_eq!(
            (counts.failed, counts.failed_charged),
            (1, 1),
            "{strategy:?}"
        );
    }
}

/// Without a fingerprint, under `unique_key`, the key in flight answers every retry 409: the
/// retries reach at 1,010, 1,030 and 1,050 (each sent as the previous 409 is received), and
/// after the third the client gives up at 1,060; the first delivery charges at 1,510.
#[test]
fn without_a_fingerprint_the_key_in_flight_answers_as_for_the_same_body() {
    let tally = run(&body_scenario(2, false), LoadStrategy::UniqueKey, &[0.0]);
    let counts = tally.counts;
    assert_eq!(
        (counts.conflicts, counts.attempts, counts.charges),
        (3, 4, 1)
    );
    assert_eq!((counts.failed, counts.failed_charged), (1, 1));
    assert_eq!(tally.bodies, tally::BodyCounts::default());
}

/// `check_then_insert` without a fingerprint: no key before 1,510, so the first retry (sent
/// at 1,000, taken at 1,010 by the second worker) processes its other body until 2,510. At
/// 1,510 the first body charges and stores the key. The client times out at 2,000 and sends
/// a second retry, another body again, taken at 2,010: the key holds the first body's
/// success, replayed, received at 2,020: the client is told a body succeeded that nothing
/// charged. At 2,510 the first retry charges: two charges.
#[test]
fn check_then_insert_charges_another_body_and_replays_the_first_ones_success() {
    let tally = run(
        &body_scenario(2, false),
        LoadStrategy::CheckThenInsert,
        &[0.0],
    );
    let counts = tally.counts;
    assert_eq!((counts.charges, counts.double_charges), (2, 1));
    assert_eq!((counts.attempts, counts.succeeded), (3, 1));
    assert_eq!(
        (
            tally.bodies.wrong_replays,
            tally.bodies.told_succeeded_not_charged
        ),
        (1, 1)
    );
}
