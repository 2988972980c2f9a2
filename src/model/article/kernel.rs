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
//!
//! # Where the time goes
//! Round 0 touches every request and is the hot loop: one 128-bit multiply-add per request.
//! [`Implementation::Portable`] interleaves four generators; on x86-64 with AVX-512,
//! [`Implementation::Avx512`] steps sixteen in two vectors (`engine::rng::avx512`), chosen at run time.
//! Requests that lose their first ACK are gathered without branching and followed in
//! batches, round by round ([`Pass::follow`]).

use rayon::prelude::*;

use super::{ArticleModel, AttemptHistogram, Interrupted, Progress};
use engine::parallel::thread_pool;
use engine::rng::{Jump, PcgState, loss_threshold};

/// Requests per unit of parallel work (and per progress report).
pub const CHUNK_REQUESTS: u64 = 1 << 20;

/// Generators the portable scan steps side by side in one chunk: independent multiply chains
/// keep the multiplier busy (instruction-level parallelism), about 1.5x faster than one chain.
const PORTABLE_LANES: usize = 4;

/// Requests that lost their first ACK, collected before they are followed in one batch.
const PENDING: usize = 512;

/// Which code scans round 0 (the hot loop). All give identical counts; [`Self::detect`]
/// picks the fastest this processor can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Implementation {
    /// Plain Rust on any processor: four generators interleaved.
    Portable,
    /// x86-64 with AVX-512F and AVX-512DQ: sixteen generators in two vectors.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl Implementation {
    /// The fastest implementation this processor supports.
    pub fn detect() -> Self {
        Self::available().pop().unwrap_or(Implementation::Portable)
    }

    /// Every implementation this processor supports, portable first (only the portable one
    /// when built with the benchmarks' `portable-scan` feature).
    pub fn available() -> Vec<Self> {
        let mut available = vec![Implementation::Portable];
        #[cfg(target_arch = "x86_64")]
        if engine::cpu::avx512() {
            available.push(Implementation::Avx512);
        }
        available
    }

    fn lanes(self) -> u64 {
        match self {
            Implementation::Portable => PORTABLE_LANES as u64,
            #[cfg(target_arch = "x86_64")]
            Implementation::Avx512 => engine::rng::avx512::LANES as u64,
        }
    }
}

/// The attempts-per-request histograms of run `run` of `model`, one per p of its `ack_loss`
/// (in that order), computed on the rayon thread pool this is called from (see
/// [`engine::parallel::thread_pool`]).
pub fn attempt_histograms(
    model: &ArticleModel,
    run: u32,
    progress: &dyn Progress,
) -> Result<Vec<AttemptHistogram>, Interrupted> {
    Pass::new(Implementation::detect(), model, run).histograms_by_chunks(CHUNK_REQUESTS, progress)
}

/// [`attempt_histograms`] with a chosen [`Implementation`] (which must be available) on a
/// pool of `threads` workers of its own.
pub fn attempt_histograms_with(
    implementation: Implementation,
    model: &ArticleModel,
    run: u32,
    threads: usize,
    progress: &dyn Progress,
) -> Result<Vec<AttemptHistogram>, Interrupted> {
    let plan = ScanPlan {
        implementation,
        chunk_requests: CHUNK_REQUESTS,
        threads,
    };
    attempt_histograms_planned(plan, model, run, progress)
}

/// How a scan is split and run. The counts do not depend on it; tests use small chunks to
/// reach chunk and lane boundaries with few requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanPlan {
    /// The code that scans round 0 (it must be available on this processor).
    pub implementation: Implementation,
    /// Requests per unit of parallel work (and per progress report), at least one;
    /// [`CHUNK_REQUESTS`] in the engine.
    pub chunk_requests: u64,
    /// Workers in the scan's own thread pool (at least one is used).
    pub threads: usize,
}

