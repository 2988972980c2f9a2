//! Load scenario files: a timeline scenario file (`model = "timeline"`) with any
//! shared-capacity key (`[server] workers`, `[arrivals] phases`, `[client] breaker`, ...,
//! see [`LOAD_KEYS`]) is read here into one [`LoadModel`]. The shared-capacity keys are taken
//! out of the file's tables and checked here; the rest of the file (latencies, timeout,
//! backoff, error rate, `[[scenario]]` names, seed, runs) is read and checked by the timeline
//! schema, so both files speak one language. Every rejection names the file, the key and the
//! value.

use std::collections::HashSet;
use std::path::Path;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use toml::de::{DeTable, DeValue};

use super::timeline::{MAX_DURATION_MS, TimelineConfig};
use super::{ConfigError, OutputSettings, invalid, parse_toml};
use crate::cli::Cli;
use crate::model::load::{
    AdaptiveBucket, Breaker, CapacityWindow, LoadArrivals, LoadClient, LoadDuplicateAnswer,
    LoadModel, LoadNetwork, LoadScenario, LoadServer, LoadStrategy, Phase, PhaseRate, TokenBucket,
    Window,
};
use crate::model::timeline::{
    ArrivalProcess, Backend, CopyMode, DuplicateAnswer, KeyLifecycle, Scenario, TimelineModel,
};

/// The shared-capacity keys, by table; any of them (or an `[output]` table) makes a timeline
/// file a load file.
pub const LOAD_KEYS: [(&str, &[&str]); 4] = [
    (
        "server",
        &[
            "workers",
            "queue_limit",
            "drop_expired",
            "processing_per_in_flight_ms",
            "capacity",
        ],
    ),
    ("network", &["outages"]),
    ("arrivals", &["clients", "duration_s", "phases"]),
    (
        "client",
        &[
            "token_bucket",
            "adaptive_bucket",
            "breaker",
            "retry_ratio",
            "payment_deadline_ms",
        ],
    ),
];

/// Default arrival window without phases: 60 s.
pub const DEFAULT_DURATION_S: f64 = 60.0;
/// Default time-series bucket: 1 s.
pub const DEFAULT_BUCKET_S: f64 = 1.0;
/// The longest arrival window: 10^6 s (about 11.6 days, the longest duration of a timeline
/// file).
pub const MAX_DURATION_S: f64 = MAX_DURATION_MS / 1000.0;
/// The most time-series buckets over the arrival window: 10^6, the most an event loop keeps
/// ([`crate::model::load::MAX_BUCKETS`]); the drain after the window adds buckets up to that
/// limit, and is counted in the totals of `load.csv` beyond it.
pub const MAX_BUCKETS: f64 = crate::model::load::MAX_BUCKETS as f64;
/// The highest arrival rate, of `[arrivals] rate_per_s` and of every phase: 10^9 payments
/// per second.
pub const MAX_RATE_PER_S: f64 = 1e9;
/// The most workers or clients.
pub const MAX_POPULATION: i64 = 10_000_000;
/// The lower bound of a number that must be more than 0: the smallest positive `f64`
/// (`5e-324`, a subnormal; `f64::MIN_POSITIVE`, about `2.2e-308`, is the smallest normal one).
const MORE_THAN_0: f64 = f64::from_bits(1);

/// Everything a load run needs, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadConfig {
    /// The experiment.
    pub model: LoadModel,
    /// Worker threads.
    pub threads: usize,
    /// Where the files go and what is printed.
    pub output: OutputSettings,
}

/// The value of `key` in a table as the TOML parser holds it, numbers unconverted.
fn entry<'a, 'i>(table: &'a DeTable<'i>, key: &str) -> Option<&'a DeValue<'i>> {
    table
        .iter()
        .find(|(name, _)| name.get_ref().as_ref() == key)
        .map(|(_, value)| value.get_ref())
}

/// Whether a table (the file's, or one `[[scenario]]` entry's) has a load key in its sections.
fn has_load_keys(table: &DeTable<'_>) -> bool {
    LOAD_KEYS
        .iter()
        .any(|(section, keys)| match entry(table, section) {
            Some(DeValue::Table(section)) => keys.iter().any(|key| entry(section, key).is_some()),
            _ => false,
        })
}

/// Whether a timeline file's text is a load file: an `[output]` table or a load key at the
/// top level or in a `[[scenario]]` entry. Read with the TOML parser's own tables, which keep
/// numbers as written, so that a value no TOML table holds (an integer beyond 64 bits) still
/// counts as its key and the load schema names it.
pub fn is_load(text: &str) -> bool {
    let Ok(table) = DeTable::parse(text) else {
        return false;
    };
    let table = table.get_ref();
    let in_entry = match entry(table, "scenario") {
        Some(DeValue::Array(entries)) => entries.iter().any(|entry| match entry.get_ref() {
            DeValue::Table(entry) => has_load_keys(entry),
            _ => false,
        }),
        _ => false,
    };
    entry(table, "output").is_some() || has_load_keys(table) || in_entry
}

/// A plain timeline file may not ask for `lock_wait`: one line saying why.
pub fn refuse_lock_wait(text: &str, path: &Path) -> Result<(), ConfigError> {
    let Ok(table) = text.parse::<toml::Table>() else {
        return Ok(());
    };
    let asks = table
        .get("strategies")
        .and_then(toml::Value::as_array)
        .is_some_and(|names| names.iter().any(|name| name.as_str() == Some("lock_wait")));
    if asks {
        return Err(invalid(
            path,
            "strategies",
            "\"lock_wait\"",
            "lock_wait needs a shared server: add [server] workers = N (the load model, see \
             docs/models/load.md)",
        ));
    }
    Ok(())
}

