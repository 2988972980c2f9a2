//! Sixteen PCG64 streams stepped side by side in two 512-bit vectors on x86-64 with AVX-512
//! (F + DQ), collecting the states whose draw falls below a threshold (the article model's
//! scan for lost first ACKs). Stepping one [`PcgState`](super::PcgState) at a time is the
//! reference; the tests require the same states, and [`crate::cpu::avx512`] decides.
//!
//! A 128-bit LCG step `state * M + increment (mod 2^128)` is built from 64-bit lanes: the low
//! word's full 128-bit product with `M`'s low word comes from four 32 x 32 -> 64 multiplies
//! (`vpmuludq`), the two cross terms only need their low 64 bits (`vpmullq`), and the carry of
//! the low addition is a lane mask. The output is XSL-RR (`vprorvq`), compared as an integer
//! with the loss threshold exactly as the portable code does.

use std::arch::x86_64::*;

use super::PCG64_MULTIPLIER;

/// States stepped side by side: two vectors of eight.
pub const LANES: usize = 16;

/// Constants of one scan, broadcast to every lane.
struct Constants {
    multiplier_low: __m512i,
    multiplier_low_high_half: __m512i,
    multiplier_high: __m512i,
    increment_low: __m512i,
    increment_high: __m512i,
    low_32_bits: __m512i,
    one: __m512i,
    threshold: __m512i,
}

/// Steps each of the sixteen `starts` states `steps` times. Every state whose draw
/// (`output >> 11`) is below `threshold` is collected; `on_lost` receives them in batches of
/// at least `batch` (and the rest at the end), in no particular order.
///
/// # Safety
/// The processor must support AVX-512F and AVX-512DQ ([`crate::cpu::avx512`]).
#[target_feature(enable = "avx512f,avx512dq")]
pub unsafe fn scan(
    starts: &[u128; LANES],
    increment: u128,
    steps: u64,
    threshold: u64,
    batch: usize,
    on_lost: &mut dyn FnMut(&[u128]),
) {
    let split = |value: u128| (value as u64 as i64, (value >> 64) as u64 as i64);
    let (multiplier_low, multiplier_high) = split(PCG64_MULTIPLIER);
    let (increment_low, increment_high) = split(increment);
    let constants = Constants {
        multiplier_low: _mm512_set1_epi64(multiplier_low),
        multiplier_low_high_half: _mm512_set1_epi64(((multiplier_low as u64) >> 32) as i64),
        multiplier_high: _mm512_set1_epi64(multiplier_high),
        increment_low: _mm512_set1_epi64(increment_low),
        increment_high: _mm512_set1_epi64(increment_high),
        low_32_bits: _mm512_set1_epi64(0xffff_ffff),
        one: _mm512_set1_epi64(1),
        threshold: _mm512_set1_epi64(threshold as i64),
    };
    let words = |half: usize, high: bool| {
        let word = |lane: usize| {
            let state = starts[half * 8 + lane];
            (if high { state >> 64 } else { state }) as u64 as i64
        };
        _mm512_setr_epi64(
            word(0),
            word(1),
            word(2),
            word(3),
            word(4),
            word(5),
            word(6),
            word(7),
        )
    };
    let mut low = [words(0, false), words(1, false)];
    let mut high = [words(0, true), words(1, true)];

    // Lost states are compressed to the front of a vector and stored whole at the fill
    // position; the next store overwrites the unused tail. Hence the slack of 8 words.
    let mut lost_low = vec![0u64; batch + LANES + 8];
    let mut lost_high = vec![0u64; batch + LANES + 8];
    let mut count = 0usize;
    let mut deliver = |lost_low: &[u64], lost_high: &[u64]| {
        let states: Vec<u128> = lost_low
            .iter()
            .zip(lost_high)
            .map(|(&low, &high)| (u128::from(high) << 64) | u128::from(low))
            .collect();
        on_lost(&states);
    };
    for _ in 0..steps {
        for vector in 0..2 {
            let (next_low, next_high) = step(&constants, low[vector], high[vector]);
            low[vector] = next_low;
            high[vector] = next_high;
            let lost = below_threshold(&constants, next_low, next_high);
            // SAFETY: `count <= batch + LANES - 8` here (it is reset once it reaches `batch`
            // and grows by at most 8 per vector), so 8 words fit from `count` on.
            unsafe {
                _mm512_storeu_si512(
                    lost_low.as_mut_ptr().add(count).cast(),
                    _mm512_maskz_compress_epi64(lost, next_low),
                );
                _mm512_storeu_si512(
                    lost_high.as_mut_ptr().add(count).cast(),
                    _mm512_maskz_compress_epi64(lost, next_high),
                );
            }
            count += lost.count_ones() as usize;
        }
        if count >= batch {
            deliver(&lost_low[..count], &lost_high[..count]);
            count = 0;
        }
    }
    deliver(&lost_low[..count], &lost_high[..count]);
}

