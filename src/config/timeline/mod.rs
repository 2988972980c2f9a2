//! Timeline scenario files: a TOML file with `model = "timeline"`, read into the file's schema
//! ([`schema`]), merged with the flags and validated into one [`TimelineModel`], every
//! rejection naming the file, the key and the value.
//!
//! The top-level tables `[arrivals]`, `[network]`, `[server]` and `[client]` describe the base
//! scenario; each optional `[[scenario]]` entry has a `name` and the same tables, whose keys
//! override the base for that scenario. Every key has a default (see the README).

pub mod file;
pub mod keys;
mod lookup;
mod plain;
pub(crate) mod schema;
mod shared;

use std::collections::HashSet;
use std::path::Path;

use super::{ConfigError, DEFAULT_SEED, Origin, OutputSettings, invalid, parse_toml, pick};
use crate::cli::Cli;
use crate::model::timeline::{
    ArrivalProcess, Arrivals, Backend, ClientPolicy, CopyMode, CopySpacing, KeyLifecycle, Network,
    Provider, ReceiptMode, Receipts, Scenario, Strategy, TimelineModel,
};
use crate::parse;
use engine::backoff::Backoff;
use engine::distribution::Distribution;
use schema::{DistributionTable, ProcessName, Sections, TimelineFile};

/// The default number of payments per run and scenario.
pub const DEFAULT_PAYMENTS: u64 = 10_000;
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
/// Default provider round trip: 100 ms.
pub const DEFAULT_PROVIDER_LATENCY: Distribution = Distribution::Fixed { ms: 100.0 };
/// Default provider timeout: 2 s.
pub const DEFAULT_PROVIDER_TIMEOUT_MS: f64 = 2_000.0;
/// Default provider retries per processing.
pub const DEFAULT_PROVIDER_MAX_RETRIES: u32 = 2;
/// Default backoff: full jitter from 100 ms, capped at 5 s.
pub const DEFAULT_BACKOFF: Backoff = Backoff::FullJitter {
    base_ms: 100.0,
    cap_ms: 5_000.0,
};

/// Everything a timeline run needs, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineConfig {
    /// The experiment.
    pub model: TimelineModel,
    /// Worker threads.
    pub threads: usize,
    /// Where the files go and what is printed.
    pub output: OutputSettings,
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

/// The longest duration a key that moves the clock may have (ms): 10^9 ms, about 11.6 days.
/// With at most 1,000 copies of 1,001 attempts, each waiting at most a timeout and a backoff,
/// a payment then lasts at most about 2 × 10^15 ms, within what the latency histogram holds
/// ([`crate::model::timeline::latency::LONGEST_US`]), and every event time is an exact-enough
/// `f64`.
pub const MAX_DURATION_MS: f64 = 1e9;
/// The longest key TTL (ms): 10^12 ms, about 31.7 years (a TTL is only compared, never waited).
pub const MAX_TTL_MS: f64 = 1e12;
/// The lowest Poisson rate (payments per second): one payment per 10^9 ms on average, so that
/// every gap between payments fits in 64 bits of microseconds.
pub const MIN_RATE_PER_S: f64 = 1e-6;

/// A number of the file as written in errors: its shortest form, in scientific notation when
/// very large or very small (`1e305` rather than 306 digits).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Number(f64);

impl std::fmt::Display for Number {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let value = self.0;
        if value.is_finite() && value != 0.0 && !(1e-6..1e16).contains(&value.abs()) {
            write!(formatter, "{value:e}")
        } else {
            write!(formatter, "{value}")
        }
    }
}

/// Accepts a probability, as the article's `p` is checked.
fn check_probability(value: Number) -> Result<Number, String> {
    parse::check_ack_loss(value.0).map(Number)
}

/// Accepts a duration: a finite number of ms from 0 to [`MAX_DURATION_MS`].
pub(crate) fn check_duration(value: f64) -> Result<f64, String> {
    if (0.0..=MAX_DURATION_MS).contains(&value) {
        Ok(value)
    } else {
        Err("a duration must be a number of ms from 0 to 1000000000 (about 11.6 days)".into())
    }
}