/// The load keys of one scenario, base and override merged, with where each came from.
#[derive(Debug, Default, Clone)]
struct LoadTables {
    /// `section → key → (value, written in the [[scenario]] entry)`.
    keys: Vec<(String, String, toml::Value, bool)>,
}

impl LoadTables {
    /// One section's keys as a table (the override's keys over the base's).
    fn section(&self, name: &str) -> toml::Table {
        self.keys
            .iter()
            .filter(|(section, ..)| section == name)
            .map(|(_, key, value, _)| (key.clone(), value.clone()))
            .collect()
    }

    /// Where a key of a section was written: `server.workers` or `scenario[1].server.workers`;
    /// a field of a load key's table (`client.token_bucket.capacity`) is where its key was.
    fn origin(&self, section: &str, key: &str, index: Option<usize>) -> String {
        let load_key = key.split('.').next().unwrap_or(key);
        let overridden = self
            .keys
            .iter()
            .any(|(s, k, _, over)| s == section && k == load_key && *over);
        match index {
            Some(index) if overridden => format!("scenario[{index}].{section}.{key}"),
            _ => format!("{section}.{key}"),
        }
    }
}

/// Takes the load keys out of a table's sections.
fn take_load_keys(
    table: &mut toml::Table,
    overridden: bool,
) -> Vec<(String, String, toml::Value, bool)> {
    let mut taken = Vec::new();
    for (section, keys) in LOAD_KEYS {
        let Some(toml::Value::Table(t)) = table.get_mut(section) else {
            continue;
        };
        for key in keys {
            if let Some(value) = t.remove(*key) {
                taken.push((section.to_string(), key.to_string(), value, overridden));
            }
        }
    }
    taken
}

/// The merged load keys of the base and of each `[[scenario]]` entry.
fn split(table: &mut toml::Table) -> (LoadTables, Vec<LoadTables>) {
    let base = LoadTables {
        keys: take_load_keys(table, false),
    };
    let mut scenarios = Vec::new();
    if let Some(toml::Value::Array(entries)) = table.get_mut("scenario") {
        for entry in entries.iter_mut() {
            let Some(entry) = entry.as_table_mut() else {
                continue;
            };
            let over = take_load_keys(entry, true);
            let mut merged = base.clone();
            for (section, key, value, _) in over {
                merged
                    .keys
                    .retain(|(s, k, ..)| !(s == &section && k == &key));
                merged.keys.push((section, key, value, true));
            }
            scenarios.push(merged);
        }
    }
    (base, scenarios)
}

/// `[output]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputTable {
    /// The width of a time-series bucket (s, 0.001 to 10^6): at most [`MAX_BUCKETS`] over
    /// `arrivals.duration_s`, and the series of one loop stops at that many, drain included.
    bucket_s: Option<f64>,
    error_rate_sweep: Option<Vec<f64>>,
}

/// `[server]`'s load keys.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServerKeys {
    workers: Option<i64>,
    queue_limit: Option<i64>,
    drop_expired: Option<bool>,
    processing_per_in_flight_ms: Option<f64>,
    capacity: Option<Vec<CapacityEntry>>,
}

/// `[server] capacity = [{ from_s, to_s, workers }]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CapacityEntry {
    from_s: f64,
    to_s: f64,
    workers: i64,
}

/// `[network]`'s load keys.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct NetworkKeys {
    outages: Option<Vec<WindowEntry>>,
}

/// `{ from_s, to_s }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WindowEntry {
    from_s: f64,
    to_s: f64,
}

/// `[arrivals]`'s load keys.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArrivalsKeys {
    clients: Option<i64>,
    duration_s: Option<f64>,
    phases: Option<Vec<PhaseEntry>>,
}

/// `{ until_s, rate_per_s }` or `{ until_s, ramp_to_per_s }` (a ramp may start at its own
/// `rate_per_s`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PhaseEntry {
    until_s: f64,
    rate_per_s: Option<f64>,
    ramp_to_per_s: Option<f64>,
}

/// `[client]`'s load keys.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClientKeys {
    token_bucket: Option<TokenBucketEntry>,
    adaptive_bucket: Option<AdaptiveEntry>,
    breaker: Option<BreakerEntry>,
    retry_ratio: Option<f64>,
    payment_deadline_ms: Option<f64>,
}

/// `token_bucket = { capacity, retry_cost, timeout_cost, success_refund }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TokenBucketEntry {
    capacity: Option<f64>,
    retry_cost: Option<f64>,
    timeout_cost: Option<f64>,
    success_refund: Option<f64>,
}

/// `adaptive_bucket = { deposit, capacity }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AdaptiveEntry {
    deposit: Option<f64>,
    capacity: Option<f64>,
}

/// `breaker = { threshold, window_s, cooldown_s }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BreakerEntry {
    threshold: Option<f64>,
    window_s: Option<f64>,
    cooldown_s: Option<f64>,
}

/// Reads a table into `T`; a value of the wrong type names the file and the key.
fn read<T: DeserializeOwned + Default>(
    table: toml::Table,
    path: &Path,
    name: &str,
) -> Result<T, ConfigError> {
    if table.is_empty() {
        return Ok(T::default());
    }
    T::deserialize(toml::Value::Table(table.clone())).map_err(|error| {
        // The first key that fails on its own is the one to name.
        let key = table.iter().find_map(|(key, value)| {
            let alone: toml::Table = [(key.clone(), value.clone())].into_iter().collect();
            T::deserialize(toml::Value::Table(alone))
                .err()
                .map(|_| key.clone())
        });
        let place = match key {
            Some(key) if name == "output" => format!("key `output.{key}`"),
            Some(key) => format!("key `{name}.{key}`"),
            None => format!("[{name}]"),
        };
        ConfigError::Parse {
            path: path.to_path_buf(),
            message: format!("{place}: {}", error.message().trim().replace('\n', " ")),
        }
    })
}

