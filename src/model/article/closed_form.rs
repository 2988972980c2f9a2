//! The exact per-request expectations (and variances) of the article model, in closed form.
//!
//! Every attempt's ACK is lost independently with probability `p`; a client retries at most
//! `R` times. The number of retries `X = attempts - 1` is the number of losses in a row before
//! the first ACK arrives, stopped at `R`, so `P(X >= k) = p^k` for `k = 0..=R` and 0 beyond.
//! Hence (derivation in `docs/closed-forms.md`):
//!
//! - `P(double-charged without key) = P(X >= 1) = p` when `R >= 1` (0 when `R = 0`),
//! - `E[extra charges] = E[X] = Σ_{k=1..R} P(X >= k) = p + p² + ... + p^R`,
//! - `Var[X] = Σ_k P(X = k) (k - E[X])²` with `P(X = k) = p^k q` for `k < R`, `P(X = R) = p^R`
//!   and `q = 1 - p`,
//! - `P(retries exhausted) = P(X = R) = p^R` (1 when `R = 0`: every request used its 0 retries),
//! - `E[deliveries] = 1 + E[X]`, with the variance of `X`.
//!
//! With an Idempotency-Key no request is charged twice and there are no extra charges; the
//! key store absorbs the `X` duplicates instead.
//!
//! Everything is computed from sums of positive terms, never as a difference of two close
//! numbers (such as `E[X²] - E[X]²` or `1 - p^R` as p approaches 1), so the variances and the
//! distance of a mean to its largest possible value stay accurate to a few units in the last
//! place for every p in `[0, 1]`.

/// The mean and variance of a per-request quantity (a 0/1 indicator for a rate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    /// The expectation per request.
    pub mean: f64,
    /// The variance per request.
    pub variance: f64,
    /// The largest value the quantity can take minus [`Self::mean`] (1 - P for an indicator,
    /// `R - E[X]` for the retries), computed without cancellation: accurate where the mean is
    /// close to that largest value.
    pub mean_below_maximum: f64,
}

impl Moments {
    /// A quantity that is always `value`.
    pub const fn constant(value: f64) -> Self {
        Self {
            mean: value,
            variance: 0.0,
            mean_below_maximum: 0.0,
        }
    }

    /// A 0/1 indicator that is 1 with probability `probability` and 0 with probability
    /// `complement` (`1 - probability`, passed in so that it can be computed accurately).
    pub fn indicator(probability: f64, complement: f64) -> Self {
        Self {
            mean: probability,
            variance: probability * complement,
            mean_below_maximum: complement,
        }
    }
}

/// `p^k` by repeated multiplication (the same bits on every platform).
fn power(p: f64, k: u32) -> f64 {
    (0..k).fold(1.0, |product, _| product * p)
}

/// `p^0, p^1, ..., p^k`, each by repeated multiplication as [`power`] computes it.
fn powers(p: f64, k: u32) -> Vec<f64> {
    std::iter::successors(Some(1.0), |&product| Some(product * p))
        .take(k as usize + 1)
        .collect()
}

/// `1 - p^k` for `k = 0..=max`, each as `(1 - p)(1 + p + ... + p^(k-1))`: a sum of positive
/// terms, accurate as p approaches 1 where `1 - p^k` itself would lose every digit.
fn one_minus_powers(p: f64, max: u32) -> Vec<f64> {
    let q = 1.0 - p;
    powers(p, max)
        .iter()
        .scan(0.0, |partial_sum, &power| {
            let complement = q * *partial_sum;
            *partial_sum += power;
            Some(complement)
        })
        .collect()
}

/// Whether a request is charged two or more times by the non-idempotent server: `p` if the
/// client may retry at all, else 0.
pub fn double_charged(p: f64, max_retries: u32) -> Moments {
    if max_retries == 0 {
        Moments::constant(0.0)
    } else {
        Moments::indicator(p, 1.0 - p)
    }
}

/// Retries a request makes, `X = attempts - 1`: mean `p + ... + p^R`, its distance to `R`
/// `Σ_{k=1..R} (1 - p^k)`, and the variance summed over the distribution of `X`. This is the
/// non-idempotent server's extra charges per request and the key store's absorbed duplicates
/// per request.
pub fn retries(p: f64, max_retries: u32) -> Moments {
    let powers = powers(p, max_retries);
    let mean = powers[1..].iter().fold(0.0, |mean, &power| mean + power);
    let below_maximum: f64 = one_minus_powers(p, max_retries)[1..].iter().sum();
    // The deviation of X = k from the mean, measured from whichever end the mean is nearer, so
    // that the small distance is never the difference of two large numbers.
    let deviation = |k: u32| {
        if mean <= below_maximum {
            f64::from(k) - mean
        } else {
            f64::from(max_retries - k) - below_maximum
        }
    };
    let variance = (0..=max_retries)
        .zip(&powers)
        .map(|(k, &power)| {
            let probability = if k < max_retries {
                power * (1.0 - p)
            } else {
                power
            };
            probability * deviation(k) * deviation(k)
        })
        .sum();
    Moments {
        mean,
        variance,
        mean_below_maximum: below_maximum,
    }
}

/// Whether a request used every retry (`R + 1` attempts): probability `p^R`.
pub fn retries_exhausted(p: f64, max_retries: u32) -> Moments {
    let complement = one_minus_powers(p, max_retries)[max_retries as usize];
    Moments::indicator(power(p, max_retries), complement)
}

