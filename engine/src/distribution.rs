//! Latency and processing-time distributions, sampled by inverse transform from one uniform
//! draw each, so that every strategy sees the same sampled times (common random numbers); the
//! standard normal quantile the log-normal needs is [`crate::numerics::normal`]'s. Measured
//! distributions (percentiles, samples, histograms) are [`crate::measured`]'s.

use crate::measured::Measured;
use crate::numerics::normal::{Z_99, normal_quantile};

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

/// Values sampled side by side: one per lane of a batch (eight payments at a time).
pub const LANES: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance * expected.abs().max(1.0),
            "{actual} vs {expected}"
        );
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
