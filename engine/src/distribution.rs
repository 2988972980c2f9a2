//! Latency and processing-time distributions, sampled by inverse transform from one uniform
//! draw each, so that every strategy sees the same sampled times (common random numbers),
//! and the standard normal quantile the log-normal needs ([`normal_quantile`]). Measured
//! distributions (percentiles, samples, histograms) are [`crate::measured`]'s.

use crate::measured::Measured;

/// The standard normal quantile at 0.99: `scipy.stats.norm.ppf(0.99)`.
pub const Z_99: f64 = 2.326_347_874_040_841;

/// A distribution of durations in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distribution {
    /// Always `ms` milliseconds.
    Fixed {
        /// The duration (ms, at least 0).
        ms: f64,
    },
    /// Uniform between `low_ms` and `high_ms`.
    Uniform {
        /// The shortest duration (ms, at least 0).
        low_ms: f64,
        /// The longest duration (ms, at least `low_ms`).
        high_ms: f64,
    },
    /// Exponential with mean `mean_ms`.
    Exponential {
        /// The mean duration (ms, more than 0).
        mean_ms: f64,
    },
    /// Log-normal given by its median and 99th percentile:
    /// `mu = ln(median_ms)`, `sigma = ln(p99_ms / median_ms) / 2.326347874`.
    LogNormal {
        /// The median duration (ms, more than 0).
        median_ms: f64,
        /// The 99th-percentile duration (ms, at least `median_ms`).
        p99_ms: f64,
    },
    /// Given by measurements: percentiles, samples or a histogram's buckets (see
    /// [`crate::measured`]).
    Measured(&'static Measured),
}

impl Distribution {
    /// The duration at quantile `u` in `[0, 1)`: the inverse of the cumulative distribution.
    pub fn quantile(&self, u: f64) -> f64 {
        match *self {
            Distribution::Fixed { ms } => ms,
            Distribution::Uniform { low_ms, high_ms } => low_ms + (high_ms - low_ms) * u,
            Distribution::Exponential { mean_ms } => -mean_ms * (-u).ln_1p(),
            Distribution::LogNormal { median_ms, p99_ms } => {
                let sigma = (p99_ms / median_ms).ln() / Z_99;
                median_ms * crate::numerics::exp::exp(sigma * normal_quantile(u))
            }
            Distribution::Measured(measured) => measured.quantile(u),
        }
    }

    /// The same distribution with its per-sample constants computed once, for sampling many
    /// durations: [`Sampler::quantile`] returns bit-for-bit what [`Distribution::quantile`]
    /// does.
    pub fn sampler(&self) -> Sampler {
        match *self {
            Distribution::LogNormal { median_ms, p99_ms } => Sampler::LogNormal {
                median_ms,
                sigma: (p99_ms / median_ms).ln() / Z_99,
            },
            other => Sampler::Other(other),
        }
    }

    /// The median (ms).
    pub fn median_ms(&self) -> f64 {
        self.quantile(0.5)
    }

    /// The mean (ms): a log-normal's is `median × e^(σ²/2)`.
    pub fn mean_ms(&self) -> f64 {
        match *self {
            Distribution::Fixed { ms } => ms,
            Distribution::Uniform { low_ms, high_ms } => (low_ms + high_ms) / 2.0,
            Distribution::Exponential { mean_ms } => mean_ms,
            Distribution::LogNormal { median_ms, p99_ms } => {
                let sigma = (p99_ms / median_ms).ln() / Z_99;
                median_ms * (sigma * sigma / 2.0).exp()
            }
            Distribution::Measured(measured) => measured.mean_ms(),
        }
    }

    /// The longest duration it can produce (infinite for unbounded distributions).
    pub fn max_ms(&self) -> f64 {
        match *self {
            Distribution::Fixed { ms } => ms,
            Distribution::Uniform { high_ms, .. } => high_ms,
            Distribution::Exponential { .. } | Distribution::LogNormal { .. } => f64::INFINITY,
            Distribution::Measured(measured) => measured.max_ms(),
        }
    }

