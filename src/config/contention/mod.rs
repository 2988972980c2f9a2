//! Contention files (`model = "contention"`): the keys ([`SCHEMA`]) read into one checked
//! [`ContentionConfig`]. Every key has a default: the AWS simulator's experiment (10 to 190
//! clients in steps of 10, 100 runs, base 5 ms, cap 2,000 ms, |N(10, 2)| ms per message,
//! unbounded retries), with all six policies.

use std::path::Path;

use crate::config::document::Document;
use crate::config::key::{
    DURATION_MS, Key, Kind, OUT_KEY, SEED_KEY, Schema, THREADS_KEY, runs_key,
};
use crate::config::lookup::Lookup;
use crate::config::overrides::Overrides;
use crate::config::read::{Found, Scalar, list, scalar};
use crate::config::set;
use crate::config::{ConfigError, DEFAULT_OUT, OutputSettings, tables};
use crate::model::contention::{ContentionModel, ContentionSetup, Delay, Policy};

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

/// The policies' names, in report order: the backoff policies of every model.
pub const POLICIES: &[&str] = tables::POLICIES;

/// Every key of a contention file.
pub const KEYS: &[Key] = &[
    Key::file(
        "clients",
        Kind::Special {
            expected: "client counts: a whole number, a list such as [10, 20, 50], or a range \
                       \"START:STOP:STEP\" (stop included); each from 1 to 100000, at most 1000 \
                       counts, each once",
        },
        Some("\"10:190:10\""),
        "The client counts swept, each racing for the same row.",
    ),
    runs_key(
        "100",
        "Independent runs per client count and policy. `--runs` overrides.",
    ),
    SEED_KEY,
    Key::file(
        "policies",
        Kind::List {
            item: &Kind::Choice(POLICIES),
            max_items: 6,
        },
        None,
        "The backoff policies compared, in report order. Absent: all six.",
    ),
    Key::file("base_ms", DURATION_MS, Some("5"), "The backoff's base."),
    Key::file(
        "cap_ms",
        DURATION_MS,
        Some("2000"),
        "The backoff's cap (at least base_ms).",
    ),
    Key::file(
        "delay",
        Kind::Special {
            expected: "every message's network delay: { distribution = \"normal\", mean_ms = 10, \
                       sd_ms = 2 } (a normal folded at 0) or a timeline distribution such as \
                       { distribution = \"fixed\", ms = 10 }",
        },
        Some("{ distribution = \"normal\", mean_ms = 10, sd_ms = 2 }"),
        "Every message's network delay, as the AWS simulator's abs(random.normalvariate(10, 2)) by default.",
    ),
    Key::file(
        "max_retries",
        Kind::Whole {
            min: 0,
            max: 1_000,
            unit: "retries",
        },
        None,
        "Rejected retries after which a client gives up. Absent: until its write is accepted. `--max-retries` overrides.",
    ),
    OUT_KEY,
    THREADS_KEY,
];

/// The contention model's schema.
pub const SCHEMA: Schema = Schema {
    model: "contention",
    keys: KEYS,
    listed_when_written: &[],
};

