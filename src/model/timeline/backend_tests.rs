//! Hand-worked timelines of crashes under each key store, key-write failures, the completer,
//! receipts and the provider; properties over random scenarios; the backend rates' binomial
//! self-check and the layered retries' closed form.

use proptest::prelude::{ProptestConfig, any, prop_assert, prop_assert_eq, proptest};

use super::backend::{BackendDraws, layered_provider_calls};
use super::simulation::{PaymentOutcome, Simulator};
use super::tests::{copies, random_scenario, scenario, tallies};
use super::*;
use engine::Silent;
use engine::backoff::Backoff;
use engine::distribution::Distribution;

/// 1 ms each way, 10 ms processing, a 100 ms timeout, 3 retries after a constant 20 ms, the
/// key stored in `key_store` with a 150 ms lock; a processing crashes when its crash draw is
/// below 0.5 (the hand-given draws decide which).
fn crashing(key_store: KeyStore) -> Scenario {
    let mut crashing = scenario();
    crashing.client.timeout_ms = 100.0;
    crashing.client.max_retries = 3;
    crashing.client.backoff = Backoff::Constant { base_ms: 20.0 };
    crashing.backend.key.crash_rate = 0.5;
    crashing.backend.key.key_store = key_store;
    crashing.backend.key.key_lock_ttl_ms = 150.0;
    crashing
}

/// One payment (one copy) of `scenario` under `strategy`, copy 0's attempt `a` drawing
/// `draws[a]` from the backend stream (later draws, and later attempts', read 1).
fn one_payment(scenario: &Scenario, strategy: Strategy, draws: &[&[f64]]) -> PaymentOutcome {
    let stream = super::tests::model(scenario.clone(), 1, 1)
        .seed_sequence(0)
        .pcg_state();
    let mut payment = draws::PaymentDraws::new(&stream, scenario);
    payment.read(&stream);
    let backend = BackendDraws::by_hand(&scenario.backend, scenario.client.max_retries, draws);
    Simulator::default()
        .run(scenario, strategy, &mut payment, &backend, &Silent)
        .unwrap()
}

/// The crash draws of a first processing crashing at a point (each point is a third of the
/// unit interval).
const BEFORE_CHARGE: &[f64] = &[0.0, 0.1];
const AFTER_CHARGE: &[f64] = &[0.0, 0.5];
const AFTER_SAVE: &[f64] = &[0.0, 0.9];

/// `(charges, double-charged payments, replays, conflicts, latency ms)`.
fn summary(outcome: &PaymentOutcome) -> (u64, u64, u64, u64, f64) {
    let counts = &outcome.counts;
    (
        counts.charges,
        counts.double_charged_payments,
        counts.replays,
        counts.conflicts,
        outcome.latency_ms,
    )
}

// Every timeline: attempt 0 sent at 0, arrives at 1, crashes at 11 with no answer; the client
// times out at 100, waits 20 ms, sends attempt 1 at 120, which arrives at 121; a processing
// then ends at 131 and its answer is received at 132, a replay at 122.

#[test]
fn under_same_transaction_a_crash_leaves_all_or_nothing() {
    for strategy in [Strategy::CheckThenInsert, Strategy::UniqueKey] {
        let store = crashing(KeyStore::SameTransaction);
        // Before the charge or before the commit: nothing remains; attempt 1 charges once.
        let before = one_payment(&store, strategy, &[BEFORE_CHARGE]);
        assert_eq!(summary(&before), (1, 0, 0, 0, 132.0), "{strategy:?}");
        assert_eq!(before.counts.crashes_before_charge, 1);
        let rolled_back = one_payment(&store, strategy, &[AFTER_CHARGE]);
        assert_eq!(summary(&rolled_back), (1, 0, 0, 0, 132.0), "{strategy:?}");
        assert_eq!(rolled_back.counts.charges_lost_by_crash, 1);
        assert_eq!(rolled_back.counts.keys_lost, 0);
        // After the commit: charge and key are there; attempt 1 gets the replay at 122.
        let saved = one_payment(&store, strategy, &[AFTER_SAVE]);
        assert_eq!(summary(&saved), (1, 0, 1, 0, 122.0), "{strategy:?}");
        assert_eq!(saved.counts.crashes_after_save, 1);
    }
    // Without a key the committed charge of a crash after saving is charged again.
    let none = one_payment(
        &crashing(KeyStore::SameTransaction),
        Strategy::None,
        &[AFTER_SAVE],
    );
    assert_eq!(summary(&none), (2, 1, 0, 0, 132.0));
}

