//! numpy-compatible random streams: `SeedSequence` seeding, PCG64 and the 53-bit unit draw.
//!
//! `numpy.random.default_rng(seed)` is PCG64 (XSL-RR 128/64) seeded through numpy's
//! `SeedSequence`. This module reproduces that seeding exactly, so that the draws of
//! [`default_rng`] are the draws a numpy user gets, bit for bit. The generator itself is
//! `rand_pcg::Pcg64`; [`PcgState`] exposes the same generator's state so that the fast model
//! can jump ahead with precomputed affine maps ([`Jump`]), which `rand_pcg` does not offer.

use rand_pcg::Pcg64;

#[cfg(target_arch = "x86_64")]
pub mod avx512;

/// The multiplier of numpy's PCG64 (and of `rand_pcg::Pcg64`) linear congruential step.
pub const PCG64_MULTIPLIER: u128 = 0x2360_ED05_1FC6_5DA4_4385_DF64_9FCC_F645;

// Constants of numpy's `SeedSequence` (numpy/random/bit_generator.pyx).
const POOL_SIZE: usize = 4;
const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
const XSHIFT: u32 = 16;

/// numpy's `SeedSequence(entropy, spawn_key=...)` for an integer entropy.
///
/// `SeedSequence::new(seed)` is what `default_rng(seed)` builds internally;
/// `SeedSequence::with_spawn_key(seed, &[k])` is `SeedSequence(seed, spawn_key=(k,))`, which is
/// also the `k`-th child of `SeedSequence(seed).spawn(...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeedSequence {
    pool: [u32; POOL_SIZE],
}

impl SeedSequence {
    /// `SeedSequence(seed)`.
    pub fn new(seed: u64) -> Self {
        Self::with_spawn_key(seed, &[])
    }

    /// `SeedSequence(seed, spawn_key=tuple(spawn_key))`.
    pub fn with_spawn_key(seed: u64, spawn_key: &[u64]) -> Self {
        let mut entropy = int_to_u32_words(seed);
        let spawn_entropy: Vec<u32> = spawn_key
            .iter()
            .flat_map(|&word| int_to_u32_words(word))
            .collect();
        if !spawn_entropy.is_empty() && entropy.len() < POOL_SIZE {
            entropy.resize(POOL_SIZE, 0);
        }
        entropy.extend(spawn_entropy);
        Self {
            pool: mix_entropy(&entropy),
        }
    }

    /// `generate_state(N, dtype=np.uint64)`: `N` 64-bit words, each made of two 32-bit words,
    /// low word first (numpy views the little-endian `uint32` array as `uint64`).
    pub fn generate_state_u64<const N: usize>(&self) -> [u64; N] {
        let mut hash_const = INIT_B;
        let mut words32 = self.pool.iter().copied().cycle().map(|mut value| {
            value ^= hash_const;
            hash_const = hash_const.wrapping_mul(MULT_B);
            value = value.wrapping_mul(hash_const);
            value ^ (value >> XSHIFT)
        });
        std::array::from_fn(|_| {
            let low = u64::from(words32.next().expect("cycle never ends"));
            let high = u64::from(words32.next().expect("cycle never ends"));
            low | (high << 32)
        })
    }

    /// The PCG64 generator numpy seeds from this sequence (`numpy.random.PCG64(seq)`).
    pub fn pcg64(&self) -> Pcg64 {
        let (state, stream) = self.pcg64_state_and_stream();
        Pcg64::new(state, stream)
    }

    /// The PCG64 state right after seeding, as a [`PcgState`] (same stream as [`Self::pcg64`]).
    pub fn pcg_state(&self) -> PcgState {
        let (state, stream) = self.pcg64_state_and_stream();
        PcgState::new(state, stream)
    }

    fn pcg64_state_and_stream(&self) -> (u128, u128) {
        let [v0, v1, v2, v3] = self.generate_state_u64::<4>();
        let state = (u128::from(v0) << 64) | u128::from(v1);
        let stream = (u128::from(v2) << 64) | u128::from(v3);
        (state, stream)
    }
}

/// numpy's `_int_to_uint32_array`: 32-bit words, low word first; zero is one zero word.
fn int_to_u32_words(mut value: u64) -> Vec<u32> {
    if value == 0 {
        return vec![0];
    }
    let mut words = Vec::with_capacity(2);
    while value > 0 {
        words.push(value as u32);
        value >>= 32;
    }
    words
}

fn hashmix(value: u32, hash_const: &mut u32) -> u32 {
    let mut value = value ^ *hash_const;
    *hash_const = hash_const.wrapping_mul(MULT_A);
    value = value.wrapping_mul(*hash_const);
    value ^ (value >> XSHIFT)
}

fn mix(x: u32, y: u32) -> u32 {
    let result = MIX_MULT_L
        .wrapping_mul(x)
        .wrapping_sub(MIX_MULT_R.wrapping_mul(y));
    result ^ (result >> XSHIFT)
}

