//! The shortcut past the event loop for the commonest payment: one copy whose first attempt
//! is delivered, processed without failure and answered before the client's timeout. Its
//! outcome is the same under every strategy (one delivery meets an absent key whatever the
//! server keeps, and nothing else reaches the server), so it is computed once from the
//! attempt's sample instead of running the event machinery three times.
//!
//! For the other payments, [`SameAsUniqueKey`] tells from `unique_key`'s outcome when another
//! strategy's would be the same event for event, so that its run can be skipped.
//!
//! Both, and the closed form of [`super::single_copy`], are opt-in per scenario: [`Allowed::of`]
//! lists every setting of a [`Scenario`] by name, so a setting added to the model does not
//! compile until someone has decided there whether payments under it can still take each.

use super::draws::PaymentDraws;
use super::simulation::PaymentOutcome;
use super::{
    Arrivals, ClientPolicy, Counters, DuplicateAnswer, KeyLifecycle, Network, Scenario, Strategy,
};

/// Which ways past the event loop a scenario's payments may take, decided from its settings
/// in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Allowed {
    /// [`Shortcut`]: one copy and no backend, so that one successful first attempt is the same
    /// under every strategy.
    pub first_attempt: bool,
    /// [`SameAsUniqueKey`]: the plain key lifecycle (no backend, no expiry, no failures, one
    /// body, stored responses replayed).
    pub same_as_unique_key: bool,
    /// [`SingleCopy`](super::single_copy::SingleCopy): one copy and the plain key lifecycle.
    pub closed_form: bool,
}

impl Allowed {
    /// What `scenario`'s settings allow.
    ///
    /// Every field is named, so that a new setting (a crash, a shared server) is a compile
    /// error here until it is classified for each way. The settings named `_` only shape
    /// attempts after the first, or deliveries that meet a key already present (which one
    /// successful first attempt has neither of), and every strategy sees them alike up to the
    /// first answer that differs; with one copy the spacing, spread and copy mode all send it
    /// at 0; with no failure and one body the error policy and the fingerprint never act.
    pub fn of(scenario: &Scenario) -> Self {
        let Scenario {
            name: _,
            arrivals:
                Arrivals {
                    process: _,
                    copies,
                    copy_mode: _,
                    copy_spread_ms: _,
                    copy_spacing: _,
                },
            network:
                Network {
                    request_latency: _,
                    response_latency: _,
                    request_loss: _,
                    ack_loss: _,
                },
            processing: _,
            client:
                ClientPolicy {
                    timeout_ms: _,
                    max_retries: _,
                    backoff: _,
                    different_body_rate,
                },
            key:
                KeyLifecycle {
                    key_ttl_ms,
                    fingerprint: _,
                    error_rate,
                    error_policy: _,
                    duplicate_answer,
                },
            backend,
            client_lifecycle,
        } = scenario;
        // A crash, a key store, a provider or a receipt can make one successful first attempt
        // differ from strategy to strategy (or from the plain model), and makes strategies
        // differ in ways the rule for `unique_key`'s outcome does not cover.
        // An offline client or a reconciliation look-up is the event loop's alone.
        let plain_client = !client_lifecycle.is_used();
        let one_copy = *copies == 1 && !backend.is_used() && plain_client;
        let plain_lifecycle = !backend.is_used()
            && plain_client
            && key_ttl_ms.is_none()
            && *error_rate == 0.0
            && *different_body_rate == 0.0
            && *duplicate_answer == DuplicateAnswer::Replay;
        Self {
            first_attempt: one_copy,
            same_as_unique_key: plain_lifecycle,
            closed_form: one_copy && plain_lifecycle,
        }
    }
}

/// A scenario's settings that decide whether a payment takes the shortcut.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shortcut {
    /// The client's timeout (ms): the answer must arrive strictly before it.
    timeout_ms: f64,
    /// The share of first processings that fail with a 500.
    error_rate: f64,
}

