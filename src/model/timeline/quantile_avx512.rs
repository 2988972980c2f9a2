//! The log-normal durations of eight uniform draws side by side in AVX-512 registers, bit for
//! bit [`Sampler::quantile`](super::distribution::Sampler::quantile) lane by lane: the same
//! IEEE operations in the same order (AS241's central rational function by Horner's rule, no
//! fused multiply-adds; the tails' rational functions likewise, with the C library's
//! logarithm lane by lane), and the C library's `exp`.

use std::arch::x86_64::*;

use super::distribution::{
    CENTRAL_DENOMINATOR, CENTRAL_HALF_WIDTH, CENTRAL_NUMERATOR, FAR_TAIL_DENOMINATOR,
    FAR_TAIL_NUMERATOR, LANES, NEAR_TAIL_DENOMINATOR, NEAR_TAIL_NUMERATOR, normal_tail_quantile,
};

/// `c[0] + c[1] x + ... + c[7] x^7` by Horner's rule from 0, as the scalar `horner`.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn horner(x: __m512d, coefficients: &[f64; 8]) -> __m512d {
    coefficients
        .iter()
        .rev()
        .fold(_mm512_setzero_pd(), |sum, &coefficient| {
            _mm512_add_pd(_mm512_mul_pd(sum, x), _mm512_set1_pd(coefficient))
        })
}

/// `median_ms * exp(sigma * normal_quantile(u))` for each of `u`, bit for bit the scalar
/// log-normal quantile.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub fn log_normal_quantiles(median_ms: f64, sigma: f64, u: &[f64; LANES]) -> [f64; LANES] {
    // SAFETY: the loads and stores read and write eight f64s of arrays of eight.
    unsafe {
        let uniforms = _mm512_loadu_pd(u.as_ptr());
        let q = _mm512_sub_pd(uniforms, _mm512_set1_pd(0.5));
        let r = _mm512_sub_pd(_mm512_set1_pd(0.180_625), _mm512_mul_pd(q, q));
        let central = _mm512_div_pd(
            _mm512_mul_pd(q, horner(r, &CENTRAL_NUMERATOR)),
            horner(r, &CENTRAL_DENOMINATOR),
        );
        let tail_lanes =
            _mm512_cmp_pd_mask::<_CMP_GT_OQ>(_mm512_abs_pd(q), _mm512_set1_pd(CENTRAL_HALF_WIDTH));
        let z = if tail_lanes == 0 {
            central
        } else {
            _mm512_mask_blend_pd(tail_lanes, central, tails(u, uniforms, q, tail_lanes))
        };
        let mut durations = [0.0; LANES];
        _mm512_storeu_pd(
            durations.as_mut_ptr(),
            super::exp::log_normal_vector(_mm512_set1_pd(median_ms), _mm512_set1_pd(sigma), z),
        );
        durations
    }
}

