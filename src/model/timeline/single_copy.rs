//! The event loop's closed form for the plainest payment ([`SingleCopy::of`]): one copy, no
//! failures, no key expiry, one body, duplicates answered with the key's state, no backend.
//! Its one client sends one attempt at a time, so its timeline is a loop over attempts, and
//! the server's key needs only the first completion (and for `unique_key` the first
//! delivery). Every time is computed with the event loop's own additions, so the outcome is
//! the event loop's, bit for bit; where the event loop's sequence numbers would decide (two
//! server events at the same time) or deliveries reach the server out of their attempts'
//! order, it declines and the payment runs through the event loop.

use super::draws::PaymentDraws;
use super::events::Answer;
use super::shortcut::Allowed;
use super::simulation::{PaymentOutcome, PlainCounts};
use super::{ClientPolicy, Scenario, Strategy};

/// A scenario whose payments have the closed form: its client policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SingleCopy {
    client: ClientPolicy,
}

impl SingleCopy {
    /// The closed form for `scenario`'s payments, or `None` when a setting takes them
    /// beyond it ([`Allowed::closed_form`]).
    pub fn of(scenario: &Scenario) -> Option<Self> {
        Allowed::of(scenario).closed_form.then_some(Self {
            client: scenario.client,
        })
    }

    /// The payment in `draws` under `strategy`, as the event loop would simulate it; `None`
    /// when two server events tie or deliveries arrive out of order (then run the event loop).
    pub fn outcome(&self, strategy: Strategy, draws: &mut PaymentDraws) -> Option<PaymentOutcome> {
        self.counts(strategy, draws)
            .map(|counts| PaymentOutcome::plain(&counts))
    }

    /// What [`SingleCopy::outcome`] is made of (small, for the caller to build the outcome
    /// where it keeps it).
    pub fn counts(&self, strategy: Strategy, draws: &mut PaymentDraws) -> Option<PlainCounts> {
        let client = &self.client;
        let mut counts = PlainCounts::default();
        let mut send_ms = 0.0;
        let mut previous_backoff_ms = client.backoff.initial_ms();
        let mut last_arrival_ms = f64::NEG_INFINITY;
        // When the first processing completes: from then on the key holds its response.
        let mut key_complete_ms = f64::INFINITY;
        for attempt in 0..=client.max_retries {
            let sample = draws.attempt(0, attempt);
            counts.attempts += 1;
            let timeout_ms = send_ms + client.timeout_ms;
            // The answer's arrival at the client.
            let mut answer = None;
            if !sample.request_lost {
                let arrival_ms = send_ms + sample.request_ms;
                counts.deliveries += 1;
                if strategy != Strategy::None {
                    // The key's state at this arrival comes from the earlier attempts only.
                    if arrival_ms <= last_arrival_ms || arrival_ms == key_complete_ms {
                        return None;
                    }
                    last_arrival_ms = arrival_ms;
                }
                let processed = match strategy {
                    Strategy::None => true,
                    Strategy::CheckThenInsert => arrival_ms < key_complete_ms,
                    Strategy::UniqueKey => counts.deliveries == 1,
                };
                let (answered_ms, kind) = if processed {
                    // As start_processing adds it (no provider: + 0.0).
                    let completion_ms = arrival_ms + (sample.processing_ms + 0.0);
                    counts.charges += 1;
                    key_complete_ms = key_complete_ms.min(completion_ms);
                    (completion_ms, Answer::Charged)
                } else if arrival_ms < key_complete_ms {
                    // unique_key's key in flight.
                    counts.conflicts += 1;
                    (arrival_ms, Answer::Conflict)
                } else {
                    counts.replays += 1;
                    (arrival_ms, Answer::Replayed)
                };
                if !sample.ack_lost {
                    answer = Some((answered_ms + sample.response_ms, kind));
                }
            }
            // At the timeout itself the timeout (scheduled at the send) comes first.
            let now = match answer.filter(|&(received_ms, _)| received_ms < timeout_ms) {
                Some((received_ms, Answer::Conflict)) => received_ms,
                Some((received_ms, kind)) => {
                    counts.accepted_replay = kind == Answer::Replayed;
                    counts.first_success_ms = Some(received_ms);
                    break;
                }
                None => timeout_ms,
            };
            if attempt < client.max_retries {
                let wait = client
                    .backoff
                    .delay_ms(attempt, previous_backoff_ms, sample.jitter);
                previous_backoff_ms = wait;
                send_ms = now + wait;
            } else {
                counts.last_give_up_ms = counts.last_give_up_ms.max(now);
            }
        }
        Some(counts)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ArrivalProcess, CopyMode, DuplicateAnswer, ErrorPolicy};
    use super::*;
    use crate::model::timeline::test_support::{for_each_payment, log_normal, mobile};
    use engine::backoff::Backoff;
    use engine::distribution::Distribution;