/// One LCG step of eight lanes: `(high:low) * M + increment`, modulo 2^128.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn step(constants: &Constants, low: __m512i, high: __m512i) -> (__m512i, __m512i) {
    // low * M_low as a full 128-bit product, from 32-bit halves: a = a1:a0, b = b1:b0.
    let low_high_half = _mm512_srli_epi64(low, 32);
    let a0b0 = _mm512_mul_epu32(low, constants.multiplier_low);
    let a0b1 = _mm512_mul_epu32(low, constants.multiplier_low_high_half);
    let a1b0 = _mm512_mul_epu32(low_high_half, constants.multiplier_low);
    let a1b1 = _mm512_mul_epu32(low_high_half, constants.multiplier_low_high_half);
    let middle = _mm512_add_epi64(
        _mm512_add_epi64(
            _mm512_srli_epi64(a0b0, 32),
            _mm512_and_si512(a0b1, constants.low_32_bits),
        ),
        _mm512_and_si512(a1b0, constants.low_32_bits),
    );
    let product_high = _mm512_add_epi64(
        _mm512_add_epi64(a1b1, _mm512_srli_epi64(middle, 32)),
        _mm512_add_epi64(_mm512_srli_epi64(a0b1, 32), _mm512_srli_epi64(a1b0, 32)),
    );
    let product_low = _mm512_or_si512(
        _mm512_slli_epi64(middle, 32),
        _mm512_and_si512(a0b0, constants.low_32_bits),
    );
    // The cross terms only reach the high word, so their low 64 bits suffice.
    let cross = _mm512_add_epi64(
        _mm512_mullo_epi64(low, constants.multiplier_high),
        _mm512_mullo_epi64(high, constants.multiplier_low),
    );
    let next_low = _mm512_add_epi64(product_low, constants.increment_low);
    let carry = _mm512_cmplt_epu64_mask(next_low, product_low);
    let next_high = _mm512_add_epi64(
        _mm512_add_epi64(product_high, cross),
        constants.increment_high,
    );
    let next_high = _mm512_mask_add_epi64(next_high, carry, next_high, constants.one);
    (next_low, next_high)
}

/// The lanes whose XSL-RR output, shifted right by 11, is below the threshold.
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn below_threshold(constants: &Constants, low: __m512i, high: __m512i) -> __mmask8 {
    let folded = _mm512_xor_si512(high, low);
    let output = _mm512_rorv_epi64(folded, _mm512_srli_epi64(high, 58));
    _mm512_cmplt_epu64_mask(_mm512_srli_epi64(output, 11), constants.threshold)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SeedSequence;

    #[test]
    #[cfg_attr(not(processor_has_avx512), ignore = "this processor has no AVX-512")]
    fn steps_and_selects_exactly_like_the_portable_generator() {
        assert!(crate::cpu::processor().avx512, "needs AVX-512F and DQ");
        let start = SeedSequence::new(42).pcg_state();
        let starts: [u128; LANES] = std::array::from_fn(|lane| {
            let mut state = start;
            state.advance(lane as u128 * 1000);
            state.state()
        });
        let threshold = 1u64 << 52; // draws below 0.5
        let steps = 1000;
        let mut expected = Vec::new();
        for &lane in &starts {
            let mut state = start.with_state(lane);
            for _ in 0..steps {
                state.step();
                if state.output() >> 11 < threshold {
                    expected.push(state.state());
                }
            }
        }
        let mut found = Vec::new();
        // SAFETY: checked above.
        unsafe {
            scan(
                &starts,
                start.increment(),
                steps,
                threshold,
                64,
                &mut |states| found.extend_from_slice(states),
            );
        }
        expected.sort_unstable();
        found.sort_unstable();
        assert!(
            expected.len() > 7000,
            "about half of 16,000 draws are below 0.5"
        );
        assert_eq!(found, expected);
    }
}
