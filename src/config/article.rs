//! The article model's settings: its file schema, its defaults, and flags merged over the file
//! into one checked [`ArticleArticleConfig`].

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{ConfigError, ModelName, Origin, OutputSettings, parse_toml, pick};
use crate::cli::{Cli, EngineChoice};
use crate::model::article::{ArticleModel, Engine};
use crate::parse::{self, AckLossList};

/// The article's ACK-loss probabilities.
pub const DEFAULT_ACK_LOSS: [f64; 3] = [0.01, 0.05, 0.10];
/// The article's number of payment requests.
pub const DEFAULT_REQUESTS: u64 = 10_000;
/// The article's retry limit.
pub const DEFAULT_ARTICLE_MAX_RETRIES: u32 = 20;

/// Everything a run needs, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ArticleConfig {
    /// The experiment.
    pub model: ArticleModel,
    /// How it is computed.
    pub engine: Engine,
    /// Where the files go and what is printed.
    pub output: OutputSettings,
}

/// The settings a config file may hold; every key is optional, unknown keys are rejected.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileSettings {
    /// `article` (the default); a `timeline` file is read by [`timeline`] instead.
    pub model: Option<ModelName>,
    /// ACK-loss probabilities: an array of numbers, or a string in the `--p` syntax.
    pub p: Option<toml::Value>,
    /// Seed of numpy's `default_rng`.
    pub seed: Option<u64>,
    /// Payment requests per run.
    pub requests: Option<u64>,
    /// Retries a client makes at most.
    pub max_retries: Option<u32>,
    /// Independent replications.
    pub runs: Option<u32>,
    /// Output folder, relative to the current directory.
    pub out: Option<PathBuf>,
    /// Worker threads of the fast engine.
    pub threads: Option<usize>,
    /// `fast` or `servers`.
    pub engine: Option<EngineChoice>,
}

impl FileSettings {
    /// Parses the text of a config file.
    pub fn from_toml(text: &str, path: &Path) -> Result<Self, ConfigError> {
        parse_toml(text, path)
    }
}

impl ArticleConfig {
    /// Merges flags over file settings over defaults and checks the result.
    pub fn merge(
        cli: &Cli,
        file: Option<(FileSettings, &Path)>,
        default_threads: usize,
    ) -> Result<Self, ConfigError> {
        let (file, path) = match file {
            Some((settings, path)) => (settings, Some(path)),
            None => (FileSettings::default(), None),
        };
        let origin = |key: &'static str| Origin::File {
            path: path.unwrap_or(Path::new("")).to_path_buf(),
            key: key.to_string(),
            at: None,
        };
        let ack_loss = match (&cli.ack_loss, file.p) {
            (Some(AckLossList(values)), _) => values.clone(),
            (None, Some(value)) => file_ack_loss(value, origin("p"))?,
            (None, None) => DEFAULT_ACK_LOSS.to_vec(),
        };
        let seed = cli.seed.or(file.seed).unwrap_or(super::DEFAULT_SEED);
        let requests = pick(
            cli.requests,
            file.requests,
            DEFAULT_REQUESTS,
            || origin("requests"),
            parse::check_requests,
        )?;
        let max_retries = pick(
            cli.max_retries,
            file.max_retries,
            DEFAULT_ARTICLE_MAX_RETRIES,
            || origin("max_retries"),
            parse::check_max_retries,
        )?;
        let runs = pick(cli.runs, file.runs, 1, || origin("runs"), parse::check_runs)?;
        parse::check_total_deliveries(requests, max_retries, runs)
            .map_err(|reason| ConfigError::TooLarge { reason })?;
        let threads = pick(
            cli.threads,
            file.threads,
            default_threads,
            || origin("threads"),
            parse::check_threads,
        )?;
        let engine = match cli.engine.or(file.engine).unwrap_or(EngineChoice::Fast) {
            EngineChoice::Fast => Engine::Fast { threads },
            EngineChoice::Servers => Engine::Servers,
        };
        let out_dir = cli
            .out
            .clone()
            .or(file.out)
            .unwrap_or_else(|| PathBuf::from(super::DEFAULT_OUT));
        Ok(ArticleConfig {
            model: ArticleModel {
                ack_loss,
                requests,
                max_retries,
                seed,
                runs,
            },
            engine,
            output: OutputSettings::new(out_dir, cli),
        })
    }
}

