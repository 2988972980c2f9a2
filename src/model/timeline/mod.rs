//! The timeline model: payments, copies and retries on a simulated clock, with latencies,
//! losses, timeouts, backoff and three server strategies for the Idempotency-Key (pure:
//! parameters, seed and a [`Progress`] in; counts and latency histograms out).
//!
//! Each payment has its own key, and keys do not interact (no shared server capacity), so
//! every payment is simulated on its own (see [`simulation`]) from its own slice of the run's
//! random stream: payment `i` starts `i × stride` draws into
//! `SeedSequence(seed, spawn_key=(run,))`, reached by jump-ahead. Payments are processed in
//! chunks on several threads; chunk results are integer counters, exact-mergeable histograms
//! and an order-aware span, so any thread count gives the same bytes, and memory is bounded by
//! the payments in flight on the threads, not by the total.
//!
//! Every strategy and every scenario of a run reads the same stream (common random numbers):
//! differences between strategies come from the strategy, not from the draws (and between
//! scenarios with the same copies and retry limit, which fix the layout, from the scenario).

pub mod backend;
pub mod counters;
pub mod draws;
pub mod shortcut;
pub mod simulation;
pub mod single_copy;

use rayon::prelude::*;

pub use crate::model::semantics::ErrorPolicy;
use backend::BackendDraws;
pub use backend::{Backend, CrashPoint, KeyStore, Provider, ReceiptMode, Receipts};
pub use counters::Counters;
use draws::{LifecycleDraws, PaymentDraws};
use engine::backoff::Backoff;
use engine::distribution::{Distribution, LANES};
use engine::latency::{self, LatencyHistogram};
use engine::numerics::ln_estimate as estimate;
use shortcut::{SameAsUniqueKey, Shortcut};
use simulation::{PaymentOutcome, Simulator};
use single_copy::SingleCopy;

use engine::rng::{Jump, PcgState, SeedSequence};
use engine::{Interrupted, Progress};

/// How the server handles a payment's Idempotency-Key (the companion piece's three levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strategy {
    /// Level 0: every delivery is processed and charges.
    None,
    /// Level 1: look the key up at arrival; if absent, process, then charge and insert the key;
    /// if present, replay the stored response. Look-ups before the first insert all charge.
    CheckThenInsert,
    /// Level 2: insert the key atomically at arrival; a completed key replays its response, an
    /// in-flight key answers 409 Conflict (the IETF idempotency-key draft).
    UniqueKey,
}

impl Strategy {
    /// All three, in the order they are reported.
    pub const ALL: [Strategy; 3] = [
        Strategy::None,
        Strategy::CheckThenInsert,
        Strategy::UniqueKey,
    ];

    /// Its name in reports (CSV, tables and charts).
    pub fn name(self) -> &'static str {
        match self {
            Strategy::None => "none",
            Strategy::CheckThenInsert => "check_then_insert",
            Strategy::UniqueKey => "unique_key",
        }
    }
}

/// When payments start.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ArrivalProcess {
    /// A Poisson process: exponential gaps with mean `1000 / rate_per_s` ms.
    Poisson {
        /// Payments per second (more than 0).
        rate_per_s: f64,
    },
    /// Every payment at t = 0.
    Burst,
    /// Each payment when the previous one reached its final outcome.
    Sequential,
}

/// How a payment's copies (same key) are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyMode {
    /// All within `copy_spread_ms` of the first, each on its own client (parallel threads).
    Concurrent,
    /// One after another: each copy is sent when the previous one reached its final outcome.
    Sequential,
}

/// Where concurrent copies fall within their spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopySpacing {
    /// Copy `c` of `n` at `c × spread / (n − 1)`.
    Even,
    /// The first at 0, the others uniformly at random in `[0, spread)`.
    Random,
}

/// Payments and their copies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Arrivals {
    /// When payments start.
    pub process: ArrivalProcess,
    /// Copies of each payment sent with the same key (at least 1).
    pub copies: u32,
    /// Concurrent or sequential copies.
    pub copy_mode: CopyMode,
    /// Concurrent copies are sent within this time of the first (ms).
    pub copy_spread_ms: f64,
    /// Even or random placement within the spread.
    pub copy_spacing: CopySpacing,
}

