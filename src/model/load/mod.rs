//! The load model: many clients and one shared server on one simulated clock (pure:
//! parameters, seed and a [`Progress`] in; counts, percentiles and a time series out).
//!
//! A timeline scenario runs each payment on its own against a server of unlimited size; here
//! every payment of a run shares one pool of workers with a FIFO queue, so retries add load,
//! queues form, timeouts come from queueing, and an overload can outlive its trigger (a
//! metastable failure). One run of one scenario under one strategy is one event loop on
//! its agenda, a calendar queue with lanes for its timeouts and arrivals (see
//! [`simulation`] and `engine::queue::agenda`); the (run, scenario,
//! strategy) triples run in parallel with rayon and are collected in order, so any thread
//! count gives the same bytes. Payments are streamed: memory is bounded by the requests in
//! flight and the time-series buckets, never by the total number of payments.
//!
//! Random streams: the arrivals (gaps and which client issues a payment) draw from
//! `SeedSequence(seed, spawn_key=(run, 10))`, everything else (latencies, losses, processing
//! times, server errors, backoff jitter) from `SeedSequence(seed, spawn_key=(run, 11))`, so every
//! scenario and strategy of a run sees the same arrivals (common random numbers).

pub mod arrivals;
pub mod client;
pub mod draws;
pub mod estimate;
mod record;
pub mod simulation;
pub mod steady;
pub mod tally;
pub mod trace;

pub use arrivals::{Phase, PhaseRate};
pub use client::{
    AdaptiveBucket, AdaptiveThrottling, Breaker, ConcurrentRetryBudget, GRPC_MAX_ATTEMPTS, Refund,
    RetryClient, RetryControls, RetryThrottling, TokenBucket, WindowedRetryBudget,
};
pub use steady::Steady;
pub use tally::{Bucket, LoadTally};

use crate::model::semantics::{
    Copies, DuplicateAnswer, ErrorPolicy, KeyServer, KeyStoreOutages, Provider, Receipts,
};
use engine::backoff::Backoff;
use engine::distribution::Distribution;
use engine::parallel::map_chunks;
use engine::rng::SeedSequence;
use engine::{Interrupted, Progress};

/// How the server handles a payment's Idempotency-Key: the timeline model's three levels and
/// the lock that only a shared server can show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LoadStrategy {
    /// Level 0: every delivery is processed and charges.
    None,
    /// Level 1: look the key up when a worker takes the delivery; absent: process, then charge
    /// and insert; present: replay. Look-ups before the first insert all charge.
    CheckThenInsert,
    /// Level 2: insert the key atomically when a worker takes the delivery; in flight: 409
    /// Conflict at once; complete: replay.
    UniqueKey,
    /// `SELECT ... FOR UPDATE`: a delivery whose key is in flight waits for the lock, holding
    /// its worker, then gets the stored response.
    LockWait,
}

impl LoadStrategy {
    /// All four, in the order they are reported.
    pub const ALL: [LoadStrategy; 4] = [
        LoadStrategy::None,
        LoadStrategy::CheckThenInsert,
        LoadStrategy::UniqueKey,
        LoadStrategy::LockWait,
    ];

    /// Its name in files, CSV and charts.
    pub fn name(self) -> &'static str {
        match self {
            LoadStrategy::None => "none",
            LoadStrategy::CheckThenInsert => "check_then_insert",
            LoadStrategy::UniqueKey => "unique_key",
            LoadStrategy::LockWait => "lock_wait",
        }
    }

    /// The strategy named `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|strategy| strategy.name() == name)
    }
}

/// The most time-series buckets one event loop keeps: 10^6. The arrival window fits (a file
/// may not ask for more buckets over it); the drain after it adds buckets until the series
/// holds this many, and what happens later is counted in the totals only.
pub const MAX_BUCKETS: usize = 1_000_000;

/// A window of simulated time, `[from_ms, to_ms)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Start (ms of simulated time, inclusive).
    pub from_ms: f64,
    /// End (ms of simulated time, exclusive; more than `from_ms`).
    pub to_ms: f64,
}

impl Window {
    /// Whether `time_ms` falls inside.
    pub fn contains(&self, time_ms: f64) -> bool {
        (self.from_ms..self.to_ms).contains(&time_ms)
    }
}

/// A change of the server's capacity: `workers` workers during `window`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CapacityWindow {
    /// When.
    pub window: Window,
    /// Workers during the window (at least 1).
    pub workers: u32,
}

