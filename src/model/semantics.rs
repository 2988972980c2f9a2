//! Server semantics that more than one model shares, written once (issue #30): the timeline
//! model (each payment on its own against an unlimited server) and the load model (every
//! payment on one clock against a shared server) simulate the same server with an
//! Idempotency-Key, and both call these decisions: what a failed first processing leaves
//! ([`ErrorPolicy`]), where the key lives ([`KeyStore`], [`KeyServer`]), where a crash falls
//! and what it leaves ([`CrashPoint`], [`crash_effect`]), how a `key_first` lock ends
//! ([`lock_expiry_ms`], [`abandoned`], [`InFlight::fate`]), and whether the other store
//! answers at all ([`KeyStoreOutages`], [`OnUnavailable`]), how many of its calls a
//! processing waits for ([`key_store_calls`]), how a charge's receipt is sent and what the
//! customer gets of them ([`Receipts`], [`ReceiptMode`], [`outbox_send_failures`],
//! [`Receipts::outcome`]), and when a success answered a body nothing charged
//! ([`told_succeeded_not_charged`]).
//!
//! Both loops keep a payment's key in the same [`KeyRecord`] (its state, creation time,
//! body, lock and release), which a delivery meets through [`KeyRecord::meet`] (the TTL's
//! prune, the lock's expiry, the completer's release) and compares bodies with
//! ([`KeyRecord::mismatch`]); each loop keeps its own event queue and draws. The rules about
//! the key store are these functions, so a change to one is a change to both.

use engine::distribution::{Distribution, Sampler};

/// A downstream provider (card network, PSP) the server calls to move the money.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Provider {
    /// Round trip of one call when neither way is lost (ms).
    pub latency: Distribution,
    /// Probability that a call's request is lost, and, independently, that its response is
    /// lost (each way).
    pub loss: f64,
    /// The server stops waiting for a call this long after sending it (ms, more than 0).
    pub timeout_ms: f64,
    /// Calls the server retries at most after the first, per processing.
    pub max_retries: u32,
    /// The server passes the payment's Idempotency-Key downstream and the provider honours
    /// it: a repeated call is answered with the first charge, not charged again.
    pub pass_key: bool,
}

impl Provider {
    /// The time a processing waits when every call times out (ms).
    pub fn all_timed_out_ms(&self) -> f64 {
        f64::from(self.max_retries + 1) * self.timeout_ms
    }
}

/// What one processing's calls to the provider did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ProviderExchange {
    /// Time the calls took, waits for timeouts included (ms).
    pub elapsed_ms: f64,
    /// Calls sent.
    pub calls: u64,
    /// Calls that got no answer in time (lost either way, or slower than the timeout).
    pub timeouts: u64,
    /// Calls that charged at the provider.
    pub charges: u64,
    /// Some call reached the provider.
    pub received: bool,
    /// Some call was answered: the money moved (now or earlier, for a key it honours).
    pub succeeded: bool,
}

/// The server calls `provider` until a call is answered or its retries run out; a provider
/// that honours the key charges only the first call it receives for the payment
/// (`already_charged` says whether an earlier processing's call reached it). `draws(call)`
/// gives call `call`'s three uniform draws: its request's loss, its round trip (a quantile of
/// `sampler`) and its response's loss.
pub fn call_provider(
    provider: &Provider,
    sampler: &Sampler,
    mut draws: impl FnMut(u32) -> [f64; 3],
    already_charged: bool,
) -> ProviderExchange {
    let mut exchange = ProviderExchange::default();
    let mut charged = already_charged;
    for call in 0..=provider.max_retries {
        let [request_loss, round_trip, response_loss] = draws(call);
        exchange.calls += 1;
        let received = request_loss >= provider.loss;
        if received && !(provider.pass_key && charged) {
            exchange.charges += 1;
        }
        charged |= received;
        exchange.received |= received;
        let round_trip_ms = sampler.quantile(round_trip);
        if received && response_loss >= provider.loss && round_trip_ms < provider.timeout_ms {
            exchange.elapsed_ms += round_trip_ms;
            exchange.succeeded = true;
            return exchange;
        }
        exchange.timeouts += 1;
        exchange.elapsed_ms += provider.timeout_ms;
    }
    exchange
}