/// [`check_duration`] for a key of its own.
fn check_duration_key(value: Number) -> Result<Number, String> {
    check_duration(value.0).map(Number)
}

/// Accepts a duration more than 0 (a mean, median or percentile of a distribution).
pub(crate) fn check_positive_duration(value: f64) -> Result<f64, String> {
    if value > 0.0 && value <= MAX_DURATION_MS {
        Ok(value)
    } else {
        Err("must be a number of ms more than 0 and at most 1000000000 (about 11.6 days)".into())
    }
}

/// Accepts a client timeout.
fn check_timeout(Number(value): Number) -> Result<Number, String> {
    if value > 0.0 && value <= MAX_DURATION_MS {
        Ok(Number(value))
    } else {
        Err(
            "the timeout must be a number of ms more than 0 and at most 1000000000 (about 11.6 \
             days)"
                .into(),
        )
    }
}

/// Accepts a key TTL.
fn check_ttl(Number(value): Number) -> Result<Number, String> {
    if value > 0.0 && value <= MAX_TTL_MS {
        Ok(Number(value))
    } else {
        Err(
            "a key TTL must be a number of ms more than 0 and at most 1000000000000 (about \
             31.7 years; leave it out: never expires)"
                .into(),
        )
    }
}

/// Accepts a positive duration of a key of its own (a lock TTL, the completer's interval).
fn check_positive_duration_key(Number(value): Number) -> Result<Number, String> {
    check_positive_duration(value).map(Number)
}

/// Accepts a send failure rate: a probability below 1 (a sender that always fails never
/// delivers).
fn check_send_failure(Number(value): Number) -> Result<Number, String> {
    if (0.0..1.0).contains(&value) {
        Ok(Number(value))
    } else {
        Err("a send failure rate must be a number from 0 to less than 1".into())
    }
}

/// Accepts a Poisson rate.
fn check_rate(Number(value): Number) -> Result<Number, String> {
    if value >= MIN_RATE_PER_S && value.is_finite() {
        Ok(Number(value))
    } else {
        Err(
            "the rate must be a finite number of payments per second, at least 0.000001 (one \
             payment per 11.6 days)"
                .into(),
        )
    }
}

/// One scenario's keys: each from the `[[scenario]]` entry if it has it, else from the base
/// tables, else the default, checked where it was written and named with its tables.
struct Lookup<'a> {
    path: &'a Path,
    base: &'a Sections,
    /// The `[[scenario]]` entry's tables and its key prefix (`scenario[1].`), if any.
    over: Option<(&'a Sections, String)>,
}

