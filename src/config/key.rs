//! The declaration of a config key, the one source of what a file may hold: its name (tables
//! dotted), what its value is ([`Kind`]: type, unit, range), its default in the file's own
//! syntax, its doc, and whether a `[[scenario]]` entry may override it. Every model lists its
//! keys once ([`Schema`]); the reader, the help, the man page, the docs' key tables and the
//! range text of every error are written from those lists.

use std::fmt::Write as _;

/// The unit of a duration key; a value may also be a string with its own unit (`"2s"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Milliseconds (`*_ms` keys).
    Milliseconds,
    /// Seconds (`*_s` keys).
    Seconds,
}

impl TimeUnit {
    /// The unit's symbol: `ms` or `s`.
    pub fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Milliseconds => "ms",
            TimeUnit::Seconds => "s",
        }
    }

    /// Seconds per unit.
    pub fn seconds(self) -> f64 {
        match self {
            TimeUnit::Milliseconds => 1e-3,
            TimeUnit::Seconds => 1.0,
        }
    }
}

/// The bounds of a number: `min` to `max`, each end included unless open.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    /// The lowest value.
    pub min: f64,
    /// The highest value.
    pub max: f64,
    /// The lowest value itself is refused (`more than min`).
    pub min_open: bool,
    /// The highest value itself is refused (`less than max`).
    pub max_open: bool,
}

impl Bounds {
    /// From `min` to `max`, both included.
    pub const fn closed(min: f64, max: f64) -> Self {
        Self {
            min,
            max,
            min_open: false,
            max_open: false,
        }
    }

    /// More than `min`, at most `max`.
    pub const fn above(min: f64, max: f64) -> Self {
        Self {
            min,
            max,
            min_open: true,
            max_open: false,
        }
    }

    /// From `min` to less than `max`.
    pub const fn below(min: f64, max: f64) -> Self {
        Self {
            min,
            max,
            min_open: false,
            max_open: true,
        }
    }

    /// Whether `value` is within.
    pub fn contains(&self, value: f64) -> bool {
        let low = if self.min_open {
            value > self.min
        } else {
            value >= self.min
        };
        let high = if self.max_open {
            value < self.max
        } else {
            value <= self.max
        };
        low && high
    }

    /// The range in words: `from 0 to 1`, `more than 0 and at most 1000000000`.
    pub fn describe(&self) -> String {
        let low = if self.min_open { "more than" } else { "from" };
        let high = match (self.min_open, self.max_open) {
            (false, false) => "to",
            (false, true) => "to less than",
            (true, false) => "and at most",
            (true, true) => "and less than",
        };
        format!(
            "{low} {} {high} {}",
            plain_number(self.min),
            plain_number(self.max)
        )
    }
}

/// A number as people write it in a range: `1000000000`, `0.5`, `1e300`.
pub fn plain_number(value: f64) -> String {
    if value.is_finite() && value != 0.0 && !(1e-6..1e16).contains(&value.abs()) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

/// What a key's value is.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A whole number from `min` to `max`, counting `unit`.
    Whole {
        /// The lowest value.
        min: u64,
        /// The highest value.
        max: u64,
        /// What it counts (`payments`, `threads`).
        unit: &'static str,
    },
    /// A number within `bounds`, in `unit` (empty for a plain ratio).
    Number {
        /// Its range.
        bounds: Bounds,
        /// Its unit, e.g. `per s`.
        unit: &'static str,
    },
    /// A probability: a number from 0 to 1 (`max_open`: less than 1).
    Probability {
        /// 1 itself is refused.
        max_open: bool,
    },
    /// A duration within `bounds` (in `unit`): a number of `unit`s, or a string with a unit
    /// (`"150ms"`, `"2s"`, `"5min"`, `"24h"`).
    Duration {
        /// The key's unit.
        unit: TimeUnit,
        /// Its range, in `unit`.
        bounds: Bounds,
    },
    /// One of a fixed set of names.
    Choice(&'static [&'static str]),
    /// `true` or `false`.
    Switch,
    /// A folder's path.
    Folder,
    /// A list of values of one kind, at least one, each at most once.
    List {
        /// What each item is.
        item: &'static Kind,
        /// The most items.
        max_items: usize,
    },
    /// A value with a form of its own, read by the model's config (a latency distribution,
    /// a backoff policy, `p`'s list or range, a table of keys).
    Special {
        /// The form in words, with an example.
        expected: &'static str,
    },
}

