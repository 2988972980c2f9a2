//! Tests of the `log1p` replica: bit for bit the C library's `log1p` on the inputs the load
//! model meets (`-u`, `u` a uniform draw), random inputs and the edges of each branch, and
//! every fused step needed.

use super::*;
use crate::numerics::exp::replicates_c_library;
use crate::rng::{PcgState, unit_f64};

/// The comparison with the C library means something only where it is glibc's `__log1p_fma`
/// (x86-64 Linux glibc on a processor with FMA and AVX2): the tests that make it are ignored
/// elsewhere (the build script's `c_library_is_glibc_fma`), and fail if run where it is not.
fn assert_c_library_replicated() {
    assert!(
        replicates_c_library(),
        "the C library's log1p here is not glibc's __log1p_fma, so it may round differently"
    );
}

/// The inputs where `replica` differs from the C library's `log1p`, bit for bit.
fn mismatches(inputs: &[f64], replica: impl Fn(f64) -> f64) -> Vec<f64> {
    inputs
        .iter()
        .copied()
        .filter(|&x| replica(x).to_bits() != std::hint::black_box(x).ln_1p().to_bits())
        .collect()
}

/// `-u` for `count` uniform draws `u` in `[0, 1)` made as the model makes them.
fn model_inputs(count: usize, stream: u128) -> Vec<f64> {
    let mut rng = PcgState::new(0x1061, stream);
    (0..count).map(|_| -unit_f64(rng.next_u64())).collect()
}

/// `count` random bit patterns.
fn random_bits(count: usize) -> Vec<f64> {
    let mut rng = PcgState::new(0x1062, 3);
    (0..count).map(|_| f64::from_bits(rng.next_u64())).collect()
}

/// `count` inputs of random sign and a magnitude log-uniform in `[2^-60, 2^60]`.
fn log_uniform(count: usize) -> Vec<f64> {
    let mut rng = PcgState::new(0x1063, 4);
    (0..count)
        .map(|_| {
            let magnitude = (120.0 * unit_f64(rng.next_u64()) - 60.0).exp2();
            if rng.next_u64() & 1 == 0 {
                magnitude
            } else {
                -magnitude.min(1.0)
            }
        })
        .collect()
}

/// The doubles within `steps` of `x` (and `x`).
fn neighbours(x: f64, steps: i64) -> impl Iterator<Item = f64> {
    (-steps..=steps).map(move |step| f64::from_bits(x.to_bits().wrapping_add_signed(step)))
}

/// Each branch's edges and the special values, with their neighbours.
fn edges() -> Vec<f64> {
    let high = |word: u32| f64::from_bits(u64::from(word) << 32);
    let mut edges = vec![
        0.0,
        -0.0,
        -1.0,
        1.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::MAX,
        f64::EPSILON,
        -f64::EPSILON / 2.0,
        // Where k = 0 ends: x < 0.41422 and x > -0.2929.
        high(0x3fda_827a),
        high(0xbfd2_bec4),
        // Tiny inputs: 2^-29 and 2^-54.
        high(0x3e20_0000),
        -high(0x3e20_0000),
        high(0x3c90_0000),
        -high(0x3c90_0000),
        // Where 1 + x is not computed.
        high(0x4340_0000),
        // The model's smallest non-zero draw.
        -(2f64.powi(-53)),
    ];
    // 1 + x a power of two (f = 0 after the reduction) or near one (|f| < 2^-20), and the
    // reduction's sqrt(2) edge at each exponent.
    for exponent in -60..60 {
        let power = 2f64.powi(exponent);
        edges.push(power - 1.0);
        edges.push(power * (1.0 + 3e-7) - 1.0);
        edges.push(power * (1.0 - 3e-7) - 1.0);
        edges.push(power * std::f64::consts::SQRT_2 - 1.0);
        edges.push(f64::from_bits(0x3ff6_a09e_0000_0000) * power - 1.0);
    }
    edges.into_iter().flat_map(|x| neighbours(x, 64)).collect()
}

#[test]
#[cfg_attr(
    not(c_library_is_glibc_fma),
    ignore = "the C library here is not glibc's FMA build"
)]
fn the_model_inputs_give_the_c_library_log1p() {
    assert_c_library_replicated();
    let inputs = model_inputs(2_000_000, 1);
    assert_eq!(mismatches(&inputs, ln_1p), Vec::<f64>::new());
    // And so the exponential durations: -mean * ln(1 - u) as the timeline's sampler gives it.
    let sampler = crate::distribution::Distribution::Exponential { mean_ms: 50.0 }.sampler();
    for &x in &inputs[..10_000] {
        assert_eq!((-50.0 * ln_1p(x)).to_bits(), sampler.quantile(-x).to_bits());
    }
}

#[test]
#[cfg_attr(
    not(c_library_is_glibc_fma),
    ignore = "the C library here is not glibc's FMA build"
)]
fn random_inputs_and_every_edge_give_the_c_library_log1p() {
    assert_c_library_replicated();
    let mut inputs = random_bits(1_000_000);
    inputs.extend(log_uniform(1_000_000));
    inputs.extend(edges());
    assert_eq!(mismatches(&inputs, ln_1p), Vec::<f64>::new());
}

/// The replica with the multiply-add of `unfused` rounded twice (`a * b`, then `+ c`).
fn replica_without_fusing(unfused: Step) -> impl Fn(f64) -> f64 {
    move |x| {
        if !(x > -1.0 && x < f64::INFINITY) {
            return x.ln_1p();
        }
        finite(x, |step, a, b, c| {
            if step == unfused {
                std::hint::black_box(a * b) + c
            } else {
                a.mul_add(b, c)
            }
        })
    }
}

