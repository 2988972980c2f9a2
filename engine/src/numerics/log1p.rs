//! `ln(1 + x)` giving bit for bit what the C library's `log1p` gives on x86-64 glibc with FMA
//! (the load model's exponential draws, `-mean * ln(1 - u)`, depend on it): [`ln_1p`].
//!
//! # What the C library computes
//! glibc's `log1p` (x86-64) is fdlibm's (Sun, 1993; glibc `sysdeps/ieee754/dbl-64/s_log1p.c`)
//! and, on a processor with FMA and AVX2, the copy of it built with `-mfma -mavx2`
//! (`__log1p_fma`, chosen by an ifunc behind `log1p@@GLIBC_2.2.5`, whose wrapper only sets
//! `errno` for `x <= -1`). It writes `1 + x = 2^k (1 + f)` with `sqrt(2)/2 <= 1 + f < sqrt(2)`
//! (`k = 0`, `f = x` when `-0.2929 < x < 0.41422`), a correction `c` for the rounding of
//! `1 + x`, and
//!
//! ```text
//! s = f / (2 + f);  z = s * s;  hfsq = 0.5 * f * f
//! R = z Lp1 + z^2 (Lp2 + z Lp3) + z^4 (Lp4 + z Lp5) + z^6 (Lp6 + z Lp7)
//! log1p(x) = k ln2_hi - ((hfsq - (s (hfsq + R) + (k ln2_lo + c))) - f)
//! ```
//!
//! (`f - (hfsq - s (hfsq + R))` when `k = 0`; `hfsq (1 - 2/3 f)` in place of `s (hfsq + R)`
//! when `|f| < 2^-20` after the reduction; `x - x^2/2` for `|x| < 2^-29`). The instructions of
//! `__log1p_fma` in Debian 12's libm (glibc 2.36, `gdb -batch -ex 'disassemble __log1p_fma'`)
//! show where GCC fused a product into the following addition: the three `Lp2 + z Lp3`-like
//! pairs, `z Lp1 + z^2 R2`, the two additions of `z^4 R3` and `z^6 R4`, `k ln2_lo + c`,
//! `k ln2_hi - (..)`, `1 - 2/3 f` and `x - x^2/2` (ten `vfmadd`/`vfmsub`/`vfnmadd`); `z^6` is
//! computed as `z^2 z^4`. The constants are those of the same binary, equal to fdlibm's.
//!
//! With the processor's fused multiply-add, or `f64::mul_add`'s correctly rounded software one
//! elsewhere, every operation is the IEEE-754 one, so the replica gives the same bits on every
//! machine; that they are the C library's is only checked where glibc picks `__log1p_fma`
//! ([`crate::numerics::exp::replicates_c_library`]: x86-64 Linux glibc, FMA and AVX2).
//! `x <= -1`, infinities and NaN are handed to the C library (which sets `errno` there).

/// High part of `ln 2`, with trailing zero bits so that `k * LN2_HI` is exact (`3fe62e42 fee00000`).
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
/// Low part of `ln 2` (`3dea39ef 35793c76`).
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// fdlibm's `Lp1..Lp7`: the minimax coefficients of `R(z) ~ ln((1+s)/(1-s)) / s - 2 - ...`
/// (`Lp[i]` at index `i - 1`).
const LP: [f64; 7] = [
    f64::from_bits(0x3fe5_5555_5555_5593),
    f64::from_bits(0x3fd9_9999_9997_fa04),
    f64::from_bits(0x3fd2_4924_9422_9359),
    f64::from_bits(0x3fcc_71c5_1d8e_78af),
    f64::from_bits(0x3fc7_4664_96cb_03de),
    f64::from_bits(0x3fc3_9a09_d078_c69f),
    f64::from_bits(0x3fc2_f112_df3e_5244),
];
/// fdlibm's `0.66666666666666666` rounded to a double (`3fe55555 55555555`).
const TWO_THIRDS: f64 = f64::from_bits(0x3fe5_5555_5555_5555);

/// The multiply-adds of [`ln_1p`] that glibc's `__log1p_fma` fuses, named for the tests
/// (which unfuse each in turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// `x - x*x * 0.5` for `|x| < 2^-29`.
    Tiny,
    /// `Lp2 + z Lp3`.
    Poly23,
    /// `Lp4 + z Lp5`.
    Poly45,
    /// `Lp6 + z Lp7`.
    Poly67,
    /// `z Lp1 + z^2 R2`.
    First,
    /// `(..) + z^4 R3`.
    Second,
    /// `(..) + z^6 R4`.
    Third,
    /// `k ln2_lo + c`.
    LowPart,
    /// `k ln2_hi - (..)`.
    HighPart,
    /// `1 - 2/3 f`.
    Small,
}

