//! Hand-worked timelines, the article's closed form, invariants over random scenarios and
//! determinism across thread counts.

use proptest::prelude::{ProptestConfig, any, prop_assert_eq, prop_compose, prop_oneof, proptest};
use proptest::strategy::Strategy as Generator;

use super::*;
use crate::model::article::closed_form;
use engine::Silent;
use engine::backoff::Backoff;
use engine::distribution::Distribution;
use engine::stats::wilson;

fn fixed(ms: f64) -> Distribution {
    Distribution::Fixed { ms }
}

/// [`scenario`] with `count` concurrent copies, sent `spread_ms` apart at most (ms).
pub(super) fn copies(count: u32, spread_ms: f64) -> Scenario {
    let mut copies = scenario();
    copies.arrivals.copies = count;
    copies.arrivals.copy_spread_ms = spread_ms;
    copies
}

/// 1 ms each way, 10 ms processing, no loss, a 1 s timeout, no retry, one copy.
pub(super) fn scenario() -> Scenario {
    Scenario {
        name: "test".into(),
        arrivals: Arrivals {
            process: ArrivalProcess::Burst,
            copies: 1,
            copy_mode: CopyMode::Concurrent,
            copy_spread_ms: 0.0,
            copy_spacing: CopySpacing::Even,
        },
        network: Network {
            request_latency: fixed(1.0),
            response_latency: fixed(1.0),
            request_loss: 0.0,
            ack_loss: 0.0,
        },
        processing: fixed(10.0),
        client: ClientPolicy {
            timeout_ms: 1_000.0,
            max_retries: 0,
            backoff: Backoff::None,
            different_body_rate: 0.0,
        },
        key: KeyLifecycle::default(),
        backend: Backend::default(),
        client_lifecycle: Default::default(),
    }
}

pub(super) fn model(scenario: Scenario, payments: u64, seed: u64) -> TimelineModel {
    TimelineModel {
        title: "test".into(),
        seed,
        runs: 1,
        payments,
        strategies: Strategy::ALL.to_vec(),
        scenarios: vec![scenario],
    }
}

/// The tallies of `none`, `check_then_insert` and `unique_key`.
pub(super) fn tallies(scenario: Scenario, payments: u64, seed: u64) -> [StrategyTally; 3] {
    let tallies: Vec<StrategyTally> = simulate(&model(scenario, payments, seed), 2, &Silent)
        .unwrap()
        .rows
        .into_iter()
        .map(|row| row.tally)
        .collect();
    tallies.try_into().expect("one tally per strategy")
}

pub(super) fn close(actual: Option<f64>, expected: f64) {
    let actual = actual.unwrap();
    // Quantiles are the highest value of their HDR bucket: at most 0.1% (and 1 µs) above.
    assert!(
        actual >= expected && actual <= expected * 1.001 + 0.001,
        "{actual} vs {expected}"
    );
}

#[test]
fn two_copies_inside_the_processing_window_race_past_the_check() {
    // Copy 0 sent at 0 ms arrives at 1, finds no key, processes until 11, charges, inserts.
    // Copy 1 sent at 4 ms arrives at 5: the key is not inserted yet, so it charges too (at 15).
    // With a unique key, copy 1 finds the key in flight: 409 at 5, received at 6; after the
    // 20 ms backoff it is sent again at 26, arrives at 27 and gets the stored response.
    let mut race = copies(2, 4.0);
    race.client.max_retries = 1;
    race.client.backoff = Backoff::Constant { base_ms: 20.0 };
    let [none, check, unique] = tallies(race, 1, 1);
    assert_eq!(
        (none.counts.charges, none.counts.double_charged_payments),
        (2, 1)
    );
    assert_eq!(
        (
            check.counts.charges,
            check.counts.double_charged_payments,
            check.counts.replays
        ),
        (2, 1, 0)
    );
    assert_eq!(
        (
            unique.counts.charges,
            unique.counts.conflicts,
            unique.counts.replays
        ),
        (1, 1, 1)
    );
    assert_eq!((unique.counts.attempts, unique.counts.deliveries), (3, 3));
    for tally in [&none, &check, &unique] {
        assert_eq!(tally.counts.succeeded, 1);
        // The first success: copy 0's charge at 11 ms, received at 12 ms.
        close(tally.latency.quantile_ms(0.5), 12.0);
    }
    // The payment's final outcome is its first success, at 12 ms.
    assert_eq!(unique.span.ms(), 12.0);
}