#[test]
fn under_a_separate_store_a_crash_between_charge_and_key_charges_twice() {
    for strategy in [Strategy::CheckThenInsert, Strategy::UniqueKey] {
        let store = crashing(KeyStore::SeparateStore);
        let before = one_payment(&store, strategy, &[BEFORE_CHARGE]);
        assert_eq!(summary(&before), (1, 0, 0, 0, 132.0), "{strategy:?}");
        // The charge committed, the key was never written: attempt 1 finds no key.
        let between = one_payment(&store, strategy, &[AFTER_CHARGE]);
        assert_eq!(summary(&between), (2, 1, 0, 0, 132.0), "{strategy:?}");
        assert_eq!(
            (
                between.counts.keys_lost,
                between.counts.charges_lost_by_crash
            ),
            (1, 0)
        );
        let saved = one_payment(&store, strategy, &[AFTER_SAVE]);
        assert_eq!(summary(&saved), (1, 0, 1, 0, 122.0), "{strategy:?}");
    }
}

#[test]
fn under_key_first_a_crash_leaves_the_key_in_flight_until_its_lock_expires() {
    // unique_key reserved the key at 1; its lock expires at 151. Attempt 1 (arrives 121) gets
    // a 409 at 122, attempt 2 (sent 142, arrives 143) another at 144; attempt 3 (sent 164,
    // arrives 165) finds the lock gone, reserves again and is processed: answer at 176. The
    // key was stuck in flight from the crash at 11 to 151: 140 ms.
    let store = crashing(KeyStore::KeyFirst);
    let before = one_payment(&store, Strategy::UniqueKey, &[BEFORE_CHARGE]);
    assert_eq!(summary(&before), (1, 0, 0, 2, 176.0));
    assert_eq!(
        (
            before.counts.stuck_payments,
            before.counts.stuck_in_flight_ms
        ),
        (1, 140)
    );
    // Had the charge committed, the retry after the lock charges twice.
    let between = one_payment(&store, Strategy::UniqueKey, &[AFTER_CHARGE]);
    assert_eq!(summary(&between), (2, 1, 0, 2, 176.0));
    assert_eq!(between.counts.keys_lost, 1);
    let saved = one_payment(&store, Strategy::UniqueKey, &[AFTER_SAVE]);
    assert_eq!(summary(&saved), (1, 0, 1, 0, 122.0));
    assert_eq!(saved.counts.stuck_payments, 0);
    // check_then_insert reserves nothing: key_first is a separate store for it.
    let check = one_payment(&store, Strategy::CheckThenInsert, &[AFTER_CHARGE]);
    assert_eq!(summary(&check), (2, 1, 0, 0, 132.0));
    assert_eq!(check.counts.stuck_payments, 0);
}

#[test]
fn the_completer_finishes_or_releases_a_key_left_in_flight() {
    // It finds the key 50 ms after the crash at 11: at 61, before the lock expires (151).
    let mut store = crashing(KeyStore::KeyFirst);
    store.backend.key.completer_interval_ms = Some(50.0);
    // Nothing charged: released; attempt 1 at 121 is processed, answer at 132.
    let before = one_payment(&store, Strategy::UniqueKey, &[BEFORE_CHARGE]);
    assert_eq!(summary(&before), (1, 0, 0, 0, 132.0));
    assert_eq!(
        (
            before.counts.completer_recoveries,
            before.counts.stuck_in_flight_ms
        ),
        (1, 50)
    );
    // Charged: completed; attempt 1 gets the replay at 122, charged once.
    let between = one_payment(&store, Strategy::UniqueKey, &[AFTER_CHARGE]);
    assert_eq!(summary(&between), (1, 0, 1, 0, 122.0));
    // A completer slower than the lock does nothing.
    store.backend.key.completer_interval_ms = Some(500.0);
    let late = one_payment(&store, Strategy::UniqueKey, &[AFTER_CHARGE]);
    assert_eq!(summary(&late), (2, 1, 0, 2, 176.0));
    assert_eq!(late.counts.completer_recoveries, 0);
}