fn file_ack_loss(value: toml::Value, origin: Origin) -> Result<Vec<f64>, ConfigError> {
    let invalid = |value: String, reason: String| ConfigError::InvalidValue {
        origin: origin.clone(),
        value,
        reason,
    };
    let number = |item: toml::Value| match item {
        toml::Value::Float(p) => {
            parse::check_ack_loss(p).map_err(|reason| invalid(parse::shown(p), reason))
        }
        toml::Value::Integer(p) => {
            parse::check_ack_loss(p as f64).map_err(|reason| invalid(p.to_string(), reason))
        }
        other => Err(invalid(
            parse::echo(&other.to_string()),
            "expected a number such as 0.05".into(),
        )),
    };
    match value {
        toml::Value::String(text) => parse::ack_loss_list(&text)
            .map(|AckLossList(values)| values)
            .map_err(|reason| invalid(format!("{:?}", parse::echo(&text)), reason)),
        toml::Value::Array(items) => {
            let whole = |reason| invalid(format!("[{} values]", items.len()), reason);
            parse::check_value_count(items.len()).map_err(whole)?;
            let values = items
                .iter()
                .cloned()
                .map(number)
                .collect::<Result<Vec<f64>, _>>()?;
            parse::check_ack_loss_values(values).map_err(whole)
        }
        toml::Value::Float(_) | toml::Value::Integer(_) => number(value).map(|p| vec![p]),
        other => Err(invalid(
            parse::echo(&other.to_string()),
            "expected an array of probabilities such as [0.01, 0.05] or a string \"0:0.3:0.01\""
                .into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigError;
    use clap::Parser;

    fn cli(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("simulate").chain(args.iter().copied())).unwrap()
    }

    fn merged(args: &[&str], toml: &str) -> Result<ArticleConfig, ConfigError> {
        let path = Path::new("scenario.toml");
        let file = FileSettings::from_toml(toml, path)?;
        ArticleConfig::merge(&cli(args), Some((file, path)), 2)
    }

    #[test]
    fn defaults_are_the_article() {
        let config = ArticleConfig::merge(&cli(&[]), None, 2).unwrap();
        assert_eq!(
            config.model,
            ArticleModel {
                ack_loss: vec![0.01, 0.05, 0.1],
                requests: 10_000,
                max_retries: 20,
                seed: 42,
                runs: 1,
            }
        );
        assert_eq!(config.engine, Engine::Fast { threads: 2 });
        assert_eq!(config.output.out_dir, PathBuf::from("output"));
    }

    #[test]
    fn flags_override_the_file() {
        let config = merged(
            &["--seed", "7", "--p", "0.2"],
            "seed = 1\nrequests = 50\np = [0.3]\nengine = \"servers\"\n",
        )
        .unwrap();
        assert_eq!(config.model.seed, 7);
        assert_eq!(config.model.requests, 50);
        assert_eq!(config.model.ack_loss, vec![0.2]);
        assert_eq!(config.engine, Engine::Servers);
    }

    #[test]
    fn the_model_key_may_name_the_article() {
        let config = merged(&[], "model = \"article\"\nseed = 3").unwrap();
        assert_eq!(config.model.seed, 3);
        let message = merged(&[], "model = \"queue\"").unwrap_err().to_string();
        assert!(message.contains("unknown variant `queue`"), "{message}");
    }

    #[test]
    fn p_may_be_a_range_string_in_the_file() {
        let config = merged(&[], "p = \"0:0.02:0.01\"").unwrap();
        assert_eq!(config.model.ack_loss, vec![0.0, 0.01, 0.02]);
    }

    #[test]
    fn file_errors_name_the_file_and_key() {
        let message = merged(&[], "p = [0.1, 1.5]").unwrap_err().to_string();
        assert!(
            message.contains("key `p` in config file scenario.toml"),
            "{message}"
        );
        assert!(message.contains("1.5"), "{message}");
        let message = merged(&[], "requests = 0").unwrap_err().to_string();
        assert!(message.contains("key `requests`"), "{message}");
        let message = merged(&[], "colour = 1").unwrap_err().to_string();
        assert!(message.contains("unknown field `colour`"), "{message}");
        let message = merged(&[], "seed = -1").unwrap_err().to_string();
        assert!(message.contains("scenario.toml"), "{message}");
        let message = merged(&[], "p = []").unwrap_err().to_string();
        assert!(message.contains("empty"), "{message}");
    }

    #[test]
    fn sizes_whose_product_overflows_are_rejected_not_wrapped() {
        let toml = "requests = 1000000000000000\nmax_retries = 1000\n";
        assert!(merged(&["--runs", "18"], toml).is_ok());
        let error = merged(&["--runs", "19"], toml).unwrap_err();
        assert!(matches!(error, ConfigError::TooLarge { .. }), "{error}");
        assert!(error.to_string().contains("64 bits"), "{error}");
    }
}