#[test]
fn a_copy_that_looks_up_at_the_insert_sees_the_key() {
    // Copy 1 sent at 10 ms arrives at 11, the instant copy 0's insert happens; the insert was
    // scheduled first (at 1 ms), so the look-up sees the key and replays.
    let edge = copies(2, 10.0);
    let [_, check, _] = tallies(edge, 1, 1);
    assert_eq!((check.counts.charges, check.counts.replays), (1, 1));
}

#[test]
fn lost_acks_charge_every_attempt_without_a_key() {
    // Every ACK lost, timeout 100 ms, 50 ms constant backoff, 2 retries: sends at 0, 150, 300;
    // the client gives up at 400 ms, charged although told it failed.
    let mut lossy = scenario();
    lossy.network.ack_loss = 1.0;
    lossy.client = ClientPolicy {
        timeout_ms: 100.0,
        max_retries: 2,
        backoff: Backoff::Constant { base_ms: 50.0 },
        different_body_rate: 0.0,
    };
    let [none, check, unique] = tallies(lossy, 3, 5);
    assert_eq!((none.counts.charges, none.counts.gave_up_charged), (9, 3));
    assert_eq!(none.counts.double_charged_payments, 3);
    assert_eq!(none.counts.extra_charges, 6);
    for keyed in [&check, &unique] {
        assert_eq!(
            (
                keyed.counts.charges,
                keyed.counts.replays,
                keyed.counts.conflicts
            ),
            (3, 6, 0)
        );
        assert_eq!(keyed.counts.gave_up_charged, 3);
    }
    close(none.latency.quantile_ms(0.99), 400.0);
    // Burst arrivals: every payment starts at 0.
    assert_eq!(none.span.ms(), 400.0);
}

#[test]
fn lost_requests_charge_nothing() {
    let mut lost = scenario();
    lost.network.request_loss = 1.0;
    lost.client.max_retries = 3;
    for tally in tallies(lost, 10, 3) {
        assert_eq!(
            (
                tally.counts.attempts,
                tally.counts.deliveries,
                tally.counts.charges
            ),
            (40, 0, 0)
        );
        assert_eq!(tally.counts.gave_up_not_charged, 10);
    }
}

#[test]
fn sequential_copies_are_charged_once_with_any_key_check() {
    let mut sequential = scenario();
    sequential.arrivals.copies = 10;
    sequential.arrivals.copy_mode = CopyMode::Sequential;
    sequential.arrivals.process = ArrivalProcess::Sequential;
    let charges: Vec<u64> = tallies(sequential, 2, 1)
        .iter()
        .map(|tally| tally.counts.charges)
        .collect();
    assert_eq!(charges, vec![20, 2, 2]);
}

#[test]
fn sequential_payments_follow_each_other() {
    // Each payment takes 12 ms (1 + 10 + 1); 5 in a row end at 60 ms.
    let mut sequential = scenario();
    sequential.arrivals.process = ArrivalProcess::Sequential;
    assert_eq!(tallies(sequential, 5, 1)[0].span.ms(), 60.0);
}

