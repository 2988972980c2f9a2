//! What happens inside the server and behind it (issue #12): crashes during a processing, where
//! the key is stored relative to the charge, a downstream provider called with bounded
//! retries, and the receipt sent after a charge; with the random draws these need, read from
//! a third stream so that the attempts' and lifecycle draws are the same with and without them.

use engine::distribution::Sampler;
use engine::rng::{PcgState, unit_f64};

use crate::model::semantics;
pub use crate::model::semantics::{
    CrashPoint, DEFAULT_KEY_LOCK_TTL_MS, KeyServer, KeyStore, Provider, ProviderExchange,
    ReceiptMode, Receipts, outbox_send_failures,
};

/// The server's internals and what lies behind it; the default changes nothing (no crash, key
/// in the charge's transaction, no provider, no receipt).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Backend {
    /// Its crash rate and where the key lives, as the models share them: the crash point is
    /// drawn among the three; a `key_first` key a crash left in flight is completed or
    /// released by the recovery job `completer_interval_ms` after the crash.
    pub key: KeyServer,
    /// The provider called by each processing; `None`: the charge is local.
    pub provider: Option<Provider>,
    /// The receipt sent after a charge; `None`: none.
    pub receipts: Option<Receipts>,
}

impl Backend {
    /// Whether anything differs from the plain timeline model (then `timeline.csv` has the
    /// backend columns and the backend charts are drawn).
    pub fn is_used(&self) -> bool {
        *self != Backend::default()
    }

    /// Its key settings, as the models share them ([`KeyServer`]).
    pub fn key_server(&self) -> KeyServer {
        self.key
    }

    /// Whether a payment needs its backend draws.
    pub fn needs_draws(&self) -> bool {
        self.key.crash_rate > 0.0
            || self.key.key_write_failure > 0.0
            || self.key.key_store_latency.is_some()
            || self.key.completer_work.is_some()
            || self.provider.is_some()
            || self
                .receipts
                .is_some_and(|receipts| receipts.send_failure > 0.0)
    }

    /// Provider calls per processing at most.
    fn provider_calls(&self) -> u64 {
        self.provider
            .map_or(0, |provider| u64::from(provider.max_retries) + 1)
    }

    /// Draws per processing: crash, crash point, key write, receipt, then three per provider
    /// call (request loss, latency, response loss), then with a key-store latency one per
    /// call to the key store (the look-up or reservation, the write), then with a completer's
    /// work one for the work on a key the processing leaves in flight.
    pub fn draws_per_attempt(&self) -> u64 {
        self.completer_draw_at() + u64::from(self.key.completer_work.is_some())
    }

    /// The index of a processing's completer-work draw (after its key-store latency draws).
    pub fn completer_draw_at(&self) -> u64 {
        self.key_store_draws_from() + self.key.key_store_latency.map_or(0, |_| KEY_STORE_CALLS)
    }

    /// Where a processing's key-store latency draws start (the index of the first).
    pub fn key_store_draws_from(&self) -> u64 {
        FIXED_DRAWS + PROVIDER_DRAWS_PER_CALL * self.provider_calls()
    }
}

/// The draws every processing has before its provider calls'.
const FIXED_DRAWS: u64 = 4;
/// Draws per provider call: request loss, round trip, response loss.
const PROVIDER_DRAWS_PER_CALL: u64 = 3;
/// Calls to the key store a processing makes at most (the look-up or reservation, the write).
const KEY_STORE_CALLS: u64 = 2;

/// The closed form of the retry amplification at the provider with two layers of retries,
/// when each provider call fails independently with probability `call_failure` and the client
/// retries a failed processing (no other loss): the server makes `(1 − q^(s+1)) / (1 − q)`
/// calls per processing with `s = server_retries`, a processing fails with `Q = q^(s+1)`,
/// and the client sends `(1 − Q^(c+1)) / (1 − Q)` processings with `c = client_retries`;
/// the product is the expected provider calls per payment. At `q = 1` both are their limits
/// `s + 1` and `c + 1`: the worst case is the product of the attempts per layer.
pub fn layered_provider_calls(call_failure: f64, server_retries: u32, client_retries: u32) -> f64 {
    let geometric = |failure: f64, tries: u32| {
        if failure >= 1.0 {
            f64::from(tries)
        } else {
            (1.0 - failure.powi(tries as i32)) / (1.0 - failure)
        }
    };
    let per_processing = geometric(call_failure, server_retries + 1);
    let processing_failure = call_failure.powi(server_retries as i32 + 1);
    per_processing * geometric(processing_failure, client_retries + 1)
}