/// Checks one scenario's load keys (`index`: its `[[scenario]]` entry, if any).
struct Checker<'a> {
    path: &'a Path,
    tables: &'a LoadTables,
    index: Option<usize>,
}

impl Checker<'_> {
    fn bad(
        &self,
        section: &str,
        key: &str,
        value: impl std::fmt::Display,
        reason: &str,
    ) -> ConfigError {
        invalid(
            self.path,
            &self.tables.origin(section, key, self.index),
            value,
            reason,
        )
    }

    /// A number in `[low, high]` (finite; [`MORE_THAN_0`] as `low`: more than 0), shown in
    /// its shortest form when refused.
    fn number(
        &self,
        section: &str,
        key: &str,
        value: f64,
        low: f64,
        high: f64,
        what: &str,
    ) -> Result<f64, ConfigError> {
        if value.is_finite() && (low..=high).contains(&value) {
            Ok(value)
        } else {
            Err(self.bad(section, key, crate::parse::shown(value), what))
        }
    }

    /// A count from 1 to [`MAX_POPULATION`].
    fn count(&self, section: &str, key: &str, value: i64, what: &str) -> Result<u32, ConfigError> {
        if (1..=MAX_POPULATION).contains(&value) {
            Ok(value as u32)
        } else {
            Err(self.bad(section, key, value, what))
        }
    }

    /// A window `{ from_s, to_s }` in ms.
    fn window(
        &self,
        section: &str,
        key: &str,
        from_s: f64,
        to_s: f64,
    ) -> Result<Window, ConfigError> {
        let ok = from_s.is_finite()
            && to_s.is_finite()
            && 0.0 <= from_s
            && from_s < to_s
            && to_s <= MAX_DURATION_S;
        if !ok {
            return Err(self.bad(
                section,
                key,
                format!(
                    "{{ from_s = {}, to_s = {} }}",
                    crate::parse::shown(from_s),
                    crate::parse::shown(to_s)
                ),
                "a window needs 0 <= from_s < to_s <= 1000000 (seconds)",
            ));
        }
        Ok(Window {
            from_ms: from_s * 1000.0,
            to_ms: to_s * 1000.0,
        })
    }

    fn server(&self, base: &Scenario) -> Result<LoadServer, ConfigError> {
        let keys: ServerKeys = read(self.tables.section("server"), self.path, "server")?;
        let workers = keys
            .workers
            .map(|w| {
                self.count(
                    "server",
                    "workers",
                    w,
                    "workers must be a whole number from 1 to 10000000 (leave it out: unlimited)",
                )
            })
            .transpose()?;
        let queue_limit = keys
            .queue_limit
            .map(|q| self.count("server", "queue_limit", q, "the queue limit must be a whole number from 1 to 10000000 (leave it out: no limit)"))
            .transpose()?;
        let slope = self.number(
            "server",
            "processing_per_in_flight_ms",
            keys.processing_per_in_flight_ms.unwrap_or(0.0),
            0.0,
            MAX_DURATION_MS,
            "must be a number of ms per request from 0 to 1000000000",
        )?;
        let mut capacity = Vec::new();
        for entry in keys.capacity.unwrap_or_default() {
            let window = self.window("server", "capacity", entry.from_s, entry.to_s)?;
            let workers = self.count(
                "server",
                "capacity",
                entry.workers,
                "a capacity window's workers must be a whole number from 1 to 10000000",
            )?;
            capacity.push(CapacityWindow { window, workers });
        }
        capacity.sort_by(|a, b| a.window.from_ms.total_cmp(&b.window.from_ms));
        if capacity
            .windows(2)
            .any(|pair| pair[1].window.from_ms < pair[0].window.to_ms)
        {
            return Err(self.bad(
                "server",
                "capacity",
                "[...]",
                "capacity windows must not overlap",
            ));
        }
        Ok(LoadServer {
            workers,
            queue_limit,
            drop_expired: keys.drop_expired.unwrap_or(false),
            processing: base.processing,
            processing_per_in_flight_ms: slope,
            error_rate: base.key.error_rate,
            error_policy: base.key.error_policy,
            key_ttl_ms: base.key.key_ttl_ms,
            duplicate_answer: self.duplicate_answer(base)?,
            capacity,
        })
    }

    fn network(&self, base: &Scenario) -> Result<LoadNetwork, ConfigError> {
        let keys: NetworkKeys = read(self.tables.section("network"), self.path, "network")?;
        let outages = keys
            .outages
            .unwrap_or_default()
            .iter()
            .map(|entry| self.window("network", "outages", entry.from_s, entry.to_s))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(LoadNetwork {
            request_latency: base.network.request_latency,
            response_latency: base.network.response_latency,
            request_loss: base.network.request_loss,
            ack_loss: base.network.ack_loss,
            outages,
        })
    }

    fn rate(&self, value: f64) -> Result<f64, ConfigError> {
        self.number(
            "arrivals",
            "phases",
            value,
            0.0,
            MAX_RATE_PER_S,
            "a phase's rate must be a finite number of payments per second from 0 to 1000000000",
        )
    }

    /// The phases, increasing in time; a ramp starts at its own `rate_per_s`, else where the
    /// previous phase ended, else at `arrivals.rate_per_s`.
    fn phases(&self, entries: &[PhaseEntry], start_rate: f64) -> Result<Vec<Phase>, ConfigError> {
        let mut phases = Vec::with_capacity(entries.len());
        let mut previous_end = 0.0;
        let mut rate_before = start_rate;
        for entry in entries {
            let until = entry.until_s;
            if !(until.is_finite() && until > previous_end && until <= MAX_DURATION_S) {
                return Err(self.bad(
                    "arrivals",
                    "phases",
                    format!("until_s = {}", crate::parse::shown(until)),
                    "phases must end at increasing times after 0 s, at most 1000000 s (no overlap, never back in time)",
                ));
            }
            let rate = match (entry.rate_per_s, entry.ramp_to_per_s) {
                (Some(rate), None) => PhaseRate::Constant(self.rate(rate)?),
                (from, Some(to)) => PhaseRate::Ramp {
                    from: self.rate(from.unwrap_or(rate_before))?,
                    to: self.rate(to)?,
                },
                (None, None) => {
                    return Err(self.bad(
                        "arrivals",
                        "phases",
                        format!("until_s = {}", crate::parse::shown(until)),
                        "each phase needs rate_per_s or ramp_to_per_s",
                    ));
                }
            };
            let phase = Phase {
                until_ms: until * 1000.0,
                rate,
            };
            rate_before = phase.final_rate_per_s();
            previous_end = until;
            phases.push(phase);
        }
        Ok(phases)
    }

    fn arrivals(&self, base: &Scenario) -> Result<LoadArrivals, ConfigError> {
        let keys: ArrivalsKeys = read(self.tables.section("arrivals"), self.path, "arrivals")?;
        let ArrivalProcess::Poisson { rate_per_s } = base.arrivals.process else {
            return Err(self.bad(
                "arrivals",
                "process",
                "burst or sequential",
                "the load model's arrivals are Poisson over phases; leave process out",
            ));
        };
        if rate_per_s > MAX_RATE_PER_S {
            return Err(self.bad(
                "arrivals",
                "rate_per_s",
                crate::parse::shown(rate_per_s),
                "the load model's rate must be a number of payments per second from 0.000001 to \
                 1000000000, as a phase's",
            ));
        }
        let clients = keys
            .clients
            .map(|c| self.count("arrivals", "clients", c, "clients must be a whole number from 1 to 10000000 (leave it out: each payment its own client)"))
            .transpose()?;
        let phases = match &keys.phases {
            Some(entries) if !entries.is_empty() => self.phases(entries, rate_per_s)?,
            Some(_) => {
                return Err(self.bad(
                    "arrivals",
                    "phases",
                    "[]",
                    "give at least one phase, or leave phases out",
                ));
            }
            None => Vec::new(),
        };
        let default_duration = phases
            .last()
            .map_or(DEFAULT_DURATION_S, |p| p.until_ms / 1000.0);
        let duration_s = self.number(
            "arrivals",
            "duration_s",
            keys.duration_s.unwrap_or(default_duration),
            MORE_THAN_0,
            MAX_DURATION_S,
            "must be a number of seconds more than 0 and at most 1000000",
        )?;
        let phases = if phases.is_empty() {
            vec![Phase {
                until_ms: duration_s * 1000.0,
                rate: PhaseRate::Constant(rate_per_s),
            }]
        } else {
            phases
        };
        Ok(LoadArrivals {
            clients,
            duration_ms: duration_s * 1000.0,
            phases,
        })
    }

    fn token_bucket(&self, entry: &TokenBucketEntry) -> Result<TokenBucket, ConfigError> {
        let capacity = self.number(
            "client",
            "token_bucket.capacity",
            entry.capacity.unwrap_or(500.0),
            MORE_THAN_0,
            1e12,
            "the bucket's capacity must be a number of tokens more than 0",
        )?;
        let cost = |field: &str, value: f64| {
            self.number("client", &format!("token_bucket.{field}"), value, 0.0, capacity, "a retry's cost must be from 0 tokens to the bucket's capacity (a cost above the quota never lets a retry out)")
        };
        Ok(TokenBucket {
            capacity,
            retry_cost: cost("retry_cost", entry.retry_cost.unwrap_or(5.0))?,
            timeout_cost: cost("timeout_cost", entry.timeout_cost.unwrap_or(10.0))?,
            success_refund: self.number(
                "client",
                "token_bucket.success_refund",
                entry.success_refund.unwrap_or(1.0),
                0.0,
                capacity,
                "the success refund must be from 0 tokens to the bucket's capacity",
            )?,
        })
    }

    fn adaptive_bucket(&self, entry: &AdaptiveEntry) -> Result<AdaptiveBucket, ConfigError> {
        Ok(AdaptiveBucket {
            deposit: self.number(
                "client",
                "adaptive_bucket.deposit",
                entry.deposit.unwrap_or(0.1),
                MORE_THAN_0,
                1e12,
                "the deposit must be a number of tokens more than 0",
            )?,
            capacity: self.number(
                "client",
                "adaptive_bucket.capacity",
                entry.capacity.unwrap_or(5.0),
                1.0,
                1e12,
                "the capacity must be a number of tokens, at least 1",
            )?,
        })
    }

    fn breaker(&self, entry: &BreakerEntry) -> Result<Breaker, ConfigError> {
        let seconds = |field: &str, value: Option<f64>| -> Result<Option<f64>, ConfigError> {
            value
                .map(|s| {
                    self.number(
                        "client",
                        &format!("breaker.{field}"),
                        s,
                        MORE_THAN_0,
                        MAX_DURATION_S,
                        "window_s and cooldown_s must be numbers of seconds more than 0 and at \
                         most 1000000",
                    )
                    .map(|s| s * 1000.0)
                })
                .transpose()
        };
        Ok(Breaker {
            threshold: self.number(
                "client",
                "breaker.threshold",
                entry.threshold.unwrap_or(0.1),
                0.0,
                1.0,
                "the breaker's threshold is a failure rate from 0 to 1",
            )?,
            window_ms: seconds("window_s", entry.window_s)?,
            cooldown_ms: seconds("cooldown_s", entry.cooldown_s)?,
        })
    }

    fn client(&self, base: &Scenario) -> Result<LoadClient, ConfigError> {
        let keys: ClientKeys = read(self.tables.section("client"), self.path, "client")?;
        if base.client.different_body_rate > 0.0 {
            return Err(self.bad(
                "client",
                "different_body_rate",
                crate::parse::shown(base.client.different_body_rate),
                "the load model does not model different bodies; leave it out",
            ));
        }
        let token_bucket = keys
            .token_bucket
            .as_ref()
            .map(|entry| self.token_bucket(entry))
            .transpose()?;
        let adaptive_bucket = keys
            .adaptive_bucket
            .as_ref()
            .map(|entry| self.adaptive_bucket(entry))
            .transpose()?;
        let breaker = keys
            .breaker
            .as_ref()
            .map(|entry| self.breaker(entry))
            .transpose()?;
        let retry_ratio = keys
            .retry_ratio
            .map(|r| {
                self.number(
                    "client",
                    "retry_ratio",
                    r,
                    0.0,
                    1e6,
                    "must be a share of payments, at least 0",
                )
            })
            .transpose()?;
        let payment_deadline_ms = keys
            .payment_deadline_ms
            .map(|d| {
                self.number(
                    "client",
                    "payment_deadline_ms",
                    d,
                    MORE_THAN_0,
                    MAX_DURATION_MS,
                    "must be a number of ms more than 0 and at most 1000000000",
                )
            })
            .transpose()?;
        Ok(LoadClient {
            timeout_ms: base.client.timeout_ms,
            max_retries: base.client.max_retries,
            backoff: base.client.backoff,
            token_bucket,
            adaptive_bucket,
            breaker,
            retry_ratio,
            payment_deadline_ms,
        })
    }

    /// What the load model does not model: refused with the key.
    fn unsupported(&self, base: &Scenario) -> Result<(), ConfigError> {
        if let Some((key, value)) = backend_key(&base.backend) {
            return Err(invalid(
                self.path,
                key,
                value,
                "the load model does not model crashes, key stores, providers or receipts; \
                 leave those keys out of a load file",
            ));
        }
        let key = base.key;
        let plain = KeyLifecycle::default();
        if base.arrivals.copies != 1 {
            return Err(self.bad(
                "arrivals",
                "copies",
                base.arrivals.copies,
                "the load model sends one copy per payment; leave copies and copy_mode out",
            ));
        }
        if base.arrivals.copy_mode != CopyMode::Concurrent {
            return Err(self.bad(
                "arrivals",
                "copy_mode",
                "sequential",
                "the load model sends one copy per payment; leave copies and copy_mode out",
            ));
        }
        if key.fingerprint != plain.fingerprint {
            return Err(self.bad(
                "server",
                "fingerprint",
                key.fingerprint,
                "the load model sends one body per payment; leave fingerprint out",
            ));
        }
        Ok(())
    }

    /// `[server] duplicate_answer`: `replay` or `conflict_409` (`ok_200` and `error_500`, the
    /// webhook receivers' answers, are refused).
    fn duplicate_answer(&self, base: &Scenario) -> Result<LoadDuplicateAnswer, ConfigError> {
        match base.key.duplicate_answer {
            DuplicateAnswer::Replay => Ok(LoadDuplicateAnswer::Replay),
            DuplicateAnswer::Conflict409 => Ok(LoadDuplicateAnswer::Conflict409),
            other @ (DuplicateAnswer::Ok200 | DuplicateAnswer::Error500) => Err(self.bad(
                "server",
                "duplicate_answer",
                match other {
                    DuplicateAnswer::Ok200 => "ok_200",
                    _ => "error_500",
                },
                "the load model answers a stored key with replay or conflict_409",
            )),
        }
    }

    fn scenario(&self, base: &Scenario) -> Result<LoadScenario, ConfigError> {
        self.unsupported(base)?;
        Ok(LoadScenario {
            name: base.name.clone(),
            arrivals: self.arrivals(base)?,
            network: self.network(base)?,
            server: self.server(base)?,
            client: self.client(base)?,
        })
    }
}

