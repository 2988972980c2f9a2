//! The `simulate` command: catch stop requests, parse the flags, run, report the error chain
//! and the exit code.

use std::process::ExitCode;

fn main() -> ExitCode {
    // First of all, before any work: from here on SIGINT, SIGTERM and SIGHUP end the run with
    // exit code 130 and the previous outputs intact, whatever stage it is in.
    if let Err(error) = simulate::signals::install_interrupt_handler() {
        eprintln!("error: {error:#}");
        return ExitCode::from(simulate::EXIT_FAILURE);
    }
    let cli = match simulate::cli::parse_args(std::env::args_os()) {
        Ok(cli) => cli,
        Err(error) => return ExitCode::from(simulate::cli::report_clap_error(&error)),
    };
    match simulate::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            ExitCode::from(simulate::exit_code(&error))
        }
    }
}
