//! `contention.csv`: one row per client count, policy and run (the summary over runs is in
//! the shared shape, [`super::summary`]).

use serde::Serialize;

use crate::model::contention::{ContentionModel, ContentionResults, ContentionRow};
use crate::report::format::{decimal, to_csv};

/// One row of `contention.csv`: one simulation of `clients` clients racing for the row, the
/// backoff's parameters written as `Decimal` and the times as `Millis`.
#[derive(Debug, Serialize)]
pub struct RunRow<Decimal, Millis> {
    /// Clients racing to update the row, each until its write is accepted (clients).
    pub clients: u32,
    /// The backoff policy: `none`, `constant`, `exponential`, `full_jitter`, `equal_jitter`
    /// or `decorrelated_jitter`.
    pub policy: &'static str,
    /// The replication; run `k` draws from `SeedSequence(seed, spawn_key=(k, clients,
    /// policy code))`, the codes 0 to 5 in the order of the policies above.
    pub run: u32,
    /// The seed of the run streams.
    pub seed: u64,
    /// The backoff's base (ms).
    pub base_ms: Decimal,
    /// The backoff's cap (ms).
    pub cap_ms: Decimal,
    /// Retries a client makes at most after its first write (retries; empty: until it
    /// succeeds).
    pub max_retries: Option<u32>,
    /// Read calls the server answered (calls).
    pub reads: u64,
    /// Write calls the server answered, accepted or rejected: what the AWS post counts as
    /// "calls" (calls).
    pub writes: u64,
    /// Writes rejected because the version they carried was stale (calls).
    pub failed_writes: u64,
    /// Clients whose write was accepted (clients).
    pub succeeded: u32,
    /// Clients that gave up after `max_retries` retries (clients).
    pub gave_up: u32,
    /// Simulated time at which the last client received its final write reply: what the AWS
    /// post counts as "time" (ms, 3 decimals).
    pub completion_ms: Millis,
    /// The mean over clients of the time each received its final write reply (ms,
    /// 3 decimals).
    pub mean_client_completion_ms: Millis,
    /// The row's version at the end: the number of accepted writes (versions).
    pub final_version: u64,
}

impl<Decimal, Millis> RunRow<Decimal, Millis> {
    /// The row of one run of `model`, the backoff's parameters written by `decimal` and the
    /// times (ms) by `millis`.
    pub fn new(
        model: &ContentionModel,
        row: &ContentionRow,
        decimal: impl Fn(f64) -> Decimal,
        millis: impl Fn(f64) -> Millis,
    ) -> Self {
        let tally = &row.tally;
        Self {
            clients: row.clients,
            policy: row.policy.name(),
            run: row.run,
            seed: model.seed,
            base_ms: decimal(model.base_ms),
            cap_ms: decimal(model.cap_ms),
            max_retries: model.setup.max_retries,
            reads: tally.reads,
            writes: tally.writes,
            failed_writes: tally.failed_writes,
            succeeded: tally.succeeded,
            gave_up: tally.gave_up,
            completion_ms: millis(tally.completion_ms),
            mean_client_completion_ms: millis(tally.mean_client_completion_ms),
            final_version: tally.final_version,
        }
    }
}

/// Three decimals (ms).
fn millis(value: f64) -> String {
    format!("{value:.3}")
}

/// The bytes of `contention.csv`: client counts in the order given, then policies in the
/// order given, then runs.
pub fn contention_csv(results: &ContentionResults) -> Vec<u8> {
    to_csv(
        results
            .rows
            .iter()
            .map(|row| RunRow::new(&results.model, row, decimal, millis)),
    )
}
