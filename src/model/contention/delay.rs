//! The network delay of one message: any of the engine's distributions, sampled by inverse
//! transform from one uniform draw, or a normal distribution folded at 0 (`|N(mean, sd)|`, the
//! AWS simulator's `abs(normalvariate(10, 2))`), sampled with `rand_distr`'s ziggurat
//! (`StandardNormal`), which is several times faster than the inverse transform.
//!
//! The folded normal lives here rather than in [`engine::distribution::Distribution`] so that
//! the timeline model and its files are untouched; it could move there when both models
//! share one list.

use rand_core::Rng;
use rand_distr::Distribution as _;

use engine::distribution::Distribution;

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
    /// The delay of one message, drawn from `stream`: one 64-bit draw, numpy's
    /// `u = (raw >> 11) · 2^-53` in `[0, 1)`, for the timeline distributions; for the folded
    /// normal, `|mean_ms + sd_ms · z|` with `z` from the ziggurat (usually one draw).
    pub fn sample(&self, stream: &mut impl Rng) -> f64 {
        match *self {
            Delay::Timeline(distribution) => timeline_sample(distribution, stream),
            Delay::FoldedNormal { mean_ms, sd_ms } => folded_normal_sample(mean_ms, sd_ms, stream),
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

/// [`Delay::Timeline`]'s draw, inlined where a simulation loop has one copy per kind of
/// delay (the same draws and the same values as [`Delay::sample`]).
#[inline(always)]
pub fn timeline_sample(distribution: Distribution, stream: &mut impl Rng) -> f64 {
    distribution.quantile(engine::rng::unit_f64(stream.next_u64()))
}

/// [`Delay::FoldedNormal`]'s draw, `|mean_ms + sd_ms · z|` with `z` from the ziggurat, inlined
/// where a simulation loop has one copy per kind of delay (the same draws and the same values
/// as [`Delay::sample`]).
#[inline(always)]
pub fn folded_normal_sample(mean_ms: f64, sd_ms: f64, stream: &mut impl Rng) -> f64 {
    let z: f64 = rand_distr::StandardNormal.sample(stream);
    (mean_ms + sd_ms * z).abs()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::rng::SeedSequence;
    use rand_core::Rng;

    fn draws(count: usize, delay: Delay) -> Vec<f64> {
        let mut stream = SeedSequence::new(7).pcg64();
        (0..count).map(|_| delay.sample(&mut stream)).collect()
    }

    /// The fixed and uniform delays take one draw each, at numpy's unit draw.
    #[test]
    fn timeline_distributions_read_one_draw_each() {
        let uniform = Delay::Timeline(Distribution::Uniform {
            low_ms: 10.0,
            high_ms: 30.0,
        });
        let mut numpy = SeedSequence::new(7).pcg64();
        let expected: Vec<f64> = (0..3)
            .map(|_| 10.0 + 20.0 * engine::rng::unit_f64(numpy.next_u64()))
            .collect();
        assert_eq!(draws(3, uniform), expected);
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
        let mean = engine::stats::mean(&values);
        let expected = (2.0 / std::f64::consts::PI).sqrt();
        let standard_error = ((1.0 - 2.0 / std::f64::consts::PI) / 200_000f64).sqrt();
        assert!(
            (mean - expected).abs() < 4.0 * standard_error,
            "{mean} vs {expected}"
        );
        // The shape, not just the mean: P(|Z| > 1.959964) = 0.05 (scipy.stats.norm.sf(1.959964)
        // × 2) and P(|Z| > 1) = 0.317311, each within 4 binomial standard deviations.
        for (threshold, share) in [(1.959_963_985, 0.05), (1.0, 0.317_310_508)] {
            let above = values.iter().filter(|&&v| v > threshold).count() as f64 / 200_000.0;
            let sd = (share * (1.0 - share) / 200_000f64).sqrt();
            assert!((above - share).abs() < 4.0 * sd, "{above} vs {share}");
        }
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
        let mean = engine::stats::mean(&values);
        let sd = engine::stats::sample_standard_deviation(&values).unwrap();
        let n = values.len() as f64;
        assert!((mean - 10.0).abs() < 4.0 * 2.0 / n.sqrt(), "{mean}");
        // The sample sd's standard error is about sd / sqrt(2n).
        assert!((sd - 2.0).abs() < 4.0 * 2.0 / (2.0 * n).sqrt(), "{sd}");
    }
}
