//! Sweeps: keys run at several values, each key one axis of a grid whose every point is one
//! run of the file with those values set. Axes come from the file's `[sweep]` table, in the
//! file's order, then from `--sweep KEY=VALUES`, in order (one naming a file's axis replaces
//! it). Every value is an [`Assignment`], read by the same declarations as the file's keys,
//! so a bad value is refused naming its flag or its line in the file.
//!
//! Values are a list (`500,1000,2s`, or a TOML array `[500, "2s"]`), a range
//! `START:STOP:STEP` (STOP included, exact decimal steps) or a log range
//! `START:STOP:FACTOR:log`.

use std::collections::HashSet;

use toml::de::DeValue;

use super::ConfigError;
use super::assignment::{Assignment, Source, SweepFlag};
use super::document::{Document, Value};
use super::key::{Kind, Schema, TimeUnit};
use super::overrides::Overrides;
use crate::parse::{decimal_steps, echo};

/// The most values of one axis.
pub const MAX_VALUES: usize = 10_000;
/// The most points of a grid (the product of its axes' values).
pub const MAX_POINTS: usize = 10_000;

/// One key run at several values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Axis {
    /// The key as written (`client.timeout_ms`).
    pub key: String,
    /// Its values, in order, each as it is set.
    pub values: Vec<Assignment>,
}

/// The axes of a file (its `[sweep]` table) and of the flags (`--sweep`), in order.
pub fn axes(document: &Document<'_>, overrides: &Overrides) -> Result<Vec<Axis>, ConfigError> {
    let mut axes = match document.top("sweep") {
        Some(value) => file_axes(document, value)?,
        None => Vec::new(),
    };
    for flag in &overrides.sweep {
        let axis = flag_axis(flag)?;
        match axes.iter_mut().find(|known| known.key == axis.key) {
            Some(known) => *known = axis,
            None => axes.push(axis),
        }
    }
    for axis in &axes {
        if let Some(set) = overrides.set.iter().find(|set| set.key == axis.key) {
            return Err(ConfigError::Set {
                flag: match &set.source {
                    Source::Flag(flag) => flag.clone(),
                    Source::File { .. } => unreachable!("--set is a flag"),
                },
                message: format!("`{}` is also swept: set it or sweep it", axis.key),
            });
        }
    }
    Ok(axes)
}

/// The axes of a `--sweep`.
fn flag_axis(flag: &SweepFlag) -> Result<Axis, ConfigError> {
    let source = || Source::Flag(format!("--sweep {}", flag.written));
    let refuse = |message: String| ConfigError::Set {
        flag: format!("--sweep {}", flag.written),
        message,
    };
    let texts: Vec<String> = if flag.values.starts_with('[') {
        let probe = format!("values = {}", flag.values);
        let table = toml::de::DeTable::parse(&probe).map_err(|error| {
            refuse(format!(
                "{}: write the values as a TOML list, e.g. [500, \"2s\"]",
                error.message().trim()
            ))
        })?;
        let Some(DeValue::Array(items)) = table.get_ref().get("values").map(|v| v.get_ref()) else {
            return Err(refuse(
                "write the values as a TOML list, e.g. [500, \"2s\"]".into(),
            ));
        };
        items
            .iter()
            .map(|item| probe[item.span()].trim().to_string())
            .collect()
    } else if flag.values.contains(':') {
        decimal_steps(&flag.values, MAX_VALUES).map_err(refuse)?
    } else {
        let items: Vec<&str> = flag.values.split(',').map(str::trim).collect();
        if items.iter().any(|item| item.is_empty()) {
            return Err(refuse(
                "an empty value: separate the values with single commas".into(),
            ));
        }
        items.into_iter().map(str::to_string).collect()
    };
    let values = texts
        .iter()
        .map(|text| Assignment::new(&flag.key, text, source()))
        .collect();
    checked(&flag.key, values).map_err(refuse)
}

/// The axes of the file's `[sweep]` table: every key in it, with its list or range.
fn file_axes(document: &Document<'_>, sweep: &Value<'_>) -> Result<Vec<Axis>, ConfigError> {
    let mut axes = Vec::new();
    walk(document, "", sweep, &mut axes)?;
    if axes.is_empty() {
        return Err(document.problem(
            &sweep.span(),
            "[sweep] has no key: give each key to sweep with its values, e.g. \
             client.timeout_ms = [500, 1000, 2000]",
        ));
    }
    Ok(axes)
}