/// The first key of the crash, key-store, provider and receipt model that a scenario sets (a
/// value other than the default), with its value: `server.crash_rate`, or the table
/// (`provider`, `receipts`) for those.
fn backend_key(backend: &Backend) -> Option<(&'static str, String)> {
    let plain = Backend::default();
    let shown = crate::parse::shown;
    if backend.crash_rate != plain.crash_rate {
        Some(("server.crash_rate", shown(backend.crash_rate)))
    } else if backend.key_store != plain.key_store {
        Some(("server.key_store", backend.key_store.name().to_string()))
    } else if backend.key_write_failure != plain.key_write_failure {
        Some(("server.key_write_failure", shown(backend.key_write_failure)))
    } else if backend.key_lock_ttl_ms != plain.key_lock_ttl_ms {
        Some(("server.key_lock_ttl_ms", shown(backend.key_lock_ttl_ms)))
    } else if let Some(interval) = backend.completer_interval_ms {
        Some(("server.completer_interval_ms", shown(interval)))
    } else if backend.provider.is_some() {
        Some(("provider", "[provider]".to_string()))
    } else if backend.receipts.is_some() {
        Some(("receipts", "[receipts]".to_string()))
    } else {
        None
    }
}

/// The flags that do not apply: `--payments` (payments arrive over `arrivals.duration_s`).
fn refuse_flags(cli: &Cli, path: &Path) -> Result<(), ConfigError> {
    super::refuse_flags(&[("--payments", cli.payments.is_some())], || {
        format!(
            "load scenario files such as {} (payments arrive over arrivals.duration_s)",
            path.display()
        )
    })
}

