//! The engine: the building blocks every model of `simulate` is made of, knowing no model.
//!
//! - [`rng`]: numpy's `SeedSequence` and PCG64, bit for bit, with jump-ahead;
//! - [`distribution`] and [`backoff`]: latency distributions sampled by inverse transform and
//!   the retry backoff policies; [`measured`]: distributions given by percentiles, samples or
//!   histogram buckets;
//! - [`numerics`]: the C library's `exp` and `log1p` replicated bit for bit, one value or a
//!   vector of lanes at a time, and the fast estimate of `ln(1 - u)`; [`cpu`] is the one place
//!   that decides which vector instructions they use;
//! - [`queue`]: discrete-event queues behind one ordering contract ([`queue::EventQueue`]);
//! - [`estimate`]: the arithmetic of run-time estimates;
//! - [`stats`], [`replications`] and [`latency`]: intervals, estimates across runs in
//!   constant memory, and exactly mergeable latency histograms;
//! - [`counters!`] and [`metrics!`]: the one-declaration macros for a model's counters and
//!   summarised quantities;
//! - [`parallel`] and [`progress`]: independent simulations on several threads, in task order,
//!   with progress and a stop request.
//!
//! Nothing here prints, reads a file or knows a config key.

pub mod backoff;
pub mod counters;
pub mod cpu;
pub mod distribution;
pub mod estimate;
pub mod latency;
pub mod measured;
pub mod metric;
pub mod numerics;
pub mod parallel;
pub mod progress;
pub mod queue;
pub mod replications;
pub mod rng;
pub mod stats;

pub use progress::{Interrupted, Progress, Silent};