impl Lookup<'_> {
    /// Where a key of these tables was written: `network.ack_loss` or
    /// `scenario[1].network.ack_loss`.
    fn origin(&self, key: &str, overridden: bool) -> Origin {
        let prefix = match &self.over {
            Some((_, prefix)) if overridden => prefix.as_str(),
            _ => "",
        };
        Origin::File {
            path: self.path.to_path_buf(),
            key: format!("{prefix}{key}"),
            at: None,
        }
    }

    /// The key's value (`field` reads it from a set of tables), checked with `check`.
    fn value<T: std::fmt::Display + Copy>(
        &self,
        key: &str,
        field: impl Fn(&Sections) -> Option<T>,
        default: T,
        check: fn(T) -> Result<T, String>,
    ) -> Result<T, ConfigError> {
        let over = self.over.as_ref().and_then(|(sections, _)| field(sections));
        let (value, overridden) = match over {
            Some(value) => (Some(value), true),
            None => (field(self.base), false),
        };
        pick(None, value, default, || self.origin(key, overridden), check)
    }

    /// A key that needs no check (a name from a fixed set, a flag).
    fn choice<T: Copy>(&self, field: impl Fn(&Sections) -> Option<T>, default: T) -> T {
        let over = self.over.as_ref().and_then(|(sections, _)| field(sections));
        over.or_else(|| field(self.base)).unwrap_or(default)
    }

    /// A probability, checked like the article's `p`.
    fn probability(
        &self,
        key: &str,
        field: impl Fn(&Sections) -> Option<f64>,
    ) -> Result<f64, ConfigError> {
        let field = |s: &Sections| field(s).map(Number);
        Ok(self.value(key, field, Number(0.0), check_probability)?.0)
    }

    /// A distribution table; a bad parameter is named `key.field`.
    fn distribution(
        &self,
        key: &str,
        field: impl Fn(&Sections) -> Option<DistributionTable>,
        default: Distribution,
    ) -> Result<Distribution, ConfigError> {
        let over = self.over.as_ref().and_then(|(sections, _)| field(sections));
        let (table, overridden) = match over {
            Some(table) => (Some(table), true),
            None => (field(self.base), false),
        };
        let Some(table) = table else {
            return Ok(default);
        };
        table
            .to_model(check_duration, check_positive_duration)
            .map_err(|(name, value, reason)| ConfigError::InvalidValue {
                origin: self.origin(&format!("{key}.{name}"), overridden),
                value: Number(value).to_string(),
                reason,
            })
    }

    /// The backoff table; a bad parameter is named `client.backoff.field`.
    fn backoff(&self) -> Result<Backoff, ConfigError> {
        let over = self.over.as_ref().and_then(|(s, _)| s.client.backoff);
        let (table, overridden) = match over {
            Some(table) => (Some(table), true),
            None => (self.base.client.backoff, false),
        };
        let Some(table) = table else {
            return Ok(DEFAULT_BACKOFF);
        };
        table
            .to_model(check_duration)
            .map_err(|(name, value, reason)| ConfigError::InvalidValue {
                origin: self.origin(&format!("client.backoff.{name}"), overridden),
                value: Number(value).to_string(),
                reason,
            })
    }

    /// `[arrivals]`.
    fn arrivals(&self) -> Result<Arrivals, ConfigError> {
        let rate_per_s = self
            .value(
                "arrivals.rate_per_s",
                |s| s.arrivals.rate_per_s.map(Number),
                Number(DEFAULT_RATE_PER_S),
                check_rate,
            )?
            .0;
        Ok(Arrivals {
            process: match self.choice(|s| s.arrivals.process, ProcessName::Poisson) {
                ProcessName::Poisson => ArrivalProcess::Poisson { rate_per_s },
                ProcessName::Burst => ArrivalProcess::Burst,
                ProcessName::Sequential => ArrivalProcess::Sequential,
            },
            copies: self.value(
                "arrivals.copies",
                |s| s.arrivals.copies,
                1,
                parse::check_copies,
            )?,
            copy_mode: self.choice(
                |s| s.arrivals.copy_mode.map(CopyMode::from),
                CopyMode::Concurrent,
            ),
            copy_spread_ms: self
                .value(
                    "arrivals.copy_spread_ms",
                    |s| s.arrivals.copy_spread_ms.map(Number),
                    Number(0.0),
                    check_duration_key,
                )?
                .0,
            copy_spacing: self.choice(
                |s| s.arrivals.copy_spacing.map(CopySpacing::from),
                CopySpacing::Even,
            ),
        })
    }

    /// `[network]`.
    fn network(&self) -> Result<Network, ConfigError> {
        Ok(Network {
            request_latency: self.distribution(
                "network.request_latency",
                |s| s.network.request_latency,
                DEFAULT_LATENCY,
            )?,
            response_latency: self.distribution(
                "network.response_latency",
                |s| s.network.response_latency,
                DEFAULT_LATENCY,
            )?,
            request_loss: self.probability("network.request_loss", |s| s.network.request_loss)?,
            ack_loss: self.probability("network.ack_loss", |s| s.network.ack_loss)?,
        })
    }

    /// `[client]`.
    fn client(&self) -> Result<ClientPolicy, ConfigError> {
        Ok(ClientPolicy {
            timeout_ms: self
                .value(
                    "client.timeout_ms",
                    |s| s.client.timeout_ms.map(Number),
                    Number(DEFAULT_TIMEOUT_MS),
                    check_timeout,
                )?
                .0,
            max_retries: self.value(
                "client.max_retries",
                |s| s.client.max_retries,
                DEFAULT_TIMELINE_MAX_RETRIES,
                parse::check_max_retries,
            )?,
            backoff: self.backoff()?,
            different_body_rate: self.probability("client.different_body_rate", |s| {
                s.client.different_body_rate
            })?,
        })
    }

    /// `[server]`'s key settings.
    fn key(&self) -> Result<KeyLifecycle, ConfigError> {
        let defaults = KeyLifecycle::default();
        let key_ttl_ms = match self.choice(|s| s.server.key_ttl_ms.map(Some), None) {
            Some(_) => Some(
                self.value(
                    "server.key_ttl_ms",
                    |s| s.server.key_ttl_ms.map(Number),
                    Number(0.0),
                    check_ttl,
                )?
                .0,
            ),
            None => None,
        };
        Ok(KeyLifecycle {
            key_ttl_ms,
            fingerprint: self.choice(|s| s.server.fingerprint, defaults.fingerprint),
            error_rate: self.probability("server.error_rate", |s| s.server.error_rate)?,
            error_policy: self.choice(
                |s| s.server.error_policy.map(Into::into),
                defaults.error_policy,
            ),
            duplicate_answer: self.choice(
                |s| s.server.duplicate_answer.map(Into::into),
                defaults.duplicate_answer,
            ),
        })
    }

    /// `[server]`'s crash and key store settings, `[provider]` and `[receipts]`.
    fn backend(&self) -> Result<Backend, ConfigError> {
        let defaults = Backend::default();
        let completer_interval_ms =
            match self.choice(|s| s.server.completer_interval_ms.map(Some), None) {
                Some(_) => Some(
                    self.value(
                        "server.completer_interval_ms",
                        |s| s.server.completer_interval_ms.map(Number),
                        Number(0.0),
                        check_positive_duration_key,
                    )?
                    .0,
                ),
                None => None,
            };
        Ok(Backend {
            crash_rate: self.probability("server.crash_rate", |s| s.server.crash_rate)?,
            key_store: self.choice(|s| s.server.key_store.map(Into::into), defaults.key_store),
            key_write_failure: self
                .probability("server.key_write_failure", |s| s.server.key_write_failure)?,
            key_lock_ttl_ms: self
                .value(
                    "server.key_lock_ttl_ms",
                    |s| s.server.key_lock_ttl_ms.map(Number),
                    Number(defaults.key_lock_ttl_ms),
                    check_positive_duration_key,
                )?
                .0,
            completer_interval_ms,
            provider: self.provider()?,
            receipts: self.receipts()?,
        })
    }

    /// `[provider]`, if the scenario or the base has one.
    fn provider(&self) -> Result<Option<Provider>, ConfigError> {
        if !self.has(|s| s.provider.is_some()) {
            return Ok(None);
        }
        let table = |s: &Sections| s.provider.clone().unwrap_or_default();
        Ok(Some(Provider {
            latency: self.distribution(
                "provider.latency",
                |s| table(s).latency,
                DEFAULT_PROVIDER_LATENCY,
            )?,
            loss: self.probability("provider.loss", |s| table(s).loss)?,
            timeout_ms: self
                .value(
                    "provider.timeout_ms",
                    |s| table(s).timeout_ms.map(Number),
                    Number(DEFAULT_PROVIDER_TIMEOUT_MS),
                    check_timeout,
                )?
                .0,
            max_retries: self.value(
                "provider.max_retries",
                |s| table(s).max_retries,
                DEFAULT_PROVIDER_MAX_RETRIES,
                parse::check_max_retries,
            )?,
            pass_key: self.choice(|s| table(s).pass_key, false),
        }))
    }

    /// `[receipts]`, if the scenario or the base has one.
    fn receipts(&self) -> Result<Option<Receipts>, ConfigError> {
        if !self.has(|s| s.receipts.is_some()) {
            return Ok(None);
        }
        let table = |s: &Sections| s.receipts.clone().unwrap_or_default();
        Ok(Some(Receipts {
            mode: self.choice(|s| table(s).mode.map(Into::into), ReceiptMode::Direct),
            send_failure: self
                .value(
                    "receipts.send_failure",
                    |s| table(s).send_failure.map(Number),
                    Number(0.0),
                    check_send_failure,
                )?
                .0,
        }))
    }

    /// Whether the scenario's tables or the base's satisfy `present`.
    fn has(&self, present: impl Fn(&Sections) -> bool) -> bool {
        present(self.base)
            || self
                .over
                .as_ref()
                .is_some_and(|(sections, _)| present(sections))
    }

    /// The scenario, defaults filled in; keys checked in the order of the file's tables.
    fn scenario(&self, name: String) -> Result<Scenario, ConfigError> {
        let arrivals = self.arrivals()?;
        let network = self.network()?;
        let processing = self.distribution(
            "server.processing",
            |s| s.server.processing,
            DEFAULT_PROCESSING,
        )?;
        let key = self.key()?;
        let backend = self.backend()?;
        let client = self.client()?;
        Ok(Scenario {
            name,
            arrivals,
            network,
            processing,
            client,
            key,
            backend,
        })
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
        reject_article_flags(cli, path)?;
        let mut file: TimelineFile = parse_toml(text, path)?;
        let origin = |key: &str| Origin::File {
            path: path.to_path_buf(),
            key: key.to_string(),
            at: None,
        };
        let payments = pick(
            cli.payments,
            file.payments,
            DEFAULT_PAYMENTS,
            || origin("payments"),
            parse::check_payments,
        )?;
        let runs = pick(cli.runs, file.runs, 1, || origin("runs"), parse::check_runs)?;
        let threads = pick(
            cli.threads,
            file.threads,
            default_threads,
            || origin("threads"),
            parse::check_threads,
        )?;
        let strategies = strategies(&file, path)?;
        let ttl_sweep_ms = ttl_sweep(&file, path)?;
        let stem = path.file_stem().map_or_else(
            || "timeline".to_string(),
            |stem| stem.to_string_lossy().into_owned(),
        );
        let scenarios = scenarios(&mut file, path, &stem)?;
        Ok(TimelineConfig {
            model: TimelineModel {
                title: path.file_name().map_or_else(
                    || format!("{stem}.toml"),
                    |name| name.to_string_lossy().into_owned(),
                ),
                seed: cli.seed.or(file.seed).unwrap_or(DEFAULT_SEED),
                runs,
                payments,
                strategies,
                scenarios,
                ttl_sweep_ms,
            },
            threads,
            output: OutputSettings::new(super::scenario_out_dir(cli, file.out, &stem), cli),
        })
    }
}