#[test]
#[cfg_attr(
    not(c_library_is_glibc_fma),
    ignore = "the C library here is not glibc's FMA build"
)]
fn every_fused_step_that_can_change_a_result_is_needed_to_match_the_c_library() {
    assert_c_library_replicated();
    let mut inputs = model_inputs(2_000_000, 2);
    inputs.extend(log_uniform(2_000_000));
    inputs.extend(edges());
    // Unfused, these give other bits on some of the inputs above (which the fused replica
    // matches: the tests above); `Poly23` on one input of these four million.
    for step in [Step::First, Step::Poly23] {
        let wrong = mismatches(&inputs, replica_without_fusing(step));
        assert!(!wrong.is_empty(), "{step:?} unfused still matches");
    }
    // The others cannot be told apart here: `x * x * 0.5` and `k * ln2_hi` are exact (so
    // `Tiny` and `HighPart` give the same bits fused or not), and the rest are multiplied by
    // `z^2 <= 2^-6` or smaller, or added to far larger terms (`k ln2_lo`), before they reach
    // a result. The replica fuses them as glibc does; this prints how often they matter.
    for step in [
        Step::Tiny,
        Step::Poly45,
        Step::Poly67,
        Step::Second,
        Step::Third,
        Step::LowPart,
        Step::HighPart,
        Step::Small,
    ] {
        let wrong = mismatches(&inputs, replica_without_fusing(step));
        eprintln!(
            "{step:?} unfused: {} of {} differ",
            wrong.len(),
            inputs.len()
        );
    }
}

#[test]
fn known_values() {
    // ln(1 + x) for exact cases, independent of any C library: ln 1 = 0, ln 2 and ln(1/2)
    // (k ln2_hi + k ln2_lo rounds to the double nearest ln 2), and x - x^2/2 for tiny x.
    assert_eq!(ln_1p(0.0).to_bits(), 0.0f64.to_bits());
    assert_eq!(ln_1p(-0.0).to_bits(), (-0.0f64).to_bits());
    assert_eq!(ln_1p(1.0), std::f64::consts::LN_2);
    assert_eq!(ln_1p(-0.5), -std::f64::consts::LN_2);
    assert_eq!(ln_1p(3.0), 2.0 * std::f64::consts::LN_2);
    let tiny = 2f64.powi(-40);
    assert_eq!(ln_1p(tiny), tiny - tiny * tiny / 2.0);
    assert!(ln_1p(-1.0) == f64::NEG_INFINITY && ln_1p(-2.0).is_nan());
    // ln(1 + x) within an ulp of the closed form at a few points.
    for x in [-0.9f64, -0.3, -0.1, 0.1, 0.5, 10.0, 1e10] {
        let expected = (1.0 + x).ln();
        assert!(
            (ln_1p(x) - expected).abs() <= 4.0 * f64::EPSILON * expected.abs(),
            "{x}"
        );
    }
}

/// The inputs where [`ln_1p_block`] differs from [`ln_1p`] (the last block padded with NaN).
fn block_mismatches(inputs: &[f64]) -> Vec<f64> {
    let mut wrong = Vec::new();
    for chunk in inputs.chunks(BLOCK) {
        let mut block = [f64::NAN; BLOCK];
        block[..chunk.len()].copy_from_slice(chunk);
        let mut results = block;
        ln_1p_block(&mut results);
        for (x, y) in block.iter().zip(results) {
            if y.to_bits() != ln_1p(*x).to_bits() {
                wrong.push(*x);
            }
        }
    }
    wrong
}

#[test]
fn blocks_give_the_scalar_results() {
    // Not only where the C library is replicated: the block must give the replica's bits
    // everywhere (with AVX-512, AVX2 or neither).
    let mut inputs = model_inputs(1_000_000, 5);
    inputs.extend(random_bits(200_000));
    inputs.extend(log_uniform(200_000));
    inputs.extend(edges());
    // Mixed blocks: model draws and edges interleaved.
    let edges = edges();
    inputs.extend(
        model_inputs(edges.len(), 6)
            .into_iter()
            .zip(edges)
            .flat_map(|(a, b)| [a, b]),
    );
    assert_eq!(block_mismatches(&inputs), Vec::<f64>::new());
}

#[test]
fn each_block_path_gives_the_scalar_results() {
    // The dispatch above takes one path on this processor; the others explicitly: the
    // portable one (software fma) everywhere, AVX2 where the processor has it.
    let inputs = model_inputs(20 * BLOCK, 7);
    let mut expected = Vec::new();
    let mut portable = Vec::new();
    let mut avx2 = Vec::new();
    for chunk in inputs.chunks(BLOCK) {
        let block_in: [f64; BLOCK] = chunk.try_into().unwrap();
        expected.extend(block_in.map(ln_1p).map(f64::to_bits));
        let mut values = block_in;
        block(&mut values);
        portable.extend(values.map(f64::to_bits));
        #[cfg(target_arch = "x86_64")]
        if crate::cpu::processor().avx2_fma {
            let mut values = block_in;
            // SAFETY: the processor supports AVX2 and FMA (just checked).
            unsafe { ln_1p_block_avx2(&mut values) };
            avx2.extend(values.map(f64::to_bits));
        }
    }
    assert_eq!(portable, expected);
    if !avx2.is_empty() {
        assert_eq!(avx2, expected);
    }
}
