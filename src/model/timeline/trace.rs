//! The trace of one payment: every event of its timeline, in order, for the sequence diagram
//! of a double charge (or of a key a crash left in flight) that a design review reads.
//!
//! A payment of the timeline model is a pure function of (seed, run, payment index): its draws
//! sit at a fixed place in the run's streams. So the trace is found in two steps:
//! [`first`] walks run 0's payments in order through the event loop with no recorder (the
//! normal, unrecorded code path), stops at the first whose counters show the traced outcome,
//! and runs that one payment again with an [`EventLog`]. The event loop is generic over its
//! [`Recorder`](super::events::Recorder) ([`super::events`]); the normal runs use `()`, whose
//! `record` is empty and inlined, so the hooks compile to nothing there.
//!
//! Times are milliseconds from the payment's first send.

use super::events::{Event, EventLog};
use super::run::{ChunkWalker, ChunkWork, Streams};
use super::simulation::PaymentOutcome;
use super::{Counters, Strategy, TimelineModel};
use engine::{Interrupted, Progress};

/// The outcome a trace looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Traced {
    /// The payment was charged twice or more.
    DoubleCharge,
    /// A crash left the payment's key in flight (`key_store = "key_first"`).
    StuckKey,
}

impl Traced {
    /// Both, in the order the reports show them.
    pub const ALL: [Traced; 2] = [Traced::DoubleCharge, Traced::StuckKey];

    /// Whether a payment (or a sum of payments) with counters `counts` has it.
    pub fn holds(self, counts: &Counters) -> bool {
        match self {
            Traced::DoubleCharge => counts.double_charged_payments > 0,
            Traced::StuckKey => counts.stuck_payments > 0,
        }
    }
}

/// The trace of one payment.
#[derive(Debug, Clone, PartialEq)]
pub struct PaymentTrace {
    /// What it shows.
    pub traced: Traced,
    /// The run (0).
    pub run: u32,
    /// The scenario, by index in the model.
    pub scenario: usize,
    /// The strategy.
    pub strategy: Strategy,
    /// The payment's index in the run, from 0.
    pub payment: u64,
    /// Its events, in the order they happened.
    pub events: Vec<Event>,
    /// Its outcome (the same as the unrecorded run's).
    pub outcome: PaymentOutcome,
}