/// The article model's flags have no meaning for a timeline scenario.
fn reject_article_flags(cli: &Cli, path: &Path) -> Result<(), ConfigError> {
    super::refuse_flags(
        &[
            ("--p", cli.ack_loss.is_some()),
            ("--requests", cli.requests.is_some()),
            ("--max-retries", cli.max_retries.is_some()),
            ("--engine", cli.engine.is_some()),
        ],
        || format!("timeline scenario files such as {}", path.display()),
    )
}

/// `strategies`: each at most once, at least one; all three by default.
fn strategies(file: &TimelineFile, path: &Path) -> Result<Vec<Strategy>, ConfigError> {
    let strategies: Vec<Strategy> = file.strategies.as_ref().map_or_else(
        || Strategy::ALL.to_vec(),
        |names| names.iter().map(|&name| name.into()).collect(),
    );
    let distinct: HashSet<Strategy> = strategies.iter().copied().collect();
    if strategies.is_empty() || distinct.len() != strategies.len() {
        let names: Vec<&str> = strategies.iter().map(|s| s.name()).collect();
        return Err(invalid(
            path,
            "strategies",
            format!("{names:?}"),
            "list each of none, check_then_insert, unique_key at most once, at least one",
        ));
    }
    Ok(strategies)
}

/// `ttl_sweep_ms`: every TTL checked; empty without the key.
fn ttl_sweep(file: &TimelineFile, path: &Path) -> Result<Vec<f64>, ConfigError> {
    let ttls = file.ttl_sweep_ms.clone().unwrap_or_default();
    if let Some(&bad) = ttls.iter().find(|&&ttl| check_ttl(Number(ttl)).is_err()) {
        return Err(invalid(
            path,
            "ttl_sweep_ms",
            Number(bad),
            "every TTL of the sweep must be a number of ms more than 0 and at most 1000000000000",
        ));
    }
    Ok(ttls)
}

