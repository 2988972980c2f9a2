//! Estimates across replications: a metric's per-run values accumulated in run order, in
//! memory that does not grow with the runs, and the estimate they give (mean, spread, standard
//! error and the 95% interval its [`Kind`] calls for).
//!
//! A [`Mean`](Kind::Mean) metric (a count or a time per run) gets Student's t interval across
//! runs; a [`Proportion`](Kind::Proportion) (a share of units with a property, e.g. payments
//! charged twice) gets the Wilson score interval of the units pooled over the runs, which is
//! sound for rare events and for a single run, where a t interval is either impossible or
//! collapses to a point at zero. Values are folded in the order given (Welford's update), so
//! the same runs in the same order give the same bits, whatever thread computed them.

use crate::metric::Kind;
use crate::stats::{self, Interval};

/// How an interval was computed, as the outputs name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Student's t across runs (`mean ± t(0.975, runs − 1) · se`).
    StudentT,
    /// The Wilson score interval of the units pooled over the runs.
    Wilson,
    /// A score interval of one run's counts (the article model's means over one run).
    Score,
    /// No interval: one run of a mean, or no unit at all.
    None,
}

impl Method {
    /// Its name in the outputs: `t`, `wilson`, `score`, or empty.
    pub fn name(self) -> &'static str {
        match self {
            Method::StudentT => "t",
            Method::Wilson => "wilson",
            Method::Score => "score",
            Method::None => "",
        }
    }
}

/// Running sums of one metric's per-run values: Welford's mean and sum of squared deviations,
/// and for a proportion the units with the property and the units in all.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Replications {
    /// Runs folded in.
    runs: u32,
    /// The mean of the values so far.
    mean: f64,
    /// The sum of squared deviations from the mean so far.
    squares: f64,
    /// A proportion's units with the property, over all runs.
    with_property: u64,
    /// A proportion's units, over all runs.
    units: u64,
}

impl Replications {
    /// Folds in one run's value.
    pub fn push(&mut self, value: f64) {
        self.runs += 1;
        let delta = value - self.mean;
        self.mean += delta / f64::from(self.runs);
        self.squares += delta * (value - self.mean);
    }

    /// Folds in one run's share: `with_property` of its `units` (its value is the share, 0
    /// for a run without units).
    pub fn push_share(&mut self, with_property: u64, units: u64) {
        self.with_property += with_property;
        self.units += units;
        self.push(if units == 0 {
            0.0
        } else {
            with_property as f64 / units as f64
        });
    }

    /// Runs folded in.
    pub fn runs(&self) -> u32 {
        self.runs
    }

    /// The estimate of a metric of kind `kind` from these runs.
    pub fn estimate(&self, kind: Kind) -> Estimate {
        let sd = (self.runs > 1).then(|| (self.squares / f64::from(self.runs - 1)).sqrt());
        let se = sd.map(|sd| sd / f64::from(self.runs).sqrt());
        match kind {
            Kind::Proportion if self.units > 0 => Estimate {
                runs: self.runs,
                mean: self.with_property as f64 / self.units as f64,
                sd,
                se,
                interval: Some(stats::wilson(self.with_property, self.units)),
                method: Method::Wilson,
            },
            _ => {
                let interval = match (se, self.runs) {
                    (Some(se), runs) => {
                        let half = stats::student_t_975(f64::from(runs - 1)) * se;
                        Some(Interval {
                            low: self.mean - half,
                            high: self.mean + half,
                        })
                    }
                    _ => None,
                };
                Estimate {
                    runs: self.runs,
                    mean: self.mean,
                    sd,
                    se,
                    interval,
                    method: if interval.is_some() {
                        Method::StudentT
                    } else {
                        Method::None
                    },
                }
            }
        }
    }
}

/// What the runs say of one metric: its mean, its spread across runs and a 95% interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Runs it is over.
    pub runs: u32,
    /// The mean over runs; for a proportion, the pooled share.
    pub mean: f64,
    /// The sample standard deviation of the per-run values (divisor `runs − 1`); `None` for
    /// one run.
    pub sd: Option<f64>,
    /// The standard error of the mean over runs, `sd / √runs`; `None` for one run.
    pub se: Option<f64>,
    /// The 95% interval, if one can be computed.
    pub interval: Option<Interval>,
    /// How the interval was computed.
    pub method: Method,
}

impl Estimate {
    /// Half the interval's width: the `h` of `mean ± h` (for a Wilson interval, which is not
    /// symmetric, the larger side).
    pub fn half_width(&self) -> Option<f64> {
        self.interval
            .map(|interval| (self.mean - interval.low).max(interval.high - self.mean))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: &[f64]) -> Replications {
        let mut runs = Replications::default();
        for &value in values {
            runs.push(value);
        }
        runs
    }

    #[test]
    fn means_match_the_two_pass_formulas() {
        let values = [3.0, 7.0, 8.0, 1.0, 6.0];
        let estimate = of(&values).estimate(Kind::Mean);
        assert_eq!(estimate.runs, 5);
        assert!((estimate.mean - stats::mean(&values)).abs() < 1e-15);
        let sd = stats::sample_standard_deviation(&values).unwrap();
        assert!((estimate.sd.unwrap() - sd).abs() < 1e-14);
        assert!((estimate.se.unwrap() - sd / 5f64.sqrt()).abs() < 1e-14);
        let t = stats::t_interval(&values);
        let interval = estimate.interval.unwrap();
        assert!((interval.low - t.low).abs() < 1e-12 && (interval.high - t.high).abs() < 1e-12);
        assert_eq!(estimate.method, Method::StudentT);
    }

    #[test]
    fn one_run_of_a_mean_has_no_interval() {
        let estimate = of(&[4.0]).estimate(Kind::Mean);
        assert_eq!(
            (estimate.mean, estimate.sd, estimate.interval),
            (4.0, None, None)
        );
        assert_eq!(estimate.method, Method::None);
    }

    #[test]
    fn a_proportion_pools_its_units_into_a_wilson_interval() {
        let mut runs = Replications::default();
        runs.push_share(3, 100);
        runs.push_share(0, 100);
        runs.push_share(1, 200);
        let estimate = runs.estimate(Kind::Proportion);
        assert_eq!(estimate.mean, 4.0 / 400.0);
        assert_eq!(estimate.interval, Some(stats::wilson(4, 400)));
        assert_eq!(estimate.method, Method::Wilson);
        // The spread is the per-run shares': 0.03, 0, 0.005.
        let shares = [0.03, 0.0, 0.005];
        let sd = stats::sample_standard_deviation(&shares).unwrap();
        assert!((estimate.sd.unwrap() - sd).abs() < 1e-15);
        // One run with no event still has an interval, unlike a t interval.
        let mut once = Replications::default();
        once.push_share(0, 1000);
        let interval = once.estimate(Kind::Proportion).interval.unwrap();
        assert_eq!(interval.low, 0.0);
        assert!(
            interval.high > 0.003 && interval.high < 0.004,
            "{interval:?}"
        );
    }

    #[test]
    fn the_half_width_is_the_larger_side() {
        let estimate = of(&[1.0, 3.0]).estimate(Kind::Mean);
        let half = estimate.half_width().unwrap();
        // t(0.975, 1) = 12.706205, sd √2, se 1.
        assert!((half - 12.706_205).abs() < 1e-6, "{half}");
    }
}
