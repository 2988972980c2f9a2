//! One payment's timeline: a deterministic discrete-event simulation of its copies, their
//! attempts, the network and the server's handling of its key.
//!
//! Events wait in a binary heap ordered by (time, sequence number): two events at the same
//! time happen in the order they were scheduled, so a response that arrives exactly at the
//! client's timeout is too late (the timeout was scheduled first, when the attempt was sent).
//!
//! Every random number comes from the payment's own stream in a fixed layout (see
//! [`PaymentDraws`]): attempt `a` of copy `c` always uses the same six draws whatever the
//! strategy, so the strategies are compared on common random numbers. The key's lifecycle
//! (failures, different bodies) draws from a second stream ([`LifecycleDraws`]), so that the
//! attempts' draws do not depend on the lifecycle settings.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::{CopyMode, CopySpacing, Counters, DuplicateAnswer, ErrorPolicy, Scenario, Strategy};
use crate::rng::{Jump, PcgState, unit_f64};

/// Uniform draws each attempt consumes, whether or not it needs them all: request loss,
/// request latency, processing time, ACK loss, response latency, backoff jitter.
pub const DRAWS_PER_ATTEMPT: u64 = 6;

/// One attempt's network and server, sampled from its six draws (in this order: request loss,
/// request latency, processing time, ACK loss, response latency, backoff jitter).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AttemptSample {
    /// The request never reaches the server.
    pub request_lost: bool,
    /// Client to server (ms).
    pub request_ms: f64,
    /// Processing time if this attempt is processed (ms).
    pub processing_ms: f64,
    /// The response (ACK) is lost on the way back.
    pub ack_lost: bool,
    /// Server to client (ms).
    pub response_ms: f64,
    /// The uniform draw of the backoff before the next retry.
    pub jitter: f64,
}

impl AttemptSample {
    fn draw(stream: &mut PcgState, scenario: &Scenario) -> Self {
        let mut next = || unit_f64(stream.next_u64());
        let network = &scenario.network;
        let (request_loss, request_latency, processing, ack_loss, response_latency, jitter) =
            (next(), next(), next(), next(), next(), next());
        Self {
            request_lost: request_loss < network.request_loss,
            request_ms: network.request_latency.quantile(request_latency),
            processing_ms: scenario.processing.quantile(processing),
            ack_lost: ack_loss < network.ack_loss,
            response_ms: network.response_latency.quantile(response_latency),
            jitter,
        }
    }
}

/// The random numbers of one payment, laid out in its slice of the run's stream as
/// `[arrival gap, copy offset × copies, copy 0's attempts, copy 1's attempts, ...]`, each copy
/// owning `(max_retries + 1) × 6` draws. Attempts are sampled on first use and kept, so every
/// strategy replays the same samples without drawing or sampling them again.
#[derive(Debug, Clone)]
pub struct PaymentDraws {
    /// The uniform of the gap to the next payment's arrival (Poisson arrivals).
    pub arrival_gap: f64,
    /// One uniform per copy, for its send offset (random copy spacing).
    pub copy_offsets: Vec<f64>,
    /// Each copy's stream, positioned after its last sampled attempt.
    copy_streams: Vec<PcgState>,
    /// Each copy's sampled attempts, in order.
    attempts: Vec<Vec<AttemptSample>>,
    /// From one copy's first draw to the next copy's.
    copy_jump: Jump,
    copies: u32,
    /// The payment's lifecycle draws.
    pub lifecycle: LifecycleDraws,
}

/// Uniform draws each attempt has in the lifecycle stream: first-processing failure,
/// different body.
pub const LIFECYCLE_DRAWS_PER_ATTEMPT: u64 = 2;

/// The lifecycle draws of one payment, laid out in its slice of the run's lifecycle stream as
/// `[copy 0's attempts, copy 1's attempts, ...]`, each attempt owning
/// [`LIFECYCLE_DRAWS_PER_ATTEMPT`] draws: `[failure, different body]`. Read only when a
/// scenario has failures or different bodies; otherwise every draw reads as 1 (never below a
/// rate).
#[derive(Debug, Clone)]
pub struct LifecycleDraws {
    draws: Vec<[f64; 2]>,
    attempts_per_copy: usize,
    /// Attempts of all copies: `copies × (max_retries + 1)`.
    attempts: usize,
}

