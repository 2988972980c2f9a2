//! The server's side of one payment's timeline: a delivery's arrival, the key's expiry and
//! answers, the processing (crash points, the provider call, the charge), the key store's
//! writes, the receipts and the response sent back.

use super::*;
use crate::model::semantics::{self, PresentKeyAnswer};

impl<R: Recorder, Q: EventQueue<Event = Event>> PaymentRun<'_, R, Q> {
    /// A delivery reaches the server: the key is pruned if it expired, then the delivery is
    /// answered at once from the key, or processed.
    pub(super) fn arrive(&mut self, now: f64, delivery: Delivery) {
        self.state.counts.deliveries += 1;
        let (copy, attempt) = (delivery.copy, delivery.attempt);
        self.recorder
            .record(now, copy, attempt, EventKind::Delivered);
        self.prune_expired_key(now, copy, attempt);
        if self.strategy != Strategy::None {
            let found = found(self.state.key.state);
            self.recorder
                .record(now, copy, attempt, EventKind::KeyLookedUp { found });
            if self.strategy == Strategy::UniqueKey && found == KeyFound::Absent {
                self.recorder
                    .record(now, copy, attempt, EventKind::KeyReserved);
            }
        }
        let key = &mut self.state.key;
        let answer = match (self.strategy, key.state) {
            (Strategy::None, _) | (Strategy::CheckThenInsert, KeyState::Absent) => None,
            (Strategy::UniqueKey, KeyState::Absent) => {
                let backend = &self.scenario.backend;
                let store = backend.key.key_store;
                let lock_expires_ms = semantics::lock_expiry_ms(&backend.key_server(), store, now);
                key.reserve(now, lock_expires_ms, delivery.body == Body::Different);
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
                self.respond(now, delivery.answered(answer));
            }
        }
    }

    /// The key as the delivery meets it ([`KeyRecord::meet`]): a keeping strategy's store
    /// prunes a key `key_ttl_ms` after creating it, and a key left in flight is released when
    /// its lock expires or the completer comes.
    fn prune_expired_key(&mut self, now: f64, copy: u32, attempt: u32) {
        let keeps = self.strategy != Strategy::None;
        let key_ttl_ms = self.scenario.key.key_ttl_ms.filter(|_| keeps);
        let met = self.state.key.meet(now, key_ttl_ms);
        if met.expired {
            self.state.pruned = true;
            self.recorder
                .record(now, copy, attempt, EventKind::KeyExpired);
        }
        if let Some(released) = met.released {
            let becomes = found(released.becomes);
            self.recorder
                .record(now, copy, attempt, EventKind::KeyReleased { becomes });
        }
    }

    /// The immediate answer to a delivery whose key is present in `state`: 422 for another
    /// body with a fingerprint, else the duplicate answer (a wrong replay if the bodies
    /// differ).
    fn answer_from_key(&mut self, state: KeyState, body: Body) -> Answer {
        let lifecycle = &self.scenario.key;
        let mismatch = self.state.key.mismatch(body == Body::Different);
        if mismatch && lifecycle.fingerprint {
            return Answer::Rejected;
        }
        let answer = match lifecycle.duplicate_answer.to_present_key(state) {
            PresentKeyAnswer::Conflict => Answer::Conflict,
            PresentKeyAnswer::ServerError => Answer::ServerError,
            PresentKeyAnswer::Success => Answer::Replayed,
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
        processing_ms += self.key_store_calls_ms(&draws);
        let mut crash = (!fails && draws.crash() < self.scenario.backend.key.crash_rate)
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
        let until_ms = now + processing_ms;
        self.recorder.record(
            now,
            delivery.copy,
            delivery.attempt,
            EventKind::ProcessingStarted { until_ms },
        );
    }

    /// The time the processing's calls to the other key store take
    /// ([`semantics::key_store_calls`]; ms): none without a key-store latency.
    fn key_store_calls_ms(&self, draws: &ProcessingDraws<'_>) -> f64 {
        let Some(sampler) = self.key_store_latency else {
            return 0.0;
        };
        let backend = &self.scenario.backend;
        let reserves = self.strategy == Strategy::UniqueKey;
        let store = backend.key.key_store.used_by(reserves);
        let calls = semantics::key_store_calls(store, self.strategy != Strategy::None, false);
        let from = backend.key_store_draws_from();
        (0..calls)
            .map(|call| sampler.quantile(draws.key_store_call(from, call)))
            .sum()
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
        self.scenario
            .backend
            .provider
            .map_or(0.0, |provider| provider.all_timed_out_ms())
    }

    /// A processing ends: it fails with a 500, crashes (no answer), or charges, and the key
    /// records it.
    pub(super) fn complete(&mut self, now: f64, processing: Processing) {
        let (copy, attempt) = (processing.copy, processing.attempt);
        let answer = if processing.fails {
            self.recorder
                .record(now, copy, attempt, EventKind::ProcessingFailed);
            self.fail(now, processing.body);
            Answer::ServerError
        } else if let Some(point) = processing.crash {
            self.crash(now, processing, point);
            return;
        } else {
            self.charge(now, processing);
            self.save_key(now, processing);
            self.send_direct_receipt(processing);
            Answer::Charged
        };
        self.respond(now, processing.delivery().answered(answer));
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
    fn charge(&mut self, now: f64, processing: Processing) {
        let state = &mut self.state;
        state.counts.charges += 1;
        let nth = state.counts.charges;
        self.recorder.record(
            now,
            processing.copy,
            processing.attempt,
            EventKind::Charged { nth },
        );
        let state = &mut self.state;
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
        self.scenario
            .backend
            .key
            .key_store
            .used_by(self.strategy == Strategy::UniqueKey)
    }

    /// A keeping strategy stores the success with the key: in the charge's transaction, or
    /// written to the other store after it, where the write can fail.
    fn save_key(&mut self, now: f64, processing: Processing) {
        if self.strategy == Strategy::None {
            return;
        }
        if self.key_store().is_separate() {
            let draw = self
                .backend
                .processing(processing.copy, processing.attempt)
                .key_write();
            if draw < self.scenario.backend.key.key_write_failure {
                self.state.counts.key_write_failures += 1;
                self.recorder.record(
                    now,
                    processing.copy,
                    processing.attempt,
                    EventKind::KeyWriteFailed,
                );
                self.lose_key(now, true, processing);
                return;
            }
        }
        if matches!(self.state.key.state, KeyState::Absent | KeyState::InFlight) {
            self.recorder.record(
                now,
                processing.copy,
                processing.attempt,
                EventKind::KeySaved,
            );
        }
        self.store_response(KeyState::Complete, now, processing.body);
    }

    /// The key of a committed charge (`committed`) or of nothing is not stored: a key still
    /// to be written is lost; a `key_first` reservation stays in flight until its lock expires
    /// or the completer runs; an in-flight marker or row elsewhere goes with the request.
    fn lose_key(&mut self, now: f64, committed: bool, processing: Processing) {
        let unwritten = matches!(self.state.key.state, KeyState::Absent | KeyState::InFlight);
        if committed && unwritten && self.strategy != Strategy::None {
            self.state.counts.keys_lost += 1;
        }
        if self.state.key.state != KeyState::InFlight {
            return;
        }
        if self.key_store() == KeyStore::KeyFirst {
            self.abandon(now, committed, processing);
        } else {
            self.state.key.state = KeyState::Absent;
            self.recorder.record(
                now,
                processing.copy,
                processing.attempt,
                EventKind::KeyDropped,
            );
        }
    }

    /// A `key_first` key left in flight at `now`: it stays so until its lock expires, or until
    /// the completer (if sooner, its work included) completes it (`committed`) or releases it.
    fn abandon(&mut self, now: f64, committed: bool, processing: Processing) {
        let backend = &self.scenario.backend;
        // At unlimited capacity a worker is always free for the completer: its work only
        // delays the release.
        let work_ms = backend.key.completer_work.map_or(0.0, |work| {
            let draws = self.backend.processing(processing.copy, processing.attempt);
            let uniform = draws.completer_work(backend.completer_draw_at());
            work.quantile(uniform)
        });
        let state = &mut self.state;
        let release = semantics::abandoned(
            &backend.key_server(),
            now,
            state.key.lock_expires_ms,
            committed,
            work_ms,
        );
        state.counts.completer_recoveries += u64::from(release.by_completer);
        state.counts.stuck_in_flight_ms += (release.at_ms - now).round() as u64;
        state.stuck = true;
        state.key.release = Some(release);
        let becomes = if release.completes {
            KeyState::Complete
        } else {
            KeyState::Absent
        };
        self.recorder.record(
            now,
            processing.copy,
            processing.attempt,
            EventKind::KeyLeftInFlight {
                until_ms: release.at_ms,
                becomes: found(becomes),
            },
        );
    }

    /// The server crashes at `point` of a processing: nothing is answered; what survives
    /// depends on the key store.
    fn crash(&mut self, now: f64, processing: Processing, point: CrashPoint) {
        self.recorder.record(
            now,
            processing.copy,
            processing.attempt,
            EventKind::Crashed { point },
        );
        let effect = semantics::crash_effect(point, self.key_store());
        let counts = &mut self.state.counts;
        match point {
            CrashPoint::BeforeCharge => counts.crashes_before_charge += 1,
            CrashPoint::AfterCharge => counts.crashes_after_charge += 1,
            CrashPoint::AfterSave => counts.crashes_after_save += 1,
        }
        // A transaction that never committed rolls back its charge, key and outbox row.
        counts.charges_lost_by_crash += u64::from(effect.rolled_back);
        if effect.charged {
            self.charge(now, processing);
        }
        if effect.key_saved {
            self.save_key(now, processing);
        } else {
            self.lose_key(now, effect.charged, processing);
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
            key.store(state, now, body == Body::Different);
        }
    }

    /// Sends the answer back, unless the attempt's ACK is lost.
    fn respond(&mut self, now: f64, response: Response) {
        let sample = self.draws.sampled(response.copy, response.attempt);
        let (copy, attempt, answer) = (response.copy, response.attempt, response.answer);
        self.recorder
            .record(now, copy, attempt, EventKind::Answered { answer });
        if sample.ack_lost {
            self.recorder
                .record(now, copy, attempt, EventKind::ResponseLost);
        } else {
            let response_ms = sample.response_ms;
            self.queue
                .schedule(now + response_ms, Event::Receive(response));
        }
    }
}
