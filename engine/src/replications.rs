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
//!
//! Two estimates from independent samples (two output folders, whose runs share no random
//! numbers by design) are compared by [`independent_difference`]: Welch's t interval for two
//! means with a spread each, Newcombe's hybrid score interval (his method 10) for two shares
//! or two score intervals.

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
    /// Welch's t interval of a difference of two independent means (Welch–Satterthwaite
    /// degrees of freedom).
    Welch,
    /// Newcombe's hybrid score interval of a difference of two independent shares, from their
    /// two score intervals.
    Newcombe,
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
            Method::Welch => "welch",
            Method::Newcombe => "newcombe",
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

/// The difference `a − b` of two estimates from independent samples, with its 95% interval:
///
/// - two Student-t estimates (a spread each): Welch's interval, `d ± t(0.975, ν) · se` with
///   `se² = sa²/na + sb²/nb` and the Welch–Satterthwaite `ν = se⁴ / ((sa²/na)²/(na − 1) +
///   (sb²/nb)²/(nb − 1))`; where both spreads are 0 the difference is exact (the interval is
///   the point);
/// - two score intervals (Wilson, or the article's score interval of one run): Newcombe's
///   hybrid score interval (Newcombe 1998, method 10), `d − √((a − la)² + (ub − b)²)` to
///   `d + √((ua − a)² + (b − lb)²)`, which needs only the two intervals;
/// - anything else (a side without an interval, or two of different kinds): no interval.
///
/// `runs` is the smaller side's; the sides' `se` is not used (Welch's is computed from their
/// `sd` and `runs`).
pub fn independent_difference(a: &Estimate, b: &Estimate) -> Estimate {
    let mean = a.mean - b.mean;
    let runs = a.runs.min(b.runs);
    let none = Estimate {
        runs,
        mean,
        sd: None,
        se: None,
        interval: None,
        method: Method::None,
    };
    let score = |method: Method| matches!(method, Method::Wilson | Method::Score);
    match (a.method, b.method, a.interval, b.interval) {
        (Method::StudentT, Method::StudentT, Some(_), Some(_)) => {
            let (Some(sa), Some(sb)) = (a.sd, b.sd) else {
                return none;
            };
            if a.runs < 2 || b.runs < 2 {
                return none;
            }
            let va = sa * sa / f64::from(a.runs);
            let vb = sb * sb / f64::from(b.runs);
            let se = (va + vb).sqrt();
            let half = if se == 0.0 {
                0.0
            } else {
                let freedom = (va + vb).powi(2)
                    / (va * va / f64::from(a.runs - 1) + vb * vb / f64::from(b.runs - 1));
                stats::student_t_975(freedom) * se
            };
            Estimate {
                runs,
                mean,
                sd: None,
                se: Some(se),
                interval: Some(Interval {
                    low: mean - half,
                    high: mean + half,
                }),
                method: Method::Welch,
            }
        }
        (ma, mb, Some(ia), Some(ib)) if score(ma) && score(mb) => Estimate {
            runs,
            mean,
            sd: None,
            se: None,
            interval: Some(Interval {
                low: mean - ((a.mean - ia.low).powi(2) + (ib.high - b.mean).powi(2)).sqrt(),
                high: mean + ((ia.high - a.mean).powi(2) + (b.mean - ib.low).powi(2)).sqrt(),
            }),
            method: Method::Newcombe,
        },
        _ => none,
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

    /// A side of `successes` of `trials`, with its Wilson interval.
    fn share(successes: u64, trials: u64) -> Estimate {
        Estimate {
            mean: successes as f64 / trials as f64,
            runs: 1,
            sd: None,
            se: None,
            interval: Some(stats::wilson(successes, trials)),
            method: Method::Wilson,
        }
    }

    #[test]
    fn a_difference_of_two_shares_is_newcombes_hybrid_score_interval() {
        // Newcombe (1998), "Interval estimation for the difference between independent
        // proportions", Table II, method 10: 56/70 − 48/80 is 0.2000, 0.0524 to 0.3339;
        // 9/10 − 3/10 is 0.6000, 0.1705 to 0.8090.
        for ((a, b), (low, high)) in [
            (((56, 70), (48, 80)), (0.0524, 0.3339)),
            (((9, 10), (3, 10)), (0.1705, 0.8090)),
        ] {
            let difference = independent_difference(&share(a.0, a.1), &share(b.0, b.1));
            let interval = difference.interval.unwrap();
            assert_eq!(difference.method, Method::Newcombe);
            assert!(
                (interval.low - low).abs() < 5e-5 && (interval.high - high).abs() < 5e-5,
                "{a:?} − {b:?}: {interval:?}"
            );
        }
        // 0/10 − 0/10 (Table II, h): −0.2775 to 0.2775, the difference exactly 0.
        let zero = independent_difference(&share(0, 10), &share(0, 10));
        let interval = zero.interval.unwrap();
        assert_eq!(zero.mean, 0.0);
        assert!((interval.high - 0.2775).abs() < 5e-5 && (interval.low + 0.2775).abs() < 5e-5);
    }

    #[test]
    fn a_difference_of_two_means_is_welchs_interval() {
        // Five runs each with sd 1: se² = 1/5 + 1/5 = 0.4 and ν = 0.16 / (2 · 0.04 / 4) = 8
        // exactly, t(0.975, 8) = 2.3060041 (the t table), half 2.3060041 · √0.4 = 1.458445.
        let side = |mean: f64| Estimate {
            mean,
            runs: 5,
            sd: Some(1.0),
            se: None,
            interval: Some(Interval {
                low: mean - 1.0,
                high: mean + 1.0,
            }),
            method: Method::StudentT,
        };
        let difference = independent_difference(&side(12.0), &side(10.0));
        assert_eq!(difference.method, Method::Welch);
        assert_eq!(difference.mean, 2.0);
        assert!((difference.se.unwrap() - 0.4f64.sqrt()).abs() < 1e-15);
        let half = difference.half_width().unwrap();
        assert!((half - 1.458_445).abs() < 1e-6, "{half}");
        // Unequal sizes and spreads: na = 4, sa = 2, nb = 9, sb = 3: va = 1, vb = 1, ν = 4 /
        // (1/3 + 1/8) = 96/11 = 8.727; t(0.975, 8.727) lies between t(9) = 2.262157 and t(8).
        let a = Estimate {
            runs: 4,
            sd: Some(2.0),
            ..side(3.0)
        };
        let b = Estimate {
            runs: 9,
            sd: Some(3.0),
            ..side(1.0)
        };
        let half = independent_difference(&a, &b).half_width().unwrap() / 2f64.sqrt();
        assert!(half > 2.262_157 && half < 2.306_004, "{half}");
        // Both spreads 0: the difference is exact.
        let exact = Estimate {
            sd: Some(0.0),
            ..side(1.0)
        };
        let point = independent_difference(&exact, &exact).interval.unwrap();
        assert_eq!((point.low, point.high), (0.0, 0.0));
    }

    #[test]
    fn a_side_without_an_interval_or_of_another_kind_gives_none() {
        let single = Estimate {
            mean: 4.0,
            runs: 1,
            sd: None,
            se: None,
            interval: None,
            method: Method::None,
        };
        let difference = independent_difference(&single, &share(1, 10));
        assert_eq!((difference.mean, difference.interval), (3.9, None));
        assert_eq!(difference.method, Method::None);
        let t = Estimate {
            mean: 1.0,
            runs: 3,
            sd: Some(1.0),
            se: None,
            interval: Some(Interval {
                low: 0.0,
                high: 2.0,
            }),
            method: Method::StudentT,
        };
        assert_eq!(independent_difference(&t, &share(1, 10)).interval, None);
    }

    #[test]
    fn the_half_width_is_the_larger_side() {
        let estimate = of(&[1.0, 3.0]).estimate(Kind::Mean);
        let half = estimate.half_width().unwrap();
        // t(0.975, 1) = 12.706205, sd √2, se 1.
        assert!((half - 12.706_205).abs() < 1e-6, "{half}");
    }
}