impl Kind {
    /// The value's form and range in words, with an example, as help and errors say it.
    pub fn expected(&self) -> String {
        match *self {
            Kind::Whole { min, max, unit } => {
                format!("a whole number of {unit} from {min} to {max}")
            }
            Kind::Number { bounds, unit: "" } => format!("a number {}", bounds.describe()),
            Kind::Number { bounds, unit } => {
                format!("a number {} ({unit})", bounds.describe())
            }
            Kind::Probability { max_open: false } => "a probability from 0 to 1".into(),
            Kind::Probability { max_open: true } => "a probability from 0 to less than 1".into(),
            Kind::Duration { unit, bounds } => format!(
                "a duration {} {}, as a number of {} or a string such as \"{}\"",
                bounds.describe(),
                unit.symbol(),
                unit.symbol(),
                match unit {
                    TimeUnit::Milliseconds => "250ms\", \"2s",
                    TimeUnit::Seconds => "90s\", \"5min",
                }
            ),
            Kind::Choice(names) => format!("one of {}", quoted_list(names)),
            Kind::Switch => "true or false".into(),
            Kind::Folder => "a folder's path as a string, e.g. \"output/mine\"".into(),
            Kind::List { item, max_items } => format!(
                "a list of 1 to {max_items} values, each at most once, each {}",
                item.expected()
            ),
            Kind::Special { expected } => expected.into(),
        }
    }

    /// The type in one or two words, for tables of keys.
    pub fn type_name(&self) -> &'static str {
        match self {
            Kind::Whole { .. } => "integer",
            Kind::Number { .. } => "number",
            Kind::Probability { .. } => "probability",
            Kind::Duration { .. } => "duration",
            Kind::Choice(_) => "name",
            Kind::Switch => "boolean",
            Kind::Folder => "path",
            Kind::List { .. } => "list",
            Kind::Special { .. } => "table or list",
        }
    }
}

/// `"a"`, `"b"` or `"c"`.
pub fn quoted_list(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|name| format!("\"{name}\"")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The longest duration of a key that moves the clock (ms): 10^9 ms, about 11.6 days.
pub const MAX_DURATION_MS: f64 = 1e9;
/// A duration in ms from 0 to [`MAX_DURATION_MS`].
pub const DURATION_MS: Kind = Kind::Duration {
    unit: TimeUnit::Milliseconds,
    bounds: Bounds::closed(0.0, MAX_DURATION_MS),
};
/// A duration in ms more than 0, at most [`MAX_DURATION_MS`].
pub const POSITIVE_MS: Kind = Kind::Duration {
    unit: TimeUnit::Milliseconds,
    bounds: Bounds::above(0.0, MAX_DURATION_MS),
};

/// A seed: a whole number from 0 to 2^64 - 1.
pub const SEED: Kind = Kind::Whole {
    min: 0,
    max: u64::MAX,
    unit: "seed",
};
/// `seed`: the seed of every run's streams, as timeline and contention files have it.
pub const SEED_KEY: Key = Key::file(
    "seed",
    SEED,
    Some("42"),
    "Seed of every run's streams (numpy's SeedSequence). `--seed` overrides.",
);
/// `runs`: independent replications, from 1 to 100,000 (`default` when absent).
pub const fn runs_key(default: &'static str, doc: &'static str) -> Key {
    Key::file(
        "runs",
        Kind::Whole {
            min: 1,
            max: crate::parse::MAX_RUNS as u64,
            unit: "runs",
        },
        Some(default),
        doc,
    )
}
/// `threads`: worker threads, in every model's files.
pub const THREADS_KEY: Key = Key::file(
    "threads",
    Kind::Whole {
        min: 1,
        max: crate::parse::MAX_THREADS as u64,
        unit: "threads",
    },
    None,
    "Worker threads. Absent: all cores. `--threads` overrides.",
);
/// `out`: the output folder of a file named after its folder (every model but the
/// article's, whose folder is `output` itself).
pub const OUT_KEY: Key = Key::file(
    "out",
    Kind::Folder,
    None,
    "Output folder. Absent: output/<file name without .toml>. `--out` overrides.",
);

/// One key a model's files may hold.
#[derive(Debug, Clone, Copy)]
pub struct Key {
    /// The key with its tables, dotted: `client.timeout_ms`.
    pub name: &'static str,
    /// What its value is.
    pub kind: Kind,
    /// The value when the key is absent, in the file's syntax (`"1000"`, `"\"poisson\""`);
    /// `None` when absence means something of its own (said in the doc).
    pub default: Option<&'static str>,
    /// What it means, in one or two sentences.
    pub doc: &'static str,
    /// A `[[scenario]]` entry may set it for its scenario.
    pub per_scenario: bool,
}

impl Key {
    /// A key of the whole file.
    pub const fn file(
        name: &'static str,
        kind: Kind,
        default: Option<&'static str>,
        doc: &'static str,
    ) -> Self {
        Self {
            name,
            kind,
            default,
            doc,
            per_scenario: false,
        }
    }

    /// A key a `[[scenario]]` entry may override.
    pub const fn scenario(
        name: &'static str,
        kind: Kind,
        default: Option<&'static str>,
        doc: &'static str,
    ) -> Self {
        Self::file(name, kind, default, doc).for_scenarios()
    }

    /// The same key, which a `[[scenario]]` entry may override.
    const fn for_scenarios(mut self) -> Self {
        self.per_scenario = true;
        self
    }

    /// The table the key sits in (`client` for `client.timeout_ms`), empty at the top.
    pub fn table(&self) -> &'static str {
        self.name.rsplit_once('.').map_or("", |(table, _)| table)
    }
}

