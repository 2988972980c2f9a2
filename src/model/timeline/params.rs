//! The timeline model's parameters: strategies, arrivals, network, client policy, the key's
//! lifecycle, scenarios and the experiment ([`TimelineModel`]), as the config layer validates
//! them.

use super::backend::Backend;
use super::offline::ClientLifecycle;
use crate::model::semantics::{Copies, ErrorPolicy};
pub use crate::model::semantics::{CopyMode, CopySpacing, DuplicateAnswer};
use engine::backoff::Backoff;
use engine::distribution::Distribution;
use engine::rng::SeedSequence;

/// How the server handles a payment's Idempotency-Key (the companion piece's three levels).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Strategy {
    /// Level 0: every delivery is processed and charges.
    None,
    /// Level 1: look the key up at arrival; if absent, process, then charge and insert the key;
    /// if present, replay the stored response. Look-ups before the first insert all charge.
    CheckThenInsert,
    /// Level 2: insert the key atomically at arrival; a completed key replays its response, an
    /// in-flight key answers 409 Conflict (the IETF idempotency-key draft).
    UniqueKey,
}

impl Strategy {
    /// All three, in the order they are reported.
    pub const ALL: [Strategy; 3] = [
        Strategy::None,
        Strategy::CheckThenInsert,
        Strategy::UniqueKey,
    ];

    /// Its name in reports (CSV, tables and charts).
    pub fn name(self) -> &'static str {
        match self {
            Strategy::None => "none",
            Strategy::CheckThenInsert => "check_then_insert",
            Strategy::UniqueKey => "unique_key",
        }
    }
}

/// When payments start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArrivalProcess {
    /// A Poisson process: exponential gaps with mean `1000 / rate_per_s` ms.
    Poisson {
        /// Payments per second (more than 0).
        rate_per_s: f64,
    },
    /// Every payment at t = 0.
    Burst,
    /// Each payment when the previous one reached its final outcome.
    Sequential,
}

/// Payments and their copies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arrivals {
    /// When payments start.
    pub process: ArrivalProcess,
    /// Copies of each payment sent with the same key (at least 1).
    pub copies: u32,
    /// Concurrent or sequential copies.
    pub copy_mode: CopyMode,
    /// Concurrent copies are sent within this time of the first (ms).
    pub copy_spread_ms: f64,
    /// Even or random placement within the spread.
    pub copy_spacing: CopySpacing,
}

impl Arrivals {
    /// The payment's copies, as both event loops read them.
    pub fn copies(&self) -> Copies {
        Copies {
            count: self.copies,
            mode: self.copy_mode,
            spread_ms: self.copy_spread_ms,
            spacing: self.copy_spacing,
        }
    }
}

/// The network between client and server.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Network {
    /// Client to server (ms).
    pub request_latency: Distribution,
    /// Server to client (ms).
    pub response_latency: Distribution,
    /// Probability that a request is lost on the way (the server never sees it).
    pub request_loss: f64,
    /// Probability that a response (ACK) is lost on the way back.
    pub ack_loss: f64,
}

/// The client's retry policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientPolicy {
    /// The client stops waiting this long after sending and retries (ms, more than 0).
    pub timeout_ms: f64,
    /// Retries at most after the first send, per copy.
    pub max_retries: u32,
    /// The wait before each retry.
    pub backoff: Backoff,
    /// Share of retries that carry a different body under the same key (a client bug; 0 to 1).
    pub different_body_rate: f64,
}

impl ClientPolicy {
    /// The client's whole retry window for one copy (ms), in closed form:
    /// `(max_retries + 1) × timeout_ms + Σ_{r < max_retries} max_backoff(r)` with
    /// [`Backoff::max_delay_ms`]. Every attempt is sent at most `r × timeout_ms + Σ_{i < r}
    /// max_backoff(i)` after the first (a 409 or 500 only makes the wait shorter), so with
    /// request latencies under `timeout_ms` every delivery of a copy reaches the server within
    /// this window of the first send.
    pub fn retry_window_ms(&self) -> f64 {
        engine::backoff::retry_window_ms(self.timeout_ms, self.max_retries, &self.backoff)
    }
}

