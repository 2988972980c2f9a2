//! The network delay of one message: any of the timeline model's distributions, or a normal
//! distribution folded at 0 (`|N(mean, sd)|`, the AWS simulator's `abs(normalvariate(10, 2))`),
//! each sampled by inverse transform from one uniform draw.
//!
//! The folded normal lives here rather than in the timeline's
//! [`Distribution`](crate::model::timeline::Distribution) so that the timeline model and its
//! scenario files are untouched; it could move there when both models share one list.

use crate::model::timeline::Distribution;

/// The delay of one message, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Delay {
    /// One of the timeline model's distributions (fixed, uniform, exponential, log-normal).
    Timeline(Distribution),
    /// `|X|` with `X ~ Normal(mean_ms, sd_ms)`: a normal folded at 0.
    FoldedNormal {
        /// The mean of the normal before folding (ms, at least 0).
        mean_ms: f64,
        /// Its standard deviation (ms, at least 0).
        sd_ms: f64,
    },
}

impl Delay {
    /// The delay for one raw 64-bit draw of the stream.
    ///
    /// The timeline distributions take numpy's unit draw `u = (raw >> 11) · 2^-53` in
    /// `[0, 1)`; the folded normal takes the midpoint `u = ((raw >> 11) + 0.5) · 2^-53` in
    /// `(0, 1)`, so that no draw reaches the normal's infinite 0 or 1 quantile. (It is passed
    /// on as `2u − 1 = ((raw >> 11) − 2^52 + 0.5) · 2^-52`, which is exact in `f64`, whereas
    /// `u` itself would round up to 1 for the highest draw.)
    pub fn sample(&self, raw: u64) -> f64 {
        match *self {
            Delay::Timeline(distribution) => distribution.quantile(crate::rng::unit_f64(raw)),
            Delay::FoldedNormal { mean_ms, sd_ms } => {
                let centred = ((raw >> 11) as i64 - (1i64 << 52)) as f64 + 0.5;
                folded_normal_at(mean_ms, sd_ms, centred * (1.0 / (1u64 << 52) as f64))
            }
        }
    }

    /// Why the parameters are unusable, as `(key, value, reason)`; `None` when they are fine.
    pub fn problem(&self) -> Option<(&'static str, f64, String)> {
        match *self {
            Delay::Timeline(distribution) => distribution.problem(),
            Delay::FoldedNormal { mean_ms, sd_ms } => [("mean_ms", mean_ms), ("sd_ms", sd_ms)]
                .into_iter()
                .find(|(_, value)| !(*value >= 0.0 && value.is_finite()))
                .map(|(key, value)| {
                    (
                        key,
                        value,
                        "must be a finite number of ms, at least 0".to_string(),
                    )
                }),
        }
    }

    /// A short description for chart subtitles: `|N(10, 2)| ms`, `fixed 10 ms`.
    pub fn describe(&self) -> String {
        match *self {
            Delay::Timeline(Distribution::Fixed { ms }) => format!("fixed {ms} ms"),
            Delay::Timeline(distribution) => distribution.describe(),
            Delay::FoldedNormal { mean_ms, sd_ms } => format!("|N({mean_ms}, {sd_ms})| ms"),
        }
    }
}

/// The value `x ~ Normal(mean, sd)` takes at quantile `u` in `(0, 1)`, folded at 0: `|x|`.
/// (This is the inverse transform of the normal followed by the fold, which has the folded
/// normal's distribution; it is not the folded normal's own quantile function.)
pub fn folded_normal_quantile(mean: f64, sd: f64, u: f64) -> f64 {
    folded_normal_at(mean, sd, 2.0 * u - 1.0)
}

