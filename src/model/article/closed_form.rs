//! The exact per-request expectations (and variances) of the article model, in closed form.
//!
//! Every attempt's ACK is lost independently with probability `p`; a client retries at most
//! `R` times. The number of retries `X = attempts - 1` is the number of losses in a row before
//! the first ACK arrives, stopped at `R`, so `P(X >= k) = p^k` for `k = 0..=R` and 0 beyond.
//! Hence (derivation in `docs/closed-forms.md`):
//!
//! - `P(double-charged without key) = P(X >= 1) = p` when `R >= 1` (0 when `R = 0`),
//! - `E[extra charges] = E[X] = Σ_{k=1..R} P(X >= k) = p + p² + ... + p^R`,
//! - `E[X²] = Σ_{k=1..R} (2k - 1) p^k`, so `Var[X] = E[X²] - E[X]²`,
//! - `P(retries exhausted) = P(X = R) = p^R` (1 when `R = 0`: every request used its 0 retries),
//! - `E[deliveries] = 1 + E[X]`, with the variance of `X`.
//!
//! With an Idempotency-Key no request is charged twice and there are no extra charges; the
//! key store absorbs the `X` duplicates instead.

/// The mean and variance of a per-request quantity (a 0/1 indicator for a rate).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    /// The expectation per request.
    pub mean: f64,
    /// The variance per request.
    pub variance: f64,
}

impl Moments {
    /// A quantity that is always `value`.
    pub const fn constant(value: f64) -> Self {
        Self {
            mean: value,
            variance: 0.0,
        }
    }

    /// A 0/1 indicator that is 1 with probability `probability`.
    pub fn indicator(probability: f64) -> Self {
        Self {
            mean: probability,
            variance: probability * (1.0 - probability),
        }
    }
}

/// `p^k` by repeated multiplication (the same bits on every platform).
fn power(p: f64, k: u32) -> f64 {
    (0..k).fold(1.0, |product, _| product * p)
}

/// Whether a request is charged two or more times by the non-idempotent server: `p` if the
/// client may retry at all, else 0.
pub fn double_charged(p: f64, max_retries: u32) -> Moments {
    if max_retries == 0 {
        Moments::constant(0.0)
    } else {
        Moments::indicator(p)
    }
}

/// Retries a request makes, `X = attempts - 1`: mean `p + ... + p^R`, second moment
/// `Σ (2k - 1) p^k`. This is the non-idempotent server's extra charges per request and the key
/// store's absorbed duplicates per request.
pub fn retries(p: f64, max_retries: u32) -> Moments {
    let (mean, second_moment) = (1..=max_retries).fold((0.0, 0.0), |(mean, second), k| {
        let tail = power(p, k);
        (mean + tail, second + f64::from(2 * k - 1) * tail)
    });
    Moments {
        mean,
        variance: (second_moment - mean * mean).max(0.0),
    }
}

/// Whether a request used every retry (`R + 1` attempts): probability `p^R`.
pub fn retries_exhausted(p: f64, max_retries: u32) -> Moments {
    Moments::indicator(power(p, max_retries))
}

/// Deliveries per request, `1 + X`: the retry amplification.
pub fn deliveries(p: f64, max_retries: u32) -> Moments {
    let retries = retries(p, max_retries);
    Moments {
        mean: 1.0 + retries.mean,
        variance: retries.variance,
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

    #[test]
    fn edges_zero_and_one_and_no_retries() {
        assert_eq!(retries(0.0, 20), Moments::constant(0.0));
        assert_eq!(retries(1.0, 3), Moments::constant(3.0));
        assert_eq!(retries_exhausted(1.0, 3).mean, 1.0);
        assert_eq!(retries_exhausted(0.3, 0).mean, 1.0);
        assert_eq!(double_charged(0.3, 0), Moments::constant(0.0));
        assert_eq!(deliveries(0.3, 0), Moments::constant(1.0));
    }
}
