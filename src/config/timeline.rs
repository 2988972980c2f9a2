//! Timeline scenario files: a TOML file with `model = "timeline"`, read with serde
//! (`deny_unknown_fields` everywhere), merged with the flags and validated into one
//! [`TimelineModel`], every rejection naming the file, the key and the value.
//!
//! The top-level tables `[arrivals]`, `[network]`, `[server]` and `[client]` describe the base
//! scenario; each optional `[[scenario]]` entry has a `name` and the same tables, whose keys
//! override the base for that scenario. Every key has a default (see the README).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::{ConfigError, Origin};
use crate::cli::Cli;
use crate::model::timeline::{
    ArrivalProcess, Arrivals, Backoff, ClientPolicy, CopyMode, CopySpacing, Distribution,
    DuplicateAnswer, ErrorPolicy, KeyLifecycle, Network, Scenario, Strategy, TimelineModel,
};
use crate::parse;

/// The default number of payments per run and scenario.
pub const DEFAULT_PAYMENTS: u64 = 10_000;

/// Everything a timeline run needs, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineConfig {
    /// The experiment.
    pub model: TimelineModel,
    /// Worker threads.
    pub threads: usize,
    /// Where the files go.
    pub out_dir: PathBuf,
    /// No table, no paths, no progress bar.
    pub quiet: bool,
    /// Print the JSON summary instead of the table.
    pub json: bool,
}

/// Whether a config file's text declares `model = "timeline"`.
pub fn is_timeline(text: &str) -> bool {
    text.parse::<toml::Table>()
        .ok()
        .and_then(|table| {
            table
                .get("model")
                .and_then(|value| value.as_str())
                .map(str::to_owned)
        })
        .is_some_and(|model| model == "timeline")
}

/// A timeline scenario file as written; every key but `model` is optional.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TimelineFile {
    /// Always `timeline` here (see [`is_timeline`]).
    #[serde(rename = "model")]
    _model: super::ModelName,
    seed: Option<u64>,
    runs: Option<u32>,
    payments: Option<u64>,
    strategies: Option<Vec<Strategy>>,
    out: Option<PathBuf>,
    threads: Option<usize>,
    ttl_sweep_ms: Option<Vec<f64>>,
    #[serde(default)]
    arrivals: ArrivalsTable,
    #[serde(default)]
    network: NetworkTable,
    #[serde(default)]
    server: ServerTable,
    #[serde(default)]
    client: ClientTable,
    #[serde(default)]
    scenario: Vec<NamedSections>,
}

/// The four tables of a scenario, as written (all keys optional).
#[derive(Debug, Default, Clone)]
struct Sections {
    arrivals: ArrivalsTable,
    network: NetworkTable,
    server: ServerTable,
    client: ClientTable,
}

/// A `[[scenario]]` entry: a name and the tables it overrides (serde's `flatten` cannot be
/// combined with `deny_unknown_fields`, hence the repetition of [`TimelineFile`]'s tables).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NamedSections {
    name: String,
    #[serde(default)]
    arrivals: ArrivalsTable,
    #[serde(default)]
    network: NetworkTable,
    #[serde(default)]
    server: ServerTable,
    #[serde(default)]
    client: ClientTable,
}

impl NamedSections {
    fn sections(&self) -> Sections {
        Sections {
            arrivals: self.arrivals.clone(),
            network: self.network.clone(),
            server: self.server.clone(),
            client: self.client.clone(),
        }
    }
}

