//! Contention files: a TOML file with `model = "contention"`, read with serde
//! (`deny_unknown_fields`), merged with the flags and validated into one
//! [`ContentionModel`], every rejection one line naming the file, the key and the value.
//!
//! Every key has a default: the AWS simulator's experiment (10 to 190 clients in steps of
//! 10, 100 runs, base 5 ms, cap 2,000 ms, |N(10, 2)| ms per message, unbounded retries),
//! with all six policies.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::timeline::schema::{DistributionTable, FieldProblem};
use super::timeline::{check_duration, check_positive_duration};
use super::{ConfigError, OutputSettings};
use crate::cli::Cli;
use crate::model::contention::{ContentionModel, ContentionSetup, Delay, Policy};
use crate::parse;

/// The default client counts: 10 to 190 in steps of 10, as the AWS simulator.
pub const DEFAULT_CLIENTS: &str = "10:190:10";
/// The default runs per client count and policy, as the AWS simulator.
pub const DEFAULT_CONTENTION_RUNS: u32 = 100;
/// The default backoff base (ms).
pub const DEFAULT_BASE_MS: f64 = 5.0;
/// The default backoff cap (ms).
pub const DEFAULT_CAP_MS: f64 = 2_000.0;
/// The default delay of each message: `|N(10, 2)|` ms, as the AWS simulator.
pub const DEFAULT_DELAY: Delay = Delay::FoldedNormal {
    mean_ms: 10.0,
    sd_ms: 2.0,
};
/// The most clients one simulation may have.
pub const MAX_CLIENTS: u32 = 100_000;
/// The most client counts one file may list.
pub const MAX_CLIENT_COUNTS: usize = 1_000;

/// Everything a contention run needs, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentionConfig {
    /// The experiment.
    pub model: ContentionModel,
    /// Worker threads.
    pub threads: usize,
    /// Where the files go and what is printed.
    pub output: OutputSettings,
}

/// Whether a config file's text declares `model = "contention"`.
pub fn is_contention(text: &str) -> bool {
    text.parse::<toml::Table>().ok().is_some_and(|table| {
        table.get("model").and_then(|value| value.as_str()) == Some("contention")
    })
}

/// A contention file as written; every key but `model` is optional.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ContentionFile {
    /// Always `contention` here (see [`is_contention`]).
    #[serde(rename = "model")]
    _model: super::ModelName,
    seed: Option<u64>,
    runs: Option<u32>,
    clients: Option<toml::Value>,
    policies: Option<Vec<String>>,
    /// The backoff's base (ms, 0 to 10^9).
    base_ms: Option<f64>,
    /// The backoff's cap (ms, `base_ms` to 10^9).
    cap_ms: Option<f64>,
    delay: Option<toml::Table>,
    max_retries: Option<u32>,
    out: Option<PathBuf>,
    threads: Option<usize>,
}

/// The folded normal's keys, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NormalTable {
    #[serde(rename = "distribution")]
    _distribution: String,
    mean_ms: f64,
    sd_ms: f64,
}

/// Builds the error for a bad value of the file.
struct Invalid<'a> {
    path: &'a Path,
}

impl Invalid<'_> {
    fn at(&self, key: &str, value: impl std::fmt::Display, reason: &str) -> ConfigError {
        super::invalid(self.path, key, value, reason)
    }
}

