//! The fast engine's hot loop: the article's draws, request by request, in constant memory.
//!
//! # Why this is exact
//! numpy draws a whole vector per round, so the draw of request `i` in round `r` is the
//! `(r * n + i)`-th draw of the stream (0-based). A request's attempts depend only on its own
//! draws `i, n + i, 2n + i, ...`: it loses its ACK in round `r` when it lost it in every earlier
//! round and draw `r` is below `p` (draws of requests that stopped are consumed but unused, and
//! numpy's early `break` only skips draws nobody looks at). So instead of whole rounds we
//! walk the stream once at positions `0..n` (round 0), and for the rare request that loses its
//! first ACK we jump ahead by exactly `n` steps per round with a precomputed affine map of the
//! PCG64 state. Work is split into chunks that start at `advance(start)`; chunk results are
//! integer sums, so any thread count gives the same bytes.
//!
//! Every p uses a fresh generator from the same seed, so all p values see the same draws: a
//! request loses its ACK at threshold `p` in round `r` exactly when the largest of its draws
//! `0..=r` is below `p`. One pass therefore serves every p. Comparisons are on integers:
//! `unit_f64(raw) < p` is `(raw >> 11) < loss_threshold(p)` (see [`loss_threshold`]).

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use super::{AttemptHistogram, Interrupted, Progress};
use crate::rng::{Jump, PcgState, SeedSequence, loss_threshold};

/// Requests per unit of parallel work (and per progress report).
pub const CHUNK_REQUESTS: u64 = 1 << 20;

/// Generators stepped side by side in one chunk: independent multiply chains keep the
/// multiplier busy (instruction-level parallelism), about 1.5x faster than one chain.
const LANES: usize = 4;

/// Requests that lost their first ACK, collected before they are followed in one batch.
const PENDING: usize = 512;

