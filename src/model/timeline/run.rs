//! Running a timeline experiment: the payments of each run and scenario in chunks on several
//! threads, each chunk from its place in the run's streams, merged in order ([`simulate`]).

use rayon::prelude::*;

use super::backend::BackendDraws;
use super::draws::{LifecycleDraws, PaymentDraws};
use super::offline::ClientDraws;
use super::shortcut::{SameAsUniqueKey, Shortcut};
use super::simulation::{PaymentOutcome, Simulator};
use super::single_copy::SingleCopy;
use super::{
    ArrivalProcess, RunRow, Scenario, Span, Strategy, StrategyTally, TimelineModel,
    TimelineResults, TimelineRow,
};
use engine::distribution::LANES;
use engine::latency;
use engine::numerics::ln_estimate as estimate;
use engine::rng::{Jump, PcgState};
use engine::{Interrupted, Progress};

/// A duration in whole microseconds (the configuration keeps every one far below `u64::MAX`).
fn microseconds(ms: f64) -> u64 {
    latency::whole_microseconds(ms)
}

/// The exponential gap `-scale_ms × ln(1 - u)` (`scale_ms = -1000 / rate_per_s`) in whole
/// microseconds: exactly `microseconds(scale_ms * (-u).ln_1p())`, from the faster estimate
/// [`estimate::exponential_us`] when no rounding half lies within its error. `ln_1m` is
/// [`estimate::ln_1m`]`(u)` if computed beforehand (eight payments at a time).
#[inline]
fn poisson_gap_us(scale_ms: f64, u: f64, ln_1m: Option<f64>) -> u64 {
    let ln_1m = ln_1m.unwrap_or_else(|| estimate::ln_1m(u));
    estimate::exponential_us(scale_ms, ln_1m)
        .unwrap_or_else(|| microseconds(scale_ms * (-u).ln_1p()))
}

/// Payments per unit of parallel work (and per progress report).
pub const CHUNK_PAYMENTS: u64 = 4_096;

/// Runs the experiment on `threads` threads.
pub fn simulate(
    model: &TimelineModel,
    threads: usize,
    progress: &dyn Progress,
) -> Result<TimelineResults, Interrupted> {
    let cells: Vec<usize> = (0..cell_count(model)).collect();
    Ok(assemble(
        model,
        simulate_cells(model, threads, &cells, progress)?,
    ))
}

/// The cells of a run (`--shard`): one per run and scenario, run by run, cell `run ×
/// scenarios + scenario`; each is simulated from its own streams on all threads.
pub fn cell_count(model: &TimelineModel) -> usize {
    model.runs as usize * model.scenarios.len()
}

/// What one cell (see [`cell_count`]) gives, strategy by strategy: run 0's tallies with
/// their histograms (the charts draw them); a later run's rows, its counters and percentiles
/// alone, so that memory grows by a few hundred bytes per run, not by its histograms.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum CellTallies {
    /// Run 0's tallies, in the order of [`TimelineModel::strategies`].
    First(Vec<StrategyTally>),
    /// A later run's rows, in the order of [`TimelineModel::strategies`].
    Later(Vec<RunRow>),
}

/// The tallies of the cells `cells` (see [`cell_count`]), in that order.
pub fn simulate_cells(
    model: &TimelineModel,
    threads: usize,
    cells: &[usize],
    progress: &dyn Progress,
) -> Result<Vec<CellTallies>, Interrupted> {
    let pool = engine::parallel::thread_pool(threads);
    let scenarios = model.scenarios.len();
    cells
        .iter()
        .map(|&cell| {
            let (run, scenario) = (run_of(cell, scenarios), cell % scenarios);
            let tallies = pool.install(|| {
                simulate_scenario(
                    &model.scenarios[scenario],
                    &model.strategies,
                    Streams::of(model, run),
                    model.payments,
                    progress,
                )
            })?;
            Ok(match run {
                0 => CellTallies::First(tallies),
                _ => CellTallies::Later(
                    model
                        .strategies
                        .iter()
                        .zip(&tallies)
                        .map(|(&strategy, tally)| RunRow::of(run, scenario, strategy, tally))
                        .collect(),
                ),
            })
        })
        .collect()
}

/// The run of cell `cell` of a model with `scenarios` scenarios.
fn run_of(cell: usize, scenarios: usize) -> u32 {
    u32::try_from(cell / scenarios).expect("a cell of a run")
}