impl ContentionConfig {
    /// Parses a contention file's text, merges the flags over it and checks the result.
    pub fn from_toml(
        text: &str,
        path: &Path,
        cli: &Cli,
        default_threads: usize,
    ) -> Result<Self, ConfigError> {
        refuse_other_flags(cli, path)?;
        let file: ContentionFile = super::parse_toml(text, path)?;
        let invalid = Invalid { path };
        let runs = match (cli.runs, file.runs) {
            (Some(runs), _) => runs,
            (None, Some(runs)) => {
                parse::check_runs(runs).map_err(|reason| invalid.at("runs", runs, &reason))?
            }
            (None, None) => DEFAULT_CONTENTION_RUNS,
        };
        let threads = match (cli.threads, file.threads) {
            (Some(threads), _) => threads,
            (None, Some(threads)) => parse::check_threads(threads)
                .map_err(|reason| invalid.at("threads", threads, &reason))?,
            (None, None) => default_threads,
        };
        let max_retries = match (cli.max_retries, file.max_retries) {
            (Some(retries), _) => Some(retries),
            (None, Some(retries)) => Some(
                parse::check_max_retries(retries)
                    .map_err(|reason| invalid.at("max_retries", retries, &reason))?,
            ),
            (None, None) => None,
        };
        let clients = match &file.clients {
            Some(value) => clients(value, &invalid)?,
            None => clients_range(DEFAULT_CLIENTS).expect("the default range is valid"),
        };
        let policies = policies(file.policies.as_deref(), &invalid)?;
        let (base_ms, cap_ms) = backoff_parameters(file.base_ms, file.cap_ms, &invalid)?;
        let delay = match &file.delay {
            Some(table) => delay(table, &invalid)?,
            None => DEFAULT_DELAY,
        };
        let stem = path.file_stem().map_or_else(
            || "contention".to_string(),
            |stem| stem.to_string_lossy().into_owned(),
        );
        Ok(ContentionConfig {
            model: ContentionModel {
                title: path.file_name().map_or_else(
                    || format!("{stem}.toml"),
                    |name| name.to_string_lossy().into_owned(),
                ),
                seed: cli.seed.or(file.seed).unwrap_or(super::DEFAULT_SEED),
                runs,
                clients,
                policies,
                base_ms,
                cap_ms,
                setup: ContentionSetup { delay, max_retries },
            },
            threads,
            output: OutputSettings::new(super::scenario_out_dir(cli, file.out, &stem), cli),
        })
    }
}

/// The flags of the other models.
fn refuse_other_flags(cli: &Cli, path: &Path) -> Result<(), ConfigError> {
    super::refuse_flags(
        &[
            ("--p", cli.ack_loss.is_some()),
            ("--requests", cli.requests.is_some()),
            ("--payments", cli.payments.is_some()),
            ("--engine", cli.engine.is_some()),
        ],
        || format!("contention files such as {}", path.display()),
    )
}

/// `clients`: a whole number, a list of them, or a range `"START:STOP:STEP"` (stop included).
fn clients(value: &toml::Value, invalid: &Invalid) -> Result<Vec<u32>, ConfigError> {
    let bad = |reason: &str| invalid.at("clients", value, reason);
    let counts: Vec<u32> = match value {
        toml::Value::Integer(_) => vec![client_count(value).map_err(|reason| bad(&reason))?],
        toml::Value::Array(items) => items
            .iter()
            .map(client_count)
            .collect::<Result<_, _>>()
            .map_err(|reason| bad(&reason))?,
        toml::Value::String(text) => clients_range(text).map_err(|reason| bad(&reason))?,
        _ => {
            return Err(bad(
                "expected a whole number, a list of them or a range \"START:STOP:STEP\"",
            ));
        }
    };
    if counts.is_empty() || counts.len() > MAX_CLIENT_COUNTS {
        return Err(bad(&format!(
            "list from 1 to {MAX_CLIENT_COUNTS} client counts"
        )));
    }
    let distinct: HashSet<u32> = counts.iter().copied().collect();
    if distinct.len() != counts.len() {
        return Err(bad("list each client count once"));
    }
    Ok(counts)
}

/// One client count: a whole number from 1 to [`MAX_CLIENTS`].
fn client_count(value: &toml::Value) -> Result<u32, String> {
    match value.as_integer() {
        Some(count) if (1..=i64::from(MAX_CLIENTS)).contains(&count) => Ok(count as u32),
        _ => Err(format!(
            "every client count must be a whole number from 1 to {MAX_CLIENTS}, got {value}"
        )),
    }
}

/// `"START:STOP:STEP"`: START, START + STEP, ... up to STOP included.
fn clients_range(text: &str) -> Result<Vec<u32>, String> {
    let parts: Vec<&str> = text.split(':').map(str::trim).collect();
    let [start, stop, step] = parts[..] else {
        return Err("a range is \"START:STOP:STEP\", e.g. \"10:190:10\"".into());
    };
    let number = |part: &str| -> Result<i64, String> {
        part.parse()
            .map_err(|_| format!("'{part}' in the range is not a whole number"))
    };
    let (start, stop, step) = (number(start)?, number(stop)?, number(step)?);
    if step < 1 || start > stop {
        return Err("a range needs START <= STOP and a STEP of at least 1".into());
    }
    let count = (stop - start) / step + 1;
    if count > MAX_CLIENT_COUNTS as i64 {
        return Err(format!(
            "the range has {count} client counts, at most {MAX_CLIENT_COUNTS}"
        ));
    }
    (0..count)
        .map(|index| client_count(&toml::Value::Integer(start + index * step)))
        .collect()
}

