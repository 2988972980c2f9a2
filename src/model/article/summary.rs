//! The statistics across runs: per (p, server, metric) the mean, its spread, a 95% interval,
//! the closed-form expectation and the z-score of the observation against it.

use super::closed_form::{self, Moments};
use super::{ArticleModel, ArticleResults, PointResult};
use crate::model::article::server::ServerKind;
use crate::stats::{self, Interval};

/// A per-request quantity the summary reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Share of requests charged two or more times (a proportion).
    DoubleChargeRate,
    /// Charges beyond one per request, per request (a mean).
    ExtraChargesPerRequest,
    /// Duplicates answered from the key store without charging, per request (a mean).
    PreventedDuplicatesPerRequest,
    /// Share of requests that used every retry (a proportion).
    RetriesExhaustedRate,
    /// Deliveries the server received per request, the retry amplification (a mean).
    DeliveriesPerRequest,
}

impl Metric {
    /// Every metric, in the order they are reported.
    pub const ALL: [Metric; 5] = [
        Metric::DoubleChargeRate,
        Metric::ExtraChargesPerRequest,
        Metric::PreventedDuplicatesPerRequest,
        Metric::RetriesExhaustedRate,
        Metric::DeliveriesPerRequest,
    ];

    /// The name used in `summary.csv`.
    pub fn name(self) -> &'static str {
        match self {
            Metric::DoubleChargeRate => "double_charge_rate",
            Metric::ExtraChargesPerRequest => "extra_charges_per_request",
            Metric::PreventedDuplicatesPerRequest => "prevented_duplicates_per_request",
            Metric::RetriesExhaustedRate => "retries_exhausted_rate",
            Metric::DeliveriesPerRequest => "deliveries_per_request",
        }
    }

    /// Whether the metric is a share of requests (a 0/1 indicator per request).
    pub fn is_proportion(self) -> bool {
        matches!(
            self,
            Metric::DoubleChargeRate | Metric::RetriesExhaustedRate
        )
    }

    /// The closed-form mean and variance per request for `server` (see [`closed_form`]).
    pub fn closed_form(self, server: ServerKind, p: f64, max_retries: u32) -> Moments {
        let keyed = server == ServerKind::IdempotencyKey;
        match self {
            Metric::DoubleChargeRate if keyed => Moments::constant(0.0),
            Metric::DoubleChargeRate => closed_form::double_charged(p, max_retries),
            Metric::ExtraChargesPerRequest if keyed => Moments::constant(0.0),
            Metric::ExtraChargesPerRequest => closed_form::retries(p, max_retries),
            Metric::PreventedDuplicatesPerRequest if keyed => closed_form::retries(p, max_retries),
            Metric::PreventedDuplicatesPerRequest => Moments::constant(0.0),
            Metric::RetriesExhaustedRate => closed_form::retries_exhausted(p, max_retries),
            Metric::DeliveriesPerRequest => closed_form::deliveries(p, max_retries),
        }
    }

    /// The per-request sum and sum of squares of the metric in one run, from its histogram
    /// and server tally (exact integers).
    fn sums(self, point: &PointResult, server: ServerKind) -> (u128, u128) {
        let tally = point.server(server);
        let histogram = &point.attempts;
        let moments = |value: &dyn Fn(u32) -> u128| -> (u128, u128) {
            histogram.iter().fold((0, 0), |(sum, squares), (a, n)| {
                let v = value(a);
                (sum + v * u128::from(n), squares + v * v * u128::from(n))
            })
        };
        let count = |count: u64| (u128::from(count), u128::from(count));
        let keyed = server == ServerKind::IdempotencyKey;
        let retries = |a: u32| u128::from(a - 1);
        match self {
            Metric::DoubleChargeRate => count(tally.double_charged_requests),
            Metric::RetriesExhaustedRate => count(histogram.retries_exhausted()),
            Metric::ExtraChargesPerRequest if keyed => (0, 0),
            Metric::ExtraChargesPerRequest => moments(&retries),
            Metric::PreventedDuplicatesPerRequest if !keyed => (0, 0),
            Metric::PreventedDuplicatesPerRequest => moments(&retries),
            Metric::DeliveriesPerRequest => moments(&|a| u128::from(a)),
        }
    }
}

/// How a 95% interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalMethod {
    /// Wilson score interval on the count pooled over all runs (proportions).
    Wilson,
    /// Student-t interval across the runs' means, `runs - 1` degrees of freedom (means, 2+ runs).
    StudentT,
    /// Normal interval from the per-request standard deviation (means, a single run).
    Normal,
}

