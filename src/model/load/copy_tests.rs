//! Copies of a payment under one key on the shared clock (double clicks, issue #30), worked
//! by hand. The first cases are the companion piece's experiment (10 requests with one key,
//! sequential and from 10 threads, a 10 ms processing window: charged 10 / 1 / 1 and
//! 10 / 4 / 1 times by none / check_then_insert / unique_key), the others what a worker pool
//! changes. Every expected count follows from the fixed latencies in the comments, not from
//! the code.

use super::tests::{run, scenario};
use super::*;
use crate::model::semantics::{Copies, CopyMode, CopySpacing};
use engine::backoff::Backoff;
use engine::distribution::Distribution;

/// The companion piece's payment: 10 copies 3 ms apart (a 27 ms spread, even) or one after
/// another, 1 ms each way, 10 ms processing, unlimited workers, a 1 s timeout, 5 retries 20 ms
/// after a 409.
fn burst(mode: CopyMode) -> LoadScenario {
    let mut scenario = scenario();
    scenario.arrivals.copies = Copies {
        count: 10,
        mode,
        spread_ms: 27.0,
        spacing: CopySpacing::Even,
    };
    scenario.network.request_latency = Distribution::Fixed { ms: 1.0 };
    scenario.network.response_latency = Distribution::Fixed { ms: 1.0 };
    scenario.server.workers = None;
    scenario.server.processing = Distribution::Fixed { ms: 10.0 };
    scenario.client.max_retries = 5;
    scenario.client.backoff = Backoff::Constant { base_ms: 20.0 };
    scenario
}

/// Sequential copies: each is sent when the previous one has its answer, by which time the
/// key holds the first one's success (stored at 11 ms): without a key each charges; with
/// one, only the first, and the nine others get its replay.
#[test]
fn sequential_copies_charge_ten_one_and_one_times() {
    let scenario = burst(CopyMode::Sequential);
    for (strategy, charges) in [
        (LoadStrategy::None, 10),
        (LoadStrategy::CheckThenInsert, 1),
        (LoadStrategy::UniqueKey, 1),
    ] {
        let counts = run(&scenario, strategy, &[0.0]).counts;
        assert_eq!(counts.charges, charges, "{strategy:?}");
        assert_eq!((counts.payments, counts.succeeded), (1, 1), "{strategy:?}");
        assert_eq!(counts.attempts, 10, "{strategy:?}");
        assert_eq!(
            counts.double_charges,
            u64::from(charges > 1),
            "{strategy:?}"
        );
    }
}

/// Concurrent copies reach the server at 1, 4, ..., 28 ms. `check_then_insert` looks the key
/// up as each is taken and inserts it when the first is done (11 ms): the copies reaching at
/// 1, 4, 7 and 10 find nothing and charge, the six after them get the replay. `unique_key`
/// reserves at 1: the copies reaching at 4, 7 and 10 meet it in flight and get 409 (received
/// 1 ms later) and ask again 20 ms later, when the key holds the success; the six reaching
/// from 13 on get the replay at once: 3 conflicts, 9 replays, 13 attempts.
#[test]
fn concurrent_copies_charge_ten_four_and_one_times() {
    let scenario = burst(CopyMode::Concurrent);
    let none = run(&scenario, LoadStrategy::None, &[0.0]).counts;
    assert_eq!((none.charges, none.replays), (10, 0));
    let check = run(&scenario, LoadStrategy::CheckThenInsert, &[0.0]).counts;
    assert_eq!((check.charges, check.replays), (4, 6));
    let unique = run(&scenario, LoadStrategy::UniqueKey, &[0.0]).counts;
    assert_eq!(
        (unique.charges, unique.conflicts, unique.replays),
        (1, 3, 9)
    );
    assert_eq!(unique.attempts, 13);
    for counts in [none, check, unique] {
        assert_eq!(
            (counts.payments, counts.succeeded, counts.failed),
            (1, 1, 0)
        );
    }
}

/// A double click 5 ms apart, 10 ms each way, 100 ms processing, retries at once after a 409.
/// Copy A reaches the server at 10, copy B at 15.
fn double_click(workers: u32) -> LoadScenario {
    let mut scenario = scenario();
    scenario.server.workers = Some(workers);
    scenario.arrivals.copies = Copies {
        count: 2,
        mode: CopyMode::Concurrent,
        spread_ms: 5.0,
        spacing: CopySpacing::Even,
    };
    scenario
}

/// One worker: B waits in the queue until A is done at 110, when `check_then_insert` has
/// stored A's success, so B gets the replay (received at 120). Two workers: B is taken at 15
/// while no key is stored and charges too. The queue, not the strategy, saved the customer.
#[test]
fn a_busy_server_serialises_a_double_click_that_check_then_insert_lets_through() {
    let one = run(&double_click(1), LoadStrategy::CheckThenInsert, &[0.0]).counts;
    assert_eq!((one.charges, one.replays, one.double_charges), (1, 1, 0));
    let two = run(&double_click(2), LoadStrategy::CheckThenInsert, &[0.0]).counts;
    assert_eq!((two.charges, two.replays, two.double_charges), (2, 0, 1));
    for counts in [one, two] {
        assert_eq!(
            (counts.payments, counts.succeeded, counts.failed),
            (1, 1, 0)
        );
    }
}

/// Two workers under `unique_key`: B meets A's key in flight at 15, 35, 55 and 75 (each retry
/// sent as the previous 409 is received, 20 ms after it reached), and after the third retry
/// B's client gives up at 85; A charges at 110 and is answered at 120. The payment succeeded
/// once (its first copy), charged once, and is not counted failed for B's giving up.
#[test]
fn a_copy_that_gives_up_on_409s_does_not_fail_the_payment_another_copy_succeeded() {
    let tally = run(&double_click(2), LoadStrategy::UniqueKey, &[0.0]);
    let counts = tally.counts;
    assert_eq!(
        (counts.charges, counts.conflicts, counts.attempts),
        (1, 4, 5)
    );
    assert_eq!(
        (counts.payments, counts.succeeded, counts.failed),
        (1, 1, 0)
    );
    assert_eq!(counts.failed_charged, 0);
}

/// Every copy gives up: the payment fails once. One worker, a 50 ms timeout, no retry: A
/// (processed 10-110) and B (queued behind it, processed 110-210) both time out, at 50 and
/// 55; both charge, and the payment is counted failed once, charged.
#[test]
fn a_payment_whose_copies_all_give_up_fails_once() {
    let mut scenario = double_click(1);
    scenario.client.timeout_ms = 50.0;
    scenario.client.max_retries = 0;
    let counts = run(&scenario, LoadStrategy::None, &[0.0]).counts;
    assert_eq!((counts.payments, counts.timeouts), (1, 2));
    assert_eq!(
        (counts.succeeded, counts.failed, counts.failed_charged),
        (0, 1, 1)
    );
    assert_eq!((counts.charges, counts.double_charges), (2, 1));
}
