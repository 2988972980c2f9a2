//! One payment's timeline: a deterministic discrete-event simulation of its copies, their
//! attempts, the network and the server's handling of its key. Each kind of event has its own
//! small handler over the payment's state ([`PaymentRun`]).
//!
//! Events wait in a queue ordered by (time, sequence number): two events at the same time
//! happen in the order they were scheduled, so a response that arrives exactly at the
//! client's timeout is too late (the timeout was scheduled first, when the attempt was sent).
//!
//! Every random number comes from the payment's draws ([`PaymentDraws`]), in a fixed layout
//! whatever the strategy, so the strategies are compared on common random numbers.

use super::backend::{
    self, BackendDraws, CrashPoint, KeyStore, ProcessingDraws, ReceiptMode, Receipts,
};
use super::draws::PaymentDraws;
use super::events::{Answer, EventKind, KeyFound, Recorder};
use super::{CopyMode, Counters, ErrorPolicy, Scenario, Strategy};
use crate::model::semantics::{self, KeyRecord, KeyState};
use engine::distribution::Sampler;
use engine::queue::EventQueue;
use engine::queue::heap::Heap;
use engine::queue::small::SmallQueue;
use engine::{Interrupted, Progress};

mod server;

/// The body a delivery carries: the payment's own, or another one (each different body is
/// unlike every other).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Body {
    Original,
    Different,
}

/// An attempt on its way to the server; its processing time and its response's fate are in
/// its sample ([`PaymentDraws::sampled`]), so that events stay small.
#[derive(Debug, Clone, Copy)]
struct Delivery {
    copy: u32,
    attempt: u32,
    body: Body,
}

/// A processing the server finishes: it charges, or it fails with a 500.
#[derive(Debug, Clone, Copy)]
struct Processing {
    copy: u32,
    attempt: u32,
    body: Body,
    fails: bool,
    /// The delivery arrived after its key had been pruned.
    after_expiry: bool,
    /// The server crashes at this point of the processing.
    crash: Option<CrashPoint>,
}

impl Delivery {
    /// Its answer, `answer`.
    fn answered(self, answer: Answer) -> Response {
        Response {
            copy: self.copy,
            attempt: self.attempt,
            answer,
            body: self.body,
        }
    }
}

impl Processing {
    /// The delivery it processes.
    fn delivery(self) -> Delivery {
        Delivery {
            copy: self.copy,
            attempt: self.attempt,
            body: self.body,
        }
    }
}

/// A response on its way to the client.
#[derive(Debug, Clone, Copy)]
struct Response {
    copy: u32,
    attempt: u32,
    answer: Answer,
    body: Body,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    /// A copy sends its next attempt.
    Send { copy: u32 },
    /// An attempt reaches the server.
    Arrive(Delivery),
    /// The server finishes processing an attempt.
    Complete(Processing),
    /// A response reaches the client.
    Receive(Response),
    /// The client stops waiting for an attempt.
    Timeout { copy: u32, attempt: u32 },
    /// An offline client is back on the network: it resends, or gives up without retries.
    Reconnect { copy: u32 },
}

/// Copies up to which a payment's pending events (at most about three per copy) sit in an
/// unordered buffer scanned for the earliest, which beats a heap for so few (callgrind: 14%
/// fewer instructions with one copy, 15% more with ten).
const SCANNED_COPIES_MAX: u32 = 2;

/// What a trace says a look-up found in a key holding `state`.
fn found(state: KeyState) -> KeyFound {
    match state {
        KeyState::Absent => KeyFound::Absent,
        KeyState::InFlight => KeyFound::InFlight,
        KeyState::Complete => KeyFound::Complete,
        KeyState::Failed => KeyFound::Failed,
    }
}