    /// A short description for chart subtitles: `fixed 10 ms`, `log-normal median 40 ms, p99 900 ms`.
    pub fn describe(&self) -> String {
        match *self {
            Distribution::Fixed { ms } => format!("{ms} ms"),
            Distribution::Uniform { low_ms, high_ms } => format!("uniform {low_ms}-{high_ms} ms"),
            Distribution::Exponential { mean_ms } => format!("exponential mean {mean_ms} ms"),
            Distribution::LogNormal { median_ms, p99_ms } => {
                format!("log-normal median {median_ms} ms, p99 {p99_ms} ms")
            }
            Distribution::Measured(measured) => measured.describe(),
        }
    }
}

/// A [`Distribution`] ready for sampling: the log-normal's `sigma` computed once instead of
/// once per sample (the same value, so the same durations).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Sampler {
    /// Log-normal with `mu = ln(median_ms)` and its `sigma`.
    LogNormal {
        /// The median duration (ms, more than 0).
        median_ms: f64,
        /// `ln(p99_ms / median_ms) / Z_99`.
        sigma: f64,
    },
    /// Any other distribution, sampled as it is.
    Other(Distribution),
}

impl Sampler {
    /// The duration at quantile `u` in `[0, 1)`, identical to [`Distribution::quantile`].
    #[inline]
    pub fn quantile(&self, u: f64) -> f64 {
        match *self {
            Sampler::LogNormal { median_ms, sigma } => {
                median_ms * crate::numerics::exp::exp(sigma * normal_quantile(u))
            }
            Sampler::Other(distribution) => distribution.quantile(u),
        }
    }
}

/// The standard normal quantile (inverse cumulative distribution) at `u` in `[0, 1]`: `z`
/// with `P(Z <= z) = u`, `-inf` at 0 and `inf` at 1.
///
/// Wichura's algorithm AS241 (PPND16, Applied Statistics 37(3), 1988), also behind Python's
/// `statistics.NormalDist.inv_cdf` and R's `qnorm`: a rational function of degree 7 in
/// `(u - 0.5)^2` for `0.075 <= u <= 0.925` (85% of draws: no logarithm), elsewhere one of two
/// rational functions of `sqrt(-ln(tail))`. Against mpmath (`tests/normal_quantile/`, 2,422
/// points from 1e-300 to 1 - 1e-15) its largest relative error is 7.5e-16. Unlike
/// `erf_inv(2u - 1)`, it takes `u` itself, so the lower tail keeps its full precision.
#[inline]
pub fn normal_quantile(u: f64) -> f64 {
    let q = u - 0.5;
    if q.abs() <= CENTRAL_HALF_WIDTH {
        let r = 0.180_625 - q * q;
        return q * horner(r, &CENTRAL_NUMERATOR) / horner(r, &CENTRAL_DENOMINATOR);
    }
    normal_tail_quantile(u, q)
}

/// The half width of [`normal_quantile`]'s central region: `|u - 0.5| <= 0.425`.
pub(super) const CENTRAL_HALF_WIDTH: f64 = 0.425;

/// Values sampled side by side: one per lane of a batch (eight payments at a time).
pub const LANES: usize = 8;