impl LifecycleDraws {
    /// Draws one payment uses with `copies` copies and `max_retries`.
    pub fn stride(copies: u32, max_retries: u32) -> u128 {
        u128::from(copies) * (u128::from(max_retries) + 1) * u128::from(LIFECYCLE_DRAWS_PER_ATTEMPT)
    }

    /// Empty buffers for payments with `copies` copies and `max_retries`, filled by
    /// [`LifecycleDraws::read`].
    pub fn new(copies: u32, max_retries: u32) -> Self {
        let attempts = copies as usize * (max_retries as usize + 1);
        Self {
            draws: Vec::with_capacity(attempts),
            attempts_per_copy: max_retries as usize + 1,
            attempts,
        }
    }

    /// Reads the next payment's draws from `stream`, leaving it at the payment after.
    pub fn read(&mut self, stream: &mut PcgState) {
        self.draws.clear();
        self.draws.extend(
            (0..self.attempts).map(|_| [unit_f64(stream.next_u64()), unit_f64(stream.next_u64())]),
        );
    }

    fn get(&self, copy: u32, attempt: u32) -> [f64; 2] {
        self.draws
            .get(copy as usize * self.attempts_per_copy + attempt as usize)
            .copied()
            .unwrap_or([1.0, 1.0])
    }

    /// The uniform deciding whether attempt `attempt` of copy `copy` fails if it is the
    /// payment's first processing.
    pub fn failure(&self, copy: u32, attempt: u32) -> f64 {
        self.get(copy, attempt)[0]
    }

    /// The uniform deciding whether attempt `attempt` of copy `copy` carries a different body
    /// (retries only).
    pub fn different_body(&self, copy: u32, attempt: u32) -> f64 {
        self.get(copy, attempt)[1]
    }
}

impl PaymentDraws {
    /// Draws in `PcgState`-steps one payment uses with `copies` copies and `max_retries`.
    pub fn stride(copies: u32, max_retries: u32) -> u128 {
        1 + u128::from(copies) + u128::from(copies) * Self::copy_stride(max_retries)
    }

    fn copy_stride(max_retries: u32) -> u128 {
        (u128::from(max_retries) + 1) * u128::from(DRAWS_PER_ATTEMPT)
    }

    /// Empty buffers for the payments of a stream like `stream`, filled by
    /// [`PaymentDraws::read`].
    pub fn new(stream: &PcgState, copies: u32, max_retries: u32) -> Self {
        Self {
            arrival_gap: 0.0,
            copy_offsets: Vec::with_capacity(copies as usize),
            copy_streams: Vec::with_capacity(copies as usize),
            attempts: vec![Vec::new(); copies as usize],
            copy_jump: stream.jump(Self::copy_stride(max_retries)),
            copies,
            lifecycle: LifecycleDraws::new(copies, max_retries),
        }
    }

    /// Reads the payment whose stream starts at `start` (the state before its first draw).
    pub fn read(&mut self, start: &PcgState) {
        let mut stream = *start;
        self.arrival_gap = unit_f64(stream.next_u64());
        self.copy_offsets.clear();
        self.copy_offsets
            .extend((0..self.copies).map(|_| unit_f64(stream.next_u64())));
        self.copy_streams.clear();
        for attempts in &mut self.attempts {
            self.copy_streams.push(stream);
            stream.apply(&self.copy_jump);
            attempts.clear();
        }
    }

    /// Attempt `attempt` of copy `copy`, sampled on first use.
    pub fn attempt(&mut self, copy: u32, attempt: u32, scenario: &Scenario) -> AttemptSample {
        let (copy, attempt) = (copy as usize, attempt as usize);
        let samples = &mut self.attempts[copy];
        while samples.len() <= attempt {
            samples.push(AttemptSample::draw(&mut self.copy_streams[copy], scenario));
        }
        samples[attempt]
    }
}

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

