//! What a config can be refused for ([`ConfigError`], each a usage error: exit code 2), and
//! where the refused setting came from ([`Origin`]: a flag, a file's key and line, a
//! default, a `--set`), which every message names.

use std::fmt;
use std::path::PathBuf;

use super::MAX_CONFIG_BYTES;

/// Where a setting came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A command-line flag, e.g. `--p`.
    Flag(&'static str),
    /// A key of a config file.
    File {
        /// The file as given.
        path: PathBuf,
        /// The key, with its tables: `network.ack_loss`.
        key: String,
        /// The line and column of the value, where known.
        at: Option<(usize, usize)>,
    },
    /// A key's declared default.
    Default(&'static str),
    /// A key given by a flag: `--set KEY=VALUE`, or a value of `--sweep`.
    Set {
        /// The key, with its tables: `client.timeout_ms` (a field: `client.backoff.base_ms`).
        key: String,
        /// The flag as typed in full: `--set client.timeout_ms=2s`.
        flag: String,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag(flag) => write!(formatter, "{flag}"),
            Origin::File { path, key, at } => {
                write!(formatter, "key `{key}` in config file {}", path.display())?;
                match at {
                    Some((line, column)) => write!(formatter, " (line {line}, column {column})"),
                    None => Ok(()),
                }
            }
            Origin::Default(key) => write!(formatter, "the default of key `{key}`"),
            Origin::Set { key, flag } => write!(formatter, "key `{key}` in {flag}"),
        }
    }
}

/// A setting that cannot be used. These are usage errors (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A value out of range or of the wrong form. The message repeats the value up to its
    /// first [`crate::parse::ECHO_CHARACTERS`] characters, then `…`.
    #[error(
        "invalid value {} for {origin}: {reason}",
        crate::parse::echo(.value)
    )]
    InvalidValue {
        /// Where it came from.
        origin: Origin,
        /// The value as written (in full; the message cuts it).
        value: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The settings are each valid but together make a run whose counts could overflow.
    #[error("the run is too large: {reason}")]
    TooLarge {
        /// The sizes and the bound they exceed.
        reason: String,
    },
    /// The config file could not be read.
    #[error("cannot read config file {}", path.display())]
    Read {
        /// The file as given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A flag that the chosen model does not have.
    #[error("{flag} does not apply to {what}")]
    NotForModel {
        /// The flag, e.g. `--p`.
        flag: &'static str,
        /// Which model or file it was given with.
        what: String,
    },
    /// The config file is larger than [`MAX_CONFIG_BYTES`].
    #[error(
        "config file {} is larger than {} KiB, the most a config file may be",
        path.display(),
        MAX_CONFIG_BYTES / 1024
    )]
    TooBig {
        /// The file as given.
        path: PathBuf,
    },
    /// A `--set KEY=VALUE` or `--sweep` that is not a key of the model, or not one the flag
    /// may set.
    #[error("{flag}: {message}")]
    Set {
        /// The flag as typed in full: `--set client.timeout_ms=2s`.
        flag: String,
        /// What is wrong with it.
        message: String,
    },
    /// A sweep whose points cannot be run together.
    #[error("{message}")]
    Sweep {
        /// Why, in words.
        message: String,
    },
    /// The config file is not valid TOML or has an unknown key or a value of the wrong type.
    #[error("config file {}: {message}", path.display())]
    Parse {
        /// The file as given.
        path: PathBuf,
        /// What the TOML parser said, after the line and column: `line 3, column 7: ...`.
        message: String,
    },
}