/// The normal quantile in the tails (`normal_tail_quantile`) on the lanes of `tail_lanes`
/// (others: anything), `uniforms` holding `u` and `q` being `u - 0.5`: the logarithm from the
/// C library lane by lane, the rest side by side.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn tails(u: &[f64; LANES], uniforms: __m512d, q: __m512d, tail_lanes: u8) -> __m512d {
    let lower = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(q, _mm512_setzero_pd());
    // The tail's probability: u below the median, 1 - u above it.
    let tail = _mm512_mask_blend_pd(
        lower,
        _mm512_sub_pd(_mm512_set1_pd(1.0), uniforms),
        uniforms,
    );
    let mut logarithms = [0.0; LANES];
    // SAFETY: stores and loads eight f64s to and from arrays of eight.
    unsafe {
        _mm512_storeu_pd(logarithms.as_mut_ptr(), tail);
    }
    let mut lanes = tail_lanes;
    let mut at_zero = 0u8;
    while lanes != 0 {
        let lane = lanes.trailing_zeros() as usize;
        if logarithms[lane] <= 0.0 {
            at_zero |= 1 << lane;
        }
        logarithms[lane] = logarithms[lane].ln();
        lanes &= lanes - 1;
    }
    // SAFETY: as above.
    let logarithms = unsafe { _mm512_loadu_pd(logarithms.as_ptr()) };
    let sign = _mm512_set1_pd(-0.0);
    let r = _mm512_sqrt_pd(_mm512_xor_pd(logarithms, sign));
    let near_r = _mm512_sub_pd(r, _mm512_set1_pd(1.6));
    let near = _mm512_div_pd(
        horner(near_r, &NEAR_TAIL_NUMERATOR),
        horner(near_r, &NEAR_TAIL_DENOMINATOR),
    );
    let far_r = _mm512_sub_pd(r, _mm512_set1_pd(5.0));
    let far = _mm512_div_pd(
        horner(far_r, &FAR_TAIL_NUMERATOR),
        horner(far_r, &FAR_TAIL_DENOMINATOR),
    );
    let near_lanes = _mm512_cmp_pd_mask::<_CMP_LE_OQ>(r, _mm512_set1_pd(5.0));
    let z = _mm512_mask_blend_pd(near_lanes, far, near);
    let z = _mm512_mask_blend_pd(lower, z, _mm512_xor_pd(z, sign));
    if at_zero == 0 {
        return z;
    }
    // A draw of exactly 0: the scalar code's infinity.
    let mut values = [0.0; LANES];
    // SAFETY: as above.
    unsafe {
        _mm512_storeu_pd(values.as_mut_ptr(), z);
    }
    let mut lanes = at_zero;
    while lanes != 0 {
        let lane = lanes.trailing_zeros() as usize;
        values[lane] = normal_tail_quantile(u[lane], u[lane] - 0.5);
        lanes &= lanes - 1;
    }
    // SAFETY: as above.
    unsafe { _mm512_loadu_pd(values.as_ptr()) }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::model::timeline::distribution::Distribution;

    /// Uniforms where the arithmetic changes course: 0, the smallest draws, both edges of the
    /// central region, the median, the near and far tails' border (`r = 5`, `u ≈ 1.4e-11`),
    /// the largest draw below 1, and a dense grid and random draws in between.
    pub(in crate::model::timeline) fn uniforms() -> Vec<f64> {
        let step = 2f64.powi(-53);
        let mut u = vec![0.0, step, 2.0 * step, 1e-300_f64.max(step), 1.0 - step, 0.5];
        for edge in [0.075, 0.925, (-25.0f64).exp(), 1.0 - (-25.0f64).exp()] {
            for k in -4..=4 {
                u.push(edge + f64::from(k) * step * 4.0);
            }
        }
        u.extend((0..20_000).map(|k| f64::from(k) / 20_000.0));
        let mut stream = crate::rng::SeedSequence::new(11).pcg64();
        use rand_core::Rng;
        u.extend((0..20_000).map(|_| crate::rng::unit_f64(stream.next_u64())));
        // Lanes in every mix of central and tail draws: shuffle by a stride.
        let len = u.len();
        (0..len).map(|k| u[(k * 7_919) % len]).collect()
    }

    #[test]
    fn eight_at_a_time_is_the_scalar_quantile_bit_for_bit() {
        if !(is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq")) {
            eprintln!("skipped: this processor has no AVX-512");
            return;
        }
        for (median_ms, p99_ms) in [(60.0, 600.0), (150.0, 1_200.0), (80.0, 2_500.0), (5.0, 5.0)] {
            let distribution = Distribution::LogNormal { median_ms, p99_ms };
            let sampler = distribution.sampler();
            let crate::model::timeline::distribution::Sampler::LogNormal { median_ms, sigma } =
                sampler
            else {
                panic!("a log-normal sampler");
            };
            for lanes in uniforms().chunks_exact(LANES) {
                let lanes: &[f64; LANES] = lanes.try_into().expect("eight");
                // SAFETY: the processor has AVX-512F and DQ (checked above).
                let side_by_side = unsafe { log_normal_quantiles(median_ms, sigma, lanes) };
                for (lane, &u) in lanes.iter().enumerate() {
                    assert_eq!(
                        side_by_side[lane].to_bits(),
                        sampler.quantile(u).to_bits(),
                        "u = {u:e}, median {median_ms}, p99 {p99_ms}: {} vs {}",
                        side_by_side[lane],
                        sampler.quantile(u)
                    );
                }
            }
        }
    }
}