/// The response's fate, fixed when the attempt was sent.
#[derive(Debug, Clone, Copy)]
struct Return {
    ack_lost: bool,
    response_ms: f64,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    /// A copy sends its next attempt.
    Send { copy: u32 },
    /// An attempt reaches the server.
    Arrive {
        copy: u32,
        attempt: u32,
        processing_ms: f64,
        back: Return,
        body: Body,
    },
    /// The server finishes processing an attempt: it charges, or it fails with a 500.
    Complete {
        copy: u32,
        attempt: u32,
        back: Return,
        body: Body,
        fails: bool,
        after_expiry: bool,
    },
    /// A response reaches the client.
    Receive {
        copy: u32,
        attempt: u32,
        answer: Answer,
        body: Body,
    },
    /// The client stops waiting for an attempt.
    Timeout { copy: u32, attempt: u32 },
}

struct Scheduled {
    time_ms: f64,
    sequence: u64,
    event: Event,
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    /// Reversed, so that the max-heap pops the earliest event (ties: first scheduled).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time_ms
            .total_cmp(&self.time_ms)
            .then(other.sequence.cmp(&self.sequence))
    }
}

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

/// Reusable buffers for simulating many payments on one thread.
#[derive(Default)]
pub struct Simulator {
    heap: BinaryHeap<Scheduled>,
    clients: Vec<Client>,
    sequence: u64,
}

impl Simulator {
    fn schedule(&mut self, time_ms: f64, event: Event) {
        self.sequence += 1;
        self.heap.push(Scheduled {
            time_ms,
            sequence: self.sequence,
            event,
        });
    }