/// What the server does with a first delivery that failed with a 500.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorPolicy {
    /// Stripe's behaviour: the 500 is stored under the key and replayed to every retry, which
    /// is not charged.
    Store,
    /// The failure is not stored: the key is released and a retry is processed again.
    Retry,
}

/// Where the server keeps a payment's Idempotency-Key relative to the charge (article section
/// 6.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyStore {
    /// The charge, the key and its stored response commit in one database transaction: a
    /// crash before the commit leaves nothing (an in-flight row rolls back), after it
    /// everything.
    #[default]
    SameTransaction,
    /// The charge commits first, then the key and response are written to another store
    /// (Redis): the write can fail, or a crash can fall in between, and the key is lost. A
    /// `unique_key` in-flight marker lives with the request and dies with it.
    SeparateStore,
    /// `unique_key` reserves the key in another store before charging (SETNX with its own
    /// lock TTL) and marks it complete after the commit: a crash after the reservation leaves
    /// the key in flight until the lock expires (or the completer runs). A strategy that
    /// reserves nothing uses it as [`KeyStore::SeparateStore`].
    KeyFirst,
}

impl KeyStore {
    /// Its name in files and reports.
    pub fn name(self) -> &'static str {
        match self {
            KeyStore::SameTransaction => "same_transaction",
            KeyStore::SeparateStore => "separate_store",
            KeyStore::KeyFirst => "key_first",
        }
    }

    /// The store a strategy actually uses: one that reserves the key in the other store
    /// (`reserves`: `unique_key`) uses it as written; one that does not (`check_then_insert`,
    /// `lock_wait`, whose lock is the database's row lock, and `none`) uses `key_first` as
    /// `separate_store`.
    pub fn used_by(self, reserves: bool) -> KeyStore {
        match self {
            KeyStore::KeyFirst if !reserves => KeyStore::SeparateStore,
            store => store,
        }
    }

    /// Whether the key lives outside the charge's transaction (a write after the commit that
    /// can fail or be cut by a crash).
    pub fn is_separate(self) -> bool {
        self != KeyStore::SameTransaction
    }
}

/// Where a crash falls among the steps of one processing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashPoint {
    /// Before the charge (and before calling the provider): nothing was done.
    BeforeCharge,
    /// After the charge, before the key and response are saved.
    AfterCharge,
    /// After the key and response are saved, before the receipt and response are sent.
    AfterSave,
}

impl CrashPoint {
    /// The point a uniform draw picks: each of the three with probability 1/3.
    pub fn of(draw: f64) -> Self {
        if draw < 1.0 / 3.0 {
            CrashPoint::BeforeCharge
        } else if draw < 2.0 / 3.0 {
            CrashPoint::AfterCharge
        } else {
            CrashPoint::AfterSave
        }
    }
}

/// What survives a crash: whether the charge committed and whether the key with its response
/// was saved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CrashEffect {
    /// The charge committed (money taken).
    pub charged: bool,
    /// The key and its response were saved.
    pub key_saved: bool,
    /// A charge was made and rolled back with its transaction (`same_transaction`).
    pub rolled_back: bool,
}

/// What a crash at `point` leaves when the key lives in `store` (the store the strategy
/// uses, [`KeyStore::used_by`]): before the charge nothing; after the charge, in the
/// charge's transaction nothing (the transaction never committed), elsewhere the charge
/// without its key; after saving, the charge and the key.
pub fn crash_effect(point: CrashPoint, store: KeyStore) -> CrashEffect {
    match point {
        CrashPoint::BeforeCharge => CrashEffect {
            charged: false,
            key_saved: false,
            rolled_back: false,
        },
        CrashPoint::AfterCharge => CrashEffect {
            charged: store.is_separate(),
            key_saved: false,
            rolled_back: !store.is_separate(),
        },
        CrashPoint::AfterSave => CrashEffect {
            charged: true,
            key_saved: true,
            rolled_back: false,
        },
    }
}

