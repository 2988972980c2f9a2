//! A timeline file read once: its keys looked up in the timeline schema, the file's own keys
//! (seed, runs, payments, strategies, sweeps, output) merged with the flags, and every
//! scenario read either for the plain timeline (each payment on its own, an unlimited
//! server) or, when the file has a shared-server key, for the shared clock of the load model.

use std::collections::HashSet;
use std::path::Path;

use super::keys::{SCHEMA, SHARED_SERVER_KEYS, SHARED_SERVER_TABLES};
use super::{plain, shared};
use crate::config::ConfigError;
use crate::config::document::{Document, Entries};
use crate::config::key::Schema;
use crate::config::lookup::Lookup;
use crate::config::overrides::Overrides;
use crate::config::read::{Found, Scalar, list};
use crate::config::set;
use crate::config::timeline::{LoadConfig, TimelineConfig};
use crate::model::load::{LoadModel, LoadScenario, LoadStrategy};
use crate::model::timeline::{Strategy, TimelineModel};

/// What a timeline file describes.
#[derive(Debug, Clone, PartialEq)]
pub enum TimelineFile {
    /// Payments each on their own, against an unlimited server.
    Plain(TimelineConfig),
    /// Payments sharing one server's capacity on one clock (the load model).
    Shared(LoadConfig),
}