/// [`attempt_histograms`] as `plan` says, on a thread pool of its own.
///
/// # Panics
/// If `plan.chunk_requests` is 0 or the implementation is not available.
pub fn attempt_histograms_planned(
    plan: ScanPlan,
    model: &ArticleModel,
    run: u32,
    progress: &dyn Progress,
) -> Result<Vec<AttemptHistogram>, Interrupted> {
    assert!(
        plan.chunk_requests > 0,
        "a chunk holds at least one request"
    );
    let pass = Pass::new(plan.implementation, model, run);
    thread_pool(plan.threads).install(|| pass.histograms_by_chunks(plan.chunk_requests, progress))
}

/// What one pass over the stream needs, shared by every chunk.
struct Pass {
    implementation: Implementation,
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
    /// Scratch space of [`Pass::follow`]: the states of requests still losing somewhere, and
    /// the largest draw each has seen. Not part of the counts.
    live_states: Vec<u128>,
    live_largest: Vec<u64>,
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
    fn new(implementation: Implementation, model: &ArticleModel, run: u32) -> Self {
        assert!(
            Implementation::available().contains(&implementation),
            "{implementation:?} is not available on this processor"
        );
        let requests = model.requests;
        let start = model.seed_sequence(run).pcg_state();
        let thresholds: Vec<u64> = model.ack_loss.iter().map(|&p| loss_threshold(p)).collect();
        let mut by_threshold: Vec<usize> = (0..thresholds.len()).collect();
        by_threshold.sort_by_key(|&index| thresholds[index]);
        let mut p_order = vec![0; thresholds.len()];
        for (sorted, &index) in by_threshold.iter().enumerate() {
            p_order[index] = sorted;
        }
        Self {
            implementation,
            start,
            round_jump: start.jump(u128::from(requests)),
            sorted_thresholds: by_threshold.iter().map(|&i| thresholds[i]).collect(),
            p_order,
            requests,
            max_retries: model.max_retries,
        }
    }

    /// The histograms of the whole stream, scanned in chunks of `chunk_requests` requests on
    /// the rayon thread pool this is called from.
    fn histograms_by_chunks(
        &self,
        chunk_requests: u64,
        progress: &dyn Progress,
    ) -> Result<Vec<AttemptHistogram>, Interrupted> {
        let requests = self.requests;
        let chunks = requests.div_ceil(chunk_requests);
        let run_chunk = |mut losses: Losses, chunk: u64| -> Result<Losses, Interrupted> {
            if progress.should_stop() {
                return Err(Interrupted);
            }
            let first = chunk * chunk_requests;
            let len = chunk_requests.min(requests - first);
            self.run(first, len, &mut losses);
            progress.advance(len);
            Ok(losses)
        };
        // `try_fold` and `try_reduce` stop handing out chunks once one reports the
        // interruption, so even a run of a billion chunks stops within a chunk or so.
        let losses = (0..chunks)
            .into_par_iter()
            .try_fold(|| self.no_losses(), run_chunk)
            .try_reduce(|| self.no_losses(), |left, right| Ok(left.merge(right)))?;
        Ok(self.histograms(&losses))
    }