/// The network between client and server.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Network {
    /// Client to server (ms).
    pub request_latency: Distribution,
    /// Server to client (ms).
    pub response_latency: Distribution,
    /// Probability that a request is lost on the way (the server never sees it).
    pub request_loss: f64,
    /// Probability that a response (ACK) is lost on the way back.
    pub ack_loss: f64,
}

/// The client's retry policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClientPolicy {
    /// The client stops waiting this long after sending and retries (ms, more than 0).
    pub timeout_ms: f64,
    /// Retries at most after the first send, per copy.
    pub max_retries: u32,
    /// The wait before each retry.
    pub backoff: Backoff,
    /// Share of retries that carry a different body under the same key (a client bug; 0 to 1).
    pub different_body_rate: f64,
}

impl ClientPolicy {
    /// The client's whole retry window for one copy (ms), in closed form:
    /// `(max_retries + 1) × timeout_ms + Σ_{r < max_retries} max_backoff(r)` with
    /// [`Backoff::max_delay_ms`]. Every attempt is sent at most `r × timeout_ms + Σ_{i < r}
    /// max_backoff(i)` after the first (a 409 or 500 only makes the wait shorter), so with
    /// request latencies under `timeout_ms` every delivery of a copy reaches the server within
    /// this window of the first send.
    pub fn retry_window_ms(&self) -> f64 {
        let backoffs: f64 = (0..self.max_retries)
            .map(|retry| self.backoff.max_delay_ms(retry))
            .sum();
        f64::from(self.max_retries + 1) * self.timeout_ms + backoffs
    }
}

/// How the server answers a duplicate: a delivery whose key is present with a matching body
/// (for a webhook receiver, a delivery of an event id it has seen).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DuplicateAnswer {
    /// The Idempotency-Key behaviour: the stored response once complete, 409 while in flight.
    Replay,
    /// 200 OK at once, in flight or complete (a webhook receiver that deduplicates and
    /// acknowledges): the sender stops.
    Ok200,
    /// 409 Conflict, in flight or complete: the sender retries.
    Conflict409,
    /// 500 Internal Server Error, in flight or complete: the sender retries.
    Error500,
}

/// The life of a key on the server: expiry, body fingerprint, failures and duplicate answers.
/// Strategy `none` keeps no key, so only `error_rate` applies to it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyLifecycle {
    /// The key store prunes a key this long after it was created (ms); a delivery that arrives
    /// later is processed as new. `None`: never.
    pub key_ttl_ms: Option<f64>,
    /// The server stores a fingerprint of the body with the key and answers 422 to a delivery
    /// of the key with another body; without it, it answers as if the body matched.
    pub fingerprint: bool,
    /// Share of first processings (the first delivery the server processes for a payment) that
    /// fail with a 500 and charge nothing (0 to 1).
    pub error_rate: f64,
    /// Whether that 500 is stored and replayed, or the key released.
    pub error_policy: ErrorPolicy,
    /// The answer to a duplicate.
    pub duplicate_answer: DuplicateAnswer,
}

impl Default for KeyLifecycle {
    /// Keys never expire, fingerprint on, no failures, replay: the plain timeline model.
    fn default() -> Self {
        Self {
            key_ttl_ms: None,
            fingerprint: true,
            error_rate: 0.0,
            error_policy: ErrorPolicy::Store,
            duplicate_answer: DuplicateAnswer::Replay,
        }
    }
}

/// One scenario: everything that shapes a payment's timeline.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Its name in tables, CSV and charts.
    pub name: String,
    /// Payments and copies.
    pub arrivals: Arrivals,
    /// Latencies and losses.
    pub network: Network,
    /// The server's processing time per charge (ms).
    pub processing: Distribution,
    /// Timeout, retries, backoff.
    pub client: ClientPolicy,
    /// Expiry, fingerprint, failures and duplicate answers of the key.
    pub key: KeyLifecycle,
    /// Crashes, key store, provider and receipts.
    pub backend: Backend,
}