/// One copy's client.
#[derive(Debug, Clone, Copy)]
struct Client {
    /// Attempts sent so far.
    attempts: u32,
    /// The attempt the client is waiting for, if any.
    waiting: Option<u32>,
    /// The jitter draw of the attempt it sent last, for the backoff before its next retry.
    jitter: f64,
    /// The wait before its previous retry (decorrelated jitter grows from it).
    previous_backoff_ms: f64,
    /// It succeeded or gave up.
    done: bool,
}

/// What happened to one payment under one strategy.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PaymentOutcome {
    /// The payment's counters (`payments` is 1).
    pub counts: Counters,
    /// From the first send to the first success response, or else to the last copy giving up
    /// (ms).
    pub latency_ms: f64,
}

impl PaymentOutcome {
    /// The outcome of a payment whose only copy's first attempt was delivered, charged with
    /// the payment's own body and answered at `received_ms`, and which had no other delivery
    /// (the handlers' counts for that one path, through the same [`PaymentState::outcome`]).
    pub fn first_attempt_charged(received_ms: f64) -> Self {
        let mut state = PaymentState::new();
        state.counts.attempts = 1;
        state.counts.deliveries = 1;
        state.counts.charges = 1;
        state.original_charges = 1;
        state.processed = true;
        state.first_success_ms = Some(received_ms);
        // Only scenarios without a backend take the shortcut, so there are no receipts.
        state.outcome(None)
    }
}

/// What a payment of the plain one-copy model did ([`super::single_copy`]): the counters
/// that model can change, and its times.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainCounts {
    /// Attempts sent.
    pub attempts: u64,
    /// Attempts that reached the server.
    pub deliveries: u64,
    /// Processings, each a charge with the payment's own body.
    pub charges: u64,
    /// Deliveries answered with the stored response.
    pub replays: u64,
    /// Deliveries answered 409.
    pub conflicts: u64,
    /// The client accepted a replayed response.
    pub accepted_replay: bool,
    /// When the client received its success (ms), if it did.
    pub first_success_ms: Option<f64>,
    /// When the client gave up (ms; 0 if it did not).
    pub last_give_up_ms: f64,
}

impl PaymentOutcome {
    /// The outcome of a plain one-copy payment that did `counts` (through the same
    /// [`PaymentState::outcome`] as the event loop's).
    pub fn plain(counts: &PlainCounts) -> Self {
        let mut state = PaymentState::new();
        state.counts.attempts = counts.attempts;
        state.counts.deliveries = counts.deliveries;
        state.counts.charges = counts.charges;
        state.counts.replays = counts.replays;
        state.counts.conflicts = counts.conflicts;
        state.original_charges = counts.charges;
        state.processed = counts.charges > 0;
        state.accepted_replay_of_original = counts.accepted_replay;
        state.first_success_ms = counts.first_success_ms;
        state.last_give_up_ms = counts.last_give_up_ms;
        // No backend: no receipts.
        state.outcome(None)
    }
}

/// What the server and the clients know of one payment while its events are handled.
struct PaymentState {
    key: KeyRecord,
    counts: Counters,
    first_success_ms: Option<f64>,
    last_give_up_ms: f64,
    /// The first processing has started (only it can fail).
    processed: bool,
    /// The last failure was not stored: the next processing is a retry of it.
    unstored_failure: bool,
    /// The key was pruned at least once.
    pruned: bool,
    /// Charges made with the payment's own body.
    original_charges: u64,
    /// A client accepted a replayed success for the payment's own body.
    accepted_replay_of_original: bool,
    /// A client accepted a replayed success for a different body (nothing charged it).
    accepted_replay_of_different: bool,
    /// Some call of the payment reached the provider (a provider honouring the key charges
    /// only the first).
    provider_reached: bool,
    /// Direct receipts that reached the customer.
    direct_receipts: u64,
    /// Outbox rows committed with a charge.
    outbox_rows: u64,
    /// A `key_first` key of the payment was left in flight.
    stuck: bool,
    /// Its first client went offline after its first send.
    offline: bool,
}

