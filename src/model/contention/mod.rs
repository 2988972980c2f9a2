//! The contention model: N clients update one row under optimistic concurrency control and
//! back off after a stale write, the experiment of the AWS Architecture Blog's "Exponential
//! Backoff And Jitter" (Marc Brooker, 2015) with every backoff policy of the timeline model
//! (pure: parameters, seed and a [`Progress`] in; counts and times out).
//!
//! Every (client count, policy, run) is one independent simulation on its own clock (see
//! [`simulation`]) drawing from its own stream, `SeedSequence(seed, spawn_key=(run, clients,
//! policy code))` (codes in [`Policy::code`]), so a result does not depend on which other
//! client counts or policies the file lists, nor on the thread that ran it: the simulations
//! run in parallel with rayon and are collected in order, and any thread count gives the same
//! bytes.
//!
//! As in the AWS simulator, the wait after a client's `n`-th rejected write is the policy's
//! wait for exponent `n` (so the first retry of exponential backoff waits `2 × base_ms`), and
//! decorrelated jitter's "previous sleep" starts at `base_ms` for each client.

pub mod delay;
pub mod estimate;
pub mod simulation;
pub mod summary;

pub use delay::Delay;
pub use simulation::{RunTally, Simulator};

use engine::backoff::Backoff;
use engine::parallel::map_chunks;
use engine::rng::SeedSequence;
use engine::{Interrupted, Progress};

/// A backoff policy by name; its parameters are the model's `base_ms` and `cap_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Policy {
    /// Retry at once (after the network delay).
    None,
    /// Always `base_ms`.
    Constant,
    /// `min(cap_ms, base_ms × 2^n)`.
    Exponential,
    /// `uniform(0, min(cap_ms, base_ms × 2^n))`.
    FullJitter,
    /// Half the exponential wait plus a uniform draw up to the other half.
    EqualJitter,
    /// `min(cap_ms, uniform(base_ms, previous × 3))`.
    DecorrelatedJitter,
}

impl Policy {
    /// All six, in the order they are reported by default.
    pub const ALL: [Policy; 6] = [
        Policy::None,
        Policy::Constant,
        Policy::Exponential,
        Policy::FullJitter,
        Policy::EqualJitter,
        Policy::DecorrelatedJitter,
    ];

    /// The name in config files, CSV and charts.
    pub fn name(self) -> &'static str {
        match self {
            Policy::None => "none",
            Policy::Constant => "constant",
            Policy::Exponential => "exponential",
            Policy::FullJitter => "full_jitter",
            Policy::EqualJitter => "equal_jitter",
            Policy::DecorrelatedJitter => "decorrelated_jitter",
        }
    }

    /// The policy named `name` (as in [`Policy::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|policy| policy.name() == name)
    }

    /// A fixed number per policy, part of every run's spawn key (independent of the order in
    /// which a file lists the policies).
    pub fn code(self) -> u64 {
        self as u64
    }

    /// The timeline model's backoff with these parameters.
    pub fn backoff(self, base_ms: f64, cap_ms: f64) -> Backoff {
        match self {
            Policy::None => Backoff::None,
            Policy::Constant => Backoff::Constant { base_ms },
            Policy::Exponential => Backoff::Exponential { base_ms, cap_ms },
            Policy::FullJitter => Backoff::FullJitter { base_ms, cap_ms },
            Policy::EqualJitter => Backoff::EqualJitter { base_ms, cap_ms },
            Policy::DecorrelatedJitter => Backoff::DecorrelatedJitter { base_ms, cap_ms },
        }
    }
}

/// What every simulation of a model shares: the network and the clients' retry limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContentionSetup {
    /// The delay of every message, each way (ms).
    pub delay: Delay,
    /// Retries a client makes at most after its first write; `None`: until it succeeds.
    pub max_retries: Option<u32>,
}