/// A model's keys, in the order help and the docs list them.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    /// The model's name as `model = "..."` writes it.
    pub model: &'static str,
    /// Every key.
    pub keys: &'static [Key],
    /// Tables (`client.offline`), or single keys, whose keys a file's settings
    /// (`parameters.csv`, `simulate check`, the page's parameters) list only when some
    /// scenario writes one of them: a feature that is off unless written, added without
    /// changing the record of files that do not use it.
    pub listed_when_written: &'static [&'static str],
}

impl Schema {
    /// The key named `name`.
    pub fn key(&self, name: &str) -> Option<&'static Key> {
        self.keys.iter().find(|key| key.name == name)
    }

    /// Whether `name` is a table that holds keys of this schema (`client`, `server`).
    pub fn is_table(&self, name: &str) -> bool {
        self.keys.iter().any(|key| {
            key.name
                .strip_prefix(name)
                .is_some_and(|rest| rest.starts_with('.'))
        })
    }

    /// The keys as text for a terminal: each key with its type and default, then its meaning
    /// and its form, indented.
    pub fn text(&self) -> String {
        let mut text = String::new();
        for key in self.keys {
            let default = key.default.map_or_else(
                || "no default".to_string(),
                |value| format!("default {value}"),
            );
            let scenario = if key.per_scenario {
                ", per scenario"
            } else {
                ""
            };
            let _ = writeln!(
                text,
                "{} ({}, {default}{scenario})",
                key.name,
                key.kind.type_name()
            );
            let _ = writeln!(text, "    {}", key.doc);
            let _ = writeln!(text, "    Expected: {}.", key.kind.expected());
        }
        text
    }

    /// The keys as a Markdown table: key, type, default, meaning (with the range).
    pub fn markdown(&self) -> String {
        let mut text = String::from("| key | type | default | meaning |\n|---|---|---|---|\n");
        for key in self.keys {
            let default = key
                .default
                .map_or_else(|| "(none)".to_string(), |value| format!("`{value}`"));
            let scenario = if key.per_scenario {
                " A `[[scenario]]` entry may set it."
            } else {
                ""
            };
            let _ = writeln!(
                text,
                "| `{}` | {} | {} | {} Expected: {}.{} |",
                key.name,
                key.kind.type_name(),
                default,
                key.doc,
                key.kind.expected(),
                scenario
            );
        }
        text
    }
}

/// The closest of `candidates` to `typed`, if one is close enough to be a likely typo
/// (Jaro-Winkler similarity of at least 0.8, as cargo and clap suggest).
pub fn did_you_mean<'a>(
    typed: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|candidate| (strsim::jaro_winkler(typed, candidate), candidate))
        .filter(|(score, _)| *score >= 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_say_their_ends() {
        assert_eq!(Bounds::closed(0.0, 1.0).describe(), "from 0 to 1");
        assert_eq!(
            Bounds::above(0.0, 1e9).describe(),
            "more than 0 and at most 1000000000"
        );
        assert!(Bounds::above(0.0, 1.0).contains(1.0));
        assert!(!Bounds::above(0.0, 1.0).contains(0.0));
        assert!(!Bounds::below(0.0, 1.0).contains(1.0));
        assert!(!Bounds::closed(0.0, 1.0).contains(f64::NAN));
        assert_eq!(plain_number(1e300), "1e300");
    }

    #[test]
    fn typos_find_their_key_and_nothing_finds_a_stranger() {
        let keys = ["timeout_ms", "max_retries", "backoff"];
        assert_eq!(did_you_mean("timeuot_ms", keys), Some("timeout_ms"));
        assert_eq!(did_you_mean("max_retry", keys), Some("max_retries"));
        assert_eq!(did_you_mean("colour", keys), None);
        assert_eq!(
            did_you_mean("unique", ["none", "check_then_insert", "unique_key"]),
            Some("unique_key")
        );
    }

    #[test]
    fn lists_of_names_read_naturally() {
        assert_eq!(quoted_list(&["a"]), "\"a\"");
        assert_eq!(quoted_list(&["a", "b", "c"]), "\"a\", \"b\" or \"c\"");
    }
}