impl IntervalMethod {
    /// The name used in `summary.csv`.
    pub fn name(self) -> &'static str {
        match self {
            IntervalMethod::Wilson => "wilson",
            IntervalMethod::StudentT => "student_t",
            IntervalMethod::Normal => "normal",
        }
    }
}

/// The statistics of one metric of one server at one p, over all runs.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricSummary {
    /// The ACK-loss probability.
    pub ack_loss: f64,
    /// The server design.
    pub server: ServerKind,
    /// The quantity.
    pub metric: Metric,
    /// Replications pooled.
    pub runs: u32,
    /// Requests per run.
    pub requests_per_run: u64,
    /// The mean over runs of each run's per-request value (runs are of equal size, so this is
    /// also the value pooled over every request).
    pub mean: f64,
    /// Sample standard deviation of the runs' values; `None` with a single run.
    pub standard_deviation_across_runs: Option<f64>,
    /// Sample standard deviation of the metric across all requests pooled.
    pub standard_deviation_per_request: f64,
    /// The 95% interval for the expectation.
    pub interval: Interval,
    /// How [`Self::interval`] was computed.
    pub method: IntervalMethod,
    /// The closed-form expectation per request.
    pub closed_form: f64,
    /// `(mean - closed_form) / sqrt(closed-form variance / (runs · requests))`; `None` when the
    /// closed-form variance is 0 (the model says the metric cannot vary, so there is no scale).
    pub z_score: Option<f64>,
}

/// Every [`MetricSummary`] of an experiment: distinct p in the order given (a p listed twice
/// is reported once, from its first position), then servers, then metrics.
pub fn summarise(results: &ArticleResults) -> Vec<MetricSummary> {
    let model = &results.model;
    let per_run = model.ack_loss.len();
    let mut rows = Vec::new();
    for (index, &p) in model.ack_loss.iter().enumerate() {
        if model.ack_loss[..index]
            .iter()
            .any(|q| q.to_bits() == p.to_bits())
        {
            continue;
        }
        let points: Vec<&PointResult> = (0..model.runs as usize)
            .map(|run| &results.points[run * per_run + index])
            .collect();
        for server in ServerKind::ALL {
            for metric in Metric::ALL {
                rows.push(summarise_metric(model, p, &points, server, metric));
            }
        }
    }
    rows
}

