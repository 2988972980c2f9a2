//! Pure statistics for the summary: means, standard deviations, and 95% intervals (Wilson
//! score for proportions and counts, Student's t across runs).
//!
//! Everything here is arithmetic on its arguments in a fixed order, so the same inputs give
//! the same bits. The one transcendental result, the Student-t quantile, is rounded to nine
//! decimals so that a last-bit difference between maths libraries cannot reach the outputs.

use statrs::distribution::{ContinuousCDF, StudentsT};

/// The confidence level of every interval the tool reports.
pub const CONFIDENCE: f64 = 0.95;

/// The standard normal quantile at 0.975 (two-sided 95%): `scipy.stats.norm.ppf(0.975)`.
pub const Z_95: f64 = 1.959_963_984_540_054;

/// A closed interval `[low, high]` of real numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The lower end.
    pub low: f64,
    /// The upper end.
    pub high: f64,
}

impl Interval {
    /// Whether `value` lies in the interval, ends included.
    pub fn contains(&self, value: f64) -> bool {
        self.low <= value && value <= self.high
    }
}

/// The arithmetic mean of `values` (0 for none).
pub fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().sum::<f64>() / values.len() as f64
}

/// The sample standard deviation (divisor `n - 1`) of `values`; `None` for fewer than two.
pub fn sample_standard_deviation(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let centre = mean(values);
    let squares: f64 = values.iter().map(|value| (value - centre).powi(2)).sum();
    Some((squares / (values.len() - 1) as f64).sqrt())
}

/// The Wilson score interval (Wilson 1927) at 95% for `successes` out of `trials`: the
/// proportions `π` whose score test `|p̂ - π| / sqrt(π (1 - π) / n) <= z` does not reject.
/// It stays inside `[0, 1]` and is sound for rates near 0, unlike `p̂ ± z sqrt(p̂ q̂ / n)`.
///
/// # Panics
/// If `trials` is 0 or `successes > trials`.
pub fn wilson(successes: u64, trials: u64) -> Interval {
    assert!(trials > 0 && successes <= trials, "{successes} of {trials}");
    score_interval(successes as f64 / trials as f64, trials as f64)
}

/// The score interval of [`wilson`] for an observed `proportion` in `[0, 1]` and a possibly
/// fractional number of `trials` (an effective sample size): the `π` with
/// `(proportion - π)² <= z² π (1 - π) / trials`. At a proportion of exactly 0 (or 1) the lower
/// (upper) end is exactly 0 (1).
///
/// # Panics
/// If `trials` is not positive or `proportion` is outside `[0, 1]`.
pub fn score_interval(proportion: f64, trials: f64) -> Interval {
    assert!(
        trials > 0.0 && (0.0..=1.0).contains(&proportion),
        "{proportion} of {trials}"
    );
    let n = trials;
    let z2 = Z_95 * Z_95;
    let denominator = 1.0 + z2 / n;
    let centre = (proportion + z2 / (2.0 * n)) / denominator;
    let half_width =
        Z_95 * (proportion * (1.0 - proportion) / n + z2 / (4.0 * n * n)).sqrt() / denominator;
    // At 0 and n successes the exact end is 0 or 1; rounding must not move it.
    Interval {
        low: if proportion == 0.0 {
            0.0
        } else {
            (centre - half_width).max(0.0)
        },
        high: if proportion == 1.0 {
            1.0
        } else {
            (centre + half_width).min(1.0)
        },
    }
}

/// Degrees of freedom from which [`student_t_975`] uses the asymptotic expansion: statrs'
/// inverse is accurate to nine decimals up to here (t(1000) = 1.962339) but drifts beyond
/// (1.959848 at 10^6 instead of 1.959966).
const EXPANSION_FREEDOM: f64 = 1000.0;

/// The 97.5% quantile of Student's t distribution with `freedom` degrees of freedom (the
/// critical value of a two-sided 95% interval), rounded to nine decimals (see the module docs).
///
/// Below 1000 degrees of freedom it is statrs' inverse CDF; from 1000 on, the Cornish-Fisher
/// expansion in `1/ν` (Abramowitz & Stegun 26.7.5) to the fourth order, whose error there is
/// below 1e-12.
///
/// # Panics
/// If `freedom` is not positive.
pub fn student_t_975(freedom: f64) -> f64 {
    assert!(freedom > 0.0, "freedom {freedom}");
    let quantile = if freedom < EXPANSION_FREEDOM {
        StudentsT::new(0.0, 1.0, freedom)
            .expect("freedom is positive")
            .inverse_cdf(0.975)
    } else {
        let z = Z_95;
        let z2 = z * z;
        let g1 = (z2 + 1.0) * z / 4.0;
        let g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
        let g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
        let g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
        let v = 1.0 / freedom;
        z + v * (g1 + v * (g2 + v * (g3 + v * g4)))
    };
    (quantile * 1e9).round() / 1e9
}