#[derive(Debug, Default, Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ProcessName {
    #[default]
    Poisson,
    Burst,
    Sequential,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArrivalsTable {
    process: Option<ProcessName>,
    rate_per_s: Option<f64>,
    copies: Option<u32>,
    copy_mode: Option<CopyMode>,
    copy_spread_ms: Option<f64>,
    copy_spacing: Option<CopySpacing>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct NetworkTable {
    request_latency: Option<Distribution>,
    response_latency: Option<Distribution>,
    request_loss: Option<f64>,
    ack_loss: Option<f64>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerTable {
    processing: Option<Distribution>,
    key_ttl_ms: Option<f64>,
    fingerprint: Option<bool>,
    error_rate: Option<f64>,
    error_policy: Option<ErrorPolicy>,
    duplicate_answer: Option<DuplicateAnswer>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClientTable {
    timeout_ms: Option<f64>,
    max_retries: Option<u32>,
    backoff: Option<Backoff>,
    different_body_rate: Option<f64>,
}

/// Default request and response latency: 20 ms each way.
pub const DEFAULT_LATENCY: Distribution = Distribution::Fixed { ms: 20.0 };
/// Default processing time: 50 ms.
pub const DEFAULT_PROCESSING: Distribution = Distribution::Fixed { ms: 50.0 };
/// Default Poisson rate: 100 payments per second.
pub const DEFAULT_RATE_PER_S: f64 = 100.0;
/// Default client timeout: 1 s.
pub const DEFAULT_TIMEOUT_MS: f64 = 1_000.0;
/// Default retry limit per copy.
pub const DEFAULT_TIMELINE_MAX_RETRIES: u32 = 3;
/// Default backoff: full jitter from 100 ms, capped at 5 s.
pub const DEFAULT_BACKOFF: Backoff = Backoff::FullJitter {
    base_ms: 100.0,
    cap_ms: 5_000.0,
};

impl Sections {
    /// These tables with `over`'s keys taking precedence.
    fn overridden_by(&self, over: &Sections) -> Sections {
        let (a, b) = (&self.arrivals, &over.arrivals);
        let (n, m) = (&self.network, &over.network);
        Sections {
            arrivals: ArrivalsTable {
                process: b.process.or(a.process),
                rate_per_s: b.rate_per_s.or(a.rate_per_s),
                copies: b.copies.or(a.copies),
                copy_mode: b.copy_mode.or(a.copy_mode),
                copy_spread_ms: b.copy_spread_ms.or(a.copy_spread_ms),
                copy_spacing: b.copy_spacing.or(a.copy_spacing),
            },
            network: NetworkTable {
                request_latency: m.request_latency.or(n.request_latency),
                response_latency: m.response_latency.or(n.response_latency),
                request_loss: m.request_loss.or(n.request_loss),
                ack_loss: m.ack_loss.or(n.ack_loss),
            },
            server: ServerTable {
                processing: over.server.processing.or(self.server.processing),
                key_ttl_ms: over.server.key_ttl_ms.or(self.server.key_ttl_ms),
                fingerprint: over.server.fingerprint.or(self.server.fingerprint),
                error_rate: over.server.error_rate.or(self.server.error_rate),
                error_policy: over.server.error_policy.or(self.server.error_policy),
                duplicate_answer: over
                    .server
                    .duplicate_answer
                    .or(self.server.duplicate_answer),
            },
            client: ClientTable {
                timeout_ms: over.client.timeout_ms.or(self.client.timeout_ms),
                max_retries: over.client.max_retries.or(self.client.max_retries),
                backoff: over.client.backoff.or(self.client.backoff),
                different_body_rate: over
                    .client
                    .different_body_rate
                    .or(self.client.different_body_rate),
            },
        }
    }

    /// Checks every key that is present; `prefix` locates the tables (`""` or
    /// `scenario[1].`).
    fn check(&self, prefix: &str, invalid: &Invalid) -> Result<(), ConfigError> {
        let key = |name: &str| format!("{prefix}{name}");
        let arrivals = &self.arrivals;
        if let Some(rate) = arrivals.rate_per_s
            && !(rate > 0.0 && rate.is_finite())
        {
            return Err(invalid.at(
                key("arrivals.rate_per_s"),
                rate,
                "the rate must be a finite number of payments per second, more than 0",
            ));
        }
        if let Some(copies) = arrivals.copies {
            parse::check_copies(copies)
                .map_err(|reason| invalid.at(key("arrivals.copies"), copies, &reason))?;
        }
        if let Some(spread) = arrivals.copy_spread_ms {
            check_duration(spread)
                .map_err(|reason| invalid.at(key("arrivals.copy_spread_ms"), spread, reason))?;
        }
        let network = &self.network;
        for (name, distribution) in [
            ("network.request_latency", network.request_latency),
            ("network.response_latency", network.response_latency),
            ("server.processing", self.server.processing),
        ] {
            if let Some((field, value, reason)) = distribution.and_then(|d| d.problem()) {
                return Err(invalid.at(key(&format!("{name}.{field}")), value, &reason));
            }
        }
        if let Some(ttl) = self.server.key_ttl_ms {
            check_ttl(ttl).map_err(|reason| invalid.at(key("server.key_ttl_ms"), ttl, reason))?;
        }
        for (name, probability) in [
            ("network.request_loss", network.request_loss),
            ("network.ack_loss", network.ack_loss),
            ("server.error_rate", self.server.error_rate),
            (
                "client.different_body_rate",
                self.client.different_body_rate,
            ),
        ] {
            if let Some(value) = probability {
                parse::check_ack_loss(value).map_err(|_| {
                    invalid.at(key(name), value, "a probability must be between 0 and 1")
                })?;
            }
        }
        let client = &self.client;
        if let Some(timeout) = client.timeout_ms
            && !(timeout > 0.0 && timeout.is_finite())
        {
            return Err(invalid.at(
                key("client.timeout_ms"),
                timeout,
                "the timeout must be a finite number of ms, more than 0",
            ));
        }
        if let Some(retries) = client.max_retries {
            parse::check_max_retries(retries)
                .map_err(|reason| invalid.at(key("client.max_retries"), retries, &reason))?;
        }
        if let Some(backoff) = client.backoff {
            for (field, value) in backoff.parameters() {
                check_duration(value).map_err(|reason| {
                    invalid.at(key(&format!("client.backoff.{field}")), value, reason)
                })?;
            }
        }
        Ok(())
    }

    /// The scenario these (checked) tables describe, defaults filled in.
    fn scenario(&self, name: String) -> Scenario {
        let arrivals = &self.arrivals;
        let network = &self.network;
        Scenario {
            name,
            arrivals: Arrivals {
                process: match arrivals.process.unwrap_or_default() {
                    ProcessName::Poisson => ArrivalProcess::Poisson {
                        rate_per_s: arrivals.rate_per_s.unwrap_or(DEFAULT_RATE_PER_S),
                    },
                    ProcessName::Burst => ArrivalProcess::Burst,
                    ProcessName::Sequential => ArrivalProcess::Sequential,
                },
                copies: arrivals.copies.unwrap_or(1),
                copy_mode: arrivals.copy_mode.unwrap_or(CopyMode::Concurrent),
                copy_spread_ms: arrivals.copy_spread_ms.unwrap_or(0.0),
                copy_spacing: arrivals.copy_spacing.unwrap_or(CopySpacing::Even),
            },
            network: Network {
                request_latency: network.request_latency.unwrap_or(DEFAULT_LATENCY),
                response_latency: network.response_latency.unwrap_or(DEFAULT_LATENCY),
                request_loss: network.request_loss.unwrap_or(0.0),
                ack_loss: network.ack_loss.unwrap_or(0.0),
            },
            processing: self.server.processing.unwrap_or(DEFAULT_PROCESSING),
            client: ClientPolicy {
                timeout_ms: self.client.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS),
                max_retries: self
                    .client
                    .max_retries
                    .unwrap_or(DEFAULT_TIMELINE_MAX_RETRIES),
                backoff: self.client.backoff.unwrap_or(DEFAULT_BACKOFF),
                different_body_rate: self.client.different_body_rate.unwrap_or(0.0),
            },
            key: {
                let defaults = KeyLifecycle::default();
                let server = &self.server;
                KeyLifecycle {
                    key_ttl_ms: server.key_ttl_ms,
                    fingerprint: server.fingerprint.unwrap_or(defaults.fingerprint),
                    error_rate: server.error_rate.unwrap_or(defaults.error_rate),
                    error_policy: server.error_policy.unwrap_or(defaults.error_policy),
                    duplicate_answer: server.duplicate_answer.unwrap_or(defaults.duplicate_answer),
                }
            },
        }
    }
}

fn check_ttl(value: f64) -> Result<(), &'static str> {
    if value > 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err("a key TTL must be a finite number of ms, more than 0 (leave it out: never expires)")
    }
}