fn mix_entropy(entropy: &[u32]) -> [u32; POOL_SIZE] {
    let mut hash_const = INIT_A;
    let mut pool = [0u32; POOL_SIZE];
    for (index, slot) in pool.iter_mut().enumerate() {
        let value = entropy.get(index).copied().unwrap_or(0);
        *slot = hashmix(value, &mut hash_const);
    }
    for source in 0..POOL_SIZE {
        for destination in 0..POOL_SIZE {
            if source != destination {
                let hashed = hashmix(pool[source], &mut hash_const);
                pool[destination] = mix(pool[destination], hashed);
            }
        }
    }
    for &value in entropy.iter().skip(POOL_SIZE) {
        for slot in pool.iter_mut() {
            let hashed = hashmix(value, &mut hash_const);
            *slot = mix(*slot, hashed);
        }
    }
    pool
}

/// `numpy.random.default_rng(seed)`'s bit generator.
pub fn default_rng(seed: u64) -> Pcg64 {
    SeedSequence::new(seed).pcg64()
}

/// numpy's `Generator.random()` from one raw output: `(raw >> 11) * 2^-53`, in `[0, 1)`.
#[inline]
pub fn unit_f64(raw: u64) -> f64 {
    (raw >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// The integer form of `unit_f64(raw) < p`: `unit_f64(raw) < p` exactly when
/// `(raw >> 11) < loss_threshold(p)`.
///
/// `unit_f64(raw)` is `k * 2^-53` with `k = raw >> 11`, and `k * 2^-53 < p` is `k < p * 2^53`.
/// Scaling by a power of two is exact in binary floating point, so `p * 2^53` is computed
/// without rounding, and for an integer `k`, `k < x` is `k < ceil(x)`.
/// `p = 0` gives 0 (no draw is below it), `p = 1` gives `2^53` (every draw is).
#[inline]
pub fn loss_threshold(p: f64) -> u64 {
    debug_assert!((0.0..=1.0).contains(&p), "p must be a probability");
    (p * (1u64 << 53) as f64).ceil() as u64
}

/// The state of a PCG64 generator, stepped and jumped by hand.
///
/// Identical in output to `rand_pcg::Pcg64` (tests prove it); it exists because the fast model
/// needs the raw state to apply a precomputed [`Jump`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcgState {
    state: u128,
    increment: u128,
}

impl PcgState {
    /// Seeds like `rand_pcg::Pcg64::new(state, stream)` (and numpy's `pcg64_set_seed`).
    pub fn new(state: u128, stream: u128) -> Self {
        let increment = (stream << 1) | 1;
        let mut seeded = Self {
            state: state.wrapping_add(increment),
            increment,
        };
        seeded.step();
        seeded
    }

    /// One step of the linear congruential generator.
    #[inline(always)]
    pub fn step(&mut self) {
        self.state = self
            .state
            .wrapping_mul(PCG64_MULTIPLIER)
            .wrapping_add(self.increment);
    }

    /// The XSL-RR output of the current state (what `next_u64` returns after its step).
    #[inline(always)]
    pub fn output(&self) -> u64 {
        output_xsl_rr(self.state)
    }

    /// Steps, then returns the output: `rand_pcg::Pcg64::next_u64`.
    #[inline(always)]
    pub fn next_u64(&mut self) -> u64 {
        self.step();
        self.output()
    }

    /// The 128-bit LCG state (the output is a function of it alone).
    #[inline(always)]
    pub fn state(&self) -> u128 {
        self.state
    }

    /// The increment (`2 * stream + 1`) that selects this generator's stream.
    pub fn increment(&self) -> u128 {
        self.increment
    }

    /// The same stream at another state.
    #[inline(always)]
    pub fn with_state(&self, state: u128) -> Self {
        Self {
            state,
            increment: self.increment,
        }
    }

    /// The map that moves this generator `delta` steps ahead.
    pub fn jump(&self, delta: u128) -> Jump {
        Jump::new(delta, self.increment)
    }

    /// Applies a jump made for this generator's stream.
    #[inline(always)]
    pub fn apply(&mut self, jump: &Jump) {
        self.state = self
            .state
            .wrapping_mul(jump.multiplier)
            .wrapping_add(jump.addend);
    }

    /// Moves `delta` steps ahead.
    pub fn advance(&mut self, delta: u128) {
        let jump = self.jump(delta);
        self.apply(&jump);
    }
}

#[inline(always)]
fn output_xsl_rr(state: u128) -> u64 {
    let rotation = (state >> 122) as u32;
    let folded = ((state >> 64) as u64) ^ (state as u64);
    folded.rotate_right(rotation)
}

/// `delta` steps of a PCG64 stream as one affine map `state -> state * multiplier + addend`
/// (modulo 2^128), computed once in O(log delta) and then applied in one multiply-add.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Jump {
    multiplier: u128,
    addend: u128,
}