/// Reads the `[sweep]` table under `prefix`: a list or a range is an axis, a table is walked.
fn walk(
    document: &Document<'_>,
    prefix: &str,
    value: &Value<'_>,
    axes: &mut Vec<Axis>,
) -> Result<(), ConfigError> {
    let Some(table) = value.get_ref().as_table() else {
        return Err(document.problem(
            &value.span(),
            "`sweep` is a table of keys, each with a list of values or a range: write [sweep] \
             and its keys below it",
        ));
    };
    let mut items: Vec<_> = table.iter().collect();
    items.sort_by_key(|(name, _)| name.span().start);
    for (name, item) in items {
        let key = format!("{prefix}{}", name.get_ref());
        let source = |span: std::ops::Range<usize>| {
            let (line, column) = document.position(span.start);
            Source::File {
                path: document.path.to_path_buf(),
                at: (line, column),
                excerpt: echo(document.text.lines().nth(line - 1).unwrap_or("").trim()),
            }
        };
        let values = match item.get_ref() {
            DeValue::Table(_) => {
                walk(document, &format!("{key}."), item, axes)?;
                continue;
            }
            DeValue::Array(array) => array
                .iter()
                .map(|element| {
                    let text = document.text[element.span()].trim();
                    Assignment::new(&key, text, source(element.span()))
                })
                .collect(),
            DeValue::String(range) => decimal_steps(range, MAX_VALUES)
                .map_err(|reason| document.problem(&item.span(), reason))?
                .iter()
                .map(|text| Assignment::new(&key, text, source(item.span())))
                .collect(),
            _ => {
                return Err(document.problem(
                    &item.span(),
                    format!(
                        "`sweep.{key}` must be a list of values ([500, 1000]) or a range \
                         (\"500:2000:500\")"
                    ),
                ));
            }
        };
        let axis =
            checked(&key, values).map_err(|reason| document.problem(&item.span(), reason))?;
        axes.push(axis);
    }
    Ok(())
}

/// An axis of `key` with `values`: at least one, at most [`MAX_VALUES`], none twice.
fn checked(key: &str, values: Vec<Assignment>) -> Result<Axis, String> {
    if values.is_empty() {
        return Err(format!("`{key}` is swept over no value: give at least one"));
    }
    if values.len() > MAX_VALUES {
        return Err(format!(
            "`{key}` is swept over {} values, more than {MAX_VALUES}: use a coarser step",
            values.len()
        ));
    }
    let mut seen = HashSet::new();
    for value in &values {
        if !seen.insert(value.value()) {
            return Err(format!(
                "`{key}` is swept over {} twice: give each value once",
                value.value()
            ));
        }
    }
    if matches!(key, "out" | "model") {
        return Err(format!(
            "`{key}` cannot be swept: a sweep runs one file into one folder"
        ));
    }
    Ok(Axis {
        key: key.to_string(),
        values,
    })
}

/// One point of a grid: a value of every axis.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    /// Each axis's value as its column shows it: a number in the key's unit (a duration
    /// written `"2s"` is `2000` for a key in ms), or the value as written.
    pub labels: Vec<String>,
    /// Each axis's value, to set.
    pub assignments: Vec<Assignment>,
}

/// Every point of the grid of `axes`, the first axis outermost; at most [`MAX_POINTS`].
pub fn grid(axes: &[Axis], schema: &Schema) -> Result<Vec<Point>, ConfigError> {
    let count = axes
        .iter()
        .try_fold(1usize, |count, axis| count.checked_mul(axis.values.len()))
        .filter(|&count| count <= MAX_POINTS);
    let Some(count) = count else {
        let sizes: Vec<String> = axes
            .iter()
            .map(|axis| format!("{} ({})", axis.key, axis.values.len()))
            .collect();
        return Err(ConfigError::TooLarge {
            reason: format!(
                "the sweep's grid has more than {MAX_POINTS} points: {}; sweep fewer values",
                sizes.join(" × ")
            ),
        });
    };
    let mut points = Vec::with_capacity(count);
    for index in 0..count {
        let mut rest = index;
        let mut chosen = vec![0; axes.len()];
        for (slot, axis) in chosen.iter_mut().zip(axes).rev() {
            *slot = rest % axis.values.len();
            rest /= axis.values.len();
        }
        let assignments: Vec<Assignment> = chosen
            .iter()
            .zip(axes)
            .map(|(&value, axis)| axis.values[value].clone())
            .collect();
        let labels = assignments
            .iter()
            .map(|assignment| label(schema, assignment))
            .collect();
        points.push(Point {
            labels,
            assignments,
        });
    }
    Ok(points)
}

