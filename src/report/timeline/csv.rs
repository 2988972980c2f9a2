//! `timeline.csv`: one row per run, scenario and strategy of a timeline run.

use serde::Serialize;

use crate::model::timeline::TimelineResults;
use crate::report::format::to_csv;

/// One row of `timeline.csv`: what one strategy did with one scenario's payments in one run.
#[derive(Debug, Serialize)]
pub struct TimelineRow {
    /// The replication; run `k` draws from `SeedSequence(seed, spawn_key=(k,))`.
    pub run: u32,
    /// The scenario's name (its `[[scenario]]` name, or the file's name).
    pub scenario: String,
    /// `none`, `check_then_insert` or `unique_key`.
    pub strategy: &'static str,
    /// The seed of the run streams.
    pub seed: u64,
    /// Payments simulated, each with its own key (payments).
    pub payments: u64,
    /// Copies of each payment sent with the same key (copies).
    pub copies: u32,
    /// Retries each copy makes at most after its first send (retries).
    pub max_retries: u32,
    /// Attempts the clients sent: every copy's first send plus its retries (attempts).
    pub attempts: u64,
    /// Attempts that reached the server; the rest were lost on the way (deliveries).
    pub deliveries: u64,
    /// Charges the server made (charges).
    pub charges: u64,
    /// Payments charged two or more times: customers charged twice (payments).
    pub double_charged_payments: u64,
    /// Charges beyond one per payment (charges).
    pub extra_charges: u64,
    /// Deliveries answered with the stored response, not charged: prevented duplicates
    /// (deliveries).
    pub replays: u64,
    /// Deliveries answered 409 Conflict because the key was in flight (deliveries).
    pub conflicts: u64,
    /// Payments for which some copy received a success response (payments).
    pub succeeded: u64,
    /// Payments charged although no copy got a success response: the customer was charged and
    /// told the payment failed (the clients gave up, or got a 422); the first ambiguous
    /// outcome (payments).
    pub gave_up_charged: u64,
    /// Payments with no success response that were never charged (payments).
    pub gave_up_not_charged: u64,
    /// Median client latency from the first send to the final outcome (ms, rounded up to the
    /// latency histogram's bucket edge: at most 4.7% high; 3 decimals).
    pub latency_p50_ms: String,
    /// 95th-percentile client latency to the final outcome (ms, as `latency_p50_ms`).
    pub latency_p95_ms: String,
    /// 99th-percentile client latency to the final outcome (ms, as `latency_p50_ms`).
    pub latency_p99_ms: String,
    /// Deliveries per payment: the retry amplification (deliveries per payment).
    pub deliveries_per_payment: f64,
    /// Simulated time from the first send to the last final outcome, given the arrival
    /// process (ms, whole microseconds).
    pub simulated_span_ms: f64,
    /// The key TTL: the store prunes a key this long after creating it (ms; empty: never).
    pub key_ttl_ms: String,
    /// Deliveries answered 422 because their body did not match the key's fingerprint; nothing
    /// charged (deliveries).
    pub rejected_mismatches: u64,
    /// Deliveries answered with the stored response of another body because the server keeps
    /// no fingerprint (deliveries).
    pub wrong_replays: u64,
    /// Processings that failed with a 500 and charged nothing: `error_rate` of the first
    /// processings (processings).
    pub server_errors: u64,
    /// Deliveries answered 500 without processing: the stored failure replayed
    /// (`error_policy = "store"`) or a duplicate answered 500 (`duplicate_answer =
    /// "error_500"`) (deliveries).
    pub errors_replayed: u64,
    /// Deliveries processed again after a 500 that was not stored (deliveries).
    pub errors_retried: u64,
    /// Charges made by deliveries that arrived after their key had been pruned (charges).
    pub expired_key_charges: u64,
    /// Payments told they succeeded although no charge was made with the body the success
    /// answered: the second ambiguous outcome, 0 for a correct server (payments).
    pub told_succeeded_not_charged: u64,
}

