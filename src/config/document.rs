//! A config file parsed once, with the position of every value: TOML syntax checked by the
//! `toml` crate's spanned parser, then every key looked up in the model's [`Schema`] (an
//! unknown key is refused with a did-you-mean, or with the model it belongs to), the top-level
//! keys and each `[[scenario]]` entry's kept as [`Entry`]s for the model's config to read.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use toml::de::{DeTable, DeValue};

use super::assignment::{Assignment, Source};
use super::key::{Key, Schema, did_you_mean};
use super::{ConfigError, Origin};

/// A spanned TOML value of the file.
pub type Value<'t> = toml::Spanned<DeValue<'t>>;

/// A config file's text, its path and its parsed tables.
#[derive(Debug)]
pub struct Document<'t> {
    /// The file as given.
    pub path: &'t Path,
    /// Its text.
    pub text: &'t str,
    /// Its top-level table.
    root: DeTable<'t>,
    /// For a value given outside the file's keys (`--set`, a sweep's; see
    /// [`crate::config::set`]): the assignment, whose source its errors name.
    assignment: Option<&'t Assignment>,
}

/// A key written in the file: where, as what, and its value.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'d, 't> {
    /// The document it was written in: the file, or a `--set`.
    pub document: &'d Document<'t>,
    /// The schema's key, e.g. `client.timeout_ms`.
    pub key: &'static str,
    /// The `[[scenario]]` entry it was written in, if any.
    pub index: Option<usize>,
    /// The value.
    pub value: &'d Value<'t>,
}

impl Entry<'_, '_> {
    /// The key as the user reads it in errors: `client.timeout_ms` or
    /// `scenario[1].client.timeout_ms`.
    pub fn written(&self) -> String {
        match self.index {
            Some(index) => format!("scenario[{index}].{}", self.key),
            None => self.key.to_string(),
        }
    }
}

/// The keys of a file: the top level's, and each `[[scenario]]` entry's with its name.
#[derive(Debug, Default)]
pub struct Entries<'d, 't> {
    /// Top-level keys by schema key.
    pub base: BTreeMap<&'static str, Entry<'d, 't>>,
    /// The tables of keys written at the top level (`client.token_bucket`, `provider`), even
    /// empty ones, with where they start.
    pub tables: BTreeMap<String, Place<'d, 't>>,
    /// Each `[[scenario]]` entry: its `name` (and where it is) and its keys.
    pub scenarios: Vec<Scenario<'d, 't>>,
}

/// Where something was written: its document (the file or a `--set`) and its bytes there.
#[derive(Debug, Clone)]
pub struct Place<'d, 't> {
    /// The file, or a `--set`.
    pub document: &'d Document<'t>,
    /// Its bytes in the document's text.
    pub span: Range<usize>,
}

impl Place<'_, '_> {
    /// A problem with what is written here, in words.
    pub fn problem(&self, message: impl Into<String>) -> ConfigError {
        self.document.problem(&self.span, message)
    }
}

/// One `[[scenario]]` entry.
#[derive(Debug)]
pub struct Scenario<'d, 't> {
    /// Its `name`, if written, and the name's value.
    pub name: Option<&'d Value<'t>>,
    /// Where the entry starts.
    pub span: Range<usize>,
    /// Its keys by schema key.
    pub keys: BTreeMap<&'static str, Entry<'d, 't>>,
    /// The tables of keys it writes, even empty ones.
    pub tables: BTreeMap<String, Place<'d, 't>>,
}

impl<'t> Document<'t> {
    /// Parses `text` (read from `path`); a syntax error is one line naming the file, the line
    /// and the column.
    pub fn parse(text: &'t str, path: &'t Path) -> Result<Self, ConfigError> {
        let root = DeTable::parse(text).map_err(|error| {
            let message = error.message().trim().replace('\n', " ");
            let message = match error.span() {
                Some(span) => {
                    let (line, column) = line_and_column(text, span.start);
                    format!(
                        "line {line}, column {column}: {message} (in `{}`)",
                        excerpt(text, line)
                    )
                }
                None => message,
            };
            ConfigError::Parse {
                path: path.to_path_buf(),
                message,
            }
        })?;
        Ok(Self {
            path,
            text,
            root: root.into_inner(),
            assignment: None,
        })
    }

