//! One validated configuration from the flags and the optional TOML config file: flags win
//! over the file, the file wins over the defaults, and every value is checked once, here,
//! with where it came from (a flag, or the file's line, column and key) named in the error.
//!
//! A file is parsed once ([`document`]); its `model` key picks the model, whose keys are
//! declared once each ([`key::Schema`]: `article`, `timeline`, `contention`) and read by
//! kind ([`read`], [`tables`]). The command line arrives as plain [`Overrides`].

use std::path::{Path, PathBuf};

pub mod article;
pub mod assignment;
pub mod contention;
pub mod document;
pub mod error;
pub mod key;
pub mod lookup;
pub mod measured;
pub mod overrides;
pub mod read;
pub mod set;
pub mod settings;
pub mod shard;
pub mod sweep;
pub mod tables;
pub mod timeline;

pub use article::ArticleConfig;
pub use contention::ContentionConfig;
pub use error::{ConfigError, Origin};
pub use overrides::{EngineName, Overrides};
pub use timeline::{LoadConfig, TimelineConfig};

use document::Document;
use key::{Schema, did_you_mean, quoted_list};

/// Every model's schema, by the name `model = "..."` gives it.
pub const SCHEMAS: [Schema; 3] = [article::SCHEMA, timeline::keys::SCHEMA, contention::SCHEMA];

/// What the command line asks for, validated: one model's experiment.
#[derive(Debug, Clone, PartialEq)]
pub enum Job {
    /// The article's model (no config file, or one with `model = "article"` or no `model`).
    Article(ArticleConfig),
    /// A timeline file whose payments each run on their own.
    Timeline(TimelineConfig),
    /// A contention file (`model = "contention"`).
    Contention(ContentionConfig),
    /// A timeline file with a shared server: the load model.
    Load(LoadConfig),
    /// A file run at every point of a grid of swept keys.
    Sweep(Sweep),
}

/// A file run at every point of a grid of swept keys (see [`sweep`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Sweep {
    /// The swept keys, in order: the columns every CSV of the sweep begins with.
    pub keys: Vec<String>,
    /// Every point: its values, as its columns show them, and its job (never a sweep).
    pub points: Vec<(Vec<String>, Job)>,
}

/// The flags a model takes among those only some models do (`--p`, `--requests`,
/// `--max-retries`, `--payments`, `--engine`).
fn takes(model: &str, flag: &str) -> bool {
    match model {
        "article" => matches!(flag, "--p" | "--requests" | "--max-retries" | "--engine"),
        "timeline" => flag == "--payments",
        "contention" => flag == "--max-retries",
        _ => false,
    }
}

/// Refuses the first flag given that `model` does not take; `what` names the file.
fn refuse_flags(
    model: &str,
    overrides: &Overrides,
    what: impl Fn() -> String,
) -> Result<(), ConfigError> {
    match overrides
        .model_flags()
        .into_iter()
        .find(|&(flag, given)| given && !takes(model, flag))
    {
        Some((flag, _)) => Err(ConfigError::NotForModel { flag, what: what() }),
        None => Ok(()),
    }
}

impl Job {
    /// Reads the config file the flags name, if any (at most [`MAX_CONFIG_BYTES`]), decides
    /// which model it describes and merges it with the flags.
    pub fn from_overrides(overrides: &Overrides) -> Result<Self, ConfigError> {
        match &overrides.config {
            Some(path) => Self::from_text(&read_config(path)?, path, overrides),
            None => {
                let empty = Document::parse("", Path::new(""))?;
                swept(&empty, overrides, Self::without_file)
            }
        }
    }

    /// [`Job::from_overrides`], and the config file's text as it was read (`None` without a
    /// file): the file is read once, so a pipe or a file being rewritten is read as one.
    pub fn with_text(overrides: &Overrides) -> Result<(Self, Option<String>), ConfigError> {
        match &overrides.config {
            Some(path) => {
                let text = read_config(path)?;
                Ok((Self::from_text(&text, path, overrides)?, Some(text)))
            }
            None => Ok((Self::from_overrides(overrides)?, None)),
        }
    }