/// The key settings of the server both models share: crashes and where the key lives. The
/// default changes nothing (no crash, the key in the charge's transaction).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyServer {
    /// Probability that a processing crashes (0 to 1); the point is drawn among the three.
    pub crash_rate: f64,
    /// Where the key lives.
    pub key_store: KeyStore,
    /// Probability that writing the key to the other store after the commit fails
    /// (`separate_store`, `key_first`; 0 to 1).
    pub key_write_failure: f64,
    /// How long a `key_first` reservation holds before the other store drops it (ms).
    pub key_lock_ttl_ms: f64,
    /// A recovery job that finds a `key_first` key left in flight this long after it was
    /// abandoned and completes it (the charge committed) or releases it (ms); `None`: none.
    pub completer_interval_ms: Option<f64>,
    /// The round trip of one call to the other key store (`separate_store`, `key_first`),
    /// during which the processing holds its worker (ms); `None`: calls take no time (the
    /// key absent or a fixed 0 ms: nothing is drawn).
    pub key_store_latency: Option<Distribution>,
    /// The completer's work on one key it finds in flight: the time it holds a worker (a
    /// shared server's, behind the requests queued before it) before the key is completed or
    /// released (ms); `None`: the completer's work takes no time (absent or a fixed 0 ms:
    /// nothing is drawn).
    pub completer_work: Option<Distribution>,
}

/// The default `key_lock_ttl_ms`: 30 s.
pub const DEFAULT_KEY_LOCK_TTL_MS: f64 = 30_000.0;

impl Default for KeyServer {
    fn default() -> Self {
        Self {
            crash_rate: 0.0,
            key_store: KeyStore::SameTransaction,
            key_write_failure: 0.0,
            key_lock_ttl_ms: DEFAULT_KEY_LOCK_TTL_MS,
            completer_interval_ms: None,
            key_store_latency: None,
            completer_work: None,
        }
    }
}

/// The calls to the other key store a processing makes and waits for, each taking
/// [`KeyServer::key_store_latency`]: with a keeping strategy (`keyed`) and a key outside the
/// charge's transaction (`store`, as the strategy uses it), the look-up or reservation before
/// the charge (unless it was made in front of the queue, `reserved_in_front`) and the write
/// after the commit; none otherwise (no key, or the key in the charge's transaction).
pub fn key_store_calls(store: KeyStore, keyed: bool, reserved_in_front: bool) -> u32 {
    if !keyed || !store.is_separate() {
        0
    } else if reserved_in_front {
        1
    } else {
        2
    }
}

/// When a reservation taken at `now` in `store` expires (ms): `now + key_lock_ttl_ms` for a
/// `key_first` lock, never for the other stores (their in-flight marker lives as long as its
/// request or its transaction).
pub fn lock_expiry_ms(server: &KeyServer, store: KeyStore, now: f64) -> f64 {
    match store {
        KeyStore::KeyFirst => now + server.key_lock_ttl_ms,
        _ => f64::INFINITY,
    }
}

/// How a `key_first` key left in flight (its request crashed, or its completion write
/// failed) leaves that state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Release {
    /// When (ms): the completer's visit, or the lock's expiry.
    pub at_ms: f64,
    /// The key becomes complete (the completer found the charge committed); otherwise absent.
    pub completes: bool,
    /// The completer released it before the lock expired.
    pub by_completer: bool,
}

/// A `key_first` key abandoned at `now` with its lock expiring at `lock_expires_ms`: the
/// completer (if any) finds it `completer_interval_ms` later and, after `work_ms` of work,
/// completes it if the charge `committed`, or releases it, if that is sooner than the expiry;
/// otherwise the lock expires and the store drops it.
pub fn abandoned(
    server: &KeyServer,
    now: f64,
    lock_expires_ms: f64,
    committed: bool,
    work_ms: f64,
) -> Release {
    let completer = server
        .completer_interval_ms
        .map(|interval| now + interval + work_ms)
        .filter(|&at_ms| at_ms < lock_expires_ms);
    match completer {
        Some(at_ms) => Release {
            at_ms,
            completes: committed,
            by_completer: true,
        },
        None => Release::at_lock_expiry(lock_expires_ms),
    }
}

