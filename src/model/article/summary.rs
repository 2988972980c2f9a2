//! The statistics across runs: per (p, server, metric) the mean, its spread, a 95% interval,
//! the closed-form expectation and the z-score of the observation against it.

use super::closed_form::{self, Moments};
use super::{ArticleModel, ArticleResults, PointResult};
use crate::model::article::server::ServerKind;
use engine::stats::{self, Interval};

engine::metrics! {
    /// A per-request quantity the summary reports.
    pub enum Metric {
        /// Share of requests charged two or more times.
        DoubleChargeRate = "double_charge_rate": proportion "requests",
        /// Charges beyond one per request, per request.
        ExtraChargesPerRequest = "extra_charges_per_request": mean "charges per request",
        /// Duplicates answered from the key store without charging, per request.
        PreventedDuplicatesPerRequest = "prevented_duplicates_per_request": mean "deliveries per request",
        /// Share of requests that used every retry.
        RetriesExhaustedRate = "retries_exhausted_rate": proportion "requests",
        /// Deliveries the server received per request, the retry amplification.
        DeliveriesPerRequest = "deliveries_per_request": mean "deliveries per request",
    }
}

impl Metric {
    /// Whether the metric is a share of requests (a 0/1 indicator per request).
    pub fn is_proportion(self) -> bool {
        self.kind() == engine::metric::Kind::Proportion
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

impl Metric {
    /// The smallest and largest value the metric can take for one request, known from the
    /// server's design and the retry limit alone (not from p): `(0, 1)` for the rates, `(0, R)`
    /// for retries, `(1, R + 1)` for deliveries, and `(0, 0)` for what a design never does.
    pub fn bounds(self, server: ServerKind, max_retries: u32) -> (u128, u128) {
        let keyed = server == ServerKind::IdempotencyKey;
        let retries = u128::from(max_retries);
        match self {
            Metric::DoubleChargeRate | Metric::RetriesExhaustedRate => (0, 1),
            Metric::ExtraChargesPerRequest if keyed => (0, 0),
            Metric::PreventedDuplicatesPerRequest if !keyed => (0, 0),
            Metric::ExtraChargesPerRequest | Metric::PreventedDuplicatesPerRequest => (0, retries),
            Metric::DeliveriesPerRequest => (1, retries + 1),
        }
    }
}

/// The 95% score interval for the mean of a per-request count that lies in `[smallest,
/// largest]`, from `total` over `trials` requests whose per-request sample standard deviation
/// is `standard_deviation`.
///
/// Each request contributes `value - smallest` of `largest - smallest` possible units, so the
/// run is read as `total - smallest · trials` successes out of `trials · (largest - smallest)`:
/// Wilson's score interval for that share ([`stats::score_interval`]), with the trials divided
/// by the dispersion `φ = s² / ((x̄ - smallest)(largest - x̄) / (largest - smallest))`, the
/// observed variance over that of a binomial count with the same mean (at least 1, and 1 when
/// every request sits at one end). Unlike `x̄ ± z s / √N` it does not collapse to a point when
/// no request (or every request) moved away from an end, and it stays inside the possible
/// values; for large counts it approaches `x̄ ± z s / √N`. A count that cannot vary (`largest
/// = smallest`) gets the point itself.
pub fn count_score_interval(
    total: u128,
    trials: u128,
    (smallest, largest): (u128, u128),
    standard_deviation: f64,
) -> Interval {
    let n = trials as f64;
    if largest == smallest {
        let value = smallest as f64;
        return Interval {
            low: value,
            high: value,
        };
    }
    let width = (largest - smallest) as f64;
    let above_smallest = (total - smallest * trials) as f64 / n;
    let below_largest = (largest * trials - total) as f64 / n;
    let binomial_variance = above_smallest * below_largest / width;
    let dispersion = if binomial_variance > 0.0 {
        (standard_deviation * standard_deviation / binomial_variance).max(1.0)
    } else {
        1.0
    };
    let share = (total - smallest * trials) as f64 / (trials * (largest - smallest)) as f64;
    let interval = stats::score_interval(share, n * width / dispersion);
    let value = |share: f64| smallest as f64 + width * share;
    Interval {
        low: value(interval.low),
        high: value(interval.high),
    }
}

/// How a 95% interval was computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalMethod {
    /// Wilson score interval on the count pooled over all runs (proportions).
    Wilson,
    /// Student-t interval across the runs' means, `runs - 1` degrees of freedom, cut to the
    /// values a request can take (means, 2+ runs).
    StudentT,
    /// Score interval on the counts of a single run (means): the run's total, above the
    /// smallest value a request can contribute, as successes out of `requests · (largest -
    /// smallest)` possible, with the trials divided by the observed dispersion (at least 1);
    /// see [`count_score_interval`].
    Score,
}

impl IntervalMethod {
    /// The name used in `summary.csv`.
    pub fn name(self) -> &'static str {
        match self {
            IntervalMethod::Wilson => "wilson",
            IntervalMethod::StudentT => "student_t",
            IntervalMethod::Score => "score",
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
    let mut seen = std::collections::HashSet::new();
    for (index, &p) in model.ack_loss.iter().enumerate() {
        if !seen.insert(p.to_bits()) {
            continue;
        }
        let points: Vec<&PointResult> = (0..model.runs as usize)
            .map(|run| &results.points[run * per_run + index])
            .collect();
        for server in ServerKind::ALL {
            for &metric in Metric::ALL {
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
    let bounds = metric.bounds(server, model.max_retries);
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
        // The expectation lies between the smallest and largest possible values, so the part of
        // a t interval beyond them (a few runs with a large spread) can be cut off without
        // changing its coverage.
        let t = stats::t_interval(&run_means);
        let (smallest, largest) = (bounds.0 as f64, bounds.1 as f64);
        let interval = Interval {
            low: t.low.clamp(smallest, largest),
            high: t.high.clamp(smallest, largest),
        };
        (interval, IntervalMethod::StudentT)
    } else {
        (
            count_score_interval(total, trials, bounds, per_request),
            IntervalMethod::Score,
        )
    };
    let expected = metric.closed_form(server, p, model.max_retries);
    let z_score = (expected.variance > 0.0).then(|| {
        // Measured from the end the expectation is nearer, so that a mean close to its
        // largest value is not the difference of two nearly equal numbers.
        let deviation = if expected.mean <= expected.mean_below_maximum {
            mean - expected.mean
        } else {
            let observed_below_maximum = (bounds.1 * trials - total) as f64 / n;
            expected.mean_below_maximum - observed_below_maximum
        };
        deviation / (expected.variance / n).sqrt()
    });
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

/// Rows per p in [`summarise`]'s output: every server, every metric.
pub const ROWS_PER_P: usize = ServerKind::ALL.len() * Metric::ALL.len();

/// [`summarise`]'s rows cut into one slice per p (in order), for lookups that do not search
/// every row.
pub fn by_p(rows: &[MetricSummary]) -> std::slice::Chunks<'_, MetricSummary> {
    rows.chunks(ROWS_PER_P)
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
        assert_eq!(extra.method, IntervalMethod::Score);
        // The score interval's ends are the roots of (0.6 - μ)² = z² φ μ (3 - μ) / (3 · 10):
        // values 0..=3, a binomial-like variance 0.6 · 2.4 / 3 = 0.48 and the observed one
        // 8.4 / 9, so φ = (8.4 / 9) / 0.48.
        let dispersion = (8.4 / 9.0) / 0.48;
        let z2 = 1.959963984540054f64.powi(2);
        for end in [extra.interval.low, extra.interval.high] {
            let score = (0.6 - end).powi(2) - z2 * dispersion * end * (3.0 - end) / 30.0;
            assert!(score.abs() < 1e-12, "{end}: {score}");
        }
        assert!(extra.interval.low < 0.6 && 0.6 < extra.interval.high);
        assert!(extra.interval.low > 0.0 && extra.interval.high < 3.0);
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

    /// One run of `requests` requests at `p`, every request with the same attempts.
    fn all_alike(p: f64, requests: u64, max_retries: u32, attempts_each: u32) -> ArticleResults {
        let mut attempts = AttemptHistogram::new(max_retries);
        attempts.record(attempts_each, requests);
        let servers = ServerKind::ALL.map(|kind| attempts.server_tally(kind));
        ArticleResults {
            model: ArticleModel {
                ack_loss: vec![p],
                requests,
                max_retries,
                seed: 0,
                runs: 1,
            },
            points: vec![PointResult {
                run: 0,
                ack_loss: p,
                attempts,
                servers,
            }],
        }
    }

    /// At p = 1 - 2^-53 with R = 3, 2,000 requests that all used every retry lie a tiny
    /// distance above the expectation. The references are exact: Python's `fractions` for
    /// the closed forms from the exact binary p, then 50-digit decimals for the square root:
    ///
    /// ```python
    /// p = F(1) - F(1, 2**53); q = 1 - p; R = 3; N = 2000
    /// probs = [p**k * q for k in range(R)] + [p**R]
    /// mean = sum(k * pk for k, pk in enumerate(probs))
    /// var = sum(pk * (k - mean)**2 for k, pk in enumerate(probs))
    /// z_extra = (R - mean) / sqrt(var / N)                # observed mean is exactly R
    /// z_exhausted = (1 - p**R) / sqrt(p**R (1 - p**R) / N)
    /// ```
    ///
    /// `observed - expected` and `E[X²] - E[X]²` in floating point were 6% off here.
    #[test]
    fn z_scores_stay_accurate_as_p_approaches_one() {
        let p = 1.0 - f64::EPSILON / 2.0;
        let rows = summarise(&all_alike(p, 2_000, 3, 4));
        let plain = ServerKind::NonIdempotent;
        for (metric, expected) in [
            (Metric::ExtraChargesPerRequest, 7.556_267_870_025_486e-7),
            (Metric::DeliveriesPerRequest, 7.556_267_870_025_486e-7),
            (Metric::RetriesExhaustedRate, 8.161_702_118_890_974e-7),
            (Metric::DoubleChargeRate, 4.712_160_915_387_242e-7),
        ] {
            let z = find(&rows, p, plain, metric).unwrap().z_score.unwrap();
            assert!(
                ((z - expected) / expected).abs() < 1e-12,
                "{}: z = {z}, exactly {expected}",
                metric.name()
            );
        }
    }

    /// A run in which no request retried still gets an interval that reaches above 0: the
    /// score interval's upper end solves μ² = z² μ (3 - μ) / (3 N), μ = (z²/N) / (1 + z²/3N).
    #[test]
    fn a_run_without_retries_does_not_collapse_to_zero() {
        let (plain, keyed) = (ServerKind::NonIdempotent, ServerKind::IdempotencyKey);
        let extra_charges = Metric::ExtraChargesPerRequest;
        let rows = summarise(&all_alike(0.0005, 2_000, 3, 1));
        let extra = find(&rows, 0.0005, plain, extra_charges).unwrap();
        let z2 = 1.959963984540054f64.powi(2);
        let high = (z2 / 2000.0) / (1.0 + z2 / 6000.0);
        assert_eq!(extra.interval.low, 0.0);
        assert!(
            (extra.interval.high - high).abs() < 1e-15,
            "{:?}",
            extra.interval
        );
        // A request charged at most once can never be above 0 with the key.
        let with_key = find(&rows, 0.0005, keyed, extra_charges).unwrap();
        assert_eq!((with_key.interval.low, with_key.interval.high), (0.0, 0.0));
        // Every request at the top (p = 1): the interval ends exactly at R + 1 deliveries.
        let rows = summarise(&all_alike(1.0, 2_000, 3, 4));
        let interval = find(&rows, 1.0, plain, Metric::DeliveriesPerRequest)
            .unwrap()
            .interval;
        assert_eq!(interval.high, 4.0);
        assert!(interval.low < 4.0 && interval.low > 3.99, "{interval:?}");
    }

    #[test]
    fn several_runs_use_student_t_across_runs() {
        let rows = summarise(&hand_made(3));
        let plain = ServerKind::NonIdempotent;
        let extra = find(&rows, 0.5, plain, Metric::ExtraChargesPerRequest).unwrap();
        assert_eq!(extra.method, IntervalMethod::StudentT);
        // Identical runs: no spread across runs, a zero-width interval at the mean.
        assert_eq!(extra.standard_deviation_across_runs, Some(0.0));
        assert_eq!(extra.interval.low, extra.interval.high);
        let double = find(&rows, 0.5, plain, Metric::DoubleChargeRate).unwrap();
        assert_eq!(double.interval, stats::wilson(12, 30));
    }
}