/// The base scenario (named after the file) alone, or each `[[scenario]]` over it; the base
/// tables are checked in either case.
fn scenarios(
    file: &mut TimelineFile,
    path: &Path,
    stem: &str,
) -> Result<Vec<Scenario>, ConfigError> {
    let base = Sections {
        arrivals: std::mem::take(&mut file.arrivals),
        network: std::mem::take(&mut file.network),
        server: std::mem::take(&mut file.server),
        client: std::mem::take(&mut file.client),
        provider: file.provider.take(),
        receipts: file.receipts.take(),
    };
    let base_scenario = Lookup {
        path,
        base: &base,
        over: None,
    }
    .scenario(stem.to_string())?;
    if file.scenario.is_empty() {
        return Ok(vec![base_scenario]);
    }
    let mut names = HashSet::new();
    let mut scenarios = Vec::with_capacity(file.scenario.len());
    for (index, entry) in file.scenario.iter().enumerate() {
        let prefix = format!("scenario[{index}].");
        if entry.name.trim().is_empty() || !names.insert(entry.name.clone()) {
            return Err(invalid(
                path,
                &format!("{prefix}name"),
                format!("{:?}", entry.name),
                "every scenario needs a name of its own",
            ));
        }
        let sections = entry.sections();
        let lookup = Lookup {
            path,
            base: &base,
            over: Some((&sections, prefix)),
        };
        scenarios.push(lookup.scenario(entry.name.clone())?);
    }
    Ok(scenarios)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::semantics::ErrorPolicy;
    use crate::model::timeline::{DuplicateAnswer, KeyStore};
    use clap::Parser;
    use std::path::PathBuf;

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
        assert_eq!(config.output.out_dir, PathBuf::from("output/scenario"));
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
    fn backend_defaults_are_off_and_tables_turn_them_on() {
        let config = load(&[], "model = \"timeline\"").unwrap();
        assert_eq!(config.model.scenarios[0].backend, Backend::default());
        assert!(!config.model.uses_backend());
        let text = "model = \"timeline\"\n\
                    [server]\ncrash_rate = 0.02\nkey_store = \"key_first\"\n\
                    [provider]\nloss = 0.1\n\
                    [[scenario]]\nname = \"a\"\n\
                    [[scenario]]\nname = \"b\"\n\
                    server = { completer_interval_ms = 500 }\n\
                    provider = { pass_key = true, max_retries = 0 }\n\
                    receipts = { mode = \"outbox\", send_failure = 0.1 }\n";
        let config = load(&[], text).unwrap();
        let [a, b] = &config.model.scenarios[..] else {
            panic!("two scenarios")
        };
        for scenario in [a, b] {
            assert_eq!(scenario.backend.crash_rate, 0.02);
            assert_eq!(scenario.backend.key_store, KeyStore::KeyFirst);
            assert_eq!(scenario.backend.key_lock_ttl_ms, 30_000.0);
        }
        let provider = a.backend.provider.unwrap();
        assert_eq!(
            (provider.loss, provider.max_retries, provider.pass_key),
            (0.1, 2, false)
        );
        assert_eq!(provider.timeout_ms, DEFAULT_PROVIDER_TIMEOUT_MS);
        assert_eq!(a.backend.receipts, None);
        assert_eq!(a.backend.completer_interval_ms, None);
        let provider = b.backend.provider.unwrap();
        assert_eq!(
            (provider.loss, provider.max_retries, provider.pass_key),
            (0.1, 0, true)
        );
        assert_eq!(
            b.backend.receipts,
            Some(Receipts {
                mode: ReceiptMode::Outbox,
                send_failure: 0.1
            })
        );
        assert_eq!(b.backend.completer_interval_ms, Some(500.0));
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