impl Release {
    /// No completer comes in time: the lock expires at `lock_expires_ms` and the store drops
    /// the key.
    pub fn at_lock_expiry(lock_expires_ms: f64) -> Release {
        Release {
            at_ms: lock_expires_ms,
            completes: false,
            by_completer: false,
        }
    }
}

/// A key in flight as the store sees it: its lock's expiry and, if it was abandoned, its
/// release.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InFlight {
    /// When the lock expires (ms; infinite for a store without a lock TTL).
    pub lock_expires_ms: f64,
    /// Its release, if its request is gone ([`abandoned`]).
    pub release: Option<Release>,
}

/// What an in-flight key is at a given time ([`InFlight::fate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// Still in flight.
    Held,
    /// The completer completed it.
    Completed,
    /// Gone: the completer released it or the lock expired.
    Gone,
}

impl InFlight {
    /// What the key is at `now`: the release if it is due, else gone once the lock expired,
    /// else still held.
    pub fn fate(&self, now: f64) -> Fate {
        match self.release.filter(|release| now >= release.at_ms) {
            Some(release) if release.completes => Fate::Completed,
            Some(_) => Fate::Gone,
            None if now >= self.lock_expires_ms => Fate::Gone,
            None => Fate::Held,
        }
    }
}

/// What a payment's key holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyState {
    /// Not stored (never, pruned, released or rolled back).
    Absent,
    /// Inserted, its processing not finished (or abandoned by a crash or a failed write).
    InFlight,
    /// Stored with a success response.
    Complete,
    /// Stored with a 500 (`error_policy = "store"`).
    Failed,
}

/// How the server answers a duplicate: a delivery whose key is present with a matching body
/// (for a webhook receiver, a delivery of an event id it has seen).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuplicateAnswer {
    /// The Idempotency-Key behaviour: the stored response once complete, 409 while in flight.
    Replay,
    /// 200 OK at once, in flight or complete (a webhook receiver that deduplicates and
    /// acknowledges): the sender stops.
    Ok200,
    /// 409 Conflict, in flight or complete: the sender retries.
    Conflict409,
    /// 500 Internal Server Error, in flight or complete: the sender retries.
    Error500,
}

impl DuplicateAnswer {
    /// What the server answers at once to a delivery whose key is present in `state` (in
    /// flight, complete or failed) with a matching body: the Idempotency-Key's 409 while in
    /// flight and the stored response once stored, or the duplicate answer written.
    pub fn to_present_key(self, state: KeyState) -> PresentKeyAnswer {
        match (self, state) {
            (DuplicateAnswer::Replay, KeyState::InFlight) | (DuplicateAnswer::Conflict409, _) => {
                PresentKeyAnswer::Conflict
            }
            (DuplicateAnswer::Replay, KeyState::Failed) | (DuplicateAnswer::Error500, _) => {
                PresentKeyAnswer::ServerError
            }
            _ => PresentKeyAnswer::Success,
        }
    }
}

/// The answer to a delivery whose key is present, nothing processed ([`DuplicateAnswer::to_present_key`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresentKeyAnswer {
    /// 409 Conflict: the client retries.
    Conflict,
    /// 500, the stored failure replayed or a receiver's 500: the client retries.
    ServerError,
    /// 200, the stored success replayed or a receiver's acknowledgement: the client stops.
    Success,
}

/// A payment's key as the store keeps it, the same record in both loops: its state, when it
/// was created and for which body, its `key_first` lock and, once abandoned, its release.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyRecord {
    /// What it holds.
    pub state: KeyState,
    /// When it was created (ms); the store prunes it `key_ttl_ms` later.
    pub created_ms: f64,
    /// It was created by a delivery with another body than the payment's own (each different
    /// body is unlike every other).
    pub other_body: bool,
    /// When a `key_first` reservation's lock expires and the store drops it (ms; infinite for
    /// the other stores).
    pub lock_expires_ms: f64,
    /// A key left in flight by a crash or a failed write: when and how it leaves that state
    /// ([`abandoned`]).
    pub release: Option<Release>,
}