#[test]
fn spans_merge_in_any_grouping() {
    // Three payments: latencies 5, 50, 7 µs; the next starts 10, 10, 10 µs later. They start at
    // 0, 10, 20 and end at 5, 60, 27: the span ends at 60 µs.
    let single = |latency, gap| {
        let mut span = Span::default();
        span.push(latency, gap);
        span
    };
    let [a, b, c] = [single(5, 10), single(50, 10), single(7, 10)];
    assert_eq!(a.then(b).then(c), a.then(b.then(c)));
    assert_eq!(a.then(b).then(c).ms(), 0.060);
    assert_eq!(Span::default().then(a), a);
}

/// With timeouts longer than every round trip and no request loss, a payment without a key is
/// charged twice exactly when its first ACK is lost: `P = p` (the article's closed form).
#[test]
fn none_agrees_with_the_article_closed_form() {
    let p = 0.1;
    let max_retries = 3;
    let mut article = scenario();
    article.network = Network {
        request_latency: Distribution::Uniform {
            low_ms: 5.0,
            high_ms: 50.0,
        },
        response_latency: Distribution::Uniform {
            low_ms: 5.0,
            high_ms: 50.0,
        },
        request_loss: 0.0,
        ack_loss: p,
    };
    article.processing = Distribution::Uniform {
        low_ms: 1.0,
        high_ms: 100.0,
    };
    article.client = ClientPolicy {
        timeout_ms: 201.0,
        max_retries,
        backoff: Backoff::FullJitter {
            base_ms: 10.0,
            cap_ms: 1000.0,
        },
        different_body_rate: 0.0,
    };
    let expected = closed_form::double_charged(p, max_retries).mean;
    let experiments = 200;
    let payments = 4_000;
    let mut covered = 0;
    let mut extra_charges = 0;
    for seed in 0..experiments {
        let none = &tallies(article.clone(), payments, seed)[0];
        if wilson(none.counts.double_charged_payments, payments).contains(expected) {
            covered += 1;
        }
        assert_eq!(none.counts.deliveries, none.counts.charges);
        extra_charges += none.counts.extra_charges;
    }
    // Each 95% interval misses with probability 0.05: 177 or fewer of 200 has probability 2e-4.
    assert!(
        covered >= 178,
        "{covered} of {experiments} intervals contain {expected}"
    );
    // Extra charges per payment, pooled: mean p + p² + p³ (the article's retries per request),
    // within 3.29 standard errors (two-sided 0.1%) of the closed form.
    let retries = closed_form::retries(p, max_retries);
    let pooled = (experiments * payments) as f64;
    let z = (extra_charges as f64 / pooled - retries.mean) / (retries.variance / pooled).sqrt();
    assert!(z.abs() < 3.29, "extra charges z = {z}");
}

#[test]
fn any_thread_count_gives_the_same_results() {
    let mut busy = scenario();
    busy.arrivals.process = ArrivalProcess::Poisson { rate_per_s: 50.0 };
    busy.arrivals.copies = 3;
    busy.arrivals.copy_spread_ms = 30.0;
    busy.arrivals.copy_spacing = CopySpacing::Random;
    busy.network.ack_loss = 0.2;
    busy.network.request_loss = 0.1;
    busy.network.response_latency = Distribution::LogNormal {
        median_ms: 20.0,
        p99_ms: 400.0,
    };
    busy.client = ClientPolicy {
        timeout_ms: 100.0,
        max_retries: 4,
        backoff: Backoff::DecorrelatedJitter {
            base_ms: 10.0,
            cap_ms: 500.0,
        },
        different_body_rate: 0.0,
    };
    let model = model(busy, 3 * CHUNK_PAYMENTS + 17, 9);
    let one = simulate(&model, 1, &Silent).unwrap();
    for threads in [2, 7] {
        assert_eq!(
            simulate(&model, threads, &Silent).unwrap(),
            one,
            "{threads} threads"
        );
    }
}