/// The most points of the error-rate sweep.
pub const MAX_SWEEP_POINTS: usize = 1_000;

/// What the load model reads at the top level: strategies, bucket width (s), error-rate sweep.
type TopLevel = (Vec<LoadStrategy>, f64, Vec<f64>);

/// `[output] error_rate_sweep`: probabilities (`-0` is 0), each at most once, at most
/// [`MAX_SWEEP_POINTS`].
fn sweep(values: Option<Vec<f64>>, path: &Path) -> Result<Vec<f64>, ConfigError> {
    let key = "output.error_rate_sweep";
    let values = values.unwrap_or_default();
    if values.len() > MAX_SWEEP_POINTS {
        return Err(invalid(
            path,
            key,
            format!("[{} values]", values.len()),
            "at most 1000 error rates",
        ));
    }
    let mut rates = Vec::with_capacity(values.len());
    let mut seen = std::collections::HashMap::with_capacity(values.len());
    for (position, value) in (1..).zip(values) {
        let rate = crate::parse::check_ack_loss(value).map_err(|_| {
            invalid(
                path,
                key,
                crate::parse::shown(value),
                "every error rate of the sweep must be a probability from 0 to 1",
            )
        })?;
        if let Some(first) = seen.insert(rate.to_bits(), position) {
            return Err(invalid(
                path,
                key,
                crate::parse::shown(rate),
                &format!(
                    "this error rate is given twice (values {first} and {position}): give each \
                     error rate of the sweep once"
                ),
            ));
        }
        rates.push(rate);
    }
    Ok(rates)
}