#[test]
fn the_completers_work_delays_the_release_and_can_miss_the_lock() {
    // It finds the key at 61 as above; 40 ms of work end at 101, before the lock expires at
    // 151: released at 101 instead of 61 (stuck 90 ms), attempt 1 at 121 processed as before.
    let mut store = crashing(KeyStore::KeyFirst);
    store.backend.key.completer_interval_ms = Some(50.0);
    store.backend.key.completer_work = Some(Distribution::Fixed { ms: 40.0 });
    let before = one_payment(&store, Strategy::UniqueKey, &[BEFORE_CHARGE]);
    assert_eq!(summary(&before), (1, 0, 0, 0, 132.0));
    assert_eq!(
        (
            before.counts.completer_recoveries,
            before.counts.stuck_in_flight_ms
        ),
        (1, 90)
    );
    // 100 ms of work would end at 161, after the lock expired at 151: the lock decides, as
    // for a completer that comes too late (409s at 122 and 144, charged again at 165).
    store.backend.key.completer_work = Some(Distribution::Fixed { ms: 100.0 });
    let slow = one_payment(&store, Strategy::UniqueKey, &[AFTER_CHARGE]);
    assert_eq!(summary(&slow), (2, 1, 0, 2, 176.0));
    assert_eq!(slow.counts.completer_recoveries, 0);
}

#[test]
fn a_failed_key_write_lets_the_next_retry_charge_again() {
    // Every ACK lost: attempts sent at 0, 120, 240, 360 all arrive. Attempt 0's key write
    // fails (third draw below 0.5).
    let mut store = crashing(KeyStore::SeparateStore);
    store.network.ack_loss = 1.0;
    store.backend.key.crash_rate = 0.0;
    store.backend.key.key_write_failure = 0.5;
    let fails: &[f64] = &[1.0, 1.0, 0.0];
    let separate = one_payment(&store, Strategy::UniqueKey, &[fails]);
    assert_eq!(
        (
            separate.counts.charges,
            separate.counts.replays,
            separate.counts.key_write_failures,
            separate.counts.keys_lost
        ),
        (2, 2, 1, 1)
    );
    // In the charge's transaction there is no separate write to fail.
    store.backend.key.key_store = KeyStore::SameTransaction;
    let same = one_payment(&store, Strategy::UniqueKey, &[fails]);
    assert_eq!((same.counts.charges, same.counts.replays), (1, 3));
    assert_eq!(same.counts.key_write_failures, 0);
    // key_first: the key stays in flight until 151; attempt 1 (arrives 121) gets a 409 (lost),
    // attempt 2 (arrives 241) charges again, attempt 3 gets the replay.
    store.backend.key.key_store = KeyStore::KeyFirst;
    let first = one_payment(&store, Strategy::UniqueKey, &[fails]);
    assert_eq!(
        (
            first.counts.charges,
            first.counts.conflicts,
            first.counts.replays
        ),
        (2, 1, 1)
    );
    assert_eq!(first.counts.stuck_in_flight_ms, 140);
}

fn with_receipts(mut scenario: Scenario, mode: ReceiptMode, send_failure: f64) -> Scenario {
    scenario.backend.receipts = Some(Receipts {
        mode,
        send_failure,
        relay_work: None,
    });
    scenario
}

/// `(receipts sent, duplicated, missing, send failures)`.
fn receipts(outcome: &PaymentOutcome) -> (u64, u64, u64, u64) {
    let counts = &outcome.counts;
    (
        counts.receipts_sent,
        counts.receipts_duplicated,
        counts.receipts_missing,
        counts.receipt_send_failures,
    )
}