/// Where a payment's backend draws come from.
#[derive(Debug, Clone, Default)]
enum Source {
    /// None were read: every draw reads as 1 (never below a rate).
    #[default]
    Ones,
    /// The payment's slice of the backend stream, starting at this state.
    Stream(PcgState),
    /// Given by hand (hand-worked timelines).
    #[cfg(test)]
    Values(Vec<f64>),
}

/// The backend draws of one processing (attempt `attempt` of copy `copy`): draw `k` is the
/// payment's draw `offset + k`, read on demand by jump-ahead.
#[derive(Debug, Clone, Copy)]
pub struct ProcessingDraws<'a> {
    source: &'a Source,
    offset: u128,
    len: u64,
}

impl ProcessingDraws<'_> {
    fn at(&self, index: u64) -> f64 {
        if index >= self.len {
            return 1.0;
        }
        let position = self.offset + u128::from(index);
        match self.source {
            Source::Ones => 1.0,
            Source::Stream(start) => {
                let mut stream = *start;
                stream.advance(position);
                unit_f64(stream.next_u64())
            }
            #[cfg(test)]
            Source::Values(values) => usize::try_from(position)
                .ok()
                .and_then(|at| values.get(at))
                .copied()
                .unwrap_or(1.0),
        }
    }

    /// The uniform deciding whether the processing crashes.
    pub fn crash(&self) -> f64 {
        self.at(0)
    }

    /// The uniform picking the crash point.
    pub fn crash_point(&self) -> f64 {
        self.at(1)
    }

    /// The uniform deciding whether the key write after the commit fails.
    pub fn key_write(&self) -> f64 {
        self.at(2)
    }

    /// The uniform deciding the receipt's send failures.
    pub fn receipt(&self) -> f64 {
        self.at(3)
    }

    /// The uniform of the processing's key-store call `call` (0: the look-up or
    /// reservation, 1: the write), its draws starting at `from`
    /// ([`Backend::key_store_draws_from`]).
    pub fn key_store_call(&self, from: u64, call: u32) -> f64 {
        self.at(from + u64::from(call))
    }

    /// The uniform of the completer's work on a key this processing leaves in flight, at
    /// index `at` ([`Backend::completer_draw_at`]).
    pub fn completer_work(&self, at: u64) -> f64 {
        self.at(at)
    }

    /// Provider call `call`'s three uniforms: request loss, round trip, response loss.
    pub fn provider_call(&self, call: u32) -> [f64; 3] {
        let first = FIXED_DRAWS + PROVIDER_DRAWS_PER_CALL * u64::from(call);
        [self.at(first), self.at(first + 1), self.at(first + 2)]
    }
}

/// The backend draws of one payment, laid out in its slice of the run's backend stream as
/// `[copy 0's attempts, copy 1's attempts, ...]`, each attempt owning
/// [`Backend::draws_per_attempt`] draws. Only the payment's starting state is kept: a
/// processing reads its few draws by jump-ahead, so memory does not grow with the copies,
/// retries and provider retries. Read only when the scenario needs them; otherwise every
/// draw reads as 1 (never below a rate).
#[derive(Debug, Clone, Default)]
pub struct BackendDraws {
    source: Source,
    per_attempt: u64,
    attempts_per_copy: u64,
    stride: u128,
}

impl BackendDraws {
    /// Draws one payment uses with `copies` copies and `max_retries` (0 when the scenario
    /// needs none).
    pub fn stride(backend: &Backend, copies: u32, max_retries: u32) -> u128 {
        if !backend.needs_draws() {
            return 0;
        }
        u128::from(copies) * (u128::from(max_retries) + 1) * u128::from(backend.draws_per_attempt())
    }

    /// No draws yet, for payments with `copies` copies and `max_retries`.
    pub fn new(backend: &Backend, copies: u32, max_retries: u32) -> Self {
        Self {
            source: Source::Ones,
            per_attempt: backend.draws_per_attempt(),
            attempts_per_copy: u64::from(max_retries) + 1,
            stride: Self::stride(backend, copies, max_retries),
        }
    }

