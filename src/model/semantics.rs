//! Server semantics that more than one model shares (the timeline model and the load model
//! simulate the same server with an Idempotency-Key): what it does with a failed first
//! processing.

/// What the server does with a first delivery that failed with a 500.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorPolicy {
    /// Stripe's behaviour: the 500 is stored under the key and replayed to every retry, which
    /// is not charged.
    Store,
    /// The failure is not stored: the key is released and a retry is processed again.
    Retry,
}