/// The top-level keys the load model reads itself or refuses.
fn take_top_level(table: &mut toml::Table, path: &Path) -> Result<TopLevel, ConfigError> {
    for (key, reason) in [
        (
            "payments",
            "the load model issues payments over arrivals.duration_s; leave payments out",
        ),
        (
            "ttl_sweep_ms",
            "the load model has no TTL sweep; leave ttl_sweep_ms out",
        ),
    ] {
        if let Some(value) = table.get(key) {
            return Err(invalid(path, key, value, reason));
        }
    }
    let strategies = match table.remove("strategies") {
        Some(value) => strategies(&value, path)?,
        None => LoadStrategy::ALL.to_vec(),
    };
    let output: OutputTable = match table.remove("output") {
        Some(toml::Value::Table(t)) => read(t, path, "output")?,
        Some(other) => return Err(invalid(path, "output", other, "must be a table: [output]")),
        None => OutputTable::default(),
    };
    let bucket_s = output.bucket_s.unwrap_or(DEFAULT_BUCKET_S);
    if !((1e-3..=MAX_DURATION_S).contains(&bucket_s)) {
        return Err(invalid(
            path,
            "output.bucket_s",
            crate::parse::shown(bucket_s),
            "must be a number of seconds from 0.001 to 1000000",
        ));
    }
    Ok((strategies, bucket_s, sweep(output.error_rate_sweep, path)?))
}

/// `strategies`: names of [`LoadStrategy`], each at most once, at least one.
fn strategies(value: &toml::Value, path: &Path) -> Result<Vec<LoadStrategy>, ConfigError> {
    let names = value
        .as_array()
        .ok_or_else(|| invalid(path, "strategies", value, "must be a list of names"))?;
    let mut strategies = Vec::with_capacity(names.len());
    for name in names {
        let strategy = name.as_str().and_then(LoadStrategy::from_name).ok_or_else(|| {
            invalid(path, "strategies", name, "unknown strategy: the load model knows none, check_then_insert, unique_key, lock_wait")
        })?;
        strategies.push(strategy);
    }
    let distinct: HashSet<LoadStrategy> = strategies.iter().copied().collect();
    if strategies.is_empty() || distinct.len() != strategies.len() {
        return Err(invalid(
            path,
            "strategies",
            value,
            "list each of none, check_then_insert, unique_key, lock_wait at most once, at least one",
        ));
    }
    Ok(strategies)
}

/// The timeline schema's error on the rest of the file (`rest`, the file without its load
/// keys, written out again) located in the file itself: the line and column the parser gives
/// count lines of `rest`, so the line it quotes is looked up in `text`, and named when it
/// stands there exactly once; else the quoted line alone says where (it names the key).
fn located_in_file(error: ConfigError, text: &str) -> ConfigError {
    let ConfigError::Parse { path, message } = error else {
        return error;
    };
    let (message, quoted) = match message.split_once(": ") {
        Some((position, rest)) if position.starts_with("line ") => match rest.rfind(" (in `") {
            Some(cut) => (
                rest[..cut].to_string(),
                rest[cut + " (in `".len()..]
                    .strip_suffix("`)")
                    .map(str::to_string),
            ),
            None => (rest.to_string(), None),
        },
        _ => (message, None),
    };
    let message = if message.starts_with("unknown field") {
        format!("{message}, or a load key of that table (docs/models/load.md, Load keys)")
    } else {
        message
    };
    let message = match quoted {
        Some(quoted) => {
            let mut lines = text
                .lines()
                .enumerate()
                .filter(|(_, line)| line.trim() == quoted);
            match (lines.next(), lines.next()) {
                (Some((index, _)), None) => {
                    format!("line {}: {message} (in `{quoted}`)", index + 1)
                }
                _ => format!("{message} (in `{quoted}`)"),
            }
        }
        None => message,
    };
    ConfigError::Parse { path, message }
}