    /// The article model's defaults merged with the flags, without a file.
    fn without_file(overrides: &Overrides) -> Result<Self, ConfigError> {
        match &overrides.config {
            Some(_) => unreachable!("a job without a file"),
            None => {
                refuse_flags("article", overrides, || {
                    "the article model: it counts --requests; --payments is for timeline files \
                     (model = \"timeline\")"
                        .into()
                })?;
                let config = article::read(None, &SCHEMAS, overrides, default_threads())?;
                check_out(&config.output.out_dir, overrides, None)?;
                Ok(Job::Article(config))
            }
        }
    }

    /// A config file's text (read from `path`) merged with the flags. The model is the file's
    /// `model` key, read first, so it never depends on which schema the rest fits.
    pub fn from_text(text: &str, path: &Path, overrides: &Overrides) -> Result<Self, ConfigError> {
        let document = Document::parse(text, path)?;
        swept(&document, overrides, |overrides| {
            Self::from_document(&document, path, overrides)
        })
    }

    /// A parsed config file (read from `path`) merged with the flags, its sweep left out.
    fn from_document(
        document: &Document<'_>,
        path: &Path,
        overrides: &Overrides,
    ) -> Result<Self, ConfigError> {
        let model = model_name(document)?;
        let others: Vec<Schema> = SCHEMAS.into_iter().filter(|s| s.model != model).collect();
        let threads = default_threads();
        let job = match model {
            "timeline" => {
                let file = timeline::file::read(document, &others, overrides, threads)?;
                let (kind, model) = match &file {
                    timeline::file::TimelineFile::Plain(_) => ("timeline files", "timeline"),
                    timeline::file::TimelineFile::Shared(_) => {
                        ("timeline files with a shared server", "load")
                    }
                };
                refuse_flags(model, overrides, || {
                    format!("{kind} such as {}", path.display())
                })?;
                match file {
                    timeline::file::TimelineFile::Plain(config) => Job::Timeline(config),
                    timeline::file::TimelineFile::Shared(config) => Job::Load(config),
                }
            }
            "contention" => {
                refuse_flags("contention", overrides, || {
                    format!("contention files such as {}", path.display())
                })?;
                Job::Contention(contention::read(document, &others, overrides, threads)?)
            }
            _ => {
                refuse_flags("article", overrides, || {
                    format!(
                        "the article model (the file {} has no `model`, or model = \"article\"): \
                         it counts --requests; --payments is for timeline files",
                        path.display()
                    )
                })?;
                Job::Article(article::read(Some(document), &others, overrides, threads)?)
            }
        };
        // Every model but the article's writes into a folder named after the file.
        let out_written = document.top("out").is_some();
        if model != "article" && overrides.out.is_none() && !out_written {
            check_scenario_stem(path)?;
        }
        let from_file = (overrides.out.is_none() && out_written).then_some(path);
        check_out(&job.output().out_dir, overrides, from_file)?;
        Ok(job)
    }

    /// Where the job's files go and what it prints.
    pub fn output(&self) -> &OutputSettings {
        match self {
            Job::Article(config) => &config.output,
            Job::Timeline(config) => &config.output,
            Job::Contention(config) => &config.output,
            Job::Load(config) => &config.output,
            Job::Sweep(sweep) => sweep.points[0].1.output(),
        }
    }
}

