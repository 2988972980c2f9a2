//! The one place that asks the processor which vector instructions it has: every choice
//! between a scalar, an AVX2 and an AVX-512 path in the project reads [`avx512`],
//! [`avx2_fma`] or [`fma`] from here. Every path gives the same bits; only the speed differs.
//!
//! The answer is detected once and kept. The benchmarks' features take the faster paths away
//! (`portable-scan`: no AVX-512, as on a processor without it; `scalar-only`: no AVX2 either);
//! [`processor`] tells what the processor itself has, whatever the features, for the tests
//! that compare every path it can run and for the question whether the C library's `exp` and
//! `log1p` are the ones the replicas follow.

use std::sync::atomic::{AtomicU8, Ordering};

/// What the processor has, as detected (the benchmarks' features do not apply here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Processor {
    /// AVX-512F and AVX-512DQ: eight `f64` lanes in one register.
    pub avx512: bool,
    /// AVX2 and FMA: four `f64` lanes in one register, fused multiply-add.
    pub avx2_fma: bool,
    /// FMA: the fused multiply-add instruction.
    pub fma: bool,
}

/// Bit of [`DETECTED`]: detection has run.
const KNOWN: u8 = 1;
/// Bit of [`DETECTED`]: AVX-512F and DQ.
const AVX512: u8 = 2;
/// Bit of [`DETECTED`]: AVX2 and FMA.
const AVX2_FMA: u8 = 4;
/// Bit of [`DETECTED`]: FMA.
const FMA: u8 = 8;

/// The detected instruction sets as bits, 0 until the first question.
static DETECTED: AtomicU8 = AtomicU8::new(0);

/// Asks the processor (x86-64 only; elsewhere none of these exist).
#[cold]
fn detect() -> u8 {
    #[cfg(target_arch = "x86_64")]
    let bits = {
        use std::arch::is_x86_feature_detected as has;
        let fma = has!("fma");
        let mut bits = KNOWN;
        if has!("avx512f") && has!("avx512dq") {
            bits |= AVX512;
        }
        if has!("avx2") && fma {
            bits |= AVX2_FMA;
        }
        if fma {
            bits |= FMA;
        }
        bits
    };
    #[cfg(not(target_arch = "x86_64"))]
    let bits = KNOWN;
    DETECTED.store(bits, Ordering::Relaxed);
    bits
}

/// The detected bits, detecting on the first call.
#[inline(always)]
fn bits() -> u8 {
    match DETECTED.load(Ordering::Relaxed) {
        0 => detect(),
        bits => bits,
    }
}

/// What this processor has, whatever the benchmarks' features.
pub fn processor() -> Processor {
    let bits = bits();
    Processor {
        avx512: bits & AVX512 != 0,
        avx2_fma: bits & AVX2_FMA != 0,
        fma: bits & FMA != 0,
    }
}

/// Whether the simulations may use AVX-512F and DQ: the processor has them and the
/// `portable-scan` benchmark feature is off.
#[inline(always)]
pub fn avx512() -> bool {
    !cfg!(feature = "portable-scan") && bits() & AVX512 != 0
}

/// Whether the simulations may use AVX2 with FMA: the processor has them and the
/// `scalar-only` benchmark feature is off.
#[inline(always)]
pub fn avx2_fma() -> bool {
    !cfg!(feature = "scalar-only") && bits() & AVX2_FMA != 0
}

/// Whether the processor has the fused multiply-add instruction (scalar code compiled for it
/// computes the same bits as `f64::mul_add` in software, faster).
#[inline(always)]
pub fn fma() -> bool {
    bits() & FMA != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answers_agree_with_the_standard_library() {
        let processor = processor();
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            assert_eq!(processor.avx512, has!("avx512f") && has!("avx512dq"));
            assert_eq!(processor.avx2_fma, has!("avx2") && has!("fma"));
            assert_eq!(processor.fma, has!("fma"));
        }
        // The simulations never use what the processor lacks.
        assert!(!avx512() || processor.avx512);
        assert!(!avx2_fma() || processor.avx2_fma);
    }

    #[test]
    fn the_build_script_saw_the_same_processor() {
        // The tests that need an instruction set are ignored by the build script's view of the
        // processor; that view must be this one.
        assert_eq!(cfg!(processor_has_avx512), processor().avx512);
        assert_eq!(cfg!(processor_has_avx2_fma), processor().avx2_fma);
    }
}
