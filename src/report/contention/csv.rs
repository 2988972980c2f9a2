//! `contention.csv` (one row per client count, policy and run) and `contention_summary.csv`
//! (means over runs with standard errors and 95% intervals).

use serde::Serialize;

use crate::model::contention::ContentionResults;
use crate::model::contention::summary::MetricSummary;
use crate::report::format::{decimal, serialize_decimal, to_csv};

/// One row of `contention.csv`: one simulation of `clients` clients racing for the row.
#[derive(Debug, Serialize)]
pub struct ContentionCsvRow {
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
    #[serde(serialize_with = "serialize_decimal")]
    pub base_ms: f64,
    /// The backoff's cap (ms).
    #[serde(serialize_with = "serialize_decimal")]
    pub cap_ms: f64,
    /// Retries a client makes at most after its first write (retries; empty: until it
    /// succeeds).
    pub max_retries: String,
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
    pub completion_ms: String,
    /// The mean over clients of the time each received its final write reply (ms,
    /// 3 decimals).
    pub mean_client_completion_ms: String,
    /// The row's version at the end: the number of accepted writes (versions).
    pub final_version: u64,
}

/// One row of `contention_summary.csv`: one metric of one (client count, policy) over the
/// runs.
#[derive(Debug, Serialize)]
pub struct SummaryCsvRow {
    /// Clients racing for the row (clients).
    pub clients: u32,
    /// The backoff policy, as in `contention.csv`.
    pub policy: &'static str,
    /// `writes`, `failed_writes`, `reads` (calls per run), `completion_ms`,
    /// `mean_client_completion_ms` (ms) or `gave_up` (clients per run): the columns of
    /// `contention.csv` of the same names.
    pub metric: &'static str,
    /// Runs averaged (runs).
    pub runs: u32,
    /// The mean over runs (the metric's unit).
    #[serde(serialize_with = "serialize_decimal")]
    pub mean: f64,
    /// The standard error of the mean, `sd_across_runs / √runs` (the metric's unit; empty
    /// for one run).
    pub standard_error: String,
    /// The sample standard deviation across runs, divisor `runs − 1` (the metric's unit;
    /// empty for one run).
    pub sd_across_runs: String,
    /// The low end of the 95% Student-t interval for the expectation, `runs − 1` degrees of
    /// freedom (the metric's unit; empty for one run).
    pub ci_low: String,
    /// The high end of the same interval (the metric's unit; empty for one run).
    pub ci_high: String,
}

/// Three decimals (ms).
pub(super) fn millis(value: f64) -> String {
    format!("{value:.3}")
}

/// The bytes of `contention.csv`: client counts in the order given, then policies in the
/// order given, then runs.
pub fn contention_csv(results: &ContentionResults) -> Vec<u8> {
    let model = &results.model;
    to_csv(results.rows.iter().map(|row| {
        ContentionCsvRow {
            clients: row.clients,
            policy: row.policy.name(),
            run: row.run,
            seed: model.seed,
            base_ms: model.base_ms,
            cap_ms: model.cap_ms,
            max_retries: model
                .setup
                .max_retries
                .map_or_else(String::new, |retries| retries.to_string()),
            reads: row.tally.reads,
            writes: row.tally.writes,
            failed_writes: row.tally.failed_writes,
            succeeded: row.tally.succeeded,
            gave_up: row.tally.gave_up,
            completion_ms: millis(row.tally.completion_ms),
            mean_client_completion_ms: millis(row.tally.mean_client_completion_ms),
            final_version: row.tally.final_version,
        }
    }))
}

/// The bytes of `contention_summary.csv`, in the summary's order.
pub fn summary_csv(summary: &[MetricSummary]) -> Vec<u8> {
    let optional = |value: Option<f64>| value.map_or_else(String::new, decimal);
    to_csv(summary.iter().map(|row| SummaryCsvRow {
        clients: row.clients,
        policy: row.policy.name(),
        metric: row.metric.name(),
        runs: row.runs,
        mean: row.mean,
        standard_error: optional(row.standard_error()),
        sd_across_runs: optional(row.sd),
        ci_low: optional(row.interval.map(|interval| interval.low)),
        ci_high: optional(row.interval.map(|interval| interval.high)),
    }))
}