/// The file's name and stem: `mobile-network.toml` and `mobile-network`.
fn names(path: &Path) -> (String, String) {
    let stem = path.file_stem().map_or_else(
        || "timeline".to_string(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    let title = path.file_name().map_or_else(
        || format!("{stem}.toml"),
        |name| name.to_string_lossy().into_owned(),
    );
    (title, stem)
}

/// Reads a timeline file (`others`: the other models' schemas, to name the model an unknown
/// key belongs to) merged with the flags.
pub fn read(
    document: &Document<'_>,
    others: &[Schema],
    overrides: &Overrides,
    default_threads: usize,
) -> Result<TimelineFile, ConfigError> {
    let sets = set::documents(overrides)?;
    let entries = set::entries_with_sets(document, &sets, &SCHEMA, others, overrides)?;
    let top = Lookup::top(&SCHEMA, &entries);
    let is_shared = is_shared(&entries);
    let seed = overrides.seed.map_or_else(|| top.whole("seed"), Ok)?;
    let runs = top.flag_or_whole(overrides.runs.map(u64::from), "runs")? as u32;
    let threads = top.threads(overrides.threads, default_threads)?;
    let (title, stem) = names(document.path);
    let out_dir = match &overrides.out {
        Some(out) => out.clone(),
        None if top.written("out") => top.folder("out")?,
        None => Path::new(crate::config::DEFAULT_OUT).join(&stem),
    };
    let output = overrides.output(out_dir);
    let names = strategy_names(&top)?;
    if is_shared {
        refuse_plain_only(&top, overrides)?;
        let scenarios = scenarios(document, &entries, &stem, shared::scenario)?;
        let bucket_s = top.number("output.bucket_s")?;
        check_buckets(&top, &scenarios, bucket_s)?;
        let warm_up_s = top.number("output.warm_up_s")?;
        check_warm_up(&top, &scenarios, warm_up_s)?;
        let model = LoadModel {
            title,
            seed,
            runs,
            strategies: names.map_or_else(
                || LoadStrategy::ALL.to_vec(),
                |names| {
                    names
                        .iter()
                        .map(|name| LoadStrategy::from_name(name).expect("a declared name"))
                        .collect()
                },
            ),
            scenarios,
            bucket_ms: bucket_s * 1000.0,
            warm_up_ms: warm_up_s * 1000.0,
            recovery_window_ms: top.number("output.recovery_window_s")? * 1000.0,
        };
        return Ok(TimelineFile::Shared(LoadConfig {
            model,
            threads,
            output,
        }));
    }
    let strategies = match names {
        Some(names) => plain_strategies(&top, &names)?,
        None => Strategy::ALL.to_vec(),
    };
    let payments = match overrides.payments {
        Some(payments) => payments,
        None => top.whole("payments")?,
    };
    let scenarios = scenarios(document, &entries, &stem, plain::scenario)?;
    Ok(TimelineFile::Plain(TimelineConfig {
        model: TimelineModel {
            title,
            seed,
            runs,
            payments,
            strategies,
            scenarios,
        },
        threads,
        output,
    }))
}

/// Whether the file, at the top or in a scenario, has a shared-server key or table.
fn is_shared(entries: &Entries<'_, '_>) -> bool {
    let in_keys = |keys: &std::collections::BTreeMap<&'static str, _>,
                   tables: &std::collections::BTreeMap<String, _>| {
        SHARED_SERVER_KEYS.iter().any(|key| keys.contains_key(key))
            || SHARED_SERVER_TABLES
                .iter()
                .any(|table| tables.contains_key(*table))
            || keys.keys().any(|key: &&str| key.starts_with("output."))
    };
    in_keys(&entries.base, &entries.tables)
        || entries
            .scenarios
            .iter()
            .any(|scenario| in_keys(&scenario.keys, &scenario.tables))
}

/// `strategies` as written, if written.
fn strategy_names(top: &Lookup<'_, '_, '_>) -> Result<Option<Vec<&'static str>>, ConfigError> {
    if !top.written("strategies") {
        return Ok(None);
    }
    let key = SCHEMA.key("strategies").expect("declared");
    let names = top.with("strategies", |found| list(key, found))?;
    Ok(Some(
        names
            .into_iter()
            .map(|name| match name {
                Scalar::Name(name) => name,
                other => unreachable!("a strategy reads as a name, not {other:?}"),
            })
            .collect(),
    ))
}

/// The plain timeline's strategies: `lock_wait` needs a shared server.
fn plain_strategies(
    top: &Lookup<'_, '_, '_>,
    names: &[&str],
) -> Result<Vec<Strategy>, ConfigError> {
    names
        .iter()
        .map(|name| match *name {
            "none" => Ok(Strategy::None),
            "check_then_insert" => Ok(Strategy::CheckThenInsert),
            "unique_key" => Ok(Strategy::UniqueKey),
            _ => Err(top.refuse(
                "strategies",
                "lock_wait needs a shared server: add [server] workers = N (the load model, \
                 see docs/models/load.md)",
            )),
        })
        .collect()
}

/// The keys a file with a shared server does not take.
fn refuse_plain_only(top: &Lookup<'_, '_, '_>, overrides: &Overrides) -> Result<(), ConfigError> {
    if overrides.payments.is_some() {
        return Err(ConfigError::NotForModel {
            flag: "--payments",
            what: "timeline files with a shared server (payments arrive over \
                   arrivals.duration_s)"
                .into(),
        });
    }
    for (key, reason) in [(
        "payments",
        "a shared server gets its payments over arrivals.duration_s; leave payments out",
    )] {
        if top.written(key) {
            return Err(top.refuse(key, reason));
        }
    }
    Ok(())
}

/// The most time-series buckets over the arrival window.
pub const MAX_BUCKETS: f64 = 1e6;

/// `output.bucket_s` gives at most [`MAX_BUCKETS`] buckets over every scenario's window.
fn check_buckets(
    top: &Lookup<'_, '_, '_>,
    scenarios: &[LoadScenario],
    bucket_s: f64,
) -> Result<(), ConfigError> {
    let longest_ms = scenarios
        .iter()
        .map(|scenario| scenario.arrivals.duration_ms)
        .fold(0.0, f64::max);
    if longest_ms / (bucket_s * 1000.0) <= MAX_BUCKETS {
        return Ok(());
    }
    let reason = format!(
        "{} buckets of {bucket_s} s over arrivals.duration_s = {} s: at most 1000000; give a \
         wider bucket_s",
        (longest_ms / (bucket_s * 1000.0)).ceil(),
        longest_ms / 1000.0
    );
    if top.written("output.bucket_s") {
        Err(top.refuse("output.bucket_s", &reason))
    } else {
        let key = SCHEMA.key("output.bucket_s").expect("declared");
        let value = crate::config::read::default_value(key).expect("has a default");
        Err(
            Found::elsewhere(key.name, &value, crate::config::Origin::Default(key.name))
                .invalid(reason),
        )
    }
}

/// `output.warm_up_s` ends before every scenario's arrivals do (the default, 0, always does).
fn check_warm_up(
    top: &Lookup<'_, '_, '_>,
    scenarios: &[LoadScenario],
    warm_up_s: f64,
) -> Result<(), ConfigError> {
    let Some(shortest) = scenarios
        .iter()
        .min_by(|a, b| a.arrivals.duration_ms.total_cmp(&b.arrivals.duration_ms))
    else {
        return Ok(());
    };
    let duration_s = shortest.arrivals.duration_ms / 1000.0;
    if warm_up_s < duration_s {
        return Ok(());
    }
    Err(top.refuse(
        "output.warm_up_s",
        &format!(
            "the warm-up must end before the arrivals do: scenario {} has arrivals.duration_s = \
             {duration_s} s; give a shorter warm_up_s",
            shortest.name
        ),
    ))
}

/// The base scenario (named after the file) alone, or each `[[scenario]]` over it; the top
/// level's keys are checked either way.
fn scenarios<T>(
    document: &Document<'_>,
    entries: &Entries<'_, '_>,
    stem: &str,
    read: fn(&Lookup<'_, '_, '_>, String) -> Result<T, ConfigError>,
) -> Result<Vec<T>, ConfigError> {
    let base = Lookup::top(&SCHEMA, entries);
    let base_scenario = read(&base, stem.to_string())?;
    if entries.scenarios.is_empty() {
        return Ok(vec![base_scenario]);
    }
    let mut names = HashSet::new();
    let mut scenarios = Vec::with_capacity(entries.scenarios.len());
    for (index, entry) in entries.scenarios.iter().enumerate() {
        let name = match entry.name {
            Some(value) => {
                let found = Found::at(document, format!("scenario[{index}].name"), value);
                match value.get_ref().as_str() {
                    Some(name) if !name.trim().is_empty() && names.insert(name.to_string()) => {
                        name.to_string()
                    }
                    _ => return Err(found.invalid("every scenario needs a name of its own")),
                }
            }
            None => {
                return Err(document.problem(
                    &entry.span,
                    format!("scenario[{index}] needs a name: name = \"...\""),
                ));
            }
        };
        let lookup = Lookup {
            schema: &SCHEMA,
            base: entries,
            over: Some(entry),
        };
        scenarios.push(read(&lookup, name)?);
    }
    Ok(scenarios)
}