/// `policies`: names from [`Policy::ALL`], each at most once, at least one; all six by default.
fn policies(names: Option<&[String]>, invalid: &Invalid) -> Result<Vec<Policy>, ConfigError> {
    let Some(names) = names else {
        return Ok(Policy::ALL.to_vec());
    };
    let known: Vec<&str> = Policy::ALL.iter().map(|policy| policy.name()).collect();
    let mut policies = Vec::with_capacity(names.len());
    for name in names {
        let policy = Policy::from_name(name).ok_or_else(|| {
            invalid.at(
                "policies",
                format!("{name:?}"),
                &format!("unknown policy; the policies are {}", known.join(", ")),
            )
        })?;
        if policies.contains(&policy) {
            return Err(invalid.at("policies", format!("{name:?}"), "listed twice"));
        }
        policies.push(policy);
    }
    if policies.is_empty() {
        return Err(invalid.at("policies", "[]", "list at least one policy"));
    }
    Ok(policies)
}

/// `base_ms` and `cap_ms`: durations from 0 to
/// [`MAX_DURATION_MS`](super::timeline::MAX_DURATION_MS) (10^9 ms, as every duration key of
/// the timeline and load files, so that every wait, and the times and charts built from them,
/// stay finite and exact enough), the cap at least the base.
fn backoff_parameters(
    base_ms: Option<f64>,
    cap_ms: Option<f64>,
    invalid: &Invalid,
) -> Result<(f64, f64), ConfigError> {
    let base_ms = base_ms.unwrap_or(DEFAULT_BASE_MS);
    let cap_ms = cap_ms.unwrap_or(DEFAULT_CAP_MS);
    for (key, value) in [("base_ms", base_ms), ("cap_ms", cap_ms)] {
        check_duration(value).map_err(|reason| invalid.at(key, parse::shown(value), &reason))?;
    }
    if cap_ms < base_ms {
        return Err(invalid.at(
            "cap_ms",
            parse::shown(cap_ms),
            &format!(
                "the cap must be at least base_ms = {}",
                parse::shown(base_ms)
            ),
        ));
    }
    Ok((base_ms, cap_ms))
}