/// The rows of `timeline.csv`: runs in order, then scenarios, then strategies as listed.
pub fn rows(results: &TimelineResults) -> Vec<TimelineRow> {
    let quantile = |value: Option<f64>| value.map_or_else(String::new, |ms| format!("{ms:.3}"));
    results
        .rows
        .iter()
        .map(|row| {
            let scenario = results.scenario(row);
            let tally = &row.tally;
            TimelineRow {
                run: row.run,
                scenario: scenario.name.clone(),
                strategy: row.strategy.name(),
                seed: results.model.seed,
                payments: tally.payments,
                copies: scenario.arrivals.copies,
                max_retries: scenario.client.max_retries,
                attempts: tally.attempts,
                deliveries: tally.deliveries,
                charges: tally.charges,
                double_charged_payments: tally.double_charged_payments,
                extra_charges: tally.extra_charges,
                replays: tally.replays,
                conflicts: tally.conflicts,
                succeeded: tally.succeeded,
                gave_up_charged: tally.gave_up_charged,
                gave_up_not_charged: tally.gave_up_not_charged,
                latency_p50_ms: quantile(tally.latency.quantile_ms(0.5)),
                latency_p95_ms: quantile(tally.latency.quantile_ms(0.95)),
                latency_p99_ms: quantile(tally.latency.quantile_ms(0.99)),
                deliveries_per_payment: tally.deliveries_per_payment(),
                simulated_span_ms: tally.span.ms(),
                key_ttl_ms: scenario
                    .key
                    .key_ttl_ms
                    .map_or_else(String::new, |ttl| ttl.to_string()),
                rejected_mismatches: tally.rejected_mismatches,
                wrong_replays: tally.wrong_replays,
                server_errors: tally.server_errors,
                errors_replayed: tally.errors_replayed,
                errors_retried: tally.errors_retried,
                expired_key_charges: tally.expired_key_charges,
                told_succeeded_not_charged: tally.told_succeeded_not_charged,
            }
        })
        .collect()
}

/// `timeline.csv`.
pub fn timeline_csv(results: &TimelineResults) -> Vec<u8> {
    to_csv(rows(results))
}

/// One row of `ttl_sweep.csv`: one strategy's results in run 0 of one scenario with the key TTL
/// set to one value of `ttl_sweep_ms`.
#[derive(Debug, Serialize)]
pub struct TtlSweepRow {
    /// The key TTL of this point (ms).
    pub key_ttl_ms: f64,
    /// The scenario's name.
    pub scenario: String,
    /// `none`, `check_then_insert` or `unique_key`.
    pub strategy: &'static str,
    /// The client's whole retry window, `(max_retries + 1) × timeout_ms + Σ longest backoffs`
    /// (ms): a TTL above it outlasts every retry of a copy whose requests arrive within a
    /// timeout.
    pub retry_window_ms: f64,
    /// Payments simulated (payments).
    pub payments: u64,
    /// Charges the server made (charges).
    pub charges: u64,
    /// Payments charged two or more times (payments).
    pub double_charged_payments: u64,
    /// Charges made by deliveries that arrived after their key had been pruned (charges).
    pub expired_key_charges: u64,
}

/// `ttl_sweep.csv`: TTLs in the order given, then scenarios, then strategies.
pub fn ttl_sweep_csv(results: &TimelineResults) -> Vec<u8> {
    to_csv(
        results
            .ttl_sweep
            .iter()
            .map(|row| {
                let scenario = &results.model.scenarios[row.scenario];
                TtlSweepRow {
                    key_ttl_ms: row.key_ttl_ms,
                    scenario: scenario.name.clone(),
                    strategy: row.strategy.name(),
                    retry_window_ms: scenario.client.retry_window_ms(),
                    payments: row.tally.payments,
                    charges: row.tally.charges,
                    double_charged_payments: row.tally.double_charged_payments,
                    expired_key_charges: row.tally.expired_key_charges,
                }
            })
            .collect::<Vec<_>>(),
    )
}
