//! One validated configuration from the flags and the optional TOML config file: flags win
//! over the file, the file wins over the defaults, and every value is checked once, here,
//! with its origin (flag, or file and key) named in the error.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::cli::Cli;
use article::FileSettings;

pub mod article;
pub mod contention;
pub mod document;
pub mod key;
pub mod load;
pub mod overrides;
pub mod read;
pub mod tables;
pub mod timeline;

pub use article::ArticleConfig;
pub use contention::ContentionConfig;
pub use load::LoadConfig;
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
    /// A timeline file with shared-capacity keys: the load model (see [`load`]).
    Load(LoadConfig),
}

impl Job {
    /// Reads the config file the flags name, if any (at most [`MAX_CONFIG_BYTES`]), decides
    /// which model it describes and merges it with the flags.
    pub fn from_cli(cli: &Cli) -> Result<Self, ConfigError> {
        match &cli.config {
            Some(path) => Self::from_text(&read_config(path)?, path, cli),
            None => {
                reject_timeline_flags(cli)?;
                let config = ArticleConfig::merge(cli, None, default_threads())?;
                check_out(&config.output.out_dir, cli, None)?;
                Ok(Job::Article(config))
            }
        }
    }

    /// A config file's text (read from `path`) merged with the flags. The model is the file's
    /// `model` key, read on its own first, so it never depends on which schema the rest of
    /// the file happens to fit.
    pub fn from_text(text: &str, path: &Path, cli: &Cli) -> Result<Self, ConfigError> {
        let head: FileHead = parse_toml(text, path)?;
        let job = match head.model {
            Some(ModelName::Timeline) if load::is_load(text) => {
                LoadConfig::from_toml(text, path, cli, default_threads()).map(Job::Load)?
            }
            Some(ModelName::Timeline) => {
                load::refuse_lock_wait(text, path)?;
                TimelineConfig::from_toml(text, path, cli, default_threads()).map(Job::Timeline)?
            }
            Some(ModelName::Contention) => {
                ContentionConfig::from_toml(text, path, cli, default_threads())
                    .map(Job::Contention)?
            }
            Some(ModelName::Article) | None => {
                reject_timeline_flags(cli)?;
                let file = FileSettings::from_toml(text, path)?;
                let config = ArticleConfig::merge(cli, Some((file, path)), default_threads())?;
                check_ack_loss_count(&config, path)?;
                Job::Article(config)
            }
        };
        // Every model but the article's writes into a folder named after the file.
        let derived = !matches!(job, Job::Article(_));
        let out_dir = &job.output().out_dir;
        let from_file = head.out.as_deref().map(|out| (path, out));
        if derived && cli.out.is_none() && from_file.is_none() {
            check_scenario_stem(path)?;
        }
        check_out(out_dir, cli, from_file)?;
        Ok(job)
    }
}

impl Job {
    /// Where the job's files go and what it prints.
    pub fn output(&self) -> &OutputSettings {
        match self {
            Job::Article(config) => &config.output,
            Job::Timeline(config) => &config.output,
            Job::Contention(config) => &config.output,
            Job::Load(config) => &config.output,
        }
    }
}

/// What every model's run shares: where its files go and what it prints.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSettings {
    /// The output folder (relative to the current directory unless absolute).
    pub out_dir: PathBuf,
    /// No table, no paths, no progress bar (`--quiet`).
    pub quiet: bool,
    /// The summary as JSON on stdout instead of the table (`--json`).
    pub json: bool,
}

impl OutputSettings {
    /// The folder `out_dir` with the flags' `--quiet` and `--json`.
    pub(crate) fn new(out_dir: PathBuf, cli: &Cli) -> Self {
        OutputSettings {
            out_dir,
            quiet: cli.quiet,
            json: cli.json,
        }
    }
}

/// A `p` array in a file is held to the same limit as a `--p` list (the flag's parser checks
/// its own).
fn check_ack_loss_count(config: &ArticleConfig, path: &Path) -> Result<(), ConfigError> {
    let count = config.model.ack_loss.len();
    if count <= crate::parse::MAX_ACK_LOSS_VALUES {
        return Ok(());
    }
    Err(ConfigError::InvalidValue {
        origin: Origin::File {
            path: path.to_path_buf(),
            key: "p".into(),
            at: None,
        },
        value: format!("[{count} values]"),
        reason: format!(
            "more than {} probabilities: use fewer, or a range with a coarser step",
            crate::parse::MAX_ACK_LOSS_VALUES
        ),
    })
}