impl PaymentState {
    fn new() -> Self {
        Self {
            key: KeyRecord::ABSENT,
            counts: Counters::default(),
            first_success_ms: None,
            last_give_up_ms: 0.0,
            processed: false,
            unstored_failure: false,
            pruned: false,
            original_charges: 0,
            accepted_replay_of_original: false,
            accepted_replay_of_different: false,
            provider_reached: false,
            direct_receipts: 0,
            outbox_rows: 0,
            stuck: false,
            offline: false,
        }
    }

    /// Whether a look-up by key at `at_ms` finds the key holding a success response under
    /// `strategy` with the key TTL `key_ttl_ms` (`none` keeps no key; a key past its TTL is
    /// pruned; a key left in flight is found once its completer completed it).
    fn key_holds_success_at(
        &self,
        strategy: Strategy,
        key_ttl_ms: Option<f64>,
        at_ms: f64,
    ) -> bool {
        let key = &self.key;
        let state = match key.state {
            KeyState::InFlight => {
                let in_flight = crate::model::semantics::InFlight {
                    lock_expires_ms: key.lock_expires_ms,
                    release: key.release,
                };
                match in_flight.fate(at_ms) {
                    crate::model::semantics::Fate::Completed => KeyState::Complete,
                    _ => KeyState::InFlight,
                }
            }
            state => state,
        };
        strategy != Strategy::None
            && state == KeyState::Complete
            && key_ttl_ms.is_none_or(|ttl| at_ms < key.created_ms + ttl)
    }

    /// The payment's counters and latency once every client is done, with the offline and
    /// reconciliation counts of `scenario`'s client lifecycle under `strategy`.
    fn settled(self, scenario: &Scenario, strategy: Strategy) -> PaymentOutcome {
        let lifecycle = scenario.client_lifecycle;
        let reconciled = lifecycle.reconciliation.is_some_and(|reconciliation| {
            self.first_success_ms.is_none()
                && self.counts.charges > 0
                && self.key_holds_success_at(
                    strategy,
                    scenario.key.key_ttl_ms,
                    self.last_give_up_ms + reconciliation.after_ms,
                )
        });
        let offline = self.offline;
        let mut outcome = self.outcome(scenario.backend.receipts);
        let counts = &mut outcome.counts;
        counts.offline_payments = u64::from(offline);
        counts.offline_double_charged = u64::from(offline && counts.charges >= 2);
        counts.reconciled = u64::from(reconciled);
        counts.told_failed_after_reconciliation -= counts.reconciled;
        outcome
    }

    /// The payment's counters and latency once every client is done; `receipts` says how its
    /// receipts were sent.
    fn outcome(self, receipts: Option<Receipts>) -> PaymentOutcome {
        let mut counts = self.counts;
        counts.duplicate_provider_charges = counts.provider_charges.saturating_sub(1);
        counts.stuck_payments = u64::from(self.stuck);
        if let Some(receipts) = receipts {
            let outcome = receipts.outcome(self.direct_receipts, self.outbox_rows, counts.charges);
            counts.receipts_sent = outcome.sent;
            counts.receipts_duplicated = outcome.duplicated;
            counts.receipts_missing = u64::from(outcome.missing);
        }
        let succeeded = self.first_success_ms.is_some();
        counts.payments = 1;
        counts.double_charged_payments = u64::from(counts.charges >= 2);
        counts.extra_charges = counts.charges.saturating_sub(1);
        counts.succeeded = u64::from(succeeded);
        counts.gave_up_charged = u64::from(!succeeded && counts.charges > 0);
        counts.gave_up_not_charged = u64::from(!succeeded && counts.charges == 0);
        // Nothing reconciled yet ([`PaymentState::settled`] subtracts what the look-up finds).
        counts.told_failed_after_reconciliation = counts.gave_up_charged;
        counts.told_succeeded_not_charged = u64::from(semantics::told_succeeded_not_charged(
            self.accepted_replay_of_different,
            self.accepted_replay_of_original,
            self.original_charges,
        ));
        PaymentOutcome {
            counts,
            latency_ms: self.first_success_ms.unwrap_or(self.last_give_up_ms),
        }
    }
}

