//! One event loop of the load model: the payments of one run and scenario under one strategy,
//! all on one clock against one server.
//!
//! A payment starts at its arrival and sends its first attempt at once; an attempt reaches the
//! server after the request latency (unless lost), waits in the FIFO queue for a worker (or is
//! answered 503 when the queue is full), and a worker applies the strategy: processing takes
//! `processing + slope × requests holding a worker`, then charges (or fails with a 500), and
//! the answer goes back after the response latency (unless lost). The client retries after a
//! timeout or an error answer (500, 409, 503) if its retry limit, its deadline and its retry
//! control allow, after its backoff. An answer to an attempt the client no longer waits for is
//! ignored (as real clients do); the work done for it is counted as wasted.
//!
//! A payment sent as several copies (double clicks) has a slot per copy, each its own client's
//! view with its own attempts, retries and timeouts; the first copy's slot, the head, holds
//! the key, the charges and the outcome: the payment succeeds with its first copy's success
//! and fails when its last copy gives up.
//!
//! 409s, replays and dropped requests take no worker time. Every message in an outage window
//! is lost. The time series and histograms are integrated exactly between events.
//!
//! This file holds the clock, the events and the client's side; the server's side (the queue,
//! the workers, the key and the answers) is in `server`.

use std::collections::VecDeque;

use rand_pcg::Pcg64;

use super::arrivals::RateCurve;
use super::client::{ClientState, Failure};
use super::draws::Draws;
use super::steady::SteadyRecorder;
use super::tally::{Bucket, LoadTally};
use super::trace::{self, EventKind};
use super::{LoadScenario, LoadStrategy, MAX_BUCKETS};
use crate::model::semantics::{
    self, CopyMode, CrashPoint, ErrorPolicy, KeyRecord, KeyState, KeyStore, ReceiptMode, Release,
};
use crate::model::trace::Recorder;
use engine::distribution::Distribution;
use engine::distribution::Sampler;
use engine::queue::agenda::Agenda;
use engine::{Interrupted, Progress};

mod server;

/// An answer from the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// 200: charged now or replayed.
    Ok,
    /// 500: failed now or replayed.
    Error500,
    /// 409: the key is in flight.
    Conflict409,
    /// 503: the queue is full, or the key store is down and the server fails closed.
    Shed503,
    /// 422: the body differs from the one the key was stored for (`fingerprint`): nothing
    /// charged, and the client gives up.
    Rejected422,
}

/// A delivery at the server.
#[derive(Debug, Clone, Copy)]
struct Request {
    /// The payment's slot.
    payment: u32,
    /// Which attempt of the payment (0 for the first send).
    attempt: u32,
    /// When the client sent it (ms).
    sent_ms: f64,
    /// When it reached the server (ms).
    reached_ms: f64,
    /// What was done with its key before it waited for a worker.
    front: Front,
    /// It carries another body than the payment's own (`different_body_rate`).
    different: bool,
}

/// A processing a worker finishes: its request's identity and what the end of the processing
/// needs to know of it.
#[derive(Debug, Clone, Copy)]
struct Work {
    /// The payment's slot.
    payment: u32,
    /// Which attempt of the payment.
    attempt: u32,
    /// The delivery was taken after the payment's key had been pruned.
    after_expiry: bool,
    /// When the delivery reached the server (ms).
    reached_ms: f64,
    /// It carries another body than the payment's own.
    different: bool,
    /// With a provider, its 500 and its crash, drawn as it started (the provider is called
    /// only by a processing that neither fails nor crashes before the charge); `None`: drawn
    /// as it ends.
    predrawn: Option<(bool, Option<CrashPoint>)>,
}

/// What the server did with a request's key when it reached the server, before the queue:
/// nothing (the worker looks the key up), or, with a `key_first` store in front of the
/// database, the reservation or a pass without the key while that store was down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Front {
    /// The worker that takes it looks the key up.
    None,
    /// It reserved the key in the other store (`key_first`): the worker processes it.
    Reserved,
    /// The key store was down and the server fails open: the worker processes it without the
    /// key.
    Unkeyed,
    /// Not a delivery: the completer's work on the payment's key left in flight
    /// (`completer_work`), waiting for a worker like the requests.
    Completer,
    /// Not a delivery: the outbox relay's work on a row of the payment's charge
    /// (`relay_work`), waiting for a worker like the requests.
    Relay,
}