/// A value as its sweep column shows it: a duration with a unit in the key's unit, a string
/// without its quotes, anything else as written.
fn label(schema: &Schema, assignment: &Assignment) -> String {
    let text = assignment.value();
    let unquoted = match toml::de::DeValue::parse(text).map(|value| value.into_inner()) {
        Ok(DeValue::String(string)) => string.into_owned(),
        _ => return text.to_string(),
    };
    let unit = schema.key(&assignment.key).and_then(|key| match key.kind {
        Kind::Duration { unit, .. } => Some(unit),
        _ => None,
    });
    match (unit, humantime::parse_duration(&unquoted)) {
        (Some(unit), Ok(duration)) => {
            let seconds = match unit {
                TimeUnit::Milliseconds => 1e-3,
                TimeUnit::Seconds => 1.0,
            };
            format!("{}", duration.as_secs_f64() / seconds)
        }
        _ => unquoted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn flag_values(written: &str) -> Result<Vec<String>, String> {
        let flag = SweepFlag::parse(written)?;
        flag_axis(&flag)
            .map(|axis| axis.values.iter().map(|v| v.value().to_string()).collect())
            .map_err(|error| error.to_string())
    }

    #[test]
    fn flag_values_are_lists_arrays_or_ranges() {
        assert_eq!(flag_values("a=1,2s, 3").unwrap(), ["1", "\"2s\"", "3"]);
        assert_eq!(
            flag_values("a=[500, \"2s\", { distribution = \"fixed\", ms = 1 }]").unwrap(),
            ["500", "\"2s\"", "{ distribution = \"fixed\", ms = 1 }"]
        );
        assert_eq!(flag_values("a=0:0.2:0.1").unwrap(), ["0.0", "0.1", "0.2"]);
        assert_eq!(flag_values("a=1:100:10:log").unwrap(), ["1", "10", "100"]);
        for (written, reason) in [
            ("a=1,,2", "an empty value"),
            ("a=1,1", "over 1 twice"),
            ("a=0:1", "must have the form"),
            ("a=", "no values"),
            ("out=a,b", "cannot be swept"),
        ] {
            let error = flag_values(written).unwrap_err();
            assert!(error.contains(reason), "{written}: {error}");
        }
    }

    #[test]
    fn file_axes_keep_the_files_order_and_places() {
        let text = "model = \"timeline\"\n[sweep]\nserver.key_ttl_ms = [\"1h\", 7200000]\n\
                    client.timeout_ms = \"500:1500:500\"\n";
        let document = Document::parse(text, Path::new("f.toml")).unwrap();
        let axes = axes(&document, &Overrides::default()).unwrap();
        let keys: Vec<&str> = axes.iter().map(|axis| axis.key.as_str()).collect();
        assert_eq!(keys, ["server.key_ttl_ms", "client.timeout_ms"]);
        assert_eq!(
            axes[0].values[0].source,
            Source::File {
                path: "f.toml".into(),
                at: (3, 22),
                excerpt: "server.key_ttl_ms = [\"1h\", 7200000]".into(),
            }
        );
        let schema = crate::config::timeline::keys::SCHEMA;
        let points = grid(&axes, &schema).unwrap();
        let labels: Vec<Vec<String>> = points.into_iter().map(|point| point.labels).collect();
        assert_eq!(
            labels,
            [
                ["3600000", "500"],
                ["3600000", "1000"],
                ["3600000", "1500"],
                ["7200000", "500"],
                ["7200000", "1000"],
                ["7200000", "1500"],
            ]
        );
    }

    #[test]
    fn a_flag_replaces_the_files_axis_of_its_key() {
        let text = "[sweep]\nrequests = [100, 200]\nmax_retries = [1, 2]\n";
        let document = Document::parse(text, Path::new("f.toml")).unwrap();
        let overrides = Overrides {
            sweep: vec![SweepFlag::parse("requests=300").unwrap()],
            ..Overrides::default()
        };
        let axes = axes(&document, &overrides).unwrap();
        assert_eq!(axes[0].key, "requests");
        assert_eq!(axes[0].values.len(), 1);
        assert_eq!(axes[1].key, "max_retries");
    }

    #[test]
    fn grids_beyond_the_cap_are_refused() {
        let axis = |key: &str| Axis {
            key: key.into(),
            values: (0..200)
                .map(|v| Assignment::new(key, &v.to_string(), Source::Flag("--sweep".into())))
                .collect(),
        };
        let schema = crate::config::timeline::keys::SCHEMA;
        let error = grid(&[axis("a"), axis("b")], &schema).unwrap_err();
        assert!(error.to_string().contains("a (200) × b (200)"), "{error}");
    }
}
