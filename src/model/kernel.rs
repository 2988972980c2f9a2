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

use rayon::prelude::*;

use super::{AttemptHistogram, Interrupted, Progress};
use crate::rng::{Jump, PcgState, SeedSequence, loss_threshold};

/// Requests per unit of parallel work (and per progress report).
pub const CHUNK_REQUESTS: u64 = 1 << 20;

/// Generators stepped side by side in one chunk: independent multiply chains keep the
/// multiplier busy (instruction-level parallelism), about 1.5x faster than one chain.
const LANES: usize = 4;

/// The attempts-per-request histograms of every p in `ack_loss` (in that order).
pub fn attempt_histograms(
    seeds: &SeedSequence,
    requests: u64,
    max_retries: u32,
    ack_loss: &[f64],
    threads: usize,
    progress: &dyn Progress,
) -> Result<Vec<AttemptHistogram>, Interrupted> {
    let start = seeds.pcg_state();
    let pass = Pass {
        start,
        round_jump: start.jump(u128::from(requests)),
        thresholds: ack_loss.iter().map(|&p| loss_threshold(p)).collect(),
        max_retries,
    };
    let chunks = requests.div_ceil(CHUNK_REQUESTS);
    let run_chunk = |chunk: u64| -> Result<Tally, Interrupted> {
        if progress.should_stop() {
            return Err(Interrupted);
        }
        let mut tally = pass.empty_tally();
        let first = chunk * CHUNK_REQUESTS;
        let len = CHUNK_REQUESTS.min(requests - first);
        pass.run(first, len, &mut tally);
        progress.advance(len);
        Ok(tally)
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool can be built");
    // `try_reduce` stops handing out chunks once one reports the interruption, so even a run
    // of a billion chunks stops within a chunk or so.
    let total = pool.install(|| {
        (0..chunks)
            .into_par_iter()
            .map(run_chunk)
            .try_reduce(|| pass.empty_tally(), |left, right| Ok(left.merge(right)))
    })?;
    Ok(total.into_histograms())
}

/// What one pass over the stream needs, shared by every chunk.
struct Pass {
    start: PcgState,
    round_jump: Jump,
    thresholds: Vec<u64>,
    max_retries: u32,
}

/// Per-chunk counts: requests that kept their first ACK at every p, and histograms of the rest.
struct Tally {
    first_ack_arrived: u64,
    histograms: Vec<AttemptHistogram>,
}

impl Tally {
    fn merge(mut self, other: Tally) -> Tally {
        self.first_ack_arrived += other.first_ack_arrived;
        for (mine, theirs) in self.histograms.iter_mut().zip(&other.histograms) {
            mine.merge(theirs);
        }
        self
    }

    fn into_histograms(mut self) -> Vec<AttemptHistogram> {
        for histogram in &mut self.histograms {
            histogram.record(1, self.first_ack_arrived);
        }
        self.histograms
    }
}

impl Pass {
    fn empty_tally(&self) -> Tally {
        Tally {
            first_ack_arrived: 0,
            histograms: vec![AttemptHistogram::new(self.max_retries); self.thresholds.len()],
        }
    }

    /// The loss threshold of the largest p: a draw at or above it keeps the ACK at every p.
    fn any_loss_threshold(&self) -> u64 {
        if self.max_retries == 0 {
            0
        } else {
            self.thresholds.iter().copied().max().unwrap_or(0)
        }
    }

    /// Counts requests `first .. first + len`.
    fn run(&self, first: u64, len: u64, tally: &mut Tally) {
        let any_loss = self.any_loss_threshold();
        // Lane j covers `lane_len` consecutive requests from `first + j * lane_len`; the
        // remainder (fewer than LANES requests) runs on one lane afterwards.
        let lane_len = len / LANES as u64;
        let mut lanes: [PcgState; LANES] = std::array::from_fn(|lane| {
            let mut state = self.start;
            state.advance(u128::from(first + lane as u64 * lane_len));
            state
        });
        let mut lost_first_ack = 0u64;
        for _ in 0..lane_len {
            for lane in lanes.iter_mut() {
                lane.step();
                if lane.output() >> 11 < any_loss {
                    lost_first_ack += 1;
                    self.retry(lane, tally);
                }
            }
        }
        let mut rest = self.start;
        rest.advance(u128::from(first + LANES as u64 * lane_len));
        for _ in LANES as u64 * lane_len..len {
            rest.step();
            if rest.output() >> 11 < any_loss {
                lost_first_ack += 1;
                self.retry(&rest, tally);
            }
        }
        tally.first_ack_arrived += len - lost_first_ack;
    }

    /// A request whose round-0 draw (at `at`) is below the largest threshold: follow its draws
    /// in later rounds and count its attempts at every p.
    #[cold]
    fn retry(&self, at: &PcgState, tally: &mut Tally) {
        let any_loss = self.any_loss_threshold();
        let mut state = *at;
        // Largest of this request's draws so far: the request is still losing ACKs at p
        // exactly while this stays below p's threshold.
        let mut largest_draw = state.output() >> 11;
        // rounds_lost[p] = rounds in which the ACK was lost at p (attempts = 1 + that).
        let mut rounds_lost = vec![0u32; self.thresholds.len()];
        for round in 0..self.max_retries {
            if round > 0 {
                state.apply(&self.round_jump);
                largest_draw = largest_draw.max(state.output() >> 11);
                if largest_draw >= any_loss {
                    break;
                }
            }
            for (lost, &threshold) in rounds_lost.iter_mut().zip(&self.thresholds) {
                if largest_draw < threshold {
                    *lost += 1;
                }
            }
        }
        for (histogram, lost) in tally.histograms.iter_mut().zip(rounds_lost) {
            histogram.record(1 + lost, 1);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;

    /// Asks to stop from its third question on, and counts the questions.
    struct StopSoon {
        questions: AtomicU64,
    }

    impl Progress for StopSoon {
        fn should_stop(&self) -> bool {
            self.questions.fetch_add(1, Ordering::SeqCst) >= 2
        }
    }

    #[test]
    fn an_interruption_stops_a_huge_run_within_a_few_chunks() {
        // 2^40 requests are 2^20 chunks; after the stop only the chunks already handed to the
        // two threads may still ask, not the million others.
        let progress = StopSoon {
            questions: AtomicU64::new(0),
        };
        let seeds = SeedSequence::new(42);
        let result = attempt_histograms(&seeds, 1 << 40, 20, &[0.1], 2, &progress);
        assert_eq!(result.unwrap_err(), Interrupted);
        let questions = progress.questions.load(Ordering::SeqCst);
        assert!(questions < 1_000, "{questions} chunks were asked");
    }
}
