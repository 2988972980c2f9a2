//! `simulate`: a deterministic, seeded Monte Carlo simulator of at-least-once delivery that
//! counts double charges with and without an Idempotency-Key.
//!
//! The flow is one-way: the binary's command line (flags, in `src/cli/`, the only code that
//! knows clap) builds [`config::Overrides`] → [`config`] (file + flags → one validated value
//! per model) → [`model`] (pure; each model under its own folder, built from the `engine`
//! crate) → [`report`] (results → bytes) → [`driver`], generic over [`models::Model`],
//! writes the files through [`output`] (or a
//! share of the cells into a partial folder that `simulate merge` joins, [`shard`]),
//! with the [`progress`] bar and the [`signals`] that stop a run; [`exit`] maps errors to exit
//! codes. The models never print or read files; every file a user names is read whole and
//! bounded in size through [`input`]. [`compare`] reads output folders back and writes their
//! comparison.

pub mod compare;
pub mod config;
pub mod driver;
pub mod exit;
pub mod input;
pub mod limits;
pub mod model;
pub mod models;
pub mod output;
pub mod parse;
pub mod progress;
pub mod report;
pub mod shard;
pub mod signals;

pub use driver::run;
pub use exit::{EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_USAGE, exit_code};
