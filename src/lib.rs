//! `simulate`: a deterministic, seeded Monte Carlo simulator of at-least-once delivery that
//! counts double charges with and without an Idempotency-Key.
//!
//! The flow is one-way: [`cli`] (flags) → [`config`] (file + flags → one validated
//! [`config::Config`]) → [`model`] (pure; uses [`rng`] and [`server`]) → [`report`] (results →
//! bytes) → [`run`] writes the files through [`output`]. The core never prints or reads files.

pub mod cli;
pub mod config;
pub mod limits;
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
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use crate::cli::{Cli, Command};
use crate::config::{Config, ConfigError, Job, TimelineConfig};
use crate::model::{Interrupted, Progress};

/// Exit code for a usage error: a bad flag, config file or value, or a run too big for this
/// machine.
pub const EXIT_USAGE: u8 = 2;
/// Exit code for any other failure (e.g. the output folder cannot be written).
pub const EXIT_FAILURE: u8 = 1;
/// Exit code after Ctrl-C or SIGTERM (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: u8 = 130;

/// Set by the Ctrl-C / SIGTERM handler; the simulation and the writer check it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Runs the command: prints completions or the man page, or validates the configuration,
/// simulates, writes the files atomically and prints the table and the paths written (or the
/// JSON summary with `--json`, nothing with `--quiet`).
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Some(Command::Completions { shell }) => return print_to_stdout(&cli::completions(shell)),
        Some(Command::Man) => return print_to_stdout(&cli::man_page()),
        None => {}
    }
    match Job::from_cli(&cli)? {
        Job::Article(config) => run_article(&config),
        Job::Timeline(config) => run_timeline(&config),
    }
}

/// The article's model: the table, or the JSON summary with `--json`.
fn run_article(config: &Config) -> anyhow::Result<()> {
    let warning = limits::check(config, limits::available_memory())?;
    if let Some(warning) = warning.filter(|_| !config.quiet) {
        eprintln!("{warning}");
    }
    install_interrupt_handler()?;
    let progress = Reporter::new(
        model::work_units(&config.model, config.engine),
        "requests",
        config.quiet,
    );
    let results = model::simulate(&config.model, config.engine, &progress);
    progress.bar.finish_and_clear();
    let results = results?;
    let files = report::output_files(&results);
    // The error names the folder or file that could not be written.
    let written = output::write_all(&config.out_dir, &files, interrupted)?;
    if config.json {
        print_to_stdout(&report::json::summary(&results, &written))
    } else {
        tell(&report::table::render(&results), &written, config.quiet)
    }
}

/// A timeline scenario file: the companion piece's tables, or the JSON summary.
fn run_timeline(config: &TimelineConfig) -> anyhow::Result<()> {
    if let Some(warning) = limits::check_timeline(config).filter(|_| !config.quiet) {
        eprintln!("{warning}");
    }
    install_interrupt_handler()?;
    let progress = Reporter::new(config.model.work_units(), "payments", config.quiet);
    let results = model::timeline::simulate(&config.model, config.threads, &progress);
    progress.bar.finish_and_clear();
    let results = results?;
    let files = report::timeline_files(&results);
    let written = output::write_all(&config.out_dir, &files, interrupted)?;
    if config.json {
        print_to_stdout(&report::json::timeline_summary(&results, &written))
    } else {
        tell(
            &report::timeline_table::render(&results),
            &written,
            config.quiet,
        )
    }
}

/// Prints the table and the paths written, unless quiet.
fn tell(table: &str, written: &[std::path::PathBuf], quiet: bool) -> anyhow::Result<()> {
    if quiet {
        return Ok(());
    }
    let mut text = table.to_string();
    text.push('\n');
    for path in written {
        text.push_str(&format!("wrote {}\n", path.display()));
    }
    print_to_stdout(text.as_bytes())
}

/// The exit code for an error returned by [`run`].
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if error.is::<ConfigError>() || error.is::<limits::TooMuchMemory>() {
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

/// Makes SIGINT, SIGTERM and SIGHUP set [`INTERRUPTED`] instead of killing the process, once
/// per process. It replaces any previous disposition, including SIGINT ignored by a
/// non-interactive shell for a background job (`simulate &`): a stop request must always
/// leave the previous outputs intact rather than kill the writer.
fn install_interrupt_handler() -> anyhow::Result<()> {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    let mut result = Ok(());
    INSTALLED.call_once(|| {
        result = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    });
    result.context("installing the Ctrl-C / SIGTERM handler")
}

fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// Writes to stdout; a reader that went away (`simulate | head`) is not an error.
fn print_to_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
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
    /// A bar for `total` units of work named `unit` (e.g. "requests").
    fn new(total: u64, unit: &'static str, quiet: bool) -> Self {
        let target = if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(Some(total), target).with_style(
            ProgressStyle::with_template(&format!(
                "{{elapsed_precise}} [{{wide_bar}}] {{human_pos}}/{{human_len}} {unit} \
                 ({{rate}}, ETA {{eta}})"
            ))
            .expect("the template is valid")
            .with_key(
                "rate",
                move |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let _ = write!(out, "{:.2} M {unit}/s", state.per_sec() / 1e6);
                },
            )
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