impl Scenario {
    /// Whether a payment needs its lifecycle draws (failures or different bodies are possible).
    fn needs_lifecycle_draws(&self) -> bool {
        self.key.error_rate > 0.0 || self.client.different_body_rate > 0.0
    }
}

/// The validated parameters of a timeline experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineModel {
    /// Where it came from (the scenario file's name, e.g. `mobile-network.toml`), for charts.
    pub title: String,
    /// Seed of the run streams.
    pub seed: u64,
    /// Independent replications (at least 1).
    pub runs: u32,
    /// Payments per run and scenario (at least 1).
    pub payments: u64,
    /// Strategies compared, in the order reported.
    pub strategies: Vec<Strategy>,
    /// Scenarios, in the order reported (at least 1).
    pub scenarios: Vec<Scenario>,
    /// Key TTLs (ms) at which every scenario and strategy is simulated again (run 0) for the
    /// TTL sweep; empty: no sweep.
    pub ttl_sweep_ms: Vec<f64>,
}

impl TimelineModel {
    /// Run `run`'s stream: `SeedSequence(seed, spawn_key=(run,))`.
    pub fn seed_sequence(&self, run: u32) -> SeedSequence {
        SeedSequence::with_spawn_key(self.seed, &[u64::from(run)])
    }

    /// Run `run`'s lifecycle stream (failures and different bodies):
    /// `SeedSequence(seed, spawn_key=(run, 1))`, apart from the attempts' stream so that the
    /// attempts' draws are the same with and without the lifecycle settings.
    pub fn lifecycle_seed_sequence(&self, run: u32) -> SeedSequence {
        SeedSequence::with_spawn_key(self.seed, &[u64::from(run), 1])
    }

    /// Run `run`'s backend stream (crashes, key writes, provider, receipts):
    /// `SeedSequence(seed, spawn_key=(run, 2))`, apart from the other two so that their draws
    /// are the same with and without the backend settings.
    pub fn backend_seed_sequence(&self, run: u32) -> SeedSequence {
        SeedSequence::with_spawn_key(self.seed, &[u64::from(run), 2])
    }

    /// Whether some scenario uses a backend setting (crashes, key store, provider, receipts).
    pub fn uses_backend(&self) -> bool {
        self.scenarios
            .iter()
            .any(|scenario| scenario.backend.is_used())
    }

    /// The units of work [`simulate`] reports: payments × scenarios × (runs + TTL sweep
    /// points).
    pub fn work_units(&self) -> u64 {
        self.payments
            .saturating_mul(self.scenarios.len() as u64)
            .saturating_mul(u64::from(self.runs) + self.ttl_sweep_ms.len() as u64)
    }
}

/// The time the payments of a run took, from the first send to the last final outcome,
/// in whole microseconds (so that chunks merge exactly in any grouping; 128 bits, so that no
/// run the configuration accepts can overflow it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Span {
    /// From the first payment's start to the start of the payment after the last (µs).
    starts_us: u128,
    /// From the first payment's start to the latest final outcome (µs).
    end_us: u128,
}

impl Span {
    /// Appends a payment that reaches its final outcome `latency_us` after it starts, with the
    /// next payment starting `gap_us` after it.
    fn push(&mut self, latency_us: u64, gap_us: u64) {
        self.end_us = self.end_us.max(self.starts_us + u128::from(latency_us));
        self.starts_us += u128::from(gap_us);
    }

    /// The span of `self`'s payments followed by `later`'s (associative, not commutative).
    fn then(self, later: Span) -> Span {
        Span {
            starts_us: self.starts_us + later.starts_us,
            end_us: self.end_us.max(self.starts_us + later.end_us),
        }
    }

    /// Simulated time from the first send to the last final outcome (µs).
    pub fn us(&self) -> u128 {
        self.end_us
    }

    /// The same in ms (rounded to the nearest `f64`).
    pub fn ms(&self) -> f64 {
        self.end_us as f64 / 1000.0
    }
}

/// What one strategy did with all payments of one run and scenario.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StrategyTally {
    /// The counters, summed over the payments.
    pub counts: Counters,
    /// Client latency to the final outcome, per payment.
    pub latency: LatencyHistogram,
    /// The simulated time the payments took.
    pub span: Span,
}

