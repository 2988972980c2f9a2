//! The command line as typed: clap's view of the flags, before any merging or checking that
//! needs the config file (see [`crate::config`]).

use std::path::PathBuf;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};
use clap_complete::Shell;

use crate::parse::{self, AckLossList};

/// Deterministic Monte Carlo of at-least-once delivery: how many customers get charged twice
/// when ACKs are lost and clients retry, with and without an Idempotency-Key.
///
/// Every payment request reaches the server; its response (ACK) is lost with probability p;
/// a client without an ACK sends the same request again, up to --max-retries times. A
/// non-idempotent server and an Idempotency-Key server process the same deliveries. The draws
/// are numpy's `default_rng(seed)`, so `--p 0.01,0.05,0.10 --seed 42` (the defaults)
/// reproduces the article's table bit for bit.
///
/// Exit codes: 0 success; 1 failure while running (e.g. the output folder cannot be written);
/// 2 usage error (a bad flag, config file or value, or a run too big for this machine);
/// 130 interrupted (Ctrl-C or SIGTERM; the previous outputs are left intact).
#[derive(Debug, Parser)]
#[command(
    name = "simulate",
    version,
    about,
    long_about,
    max_term_width = 100,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// A helper command instead of a simulation (the flags below run the simulation).
    #[command(subcommand)]
    pub command: Option<Command>,

    /// ACK-loss probabilities: comma-separated values in [0, 1] and ranges START:STOP:STEP
    /// (STOP included, built from decimal steps) [default: 0.01,0.05,0.10]
    #[arg(long = "p", value_name = "LIST", value_parser = parse::capped(parse::ack_loss_list), allow_hyphen_values = true)]
    pub ack_loss: Option<AckLossList>,

    /// Seed of numpy's default_rng (0 to 2^64-1) [default: 42]
    #[arg(long, value_name = "N", value_parser = parse::capped(parse::seed), allow_hyphen_values = true)]
    pub seed: Option<u64>,

    /// Payment requests per run [default: 10000]
    #[arg(long, value_name = "N", value_parser = parse::capped(parse::requests), allow_hyphen_values = true)]
    pub requests: Option<u64>,

    /// Retries a client makes at most after its first send [default: 20]
    #[arg(long, value_name = "N", value_parser = parse::capped(parse::max_retries), allow_hyphen_values = true)]
    pub max_retries: Option<u32>,

    /// Payments per run and scenario of a timeline scenario file (see --config) [default: the
    /// file's `payments`, else 10000]
    #[arg(long, value_name = "N", value_parser = parse::capped(parse::payments), allow_hyphen_values = true)]
    pub payments: Option<u64>,

    /// Independent replications of every p; run 0 is the article's run [default: 1]
    #[arg(long, value_name = "K", value_parser = parse::capped(parse::runs), allow_hyphen_values = true)]
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
    #[arg(long, value_name = "N", value_parser = parse::capped(parse::threads), allow_hyphen_values = true)]
    pub threads: Option<usize>,

    /// How the model is computed: `fast` (constant memory, all cores) or `servers` (the
    /// article's numpy code with every delivery sent to both real servers; memory grows with
    /// --requests). Both give identical results [default: fast]
    #[arg(long, value_name = "ENGINE")]
    pub engine: Option<EngineChoice>,

    /// Print nothing on success and draw no progress bar (errors still go to stderr)
    #[arg(long, short)]
    pub quiet: bool,

    /// Print the results as JSON on stdout instead of the table: the parameters, one object
    /// per row of results.csv and the files written
    #[arg(long, conflicts_with = "quiet")]
    pub json: bool,
}

/// The helper commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Subcommand)]
pub enum Command {
    /// Print a shell completion script on stdout, e.g.
    /// `simulate completions bash > ~/.local/share/bash-completion/completions/simulate`
    Completions {
        /// The shell to complete for
        shell: Shell,
    },
    /// Print the man page (roff) on stdout, e.g. `simulate man > simulate.1`
    Man,
}

/// The completion script of `shell` for the whole command line.
pub fn completions(shell: Shell) -> Vec<u8> {
    let mut command = Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, "simulate", &mut script);
    script
}

/// The man page, `simulate.1`, in roff.
pub fn man_page() -> Vec<u8> {
    let mut page = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut page)
        .expect("rendering into memory cannot fail");
    page
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

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("simulate").chain(args.iter().copied()))
    }

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn flags_work_without_a_subcommand() {
        let cli = parse(&["--p", "0.1", "--json"]).unwrap();
        assert_eq!(cli.command, None);
        assert!(cli.json);
        assert_eq!(cli.ack_loss, Some(AckLossList(vec![0.1])));
    }

    #[test]
    fn subcommands_parse_and_refuse_simulation_flags() {
        assert_eq!(
            parse(&["completions", "zsh"]).unwrap().command,
            Some(Command::Completions { shell: Shell::Zsh })
        );
        assert_eq!(parse(&["man"]).unwrap().command, Some(Command::Man));
        assert!(parse(&["--p", "0.1", "man"]).is_err());
        assert!(parse(&["completions", "tcsh"]).is_err());
        assert!(parse(&["--json", "--quiet"]).is_err());
    }
}