fn distribution() -> impl Generator<Value = Distribution> {
    prop_oneof![
        (0.0..50.0).prop_map(|ms| Distribution::Fixed { ms }),
        (0.0..50.0, 0.0..50.0).prop_map(|(low, width)| Distribution::Uniform {
            low_ms: low,
            high_ms: low + width
        }),
        (0.1..50.0).prop_map(|mean_ms| Distribution::Exponential { mean_ms }),
        (0.1..50.0, 1.0..20.0).prop_map(|(median, factor)| Distribution::LogNormal {
            median_ms: median,
            p99_ms: median * factor
        }),
    ]
}

fn bounded() -> impl Generator<Value = Distribution> {
    (0.0..50.0, 0.0..50.0).prop_map(|(low, width)| Distribution::Uniform {
        low_ms: low,
        high_ms: low + width,
    })
}

fn backoff() -> impl Generator<Value = Backoff> {
    (0usize..6, 0.0..100.0, 0.0..1000.0).prop_map(|(policy, base_ms, cap_ms)| match policy {
        0 => Backoff::None,
        1 => Backoff::Constant { base_ms },
        2 => Backoff::Exponential { base_ms, cap_ms },
        3 => Backoff::FullJitter { base_ms, cap_ms },
        4 => Backoff::EqualJitter { base_ms, cap_ms },
        _ => Backoff::DecorrelatedJitter { base_ms, cap_ms },
    })
}

