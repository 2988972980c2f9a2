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
use super::{CopyMode, CopySpacing, Counters, DuplicateAnswer, ErrorPolicy, Scenario, Strategy};
use engine::distribution::Sampler;
use engine::queue::small::SmallQueue;
use engine::{Interrupted, Progress};

/// What the server answered to a delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Processed and charged.
    Charged,
    /// A success without processing: the stored response of an earlier delivery, or a 200 to
    /// a duplicate; nothing charged.
    Replayed,
    /// 409 Conflict: the key is still in flight (or a receiver answers duplicates 409); try
    /// again later.
    Conflict,
    /// 500: the processing failed, or a stored failure or a receiver's 500 to a duplicate; try
    /// again later.
    ServerError,
    /// 422: the body does not match the key's fingerprint; the client stops.
    Rejected,
}

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
}

/// Copies up to which a payment's pending events (at most about three per copy) sit in an
/// unordered buffer scanned for the earliest, which beats a heap for so few (callgrind: 14%
/// fewer instructions with one copy, 15% more with ten).
const SCANNED_COPIES_MAX: u32 = 2;

/// The server's record of the payment's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyState {
    Absent,
    /// `unique_key`: inserted, processing not finished.
    InFlight,
    /// Inserted with a stored success response.
    Complete,
    /// Inserted with a stored 500 (`error_policy = "store"`).
    Failed,
}

/// The key with its creation time and the body it was created for.
#[derive(Debug, Clone, Copy)]
struct Key {
    state: KeyState,
    /// When it was inserted (ms); the store prunes it `key_ttl_ms` later.
    created_ms: f64,
    /// The body of the delivery that inserted it (its fingerprint).
    body: Body,
    /// When a `key_first` reservation's lock expires and the store drops it (ms; infinite for
    /// the other stores).
    lock_expires_ms: f64,
    /// A key left in flight by a crash: when it leaves that state (lock expiry or completer)
    /// and what it becomes then.
    release: Option<(f64, KeyState)>,
}

impl Key {
    /// The key becomes `state`; created now, for `body`, if it was absent.
    fn store(&mut self, state: KeyState, now: f64, body: Body) {
        if self.state == KeyState::Absent {
            self.created_ms = now;
            self.body = body;
        }
        self.state = state;
        self.release = None;
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
    key: Key,
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
}

impl PaymentState {
    fn new() -> Self {
        Self {
            key: Key {
                state: KeyState::Absent,
                created_ms: 0.0,
                body: Body::Original,
                lock_expires_ms: f64::INFINITY,
                release: None,
            },
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
        }
    }