/// The results of every cell's tallies, in cell order.
pub fn assemble(model: &TimelineModel, cells: Vec<CellTallies>) -> TimelineResults {
    let mut rows = Vec::new();
    let mut runs = Vec::new();
    let scenarios = model.scenarios.len();
    for (cell, tallies) in cells.into_iter().enumerate() {
        let (run, scenario) = (run_of(cell, scenarios), cell % scenarios);
        match tallies {
            CellTallies::First(tallies) => {
                for (&strategy, tally) in model.strategies.iter().zip(tallies) {
                    runs.push(RunRow::of(run, scenario, strategy, &tally));
                    rows.push(TimelineRow {
                        run,
                        scenario,
                        strategy,
                        tally,
                    });
                }
            }
            CellTallies::Later(later) => runs.extend(later),
        }
    }
    TimelineResults {
        model: model.clone(),
        rows,
        runs,
    }
}

/// Where a run's three random streams start.
#[derive(Debug, Clone, Copy)]
pub struct Streams {
    /// The attempts' stream ([`TimelineModel::seed_sequence`]).
    pub attempts: PcgState,
    /// The lifecycle stream ([`TimelineModel::lifecycle_seed_sequence`]).
    pub lifecycle: PcgState,
    /// The backend stream ([`TimelineModel::backend_seed_sequence`]).
    pub backend: PcgState,
    /// The client stream ([`TimelineModel::client_seed_sequence`]).
    pub client: PcgState,
}

impl Streams {
    /// The streams of run `run`.
    pub fn of(model: &TimelineModel, run: u32) -> Self {
        Self {
            attempts: model.seed_sequence(run).pcg_state(),
            lifecycle: model.lifecycle_seed_sequence(run).pcg_state(),
            backend: model.backend_seed_sequence(run).pcg_state(),
            client: model.client_seed_sequence(run).pcg_state(),
        }
    }
}

/// The tallies of `strategies` (in that order) over `payments` payments of one scenario
/// whose streams start at `streams`, on the current rayon pool. Stops soon after `progress`
/// asks: every 64th payment looks at the flag, and the remaining chunks are skipped.
pub fn simulate_scenario(
    scenario: &Scenario,
    strategies: &[Strategy],
    streams: Streams,
    payments: u64,
    progress: &dyn Progress,
) -> Result<Vec<StrategyTally>, Interrupted> {
    let chunks = ChunkWalker::new(scenario, streams);
    // One tally per strategy, then the shared one: the payments that took the shortcut,
    // counted once and added to every strategy at the end.
    let empty = || vec![StrategyTally::default(); strategies.len() + 1];
    let merge = |earlier: Vec<StrategyTally>, later: Vec<StrategyTally>| {
        Ok(earlier
            .into_iter()
            .zip(&later)
            .map(|(earlier, later)| earlier.then(later))
            .collect::<Vec<_>>())
    };
    // Each run of consecutive chunks a thread takes is folded into one workspace, so that
    // its histograms and buffers are allocated once, not once per chunk; the runs' tallies
    // then merge in order.
    (0..payments.div_ceil(CHUNK_PAYMENTS))
        .into_par_iter()
        .try_fold(
            || ChunkWork::new(&chunks, strategies.len()),
            |mut work, chunk| {
                let first = chunk * CHUNK_PAYMENTS;
                let len = CHUNK_PAYMENTS.min(payments - first);
                chunks.simulate(&mut work, first, len, strategies, progress)?;
                progress.advance(len);
                Ok(work)
            },
        )
        .map(|work: Result<ChunkWork, Interrupted>| work.map(ChunkWork::into_tallies))
        .try_reduce(empty, merge)
        .map(|mut tallies| {
            let shared = tallies.pop().expect("the shared tally is last");
            tallies
                .into_iter()
                .map(|tally| tally.with_shared(&shared))
                .collect()
        })
}

/// Payments simulated between two looks at [`Progress::should_stop`] (a few microseconds of
/// work; a payment with very many events also looks during its run).
const PAYMENTS_BETWEEN_STOP_CHECKS: u64 = 64;

/// The tallies of consecutive chunks, with the buffers that simulate them.
pub(super) struct ChunkWork {
    /// One tally per strategy, then the shared tally of the payments that took the shortcut.
    pub(super) tallies: Vec<StrategyTally>,
    /// Payments that took the shortcut: their latencies are in the shared tally, their
    /// counters are added by [`ChunkWork::into_tallies`].
    pub(super) shortcut_payments: u64,
    pub(super) simulator: Simulator,
    pub(super) draws: PaymentDraws,
    /// The backend's draws of the payment being simulated (empty when the scenario has none).
    pub(super) backend: BackendDraws,
    /// The span of the shortcut payments since the last payment that needed the event loop
    /// (the same for every strategy, so pushed once and appended to each strategy's span
    /// before the next such payment and at the end); `None` when there are none.
    pub(super) shortcut_span: Option<Span>,
}