    /// Simulates one payment of `scenario` under `strategy` with the draws `draws`.
    pub fn run(
        &mut self,
        scenario: &Scenario,
        strategy: Strategy,
        draws: &mut PaymentDraws,
    ) -> PaymentOutcome {
        let client_policy = &scenario.client;
        let copies = scenario.arrivals.copies;
        self.heap.clear();
        self.sequence = 0;
        self.clients.clear();
        self.clients.extend((0..copies).map(|_| Client {
            attempts: 0,
            waiting: None,
            jitter: 0.0,
            previous_backoff_ms: client_policy.backoff.initial_ms(),
            done: false,
        }));
        match scenario.arrivals.copy_mode {
            CopyMode::Sequential => self.schedule(0.0, Event::Send { copy: 0 }),
            CopyMode::Concurrent => {
                for copy in 0..copies {
                    let spread = scenario.arrivals.copy_spread_ms;
                    let offset = match scenario.arrivals.copy_spacing {
                        CopySpacing::Even if copies > 1 => {
                            spread * f64::from(copy) / f64::from(copies - 1)
                        }
                        CopySpacing::Even => 0.0,
                        CopySpacing::Random if copy == 0 => 0.0,
                        CopySpacing::Random => spread * draws.copy_offsets[copy as usize],
                    };
                    self.schedule(offset, Event::Send { copy });
                }
            }
        }

        let lifecycle = &scenario.key;
        let mut key = Key {
            state: KeyState::Absent,
            created_ms: 0.0,
            body: Body::Original,
        };
        let keeps_key = strategy != Strategy::None;
        let mut outcome = PaymentOutcome::default();
        let mut first_success_ms: Option<f64> = None;
        let mut last_give_up_ms: f64 = 0.0;
        // Whether the first processing has started, whether a failure was not stored, whether
        // the key was ever pruned, charges of the payment's own body, and the bodies of the
        // unprocessed successes the clients accepted.
        let mut processed = false;
        let mut unstored_failure = false;
        let mut pruned = false;
        let mut original_charges = 0u64;
        let mut accepted_replay_of_original = false;
        let mut told_wrong_body = false;

        while let Some(Scheduled {
            time_ms: now,
            event,
            ..
        }) = self.heap.pop()
        {
            match event {
                Event::Send { copy } => {
                    let client = &mut self.clients[copy as usize];
                    let attempt = client.attempts;
                    client.attempts += 1;
                    client.waiting = Some(attempt);
                    let sample = draws.attempt(copy, attempt, scenario);
                    client.jitter = sample.jitter;
                    outcome.counts.attempts += 1;
                    let body = if attempt > 0
                        && draws.lifecycle.different_body(copy, attempt)
                            < client_policy.different_body_rate
                    {
                        Body::Different
                    } else {
                        Body::Original
                    };
                    self.schedule(
                        now + client_policy.timeout_ms,
                        Event::Timeout { copy, attempt },
                    );
                    if !sample.request_lost {
                        let back = Return {
                            ack_lost: sample.ack_lost,
                            response_ms: sample.response_ms,
                        };
                        self.schedule(
                            now + sample.request_ms,
                            Event::Arrive {
                                copy,
                                attempt,
                                processing_ms: sample.processing_ms,
                                back,
                                body,
                            },
                        );
                    }
                }
                Event::Arrive {
                    copy,
                    attempt,
                    processing_ms,
                    back,
                    body,
                } => {
                    outcome.counts.deliveries += 1;
                    if keeps_key
                        && key.state != KeyState::Absent
                        && lifecycle
                            .key_ttl_ms
                            .is_some_and(|ttl| now >= key.created_ms + ttl)
                    {
                        key.state = KeyState::Absent;
                        pruned = true;
                    }
                    let immediate = match (strategy, key.state) {
                        (Strategy::None, _) | (Strategy::CheckThenInsert, KeyState::Absent) => None,
                        (Strategy::UniqueKey, KeyState::Absent) => {
                            key = Key {
                                state: KeyState::InFlight,
                                created_ms: now,
                                body,
                            };
                            None
                        }
                        (_, state) => {
                            let mismatch = body == Body::Different || key.body == Body::Different;
                            if mismatch && lifecycle.fingerprint {
                                Some(Answer::Rejected)
                            } else {
                                let answer = match (lifecycle.duplicate_answer, state) {
                                    (DuplicateAnswer::Replay, KeyState::InFlight)
                                    | (DuplicateAnswer::Conflict409, _) => Answer::Conflict,
                                    (DuplicateAnswer::Replay, KeyState::Failed)
                                    | (DuplicateAnswer::Error500, _) => Answer::ServerError,
                                    _ => Answer::Replayed,
                                };
                                if mismatch && answer == Answer::Replayed {
                                    outcome.counts.wrong_replays += 1;
                                }
                                Some(answer)
                            }
                        }
                    };
                    match immediate {
                        None => {
                            let fails = !processed
                                && draws.lifecycle.failure(copy, attempt) < lifecycle.error_rate;
                            outcome.counts.errors_retried += u64::from(unstored_failure);
                            processed = true;
                            self.schedule(
                                now + processing_ms,
                                Event::Complete {
                                    copy,
                                    attempt,
                                    back,
                                    body,
                                    fails,
                                    after_expiry: pruned,
                                },
                            )
                        }
                        Some(answer) => {
                            match answer {
                                Answer::Replayed => outcome.counts.replays += 1,
                                Answer::Conflict => outcome.counts.conflicts += 1,
                                Answer::ServerError => outcome.counts.errors_replayed += 1,
                                Answer::Rejected => outcome.counts.rejected_mismatches += 1,
                                Answer::Charged => {}
                            }
                            self.respond(now, copy, attempt, back, answer, body);
                        }
                    }
                }
                Event::Complete {
                    copy,
                    attempt,
                    back,
                    body,
                    fails,
                    after_expiry,
                } => {
                    let answer = if fails {
                        outcome.counts.server_errors += 1;
                        let stored = keeps_key && lifecycle.error_policy == ErrorPolicy::Store;
                        unstored_failure = !stored;
                        // A success stored meanwhile (a racing check_then_insert charge) stays.
                        if stored && key.state != KeyState::Complete {
                            if key.state == KeyState::Absent {
                                key.created_ms = now;
                                key.body = body;
                            }
                            key.state = KeyState::Failed;
                        } else if !stored && key.state == KeyState::InFlight {
                            key.state = KeyState::Absent;
                        }
                        Answer::ServerError
                    } else {
                        outcome.counts.charges += 1;
                        original_charges += u64::from(body == Body::Original);
                        outcome.counts.expired_key_charges += u64::from(after_expiry);
                        if keeps_key {
                            if key.state == KeyState::Absent {
                                key.created_ms = now;
                                key.body = body;
                            }
                            key.state = KeyState::Complete;
                        }
                        Answer::Charged
                    };
                    self.respond(now, copy, attempt, back, answer, body);
                }
                Event::Receive {
                    copy,
                    attempt,
                    answer,
                    body,
                } => {
                    if self.clients[copy as usize].waiting != Some(attempt) {
                        continue; // late: the client already timed out
                    }
                    match answer {
                        Answer::Conflict | Answer::ServerError => {
                            self.retry_or_give_up(now, copy, scenario, &mut last_give_up_ms);
                        }
                        Answer::Rejected => {
                            let client = &mut self.clients[copy as usize];
                            client.waiting = None;
                            client.done = true;
                            last_give_up_ms = last_give_up_ms.max(now);
                            self.next_sequential_copy(now, copy, scenario);
                        }
                        Answer::Charged | Answer::Replayed => {
                            if answer == Answer::Replayed {
                                match body {
                                    // Each different body is unlike every other: nothing
                                    // charged it.
                                    Body::Different => told_wrong_body = true,
                                    Body::Original => accepted_replay_of_original = true,
                                }
                            }
                            let client = &mut self.clients[copy as usize];
                            client.waiting = None;
                            client.done = true;
                            first_success_ms.get_or_insert(now);
                            self.next_sequential_copy(now, copy, scenario);
                        }
                    }
                }
                Event::Timeout { copy, attempt } => {
                    if self.clients[copy as usize].waiting == Some(attempt) {
                        self.retry_or_give_up(now, copy, scenario, &mut last_give_up_ms);
                    }
                }
            }
        }
        debug_assert!(self.clients.iter().all(|client| client.done));
        let counts = &mut outcome.counts;
        let succeeded = first_success_ms.is_some();
        counts.payments = 1;
        counts.double_charged_payments = u64::from(counts.charges >= 2);
        counts.extra_charges = counts.charges.saturating_sub(1);
        counts.succeeded = u64::from(succeeded);
        counts.gave_up_charged = u64::from(!succeeded && counts.charges > 0);
        counts.gave_up_not_charged = u64::from(!succeeded && counts.charges == 0);
        counts.told_succeeded_not_charged =
            u64::from(told_wrong_body || (accepted_replay_of_original && original_charges == 0));
        outcome.latency_ms = first_success_ms.unwrap_or(last_give_up_ms);
        outcome
    }