/// What a delivery's look-up did to the key it met ([`KeyRecord::meet`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Met {
    /// The key had outlived its TTL: the store pruned it.
    pub expired: bool,
    /// The key was in flight and its lock expired, or its release came: what it became.
    pub released: Option<Released>,
}

/// A key in flight that left that state as a delivery met it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Released {
    /// What it became: complete (the completer found the charge committed) or absent.
    pub becomes: KeyState,
    /// Its lock expired (the completer, if any, did not come or finish in time).
    pub lock_expired: bool,
}

impl KeyRecord {
    /// No key.
    pub const ABSENT: KeyRecord = KeyRecord {
        state: KeyState::Absent,
        created_ms: 0.0,
        other_body: false,
        lock_expires_ms: f64::INFINITY,
        release: None,
    };

    /// The key becomes `state`; created now, by a delivery with another body (`other_body`)
    /// or the payment's own, if it was absent.
    pub fn store(&mut self, state: KeyState, now: f64, other_body: bool) {
        if self.state == KeyState::Absent {
            self.created_ms = now;
            self.other_body = other_body;
        }
        self.state = state;
        self.release = None;
    }

    /// The key is reserved in flight now, by a delivery with another body or the payment's
    /// own, its lock expiring at `lock_expires_ms`.
    pub fn reserve(&mut self, now: f64, lock_expires_ms: f64, other_body: bool) {
        self.store(KeyState::InFlight, now, other_body);
        self.lock_expires_ms = lock_expires_ms;
    }

    /// Whether a delivery with another body (`other_body`) or the payment's own differs from
    /// the body the key was created for: either side's being another body.
    pub fn mismatch(&self, other_body: bool) -> bool {
        other_body || self.other_body
    }

    /// The key as a delivery meets it at `now`: pruned if it is `key_ttl_ms` old or more
    /// (lazily: no event marks the expiry; `None`: keys never expire), then, if in flight, its
    /// release or its lock's expiry applied if due ([`InFlight::fate`]).
    pub fn meet(&mut self, now: f64, key_ttl_ms: Option<f64>) -> Met {
        let expired = self.state != KeyState::Absent
            && key_ttl_ms.is_some_and(|ttl| now >= self.created_ms + ttl);
        if expired {
            self.state = KeyState::Absent;
        }
        let mut released = None;
        if self.state == KeyState::InFlight {
            let in_flight = InFlight {
                lock_expires_ms: self.lock_expires_ms,
                release: self.release,
            };
            let becomes = match in_flight.fate(now) {
                Fate::Held => None,
                Fate::Completed => Some(KeyState::Complete),
                Fate::Gone => Some(KeyState::Absent),
            };
            if let Some(becomes) = becomes {
                let lock_expired = self.release.is_none_or(|release| !release.by_completer);
                released = Some(Released {
                    becomes,
                    lock_expired,
                });
                self.state = becomes;
                self.release = None;
            }
        }
        Met { expired, released }
    }
}

/// How the receipt of a charge is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReceiptMode {
    /// Sent by the request handler after the commit: a crash before sending loses it, a send
    /// that fails is lost, and every processing that charges sends one.
    Direct,
    /// Recorded in the charge's transaction; a sender delivers it at least once, retrying
    /// failed sends, and deduplicates by message id (the payment's Idempotency-Key).
    Outbox,
}

impl ReceiptMode {
    /// Its name in files and reports.
    pub fn name(self) -> &'static str {
        match self {
            ReceiptMode::Direct => "direct",
            ReceiptMode::Outbox => "outbox",
        }
    }
}

/// The receipt sent after a charge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Receipts {
    /// Direct or through an outbox.
    pub mode: ReceiptMode,
    /// Probability that one send fails (0 to less than 1).
    pub send_failure: f64,
    /// The outbox relay's work on one row (its sends, retries included): the time it holds a
    /// shared server's worker, queued behind the requests waiting before it (ms); `None`: it
    /// takes no worker (absent or a fixed 0 ms). An unlimited server always has one free, and
    /// a receipt's delay is not measured, so the plain timeline ignores it.
    pub relay_work: Option<Distribution>,
}

