//! What a payment's timeline is told in: the server's [`Answer`] to a delivery, what a
//! look-up found of the key ([`KeyFound`]), each [`EventKind`] the event loop reports, and
//! the [`Recorder`] it reports them to (`()` keeps nothing, an [`EventLog`] every [`Event`]).
//! Plain values: the event loop ([`super::simulation`]), its closed forms and the trace
//! ([`super::trace`]) build on them, and this imports none of them.

use super::backend::CrashPoint;
use crate::model::trace as shared;

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

/// What the server's key store held when a delivery looked the payment's key up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyFound {
    /// No key: the delivery is processed (and charges).
    Absent,
    /// A key in flight: its processing has not finished (or a crash left it so).
    InFlight,
    /// A key with a stored success response.
    Complete,
    /// A key with a stored 500.
    Failed,
}

/// One kind of event of a payment's timeline, as the trace records and draws it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EventKind {
    /// The client sends the attempt; its timeout starts.
    Sent,
    /// The request is lost on the way (decided as it is sent): the server never sees it.
    RequestLost,
    /// The request reaches the server.
    Delivered,
    /// The key store pruned the key: it was `key_ttl_ms` old when this delivery came.
    KeyExpired,
    /// A key left in flight by a crash leaves that state as this delivery comes: its lock
    /// expired, or the completer completed or released it; it `becomes` this.
    KeyReleased {
        /// What the key is from now on.
        becomes: KeyFound,
    },
    /// The server looks the key up and finds it so.
    KeyLookedUp {
        /// What the look-up found.
        found: KeyFound,
    },
    /// `unique_key` inserts the key, in flight, before processing.
    KeyReserved,
    /// The server starts processing the delivery; it finishes at `until_ms`.
    ProcessingStarted {
        /// When the processing ends (ms).
        until_ms: f64,
    },
    /// The processing charges the customer: the payment's `nth` charge (from 1).
    Charged {
        /// Which charge of the payment this is: 2 and more are double charges.
        nth: u64,
    },
    /// The processing fails with a 500; nothing is charged.
    ProcessingFailed,
    /// The response is stored under the key.
    KeySaved,
    /// Writing the key to its separate store fails: the key is lost.
    KeyWriteFailed,
    /// The in-flight key goes with the request that held it (a crash, or a key that could
    /// not be written): the key is absent again.
    KeyDropped,
    /// The server crashes at this point of the processing: nothing is answered.
    Crashed {
        /// Where in the processing.
        point: CrashPoint,
    },
    /// The crash leaves the key in flight until `until_ms` (its lock's expiry, or the
    /// completer), when it `becomes` this.
    KeyLeftInFlight {
        /// When it leaves the in-flight state (ms).
        until_ms: f64,
        /// What it becomes then.
        becomes: KeyFound,
    },
    /// The server sends its answer back.
    Answered {
        /// The answer.
        answer: Answer,
    },
    /// The answer is lost on the way back (the lost ACK): the client never hears it.
    ResponseLost,
    /// The answer reaches the client while it waits for that attempt.
    Received {
        /// The answer.
        answer: Answer,
    },
    /// The answer reaches the client after it stopped waiting for that attempt: ignored.
    ReceivedLate {
        /// The answer.
        answer: Answer,
    },
    /// The client's timeout fires while it still waits for the attempt.
    TimedOut,
    /// The client waits its backoff, `wait_ms`, before sending the next attempt.
    BackingOff {
        /// The backoff (ms).
        wait_ms: f64,
    },
    /// The client stops without a success: its retries are spent (or a 422 told it to).
    GaveUp,
    /// The client loses the network right after sending: it hears no answer to the attempt
    /// and reconnects at `until_ms`, when it resends with the same key.
    WentOffline {
        /// When it is back (ms).
        until_ms: f64,
    },
}

/// One recorded event: when, whose (copy and attempt of the payment) and what.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Event {
    /// When it happened (ms from the payment's first send).
    pub at_ms: f64,
    /// The copy (its own client) it belongs to, from 0.
    pub copy: u32,
    /// The attempt of that copy, from 0 (the first send).
    pub attempt: u32,
    /// What happened.
    pub kind: EventKind,
}

/// What the event loop tells as it handles a payment's events: the recorder both loops share
/// ([`crate::model::trace::Recorder`]) over this model's [`Event`]s. `()` records nothing, and
/// its empty `record_event` is inlined into the loop: the unrecorded runs pay nothing for the
/// hooks.
pub trait Recorder: shared::Recorder<Event> {
    /// `kind` happened at `at_ms` to attempt `attempt` of copy `copy`.
    #[inline(always)]
    fn record(&mut self, at_ms: f64, copy: u32, attempt: u32, kind: EventKind) {
        self.record_event(Event {
            at_ms,
            copy,
            attempt,
            kind,
        });
    }
}

impl<T: shared::Recorder<Event>> Recorder for T {}

/// A recorder that keeps every event, in the order they happened.
pub type EventLog = shared::EventLog<Event>;