/// The 95% Student-t interval for the mean of independent `values` (at least two):
/// `mean ± t(0.975, n - 1) · sd / sqrt(n)`.
///
/// # Panics
/// If there are fewer than two values.
pub fn t_interval(values: &[f64]) -> Interval {
    let sd = sample_standard_deviation(values).expect("at least two values");
    let freedom = (values.len() - 1) as f64;
    let half_width = student_t_975(freedom) * sd / (values.len() as f64).sqrt();
    let centre = mean(values);
    Interval {
        low: centre - half_width,
        high: centre + half_width,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} is not within {tolerance} of {expected}"
        );
    }

    /// Newcombe (1998), "Two-sided confidence intervals for the single proportion", Statistics
    /// in Medicine 17:857-872, Table I, method 3 (score interval without continuity
    /// correction), printed to four decimals.
    #[test]
    fn wilson_matches_newcombes_worked_examples() {
        for (successes, trials, low, high) in [
            (81, 263, 0.2553, 0.3662),
            (15, 148, 0.0624, 0.1605),
            (0, 20, 0.0, 0.1611),
            (1, 29, 0.0061, 0.1718),
        ] {
            let interval = wilson(successes, trials);
            assert_close(interval.low, low, 0.00005);
            assert_close(interval.high, high, 0.00005);
        }
    }

    /// With all trials successes the interval mirrors the one with none.
    #[test]
    fn wilson_is_symmetric_and_stays_in_the_unit_interval() {
        let none = wilson(0, 20);
        let all = wilson(20, 20);
        assert_eq!(none.low, 0.0);
        assert_eq!(all.high, 1.0);
        assert_close(all.low, 1.0 - none.high, 1e-12);
    }

    /// Two-sided 95% critical values from any t table (e.g. Fisher & Yates), three decimals.
    #[test]
    fn t_quantiles_match_the_table() {
        for (freedom, value) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (4.0, 2.776),
            (9.0, 2.262),
            (29.0, 2.045),
            (99.0, 1.984),
            (120.0, 1.980),
        ] {
            assert_close(student_t_975(freedom), value, 0.0005);
        }
        // Large freedom: t(1000) = 1.962339 and t(10000) = 1.960201 (R's qt), the normal limit.
        assert_close(student_t_975(1000.0), 1.962_339, 1e-6);
        assert_close(student_t_975(10_000.0), 1.960_201, 1e-6);
        assert_close(student_t_975(1e7), Z_95, 1e-6);
    }

    /// The two methods meet at the switch without a jump.
    #[test]
    fn t_quantile_is_continuous_where_the_method_changes() {
        let below = student_t_975(EXPANSION_FREEDOM - 1e-9);
        let above = student_t_975(EXPANSION_FREEDOM);
        assert_close(below, above, 2e-9);
    }

    #[test]
    fn mean_and_standard_deviation_of_a_small_sample() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations sum to 32, 32 / 7.
        let values = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_eq!(mean(&values), 5.0);
        assert_close(
            sample_standard_deviation(&values).unwrap(),
            (32.0f64 / 7.0).sqrt(),
            1e-15,
        );
        assert_eq!(sample_standard_deviation(&[1.0]), None);
        assert_eq!(mean(&[]), 0.0);
    }

    #[test]
    fn t_interval_is_mean_plus_minus_t_times_standard_error() {
        // Values 1, 2, 3: mean 2, sd 1, t(0.975, 2) = 4.303 → 2 ± 4.303 / sqrt(3).
        let interval = t_interval(&[1.0, 2.0, 3.0]);
        assert_close(interval.low, 2.0 - 4.303 / 3f64.sqrt(), 0.001);
        assert_close(interval.high, 2.0 + 4.303 / 3f64.sqrt(), 0.001);
        assert!(interval.contains(2.0) && !interval.contains(12.0));
    }
}