    fn no_losses(&self) -> Losses {
        Losses {
            by_round: Vec::new(),
            live_states: Vec::new(),
            live_largest: Vec::new(),
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
        // Lane j covers `lane_len` consecutive requests from `first + j * lane_len`; the
        // remainder (fewer requests than lanes) runs on one generator afterwards.
        let lanes = self.implementation.lanes();
        let lane_len = len / lanes;
        let lane_start = |lane: u64| {
            let mut state = self.start;
            state.advance(u128::from(first + lane * lane_len));
            state
        };
        match self.implementation {
            Implementation::Portable => {
                let starts: [PcgState; PORTABLE_LANES] =
                    std::array::from_fn(|lane| lane_start(lane as u64));
                self.scan_portable(starts, lane_len, losses);
            }
            #[cfg(target_arch = "x86_64")]
            Implementation::Avx512 => {
                let starts = std::array::from_fn(|lane| lane_start(lane as u64).state());
                let mut follow = |states: &[u128]| self.follow(states, losses);
                // SAFETY: `attempt_histograms_with` checked that AVX-512 is available.
                unsafe {
                    engine::rng::avx512::scan(
                        &starts,
                        self.start.increment(),
                        lane_len,
                        self.any_loss_threshold(),
                        PENDING,
                        &mut follow,
                    );
                }
            }
        }
        self.scan_portable([lane_start(lanes)], len - lanes * lane_len, losses);
    }

    /// Steps each of the `starts` generators `steps` times and follows every request that
    /// lost its first ACK.
    fn scan_portable<const LANES: usize>(
        &self,
        mut lanes: [PcgState; LANES],
        steps: u64,
        losses: &mut Losses,
    ) {
        let any_loss = self.any_loss_threshold();
        // Requests that lost their first ACK are collected without a branch (every state is
        // written; the count only moves past it when it lost) and followed in batches, so the
        // hot loop never mispredicts on a random draw.
        let mut pending = vec![0u128; PENDING + LANES];
        let mut count = 0;
        for _ in 0..steps {
            for lane in lanes.iter_mut() {
                lane.step();
                pending[count] = lane.state();
                count += usize::from(lane.output() >> 11 < any_loss);
            }
            if count >= PENDING {
                self.follow(&pending[..count], losses);
                count = 0;
            }
        }
        self.follow(&pending[..count], losses);
    }

    /// Follows a batch of requests that lost their round-0 ACK at the largest p (`lost`
    /// holds the generator state of each one's round-0 draw) through the later rounds, round
    /// by round: each round jumps every live request `requests` steps ahead to its next draw,
    /// keeps those still losing at some p, and counts the losses per threshold. The loops
    /// have no data-dependent branches, so a batch pipelines well.
    fn follow(&self, lost: &[u128], losses: &mut Losses) {
        let any_loss = self.any_loss_threshold();
        let Losses {
            by_round,
            live_states,
            live_largest,
        } = losses;
        live_states.clear();
        live_states.extend_from_slice(lost);
        live_largest.clear();
        live_largest.extend(
            lost.iter()
                .map(|&state| self.start.with_state(state).output() >> 11),
        );
        for round in 0..self.max_retries as usize {
            if round > 0 {
                let mut kept = 0;
                for index in 0..live_states.len() {
                    let mut state = self.start.with_state(live_states[index]);
                    state.apply(&self.round_jump);
                    let largest = live_largest[index].max(state.output() >> 11);
                    live_states[kept] = state.state();
                    live_largest[kept] = largest;
                    kept += usize::from(largest < any_loss);
                }
                live_states.truncate(kept);
                live_largest.truncate(kept);
            }
            if live_states.is_empty() {
                return;
            }
            if by_round.len() == round {
                by_round.push(vec![0; self.sorted_thresholds.len()]);
            }
            self.count_losses(live_largest, &mut by_round[round]);
        }
    }

    /// Adds to `row` the requests of this round by the sorted position of the first
    /// threshold above their largest draw (they lose at exactly the p values from there on).
    fn count_losses(&self, largest_draws: &[u64], row: &mut [u64]) {
        if self.sorted_thresholds.len() <= 16 {
            // Few p values: count, per threshold, the draws below it (a vectorised pass each)
            // and turn the cumulative counts into per-position counts.
            let mut below_previous = 0;
            for (position, &threshold) in self.sorted_thresholds.iter().enumerate() {
                let below: u64 = largest_draws
                    .iter()
                    .map(|&draw| u64::from(draw < threshold))
                    .sum();
                row[position] += below - below_previous;
                below_previous = below;
            }
        } else {
            for &draw in largest_draws {
                row[self
                    .sorted_thresholds
                    .partition_point(|&threshold| threshold <= draw)] += 1;
            }
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
        let model = ArticleModel {
            ack_loss: vec![0.1],
            requests: 1 << 40,
            max_retries: 20,
            seed: 42,
            runs: 1,
        };
        let result = attempt_histograms_with(Implementation::detect(), &model, 0, 2, &progress);
        assert_eq!(result.unwrap_err(), Interrupted);
        let questions = progress.questions.load(Ordering::SeqCst);
        assert!(questions < 1_000, "{questions} chunks were asked");
    }
}