impl StrategyTally {
    fn record(&mut self, outcome: &simulation::PaymentOutcome, gap_us: Option<u64>) {
        self.record_counts(outcome);
        self.record_span(microseconds(outcome.latency_ms), gap_us);
    }

    /// Counts a payment's outcome and latency, but not its place in the span.
    fn record_counts(&mut self, outcome: &simulation::PaymentOutcome) {
        self.counts += outcome.counts;
        self.latency.record(outcome.latency_ms);
    }

    /// Appends a payment that took `latency_us` to the span.
    fn record_span(&mut self, latency_us: u64, gap_us: Option<u64>) {
        self.span.push(latency_us, gap_us.unwrap_or(latency_us));
    }

    /// Adds the counts and latencies of `shared`, the payments whose outcome was the same
    /// under every strategy (their spans were recorded strategy by strategy).
    fn with_shared(mut self, shared: &StrategyTally) -> StrategyTally {
        self.counts += shared.counts;
        self.latency.merge(&shared.latency);
        self
    }

    /// Adds the tally of the payments that come after these.
    fn then(mut self, later: &StrategyTally) -> StrategyTally {
        self.counts += later.counts;
        self.latency.merge(&later.latency);
        self.span = self.span.then(later.span);
        self
    }
}

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

/// One strategy's results in one run and scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineRow {
    /// The replication.
    pub run: u32,
    /// Index into [`TimelineModel::scenarios`].
    pub scenario: usize,
    /// The strategy.
    pub strategy: Strategy,
    /// What happened.
    pub tally: StrategyTally,
}

/// One point of the TTL sweep: one strategy's results in run 0 of one scenario with the key
/// TTL set to `key_ttl_ms`.
#[derive(Debug, Clone, PartialEq)]
pub struct TtlSweepRow {
    /// The key TTL (ms).
    pub key_ttl_ms: f64,
    /// Index into [`TimelineModel::scenarios`].
    pub scenario: usize,
    /// The strategy.
    pub strategy: Strategy,
    /// What happened.
    pub tally: StrategyTally,
}

/// The results of a timeline experiment: rows by run, then scenario, then strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineResults {
    /// The parameters.
    pub model: TimelineModel,
    /// One row per (run, scenario, strategy).
    pub rows: Vec<TimelineRow>,
    /// The TTL sweep: by TTL, then scenario, then strategy; empty without `ttl_sweep_ms`.
    pub ttl_sweep: Vec<TtlSweepRow>,
}

impl TimelineResults {
    /// The rows of run 0.
    pub fn first_run(&self) -> impl Iterator<Item = &TimelineRow> {
        self.rows.iter().filter(|row| row.run == 0)
    }

    /// The scenario of a row.
    pub fn scenario(&self, row: &TimelineRow) -> &Scenario {
        &self.model.scenarios[row.scenario]
    }
}

/// Payments per unit of parallel work (and per progress report).
pub const CHUNK_PAYMENTS: u64 = 4_096;

/// Runs the experiment on `threads` threads.
pub fn simulate(
    model: &TimelineModel,
    threads: usize,
    progress: &dyn Progress,
) -> Result<TimelineResults, Interrupted> {
    let pool = engine::parallel::thread_pool(threads);
    let mut rows = Vec::new();
    for run in 0..model.runs {
        let streams = Streams::of(model, run);
        for (index, scenario) in model.scenarios.iter().enumerate() {
            let tallies = pool.install(|| {
                simulate_scenario(
                    scenario,
                    &model.strategies,
                    streams,
                    model.payments,
                    progress,
                )
            })?;
            rows.extend(
                model
                    .strategies
                    .iter()
                    .zip(tallies)
                    .map(|(&strategy, tally)| TimelineRow {
                        run,
                        scenario: index,
                        strategy,
                        tally,
                    }),
            );
        }
    }
    let mut ttl_sweep = Vec::new();
    let streams = Streams::of(model, 0);
    for &key_ttl_ms in &model.ttl_sweep_ms {
        for (index, scenario) in model.scenarios.iter().enumerate() {
            let mut swept = scenario.clone();
            swept.key.key_ttl_ms = Some(key_ttl_ms);
            let tallies = pool.install(|| {
                simulate_scenario(&swept, &model.strategies, streams, model.payments, progress)
            })?;
            ttl_sweep.extend(
                model
                    .strategies
                    .iter()
                    .zip(tallies)
                    .map(|(&strategy, tally)| TtlSweepRow {
                        key_ttl_ms,
                        scenario: index,
                        strategy,
                        tally,
                    }),
            );
        }
    }
    Ok(TimelineResults {
        model: model.clone(),
        rows,
        ttl_sweep,
    })
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
}

