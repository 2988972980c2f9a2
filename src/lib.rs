//! `simulate`: a deterministic, seeded Monte Carlo simulator of at-least-once delivery that
//! counts double charges with and without an Idempotency-Key.
//!
//! The flow is one-way: [`cli`] (flags) → [`config`] (file + flags → one validated
//! [`config::Config`] for the article model or [`config::TimelineConfig`] for a timeline
//! scenario) → [`model`] (pure; uses [`rng`] and [`server`]; the timeline model is
//! [`model::timeline`]) → [`report`] (results → bytes) → [`run`] writes the files through
//! [`output`]. The core never prints or reads files.

pub mod cli;
pub mod config;
pub mod model;
pub mod output;
pub mod parse;
pub mod report;
pub mod rng;
pub mod server;
pub mod stats;

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::Cli;
use crate::config::{Command, Config, ConfigError, TimelineConfig};
use crate::model::{Interrupted, Progress};

/// Exit code for a usage error: a bad flag, config file or value.
pub const EXIT_USAGE: u8 = 2;
/// Exit code for any other failure (e.g. the output folder cannot be written).
pub const EXIT_FAILURE: u8 = 1;
/// Exit code after Ctrl-C or SIGTERM (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: u8 = 130;

/// Set by the Ctrl-C / SIGTERM handler; the simulation and the writer check it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Runs the command: validates the configuration, simulates, writes the files atomically and
/// prints the table and the paths written (unless `--quiet`).
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let command = Command::from_cli(&cli)?;
    // A second handler cannot be installed (e.g. `run` called twice in one process); the
    // first one sets the same flag.
    let _ = ctrlc::try_set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    match command {
        Command::Article(config) => run_article(&config),
        Command::Timeline(config) => run_timeline(&config),
    }
}

fn run_article(config: &Config) -> anyhow::Result<()> {
    let progress = Reporter::new(
        model::work_units(&config.model, config.engine),
        "requests",
        config.quiet,
    );
    let results = model::simulate(&config.model, config.engine, &progress)?;
    progress.bar.finish_and_clear();
    let files = report::output_files(&results);
    let table = report::table::render(&results);
    write_and_tell(&config.out_dir, &files, &table, config.quiet)
}

fn run_timeline(config: &TimelineConfig) -> anyhow::Result<()> {
    let progress = Reporter::new(config.model.work_units(), "payments", config.quiet);
    let results = model::timeline::simulate(&config.model, config.threads, &progress)?;
    progress.bar.finish_and_clear();
    let files = report::timeline_files(&results);
    let table = report::timeline_table::render(&results);
    write_and_tell(&config.out_dir, &files, &table, config.quiet)
}

/// Writes the files atomically, then prints the table and the paths written (unless quiet).
fn write_and_tell(
    out_dir: &std::path::Path,
    files: &[report::OutputFile],
    table: &str,
    quiet: bool,
) -> anyhow::Result<()> {
    let written = output::write_all(out_dir, files, interrupted)
        .with_context(|| format!("writing the outputs to {}", out_dir.display()))?;
    if !quiet {
        let mut text = table.to_string();
        text.push('\n');
        for path in &written {
            text.push_str(&format!("wrote {}\n", path.display()));
        }
        print_to_stdout(&text)?;
    }
    Ok(())
}

/// The exit code for an error returned by [`run`].
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if error.is::<ConfigError>() {
        EXIT_USAGE
    } else if error.is::<Interrupted>()
        || matches!(
            error.downcast_ref::<output::OutputError>(),
            Some(output::OutputError::Interrupted { .. })
        )
    {
        EXIT_INTERRUPTED
    } else {
        EXIT_FAILURE
    }
}

fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Writes to stdout; a reader that went away (`simulate | head`) is not an error.
fn print_to_stdout(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(error) if error.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(error).context("writing to stdout")
        }
        _ => Ok(()),
    }
}

/// The progress bar on stderr (only on a terminal, never with `--quiet`) and the interrupt
/// flag, as the model's [`Progress`].
struct Reporter {
    bar: ProgressBar,
}

impl Reporter {
    fn new(total: u64, unit: &str, quiet: bool) -> Self {
        let target = if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target).with_style(
            ProgressStyle::with_template(&format!(
                "{{elapsed_precise}} [{{wide_bar}}] {{human_pos}}/{{human_len}} {unit} \
                 ({{per_sec}}, ETA {{eta}})"
            ))
            .expect("the template is valid")
            .progress_chars("=> "),
        );
        Self { bar }
    }
}

impl Progress for Reporter {
    fn advance(&self, units: u64) {
        self.bar.inc(units);
    }

    fn should_stop(&self) -> bool {
        interrupted()
    }
}
