//! Tests of the `exp` replica: bit for bit the C library's `exp` (on inputs the model meets,
//! random ones and the edges of each rounding), eight lanes as one, every fused step needed,
//! and the table regenerated with exact fixed-point arithmetic.

use super::*;
use crate::distribution::{Distribution, Sampler};
use crate::numerics::normal::normal_quantile;
use crate::rng::PcgState;

/// The comparison with the C library means something only where it is glibc's `__exp_fma`
/// (x86-64 Linux glibc on a processor with FMA and AVX2): the tests that make it are ignored
/// elsewhere (the build script's `c_library_is_glibc_fma`), and fail if run where it is not.
fn assert_c_library_replicated() {
    assert!(
        replicates_c_library(),
        "the C library's exp here is not glibc's __exp_fma, so it may round differently"
    );
}

/// The inputs where `replica` differs from the C library's `exp`, bit for bit.
fn mismatches(inputs: &[f64], replica: impl Fn(f64) -> f64) -> Vec<f64> {
    inputs
        .iter()
        .copied()
        .filter(|&x| replica(x).to_bits() != std::hint::black_box(x).exp().to_bits())
        .collect()
}

/// The inputs where [`exp8`] differs from the C library's `exp`, eight at a time (the last
/// chunk padded with NaN, which takes the scalar detour).
fn mismatches8(inputs: &[f64]) -> Vec<f64> {
    let mut wrong = Vec::new();
    for chunk in inputs.chunks(8) {
        let mut lanes = [f64::NAN; 8];
        lanes[..chunk.len()].copy_from_slice(chunk);
        for (x, y) in lanes.iter().zip(exp8(lanes)) {
            if y.to_bits() != std::hint::black_box(*x).exp().to_bits() {
                wrong.push(*x);
            }
        }
    }
    wrong
}

/// `count` uniform doubles in `[low, high)` from a fixed PCG64 stream.
fn uniform(count: usize, low: f64, high: f64, stream: u128) -> Vec<f64> {
    let mut rng = PcgState::new(0x5eed, stream);
    (0..count)
        .map(|_| low + (high - low) * crate::rng::unit_f64(rng.next_u64()))
        .collect()
}

/// The `steps` doubles on each side of `x` and `x` itself.
fn neighbours(x: f64, steps: i64) -> impl Iterator<Item = f64> {
    (-steps..=steps).map(move |step| f64::from_bits(x.to_bits().wrapping_add_signed(step)))
}

/// The inputs around each place where the rounding of `x N / ln 2` to an integer flips (the
/// half-way points `(k + 1/2) ln 2 / N`), for every `k` with `|x| < 40` and a sample of `k`
/// up to `|x| = 512`, three doubles on each side.
fn half_way_points() -> Vec<f64> {
    let dense = (40.0 * INV_LN2_N) as i64;
    let sparse = (512.0 * INV_LN2_N) as i64;
    (-sparse..sparse)
        .filter(|k| k.abs() <= dense || k % 97 == 0)
        .flat_map(|k| neighbours((k as f64 + 0.5) / INV_LN2_N, 3))
        .collect()
}

/// The inputs around every edge of the common path (`2^-54`, `512`, both signs), of the
/// results' range (overflow, subnormal, underflow), zero and the model's `|x| <= 40`.
fn edges() -> Vec<f64> {
    let points = [
        0.0,
        f64::MIN_POSITIVE,
        2f64.powi(-54),
        2f64.powi(-53),
        1.0,
        40.0,
        511.999,
        512.0,
        709.782712893384,
        1024.0,
        745.1332191019411,
        708.3964185322641,
        f64::MAX,
        f64::INFINITY,
    ];
    points
        .iter()
        .flat_map(|&x| neighbours(x, 64).chain(neighbours(-x, 64)))
        .chain([f64::NAN, -f64::NAN])
        .collect()
}

/// `count` doubles with uniformly random bits: every exponent, subnormals, infinities, NaN.
fn random_bits(count: usize) -> Vec<f64> {
    let mut rng = PcgState::new(0xb175, 7);
    (0..count).map(|_| f64::from_bits(rng.next_u64())).collect()
}

/// The three log-normals of `configs/mobile-network.toml` (request 60/600 ms, response
/// 80/2500 ms, processing 150/1200 ms) as samplers.
fn mobile_network_samplers() -> [Sampler; 3] {
    [(60.0, 600.0), (80.0, 2500.0), (150.0, 1200.0)]
        .map(|(median_ms, p99_ms)| Distribution::LogNormal { median_ms, p99_ms }.sampler())
}

