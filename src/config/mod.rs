//! One validated configuration from the flags and the optional TOML config file: flags win
//! over the file, the file wins over the defaults, and every value is checked once, here,
//! with its origin (flag, or file and key) named in the error.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::cli::Cli;
use article::FileSettings;

pub mod article;
pub mod contention;
pub mod timeline;

pub use article::ArticleConfig;
pub use contention::ContentionConfig;
pub use timeline::TimelineConfig;

/// Which model a config file describes (its `model` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelName {
    /// The article's model (the default when the key is absent).
    Article,
    /// The timeline model (see [`timeline`]).
    Timeline,
    /// The contention model (see [`contention`]).
    Contention,
}

/// What the command line asks for, validated: an article experiment or a timeline scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum Job {
    /// The article's model (no config file, or one without `model = "timeline"`).
    Article(ArticleConfig),
    /// A timeline scenario file.
    Timeline(TimelineConfig),
    /// A contention file (`model = "contention"`).
    Contention(ContentionConfig),
}

impl Job {
    /// Reads the config file the flags name, if any, decides which model it describes and
    /// merges it with the flags.
    pub fn from_cli(cli: &Cli) -> Result<Self, ConfigError> {
        let Some(path) = &cli.config else {
            reject_timeline_flags(cli)?;
            return ArticleConfig::merge(cli, None, default_threads()).map(Job::Article);
        };
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if contention::is_contention(&text) {
            ContentionConfig::from_toml(&text, path, cli, default_threads()).map(Job::Contention)
        } else if timeline::is_timeline(&text) {
            TimelineConfig::from_toml(&text, path, cli, default_threads()).map(Job::Timeline)
        } else {
            reject_timeline_flags(cli)?;
            let file = FileSettings::from_toml(&text, path)?;
            ArticleConfig::merge(cli, Some((file, path)), default_threads()).map(Job::Article)
        }
    }
}

/// `--payments` belongs to timeline scenarios.
fn reject_timeline_flags(cli: &Cli) -> Result<(), ConfigError> {
    match cli.payments {
        Some(_) => Err(ConfigError::NotForModel {
            flag: "--payments",
            what: "the article model: it counts --requests; --payments is for timeline \
                   scenario files (model = \"timeline\")"
                .into(),
        }),
        None => Ok(()),
    }
}

/// The default output folder.
pub const DEFAULT_OUT: &str = "output";
/// The default seed of every model: the article's.
pub const DEFAULT_SEED: u64 = 42;

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
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Flag(flag) => write!(formatter, "{flag}"),
            Origin::File { path, key } => {
                write!(formatter, "key `{key}` in config file {}", path.display())
            }
        }
    }
}

/// A setting that cannot be used. These are usage errors (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A value out of range or of the wrong form.
    #[error("invalid value {value} for {origin}: {reason}")]
    InvalidValue {
        /// Where it came from.
        origin: Origin,
        /// The value as written.
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
    /// The config file is not valid TOML or has an unknown key or a value of the wrong type.
    #[error("config file {}: {message}", path.display())]
    Parse {
        /// The file as given.
        path: PathBuf,
        /// What the TOML parser said, with line and column.
        message: String,
    },
}

/// Deserializes a config file's text; a syntax error, an unknown key or a value of the wrong
/// type becomes a [`ConfigError::Parse`] naming the file, with the parser's line, column and
/// excerpt.
pub(crate) fn parse_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
) -> Result<T, ConfigError> {
    toml::from_str(text).map_err(|error| ConfigError::Parse {
        path: path.to_path_buf(),
        message: error.to_string().trim_end().replace('\n', "\n  "),
    })
}

/// The flag's value (already checked by clap) or the file's (checked here) or the default.
pub(crate) fn pick<T: fmt::Display + Copy>(
    flag: Option<T>,
    file: Option<T>,
    default: T,
    origin: impl FnOnce() -> Origin,
    check: fn(T) -> Result<T, String>,
) -> Result<T, ConfigError> {
    match (flag, file) {
        (Some(value), _) => Ok(value),
        (None, Some(value)) => check(value).map_err(|reason| ConfigError::InvalidValue {
            origin: origin(),
            value: value.to_string(),
            reason,
        }),
        (None, None) => Ok(default),
    }
}

/// All cores of this machine.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}
