//! `summary.csv`: per (p, server, metric) the mean over runs, its spread, the 95% interval,
//! the closed-form expectation and the z-score, as CSV bytes.

use serde::{Serialize, Serializer};

use crate::model::article::summary::{IntervalMethod, MetricSummary};
use crate::report::format;
use crate::report::summary::{Metric, Row, Summary};
use engine::counters::Column;
use engine::replications::{Estimate, Method};

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
    /// Standard error of the mean over runs, `sd_across_runs / √runs` (per request); empty
    /// for one run.
    #[serde(serialize_with = "optional")]
    pub se_across_runs: Option<f64>,
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
            se_across_runs: row
                .standard_deviation_across_runs
                .map(|sd| sd / f64::from(row.runs).sqrt()),
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

/// The columns that name a cell of the article's estimates in the shared summary shape.
pub const CELL_COLUMNS: [Column; 2] = [
    Column {
        name: "p",
        unit: "probability",
        doc: &["The ACK-loss probability."],
    },
    Column {
        name: "server",
        unit: "",
        doc: &["`non_idempotent` or `idempotency_key`."],
    },
];

/// The article's estimates in the shared summary shape ([`Summary`]: what a sweep charts and
/// `report.html` shows): cells (p, server), every metric with its mean, spread and interval as
/// `summary.csv` has them; no paired differences (the two servers see the same deliveries, so
/// their difference is the metric's own).
pub fn shared(summary: &[MetricSummary]) -> Summary {
    let rows = summary
        .iter()
        .map(|row| {
            let runs = f64::from(row.runs);
            Row {
                cell: vec![
                    format::shortest(row.ack_loss),
                    row.server.name().to_string(),
                ],
                metric: Metric {
                    column: row.metric.column(),
                    kind: row.metric.kind(),
                },
                estimate: Estimate {
                    runs: row.runs,
                    mean: row.mean,
                    sd: row.standard_deviation_across_runs,
                    se: row
                        .standard_deviation_across_runs
                        .map(|sd| sd / runs.sqrt()),
                    interval: Some(row.interval),
                    method: match row.method {
                        IntervalMethod::Wilson => Method::Wilson,
                        IntervalMethod::StudentT => Method::StudentT,
                        IntervalMethod::Score => Method::Score,
                    },
                },
            }
        })
        .collect();
    Summary {
        cell_columns: CELL_COLUMNS.to_vec(),
        rows,
        differences: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::article::{ArticleModel, Engine, simulate, summary::summarise};

    /// The shared shape holds `summary.csv`'s numbers, cell by cell, and each standard error is
    /// the standard deviation across runs over √runs.
    #[test]
    fn the_shared_shape_holds_the_summary_csv_numbers() {
        let model = ArticleModel {
            ack_loss: vec![0.1, 0.3],
            requests: 500,
            max_retries: 3,
            seed: 7,
            runs: 4,
        };
        let results = simulate(&model, Engine::Fast { threads: 1 }, &engine::Silent).unwrap();
        let own = summarise(&results);
        let shared = shared(&own);
        assert_eq!(shared.rows.len(), own.len());
        assert!(shared.differences.is_empty());
        for (row, mine) in shared.rows.iter().zip(&own) {
            assert_eq!(
                row.cell,
                [
                    format::shortest(mine.ack_loss),
                    mine.server.name().to_string()
                ]
            );
            assert_eq!(row.metric.column.name, mine.metric.name());
            assert_eq!(row.estimate.mean, mine.mean);
            assert_eq!(row.estimate.interval, Some(mine.interval));
            let sd = mine.standard_deviation_across_runs.unwrap();
            assert_eq!(row.estimate.se, Some(sd / 2.0), "{:?}", mine.metric);
        }
        // summary.csv's standard error is the same: sd over √4 runs.
        for (csv, mine) in summary_rows(&own).iter().zip(&own) {
            let sd = mine.standard_deviation_across_runs.unwrap();
            assert_eq!(csv.se_across_runs, Some(sd / 2.0));
        }
        assert_eq!(shared.rows[0].cell, ["0.1", "non_idempotent"]);
    }
}
