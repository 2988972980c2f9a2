//! What every model shares with its caller while it runs: progress, and a way to stop.

/// Hears how far a computation has come and may ask it to stop. Called from worker threads.
pub trait Progress: Sync {
    /// `units` more units of work are done (see [`work_units`]).
    fn advance(&self, _units: u64) {}
    /// Returns true when the computation should stop as soon as it can.
    fn should_stop(&self) -> bool {
        false
    }
}

/// A [`Progress`] that hears nothing and never stops.
pub struct Silent;

impl Progress for Silent {}

/// The computation was stopped by its [`Progress`] before it finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the simulation was interrupted")]
pub struct Interrupted;