/// The life of a key on the server: expiry, body fingerprint, failures and duplicate answers.
/// Strategy `none` keeps no key, so only `error_rate` applies to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyLifecycle {
    /// The key store prunes a key this long after it was created (ms); a delivery that arrives
    /// later is processed as new. `None`: never.
    pub key_ttl_ms: Option<f64>,
    /// The server stores a fingerprint of the body with the key and answers 422 to a delivery
    /// of the key with another body; without it, it answers as if the body matched.
    pub fingerprint: bool,
    /// Share of first processings (the first delivery the server processes for a payment) that
    /// fail with a 500 and charge nothing (0 to 1).
    pub error_rate: f64,
    /// Whether that 500 is stored and replayed, or the key released.
    pub error_policy: ErrorPolicy,
    /// The answer to a duplicate.
    pub duplicate_answer: DuplicateAnswer,
}

impl Default for KeyLifecycle {
    /// Keys never expire, fingerprint on, no failures, replay: the plain timeline model.
    fn default() -> Self {
        Self {
            key_ttl_ms: None,
            fingerprint: true,
            error_rate: 0.0,
            error_policy: ErrorPolicy::Store,
            duplicate_answer: DuplicateAnswer::Replay,
        }
    }
}

/// One scenario: everything that shapes a payment's timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Its name in tables, CSV and charts.
    pub name: String,
    /// Payments and copies.
    pub arrivals: Arrivals,
    /// Latencies and losses.
    pub network: Network,
    /// The server's processing time per charge (ms).
    pub processing: Distribution,
    /// Timeout, retries, backoff.
    pub client: ClientPolicy,
    /// Expiry, fingerprint, failures and duplicate answers of the key.
    pub key: KeyLifecycle,
    /// Crashes, key store, provider and receipts.
    pub backend: Backend,
    /// Clients that go offline and the reconciliation look-up (off by default).
    pub client_lifecycle: ClientLifecycle,
}

impl Scenario {
    /// Whether a payment needs its lifecycle draws (failures or different bodies are possible).
    pub(super) fn needs_lifecycle_draws(&self) -> bool {
        self.key.error_rate > 0.0 || self.client.different_body_rate > 0.0
    }
}

/// The validated parameters of a timeline experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineModel {
    /// Where it came from (the scenario file's name, e.g. `mobile-network.toml`), for charts.
    pub title: String,
    /// Seed of the run streams.
    pub seed: u64,
    /// Independent replications (at least 1).
    pub runs: u32,
    /// Payments per run and scenario (at least 1).
    pub payments: u64,
    /// Strategies compared, in the order reported.
    pub strategies: Vec<Strategy>,
    /// Scenarios, in the order reported (at least 1).
    pub scenarios: Vec<Scenario>,
}

impl TimelineModel {
    /// Run `run`'s stream: `SeedSequence(seed, spawn_key=(run,))`.
    pub fn seed_sequence(&self, run: u32) -> SeedSequence {
        SeedSequence::with_spawn_key(self.seed, &[u64::from(run)])
    }

    /// Run `run`'s lifecycle stream (failures and different bodies):
    /// `SeedSequence(seed, spawn_key=(run, 1))`, apart from the attempts' stream so that the
    /// attempts' draws are the same with and without the lifecycle settings.
    pub fn lifecycle_seed_sequence(&self, run: u32) -> SeedSequence {
        SeedSequence::with_spawn_key(self.seed, &[u64::from(run), 1])
    }

    /// Run `run`'s backend stream (crashes, key writes, provider, receipts):
    /// `SeedSequence(seed, spawn_key=(run, 2))`, apart from the other two so that their draws
    /// are the same with and without the backend settings.
    pub fn backend_seed_sequence(&self, run: u32) -> SeedSequence {
        SeedSequence::with_spawn_key(self.seed, &[u64::from(run), 2])
    }

    /// Run `run`'s client stream (offline clients): `SeedSequence(seed, spawn_key=(run, 3))`,
    /// apart from the other three so that their draws are the same with and without it.
    pub fn client_seed_sequence(&self, run: u32) -> SeedSequence {
        SeedSequence::with_spawn_key(self.seed, &[u64::from(run), 3])
    }

    /// Whether some scenario has offline clients or a reconciliation look-up (then the
    /// reports add their counters and metrics).
    pub fn uses_client_lifecycle(&self) -> bool {
        self.scenarios
            .iter()
            .any(|scenario| scenario.client_lifecycle.is_used())
    }

    /// Whether some scenario uses a backend setting (crashes, key store, provider, receipts).
    pub fn uses_backend(&self) -> bool {
        self.scenarios
            .iter()
            .any(|scenario| scenario.backend.is_used())
    }

    /// The units of work [`simulate`] reports: payments × scenarios × runs.
    pub fn work_units(&self) -> u64 {
        self.payments
            .saturating_mul(self.scenarios.len() as u64)
            .saturating_mul(u64::from(self.runs))
    }
}