/// A grid of `2^17` values of `u` in `[0, 1)`, and `u = m 2^-e` and `1 - u` for `m < 64` down
/// to `2^-53`, the smallest draw above 0.
fn quantiles() -> Vec<f64> {
    let grid = 1 << 17;
    let dense = (0..grid).map(|i| i as f64 / grid as f64);
    let tails = (17..=53).flat_map(|e| {
        (1..64).flat_map(move |m| {
            let u = m as f64 * 2f64.powi(-e);
            [u, 1.0 - u]
        })
    });
    dense.chain(tails).filter(|u| *u < 1.0).collect()
}

#[test]
#[cfg_attr(
    not(c_library_is_glibc_fma),
    ignore = "the C library here is not glibc's FMA build"
)]
fn the_model_inputs_give_the_c_library_exp_and_the_same_durations() {
    assert_c_library_replicated();
    let us = quantiles();
    for sampler in mobile_network_samplers() {
        let Sampler::LogNormal { median_ms, sigma } = sampler else {
            unreachable!("a log-normal's sampler")
        };
        let xs: Vec<f64> = us.iter().map(|&u| sigma * normal_quantile(u)).collect();
        assert_eq!(mismatches(&xs, exp), Vec::<f64>::new(), "sigma {sigma}");
        assert_eq!(mismatches8(&xs), Vec::<f64>::new(), "sigma {sigma}");
        for chunk in us.chunks_exact(8) {
            let z = <[f64; 8]>::try_from(chunk)
                .expect("eight lanes")
                .map(normal_quantile);
            let durations = log_normal8(median_ms, sigma, z);
            for lane in 0..8 {
                let expected = sampler.quantile(chunk[lane]).to_bits();
                assert_eq!(log_normal(median_ms, sigma, z[lane]).to_bits(), expected);
                assert_eq!(durations[lane].to_bits(), expected, "u = {}", chunk[lane]);
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(c_library_is_glibc_fma),
    ignore = "the C library here is not glibc's FMA build"
)]
fn a_million_random_inputs_in_the_models_range_give_the_c_library_exp() {
    assert_c_library_replicated();
    let inputs = uniform(1_000_000, -40.0, 40.0, 1);
    assert_eq!(mismatches(&inputs, exp), Vec::<f64>::new());
    assert_eq!(mismatches8(&inputs), Vec::<f64>::new());
    // The code taken where FMA is not enabled at compile time: `f64::mul_add` in code compiled
    // without it (as this test is) calls `fma` from Rust's compiler-builtins (the instruction
    // where the processor has it, a correctly rounded software one elsewhere).
    let without_fma = |x: f64| {
        if on_common_path(x) {
            common_path(x, fused)
        } else {
            x.exp()
        }
    };
    assert_eq!(
        mismatches(&inputs[..100_000], without_fma),
        Vec::<f64>::new()
    );
}

#[test]
#[cfg_attr(
    not(c_library_is_glibc_fma),
    ignore = "the C library here is not glibc's FMA build"
)]
fn the_whole_common_path_its_edges_and_every_other_input_give_the_c_library_exp() {
    assert_c_library_replicated();
    let mut inputs = uniform(100_000, -512.0, 512.0, 2);
    inputs.extend(uniform(100_000, -1e-3, 1e-3, 3));
    inputs.extend(half_way_points());
    inputs.extend(edges());
    inputs.extend(random_bits(100_000));
    assert_eq!(mismatches(&inputs, exp), Vec::<f64>::new());
    assert_eq!(mismatches8(&inputs), Vec::<f64>::new());
}

#[test]
fn eight_lanes_give_the_scalar_results_with_and_without_avx512() {
    let mut inputs = uniform(10_000, -40.0, 40.0, 4);
    inputs.extend(edges());
    for chunk in inputs.chunks_exact(8) {
        let lanes: [f64; 8] = chunk.try_into().expect("eight lanes");
        let scalar = lanes.map(exp);
        assert_eq!(exp8(lanes).map(f64::to_bits), scalar.map(f64::to_bits));
        let durations = log_normal8(150.0, 0.89, lanes);
        let expected = lanes.map(|z| log_normal(150.0, 0.89, z));
        assert_eq!(durations.map(f64::to_bits), expected.map(f64::to_bits));
    }
}