    /// An [`Assignment`] as a document of one key. Text that is not a TOML assignment is
    /// refused naming where it was given.
    pub fn assignment(assignment: &'t Assignment) -> Result<Self, ConfigError> {
        let text = assignment.toml();
        let root = DeTable::parse(text).map_err(|error| {
            let message = format!(
                "{}: write KEY=VALUE with the key as a config file writes it, e.g. \
                 client.timeout_ms=2s",
                error.message().trim().replace('\n', " ")
            );
            assigned_problem(assignment, message)
        })?;
        Ok(Self {
            path: Path::new(""),
            text,
            root: root.into_inner(),
            assignment: Some(assignment),
        })
    }

    /// The flag this document was given by, as typed, if it is a flag's.
    pub fn set_by(&self) -> Option<&'t str> {
        match self.assignment.map(|assignment| &assignment.source) {
            Some(Source::Flag(flag)) => Some(flag),
            _ => None,
        }
    }

    /// The file and place of a value of the file's `[sweep]` this document is, if it is one.
    pub fn swept_at(&self) -> Option<(&'t Path, (usize, usize))> {
        match self.assignment.map(|assignment| &assignment.source) {
            Some(Source::File { path, at, .. }) => Some((path, *at)),
            _ => None,
        }
    }

    /// The folder a relative path written in this document is read from: the config file's
    /// (also for a value of its `[sweep]`), or the working directory for a `--set` flag's.
    pub fn folder(&self) -> PathBuf {
        let file = self.swept_at().map_or(self.path, |(path, _)| path);
        file.parent().map(Path::to_path_buf).unwrap_or_default()
    }

    /// The top-level value of `key`, if written.
    pub fn top(&self, key: &str) -> Option<&Value<'t>> {
        self.root
            .iter()
            .find(|(name, _)| name.get_ref().as_ref() == key)
            .map(|(_, value)| value)
    }

    /// The top-level keys as written, in the file's order.
    pub fn top_keys(&self) -> Vec<&str> {
        let mut keys: Vec<(usize, &str)> = self
            .root
            .iter()
            .map(|(name, _)| (name.span().start, name.get_ref().as_ref()))
            .collect();
        keys.sort();
        keys.into_iter().map(|(_, name)| name).collect()
    }

    /// Where byte `offset` is: its 1-based line and column (in characters).
    pub fn position(&self, offset: usize) -> (usize, usize) {
        line_and_column(self.text, offset)
    }

    /// The origin of a value at `span` of key `key` (as the user reads it).
    pub fn origin(&self, key: &str, span: &Range<usize>) -> Origin {
        if let Some(assignment) = self.assignment {
            return match &assignment.source {
                Source::Flag(flag) => Origin::Set {
                    key: key.to_string(),
                    flag: flag.clone(),
                },
                Source::File { path, at, .. } => Origin::File {
                    path: path.clone(),
                    key: format!("sweep.{key}"),
                    at: Some(*at),
                },
            };
        }
        Origin::File {
            path: self.path.to_path_buf(),
            key: key.to_string(),
            at: Some(self.position(span.start)),
        }
    }

    /// A problem with the file at `span`, in words: `config file F: line L, column C: ...`.
    pub fn problem(&self, span: &Range<usize>, message: impl Into<String>) -> ConfigError {
        if let Some(assignment) = self.assignment {
            return assigned_problem(assignment, message.into());
        }
        let (line, column) = self.position(span.start);
        ConfigError::Parse {
            path: self.path.to_path_buf(),
            message: format!(
                "line {line}, column {column}: {} (in `{}`)",
                message.into(),
                excerpt(self.text, line)
            ),
        }
    }

    /// Every key of the file looked up in `schema` (`others`: the other models' schemas, to
    /// name the one an unknown key belongs to); `[[scenario]]` entries are read when the
    /// schema has per-scenario keys. `ignored` top-level keys are read by the caller.
    pub fn entries<'d>(
        &'d self,
        schema: &Schema,
        others: &[Schema],
        ignored: &[&str],
    ) -> Result<Entries<'d, 't>, ConfigError> {
        let mut entries = Entries::default();
        let scenarios = schema.keys.iter().any(|key| key.per_scenario);
        let top = Walk {
            prefix: "",
            index: None,
            per_scenario_only: false,
        };
        let take = |name: &str, value: &'d Value<'t>| {
            if ignored.contains(&name) {
                return Ok(true);
            }
            if name == "scenario" && scenarios {
                entries.scenarios = self.scenario_entries(schema, others, value)?;
                return Ok(true);
            }
            Ok(false)
        };
        let out = (&mut entries.base, &mut entries.tables);
        self.walk_table(schema, others, top, &self.root, take, out)?;
        Ok(entries)
    }

    /// The `[[scenario]]` entries: an array of tables, each with a `name` and per-scenario
    /// keys.
    fn scenario_entries<'d>(
        &'d self,
        schema: &Schema,
        others: &[Schema],
        value: &'d Value<'t>,
    ) -> Result<Vec<Scenario<'d, 't>>, ConfigError> {
        let Some(array) = value.get_ref().as_array() else {
            return Err(self.problem(
                &value.span(),
                "`scenario` must be a list of tables: write each scenario as `[[scenario]]` \
                 (two brackets), with its `name` and the keys it changes",
            ));
        };
        let mut scenarios = Vec::with_capacity(array.len());
        for (index, item) in array.iter().enumerate() {
            let Some(table) = item.get_ref().as_table() else {
                return Err(self.problem(
                    &item.span(),
                    "every `[[scenario]]` entry is a table with a `name`",
                ));
            };
            let mut scenario = Scenario {
                name: None,
                span: item.span(),
                keys: BTreeMap::new(),
                tables: BTreeMap::new(),
            };
            let entry = Walk {
                prefix: "",
                index: Some(index),
                per_scenario_only: true,
            };
            let take = |name: &str, value| {
                let is_name = name == "name";
                if is_name {
                    scenario.name = Some(value);
                }
                Ok(is_name)
            };
            let out = (&mut scenario.keys, &mut scenario.tables);
            self.walk_table(schema, others, entry, table, take, out)?;
            scenarios.push(scenario);
        }
        Ok(scenarios)
    }

    /// Walks every item of `table` (the file's top level, a `[[scenario]]` entry or a table
    /// of keys, where `walk` says) in the order of the file, but for those `take` takes (it
    /// is given the item's name and value and says whether it took it).
    fn walk_table<'d>(
        &'d self,
        schema: &Schema,
        others: &[Schema],
        walk: Walk<'_>,
        table: &'d DeTable<'t>,
        mut take: impl FnMut(&str, &'d Value<'t>) -> Result<bool, ConfigError>,
        out: (
            &mut BTreeMap<&'static str, Entry<'d, 't>>,
            &mut BTreeMap<String, Place<'d, 't>>,
        ),
    ) -> Result<(), ConfigError> {
        let (keys, tables) = out;
        let mut items: Vec<_> = table.iter().collect();
        items.sort_by_key(|(name, _)| name.span().start);
        for (name, value) in items {
            if !take(name.get_ref().as_ref(), value)? {
                self.walk(
                    schema,
                    others,
                    walk,
                    name,
                    value,
                    (&mut *keys, &mut *tables),
                )?;
            }
        }
        Ok(())
    }

    /// Looks `name` (under `walk.prefix`) up in the schema: a key is kept, a table of keys is
    /// walked into, anything else is refused in one line.
    fn walk<'d>(
        &'d self,
        schema: &Schema,
        others: &[Schema],
        walk: Walk<'_>,
        name: &toml::Spanned<std::borrow::Cow<'t, str>>,
        value: &'d Value<'t>,
        out: (
            &mut BTreeMap<&'static str, Entry<'d, 't>>,
            &mut BTreeMap<String, Place<'d, 't>>,
        ),
    ) -> Result<(), ConfigError> {
        let (keys, tables) = out;
        let full = format!("{}{}", walk.prefix, name.get_ref());
        if let Some(key) = schema.key(&full) {
            if walk.per_scenario_only && !key.per_scenario {
                return Err(self.problem(
                    &name.span(),
                    format!(
                        "`{full}` applies to the whole file, not to one scenario: move it out \
                         of the `[[scenario]]` entry"
                    ),
                ));
            }
            keys.insert(
                key.name,
                Entry {
                    document: self,
                    key: key.name,
                    index: walk.index,
                    value,
                },
            );
            return Ok(());
        }
        if schema.is_table(&full) {
            let Some(table) = value.get_ref().as_table() else {
                return Err(self.problem(
                    &value.span(),
                    format!("`{full}` is a table of keys: write [{full}] and its keys below it"),
                ));
            };
            let prefix = format!("{full}.");
            tables.insert(
                full.clone(),
                Place {
                    document: self,
                    span: value.span(),
                },
            );
            let inner = Walk {
                prefix: &prefix,
                ..walk
            };
            let take = |_: &str, _| Ok(false);
            return self.walk_table(schema, others, inner, table, take, (keys, tables));
        }
        Err(self.problem(&name.span(), unknown_key(&full, schema, others)))
    }
}