impl ChunkWork {
    /// Empty tallies for `strategies` strategies.
    pub(super) fn new(chunks: &ChunkWalker, strategies: usize) -> Self {
        Self {
            tallies: vec![StrategyTally::default(); strategies + 1],
            shortcut_payments: 0,
            simulator: Simulator::default(),
            draws: PaymentDraws::new(&chunks.streams.attempts, chunks.scenario),
            backend: BackendDraws::new(
                &chunks.scenario.backend,
                chunks.scenario.arrivals.copies,
                chunks.scenario.client.max_retries,
            ),
            shortcut_span: None,
        }
    }

    /// Appends the shortcut payments' span `shortcut_span` to the span of every strategy's
    /// tally in `tallies` (the shared tally last).
    pub(super) fn flush_shortcut_span(
        shortcut_span: &mut Option<Span>,
        tallies: &mut [StrategyTally],
    ) {
        if let Some(span) = shortcut_span.take() {
            let (_, by_strategy) = tallies.split_last_mut().expect("a shared tally");
            for tally in by_strategy {
                tally.span = tally.span.then(span);
            }
        }
    }

    /// The tallies, the shared one (last) with the shortcut payments' counters.
    pub(super) fn into_tallies(mut self) -> Vec<StrategyTally> {
        Self::flush_shortcut_span(&mut self.shortcut_span, &mut self.tallies);
        let shared = self.tallies.last_mut().expect("a shared tally");
        shared.counts += Shortcut::counts(self.shortcut_payments);
        self.tallies
    }
}

/// Simulates chunks of consecutive payments of one scenario from their places in the streams.
pub(super) struct ChunkWalker<'a> {
    pub(super) scenario: &'a Scenario,
    pub(super) streams: Streams,
    /// Draws per payment in the attempts' stream, and the jump over them.
    pub(super) stride: u128,
    pub(super) payment_jump: Jump,
    /// Draws per payment in the lifecycle stream; 0 when the scenario needs none.
    pub(super) lifecycle_stride: u128,
    /// Draws per payment in the backend stream; 0 when the scenario needs none.
    pub(super) backend_stride: u128,
    /// Draws per payment in the client stream; 0 when no client goes offline.
    pub(super) client_stride: u128,
    /// The shortcut past the event loop, if the scenario allows it.
    pub(super) shortcut: Option<Shortcut>,
    /// When other strategies' outcomes can be read off `unique_key`'s, if the scenario and
    /// the strategies allow it.
    pub(super) same_as_unique_key: Option<SameAsUniqueKey>,
    /// The event loop's closed form, if the scenario allows it.
    pub(super) single_copy: Option<SingleCopy>,
}

impl<'a> ChunkWalker<'a> {
    pub(super) fn new(scenario: &'a Scenario, streams: Streams) -> Self {
        let copies = scenario.arrivals.copies;
        let max_retries = scenario.client.max_retries;
        let stride = PaymentDraws::stride(copies, max_retries);
        Self {
            scenario,
            streams,
            stride,
            payment_jump: streams.attempts.jump(stride),
            lifecycle_stride: if scenario.needs_lifecycle_draws() {
                LifecycleDraws::stride(copies, max_retries)
            } else {
                0
            },
            backend_stride: BackendDraws::stride(&scenario.backend, copies, max_retries),
            client_stride: ClientDraws::stride(&scenario.client_lifecycle),
            shortcut: Shortcut::of(scenario),
            same_as_unique_key: SameAsUniqueKey::of(scenario),
            single_copy: SingleCopy::of(scenario),
        }
    }