/// The first payment of run 0 of scenario `scenario` (an index into `model.scenarios`) under
/// `strategy` with the outcome `traced`, traced; `None` when none of its payments has it.
///
/// Walks the payments in order on the calling thread, each through the event loop (which the
/// tests hold equal to the shortcuts the parallel run takes), so the answer does not depend
/// on any thread count.
pub fn first(
    model: &TimelineModel,
    scenario: usize,
    strategy: Strategy,
    traced: Traced,
    progress: &dyn Progress,
) -> Result<Option<PaymentTrace>, Interrupted> {
    let run = 0;
    let streams = Streams::of(model, run);
    let chunks = ChunkWalker::new(&model.scenarios[scenario], streams);
    let mut work = ChunkWork::new(&chunks, 1);
    let mut stream = streams.attempts;
    let mut lifecycle_stream = streams.lifecycle;
    let mut backend_stream = streams.backend;
    let mut client_stream = streams.client;
    for payment in 0..model.payments {
        if payment % 64 == 0 && progress.should_stop() {
            return Err(Interrupted);
        }
        work.draws.read(&stream);
        stream.apply(&chunks.payment_jump);
        if chunks.lifecycle_stride > 0 {
            work.draws.lifecycle.read(&mut lifecycle_stream);
        }
        if chunks.backend_stride > 0 {
            work.backend.read(&mut backend_stream);
        }
        if chunks.client_stride > 0 {
            work.draws.client.read(&mut client_stream);
        }
        let outcome = work.simulator.run(
            chunks.scenario,
            strategy,
            &mut work.draws,
            &work.backend,
            progress,
        )?;
        if !traced.holds(&outcome.counts) {
            continue;
        }
        // The same payment again, with its draws (sampled on first use, so the same) and a
        // recorder.
        let mut log = EventLog::default();
        let payment_draws = (chunks.scenario, strategy, &mut work.draws, &work.backend);
        let replayed = work
            .simulator
            .run_recorded(payment_draws, progress, &mut log)?;
        debug_assert_eq!(replayed, outcome);
        return Ok(Some(PaymentTrace {
            traced,
            run,
            scenario,
            strategy,
            payment,
            events: log.events,
            outcome,
        }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::semantics::KeyServer;
    use crate::model::timeline::events::{Answer, EventKind, KeyFound};
    use crate::model::timeline::test_support::{mobile, model};
    use crate::model::timeline::{Backend, KeyStore, Scenario};
    use engine::Silent;
    use engine::backoff::Backoff;
    use engine::distribution::Distribution;

    /// One copy, 20 ms each way, 50 ms of processing, every ACK lost, a 200 ms timeout, one
    /// retry after a constant 30 ms backoff.
    fn lost_acks() -> Scenario {
        let mut scenario = mobile();
        scenario.network.request_latency = Distribution::Fixed { ms: 20.0 };
        scenario.network.response_latency = Distribution::Fixed { ms: 20.0 };
        scenario.network.request_loss = 0.0;
        scenario.network.ack_loss = 1.0;
        scenario.processing = Distribution::Fixed { ms: 50.0 };
        scenario.client.timeout_ms = 200.0;
        scenario.client.max_retries = 1;
        scenario.client.backoff = Backoff::Constant { base_ms: 30.0 };
        scenario
    }

    fn kinds_and_times(trace: &PaymentTrace) -> Vec<(f64, u32, EventKind)> {
        trace
            .events
            .iter()
            .map(|event| (event.at_ms, event.attempt, event.kind))
            .collect()
    }

    /// By hand: attempt 0 is sent at 0 (its timeout due at 200), reaches the server at 20,
    /// is processed until 70, charged and answered at 70, and the answer lost. The timeout
    /// at 200 starts the 30 ms backoff; attempt 1 goes at 230 (timeout due at 430), reaches
    /// the server at 250, is processed until 300 and charged a second time, its answer lost
    /// too; at 430 the client times out with no retry left and gives up.
    #[test]
    fn a_lost_ack_and_a_retry_charge_twice_at_the_hand_computed_times() {
        let model = model(&lost_acks(), 42);
        let trace = first(&model, 0, Strategy::None, Traced::DoubleCharge, &Silent)
            .unwrap()
            .expect("every payment is charged twice");
        assert_eq!(trace.payment, 0);
        use EventKind::*;
        let answer = Answer::Charged;
        assert_eq!(
            kinds_and_times(&trace),
            [
                (0.0, 0, Sent),
                (20.0, 0, Delivered),
                (20.0, 0, ProcessingStarted { until_ms: 70.0 }),
                (70.0, 0, Charged { nth: 1 }),
                (70.0, 0, Answered { answer }),
                (70.0, 0, ResponseLost),
                (200.0, 0, TimedOut),
                (200.0, 0, BackingOff { wait_ms: 30.0 }),
                (230.0, 1, Sent),
                (250.0, 1, Delivered),
                (250.0, 1, ProcessingStarted { until_ms: 300.0 }),
                (300.0, 1, Charged { nth: 2 }),
                (300.0, 1, Answered { answer }),
                (300.0, 1, ResponseLost),
                (430.0, 1, TimedOut),
                (430.0, 1, GaveUp),
            ]
        );
        assert_eq!(trace.outcome.counts.charges, 2);
    }

    /// The same payment under the keyed strategies: the retry at 250 finds the key stored at
    /// 70 and is answered from it, so no payment is charged twice and there is no trace.
    #[test]
    fn a_keyed_strategy_replays_the_retry_and_has_no_trace() {
        let model = model(&lost_acks(), 42);
        for strategy in [Strategy::CheckThenInsert, Strategy::UniqueKey] {
            let found = first(&model, 0, strategy, Traced::DoubleCharge, &Silent).unwrap();
            assert_eq!(found, None, "{strategy:?}");
        }
    }

    /// A crash after the charge with the key reserved first: the key stays in flight until
    /// its lock expires (1,000 ms after the reservation at 20), and the retry at 250 gets a
    /// 409 (answered at once, its answer lost).
    #[test]
    fn a_crash_leaves_the_reserved_key_in_flight_until_its_lock_expires() {
        let mut scenario = lost_acks();
        scenario.backend = Backend {
            key: KeyServer {
                crash_rate: 1.0,
                key_store: KeyStore::KeyFirst,
                key_lock_ttl_ms: 1_000.0,
                ..KeyServer::default()
            },
            ..Backend::default()
        };
        let model = model(&scenario, 42);
        // Where the crash falls is drawn; find the first payment whose crash came after the
        // charge or before it (both leave the key in flight).
        let trace = first(&model, 0, Strategy::UniqueKey, Traced::StuckKey, &Silent)
            .unwrap()
            .expect("every crash leaves the reserved key in flight");
        let left = trace
            .events
            .iter()
            .find_map(|event| match event.kind {
                EventKind::KeyLeftInFlight { until_ms, .. } => Some((event.at_ms, until_ms)),
                _ => None,
            })
            .expect("the key was left in flight");
        assert_eq!(left, (70.0, 1_020.0));
        let retry = trace
            .events
            .iter()
            .find(|event| event.attempt == 1 && matches!(event.kind, EventKind::KeyLookedUp { .. }))
            .expect("the retry was delivered");
        assert_eq!(
            (retry.at_ms, retry.kind),
            (
                250.0,
                EventKind::KeyLookedUp {
                    found: KeyFound::InFlight
                }
            )
        );
    }

    /// Recording changes nothing: every payment's outcome with a recorder is the one without.
    #[test]
    fn a_recorded_run_has_the_unrecorded_outcome() {
        use crate::model::timeline::test_support::for_each_payment;
        let scenario = mobile();
        let backend = super::super::backend::BackendDraws::default();
        let mut simulator = super::super::simulation::Simulator::default();
        let mut checked = 0;
        for_each_payment(&scenario, 7, |draws, event_loop| {
            for strategy in Strategy::ALL {
                let plain = event_loop.run(&scenario, strategy, draws);
                let mut log = EventLog::default();
                let recorded = simulator
                    .run_recorded((&scenario, strategy, draws, &backend), &Silent, &mut log)
                    .unwrap();
                assert_eq!(recorded, plain);
                assert!(log.events.len() >= 3, "a send, a delivery or loss, an end");
                checked += 1;
            }
        });
        assert_eq!(checked, 3 * crate::model::timeline::test_support::PAYMENTS);
    }
}
