//! Every key of a file's model as one scenario sees it, defaults filled in: its value as
//! written (or its default), its unit, and where it came from (the file's line, a flag, the
//! default). `simulate check` prints these; they come from the same declarations and the same
//! lookup the run reads, so they are what the run uses.

use std::path::Path;

use serde::Serialize;

use super::document::Document;
use super::key::{Kind, Schema, TimeUnit};
use super::lookup::Lookup;
use super::overrides::Overrides;
use super::read::value_text;
use super::{ConfigError, SCHEMAS};

/// One key's setting in one scenario.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Setting {
    /// The key, e.g. `client.timeout_ms`.
    pub key: &'static str,
    /// Its value as written in the file or the flag, or its default; empty when neither.
    pub value: String,
    /// Its unit (`ms`, `s`, `retries`), empty for a name, a switch or a table.
    pub unit: &'static str,
    /// Where it came from: `line 7`, `--seed`, `default`, or `not set` (absence has the
    /// meaning the key's doc gives).
    pub source: String,
}

/// One scenario's settings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScenarioSettings {
    /// Its name (`[[scenario]]`'s `name`, or the file's name without `.toml`).
    pub name: String,
    /// Every key of the model, in the schema's order.
    pub settings: Vec<Setting>,
}

/// The flag that sets a file key, if there is one.
fn flag_of(key: &str, overrides: &Overrides) -> Option<(&'static str, String)> {
    let shown = |value: Option<String>, flag: &'static str| value.map(|value| (flag, value));
    match key {
        "seed" => shown(overrides.seed.map(|v| v.to_string()), "--seed"),
        "runs" => shown(overrides.runs.map(|v| v.to_string()), "--runs"),
        "payments" => shown(overrides.payments.map(|v| v.to_string()), "--payments"),
        "requests" => shown(overrides.requests.map(|v| v.to_string()), "--requests"),
        "max_retries" => shown(
            overrides.max_retries.map(|v| v.to_string()),
            "--max-retries",
        ),
        "threads" => shown(overrides.threads.map(|v| v.to_string()), "--threads"),
        "engine" => shown(overrides.engine.map(|v| v.name().to_string()), "--engine"),
        "out" => shown(
            overrides.out.as_ref().map(|v| v.display().to_string()),
            "--out",
        ),
        "p" => shown(
            overrides.ack_loss.as_ref().map(|values| {
                let values: Vec<String> = values.iter().map(f64::to_string).collect();
                values.join(",")
            }),
            "--p",
        ),
        _ => None,
    }
}

/// The unit a key's value is in.
fn unit(kind: &Kind) -> &'static str {
    match kind {
        Kind::Number { unit, .. } => unit,
        Kind::Duration { unit, .. } => unit.symbol(),
        _ => "",
    }
}

/// A duration written with its own unit, also in the key's (`"2s"` is `2000 ms`).
fn in_key_unit(kind: &Kind, written: &str) -> String {
    let Kind::Duration { unit, .. } = kind else {
        return written.to_string();
    };
    let text = written.trim_matches('"');
    match humantime::parse_duration(text) {
        Ok(duration) if written.starts_with('"') => {
            let value = duration.as_nanos() as f64 / (unit.seconds() * 1e9);
            let symbol = match unit {
                TimeUnit::Milliseconds => "ms",
                TimeUnit::Seconds => "s",
            };
            format!("{written} ({value} {symbol})")
        }
        _ => written.to_string(),
    }
}

/// Every scenario's settings of a config file's text (`path`), with the flags.
pub fn of(
    text: &str,
    path: &Path,
    overrides: &Overrides,
) -> Result<(&'static str, Vec<ScenarioSettings>), ConfigError> {
    let document = Document::parse(text, path)?;
    let model = super::model_name(&document)?;
    let schema: &'static Schema = SCHEMAS
        .iter()
        .find(|schema| schema.model == model)
        .expect("a known model");
    let others: Vec<Schema> = SCHEMAS.into_iter().filter(|s| s.model != model).collect();
    let sets = super::set::documents(overrides)?;
    let entries = super::set::entries_with_sets(&document, &sets, schema, &others, overrides)?;
    let stem = path
        .file_stem()
        .map_or_else(String::new, |stem| stem.to_string_lossy().into_owned());
    let mut scenarios = Vec::new();
    let views: Vec<(String, Option<usize>)> = if entries.scenarios.is_empty() {
        vec![(stem, None)]
    } else {
        entries
            .scenarios
            .iter()
            .enumerate()
            .map(|(index, scenario)| {
                let name = scenario
                    .name
                    .and_then(|value| value.get_ref().as_str().map(str::to_string))
                    .unwrap_or_default();
                (name, Some(index))
            })
            .collect()
    };
    for (name, index) in views {
        let lookup = Lookup {
            schema,
            base: &entries,
            over: index.map(|index| &entries.scenarios[index]),
        };
        let settings = schema
            .keys
            .iter()
            .filter(|key| super::timeline::keys::listed(&lookup, key.name))
            .map(|key| setting(&lookup, key.name, overrides))
            .collect();
        scenarios.push(ScenarioSettings { name, settings });
    }
    unlisted_unless_written(schema, &mut scenarios);
    Ok((model, scenarios))
}

