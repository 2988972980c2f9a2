//! `timeline.csv`: one row per run, scenario and strategy of a timeline run.

use serde::Serialize;

use super::csv::to_csv;
use crate::model::timeline::TimelineResults;

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
    /// Payments whose clients all gave up although the customer was charged: charged and told
    /// it failed (payments).
    pub gave_up_charged: u64,
    /// Payments whose clients all gave up and that were never charged (payments).
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
            }
        })
        .collect()
}

/// `timeline.csv`.
pub fn timeline_csv(results: &TimelineResults) -> Vec<u8> {
    to_csv(rows(results))
}