impl Streams {
    /// The streams of run `run`.
    pub fn of(model: &TimelineModel, run: u32) -> Self {
        Self {
            attempts: model.seed_sequence(run).pcg_state(),
            lifecycle: model.lifecycle_seed_sequence(run).pcg_state(),
            backend: model.backend_seed_sequence(run).pcg_state(),
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
struct ChunkWork {
    /// One tally per strategy, then the shared tally of the payments that took the shortcut.
    tallies: Vec<StrategyTally>,
    /// Payments that took the shortcut: their latencies are in the shared tally, their
    /// counters are added by [`ChunkWork::into_tallies`].
    shortcut_payments: u64,
    simulator: Simulator,
    draws: PaymentDraws,
    /// The backend's draws of the payment being simulated (empty when the scenario has none).
    backend: BackendDraws,
    /// The span of the shortcut payments since the last payment that needed the event loop
    /// (the same for every strategy, so pushed once and appended to each strategy's span
    /// before the next such payment and at the end); `None` when there are none.
    shortcut_span: Option<Span>,
}

impl ChunkWork {
    /// Empty tallies for `strategies` strategies.
    fn new(chunks: &ChunkWalker, strategies: usize) -> Self {
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
    fn flush_shortcut_span(shortcut_span: &mut Option<Span>, tallies: &mut [StrategyTally]) {
        if let Some(span) = shortcut_span.take() {
            let (_, by_strategy) = tallies.split_last_mut().expect("a shared tally");
            for tally in by_strategy {
                tally.span = tally.span.then(span);
            }
        }
    }

    /// The tallies, the shared one (last) with the shortcut payments' counters.
    fn into_tallies(mut self) -> Vec<StrategyTally> {
        Self::flush_shortcut_span(&mut self.shortcut_span, &mut self.tallies);
        let shared = self.tallies.last_mut().expect("a shared tally");
        shared.counts += Shortcut::counts(self.shortcut_payments);
        self.tallies
    }
}

/// Simulates chunks of consecutive payments of one scenario from their places in the streams.
struct ChunkWalker<'a> {
    scenario: &'a Scenario,
    streams: Streams,
    /// Draws per payment in the attempts' stream, and the jump over them.
    stride: u128,
    payment_jump: Jump,
    /// Draws per payment in the lifecycle stream; 0 when the scenario needs none.
    lifecycle_stride: u128,
    /// Draws per payment in the backend stream; 0 when the scenario needs none.
    backend_stride: u128,
    /// The shortcut past the event loop, if the scenario allows it.
    shortcut: Option<Shortcut>,
    /// When other strategies' outcomes can be read off `unique_key`'s, if the scenario and
    /// the strategies allow it.
    same_as_unique_key: Option<SameAsUniqueKey>,
    /// The event loop's closed form, if the scenario allows it.
    single_copy: Option<SingleCopy>,
}

impl<'a> ChunkWalker<'a> {
    fn new(scenario: &'a Scenario, streams: Streams) -> Self {
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
            shortcut: Shortcut::of(scenario),
            same_as_unique_key: SameAsUniqueKey::of(scenario),
            single_copy: SingleCopy::of(scenario),
        }
    }

    /// The payment in `draws` under `strategy`: `unique_key`'s outcome (run once and kept in
    /// `slots.0`) when `rule` says it is the same, else its own run (kept in `slots.1`).
    fn outcome<'o>(
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
    fn run(
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
    fn gap_us(&self, draws: &PaymentDraws) -> Option<u64> {
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
    fn simulate(
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

#[cfg(test)]
mod backend_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