/// A contention experiment: a sweep over client counts and policies, `runs` times each.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentionModel {
    /// The config file's name, for titles.
    pub title: String,
    /// The seed of every run's stream.
    pub seed: u64,
    /// Independent runs per (client count, policy).
    pub runs: u32,
    /// The numbers of clients racing for the row, in the order reported.
    pub clients: Vec<u32>,
    /// The backoff policies, in the order reported.
    pub policies: Vec<Policy>,
    /// The backoff's base (ms; a file's is 0 to 10^9).
    pub base_ms: f64,
    /// The backoff's cap (ms, at least the base; a file's is at most 10^9).
    pub cap_ms: f64,
    /// The network and the retry limit.
    pub setup: ContentionSetup,
}

impl ContentionModel {
    /// The stream of one simulation: `SeedSequence(seed, spawn_key=(run, clients, code))`.
    pub fn seed_sequence(&self, run: u32, clients: u32, policy: Policy) -> SeedSequence {
        SeedSequence::with_spawn_key(
            self.seed,
            &[u64::from(run), u64::from(clients), policy.code()],
        )
    }

    /// Simulations to run: one per run, client count and policy (the progress bar's units).
    pub fn simulations(&self) -> u64 {
        u64::from(self.runs) * self.clients.len() as u64 * self.policies.len() as u64
    }
}

/// One simulation's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContentionRow {
    /// Clients racing for the row.
    pub clients: u32,
    /// The backoff policy.
    pub policy: Policy,
    /// The run (0-based).
    pub run: u32,
    /// What it counted.
    pub tally: RunTally,
}

/// Every simulation of a model, client counts in the order given, then policies in the
/// order given, then runs.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentionResults {
    /// The experiment.
    pub model: ContentionModel,
    /// One row per client count, policy and run.
    pub rows: Vec<ContentionRow>,
}

/// Simulations per unit of parallel work (and per progress report).
const CHUNK: usize = 16;

/// Runs every simulation of `model` on `threads` threads.
pub fn simulate(
    model: &ContentionModel,
    threads: usize,
    progress: &dyn Progress,
) -> Result<ContentionResults, Interrupted> {
    let every: Vec<usize> = (0..tasks(model).len()).collect();
    simulate_cells(model, threads, &every, progress).map(|tallies| assemble(model, tallies))
}

/// Every simulation of `model` as (clients, policy, run), by client count, then policy,
/// then run: the cells of a run (`--shard`), cell `k` being the `k`-th.
pub fn tasks(model: &ContentionModel) -> Vec<(u32, Policy, u32)> {
    model
        .clients
        .iter()
        .flat_map(|&clients| {
            model
                .policies
                .iter()
                .flat_map(move |&policy| (0..model.runs).map(move |run| (clients, policy, run)))
        })
        .collect()
}

/// The tallies of the simulations `cells` (indices into [`tasks`]) on `threads` threads.
pub fn simulate_cells(
    model: &ContentionModel,
    threads: usize,
    cells: &[usize],
    progress: &dyn Progress,
) -> Result<Vec<RunTally>, Interrupted> {
    let chosen: Vec<(u32, Policy, u32)> = {
        let every = tasks(model);
        cells.iter().map(|&cell| every[cell]).collect()
    };
    map_chunks(&chosen, CHUNK, threads, progress, |chunk| {
        let mut simulator = Simulator::default();
        Ok(chunk
            .iter()
            .map(|&(clients, policy, run)| {
                simulate_one(model, &mut simulator, clients, policy, run)
            })
            .collect())
    })
}

/// The results of every simulation's tally, in the order of [`tasks`].
pub fn assemble(model: &ContentionModel, tallies: Vec<RunTally>) -> ContentionResults {
    let rows = tasks(model)
        .into_iter()
        .zip(tallies)
        .map(|((clients, policy, run), tally)| ContentionRow {
            clients,
            policy,
            run,
            tally,
        })
        .collect();
    ContentionResults {
        model: model.clone(),
        rows,
    }
}

/// One simulation: `clients` clients with `policy` in run `run`.
pub fn simulate_one(
    model: &ContentionModel,
    simulator: &mut Simulator,
    clients: u32,
    policy: Policy,
    run: u32,
) -> RunTally {
    let mut stream = model.seed_sequence(run, clients, policy).pcg64();
    simulator.run(
        &model.setup,
        policy.backoff(model.base_ms, model.cap_ms),
        clients,
        &mut stream,
    )
}

#[cfg(test)]
mod tests;