/// What a payment's customer got of its receipts, once every processing is done
/// ([`Receipts::outcome`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReceiptOutcome {
    /// Receipts that reached the customer.
    pub sent: u64,
    /// Beyond the first.
    pub duplicated: u64,
    /// The payment was charged, and the customer got none.
    pub missing: bool,
}

impl Receipts {
    /// A payment's receipts from what its processings did: `direct_sent` receipts sent
    /// directly that reached the customer, `outbox_rows` rows committed with charges (the
    /// sender deduplicates by message id, the payment's key: one receipt), `charges` charges.
    pub fn outcome(&self, direct_sent: u64, outbox_rows: u64, charges: u64) -> ReceiptOutcome {
        let sent = match self.mode {
            ReceiptMode::Direct => direct_sent,
            ReceiptMode::Outbox => outbox_rows.min(1),
        };
        ReceiptOutcome {
            sent,
            duplicated: sent.saturating_sub(1),
            missing: charges > 0 && sent == 0,
        }
    }
}

/// Whether a payment's client was told it succeeded although no charge was made with the body
/// the success answered: it accepted a replayed success for another body
/// (`replayed_other_body`; each different body is unlike every other, so nothing charged
/// it), or for its own (`replayed_own_body`) when no charge was made with its own body
/// (`own_body_charges`).
pub fn told_succeeded_not_charged(
    replayed_other_body: bool,
    replayed_own_body: bool,
    own_body_charges: u64,
) -> bool {
    replayed_other_body || (replayed_own_body && own_body_charges == 0)
}

/// Send failures of a receipt before the outbox's sender delivers it: geometric with
/// `send_failure` from one uniform (`⌊ln(1 − u) / ln f⌋`, 0 when `f` is 0).
pub fn outbox_send_failures(send_failure: f64, draw: f64) -> u64 {
    if send_failure <= 0.0 {
        return 0;
    }
    ((-draw).ln_1p() / send_failure.ln()).floor() as u64
}

/// What the server does when it cannot reach the key store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnUnavailable {
    /// Answer 503 at once: no double charge, lost goodput.
    #[default]
    FailClosed,
    /// Process without the key (no look-up, no reservation, the key's write after the commit
    /// fails): goodput kept, double charges possible.
    FailOpen,
}

impl OnUnavailable {
    /// Its name in files and reports.
    pub fn name(self) -> &'static str {
        match self {
            OnUnavailable::FailClosed => "fail_closed",
            OnUnavailable::FailOpen => "fail_open",
        }
    }
}

/// The other key store as a dependency that fails: windows of simulated time in which every
/// call to it fails (`[from_ms, to_ms)`), and what the server does then. Only a key kept
/// outside the charge's transaction has another store to lose.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct KeyStoreOutages {
    /// The windows `(from_ms, to_ms)`, sorted, in ms of simulated time.
    pub windows: Vec<(f64, f64)>,
    /// Fail open or closed.
    pub on_unavailable: OnUnavailable,
}

impl KeyStoreOutages {
    /// Whether the store is down at `now`.
    pub fn down_at(&self, now: f64) -> bool {
        self.windows
            .iter()
            .any(|&(from_ms, to_ms)| (from_ms..to_ms).contains(&now))
    }

    /// Whether any outage is configured.
    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }
}

/// How a payment's copies (same key) are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyMode {
    /// All within `copy_spread_ms` of the first, each on its own client (parallel threads).
    Concurrent,
    /// One after another: each copy is sent when the previous one reached its final outcome.
    Sequential,
}

/// Where concurrent copies fall within their spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopySpacing {
    /// Copy `c` of `n` at `c × spread / (n − 1)`.
    Even,
    /// The first at 0, the others uniformly at random in `[0, spread)`.
    Random,
}

