//! The `simulate` command: catch stop requests, parse the flags, run the simulation or a
//! helper command, report the error chain and the exit code.

mod cli;

use std::process::ExitCode;

use cli::Command;

fn main() -> ExitCode {
    // First of all, before any work: from here on SIGINT, SIGTERM and SIGHUP end the run with
    // exit code 130 and the previous outputs intact, whatever stage it is in.
    if let Err(error) = simulate::signals::install_interrupt_handler() {
        eprintln!("error: {error:#}");
        return ExitCode::from(simulate::EXIT_FAILURE);
    }
    let cli = match cli::parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(error) => return ExitCode::from(cli::report_clap_error(&error)),
    };
    let outcome = match cli.command {
        Some(Command::Completions { shell }) => {
            simulate::driver::print_to_stdout(&cli::completions(shell))
        }
        Some(Command::Man) => simulate::driver::print_to_stdout(&cli::man_page()),
        Some(Command::Keys { model }) => {
            simulate::driver::print_to_stdout(cli::keys(model).as_bytes())
        }
        Some(Command::Check { file, run }) => {
            let mut overrides = run.overrides();
            overrides.config = Some(file);
            simulate::driver::check(overrides)
                .and_then(|report| simulate::driver::print_to_stdout(&report))
        }
        Some(Command::Compare {
            folders,
            out,
            title,
            quiet,
        }) => simulate::compare::run(simulate::compare::Request {
            folders,
            out,
            title,
            quiet,
        }),
        Some(Command::Merge {
            folders,
            out,
            quiet,
            json,
        }) => {
            // A shard's flags are read back as the command line reads them.
            let parse = |arguments: &[String]| {
                let words =
                    std::iter::once("simulate".to_string()).chain(arguments.iter().cloned());
                cli::parse_args(words)
                    .map(|cli| cli.overrides())
                    .map_err(|error| anyhow::anyhow!("a shard's command line: {error}"))
            };
            simulate::driver::merge(&folders, out, quiet, json, &parse)
        }
        None => simulate::run(cli.overrides()),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(simulate::exit_code(&error))
        }
    }
}
