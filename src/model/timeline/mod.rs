//! The timeline model: payments, copies and retries on a simulated clock, with latencies,
//! losses, timeouts, backoff and three server strategies for the Idempotency-Key (pure:
//! parameters, seed and a [`Progress`] in; counts and latency histograms out).
//!
//! Each payment has its own key, and keys do not interact (no shared server capacity), so
//! every payment is simulated on its own (see [`simulation`]) from its own slice of the run's
//! random stream: payment `i` starts `i × stride` draws into
//! `SeedSequence(seed, spawn_key=(run,))`, reached by jump-ahead. Payments are processed in
//! chunks on several threads; chunk results are integer counters, exact-mergeable histograms
//! and an order-aware span, so any thread count gives the same bytes, and memory is bounded by
//! the payments in flight on the threads, not by the total.
//!
//! Every strategy and every scenario of a run reads the same stream (common random numbers):
//! differences between strategies come from the strategy, not from the draws (and between
//! scenarios with the same copies and retry limit, which fix the layout, from the scenario).

pub mod backend;
pub mod counters;
pub mod draws;
pub mod estimate;
pub mod events;
pub mod offline;
pub mod params;
pub mod results;
pub mod run;
pub mod shortcut;
pub mod simulation;
pub mod single_copy;
pub mod trace;

pub use crate::model::semantics::ErrorPolicy;
pub use backend::{Backend, CrashPoint, KeyStore, Provider, ReceiptMode, Receipts};
pub use counters::Counters;
pub use offline::{ClientLifecycle, Offline, Reconciliation};
pub use params::{
    ArrivalProcess, Arrivals, ClientPolicy, CopyMode, CopySpacing, DuplicateAnswer, KeyLifecycle,
    Network, Scenario, Strategy, TimelineModel,
};
pub use results::{LATENCY_QUANTILES, RunRow, Span, StrategyTally, TimelineResults, TimelineRow};
pub use run::{
    CHUNK_PAYMENTS, CellTallies, Streams, assemble, cell_count, simulate, simulate_cells,
    simulate_scenario,
};

#[cfg(test)]
mod backend_tests;
#[cfg(test)]
mod offline_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
