//! Distributions of durations given by measurements rather than by a formula: measured
//! percentiles, the samples themselves, or a histogram's buckets ([`Measured`]). Each is
//! sampled like every other [`Distribution`](crate::distribution::Distribution), by its
//! quantile function of one uniform draw, so a measured distribution consumes the same draws
//! as a fixed or log-normal one and the random streams stay aligned.
//!
//! - **Percentiles** `(p_k, x_k)`, at least two, `x` strictly increasing: the quantile function
//!   is piecewise linear in `(z, ln x)` with `z = Φ⁻¹(p)` the standard normal quantile, so
//!   between two adjacent percentiles it is the log-normal through both. Below the lowest
//!   percentile it continues the first segment and beyond the highest the last one: the body
//!   and the tail are the log-normals matched at the two lowest and the two highest points.
//!   Percentiles taken from one log-normal give back exactly that log-normal.
//! - **Samples** `s_(1) <= ... <= s_(n)`: the inverse of their empirical distribution
//!   function, `Q(u) = s_(floor(u n) + 1)`: every sample equally likely, nothing outside
//!   `[s_(1), s_(n)]` (a bootstrap of the measurement).
//! - **Buckets** with upper bounds `le_1 < ... < le_m` and cumulative counts (Prometheus'
//!   histogram semantics): uniform inside each bucket, the first from `lower` (0 for
//!   Prometheus), as Prometheus' `histogram_quantile` interpolates; counts above the last
//!   finite bound (the `+Inf` bucket) are placed at that bound, as `histogram_quantile`
//!   returns it.
//!
//! A measured distribution lives as long as the process ([`Measured::leak`]): the
//! [`Distribution`](crate::distribution::Distribution) that holds it stays `Copy`, and equal
//! tables are kept once.

use std::sync::Mutex;

use crate::numerics::exp::exp;
use crate::numerics::normal::normal_quantile;

/// Why measurements cannot make a distribution: the message names the values at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MeasuredError {
    /// Fewer points than the distribution needs.
    #[error("needs at least {needed} {what}, found {found}")]
    TooFew {
        /// What is counted (`percentiles`, `samples`, `buckets with a count`).
        what: &'static str,
        /// The fewest allowed.
        needed: usize,
        /// How many were given.
        found: usize,
    },
    /// Two neighbours out of order.
    #[error("{later} ({later_value}) must be more than {earlier} ({earlier_value})")]
    NotIncreasing {
        /// The earlier one's name (`p50_ms`, `le_ms[2]`, `counts[3]`).
        earlier: String,
        /// Its value.
        earlier_value: f64,
        /// The later one's name.
        later: String,
        /// Its value.
        later_value: f64,
    },
    /// A value that no duration or count can be.
    #[error("{name} ({value}) {reason}")]
    Invalid {
        /// Its name.
        name: String,
        /// Its value.
        value: f64,
        /// What it must be.
        reason: &'static str,
    },
}

/// A distribution of durations (ms) given by measurements, and where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    shape: Shape,
    /// Where the measurements came from, for descriptions (`percentiles`, `samples.csv`).
    source: String,
}

/// The three forms of measurement.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    /// Log-normal segments between percentiles.
    Percentiles {
        /// The percentiles' probabilities, increasing.
        p: Vec<f64>,
        /// `Φ⁻¹(p)` of each.
        z: Vec<f64>,
        /// The durations at them (ms), increasing.
        ms: Vec<f64>,
        /// `d ln x / d z` of each segment (one fewer than the points).
        slope: Vec<f64>,
    },
    /// The samples, sorted.
    Samples(Vec<f64>),
    /// Buckets: `bounds[0]` is the first bucket's lower bound, `bounds[i + 1]` bucket `i`'s
    /// upper bound (ms); `cumulative[i]` the count of buckets `0..=i`; `overflow` the count
    /// above the last bound.
    Buckets {
        bounds: Vec<f64>,
        cumulative: Vec<f64>,
        overflow: f64,
    },
}

/// Every measured distribution made by this process, each once.
static KEPT: Mutex<Vec<&'static Measured>> = Mutex::new(Vec::new());

impl Measured {
    /// Percentiles `(p, ms)`: `p` in `(0, 1)` increasing (the caller's names, as `names`),
    /// `ms` more than 0 and increasing; at least two.
    pub fn percentiles(points: &[(f64, f64)], names: &[&str]) -> Result<Self, MeasuredError> {
        if points.len() < 2 {
            return Err(MeasuredError::TooFew {
                what: "percentiles",
                needed: 2,
                found: points.len(),
            });
        }
        for (&(p, ms), name) in points.iter().zip(names) {
            if !(p > 0.0 && p < 1.0) {
                return Err(invalid(name, p, "must be a probability between 0 and 1"));
            }
            if !(ms > 0.0 && ms.is_finite()) {
                return Err(invalid(name, ms, "must be more than 0 ms"));
            }
        }
        increasing(points.iter().map(|&(p, _)| p), names)?;
        increasing(points.iter().map(|&(_, ms)| ms), names)?;
        let p: Vec<f64> = points.iter().map(|&(p, _)| p).collect();
        let ms: Vec<f64> = points.iter().map(|&(_, ms)| ms).collect();
        let z: Vec<f64> = p.iter().map(|&p| normal_quantile(p)).collect();
        let slope = (1..p.len())
            .map(|k| (ms[k] / ms[k - 1]).ln() / (z[k] - z[k - 1]))
            .collect();
        Ok(Self {
            shape: Shape::Percentiles { p, z, ms, slope },
            source: "percentiles".into(),
        })
    }