/// [`exp_vector_avx2`] and [`log_normal_vector_avx2`] of four lanes, bit for bit the scalar
/// [`exp`] and [`log_normal`] lane by lane, on the model's range, the whole common path, the
/// rounding half-way points, every edge (the scalar detour) and random bits.
#[test]
#[cfg_attr(
    not(processor_has_avx2_fma),
    ignore = "this processor has no AVX2 and FMA"
)]
fn four_lanes_with_avx2_and_fma_give_the_scalar_results() {
    assert!(crate::cpu::processor().avx2_fma, "needs AVX2 and FMA");
    let mut inputs = uniform(100_000, -40.0, 40.0, 5);
    inputs.extend(uniform(20_000, -512.0, 512.0, 6));
    inputs.extend(half_way_points());
    inputs.extend(edges());
    inputs.extend(random_bits(20_000));
    let mut wrong = Vec::new();
    for chunk in inputs.chunks_exact(4) {
        let lanes: [f64; 4] = chunk.try_into().expect("four lanes");
        let (mut exps, mut durations) = ([0.0; 4], [0.0; 4]);
        // SAFETY: the processor has AVX2 and FMA (checked above); the arrays hold four
        // doubles.
        unsafe {
            let x = _mm256_loadu_pd(lanes.as_ptr());
            _mm256_storeu_pd(exps.as_mut_ptr(), exp_vector_avx2(x));
            let median = _mm256_set1_pd(150.0);
            let sigma = _mm256_set1_pd(0.89);
            _mm256_storeu_pd(
                durations.as_mut_ptr(),
                log_normal_vector_avx2(median, sigma, x),
            );
        }
        for lane in 0..4 {
            let x = lanes[lane];
            if exps[lane].to_bits() != exp(x).to_bits()
                || durations[lane].to_bits() != log_normal(150.0, 0.89, x).to_bits()
            {
                wrong.push(x);
            }
        }
    }
    assert_eq!(wrong, Vec::<f64>::new());
}

/// The replica with the multiply-add of `unfused` rounded twice (`a * b`, then `+ c`).
fn replica_without_fusing(unfused: Step) -> impl Fn(f64) -> f64 {
    move |x| {
        if !on_common_path(x) {
            return x.exp();
        }
        common_path(x, |step, a, b, c| {
            if step == unfused {
                std::hint::black_box(a * b) + c
            } else {
                a.mul_add(b, c)
            }
        })
    }
}

/// The inputs among `inputs` whose result, before its final rounding, lies within 1/256 of
/// an ulp of a tie between two doubles: there the smallest change upstream flips the result.
fn near_ties(inputs: &[f64]) -> Vec<f64> {
    inputs
        .iter()
        .copied()
        .filter(|&x| {
            let error = std::cell::Cell::new(0.0);
            let result = common_path(x, |step, a, b, c| {
                let rounded = a.mul_add(b, c);
                if step == Step::Scale {
                    // `c - rounded` is exact (both within a factor 2 of `scale`), so this is
                    // the final rounding's error, to a relative 2^-53 of itself.
                    error.set(a.mul_add(b, c - rounded));
                }
                rounded
            });
            let ulp = f64::from_bits(result.to_bits() + 1) - result;
            on_common_path(x) && (error.get().abs() / ulp - 0.5).abs() < 1.0 / 256.0
        })
        .collect()
}

#[test]
#[cfg_attr(
    not(c_library_is_glibc_fma),
    ignore = "the C library here is not glibc's FMA build"
)]
fn every_fused_step_that_can_change_a_result_is_needed_to_match_the_c_library() {
    assert_c_library_replicated();
    // Where |r| is largest (near the half-way points) its rounding, and so the fused steps'
    // effect, is largest too: 10^6 inputs there, and of them those whose result is near a tie.
    let offsets = uniform(1_000_000, -0.1, 0.1, 5);
    let shifts = uniform(1_000_000, -40.0 * INV_LN2_N, 40.0 * INV_LN2_N, 6);
    let large_r: Vec<f64> = shifts
        .iter()
        .zip(&offsets)
        .map(|(k, offset)| (k.floor() + 0.5 + offset) / INV_LN2_N)
        .collect();
    let mut inputs = near_ties(&large_r);
    assert!(inputs.len() > 5000, "{} inputs near a tie", inputs.len());
    inputs.extend(half_way_points());
    for step in [Step::Round, Step::Low, Step::Scale] {
        let wrong = mismatches(&inputs, replica_without_fusing(step));
        assert!(!wrong.is_empty(), "{step:?} unfused still matches");
    }
    // The other products are too small for their rounding to reach a result, except once in
    // 2^30 inputs or more (`fma` or not, `r * C5 + C4`, say, differ by 2^-70 at most, and are
    // then multiplied by r^4 < 2^-31): no test can tell, and the replica fuses them as glibc
    // does. `kd * NegLn2hiN` is even exact (36 significant bits times |k| < 2^17).
    for step in [
        Step::ReduceHigh,
        Step::ReduceLow,
        Step::Poly23,
        Step::Poly45,
        Step::High,
    ] {
        let wrong = mismatches(&inputs, replica_without_fusing(step));
        eprintln!(
            "{step:?} unfused: {} of {} differ",
            wrong.len(),
            inputs.len()
        );
    }
}