impl LoadConfig {
    /// Parses a load scenario file's text, merges the flags over it and checks the result.
    pub fn from_toml(
        text: &str,
        path: &Path,
        cli: &Cli,
        default_threads: usize,
    ) -> Result<Self, ConfigError> {
        refuse_flags(cli, path)?;
        let mut table: toml::Table = parse_toml(text, path)?;
        let (strategies, bucket_s, error_rate_sweep) = take_top_level(&mut table, path)?;
        let (base_tables, scenario_tables) = split(&mut table);
        let rest = toml::to_string(&table).expect("a TOML table serialises");
        let timeline = TimelineConfig::from_toml(&rest, path, cli, default_threads)
            .map_err(|error| located_in_file(error, text))?;
        let scenarios = scenarios(&timeline.model, path, &base_tables, &scenario_tables)?;
        let TimelineModel {
            title, seed, runs, ..
        } = timeline.model;
        let model = LoadModel {
            title,
            seed,
            runs,
            strategies,
            scenarios,
            bucket_ms: bucket_s * 1000.0,
            error_rate_sweep,
        };
        check_buckets(&model, path)?;
        Ok(LoadConfig {
            model,
            threads: timeline.threads,
            output: timeline.output,
        })
    }
}

/// Each timeline scenario with its load keys.
fn scenarios(
    timeline: &TimelineModel,
    path: &Path,
    base: &LoadTables,
    entries: &[LoadTables],
) -> Result<Vec<LoadScenario>, ConfigError> {
    timeline
        .scenarios
        .iter()
        .enumerate()
        .map(|(index, scenario)| {
            let (tables, index) = match entries.get(index) {
                Some(tables) => (tables, Some(index)),
                None => (base, None),
            };
            Checker {
                path,
                tables,
                index,
            }
            .scenario(scenario)
        })
        .collect()
}