/// Deliveries per request, `1 + X`: the retry amplification.
pub fn deliveries(p: f64, max_retries: u32) -> Moments {
    let retries = retries(p, max_retries);
    Moments {
        mean: 1.0 + retries.mean,
        ..retries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_close(actual: f64, expected: f64) {
        assert!(
            (actual - expected).abs() <= 1e-12,
            "{actual} is not {expected}"
        );
    }

    /// R = 2, p = 1/2, by enumeration: X = 0, 1, 2 with probabilities 1/2, 1/4, 1/4.
    #[test]
    fn two_retries_at_one_half_by_enumeration() {
        let x = retries(0.5, 2);
        assert_close(x.mean, 0.75); // 0·1/2 + 1·1/4 + 2·1/4
        assert_close(x.variance, 1.25 - 0.5625); // E[X²] = 1/4 + 4/4
        assert_close(deliveries(0.5, 2).mean, 1.75);
        assert_close(retries_exhausted(0.5, 2).mean, 0.25);
        assert_close(double_charged(0.5, 2).mean, 0.5);
        assert_close(double_charged(0.5, 2).variance, 0.25);
    }

    /// The article's p = 0.1 with 20 retries: a geometric series, 0.1 (1 - 0.1^20) / 0.9.
    #[test]
    fn twenty_retries_is_almost_the_geometric_series() {
        let x = retries(0.1, 20);
        assert_close(x.mean, 0.1 * (1.0 - 1e-20) / 0.9);
        // Untruncated geometric: Var = p / (1 - p)² = 0.1 / 0.81.
        assert!((x.variance - 0.1 / 0.81).abs() < 1e-12);
        assert_close(retries_exhausted(0.1, 20).mean, 1e-20);
    }

    fn assert_relative(actual: f64, expected: f64, what: &str) {
        let error = ((actual - expected) / expected).abs();
        assert!(
            error < 1e-12,
            "{what}: {actual} is not {expected} ({error:e} relative)"
        );
    }

    /// Exact references, computed with Python's `fractions.Fraction` from the exact binary
    /// value of each p (independently of this module):
    ///
    /// ```python
    /// from fractions import Fraction as F
    /// p = F(p); q = 1 - p
    /// probs = [p**k * q for k in range(R)] + [p**R]          # P(X = k), k = 0..R
    /// mean = sum(k * pk for k, pk in enumerate(probs))
    /// var = sum(pk * (k - mean)**2 for k, pk in enumerate(probs))
    /// float(var), float(R - mean), float(p**R * (1 - p**R))
    /// ```
    ///
    /// `E[X²] - E[X]²` and `p^R (1 - p^R)` in floating point lose every digit near p = 1
    /// (the variance at p = 1 - 2^-53, R = 3 came out 0 or wrong by its own size).
    #[test]
    fn variances_stay_accurate_as_p_approaches_one() {
        let just_below_one = 1.0 - f64::EPSILON / 2.0; // 0.9999999999999999 = 1 - 2^-53
        for (p, max_retries, variance, below_maximum, exhausted_variance) in [
            (
                just_below_one,
                3,
                1.5543122344752186e-15,
                6.661338147750939e-16,
                3.330669073875468e-16,
            ),
            (
                just_below_one,
                20,
                3.186340080674192e-13,
                2.331468351712827e-14,
                2.220446049250306e-15,
            ),
            (
                0.9999999999,
                20,
                2.870000231724864e-07,
                2.100000172424779e-08,
                2.000000159580741e-09,
            ),
            (
                0.9999,
                1000,
                30221.47654309276,
                48.424102691898845,
                0.08611032829300669,
            ),
            (0.5, 2, 0.6875, 1.25, 0.1875),
        ] {
            let what = format!("p = {p}, R = {max_retries}");
            let x = retries(p, max_retries);
            assert_relative(x.variance, variance, &format!("{what}: Var[X]"));
            assert_relative(
                x.mean_below_maximum,
                below_maximum,
                &format!("{what}: R - E[X]"),
            );
            assert_relative(
                deliveries(p, max_retries).variance,
                variance,
                &format!("{what}: Var[deliveries]"),
            );
            assert_relative(
                retries_exhausted(p, max_retries).variance,
                exhausted_variance,
                &format!("{what}: Var[exhausted]"),
            );
        }
        // p = 1e-300, R = 3: Var[X] = 1e-300 (to 17 digits), nothing underflows to a wrong 0.
        assert_relative(retries(1e-300, 3).variance, 1e-300, "p = 1e-300");
    }

    #[test]
    fn edges_zero_and_one_and_no_retries() {
        let none = retries(0.0, 20);
        assert_eq!(
            (none.mean, none.variance, none.mean_below_maximum),
            (0.0, 0.0, 20.0)
        );
        assert_eq!(retries(1.0, 3), Moments::constant(3.0));
        assert_eq!(retries_exhausted(1.0, 3), Moments::indicator(1.0, 0.0));
        assert_eq!(retries_exhausted(0.0, 3), Moments::indicator(0.0, 1.0));
        assert_eq!(retries_exhausted(0.3, 0).mean, 1.0);
        assert_eq!(double_charged(0.3, 0), Moments::constant(0.0));
        assert_eq!(deliveries(0.3, 0), Moments::constant(1.0));
    }
}
