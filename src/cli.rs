//! The command line as typed: clap's view of the flags, before any merging or checking that
//! needs the config file (see [`crate::config`]).

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use crate::parse::{self, AckLossList};

/// Deterministic Monte Carlo of at-least-once delivery: how many customers get charged twice
/// when ACKs are lost and clients retry, with and without an Idempotency-Key.
///
/// Every payment request reaches the server; its response (ACK) is lost with probability p;
/// a client without an ACK sends the same request again, up to --max-retries times. A
/// non-idempotent server and an Idempotency-Key server process the same deliveries. The draws
/// are numpy's `default_rng(seed)`, so `--p 0.01,0.05,0.10 --seed 42` (the defaults)
/// reproduces the article's table bit for bit.
#[derive(Debug, Parser)]
#[command(name = "simulate", version, about, long_about, max_term_width = 100)]
pub struct Cli {
    /// ACK-loss probabilities: comma-separated values in [0, 1] and ranges START:STOP:STEP
    /// (STOP included, built from decimal steps) [default: 0.01,0.05,0.10]
    #[arg(long = "p", value_name = "LIST", value_parser = parse::ack_loss_list, allow_hyphen_values = true)]
    pub ack_loss: Option<AckLossList>,

    /// Seed of numpy's default_rng (0 to 2^64-1) [default: 42]
    #[arg(long, value_name = "N", value_parser = parse::seed, allow_hyphen_values = true)]
    pub seed: Option<u64>,

    /// Payment requests per run [default: 10000]
    #[arg(long, value_name = "N", value_parser = parse::requests, allow_hyphen_values = true)]
    pub requests: Option<u64>,

    /// Retries a client makes at most after its first send [default: 20]
    #[arg(long, value_name = "N", value_parser = parse::max_retries, allow_hyphen_values = true)]
    pub max_retries: Option<u32>,

    /// Payments per run and scenario of a timeline scenario file (see --config) [default: the
    /// file's `payments`, else 10000]
    #[arg(long, value_name = "N", value_parser = parse::payments, allow_hyphen_values = true)]
    pub payments: Option<u64>,

    /// Independent replications of every p; run 0 is the article's run [default: 1]
    #[arg(long, value_name = "K", value_parser = parse::runs, allow_hyphen_values = true)]
    pub runs: Option<u32>,

    /// Folder the CSV files and charts are written to (created if missing) [default: output]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// TOML file with the same settings (p, seed, requests, max_retries, runs, out, threads,
    /// engine); flags override it. A file with `model = "timeline"` is a timeline scenario
    /// (latencies, timeouts, backoff, three server strategies; see the README)
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Worker threads of the fast engine [default: all cores]
    #[arg(long, value_name = "N", value_parser = parse::threads, allow_hyphen_values = true)]
    pub threads: Option<usize>,

    /// How the model is computed: `fast` (constant memory, all cores) or `servers` (the
    /// article's numpy code with every delivery sent to both real servers; memory grows with
    /// --requests). Both give identical results [default: fast]
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<EngineChoice>,

    /// Print nothing on success and draw no progress bar (errors still go to stderr)
    #[arg(long, short)]
    pub quiet: bool,
}

/// The `--engine` choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EngineChoice {
    /// Per-request draws with jump-ahead, constant memory, all cores.
    Fast,
    /// The article's numpy code with the real servers (memory grows with the requests).
    Servers,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
