//! The `simulate` command: parse the flags, run, report the error chain and the exit code.

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = simulate::cli::Cli::parse();
    match simulate::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(simulate::exit_code(&error))
        }
    }
}