    /// Samples (ms, each from 0 to infinity exclusive), in any order; `source` names them.
    /// `name(i)` names sample `i` in errors.
    pub fn samples(
        mut samples: Vec<f64>,
        source: impl Into<String>,
        name: impl Fn(usize) -> String,
    ) -> Result<Self, MeasuredError> {
        if let Some(index) = samples.iter().position(|&x| !(x >= 0.0 && x.is_finite())) {
            return Err(invalid(
                &name(index),
                samples[index],
                "must be a duration of at least 0 ms",
            ));
        }
        if samples.is_empty() {
            return Err(MeasuredError::TooFew {
                what: "samples",
                needed: 1,
                found: 0,
            });
        }
        samples.sort_by(f64::total_cmp);
        Ok(Self {
            shape: Shape::Samples(samples),
            source: source.into(),
        })
    }

    /// Buckets with upper bounds `upper` (ms, increasing; an infinite last one is the
    /// overflow bucket) and cumulative counts `cumulative` (not decreasing, the last more than
    /// 0), the first bucket starting at `lower` (ms, at most the first bound). `bound_name(i)`
    /// and `count_name(i)` name bucket `i`'s values in errors; `source` names the histogram.
    pub fn buckets(
        lower: f64,
        upper: &[f64],
        cumulative: &[f64],
        source: impl Into<String>,
        bound_name: impl Fn(usize) -> String,
        count_name: impl Fn(usize) -> String,
    ) -> Result<Self, MeasuredError> {
        debug_assert_eq!(upper.len(), cumulative.len());
        if upper.is_empty() {
            return Err(MeasuredError::TooFew {
                what: "buckets",
                needed: 1,
                found: 0,
            });
        }
        let finite = upper.len() - usize::from(upper[upper.len() - 1] == f64::INFINITY);
        for (index, &bound) in upper[..finite].iter().enumerate() {
            if !(bound >= lower && bound.is_finite()) {
                return Err(invalid(
                    &bound_name(index),
                    bound,
                    "must be a duration of at least 0 ms",
                ));
            }
        }
        for (index, &count) in cumulative.iter().enumerate() {
            if !(count >= 0.0 && count.is_finite()) {
                return Err(invalid(
                    &count_name(index),
                    count,
                    "must be a count, at least 0",
                ));
            }
        }
        let bound_names: Vec<String> = (0..upper.len()).map(&bound_name).collect();
        let bound_refs: Vec<&str> = bound_names.iter().map(String::as_str).collect();
        increasing(upper.iter().copied(), &bound_refs)?;
        for index in 1..cumulative.len() {
            if cumulative[index] < cumulative[index - 1] {
                return Err(MeasuredError::Invalid {
                    name: format!(
                        "{} (cumulative, less than {} = {})",
                        count_name(index),
                        count_name(index - 1),
                        cumulative[index - 1]
                    ),
                    value: cumulative[index],
                    reason: "must not decrease: the counts are cumulative",
                });
            }
        }
        let total = cumulative[cumulative.len() - 1];
        if total <= 0.0 {
            return Err(invalid(
                &count_name(cumulative.len() - 1),
                total,
                "must be more than 0: the histogram counts nothing",
            ));
        }
        if finite == 0 {
            return Err(MeasuredError::TooFew {
                what: "finite bucket bounds",
                needed: 1,
                found: 0,
            });
        }
        let mut bounds = Vec::with_capacity(finite + 1);
        bounds.push(lower);
        bounds.extend_from_slice(&upper[..finite]);
        Ok(Self {
            shape: Shape::Buckets {
                bounds,
                cumulative: cumulative[..finite].to_vec(),
                overflow: total - cumulative[finite - 1],
            },
            source: source.into(),
        })
    }

    /// The same distribution described as coming from `source`.
    pub fn named(self, source: impl Into<String>) -> Self {
        Self {
            source: source.into(),
            ..self
        }
    }