impl Shortcut {
    /// The shortcut for `scenario`'s payments, or `None` when it has more than one copy or uses
    /// the backend ([`Allowed::first_attempt`]).
    pub fn of(scenario: &Scenario) -> Option<Self> {
        Allowed::of(scenario).first_attempt.then_some(Self {
            timeout_ms: scenario.client.timeout_ms,
            error_rate: scenario.key.error_rate,
        })
    }

    /// The payment's outcome under every strategy if its only copy's first attempt succeeds:
    /// the request is not lost, the first processing does not fail, the ACK is not lost and
    /// the answer arrives strictly before the timeout (at the timeout itself the timeout,
    /// scheduled first, wins). `None` otherwise: the payment needs the event loop.
    #[inline]
    pub fn outcome(&self, draws: &mut PaymentDraws) -> Option<PaymentOutcome> {
        let sample = draws.attempt(0, 0);
        // The event times as the event loop adds them: sent at 0, arrives, completes, answer
        // received.
        let received_ms = 0.0 + sample.request_ms + sample.processing_ms + sample.response_ms;
        let succeeds = !sample.request_lost
            && !sample.ack_lost
            && received_ms < self.timeout_ms
            && draws.lifecycle.failure(0, 0) >= self.error_rate;
        succeeds.then(|| PaymentOutcome::first_attempt_charged(received_ms))
    }

    /// The counters of `payments` payments that took the shortcut (each counted as
    /// [`PaymentOutcome::first_attempt_charged`] counts it), so that they are added once per
    /// chunk rather than field by field per payment.
    pub fn counts(payments: u64) -> Counters {
        Counters {
            payments,
            attempts: payments,
            deliveries: payments,
            charges: payments,
            succeeded: payments,
            ..Counters::default()
        }
    }
}

/// For a scenario with the plain key lifecycle (no expiry, no failures, no different bodies,
/// stored responses replayed), when another strategy's outcome is `unique_key`'s.
///
/// Up to the first answer that differs, every strategy sees the same events (the same
/// samples, the same client). `check_then_insert` answers like `unique_key` except to a
/// delivery that arrives while another is processed (it processes it again where
/// `unique_key` answers 409): if `unique_key` had no conflict, no delivery overlapped, and
/// `check_then_insert` had the same timeline. `none` answers like `unique_key` to the first
/// delivery only: if `unique_key` had at most one delivery, so had `none`, with the same
/// timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SameAsUniqueKey;

impl SameAsUniqueKey {
    /// The rule for `scenario`'s payments, or `None` when its key lifecycle is not the plain
    /// one ([`Allowed::same_as_unique_key`]).
    pub fn of(scenario: &Scenario) -> Option<Self> {
        Allowed::of(scenario).same_as_unique_key.then_some(Self)
    }