#[test]
fn a_crash_before_sending_loses_a_direct_receipt_but_not_an_outbox_one() {
    let store = crashing(KeyStore::SameTransaction);
    let direct = with_receipts(store.clone(), ReceiptMode::Direct, 0.0);
    let saved = one_payment(&direct, Strategy::UniqueKey, &[AFTER_SAVE]);
    assert_eq!(saved.counts.charges, 1);
    assert_eq!(receipts(&saved), (0, 0, 1, 0));
    let outbox = with_receipts(store, ReceiptMode::Outbox, 0.0);
    let saved = one_payment(&outbox, Strategy::UniqueKey, &[AFTER_SAVE]);
    assert_eq!(receipts(&saved), (1, 0, 0, 0));
    // A crash before the commit rolls the outbox row back with the charge; attempt 1's
    // charge records its own.
    let rolled_back = one_payment(&outbox, Strategy::UniqueKey, &[AFTER_CHARGE]);
    assert_eq!(receipts(&rolled_back), (1, 0, 0, 0));
}

#[test]
fn every_processing_that_charges_sends_a_direct_receipt_and_the_outbox_one() {
    // Every ACK lost, no key: four charges; the handler sends four receipts, the outbox's
    // sender one (the four rows share the payment's message id).
    let mut store = crashing(KeyStore::SameTransaction);
    store.network.ack_loss = 1.0;
    store.backend.key.crash_rate = 0.0;
    let direct = one_payment(
        &with_receipts(store.clone(), ReceiptMode::Direct, 0.0),
        Strategy::None,
        &[],
    );
    assert_eq!(direct.counts.charges, 4);
    assert_eq!(receipts(&direct), (4, 3, 0, 0));
    let outbox = one_payment(
        &with_receipts(store.clone(), ReceiptMode::Outbox, 0.0),
        Strategy::None,
        &[],
    );
    assert_eq!(receipts(&outbox), (1, 0, 0, 0));
    // A failed direct send is lost; the outbox's sender retries: with f = 0.5 the draw 0.9
    // means ⌊ln 0.1 / ln 0.5⌋ = 3 failures first.
    store.network.ack_loss = 0.0;
    let send: &[f64] = &[1.0, 1.0, 1.0, 0.0];
    let lost = one_payment(
        &with_receipts(store.clone(), ReceiptMode::Direct, 0.5),
        Strategy::UniqueKey,
        &[send],
    );
    assert_eq!(receipts(&lost), (0, 0, 1, 1));
    let retried = one_payment(
        &with_receipts(store, ReceiptMode::Outbox, 0.5),
        Strategy::UniqueKey,
        &[&[1.0, 1.0, 1.0, 0.9]],
    );
    assert_eq!(receipts(&retried), (1, 0, 0, 3));
}

fn with_provider(mut scenario: Scenario, pass_key: bool) -> Scenario {
    scenario.backend.provider = Some(Provider {
        latency: Distribution::Fixed { ms: 30.0 },
        loss: 0.5,
        timeout_ms: 50.0,
        max_retries: 1,
        pass_key,
    });
    scenario
}

#[test]
fn a_provider_call_whose_answer_is_lost_is_charged_twice_without_a_key() {
    // Call 0 reaches the provider (draw 0.9 ≥ 0.5) but its answer is lost (0.1): the server
    // waits its 50 ms timeout and calls again; call 1 is answered after 30 ms. Processing:
    // 10 + 50 + 30 = 90 ms, from 1 to 91; answer at 92.
    let draws: &[f64] = &[1.0, 1.0, 1.0, 1.0, 0.9, 0.5, 0.1, 0.9, 0.5, 0.9];
    let store = crashing(KeyStore::SameTransaction);
    for strategy in Strategy::ALL {
        let without = one_payment(&with_provider(store.clone(), false), strategy, &[draws]);
        let counts = without.counts;
        assert_eq!(without.latency_ms, 92.0);
        assert_eq!((counts.provider_calls, counts.provider_timeouts), (2, 1));
        assert_eq!(counts.charges, 1);
        assert_eq!(
            (counts.provider_charges, counts.duplicate_provider_charges),
            (2, 1)
        );
        let with = one_payment(&with_provider(store.clone(), true), strategy, &[draws]);
        assert_eq!(
            (
                with.counts.provider_charges,
                with.counts.duplicate_provider_charges
            ),
            (1, 0)
        );
    }
}