/// Payments over time.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadArrivals {
    /// Clients issuing the payments, each with its own retry state (buckets, breaker, budget);
    /// each payment is issued by one of them uniformly at random. `None`: every payment is its
    /// own client.
    pub clients: Option<u32>,
    /// Payments arrive during `[0, duration_ms)` (ms).
    pub duration_ms: f64,
    /// The Poisson rate over time (at least one phase; the last phase's final rate holds until
    /// `duration_ms`).
    pub phases: Vec<Phase>,
    /// Each payment's copies under its key (double clicks); each copy is a request of the
    /// payment's client, retrying on its own.
    pub copies: Copies,
}

impl LoadArrivals {
    /// The expected number of payments: the integral of the rate over the arrival window.
    pub fn expected_payments(&self) -> f64 {
        let mut start = 0.0;
        let mut total = 0.0;
        let mut last_rate = 0.0;
        for phase in &self.phases {
            let end = phase.until_ms.min(self.duration_ms);
            if end > start {
                let (from, to) = match phase.rate {
                    PhaseRate::Constant(rate) => (rate, rate),
                    PhaseRate::Ramp { from, to } => (from, to),
                };
                total += (from + to) / 2.0 * (end - start) / 1000.0;
            }
            last_rate = phase.final_rate_per_s();
            start = phase.until_ms;
        }
        if self.duration_ms > start {
            total += last_rate * (self.duration_ms - start) / 1000.0;
        }
        total
    }
}

/// The network between the clients and the server.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadNetwork {
    /// Client to server (ms).
    pub request_latency: Distribution,
    /// Server to client (ms).
    pub response_latency: Distribution,
    /// Probability that a request is lost on the way.
    pub request_loss: f64,
    /// Probability that a response is lost on the way back.
    pub ack_loss: f64,
    /// Windows in which every message sent, either way, is lost.
    pub outages: Vec<Window>,
}

/// The shared server.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadServer {
    /// Workers (database connections); `None`: as many as there are requests.
    pub workers: Option<u32>,
    /// Requests that may wait for a worker; one more is answered 503 at once. `None`: no limit.
    pub queue_limit: Option<u32>,
    /// A request that waited longer than its client's timeout is dropped unprocessed when a
    /// worker takes it (deadline propagation).
    pub drop_expired: bool,
    /// Processing time per processed delivery (ms), before the load-dependent part.
    pub processing: Distribution,
    /// Extra processing time per request holding a worker, this one included (ms per request):
    /// `processing + slope × requests holding a worker`.
    pub processing_per_in_flight_ms: f64,
    /// Share of processings that fail with a 500 and charge nothing (0 to 1).
    pub error_rate: f64,
    /// With a key: whether a 500 is stored and replayed, or the key released.
    pub error_policy: ErrorPolicy,
    /// The key store prunes a key this long after creating it (ms); a delivery a worker takes
    /// at or after that finds it absent. `None`: keys never expire.
    pub key_ttl_ms: Option<f64>,
    /// The answer to a delivery whose key is present with a matching body
    /// ([`DuplicateAnswer::to_present_key`], the timeline's rule): the Idempotency-Key's 409
    /// while in flight and replay once stored, or a webhook receiver's 200, 409 or 500 (a key
    /// in flight is still waited for by `lock_wait`).
    pub duplicate_answer: DuplicateAnswer,
    /// With a key: the server stores a fingerprint of the body with the key and answers a
    /// delivery whose body differs from it 422 (nothing charged; the client gives up);
    /// without, it answers it as any duplicate, replaying the other body's response.
    pub fingerprint: bool,
    /// Capacity changes (non-overlapping).
    pub capacity: Vec<CapacityWindow>,
    /// Crashes and where the key lives, as the timeline model has them ([`KeyServer`]); the
    /// default changes nothing.
    pub key_server: KeyServer,
    /// The other key store's outages and what the server does during them (a key in the
    /// charge's transaction has no other store: none apply to it).
    pub key_store_outages: KeyStoreOutages,
    /// The receipt sent after each charge, directly or through an outbox; `None`: none.
    pub receipts: Option<Receipts>,
    /// The downstream provider each processing calls, holding its worker while it waits
    /// (retries included); `None`: the charge is local.
    pub provider: Option<Provider>,
}

