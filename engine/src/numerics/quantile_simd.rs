//! The log-normal durations of eight uniform draws side by side in vector registers, bit for
//! bit [`Sampler::quantile`](super::distribution::Sampler::quantile) lane by lane: the same
//! IEEE operations in the same order (AS241's central rational function by Horner's rule, no
//! fused multiply-adds; the tails' rational functions likewise, with the C library's
//! logarithm lane by lane), then the exp replica ([`super::exp`]).
//!
//! The arithmetic is written once, over [`Vector`](super::vector::Vector): eight lanes in one
//! AVX-512 register or four in an AVX2 one, twice (processors with AVX2 and FMA but without
//! AVX-512).

use super::exp::log_normal_lanes;
use super::normal::{
    CENTRAL_DENOMINATOR, CENTRAL_HALF_WIDTH, CENTRAL_NUMERATOR, FAR_TAIL_DENOMINATOR,
    FAR_TAIL_NUMERATOR, NEAR_TAIL_DENOMINATOR, NEAR_TAIL_NUMERATOR, normal_tail_quantile,
};
use super::vector::Vector;
use crate::distribution::LANES;

/// `c[0] + c[1] x + ... + c[7] x^7` by Horner's rule from 0, as the scalar `horner` (a product
/// then a sum at each step, never fused).
#[inline(always)]
fn horner<V: Vector>(x: V, zero: V, coefficients: &[f64; 8]) -> V {
    let mut sum = zero;
    let mut degree = coefficients.len();
    while degree > 0 {
        degree -= 1;
        // SAFETY: `x` exists, so the processor has `V`'s instruction set.
        sum = sum.mul(x).add(unsafe { V::splat(coefficients[degree]) });
    }
    sum
}

/// `median_ms * exp(sigma * normal_quantile(u))` for each of `u`, bit for bit the scalar
/// log-normal quantile, `V::WIDTH` lanes at a time.
///
/// # Safety
/// The processor must have `V`'s instruction set.
#[inline(always)]
pub unsafe fn log_normal_quantiles<V: Vector>(
    median_ms: f64,
    sigma: f64,
    u: &[f64; LANES],
) -> [f64; LANES] {
    // SAFETY: the caller guarantees `V`'s instruction set.
    let (median, sigma) = unsafe { (V::splat(median_ms), V::splat(sigma)) };
    let mut durations = [0.0; LANES];
    let mut first = 0;
    while first < LANES {
        let lanes = &u[first..first + V::WIDTH];
        // SAFETY: as above.
        let z = normal_quantiles(lanes, unsafe { V::load(lanes) });
        log_normal_lanes(median, sigma, z).store(&mut durations[first..first + V::WIDTH]);
        first += V::WIDTH;
    }
    durations
}

/// The standard normal quantile of the draws `u` (also in `uniforms`): the central region's
/// rational function on every lane, the tails' where a lane needs them.
#[inline(always)]
fn normal_quantiles<V: Vector>(u: &[f64], uniforms: V) -> V {
    // SAFETY (the splats): `uniforms` exists, so the processor has `V`'s instruction set.
    let constant = |x: f64| unsafe { V::splat(x) };
    let zero = constant(0.0);
    let q = uniforms.sub(constant(0.5));
    let r = constant(0.180_625).sub(q.mul(q));
    let central =
        q.mul(horner(r, zero, &CENTRAL_NUMERATOR))
            .div(horner(r, zero, &CENTRAL_DENOMINATOR));
    let tail_lanes = q.abs().greater(constant(CENTRAL_HALF_WIDTH));
    if tail_lanes == 0 {
        central
    } else {
        central.blend(tail_lanes, tails(u, uniforms, q, tail_lanes))
    }
}