/// What happens on the clock.
#[derive(Debug, Clone, Copy)]
enum Event {
    /// The next payment arrives.
    Arrival,
    /// A client sends a retry after its backoff.
    Send { payment: u32 },
    /// A request reaches the server (at the event's time).
    Reach {
        payment: u32,
        attempt: u32,
        /// When the client sent it (ms).
        sent_ms: f64,
        /// It carries another body than the payment's own.
        different: bool,
    },
    /// A worker finishes processing.
    Done(Work),
    /// An answer reaches the client.
    Reply {
        payment: u32,
        attempt: u32,
        answer: Answer,
        /// The answer is a stored response replayed, not the outcome of a processing.
        replay: bool,
    },
    /// The client stops waiting for an attempt. It does not hold the payment's slot (most
    /// timeouts are stale long before they are due): `generation` tells whether the slot
    /// still holds that payment.
    Timeout {
        payment: u32,
        attempt: u32,
        generation: u32,
    },
    /// The server's capacity may have changed.
    Capacity,
    /// The completer finds the payment's key left in flight; its work waits for a worker.
    CompleterVisit { payment: u32 },
    /// The completer's work on the payment's key ends: it completes or releases the key.
    CompleterDone { payment: u32 },
    /// The outbox relay's work on a row of the payment's ends: its worker is free.
    RelayDone { payment: u32 },
}

impl Event {
    /// The payment whose slot the event holds, if any.
    fn payment(&self) -> Option<u32> {
        match *self {
            Event::Arrival | Event::Capacity | Event::Timeout { .. } => None,
            Event::Send { payment }
            | Event::Reply { payment, .. }
            | Event::Reach { payment, .. }
            | Event::Done(Work { payment, .. })
            | Event::CompleterVisit { payment }
            | Event::CompleterDone { payment }
            | Event::RelayDone { payment } => Some(payment),
        }
    }
}

/// A copy of a payment in flight (its client's view), and for a payment's first copy, the
/// head, the payment's key on the server, its charges and its outcome. A payment without
/// copies is one slot, its own head.
#[derive(Debug, Clone)]
struct Payment {
    /// The slot of the payment's first copy, which holds the key, the charges and the outcome
    /// (its own slot for the first copy).
    head: u32,
    /// Sequential copies: the slot of the copy sent when this one reaches its final outcome.
    next_copy: Option<u32>,
    /// On the head: the payment's copies not finished yet, started or not.
    copies_left: u32,
    /// The client that issued it (index into the population).
    client: u32,
    /// Its own client state when there is no population.
    own: ClientState,
    /// When it arrived (ms).
    started_ms: f64,
    /// The attempt the client waits for or will send next.
    attempt: u32,
    /// Retries sent.
    retries: u32,
    /// Why its last retry was sent, if it sent one (for a refund of what that retry took).
    last_retry: Option<Failure>,
    /// The previous backoff (ms).
    previous_sleep_ms: f64,
    /// Whether an attempt is out and neither answered nor timed out.
    waiting: bool,
    /// Whether the client is finished with it.
    done: bool,
    /// On the head: whether a copy of the payment got a success answer.
    succeeded: bool,
    /// Its key, as the store keeps it.
    key: KeyRecord,
    /// Its key was pruned at least once.
    key_pruned: bool,
    /// The completer, when its work takes a worker and is still to end, will complete the key
    /// (its charge committed) rather than release it.
    completer_completes: bool,
    /// Charges made.
    charges: u32,
    /// Charges made with the payment's own body.
    original_charges: u32,
    /// Receipts the request handler sent after a charge that reached the customer
    /// (`direct`).
    direct_receipts: u32,
    /// Outbox rows committed with a charge (`outbox`).
    outbox_rows: u32,
    /// On the head: some call of the payment's reached the provider (a provider honouring the
    /// key charges only the first).
    provider_reached: bool,
    /// On the head: charges the provider made for the payment.
    provider_charges: u32,
    /// The attempt the client waits for or sends next carries another body.
    body_different: bool,
    /// The client accepted a replayed success for its own body.
    accepted_replay_of_original: bool,
    /// The client accepted a replayed success for another body (nothing charged that body).
    accepted_replay_of_different: bool,
    /// Events (timeouts aside), queued requests and lock waiters that refer to it; its slot
    /// is reused when this is 0 and `done`.
    refs: u32,
    /// Payments that held the slot before this one (wrapping).
    generation: u32,
    /// Deliveries waiting for its lock (`lock_wait`), holding workers.
    waiters: Vec<Request>,
}

impl Payment {
    /// A copy just issued at `now` by `client`, before it has a slot.
    fn new(scenario: &LoadScenario, client: u32, now: f64) -> Self {
        Payment {
            head: 0,
            next_copy: None,
            copies_left: 0,
            client,
            own: ClientState::new(&scenario.client),
            started_ms: now,
            attempt: 0,
            retries: 0,
            last_retry: None,
            previous_sleep_ms: scenario.client.backoff.initial_ms(),
            waiting: false,
            done: false,
            succeeded: false,
            key: KeyRecord::ABSENT,
            key_pruned: false,
            completer_completes: false,
            charges: 0,
            original_charges: 0,
            direct_receipts: 0,
            outbox_rows: 0,
            provider_reached: false,
            provider_charges: 0,
            body_different: false,
            accepted_replay_of_original: false,
            accepted_replay_of_different: false,
            refs: 0,
            generation: 0,
            waiters: Vec::new(),
        }
    }
}