/// A payment's copies: requests sent with the same Idempotency-Key by clients that do not know
/// of each other (a double click, two tabs, a job scheduled twice), each retrying on its own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Copies {
    /// Copies of each payment (at least 1).
    pub count: u32,
    /// Concurrent or sequential copies.
    pub mode: CopyMode,
    /// Concurrent copies are sent within this time of the first (ms).
    pub spread_ms: f64,
    /// Even or random placement within the spread.
    pub spacing: CopySpacing,
}

impl Copies {
    /// One copy per payment: no double clicks.
    pub const SINGLE: Copies = Copies {
        count: 1,
        mode: CopyMode::Concurrent,
        spread_ms: 0.0,
        spacing: CopySpacing::Even,
    };

    /// When concurrent copy `copy` is sent after the payment starts (ms): copy `c` of `n` at
    /// `c × spread / (n − 1)` when even; when random, the first at 0 and the others at
    /// `spread × draw`, `draw` uniform in `[0, 1)` (asked for copies after the first only).
    pub fn offset_ms(&self, copy: u32, draw: impl FnOnce() -> f64) -> f64 {
        match self.spacing {
            CopySpacing::Even if self.count > 1 => {
                self.spread_ms * f64::from(copy) / f64::from(self.count - 1)
            }
            CopySpacing::Even => 0.0,
            CopySpacing::Random if copy == 0 => 0.0,
            CopySpacing::Random => self.spread_ms * draw(),
        }
    }
}

