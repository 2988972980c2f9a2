//! The log-normal durations of eight uniform draws in AVX2 registers, two halves of four
//! lanes (processors with AVX2 and FMA but without AVX-512), bit for bit
//! [`Sampler::quantile`](super::distribution::Sampler::quantile) lane by lane: the same IEEE
//! operations in the same order as `quantile_avx512.rs` (AS241's central rational function by
//! Horner's rule, no fused multiply-adds; the tails' rational functions likewise, with the C
//! library's logarithm lane by lane), then the exp replica in four lanes
//! ([`exp::log_normal_vector_avx2`](super::exp::log_normal_vector_avx2)).
//!
//! AVX2 has no mask registers: a lane selection is a vector of all-ones or all-zeros lanes
//! (`_mm256_cmp_pd`), read as four bits with `_mm256_movemask_pd` and applied with
//! `_mm256_blendv_pd`.

use std::arch::x86_64::*;

use super::distribution::{
    CENTRAL_DENOMINATOR, CENTRAL_HALF_WIDTH, CENTRAL_NUMERATOR, FAR_TAIL_DENOMINATOR,
    FAR_TAIL_NUMERATOR, LANES, NEAR_TAIL_DENOMINATOR, NEAR_TAIL_NUMERATOR, normal_tail_quantile,
};

/// Lanes of an AVX2 register of doubles: half of [`LANES`].
const HALF: usize = LANES / 2;

/// `c[0] + c[1] x + ... + c[7] x^7` by Horner's rule from 0, as the scalar `horner` (a product
/// then a sum at each step, never fused).
#[inline]
#[target_feature(enable = "avx2,fma")]
fn horner(x: __m256d, coefficients: &[f64; 8]) -> __m256d {
    coefficients
        .iter()
        .rev()
        .fold(_mm256_setzero_pd(), |sum, &coefficient| {
            _mm256_add_pd(_mm256_mul_pd(sum, x), _mm256_set1_pd(coefficient))
        })
}

/// `median_ms * exp(sigma * normal_quantile(u))` for each of `u`, bit for bit the scalar
/// log-normal quantile.
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn log_normal_quantiles(median_ms: f64, sigma: f64, u: &[f64; LANES]) -> [f64; LANES] {
    let (median, sigma) = (_mm256_set1_pd(median_ms), _mm256_set1_pd(sigma));
    let mut durations = [0.0; LANES];
    for (u, durations) in u.chunks_exact(HALF).zip(durations.chunks_exact_mut(HALF)) {
        // SAFETY: `u` and `durations` are chunks of four doubles; the load and store are
        // unaligned.
        unsafe {
            let z = normal_quantiles(u, _mm256_loadu_pd(u.as_ptr()));
            let half = super::exp::log_normal_vector_avx2(median, sigma, z);
            _mm256_storeu_pd(durations.as_mut_ptr(), half);
        }
    }
    durations
}

/// The standard normal quantile of the four draws `u` (also in `uniforms`): the central
/// region's rational function on every lane, the tails' where a lane needs them.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn normal_quantiles(u: &[f64], uniforms: __m256d) -> __m256d {
    let q = _mm256_sub_pd(uniforms, _mm256_set1_pd(0.5));
    let r = _mm256_sub_pd(_mm256_set1_pd(0.180_625), _mm256_mul_pd(q, q));
    let central = _mm256_div_pd(
        _mm256_mul_pd(q, horner(r, &CENTRAL_NUMERATOR)),
        horner(r, &CENTRAL_DENOMINATOR),
    );
    let magnitude = _mm256_andnot_pd(_mm256_set1_pd(-0.0), q);
    let tail_lanes = _mm256_cmp_pd::<_CMP_GT_OQ>(magnitude, _mm256_set1_pd(CENTRAL_HALF_WIDTH));
    let tail_bits = _mm256_movemask_pd(tail_lanes);
    if tail_bits == 0 {
        central
    } else {
        _mm256_blendv_pd(central, tails(u, uniforms, q, tail_bits), tail_lanes)
    }
}