/// A problem with an [`Assignment`], in words, naming where it was given.
fn assigned_problem(assignment: &Assignment, message: String) -> ConfigError {
    match &assignment.source {
        Source::Flag(flag) => ConfigError::Set {
            flag: flag.clone(),
            message,
        },
        Source::File { path, at, excerpt } => ConfigError::Parse {
            path: path.clone(),
            message: format!("line {}, column {}: {message} (in `{excerpt}`)", at.0, at.1),
        },
    }
}

/// Where a walk is: the tables above the key, the `[[scenario]]` entry it is in.
#[derive(Debug, Clone, Copy)]
struct Walk<'p> {
    prefix: &'p str,
    index: Option<usize>,
    per_scenario_only: bool,
}

/// Keys that earlier versions read, with what replaced them: a file that still writes one is
/// told how to say the same thing now.
const RETIRED: [(&str, &str); 2] = [
    (
        "ttl_sweep_ms",
        "sweep the key TTL like any key, in a [sweep] table (`[sweep]` then \
         `\"server.key_ttl_ms\" = [\"1s\", \"20s\", \"1h\"]`) or with \
         `--sweep server.key_ttl_ms=1s,20s,1h`",
    ),
    (
        "output.error_rate_sweep",
        "sweep the error rate like any key, in a [sweep] table (`[sweep]` then \
         `\"server.error_rate\" = [0, 0.1, 0.5]`) or with `--sweep server.error_rate=0,0.1,0.5`",
    ),
];