/// The fused multiply-add `a * b + c` with one rounding.
#[inline(always)]
fn fused(_: Step, a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

/// The high 32 bits of `x` as fdlibm reads them (`GET_HIGH_WORD`), signed.
#[inline(always)]
fn high_word(x: f64) -> i32 {
    (x.to_bits() >> 32) as u32 as i32
}

/// `x` with its high 32 bits replaced by `high` (`SET_HIGH_WORD`).
#[inline(always)]
fn with_high_word(x: f64, high: u32) -> f64 {
    f64::from_bits((u64::from(high) << 32) | (x.to_bits() & 0xffff_ffff))
}

/// `ln(1 + x)`, bit for bit the C library's `log1p` on x86-64 glibc with FMA (`x > -1`
/// finite computed here; `x <= -1`, infinities and NaN handed to the C library).
#[inline]
pub fn ln_1p(x: f64) -> f64 {
    if !(x > -1.0 && x < f64::INFINITY) {
        return x.ln_1p();
    }
    #[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
    if crate::cpu::fma() {
        // SAFETY: the processor supports FMA (just detected).
        return unsafe { finite_fma(x) };
    }
    finite(x, fused)
}

/// [`finite`] compiled with the processor's `vfmadd` (without it `f64::mul_add` calls `fma`
/// from Rust's compiler-builtins: the same bits, more slowly).
///
/// # Safety
/// The processor must support FMA.
#[cfg(all(target_arch = "x86_64", not(target_feature = "fma")))]
#[target_feature(enable = "fma")]
unsafe fn finite_fma(x: f64) -> f64 {
    finite(x, fused)
}

/// fdlibm's `log1p` for `-1 < x < inf`, the products fused where glibc's `__log1p_fma` fuses
/// them (`multiply_add(step, a, b, c)` is `a * b + c`).
#[inline(always)]
pub(crate) fn finite(x: f64, multiply_add: impl Fn(Step, f64, f64, f64) -> f64) -> f64 {
    let hx = high_word(x);
    let ax = hx & 0x7fff_ffff;
    if hx < 0x3fda_827a && ax < 0x3e20_0000 {
        // |x| < 2^-29: x itself below 2^-54, else x - x^2/2.
        if ax < 0x3c90_0000 {
            return x;
        }
        return multiply_add(Step::Tiny, -(x * x), 0.5, x);
    }
    // -0.2929 < x < 0.41422: no reduction (k = 0, f = x, c = 0).
    if hx < 0x3fda_827a && (hx > 0 || hx < 0xbfd2_bec4_u32 as i32) {
        return reduced(x, 0, 0.0, 1, multiply_add);
    }
    // 1 + x = 2^k u, its rounding corrected by c / u.
    let (u, c) = if hx < 0x4340_0000 {
        let u = 1.0 + x;
        let k = (high_word(u) >> 20) - 1023;
        let c = if k > 0 { 1.0 - (u - x) } else { x - (u - 1.0) };
        (u, c / u)
    } else {
        (x, 0.0)
    };
    let hu = high_word(u);
    let mut k = (hu >> 20) - 1023;
    let mut hu = hu & 0x000f_ffff;
    let normalized = if hu < 0x6a09e {
        with_high_word(u, hu as u32 | 0x3ff0_0000)
    } else {
        k += 1;
        let half = with_high_word(u, hu as u32 | 0x3fe0_0000);
        hu = (0x0010_0000 - hu) >> 2;
        half
    };
    reduced(normalized - 1.0, k, c, hu, multiply_add)
}

/// The rest of [`finite`] once `1 + x = 2^k (1 + f)` (`c`: the correction; `hu == 0` when
/// `|f| < 2^-20`).
#[inline(always)]
fn reduced(
    f: f64,
    k: i32,
    c: f64,
    hu: i32,
    multiply_add: impl Fn(Step, f64, f64, f64) -> f64,
) -> f64 {
    let hfsq = 0.5 * f * f;
    let kd = f64::from(k);
    if hu == 0 {
        if f == 0.0 {
            if k == 0 {
                return 0.0;
            }
            return multiply_add(
                Step::HighPart,
                kd,
                LN2_HI,
                multiply_add(Step::LowPart, kd, LN2_LO, c),
            );
        }
        let r = hfsq * multiply_add(Step::Small, -f, TWO_THIRDS, 1.0);
        if k == 0 {
            return f - r;
        }
        let low = multiply_add(Step::LowPart, kd, LN2_LO, c);
        return multiply_add(Step::HighPart, kd, LN2_HI, -((r - low) - f));
    }
    let s = f / (2.0 + f);
    let z = s * s;
    let r2 = multiply_add(Step::Poly23, z, LP[2], LP[1]);
    let r3 = multiply_add(Step::Poly45, z, LP[4], LP[3]);
    let r4 = multiply_add(Step::Poly67, z, LP[6], LP[5]);
    let z2 = z * z;
    let z4 = z2 * z2;
    let z6 = z2 * z4;
    let r = multiply_add(Step::First, z, LP[0], z2 * r2);
    let r = multiply_add(Step::Second, z4, r3, r);
    let r = multiply_add(Step::Third, z6, r4, r);
    let scaled = s * (hfsq + r);
    if k == 0 {
        return f - (hfsq - scaled);
    }
    let low = multiply_add(Step::LowPart, kd, LN2_LO, c);
    multiply_add(Step::HighPart, kd, LN2_HI, -((hfsq - (scaled + low)) - f))
}

/// Values per block of [`ln_1p_block`].
pub const BLOCK: usize = 64;

/// [`ln_1p`] of each value of a block, in place, bit for bit the same: the common case
/// without branches, eight (AVX-512) or four (AVX2) lanes at a time where the processor has
/// them, for `-1 < x <= 0`; the other values (`x > 0`, `x <= -1`, `|x| < 2^-29`, `1 + x`
/// within `2^-20` of a power of two, NaN) again one by one through [`ln_1p`] afterwards.
pub fn ln_1p_block(values: &mut [f64; BLOCK]) {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::avx512() && crate::cpu::fma() {
            // SAFETY: the processor supports AVX-512F, DQ and FMA (just detected).
            return unsafe { ln_1p_block_avx512(values) };
        }
        if crate::cpu::avx2_fma() {
            // SAFETY: the processor supports AVX2 and FMA (just detected).
            return unsafe { ln_1p_block_avx2(values) };
        }
    }
    values.iter_mut().for_each(|x| *x = ln_1p(*x));
}