/// [`normal_quantile`] outside the central region (`|u - 0.5| > 0.425`).
pub(super) fn normal_tail_quantile(u: f64, q: f64) -> f64 {
    let tail = if q < 0.0 { u } else { 1.0 - u };
    if tail <= 0.0 {
        return if q < 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let r = (-tail.ln()).sqrt();
    let z = if r <= 5.0 {
        let r = r - 1.6;
        horner(r, &NEAR_TAIL_NUMERATOR) / horner(r, &NEAR_TAIL_DENOMINATOR)
    } else {
        let r = r - 5.0;
        horner(r, &FAR_TAIL_NUMERATOR) / horner(r, &FAR_TAIL_DENOMINATOR)
    };
    if q < 0.0 { -z } else { z }
}

/// `c[0] + c[1] x + ... + c[7] x^7` by Horner's rule.
#[inline(always)]
fn horner(x: f64, coefficients: &[f64; 8]) -> f64 {
    coefficients
        .iter()
        .rev()
        .fold(0.0, |sum, &coefficient| sum * x + coefficient)
}

// AS241's coefficients, lowest degree first, with the published digits (more than an f64
// holds; each literal rounds to the nearest f64).
#[allow(clippy::excessive_precision)]
pub(super) const CENTRAL_NUMERATOR: [f64; 8] = [
    3.387_132_872_796_366_608,
    1.331_416_678_917_843_774_5e2,
    1.971_590_950_306_551_442_7e3,
    1.373_169_376_550_946_112_5e4,
    4.592_195_393_154_987_145_7e4,
    6.726_577_092_700_870_085_3e4,
    3.343_057_558_358_812_810_5e4,
    2.509_080_928_730_122_672_7e3,
];
#[allow(clippy::excessive_precision)]
pub(super) const CENTRAL_DENOMINATOR: [f64; 8] = [
    1.0,
    4.231_333_070_160_091_125_2e1,
    6.871_870_074_920_579_083e2,
    5.394_196_021_424_751_107_7e3,
    2.121_379_430_158_659_586_7e4,
    3.930_789_580_009_271_061e4,
    2.872_908_573_572_194_267_4e4,
    5.226_495_278_852_854_561e3,
];
#[allow(clippy::excessive_precision)]
pub(super) const NEAR_TAIL_NUMERATOR: [f64; 8] = [
    1.423_437_110_749_683_577_34,
    4.630_337_846_156_545_295_9,
    5.769_497_221_460_691_405_5,
    3.647_848_324_763_204_605_04,
    1.270_458_252_452_368_382_58,
    2.417_807_251_774_506_117_7e-1,
    2.272_384_498_926_918_458_33e-2,
    7.745_450_142_783_414_076_4e-4,
];
#[allow(clippy::excessive_precision)]
pub(super) const NEAR_TAIL_DENOMINATOR: [f64; 8] = [
    1.0,
    2.053_191_626_637_758_821_87,
    1.676_384_830_183_803_849_4,
    6.897_673_349_851_000_045_5e-1,
    1.481_039_764_274_800_745_9e-1,
    1.519_866_656_361_645_719_66e-2,
    5.475_938_084_995_344_946e-4,
    1.050_750_071_644_416_843_24e-9,
];
#[allow(clippy::excessive_precision)]
pub(super) const FAR_TAIL_NUMERATOR: [f64; 8] = [
    6.657_904_643_501_103_777_2,
    5.463_784_911_164_114_369_9,
    1.784_826_539_917_291_335_8,
    2.965_605_718_285_048_912_3e-1,
    2.653_218_952_657_612_309_3e-2,
    1.242_660_947_388_078_438_6e-3,
    2.711_555_568_743_487_578_15e-5,
    2.010_334_399_292_288_132_65e-7,
];
#[allow(clippy::excessive_precision)]
pub(super) const FAR_TAIL_DENOMINATOR: [f64; 8] = [
    1.0,
    5.998_322_065_558_879_376_9e-1,
    1.369_298_809_227_358_053_1e-1,
    1.487_536_129_085_061_485_25e-2,
    7.868_691_311_456_132_591e-4,
    1.846_318_317_510_054_681_8e-5,
    1.421_511_758_316_445_888_7e-7,
    2.044_263_103_389_939_785_64e-15,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance * expected.abs().max(1.0),
            "{actual} vs {expected}"
        );
    }

    /// `(u, z)` from `tests/normal_quantile/normal_quantile.csv` (mpmath).
    fn reference_quantiles() -> Vec<(f64, f64)> {
        include_str!("../../tests/normal_quantile/normal_quantile.csv")
            .lines()
            .skip(1)
            .map(|line| {
                let (u, z) = line.split_once(',').expect("two columns");
                (u.parse().expect("u"), z.parse().expect("z"))
            })
            .collect()
    }

    /// The largest relative error of `quantile` against mpmath's over the reference points.
    fn largest_relative_error(quantile: impl Fn(f64) -> f64) -> f64 {
        reference_quantiles()
            .into_iter()
            .map(|(u, z)| ((quantile(u) - z) / z).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn the_normal_quantile_is_within_1e_15_of_mpmath() {
        let points = reference_quantiles();
        assert_eq!(points.len(), 2_422);
        assert!(points.iter().any(|&(u, _)| u == 1e-300));
        let error = largest_relative_error(normal_quantile);
        assert!(error < 1e-15, "largest relative error {error:e}");
        // What it replaced, erf_inv(2u - 1), loses the lower tail: 2u - 1 rounds away most of
        // a small u's digits (so the check can fail).
        let erf_inv = largest_relative_error(|u| {
            std::f64::consts::SQRT_2 * statrs::function::erf::erf_inv(2.0 * u - 1.0)
        });
        assert!(
            erf_inv > 1e-3,
            "erf_inv's largest relative error {erf_inv:e}"
        );
    }

    #[test]
    fn the_normal_quantile_is_exact_at_the_ends_and_the_middle() {
        assert_eq!(normal_quantile(0.5), 0.0);
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        close(normal_quantile(0.99), Z_99, 1e-15);
        // Symmetric: z(1 - u) = -z(u) where 1 - u is exact (dyadic u), in both regions.
        for u in [
            0.25,
            0.125,
            0.0625,
            0.5f64.powi(10),
            0.5f64.powi(30),
            0.5f64.powi(52),
        ] {
            assert_eq!(normal_quantile(1.0 - u), -normal_quantile(u), "{u}");
        }
    }

    #[test]
    fn log_normal_has_the_given_median_and_p99() {
        let latency = Distribution::LogNormal {
            median_ms: 40.0,
            p99_ms: 900.0,
        };
        close(latency.quantile(0.5), 40.0, 1e-12);
        close(latency.quantile(0.99), 900.0, 1e-9);
        // Symmetric in log space: the 1st percentile is median^2 / p99.
        close(latency.quantile(0.01), 40.0 * 40.0 / 900.0, 1e-9);
    }

    #[test]
    fn a_sampler_gives_the_same_bits_as_its_distribution() {
        // The log-normals of configs/mobile-network.toml and two whose sigma differs in its
        // last bits between ln(p99 / median) and ln(p99) - ln(median), so that a sampler whose
        // constant is computed differently fails.
        let distributions = [
            Distribution::LogNormal {
                median_ms: 80.0,
                p99_ms: 2500.0,
            },
            Distribution::LogNormal {
                median_ms: 150.0,
                p99_ms: 1200.0,
            },
            Distribution::LogNormal {
                median_ms: 3.3,
                p99_ms: 47.1,
            },
            Distribution::LogNormal {
                median_ms: 0.3,
                p99_ms: 0.3,
            },
            Distribution::Exponential { mean_ms: 7.5 },
            Distribution::Uniform {
                low_ms: 1.0,
                high_ms: 9.0,
            },
            Distribution::Fixed { ms: 4.0 },
        ];
        for distribution in distributions {
            let sampler = distribution.sampler();
            for step in 0..10_000 {
                let u = f64::from(step) / 10_000.0 + 1.234e-5;
                assert_eq!(
                    sampler.quantile(u).to_bits(),
                    distribution.quantile(u).to_bits(),
                    "{distribution:?} at {u}"
                );
            }
        }
    }

    #[test]
    fn closed_form_quantiles() {
        close(Distribution::Fixed { ms: 3.0 }.quantile(0.7), 3.0, 0.0);
        let uniform = Distribution::Uniform {
            low_ms: 10.0,
            high_ms: 30.0,
        };
        close(uniform.quantile(0.25), 15.0, 1e-15);
        // Exponential: the median is mean * ln 2.
        let exponential = Distribution::Exponential { mean_ms: 100.0 };
        close(
            exponential.quantile(0.5),
            100.0 * std::f64::consts::LN_2,
            1e-12,
        );
        close(exponential.quantile(0.0), 0.0, 0.0);
    }
}
