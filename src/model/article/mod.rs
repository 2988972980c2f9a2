//! The article's model of at-least-once delivery (pure: parameters and seeds in, counts out).
//!
//! A client sends a payment request; the server always receives and processes it; the response
//! (ACK) is lost with probability `ack_loss`; a client that sees no ACK sends the same request
//! again, at most `max_retries` times. Two engines compute it and agree exactly:
//! [`Engine::Servers`] replays the article's numpy code literally and feeds every delivery to the
//! real servers of [`server`]; [`Engine::Fast`] computes the same draws per request in
//! constant memory on several threads (see [`kernel`]).

pub mod closed_form;
pub mod estimate;
pub mod histogram;
pub mod kernel;
pub mod reference;
pub mod server;
pub mod summary;

pub use histogram::AttemptHistogram;

use rayon::prelude::*;

use engine::rng::SeedSequence;
use engine::{Interrupted, Progress};
use server::{ServerKind, ServerTally};

/// The validated parameters of an article-model experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct ArticleModel {
    /// ACK-loss probabilities, each in `[0, 1]`, in the order they are reported.
    pub ack_loss: Vec<f64>,
    /// Payment requests per run (at least 1).
    pub requests: u64,
    /// Retries a client makes at most after its first send.
    pub max_retries: u32,
    /// The seed of `numpy.random.default_rng(seed)`.
    pub seed: u64,
    /// Independent replications (at least 1); run 0 is the article's run.
    pub runs: u32,
}

impl ArticleModel {
    /// The random stream of run `run`: run 0 is `default_rng(seed)`, run `k >= 1` is
    /// `default_rng(SeedSequence(seed, spawn_key=(k-1,)))`.
    pub fn seed_sequence(&self, run: u32) -> SeedSequence {
        match run {
            0 => SeedSequence::new(self.seed),
            k => SeedSequence::with_spawn_key(self.seed, &[u64::from(k - 1)]),
        }
    }
}

/// How the model is computed. Both give identical counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// Per-request draws with jump-ahead, all p values in one pass, on `threads` threads;
    /// memory does not grow with the number of requests.
    Fast {
        /// Worker threads (at least 1).
        threads: usize,
    },
    /// The article's numpy code line by line, every delivery sent to both real servers;
    /// memory grows with the number of requests.
    Servers,
}

/// What happened at one ACK-loss probability in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct PointResult {
    /// The replication (0 is the article's run).
    pub run: u32,
    /// The ACK-loss probability.
    pub ack_loss: f64,
    /// Requests by number of deliveries (attempts).
    pub attempts: AttemptHistogram,
    /// What each server did, in the order of [`ServerKind::ALL`].
    pub servers: [ServerTally; 2],
}

impl PointResult {
    /// The tally of one server design.
    pub fn server(&self, kind: ServerKind) -> &ServerTally {
        let index = ServerKind::ALL
            .iter()
            .position(|&k| k == kind)
            .expect("every kind is in ALL");
        &self.servers[index]
    }
}

/// The results of an experiment, one point per (run, p), runs in order, p in the given order.
#[derive(Debug, Clone, PartialEq)]
pub struct ArticleResults {
    /// The parameters the results were computed with.
    pub model: ArticleModel,
    /// One entry per (run, p).
    pub points: Vec<PointResult>,
}

/// The units of work [`simulate`] reports to its [`Progress`] in all.
pub fn work_units(model: &ArticleModel, engine: Engine) -> u64 {
    let per_run = match engine {
        Engine::Fast { .. } => model.requests,
        Engine::Servers => model.requests.saturating_mul(model.ack_loss.len() as u64),
    };
    per_run.saturating_mul(u64::from(model.runs))
}

/// One run's counts per p, in the order of [`ArticleModel::ack_loss`]: the attempts and what
/// each server did. A run is one cell of a sharded run (`--shard`): it is all a shard writes
/// of it and all [`assemble`] needs.
pub type RunCounts = Vec<(AttemptHistogram, [ServerTally; 2])>;

/// Runs the experiment.
pub fn simulate(
    model: &ArticleModel,
    engine: Engine,
    progress: &dyn Progress,
) -> Result<ArticleResults, Interrupted> {
    let runs: Vec<u32> = (0..model.runs).collect();
    Ok(assemble(
        model,
        simulate_runs(model, engine, &runs, progress)?,
    ))
}

/// The counts of the runs `runs` (each below [`ArticleModel::runs`]), in that order: each
/// run reads its own stream, so a run's counts do not depend on which others are computed.
pub fn simulate_runs(
    model: &ArticleModel,
    engine: Engine,
    runs: &[u32],
    progress: &dyn Progress,
) -> Result<Vec<RunCounts>, Interrupted> {
    match engine {
        // Runs in parallel too, so that many small runs use every core; rayon collects
        // them in run order.
        Engine::Fast { threads } => engine::parallel::thread_pool(threads).install(|| {
            runs.par_iter()
                .map(|&run| {
                    let histograms = kernel::attempt_histograms(model, run, progress)?;
                    Ok(histograms
                        .into_iter()
                        .map(|histogram| {
                            let servers = ServerKind::ALL.map(|kind| histogram.server_tally(kind));
                            (histogram, servers)
                        })
                        .collect())
                })
                .collect::<Result<_, Interrupted>>()
        }),
        Engine::Servers => runs
            .iter()
            .map(|&run| {
                let seeds = model.seed_sequence(run);
                model
                    .ack_loss
                    .iter()
                    .map(|&p| {
                        reference::simulate_with_servers(
                            &seeds,
                            model.requests,
                            model.max_retries,
                            p,
                            progress,
                        )
                    })
                    .collect()
            })
            .collect::<Result<_, Interrupted>>(),
    }
}

/// The results of every run's counts, `runs[k]` being run `k`'s.
pub fn assemble(model: &ArticleModel, runs: Vec<RunCounts>) -> ArticleResults {
    let points = runs
        .into_iter()
        .zip(0..)
        .flat_map(|(counts, run)| {
            model
                .ack_loss
                .iter()
                .zip(counts)
                .map(move |(&ack_loss, (attempts, servers))| PointResult {
                    run,
                    ack_loss,
                    attempts,
                    servers,
                })
        })
        .collect();
    ArticleResults {
        model: model.clone(),
        points,
    }
}

impl ArticleResults {
    /// Each distinct p once (in the order first given) with its attempts histogram summed
    /// over runs.
    pub fn attempts_by_p(&self) -> Vec<(f64, AttemptHistogram)> {
        let mut merged: Vec<(f64, AttemptHistogram)> = Vec::new();
        // Where each p (by bits) is in `merged`: a lookup per point, not a search.
        let mut position = std::collections::HashMap::new();
        for point in &self.points {
            match position.entry(point.ack_loss.to_bits()) {
                std::collections::hash_map::Entry::Occupied(entry) => {
                    let index: usize = *entry.get();
                    merged[index].1.merge(&point.attempts);
                }
                std::collections::hash_map::Entry::Vacant(entry) => {
                    entry.insert(merged.len());
                    merged.push((point.ack_loss, point.attempts.clone()));
                }
            }
        }
        merged
    }

    /// The points of run 0 (the article's run), p in the given order.
    pub fn first_run(&self) -> impl Iterator<Item = &PointResult> {
        self.points.iter().filter(|point| point.run == 0)
    }
}