/// Drops the keys of each of `schema`'s [`Schema::listed_when_written`] tables (or the key
/// itself, for a name that is a key) from every
/// scenario's settings when no scenario writes one of them (every source `default` or `not
/// set`).
fn unlisted_unless_written(schema: &Schema, scenarios: &mut [ScenarioSettings]) {
    let in_table = |key: &str, table: &str| {
        key == table
            || key
                .strip_prefix(table)
                .is_some_and(|rest| rest.starts_with('.'))
    };
    for table in schema.listed_when_written {
        let written = scenarios.iter().any(|scenario| {
            scenario.settings.iter().any(|setting| {
                in_table(setting.key, table)
                    && setting.source != "default"
                    && setting.source != "not set"
            })
        });
        if !written {
            for scenario in scenarios.iter_mut() {
                scenario
                    .settings
                    .retain(|setting| !in_table(setting.key, table));
            }
        }
    }
}

/// One key's setting as `lookup` sees it.
fn setting(lookup: &Lookup<'_, '_, '_>, name: &'static str, overrides: &Overrides) -> Setting {
    let key = lookup.schema.key(name).expect("a declared key");
    let unit = unit(&key.kind);
    if let Some((flag, value)) = flag_of(name, overrides) {
        return Setting {
            key: name,
            value,
            unit,
            source: flag.to_string(),
        };
    }
    if let Some(entry) = lookup.entry(name) {
        let span = entry.value.span();
        let written = entry.document.text.get(span.clone()).unwrap_or("").trim();
        let (line, _) = entry.document.position(span.start);
        let source = match (entry.document.set_by(), entry.index) {
            (Some(flag), _) => flag.to_string(),
            (None, Some(index)) => format!("scenario[{index}], line {line}"),
            (None, None) => format!("line {line}"),
        };
        return Setting {
            key: name,
            value: in_key_unit(&key.kind, written),
            unit,
            source,
        };
    }
    match key.default {
        Some(default) => Setting {
            key: name,
            value: value_text(
                &toml::de::DeValue::parse(default)
                    .expect("a declared default is TOML")
                    .into_inner(),
            ),
            unit,
            source: "default".into(),
        },
        None => Setting {
            key: name,
            value: String::new(),
            unit,
            source: "not set".into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find<'a>(scenario: &'a ScenarioSettings, key: &str) -> &'a Setting {
        scenario
            .settings
            .iter()
            .find(|setting| setting.key == key)
            .unwrap_or_else(|| panic!("{key}"))
    }

    #[test]
    fn every_key_is_shown_from_the_file_the_flags_or_its_default() {
        let text = "model = \"timeline\"\nseed = 5\n[client]\ntimeout_ms = \"2s\"\n\
                    [[scenario]]\nname = \"slow\"\nclient = { max_retries = 7 }\n";
        let overrides = Overrides {
            runs: Some(3),
            ..Overrides::default()
        };
        let (model, scenarios) = of(text, Path::new("a.toml"), &overrides).unwrap();
        assert_eq!(model, "timeline");
        let [slow] = &scenarios[..] else {
            panic!("one scenario")
        };
        assert_eq!(slow.name, "slow");
        let timeout = find(slow, "client.timeout_ms");
        assert_eq!(
            (
                timeout.value.as_str(),
                timeout.unit,
                timeout.source.as_str()
            ),
            ("\"2s\" (2000 ms)", "ms", "line 4")
        );
        let retries = find(slow, "client.max_retries");
        assert_eq!(
            (retries.value.as_str(), retries.source.as_str()),
            ("7", "scenario[0], line 7")
        );
        assert_eq!(find(slow, "runs").source, "--runs");
        assert_eq!(find(slow, "seed").value, "5");
        let rate = find(slow, "arrivals.rate_per_s");
        assert_eq!(
            (rate.value.as_str(), rate.source.as_str()),
            ("100", "default")
        );
        assert_eq!(find(slow, "server.workers").source, "not set");
        // Every declared key is listed, but the keys of a retry control not in effect and
        // the six listed only when written (client.offline's two, client.reconciliation's
        // one, key_store.latency, server.completer_work and receipts.relay_work).
        let keys = super::super::timeline::keys::KEYS;
        let control = |name: &str| {
            super::super::timeline::keys::CONTROL_TABLES
                .iter()
                .any(|(table, _)| name.starts_with(&format!("{table}.")))
        };
        let controls = keys.iter().filter(|key| control(key.name)).count();
        assert_eq!(controls, 9);
        assert_eq!(slow.settings.len(), keys.len() - controls - 6);
        assert!(slow.settings.iter().all(|setting| !control(setting.key)));
        assert!(
            slow.settings
                .iter()
                .all(|s| !s.key.starts_with("client.offline."))
        );
    }

    #[test]
    fn a_table_listed_when_written_is_listed_in_every_scenario_once_one_writes_it() {
        let text = "model = \"timeline\"\n[[scenario]]\nname = \"a\"\n\
                    [[scenario]]\nname = \"b\"\nclient = { offline = { share = 0.1 } }\n";
        let (_, scenarios) = of(text, Path::new("a.toml"), &Overrides::default()).unwrap();
        let keys = super::super::timeline::keys::KEYS.len();
        // The nine keys of the retry controls, none in effect, are not listed.
        let controls = 9;
        for scenario in &scenarios {
            // client.offline's two keys are listed; client.reconciliation's one,
            // key_store.latency, server.completer_work and receipts.relay_work are not.
            assert_eq!(
                scenario.settings.len(),
                keys - 4 - controls,
                "{}",
                scenario.name
            );
        }
        assert_eq!(
            find(&scenarios[0], "client.offline.share").source,
            "default"
        );
        let share = find(&scenarios[1], "client.offline.share");
        assert_eq!(
            (share.value.as_str(), share.source.as_str()),
            ("0.1", "scenario[1], line 6")
        );
        assert_eq!(
            find(&scenarios[1], "client.offline.duration").source,
            "default"
        );
    }
}