impl LoadServer {
    /// Whether a key setting differs from the default (crashes, another store, its outages):
    /// then `load_key_store.csv` is written.
    pub fn uses_key_server(&self) -> bool {
        self.key_server != KeyServer::default() || !self.key_store_outages.is_empty()
    }

    /// Workers at `time_ms` (`u32::MAX` for an unlimited pool).
    pub fn workers_at(&self, time_ms: f64) -> u32 {
        self.capacity
            .iter()
            .find(|change| change.window.contains(time_ms))
            .map(|change| change.workers)
            .or(self.workers)
            .unwrap_or(u32::MAX)
    }
}

/// The clients' retry behaviour.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadClient {
    /// An attempt with no answer after this long has timed out (ms).
    pub timeout_ms: f64,
    /// Retries at most per payment.
    pub max_retries: u32,
    /// The wait before each retry.
    pub backoff: Backoff,
    /// AWS SDK standard-mode retry quota, per client.
    pub token_bucket: Option<TokenBucket>,
    /// Brooker's adaptive bucket, per client.
    pub adaptive_bucket: Option<AdaptiveBucket>,
    /// A circuit breaker on retries, per client.
    pub breaker: Option<Breaker>,
    /// Google SRE retry budget: a client's retries at most this share of its payments.
    pub retry_ratio: Option<f64>,
    /// gRPC's throttling, Envoy's and Finagle's budgets, the SRE adaptive throttling.
    pub controls: RetryControls,
    /// A payment is given up this long after it started, whatever retries are left (ms).
    pub payment_deadline_ms: Option<f64>,
    /// Probability that a retry carries another body under the same key (a client bug, say a
    /// recomputed amount; 0 to 1). Each different body is unlike every other.
    pub different_body_rate: f64,
}

/// One scenario of a load experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadScenario {
    /// Its name in CSV and charts.
    pub name: String,
    /// Payments over time.
    pub arrivals: LoadArrivals,
    /// Latencies, losses and outages.
    pub network: LoadNetwork,
    /// Workers, queue and processing.
    pub server: LoadServer,
    /// Timeouts, retries and retry control.
    pub client: LoadClient,
}

impl LoadScenario {
    /// The windows that trigger an overload: capacity changes, network and key store outages;
    /// without any, the phases whose rate exceeds the first phase's (a spike). Sorted,
    /// possibly empty.
    pub fn trigger_windows(&self) -> Vec<Window> {
        let key_store_outages = self.server.key_store_outages.windows.iter();
        let mut windows: Vec<Window> = self
            .server
            .capacity
            .iter()
            .map(|change| change.window)
            .chain(self.network.outages.iter().copied())
            .chain(key_store_outages.map(|&(from_ms, to_ms)| Window { from_ms, to_ms }))
            .collect();
        if windows.is_empty() {
            windows = arrivals::spikes(&self.arrivals.phases);
        }
        windows.sort_by(|a, b| a.from_ms.total_cmp(&b.from_ms));
        windows
    }
}

/// A validated load experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadModel {
    /// The scenario file's name, for charts.
    pub title: String,
    /// Seed of the run streams.
    pub seed: u64,
    /// Independent replications (at least 1).
    pub runs: u32,
    /// Strategies compared, in the order reported.
    pub strategies: Vec<LoadStrategy>,
    /// Scenarios, in the order reported (at least 1).
    pub scenarios: Vec<LoadScenario>,
    /// Width of a time-series bucket (ms, more than 0).
    pub bucket_ms: f64,
    /// The warm-up excluded from the steady-state metrics ([`Steady`]): they cover `[warm_up_ms,
    /// duration)` of each scenario's arrival window (ms, at least 0, less than every
    /// scenario's `duration_ms`).
    pub warm_up_ms: f64,
    /// The window over which recovery is judged (ms, more than 0; see [`tally::recovery`]),
    /// rounded up to whole buckets.
    pub recovery_window_ms: f64,
}

impl LoadModel {
    /// Run `run`'s arrivals stream: `SeedSequence(seed, spawn_key=(run, 10))`.
    pub fn arrivals_seed(&self, run: u32) -> SeedSequence {
        SeedSequence::with_spawn_key(self.seed, &[u64::from(run), 10])
    }

    /// Run `run`'s stream for everything else: `SeedSequence(seed, spawn_key=(run, 11))`.
    pub fn events_seed(&self, run: u32) -> SeedSequence {
        SeedSequence::with_spawn_key(self.seed, &[u64::from(run), 11])
    }

