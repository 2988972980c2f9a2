//! The server's side of the load model's event loop: a request's arrival at the server, the
//! FIFO queue and the workers, the strategy applied to the key the request meets (processing,
//! a 409, a replay, a lock wait), the end of a processing (the charge or the 500, the key
//! stored, the lock waiters woken) and the answer sent back.

use super::*;

impl Simulation<'_> {
    /// A request reaches the server: a worker, the queue, or a 503.
    pub(super) fn reach(&mut self, now: f64, request: Request) {
        self.tally.counts.calls += 1;
        self.bucket.calls += 1;
        if self.fifo.is_empty() && self.busy < self.scenario.server.workers_at(now) {
            self.start(now, request, false);
        } else if self
            .scenario
            .server
            .queue_limit
            .is_some_and(|limit| self.fifo.len() >= limit as usize)
        {
            self.tally.counts.shed += 1;
            self.bucket.shed += 1;
            self.answer(now, request.payment, request.attempt, Answer::Shed503);
        } else {
            self.payments[request.payment as usize].refs += 1;
            self.fifo.push_back(request);
        }
    }

    /// Workers take queued requests while some are free.
    pub(super) fn fill(&mut self, now: f64) {
        while self.busy < self.scenario.server.workers_at(now) {
            let Some(request) = self.fifo.pop_front() else {
                break;
            };
            self.start(now, request, true);
            self.release(request.payment);
        }
    }

    /// A worker takes a request, from the queue (`queued`) or at once: drop it if expired,
    /// else apply the strategy.
    fn start(&mut self, now: f64, request: Request, queued: bool) {
        self.tally.dequeued += 1;
        self.tally.queue_wait_ms += now - request.reached_ms;
        self.steady.taken(now, request.reached_ms, queued);
        let server = &self.scenario.server;
        if server.drop_expired && now - request.sent_ms > self.scenario.client.timeout_ms {
            self.tally.counts.dropped_expired += 1;
            self.steady.left(now, request.reached_ms);
            return;
        }
        let key = self.key_met(now, request.payment);
        match (self.strategy, key) {
            (LoadStrategy::None, _)
            | (LoadStrategy::CheckThenInsert, Key::Absent | Key::InFlight) => {
                self.busy += 1;
                self.process(now, request);
            }
            (_, Key::Completed { ok }) => {
                self.steady.left(now, request.reached_ms);
                self.answer_stored(now, request, ok);
            }
            (LoadStrategy::UniqueKey | LoadStrategy::LockWait, Key::Absent) => {
                self.payments[request.payment as usize].store_key(Key::InFlight, now);
                self.busy += 1;
                self.process(now, request);
            }
            (LoadStrategy::UniqueKey, Key::InFlight) => {
                self.steady.left(now, request.reached_ms);
                self.conflict(now, request);
            }
            (LoadStrategy::LockWait, Key::InFlight) => {
                self.busy += 1;
                self.tally.counts.lock_waits += 1;
                let slot = &mut self.payments[request.payment as usize];
                slot.refs += 1;
                slot.waiters.push(request);
            }
        }
    }

    /// The key of `payment` as a delivery meets it at `now`: the store has pruned a key
    /// created `key_ttl_ms` ago or more (lazily: no event marks the expiry).
    fn key_met(&mut self, now: f64, payment: u32) -> Key {
        let slot = &mut self.payments[payment as usize];
        if slot.key != Key::Absent
            && self
                .scenario
                .server
                .key_ttl_ms
                .is_some_and(|ttl| now >= slot.key_created_ms + ttl)
        {
            slot.key = Key::Absent;
            slot.key_pruned = true;
        }
        slot.key
    }

    /// Processing on a worker already counted busy: `processing + slope × busy`.
    fn process(&mut self, now: f64, request: Request) {
        let base = self.processing.sample(&mut self.stream);
        let slope = self.scenario.server.processing_per_in_flight_ms;
        let duration = base + slope * f64::from(self.busy);
        let done = Event::Done {
            payment: request.payment,
            attempt: request.attempt,
            after_expiry: self.payments[request.payment as usize].key_pruned,
            reached_ms: request.reached_ms,
        };
        self.schedule(now + duration, done);
    }

    /// Answers a delivery whose key is stored: the stored response, or 409
    /// (`duplicate_answer`).
    fn answer_stored(&mut self, now: f64, request: Request, ok: bool) {
        match self.scenario.server.duplicate_answer {
            LoadDuplicateAnswer::Replay => self.replay(now, request, ok),
            LoadDuplicateAnswer::Conflict409 => self.conflict(now, request),
        }
    }

    /// Answers 409 at once.
    fn conflict(&mut self, now: f64, request: Request) {
        self.tally.counts.conflicts += 1;
        self.bucket.conflicts += 1;
        self.answer(now, request.payment, request.attempt, Answer::Conflict409);
    }

    /// Answers with the stored response.
    fn replay(&mut self, now: f64, request: Request, ok: bool) {
        self.tally.counts.replays += 1;
        let answer = if ok { Answer::Ok } else { Answer::Error500 };
        self.answer(now, request.payment, request.attempt, answer);
    }

    /// Sends an answer to attempt `attempt` of `payment` back, unless it is lost.
    fn answer(&mut self, now: f64, payment: u32, attempt: u32, answer: Answer) {
        self.tally.counts.answers += 1;
        if self.lost(now, self.scenario.network.ack_loss) {
            self.tally.counts.lost_answers += 1;
            return;
        }
        let latency = self.response_latency.sample(&mut self.stream);
        let event = Event::Reply {
            payment,
            attempt,
            answer,
        };
        self.schedule(now + latency, event);
    }

    /// A worker finishes attempt `attempt` of `payment` (taken after its key had been pruned:
    /// `after_expiry`; it reached the server at `reached_ms`): charge or fail, store the key,
    /// answer, wake lock waiters.
    pub(super) fn done(
        &mut self,
        now: f64,
        payment: u32,
        attempt: u32,
        after_expiry: bool,
        reached_ms: f64,
    ) {
        self.busy -= 1;
        self.steady.left(now, reached_ms);
        self.tally.counts.processings += 1;
        let server = &self.scenario.server;
        let failed = server.error_rate > 0.0 && self.stream.uniform() < server.error_rate;
        let keyed = self.strategy != LoadStrategy::None;
        let error_policy = server.error_policy;
        let slot = &mut self.payments[payment as usize];
        let answer = if failed {
            self.tally.counts.server_errors += 1;
            if keyed {
                slot.store_key(
                    match error_policy {
                        ErrorPolicy::Store => Key::Completed { ok: false },
                        ErrorPolicy::Retry => Key::Absent,
                    },
                    now,
                );
            }
            Answer::Error500
        } else {
            self.tally.counts.charges += 1;
            self.tally.counts.expired_key_charges += u64::from(after_expiry);
            slot.charges += 1;
            if slot.charges == 2 {
                self.tally.counts.double_charges += 1;
            }
            if keyed {
                slot.store_key(Key::Completed { ok: true }, now);
            }
            Answer::Ok
        };
        if slot.done || slot.attempt != attempt || !slot.waiting {
            self.tally.counts.wasted_work += 1;
        }
        self.answer(now, payment, attempt, answer);
        if !self.payments[payment as usize].waiters.is_empty() {
            self.wake(now, payment);
        }
        self.fill(now);
    }

    /// The lock of `payment` was released: waiters get the stored answer, or (a 500 not
    /// stored) the first waiter takes the lock and processes.
    fn wake(&mut self, now: f64, payment: u32) {
        let mut waiters = std::mem::take(&mut self.payments[payment as usize].waiters);
        match self.key_met(now, payment) {
            Key::Completed { ok } => {
                for waiter in waiters.drain(..) {
                    self.busy -= 1;
                    self.steady.left(now, waiter.reached_ms);
                    self.answer_stored(now, waiter, ok);
                    self.payments[payment as usize].refs -= 1;
                }
            }
            Key::Absent | Key::InFlight => {
                let first = waiters.remove(0);
                self.payments[payment as usize].store_key(Key::InFlight, now);
                self.process(now, first);
                self.payments[payment as usize].refs -= 1;
            }
        }
        let slot = &mut self.payments[payment as usize];
        waiters.append(&mut slot.waiters);
        slot.waiters = waiters;
    }
}
