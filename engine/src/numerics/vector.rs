//! The vector registers the eight-lane code runs on, behind one trait ([`Vector`]): eight
//! lanes of AVX-512 ([`Avx512`]) or four of AVX2 with FMA ([`Avx2`], processors without
//! AVX-512). The normal quantiles (`quantile_simd.rs`) and the exp replica's vector path
//! (`exp.rs`) are written once over it; every method is inlined into the caller's function
//! compiled for the instruction set (`#[target_feature]`), so each becomes one or a few
//! instructions there.

use std::arch::x86_64::*;

use super::exp_table::{N, TABLE, TABLE_BITS};

/// The shift that puts `k / N`'s integer part into a double's exponent field (AVX-512's
/// intrinsic takes it as `u32`, AVX2's as `i32`).
const SCALE_SHIFT: u32 = 52 - TABLE_BITS;

/// Every lane's bit set, for `WIDTH` lanes.
pub const fn all_lanes(width: usize) -> u32 {
    (1 << width) - 1
}

/// A register of `WIDTH` doubles and the few operations the quantiles and the exp replica
/// need, each the IEEE operation lane by lane.
///
/// # Safety
/// A value of an implementing type may only exist on a processor with its instruction set:
/// [`Vector::splat`] and [`Vector::load`] are `unsafe` and demand it, so that the other
/// methods can be safe.
pub unsafe trait Vector: Copy {
    /// Lanes per register (a divisor of [`LANES`](super::distribution::LANES)).
    const WIDTH: usize;
    /// `x` in every lane.
    ///
    /// # Safety
    /// The processor must have the type's instruction set.
    unsafe fn splat(x: f64) -> Self;
    /// The `WIDTH` doubles of `values`.
    ///
    /// # Safety
    /// The processor must have the type's instruction set.
    unsafe fn load(values: &[f64]) -> Self;
    /// Writes the lanes to `values` (`WIDTH` of them).
    fn store(self, values: &mut [f64]);
    /// `self + other`.
    fn add(self, other: Self) -> Self;
    /// `self - other`.
    fn sub(self, other: Self) -> Self;
    /// `self * other`.
    fn mul(self, other: Self) -> Self;
    /// `self / other`.
    fn div(self, other: Self) -> Self;
    /// The square root, correctly rounded.
    fn sqrt(self) -> Self;
    /// The sign bit flipped.
    fn negate(self) -> Self;
    /// The sign bit cleared.
    fn abs(self) -> Self;
    /// Bit `i` set where lane `i` of `self` is greater than `other`'s (ordered).
    fn greater(self, other: Self) -> u32;
    /// Bit `i` set where lane `i` of `self` is less than `other`'s (ordered).
    fn less(self, other: Self) -> u32;
    /// Lane `i` from `if_set` where bit `i` of `lanes` is set, else from `self`.
    fn blend(self, lanes: u32, if_set: Self) -> Self;
    /// `self * b + c` with one rounding (fused).
    fn fma(self, b: Self, c: Self) -> Self;
    /// Bit `i` set where lane `i` of `self` is at least `other`'s (ordered).
    fn at_least(self, other: Self) -> u32;
    /// For `shifted` holding `x N / ln 2 + Shift` (the exp replica's first step): the table's
    /// tail and the scale `2^(k / N)` of each lane, from the exp replica's
    /// [`TABLE`](super::exp_table::TABLE) (lanes with garbage read in range, never fault).
    fn exp_table(shifted: Self) -> (Self, Self);
}

/// Eight lanes of AVX-512F (and DQ).
#[derive(Debug, Clone, Copy)]
pub struct Avx512(__m512d);

impl Avx512 {
    /// The lanes of `vector`.
    ///
    /// # Safety
    /// The processor must have AVX-512F and DQ.
    #[inline(always)]
    pub unsafe fn new(vector: __m512d) -> Self {
        Self(vector)
    }

    /// The register.
    #[inline(always)]
    pub fn get(self) -> __m512d {
        self.0
    }
}