    fn respond(
        &mut self,
        now: f64,
        copy: u32,
        attempt: u32,
        back: Return,
        answer: Answer,
        body: Body,
    ) {
        if !back.ack_lost {
            self.schedule(
                now + back.response_ms,
                Event::Receive {
                    copy,
                    attempt,
                    answer,
                    body,
                },
            );
        }
    }

    /// After a timeout or a 409: wait the backoff and retry, or give up.
    fn retry_or_give_up(
        &mut self,
        now: f64,
        copy: u32,
        scenario: &Scenario,
        last_give_up_ms: &mut f64,
    ) {
        let policy = &scenario.client;
        let client = &mut self.clients[copy as usize];
        client.waiting = None;
        let retry = client.attempts - 1;
        if retry < policy.max_retries {
            let wait = policy
                .backoff
                .delay_ms(retry, client.previous_backoff_ms, client.jitter);
            client.previous_backoff_ms = wait;
            self.schedule(now + wait, Event::Send { copy });
        } else {
            client.done = true;
            *last_give_up_ms = last_give_up_ms.max(now);
            self.next_sequential_copy(now, copy, scenario);
        }
    }

    /// In sequential mode, the next copy is sent when this one reached its final outcome.
    fn next_sequential_copy(&mut self, now: f64, copy: u32, scenario: &Scenario) {
        if scenario.arrivals.copy_mode == CopyMode::Sequential
            && copy + 1 < scenario.arrivals.copies
        {
            self.schedule(now, Event::Send { copy: copy + 1 });
        }
    }
}