/// The time series stays bounded: at most [`MAX_BUCKETS`] buckets over the arrival window.
fn check_buckets(model: &LoadModel, path: &Path) -> Result<(), ConfigError> {
    let longest = model
        .scenarios
        .iter()
        .map(|scenario| scenario.arrivals.duration_ms)
        .fold(0.0, f64::max);
    if longest / model.bucket_ms > MAX_BUCKETS {
        return Err(invalid(
            path,
            "output.bucket_s",
            crate::parse::shown(model.bucket_ms / 1000.0),
            "more than 1000000 time-series buckets over arrivals.duration_s (a loop keeps at most \
             1000000, its drain included): use wider buckets",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn load(text: &str) -> Result<LoadConfig, ConfigError> {
        let cli = Cli::try_parse_from(["simulate"]).unwrap();
        LoadConfig::from_toml(text, Path::new("sweep.toml"), &cli, 1)
    }

    /// An error rate of the sweep is given once, and `-0` is the error rate 0 (as `--p -0` is
    /// the probability 0), so it is written `0`, and `[-0.0, 0.0]` lists 0 twice.
    #[test]
    fn sweep_error_rates_are_distinct_and_negative_zero_is_zero() {
        let file = |sweep: &str| {
            format!(
                "model = \"timeline\"\n[server]\nworkers = 2\n[output]\nerror_rate_sweep = {sweep}\n"
            )
        };
        let config = load(&file("[-0.0, 0.5]")).unwrap();
        let bits: Vec<u64> = config
            .model
            .error_rate_sweep
            .iter()
            .map(|rate| rate.to_bits())
            .collect();
        assert_eq!(bits, [0.0f64.to_bits(), 0.5f64.to_bits()]);
        for (sweep, value, reason) in [
            ("[0.1, 0.2, 0.1]", "0.1", "given twice (values 1 and 3)"),
            ("[-0.0, 0.0]", "0", "given twice (values 1 and 2)"),
            ("[0.3, 1.5]", "1.5", "from 0 to 1"),
        ] {
            let error = load(&file(sweep)).unwrap_err().to_string();
            assert!(
                error.starts_with(&format!(
                    "invalid value {value} for key `output.error_rate_sweep` in config file sweep.toml: "
                )),
                "{sweep}: {error}"
            );
            assert!(error.contains(reason), "{sweep}: {error}");
        }
    }

    /// `text` with `model = "timeline"` and two workers first is refused naming `key` and
    /// `value` exactly, on one line, with a reason holding `reason`.
    fn refused(text: &str, key: &str, value: &str, reason: &str) {
        let text = format!("model = \"timeline\"\n{text}\n[server]\nworkers = 2\n");
        let error = load(&text).unwrap_err().to_string();
        let start = format!("invalid value {value} for key `{key}` in config file sweep.toml: ");
        assert!(error.starts_with(&start), "{text}: {error}");
        assert!(error.contains(reason), "{text}: {error}");
        assert!(!error.contains('\n'), "{text}: {error}");
    }

    /// Each refusal names the key that was written, with its value as written (numbers in
    /// their shortest form, never hundreds of digits), and says what is wrong with it.
    #[test]
    fn refusals_name_the_key_written_and_its_value() {
        // Copies and copy modes are two keys.
        refused(
            "[arrivals]\ncopy_mode = \"sequential\"",
            "arrivals.copy_mode",
            "sequential",
            "one copy per payment",
        );
        refused(
            "[arrivals]\ncopies = 3",
            "arrivals.copies",
            "3",
            "one copy per payment",
        );
        // The timeline keys the load model does not model, each by its name.
        for (line, key, value) in [
            ("[server]\ncrash_rate = 0.1", "server.crash_rate", "0.1"),
            (
                "[server]\nkey_store = \"separate_store\"",
                "server.key_store",
                "separate_store",
            ),
            (
                "[server]\nkey_write_failure = 0.2",
                "server.key_write_failure",
                "0.2",
            ),
            (
                "[server]\nkey_lock_ttl_ms = 5",
                "server.key_lock_ttl_ms",
                "5",
            ),
            (
                "[server]\ncompleter_interval_ms = 7",
                "server.completer_interval_ms",
                "7",
            ),
            ("[provider]\nmax_retries = 1", "provider", "[provider]"),
            ("[receipts]\nmode = \"outbox\"", "receipts", "[receipts]"),
        ] {
            let text = line.replace("[server]\n", "[server]\nworkers = 2\n");
            let text = format!("model = \"timeline\"\n{text}\n");
            let error = load(&text).unwrap_err().to_string();
            let start =
                format!("invalid value {value} for key `{key}` in config file sweep.toml: ");
            assert!(error.starts_with(&start), "{text}: {error}");
            assert!(error.contains("does not model"), "{error}");
        }
        // The fields of the retry controls, not their tables.
        for (entry, key, value) in [
            (
                "token_bucket = { capacity = -1 }",
                "client.token_bucket.capacity",
                "-1",
            ),
            (
                "token_bucket = { retry_cost = 600 }",
                "client.token_bucket.retry_cost",
                "600",
            ),
            (
                "token_bucket = { timeout_cost = -2 }",
                "client.token_bucket.timeout_cost",
                "-2",
            ),
            (
                "token_bucket = { success_refund = 501 }",
                "client.token_bucket.success_refund",
                "501",
            ),
            (
                "adaptive_bucket = { deposit = 0 }",
                "client.adaptive_bucket.deposit",
                "0",
            ),
            (
                "adaptive_bucket = { capacity = 0.5 }",
                "client.adaptive_bucket.capacity",
                "0.5",
            ),
            (
                "breaker = { threshold = 2 }",
                "client.breaker.threshold",
                "2",
            ),
            (
                "breaker = { window_s = -1 }",
                "client.breaker.window_s",
                "-1",
            ),
            (
                "breaker = { cooldown_s = 1e7 }",
                "client.breaker.cooldown_s",
                "10000000",
            ),
        ] {
            refused(&format!("[client]\n{entry}"), key, value, "");
        }
        // Numbers in their shortest form.
        refused(
            "[arrivals]\nduration_s = 1e308",
            "arrivals.duration_s",
            "1e308",
            "at most 1000000",
        );
        refused(
            "[output]\nbucket_s = 1e-300",
            "output.bucket_s",
            "1e-300",
            "from 0.001",
        );
        refused(
            "[arrivals]\nphases = [{ until_s = 1e300, rate_per_s = 1 }]",
            "arrivals.phases",
            "until_s = 1e300",
            "at most 1000000 s",
        );
    }

    /// `[arrivals] rate_per_s` is held to the phases' bound, 10^9 payments per second.
    #[test]
    fn the_arrival_rate_is_at_most_a_billion_per_second() {
        for rate in ["1e308", "1000000001"] {
            refused(
                &format!("[arrivals]\nrate_per_s = {rate}"),
                "arrivals.rate_per_s",
                &crate::parse::shown(rate.parse().unwrap()),
                "from 0.000001 to 1000000000",
            );
        }
        let text = "model = \"timeline\"\n[arrivals]\nrate_per_s = 1e9\nduration_s = 1\n\
                    [server]\nworkers = 2\n";
        let config = load(text).unwrap();
        assert_eq!(config.model.scenarios[0].arrivals.expected_payments(), 1e9);
    }

    /// "More than 0" means it: the smallest positive numbers (below `f64::MIN_POSITIVE`,
    /// which is about 2.2e-308) are more than 0 and accepted.
    #[test]
    fn numbers_more_than_0_accept_the_smallest_positive_ones() {
        let text = "model = \"timeline\"\n[server]\nworkers = 2\n[arrivals]\nduration_s = 1e-320\n\
                    [client]\npayment_deadline_ms = 1e-320\n\
                    breaker = { window_s = 1e-320, cooldown_s = 1e-320 }\n\
                    token_bucket = { capacity = 1e-320, retry_cost = 0, timeout_cost = 0, success_refund = 0 }\n\
                    adaptive_bucket = { deposit = 1e-320 }\n";
        let config = load(text).unwrap();
        let scenario = &config.model.scenarios[0];
        assert_eq!(scenario.arrivals.duration_ms, 1e-320 * 1000.0);
        assert_eq!(scenario.client.payment_deadline_ms, Some(1e-320));
        assert_eq!(
            scenario.client.breaker.unwrap().window_ms,
            Some(1e-320 * 1000.0)
        );
        assert_eq!(scenario.client.token_bucket.unwrap().capacity, 1e-320);
        assert_eq!(scenario.client.adaptive_bucket.unwrap().deposit, 1e-320);
        // 0 itself is not.
        refused(
            "[arrivals]\nduration_s = 0",
            "arrivals.duration_s",
            "0",
            "more than 0",
        );
    }

    /// The key's TTL and duplicate answer reach each scenario's server, overridable per
    /// `[[scenario]]` like every timeline key.
    #[test]
    fn the_keys_ttl_and_duplicate_answer_reach_the_server() {
        let text = "model = \"timeline\"\n[server]\nworkers = 2\nkey_ttl_ms = 30000\n\
                    duplicate_answer = \"conflict_409\"\n\
                    [[scenario]]\nname = \"redis\"\n\
                    [[scenario]]\nname = \"plain\"\n\
                    server = { key_ttl_ms = 5000, duplicate_answer = \"replay\" }\n";
        let cli = Cli::try_parse_from(["simulate"]).unwrap();
        let config = LoadConfig::from_toml(text, Path::new("ttl.toml"), &cli, 1).unwrap();
        let servers: Vec<_> = config
            .model
            .scenarios
            .iter()
            .map(|scenario| (scenario.server.key_ttl_ms, scenario.server.duplicate_answer))
            .collect();
        assert_eq!(
            servers,
            [
                (Some(30_000.0), LoadDuplicateAnswer::Conflict409),
                (Some(5_000.0), LoadDuplicateAnswer::Replay),
            ]
        );
    }
}