    /// Draws given by hand, for hand-worked timelines: `draws[attempt]` are copy 0's attempt
    /// `attempt`'s, missing ones read as 1.
    #[cfg(test)]
    pub fn by_hand(backend: &Backend, max_retries: u32, draws: &[&[f64]]) -> Self {
        let mut by_hand = Self::new(backend, 1, max_retries);
        let per_attempt = by_hand.per_attempt as usize;
        let mut values = vec![1.0; (max_retries as usize + 1) * per_attempt];
        for (attempt, given) in draws.iter().enumerate() {
            let start = attempt * per_attempt;
            values[start..start + given.len()].copy_from_slice(given);
        }
        by_hand.source = Source::Values(values);
        by_hand
    }

    /// Takes the next payment's slice of `stream`, leaving it at the payment after.
    pub fn read(&mut self, stream: &mut PcgState) {
        self.source = Source::Stream(*stream);
        stream.advance(self.stride);
    }

    /// The draws of attempt `attempt` of copy `copy` (all 1 when none were read).
    pub fn processing(&self, copy: u32, attempt: u32) -> ProcessingDraws<'_> {
        let index = u64::from(copy) * self.attempts_per_copy + u64::from(attempt);
        ProcessingDraws {
            source: &self.source,
            offset: u128::from(index) * u128::from(self.per_attempt),
            len: self.per_attempt,
        }
    }
}

/// The server calls `provider` until a call is answered or its retries run out, with the
/// processing's draws ([`semantics::call_provider`]); `already_charged` says whether an
/// earlier processing's call reached it.
pub fn call_provider(
    provider: &Provider,
    sampler: &Sampler,
    draws: &ProcessingDraws<'_>,
    already_charged: bool,
) -> ProviderExchange {
    semantics::call_provider(
        provider,
        sampler,
        |call| draws.provider_call(call),
        already_charged,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::distribution::Distribution;

    #[test]
    fn the_worst_case_is_the_product_of_the_attempts_per_layer() {
        // 3 server calls per processing × 4 client processings.
        assert_eq!(layered_provider_calls(1.0, 2, 3), 12.0);
        assert_eq!(layered_provider_calls(0.0, 2, 3), 1.0);
        // q = 0.5, one server retry: 1.5 calls per processing, a processing fails with 0.25,
        // one client retry: 1.25 processings: 1.875 calls.
        assert!((layered_provider_calls(0.5, 1, 1) - 1.875).abs() < 1e-12);
    }

    /// Draw `k` of attempt `a` of copy `c` of payment `i` is the stream's draw
    /// `i × stride + (c × (max_retries + 1) + a) × per_attempt + k`, and reading a payment
    /// moves the stream exactly one stride.
    #[test]
    fn a_processing_reads_its_place_in_the_payment_slice() {
        let backend = Backend {
            key: KeyServer {
                crash_rate: 0.1,
                ..KeyServer::default()
            },
            provider: Some(Provider {
                latency: Distribution::Fixed { ms: 1.0 },
                loss: 0.1,
                timeout_ms: 10.0,
                max_retries: 1,
                pass_key: false,
            }),
            ..Backend::default()
        };
        let (copies, max_retries) = (3, 2);
        // 4 + 3 × 2 draws per attempt, 3 copies × 3 attempts.
        assert_eq!(backend.draws_per_attempt(), 10);
        let stride = BackendDraws::stride(&backend, copies, max_retries);
        assert_eq!(stride, 90);
        let start = engine::rng::SeedSequence::with_spawn_key(7, &[0, 2]).pcg_state();
        let mut sequential = start;
        let all: Vec<f64> = (0..3 * stride)
            .map(|_| unit_f64(sequential.next_u64()))
            .collect();
        let mut stream = start;
        let mut draws = BackendDraws::new(&backend, copies, max_retries);
        for payment in 0..3u128 {
            draws.read(&mut stream);
            let processing = draws.processing(1, 2);
            let first = (payment * stride + (3 + 2) * 10) as usize;
            assert_eq!(processing.crash(), all[first]);
            assert_eq!(processing.receipt(), all[first + 3]);
            assert_eq!(
                processing.provider_call(1),
                [all[first + 7], all[first + 8], all[first + 9]]
            );
        }
        assert_eq!(stream, sequential);
        assert_eq!(BackendDraws::default().processing(0, 0).crash(), 1.0);
    }

    #[test]
    fn outbox_failures_are_geometric() {
        assert_eq!(outbox_send_failures(0.0, 0.99), 0);
        // P(at least k failures) = f^k: with f = 0.5, u = 0.8 gives ln(0.2)/ln(0.5) = 2.32.
        assert_eq!(outbox_send_failures(0.5, 0.8), 2);
        assert_eq!(outbox_send_failures(0.5, 0.4), 0);
    }
}