    fn overtaking() -> Scenario {
        let mut overtaking = mobile();
        overtaking.name = "overtaking".into();
        overtaking.network.request_latency = log_normal(300.0, 4_000.0);
        overtaking.network.request_loss = 0.2;
        overtaking.client.backoff = Backoff::DecorrelatedJitter {
            base_ms: 50.0,
            cap_ms: 2_000.0,
        };
        overtaking
    }

    /// Fixed times: a retry (sent at the timeout, 1000 ms, arriving at 1100 ms) arrives
    /// exactly when the first processing completes (`processing_ms`: 1000), or an answer
    /// arrives exactly at the timeout (`processing_ms`: 900).
    fn ties(processing_ms: f64) -> Scenario {
        let mut ties = mobile();
        ties.name = format!("ties, processing {processing_ms} ms");
        ties.arrivals.process = ArrivalProcess::Sequential;
        ties.arrivals.copy_mode = CopyMode::Sequential;
        ties.network.request_latency = Distribution::Fixed { ms: 100.0 };
        ties.processing = Distribution::Fixed { ms: processing_ms };
        ties.network.response_latency = Distribution::Fixed { ms: 0.0 };
        ties.network.request_loss = 0.3;
        ties.client.backoff = Backoff::None;
        ties
    }

    /// Runs 3,000 payments of `scenario` under every strategy through the closed form and the
    /// event loop; returns per strategy the payments the closed form took and declined.
    fn compare_with_the_event_loop(scenario: &Scenario) -> [[u32; 2]; 3] {
        let single_copy = SingleCopy::of(scenario).expect("a plain one-copy scenario");
        let mut counts = [[0; 2]; 3];
        for_each_payment(scenario, 20_261_201, |draws, event_loop| {
            for (index, strategy) in Strategy::ALL.into_iter().enumerate() {
                let closed = single_copy.outcome(strategy, draws);
                let full = event_loop.run(scenario, strategy, draws);
                counts[index][usize::from(closed.is_none())] += 1;
                if let Some(closed) = closed {
                    assert_eq!(closed, full, "{} under {strategy:?}", scenario.name);
                }
            }
        });
        counts
    }

    #[test]
    fn the_closed_form_gives_the_event_loops_outcome() {
        let [none, check_then_insert, unique_key] = compare_with_the_event_loop(&mobile());
        // Nothing ties and nothing overtakes on this network often enough to decline.
        assert_eq!(none, [3_000, 0]);
        for [taken, declined] in [check_then_insert, unique_key] {
            assert!(taken >= 2_990 && declined <= 10, "{taken} {declined}");
        }
    }

    #[test]
    fn the_closed_form_declines_an_overtaking_retry_but_not_for_none() {
        let [none, check_then_insert, unique_key] = compare_with_the_event_loop(&overtaking());
        assert_eq!(none, [3_000, 0]);
        for [taken, declined] in [check_then_insert, unique_key] {
            assert!(taken > 2_000 && declined > 20, "{taken} {declined}");
        }
    }

    #[test]
    fn the_closed_form_declines_a_tie_at_the_server() {
        let [none, check_then_insert, unique_key] = compare_with_the_event_loop(&ties(1_000.0));
        assert_eq!(none, [3_000, 0]);
        for [taken, declined] in [check_then_insert, unique_key] {
            assert!(taken > 100 && declined > 100, "{taken} {declined}");
        }
    }

    #[test]
    fn an_answer_at_the_timeout_itself_comes_too_late_as_in_the_event_loop() {
        // Every answer to a processed delivery arrives at its attempt's timeout.
        for [taken, declined] in compare_with_the_event_loop(&ties(900.0)) {
            assert_eq!([taken, declined], [3_000, 0]);
        }
    }

    #[test]
    fn every_setting_beyond_the_plain_model_turns_it_off() {
        assert!(SingleCopy::of(&mobile()).is_some());
        let mut changed = Vec::new();
        let mut two_copies = mobile();
        two_copies.arrivals.copies = 2;
        changed.push(two_copies);
        let mut expiring = mobile();
        expiring.key.key_ttl_ms = Some(500.0);
        changed.push(expiring);
        let mut failing = mobile();
        failing.key.error_rate = 0.1;
        changed.push(failing);
        let mut different = mobile();
        different.client.different_body_rate = 0.1;
        changed.push(different);
        for answer in [
            DuplicateAnswer::Ok200,
            DuplicateAnswer::Conflict409,
            DuplicateAnswer::Error500,
        ] {
            let mut receiver = mobile();
            receiver.key.duplicate_answer = answer;
            changed.push(receiver);
        }
        let mut crashing = mobile();
        crashing.backend.key.crash_rate = 0.01;
        changed.push(crashing);
        for scenario in changed {
            assert_eq!(SingleCopy::of(&scenario), None, "{scenario:?}");
        }
        // Settings that never act without failures or other bodies leave it on.
        let mut retried = mobile();
        retried.key.error_policy = ErrorPolicy::Retry;
        retried.key.fingerprint = false;
        assert!(SingleCopy::of(&retried).is_some());
    }
}