/// The agenda's lane of the timeouts: an attempt's timeout is its send time plus the client's
/// constant timeout (unless a payment deadline comes first), so they are scheduled in order.
const TIMEOUT_LANE: usize = 0;

/// The agenda's lane of the arrivals: the next arrival is scheduled after the last.
const ARRIVAL_LANE: usize = 1;

/// The agenda calendar's bucket width (ms), a speed choice only: about the typical gap
/// between the times of the events it holds. Each payment puts three events through it (its
/// request reaching the server, the worker's end, its answer reaching the client); by
/// Little's law, at the peak arrival rate `r` (per ms) and mean delays `d1, d2, d3` there wait
/// `r (d1 + d2 + d3)` of them, spread over the typical delay `(d1 + d2 + d3) / 3`: a gap of
/// `1 / (3 r)` whatever the delays, so a bucket holds about one event. Without arrivals (a
/// rate of 0), 1 ms.
fn agenda_bucket_width_ms(scenario: &LoadScenario) -> f64 {
    let peak_per_ms = scenario
        .arrivals
        .phases
        .iter()
        .map(|phase| phase.peak_rate_per_s() / 1000.0)
        .fold(0.0, f64::max);
    let width_ms = 1.0 / (3.0 * peak_per_ms);
    if width_ms.is_finite() && width_ms > 0.0 {
        width_ms.clamp(1e-6, 1e6)
    } else {
        1.0
    }
}

/// Events between two looks at [`Progress::should_stop`].
const EVENTS_BETWEEN_STOP_CHECKS: u64 = 4_096;

/// One event loop, ready to run, telling `R` what happens to each payment (`()`: nothing).
pub struct Simulation<'a, R = ()> {
    scenario: &'a LoadScenario,
    strategy: LoadStrategy,
    bucket_ms: f64,
    /// The arrivals' draws: each arrival's gap, then its client.
    arrivals_stream: Draws,
    /// Every other draw, in the order the events make them.
    stream: Draws,
    curve: RateCurve,
    request_latency: Durations,
    response_latency: Durations,
    processing: Durations,
    queue: Agenda<Event, 2>,
    fifo: VecDeque<Request>,
    busy: u32,
    payments: Vec<Payment>,
    free: Vec<u32>,
    clients: Vec<ClientState>,
    tally: LoadTally,
    bucket: Bucket,
    bucket_end_ms: f64,
    last_ms: f64,
    queue_area: f64,
    busy_area: f64,
    /// The queueing metrics over the steady-state window.
    steady: SteadyRecorder,
    /// Fixed arrival times replacing the Poisson process (hand-worked cases), if any.
    script: Option<VecDeque<f64>>,
    /// The key store the strategy uses ([`KeyStore::used_by`]).
    key_store: KeyStore,
    /// One call to the other key store, when calls take time and a processing makes some.
    key_store_latency: Option<Durations>,
    /// The calls to the other key store a keyed processing waits for on its worker
    /// ([`semantics::key_store_calls`]).
    key_store_calls: u32,
    /// The completer's work on a key, when it takes a worker.
    completer_work: Option<Durations>,
    /// The outbox relay's work on a row, when it takes a worker.
    relay_work: Option<Durations>,
    /// The provider's round trip, ready to sample, when there is a provider.
    provider_latency: Option<Sampler>,
    /// What it tells what happens ([`trace`]).
    recorder: R,
    /// Each slot's payment by arrival order, kept only when `R` records.
    ordinals: Vec<u64>,
}

/// A duration distribution ready for sampling: the exponential's `-mean ln(1 - u)` from the
/// draw's exponential made ahead ([`Draws::exponential`]: the bits of the C library's
/// `log1p`, which [`Sampler`] calls), the others through [`Sampler`] from the uniform draw.
#[derive(Debug, Clone, Copy)]
enum Durations {
    /// Exponential with mean `mean_ms` (ms).
    Exponential { mean_ms: f64 },
    /// Any other distribution.
    Other(Sampler),
}

impl Durations {
    fn new(distribution: &Distribution) -> Self {
        match *distribution {
            Distribution::Exponential { mean_ms } => Self::Exponential { mean_ms },
            other => Self::Other(other.sampler()),
        }
    }

    /// A duration from the next draw of `draws` (ms), bit for bit [`Sampler::quantile`] of
    /// that draw.
    #[inline]
    fn sample(&self, draws: &mut Draws) -> f64 {
        match *self {
            Self::Exponential { mean_ms } => mean_ms * draws.exponential(),
            Self::Other(sampler) => sampler.quantile(draws.uniform()),
        }
    }
}