#[test]
fn a_rolled_back_charge_still_moved_the_money_at_the_provider() {
    // Attempt 0 calls the provider (answered), then crashes before its commit; attempt 1
    // calls it again. The API's ledger has one charge, the provider two unless the key is
    // passed down.
    let crash: &[f64] = &[0.0, 0.5, 1.0, 1.0, 0.9, 0.5, 0.9];
    let store = crashing(KeyStore::SameTransaction);
    let without = one_payment(
        &with_provider(store.clone(), false),
        Strategy::UniqueKey,
        &[crash],
    );
    assert_eq!(
        (
            without.counts.charges,
            without.counts.charges_lost_by_crash,
            without.counts.provider_charges
        ),
        (1, 1, 2)
    );
    let with = one_payment(&with_provider(store, true), Strategy::UniqueKey, &[crash]);
    assert_eq!((with.counts.charges, with.counts.provider_charges), (1, 1));
}

#[test]
fn a_provider_that_never_answers_fails_the_processing() {
    // Both calls lost on the way: 10 + 2 × 50 ms, a 500 at 111, too late for the client's
    // 100 ms timeout; without a key the retry sent at 120 (arrives 121) is processed and its
    // call is answered.
    let lost: &[f64] = &[1.0, 1.0, 1.0, 1.0, 0.0, 0.5, 1.0, 0.0, 0.5, 1.0];
    let provider = with_provider(crashing(KeyStore::SameTransaction), false);
    let none = one_payment(&provider, Strategy::None, &[lost]);
    assert_eq!(
        (
            none.counts.server_errors,
            none.counts.charges,
            none.counts.provider_charges
        ),
        (1, 1, 1)
    );
    // Processing 10 + 30 ms from 121 to 161, answer at 162.
    assert_eq!(none.latency_ms, 162.0);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The charge, the key and the response commit together: whatever the crashes, a
    /// `unique_key` server never charges a payment twice.
    #[test]
    fn same_transaction_with_unique_key_never_double_charges(
        mut scenario in random_scenario(),
        crash_rate in 0.0..=1.0,
        key_write_failure in 0.0..=1.0,
        seed in any::<u64>(),
    ) {
        scenario.backend.key.crash_rate = crash_rate;
        scenario.backend.key.key_write_failure = key_write_failure;
        let unique = &tallies(scenario, 40, seed)[2];
        prop_assert_eq!(unique.counts.double_charged_payments, 0);
        prop_assert_eq!(unique.counts.keys_lost, 0);
    }

    /// A separate store loses the key only by a crash between the charge and the write or a
    /// failed write; each payment charged twice lost at least one key.
    #[test]
    fn separate_store_double_charges_only_after_losing_a_key(
        mut scenario in random_scenario(),
        crash_rate in 0.0..=1.0,
        key_write_failure in 0.0..=1.0,
        seed in any::<u64>(),
    ) {
        scenario.backend.key.key_store = KeyStore::SeparateStore;
        scenario.backend.key.crash_rate = crash_rate;
        scenario.backend.key.key_write_failure = key_write_failure;
        let unique = &tallies(scenario, 40, seed)[2];
        prop_assert!(unique.counts.double_charged_payments <= unique.counts.keys_lost);
        prop_assert!(
            unique.counts.keys_lost
                <= unique.counts.crashes_after_charge + unique.counts.key_write_failures
        );
    }

    /// The outbox row commits with the charge and its sender retries until delivered: no
    /// charged payment goes without a receipt, none gets two.
    #[test]
    fn an_outbox_never_loses_a_committed_receipt(
        mut scenario in random_scenario(),
        crash_rate in 0.0..=1.0,
        send_failure in 0.0..0.99,
        store in 0usize..3,
        seed in any::<u64>(),
    ) {
        scenario.backend.key.key_store =
            [KeyStore::SameTransaction, KeyStore::SeparateStore, KeyStore::KeyFirst][store];
        scenario.backend.key.crash_rate = crash_rate;
        scenario.backend.receipts = Some(Receipts {
            mode: ReceiptMode::Outbox,
            send_failure,
            relay_work: None,
        });
        for tally in tallies(scenario, 40, seed) {
            prop_assert_eq!(tally.counts.receipts_missing, 0);
            prop_assert_eq!(tally.counts.receipts_duplicated, 0);
            prop_assert_eq!(
                tally.counts.receipts_sent,
                tally.counts.payments - tally.counts.gave_up_not_charged
            );
        }
    }

    /// A provider that honours the key passed down charges each payment at most once, however
    /// often the client and the server retry.
    #[test]
    fn a_key_passed_downstream_moves_the_money_once(
        mut scenario in random_scenario(),
        crash_rate in 0.0..=1.0,
        loss in 0.0..=1.0,
        provider_timeout_ms in 0.1..100.0,
        provider_retries in 0u32..4,
        seed in any::<u64>(),
    ) {
        scenario.backend.key.crash_rate = crash_rate;
        scenario.backend.provider = Some(Provider {
            latency: Distribution::Exponential { mean_ms: 20.0 },
            loss,
            timeout_ms: provider_timeout_ms,
            max_retries: provider_retries,
            pass_key: true,
        });
        for tally in tallies(scenario, 40, seed) {
            prop_assert_eq!(tally.counts.duplicate_provider_charges, 0);
            prop_assert!(tally.counts.provider_charges <= 40);
        }
    }
}

