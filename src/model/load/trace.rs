//! The trace of one payment under load (issue #33): every event of its life on the shared
//! clock, in order, for the sequence diagram of a retry answered 409 Conflict because an
//! earlier attempt of the same payment still held the key (waiting in the queue for a worker,
//! or being processed) when the retry reached the server.
//!
//! Payments share one server, so a payment is not a function of its own draws: its trace is
//! found by running run 0's whole event loop again, twice, on the calling thread, with the
//! recorder both loops share ([`crate::model::trace::Recorder`]). The first pass
//! ([`FirstConflict`]) notes the first payment, in arrival order, whose retry met its key in
//! flight and got a 409 while the attempt holding the key had waited in the queue for a
//! worker (the load), or, if none had, the first whose retry got such a 409 at all; the second
//! ([`PaymentLog`]) keeps that payment's events. The loop
//! makes the same draws with or without a recorder (the hooks draw nothing), so both passes
//! are the run the results count; the normal runs use `()`, and the hooks and the bookkeeping
//! they need compile to nothing there.
//!
//! Times are ms of the run's simulated time; the report draws them from the payment's arrival.

use super::simulation::{Answer, Simulation};
use super::{LoadModel, LoadStrategy};
use crate::model::semantics::CrashPoint;
use crate::model::trace::Recorder;
use engine::{Interrupted, Progress};

/// What the key store held when a request's key was looked up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFound {
    /// No key (never stored, pruned, or its lock expired).
    Absent,
    /// In flight, held by an attempt of the payment still waiting for a worker or being
    /// processed.
    InFlight,
    /// In flight, but abandoned: a crash or a failed write left it until its lock expires or
    /// the completer runs.
    Stuck,
    /// Stored with a success.
    Complete,
    /// Stored with a 500.
    Failed,
}

/// One kind of event of a payment's life on the shared clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EventKind {
    /// The client sends the attempt; its timeout starts.
    Sent,
    /// The request is lost on the way (an outage or the loss rate): the server never sees it.
    RequestLost,
    /// The request reaches the server.
    Reached,
    /// The server looks the key up (as the request reaches it with `key_first`, else as a
    /// worker takes it) and finds it so.
    KeyLookedUp {
        /// What the look-up found.
        found: KeyFound,
    },
    /// The key is inserted, in flight, for this attempt.
    KeyReserved,
    /// The other key store is down as the request needs it: fail open (processed without the
    /// key) or closed (503).
    KeyStoreDown {
        /// Processed without the key.
        fail_open: bool,
    },
    /// Every worker is busy: the request waits in the queue behind `ahead` requests.
    Queued {
        /// Requests ahead of it in the queue.
        ahead: u32,
    },
    /// The queue is full: the request is answered 503 at once.
    Shed,
    /// A worker takes the request after it waited `waited_ms` in the queue (0 if a worker was
    /// free).
    Taken {
        /// The wait in the queue (ms).
        waited_ms: f64,
    },
    /// The request waited longer than its client's timeout: the worker drops it unprocessed.
    DroppedExpired,
    /// `lock_wait`: the request waits for the key's lock, holding its worker.
    LockWaiting,
    /// Processing starts; it ends at `until_ms`.
    ProcessingStarted {
        /// When the processing ends (ms).
        until_ms: f64,
    },
    /// The processing charges: the payment's `nth` charge (from 1).
    Charged {
        /// Which charge: 2 and more are double charges.
        nth: u32,
    },
    /// The processing fails with a 500; nothing is charged.
    ProcessingFailed,
    /// The server crashes at this point of the processing: nothing is answered.
    Crashed {
        /// Where in the processing.
        point: CrashPoint,
    },
    /// The response is stored under the key.
    KeySaved,
    /// Writing the key to the other store fails: the key is lost.
    KeyWriteFailed,
    /// A `key_first` key is left in flight until `until_ms` (its lock's expiry or the
    /// completer).
    KeyLeftInFlight {
        /// When it leaves the in-flight state (ms).
        until_ms: f64,
    },
    /// The server sends its answer back.
    Answered {
        /// The answer.
        answer: Answer,
    },
    /// The answer is lost on the way back: the client never hears it.
    ResponseLost,
    /// The answer reaches the client while it waits for that attempt.
    Received {
        /// The answer.
        answer: Answer,
    },
    /// The answer reaches the client after it stopped waiting for that attempt: ignored.
    ReceivedLate {
        /// The answer.
        answer: Answer,
    },
    /// The client's timeout fires while it still waits for the attempt.
    TimedOut,
    /// The client waits `wait_ms` before sending the next attempt.
    BackingOff {
        /// The backoff (ms).
        wait_ms: f64,
    },
    /// The client stops without a success (retries spent, its deadline, or its retry control
    /// refused the retry).
    GaveUp,
}