/// The normal quantile in the tails (`normal_tail_quantile`) on the lanes whose bits are set
/// in `tail_bits` (others: anything), `uniforms` holding the four draws `u` and `q` being
/// `u - 0.5`: the logarithm from the C library lane by lane, the rest side by side.
#[inline]
#[target_feature(enable = "avx2,fma")]
fn tails(u: &[f64], uniforms: __m256d, q: __m256d, tail_bits: i32) -> __m256d {
    let lower = _mm256_cmp_pd::<_CMP_LT_OQ>(q, _mm256_setzero_pd());
    // The tail's probability: u below the median, 1 - u above it.
    let tail = _mm256_blendv_pd(
        _mm256_sub_pd(_mm256_set1_pd(1.0), uniforms),
        uniforms,
        lower,
    );
    let mut logarithms = [0.0; HALF];
    // SAFETY: stores and loads four f64s to and from arrays of four.
    unsafe {
        _mm256_storeu_pd(logarithms.as_mut_ptr(), tail);
    }
    let mut lanes = tail_bits;
    let mut at_zero = 0i32;
    while lanes != 0 {
        let lane = lanes.trailing_zeros() as usize;
        if logarithms[lane] <= 0.0 {
            at_zero |= 1 << lane;
        }
        logarithms[lane] = logarithms[lane].ln();
        lanes &= lanes - 1;
    }
    // SAFETY: as above.
    let logarithms = unsafe { _mm256_loadu_pd(logarithms.as_ptr()) };
    let sign = _mm256_set1_pd(-0.0);
    let r = _mm256_sqrt_pd(_mm256_xor_pd(logarithms, sign));
    let near_r = _mm256_sub_pd(r, _mm256_set1_pd(1.6));
    let near = _mm256_div_pd(
        horner(near_r, &NEAR_TAIL_NUMERATOR),
        horner(near_r, &NEAR_TAIL_DENOMINATOR),
    );
    let far_r = _mm256_sub_pd(r, _mm256_set1_pd(5.0));
    let far = _mm256_div_pd(
        horner(far_r, &FAR_TAIL_NUMERATOR),
        horner(far_r, &FAR_TAIL_DENOMINATOR),
    );
    let near_lanes = _mm256_cmp_pd::<_CMP_LE_OQ>(r, _mm256_set1_pd(5.0));
    let z = _mm256_blendv_pd(far, near, near_lanes);
    let z = _mm256_blendv_pd(z, _mm256_xor_pd(z, sign), lower);
    if at_zero == 0 {
        return z;
    }
    // A draw of exactly 0: the scalar code's infinity.
    let mut values = [0.0; HALF];
    // SAFETY: as above.
    unsafe {
        _mm256_storeu_pd(values.as_mut_ptr(), z);
    }
    let mut lanes = at_zero;
    while lanes != 0 {
        let lane = lanes.trailing_zeros() as usize;
        values[lane] = normal_tail_quantile(u[lane], u[lane] - 0.5);
        lanes &= lanes - 1;
    }
    // SAFETY: as above.
    unsafe { _mm256_loadu_pd(values.as_ptr()) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::timeline::distribution::{Distribution, Sampler};
    use crate::model::timeline::quantile_avx512::tests::uniforms;

    #[test]
    fn eight_at_a_time_is_the_scalar_quantile_bit_for_bit() {
        if !crate::model::timeline::exp::avx2_fma_available() {
            eprintln!("skipped: this processor has no AVX2 and FMA");
            return;
        }
        for (median_ms, p99_ms) in [(60.0, 600.0), (150.0, 1_200.0), (80.0, 2_500.0), (5.0, 5.0)] {
            let sampler = Distribution::LogNormal { median_ms, p99_ms }.sampler();
            let Sampler::LogNormal { median_ms, sigma } = sampler else {
                panic!("a log-normal sampler");
            };
            for lanes in uniforms().chunks_exact(LANES) {
                let lanes: &[f64; LANES] = lanes.try_into().expect("eight");
                // SAFETY: the processor has AVX2 and FMA (checked above).
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
