//! Stop requests: SIGINT, SIGTERM and SIGHUP set a flag that the simulation and the writer
//! check, so that a stopped run leaves the previous outputs intact.

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

/// Set by the Ctrl-C / SIGTERM handler; the simulation and the writer check it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Makes SIGINT, SIGTERM and SIGHUP set [`INTERRUPTED`] instead of killing the process, once
/// per process. It replaces any previous disposition, including SIGINT ignored by a
/// non-interactive shell for a background job (`simulate &`): a stop request must always
/// leave the previous outputs intact rather than kill the writer.
pub fn install_interrupt_handler() -> anyhow::Result<()> {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    let mut result = Ok(());
    INSTALLED.call_once(|| {
        result = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    });
    result.context("installing the Ctrl-C / SIGTERM handler")
}

/// Whether a stop was requested.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