/// A non-negative fixed-point number: `limbs` (least significant first) times `2^-256`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fixed([u64; 5]);

impl PartialOrd for Fixed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Fixed {
    /// By value: the most significant limb first.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.iter().rev().cmp(other.0.iter().rev())
    }
}

impl Fixed {
    /// Bits after the binary point.
    const FRACTION_BITS: i32 = 256;

    /// `2^power` for `-256 <= power < 64`.
    fn power_of_two(power: i32) -> Self {
        let bit = (power + Self::FRACTION_BITS) as usize;
        let mut limbs = [0; 5];
        limbs[bit / 64] = 1 << (bit % 64);
        Fixed(limbs)
    }

    /// The double `x` (non-negative, at least `2^-200`), exactly.
    fn of(x: f64) -> Self {
        let (mantissa, exponent) = (
            (x.to_bits() & ((1 << 52) - 1)) | (1 << 52),
            x.to_bits() >> 52,
        );
        let shift = exponent as i32 - 1075 + Self::FRACTION_BITS;
        let mut limbs = [0u64; 5];
        let wide = u128::from(mantissa) << (shift % 64);
        limbs[shift as usize / 64] = wide as u64;
        if shift as usize / 64 + 1 < 5 {
            limbs[shift as usize / 64 + 1] = (wide >> 64) as u64;
        }
        Fixed(limbs)
    }

    fn add(self, other: Self) -> Self {
        let mut carry = 0u128;
        let mut limbs = [0; 5];
        for (i, limb) in limbs.iter_mut().enumerate() {
            let sum = u128::from(self.0[i]) + u128::from(other.0[i]) + carry;
            *limb = sum as u64;
            carry = sum >> 64;
        }
        assert_eq!(carry, 0, "overflow");
        Fixed(limbs)
    }

    /// `self - other` for `self >= other`.
    fn sub(self, other: Self) -> Self {
        let mut borrow = 0;
        let mut limbs = [0; 5];
        for (i, limb) in limbs.iter_mut().enumerate() {
            let (difference, under) = self.0[i].overflowing_sub(other.0[i]);
            let (difference, under_again) = difference.overflowing_sub(borrow);
            *limb = difference;
            borrow = u64::from(under || under_again);
        }
        assert_eq!(borrow, 0, "negative");
        Fixed(limbs)
    }

    /// The product, truncated to 256 fraction bits.
    fn mul(self, other: Self) -> Self {
        let mut wide = [0u64; 10];
        for i in 0..5 {
            let mut carry = 0u128;
            for j in 0..5 {
                let sum = u128::from(self.0[i]) * u128::from(other.0[j])
                    + u128::from(wide[i + j])
                    + carry;
                wide[i + j] = sum as u64;
                carry = sum >> 64;
            }
            wide[i + 5] = carry as u64;
        }
        assert!(wide[9] == 0, "overflow");
        Fixed(wide[4..9].try_into().expect("five limbs"))
    }

    /// `self * factor`.
    fn mul_small(self, factor: u64) -> Self {
        self.mul(Fixed([0, 0, 0, 0, factor]))
    }

    /// `self / divisor`, truncated.
    fn div_small(self, divisor: u64) -> Self {
        let mut remainder = 0u128;
        let mut limbs = [0; 5];
        for i in (0..5).rev() {
            let current = (remainder << 64) | u128::from(self.0[i]);
            limbs[i] = (current / u128::from(divisor)) as u64;
            remainder = current % u128::from(divisor);
        }
        Fixed(limbs)
    }