/// `count` of `trials` within 4 standard deviations of Binomial(trials, rate)'s mean.
fn within(count: u64, trials: u64, rate: f64) {
    let mean = trials as f64 * rate;
    let deviation = (trials as f64 * rate * (1.0 - rate)).sqrt();
    assert!(
        (count as f64 - mean).abs() < 4.0 * deviation,
        "{count} of {trials} vs rate {rate}"
    );
}

/// No losses, one copy, no retry: each payment is processed once, so its crash, crash point,
/// key write, receipt send and provider call are one trial each.
#[test]
fn crashes_key_writes_receipts_and_provider_calls_follow_their_rates() {
    let payments = 3 * CHUNK_PAYMENTS + 100;
    let mut crashing = scenario();
    crashing.backend.key.crash_rate = 0.3;
    crashing.backend.key.key_store = KeyStore::SeparateStore;
    crashing.backend.key.key_write_failure = 0.2;
    crashing.backend.receipts = Some(Receipts {
        mode: ReceiptMode::Direct,
        send_failure: 0.25,
        relay_work: None,
    });
    let check = &tallies(crashing, payments, 14)[1];
    let counts = check.counts;
    let crashes =
        counts.crashes_before_charge + counts.crashes_after_charge + counts.crashes_after_save;
    within(crashes, payments, 0.3);
    within(counts.crashes_after_charge, payments, 0.1);
    // Writes happen after the commit of a processing that did not crash before it saved.
    let writes = payments - counts.crashes_before_charge - counts.crashes_after_charge;
    within(counts.key_write_failures, writes, 0.2);
    // Receipts are sent by processings that neither crashed nor failed.
    within(counts.receipt_send_failures, payments - crashes, 0.25);
    let mut calling = scenario();
    calling.backend.provider = Some(Provider {
        latency: Distribution::Fixed { ms: 5.0 },
        loss: 0.3,
        timeout_ms: 50.0,
        max_retries: 0,
        pass_key: false,
    });
    let none = &tallies(calling, payments, 15)[0];
    // A call goes unanswered when either way is lost: 1 − 0.7².
    within(none.counts.provider_timeouts, payments, 1.0 - 0.49);
    within(none.counts.provider_charges, payments, 0.7);
}