/// The attempts-per-request histograms of every p in `ack_loss` (in that order).
pub fn attempt_histograms(
    seeds: &SeedSequence,
    requests: u64,
    max_retries: u32,
    ack_loss: &[f64],
    threads: usize,
    progress: &dyn Progress,
) -> Result<Vec<AttemptHistogram>, Interrupted> {
    let pass = Pass::new(seeds, requests, max_retries, ack_loss);
    let chunks = requests.div_ceil(CHUNK_REQUESTS);
    let stopped = AtomicBool::new(false);
    let run_chunk = |mut losses: Losses, chunk: u64| -> Losses {
        if stopped.load(Ordering::Relaxed) || progress.should_stop() {
            stopped.store(true, Ordering::Relaxed);
            return losses;
        }
        let first = chunk * CHUNK_REQUESTS;
        let len = CHUNK_REQUESTS.min(requests - first);
        pass.run(first, len, &mut losses);
        progress.advance(len);
        losses
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool can be built");
    let losses = pool.install(|| {
        (0..chunks)
            .into_par_iter()
            .fold(|| pass.no_losses(), run_chunk)
            .reduce(|| pass.no_losses(), Losses::merge)
    });
    if stopped.load(Ordering::Relaxed) {
        return Err(Interrupted);
    }
    Ok(pass.histograms(&losses))
}

/// What one pass over the stream needs, shared by every chunk.
struct Pass {
    start: PcgState,
    /// `requests` steps: from a request's draw in round `r` to its draw in round `r + 1`.
    round_jump: Jump,
    /// The loss thresholds of the p values, ascending.
    sorted_thresholds: Vec<u64>,
    /// `p_order[k]` = the position in `sorted_thresholds` of the k-th p as given.
    p_order: Vec<usize>,
    requests: u64,
    max_retries: u32,
}

/// How often, per round, a request's ACK losses stopped at each threshold.
///
/// `by_round[r][j]` counts requests that lost their ACK in rounds `0..=r` at exactly the p
/// values whose thresholds are at sorted positions `j..` (the largest draw of rounds `0..=r`
/// lies between sorted thresholds `j - 1` and `j`). The memory is `O(rounds x p values)`,
/// whatever the number of requests; rows are added only for rounds some request reached.
struct Losses {
    by_round: Vec<Vec<u64>>,
}

impl Losses {
    fn merge(mut self, other: Losses) -> Losses {
        if other.by_round.len() > self.by_round.len() {
            return other.merge(self);
        }
        for (mine, theirs) in self.by_round.iter_mut().zip(&other.by_round) {
            for (count, add) in mine.iter_mut().zip(theirs) {
                *count += add;
            }
        }
        self
    }
}

impl Pass {
    fn new(seeds: &SeedSequence, requests: u64, max_retries: u32, ack_loss: &[f64]) -> Self {
        let start = seeds.pcg_state();
        let thresholds: Vec<u64> = ack_loss.iter().map(|&p| loss_threshold(p)).collect();
        let mut by_threshold: Vec<usize> = (0..thresholds.len()).collect();
        by_threshold.sort_by_key(|&index| thresholds[index]);
        let mut p_order = vec![0; thresholds.len()];
        for (sorted, &index) in by_threshold.iter().enumerate() {
            p_order[index] = sorted;
        }
        Self {
            start,
            round_jump: start.jump(u128::from(requests)),
            sorted_thresholds: by_threshold.iter().map(|&i| thresholds[i]).collect(),
            p_order,
            requests,
            max_retries,
        }
    }

    fn no_losses(&self) -> Losses {
        Losses {
            by_round: Vec::new(),
        }
    }

    /// The loss threshold of the largest p: a draw at or above it keeps the ACK at every p.
    fn any_loss_threshold(&self) -> u64 {
        match self.sorted_thresholds.last() {
            Some(&largest) if self.max_retries > 0 => largest,
            _ => 0,
        }
    }

    /// Counts the ACK losses of requests `first .. first + len`.
    fn run(&self, first: u64, len: u64, losses: &mut Losses) {
        let any_loss = self.any_loss_threshold();
        // Lane j covers `lane_len` consecutive requests from `first + j * lane_len`; the
        // remainder (fewer than LANES requests) runs on one lane afterwards.
        let lane_len = len / LANES as u64;
        let mut lanes: [PcgState; LANES] = std::array::from_fn(|lane| {
            let mut state = self.start;
            state.advance(u128::from(first + lane as u64 * lane_len));
            state
        });
        // Requests that lost their first ACK are collected without a branch (every state is
        // written; the count only moves past it when it lost) and followed in batches, so the
        // hot loop never mispredicts on a random draw.
        let mut pending = [self.start; PENDING + LANES];
        let mut count = 0;
        for _ in 0..lane_len {
            for lane in lanes.iter_mut() {
                lane.step();
                pending[count] = *lane;
                count += usize::from(lane.output() >> 11 < any_loss);
            }
            if count >= PENDING {
                self.follow_all(&pending[..count], losses);
                count = 0;
            }
        }
        let mut rest = self.start;
        rest.advance(u128::from(first + LANES as u64 * lane_len));
        for _ in LANES as u64 * lane_len..len {
            rest.step();
            pending[count] = rest;
            count += usize::from(rest.output() >> 11 < any_loss);
        }
        self.follow_all(&pending[..count], losses);
    }

    fn follow_all(&self, lost_first_ack: &[PcgState], losses: &mut Losses) {
        for state in lost_first_ack {
            self.follow(state, losses);
        }
    }

    /// The sorted position of the first threshold above `draw`: the request is losing its
    /// ACK at exactly the p values from that position on.
    #[inline(always)]
    fn losing_from(&self, draw: u64) -> usize {
        if self.sorted_thresholds.len() <= 16 {
            // Branch-free for the usual handful of p values.
            self.sorted_thresholds
                .iter()
                .map(|&threshold| usize::from(threshold <= draw))
                .sum()
        } else {
            self.sorted_thresholds
                .partition_point(|&threshold| threshold <= draw)
        }
    }

    /// A request whose round-0 draw (the output of `at`) is below the largest threshold:
    /// follow its draws through later rounds while it keeps losing its ACK at some p.
    #[inline]
    fn follow(&self, at: &PcgState, losses: &mut Losses) {
        let any_loss = self.any_loss_threshold();
        let mut state = *at;
        // The largest of this request's draws so far: the request is still losing ACKs at p
        // exactly while this stays below p's threshold.
        let mut largest_draw = state.output() >> 11;
        for round in 0..self.max_retries as usize {
            if round > 0 {
                state.apply(&self.round_jump);
                largest_draw = largest_draw.max(state.output() >> 11);
                if largest_draw >= any_loss {
                    return;
                }
            }
            if losses.by_round.len() == round {
                losses.by_round.push(vec![0; self.sorted_thresholds.len()]);
            }
            losses.by_round[round][self.losing_from(largest_draw)] += 1;
        }
    }

    /// Turns the loss counts into one histogram per p, in the order p was given.
    fn histograms(&self, losses: &Losses) -> Vec<AttemptHistogram> {
        self.p_order
            .iter()
            .map(|&sorted| {
                // lost[r] = requests that lost their ACK in rounds 0..=r at this p, i.e. made
                // at least r + 2 attempts.
                let lost: Vec<u64> = losses
                    .by_round
                    .iter()
                    .map(|row| row[..=sorted].iter().sum())
                    .collect();
                let mut histogram = AttemptHistogram::new(self.max_retries);
                let at_least = |attempts: usize| match attempts {
                    1 => self.requests,
                    a => lost.get(a - 2).copied().unwrap_or(0),
                };
                for attempts in 1..=self.max_retries as usize + 1 {
                    let exactly = at_least(attempts) - at_least(attempts + 1);
                    if exactly > 0 {
                        histogram.record(attempts as u32, exactly);
                    }
                }
                histogram
            })
            .collect()
    }
}
