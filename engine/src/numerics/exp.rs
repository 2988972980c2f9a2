//! `exp` giving bit for bit what the C library's gives on x86-64 glibc with FMA (the log-normal
//! durations depend on it): a scalar [`exp`], eight lanes at a time with AVX-512F
//! ([`exp_vector`], [`exp8`]), four lanes at a time with AVX2 and FMA ([`exp_vector_avx2`])
//! and the log-normal sample `median_ms * exp(sigma * z)` ([`log_normal`],
//! [`log_normal_vector`], [`log_normal_vector_avx2`], [`log_normal8`]).
//!
//! # What the C library computes
//! glibc (2.28 and later) takes `exp` from Arm's optimized-routines (Szabolcs Nagy, MIT /
//! Apache-2.0; glibc `sysdeps/ieee754/dbl-64/e_exp.c`, `e_exp_data.c`, `math_config.h`) and,
//! on a processor with FMA and AVX2, calls the copy built with `-mfma -mavx2`
//! (`__exp_fma`, chosen by an ifunc behind `exp@@GLIBC_2.29`, which only adds `errno`). With
//! `N = 2^7` table entries, for `2^-54 <= |x| < 512`:
//!
//! ```text
//! kd    = fma(x, InvLn2N, Shift)          k = round(x N / ln 2) in the low bits of kd
//! ki    = bits(kd);  kd = kd - Shift
//! r     = fma(kd, NegLn2loN, fma(kd, NegLn2hiN, x))      x = k ln 2 / N + r
//! tail  = T[2 (ki mod N)];  sbits = T[2 (ki mod N) + 1] + (ki << 45)
//! r2    = r * r
//! tmp   = fma(r2 * r2, fma(r, C5, C4), fma(fma(r, C3, C2), r2, r + tail))
//! exp   = fma(scale, tmp, scale)          scale = from_bits(sbits)
//! ```
//!
//! These are the instructions of `__exp_fma` in Debian 12's libm (glibc 2.36,
//! `objdump -d libm.so.6`): the C source reads `tail + r + r2 * (C2 + r * C3) + r2 * r2 *
//! (C4 + r * C5)` and `scale + scale * tmp`; GCC fused each product into the following
//! addition (eight `vfmadd`), and left `kd - Shift`, `r + tail`, `r * r` and `r2 * r2` as
//! plain operations. Outside that range (zero and tiny `|x|`, `|x| >= 512`, infinities, NaN)
//! glibc takes other paths, and so [`exp`] calls the C library there.
//!
//! The constants are those of `__exp_data` in the same binary (read with `objdump`/`python`),
//! equal to Arm's `exp_data.c` for `EXP_TABLE_BITS = 7`, `EXP_POLY_ORDER = 5` (also musl's
//! `src/math/exp_data.c`): `InvLn2N`
//! is `N / ln 2`, `NegLn2hiN + NegLn2loN` is `-ln 2 / N` split so that `kd * NegLn2hiN` is
//! exact, `C2..C5` are Arm's minimax coefficients of `exp(r) - 1 - r` on
//! `[-ln 2 / 2N, ln 2 / 2N]`, and the table [`TABLE`] is `2^(i/N)` as a double `H[i]` plus the
//! double nearest its relative rounding error (the tests regenerate it with exact
//! fixed-point arithmetic).
//!
//! With the processor's fused multiply-add, or `f64::mul_add`'s correctly rounded software one
//! elsewhere, every operation is the IEEE-754 one, so the replica gives the same bits on every
//! machine; that they are the C library's is only checked where glibc picks `__exp_fma`
//! ([`replicates_c_library`]).

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

pub use super::exp_table::{N, TABLE, TABLE_BITS};
#[cfg(target_arch = "x86_64")]
use super::vector::{Avx2, Avx512, Vector, all_lanes};