/// The client retries a processing that failed at the provider (its 500 is not stored) and
/// the server retries the provider: the calls per payment follow the closed form of
/// [`layered_provider_calls`], at worst the product of the attempts per layer.
#[test]
fn layered_retries_amplify_at_the_provider_as_the_closed_form_says() {
    let layered = |loss: f64, payments: u64| {
        let mut layered = scenario();
        layered.client.max_retries = 3;
        layered.client.timeout_ms = 10_000.0;
        layered.key.error_policy = ErrorPolicy::Retry;
        layered.backend.provider = Some(Provider {
            latency: Distribution::Fixed { ms: 5.0 },
            loss,
            timeout_ms: 50.0,
            max_retries: 2,
            pass_key: false,
        });
        tallies(layered, payments, 16)
    };
    // Every call lost: (2 + 1) calls × (3 + 1) processings, for every strategy.
    for tally in layered(1.0, 100) {
        assert_eq!(tally.counts.provider_calls, 12 * 100);
        assert_eq!(tally.counts.provider_charges, 0);
    }
    assert_eq!(layered_provider_calls(1.0, 2, 3), 12.0);
    // A call fails with q = 1 − (1 − loss)² = 0.5: 1.75 calls per processing, which fails with
    // 0.125, and (1 − 0.125⁴) / 0.875 processings: 2 − 2⁻¹¹ calls per payment. The calls
    // of one payment are between 1 and 12, so their standard deviation is at most 5.5.
    let loss = 1.0 - 0.5f64.sqrt();
    let payments = 2 * CHUNK_PAYMENTS;
    let expected = layered_provider_calls(0.5, 2, 3);
    assert!(
        (expected - (2.0 - 2f64.powi(-11))).abs() < 1e-12,
        "{expected}"
    );
    for tally in layered(loss, payments) {
        let mean = tally.counts.provider_calls as f64 / payments as f64;
        let error = 4.0 * 5.5 / (payments as f64).sqrt();
        assert!((mean - expected).abs() < error, "{mean} vs {expected}");
    }
}

/// Without crashes or failed writes, where the key lives changes nothing (a 30 s lock
/// outlasts every processing here), and the backend counters stay 0.
#[test]
fn without_faults_every_key_store_gives_the_plain_results() {
    let mut plain = copies(3, 15.0);
    plain.network.ack_loss = 0.3;
    plain.client.max_retries = 2;
    let expected = tallies(plain.clone(), 500, 3);
    for store in [KeyStore::SeparateStore, KeyStore::KeyFirst] {
        let mut stored = plain.clone();
        stored.backend.key.key_store = store;
        stored.backend.key.completer_interval_ms = Some(10.0);
        assert_eq!(tallies(stored, 500, 3), expected, "{store:?}");
    }
    assert!(expected[0].counts.double_charged_payments > 0);
    for tally in &expected {
        let backend: Vec<u64> = tally
            .counts
            .columns()
            .skip(18)
            .take(Counters::BACKEND_COLUMNS)
            .map(|(_, count)| count)
            .collect();
        assert_eq!(backend, vec![0; Counters::BACKEND_COLUMNS]);
    }
}

/// A `key_first` lock shorter than the processing expires under it: copy 0 reserves at 1 ms
/// with a 5 ms lock and is processed until 11; copy 1, sent at 8, arrives at 9, finds the
/// lock gone and charges too. In the charge's transaction it gets a 409 instead.
#[test]
fn a_lock_shorter_than_the_processing_lets_a_duplicate_charge() {
    let mut slow = copies(2, 8.0);
    slow.backend.key.key_lock_ttl_ms = 5.0;
    slow.backend.key.key_store = KeyStore::KeyFirst;
    let locked = &tallies(slow.clone(), 1, 1)[2];
    assert_eq!((locked.counts.charges, locked.counts.conflicts), (2, 0));
    slow.backend.key.key_store = KeyStore::SameTransaction;
    let same = &tallies(slow, 1, 1)[2];
    assert_eq!((same.counts.charges, same.counts.conflicts), (1, 1));
}

/// One payment, 1 ms each way, 10 ms processing, the key in another store with each call
/// taking 5 ms (check_then_insert): the look-up and the write add 10 ms to the server time,
/// so the answer arrives at 1 + 5 + 10 + 5 + 1 = 22 ms instead of 12; in the charge's
/// transaction there is no call and it arrives at 12.
#[test]
fn key_store_calls_add_to_the_server_time() {
    let latency = |key_store| {
        let mut scenario = scenario();
        scenario.backend.key.key_store = key_store;
        scenario.backend.key.key_store_latency = Some(Distribution::Fixed { ms: 5.0 });
        one_payment(&scenario, Strategy::CheckThenInsert, &[]).latency_ms
    };
    assert_eq!(latency(KeyStore::SeparateStore), 22.0);
    assert_eq!(latency(KeyStore::SameTransaction), 12.0);
}