    /// Whether `strategy`'s outcome is `unique_key`'s, given `unique_key`'s.
    #[inline]
    pub fn holds(self, strategy: Strategy, unique_key: &PaymentOutcome) -> bool {
        match strategy {
            Strategy::None => unique_key.counts.deliveries <= 1,
            Strategy::CheckThenInsert => unique_key.counts.conflicts == 0,
            Strategy::UniqueKey => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::run::{ChunkWalker, ChunkWork};
    use super::super::{ArrivalProcess, CopyMode, CopySpacing, ErrorPolicy, Strategy, Streams};
    use super::*;
    use crate::model::timeline::test_support::{for_each_payment, log_normal, mobile, model};
    use engine::Silent;
    use engine::distribution::Distribution;

    /// Variants that exercise the settings the shortcut ignores or checks: failures stored
    /// and retried, different bodies, a short key TTL, sequential copies.
    fn scenarios() -> Vec<Scenario> {
        let mut failing = mobile();
        failing.key.error_rate = 0.3;
        let mut failing_retried = failing.clone();
        failing_retried.key.error_policy = ErrorPolicy::Retry;
        let mut different = mobile();
        different.client.different_body_rate = 0.5;
        different.key.fingerprint = false;
        different.key.key_ttl_ms = Some(700.0);
        let mut sequential = mobile();
        sequential.arrivals.copy_mode = CopyMode::Sequential;
        sequential.arrivals.process = ArrivalProcess::Sequential;
        vec![mobile(), failing, failing_retried, different, sequential]
    }

    /// Fixed times whose answer arrives exactly at the timeout: the timeout, scheduled first,
    /// wins the tie, so no payment may take the shortcut.
    fn tie() -> Scenario {
        let mut tie = mobile();
        tie.name = "tie".into();
        tie.network.request_latency = Distribution::Fixed { ms: 100.0 };
        tie.processing = Distribution::Fixed { ms: 400.0 };
        tie.network.response_latency = Distribution::Fixed { ms: 500.0 };
        tie.client.timeout_ms = 1_000.0;
        tie
    }

    /// The seed of these tests' payments.
    const SEED: u64 = 20_261_130;

    /// Payments of `scenario` that take the shortcut and that do not; each that does is
    /// checked against the event loop under every strategy.
    fn compare_with_the_event_loop(scenario: &Scenario) -> (u32, u32) {
        let shortcut = Shortcut::of(scenario).expect("one copy");
        let (mut taken, mut declined) = (0, 0);
        for_each_payment(scenario, SEED, |draws, event_loop| {
            let Some(outcome) = shortcut.outcome(draws) else {
                declined += 1;
                return;
            };
            taken += 1;
            for strategy in Strategy::ALL {
                let full = event_loop.run(scenario, strategy, draws);
                assert_eq!(full, outcome, "{} under {strategy:?}", scenario.name);
            }
        });
        (taken, declined)
    }

    #[test]
    fn a_payment_that_takes_the_shortcut_has_the_event_loops_outcome_under_every_strategy() {
        for scenario in scenarios() {
            let (taken, declined) = compare_with_the_event_loop(&scenario);
            // Both kinds occur, so the comparison is not vacuous.
            assert!(
                taken > 300 && declined > 100,
                "{taken} taken, {declined} not"
            );
        }
        assert_eq!(compare_with_the_event_loop(&tie()), (0, 3_000));
    }

    #[test]
    fn chunks_with_and_without_the_shortcut_give_the_same_tallies() {
        let overlapping = overlapping_copies();
        for scenario in scenarios().into_iter().chain([tie()]).chain(overlapping) {
            let streams = Streams::of(&model(&scenario, SEED), 0);
            let with = ChunkWalker::new(&scenario, streams);
            let without = ChunkWalker {
                shortcut: None,
                same_as_unique_key: None,
                single_copy: None,
                ..ChunkWalker::new(&scenario, streams)
            };
            let first = 1_234;
            let run = |walker: &ChunkWalker| {
                let mut work = ChunkWork::new(walker, 3);
                walker
                    .simulate(&mut work, first, 2_000, &Strategy::ALL, &Silent)
                    .unwrap();
                let mut tallies = work.into_tallies();
                let shared = tallies.pop().unwrap();
                let tallies: Vec<_> = tallies
                    .into_iter()
                    .map(|t| t.with_shared(&shared))
                    .collect();
                (tallies, shared.counts.payments)
            };
            let (shortcut, taken) = run(&with);
            let (event_loop, none_taken) = run(&without);
            assert_eq!(shortcut, event_loop, "{}", scenario.name);
            assert_eq!(none_taken, 0);
            if scenario.name == "tie" || scenario.arrivals.copies > 1 {
                assert_eq!(taken, 0);
            } else {
                assert!(taken > 200, "{taken} taken");
            }
        }
    }

    /// Several copies, concurrent (evenly or randomly spread) and sequential, with processing
    /// long enough that deliveries overlap.
    fn overlapping_copies() -> Vec<Scenario> {
        let mut concurrent = mobile();
        concurrent.name = "concurrent".into();
        concurrent.arrivals.copies = 3;
        concurrent.arrivals.copy_spread_ms = 400.0;
        concurrent.processing = log_normal(400.0, 3_000.0);
        let mut random = concurrent.clone();
        random.name = "random".into();
        random.arrivals.copy_spacing = CopySpacing::Random;
        let mut sequential = concurrent.clone();
        sequential.name = "sequential copies".into();
        sequential.arrivals.copy_mode = CopyMode::Sequential;
        vec![concurrent, random, sequential]
    }

    /// Payments of `scenario` (strategy, whether the rule held) counted, each one where it
    /// held checked against the strategy's own run.
    fn compare_with_unique_key(scenario: &Scenario, rule: SameAsUniqueKey) -> [[u32; 2]; 3] {
        let mut counts = [[0; 2]; 3];
        for_each_payment(scenario, SEED, |draws, event_loop| {
            let unique = event_loop.run(scenario, Strategy::UniqueKey, draws);
            for (index, strategy) in Strategy::ALL.into_iter().enumerate() {
                let holds = rule.holds(strategy, &unique);
                counts[index][usize::from(holds)] += 1;
                if holds {
                    let own = event_loop.run(scenario, strategy, draws);
                    assert_eq!(own, unique, "{} {strategy:?}", scenario.name);
                }
            }
        });
        counts
    }

    #[test]
    fn a_strategy_said_to_match_unique_key_has_its_outcome() {
        for scenario in scenarios()
            .into_iter()
            .filter(|scenario| SameAsUniqueKey::of(scenario).is_some())
            .chain(overlapping_copies())
        {
            let rule = SameAsUniqueKey::of(&scenario).expect("a plain lifecycle");
            let [none, check_then_insert, unique_key] = compare_with_unique_key(&scenario, rule);
            assert_eq!(unique_key, [0, 3_000]);
            // The rule both holds and fails, so the check is not vacuous (for none only with
            // one copy: several copies deliver several times).
            let mut checked = vec![check_then_insert];
            if scenario.arrivals.copies == 1 {
                checked.push(none);
            }
            for [fails, holds] in checked {
                assert!(
                    fails > 10 && holds > 100,
                    "{}: {fails} {holds}",
                    scenario.name
                );
            }
        }
    }

    #[test]
    fn the_rule_would_be_wrong_beyond_the_plain_lifecycle() {
        // A receiver that answers 200 to a duplicate in flight has no conflicts, yet
        // check_then_insert processes that duplicate again; an expiring key is created at
        // arrival by unique_key, at completion by check_then_insert.
        let mut ok_200 = overlapping_copies().remove(0);
        ok_200.key.duplicate_answer = DuplicateAnswer::Ok200;
        let mut expiring = mobile();
        expiring.key.key_ttl_ms = Some(900.0);
        for scenario in [ok_200, expiring] {
            assert_eq!(SameAsUniqueKey::of(&scenario), None);
            let result =
                std::panic::catch_unwind(|| compare_with_unique_key(&scenario, SameAsUniqueKey));
            assert!(result.is_err(), "{:?} should break the rule", scenario.key);
        }
    }

    #[test]
    fn the_shortcuts_counts_are_n_times_one_payments() {
        let one = PaymentOutcome::first_attempt_charged(12.5).counts;
        assert_eq!(Shortcut::counts(1), one);
        let mut seven = Counters::default();
        for _ in 0..7 {
            seven += one;
        }
        assert_eq!(Shortcut::counts(7), seven);
        assert_eq!(Shortcut::counts(0), Counters::default());
    }

    #[test]
    fn more_than_one_copy_never_takes_the_shortcut() {
        let mut copies = mobile();
        copies.arrivals.copies = 2;
        assert_eq!(Shortcut::of(&copies), None);
        assert!(Shortcut::of(&mobile()).is_some());
    }

    #[test]
    fn the_backend_turns_both_shortcuts_off() {
        let mut crashing = mobile();
        assert!(Shortcut::of(&crashing).is_some());
        assert!(SameAsUniqueKey::of(&crashing).is_some());
        crashing.backend.key.crash_rate = 0.01;
        assert_eq!(Shortcut::of(&crashing), None);
        assert_eq!(SameAsUniqueKey::of(&crashing), None);
    }
}