/// The job of `document` with `overrides`, built by `job`: one job when nothing is swept,
/// else one per point of the grid, each with the point's values set over the flags' (the
/// article model's ack-loss probabilities `p` it sweeps itself: an axis of `p` is its list).
fn swept(
    document: &Document<'_>,
    overrides: &Overrides,
    job: impl Fn(&Overrides) -> Result<Job, ConfigError>,
) -> Result<Job, ConfigError> {
    let axes = sweep::axes(document, overrides)?;
    if axes.is_empty() {
        return job(overrides);
    }
    let model = model_name(document)?;
    let schema = SCHEMAS
        .iter()
        .find(|schema| schema.model == model)
        .expect("a known model");
    let mut overrides = overrides.clone();
    let axes: Vec<sweep::Axis> = axes
        .into_iter()
        .filter_map(|axis| {
            if model != "article" || axis.key != "p" {
                return Some(axis);
            }
            let values: Vec<&str> = axis.values.iter().map(|value| value.value()).collect();
            let source = axis.values[0].source.clone();
            let list = format!("[{}]", values.join(", "));
            overrides
                .set
                .push(assignment::Assignment::new("p", &list, source));
            None
        })
        .collect();
    if axes.is_empty() {
        return job(&overrides);
    }
    let keys = axes.iter().map(|axis| axis.key.clone()).collect();
    let mut points = Vec::new();
    for point in sweep::grid(&axes, schema)? {
        let mut at = overrides.clone();
        at.set.extend(point.assignments);
        points.push((point.labels, job(&at)?));
    }
    let kind = |job: &Job| std::mem::discriminant(job);
    if let Some((labels, _)) = points
        .iter()
        .find(|(_, job)| kind(job) != kind(&points[0].1))
    {
        return Err(ConfigError::Sweep {
            message: format!(
                "the sweep's point {} runs another model than its first point: a swept key \
                 must not turn the shared server on or off",
                labels.join(", ")
            ),
        });
    }
    Ok(Job::Sweep(Sweep { keys, points }))
}