impl<'a> Simulation<'a> {
    /// A loop of `scenario` under `strategy`, drawing arrivals from `arrivals_stream` and
    /// everything else from `stream`.
    pub fn new(
        scenario: &'a LoadScenario,
        strategy: LoadStrategy,
        bucket_ms: f64,
        arrivals_stream: Pcg64,
        stream: Pcg64,
    ) -> Self {
        let population = scenario.arrivals.clients.unwrap_or(0) as usize;
        let key_store = scenario
            .server
            .key_server
            .key_store
            .used_by(strategy == LoadStrategy::UniqueKey);
        let keyed = strategy != LoadStrategy::None;
        let key_store_calls =
            semantics::key_store_calls(key_store, keyed, key_store == KeyStore::KeyFirst);
        Self {
            scenario,
            strategy,
            bucket_ms,
            arrivals_stream: Draws::new(arrivals_stream),
            stream: Draws::new(stream),
            curve: RateCurve::new(&scenario.arrivals.phases, scenario.arrivals.duration_ms),
            request_latency: Durations::new(&scenario.network.request_latency),
            response_latency: Durations::new(&scenario.network.response_latency),
            processing: Durations::new(&scenario.server.processing),
            queue: Agenda::with_bucket_width(agenda_bucket_width_ms(scenario)),
            fifo: VecDeque::new(),
            busy: 0,
            payments: Vec::new(),
            free: Vec::new(),
            clients: vec![ClientState::new(&scenario.client); population],
            tally: LoadTally::default(),
            bucket: Bucket::default(),
            bucket_end_ms: bucket_ms,
            last_ms: 0.0,
            queue_area: 0.0,
            busy_area: 0.0,
            steady: SteadyRecorder::new(0.0, scenario.arrivals.duration_ms),
            script: None,
            key_store,
            key_store_latency: scenario
                .server
                .key_server
                .key_store_latency
                .filter(|_| key_store_calls > 0)
                .map(|latency| Durations::new(&latency)),
            key_store_calls,
            completer_work: scenario
                .server
                .key_server
                .completer_work
                .map(|work| Durations::new(&work)),
            relay_work: scenario
                .server
                .receipts
                .filter(|receipts| receipts.mode == ReceiptMode::Outbox)
                .and_then(|receipts| receipts.relay_work)
                .map(|work| Durations::new(&work)),
            provider_latency: scenario
                .server
                .provider
                .map(|provider| provider.latency.sampler()),
            recorder: (),
            ordinals: Vec::new(),
        }
    }

    /// The same loop, telling `recorder` what happens to each payment ([`trace`]); the draws
    /// and the results are the same.
    pub fn recording<S: Recorder<trace::Event>>(self, recorder: S) -> Simulation<'a, S> {
        Simulation {
            scenario: self.scenario,
            strategy: self.strategy,
            bucket_ms: self.bucket_ms,
            arrivals_stream: self.arrivals_stream,
            stream: self.stream,
            curve: self.curve,
            request_latency: self.request_latency,
            response_latency: self.response_latency,
            processing: self.processing,
            queue: self.queue,
            fifo: self.fifo,
            busy: self.busy,
            payments: self.payments,
            free: self.free,
            clients: self.clients,
            tally: self.tally,
            bucket: self.bucket,
            bucket_end_ms: self.bucket_end_ms,
            last_ms: self.last_ms,
            queue_area: self.queue_area,
            busy_area: self.busy_area,
            steady: self.steady,
            script: self.script,
            key_store: self.key_store,
            key_store_latency: self.key_store_latency,
            key_store_calls: self.key_store_calls,
            completer_work: self.completer_work,
            relay_work: self.relay_work,
            provider_latency: self.provider_latency,
            recorder,
            ordinals: self.ordinals,
        }
    }
}