    /// The nearest double (ties to even): the top 128 bits as an integer, the lowest of them
    /// set if anything below is (a sticky bit: 128 bits are far more than 53 + 2), converted
    /// (Rust's `u128 as f64` rounds to nearest) and scaled by a power of two (exact).
    fn to_f64(self) -> f64 {
        let top = (0..5).rev().find(|&i| self.0[i] != 0).expect("non-zero");
        let highest_bit = top as i32 * 64 + 63 - self.0[top].leading_zeros() as i32;
        let lowest_kept = (highest_bit - 127).max(0);
        let mut integer = 0u128;
        let mut sticky = false;
        for bit in 0..=highest_bit {
            let set = self.0[bit as usize / 64] >> (bit % 64) & 1 == 1;
            if bit < lowest_kept {
                sticky |= set;
            } else if set {
                integer |= 1 << (bit - lowest_kept);
            }
        }
        (integer | u128::from(sticky)) as f64 * 2f64.powi(lowest_kept - Self::FRACTION_BITS)
    }
}

/// `ln 2 = sum over k >= 1 of 1 / (k 2^k)`, within `2^-247`.
fn ln_2() -> Fixed {
    (1..=256)
        .map(|k| Fixed::power_of_two(-k).div_small(k as u64))
        .fold(Fixed([0; 5]), Fixed::add)
}

/// `e^a` for `0 <= a < 1` by its Taylor series, within `2^-240`.
fn exp_fixed(a: Fixed) -> Fixed {
    let mut sum = Fixed::power_of_two(0);
    let mut term = Fixed::power_of_two(0);
    for n in 1..100 {
        term = term.mul(a).div_small(n);
        sum = sum.add(term);
    }
    sum
}

#[test]
fn the_fixed_point_arithmetic_reproduces_known_values() {
    // ln 2 and e from their decimal expansions (OEIS A002162, A001113), as doubles.
    assert_eq!(ln_2().to_f64(), std::f64::consts::LN_2);
    assert_eq!(
        exp_fixed(Fixed::power_of_two(0)).to_f64(),
        std::f64::consts::E
    );
    // 2^(1/2) and 2^(1/4) are f64 constants of their own.
    let two_to = |numerator: u64| exp_fixed(ln_2().mul_small(numerator).div_small(N));
    assert_eq!(two_to(64).to_f64(), std::f64::consts::SQRT_2);
    assert_eq!(Fixed::of(1.5).to_f64(), 1.5);
}

#[test]
fn table_is_two_to_the_i_over_n() {
    // An error bound well above the fixed-point computation's (ln 2 within 2^-247, the series
    // within 2^-240): every rounding must give the same double at both ends of it.
    let error = Fixed::power_of_two(-230);
    for i in 0..N {
        let exact = exp_fixed(ln_2().mul_small(i).div_small(N));
        let high = exact.to_f64();
        assert_eq!(
            exact.add(error).to_f64(),
            high,
            "2^({i}/N) is too near a tie"
        );
        assert_eq!(
            exact.sub(error).to_f64(),
            high,
            "2^({i}/N) is too near a tie"
        );
        let mantissa = (high.to_bits() & ((1 << 52) - 1)) | (1 << 52);
        // tail = 2^(i/N) / H - 1 = (2^(i/N) - H) 2^52 / mantissa, with its sign.
        let tail = |value: Fixed| {
            let (magnitude, sign) = if value >= Fixed::of(high) {
                (value.sub(Fixed::of(high)), 1.0)
            } else {
                (Fixed::of(high).sub(value), -1.0)
            };
            if magnitude == Fixed([0; 5]) {
                return 0.0;
            }
            sign * magnitude.mul_small(1 << 52).div_small(mantissa).to_f64()
        };
        let expected_tail = tail(exact);
        // 2^0 = 1 is computed exactly (no error to allow for) and its tail is 0.
        if i > 0 {
            assert_eq!(tail(exact.add(error)), expected_tail, "tail {i} near a tie");
            assert_eq!(tail(exact.sub(error)), expected_tail, "tail {i} near a tie");
        }
        let index = 2 * i as usize;
        assert_eq!(TABLE[index], expected_tail.to_bits(), "tail {i}");
        assert_eq!(TABLE[index + 1], high.to_bits() - (i << 45), "scale {i}");
    }
}