/// `N / ln 2` (glibc `__exp_data.invln2N`, `0x1.71547652b82fep0 * N`).
const INV_LN2_N: f64 = f64::from_bits(0x4067_1547_652b_82fe);
/// `1.5 * 2^52`: adding it rounds `x N / ln 2` to an integer kept in the low mantissa bits
/// (glibc `__exp_data.shift`, `0x1.8p52`).
const SHIFT: f64 = f64::from_bits(0x4338_0000_0000_0000);
/// High part of `-ln 2 / N`, with trailing zero bits so that `k * NEG_LN2_HI_N` is exact
/// (glibc `__exp_data.negln2hiN`, `-0x1.62e42fefa0000p-8`).
const NEG_LN2_HI_N: f64 = f64::from_bits(0xbf76_2e42_fefa_0000);
/// Low part of `-ln 2 / N` (glibc `__exp_data.negln2loN`, `-0x1.cf79abc9e3b3ap-47`).
const NEG_LN2_LO_N: f64 = f64::from_bits(0xbd0c_f79a_bc9e_3b3a);
/// Coefficient of `r^2` (glibc `__exp_data.poly[0]`, `0x1.ffffffffffdbdp-2`).
const C2: f64 = f64::from_bits(0x3fdf_ffff_ffff_fdbd);
/// Coefficient of `r^3` (glibc `__exp_data.poly[1]`, `0x1.555555555543cp-3`).
const C3: f64 = f64::from_bits(0x3fc5_5555_5555_543c);
/// Coefficient of `r^4` (glibc `__exp_data.poly[2]`, `0x1.55555cf172b91p-5`).
const C4: f64 = f64::from_bits(0x3fa5_5555_cf17_2b91);
/// Coefficient of `r^5` (glibc `__exp_data.poly[3]`, `0x1.1111167a4d017p-7`).
const C5: f64 = f64::from_bits(0x3f81_1111_67a4_d017);
/// The biased exponent of `2^-54`: below it glibc returns `1 + x` early.
const SMALLEST_COMMON_EXPONENT: u64 = 0x3c9;
/// The number of biased exponents on the common path: `2^-54 <= |x| < 2^9 = 512`.
const COMMON_EXPONENTS: u64 = 0x408 - SMALLEST_COMMON_EXPONENT;

/// The multiply-adds of the common path, in the order `__exp_fma` performs them; glibc's FMA
/// build fuses every one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// `x * InvLn2N + Shift`.
    Round,
    /// `kd * NegLn2hiN + x`.
    ReduceHigh,
    /// `kd * NegLn2loN + (the above)`.
    ReduceLow,
    /// `r * C3 + C2`.
    Poly23,
    /// `r * C5 + C4`.
    Poly45,
    /// `(C2 + r C3) * r2 + (r + tail)`.
    Low,
    /// `r2 r2 * (C4 + r C5) + (the above)`.
    High,
    /// `scale * tmp + scale`.
    Scale,
}

/// Whether `x` takes glibc's common path: `2^-54 <= |x| < 512` (NaN does not).
#[inline(always)]
fn on_common_path(x: f64) -> bool {
    let exponent = (x.to_bits() >> 52) & 0x7ff;
    exponent.wrapping_sub(SMALLEST_COMMON_EXPONENT) < COMMON_EXPONENTS
}

/// glibc's common path for `x` with [`on_common_path`], `multiply_add(step, a, b, c)`
/// computing `a * b + c` at each [`Step`] (production: fused; the tests also try unfused).
#[inline(always)]
fn common_path(x: f64, multiply_add: impl Fn(Step, f64, f64, f64) -> f64) -> f64 {
    let shifted = multiply_add(Step::Round, x, INV_LN2_N, SHIFT);
    let ki = shifted.to_bits();
    let kd = shifted - SHIFT;
    let r = multiply_add(Step::ReduceHigh, kd, NEG_LN2_HI_N, x);
    let r = multiply_add(Step::ReduceLow, kd, NEG_LN2_LO_N, r);
    let index = 2 * (ki % N) as usize;
    let tail = f64::from_bits(TABLE[index]);
    let scale = f64::from_bits(TABLE[index + 1].wrapping_add(ki << (52 - TABLE_BITS)));
    let r2 = r * r;
    let poly23 = multiply_add(Step::Poly23, r, C3, C2);
    let poly45 = multiply_add(Step::Poly45, r, C5, C4);
    let low = multiply_add(Step::Low, poly23, r2, r + tail);
    let tmp = multiply_add(Step::High, r2 * r2, poly45, low);
    multiply_add(Step::Scale, scale, tmp, scale)
}