/// Reusable buffers for simulating many payments on one thread.
#[derive(Default)]
pub struct Simulator {
    queue: SmallQueue<Event>,
    clients: Vec<Client>,
    /// Events handled by every run so far (for speed measurements).
    events: u64,
}

/// Events handled between two looks at [`Progress::should_stop`] within one payment.
const EVENTS_BETWEEN_STOP_CHECKS: u32 = 1 << 16;

impl Simulator {
    /// Simulates one payment of `scenario` under `strategy` with the draws `draws`; a payment
    /// with very many events stops early when `progress` asks.
    pub fn run(
        &mut self,
        scenario: &Scenario,
        strategy: Strategy,
        draws: &mut PaymentDraws,
        backend: &BackendDraws,
        progress: &dyn Progress,
    ) -> Result<PaymentOutcome, Interrupted> {
        self.queue
            .clear(scenario.arrivals.copies <= SCANNED_COPIES_MAX);
        let (queue, clients) = (&mut self.queue, &mut self.clients);
        let payment = (scenario, strategy, draws, backend);
        Self::run_on(queue, clients, &mut self.events, payment, progress, &mut ())
    }

    /// [`Simulator::run`] of `payment` (its scenario, strategy, draws and backend draws),
    /// telling `recorder` every event as it is handled.
    ///
    /// The events wait in engine's plain [`Heap`] here, which keeps the same ordering
    /// contract as the [`SmallQueue`] of [`Simulator::run`] (both pass the queues' conformance
    /// test), so the events and the outcome are the same. The unrecorded loop keeps its queue
    /// to itself: a queue's `pop` called from one instance of the loop is inlined into it,
    /// from two (recorded and not) it was not, and the unrecorded runs took 7% more
    /// instructions per payment of `configs/same-key-burst.toml` (callgrind).
    pub fn run_recorded<R: Recorder>(
        &mut self,
        payment: (&Scenario, Strategy, &mut PaymentDraws, &BackendDraws),
        progress: &dyn Progress,
        recorder: &mut R,
    ) -> Result<PaymentOutcome, Interrupted> {
        let mut queue = Heap::new();
        let (clients, events) = (&mut self.clients, &mut self.events);
        Self::run_on(&mut queue, clients, events, payment, progress, recorder)
    }

    /// The event loop of one payment on the empty queue `queue`, with the clients' buffer
    /// `clients`, adding the events it handles to `handled`.
    #[inline(always)]
    fn run_on<Q: EventQueue<Event = Event>, R: Recorder>(
        queue: &mut Q,
        clients: &mut Vec<Client>,
        handled: &mut u64,
        (scenario, strategy, draws, backend): (
            &Scenario,
            Strategy,
            &mut PaymentDraws,
            &BackendDraws,
        ),
        progress: &dyn Progress,
        recorder: &mut R,
    ) -> Result<PaymentOutcome, Interrupted> {
        clients.clear();
        let initial_backoff_ms = scenario.client.backoff.initial_ms();
        clients.extend((0..scenario.arrivals.copies).map(|_| Client {
            attempts: 0,
            waiting: None,
            jitter: 0.0,
            previous_backoff_ms: initial_backoff_ms,
            done: false,
        }));
        let mut run = PaymentRun {
            scenario,
            strategy,
            draws,
            backend,
            provider_latency: scenario
                .backend
                .provider
                .map(|provider| provider.latency.sampler()),
            key_store_latency: scenario
                .backend
                .key
                .key_store_latency
                .map(|latency| latency.sampler()),
            queue,
            clients,
            state: PaymentState::new(),
            recorder,
        };
        run.send_first_copies();
        let mut until_check = EVENTS_BETWEEN_STOP_CHECKS;
        let mut events = 0;
        while let Some((now, event)) = run.queue.pop() {
            run.handle(now, event);
            events += 1;
            until_check -= 1;
            if until_check == 0 {
                if progress.should_stop() {
                    return Err(Interrupted);
                }
                until_check = EVENTS_BETWEEN_STOP_CHECKS;
            }
        }
        debug_assert!(run.clients.iter().all(|client| client.done));
        *handled += events;
        Ok(run.state.settled(scenario, strategy))
    }