/// The largest config file read: 1 MiB (the shipped ones are under 2 KiB). A larger file, or
/// an endless one such as `/dev/zero`, is refused after reading this much.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The keys read before the model is chosen; every other key is left to the model's schema.
#[derive(Debug, Deserialize)]
struct FileHead {
    /// The model (`article` when absent).
    model: Option<ModelName>,
    /// The output folder, if the file sets it.
    out: Option<PathBuf>,
}

/// Reads a config file as UTF-8 text, at most [`MAX_CONFIG_BYTES`].
fn read_config(path: &Path) -> Result<String, ConfigError> {
    let read_error = |source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut bytes = Vec::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    if bytes.len() as u64 > MAX_CONFIG_BYTES {
        return Err(ConfigError::TooBig {
            path: path.to_path_buf(),
        });
    }
    String::from_utf8(bytes).map_err(|error| {
        read_error(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 text (invalid byte at offset {})",
                error.utf8_error().valid_up_to()
            ),
        ))
    })
}

/// A timeline file without `out` writes to `output/<file stem>`; a stem such as `..` (from
/// `...toml`) or `.` would put the files outside `output/`, so it is refused.
fn check_scenario_stem(path: &Path) -> Result<(), ConfigError> {
    let stem = path.file_stem().map(|stem| stem.to_string_lossy());
    match stem.as_deref() {
        Some("") | Some(".") | Some("..") => Err(ConfigError::InvalidValue {
            origin: Origin::Flag("--config"),
            value: path.display().to_string(),
            reason: format!(
                "the default output folder {DEFAULT_OUT}/<file name without .toml> would be \
                 {}; rename the file or give --out or `out`",
                Path::new(DEFAULT_OUT)
                    .join(stem.unwrap_or_default().as_ref())
                    .display()
            ),
        }),
        _ => Ok(()),
    }
}