/// The normal quantile in the tails (`normal_tail_quantile`) on the lanes whose bits are set
/// in `tail_lanes` (others: anything), `uniforms` holding the draws `u` and `q` being
/// `u - 0.5`: the logarithm from the C library lane by lane, the rest side by side.
#[inline(always)]
fn tails<V: Vector>(u: &[f64], uniforms: V, q: V, tail_lanes: u32) -> V {
    // SAFETY (the splats and loads): `uniforms` exists, so the processor has `V`'s
    // instruction set.
    let constant = |x: f64| unsafe { V::splat(x) };
    let zero = constant(0.0);
    let lower = q.less(zero);
    // The tail's probability: u below the median, 1 - u above it.
    let tail = constant(1.0).sub(uniforms).blend(lower, uniforms);
    let mut logarithms = [0.0; LANES];
    tail.store(&mut logarithms);
    let mut lanes = tail_lanes;
    let mut at_zero = 0u32;
    while lanes != 0 {
        let lane = lanes.trailing_zeros() as usize;
        if logarithms[lane] <= 0.0 {
            at_zero |= 1 << lane;
        }
        logarithms[lane] = logarithms[lane].ln();
        lanes &= lanes - 1;
    }
    let r = unsafe { V::load(&logarithms) }.negate().sqrt();
    let near_r = r.sub(constant(1.6));
    let near = horner(near_r, zero, &NEAR_TAIL_NUMERATOR).div(horner(
        near_r,
        zero,
        &NEAR_TAIL_DENOMINATOR,
    ));
    let far_r = r.sub(constant(5.0));
    let far =
        horner(far_r, zero, &FAR_TAIL_NUMERATOR).div(horner(far_r, zero, &FAR_TAIL_DENOMINATOR));
    // Near where r <= 5: far where r > 5 (r is never NaN here).
    let z = near.blend(r.greater(constant(5.0)), far);
    let z = z.blend(lower, z.negate());
    if at_zero == 0 {
        return z;
    }
    // A draw of exactly 0: the scalar code's infinity.
    let mut values = [0.0; LANES];
    z.store(&mut values);
    let mut lanes = at_zero;
    while lanes != 0 {
        let lane = lanes.trailing_zeros() as usize;
        values[lane] = normal_tail_quantile(u[lane], u[lane] - 0.5);
        lanes &= lanes - 1;
    }
    unsafe { V::load(&values) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distribution::{Distribution, Sampler};
    use crate::numerics::vector::{Avx2, Avx512};

    /// Uniforms where the arithmetic changes course: 0, the smallest draws, both edges of the
    /// central region, the median, the near and far tails' border (`r = 5`, `u ≈ 1.4e-11`),
    /// the largest draw below 1, and a dense grid and random draws in between.
    fn uniforms() -> Vec<f64> {
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

    /// `quantiles` (eight lanes at a time) against the scalar log-normal quantile, bit for
    /// bit, for the mobile network's three log-normals and a degenerate one.
    fn bit_for_bit(quantiles: impl Fn(f64, f64, &[f64; LANES]) -> [f64; LANES]) {
        for (median_ms, p99_ms) in [(60.0, 600.0), (150.0, 1_200.0), (80.0, 2_500.0), (5.0, 5.0)] {
            let sampler = Distribution::LogNormal { median_ms, p99_ms }.sampler();
            let Sampler::LogNormal { median_ms, sigma } = sampler else {
                panic!("a log-normal sampler");
            };
            for lanes in uniforms().chunks_exact(LANES) {
                let lanes: &[f64; LANES] = lanes.try_into().expect("eight");
                let side_by_side = quantiles(median_ms, sigma, lanes);
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

    #[test]
    #[cfg_attr(not(processor_has_avx512), ignore = "this processor has no AVX-512")]
    fn eight_at_a_time_with_avx512_is_the_scalar_quantile_bit_for_bit() {
        assert!(crate::cpu::processor().avx512, "needs AVX-512F and DQ");
        // SAFETY: the processor has AVX-512F and DQ (checked above).
        bit_for_bit(|median_ms, sigma, u| unsafe {
            log_normal_quantiles::<Avx512>(median_ms, sigma, u)
        });
    }

    #[test]
    #[cfg_attr(
        not(processor_has_avx2_fma),
        ignore = "this processor has no AVX2 and FMA"
    )]
    fn eight_at_a_time_with_avx2_is_the_scalar_quantile_bit_for_bit() {
        assert!(crate::cpu::processor().avx2_fma, "needs AVX2 and FMA");
        // SAFETY: the processor has AVX2 and FMA (checked above).
        bit_for_bit(|median_ms, sigma, u| unsafe {
            log_normal_quantiles::<Avx2>(median_ms, sigma, u)
        });
    }
}