    /// The events (sends, arrivals, completions, receptions, timeouts) its runs have handled.
    pub fn events_handled(&self) -> u64 {
        self.events
    }
}

/// One payment under one strategy while its events are handled, told to `recorder`.
struct PaymentRun<'a, R: Recorder, Q: EventQueue<Event = Event>> {
    scenario: &'a Scenario,
    strategy: Strategy,
    draws: &'a mut PaymentDraws,
    backend: &'a BackendDraws,
    /// The provider's round trip, ready to sample.
    provider_latency: Option<Sampler>,
    /// One call to the other key store, ready to sample.
    key_store_latency: Option<Sampler>,
    queue: &'a mut Q,
    clients: &'a mut [Client],
    state: PaymentState,
    recorder: &'a mut R,
}

impl<R: Recorder, Q: EventQueue<Event = Event>> PaymentRun<'_, R, Q> {
    /// Sequential copies: copy 0 at once; concurrent copies: each at its offset in the spread.
    fn send_first_copies(&mut self) {
        let arrivals = &self.scenario.arrivals;
        match arrivals.copy_mode {
            CopyMode::Sequential => self.queue.schedule(0.0, Event::Send { copy: 0 }),
            CopyMode::Concurrent => {
                let copies = arrivals.copies();
                for copy in 0..copies.count {
                    let offsets = &self.draws.copy_offsets;
                    let offset = copies.offset_ms(copy, || offsets[copy as usize]);
                    self.queue.schedule(offset, Event::Send { copy });
                }
            }
        }
    }

    fn handle(&mut self, now: f64, event: Event) {
        match event {
            Event::Send { copy } => self.send(now, copy),
            Event::Arrive(delivery) => self.arrive(now, delivery),
            Event::Complete(processing) => self.complete(now, processing),
            Event::Receive(response) => self.receive(now, response),
            Event::Reconnect { copy } => self.reconnect(now, copy),
            Event::Timeout { copy, attempt } => {
                if self.clients[copy as usize].waiting == Some(attempt) {
                    self.recorder
                        .record(now, copy, attempt, EventKind::TimedOut);
                    self.retry_or_give_up(now, copy);
                }
            }
        }
    }

    /// A copy sends its next attempt: its timeout starts, and unless the request is lost it
    /// travels to the server.
    fn send(&mut self, now: f64, copy: u32) {
        let client = &mut self.clients[copy as usize];
        let attempt = client.attempts;
        client.attempts += 1;
        client.waiting = Some(attempt);
        let sample = self.draws.attempt(copy, attempt);
        client.jitter = sample.jitter;
        self.state.counts.attempts += 1;
        let policy = &self.scenario.client;
        let body = if attempt > 0
            && self.draws.lifecycle.different_body(copy, attempt) < policy.different_body_rate
        {
            Body::Different
        } else {
            Body::Original
        };
        self.recorder.record(now, copy, attempt, EventKind::Sent);
        if let Some(offline_ms) = self
            .draws
            .client
            .offline_ms()
            .filter(|_| copy == 0 && attempt == 0)
        {
            // The client loses the network right after sending: it never hears this
            // attempt's answer and comes back `offline_ms` later.
            self.clients[0].waiting = None;
            self.state.offline = true;
            let until_ms = now + offline_ms;
            self.queue.schedule(until_ms, Event::Reconnect { copy });
            self.recorder
                .record(now, copy, attempt, EventKind::WentOffline { until_ms });
        } else {
            self.queue
                .schedule(now + policy.timeout_ms, Event::Timeout { copy, attempt });
        }
        if sample.request_lost {
            self.recorder
                .record(now, copy, attempt, EventKind::RequestLost);
        } else {
            let delivery = Delivery {
                copy,
                attempt,
                body,
            };
            self.queue
                .schedule(now + sample.request_ms, Event::Arrive(delivery));
        }
    }

    /// A response reaches its client; one that comes after the client timed out is ignored.
    fn receive(&mut self, now: f64, response: Response) {
        let copy = response.copy;
        let (attempt, answer) = (response.attempt, response.answer);
        if self.clients[copy as usize].waiting != Some(attempt) {
            self.recorder
                .record(now, copy, attempt, EventKind::ReceivedLate { answer });
            return;
        }
        self.recorder
            .record(now, copy, attempt, EventKind::Received { answer });
        match response.answer {
            Answer::Conflict | Answer::ServerError => self.retry_or_give_up(now, copy),
            Answer::Rejected => {
                self.recorder.record(now, copy, attempt, EventKind::GaveUp);
                self.finish(copy);
                self.state.last_give_up_ms = self.state.last_give_up_ms.max(now);
                self.next_sequential_copy(now, copy);
            }
            Answer::Charged | Answer::Replayed => {
                if response.answer == Answer::Replayed {
                    match response.body {
                        // Each different body is unlike every other: nothing charged it.
                        Body::Different => self.state.accepted_replay_of_different = true,
                        Body::Original => self.state.accepted_replay_of_original = true,
                    }
                }
                self.finish(copy);
                self.state.first_success_ms.get_or_insert(now);
                self.next_sequential_copy(now, copy);
            }
        }
    }

    /// The copy's client stops: it succeeded, or was told the payment failed.
    fn finish(&mut self, copy: u32) {
        let client = &mut self.clients[copy as usize];
        client.waiting = None;
        client.done = true;
    }

    /// After a timeout, a 409 or a 500: wait the backoff and retry, or give up.
    fn retry_or_give_up(&mut self, now: f64, copy: u32) {
        let policy = &self.scenario.client;
        let client = &mut self.clients[copy as usize];
        client.waiting = None;
        let retry = client.attempts - 1;
        if retry < policy.max_retries {
            let wait = policy
                .backoff
                .delay_ms(retry, client.previous_backoff_ms, client.jitter);
            client.previous_backoff_ms = wait;
            self.queue.schedule(now + wait, Event::Send { copy });
            self.recorder
                .record(now, copy, retry, EventKind::BackingOff { wait_ms: wait });
        } else {
            self.give_up(now, copy, retry);
        }
    }

    /// An offline client reconnects: it resends at once with the same key, as its first
    /// retry, or gives up if it has no retries.
    fn reconnect(&mut self, now: f64, copy: u32) {
        let retry = self.clients[copy as usize].attempts - 1;
        if retry < self.scenario.client.max_retries {
            self.send(now, copy);
        } else {
            self.give_up(now, copy, retry);
        }
    }

    /// The copy's client gives up after `retry` retries.
    fn give_up(&mut self, now: f64, copy: u32, retry: u32) {
        self.recorder.record(now, copy, retry, EventKind::GaveUp);
        self.clients[copy as usize].done = true;
        self.state.last_give_up_ms = self.state.last_give_up_ms.max(now);
        self.next_sequential_copy(now, copy);
    }

    /// In sequential mode, the next copy is sent when this one reached its final outcome.
    fn next_sequential_copy(&mut self, now: f64, copy: u32) {
        let arrivals = &self.scenario.arrivals;
        if arrivals.copy_mode == CopyMode::Sequential && copy + 1 < arrivals.copies {
            self.queue.schedule(now, Event::Send { copy: copy + 1 });
        }
    }
}
