//! The exit codes of the `simulate` command and which errors give which.

use crate::compare::CompareError;
use crate::config::ConfigError;
use crate::limits;
use crate::output::OutputError;
use engine::Interrupted;

/// Exit code for a usage error: a bad flag, config file or value, or a run too big for this
/// machine.
pub const EXIT_USAGE: u8 = 2;
/// Exit code for any other failure (e.g. the output folder cannot be written).
pub const EXIT_FAILURE: u8 = 1;
/// Exit code after Ctrl-C, SIGTERM or SIGHUP (128 + SIGINT, as shells report Ctrl-C).
pub const EXIT_INTERRUPTED: u8 = 130;

/// The exit code for an error returned by [`crate::run`].
pub fn exit_code(error: &anyhow::Error) -> u8 {
    if error.is::<ConfigError>()
        || error.is::<limits::TooMuchMemory>()
        || error.is::<CompareError>()
        || error.is::<crate::shard::ShardError>()
    {
        EXIT_USAGE
    } else if error.is::<Interrupted>()
        || matches!(
            error.downcast_ref::<OutputError>(),
            Some(OutputError::Interrupted { .. })
        )
    {
        EXIT_INTERRUPTED
    } else {
        EXIT_FAILURE
    }
}