    /// This distribution for the rest of the process, kept once however often it is made:
    /// a config read again (a sweep's points) shares the first copy.
    pub fn leak(self) -> &'static Measured {
        let mut kept = KEPT.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(&same) = kept.iter().find(|kept| ***kept == self) {
            return same;
        }
        let leaked: &'static Measured = Box::leak(Box::new(self));
        kept.push(leaked);
        leaked
    }

    /// The duration at quantile `u` in `[0, 1)` (ms).
    pub fn quantile(&self, u: f64) -> f64 {
        match &self.shape {
            Shape::Percentiles { z, ms, slope, .. } => {
                let at = normal_quantile(u);
                // The segment: the last whose start is at most `at`, the first below it.
                let segment = z[1..z.len() - 1].partition_point(|&start| start <= at);
                ms[segment] * exp(slope[segment] * (at - z[segment]))
            }
            Shape::Samples(sorted) => {
                let index = (u * sorted.len() as f64) as usize;
                sorted[index.min(sorted.len() - 1)]
            }
            Shape::Buckets {
                bounds,
                cumulative,
                overflow,
            } => {
                let total = cumulative[cumulative.len() - 1] + overflow;
                let rank = u * total;
                // The first bucket whose cumulative count exceeds the rank.
                let bucket = cumulative.partition_point(|&count| count <= rank);
                if bucket == cumulative.len() {
                    return bounds[bounds.len() - 1];
                }
                let below = if bucket == 0 {
                    0.0
                } else {
                    cumulative[bucket - 1]
                };
                let share = (rank - below) / (cumulative[bucket] - below);
                bounds[bucket] + (bounds[bucket + 1] - bounds[bucket]) * share
            }
        }
    }

    /// The mean (ms): exact for samples and buckets (the overflow at the last bound); for
    /// percentiles, each log-normal segment's `∫ x_k e^(s (z - z_k)) φ(z) dz` in closed form,
    /// `x_k e^(s²/2 - s z_k) (Φ(b - s) - Φ(a - s))`.
    pub fn mean_ms(&self) -> f64 {
        match &self.shape {
            Shape::Percentiles { z, ms, slope, .. } => {
                let segments = slope.len();
                (0..segments)
                    .map(|k| {
                        let from = if k == 0 { f64::NEG_INFINITY } else { z[k] };
                        let to = if k + 1 == segments {
                            f64::INFINITY
                        } else {
                            z[k + 1]
                        };
                        let s = slope[k];
                        ms[k]
                            * (s * s / 2.0 - s * z[k]).exp()
                            * (normal_cdf(to - s) - normal_cdf(from - s))
                    })
                    .sum()
            }
            Shape::Samples(sorted) => sorted.iter().sum::<f64>() / sorted.len() as f64,
            Shape::Buckets {
                bounds,
                cumulative,
                overflow,
            } => {
                let mut below = 0.0;
                let mut sum = overflow * bounds[bounds.len() - 1];
                for (bucket, &count) in cumulative.iter().enumerate() {
                    sum += (count - below) * (bounds[bucket] + bounds[bucket + 1]) / 2.0;
                    below = count;
                }
                sum / (below + overflow)
            }
        }
    }

    /// The longest duration it can produce (ms; infinite for percentiles, whose tail is a
    /// log-normal's).
    pub fn max_ms(&self) -> f64 {
        match &self.shape {
            Shape::Percentiles { .. } => f64::INFINITY,
            Shape::Samples(sorted) => sorted[sorted.len() - 1],
            Shape::Buckets { bounds, .. } => bounds[bounds.len() - 1],
        }
    }

    /// A short description: `percentiles p50 40 ms, p99 900 ms`, `2000 samples (s.csv)`.
    pub fn describe(&self) -> String {
        match &self.shape {
            Shape::Percentiles { p, ms, .. } => {
                let points: Vec<String> = p
                    .iter()
                    .zip(ms)
                    .map(|(p, ms)| format!("p{} {ms} ms", percentile_label(*p)))
                    .collect();
                format!("percentiles {}", points.join(", "))
            }
            Shape::Samples(sorted) => {
                format!("empirical, {} samples ({})", sorted.len(), self.source)
            }
            Shape::Buckets { cumulative, .. } => {
                format!("histogram, {} buckets ({})", cumulative.len(), self.source)
            }
        }
    }
}

/// `p` as a percentile's digits: 0.5 is `50`, 0.999 is `99.9`.
fn percentile_label(p: f64) -> String {
    let percent = format!("{:.6}", p * 100.0);
    percent
        .trim_end_matches('0')
        .trim_end_matches('.')
        .to_string()
}

/// The standard normal distribution function `Φ(x) = erfc(-x / √2) / 2`.
fn normal_cdf(x: f64) -> f64 {
    0.5 * statrs::function::erf::erfc(-x / std::f64::consts::SQRT_2)
}

fn invalid(name: &str, value: f64, reason: &'static str) -> MeasuredError {
    MeasuredError::Invalid {
        name: name.to_string(),
        value,
        reason,
    }
}

/// Refuses the first value not more than the one before it, naming both.
fn increasing(values: impl Iterator<Item = f64>, names: &[&str]) -> Result<(), MeasuredError> {
    let values: Vec<f64> = values.collect();
    for index in 1..values.len() {
        if values[index].partial_cmp(&values[index - 1]) != Some(std::cmp::Ordering::Greater) {
            return Err(MeasuredError::NotIncreasing {
                earlier: names[index - 1].to_string(),
                earlier_value: values[index - 1],
                later: names[index].to_string(),
                later_value: values[index],
            });
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "measured_tests.rs"]
mod tests;
