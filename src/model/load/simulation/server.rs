//! The server's side of the load model's event loop: a request's arrival at the server, the
//! FIFO queue and the workers, the strategy applied to the key the request meets (processing,
//! a 409, a replay, a lock wait), the end of a processing (the charge or the 500, the key
//! stored, the lock waiters woken) and the answer sent back. What the key store does
//! (crashes, a write after the commit, a `key_first` lock and its expiry, the completer, the
//! store's outages) is decided by the rules both models share, `crate::model::semantics`.
//!
//! With `key_first` under `unique_key` the reservation is the other store's (a SETNX in front
//! of the database): it is made when the request reaches the server, before it waits for a
//! worker, so its lock's TTL runs while the request queues; a request whose key is held is
//! answered 409, one whose key is complete its replay, there and then.

use super::*;
use crate::model::load::trace::{Event as Recorded, KeyFound};
use crate::model::semantics::{self, CrashPoint, OnUnavailable, PresentKeyAnswer};

impl<R: Recorder<Recorded>> Simulation<'_, R> {
    /// Tells the recorder what a look-up of `request`'s key found (`key`).
    #[inline(always)]
    fn note_key(&mut self, now: f64, request: Request, key: KeyState) {
        if R::RECORDS {
            let found = match key {
                KeyState::Absent => KeyFound::Absent,
                KeyState::InFlight
                    if self.payments[self.head(request.payment)]
                        .key
                        .release
                        .is_some() =>
                {
                    KeyFound::Stuck
                }
                KeyState::InFlight => KeyFound::InFlight,
                KeyState::Complete => KeyFound::Complete,
                KeyState::Failed => KeyFound::Failed,
            };
            let kind = EventKind::KeyLookedUp { found };
            self.note(now, request.payment, request.attempt, kind);
        }
    }

    /// A request reaches the server: a worker, the queue, or a 503.
    pub(super) fn reach(&mut self, now: f64, mut request: Request) {
        self.tally.counts.calls += 1;
        self.bucket.calls += 1;
        self.note(now, request.payment, request.attempt, EventKind::Reached);
        if self.key_store == KeyStore::KeyFirst {
            match self.reserve_in_front(now, request) {
                Some(front) => request.front = front,
                None => return,
            }
        }
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
            self.note(now, request.payment, request.attempt, EventKind::Shed);
            self.cancel_reservation(request);
            self.answer(now, request.payment, request.attempt, Answer::Shed503);
        } else {
            let ahead = self.fifo.len() as u32;
            self.note(
                now,
                request.payment,
                request.attempt,
                EventKind::Queued { ahead },
            );
            self.payments[request.payment as usize].refs += 1;
            self.fifo.push_back(request);
        }
    }

    /// `key_first` (`unique_key`): the key is reserved in the other store as the request
    /// reaches the server. `Some(front)`: it goes on to a worker; `None`: it was answered at
    /// once (409 for a key held, the stored answer for a complete one, 503 for a store down
    /// that fails closed).
    fn reserve_in_front(&mut self, now: f64, request: Request) -> Option<Front> {
        if self.store_down(now) {
            return self.unavailable(now, request).then_some(Front::Unkeyed);
        }
        let key = self.key_met(now, request.payment);
        self.note_key(now, request, key);
        match key {
            KeyState::Absent => {
                let server = &self.scenario.server.key_server;
                let expiry = semantics::lock_expiry_ms(server, KeyStore::KeyFirst, now);
                let head = self.head(request.payment);
                self.payments[head]
                    .key
                    .reserve(now, expiry, request.different);
                self.note(
                    now,
                    request.payment,
                    request.attempt,
                    EventKind::KeyReserved,
                );
                Some(Front::Reserved)
            }
            _ if self.rejected(now, request) => None,
            present => {
                self.answer_present(now, request, present);
                None
            }
        }
    }

    /// A delivery meets its payment's key, present: with a fingerprint, a body other than the
    /// one the key was stored for is answered 422 at once (`true`). Each different body is
    /// unlike every other, so a mismatch is either side's being different.
    fn rejected(&mut self, now: f64, request: Request) -> bool {
        let key = &self.payments[self.head(request.payment)].key;
        if !(key.mismatch(request.different) && self.scenario.server.fingerprint) {
            return false;
        }
        self.tally.bodies.rejected_mismatches += 1;
        self.answer(now, request.payment, request.attempt, Answer::Rejected422);
        true
    }

    /// Whether the other key store is down at `now` (a key in the charge's transaction has
    /// none).
    fn store_down(&self, now: f64) -> bool {
        let outages = &self.scenario.server.key_store_outages;
        !outages.is_empty() && self.key_store.is_separate() && outages.down_at(now)
    }

    /// The key store is down as a delivery needs it: fail closed (503 at once; `false`) or
    /// open (process it without the key; `true`).
    fn unavailable(&mut self, now: f64, request: Request) -> bool {
        let fail_open =
            self.scenario.server.key_store_outages.on_unavailable == OnUnavailable::FailOpen;
        let kind = EventKind::KeyStoreDown { fail_open };
        self.note(now, request.payment, request.attempt, kind);
        match self.scenario.server.key_store_outages.on_unavailable {
            OnUnavailable::FailClosed => {
                self.tally.key_store.key_store_unavailable += 1;
                self.answer(now, request.payment, request.attempt, Answer::Shed503);
                false
            }
            OnUnavailable::FailOpen => {
                self.tally.key_store.unkeyed_processings += 1;
                true
            }
        }
    }

    /// A request that reserved its key will not be processed (shed, or dropped expired): the
    /// server deletes its reservation.
    fn cancel_reservation(&mut self, request: Request) {
        let head = self.head(request.payment);
        let key = &mut self.payments[head].key;
        if request.front == Front::Reserved && key.state == KeyState::InFlight {
            key.state = KeyState::Absent;
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
    /// else apply the strategy; or the completer's or the outbox relay's work.
    fn start(&mut self, now: f64, request: Request, queued: bool) {
        let payment = request.payment;
        let job = match request.front {
            Front::Completer => self
                .completer_work
                .map(|work| (work, Event::CompleterDone { payment })),
            Front::Relay => self
                .relay_work
                .map(|work| (work, Event::RelayDone { payment })),
            _ => None,
        };
        if let Some((work, done)) = job {
            self.busy += 1;
            let until_ms = now + work.sample(&mut self.stream);
            self.schedule(until_ms, done);
            return;
        }
        self.tally.dequeued += 1;
        self.tally.queue_wait_ms += now - request.reached_ms;
        self.steady.taken(now, request.reached_ms, queued);
        let waited_ms = now - request.reached_ms;
        self.note(
            now,
            request.payment,
            request.attempt,
            EventKind::Taken { waited_ms },
        );
        let server = &self.scenario.server;
        if server.drop_expired && now - request.sent_ms > self.scenario.client.timeout_ms {
            self.tally.counts.dropped_expired += 1;
            let kind = EventKind::DroppedExpired;
            self.note(now, request.payment, request.attempt, kind);
            self.steady.left(now, request.reached_ms);
            self.cancel_reservation(request);
            return;
        }
        if request.front != Front::None {
            // Its key was dealt with in front of the queue.
            self.busy += 1;
            self.process(now, request, request.front == Front::Reserved);
            return;
        }
        if self.strategy != LoadStrategy::None && self.store_down(now) {
            if self.unavailable(now, request) {
                self.busy += 1;
                self.process(now, request, false);
            } else {
                self.steady.left(now, request.reached_ms);
            }
            return;
        }
        let key = self.key_met(now, request.payment);
        self.note_key(now, request, key);
        match (self.strategy, key) {
            (LoadStrategy::None, _)
            | (LoadStrategy::CheckThenInsert, KeyState::Absent | KeyState::InFlight) => {
                self.busy += 1;
                self.process(now, request, true);
            }
            // A key present (the strategies above never look at its body).
            _ if key != KeyState::Absent && self.rejected(now, request) => {
                self.steady.left(now, request.reached_ms);
            }
            (_, stored @ (KeyState::Complete | KeyState::Failed)) => {
                self.steady.left(now, request.reached_ms);
                self.answer_present(now, request, stored);
            }
            (LoadStrategy::UniqueKey | LoadStrategy::LockWait, KeyState::Absent) => {
                let head = self.head(request.payment);
                let key = &mut self.payments[head].key;
                key.reserve(now, f64::INFINITY, request.different);
                self.note(
                    now,
                    request.payment,
                    request.attempt,
                    EventKind::KeyReserved,
                );
                self.busy += 1;
                self.process(now, request, true);
            }
            (LoadStrategy::UniqueKey, KeyState::InFlight) => {
                self.steady.left(now, request.reached_ms);
                self.answer_present(now, request, KeyState::InFlight);
            }
            (LoadStrategy::LockWait, KeyState::InFlight) => {
                self.busy += 1;
                self.tally.counts.lock_waits += 1;
                self.note(
                    now,
                    request.payment,
                    request.attempt,
                    EventKind::LockWaiting,
                );
                // The waiter holds its own copy's slot; it waits on the payment's key.
                self.payments[request.payment as usize].refs += 1;
                let head = self.head(request.payment);
                self.payments[head].waiters.push(request);
            }
        }
    }

    /// The key of the payment of copy `payment` as a delivery meets it at `now`
    /// ([`KeyRecord::meet`]): pruned `key_ttl_ms` after it was created, released if it was
    /// left in flight and its lock expired or the completer came.
    fn key_met(&mut self, now: f64, payment: u32) -> KeyState {
        let head = self.head(payment);
        let slot = &mut self.payments[head];
        let met = slot.key.meet(now, self.scenario.server.key_ttl_ms);
        slot.key_pruned |= met.expired;
        if let Some(released) = met.released {
            self.tally.key_store.lock_expiries += u64::from(released.lock_expired);
        }
        slot.key.state
    }

    /// Processing on a worker already counted busy: `processing + slope × busy`, plus the
    /// calls to the other key store it waits for when it uses the key (`with_key`; a
    /// fail-open processing makes none): the look-up or reservation before the charge (its
    /// result as of the worker taking the request) and the write after the commit (stored
    /// when the worker is done), each drawn after the processing time.
    fn process(&mut self, now: f64, request: Request, with_key: bool) {
        let base = self.processing.sample(&mut self.stream);
        let slope = self.scenario.server.processing_per_in_flight_ms;
        let mut duration = base + slope * f64::from(self.busy);
        if let Some(latency) = self.key_store_latency.filter(|_| with_key) {
            for _ in 0..self.key_store_calls {
                duration += latency.sample(&mut self.stream);
            }
        }
        let predrawn = self.scenario.server.provider.map(|provider| {
            let (outcome, provider_ms) = self.call_provider(request.payment, &provider);
            duration += provider_ms;
            outcome
        });
        let until_ms = now + duration;
        let kind = EventKind::ProcessingStarted { until_ms };
        self.note(now, request.payment, request.attempt, kind);
        let done = Event::Done(Work {
            payment: request.payment,
            attempt: request.attempt,
            after_expiry: self.payments[self.head(request.payment)].key_pruned,
            reached_ms: request.reached_ms,
            different: request.different,
            predrawn,
        });
        self.schedule(now + duration, done);
    }

    /// A processing of copy `payment` that calls `provider`, as the timeline's does: its 500
    /// and its crash are drawn first (a processing that fails, or crashes before the charge,
    /// calls nothing), then the calls ([`semantics::call_provider`], three draws each); when
    /// none is answered the processing fails with a 500 and does not crash (the provider may
    /// have charged all the same). Returns the 500 and the crash, and the time the calls took
    /// (ms), which the worker waits.
    fn call_provider(
        &mut self,
        payment: u32,
        provider: &semantics::Provider,
    ) -> ((bool, Option<CrashPoint>), f64) {
        let (mut fails, mut crash) = self.draw_failure();
        if fails || crash == Some(CrashPoint::BeforeCharge) {
            return ((fails, crash), 0.0);
        }
        let head = self.head(payment);
        let sampler = self.provider_latency.expect("a provider has its latency");
        let stream = &mut self.stream;
        let draws = |_| [stream.uniform(), stream.uniform(), stream.uniform()];
        let reached = self.payments[head].provider_reached;
        let exchange = semantics::call_provider(provider, &sampler, draws, reached);
        let slot = &mut self.payments[head];
        slot.provider_reached |= exchange.received;
        slot.provider_charges += exchange.charges as u32;
        let counts = &mut self.tally.provider;
        counts.provider_calls += exchange.calls;
        counts.provider_timeouts += exchange.timeouts;
        counts.provider_charges += exchange.charges;
        let waited_ms = if exchange.succeeded {
            exchange.elapsed_ms
        } else {
            fails = true;
            crash = None;
            provider.all_timed_out_ms()
        };
        ((fails, crash), waited_ms)
    }

    /// Whether a processing fails with a 500 (`error_rate`), and else whether and where it
    /// crashes (`crash_rate`), each drawn only when its rate is above 0.
    fn draw_failure(&mut self) -> (bool, Option<CrashPoint>) {
        let server = &self.scenario.server;
        let failed = server.error_rate > 0.0 && self.stream.uniform() < server.error_rate;
        let crash_rate = server.key_server.crash_rate;
        let crashes = !failed && crash_rate > 0.0 && self.stream.uniform() < crash_rate;
        (
            failed,
            crashes.then(|| CrashPoint::of(self.stream.uniform())),
        )
    }

    /// Answers at once a delivery whose key is present in `state`, as `duplicate_answer`
    /// says ([`DuplicateAnswer::to_present_key`](semantics::DuplicateAnswer::to_present_key),
    /// the timeline's rule): 409, or a success or a 500 sent as a stored response.
    fn answer_present(&mut self, now: f64, request: Request, state: KeyState) {
        match self.scenario.server.duplicate_answer.to_present_key(state) {
            PresentKeyAnswer::Conflict => self.conflict(now, request),
            PresentKeyAnswer::ServerError => self.replay(now, request, false),
            PresentKeyAnswer::Success => self.replay(now, request, true),
        }
    }

    /// Answers 409 at once.
    fn conflict(&mut self, now: f64, request: Request) {
        self.tally.counts.conflicts += 1;
        self.bucket.conflicts += 1;
        self.answer(now, request.payment, request.attempt, Answer::Conflict409);
    }

    /// Answers with the stored response: another body's success, if the bodies differ (no
    /// fingerprint stopped it).
    fn replay(&mut self, now: f64, request: Request, ok: bool) {
        self.tally.counts.replays += 1;
        let mismatch = self.payments[self.head(request.payment)]
            .key
            .mismatch(request.different);
        self.tally.bodies.wrong_replays += u64::from(ok && mismatch);
        let answer = if ok { Answer::Ok } else { Answer::Error500 };
        self.send_answer(now, request.payment, request.attempt, answer, true);
    }

    /// Sends the outcome of a processing, or a refusal, to attempt `attempt` of `payment`.
    fn answer(&mut self, now: f64, payment: u32, attempt: u32, answer: Answer) {
        self.send_answer(now, payment, attempt, answer, false);
    }

    /// Sends an answer to attempt `attempt` of `payment` back, unless it is lost (`replay`: a
    /// stored response).
    fn send_answer(&mut self, now: f64, payment: u32, attempt: u32, answer: Answer, replay: bool) {
        self.tally.counts.answers += 1;
        self.note(now, payment, attempt, EventKind::Answered { answer });
        if self.lost(now, self.scenario.network.ack_loss) {
            self.tally.counts.lost_answers += 1;
            self.note(now, payment, attempt, EventKind::ResponseLost);
            return;
        }
        let latency = self.response_latency.sample(&mut self.stream);
        let event = Event::Reply {
            payment,
            attempt,
            answer,
            replay,
        };
        self.schedule(now + latency, event);
    }

    /// A worker finishes `work`: charge or fail, store the key, answer, wake lock waiters.
    pub(super) fn done(&mut self, now: f64, work: Work) {
        let Work {
            payment, attempt, ..
        } = work;
        let head = self.head(payment);
        self.busy -= 1;
        self.steady.left(now, work.reached_ms);
        self.tally.counts.processings += 1;
        let (failed, crash) = match work.predrawn {
            Some(drawn) => drawn,
            None => self.draw_failure(),
        };
        if let Some(point) = crash {
            self.note(now, payment, attempt, EventKind::Crashed { point });
            self.crash(now, work, point);
            if !self.payments[head].waiters.is_empty() {
                self.wake(now, head as u32);
            }
            self.fill(now);
            return;
        }
        let keyed = self.strategy != LoadStrategy::None;
        let error_policy = self.scenario.server.error_policy;
        let answer = if failed {
            self.tally.counts.server_errors += 1;
            self.note(now, payment, attempt, EventKind::ProcessingFailed);
            if keyed {
                self.payments[head].key.store(
                    match error_policy {
                        ErrorPolicy::Store => KeyState::Failed,
                        ErrorPolicy::Retry => KeyState::Absent,
                    },
                    now,
                    work.different,
                );
            }
            Answer::Error500
        } else {
            self.charge(now, work);
            self.save_key(now, work);
            self.send_direct_receipt(payment);
            Answer::Ok
        };
        let slot = &self.payments[payment as usize];
        if slot.done || slot.attempt != attempt || !slot.waiting {
            self.tally.counts.wasted_work += 1;
        }
        self.answer(now, payment, attempt, answer);
        if !self.payments[head].waiters.is_empty() {
            self.wake(now, head as u32);
        }
        self.fill(now);
    }

    /// The charge of `work` commits.
    fn charge(&mut self, now: f64, work: Work) {
        let Work {
            payment, attempt, ..
        } = work;
        self.tally.counts.charges += 1;
        self.tally.counts.expired_key_charges += u64::from(work.after_expiry);
        let head = self.head(payment);
        let slot = &mut self.payments[head];
        slot.charges += 1;
        slot.original_charges += u32::from(!work.different);
        if let Some(receipts) = self.scenario.server.receipts
            && receipts.mode == ReceiptMode::Outbox
        {
            // The row commits with the charge; the sender retries its failed sends.
            slot.outbox_rows += 1;
            let draw = self.stream.uniform();
            self.tally.receipts.receipt_send_failures +=
                semantics::outbox_send_failures(receipts.send_failure, draw);
        }
        let nth = slot.charges;
        if nth == 2 {
            self.tally.counts.double_charges += 1;
        }
        self.note(now, payment, attempt, EventKind::Charged { nth });
        if self.relay_work.is_some() {
            // The relay picks the row up at once; its work waits for a worker.
            self.add_job(now, head as u32, Front::Relay);
        }
    }

    /// The request handler sends the receipt after the commit (`direct`); a failed send is
    /// lost. A crash before it sends none.
    fn send_direct_receipt(&mut self, payment: u32) {
        let Some(receipts) = self.scenario.server.receipts else {
            return;
        };
        if receipts.mode != ReceiptMode::Direct {
            return;
        }
        let fails = receipts.send_failure > 0.0 && self.stream.uniform() < receipts.send_failure;
        if fails {
            self.tally.receipts.receipt_send_failures += 1;
        } else {
            let head = self.head(payment);
            self.payments[head].direct_receipts += 1;
        }
    }

    /// A keeping strategy stores the success with the key: in the charge's transaction, or
    /// written to the other store after it, where the write can fail (`key_write_failure`, or
    /// the store down).
    fn save_key(&mut self, now: f64, work: Work) {
        let Work {
            payment, attempt, ..
        } = work;
        if self.strategy == LoadStrategy::None {
            return;
        }
        if self.key_store.is_separate() {
            let failure = self.scenario.server.key_server.key_write_failure;
            let fails = self.store_down(now) || (failure > 0.0 && self.stream.uniform() < failure);
            if fails {
                self.tally.key_store.key_write_failures += 1;
                self.note(now, payment, attempt, EventKind::KeyWriteFailed);
                self.lose_key(now, payment, attempt, true);
                return;
            }
        }
        let head = self.head(payment);
        self.payments[head]
            .key
            .store(KeyState::Complete, now, work.different);
        self.note(now, payment, attempt, EventKind::KeySaved);
    }

    /// The key of a committed charge (`committed`) or of nothing is not stored: a key still to
    /// be written is lost; a `key_first` reservation stays in flight until its lock expires
    /// or the completer runs; an in-flight marker or row elsewhere goes with the request.
    fn lose_key(&mut self, now: f64, payment: u32, attempt: u32, committed: bool) {
        let keyed = self.strategy != LoadStrategy::None;
        let head = self.head(payment);
        let slot = &mut self.payments[head];
        if committed && keyed && matches!(slot.key.state, KeyState::Absent | KeyState::InFlight) {
            self.tally.key_store.keys_lost += 1;
        }
        if slot.key.state != KeyState::InFlight {
            return;
        }
        if self.key_store == KeyStore::KeyFirst {
            let server = &self.scenario.server.key_server;
            let lock_expires_ms = slot.key.lock_expires_ms;
            let mut release = semantics::abandoned(server, now, lock_expires_ms, committed, 0.0);
            self.tally.key_store.keys_abandoned += 1;
            if release.by_completer && self.completer_work.is_some() {
                // The completer's visit (when a completer taking no time would release the
                // key) is an event, its work a job for the workers: until it ends the key
                // waits for its lock's expiry.
                let visit_ms = release.at_ms;
                slot.completer_completes = committed;
                release = Release::at_lock_expiry(lock_expires_ms);
                slot.key.release = Some(release);
                let payment = head as u32;
                self.schedule(visit_ms, Event::CompleterVisit { payment });
            } else {
                self.tally.key_store.completer_recoveries += u64::from(release.by_completer);
                slot.key.release = Some(release);
            }
            let until_ms = release.at_ms;
            self.note(
                now,
                payment,
                attempt,
                EventKind::KeyLeftInFlight { until_ms },
            );
        } else {
            slot.key.state = KeyState::Absent;
        }
    }

    /// The server crashes at `point` of `work`: nothing is answered; what survives depends
    /// on the key store ([`semantics::crash_effect`]).
    fn crash(&mut self, now: f64, work: Work, point: CrashPoint) {
        let Work {
            payment, attempt, ..
        } = work;
        let counts = &mut self.tally.key_store;
        match point {
            CrashPoint::BeforeCharge => counts.crashes_before_charge += 1,
            CrashPoint::AfterCharge => counts.crashes_after_charge += 1,
            CrashPoint::AfterSave => counts.crashes_after_save += 1,
        }
        let effect = semantics::crash_effect(point, self.key_store);
        counts.charges_lost_by_crash += u64::from(effect.rolled_back);
        if effect.charged {
            self.charge(now, work);
        }
        if effect.key_saved {
            self.save_key(now, work);
        } else {
            self.lose_key(now, payment, attempt, effect.charged);
        }
    }

    /// The completer finds `payment`'s key still left in flight: its work takes a free
    /// worker, or waits in the queue behind the requests (the queue limit is for requests).
    pub(super) fn completer_visit(&mut self, now: f64, payment: u32) {
        if !self.abandoned_key(payment) {
            return;
        }
        self.add_job(now, payment, Front::Completer);
    }

    /// Work of the server's own for `payment` (`front`: the completer's or the relay's): a
    /// free worker takes it, or it waits in the queue behind the requests.
    fn add_job(&mut self, now: f64, payment: u32, front: Front) {
        let job = Request {
            payment,
            attempt: 0,
            sent_ms: now,
            reached_ms: now,
            front,
            different: false,
        };
        if self.fifo.is_empty() && self.busy < self.scenario.server.workers_at(now) {
            self.start(now, job, false);
        } else {
            self.payments[payment as usize].refs += 1;
            self.fifo.push_back(job);
        }
    }

    /// The completer's work on `payment`'s key ends: it completes the key (the charge had
    /// committed) or releases it, unless its lock expired first (the store dropped it, and a
    /// later delivery may hold it now).
    pub(super) fn completer_done(&mut self, now: f64, payment: u32) {
        self.busy -= 1;
        let slot = &self.payments[payment as usize];
        if self.abandoned_key(payment) && now < slot.key.lock_expires_ms {
            let completes = slot.completer_completes;
            self.payments[payment as usize].key.release = Some(Release {
                at_ms: now,
                completes,
                by_completer: true,
            });
            self.tally.key_store.completer_recoveries += 1;
        }
        self.fill(now);
    }

    /// Whether `payment`'s key is still the one a crash or a failed write left in flight,
    /// waiting for the completer or its lock's expiry.
    fn abandoned_key(&self, payment: u32) -> bool {
        let slot = &self.payments[payment as usize];
        let key = &slot.key;
        key.state == KeyState::InFlight && key.release.is_some_and(|release| !release.by_completer)
    }

    /// The lock of the payment headed by `payment` was released: waiters get the stored
    /// answer, or (a 500 not stored) the first waiter takes the lock and processes.
    fn wake(&mut self, now: f64, payment: u32) {
        let mut waiters = std::mem::take(&mut self.payments[payment as usize].waiters);
        let key = self.key_met(now, payment);
        match key {
            stored @ (KeyState::Complete | KeyState::Failed) => {
                for waiter in waiters.drain(..) {
                    self.busy -= 1;
                    self.steady.left(now, waiter.reached_ms);
                    self.note_key(now, waiter, key);
                    if !self.rejected(now, waiter) {
                        self.answer_present(now, waiter, stored);
                    }
                    self.release(waiter.payment);
                }
            }
            KeyState::Absent | KeyState::InFlight => {
                let first = waiters.remove(0);
                self.note_key(now, first, key);
                let slot = &mut self.payments[payment as usize];
                slot.key.store(KeyState::InFlight, now, first.different);
                self.note(now, first.payment, first.attempt, EventKind::KeyReserved);
                self.process(now, first, true);
                self.release(first.payment);
            }
        }
        let slot = &mut self.payments[payment as usize];
        waiters.append(&mut slot.waiters);
        slot.waiters = waiters;
    }
}
