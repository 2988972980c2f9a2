//! The `exp` replica of the timeline model (`engine::numerics::exp`) against the C
//! library's, on one thread (std-only timer, `benches/support/timing.rs`):
//! - `cargo bench --bench exp`: `exp/c_library`, `exp/replica` (scalar), `exp/exp8`,
//!   `exp/log_normal8` (arrays of eight in and out) and `exp/exp_vector` and `exp/exp8_avx512`
//!   (inlined in a loop with AVX-512F, as a batched sampler would call them) on 10^7 inputs in `[-10, 10]` (a table of 2^16 reused), in values per
//!   second;
//! - `cargo bench --bench exp -- --check COUNT`: compares the replica (scalar and eight lanes)
//!   with the C library bit for bit on COUNT random inputs (a fifth each: uniform in
//!   `[-40, 40]`, in `[-512, 512]`, log-uniform magnitudes in `[2^-60, 2^10]` of either sign,
//!   random bit patterns, and `sigma * normal_quantile(u)` of the three log-normals of
//!   `configs/mobile-network.toml` in turn, `u` a random draw as the model makes it) and
//!   prints the mismatches;
//! - `cargo bench --bench exp -- --only KIND COUNT` (KIND `c_library`, `replica`, `exp8`):
//!   COUNT values of KIND once, untimed, for `benches/exp_instructions.sh` (callgrind).

#[path = "support/timing.rs"]
mod timing;

use std::hint::black_box;

use engine::distribution::{Distribution, Sampler};
use engine::numerics::exp::{self, exp, exp8, log_normal8, replicates_c_library};
use engine::numerics::normal::normal_quantile;
use engine::rng::{PcgState, unit_f64};

/// Values per timed case.
const VALUES: usize = 10_000_000;
/// The inputs' table, reused: small enough for the first-level cache's neighbour.
const TABLE: usize = 1 << 16;

/// `count` uniform inputs in `[-10, 10]`.
fn inputs(count: usize) -> Vec<f64> {
    let mut rng = PcgState::new(0xe4, 1);
    (0..count)
        .map(|_| -10.0 + 20.0 * unit_f64(rng.next_u64()))
        .collect()
}

/// `exp` of `values` inputs of `table` (read cyclically) by `kind`, each result stored (as a
/// caller would); returns the last.
fn run(kind: &str, table: &[f64], values: usize) -> f64 {
    let mut results = vec![0.0; table.len()];
    for _ in 0..values / table.len() {
        let pairs = black_box(&mut results).iter_mut().zip(black_box(table));
        match kind {
            "c_library" => pairs.for_each(|(y, &x)| *y = x.exp()),
            "replica" => pairs.for_each(|(y, &x)| *y = exp(x)),
            "exp8" => each_eight(&mut results, table, exp8),
            "log_normal8" => each_eight(&mut results, table, |z| log_normal8(150.0, 0.89, z)),
            #[cfg(target_arch = "x86_64")]
            "exp_vector" => {
                assert!(engine::cpu::processor().avx512, "exp_vector needs AVX-512F");
                // SAFETY: the processor supports AVX-512F (just checked).
                unsafe { exp_vector_loop(&mut results, table) }
            }
            #[cfg(target_arch = "x86_64")]
            "exp8_avx512" => {
                assert!(
                    engine::cpu::processor().avx512,
                    "exp8_avx512 needs AVX-512F"
                );
                // SAFETY: the processor supports AVX-512F (just checked).
                unsafe { exp8_avx512_loop(&mut results, table) }
            }
            other => panic!("unknown kind {other}: c_library, replica, exp8 or log_normal8"),
        }
    }
    results[results.len() - 1]
}

/// `results = exp(table)` by [`exp::exp_vector`] inlined in a loop with AVX-512F, as a batched
/// sampler calls it.
///
/// # Safety
/// The processor must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn exp_vector_loop(results: &mut [f64], table: &[f64]) {
    use std::arch::x86_64::{_mm512_loadu_pd, _mm512_storeu_pd};
    for (y, x) in results.chunks_exact_mut(8).zip(table.chunks_exact(8)) {
        // SAFETY: both chunks hold eight doubles; the accesses are unaligned.
        unsafe { _mm512_storeu_pd(y.as_mut_ptr(), exp::exp_vector(_mm512_loadu_pd(x.as_ptr()))) };
    }
}