/// One recorded event: when, whose (payment and attempt) and what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// When (ms of simulated time).
    pub at_ms: f64,
    /// The payment, by arrival order in the run, from 0.
    pub payment: u64,
    /// The attempt of the payment, from 0 (the first send).
    pub attempt: u32,
    /// What happened.
    pub kind: EventKind,
}

/// The first pass: the first payment, in arrival order, whose retry met its key held by an
/// earlier attempt and was answered 409; preferably one whose holding attempt had waited in
/// the queue for a worker (the load the trace is about).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FirstConflict {
    /// The first such payment whose key's holder had waited in the queue.
    pub queued: Option<u64>,
    /// The first such payment.
    pub any: Option<u64>,
    /// The last look-up that found the key in flight: (payment, attempt).
    in_flight: Option<(u64, u32)>,
    /// The attempt that last reserved each payment's key.
    holders: std::collections::HashMap<u64, u32>,
    /// The attempts that waited in the queue: (payment, attempt).
    waited: std::collections::HashSet<(u64, u32)>,
}

impl FirstConflict {
    /// The payment to trace: the first whose key's holder had waited in the queue, else the
    /// first at all; `None` when no retry got such a 409.
    pub fn payment(&self) -> Option<u64> {
        self.queued.or(self.any)
    }
}

impl Recorder<Event> for FirstConflict {
    fn record_event(&mut self, event: Event) {
        let first = |found: &mut Option<u64>| {
            if found.is_none_or(|first| event.payment < first) {
                *found = Some(event.payment);
            }
        };
        match event.kind {
            EventKind::KeyLookedUp {
                found: KeyFound::InFlight,
            } => self.in_flight = Some((event.payment, event.attempt)),
            EventKind::KeyReserved => {
                self.holders.insert(event.payment, event.attempt);
            }
            EventKind::Queued { .. } => {
                self.waited.insert((event.payment, event.attempt));
            }
            EventKind::Answered {
                answer: Answer::Conflict409,
            } if self.in_flight == Some((event.payment, event.attempt)) && event.attempt > 0 => {
                first(&mut self.any);
                let holder = self.holders.get(&event.payment).copied();
                if holder.is_some_and(|holder| self.waited.contains(&(event.payment, holder))) {
                    first(&mut self.queued);
                }
            }
            _ => {}
        }
        if !matches!(event.kind, EventKind::KeyLookedUp { .. }) {
            self.in_flight = None;
        }
    }
}

/// The second pass: every event of one payment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PaymentLog {
    /// The payment kept, by arrival order.
    pub payment: u64,
    /// Its events, in the order they happened.
    pub events: Vec<Event>,
}

impl Recorder<Event> for PaymentLog {
    fn record_event(&mut self, event: Event) {
        if event.payment == self.payment {
            self.events.push(event);
        }
    }
}

/// The trace of one payment of a load run.
#[derive(Debug, Clone, PartialEq)]
pub struct PaymentTrace {
    /// The run (0).
    pub run: u32,
    /// The scenario, by index in the model.
    pub scenario: usize,
    /// The strategy.
    pub strategy: LoadStrategy,
    /// The payment, by arrival order in the run, from 0.
    pub payment: u64,
    /// Its events, in the order they happened (ms of simulated time).
    pub events: Vec<Event>,
}

impl PaymentTrace {
    /// When it arrived and sent its first attempt (ms of simulated time).
    pub fn arrived_ms(&self) -> f64 {
        self.events.first().map_or(0.0, |event| event.at_ms)
    }
}