fn check_duration(value: f64) -> Result<(), &'static str> {
    if value >= 0.0 && value.is_finite() {
        Ok(())
    } else {
        Err("a duration must be a finite number of ms, at least 0")
    }
}

/// Builds the error for a bad value of the file.
struct Invalid<'a> {
    path: &'a Path,
}

impl Invalid<'_> {
    fn at(&self, key: String, value: impl std::fmt::Display, reason: &str) -> ConfigError {
        ConfigError::InvalidValue {
            origin: Origin::File {
                path: self.path.to_path_buf(),
                key,
            },
            value: value.to_string(),
            reason: reason.to_string(),
        }
    }
}

impl TimelineConfig {
    /// Parses a timeline scenario file's text, merges the flags over it and checks the result.
    pub fn from_toml(
        text: &str,
        path: &Path,
        cli: &Cli,
        default_threads: usize,
    ) -> Result<Self, ConfigError> {
        let what = || format!("timeline scenario files such as {}", path.display());
        for (flag, given) in [
            ("--p", cli.ack_loss.is_some()),
            ("--requests", cli.requests.is_some()),
            ("--max-retries", cli.max_retries.is_some()),
            ("--engine", cli.engine.is_some()),
        ] {
            if given {
                return Err(ConfigError::NotForModel { flag, what: what() });
            }
        }
        let file: TimelineFile = super::parse_toml(text, path)?;
        let invalid = Invalid { path };
        let payments = match (cli.payments, file.payments) {
            (Some(payments), _) => payments,
            (None, Some(payments)) => parse::check_payments(payments)
                .map_err(|reason| invalid.at("payments".into(), payments, &reason))?,
            (None, None) => DEFAULT_PAYMENTS,
        };
        let runs = match (cli.runs, file.runs) {
            (Some(runs), _) => runs,
            (None, Some(runs)) => parse::check_runs(runs)
                .map_err(|reason| invalid.at("runs".into(), runs, &reason))?,
            (None, None) => 1,
        };
        let threads = match (cli.threads, file.threads) {
            (Some(threads), _) => threads,
            (None, Some(threads)) => parse::check_threads(threads)
                .map_err(|reason| invalid.at("threads".into(), threads, &reason))?,
            (None, None) => default_threads,
        };
        let strategies = file.strategies.unwrap_or_else(|| Strategy::ALL.to_vec());
        let distinct: HashSet<Strategy> = strategies.iter().copied().collect();
        if strategies.is_empty() || distinct.len() != strategies.len() {
            let names: Vec<&str> = strategies.iter().map(|s| s.name()).collect();
            return Err(invalid.at(
                "strategies".into(),
                format!("{names:?}"),
                "list each of none, check_then_insert, unique_key at most once, at least one",
            ));
        }
        let ttl_sweep_ms = file.ttl_sweep_ms.unwrap_or_default();
        if let Some(&bad) = ttl_sweep_ms.iter().find(|&&ttl| check_ttl(ttl).is_err()) {
            return Err(invalid.at(
                "ttl_sweep_ms".into(),
                bad,
                "every TTL of the sweep must be a finite number of ms, more than 0",
            ));
        }
        let base = Sections {
            arrivals: file.arrivals,
            network: file.network,
            server: file.server,
            client: file.client,
        };
        base.check("", &invalid)?;
        let stem = path.file_stem().map_or_else(
            || "timeline".to_string(),
            |stem| stem.to_string_lossy().into_owned(),
        );
        let scenarios = if file.scenario.is_empty() {
            vec![base.scenario(stem.clone())]
        } else {
            let mut names = HashSet::new();
            let mut scenarios = Vec::with_capacity(file.scenario.len());
            for (index, entry) in file.scenario.iter().enumerate() {
                let prefix = format!("scenario[{index}].");
                if entry.name.trim().is_empty() || !names.insert(entry.name.clone()) {
                    return Err(invalid.at(
                        format!("{prefix}name"),
                        format!("{:?}", entry.name),
                        "every scenario needs a name of its own",
                    ));
                }
                let sections = entry.sections();
                sections.check(&prefix, &invalid)?;
                scenarios.push(base.overridden_by(&sections).scenario(entry.name.clone()));
            }
            scenarios
        };
        Ok(TimelineConfig {
            model: TimelineModel {
                title: path.file_name().map_or_else(
                    || format!("{stem}.toml"),
                    |name| name.to_string_lossy().into_owned(),
                ),
                seed: cli.seed.or(file.seed).unwrap_or(super::DEFAULT_SEED),
                runs,
                payments,
                strategies,
                scenarios,
                ttl_sweep_ms,
            },
            threads,
            out_dir: cli
                .out
                .clone()
                .or(file.out)
                .unwrap_or_else(|| Path::new(super::DEFAULT_OUT).join(&stem)),
            quiet: cli.quiet,
            json: cli.json,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn load(args: &[&str], text: &str) -> Result<TimelineConfig, ConfigError> {
        let cli =
            Cli::try_parse_from(std::iter::once("simulate").chain(args.iter().copied())).unwrap();
        TimelineConfig::from_toml(text, Path::new("scenario.toml"), &cli, 2)
    }

    #[test]
    fn defaults_fill_every_key() {
        let config = load(&[], "model = \"timeline\"").unwrap();
        assert_eq!(config.model.payments, DEFAULT_PAYMENTS);
        assert_eq!(config.model.strategies, Strategy::ALL.to_vec());
        assert_eq!(config.out_dir, PathBuf::from("output/scenario"));
        let scenario = &config.model.scenarios[0];
        assert_eq!(scenario.name, "scenario");
        assert_eq!(scenario.client.backoff, DEFAULT_BACKOFF);
        assert_eq!(
            scenario.arrivals.process,
            ArrivalProcess::Poisson { rate_per_s: 100.0 }
        );
    }

    #[test]
    fn lifecycle_defaults_change_nothing_and_scenarios_override_them() {
        let config = load(&[], "model = \"timeline\"").unwrap();
        let scenario = &config.model.scenarios[0];
        assert_eq!(scenario.key.key_ttl_ms, None);
        assert!(scenario.key.fingerprint);
        assert_eq!(scenario.key.error_rate, 0.0);
        assert_eq!(scenario.key.error_policy, ErrorPolicy::Store);
        assert_eq!(scenario.key.duplicate_answer, DuplicateAnswer::Replay);
        assert_eq!(scenario.client.different_body_rate, 0.0);
        assert!(config.model.ttl_sweep_ms.is_empty());
        let text = "model = \"timeline\"\n\
                    ttl_sweep_ms = [1000, 5000]\n\
                    [server]\nkey_ttl_ms = 86400000\nerror_rate = 0.05\n\
                    [client]\ndifferent_body_rate = 0.1\n\
                    [[scenario]]\nname = \"a\"\n\
                    [[scenario]]\nname = \"b\"\n\
                    server = { fingerprint = false, error_policy = \"retry\", duplicate_answer = \"conflict_409\" }\n";
        let config = load(&[], text).unwrap();
        let [a, b] = &config.model.scenarios[..] else {
            panic!("two scenarios")
        };
        assert_eq!(config.model.ttl_sweep_ms, vec![1_000.0, 5_000.0]);
        for scenario in [a, b] {
            assert_eq!(scenario.key.key_ttl_ms, Some(86_400_000.0));
            assert_eq!(scenario.key.error_rate, 0.05);
            assert_eq!(scenario.client.different_body_rate, 0.1);
        }
        assert!(a.key.fingerprint && !b.key.fingerprint);
        assert_eq!(
            (b.key.error_policy, b.key.duplicate_answer),
            (ErrorPolicy::Retry, DuplicateAnswer::Conflict409)
        );
        assert_eq!(a.key.duplicate_answer, DuplicateAnswer::Replay);
    }

    #[test]
    fn scenarios_override_the_base_key_by_key() {
        let text = "model = \"timeline\"\n\
                    [arrivals]\ncopies = 10\ncopy_spread_ms = 5\n\
                    [network]\nack_loss = 0.1\n\
                    [[scenario]]\nname = \"a\"\n\
                    [[scenario]]\nname = \"b\"\narrivals = { copy_mode = \"sequential\" }\n";
        let config = load(&["--payments", "7"], text).unwrap();
        let [a, b] = &config.model.scenarios[..] else {
            panic!("two scenarios")
        };
        assert_eq!(config.model.payments, 7);
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
    }

    fn error(text: &str) -> String {
        load(&[], &format!("model = \"timeline\"\n{text}"))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn bad_values_name_file_key_and_value() {
        let message = error("[network]\nrequest_latency = { distribution = \"fixed\", ms = -5 }");
        assert!(
            message.contains("key `network.request_latency.ms` in config file scenario.toml"),
            "{message}"
        );
        assert!(message.contains("-5"), "{message}");
        let message = error("[network]\nack_loss = 1.5");
        assert!(
            message.contains("`network.ack_loss`") && message.contains("1.5"),
            "{message}"
        );
        let message = error("[client]\ntimeout_ms = 0");
        assert!(
            message.contains("`client.timeout_ms`") && message.contains("value 0"),
            "{message}"
        );
        let message = error("[[scenario]]\nname = \"x\"\nclient = { timeout_ms = -1 }");
        assert!(
            message.contains("`scenario[0].client.timeout_ms`"),
            "{message}"
        );
        let message = error("strategies = [\"none\", \"none\"]");
        assert!(message.contains("`strategies`"), "{message}");
    }

    #[test]
    fn unknown_names_are_parse_errors_pointing_at_the_value() {
        let message = error("strategies = [\"optimistic\"]");
        assert!(
            message.contains("scenario.toml") && message.contains("optimistic"),
            "{message}"
        );
        assert!(message.contains("strategies"), "{message}");
        let message = error("[server]\nprocessing = { distribution = \"pareto\", ms = 1 }");
        assert!(
            message.contains("pareto") && message.contains("processing"),
            "{message}"
        );
        let message = error("[client]\ntimeuot_ms = 5");
        assert!(message.contains("timeuot_ms"), "{message}");
    }

    #[test]
    fn article_flags_are_refused() {
        let message = load(&["--p", "0.1"], "model = \"timeline\"")
            .unwrap_err()
            .to_string();
        assert!(message.contains("--p does not apply"), "{message}");
    }

    #[test]
    fn the_model_key_decides() {
        assert!(is_timeline(
            "model = \"timeline\"\n[client]\nmax_retries = 2"
        ));
        assert!(!is_timeline("model = \"article\""));
        assert!(!is_timeline("p = [0.1]"));
        assert!(!is_timeline("not toml ["));
    }
}
