//! The driver: from parsed flags to files and stdout. It validates the configuration, runs
//! the model with a progress bar and the stop flag, turns the results into bytes and writes
//! them through [`crate::output`], then prints the table or the JSON summary.

use std::io::Write;

use anyhow::Context;

use crate::cli::{self, Cli, Command};
use crate::config::{ArticleConfig, ConfigError, ContentionConfig, Job, TimelineConfig};
use crate::model::{self, Interrupted};
use crate::progress::Reporter;
use crate::{limits, output, report, signals};

/// Exit code for a usage error: a bad flag, config file or value, or a run too big for this
/// machine.
pub const EXIT_USAGE: u8 = 2;
/// Exit code for any other failure (e.g. the output folder cannot be written).
pub const EXIT_FAILURE: u8 = 1;
/// Exit code after Ctrl-C or SIGTERM (128 + SIGINT), as shells report it.
pub const EXIT_INTERRUPTED: u8 = 130;

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
        Job::Contention(config) => run_contention(&config),
    }
}

/// The article's model: the table, or the JSON summary with `--json`.
fn run_article(config: &ArticleConfig) -> anyhow::Result<()> {
    let warning = limits::check(config, limits::available_memory())?;
    if let Some(warning) = warning.filter(|_| !config.quiet) {
        eprintln!("{warning}");
    }
    signals::install_interrupt_handler()?;
    let progress = Reporter::new(
        model::article::work_units(&config.model, config.engine),
        "requests",
        config.quiet,
    );
    let results = model::article::simulate(&config.model, config.engine, &progress);
    progress.bar.finish_and_clear();
    let results = results?;
    let files = report::article::files(&results);
    // The error names the folder or file that could not be written.
    let written = output::write_all(&config.out_dir, &files, signals::interrupted)?;
    if config.json {
        print_to_stdout(&report::article::json::summary(&results, &written))
    } else {
        tell(
            &report::article::table::render(&results),
            &written,
            config.quiet,
        )
    }
}

/// A timeline scenario file: the companion piece's tables, or the JSON summary.
fn run_timeline(config: &TimelineConfig) -> anyhow::Result<()> {
    if let Some(warning) = limits::check_timeline(config).filter(|_| !config.quiet) {
        eprintln!("{warning}");
    }
    signals::install_interrupt_handler()?;
    let progress = Reporter::new(config.model.work_units(), "payments", config.quiet);
    let results = model::timeline::simulate(&config.model, config.threads, &progress);
    progress.bar.finish_and_clear();
    let results = results?;
    let files = report::timeline::files(&results);
    let written = output::write_all(&config.out_dir, &files, signals::interrupted)?;
    if config.json {
        print_to_stdout(&report::timeline::json::summary(&results, &written))
    } else {
        tell(
            &report::timeline::table::render(&results),
            &written,
            config.quiet,
        )
    }
}

/// A contention file: the table of means over runs.
fn run_contention(config: &ContentionConfig) -> anyhow::Result<()> {
    if let Some(warning) = limits::check_contention(config).filter(|_| !config.quiet) {
        eprintln!("{warning}");
    }
    signals::install_interrupt_handler()?;
    let progress = Reporter::new(config.model.simulations(), "runs", config.quiet);
    let results = model::contention::simulate(&config.model, config.threads, &progress);
    progress.bar.finish_and_clear();
    let results = results?;
    let files = report::contention::files(&results);
    let written = output::write_all(&config.out_dir, &files, signals::interrupted)?;
    let summary = model::contention::summary::summarise(&results);
    tell(
        &report::contention::table::render(&results, &summary),
        &written,
        config.quiet,
    )
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
