//! `--set KEY=VALUE`: a key of the config file given on the command line, written as in the
//! file (`client.timeout_ms=2s`, `server.error_policy=retry`,
//! `network.request_latency={ distribution = "fixed", ms = 5 }`). Each is read as a
//! one-line TOML document of its own and merged over the file's keys, so it is checked by the
//! same declarations, in the same words, as the file's (its origin is the flag as typed).
//! A key set this way applies to every scenario: it replaces what a `[[scenario]]` entry
//! writes for it.

use super::ConfigError;
use super::document::{Document, Entries};
use super::key::Schema;
use super::overrides::Overrides;

/// One key's value given outside the file's own keys: `--set KEY=VALUE`, one value of a
/// `--sweep`, or one value of the file's `[sweep]` table; and the TOML line it is read as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assignment {
    /// The key as typed (`client.timeout_ms`).
    pub key: String,
    /// `KEY = VALUE` as TOML: the value as typed if it is a TOML value, else as a string.
    toml: String,
    /// Where it was given, for its errors.
    pub source: Source,
}

/// Where an [`Assignment`] was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A flag, as typed in full: `--set client.timeout_ms=2s`, `--sweep client.timeout_ms=1,2`.
    Flag(String),
    /// A value of a config file's `[sweep]` table.
    File {
        /// The file as given.
        path: std::path::PathBuf,
        /// Its 1-based line and column.
        at: (usize, usize),
        /// The line as written, for the error.
        excerpt: String,
    },
}

impl Assignment {
    /// `--set KEY=VALUE` as typed (`written` is what follows `--set`): split at the first
    /// `=`. The key is checked against the model's keys later, with the file.
    pub fn parse(written: &str) -> Result<Self, String> {
        let (key, value) = split_key(written)?;
        Ok(Self::new(
            key,
            value,
            Source::Flag(format!("--set {written}")),
        ))
    }

    /// `key` at `value`, given at `source`; a value that is not a TOML value (`retry`, `2s`)
    /// is read as a string.
    pub fn new(key: &str, value: &str, source: Source) -> Self {
        let value = value.trim();
        let probe = format!("value = {value}");
        let value = if toml::de::DeTable::parse(&probe).is_ok() {
            value.to_string()
        } else {
            toml::Value::String(value.to_string()).to_string()
        };
        Self {
            key: key.to_string(),
            toml: format!("{key} = {value}"),
            source,
        }
    }

    /// Its TOML line.
    pub fn toml(&self) -> &str {
        &self.toml
    }

    /// Its value as TOML text.
    pub fn value(&self) -> &str {
        &self.toml[self.key.len() + 3..]
    }
}

/// `KEY=VALUE` split at the first `=`, the key trimmed and not empty.
pub fn split_key(written: &str) -> Result<(&str, &str), String> {
    let Some((key, value)) = written.split_once('=') else {
        return Err(
            "expected KEY=VALUE with the key as a config file writes it, e.g. \
             client.timeout_ms=2s"
                .into(),
        );
    };
    let key = key.trim();
    if key.is_empty() {
        return Err("the key before `=` is empty: write KEY=VALUE".into());
    }
    Ok((key, value))
}

/// Every `--set` of `overrides` parsed as a document of its own.
pub fn documents(overrides: &Overrides) -> Result<Vec<Document<'_>>, ConfigError> {
    overrides.set.iter().map(Document::assignment).collect()
}

/// `entries` (a file's keys) with every `--set` of `sets` (from [`documents`]) merged over
/// them, later ones winning; a set key is dropped from every `[[scenario]]` entry, so that
/// the value set applies to all. A key that a dedicated flag of `overrides` also sets
/// (`seed` and `--seed`) is refused, as is `model` (the file's model is the file's).
pub fn merge<'d, 't>(
    mut entries: Entries<'d, 't>,
    sets: &'d [Document<'t>],
    schema: &Schema,
    others: &[Schema],
    overrides: &Overrides,
) -> Result<Entries<'d, 't>, ConfigError> {
    for set in sets {
        if set.top("model").is_some() {
            return Err(set.problem(
                &(0..0),
                "the model is the config file's `model`; write another file to run another model",
            ));
        }
        let found = set.entries(schema, others, &[])?;
        if !found.scenarios.is_empty() {
            return Err(set.problem(
                &(0..0),
                "`--set` sets a key for every scenario; write `[[scenario]]` entries in the file",
            ));
        }
        for (key, entry) in found.base {
            if let Some(flag) = overrides.flag_setting(key) {
                return Err(set.problem(
                    &(0..0),
                    format!("`{key}` is also set by {flag}: give one of the two"),
                ));
            }
            for scenario in &mut entries.scenarios {
                scenario.keys.remove(key);
            }
            entries.base.insert(key, entry);
        }
        entries.tables.extend(found.tables);
    }
    Ok(entries)
}

/// Reads `document`'s keys in `schema`, with every `--set` of `overrides` merged over them.
pub fn entries_with_sets<'d, 't>(
    document: &'d Document<'t>,
    sets: &'d [Document<'t>],
    schema: &Schema,
    others: &[Schema],
    overrides: &Overrides,
) -> Result<Entries<'d, 't>, ConfigError> {
    let entries = document.entries(schema, others, &["model", "sweep"])?;
    merge(entries, sets, schema, others, overrides)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_toml_or_strings() {
        let toml = |written: &str| Assignment::parse(written).unwrap().toml;
        assert_eq!(toml("client.timeout_ms=2000"), "client.timeout_ms = 2000");
        assert_eq!(toml("client.timeout_ms=2s"), "client.timeout_ms = \"2s\"");
        assert_eq!(
            toml("server.error_policy = retry"),
            "server.error_policy = \"retry\""
        );
        assert_eq!(toml("strategies=[\"none\"]"), "strategies = [\"none\"]");
        assert_eq!(toml("a=say \"hi\""), "a = 'say \"hi\"'");
        let set = Assignment::parse("client.timeout_ms=2s").unwrap();
        assert_eq!(set.value(), "\"2s\"");
        assert_eq!(
            set.source,
            Source::Flag("--set client.timeout_ms=2s".into())
        );
        assert!(Assignment::parse("client.timeout_ms").is_err());
        assert!(Assignment::parse("=5").is_err());
    }
}
