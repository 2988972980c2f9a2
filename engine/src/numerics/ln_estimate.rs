//! A fast estimate of `ln(1 - u)` with a stated error bound, for the Poisson arrival gap,
//! which the model only needs in whole microseconds: the estimate decides the rounded value
//! only when no rounding half lies within its error; otherwise the caller computes it
//! exactly as before (the C library's `ln_1p`), so every result is the exact computation's,
//! whatever the estimate.

/// A bound on the relative error of [`ln_1m`], with a wide margin: the tests measure it
/// below `1e-13` against the C library.
pub const RELATIVE_ERROR: f64 = 1e-9;

/// `ln(1 - u)` for `u` in `[0, 1)`, within `RELATIVE_ERROR × |ln(1 - u)| + 2^-52` absolute
/// (the second term: `1 - u` rounds for `u < 1/2`, by at most `2^-54` relative); NaN outside.
///
/// `1 - u = 2^e m` with `m` in `[√½, √2)`, `ln m = 2 atanh(s)` with `s = (m - 1) / (m + 1)`,
/// `|s| <= 0.172`, by its series to `s^15` (truncation below `0.172^16 / 17 ≈ 3e-14`
/// relative).
#[inline(always)]
pub fn ln_1m(u: f64) -> f64 {
    let y = 1.0 - u;
    if !(y > 0.0 && y <= 1.0) {
        return f64::NAN;
    }
    // y >= 2^-53 is normal: its exponent and mantissa from the bits.
    let bits = y.to_bits();
    let mut exponent = ((bits >> 52) as i64) - 1023;
    let mut mantissa = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    if mantissa > std::f64::consts::SQRT_2 {
        mantissa *= 0.5;
        exponent += 1;
    }
    let s = (mantissa - 1.0) / (mantissa + 1.0);
    let s2 = s * s;
    let s4 = s2 * s2;
    // atanh(s) / s = Σ s^(2n) / (2n + 1), n = 0..=7, in Estrin's scheme over s².
    let pair = |a: f64, b: f64| a + b * s2;
    let low = pair(1.0, 1.0 / 3.0) + pair(1.0 / 5.0, 1.0 / 7.0) * s4;
    let high = pair(1.0 / 9.0, 1.0 / 11.0) + pair(1.0 / 13.0, 1.0 / 15.0) * s4;
    let series = low + high * (s4 * s4);
    exponent as f64 * std::f64::consts::LN_2 + 2.0 * s * series
}

/// The nearest whole number to `x` (halves up, as [`super::latency::round_to_u64`]) when
/// every value within `error` of `x` rounds to it; `None` when a half lies within reach (or
/// `x` is negative, too large or NaN).
#[inline(always)]
pub fn unambiguous_round(x: f64, error: f64) -> Option<u64> {
    if !(0.0..4e15).contains(&x) {
        return None;
    }
    let whole = x as u64;
    let fraction = x - whole as f64;
    ((fraction - 0.5).abs() > error).then_some(whole + u64::from(fraction >= 0.5))
}

/// `microseconds(scale_ms * (-u).ln_1p())` (an exponential duration with mean `-scale_ms`,
/// in whole µs, rounded as [`super::latency::whole_microseconds`]) from `ln`, the estimate
/// [`ln_1m`]`(u)`, when it can tell; `None` when a rounding half lies within its error.
#[inline(always)]
pub fn exponential_us(scale_ms: f64, ln: f64) -> Option<u64> {
    // The estimate's bound, doubled for the products' roundings.
    let error_us = (scale_ms * 1000.0).abs() * (2.0 * RELATIVE_ERROR * ln.abs() + 2f64.powi(-51));
    unambiguous_round(scale_ms * ln * 1000.0, error_us)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random f64 in [0, 1) from a xorshift generator (test inputs only).
    fn uniforms(count: usize) -> impl Iterator<Item = f64> {
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        (0..count).map(move |_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        })
    }

    #[test]
    fn ln_1m_is_within_its_bound_of_the_c_library() {
        let tiny = (1..=53).map(|power| 0.5f64.powi(power));
        let near_one = (1..=53).map(|power| 1.0 - 0.5f64.powi(power));
        let mut worst: f64 = 0.0;
        for u in uniforms(300_000).chain(tiny).chain(near_one).chain([0.0]) {
            let exact = (-u).ln_1p();
            let error = (ln_1m(u) - exact).abs();
            worst = worst.max((error - 2f64.powi(-52)).max(0.0) / exact.abs().max(1e-300));
            assert!(
                error <= 1e-13 * exact.abs() + 2f64.powi(-52),
                "ln(1 - {u}): {} vs {exact}",
                ln_1m(u)
            );
        }
        assert!(worst < 1e-13, "{worst:e}");
        assert!(ln_1m(1.0).is_nan() && ln_1m(-0.5).is_nan() && ln_1m(f64::NAN).is_nan());
    }

    #[test]
    fn an_exponential_gap_is_the_exact_computations_whenever_it_is_told() {
        // mobile-network.toml's 200 payments per second: -1000 / 200 ms.
        let scale_ms = -1000.0 / 200.0;
        let exact = |u: f64| crate::latency::whole_microseconds(scale_ms * (-u).ln_1p());
        let mut told = 0;
        for u in uniforms(300_000) {
            if let Some(us) = exponential_us(scale_ms, ln_1m(u)) {
                assert_eq!(us, exact(u), "u = {u}");
                told += 1;
            }
        }
        assert!(told > 299_000, "{told} told");
        // Gaps of exactly k + 1/2 µs (up to the last bits): too close to tell.
        for k in [0.0, 1.0, 17.0, 4_321.0, 98_765.0] {
            let u = -(-(k + 0.5) / (scale_ms * 1000.0)).exp_m1();
            assert_eq!(exponential_us(scale_ms, ln_1m(u)), None, "{k} + 1/2 µs");
        }
    }

    #[test]
    fn a_value_near_a_half_is_ambiguous() {
        assert_eq!(unambiguous_round(2.4, 0.01), Some(2));
        assert_eq!(unambiguous_round(2.6, 0.01), Some(3));
        assert_eq!(unambiguous_round(2.995, 0.01), Some(3));
        assert_eq!(unambiguous_round(2.5, 0.0), None);
        assert_eq!(unambiguous_round(2.495, 0.01), None);
        assert_eq!(unambiguous_round(2.505, 0.01), None);
        assert_eq!(unambiguous_round(-1.0, 0.01), None);
        assert_eq!(unambiguous_round(f64::NAN, 0.01), None);
        assert_eq!(unambiguous_round(1e300, 0.01), None);
    }
}
