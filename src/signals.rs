//! Stop requests: SIGINT, SIGTERM and SIGHUP set a flag that the driver, the simulation and
//! the writer check, so that a stopped run leaves the previous outputs intact.

use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::Context;

/// Set by the signal handler itself (not by a thread it wakes), so the flag is up before the
/// interrupted code runs again; the driver, the simulation and the writer check it.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// The signals that ask a run to stop.
#[cfg(unix)]
const STOP_SIGNALS: [std::ffi::c_int; 3] = [
    signal_hook::consts::SIGINT,
    signal_hook::consts::SIGTERM,
    signal_hook::consts::SIGHUP,
];
/// The signals that ask a run to stop.
#[cfg(not(unix))]
const STOP_SIGNALS: [std::ffi::c_int; 2] =
    [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM];

/// Makes SIGINT, SIGTERM and SIGHUP set [`INTERRUPTED`] instead of killing the process, once
/// per process; `main` calls it before anything else. It replaces any previous disposition,
/// including SIGINT ignored by a non-interactive shell for a background job (`simulate &`):
/// a stop request must always leave the previous outputs intact rather than kill the writer.
pub fn install_interrupt_handler() -> anyhow::Result<()> {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    let mut result = Ok(());
    INSTALLED.call_once(|| {
        for signal in STOP_SIGNALS {
            if let Err(error) = signal_hook::flag::register(signal, &INTERRUPTED) {
                result = Err(error);
                return;
            }
        }
    });
    result.context("installing the handler of SIGINT, SIGTERM and SIGHUP")
}

/// Whether a stop was requested.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