// SAFETY: `splat` and `load` require AVX-512F and DQ, and so every value's existence does.
unsafe impl Vector for Avx512 {
    const WIDTH: usize = 8;
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        // SAFETY: the caller guarantees AVX-512F.
        Self(unsafe { _mm512_set1_pd(x) })
    }
    #[inline(always)]
    unsafe fn load(values: &[f64]) -> Self {
        assert!(values.len() >= Self::WIDTH);
        // SAFETY: AVX-512F (the caller); eight doubles of `values`, unaligned.
        Self(unsafe { _mm512_loadu_pd(values.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, values: &mut [f64]) {
        assert!(values.len() >= Self::WIDTH);
        // SAFETY: AVX-512F (the value exists); eight doubles of `values`, unaligned.
        unsafe { _mm512_storeu_pd(values.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY (this and the methods below): the value exists, so AVX-512F and DQ do.
        Self(unsafe { _mm512_add_pd(self.0, other.0) })
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        Self(unsafe { _mm512_sub_pd(self.0, other.0) })
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        Self(unsafe { _mm512_mul_pd(self.0, other.0) })
    }
    #[inline(always)]
    fn div(self, other: Self) -> Self {
        Self(unsafe { _mm512_div_pd(self.0, other.0) })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Self(unsafe { _mm512_sqrt_pd(self.0) })
    }
    #[inline(always)]
    fn negate(self) -> Self {
        Self(unsafe { _mm512_xor_pd(self.0, _mm512_set1_pd(-0.0)) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Self(unsafe { _mm512_abs_pd(self.0) })
    }
    #[inline(always)]
    fn greater(self, other: Self) -> u32 {
        u32::from(unsafe { _mm512_cmp_pd_mask::<_CMP_GT_OQ>(self.0, other.0) })
    }
    #[inline(always)]
    fn less(self, other: Self) -> u32 {
        u32::from(unsafe { _mm512_cmp_pd_mask::<_CMP_LT_OQ>(self.0, other.0) })
    }
    #[inline(always)]
    fn blend(self, lanes: u32, if_set: Self) -> Self {
        Self(unsafe { _mm512_mask_blend_pd(lanes as u8, self.0, if_set.0) })
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        Self(unsafe { _mm512_fmadd_pd(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn at_least(self, other: Self) -> u32 {
        u32::from(unsafe { _mm512_cmp_pd_mask::<_CMP_GE_OQ>(self.0, other.0) })
    }
    #[inline(always)]
    fn exp_table(shifted: Self) -> (Self, Self) {
        // SAFETY: AVX-512F (the value exists); every index is `2 (k mod N)` or one more,
        // below `2 N`, the table's length.
        unsafe {
            let k = _mm512_castpd_si512(shifted.0);
            let index =
                _mm512_slli_epi64::<1>(_mm512_and_si512(k, _mm512_set1_epi64(N as i64 - 1)));
            let tail = _mm512_i64gather_pd::<8>(index, TABLE.as_ptr().cast());
            let scale_bits = _mm512_i64gather_epi64::<8>(index, TABLE.as_ptr().add(1).cast());
            let scale = _mm512_add_epi64(scale_bits, _mm512_slli_epi64::<SCALE_SHIFT>(k));
            (Self(tail), Self(_mm512_castsi512_pd(scale)))
        }
    }
}

/// Four lanes of AVX2 (with FMA, which the exp replica needs).
#[derive(Debug, Clone, Copy)]
pub struct Avx2(__m256d);

impl Avx2 {
    /// The lanes of `vector`.
    ///
    /// # Safety
    /// The processor must have AVX2 and FMA.
    #[inline(always)]
    pub unsafe fn new(vector: __m256d) -> Self {
        Self(vector)
    }

    /// The register.
    #[inline(always)]
    pub fn get(self) -> __m256d {
        self.0
    }

    /// Bit `i` of `lanes` as an all-ones or all-zeros lane `i`, as `_mm256_blendv_pd` takes
    /// it (AVX2 has no mask registers).
    #[inline(always)]
    fn lane_mask(lanes: u32) -> __m256d {
        let bit = |lane: u32| -i64::from((lanes >> lane) & 1);
        // SAFETY: the value exists, so AVX2 does.
        unsafe { _mm256_castsi256_pd(_mm256_set_epi64x(bit(3), bit(2), bit(1), bit(0))) }
    }
}

// SAFETY: `splat` and `load` require AVX2 and FMA, and so every value's existence does.
unsafe impl Vector for Avx2 {
    const WIDTH: usize = 4;
    #[inline(always)]
    unsafe fn splat(x: f64) -> Self {
        // SAFETY: the caller guarantees AVX2.
        Self(unsafe { _mm256_set1_pd(x) })
    }
    #[inline(always)]
    unsafe fn load(values: &[f64]) -> Self {
        assert!(values.len() >= Self::WIDTH);
        // SAFETY: AVX2 (the caller); four doubles of `values`, unaligned.
        Self(unsafe { _mm256_loadu_pd(values.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, values: &mut [f64]) {
        assert!(values.len() >= Self::WIDTH);
        // SAFETY: AVX2 (the value exists); four doubles of `values`, unaligned.
        unsafe { _mm256_storeu_pd(values.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn add(self, other: Self) -> Self {
        // SAFETY (this and the methods below): the value exists, so AVX2 and FMA do.
        Self(unsafe { _mm256_add_pd(self.0, other.0) })
    }
    #[inline(always)]
    fn sub(self, other: Self) -> Self {
        Self(unsafe { _mm256_sub_pd(self.0, other.0) })
    }
    #[inline(always)]
    fn mul(self, other: Self) -> Self {
        Self(unsafe { _mm256_mul_pd(self.0, other.0) })
    }
    #[inline(always)]
    fn div(self, other: Self) -> Self {
        Self(unsafe { _mm256_div_pd(self.0, other.0) })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Self(unsafe { _mm256_sqrt_pd(self.0) })
    }
    #[inline(always)]
    fn negate(self) -> Self {
        Self(unsafe { _mm256_xor_pd(self.0, _mm256_set1_pd(-0.0)) })
    }
    #[inline(always)]
    fn abs(self) -> Self {
        Self(unsafe { _mm256_andnot_pd(_mm256_set1_pd(-0.0), self.0) })
    }
    #[inline(always)]
    fn greater(self, other: Self) -> u32 {
        unsafe { _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_GT_OQ>(self.0, other.0)) as u32 }
    }
    #[inline(always)]
    fn less(self, other: Self) -> u32 {
        unsafe { _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_LT_OQ>(self.0, other.0)) as u32 }
    }
    #[inline(always)]
    fn blend(self, lanes: u32, if_set: Self) -> Self {
        Self(unsafe { _mm256_blendv_pd(self.0, if_set.0, Self::lane_mask(lanes)) })
    }
    #[inline(always)]
    fn fma(self, b: Self, c: Self) -> Self {
        Self(unsafe { _mm256_fmadd_pd(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn at_least(self, other: Self) -> u32 {
        unsafe { _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_GE_OQ>(self.0, other.0)) as u32 }
    }
    #[inline(always)]
    fn exp_table(shifted: Self) -> (Self, Self) {
        // SAFETY: AVX2 (the value exists); every index is `2 (k mod N)` or one more, below
        // `2 N`, the table's length.
        unsafe {
            let k = _mm256_castpd_si256(shifted.0);
            let index =
                _mm256_slli_epi64::<1>(_mm256_and_si256(k, _mm256_set1_epi64x(N as i64 - 1)));
            let tail = _mm256_i64gather_pd::<8>(TABLE.as_ptr().cast(), index);
            let scale_bits = _mm256_i64gather_epi64::<8>(TABLE.as_ptr().add(1).cast(), index);
            let scale =
                _mm256_add_epi64(scale_bits, _mm256_slli_epi64::<{ SCALE_SHIFT as i32 }>(k));
            (Self(tail), Self(_mm256_castsi256_pd(scale)))
        }
    }
}