/// Why `full` is not a key of `schema`: a likely typo, another model's key, or neither.
fn unknown_key(full: &str, schema: &Schema, others: &[Schema]) -> String {
    if let Some((_, advice)) = RETIRED.iter().find(|(key, _)| *key == full) {
        return format!("`{full}` is no longer a key: {advice}");
    }
    let (table, leaf) = full.rsplit_once('.').unwrap_or(("", full));
    let moved = |key: &&Key| {
        key.table() != table && key.name.rsplit_once('.').map_or(key.name, |(_, l)| l) == leaf
    };
    if let Some(elsewhere) = schema.keys.iter().find(moved) {
        let place = match elsewhere.table() {
            "" => "at the top level, before any [table]".to_string(),
            other => format!("in [{other}] (`{}`)", elsewhere.name),
        };
        return format!(
            "unknown key `{full}` for the {} model: `{leaf}` belongs {place}",
            schema.model
        );
    }
    let same_table = schema
        .keys
        .iter()
        .filter(|key| key.table() == table)
        .map(|key| key.name);
    if let Some(near) = did_you_mean(
        full,
        same_table.chain(schema.keys.iter().map(|key| key.name)),
    ) {
        return format!(
            "unknown key `{full}` for the {} model: did you mean `{near}`?",
            schema.model
        );
    }
    if let Some(owner) = others
        .iter()
        .find(|other| other.key(full).is_some() || other.is_table(full))
    {
        return format!(
            "unknown key `{full}` for the {} model: it is a key of the {} model (write \
             model = \"{}\" at the top of the file)",
            schema.model, owner.model, owner.model
        );
    }
    format!(
        "unknown key `{full}` for the {} model (`simulate help config {}` lists its keys)",
        schema.model, schema.model
    )
}

