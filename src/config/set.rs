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