/// [`folded_normal_quantile`] at `u = (1 + centred) / 2`, `centred` in `(−1, 1)`.
fn folded_normal_at(mean: f64, sd: f64, centred: f64) -> f64 {
    let z = std::f64::consts::SQRT_2 * statrs::function::erf::erf_inv(centred);
    (mean + sd * z).abs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SeedSequence;

    fn draws(count: usize, delay: Delay) -> Vec<f64> {
        let mut stream = SeedSequence::new(7).pcg_state();
        (0..count)
            .map(|_| delay.sample(stream.next_u64()))
            .collect()
    }

    /// `scipy.stats.norm.ppf` at 0.5, 0.975 and 0.025 for N(10, 2): 10, 13.919928, 6.080072.
    #[test]
    fn the_normal_quantiles_match_scipy() {
        let close = |a: f64, b: f64| assert!((a - b).abs() < 1e-6, "{a} vs {b}");
        close(folded_normal_quantile(10.0, 2.0, 0.5), 10.0);
        close(folded_normal_quantile(10.0, 2.0, 0.975), 13.919_927_969);
        close(folded_normal_quantile(10.0, 2.0, 0.025), 6.080_072_031);
        // Folded: N(0, 1) at 0.025 is -1.959964, folded to +1.959964.
        close(folded_normal_quantile(0.0, 1.0, 0.025), 1.959_963_985);
    }

    /// E|X| for X ~ N(0, 1) is sqrt(2 / pi) = 0.797885 and Var|X| = 1 - 2 / pi = 0.363380;
    /// 200,000 draws put the sample mean within 4 standard errors (0.0054) of it.
    #[test]
    fn the_folded_normal_has_the_closed_form_mean() {
        let values = draws(
            200_000,
            Delay::FoldedNormal {
                mean_ms: 0.0,
                sd_ms: 1.0,
            },
        );
        assert!(values.iter().all(|&v| v >= 0.0 && v.is_finite()));
        let mean = crate::stats::mean(&values);
        let expected = (2.0 / std::f64::consts::PI).sqrt();
        let standard_error = ((1.0 - 2.0 / std::f64::consts::PI) / 200_000f64).sqrt();
        assert!(
            (mean - expected).abs() < 4.0 * standard_error,
            "{mean} vs {expected}"
        );
    }

    /// N(10, 2): mean 10 and standard deviation 2 within 4 standard errors (the fold at 0 is
    /// 5 standard deviations away and changes nothing measurable).
    #[test]
    fn the_aws_network_delay_has_mean_10_and_sd_2() {
        let values = draws(
            200_000,
            Delay::FoldedNormal {
                mean_ms: 10.0,
                sd_ms: 2.0,
            },
        );
        let mean = crate::stats::mean(&values);
        let sd = crate::stats::sample_standard_deviation(&values).unwrap();
        let n = values.len() as f64;
        assert!((mean - 10.0).abs() < 4.0 * 2.0 / n.sqrt(), "{mean}");
        // The sample sd's standard error is about sd / sqrt(2n).
        assert!((sd - 2.0).abs() < 4.0 * 2.0 / (2.0 * n).sqrt(), "{sd}");
    }

    #[test]
    fn extreme_draws_stay_finite() {
        let normal = Delay::FoldedNormal {
            mean_ms: 10.0,
            sd_ms: 2.0,
        };
        assert!(normal.sample(0).is_finite());
        assert!(normal.sample(u64::MAX).is_finite());
        assert!(normal.sample(0) > 0.0 && normal.sample(u64::MAX) > 10.0);
    }

    #[test]
    fn bad_parameters_are_named() {
        let (key, value, _) = Delay::FoldedNormal {
            mean_ms: 10.0,
            sd_ms: -2.0,
        }
        .problem()
        .unwrap();
        assert_eq!((key, value), ("sd_ms", -2.0));
        assert!(
            Delay::FoldedNormal {
                mean_ms: f64::NAN,
                sd_ms: 1.0
            }
            .problem()
            .is_some()
        );
        assert_eq!(
            Delay::Timeline(Distribution::Fixed { ms: -1.0 })
                .problem()
                .map(|p| p.0),
            Some("ms")
        );
    }
}