impl Jump {
    fn new(mut delta: u128, increment: u128) -> Self {
        // Brown's "Random number generation with arbitrary strides": square-and-multiply on
        // the affine map (M, increment).
        let mut multiplier: u128 = 1;
        let mut addend: u128 = 0;
        let mut step_multiplier = PCG64_MULTIPLIER;
        let mut step_addend = increment;
        while delta > 0 {
            if delta & 1 == 1 {
                multiplier = multiplier.wrapping_mul(step_multiplier);
                addend = addend
                    .wrapping_mul(step_multiplier)
                    .wrapping_add(step_addend);
            }
            step_addend = step_multiplier.wrapping_add(1).wrapping_mul(step_addend);
            step_multiplier = step_multiplier.wrapping_mul(step_multiplier);
            delta >>= 1;
        }
        Self { multiplier, addend }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::Rng;

    const DEFAULT_RNG_VECTORS: &str =
        include_str!("../../../tests/reference/numpy_default_rng_vectors.csv");
    const SPAWN_VECTORS: &str =
        include_str!("../../../tests/reference/numpy_seedsequence_spawn_vectors.csv");

    /// Rows of a reference CSV, header skipped, split on commas.
    fn rows(text: &str) -> impl Iterator<Item = Vec<&str>> {
        text.lines()
            .skip(1)
            .filter(|line| !line.is_empty())
            .map(|line| line.split(',').collect())
    }

    #[test]
    fn default_rng_matches_every_numpy_vector() {
        let mut checked = 0;
        let mut current: Option<(u64, Pcg64, PcgState)> = None;
        for row in rows(DEFAULT_RNG_VECTORS) {
            let seed: u64 = row[0].parse().unwrap();
            let index: usize = row[1].parse().unwrap();
            let raw: u64 = row[2].parse().unwrap();
            let unit: f64 = row[3].parse().unwrap();
            if current.as_ref().map(|(s, _, _)| *s) != Some(seed) {
                assert_eq!(index, 0, "vectors of a seed start at index 0");
                current = Some((seed, default_rng(seed), SeedSequence::new(seed).pcg_state()));
            }
            let (_, reference, lane) = current.as_mut().unwrap();
            let drawn = reference.next_u64();
            assert_eq!(drawn, raw, "seed {seed} index {index}: raw u64");
            assert_eq!(lane.next_u64(), raw, "seed {seed} index {index}: PcgState");
            assert_eq!(
                unit_f64(drawn).to_bits(),
                unit.to_bits(),
                "seed {seed} index {index}: f64"
            );
            checked += 1;
        }
        assert_eq!(checked, 56, "7 seeds x 8 values");
    }

    #[test]
    fn spawned_sequences_match_every_numpy_vector() {
        let mut checked = 0;
        for row in rows(SPAWN_VECTORS) {
            let root: u64 = row[0].parse().unwrap();
            let child: u64 = row[1].parse().unwrap();
            let index: usize = row[2].parse().unwrap();
            let expected: f64 = row[3].parse().unwrap();
            let mut rng = SeedSequence::with_spawn_key(root, &[child]).pcg64();
            let value = (0..=index)
                .map(|_| unit_f64(rng.next_u64()))
                .last()
                .unwrap();
            assert_eq!(
                value.to_bits(),
                expected.to_bits(),
                "root {root} child {child} index {index}"
            );
            checked += 1;
        }
        assert_eq!(checked, 32, "2 roots x 4 children x 4 values");
    }

    #[test]
    fn seed_words_are_low_word_first() {
        assert_eq!(int_to_u32_words(0), vec![0]);
        assert_eq!(int_to_u32_words(1 << 32), vec![0, 1]);
        assert_eq!(int_to_u32_words(u64::MAX), vec![u32::MAX, u32::MAX]);
    }

    #[test]
    fn jumps_equal_repeated_steps() {
        let start = SeedSequence::new(7).pcg_state();
        for delta in [0u128, 1, 2, 3, 10, 1000, 4097] {
            let mut stepped = start;
            for _ in 0..delta {
                stepped.step();
            }
            let mut jumped = start;
            jumped.advance(delta);
            assert_eq!(jumped, stepped, "delta {delta}");
        }
    }

    #[test]
    fn jumps_compose() {
        let start = SeedSequence::new(11).pcg_state();
        let mut twice = start;
        let jump = start.jump(12_345);
        twice.apply(&jump);
        twice.apply(&jump);
        let mut once = start;
        once.advance(24_690);
        assert_eq!(twice, once);
        // A full period (2^128 steps) returns to the start.
        let mut around = start;
        around.advance(u128::MAX);
        around.step();
        assert_eq!(around, start);
    }

    #[test]
    fn threshold_is_the_float_comparison() {
        let probabilities = [0.0, 1e-300, 0.01, 0.05, 0.1, 0.3, 0.5, 0.999_999, 1.0];
        for p in probabilities {
            let threshold = loss_threshold(p);
            for k in [
                threshold.saturating_sub(2),
                threshold.saturating_sub(1),
                threshold,
                threshold + 1,
                0,
                (1 << 53) - 1,
            ] {
                let k = k.min((1 << 53) - 1);
                let raw = k << 11;
                assert_eq!(
                    k < threshold,
                    unit_f64(raw) < p,
                    "p {p} k {k} threshold {threshold}"
                );
            }
        }
        assert_eq!(loss_threshold(0.0), 0);
        assert_eq!(loss_threshold(1.0), 1 << 53);
    }
}