/// The file's `model`: `article` when absent; an unknown one is refused with the near miss.
pub(crate) fn model_name(document: &Document<'_>) -> Result<&'static str, ConfigError> {
    let Some(value) = document.top("model") else {
        return Ok("article");
    };
    let names: Vec<&'static str> = SCHEMAS.iter().map(|schema| schema.model).collect();
    if let Some(name) = value.get_ref().as_str() {
        if let Some(model) = names.iter().find(|model| **model == name) {
            return Ok(model);
        }
        let hint = did_you_mean(name, names.iter().copied())
            .map_or_else(String::new, |near| format!(" (did you mean \"{near}\"?)"));
        return Err(document.problem(
            &value.span(),
            format!(
                "unknown model \"{name}\": expected {}{hint}",
                quoted_list(&names)
            ),
        ));
    }
    Err(document.problem(
        &value.span(),
        format!("`model` must be a name: {}", quoted_list(&names)),
    ))
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

/// The largest config file read: 1 MiB (the shipped ones are under 2 KiB). A larger file, or
/// an endless one such as `/dev/zero`, is refused after reading this much.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Reads a config file as UTF-8 text, at most [`MAX_CONFIG_BYTES`].
fn read_config(path: &Path) -> Result<String, ConfigError> {
    crate::input::read_text(path, MAX_CONFIG_BYTES).map_err(|error| match error {
        crate::input::ReadError::TooLarge { .. } => ConfigError::TooBig {
            path: path.to_path_buf(),
        },
        crate::input::ReadError::Io(source) => ConfigError::Read {
            path: path.to_path_buf(),
            source,
        },
        not_text @ crate::input::ReadError::NotUtf8 { .. } => ConfigError::Read {
            path: path.to_path_buf(),
            source: std::io::Error::new(std::io::ErrorKind::InvalidData, not_text.to_string()),
        },
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
/// `file` is the config file, if its `out` set the folder.
fn check_out(
    out_dir: &Path,
    overrides: &Overrides,
    file: Option<&Path>,
) -> Result<(), ConfigError> {
    let origin = || match (&overrides.out, file) {
        (None, Some(path)) => Origin::File {
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
    if out_dir.is_file() {
        return Err(invalid(
            "the output folder is a file: give a folder (created if missing), or remove the \
             file",
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

/// The default output folder.
pub const DEFAULT_OUT: &str = "output";
/// The default seed of every model: the article's.
pub const DEFAULT_SEED: u64 = 42;

/// All cores of this machine.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::timeline::{ArrivalProcess, CopyMode, Strategy};
    use engine::backoff::Backoff;
    use engine::distribution::Distribution;

    fn job(text: &str) -> Result<Job, String> {
        Job::from_text(text, Path::new("scenario.toml"), &Overrides::default())
            .map_err(|error| error.to_string())
    }

    /// Asserts that `text` is refused with an error holding every one of `needles`.
    fn refused(text: &str, needles: &[&str]) {
        let error = job(text).unwrap_err();
        for needle in needles {
            assert!(error.contains(needle), "{needle}: {error}");
        }
    }

    fn timeline(text: &str) -> TimelineConfig {
        match job(&format!("model = \"timeline\"\n{text}")) {
            Ok(Job::Timeline(config)) => config,
            other => panic!("not a plain timeline file: {other:?}"),
        }
    }

    fn load(text: &str) -> LoadConfig {
        match job(&format!("model = \"timeline\"\n{text}")) {
            Ok(Job::Load(config)) => config,
            other => panic!("not a shared-server file: {other:?}"),
        }
    }

    #[test]
    fn a_timeline_file_without_keys_is_the_documented_defaults() {
        let config = timeline("");
        assert_eq!(config.model.payments, 10_000);
        assert_eq!(config.model.runs, 1);
        assert_eq!(config.model.seed, 42);
        assert_eq!(config.model.strategies, Strategy::ALL.to_vec());
        assert_eq!(config.output.out_dir, PathBuf::from("output/scenario"));
        let scenario = &config.model.scenarios[0];
        assert_eq!(scenario.name, "scenario");
        assert_eq!(
            scenario.arrivals.process,
            ArrivalProcess::Poisson { rate_per_s: 100.0 }
        );
        assert_eq!(
            scenario.network.request_latency,
            Distribution::Fixed { ms: 20.0 }
        );
        assert_eq!(scenario.processing, Distribution::Fixed { ms: 50.0 });
        assert_eq!(scenario.client.timeout_ms, 1_000.0);
        assert_eq!(scenario.client.max_retries, 3);
        assert_eq!(
            scenario.client.backoff,
            Backoff::FullJitter {
                base_ms: 100.0,
                cap_ms: 5_000.0
            }
        );
        assert_eq!(scenario.key.key_ttl_ms, None);
        assert!(scenario.key.fingerprint);
        assert_eq!(scenario.backend.key.key_lock_ttl_ms, 30_000.0);
        assert_eq!(scenario.backend.provider, None);
    }

    #[test]
    fn scenarios_override_the_top_level_key_by_key_and_tables_turn_features_on() {
        let config = timeline(
            "[arrivals]\ncopies = 10\ncopy_spread_ms = 5\n[network]\nack_loss = 0.1\n\
             [[scenario]]\nname = \"a\"\n\
             [[scenario]]\nname = \"b\"\narrivals = { copy_mode = \"sequential\" }\n\
             provider = {}\n",
        );
        let [a, b] = &config.model.scenarios[..] else {
            panic!("two scenarios")
        };
        assert_eq!((a.name.as_str(), b.name.as_str()), ("a", "b"));
        assert_eq!(
            (a.arrivals.copies, a.arrivals.copy_mode),
            (10, CopyMode::Concurrent)
        );
        assert_eq!(
            (b.arrivals.copies, b.arrivals.copy_mode),
            (10, CopyMode::Sequential)
        );
        assert_eq!(b.arrivals.copy_spread_ms, 5.0);
        assert_eq!(b.network.ack_loss, 0.1);
        // An empty [provider] table is a provider with the documented defaults.
        assert_eq!(a.backend.provider, None);
        let provider = b.backend.provider.expect("b has a provider");
        assert_eq!((provider.timeout_ms, provider.max_retries), (2_000.0, 2));
    }

    #[test]
    fn durations_with_units_are_the_same_numbers() {
        let numbers = timeline(
            "[client]\ntimeout_ms = 2000\nbackoff = { policy = \"constant\", base_ms = 150 }\n\
             [server]\nkey_ttl_ms = 86400000\n",
        );
        let units = timeline(
            "[client]\ntimeout_ms = \"2s\"\nbackoff = { policy = \"constant\", base_ms = \"150ms\" }\n\
             [server]\nkey_ttl_ms = \"24h\"\n",
        );
        assert_eq!(numbers.model, units.model.clone());
        assert_eq!(units.model.scenarios[0].key.key_ttl_ms, Some(86_400_000.0));
    }

    #[test]
    fn flags_win_over_the_file() {
        let overrides = Overrides {
            seed: Some(7),
            payments: Some(5),
            runs: Some(3),
            threads: Some(1),
            out: Some(PathBuf::from("elsewhere")),
            ..Overrides::default()
        };
        let text =
            "model = \"timeline\"\nseed = 1\npayments = 100\nruns = 9\nthreads = 2\nout = \"o\"\n";
        let Ok(Job::Timeline(config)) = Job::from_text(text, Path::new("a.toml"), &overrides)
        else {
            panic!("a timeline file")
        };
        assert_eq!(
            (
                config.model.seed,
                config.model.payments,
                config.model.runs,
                config.threads
            ),
            (7, 5, 3, 1)
        );
        assert_eq!(config.output.out_dir, PathBuf::from("elsewhere"));
    }

    #[test]
    fn a_shared_server_key_or_table_puts_the_file_on_the_load_model() {
        let config = load("[server]\nworkers = 4\n");
        assert_eq!(config.model.scenarios[0].server.workers, Some(4));
        assert_eq!(config.model.scenarios[0].arrivals.duration_ms, 60_000.0);
        assert_eq!(config.model.bucket_ms, 1_000.0);
        let config = load("[client.breaker]\n");
        assert!(config.model.scenarios[0].client.breaker.is_some());
        let config = load("[[scenario]]\nname = \"x\"\narrivals = { duration_s = \"2min\" }\n");
        assert_eq!(config.model.scenarios[0].arrivals.duration_ms, 120_000.0);
        // Seeds beyond 2^63 are seeds of every model.
        let config = load("seed = 18446744073709551615\n[server]\nworkers = 1\n");
        assert_eq!(config.model.seed, u64::MAX);
    }

    #[test]
    fn what_the_shared_clock_does_not_model_is_refused_naming_the_key() {
        refused(
            "model = \"timeline\"\n[server]\nworkers = 2\n[client.offline]\nshare = 0.1\n",
            &["`client.offline.share`", "line 5", "clients stay online"],
        );
        refused(
            "model = \"timeline\"\nstrategies = [\"lock_wait\"]\n",
            &["lock_wait needs a shared server"],
        );
    }

    #[test]
    fn unknown_keys_and_models_get_a_near_miss_or_their_model() {
        refused(
            "model = \"timeline\"\n[client]\ntimeuot_ms = 5\n",
            &["line 3, column 1", "did you mean `client.timeout_ms`?"],
        );
        // A timeline key in a file without `model` names the model it belongs to.
        refused(
            "payments = 100\n",
            &["it is a key of the timeline model (write model = \"timeline\""],
        );
        refused("model = \"timelien\"\n", &["did you mean \"timeline\"?"]);
        refused(
            "model = \"timeline\"\n[scenario]\nname = \"a\"\n",
            &["[[scenario]]"],
        );
        refused(
            "model = \"timeline\"\n[[scenario]]\nclient = { max_retries = 1 }\n",
            &["scenario[0] needs a name"],
        );
        refused(
            "model = \"timeline\"\n[[scenario]]\nname = \"a\"\n[[scenario]]\nname = \"a\"\n",
            &["`scenario[1].name`", "of its own"],
        );
    }

    #[test]
    fn type_and_range_errors_name_file_line_key_value_and_form() {
        let error = job("model = \"timeline\"\n[client]\nmax_retries = 3.5\n").unwrap_err();
        assert_eq!(
            error,
            "invalid value 3.5 for key `client.max_retries` in config file scenario.toml \
             (line 3, column 15): expected a whole number of retries from 0 to 1000"
        );
        let error = job("model = \"timeline\"\nstrategies = [\"unique\"]\n").unwrap_err();
        assert!(error.contains("`strategies[0]`"), "{error}");
        assert!(error.contains("did you mean \"unique_key\"?"), "{error}");
        refused(
            "model = \"timeline\"\n[server]\nworkers = 99999999999999999999\n",
            &["`server.workers`", "too large"],
        );
    }

    #[test]
    fn article_and_contention_files_read_their_keys() {
        let Ok(Job::Article(config)) = job("p = \"0:0.02:0.01\"\nrequests = 50\n") else {
            panic!("an article file")
        };
        assert_eq!(config.model.ack_loss, vec![0.0, 0.01, 0.02]);
        assert_eq!(config.model.requests, 50);
        let Ok(Job::Contention(config)) = job("model = \"contention\"\n") else {
            panic!("a contention file")
        };
        // The AWS simulator's experiment: 10 to 190 clients in steps of 10, 100 runs.
        assert_eq!(
            config.model.clients,
            (1..=19).map(|i| i * 10).collect::<Vec<u32>>()
        );
        assert_eq!(
            (config.model.runs, config.model.base_ms, config.model.cap_ms),
            (100, 5.0, 2000.0)
        );
        refused(
            "model = \"contention\"\ncap_ms = 2\nbase_ms = 5\n",
            &["`cap_ms`", "at least base_ms = 5"],
        );
    }

    /// The backoff's base and cap are durations, at most 10^9 ms as every duration key of the
    /// timeline files: beyond that (1e300 and 1e302 were accepted) the times leave the range
    /// the charts can lay out and the run never ended.
    #[test]
    fn the_contention_backoff_is_at_most_a_billion_ms() {
        for (text, key, value) in [
            ("base_ms = 1e300\ncap_ms = 1e302", "base_ms", "1e300"),
            ("cap_ms = 1e302", "cap_ms", "1e302"),
            ("base_ms = 1\ncap_ms = 1000000001", "cap_ms", "1000000001"),
            ("base_ms = 1e308\ncap_ms = 1e308", "base_ms", "1e308"),
        ] {
            let message = job(&format!("model = \"contention\"\n{text}")).unwrap_err();
            assert!(
                message.starts_with(&format!(
                    "invalid value {value} for key `{key}` in config file scenario.toml (line "
                )),
                "{text}: {message}"
            );
            assert!(message.contains("from 0 to 1000000000 ms"), "{message}");
        }
        let Ok(Job::Contention(config)) =
            job("model = \"contention\"\nbase_ms = 1e9\ncap_ms = \"1000000s\"")
        else {
            panic!("a contention file")
        };
        assert_eq!((config.model.base_ms, config.model.cap_ms), (1e9, 1e9));
    }

    #[test]
    fn flags_a_model_does_not_take_are_refused() {
        let overrides = Overrides {
            ack_loss: Some(vec![0.1]),
            ..Overrides::default()
        };
        let error = Job::from_text("model = \"timeline\"\n", Path::new("a.toml"), &overrides)
            .unwrap_err()
            .to_string();
        assert_eq!(error, "--p does not apply to timeline files such as a.toml");
        let overrides = Overrides {
            payments: Some(3),
            ..Overrides::default()
        };
        assert!(Job::from_overrides(&overrides).is_err());
        let error = Job::from_text(
            "model = \"timeline\"\n[server]\nworkers = 1\n",
            Path::new("a.toml"),
            &overrides,
        )
        .unwrap_err()
        .to_string();
        assert!(error.starts_with("--payments does not apply"), "{error}");
    }

    #[test]
    fn output_folders_must_be_usable() {
        let error = job("model = \"timeline\"\nout = \"\"\n").unwrap_err();
        assert!(
            error.contains("key `out` in config file scenario.toml"),
            "{error}"
        );
        assert!(error.contains("must not be empty"), "{error}");
        for name in ["...toml", "..toml", "dir/...toml"] {
            let error = Job::from_text(
                "model = \"timeline\"\n",
                Path::new(name),
                &Overrides::default(),
            )
            .unwrap_err()
            .to_string();
            assert!(
                error.contains("--config") && error.contains(name),
                "{error}"
            );
        }
    }
}