impl Default for Copies {
    fn default() -> Self {
        Copies::SINGLE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crash_points_split_the_unit_interval_in_thirds() {
        assert_eq!(CrashPoint::of(0.0), CrashPoint::BeforeCharge);
        assert_eq!(CrashPoint::of(0.4), CrashPoint::AfterCharge);
        assert_eq!(CrashPoint::of(0.9), CrashPoint::AfterSave);
    }

    /// The article's section 6.1 as a table: only a key outside the transaction can be lost
    /// with its charge committed.
    #[test]
    fn a_crash_after_the_charge_loses_the_key_only_outside_the_transaction() {
        let same = crash_effect(CrashPoint::AfterCharge, KeyStore::SameTransaction);
        assert_eq!(
            (same.charged, same.key_saved, same.rolled_back),
            (false, false, true)
        );
        for store in [KeyStore::SeparateStore, KeyStore::KeyFirst] {
            let effect = crash_effect(CrashPoint::AfterCharge, store);
            assert_eq!((effect.charged, effect.key_saved), (true, false));
        }
        let before = crash_effect(CrashPoint::BeforeCharge, KeyStore::SeparateStore);
        assert!(!before.charged && !before.key_saved);
        let after = crash_effect(CrashPoint::AfterSave, KeyStore::SameTransaction);
        assert!(after.charged && after.key_saved);
        assert_eq!(KeyStore::KeyFirst.used_by(false), KeyStore::SeparateStore);
        assert_eq!(KeyStore::KeyFirst.used_by(true), KeyStore::KeyFirst);
    }

    #[test]
    fn a_completer_sooner_than_the_lock_decides_else_the_lock_expires() {
        let server = KeyServer {
            key_store: KeyStore::KeyFirst,
            key_lock_ttl_ms: 3_000.0,
            completer_interval_ms: Some(500.0),
            ..KeyServer::default()
        };
        // Taken at 100 ms, abandoned at 400 ms: the completer comes at 900 ms.
        let expiry = lock_expiry_ms(&server, KeyStore::KeyFirst, 100.0);
        assert_eq!(expiry, 3_100.0);
        let release = abandoned(&server, 400.0, expiry, true, 0.0);
        assert_eq!((release.at_ms, release.completes), (900.0, true));
        let key = InFlight {
            lock_expires_ms: expiry,
            release: Some(release),
        };
        assert_eq!(key.fate(899.0), Fate::Held);
        assert_eq!(key.fate(900.0), Fate::Completed);
        // Abandoned at 2,800 ms: the completer would come after the expiry.
        let late = abandoned(&server, 2_800.0, expiry, true, 0.0);
        assert_eq!(
            (late.at_ms, late.completes, late.by_completer),
            (3_100.0, false, false)
        );
        // The completer's work counts: found at 900 ms, 2,000 ms of work ends at 2,900, before
        // the expiry; 2,300 ms would end at 3,200, after it, and the lock expires first.
        let worked = abandoned(&server, 400.0, expiry, true, 2_000.0);
        assert_eq!((worked.at_ms, worked.by_completer), (2_900.0, true));
        let too_slow = abandoned(&server, 400.0, expiry, true, 2_300.0);
        assert_eq!((too_slow.at_ms, too_slow.by_completer), (3_100.0, false));
        // Never abandoned: the lock expires under a slow processing all the same.
        let held = InFlight {
            lock_expires_ms: expiry,
            release: None,
        };
        assert_eq!(held.fate(3_099.9), Fate::Held);
        assert_eq!(held.fate(3_100.0), Fate::Gone);
        assert_eq!(
            lock_expiry_ms(&server, KeyStore::SeparateStore, 100.0),
            f64::INFINITY
        );
    }

    /// A key met by a look-up: pruned once it is `key_ttl_ms` old; left in flight, released
    /// when the completer's release or the lock's expiry is due, saying which.
    #[test]
    fn a_key_met_is_pruned_at_its_ttl_and_released_when_due() {
        let mut key = KeyRecord::ABSENT;
        key.store(KeyState::Complete, 100.0, true);
        assert!(key.mismatch(false) && !KeyRecord::ABSENT.mismatch(false));
        let kept = key.meet(1_099.9, Some(1_000.0));
        assert_eq!((kept.expired, key.state), (false, KeyState::Complete));
        let pruned = key.meet(1_100.0, Some(1_000.0));
        assert_eq!((pruned.expired, key.state), (true, KeyState::Absent));
        // Reserved at 2,000 with its lock until 5,000, abandoned; the completer releases it
        // at 3,000 (the charge committed: it completes).
        key.reserve(2_000.0, 5_000.0, false);
        assert_eq!((key.created_ms, key.other_body), (2_000.0, false));
        key.release = Some(Release {
            at_ms: 3_000.0,
            completes: true,
            by_completer: true,
        });
        assert_eq!(key.meet(2_999.0, None).released, None);
        let completed = key.meet(3_000.0, None).released.unwrap();
        assert_eq!(
            (completed.becomes, completed.lock_expired, key.release),
            (KeyState::Complete, false, None)
        );
        // Reserved again (after a prune), never released: the lock expires at 8,000.
        key.state = KeyState::Absent;
        key.reserve(7_000.0, 8_000.0, true);
        let gone = key.meet(8_000.0, None).released.unwrap();
        assert_eq!(
            (gone.becomes, gone.lock_expired, key.state),
            (KeyState::Absent, true, KeyState::Absent)
        );
    }

    /// A look-up (or reservation) and a write per processing for a key in another store; one
    /// when the reservation was made in front of the queue; none in the charge's transaction
    /// or without a key.
    #[test]
    fn a_processing_waits_for_two_calls_to_another_store() {
        assert_eq!(key_store_calls(KeyStore::SeparateStore, true, false), 2);
        assert_eq!(key_store_calls(KeyStore::KeyFirst, true, false), 2);
        assert_eq!(key_store_calls(KeyStore::KeyFirst, true, true), 1);
        assert_eq!(key_store_calls(KeyStore::SameTransaction, true, false), 0);
        assert_eq!(key_store_calls(KeyStore::SeparateStore, false, false), 0);
    }

    #[test]
    fn an_outage_window_is_closed_at_its_start_and_open_at_its_end() {
        let outages = KeyStoreOutages {
            windows: vec![(10_000.0, 40_000.0)],
            on_unavailable: OnUnavailable::FailOpen,
        };
        assert!(!outages.down_at(9_999.9));
        assert!(outages.down_at(10_000.0));
        assert!(!outages.down_at(40_000.0));
        assert!(KeyStoreOutages::default().is_empty());
    }
}