prop_compose! {
    pub(super) fn random_scenario()(
        request_latency in distribution(),
        response_latency in distribution(),
        processing in distribution(),
        request_loss in 0.0..1.0,
        ack_loss in 0.0..1.0,
        copies in 1u32..6,
        sequential in any::<bool>(),
        random_spacing in any::<bool>(),
        copy_spread_ms in 0.0..100.0,
        timeout_ms in 0.1..200.0,
        max_retries in 0u32..6,
        backoff in backoff(),
    ) -> Scenario {
        Scenario {
            name: "random".into(),
            arrivals: Arrivals {
                process: ArrivalProcess::Burst,
                copies,
                copy_mode: if sequential { CopyMode::Sequential } else { CopyMode::Concurrent },
                copy_spread_ms,
                copy_spacing: if random_spacing { CopySpacing::Random } else { CopySpacing::Even },
            },
            network: Network { request_latency, response_latency, request_loss, ack_loss },
            processing,
            client: ClientPolicy { timeout_ms, max_retries, backoff, different_body_rate: 0.0 },
            key: KeyLifecycle::default(),
            backend: Backend::default(),
            client_lifecycle: Default::default(),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn unique_key_never_charges_twice(scenario in random_scenario(), seed in any::<u64>()) {
        let tallies = tallies(scenario, 40, seed);
        let unique = &tallies[2];
        prop_assert_eq!(unique.counts.double_charged_payments, 0);
        prop_assert_eq!(unique.counts.extra_charges, 0);
        // Every payment ends in exactly one outcome.
        for tally in &tallies {
            prop_assert_eq!(
                tally.counts.succeeded + tally.counts.gave_up_charged + tally.counts.gave_up_not_charged,
                40
            );
            prop_assert_eq!(tally.latency.count(), 40);
        }
    }

    /// A retry is sent at least `timeout_ms` after the attempt before it and needs at least the
    /// shortest request latency to arrive; when that is no earlier than the longest request
    /// latency plus the longest processing time, and copies are sequential (or single), no two
    /// deliveries of a key overlap.
    #[test]
    fn check_then_insert_is_safe_without_overlap(
        mut scenario in random_scenario(),
        request_latency in bounded(),
        processing in bounded(),
        slack in 0.0..50.0,
        seed in any::<u64>(),
    ) {
        scenario.network.request_latency = request_latency;
        scenario.processing = processing;
        scenario.arrivals.copy_mode = CopyMode::Sequential;
        scenario.client.timeout_ms = request_latency.max_ms() + processing.max_ms() + slack + 0.1;
        let tallies = tallies(scenario, 40, seed);
        prop_assert_eq!(tallies[1].counts.double_charged_payments, 0);
    }
}

/// One payment, every ACK lost, a 1 s timeout, one immediate retry and a key TTL: the first
/// delivery arrives at 1 ms (`unique_key` inserts the key then) and is charged at 11 ms
/// (`check_then_insert` inserts the key then); the retry is sent at 1000 ms and arrives at
/// 1001 ms.
fn expiring(key_ttl_ms: f64) -> Scenario {
    let mut expiring = scenario();
    expiring.network.ack_loss = 1.0;
    expiring.client.max_retries = 1;
    expiring.key.key_ttl_ms = Some(key_ttl_ms);
    expiring
}

#[test]
fn a_retry_after_the_key_expired_charges_again() {
    // TTL 500 ms: pruned at 501 ms (unique_key) or 511 ms (check_then_insert), before 1001.
    let [none, check, unique] = tallies(expiring(500.0), 1, 3);
    assert_eq!(
        (none.counts.charges, none.counts.expired_key_charges),
        (2, 0)
    );
    for keyed in [&check, &unique] {
        assert_eq!((keyed.counts.charges, keyed.counts.replays), (2, 0));
        assert_eq!(keyed.counts.expired_key_charges, 1);
        assert_eq!(keyed.counts.double_charged_payments, 1);
        // Every ACK lost: charged, told it failed.
        assert_eq!(keyed.counts.gave_up_charged, 1);
    }
    // Just past the retry's arrival: unique_key's key (created at 1 ms) is pruned at
    // 1001 ms, exactly when the retry arrives; check_then_insert's (11 ms) lives to 1011 ms.
    let [_, check, unique] = tallies(expiring(1_000.0), 1, 3);
    assert_eq!(
        (unique.counts.charges, unique.counts.expired_key_charges),
        (2, 1)
    );
    assert_eq!((check.counts.charges, check.counts.replays), (1, 1));
    // TTL 2 s: both keys alive at 1001 ms, the retry is replayed.
    let [_, check, unique] = tallies(expiring(2_000.0), 1, 3);
    for keyed in [&check, &unique] {
        assert_eq!(
            (
                keyed.counts.charges,
                keyed.counts.replays,
                keyed.counts.expired_key_charges
            ),
            (1, 1, 0)
        );
    }
}

/// Processing takes 150 ms, longer than the 100 ms timeout; every retry carries a different
/// body and waits 100 ms. The first delivery arrives at 1 ms and is charged at 151 ms (its
/// response at 152 ms comes after the timeout at 100 ms); the retry is sent at 200 ms and
/// arrives at 201 ms, when the key is complete.
fn different_body(fingerprint: bool) -> Scenario {
    let mut slow = scenario();
    slow.processing = fixed(150.0);
    slow.client = ClientPolicy {
        timeout_ms: 100.0,
        max_retries: 1,
        backoff: Backoff::Constant { base_ms: 100.0 },
        different_body_rate: 1.0,
    };
    slow.key.fingerprint = fingerprint;
    slow
}

#[test]
fn a_fingerprint_rejects_another_body_with_422() {
    let [none, check, unique] = tallies(different_body(true), 1, 4);
    // No key: the different body is charged too (at 351 ms, answered after the client's
    // timeout at 300 ms).
    assert_eq!(
        (
            none.counts.charges,
            none.counts.rejected_mismatches,
            none.counts.succeeded
        ),
        (2, 0, 0)
    );
    for keyed in [&check, &unique] {
        assert_eq!(
            (keyed.counts.charges, keyed.counts.rejected_mismatches),
            (1, 1)
        );
        assert_eq!((keyed.counts.replays, keyed.counts.wrong_replays), (0, 0));
        // The 422 at 202 ms ends the client: charged at 151 ms, told it failed.
        assert_eq!(
            (keyed.counts.succeeded, keyed.counts.gave_up_charged),
            (0, 1)
        );
        assert_eq!(keyed.counts.told_succeeded_not_charged, 0);
        close(keyed.latency.quantile_ms(0.5), 202.0);
    }
}

#[test]
fn without_a_fingerprint_another_body_gets_the_wrong_replay() {
    let [_, check, unique] = tallies(different_body(false), 1, 4);
    for keyed in [&check, &unique] {
        assert_eq!(
            (keyed.counts.charges, keyed.counts.rejected_mismatches),
            (1, 0)
        );
        assert_eq!((keyed.counts.replays, keyed.counts.wrong_replays), (1, 1));
        // Told at 202 ms that the other body succeeded; nothing charged that body.
        assert_eq!(
            (
                keyed.counts.succeeded,
                keyed.counts.told_succeeded_not_charged
            ),
            (1, 1)
        );
    }
}

/// Every first processing fails with a 500 (answered at 12 ms); the client waits 100 ms and
/// retries twice: sends at 0, 112 and 214 ms, arrivals at 1, 113 and 215 ms.
fn failing(error_policy: ErrorPolicy) -> Scenario {
    let mut failing = scenario();
    failing.client.max_retries = 2;
    failing.client.backoff = Backoff::Constant { base_ms: 100.0 };
    failing.key.error_rate = 1.0;
    failing.key.error_policy = error_policy;
    failing
}

#[test]
fn a_stored_500_is_replayed_and_nothing_is_charged() {
    let [none, check, unique] = tallies(failing(ErrorPolicy::Store), 1, 6);
    // No key, nothing stored: the retry at 113 ms is processed, charged at 123 ms.
    assert_eq!(
        (
            none.counts.server_errors,
            none.counts.errors_retried,
            none.counts.charges
        ),
        (1, 1, 1)
    );
    close(none.latency.quantile_ms(0.5), 124.0);
    for keyed in [&check, &unique] {
        assert_eq!(
            (keyed.counts.server_errors, keyed.counts.errors_replayed),
            (1, 2)
        );
        assert_eq!((keyed.counts.charges, keyed.counts.errors_retried), (0, 0));
        // The third 500 reaches the client at 216 ms: it gives up, not charged.
        assert_eq!(
            (keyed.counts.succeeded, keyed.counts.gave_up_not_charged),
            (0, 1)
        );
        close(keyed.latency.quantile_ms(0.5), 216.0);
    }
}

#[test]
fn an_unstored_500_lets_the_retry_charge_once() {
    let tallies = tallies(failing(ErrorPolicy::Retry), 1, 6);
    for tally in &tallies {
        assert_eq!(
            (tally.counts.server_errors, tally.counts.errors_replayed),
            (1, 0)
        );
        assert_eq!(
            (
                tally.counts.errors_retried,
                tally.counts.charges,
                tally.counts.succeeded
            ),
            (1, 1, 1)
        );
        close(tally.latency.quantile_ms(0.5), 124.0);
    }
}

/// A webhook sender with a 1 s timeout, 5 retries 100 ms apart, and a receiver that takes
/// 1.5 s: the first delivery arrives at 1 ms and finishes at 1501 ms; the first retry is sent
/// at 1100 ms and arrives at 1101 ms, a duplicate of an event in flight.
fn webhook(duplicate_answer: DuplicateAnswer) -> StrategyTally {
    let mut slow = scenario();
    slow.processing = fixed(1_500.0);
    slow.client.max_retries = 5;
    slow.client.backoff = Backoff::Constant { base_ms: 100.0 };
    slow.key.duplicate_answer = duplicate_answer;
    let [_, _, unique] = tallies(slow, 1, 8);
    unique
}

#[test]
fn a_receiver_answering_duplicates_200_stops_the_sender() {
    let receiver = webhook(DuplicateAnswer::Ok200);
    assert_eq!(
        (
            receiver.counts.deliveries,
            receiver.counts.charges,
            receiver.counts.replays
        ),
        (2, 1, 1)
    );
    assert_eq!(receiver.counts.succeeded, 1);
    close(receiver.latency.quantile_ms(0.5), 1_102.0);
}

#[test]
fn a_receiver_answering_duplicates_409_or_500_gets_every_retry() {
    // Every retry answered at once: the sender runs to its limit, 1 + max_retries deliveries.
    let conflict = webhook(DuplicateAnswer::Conflict409);
    assert_eq!(
        (
            conflict.counts.deliveries,
            conflict.counts.charges,
            conflict.counts.conflicts
        ),
        (6, 1, 5)
    );
    let error = webhook(DuplicateAnswer::Error500);
    assert_eq!(
        (
            error.counts.deliveries,
            error.counts.charges,
            error.counts.errors_replayed
        ),
        (6, 1, 5)
    );
    for receiver in [&conflict, &error] {
        // Processed once, and the sender believes it failed.
        assert_eq!(
            (receiver.counts.succeeded, receiver.counts.gave_up_charged),
            (0, 1)
        );
    }
}

#[test]
fn the_retry_window_adds_timeouts_and_the_longest_backoffs() {
    let client = ClientPolicy {
        timeout_ms: 1_000.0,
        max_retries: 3,
        backoff: Backoff::Exponential {
            base_ms: 100.0,
            cap_ms: 300.0,
        },
        different_body_rate: 0.0,
    };
    // 4 timeouts + 100 + 200 + 300 (capped).
    assert_eq!(client.retry_window_ms(), 4_600.0);
}

fn error_policy() -> impl Generator<Value = ErrorPolicy> {
    prop_oneof![
        proptest::strategy::Just(ErrorPolicy::Store),
        proptest::strategy::Just(ErrorPolicy::Retry)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// With one copy and request latencies under the timeout, every delivery arrives within the
    /// retry window of the first send, and the key is created no earlier: a TTL longer than the
    /// window never expires a key in use.
    #[test]
    fn a_ttl_longer_than_the_retry_window_never_expires_a_key(
        mut scenario in random_scenario(),
        request_latency in bounded(),
        slack in 0.001..1_000.0,
        error_rate in 0.0..1.0,
        different_body_rate in 0.0..1.0,
        seed in any::<u64>(),
    ) {
        scenario.arrivals.copies = 1;
        scenario.network.request_latency = request_latency;
        scenario.client.timeout_ms = scenario.client.timeout_ms.max(request_latency.max_ms() + 0.1);
        scenario.client.different_body_rate = different_body_rate;
        scenario.key.error_rate = error_rate;
        scenario.key.key_ttl_ms = Some(scenario.client.retry_window_ms() + slack);
        for tally in tallies(scenario, 40, seed) {
            prop_assert_eq!(tally.counts.expired_key_charges, 0);
        }
    }

    /// A correct server (unique key, fingerprint, keys outliving the retries, the stored
    /// response replayed) never tells a customer a payment succeeded that no charge backs,
    /// whatever the failures and client bugs.
    #[test]
    fn a_correct_server_never_reports_an_uncharged_success(
        mut scenario in random_scenario(),
        error_rate in 0.0..1.0,
        policy in error_policy(),
        different_body_rate in 0.0..1.0,
        seed in any::<u64>(),
    ) {
        scenario.client.different_body_rate = different_body_rate;
        scenario.key.error_rate = error_rate;
        scenario.key.error_policy = policy;
        let tallies = tallies(scenario, 40, seed);
        let unique = &tallies[2];
        prop_assert_eq!(unique.counts.told_succeeded_not_charged, 0);
        prop_assert_eq!(unique.counts.wrong_replays, 0);
        // Every delivery gets exactly one answer (the stack of timeline_answers.svg).
        for tally in &tallies {
            prop_assert_eq!(
                tally.counts.deliveries,
                tally.counts.charges
                    + tally.counts.server_errors
                    + tally.counts.replays
                    + tally.counts.conflicts
                    + tally.counts.errors_replayed
                    + tally.counts.rejected_mismatches
            );
        }
    }
}

#[test]
fn a_payment_reads_exactly_its_stride_of_lifecycle_draws() {
    // Chunks start payment `first` at `first × stride` draws: reading 5 payments one after
    // another must leave the stream where jumping 5 strides puts it.
    let (copies, max_retries) = (3, 4);
    let start = model(scenario(), 1, 11)
        .lifecycle_seed_sequence(0)
        .pcg_state();
    let mut read = start;
    let mut draws = draws::LifecycleDraws::new(copies, max_retries);
    for _ in 0..5 {
        draws.read(&mut read);
    }
    let mut jumped = start;
    jumped.advance(5 * draws::LifecycleDraws::stride(copies, max_retries));
    // 3 copies × 5 attempts × 2 draws.
    assert_eq!(draws::LifecycleDraws::stride(copies, max_retries), 30);
    assert_eq!(read, jumped);
}

/// No losses, one copy, no retry: every payment's one delivery is its first processing, so the
/// 500s are Binomial(payments, error_rate); every ACK lost with `max_retries` immediate
/// retries and no fingerprint: every retry is delivered and replayed, so the wrong replays are
/// Binomial(payments × max_retries, different_body_rate). Both within 4 standard deviations.
#[test]
fn failures_and_different_bodies_follow_their_rates() {
    let within = |count: u64, trials: u64, rate: f64| {
        let mean = trials as f64 * rate;
        let deviation = (trials as f64 * rate * (1.0 - rate)).sqrt();
        assert!(
            (count as f64 - mean).abs() < 4.0 * deviation,
            "{count} of {trials} vs rate {rate}"
        );
    };
    let payments = 3 * CHUNK_PAYMENTS + 100;
    let mut failing = scenario();
    failing.key.error_rate = 0.1;
    let unique = &tallies(failing, payments, 12)[2];
    within(unique.counts.server_errors, payments, 0.1);
    let mut buggy = scenario();
    buggy.network.ack_loss = 1.0;
    buggy.client.max_retries = 3;
    buggy.client.different_body_rate = 0.2;
    buggy.key.fingerprint = false;
    let unique = &tallies(buggy, payments, 13)[2];
    assert_eq!(unique.counts.replays, 3 * payments);
    within(unique.counts.wrong_replays, 3 * payments, 0.2);
}

/// A real key table has the key as its primary key: under `check_then_insert` both racing
/// deliveries' look-ups find nothing, and whichever processing finishes first INSERTs its
/// response; the later INSERT hits the duplicate key and stores nothing. So a stored 500
/// stays when a racing charge completes after it, as a stored success stays when a racing
/// failure completes after it.
#[test]
fn under_check_then_insert_the_first_stored_response_stays() {
    // Copy 0 sent at 0 arrives at 1, finds no key, fails at 11 (the first processing always
    // fails here) and stores the 500, received at 12. Copy 1 sent at 4 arrives at 5, finds no
    // key (the 500 is stored only at 11), charges at 15, received at 16: success. Copy 0
    // retries after 20 ms: sent at 32, arrives at 33, finds the stored 500 and gets it
    // replayed (not copy 1's success), received at 34; with one retry it gives up.
    let mut race = copies(2, 4.0);
    race.client.max_retries = 1;
    race.client.backoff = Backoff::Constant { base_ms: 20.0 };
    race.key.error_rate = 1.0;
    race.key.error_policy = ErrorPolicy::Store;
    let [_, check, _] = tallies(race, 1, 1);
    let counts = check.counts;
    assert_eq!((counts.charges, counts.server_errors), (1, 1));
    assert_eq!((counts.errors_replayed, counts.replays), (1, 0));
    assert_eq!((counts.attempts, counts.deliveries), (3, 3));
    assert_eq!(counts.succeeded, 1);
    // The payment's first success: copy 1's charge, received at 16 ms.
    close(check.latency.quantile_ms(0.5), 16.0);
}