/// Reads a contention file merged under the flags.
pub fn read(
    document: &Document<'_>,
    others: &[Schema],
    overrides: &Overrides,
    default_threads: usize,
) -> Result<ContentionConfig, ConfigError> {
    let sets = set::documents(overrides)?;
    let entries = set::entries_with_sets(document, &sets, &SCHEMA, others, overrides)?;
    let file = Lookup::top(&SCHEMA, &entries);
    let runs = file.flag_or_whole(overrides.runs.map(u64::from), "runs")? as u32;
    let threads = file.threads(overrides.threads, default_threads)?;
    let max_retries = match overrides.max_retries {
        Some(retries) => Some(retries),
        None => file
            .optional_whole("max_retries")?
            .map(|retries| retries as u32),
    };
    let clients = file.with("clients", clients)?;
    let policies = if file.written("policies") {
        let key = SCHEMA.key("policies").expect("declared");
        file.with("policies", |found| list(key, found))?
            .into_iter()
            .map(|name| match name {
                Scalar::Name(name) => Policy::from_name(name).expect("a declared name"),
                other => unreachable!("a policy reads as a name, not {other:?}"),
            })
            .collect()
    } else {
        Policy::ALL.to_vec()
    };
    let base_ms = file.number("base_ms")?;
    let cap_ms = file.number("cap_ms")?;
    if cap_ms < base_ms {
        return Err(if file.written("cap_ms") {
            file.refuse(
                "cap_ms",
                &format!(
                    "the cap must be at least base_ms = {}",
                    crate::parse::shown(base_ms)
                ),
            )
        } else {
            file.refuse(
                "base_ms",
                &format!(
                    "the base must be at most cap_ms = {}",
                    crate::parse::shown(cap_ms)
                ),
            )
        });
    }
    let delay = file.with("delay", delay)?;
    let stem = document.path.file_stem().map_or_else(
        || "contention".to_string(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    let out_dir = match &overrides.out {
        Some(out) => out.clone(),
        None if file.written("out") => file.folder("out")?,
        None => Path::new(DEFAULT_OUT).join(&stem),
    };
    Ok(ContentionConfig {
        model: ContentionModel {
            title: document.path.file_name().map_or_else(
                || format!("{stem}.toml"),
                |name| name.to_string_lossy().into_owned(),
            ),
            seed: overrides.seed.map_or_else(|| file.whole("seed"), Ok)?,
            runs,
            clients,
            policies,
            base_ms,
            cap_ms,
            setup: ContentionSetup { delay, max_retries },
        },
        threads,
        output: overrides.output(out_dir),
    })
}

/// `clients`: a whole number, a list of them, or a range `"START:STOP:STEP"` (stop included).
fn clients(found: &Found<'_, '_>) -> Result<Vec<u32>, ConfigError> {
    use toml::de::DeValue;
    let count = |item: &Found<'_, '_>| -> Result<u32, ConfigError> {
        match crate::config::read::as_whole(item.value) {
            Ok(count) if (1..=u64::from(MAX_CLIENTS)).contains(&count) => Ok(count as u32),
            _ => Err(item.invalid(format!(
                "every client count must be a whole number from 1 to {MAX_CLIENTS}"
            ))),
        }
    };
    let counts: Vec<u32> = match found.value {
        DeValue::Integer(_) => vec![count(found)?],
        DeValue::Array(_) => found.list()?.iter().map(count).collect::<Result<_, _>>()?,
        DeValue::String(text) => clients_range(text).map_err(|reason| found.invalid(reason))?,
        _ => {
            return Err(found.invalid(
                "expected a whole number, a list of them or a range \"START:STOP:STEP\"",
            ));
        }
    };
    if counts.is_empty() || counts.len() > MAX_CLIENT_COUNTS {
        return Err(found.invalid(format!("list from 1 to {MAX_CLIENT_COUNTS} client counts")));
    }
    let distinct: std::collections::HashSet<u32> = counts.iter().copied().collect();
    if distinct.len() != counts.len() {
        return Err(found.invalid("list each client count once"));
    }
    Ok(counts)
}

/// `"START:STOP:STEP"`: START, START + STEP, ... up to STOP included.
pub fn clients_range(text: &str) -> Result<Vec<u32>, String> {
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
        .map(|index| {
            let clients = start + index * step;
            if (1..=i64::from(MAX_CLIENTS)).contains(&clients) {
                Ok(clients as u32)
            } else {
                Err(format!(
                    "every client count must be a whole number from 1 to {MAX_CLIENTS}, got \
                     {clients}"
                ))
            }
        })
        .collect()
}

/// `delay`: `{ distribution = "normal", mean_ms, sd_ms }` or any timeline distribution.
fn delay(found: &Found<'_, '_>) -> Result<Delay, ConfigError> {
    if !tables::names_distribution(found.value, "normal") {
        return tables::distribution(found).map(Delay::Timeline);
    }
    let fields = found.table(
        "a normal distribution",
        &["distribution", "mean_ms", "sd_ms"],
    )?;
    let duration = Key::file("", DURATION_MS, None, "");
    let field = |name: &str| -> Result<f64, ConfigError> {
        let (_, value) = fields
            .iter()
            .find(|(field, _)| *field == name)
            .ok_or_else(|| {
                found.invalid(format!(
                    "a normal distribution needs mean_ms and sd_ms, e.g. {{ distribution = \
                     \"normal\", mean_ms = 10, sd_ms = 2 }}; `{name}` is missing"
                ))
            })?;
        match scalar(&duration, value)? {
            Scalar::Number(value) => Ok(value),
            other => unreachable!("a duration, not {other:?}"),
        }
    };
    Ok(Delay::FoldedNormal {
        mean_ms: field("mean_ms")?,
        sd_ms: field("sd_ms")?,
    })
}