    /// The payment in `draws` under `strategy`: `unique_key`'s outcome (run once and kept in
    /// `slots.0`) when `rule` says it is the same, else its own run (kept in `slots.1`).
    pub(super) fn outcome<'o>(
        &self,
        strategy: Strategy,
        rule: Option<SameAsUniqueKey>,
        work: (&mut Simulator, &mut PaymentDraws, &BackendDraws),
        slots: (&'o mut Option<PaymentOutcome>, &'o mut PaymentOutcome),
        progress: &dyn Progress,
    ) -> Result<&'o PaymentOutcome, Interrupted> {
        let (simulator, draws, backend) = work;
        let (unique_key, own) = slots;
        if let Some(rule) = rule {
            let unique = match unique_key {
                Some(unique) => unique,
                None => {
                    let unique = unique_key.insert(PaymentOutcome::default());
                    self.run(
                        Strategy::UniqueKey,
                        (simulator, draws, backend),
                        progress,
                        unique,
                    )?;
                    unique
                }
            };
            if rule.holds(strategy, unique) {
                return Ok(unique);
            }
        }
        self.run(strategy, (simulator, draws, backend), progress, own)?;
        Ok(own)
    }

    /// Puts the payment in `draws` under `strategy` in `outcome`: from the closed form when
    /// the scenario and the payment allow it, else from the event loop.
    #[inline]
    pub(super) fn run(
        &self,
        strategy: Strategy,
        work: (&mut Simulator, &mut PaymentDraws, &BackendDraws),
        progress: &dyn Progress,
        outcome: &mut PaymentOutcome,
    ) -> Result<(), Interrupted> {
        let (simulator, draws, backend) = work;
        if let Some(counts) = self
            .single_copy
            .and_then(|single_copy| single_copy.counts(strategy, draws))
        {
            *outcome = PaymentOutcome::plain(&counts);
        } else {
            *outcome = simulator.run(self.scenario, strategy, draws, backend, progress)?;
        }
        Ok(())
    }

    /// The gap to the next payment's start (µs), `None` for sequential arrivals.
    pub(super) fn gap_us(&self, draws: &PaymentDraws) -> Option<u64> {
        match self.scenario.arrivals.process {
            ArrivalProcess::Poisson { rate_per_s } => Some(poisson_gap_us(
                -1000.0 / rate_per_s,
                draws.arrival_gap,
                draws.arrival_gap_ln_1m,
            )),
            ArrivalProcess::Burst => Some(0),
            ArrivalProcess::Sequential => None,
        }
    }

    /// Adds payments `first..first + len` under every strategy to `work`, which holds the
    /// payments before `first`.
    pub(super) fn simulate(
        &self,
        work: &mut ChunkWork,
        first: u64,
        len: u64,
        strategies: &[Strategy],
        progress: &dyn Progress,
    ) -> Result<(), Interrupted> {
        let ChunkWork {
            tallies,
            shortcut_payments,
            simulator,
            draws,
            backend,
            shortcut_span,
        } = work;
        // Worth it only when unique_key is run anyway.
        let same_as_unique_key = self
            .same_as_unique_key
            .filter(|_| strategies.contains(&Strategy::UniqueKey));
        let mut stream = self.streams.attempts;
        stream.advance(u128::from(first) * self.stride);
        let mut lifecycle_stream = self.streams.lifecycle;
        lifecycle_stream.advance(u128::from(first) * self.lifecycle_stride);
        let mut backend_stream = self.streams.backend;
        backend_stream.advance(u128::from(first) * self.backend_stride);
        let mut client_stream = self.streams.client;
        client_stream.advance(u128::from(first) * self.client_stride);
        // One-copy payments have their first attempts sampled eight at a time where that is
        // faster (the same draws either way).
        let eight_at_a_time = self.scenario.arrivals.copies == 1 && draws.samples_eight_at_a_time();
        let mut first_attempts = None;
        for index in 0..len {
            if index % PAYMENTS_BETWEEN_STOP_CHECKS == 0 && progress.should_stop() {
                return Err(Interrupted);
            }
            if eight_at_a_time {
                let lane = (index % LANES as u64) as usize;
                if lane == 0 {
                    let mut start = stream;
                    let starts = std::array::from_fn(|_| {
                        let this = start;
                        start.apply(&self.payment_jump);
                        this
                    });
                    first_attempts = Some(draws.sample_first_attempts(&starts));
                }
                let batch = first_attempts.as_ref().expect("sampled at lane 0");
                draws.read_first(&batch[lane]);
            } else {
                draws.read(&stream);
            }
            stream.apply(&self.payment_jump);
            if self.lifecycle_stride > 0 {
                draws.lifecycle.read(&mut lifecycle_stream);
            }
            if self.backend_stride > 0 {
                backend.read(&mut backend_stream);
            }
            if self.client_stride > 0 {
                draws.client.read(&mut client_stream);
            }
            let gap_us = self.gap_us(draws);
            if let Some(outcome) = self.shortcut.and_then(|shortcut| shortcut.outcome(draws)) {
                let shared = tallies.last_mut().expect("a shared tally");
                shared.latency.record(outcome.latency_ms);
                *shortcut_payments += 1;
                let latency_us = microseconds(outcome.latency_ms);
                shortcut_span
                    .get_or_insert_with(Span::default)
                    .push(latency_us, gap_us.unwrap_or(latency_us));
                continue;
            }
            ChunkWork::flush_shortcut_span(shortcut_span, tallies);
            let (mut unique_key, mut own) = (None, PaymentOutcome::default());
            for (tally, &strategy) in tallies.iter_mut().zip(strategies) {
                let outcome = self.outcome(
                    strategy,
                    same_as_unique_key,
                    (simulator, draws, backend),
                    (&mut unique_key, &mut own),
                    progress,
                )?;
                tally.record(outcome, gap_us);
            }
        }
        Ok(())
    }
}