impl<R: Recorder<trace::Event>> Simulation<'_, R> {
    /// Tells the recorder that `kind` happened at `now` to attempt `attempt` of the payment in
    /// slot `payment`; nothing at all without a recorder.
    #[inline(always)]
    pub(super) fn note(&mut self, now: f64, payment: u32, attempt: u32, kind: EventKind) {
        if R::RECORDS {
            let event = trace::Event {
                at_ms: now,
                payment: self.ordinals[payment as usize],
                attempt,
                kind,
            };
            self.recorder.record_event(event);
        }
    }

    /// The steady-state metrics leave out the first `warm_up_ms` of the arrival window
    /// (default 0: the whole window).
    pub fn with_warm_up_ms(mut self, warm_up_ms: f64) -> Self {
        self.steady = SteadyRecorder::new(warm_up_ms, self.scenario.arrivals.duration_ms);
        self
    }

    /// Payments arrive at exactly these times (ms, not decreasing) instead of the Poisson
    /// process: for cases worked by hand.
    pub fn with_arrival_times(mut self, times: &[f64]) -> Self {
        self.script = Some(times.iter().copied().collect());
        self
    }

    /// Runs until every payment is finished and the server is idle.
    pub fn run(mut self, progress: &dyn Progress) -> Result<LoadTally, Interrupted> {
        self.schedule_next_arrival(0.0);
        for change in &self.scenario.server.capacity {
            self.queue.schedule(change.window.from_ms, Event::Capacity);
            self.queue.schedule(change.window.to_ms, Event::Capacity);
        }
        while let Some((now, event)) = self.queue.pop() {
            self.tally.counts.events += 1;
            if self
                .tally
                .counts
                .events
                .is_multiple_of(EVENTS_BETWEEN_STOP_CHECKS)
                && progress.should_stop()
            {
                return Err(Interrupted);
            }
            // A timer or an answer the client no longer waits for changes nothing: it does
            // not move the time series (a long timeout would stretch it to its end).
            let stale = self.is_stale(&event);
            if !stale {
                self.advance(now);
                self.handle(now, event);
            }
            // A timeout holds no slot: after a live one the payment may have ended (given up
            // with nothing else referring to it); after a stale one the slot may hold another.
            match event {
                Event::Timeout { payment, .. } if !stale => self.free_if_finished(payment),
                _ => {
                    if let Some(payment) = event.payment() {
                        self.release(payment);
                    }
                }
            }
        }
        debug_assert!(self.fifo.is_empty() && self.busy == 0);
        Ok(self.finish())
    }

    /// Closes the last bucket (unless the series is full); the recovery is the model's to
    /// compute from the series ([`super::simulate_one`]).
    fn finish(mut self) -> LoadTally {
        let elapsed = self.last_ms - (self.bucket_end_ms - self.bucket_ms);
        let room = self.tally.buckets.len() < MAX_BUCKETS;
        if room && (elapsed > 0.0 || self.bucket != Bucket::default()) {
            self.close_bucket(elapsed.max(f64::MIN_POSITIVE));
        }
        let mut tally = self.tally;
        tally.end_ms = self.last_ms;
        tally.payment_slots = self.payments.len();
        tally.steady = self.steady.finish(&self.scenario.server);
        tally.has_trigger = !self.scenario.trigger_windows().is_empty();
        tally
    }

    /// Integrates the queue and the workers from the last event to `now`, closing buckets
    /// until the series holds [`MAX_BUCKETS`] (a long drain then costs one step, not one per
    /// bucket).
    fn advance(&mut self, now: f64) {
        let in_system = self.fifo.len() + self.busy as usize;
        self.steady
            .integrate(self.last_ms, now, self.busy, in_system);
        while now >= self.bucket_end_ms && self.tally.buckets.len() < MAX_BUCKETS {
            self.integrate(self.bucket_end_ms - self.last_ms);
            self.last_ms = self.bucket_end_ms;
            self.close_bucket(self.bucket_ms);
        }
        self.integrate(now - self.last_ms);
        self.last_ms = now;
    }

    /// Adds `duration_ms` at the current queue length and workers busy.
    fn integrate(&mut self, duration_ms: f64) {
        if duration_ms <= 0.0 {
            return;
        }
        let queued = self.fifo.len();
        self.queue_area += queued as f64 * duration_ms;
        self.busy_area += f64::from(self.busy) * duration_ms;
        self.tally.queue.add(queued, duration_ms);
        self.tally
            .in_flight
            .add(queued + self.busy as usize, duration_ms);
    }

    /// Ends the current bucket, which lasted `width_ms`.
    fn close_bucket(&mut self, width_ms: f64) {
        let mut bucket = std::mem::take(&mut self.bucket);
        bucket.queue_length = self.queue_area / width_ms;
        bucket.workers_busy = self.busy_area / width_ms;
        bucket.double_charges = self.tally.counts.double_charges;
        self.tally.buckets.push(bucket);
        self.queue_area = 0.0;
        self.busy_area = 0.0;
        self.bucket_end_ms += self.bucket_ms;
    }

    /// Whether the event is a timer or an answer for an attempt its client no longer waits
    /// for.
    fn is_stale(&self, event: &Event) -> bool {
        match *event {
            Event::Timeout {
                payment,
                attempt,
                generation,
            } => {
                let slot = &self.payments[payment as usize];
                slot.generation != generation
                    || slot.done
                    || slot.attempt != attempt
                    || !slot.waiting
            }
            _ => false,
        }
    }

    fn handle(&mut self, now: f64, event: Event) {
        match event {
            Event::Arrival => self.arrival(now),
            // A copy's first send (a later concurrent copy), or a retry after its backoff.
            Event::Send { payment } if self.payments[payment as usize].attempt == 0 => {
                self.start_copy(now, payment);
            }
            Event::Send { payment } => self.send(now, payment),
            Event::Reach {
                payment,
                attempt,
                sent_ms,
                different,
            } => {
                let request = Request {
                    payment,
                    attempt,
                    sent_ms,
                    reached_ms: now,
                    front: Front::None,
                    different,
                };
                self.reach(now, request);
            }
            Event::Done(work) => self.done(now, work),
            Event::Reply {
                payment,
                attempt,
                answer,
                replay,
            } => self.reply(now, payment, attempt, answer, replay),
            Event::Timeout {
                payment, attempt, ..
            } => self.timeout(now, payment, attempt),
            Event::Capacity => self.fill(now),
            Event::CompleterVisit { payment } => self.completer_visit(now, payment),
            Event::CompleterDone { payment } => self.completer_done(now, payment),
            Event::RelayDone { .. } => {
                self.busy -= 1;
                self.fill(now);
            }
        }
    }

    /// Schedules an event, holding its payment.
    fn schedule(&mut self, at: f64, event: Event) {
        if let Some(payment) = event.payment() {
            self.payments[payment as usize].refs += 1;
        }
        self.queue.schedule(at, event);
    }

    /// Drops one hold on a payment; frees its slot when nothing refers to it any more.
    fn release(&mut self, payment: u32) {
        self.payments[payment as usize].refs -= 1;
        self.free_if_finished(payment);
    }

    /// Frees the payment's slot if its client is done with it and nothing refers to it.
    fn free_if_finished(&mut self, payment: u32) {
        let slot = &self.payments[payment as usize];
        if slot.refs == 0 && slot.done {
            let head = slot.head;
            if head != payment {
                // A later copy: the payment's outcome is its head's to count.
                self.free.push(payment);
                return self.release(head);
            }
            if !slot.succeeded && slot.charges > 0 {
                self.tally.counts.failed_charged += 1;
            }
            let told = semantics::told_succeeded_not_charged(
                slot.accepted_replay_of_different,
                slot.accepted_replay_of_original,
                u64::from(slot.original_charges),
            );
            self.tally.bodies.told_succeeded_not_charged += u64::from(told);
            let duplicates = slot.provider_charges.saturating_sub(1);
            self.tally.provider.duplicate_provider_charges += u64::from(duplicates);
            if let Some(receipts) = self.scenario.server.receipts {
                let outcome = receipts.outcome(
                    u64::from(slot.direct_receipts),
                    u64::from(slot.outbox_rows),
                    u64::from(slot.charges),
                );
                let counts = &mut self.tally.receipts;
                counts.receipts_sent += outcome.sent;
                counts.receipts_duplicated += outcome.duplicated;
                counts.receipts_missing += u64::from(outcome.missing);
            }
            self.free.push(payment);
        }
    }

    fn schedule_next_arrival(&mut self, now: f64) {
        if let Some(script) = &mut self.script {
            if let Some(at) = script.pop_front() {
                self.queue
                    .schedule_on_lane(ARRIVAL_LANE, at.max(now), Event::Arrival);
            }
            return;
        }
        let mass = self.arrivals_stream.exponential();
        if let Some(at) = self.curve.next(now, mass) {
            self.queue
                .schedule_on_lane(ARRIVAL_LANE, at, Event::Arrival);
        }
    }

    /// The client state of a payment.
    fn client(&mut self, payment: u32) -> &mut ClientState {
        let slot = &mut self.payments[payment as usize];
        if self.clients.is_empty() {
            &mut slot.own
        } else {
            &mut self.clients[slot.client as usize]
        }
    }

    /// The slot holding the key, the charges and the outcome of the payment whose copy is in
    /// slot `payment` (the slot itself for a payment's first copy).
    #[inline(always)]
    fn head(&self, payment: u32) -> usize {
        self.payments[payment as usize].head as usize
    }

    /// A new payment: a slot, its client, its first send.
    fn arrival(&mut self, now: f64) {
        self.tally.counts.payments += 1;
        self.bucket.arrivals += 1;
        self.steady.arrival(now);
        let client = match self.scenario.arrivals.clients {
            Some(clients) => {
                let draw = self.arrivals_stream.uniform() * f64::from(clients);
                (draw as u32).min(clients - 1)
            }
            None => 0,
        };
        let mut fresh = Payment::new(self.scenario, client, now);
        fresh.copies_left = self.scenario.arrivals.copies.count;
        let payment = self.take_slot(fresh, None);
        if R::RECORDS {
            let slot = payment as usize;
            if self.ordinals.len() <= slot {
                self.ordinals.resize(slot + 1, 0);
            }
            self.ordinals[slot] = self.tally.counts.payments - 1;
        }
        if self.scenario.arrivals.copies.count > 1 {
            // Linked before the first copy is sent, which may be given up at once.
            self.add_copies(now, payment);
        }
        self.start_copy(now, payment);
        self.schedule_next_arrival(now);
    }

    /// A free slot (or a new one) holding `fresh`, the copy of the payment headed by `head`
    /// (`None`: its first copy, its own head).
    fn take_slot(&mut self, fresh: Payment, head: Option<u32>) -> u32 {
        let payment = match self.free.pop() {
            Some(slot) => {
                let previous = &mut self.payments[slot as usize];
                let waiters = std::mem::take(&mut previous.waiters);
                let generation = previous.generation.wrapping_add(1);
                *previous = Payment {
                    waiters,
                    generation,
                    ..fresh
                };
                slot
            }
            None => {
                self.payments.push(fresh);
                (self.payments.len() - 1) as u32
            }
        };
        self.payments[payment as usize].head = head.unwrap_or(payment);
        payment
    }

    /// The copies after the first of the payment headed by `head`, each in its own slot
    /// holding the head (so the payment is counted once every copy is finished): concurrent
    /// copies are sent at their offsets, sequential ones each after the previous one.
    fn add_copies(&mut self, now: f64, head: u32) {
        let copies = self.scenario.arrivals.copies;
        let client = self.payments[head as usize].client;
        let mut previous = head;
        for copy in 1..copies.count {
            let slot = self.take_slot(Payment::new(self.scenario, client, now), Some(head));
            self.payments[head as usize].refs += 1;
            if R::RECORDS {
                // A copy is traced as its payment.
                self.ordinals
                    .resize(self.ordinals.len().max(slot as usize + 1), 0);
                self.ordinals[slot as usize] = self.ordinals[head as usize];
            }
            match copies.mode {
                CopyMode::Concurrent => {
                    let stream = &mut self.stream;
                    let offset = copies.offset_ms(copy, || stream.uniform());
                    self.schedule(now + offset, Event::Send { payment: slot });
                }
                CopyMode::Sequential => {
                    self.payments[previous as usize].next_copy = Some(slot);
                    previous = slot;
                }
            }
        }
    }

    /// A copy of a payment sends its first attempt at `now`, its own request to its client.
    fn start_copy(&mut self, now: f64, payment: u32) {
        self.payments[payment as usize].started_ms = now;
        let policy = &self.scenario.client;
        self.client(payment).on_payment(policy, now);
        self.send(now, payment);
    }

    /// A copy reached its final outcome (a success, or given up): the payment has failed
    /// when it was its last and none succeeded; a sequential copy's next one is sent.
    fn copy_finished(&mut self, now: f64, payment: u32) {
        let slot = &self.payments[payment as usize];
        let (head, next) = (slot.head, slot.next_copy);
        let head = &mut self.payments[head as usize];
        head.copies_left -= 1;
        if head.copies_left == 0 && !head.succeeded {
            let started_ms = head.started_ms;
            self.steady.ended(now, started_ms);
            self.tally.counts.failed += 1;
        }
        if let Some(next) = next {
            self.start_copy(now, next);
        }
    }

    /// Whether a message sent at `now` is lost (an outage, or the loss rate `rate`).
    fn lost(&mut self, now: f64, rate: f64) -> bool {
        let outage = self
            .scenario
            .network
            .outages
            .iter()
            .any(|window| window.contains(now));
        outage || (rate > 0.0 && self.stream.uniform() < rate)
    }

    /// The client sends the payment's current attempt, unless its adaptive throttling rejects
    /// it (then the payment is given up, throttled).
    fn send(&mut self, now: f64, payment: u32) {
        let client = &self.scenario.client;
        if client.controls.adaptive_throttling.is_some() {
            let stream = &mut self.stream;
            let state = match self.clients.is_empty() {
                true => &mut self.payments[payment as usize].own,
                false => &mut self.clients[self.payments[payment as usize].client as usize],
            };
            if state.rejects_attempt(client, now, || stream.uniform()) {
                self.tally.counts.throttled += 1;
                return self.give_up(now, payment);
            }
        }
        if client.controls.concurrent_retry_budget.is_some() {
            self.client(payment).on_send();
        }
        let client = &self.scenario.client;
        let slot = &mut self.payments[payment as usize];
        slot.waiting = true;
        let attempt = slot.attempt;
        let mut timeout_at = now + client.timeout_ms;
        if let Some(deadline) = client.payment_deadline_ms {
            timeout_at = timeout_at.min(slot.started_ms + deadline).max(now);
        }
        self.tally.counts.attempts += 1;
        let rate = client.different_body_rate;
        let different = attempt > 0 && rate > 0.0 && self.stream.uniform() < rate;
        slot.body_different = different;
        let timeout = Event::Timeout {
            payment,
            attempt,
            generation: slot.generation,
        };
        self.queue
            .schedule_on_lane(TIMEOUT_LANE, timeout_at, timeout);
        self.note(now, payment, attempt, EventKind::Sent);
        if self.lost(now, self.scenario.network.request_loss) {
            self.tally.counts.lost_requests += 1;
            self.note(now, payment, attempt, EventKind::RequestLost);
            return;
        }
        let latency = self.request_latency.sample(&mut self.stream);
        let reach = Event::Reach {
            payment,
            attempt,
            sent_ms: now,
            different,
        };
        self.schedule(now + latency, reach);
    }

    /// The client no longer waits for `attempt` of `payment` (its answer came, or it timed
    /// out): under a concurrent retry budget, the attempt leaves it.
    fn attempt_ended(&mut self, payment: u32, attempt: u32) {
        if self
            .scenario
            .client
            .controls
            .concurrent_retry_budget
            .is_some()
        {
            self.client(payment).on_attempt_end(attempt > 0);
        }
    }

    /// An answer reaches the client (`replay`: a stored response replayed).
    fn reply(&mut self, now: f64, payment: u32, attempt: u32, answer: Answer, replay: bool) {
        let slot = &mut self.payments[payment as usize];
        if slot.done || slot.attempt != attempt || !slot.waiting {
            self.note(now, payment, attempt, EventKind::ReceivedLate { answer });
            return;
        }
        slot.waiting = false;
        self.attempt_ended(payment, attempt);
        self.note(now, payment, attempt, EventKind::Received { answer });
        let slot = &mut self.payments[payment as usize];
        if answer == Answer::Ok {
            slot.done = true;
            let (different, last_retry) = (slot.body_different, slot.last_retry);
            let head = slot.head as usize;
            let head = &mut self.payments[head];
            if replay {
                match different {
                    // Each different body is unlike every other: nothing charged it.
                    true => head.accepted_replay_of_different = true,
                    false => head.accepted_replay_of_original = true,
                }
            }
            if !head.succeeded {
                // The payment's first success (a later copy's changes nothing of it).
                head.succeeded = true;
                let started_ms = head.started_ms;
                self.steady.ended(now, started_ms);
                self.tally.counts.succeeded += 1;
                self.bucket.successes += 1;
            }
            let policy = &self.scenario.client;
            self.client(payment).on_success(policy, now, last_retry);
            self.copy_finished(now, payment);
        } else if answer == Answer::Rejected422 {
            // The server refused the body: retrying it cannot help, and it says nothing of
            // the server's health to the retry controls.
            self.give_up(now, payment);
        } else {
            self.fail(now, payment, Failure::Error);
        }
    }

    /// The client stops waiting for an attempt.
    fn timeout(&mut self, now: f64, payment: u32, attempt: u32) {
        let slot = &mut self.payments[payment as usize];
        if slot.done || slot.attempt != attempt || !slot.waiting {
            return;
        }
        slot.waiting = false;
        self.attempt_ended(payment, attempt);
        self.tally.counts.timeouts += 1;
        self.note(now, payment, attempt, EventKind::TimedOut);
        self.bucket.timeouts += 1;
        self.fail(now, payment, Failure::Timeout);
    }

    /// An attempt failed: retry after the backoff if everything allows, else give up.
    fn fail(&mut self, now: f64, payment: u32, failure: Failure) {
        let policy = &self.scenario.client;
        self.client(payment).on_failure(policy, now);
        let slot = &self.payments[payment as usize];
        let deadline = policy
            .payment_deadline_ms
            .map_or(f64::INFINITY, |deadline| slot.started_ms + deadline);
        if slot.retries >= policy.max_retries || now >= deadline {
            return self.give_up(now, payment);
        }
        let (retries, previous) = (slot.retries, slot.previous_sleep_ms);
        let delay = policy
            .backoff
            .delay_ms(retries, previous, self.stream.uniform());
        if now + delay >= deadline {
            return self.give_up(now, payment);
        }
        if !self.client(payment).allow_retry(policy, failure, now) {
            self.tally.counts.throttled += 1;
            return self.give_up(now, payment);
        }
        let slot = &mut self.payments[payment as usize];
        let failed = slot.attempt;
        slot.previous_sleep_ms = delay;
        slot.last_retry = Some(failure);
        slot.retries += 1;
        slot.attempt += 1;
        let wait_ms = delay;
        self.note(now, payment, failed, EventKind::BackingOff { wait_ms });
        self.tally.counts.retries += 1;
        self.bucket.retries += 1;
        if delay > 0.0 {
            self.schedule(now + delay, Event::Send { payment });
        } else {
            self.send(now, payment);
        }
    }

    /// The client gives up on the payment at `now`: no attempt follows.
    fn give_up(&mut self, now: f64, payment: u32) {
        let slot = &mut self.payments[payment as usize];
        slot.done = true;
        let attempt = slot.attempt;
        self.note(now, payment, attempt, EventKind::GaveUp);
        self.copy_finished(now, payment);
    }
}
