//! `summary.csv`: per (p, server, metric) the mean over runs, its spread, the 95% interval,
//! the closed-form expectation and the z-score, as CSV bytes.

use serde::{Serialize, Serializer};

use crate::model::summary::MetricSummary;

/// One row of `summary.csv`. Every value is per request; rates are shares of requests
/// (0.0101 is 1.01%). Numbers are the shortest form that reads back as the same `f64`, in
/// scientific notation below 1e-4 (see [`decimal`]).
#[derive(Debug, Serialize)]
pub struct SummaryRow {
    /// The probability that a response (ACK) is lost, written as in `results.csv`.
    #[serde(serialize_with = "probability")]
    pub p: f64,
    /// `non_idempotent` or `idempotency_key`.
    pub server: &'static str,
    /// `double_charge_rate` (share of requests charged twice or more),
    /// `extra_charges_per_request` (charges beyond one, per request),
    /// `prevented_duplicates_per_request` (deliveries the key store answered, per request),
    /// `retries_exhausted_rate` (share of requests that used every retry) or
    /// `deliveries_per_request` (deliveries per request: the retry amplification).
    pub metric: &'static str,
    /// Replications pooled (runs).
    pub runs: u32,
    /// Payment requests in each run (requests).
    pub requests_per_run: u64,
    /// The mean over runs of each run's value (per request; equals the value pooled over all
    /// requests since runs are of equal size).
    #[serde(serialize_with = "shortest")]
    pub mean: f64,
    /// Sample standard deviation (divisor `runs - 1`) of the runs' values; empty for one run.
    #[serde(serialize_with = "optional")]
    pub sd_across_runs: Option<f64>,
    /// Sample standard deviation of the metric over all requests pooled (per request).
    #[serde(serialize_with = "shortest")]
    pub sd_per_request: f64,
    /// Lower end of the 95% interval for the expectation (per request).
    #[serde(serialize_with = "shortest")]
    pub ci_low: f64,
    /// Upper end of the 95% interval for the expectation (per request).
    #[serde(serialize_with = "shortest")]
    pub ci_high: f64,
    /// How the interval was computed: `wilson` (score interval on the count pooled over all
    /// runs, for rates), `student_t` (t interval across the runs' values, `runs - 1` degrees of
    /// freedom, for means with 2+ runs) or `normal` (mean ± 1.96 · sd_per_request / √requests,
    /// for means of a single run).
    pub interval: &'static str,
    /// The closed-form expectation per request (see docs/closed-forms.md).
    #[serde(serialize_with = "shortest")]
    pub closed_form: f64,
    /// `(mean - closed_form) / sqrt(closed-form variance / (runs · requests_per_run))`: how many
    /// standard errors the observation lies from the expectation. Empty when the closed-form
    /// variance is 0 (the metric cannot vary at this p, e.g. the key server's double charges).
    #[serde(serialize_with = "optional")]
    pub z_score: Option<f64>,
}

fn probability<S: Serializer>(p: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&super::shortest(*p))
}

fn shortest<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&decimal(*value))
}

/// The shortest form that reads back as the same `f64`; below 1e-4 in scientific notation
/// (`1.0000000000000005e-40`) rather than with forty zeros.
pub fn decimal(value: f64) -> String {
    if value != 0.0 && value.abs() < 1e-4 {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

fn optional<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => shortest(value, serializer),
        None => serializer.serialize_str(""),
    }
}

/// The rows of `summary.csv`, in the order of [`crate::model::summary::summarise`].
pub fn summary_rows(summary: &[MetricSummary]) -> Vec<SummaryRow> {
    summary
        .iter()
        .map(|row| SummaryRow {
            p: row.ack_loss,
            server: row.server.name(),
            metric: row.metric.name(),
            runs: row.runs,
            requests_per_run: row.requests_per_run,
            mean: row.mean,
            sd_across_runs: row.standard_deviation_across_runs,
            sd_per_request: row.standard_deviation_per_request,
            ci_low: row.interval.low,
            ci_high: row.interval.high,
            interval: row.method.name(),
            closed_form: row.closed_form,
            z_score: row.z_score,
        })
        .collect()
}

/// `summary.csv`.
pub fn summary_csv(summary: &[MetricSummary]) -> Vec<u8> {
    super::csv::to_csv(summary_rows(summary))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_numbers_use_an_exponent() {
        assert_eq!(decimal(0.0101), "0.0101");
        assert_eq!(decimal(0.0), "0");
        assert_eq!(decimal(1e-20), "1e-20");
        assert_eq!(decimal(-2.5e-7), "-2.5e-7");
        assert_eq!(decimal(1.5), "1.5");
    }
}