/// The output folder must be a non-empty UTF-8 path: an empty one would mean the current
/// folder by accident, and the paths printed and listed by `--json` must be the real ones.
/// `file` is the config file and its `out` value, if it set one.
fn check_out(out_dir: &Path, cli: &Cli, file: Option<(&Path, &Path)>) -> Result<(), ConfigError> {
    let origin = || match (&cli.out, file) {
        (None, Some((path, _))) => Origin::File {
            path: path.to_path_buf(),
            key: "out".into(),
            at: None,
        },
        _ => Origin::Flag("--out"),
    };
    let invalid = |reason: &str| ConfigError::InvalidValue {
        origin: origin(),
        value: format!("{:?}", out_dir.as_os_str()),
        reason: reason.into(),
    };
    if out_dir.as_os_str().is_empty() {
        return Err(invalid(
            "the output folder must not be empty (write \".\" for the current folder)",
        ));
    }
    if out_dir.to_str().is_none() {
        return Err(invalid(
            "the output folder's path must be valid UTF-8, so that the paths printed and listed \
             by --json are the real ones",
        ));
    }
    Ok(())
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

/// Refuses the first flag of `flags` (`(flag, given)` pairs) that was given: it has no
/// meaning for `what` (e.g. "timeline scenario files such as a.toml").
pub(crate) fn refuse_flags(
    flags: &[(&'static str, bool)],
    what: impl FnOnce() -> String,
) -> Result<(), ConfigError> {
    match flags.iter().find(|(_, given)| *given) {
        Some(&(flag, _)) => Err(ConfigError::NotForModel { flag, what: what() }),
        None => Ok(()),
    }
}

/// The output folder of a scenario file: `--out`, else the file's `out`, else
/// `output/<stem>` (the file's name without `.toml`).
pub(crate) fn scenario_out_dir(cli: &Cli, file_out: Option<PathBuf>, stem: &str) -> PathBuf {
    cli.out
        .clone()
        .or(file_out)
        .unwrap_or_else(|| Path::new(DEFAULT_OUT).join(stem))
}

/// A bad value of `key` in the config file `path`.
pub(crate) fn invalid(
    path: &Path,
    key: &str,
    value: impl fmt::Display,
    reason: &str,
) -> ConfigError {
    ConfigError::InvalidValue {
        origin: Origin::File {
            path: path.to_path_buf(),
            key: key.to_string(),
            at: None,
        },
        value: value.to_string(),
        reason: reason.to_string(),
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
        /// The line and column of the value, where known.
        at: Option<(usize, usize)>,
    },
    /// A key's declared default.
    Default(&'static str),
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
    /// The config file is not valid TOML or has an unknown key or a value of the wrong type.
    #[error("config file {}: {message}", path.display())]
    Parse {
        /// The file as given.
        path: PathBuf,
        /// What the TOML parser said, after the line and column: `line 3, column 7: ...`.
        message: String,
    },
}

/// Deserializes a config file's text; a syntax error, an unknown key or a value of the wrong
/// type becomes a one-line [`ConfigError::Parse`] naming the file, the line and the column.
pub(crate) fn parse_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
) -> Result<T, ConfigError> {
    toml::from_str(text).map_err(|error| {
        let message = beyond_64_bits(error.message().trim().replace('\n', " "));
        ConfigError::Parse {
            path: path.to_path_buf(),
            message: match error.span() {
                Some(span) => {
                    let (line, column) = line_and_column(text, span.start);
                    let excerpt = excerpt(text, line);
                    format!("line {line}, column {column}: {message} (in `{excerpt}`)")
                }
                None => message,
            },
        }
    })
}

/// The TOML parser's words for an integer that fits in no 64-bit integer ("invalid type:
/// integer `N` as i128, expected any valid TOML value") said plainly.
fn beyond_64_bits(message: String) -> String {
    let number = message
        .strip_prefix("invalid type: integer `")
        .and_then(|rest| rest.split_once("` as i128"))
        .map(|(number, _)| number);
    match number {
        Some(number) => format!(
            "the whole number {} is beyond the 64 bits of a TOML integer",
            crate::parse::echo(number)
        ),
        None => message,
    }
}

/// Line `line` (1-based) of `text`, trimmed and cut to 60 characters, to show in an error.
fn excerpt(text: &str, line: usize) -> String {
    let whole = text.lines().nth(line - 1).unwrap_or("").trim();
    match whole.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &whole[..cut]),
        None => whole.to_string(),
    }
}

/// The 1-based line and column (in characters) of a byte offset.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
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

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn job(args: &[&str], path: &str, text: &str) -> Result<Job, ConfigError> {
        let cli =
            Cli::try_parse_from(std::iter::once("simulate").chain(args.iter().copied())).unwrap();
        Job::from_text(text, Path::new(path), &cli)
    }

    fn timeline(text: &str) -> TimelineConfig {
        match job(&[], "scenario.toml", text).unwrap() {
            Job::Timeline(config) => config,
            Job::Article(config) => panic!("read as the article model: {config:?}"),
            Job::Contention(config) => panic!("read as the contention model: {config:?}"),
            Job::Load(config) => panic!("read as the load model: {config:?}"),
        }
    }

    #[test]
    fn seeds_beyond_signed_64_bits_keep_the_model_of_the_file() {
        // TOML integers are signed 64-bit, so a generic TOML table cannot hold these seeds.
        let config = timeline("model = \"timeline\"\nseed = 18446744073709551615\n");
        assert_eq!(config.model.seed, u64::MAX);
        let config = timeline("model = \"timeline\"\nseed = 9223372036854775808\npayments = 100\n");
        assert_eq!(config.model.seed, 1 << 63);
        assert_eq!(config.model.payments, 100);
        match job(&[], "a.toml", "seed = 18446744073709551615\np = [0.2]\n").unwrap() {
            Job::Article(config) => assert_eq!(config.model.seed, u64::MAX),
            Job::Timeline(_) | Job::Contention(_) | Job::Load(_) => {
                panic!("an article file read as another model")
            }
        }
    }

    #[test]
    fn the_model_key_alone_decides_and_unknown_models_are_named() {
        let error = job(&[], "a.toml", "model = \"queue\"\nseed = 1\n").unwrap_err();
        assert!(
            error.to_string().contains("unknown variant `queue`"),
            "{error}"
        );
        // A timeline key in an article file is an unknown key of the article's schema.
        let error = job(&[], "a.toml", "payments = 100\n").unwrap_err();
        assert!(
            error.to_string().contains("unknown field `payments`"),
            "{error}"
        );
    }

    #[test]
    fn toml_errors_are_one_line_with_line_and_column() {
        let error = job(&[], "bad.toml", "seed = 1\np = [\n")
            .unwrap_err()
            .to_string();
        assert!(!error.contains('\n'), "{error}");
        assert!(
            error.starts_with("config file bad.toml: line 2, column 6: "),
            "{error}"
        );
        let error = job(&[], "bad.toml", "seed = 1\n  colour = \"é\"\n")
            .unwrap_err()
            .to_string();
        assert!(!error.contains('\n'), "{error}");
        assert!(
            error.contains("line 2, column 3: unknown field `colour`"),
            "{error}"
        );
        assert!(error.ends_with("(in `colour = \"é\"`)"), "{error}");
    }

    #[test]
    fn an_empty_out_is_refused_naming_the_file_key() {
        for text in ["out = \"\"\n", "model = \"timeline\"\nout = \"\"\n"] {
            let error = job(&[], "s.toml", text).unwrap_err().to_string();
            assert!(error.contains("key `out` in config file s.toml"), "{error}");
            assert!(error.contains("must not be empty"), "{error}");
        }
        // A flag overrides the file's empty value.
        assert!(job(&["--out", "o"], "s.toml", "out = \"\"\n").is_ok());
    }

    #[test]
    fn scenario_file_names_that_would_leave_output_are_refused() {
        for name in ["...toml", "..toml", "dir/...toml"] {
            let error = job(&[], name, "model = \"timeline\"\n")
                .unwrap_err()
                .to_string();
            assert!(
                error.contains("--config") && error.contains(name),
                "{error}"
            );
            assert!(job(&["--out", "o"], name, "model = \"timeline\"\n").is_ok());
            assert!(job(&[], name, "model = \"timeline\"\nout = \"o\"\n").is_ok());
        }
        let config = timeline("model = \"timeline\"\n");
        assert_eq!(config.output.out_dir, Path::new("output/scenario"));
    }

    #[test]
    fn non_utf8_output_folders_are_refused() {
        use std::os::unix::ffi::OsStrExt;
        let cli = Cli::try_parse_from([
            std::ffi::OsStr::new("simulate"),
            std::ffi::OsStr::new("--out"),
            std::ffi::OsStr::from_bytes(b"out\xff"),
        ])
        .unwrap();
        let error = Job::from_cli(&cli).unwrap_err().to_string();
        assert!(
            error.contains("--out") && error.contains("UTF-8"),
            "{error}"
        );
    }

    #[test]
    fn a_p_array_in_a_file_is_held_to_the_p_list_limit() {
        // Distinct values (a repeated p is refused for its own reason): k / 16384, exact.
        let array = |count: usize| {
            let values: Vec<String> = (0..count)
                .map(|k| (k as f64 / 16384.0).to_string())
                .collect();
            format!("p = [{}]\nrequests = 1\n", values.join(", "))
        };
        let limit = crate::parse::MAX_ACK_LOSS_VALUES;
        assert!(job(&[], "a.toml", &array(limit)).is_ok());
        let error = job(&[], "a.toml", &array(limit + 1))
            .unwrap_err()
            .to_string();
        assert!(error.contains("key `p` in config file a.toml"), "{error}");
        assert!(error.contains("more than 10000 probabilities"), "{error}");
    }

    /// Every refused value is repeated up to its first 40 characters, then `…`, whichever
    /// model and key refused it (here a list of 30 strategies and of 200 client counts).
    #[test]
    fn refused_values_are_cut_after_40_characters() {
        let strategies = vec!["\"none\""; 30].join(", ");
        let load =
            format!("model = \"timeline\"\nstrategies = [{strategies}]\n[server]\nworkers = 2\n");
        let clients: Vec<String> = (0..200).map(|count| count.to_string()).collect();
        let contention = format!(
            "model = \"contention\"\nclients = [{}]\n",
            clients.join(", ")
        );
        for text in [load, contention] {
            let error = job(&[], "long.toml", &text).unwrap_err().to_string();
            let value = error
                .strip_prefix("invalid value ")
                .and_then(|rest| rest.split_once(" for key `"))
                .map(|(value, _)| value)
                .unwrap_or_else(|| panic!("{error}"));
            assert_eq!(value.chars().count(), 41, "{error}");
            assert!(value.ends_with('…'), "{error}");
        }
    }

    /// A load key whose value no TOML table can hold (an integer beyond 64 bits) still makes
    /// the file a load file: the error is about that value, where it stands, not an unknown
    /// key of the plain timeline schema (`unknown field `duration_s``).
    #[test]
    fn a_value_beyond_64_bits_keeps_a_load_file_a_load_file() {
        for text in [
            "model = \"timeline\"\n[server]\nworkers = 99999999999999999999\n",
            "model = \"timeline\"\n[arrivals]\nduration_s = 10\n[server]\nworkers = 99999999999999999999\n",
            "model = \"timeline\"\n[arrivals]\nclients = -99999999999999999999\n",
        ] {
            let error = job(&[], "big.toml", text).unwrap_err().to_string();
            assert!(!error.contains("unknown field"), "{text}: {error}");
            assert!(error.starts_with("config file big.toml: line "), "{error}");
            assert!(error.contains("99999999999999999999`)"), "{error}");
            assert!(
                error
                    .contains("99999999999999999999 is beyond the 64 bits of a TOML integer (in `"),
                "{error}"
            );
        }
    }

    #[test]
    fn line_and_column_count_characters() {
        assert_eq!(line_and_column("ab\ncé d", 7), (2, 4));
        assert_eq!(line_and_column("x", 0), (1, 1));
    }
}