/// The fused multiply-add `a * b + c` with one rounding.
#[inline(always)]
fn fused(_: Step, a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

/// `e^x`, bit for bit the C library's `exp` on x86-64 glibc with FMA: the common path
/// (`2^-54 <= |x| < 512`) computed here, every other input handed to the C library.
#[inline]
pub fn exp(x: f64) -> f64 {
    if !on_common_path(x) {
        return x.exp();
    }
    #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
    if crate::cpu::fma() {
        // SAFETY: the processor supports FMA (just detected).
        return unsafe { common_path_fma(x) };
    }
    common_path(x, fused)
}

/// [`common_path`] compiled with the processor's `vfmadd` (without it `f64::mul_add` calls
/// `fma` from Rust's compiler-builtins, which picks the instruction at run time or computes
/// the correctly rounded result in software: the same bits, more slowly).
///
/// # Safety
/// The processor must support FMA.
#[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
#[target_feature(enable = "fma")]
unsafe fn common_path_fma(x: f64) -> f64 {
    common_path(x, fused)
}

/// A log-normal duration from a standard normal `z`: `median_ms * exp(sigma * z)`, rounded
/// as the scalar expression `median_ms * (sigma * z).exp()` is (product, [`exp`], product).
#[inline]
pub fn log_normal(median_ms: f64, sigma: f64, z: f64) -> f64 {
    median_ms * exp(sigma * z)
}

/// Whether the C library's `exp` here is the one replicated (glibc's `__exp_fma`: x86-64
/// Linux with glibc, and a processor with FMA and AVX2, which glibc's ifunc requires). Where
/// it is not, the C library may round differently, and comparing it with [`exp`] means
/// nothing (the tests skip).
pub fn replicates_c_library() -> bool {
    cfg!(all(target_os = "linux", target_env = "gnu")) && crate::cpu::processor().avx2_fma
}

/// [`exp`] of eight lanes: with AVX-512F ([`exp_vector`]) where the processor has it, lane by
/// lane otherwise; the same bits either way.
pub fn exp8(x: [f64; 8]) -> [f64; 8] {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx512() {
        // SAFETY: the processor supports AVX-512F (just detected).
        return unsafe { exp8_avx512(x) };
    }
    x.map(exp)
}

/// [`exp8`] with AVX-512F: loading, [`exp_vector`] and storing in one function.
///
/// # Safety
/// The processor must support AVX-512F and DQ ([`avx512_available`]). Called from a function with
/// `#[target_feature(enable = "avx512f,avx512dq")]`, it needs no `unsafe` and is inlined there, arrays
/// and all (through [`exp8`], a call and the arrays in memory cost about as much again).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub fn exp8_avx512(x: [f64; 8]) -> [f64; 8] {
    lanes(exp_vector(vector(x)))
}

/// [`log_normal8`] with AVX-512F, in one function as [`exp8_avx512`].
///
/// # Safety
/// The processor must support AVX-512F and DQ ([`avx512_available`]). Called from a function with
/// `#[target_feature(enable = "avx512f,avx512dq")]`, it needs no `unsafe` and is inlined there.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub fn log_normal8_avx512(median_ms: f64, sigma: f64, z: [f64; 8]) -> [f64; 8] {
    lanes(log_normal_vector(
        _mm512_set1_pd(median_ms),
        _mm512_set1_pd(sigma),
        vector(z),
    ))
}

/// [`log_normal`] of eight lanes (`median_ms` and `sigma` shared): with AVX-512F
/// ([`log_normal_vector`]) where the processor has it, lane by lane otherwise.
pub fn log_normal8(median_ms: f64, sigma: f64, z: [f64; 8]) -> [f64; 8] {
    #[cfg(target_arch = "x86_64")]
    if crate::cpu::avx512() {
        // SAFETY: the processor supports AVX-512F (just detected).
        return unsafe { log_normal8_avx512(median_ms, sigma, z) };
    }
    z.map(|z| log_normal(median_ms, sigma, z))
}

/// Eight doubles as a vector.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn vector(values: [f64; 8]) -> __m512d {
    // SAFETY: `values` holds eight doubles; the load is unaligned.
    unsafe { _mm512_loadu_pd(values.as_ptr()) }
}

/// A vector as eight doubles.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
fn lanes(values: __m512d) -> [f64; 8] {
    let mut out = [0.0; 8];
    // SAFETY: `out` has room for eight doubles; the store is unaligned.
    unsafe { _mm512_storeu_pd(out.as_mut_ptr(), values) };
    out
}

/// `median * exp(sigma * z)` lane-wise, with the roundings of [`log_normal`]: the product
/// `sigma * z`, [`exp_vector`], the product with `median` (no fused operation).
///
/// # Safety
/// The processor must support AVX-512F and DQ ([`avx512_available`]). Called from a function with
/// `#[target_feature(enable = "avx512f,avx512dq")]`, it needs no `unsafe` and is inlined there.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub fn log_normal_vector(median: __m512d, sigma: __m512d, z: __m512d) -> __m512d {
    // SAFETY: this function's target features are the type's.
    let lanes = |vector| unsafe { Avx512::new(vector) };
    log_normal_lanes(lanes(median), lanes(sigma), lanes(z)).get()
}

/// [`exp`] of eight lanes with AVX-512F: the common path of every lane in vectors (the table
/// read with two gathers), then each lane off the common path replaced by the C library's
/// `exp` of it (a rare scalar detour: zero, tiny or huge inputs, infinities, NaN).
///
/// # Safety
/// The processor must support AVX-512F and DQ ([`avx512_available`]). Called from a function with
/// `#[target_feature(enable = "avx512f,avx512dq")]`, it needs no `unsafe` and is inlined there.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub fn exp_vector(x: __m512d) -> __m512d {
    // SAFETY: this function's target features are the type's.
    exp_lanes(unsafe { Avx512::new(x) }).get()
}