/// [`ln_1p_block`] compiled for AVX-512 (the compiler vectorizes [`block_lanes`]).
///
/// # Safety
/// The processor must support AVX-512F, DQ and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,fma")]
unsafe fn ln_1p_block_avx512(values: &mut [f64; BLOCK]) {
    block(values);
}

/// [`ln_1p_block`] compiled for AVX2 and FMA.
///
/// # Safety
/// The processor must support AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn ln_1p_block_avx2(values: &mut [f64; BLOCK]) {
    block(values);
}

/// [`ln_1p_block`]'s two passes: every value without branches ([`common_case`]), then the
/// values off the common case one by one.
#[inline(always)]
fn block(values: &mut [f64; BLOCK]) {
    let mut results = [0.0; BLOCK];
    let mut elsewhere = [false; BLOCK];
    for ((x, result), other) in values.iter().zip(&mut results).zip(&mut elsewhere) {
        (*result, *other) = common_case(*x);
    }
    for ((x, result), other) in values.iter_mut().zip(results).zip(elsewhere) {
        *x = if other { ln_1p(*x) } else { result };
    }
}

/// [`finite`] for `-1 < x <= 0` without branches (both reductions computed, one selected),
/// and whether `x` is off that case (then the value means nothing): outside `(-1, 0]`,
/// `|x| < 2^-29` or `|f| < 2^-20` after the reduction.
#[inline(always)]
fn common_case(x: f64) -> (f64, bool) {
    // The high word, sign-extended: fdlibm's `hx`.
    let hx = (x.to_bits() as i64) >> 32;
    let ax = hx & 0x7fff_ffff;
    let outside = !(x > -1.0 && x <= 0.0) | (ax < 0x3e20_0000);
    // -0.2929 < x: no reduction.
    let unreduced = hx < i64::from(0xbfd2_bec4_u32 as i32);
    // 1 + x = 2^k (1 + f), with 1 + x <= 1 here: the correction is x - (u - 1).
    let u = 1.0 + x;
    let c = (x - (u - 1.0)) / u;
    let bits = u.to_bits();
    let hu = ((bits >> 32) & 0x000f_ffff) as i64;
    let halved = hu >= 0x6a09e;
    let k = ((bits >> 52) as i64) - 1023 + i64::from(halved);
    let top = if halved { 0x3fe0_0000 } else { 0x3ff0_0000 };
    let normalized = f64::from_bits(((hu as u64 | top) << 32) | (bits & 0xffff_ffff));
    let hu = if halved { (0x0010_0000 - hu) >> 2 } else { hu };
    let f = if unreduced { x } else { normalized - 1.0 };
    let k = if unreduced { 0 } else { k };
    let c = if unreduced { 0.0 } else { c };
    let near_power = !unreduced & (hu == 0);
    let hfsq = 0.5 * f * f;
    let s = f / (2.0 + f);
    let z = s * s;
    let r2 = z.mul_add(LP[2], LP[1]);
    let r3 = z.mul_add(LP[4], LP[3]);
    let r4 = z.mul_add(LP[6], LP[5]);
    let z2 = z * z;
    let z4 = z2 * z2;
    let z6 = z2 * z4;
    let r = z.mul_add(LP[0], z2 * r2);
    let r = z4.mul_add(r3, r);
    let r = z6.mul_add(r4, r);
    let scaled = s * (hfsq + r);
    let kd = k as f64;
    let low = kd.mul_add(LN2_LO, c);
    let with_k = kd.mul_add(LN2_HI, -((hfsq - (scaled + low)) - f));
    let without_k = f - (hfsq - scaled);
    (
        if k == 0 { without_k } else { with_k },
        outside | near_power,
    )
}

#[cfg(test)]
#[path = "log1p_tests.rs"]
mod tests;
