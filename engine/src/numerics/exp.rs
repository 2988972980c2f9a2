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

#[cfg(target_arch = "x86_64")]
use super::vector::{Avx2, Avx512, Vector, all_lanes};

/// log2 of the number of table entries, `N = 2^7 = 128` (glibc's `EXP_TABLE_BITS`).
pub(super) const TABLE_BITS: u32 = 7;
/// The number of table entries `N`.
pub(super) const N: u64 = 1 << TABLE_BITS;
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

/// glibc's `__exp_data.tab`: for `i` in `0..N`, entry `2i` holds the bits of `T[i]` and entry
/// `2i + 1` the bits of `H[i]` minus `i << 45`, where `H[i]` is `2^(i/N)` rounded to the
/// nearest double and `T[i]` is `2^(i/N) / H[i] - 1` rounded to the nearest double, so that
/// `2^(i/N) ~= H[i] (1 + T[i])`. Subtracting `i << 45` lets `ki << 45` (the whole power of two
/// `2^(k/N)` in the exponent field, plus `i` in bits 45..52) be added back. Read from Debian
/// 12's libm; `tests::table_is_two_to_the_i_over_n` regenerates it.
#[rustfmt::skip]
pub const TABLE: [u64; 2 * N as usize] = [
    0x0000000000000000, 0x3ff0000000000000,
    0x3c9b3b4f1a88bf6e, 0x3feff63da9fb3335,
    0xbc7160139cd8dc5d, 0x3fefec9a3e778061,
    0xbc905e7a108766d1, 0x3fefe315e86e7f85,
    0x3c8cd2523567f613, 0x3fefd9b0d3158574,
    0xbc8bce8023f98efa, 0x3fefd06b29ddf6de,
    0x3c60f74e61e6c861, 0x3fefc74518759bc8,
    0x3c90a3e45b33d399, 0x3fefbe3ecac6f383,
    0x3c979aa65d837b6d, 0x3fefb5586cf9890f,
    0x3c8eb51a92fdeffc, 0x3fefac922b7247f7,
    0x3c3ebe3d702f9cd1, 0x3fefa3ec32d3d1a2,
    0xbc6a033489906e0b, 0x3fef9b66affed31b,
    0xbc9556522a2fbd0e, 0x3fef9301d0125b51,
    0xbc5080ef8c4eea55, 0x3fef8abdc06c31cc,
    0xbc91c923b9d5f416, 0x3fef829aaea92de0,
    0x3c80d3e3e95c55af, 0x3fef7a98c8a58e51,
    0xbc801b15eaa59348, 0x3fef72b83c7d517b,
    0xbc8f1ff055de323d, 0x3fef6af9388c8dea,
    0x3c8b898c3f1353bf, 0x3fef635beb6fcb75,
    0xbc96d99c7611eb26, 0x3fef5be084045cd4,
    0x3c9aecf73e3a2f60, 0x3fef54873168b9aa,
    0xbc8fe782cb86389d, 0x3fef4d5022fcd91d,
    0x3c8a6f4144a6c38d, 0x3fef463b88628cd6,
    0x3c807a05b0e4047d, 0x3fef3f49917ddc96,
    0x3c968efde3a8a894, 0x3fef387a6e756238,
    0x3c875e18f274487d, 0x3fef31ce4fb2a63f,
    0x3c80472b981fe7f2, 0x3fef2b4565e27cdd,
    0xbc96b87b3f71085e, 0x3fef24dfe1f56381,
    0x3c82f7e16d09ab31, 0x3fef1e9df51fdee1,
    0xbc3d219b1a6fbffa, 0x3fef187fd0dad990,
    0x3c8b3782720c0ab4, 0x3fef1285a6e4030b,
    0x3c6e149289cecb8f, 0x3fef0cafa93e2f56,
    0x3c834d754db0abb6, 0x3fef06fe0a31b715,
    0x3c864201e2ac744c, 0x3fef0170fc4cd831,
    0x3c8fdd395dd3f84a, 0x3feefc08b26416ff,
    0xbc86a3803b8e5b04, 0x3feef6c55f929ff1,
    0xbc924aedcc4b5068, 0x3feef1a7373aa9cb,
    0xbc9907f81b512d8e, 0x3feeecae6d05d866,
    0xbc71d1e83e9436d2, 0x3feee7db34e59ff7,
    0xbc991919b3ce1b15, 0x3feee32dc313a8e5,
    0x3c859f48a72a4c6d, 0x3feedea64c123422,
    0xbc9312607a28698a, 0x3feeda4504ac801c,
    0xbc58a78f4817895b, 0x3feed60a21f72e2a,
    0xbc7c2c9b67499a1b, 0x3feed1f5d950a897,
    0x3c4363ed60c2ac11, 0x3feece086061892d,
    0x3c9666093b0664ef, 0x3feeca41ed1d0057,
    0x3c6ecce1daa10379, 0x3feec6a2b5c13cd0,
    0x3c93ff8e3f0f1230, 0x3feec32af0d7d3de,
    0x3c7690cebb7aafb0, 0x3feebfdad5362a27,
    0x3c931dbdeb54e077, 0x3feebcb299fddd0d,
    0xbc8f94340071a38e, 0x3feeb9b2769d2ca7,
    0xbc87deccdc93a349, 0x3feeb6daa2cf6642,
    0xbc78dec6bd0f385f, 0x3feeb42b569d4f82,
    0xbc861246ec7b5cf6, 0x3feeb1a4ca5d920f,
    0x3c93350518fdd78e, 0x3feeaf4736b527da,
    0x3c7b98b72f8a9b05, 0x3feead12d497c7fd,
    0x3c9063e1e21c5409, 0x3feeab07dd485429,
    0x3c34c7855019c6ea, 0x3feea9268a5946b7,
    0x3c9432e62b64c035, 0x3feea76f15ad2148,
    0xbc8ce44a6199769f, 0x3feea5e1b976dc09,
    0xbc8c33c53bef4da8, 0x3feea47eb03a5585,
    0xbc845378892be9ae, 0x3feea34634ccc320,
    0xbc93cedd78565858, 0x3feea23882552225,
    0x3c5710aa807e1964, 0x3feea155d44ca973,
    0xbc93b3efbf5e2228, 0x3feea09e667f3bcd,
    0xbc6a12ad8734b982, 0x3feea012750bdabf,
    0xbc6367efb86da9ee, 0x3fee9fb23c651a2f,
    0xbc80dc3d54e08851, 0x3fee9f7df9519484,
    0xbc781f647e5a3ecf, 0x3fee9f75e8ec5f74,
    0xbc86ee4ac08b7db0, 0x3fee9f9a48a58174,
    0xbc8619321e55e68a, 0x3fee9feb564267c9,
    0x3c909ccb5e09d4d3, 0x3feea0694fde5d3f,
    0xbc7b32dcb94da51d, 0x3feea11473eb0187,
    0x3c94ecfd5467c06b, 0x3feea1ed0130c132,
    0x3c65ebe1abd66c55, 0x3feea2f336cf4e62,
    0xbc88a1c52fb3cf42, 0x3feea427543e1a12,
    0xbc9369b6f13b3734, 0x3feea589994cce13,
    0xbc805e843a19ff1e, 0x3feea71a4623c7ad,
    0xbc94d450d872576e, 0x3feea8d99b4492ed,
    0x3c90ad675b0e8a00, 0x3feeaac7d98a6699,
    0x3c8db72fc1f0eab4, 0x3feeace5422aa0db,
    0xbc65b6609cc5e7ff, 0x3feeaf3216b5448c,
    0x3c7bf68359f35f44, 0x3feeb1ae99157736,
    0xbc93091fa71e3d83, 0x3feeb45b0b91ffc6,
    0xbc5da9b88b6c1e29, 0x3feeb737b0cdc5e5,
    0xbc6c23f97c90b959, 0x3feeba44cbc8520f,
    0xbc92434322f4f9aa, 0x3feebd829fde4e50,
    0xbc85ca6cd7668e4b, 0x3feec0f170ca07ba,
    0x3c71affc2b91ce27, 0x3feec49182a3f090,
    0x3c6dd235e10a73bb, 0x3feec86319e32323,
    0xbc87c50422622263, 0x3feecc667b5de565,
    0x3c8b1c86e3e231d5, 0x3feed09bec4a2d33,
    0xbc91bbd1d3bcbb15, 0x3feed503b23e255d,
    0x3c90cc319cee31d2, 0x3feed99e1330b358,
    0x3c8469846e735ab3, 0x3feede6b5579fdbf,
    0xbc82dfcd978e9db4, 0x3feee36bbfd3f37a,
    0x3c8c1a7792cb3387, 0x3feee89f995ad3ad,
    0xbc907b8f4ad1d9fa, 0x3feeee07298db666,
    0xbc55c3d956dcaeba, 0x3feef3a2b84f15fb,
    0xbc90a40e3da6f640, 0x3feef9728de5593a,
    0xbc68d6f438ad9334, 0x3feeff76f2fb5e47,
    0xbc91eee26b588a35, 0x3fef05b030a1064a,
    0x3c74ffd70a5fddcd, 0x3fef0c1e904bc1d2,
    0xbc91bdfbfa9298ac, 0x3fef12c25bd71e09,
    0x3c736eae30af0cb3, 0x3fef199bdd85529c,
    0x3c8ee3325c9ffd94, 0x3fef20ab5fffd07a,
    0x3c84e08fd10959ac, 0x3fef27f12e57d14b,
    0x3c63cdaf384e1a67, 0x3fef2f6d9406e7b5,
    0x3c676b2c6c921968, 0x3fef3720dcef9069,
    0xbc808a1883ccb5d2, 0x3fef3f0b555dc3fa,
    0xbc8fad5d3ffffa6f, 0x3fef472d4a07897c,
    0xbc900dae3875a949, 0x3fef4f87080d89f2,
    0x3c74a385a63d07a7, 0x3fef5818dcfba487,
    0xbc82919e2040220f, 0x3fef60e316c98398,
    0x3c8e5a50d5c192ac, 0x3fef69e603db3285,
    0x3c843a59ac016b4b, 0x3fef7321f301b460,
    0xbc82d52107b43e1f, 0x3fef7c97337b9b5f,
    0xbc892ab93b470dc9, 0x3fef864614f5a129,
    0x3c74b604603a88d3, 0x3fef902ee78b3ff6,
    0x3c83c5ec519d7271, 0x3fef9a51fbc74c83,
    0xbc8ff7128fd391f0, 0x3fefa4afa2a490da,
    0xbc8dae98e223747d, 0x3fefaf482d8e67f1,
    0x3c8ec3bc41aa2008, 0x3fefba1bee615a27,
    0x3c842b94c3a9eb32, 0x3fefc52b376bba97,
    0x3c8a64a931d185ee, 0x3fefd0765b6e4540,
    0xbc8e37bae43be3ed, 0x3fefdbfdad9cbe14,
    0x3c77893b4d91cd9d, 0x3fefe7c1819e90d8,
    0x3c5305c14160cc89, 0x3feff3c22b8f71f1,
];

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