/// Line `line` (1-based) of `text`, trimmed and cut to 60 characters, to show in an error.
pub fn excerpt(text: &str, line: usize) -> String {
    let whole = text
        .lines()
        .nth(line.saturating_sub(1))
        .unwrap_or("")
        .trim();
    match whole.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &whole[..cut]),
        None => whole.to_string(),
    }
}

/// The 1-based line and column (in characters) of a byte offset.
pub fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

/// The path of a config file given on the command line, for [`Origin`]s.
pub fn owned(path: &Path) -> PathBuf {
    path.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::super::key::{Key, Kind};
    use super::*;

    const KEYS: &[Key] = &[
        Key::file("seed", Kind::Switch, None, "a"),
        Key::scenario("client.timeout_ms", Kind::Switch, None, "b"),
        Key::scenario("client.max_retries", Kind::Switch, None, "c"),
    ];
    const SCHEMA: Schema = Schema {
        model: "timeline",
        keys: KEYS,
        listed_when_written: &[],
    };
    const OTHER: Schema = Schema {
        model: "article",
        keys: &[Key::file("requests", Kind::Switch, None, "d")],
        listed_when_written: &[],
    };

    fn entries(text: &str) -> Result<Vec<String>, String> {
        let document = Document::parse(text, Path::new("f.toml")).map_err(|e| e.to_string())?;
        let entries = document
            .entries(&SCHEMA, &[OTHER], &[])
            .map_err(|e| e.to_string())?;
        let mut found: Vec<String> = entries.base.keys().map(|k| k.to_string()).collect();
        for (index, scenario) in entries.scenarios.iter().enumerate() {
            found.extend(scenario.keys.keys().map(|k| format!("{index}:{k}")));
        }
        Ok(found)
    }

    #[test]
    fn keys_are_found_in_tables_and_scenarios() {
        let text = "seed = true\n[client]\ntimeout_ms = true\n[[scenario]]\nname = \"a\"\n\
                    client = { max_retries = false }\n";
        assert_eq!(
            entries(text).unwrap(),
            ["client.timeout_ms", "seed", "0:client.max_retries"]
        );
    }

    #[test]
    fn unknown_keys_are_placed_and_explained() {
        let error = entries("seed = 1\n[client]\ntimeuot_ms = 5\n").unwrap_err();
        assert_eq!(
            error,
            "config file f.toml: line 3, column 1: unknown key `client.timeuot_ms` for the \
             timeline model: did you mean `client.timeout_ms`? (in `timeuot_ms = 5`)"
        );
        let error = entries("requests = 5\n").unwrap_err();
        assert!(
            error.contains("it is a key of the article model"),
            "{error}"
        );
        let error = entries("colour = 5\n").unwrap_err();
        assert!(error.contains("help config timeline"), "{error}");
        // A right name in the wrong table is told where it goes.
        let error = entries("timeout_ms = 5\n").unwrap_err();
        assert!(
            error.contains("`timeout_ms` belongs in [client] (`client.timeout_ms`)"),
            "{error}"
        );
        let error = entries("[client]\nseed = 5\n").unwrap_err();
        assert!(
            error.contains("`seed` belongs at the top level, before any [table]"),
            "{error}"
        );
    }

    #[test]
    fn a_single_scenario_table_gets_the_double_bracket_hint() {
        let error = entries("[scenario]\nname = \"a\"\n").unwrap_err();
        assert!(error.contains("[[scenario]]"), "{error}");
        assert!(error.contains("line 1"), "{error}");
    }

    #[test]
    fn file_keys_are_refused_inside_a_scenario() {
        let error = entries("[[scenario]]\nname = \"a\"\nseed = 3\n").unwrap_err();
        assert!(error.contains("applies to the whole file"), "{error}");
    }

    #[test]
    fn positions_count_characters() {
        assert_eq!(line_and_column("ab\ncé d", 7), (2, 4));
        assert_eq!(line_and_column("x", 0), (1, 1));
    }
}