fn summarise_metric(
    model: &ArticleModel,
    p: f64,
    points: &[&PointResult],
    server: ServerKind,
    metric: Metric,
) -> MetricSummary {
    let requests = model.requests as f64;
    let sums: Vec<(u128, u128)> = points.iter().map(|p| metric.sums(p, server)).collect();
    let run_means: Vec<f64> = sums.iter().map(|&(sum, _)| sum as f64 / requests).collect();
    let total: u128 = sums.iter().map(|&(sum, _)| sum).sum();
    let total_squares: u128 = sums.iter().map(|&(_, squares)| squares).sum();
    let trials = model.requests as u128 * points.len() as u128;
    let n = trials as f64;
    let mean = total as f64 / n;
    // Σ(x - x̄)² = Σx² - (Σx)²/N, in integers as far as possible.
    let squares = total_squares as f64 - (total as f64) * mean;
    let per_request = if trials > 1 {
        (squares.max(0.0) / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    let across_runs = stats::sample_standard_deviation(&run_means);
    let (interval, method) = if metric.is_proportion() {
        (
            stats::wilson(total as u64, trials as u64),
            IntervalMethod::Wilson,
        )
    } else if points.len() >= 2 {
        (stats::t_interval(&run_means), IntervalMethod::StudentT)
    } else {
        (
            stats::normal_interval(mean, per_request / n.sqrt()),
            IntervalMethod::Normal,
        )
    };
    let expected = metric.closed_form(server, p, model.max_retries);
    let z_score =
        (expected.variance > 0.0).then(|| (mean - expected.mean) / (expected.variance / n).sqrt());
    MetricSummary {
        ack_loss: p,
        server,
        metric,
        runs: points.len() as u32,
        requests_per_run: model.requests,
        mean,
        standard_deviation_across_runs: across_runs,
        standard_deviation_per_request: per_request,
        interval,
        method,
        closed_form: expected.mean,
        z_score,
    }
}

/// The summary of `metric` for `server` at `p` (by bits), if `rows` has it.
pub fn find(
    rows: &[MetricSummary],
    p: f64,
    server: ServerKind,
    metric: Metric,
) -> Option<&MetricSummary> {
    rows.iter().find(|row| {
        row.ack_loss.to_bits() == p.to_bits() && row.server == server && row.metric == metric
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::article::AttemptHistogram;

    /// One run of 10 requests by hand: attempts 1 ×6, 2 ×3, 4 ×1 (max_retries 3).
    fn hand_made(runs: u32) -> ArticleResults {
        let model = ArticleModel {
            ack_loss: vec![0.5],
            requests: 10,
            max_retries: 3,
            seed: 0,
            runs,
        };
        let mut attempts = AttemptHistogram::new(3);
        attempts.record(1, 6);
        attempts.record(2, 3);
        attempts.record(4, 1);
        let servers = ServerKind::ALL.map(|kind| attempts.server_tally(kind));
        let points = (0..runs)
            .map(|run| PointResult {
                run,
                ack_loss: 0.5,
                attempts: attempts.clone(),
                servers,
            })
            .collect();
        ArticleResults { model, points }
    }

    #[test]
    fn one_run_uses_wilson_and_the_per_request_spread() {
        let rows = summarise(&hand_made(1));
        assert_eq!(rows.len(), 10);
        let plain = ServerKind::NonIdempotent;
        let double = find(&rows, 0.5, plain, Metric::DoubleChargeRate).unwrap();
        assert_eq!(double.mean, 0.4);
        assert_eq!(double.method, IntervalMethod::Wilson);
        assert_eq!(double.interval, stats::wilson(4, 10));
        assert_eq!(double.closed_form, 0.5);
        // (0.4 - 0.5) / sqrt(0.25 / 10)
        assert!((double.z_score.unwrap() + 0.1 / 0.025f64.sqrt()).abs() < 1e-12);
        assert_eq!(double.standard_deviation_across_runs, None);

        // Extra charges: 0 ×6, 1 ×3, 3 ×1 → mean 0.6, Σ(x - 0.6)² = 6·0.36 + 3·0.16 + 5.76 = 8.4.
        let extra = find(&rows, 0.5, plain, Metric::ExtraChargesPerRequest).unwrap();
        assert!((extra.mean - 0.6).abs() < 1e-12);
        let sd = (8.4f64 / 9.0).sqrt();
        assert!((extra.standard_deviation_per_request - sd).abs() < 1e-12);
        assert_eq!(extra.method, IntervalMethod::Normal);
        assert!(
            (extra.interval.high - (0.6 + 1.959963984540054 * sd / 10f64.sqrt())).abs() < 1e-12
        );
        // 0.5 + 0.25 + 0.125
        assert_eq!(extra.closed_form, 0.875);

        let keyed = ServerKind::IdempotencyKey;
        let none = find(&rows, 0.5, keyed, Metric::ExtraChargesPerRequest).unwrap();
        assert_eq!(
            (none.mean, none.closed_form, none.z_score),
            (0.0, 0.0, None)
        );
        let absorbed = find(&rows, 0.5, keyed, Metric::PreventedDuplicatesPerRequest).unwrap();
        assert!((absorbed.mean - 0.6).abs() < 1e-12);
        let exhausted = find(&rows, 0.5, keyed, Metric::RetriesExhaustedRate).unwrap();
        assert_eq!((exhausted.mean, exhausted.closed_form), (0.1, 0.125));
        let deliveries = find(&rows, 0.5, keyed, Metric::DeliveriesPerRequest).unwrap();
        assert!((deliveries.mean - 1.6).abs() < 1e-12);
    }

    #[test]
    fn several_runs_use_student_t_across_runs() {
        let rows = summarise(&hand_made(3));
        let extra = find(
            &rows,
            0.5,
            ServerKind::NonIdempotent,
            Metric::ExtraChargesPerRequest,
        )
        .unwrap();
        assert_eq!(extra.method, IntervalMethod::StudentT);
        // Identical runs: no spread across runs, a zero-width interval at the mean.
        assert_eq!(extra.standard_deviation_across_runs, Some(0.0));
        assert_eq!(extra.interval.low, extra.interval.high);
        let double = find(
            &rows,
            0.5,
            ServerKind::NonIdempotent,
            Metric::DoubleChargeRate,
        );
        assert_eq!(double.unwrap().interval, stats::wilson(12, 30));
    }
}