/// `delay`: `{ distribution = "normal", mean_ms, sd_ms }` or any timeline distribution.
fn delay(table: &toml::Table, invalid: &Invalid) -> Result<Delay, ConfigError> {
    let value = toml::Value::Table(table.clone());
    let shape = |error: toml::de::Error| {
        invalid.at(
            "delay",
            value.to_string().replace('\n', " ").trim(),
            error.message().trim(),
        )
    };
    let named = |(field, value, reason): FieldProblem| {
        invalid.at(&format!("delay.{field}"), value, &reason)
    };
    if table.get("distribution").and_then(toml::Value::as_str) == Some("normal") {
        let normal: NormalTable = value.clone().try_into().map_err(shape)?;
        let check = |field: &'static str, value: f64| {
            check_duration(value).map_err(|reason| named((field, value, reason)))
        };
        Ok(Delay::FoldedNormal {
            mean_ms: check("mean_ms", normal.mean_ms)?,
            sd_ms: check("sd_ms", normal.sd_ms)?,
        })
    } else {
        let table: DistributionTable = value.clone().try_into().map_err(shape)?;
        table
            .to_model(check_duration, check_positive_duration)
            .map(Delay::Timeline)
            .map_err(named)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use engine::distribution::Distribution;

    fn load(args: &[&str], text: &str) -> Result<ContentionConfig, ConfigError> {
        let cli =
            Cli::try_parse_from(std::iter::once("simulate").chain(args.iter().copied())).unwrap();
        ContentionConfig::from_toml(text, Path::new("race.toml"), &cli, 2)
    }

    fn error(text: &str) -> String {
        load(&[], &format!("model = \"contention\"\n{text}"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn defaults_are_the_aws_experiment() {
        let config = load(&[], "model = \"contention\"").unwrap();
        let model = &config.model;
        assert_eq!(model.clients, (1..=19).map(|i| i * 10).collect::<Vec<_>>());
        assert_eq!(model.runs, 100);
        assert_eq!((model.base_ms, model.cap_ms), (5.0, 2_000.0));
        assert_eq!(model.setup.delay, DEFAULT_DELAY);
        assert_eq!(model.setup.max_retries, None);
        assert_eq!(model.policies, Policy::ALL.to_vec());
        assert_eq!(config.output.out_dir, PathBuf::from("output/race"));
        assert_eq!(config.threads, 2);
    }

    #[test]
    fn every_key_is_read_and_flags_win() {
        let text = "model = \"contention\"\nseed = 7\nruns = 3\nclients = [2, 5]\n\
                    policies = [\"full_jitter\", \"none\"]\nbase_ms = 1\ncap_ms = 50\n\
                    delay = { distribution = \"uniform\", low_ms = 1, high_ms = 3 }\n\
                    max_retries = 4\nout = \"x\"\nthreads = 1\n";
        let config = load(&["--runs", "9", "--seed", "8"], text).unwrap();
        let model = &config.model;
        assert_eq!((model.seed, model.runs), (8, 9));
        assert_eq!(model.clients, vec![2, 5]);
        assert_eq!(model.policies, vec![Policy::FullJitter, Policy::None]);
        assert_eq!((model.base_ms, model.cap_ms), (1.0, 50.0));
        assert_eq!(
            model.setup.delay,
            Delay::Timeline(Distribution::Uniform {
                low_ms: 1.0,
                high_ms: 3.0
            })
        );
        assert_eq!(model.setup.max_retries, Some(4));
        assert_eq!(
            (config.output.out_dir.as_path(), config.threads),
            (Path::new("x"), 1)
        );
        let config = load(&[], "model = \"contention\"\nclients = 3").unwrap();
        assert_eq!(config.model.clients, vec![3]);
        let config = load(&[], "model = \"contention\"\nclients = \"1:10:4\"").unwrap();
        assert_eq!(config.model.clients, vec![1, 5, 9]);
    }

    #[test]
    fn bad_values_name_file_key_and_value_on_one_line() {
        for (text, key, value) in [
            ("clients = 0", "`clients`", "0"),
            ("clients = [10, 0]", "`clients`", "[10, 0]"),
            ("clients = [10, 10]", "`clients`", "[10, 10]"),
            ("clients = \"10:5:1\"", "`clients`", "10:5:1"),
            ("clients = \"1:1000000:1\"", "`clients`", "1:1000000:1"),
            ("policies = [\"linear\"]", "`policies`", "linear"),
            ("policies = []", "`policies`", "[]"),
            ("base_ms = -5", "`base_ms`", "-5"),
            ("cap_ms = 1", "`cap_ms`", "value 1"),
            ("runs = 0", "`runs`", "0"),
            ("max_retries = 5000", "`max_retries`", "5000"),
            (
                "delay = { distribution = \"normal\", mean_ms = 10, sd_ms = -2 }",
                "`delay.sd_ms`",
                "-2",
            ),
            (
                "delay = { distribution = \"normal\", mean_ms = 10 }",
                "`delay`",
                "sd_ms",
            ),
            (
                "delay = { distribution = \"pareto\", ms = 1 }",
                "`delay`",
                "pareto",
            ),
        ] {
            let message = error(text);
            assert!(message.contains(key), "{text}: {message}");
            assert!(message.contains(value), "{text}: {message}");
            assert!(message.contains("race.toml"), "{text}: {message}");
            assert!(!message.contains('\n'), "{text}: {message}");
        }
    }

    /// The backoff's base and cap are durations, at most 10^9 ms as every duration key of the
    /// timeline and load files: beyond that (1e300 and 1e302 were accepted) the times leave
    /// the range the charts can lay out and the run never ended.
    #[test]
    fn the_backoff_is_at_most_a_billion_ms() {
        for (text, key, value) in [
            ("base_ms = 1e300\ncap_ms = 1e302", "base_ms", "1e300"),
            ("cap_ms = 1e302", "cap_ms", "1e302"),
            ("base_ms = 1\ncap_ms = 1000000001", "cap_ms", "1000000001"),
            ("base_ms = 1e308\ncap_ms = 1e308", "base_ms", "1e308"),
        ] {
            let message = error(text);
            assert!(
                message.starts_with(&format!(
                    "invalid value {value} for key `{key}` in config file race.toml: "
                )),
                "{text}: {message}"
            );
            assert!(message.contains("from 0 to 1000000000"), "{message}");
        }
        let config = load(&[], "model = \"contention\"\nbase_ms = 1e9\ncap_ms = 1e9").unwrap();
        assert_eq!((config.model.base_ms, config.model.cap_ms), (1e9, 1e9));
    }

    #[test]
    fn other_models_flags_are_refused() {
        let message = load(&["--payments", "5"], "model = \"contention\"")
            .unwrap_err()
            .to_string();
        assert!(message.contains("--payments does not apply"), "{message}");
    }

    #[test]
    fn the_model_key_decides() {
        assert!(is_contention("model = \"contention\"\nruns = 2"));
        assert!(!is_contention("model = \"timeline\""));
        assert!(!is_contention("not toml ["));
    }
}