/// Runs run `run` of scenario `scenario` under `strategy` as [`super::simulate_one`] does,
/// telling `recorder`.
fn run_recorded<R: Recorder<Event>>(
    model: &LoadModel,
    run: u32,
    scenario: usize,
    strategy: LoadStrategy,
    recorder: R,
    progress: &dyn Progress,
) -> Result<super::LoadTally, Interrupted> {
    let arrivals = model.arrivals_seed(run).pcg64();
    let events = model.events_seed(run).pcg64();
    Simulation::new(
        &model.scenarios[scenario],
        strategy,
        model.bucket_ms,
        arrivals,
        events,
    )
    .with_warm_up_ms(model.warm_up_ms)
    .recording(recorder)
    .run(progress)
}

/// The first payment of run 0 of scenario `scenario` under `strategy` whose retry was
/// answered 409 because an earlier attempt still held its key, traced: the first whose
/// holding attempt had waited in the queue for a worker if any had, else the first at all;
/// `None` when no retry got such a 409.
///
/// Runs the scenario's event loop twice on the calling thread, so the answer does not depend
/// on any thread count.
pub fn first_conflict(
    model: &LoadModel,
    scenario: usize,
    strategy: LoadStrategy,
    progress: &dyn Progress,
) -> Result<Option<PaymentTrace>, Interrupted> {
    let run = 0;
    let mut finder = FirstConflict::default();
    run_recorded(model, run, scenario, strategy, &mut finder, progress)?;
    let Some(payment) = finder.payment() else {
        return Ok(None);
    };
    let mut log = PaymentLog {
        payment,
        events: Vec::new(),
    };
    run_recorded(model, run, scenario, strategy, &mut log, progress)?;
    Ok(Some(PaymentTrace {
        run,
        scenario,
        strategy,
        payment,
        events: log.events,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::load::tests::scenario;
    use crate::model::load::{LoadScenario, LoadTally};
    use crate::model::semantics::{KeyServer, KeyStore};
    use engine::Silent;
    use engine::backoff::Backoff;
    use engine::distribution::Distribution;
    use engine::rng::SeedSequence;

    /// One worker, 10 ms each way, a fixed 500 ms processing, a 200 ms timeout, one retry
    /// after a constant 50 ms backoff; the key reserved in the other store as a request
    /// reaches the server (`key_first`, `unique_key`).
    fn slow_first_attempt() -> LoadScenario {
        let mut scenario = scenario();
        scenario.server.processing = Distribution::Fixed { ms: 500.0 };
        scenario.server.key_server = KeyServer {
            key_store: KeyStore::KeyFirst,
            ..KeyServer::default()
        };
        scenario.client.timeout_ms = 200.0;
        scenario.client.max_retries = 1;
        scenario.client.backoff = Backoff::Constant { base_ms: 50.0 };
        scenario
    }

    /// The loop on `arrivals`, telling `recorder`.
    fn run<R: Recorder<Event>>(
        scenario: &LoadScenario,
        arrivals: &[f64],
        recorder: R,
    ) -> LoadTally {
        let stream = || SeedSequence::new(1).pcg64();
        Simulation::new(scenario, LoadStrategy::UniqueKey, 100.0, stream(), stream())
            .with_arrival_times(arrivals)
            .recording(recorder)
            .run(&Silent)
            .unwrap()
    }

    fn kinds_and_times(events: &[Event]) -> Vec<(f64, u32, EventKind)> {
        events
            .iter()
            .map(|event| (event.at_ms, event.attempt, event.kind))
            .collect()
    }

    /// By hand: A arrives at 0 and B at 5. A reaches the server at 10, reserves its key and
    /// takes the one worker until 510. B reaches it at 15, reserves its key and waits in the
    /// queue behind nobody (A holds the worker). B times out at 205, backs off 50 ms and sends
    /// its retry at 255, which reaches the server at 265 and finds the key B's first attempt
    /// holds while it still waits: 409 at once, heard at 275, and B has no retry left. At 510
    /// the worker takes B's first attempt (after 495 ms in the queue), processes it until
    /// 1,010 and charges; the 200 comes at 1,020, after the client gave up.
    #[test]
    fn a_retry_meets_the_key_its_queued_first_attempt_holds_at_the_hand_computed_times() {
        let scenario = slow_first_attempt();
        let mut finder = FirstConflict::default();
        run(&scenario, &[0.0, 5.0], &mut finder);
        // A's retry got its 409 first (at 260), and A is payment 0; but A's first attempt
        // never waited in the queue, and B's did: B is the one traced.
        assert_eq!((finder.any, finder.queued), (Some(0), Some(1)));
        assert_eq!(finder.payment(), Some(1));
        let mut log = PaymentLog {
            payment: 1,
            events: Vec::new(),
        };
        run(&scenario, &[0.0, 5.0], &mut log);
        use EventKind::*;
        use KeyFound::*;
        let conflict = Answer::Conflict409;
        assert_eq!(
            kinds_and_times(&log.events),
            [
                (5.0, 0, Sent),
                (15.0, 0, Reached),
                (15.0, 0, KeyLookedUp { found: Absent }),
                (15.0, 0, KeyReserved),
                (15.0, 0, Queued { ahead: 0 }),
                (205.0, 0, TimedOut),
                (205.0, 0, BackingOff { wait_ms: 50.0 }),
                (255.0, 1, Sent),
                (265.0, 1, Reached),
                (265.0, 1, KeyLookedUp { found: InFlight }),
                (265.0, 1, Answered { answer: conflict }),
                (275.0, 1, Received { answer: conflict }),
                (275.0, 1, GaveUp),
                (510.0, 0, Taken { waited_ms: 495.0 }),
                (510.0, 0, ProcessingStarted { until_ms: 1_010.0 }),
                (1_010.0, 0, Charged { nth: 1 }),
                (1_010.0, 0, KeySaved),
                (1_010.0, 0, Answered { answer: Answer::Ok }),
                (1_020.0, 0, ReceivedLate { answer: Answer::Ok }),
            ]
        );
    }

    /// Without `key_first` the key is inserted when a worker takes the request: B's retry
    /// queues behind B's first attempt and finds the stored response, so no retry gets a 409.
    #[test]
    fn a_key_inserted_by_the_worker_replays_the_queued_retry() {
        let mut scenario = slow_first_attempt();
        scenario.server.key_server = KeyServer::default();
        let mut finder = FirstConflict::default();
        let tally = run(&scenario, &[0.0, 5.0], &mut finder);
        assert_eq!(finder.payment(), None);
        assert_eq!(tally.counts.conflicts, 0);
        assert_eq!(tally.counts.replays, 2);
    }

    /// Recording changes nothing: a loaded run with losses, crashes, a key store in front and
    /// drawn times has the same tally with a recorder as without, under every strategy.
    #[test]
    fn a_recorded_run_has_the_unrecorded_tally() {
        let mut scenario = scenario();
        scenario.arrivals.phases[0].rate = crate::model::load::PhaseRate::Constant(12.0);
        scenario.server.processing = Distribution::Exponential { mean_ms: 90.0 };
        scenario.server.error_rate = 0.05;
        scenario.network.ack_loss = 0.1;
        scenario.server.key_server = KeyServer {
            crash_rate: 0.05,
            key_store: KeyStore::KeyFirst,
            key_lock_ttl_ms: 1_500.0,
            ..KeyServer::default()
        };
        scenario.client.timeout_ms = 300.0;
        scenario.client.backoff = Backoff::Constant { base_ms: 20.0 };
        for strategy in LoadStrategy::ALL {
            let loop_of = || {
                let stream = |key| SeedSequence::with_spawn_key(3, &[key]).pcg64();
                Simulation::new(&scenario, strategy, 100.0, stream(10), stream(11))
            };
            let plain = loop_of().run(&Silent).unwrap();
            let mut finder = FirstConflict::default();
            let found = loop_of().recording(&mut finder).run(&Silent).unwrap();
            assert_eq!(found, plain, "{strategy:?}");
            let mut log = PaymentLog {
                payment: finder.payment().unwrap_or(0),
                events: Vec::new(),
            };
            let logged = loop_of().recording(&mut log).run(&Silent).unwrap();
            assert_eq!(logged, plain, "{strategy:?}");
            assert_eq!(
                log.events.first().map(|event| event.kind),
                Some(EventKind::Sent)
            );
            if strategy == LoadStrategy::UniqueKey {
                assert!(
                    finder.queued.is_some(),
                    "an overloaded unique_key run has a 409"
                );
            }
        }
    }
}
