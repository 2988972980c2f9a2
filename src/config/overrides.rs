//! What the command line sets, as plain values: the binary's flags turned into one
//! [`Overrides`], which the config merges over the file and the defaults. Nothing here knows
//! how the flags were parsed.

use std::path::PathBuf;

/// How the article model is computed (`--engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EngineName {
    /// Per-request draws with jump-ahead, constant memory, all cores.
    Fast,
    /// The article's numpy code with the real servers (memory grows with the requests).
    Servers,
}

impl EngineName {
    /// Its name as `--engine` and a file's `engine` key write it.
    pub fn name(self) -> &'static str {
        match self {
            EngineName::Fast => "fast",
            EngineName::Servers => "servers",
        }
    }
}

/// The command line's settings, each `None` (or `false`) when not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// The config file (`--config`, or the first positional argument).
    pub config: Option<PathBuf>,
    /// ACK-loss probabilities (`--p`), already checked.
    pub ack_loss: Option<Vec<f64>>,
    /// Seed (`--seed`).
    pub seed: Option<u64>,
    /// Requests per run of the article model (`--requests`).
    pub requests: Option<u64>,
    /// Retries at most (`--max-retries`).
    pub max_retries: Option<u32>,
    /// Payments per run and scenario of a timeline file (`--payments`).
    pub payments: Option<u64>,
    /// Replications (`--runs`).
    pub runs: Option<u32>,
    /// Output folder (`--out`).
    pub out: Option<PathBuf>,
    /// Worker threads (`--threads`).
    pub threads: Option<usize>,
    /// The article model's engine (`--engine`).
    pub engine: Option<EngineName>,
    /// Print nothing on success (`--quiet`).
    pub quiet: bool,
    /// Print the JSON summary (`--json`).
    pub json: bool,
    /// Keys of the file set on the command line (`--set KEY=VALUE`), in order.
    pub set: Vec<crate::config::assignment::Assignment>,
    /// Keys run at several values (`--sweep KEY=VALUES`), in order.
    pub sweep: Vec<crate::config::assignment::SweepFlag>,
    /// The share of the run's cells to run, into a partial folder (`--shard K/N`).
    pub shard: Option<crate::config::shard::ShardFlag>,
}

impl Overrides {
    /// The output settings with `out_dir` and the flags' `--quiet` and `--json`.
    pub fn output(&self, out_dir: PathBuf) -> crate::config::OutputSettings {
        crate::config::OutputSettings {
            out_dir,
            quiet: self.quiet,
            json: self.json,
        }
    }

    /// The dedicated flag given that sets file key `key` (`--seed` for `seed`), if any.
    pub fn flag_setting(&self, key: &str) -> Option<&'static str> {
        let (flag, given) = match key {
            "seed" => ("--seed", self.seed.is_some()),
            "runs" => ("--runs", self.runs.is_some()),
            "payments" => ("--payments", self.payments.is_some()),
            "requests" => ("--requests", self.requests.is_some()),
            "max_retries" => ("--max-retries", self.max_retries.is_some()),
            "threads" => ("--threads", self.threads.is_some()),
            "engine" => ("--engine", self.engine.is_some()),
            "out" => ("--out", self.out.is_some()),
            "p" => ("--p", self.ack_loss.is_some()),
            _ => return None,
        };
        given.then_some(flag)
    }

    /// The flags given among those only some models take, by flag name, for refusing the
    /// ones a model has no use for.
    pub fn model_flags(&self) -> [(&'static str, bool); 5] {
        [
            ("--p", self.ack_loss.is_some()),
            ("--requests", self.requests.is_some()),
            ("--max-retries", self.max_retries.is_some()),
            ("--payments", self.payments.is_some()),
            ("--engine", self.engine.is_some()),
        ]
    }
}