    /// The recovery window in whole buckets: `recovery_window_ms` over `bucket_ms`, rounded up
    /// (a ratio within 10^-9 of a whole number counts as that number), at least 1.
    pub fn recovery_window_buckets(&self) -> usize {
        ((self.recovery_window_ms / self.bucket_ms - 1e-9).ceil() as usize).max(1)
    }

    /// Event loops to run: runs × scenarios × strategies (the progress bar's units).
    pub fn simulations(&self) -> u64 {
        u64::from(self.runs) * self.scenarios.len() as u64 * self.strategies.len() as u64
    }
}

/// One event loop's results.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadRow {
    /// The replication.
    pub run: u32,
    /// Index into [`LoadModel::scenarios`].
    pub scenario: usize,
    /// The strategy.
    pub strategy: LoadStrategy,
    /// What happened.
    pub tally: LoadTally,
}

/// Every event loop of an experiment: by run, then scenario, then strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadResults {
    /// The experiment.
    pub model: LoadModel,
    /// One row per (run, scenario, strategy).
    pub rows: Vec<LoadRow>,
}

/// One event loop to run: the run, the scenario and the strategy.
type Task = (u32, usize, LoadStrategy);

/// Runs every (run, scenario, strategy) of `model` on `threads` threads.
pub fn simulate(
    model: &LoadModel,
    threads: usize,
    progress: &dyn Progress,
) -> Result<LoadResults, Interrupted> {
    let cells: Vec<usize> = (0..tasks(model).len()).collect();
    Ok(assemble(
        model,
        simulate_cells(model, threads, &cells, progress)?,
    ))
}

/// Every event loop of `model`, by run, then scenario, then strategy: the cells of a run
/// (`--shard`), cell `k` being the `k`-th.
pub fn tasks(model: &LoadModel) -> Vec<(u32, usize, LoadStrategy)> {
    (0..model.runs)
        .flat_map(|run| {
            (0..model.scenarios.len()).flat_map(move |scenario| {
                model
                    .strategies
                    .iter()
                    .map(move |&strategy| (run, scenario, strategy))
            })
        })
        .collect()
}

/// The tallies of the event loops `cells` (indices into [`tasks`]), in that order, on
/// `threads` threads.
pub fn simulate_cells(
    model: &LoadModel,
    threads: usize,
    cells: &[usize],
    progress: &dyn Progress,
) -> Result<Vec<LoadTally>, Interrupted> {
    let tasks = tasks(model);
    let chosen: Vec<Task> = cells.iter().map(|&cell| tasks[cell]).collect();
    map_chunks(&chosen, 1, threads, progress, |chunk| {
        chunk
            .iter()
            .map(|&(run, scenario, strategy)| {
                simulate_one(model, run, scenario, strategy, progress)
            })
            .collect()
    })
}

/// The results of every event loop's tally, in the order of [`tasks`].
pub fn assemble(model: &LoadModel, tallies: Vec<LoadTally>) -> LoadResults {
    let mut rows = Vec::with_capacity(tallies.len());
    for ((run, scenario, strategy), tally) in tasks(model).into_iter().zip(tallies) {
        rows.push(LoadRow {
            run,
            scenario,
            strategy,
            tally,
        });
    }
    LoadResults {
        model: model.clone(),
        rows,
    }
}

/// One event loop: scenario `scenario` of run `run` under `strategy`, its recovery computed
/// from its time series ([`tally::recovery`]).
pub fn simulate_one(
    model: &LoadModel,
    run: u32,
    scenario: usize,
    strategy: LoadStrategy,
    progress: &dyn Progress,
) -> Result<LoadTally, Interrupted> {
    let arrivals = model.arrivals_seed(run).pcg64();
    let events = model.events_seed(run).pcg64();
    let scenario = &model.scenarios[scenario];
    let mut tally =
        simulation::Simulation::new(scenario, strategy, model.bucket_ms, arrivals, events)
            .with_warm_up_ms(model.warm_up_ms)
            .run(progress)?;
    tally.recovered_at_ms = tally::recovery(
        &tally.buckets,
        model.bucket_ms,
        model.recovery_window_buckets(),
        &scenario.trigger_windows(),
        scenario.arrivals.duration_ms,
    );
    Ok(tally)
}

#[cfg(test)]
mod body_tests;
#[cfg(test)]
mod copy_tests;
#[cfg(test)]
mod key_store_tests;
#[cfg(test)]
mod provider_tests;
#[cfg(test)]
mod tests;