    /// The payment's counters and latency once every client is done; `receipts` says how its
    /// receipts were sent.
    fn outcome(self, receipts: Option<Receipts>) -> PaymentOutcome {
        let mut counts = self.counts;
        counts.duplicate_provider_charges = counts.provider_charges.saturating_sub(1);
        counts.stuck_payments = u64::from(self.stuck);
        if let Some(receipts) = receipts {
            counts.receipts_sent = match receipts.mode {
                ReceiptMode::Direct => self.direct_receipts,
                // The sender deduplicates by message id, the payment's key.
                ReceiptMode::Outbox => self.outbox_rows.min(1),
            };
            counts.receipts_duplicated = counts.receipts_sent.saturating_sub(1);
            counts.receipts_missing = u64::from(counts.charges > 0 && counts.receipts_sent == 0);
        }
        let succeeded = self.first_success_ms.is_some();
        counts.payments = 1;
        counts.double_charged_payments = u64::from(counts.charges >= 2);
        counts.extra_charges = counts.charges.saturating_sub(1);
        counts.succeeded = u64::from(succeeded);
        counts.gave_up_charged = u64::from(!succeeded && counts.charges > 0);
        counts.gave_up_not_charged = u64::from(!succeeded && counts.charges == 0);
        counts.told_succeeded_not_charged = u64::from(
            self.accepted_replay_of_different
                || (self.accepted_replay_of_original && self.original_charges == 0),
        );
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
        self.clients.clear();
        let initial_backoff_ms = scenario.client.backoff.initial_ms();
        self.clients
            .extend((0..scenario.arrivals.copies).map(|_| Client {
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
            queue: &mut self.queue,
            clients: &mut self.clients,
            state: PaymentState::new(),
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
        self.events += events;
        Ok(run.state.outcome(scenario.backend.receipts))
    }

    /// The events (sends, arrivals, completions, receptions, timeouts) its runs have handled.
    pub fn events_handled(&self) -> u64 {
        self.events
    }
}

/// One payment under one strategy while its events are handled.
struct PaymentRun<'a> {
    scenario: &'a Scenario,
    strategy: Strategy,
    draws: &'a mut PaymentDraws,
    backend: &'a BackendDraws,
    /// The provider's round trip, ready to sample.
    provider_latency: Option<Sampler>,
    queue: &'a mut SmallQueue<Event>,
    clients: &'a mut [Client],
    state: PaymentState,
}

impl PaymentRun<'_> {
    /// Sequential copies: copy 0 at once; concurrent copies: each at its offset in the spread.
    fn send_first_copies(&mut self) {
        let arrivals = &self.scenario.arrivals;
        match arrivals.copy_mode {
            CopyMode::Sequential => self.queue.schedule(0.0, Event::Send { copy: 0 }),
            CopyMode::Concurrent => {
                let copies = arrivals.copies;
                let spread = arrivals.copy_spread_ms;
                for copy in 0..copies {
                    let offset = match arrivals.copy_spacing {
                        CopySpacing::Even if copies > 1 => {
                            spread * f64::from(copy) / f64::from(copies - 1)
                        }
                        CopySpacing::Even => 0.0,
                        CopySpacing::Random if copy == 0 => 0.0,
                        CopySpacing::Random => spread * self.draws.copy_offsets[copy as usize],
                    };
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
            Event::Timeout { copy, attempt } => {
                if self.clients[copy as usize].waiting == Some(attempt) {
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
        self.queue
            .schedule(now + policy.timeout_ms, Event::Timeout { copy, attempt });
        if !sample.request_lost {
            let delivery = Delivery {
                copy,
                attempt,
                body,
            };
            self.queue
                .schedule(now + sample.request_ms, Event::Arrive(delivery));
        }
    }

    /// A delivery reaches the server: the key is pruned if it expired, then the delivery is
    /// answered at once from the key, or processed.
    fn arrive(&mut self, now: f64, delivery: Delivery) {
        self.state.counts.deliveries += 1;
        self.prune_expired_key(now);
        let key = &mut self.state.key;
        let answer = match (self.strategy, key.state) {
            (Strategy::None, _) | (Strategy::CheckThenInsert, KeyState::Absent) => None,
            (Strategy::UniqueKey, KeyState::Absent) => {
                let backend = &self.scenario.backend;
                *key = Key {
                    state: KeyState::InFlight,
                    created_ms: now,
                    body: delivery.body,
                    lock_expires_ms: match backend.key_store {
                        KeyStore::KeyFirst => now + backend.key_lock_ttl_ms,
                        _ => f64::INFINITY,
                    },
                    release: None,
                };
                None
            }
            (_, state) => Some(self.answer_from_key(state, delivery.body)),
        };
        match answer {
            None => self.start_processing(now, delivery),
            Some(answer) => {
                let counts = &mut self.state.counts;
                match answer {
                    Answer::Replayed => counts.replays += 1,
                    Answer::Conflict => counts.conflicts += 1,
                    Answer::ServerError => counts.errors_replayed += 1,
                    Answer::Rejected => counts.rejected_mismatches += 1,
                    Answer::Charged => {}
                }
                let response = Response {
                    copy: delivery.copy,
                    attempt: delivery.attempt,
                    answer,
                    body: delivery.body,
                };
                self.respond(now, response);
            }
        }
    }

    /// A keeping strategy's store prunes a key `key_ttl_ms` after creating it.
    fn prune_expired_key(&mut self, now: f64) {
        let key = &mut self.state.key;
        if self.strategy != Strategy::None
            && key.state != KeyState::Absent
            && self
                .scenario
                .key
                .key_ttl_ms
                .is_some_and(|ttl| now >= key.created_ms + ttl)
        {
            key.state = KeyState::Absent;
            self.state.pruned = true;
        }
        if key.state == KeyState::InFlight {
            if let Some((_, state)) = key.release.filter(|&(at_ms, _)| now >= at_ms) {
                key.state = state;
                key.release = None;
            } else if now >= key.lock_expires_ms {
                key.state = KeyState::Absent;
            }
        }
    }

    /// The immediate answer to a delivery whose key is present in `state`: 422 for another
    /// body with a fingerprint, else the duplicate answer (a wrong replay if the bodies
    /// differ).
    fn answer_from_key(&mut self, state: KeyState, body: Body) -> Answer {
        let lifecycle = &self.scenario.key;
        let mismatch = body == Body::Different || self.state.key.body == Body::Different;
        if mismatch && lifecycle.fingerprint {
            return Answer::Rejected;
        }
        let answer = match (lifecycle.duplicate_answer, state) {
            (DuplicateAnswer::Replay, KeyState::InFlight) | (DuplicateAnswer::Conflict409, _) => {
                Answer::Conflict
            }
            (DuplicateAnswer::Replay, KeyState::Failed) | (DuplicateAnswer::Error500, _) => {
                Answer::ServerError
            }
            _ => Answer::Replayed,
        };
        if mismatch && answer == Answer::Replayed {
            self.state.counts.wrong_replays += 1;
        }
        answer
    }

    /// The server processes a delivery; only the payment's first processing can fail with
    /// `error_rate`, any can crash or fail at the provider.
    fn start_processing(&mut self, now: f64, delivery: Delivery) {
        let state = &mut self.state;
        let mut fails = !state.processed
            && self
                .draws
                .lifecycle
                .failure(delivery.copy, delivery.attempt)
                < self.scenario.key.error_rate;
        state.counts.errors_retried += u64::from(state.unstored_failure);
        state.processed = true;
        let after_expiry = state.pruned;
        let mut processing_ms = self
            .draws
            .sampled(delivery.copy, delivery.attempt)
            .processing_ms;
        let draws = self.backend.processing(delivery.copy, delivery.attempt);
        let mut crash = (!fails && draws.crash() < self.scenario.backend.crash_rate)
            .then(|| CrashPoint::of(draws.crash_point()));
        if !fails && crash != Some(CrashPoint::BeforeCharge) {
            if let Some(elapsed_ms) = self.call_provider(&draws) {
                processing_ms += elapsed_ms;
            } else {
                // Every call timed out: the processing fails with a 500 (the provider may
                // have charged all the same), and the crash never comes.
                processing_ms += self.provider_timeouts_ms();
                fails = true;
                crash = None;
            }
        }
        let processing = Processing {
            copy: delivery.copy,
            attempt: delivery.attempt,
            body: delivery.body,
            fails,
            after_expiry,
            crash,
        };
        self.queue
            .schedule(now + processing_ms, Event::Complete(processing));
    }

    /// The provider's calls for one processing: their time (ms), `None` when none was
    /// answered; no provider: 0.
    fn call_provider(&mut self, draws: &ProcessingDraws<'_>) -> Option<f64> {
        let (Some(provider), Some(sampler)) =
            (self.scenario.backend.provider, self.provider_latency)
        else {
            return Some(0.0);
        };
        let state = &mut self.state;
        let exchange = backend::call_provider(&provider, &sampler, draws, state.provider_reached);
        state.provider_reached |= exchange.received;
        state.counts.provider_calls += exchange.calls;
        state.counts.provider_timeouts += exchange.timeouts;
        state.counts.provider_charges += exchange.charges;
        exchange.succeeded.then_some(exchange.elapsed_ms)
    }

    /// The time every provider call timing out takes (ms).
    fn provider_timeouts_ms(&self) -> f64 {
        self.scenario.backend.provider.map_or(0.0, |provider| {
            f64::from(provider.max_retries + 1) * provider.timeout_ms
        })
    }

    /// A processing ends: it fails with a 500, crashes (no answer), or charges, and the key
    /// records it.
    fn complete(&mut self, now: f64, processing: Processing) {
        let answer = if processing.fails {
            self.fail(now, processing.body);
            Answer::ServerError
        } else if let Some(point) = processing.crash {
            self.crash(now, processing, point);
            return;
        } else {
            self.charge(processing);
            self.save_key(now, processing);
            self.send_direct_receipt(processing);
            Answer::Charged
        };
        let response = Response {
            copy: processing.copy,
            attempt: processing.attempt,
            answer,
            body: processing.body,
        };
        self.respond(now, response);
    }

    /// A failed processing: stored under the key (`store`), or the key released (`retry`).
    fn fail(&mut self, now: f64, body: Body) {
        let state = &mut self.state;
        state.counts.server_errors += 1;
        let stored =
            self.strategy != Strategy::None && self.scenario.key.error_policy == ErrorPolicy::Store;
        state.unstored_failure = !stored;
        if stored {
            self.store_response(KeyState::Failed, now, body);
        } else if state.key.state == KeyState::InFlight {
            state.key.state = KeyState::Absent;
        }
    }

    /// A successful processing's charge commits (with its outbox row, if any).
    fn charge(&mut self, processing: Processing) {
        let state = &mut self.state;
        state.counts.charges += 1;
        state.original_charges += u64::from(processing.body == Body::Original);
        state.counts.expired_key_charges += u64::from(processing.after_expiry);
        if let Some(receipts) = self.scenario.backend.receipts
            && receipts.mode == ReceiptMode::Outbox
        {
            state.outbox_rows += 1;
            let draw = self
                .backend
                .processing(processing.copy, processing.attempt)
                .receipt();
            state.counts.receipt_send_failures +=
                backend::outbox_send_failures(receipts.send_failure, draw);
        }
    }

    /// The key store this strategy actually uses: `check_then_insert` reserves nothing, so
    /// `key_first` is `separate_store` for it (and for `none`, which keeps no key).
    fn key_store(&self) -> KeyStore {
        match (self.strategy, self.scenario.backend.key_store) {
            (Strategy::UniqueKey, store) => store,
            (_, KeyStore::KeyFirst) => KeyStore::SeparateStore,
            (_, store) => store,
        }
    }

    /// A keeping strategy stores the success with the key: in the charge's transaction, or
    /// written to the other store after it, where the write can fail.
    fn save_key(&mut self, now: f64, processing: Processing) {
        if self.strategy == Strategy::None {
            return;
        }
        let store = self.key_store();
        if store != KeyStore::SameTransaction {
            let draw = self
                .backend
                .processing(processing.copy, processing.attempt)
                .key_write();
            if draw < self.scenario.backend.key_write_failure {
                self.state.counts.key_write_failures += 1;
                self.lose_key(now, true);
                return;
            }
        }
        self.store_response(KeyState::Complete, now, processing.body);
    }

    /// The key of a committed charge (`committed`) or of nothing is not stored: a key still
    /// to be written is lost; a `key_first` reservation stays in flight until its lock expires
    /// or the completer runs; an in-flight marker or row elsewhere goes with the request.
    fn lose_key(&mut self, now: f64, committed: bool) {
        let unwritten = matches!(self.state.key.state, KeyState::Absent | KeyState::InFlight);
        if committed && unwritten && self.strategy != Strategy::None {
            self.state.counts.keys_lost += 1;
        }
        if self.state.key.state != KeyState::InFlight {
            return;
        }
        if self.key_store() == KeyStore::KeyFirst {
            self.abandon(now, committed);
        } else {
            self.state.key.state = KeyState::Absent;
        }
    }

    /// A `key_first` key left in flight at `now`: it stays so until its lock expires, or until
    /// the completer (if sooner) completes it (`committed`) or releases it.
    fn abandon(&mut self, now: f64, committed: bool) {
        let state = &mut self.state;
        let expiry = state.key.lock_expires_ms;
        let completer = self
            .scenario
            .backend
            .completer_interval_ms
            .map(|interval| now + interval)
            .filter(|&at_ms| at_ms < expiry);
        let (at_ms, becomes) = match completer {
            Some(at_ms) if committed => (at_ms, KeyState::Complete),
            Some(at_ms) => (at_ms, KeyState::Absent),
            None => (expiry, KeyState::Absent),
        };
        state.counts.completer_recoveries += u64::from(completer.is_some());
        state.counts.stuck_in_flight_ms += (at_ms - now).round() as u64;
        state.stuck = true;
        state.key.release = Some((at_ms, becomes));
    }

    /// The server crashes at `point` of a processing: nothing is answered; what survives
    /// depends on the key store.
    fn crash(&mut self, now: f64, processing: Processing, point: CrashPoint) {
        match point {
            CrashPoint::BeforeCharge => {
                self.state.counts.crashes_before_charge += 1;
                self.lose_key(now, false);
            }
            CrashPoint::AfterCharge => {
                self.state.counts.crashes_after_charge += 1;
                if self.key_store() == KeyStore::SameTransaction {
                    // The transaction never committed: charge, key and outbox row roll back.
                    self.state.counts.charges_lost_by_crash += 1;
                    self.lose_key(now, false);
                } else {
                    self.charge(processing);
                    self.lose_key(now, true);
                }
            }
            CrashPoint::AfterSave => {
                self.state.counts.crashes_after_save += 1;
                self.charge(processing);
                self.save_key(now, processing);
            }
        }
    }

    /// The request handler sends the receipt after the commit (`direct`); a failed send is
    /// lost.
    fn send_direct_receipt(&mut self, processing: Processing) {
        let Some(receipts) = self.scenario.backend.receipts else {
            return;
        };
        if receipts.mode != ReceiptMode::Direct {
            return;
        }
        let draw = self
            .backend
            .processing(processing.copy, processing.attempt)
            .receipt();
        if draw < receipts.send_failure {
            self.state.counts.receipt_send_failures += 1;
        } else {
            self.state.direct_receipts += 1;
        }
    }

    /// Writes a finished processing's response under the key, as a key table whose primary
    /// key is the Idempotency-Key does: the row in flight (`unique_key`) is updated, an absent
    /// key (`check_then_insert`) inserted; a key that already holds a response keeps it, since
    /// a racing `check_then_insert` delivery's later INSERT fails on the duplicate key.
    fn store_response(&mut self, state: KeyState, now: f64, body: Body) {
        let key = &mut self.state.key;
        if matches!(key.state, KeyState::Absent | KeyState::InFlight) {
            key.store(state, now, body);
        }
    }

    /// Sends the answer back, unless the attempt's ACK is lost.
    fn respond(&mut self, now: f64, response: Response) {
        let sample = self.draws.sampled(response.copy, response.attempt);
        if !sample.ack_lost {
            let response_ms = sample.response_ms;
            self.queue
                .schedule(now + response_ms, Event::Receive(response));
        }
    }

    /// A response reaches its client; one that comes after the client timed out is ignored.
    fn receive(&mut self, now: f64, response: Response) {
        let copy = response.copy;
        if self.clients[copy as usize].waiting != Some(response.attempt) {
            return;
        }
        match response.answer {
            Answer::Conflict | Answer::ServerError => self.retry_or_give_up(now, copy),
            Answer::Rejected => {
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
        } else {
            client.done = true;
            self.state.last_give_up_ms = self.state.last_give_up_ms.max(now);
            self.next_sequential_copy(now, copy);
        }
    }

    /// In sequential mode, the next copy is sent when this one reached its final outcome.
    fn next_sequential_copy(&mut self, now: f64, copy: u32) {
        let arrivals = &self.scenario.arrivals;
        if arrivals.copy_mode == CopyMode::Sequential && copy + 1 < arrivals.copies {
            self.queue.schedule(now, Event::Send { copy: copy + 1 });
        }
    }
}