/// `results = exp(table)` by [`exp::exp8_avx512`] (arrays of eight) inlined in a loop with
/// AVX-512F.
///
/// # Safety
/// The processor must support AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
unsafe fn exp8_avx512_loop(results: &mut [f64], table: &[f64]) {
    for (y, x) in results.chunks_exact_mut(8).zip(table.chunks_exact(8)) {
        y.copy_from_slice(&exp::exp8_avx512(x.try_into().expect("eight lanes")));
    }
}

/// `results[i..i + 8] = function(table[i..i + 8])` for every eighth `i`.
fn each_eight(results: &mut [f64], table: &[f64], function: impl Fn([f64; 8]) -> [f64; 8]) {
    for (y, x) in results.chunks_exact_mut(8).zip(table.chunks_exact(8)) {
        y.copy_from_slice(&function(x.try_into().expect("eight lanes")));
    }
}

/// The `sigma` of the three log-normals of `configs/mobile-network.toml` (request 60/600 ms,
/// response 80/2500 ms, processing 150/1200 ms).
fn mobile_network_sigmas() -> [f64; 3] {
    [(60.0, 600.0), (80.0, 2500.0), (150.0, 1200.0)].map(|(median_ms, p99_ms)| {
        match (Distribution::LogNormal { median_ms, p99_ms }).sampler() {
            Sampler::LogNormal { sigma, .. } => sigma,
            Sampler::Other(_) => unreachable!("a log-normal's sampler"),
        }
    })
}

/// The `index`-th check input: a fifth each of five kinds (see the module's doc).
fn check_input(raw: u64, index: u64, sigmas: &[f64; 3]) -> f64 {
    let unit = unit_f64(raw);
    match index % 5 {
        0 => -40.0 + 80.0 * unit,
        1 => -512.0 + 1024.0 * unit,
        2 => {
            let magnitude = (unit * 70.0 - 60.0).exp2();
            if raw & 1 == 0 { magnitude } else { -magnitude }
        }
        3 => f64::from_bits(raw),
        _ => sigmas[(index / 5 % 3) as usize] * normal_quantile(unit),
    }
}

/// Compares [`exp`] and [`exp8`] with the C library on `count` inputs; returns the mismatches.
fn check(count: u64) -> u64 {
    let mut rng = PcgState::new(0xc4ec, 2);
    let mut mismatches = 0;
    let mut lanes = [0.0; 8];
    let sigmas = mobile_network_sigmas();
    for index in 0..count {
        let x = check_input(rng.next_u64(), index, &sigmas);
        let expected = black_box(x).exp().to_bits();
        if exp(x).to_bits() != expected {
            mismatches += 1;
            eprintln!("exp({x:e}) = {:e}, the C library {:e}", exp(x), x.exp());
        }
        lanes[(index % 8) as usize] = x;
        if index % 8 == 7 {
            for (x, y) in lanes.iter().zip(exp8(lanes)) {
                if y.to_bits() != black_box(*x).exp().to_bits() {
                    mismatches += 1;
                    eprintln!("exp8 lane exp({x:e}) = {y:e}, the C library {:e}", x.exp());
                }
            }
        }
    }
    mismatches
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let after = |flag: &str| {
        args.iter()
            .position(|arg| arg == flag)
            .map(|at| &args[at + 1..])
    };
    if let Some(rest) = after("--check") {
        assert!(
            replicates_c_library(),
            "the C library's exp is not glibc's __exp_fma here"
        );
        let count: u64 = rest[0].parse().expect("--check COUNT");
        let mismatches = check(count);
        println!("exp and exp8 against the C library: {count} inputs, {mismatches} mismatches");
        std::process::exit(i32::from(mismatches > 0));
    }
    if let Some(rest) = after("--only") {
        let count: usize = rest[1].parse().expect("--only KIND COUNT");
        println!("{}", run(&rest[0], &inputs(TABLE), count));
        return;
    }
    let timer = timing::Timer::from_args(5);
    let table = inputs(TABLE);
    let mut kinds = vec!["c_library", "replica", "exp8", "log_normal8"];
    if engine::cpu::processor().avx512 {
        kinds.extend(["exp_vector", "exp8_avx512"]);
    }
    for kind in kinds {
        timer.run(&format!("exp/{kind}"), (VALUES as u64, "values"), || {
            run(kind, &table, VALUES)
        });
    }
}
