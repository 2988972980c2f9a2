//! `summary.csv`: per (p, server, metric) the mean over runs, its spread, the 95% interval,
//! the closed-form expectation and the z-score, as CSV bytes.

use serde::{Serialize, Serializer};

use crate::model::article::summary::MetricSummary;
use crate::report::format;

/// One row of `summary.csv`. Every value is per request; rates are shares of requests
/// (0.0101 is 1.01%). Numbers are the shortest form that reads back as the same `f64`, in
/// scientific notation below 1e-4 (see [`crate::report::format::decimal`]).
#[derive(Debug, Serialize)]
pub struct SummaryRow {
    /// The probability that a response (ACK) is lost, written as in `results.csv`.
    #[serde(serialize_with = "format::serialize_shortest")]
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
    #[serde(serialize_with = "format::serialize_decimal")]
    pub mean: f64,
    /// Sample standard deviation (divisor `runs - 1`) of the runs' values; empty for one run.
    #[serde(serialize_with = "optional")]
    pub sd_across_runs: Option<f64>,
    /// Sample standard deviation of the metric over all requests pooled (per request).
    #[serde(serialize_with = "format::serialize_decimal")]
    pub sd_per_request: f64,
    /// Lower end of the 95% interval for the expectation (per request).
    #[serde(serialize_with = "format::serialize_decimal")]
    pub ci_low: f64,
    /// Upper end of the 95% interval for the expectation (per request).
    #[serde(serialize_with = "format::serialize_decimal")]
    pub ci_high: f64,
    /// How the interval was computed: `wilson` (score interval on the count pooled over all
    /// runs, for rates), `student_t` (t interval across the runs' values, `runs - 1` degrees of
    /// freedom, cut to the possible values, for means with 2+ runs) or `score` (score interval
    /// on the counts of a single run, for means; see
    /// [`crate::model::article::summary::count_score_interval`]).
    pub interval: &'static str,
    /// The closed-form expectation per request (see docs/closed-forms.md).
    #[serde(serialize_with = "format::serialize_decimal")]
    pub closed_form: f64,
    /// `(mean - closed_form) / sqrt(closed-form variance / (runs · requests_per_run))`: how many
    /// standard errors the observation lies from the expectation. Empty when the closed-form
    /// variance is 0 (the metric cannot vary at this p, e.g. the key server's double charges).
    #[serde(serialize_with = "optional")]
    pub z_score: Option<f64>,
}

fn optional<S: Serializer>(value: &Option<f64>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(value) => format::serialize_decimal(value, serializer),
        None => serializer.serialize_str(""),
    }
}

/// The rows of `summary.csv`, in the order of [`crate::model::article::summary::summarise`].
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
    format::to_csv(summary_rows(summary))
}