/// `median * exp(sigma * z)` in four lanes, with the roundings of [`log_normal`]: the product
/// `sigma * z`, [`exp_vector_avx2`], the product with `median` (no fused operation).
///
/// # Safety
/// The processor must support AVX2 and FMA ([`avx2_fma_available`]). Called from a function
/// with `#[target_feature(enable = "avx2,fma")]`, it needs no `unsafe` and is inlined there.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn log_normal_vector_avx2(median: __m256d, sigma: __m256d, z: __m256d) -> __m256d {
    // SAFETY: this function's target features are the type's.
    let lanes = |vector| unsafe { Avx2::new(vector) };
    log_normal_lanes(lanes(median), lanes(sigma), lanes(z)).get()
}

/// [`exp`] of four lanes with AVX2 and FMA, as [`exp_vector`] does eight: the common path of
/// every lane in vectors (the table read with two gathers), then each lane off the common
/// path (`|x| < 2^-54`, `|x| >= 512`, infinities, NaN) replaced by the C library's `exp` of it.
///
/// # Safety
/// The processor must support AVX2 and FMA ([`avx2_fma_available`]). Called from a function
/// with `#[target_feature(enable = "avx2,fma")]`, it needs no `unsafe` and is inlined there.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2,fma")]
pub fn exp_vector_avx2(x: __m256d) -> __m256d {
    // SAFETY: this function's target features are the type's.
    exp_lanes(unsafe { Avx2::new(x) }).get()
}

/// `median * exp(sigma * z)` lane by lane, with the roundings of [`log_normal`]: the product
/// `sigma * z`, [`exp_lanes`], the product with `median` (no fused operation).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn log_normal_lanes<V: Vector>(median: V, sigma: V, z: V) -> V {
    median.mul(exp_lanes(sigma.mul(z)))
}

/// [`exp`] lane by lane: the common path of every lane in vectors (the table read with
/// [`Vector::exp_table`]), then each lane off the common path (`|x| < 2^-54`, `|x| >= 512`,
/// infinities, NaN) replaced by the C library's `exp` of it (a rare scalar detour).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn exp_lanes<V: Vector>(x: V) -> V {
    // SAFETY (the splats and the load): `x` exists, so the processor has `V`'s instruction
    // set.
    let constant = |value: f64| unsafe { V::splat(value) };
    // `2^-54 <= |x| < 2^9`, `on_common_path`'s exponent test as ordered comparisons (NaN
    // lanes are off the path).
    let magnitude = x.abs();
    let common = magnitude.at_least(constant(f64::from_bits(SMALLEST_COMMON_EXPONENT << 52)))
        & magnitude.less(constant(f64::from_bits(
            (SMALLEST_COMMON_EXPONENT + COMMON_EXPONENTS) << 52,
        )));
    let result = common_path_lanes(x);
    if common == all_lanes(V::WIDTH) {
        return result;
    }
    let (mut inputs, mut outputs) = ([0.0; 8], [0.0; 8]);
    x.store(&mut inputs);
    result.store(&mut outputs);
    for lane in 0..V::WIDTH {
        if common & (1 << lane) == 0 {
            outputs[lane] = inputs[lane].exp();
        }
    }
    unsafe { V::load(&outputs) }
}

/// [`common_path`] lane by lane, fused exactly where glibc's `__exp_fma` fuses (lanes off the
/// common path give garbage, not faults: the table index is always in range and
/// floating-point exceptions are masked).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn common_path_lanes<V: Vector>(x: V) -> V {
    // SAFETY: `x` exists, so the processor has `V`'s instruction set.
    let constant = |value: f64| unsafe { V::splat(value) };
    let shifted = x.fma(constant(INV_LN2_N), constant(SHIFT));
    let kd = shifted.sub(constant(SHIFT));
    let r = kd.fma(constant(NEG_LN2_HI_N), x);
    let r = kd.fma(constant(NEG_LN2_LO_N), r);
    let (tail, scale) = V::exp_table(shifted);
    let r2 = r.mul(r);
    let poly23 = r.fma(constant(C3), constant(C2));
    let poly45 = r.fma(constant(C5), constant(C4));
    let low = poly23.fma(r2, r.add(tail));
    let tmp = r2.mul(r2).fma(poly45, low);
    scale.fma(tmp, scale)
}

#[cfg(test)]
#[path = "exp_tests.rs"]
mod tests;
