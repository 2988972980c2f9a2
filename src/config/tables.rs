//! Reading the table values several models share: a distribution of durations
//! (`{ distribution = "log_normal", median_ms = 40, p99_ms = 400 }`) and a backoff policy
//! (`{ policy = "full_jitter", base_ms = 100, cap_ms = 5000 }`). Every field is a duration in
//! ms (a number, or a string with a unit), checked where it is written.

use engine::backoff::Backoff;
use engine::distribution::Distribution;
use engine::measured::{Measured, MeasuredError};
use toml::de::DeValue;

use super::ConfigError;
use super::key::{DURATION_MS as DURATION, Key, Kind, POSITIVE_MS as POSITIVE, quoted_list};
use super::measured;
use super::read::{Found, Scalar, scalar};

/// The distributions' names.
pub const DISTRIBUTIONS: &[&str] = &[
    "fixed",
    "uniform",
    "exponential",
    "log_normal",
    "percentiles",
    "empirical",
    "histogram",
];

/// The fields of a `percentiles` distribution and their probabilities, lowest first.
pub const PERCENTILES: &[(&str, f64)] = &[
    ("p50_ms", 0.5),
    ("p75_ms", 0.75),
    ("p90_ms", 0.9),
    ("p95_ms", 0.95),
    ("p99_ms", 0.99),
    ("p999_ms", 0.999),
    ("p9999_ms", 0.9999),
];
/// The backoff policies' names.
pub const POLICIES: &[&str] = &[
    "none",
    "constant",
    "exponential",
    "full_jitter",
    "equal_jitter",
    "decorrelated_jitter",
];

/// The fields of a table, read one by one.
struct Fields<'v, 't> {
    /// The table itself, for a missing field's error.
    whole: Found<'v, 't>,
    /// What the table is, in words (`a log_normal distribution`).
    what: String,
    /// An example of the whole table.
    example: &'static str,
    fields: Vec<(&'v str, Found<'v, 't>)>,
}

impl Fields<'_, '_> {
    /// Whether field `name` is written.
    fn has(&self, name: &str) -> bool {
        self.fields.iter().any(|(field, _)| *field == name)
    }

    /// Field `name`, if written.
    fn get(&self, name: &str) -> Option<&Found<'_, '_>> {
        self.fields
            .iter()
            .find(|(field, _)| *field == name)
            .map(|(_, found)| found)
    }

    /// Field `name`, a string (`what` it is, for errors).
    fn text(&self, name: &'static str, what: &str) -> Result<String, ConfigError> {
        match self.optional_text(name)? {
            Some(text) => Ok(text),
            None => Err(self
                .whole
                .invalid(format!("{} needs `{name}`, {what}", self.what))),
        }
    }

    /// Field `name`, a string, if written.
    fn optional_text(&self, name: &str) -> Result<Option<String>, ConfigError> {
        let Some(found) = self.get(name) else {
            return Ok(None);
        };
        match found.value {
            DeValue::String(text) if !text.is_empty() => Ok(Some(text.to_string())),
            _ => Err(found.invalid(format!("`{name}` must be a string, e.g. \"latency_ms\""))),
        }
    }

    /// Field `name`, one of `names`, if written.
    fn optional_name(
        &self,
        name: &str,
        names: &'static [&'static str],
    ) -> Result<Option<&'static str>, ConfigError> {
        let Some(found) = self.get(name) else {
            return Ok(None);
        };
        let key = Key::file("", Kind::Choice(names), None, "");
        match scalar(&key, found)? {
            Scalar::Name(name) => Ok(Some(name)),
            other => unreachable!("a choice reads as a name, not {other:?}"),
        }
    }

    /// Field `name`, a list of numbers at least 0 (and `inf` last if `infinite_last`), with
    /// where it is.
    fn numbers(
        &self,
        name: &'static str,
        infinite_last: bool,
    ) -> Result<(Vec<f64>, Found<'_, '_>), ConfigError> {
        let Some(found) = self.get(name) else {
            return Err(self.whole.invalid(format!(
                "{} needs `{name}`, e.g. {{ distribution = \"histogram\", le_ms = [10, 50, \
                 250, inf], counts = [120, 870, 990, 1000] }}",
                self.what
            )));
        };
        let items = found.list()?;
        let last = items.len().saturating_sub(1);
        let mut values = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            let value = match item.value {
                DeValue::Integer(_) | DeValue::Float(_) => super::read::as_number(item.value),
                _ => None,
            };
            match value {
                Some(value) if value == f64::INFINITY && infinite_last && index == last => {
                    values.push(value);
                }
                Some(value) if value >= 0.0 && value.is_finite() => values.push(value),
                _ => {
                    return Err(item.invalid(format!(
                        "expected a number at least 0{}",
                        if infinite_last {
                            " (inf as the last bound: the +Inf bucket)"
                        } else {
                            ""
                        }
                    )));
                }
            }
        }
        Ok((values, found.clone()))
    }

    /// The distribution in data file `file` (relative to the config file).
    fn read_file(
        &self,
        file: &str,
        request: &measured::Request,
    ) -> Result<&'static Measured, ConfigError> {
        let found = self.get("file").expect("read above");
        measured::read(&found.folder(), file, request).map_err(|why| found.invalid(why))
    }

    /// Field `name` read as `kind`.
    fn duration(&self, name: &'static str, kind: Kind) -> Result<f64, ConfigError> {
        let Some((_, found)) = self.fields.iter().find(|(field, _)| *field == name) else {
            return Err(self.whole.invalid(format!(
                "{} needs `{name}`, e.g. {}",
                self.what, self.example
            )));
        };
        let key = Key::file("", kind, None, "");
        match scalar(&key, found)? {
            Scalar::Number(value) => Ok(value),
            other => unreachable!("a duration reads as a number, not {other:?}"),
        }
    }

    /// Field `name`, refused unless it is at least `low` (field `low_name`).
    fn at_least(
        &self,
        name: &'static str,
        kind: Kind,
        low_name: &str,
        low: f64,
    ) -> Result<f64, ConfigError> {
        let value = self.duration(name, kind)?;
        if value < low {
            let (_, found) = self
                .fields
                .iter()
                .find(|(field, _)| *field == name)
                .expect("read above");
            return Err(found.invalid(format!("must be at least {low_name} = {low}")));
        }
        Ok(value)
    }
}

/// The tag of a tagged table (`distribution = "..."`, `policy = "..."`) and its other fields.
fn tagged<'v, 't>(
    found: &Found<'v, 't>,
    (tag, names): (&'static str, &'static [&'static str]),
    fields: &[&str],
    what: &str,
    example: &'static str,
) -> Result<(&'static str, Fields<'v, 't>), ConfigError> {
    let mut fields = found.table(what, fields)?;
    let Some(position) = fields.iter().position(|(name, _)| *name == tag) else {
        return Err(found.invalid(format!(
            "{what} needs `{tag}`, one of {}: e.g. {example}",
            quoted_list(names)
        )));
    };
    let (_, name) = fields.remove(position);
    let key = Key::file("", Kind::Choice(names), None, "");
    let Scalar::Name(name) = scalar(&key, &name)? else {
        unreachable!("a choice reads as a name")
    };
    Ok((
        name,
        Fields {
            whole: found.clone(),
            what: format!("a {name} {}", what.trim_start_matches("a ")),
            example,
            fields,
        },
    ))
}

/// Refuses the fields a kind of table does not have.
fn only(fields: &Fields<'_, '_>, allowed: &[&str]) -> Result<(), ConfigError> {
    match fields
        .fields
        .iter()
        .find(|(name, _)| !allowed.contains(name))
    {
        Some((name, found)) => Err(found.invalid(format!(
            "{} has no `{name}`: its fields are {}",
            fields.what,
            if allowed.is_empty() {
                "none".to_string()
            } else {
                allowed.join(", ")
            }
        ))),
        None => Ok(()),
    }
}

/// A distribution of durations.
pub fn distribution(found: &Found<'_, '_>) -> Result<Distribution, ConfigError> {
    let example = "{ distribution = \"fixed\", ms = 20 }";
    let mut fields = vec![
        "distribution",
        "ms",
        "low_ms",
        "high_ms",
        "mean_ms",
        "median_ms",
    ];
    fields.extend(PERCENTILES.iter().map(|(name, _)| *name));
    fields.extend([
        "file", "column", "unit", "le_ms", "counts", "format", "metric",
    ]);
    let (name, fields) = tagged(
        found,
        ("distribution", DISTRIBUTIONS),
        &fields,
        "a distribution",
        example,
    )?;
    Ok(match name {
        "fixed" => {
            only(&fields, &["ms"])?;
            Distribution::Fixed {
                ms: fields.duration("ms", DURATION)?,
            }
        }
        "uniform" => {
            only(&fields, &["low_ms", "high_ms"])?;
            let low_ms = fields.duration("low_ms", DURATION)?;
            Distribution::Uniform {
                low_ms,
                high_ms: fields.at_least("high_ms", DURATION, "low_ms", low_ms)?,
            }
        }
        "exponential" => {
            only(&fields, &["mean_ms"])?;
            Distribution::Exponential {
                mean_ms: fields.duration("mean_ms", POSITIVE)?,
            }
        }
        "log_normal" => {
            only(&fields, &["median_ms", "p99_ms"])?;
            let median_ms = fields.duration("median_ms", POSITIVE)?;
            Distribution::LogNormal {
                median_ms,
                p99_ms: fields.at_least("p99_ms", POSITIVE, "median_ms", median_ms)?,
            }
        }
        "percentiles" => Distribution::Measured(percentiles(&fields)?),
        "empirical" => Distribution::Measured(empirical(&fields)?),
        _ => Distribution::Measured(histogram(&fields)?),
    })
}

/// `{ distribution = "percentiles", p50_ms, p90_ms, ... }`: at least two of
/// [`PERCENTILES`], increasing.
fn percentiles(fields: &Fields<'_, '_>) -> Result<&'static Measured, ConfigError> {
    let names: Vec<&str> = PERCENTILES.iter().map(|(name, _)| *name).collect();
    only(fields, &names)?;
    let mut points = Vec::new();
    let mut given = Vec::new();
    for &(name, p) in PERCENTILES {
        if fields.has(name) {
            points.push((p, fields.duration(name, POSITIVE)?));
            given.push(name);
        }
    }
    Measured::percentiles(&points, &given)
        .map(Measured::leak)
        .map_err(|error| {
            let at = match &error {
                MeasuredError::NotIncreasing { later, .. } => fields.get(later),
                _ => None,
            };
            at.unwrap_or(&fields.whole)
                .invalid(format!("{}: {error}", fields.what))
        })
}

/// `{ distribution = "empirical", file, column, unit }`.
fn empirical(fields: &Fields<'_, '_>) -> Result<&'static Measured, ConfigError> {
    only(fields, &["file", "column", "unit"])?;
    let file = fields.text("file", "a path relative to the config file")?;
    let column = fields.optional_text("column")?;
    let unit = fields
        .optional_name("unit", measured::UNIT_NAMES)?
        .unwrap_or("ms");
    let request = measured::Request::Samples { column, unit };
    fields.read_file(&file, &request)
}

/// `{ distribution = "histogram", le_ms, counts }` or `{ ..., file, format, metric, unit }`.
fn histogram(fields: &Fields<'_, '_>) -> Result<&'static Measured, ConfigError> {
    if !fields.has("file") {
        only(fields, &["le_ms", "counts"])?;
        let (upper, _) = fields.numbers("le_ms", true)?;
        let (counts, counts_found) = fields.numbers("counts", false)?;
        if upper.len() != counts.len() {
            return Err(counts_found.invalid(format!(
                "{} needs one cumulative count per bound: {} bounds in le_ms, {} counts",
                fields.what,
                upper.len(),
                counts.len()
            )));
        }
        let at = |field: &str, index: usize| format!("{field}[{index}]");
        return Measured::buckets(
            0.0,
            &upper,
            &counts,
            "le_ms",
            |index| at("le_ms", index),
            |index| at("counts", index),
        )
        .map(Measured::leak)
        .map_err(|error| fields.whole.invalid(format!("{}: {error}", fields.what)));
    }
    only(fields, &["file", "format", "metric", "unit"])?;
    let file = fields.text("file", "a path relative to the config file")?;
    let unit = fields.optional_name("unit", measured::UNIT_NAMES)?;
    let format = match fields.optional_name("format", measured::FORMATS)? {
        Some(format) => format,
        None if file.ends_with(".hgrm") => "hgrm",
        None => "prometheus",
    };
    let metric = fields.optional_text("metric")?;
    let request = if format == "hgrm" {
        if metric.is_some() {
            return Err(fields.whole.invalid(format!(
                "{}: `metric` names a Prometheus histogram; an .hgrm file holds one",
                fields.what
            )));
        }
        let Some(unit) = unit else {
            return Err(fields.whole.invalid(format!(
                "{} read from an .hgrm file needs `unit` (\"us\", \"ms\" or \"s\"): its \
                 values are in the unit its writer scaled them to (wrk2 writes ms)",
                fields.what
            )));
        };
        measured::Request::Hgrm { unit }
    } else {
        measured::Request::Prometheus { metric, unit }
    };
    fields.read_file(&file, &request)
}

/// A backoff policy.
pub fn backoff(found: &Found<'_, '_>) -> Result<Backoff, ConfigError> {
    let example = "{ policy = \"full_jitter\", base_ms = 100, cap_ms = 5000 }";
    let fields = ["policy", "base_ms", "cap_ms"];
    let (name, fields) = tagged(
        found,
        ("policy", POLICIES),
        &fields,
        "a backoff policy",
        example,
    )?;
    if name == "none" {
        only(&fields, &[])?;
        return Ok(Backoff::None);
    }
    if name == "constant" {
        only(&fields, &["base_ms"])?;
        return Ok(Backoff::Constant {
            base_ms: fields.duration("base_ms", DURATION)?,
        });
    }
    only(&fields, &["base_ms", "cap_ms"])?;
    let base_ms = fields.duration("base_ms", DURATION)?;
    let cap_ms = fields.duration("cap_ms", DURATION)?;
    Ok(match name {
        "exponential" => Backoff::Exponential { base_ms, cap_ms },
        "full_jitter" => Backoff::FullJitter { base_ms, cap_ms },
        "equal_jitter" => Backoff::EqualJitter { base_ms, cap_ms },
        _ => Backoff::DecorrelatedJitter { base_ms, cap_ms },
    })
}

/// Whether a value is a table with `distribution = name` (a model with a distribution of
/// its own, as the contention model's folded normal, reads that one itself).
pub fn names_distribution(value: &DeValue<'_>, name: &str) -> bool {
    value
        .as_table()
        .and_then(|table| {
            table
                .iter()
                .find(|(field, _)| field.get_ref().as_ref() == "distribution")
        })
        .and_then(|(_, value)| value.get_ref().as_str())
        == Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::document::Document;
    use std::path::Path;

    fn read<T>(
        text: &str,
        reader: fn(&Found<'_, '_>) -> Result<T, ConfigError>,
    ) -> Result<T, String> {
        let text = format!("value = {text}\n");
        let document = Document::parse(&text, Path::new("f.toml")).map_err(|e| e.to_string())?;
        let value = document.top("value").expect("written");
        reader(&Found::at(
            &document,
            "network.request_latency".into(),
            value,
        ))
        .map_err(|error| error.to_string())
    }

    #[test]
    fn distributions_read_every_form_and_unit() {
        let log_normal = Distribution::LogNormal {
            median_ms: 40.0,
            p99_ms: 400.0,
        };
        for (text, expected) in [
            (
                "{ distribution = \"fixed\", ms = 20 }",
                Distribution::Fixed { ms: 20.0 },
            ),
            (
                "{ distribution = \"log_normal\", median_ms = \"40ms\", p99_ms = \"0.4s\" }",
                log_normal,
            ),
            (
                "{ distribution = \"log_normal\", median_ms = \"40ms\", p99_ms = \"400ms\" }",
                log_normal,
            ),
            (
                "{ distribution = \"uniform\", low_ms = 1, high_ms = 2 }",
                Distribution::Uniform {
                    low_ms: 1.0,
                    high_ms: 2.0,
                },
            ),
        ] {
            assert_eq!(read(text, distribution), Ok(expected), "{text}");
        }
    }

    #[test]
    fn bad_distributions_name_the_field_and_its_place() {
        let error = read("{ distribution = \"fixed\", ms = -5 }", distribution).unwrap_err();
        assert!(
            error.starts_with(
                "invalid value -5 for key `network.request_latency.ms` in config file f.toml \
                 (line 1, column 40)"
            ),
            "{error}"
        );
        for (text, says) in [
            (
                "{ distribution = \"log_normal\", median_ms = 40, p99_ms = 20 }",
                "`network.request_latency.p99_ms`",
            ),
            (
                "{ distribution = \"log_normal\", median_ms = 40, p99_ms = 20 }",
                "at least median_ms = 40",
            ),
            ("{ distribution = \"pareto\", ms = 1 }", "\"log_normal\""),
            (
                "{ distribution = \"fixed\", msec = 1 }",
                "did you mean `ms`?",
            ),
            ("{ distribution = \"fixed\" }", "needs `ms`"),
            ("{ distribution = \"exponential\", ms = 3 }", "has no `ms`"),
            ("20", "expected a distribution"),
        ] {
            let error = read(text, distribution).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }

    #[test]
    fn measured_distributions_read_from_the_table() {
        let percentiles = read(
            "{ distribution = \"percentiles\", p50_ms = 120, p90_ms = \"310ms\", p999_ms = \"2.4s\" }",
            distribution,
        )
        .unwrap();
        assert_eq!(percentiles.quantile(0.5), 120.0);
        assert!((percentiles.quantile(0.999) - 2400.0).abs() < 1e-9);
        let histogram = read(
            "{ distribution = \"histogram\", le_ms = [10, 20, inf], counts = [5, 10, 10] }",
            distribution,
        )
        .unwrap();
        assert!((histogram.quantile(0.75) - 15.0).abs() < 1e-12);
    }

    #[test]
    fn bad_measured_distributions_name_the_keys() {
        let error = read(
            "{ distribution = \"percentiles\", p50_ms = 120, p90_ms = 100 }",
            distribution,
        )
        .unwrap_err();
        assert_eq!(
            error,
            "invalid value 100 for key `network.request_latency.p90_ms` in config file f.toml \
             (line 1, column 64): a percentiles distribution: p90_ms (100) must be more than \
             p50_ms (120)"
        );
        let error = read(
            "{ distribution = \"percentiles\", p99_ms = 120 }",
            distribution,
        )
        .unwrap_err();
        assert!(
            error.ends_with("needs at least 2 percentiles, found 1"),
            "{error}"
        );
        let error = read(
            "{ distribution = \"percentiles\", p50_ms = 1, p99_ms = 2, ms = 3 }",
            distribution,
        )
        .unwrap_err();
        assert!(error.contains("has no `ms`"), "{error}");
        let error = read(
            "{ distribution = \"histogram\", le_ms = [10, 20], counts = [5] }",
            distribution,
        )
        .unwrap_err();
        assert!(error.ends_with("2 bounds in le_ms, 1 counts"), "{error}");
        let error = read(
            "{ distribution = \"histogram\", le_ms = [10, inf, 20], counts = [5, 6, 7] }",
            distribution,
        )
        .unwrap_err();
        assert!(
            error.contains("`network.request_latency.le_ms[1]`")
                && error.contains("inf as the last bound"),
            "{error}"
        );
        let error = read(
            "{ distribution = \"histogram\", le_ms = [10, 20], counts = [5, 4] }",
            distribution,
        )
        .unwrap_err();
        assert!(
            error.contains("counts[1] (cumulative, less than counts[0] = 5)"),
            "{error}"
        );
        let error = read("{ distribution = \"empirical\" }", distribution).unwrap_err();
        assert!(
            error.ends_with("needs `file`, a path relative to the config file"),
            "{error}"
        );
        let error = read(
            "{ distribution = \"histogram\", file = \"x.hgrm\" }",
            distribution,
        )
        .unwrap_err();
        assert!(error.contains("needs `unit`"), "{error}");
        let error = read(
            "{ distribution = \"empirical\", file = \"nonexistent.csv\", unit = \"min\" }",
            distribution,
        )
        .unwrap_err();
        assert!(error.contains("`network.request_latency.unit`"), "{error}");
    }

    #[test]
    fn backoff_policies_read_and_refuse_like_distributions() {
        assert_eq!(read("{ policy = \"none\" }", backoff), Ok(Backoff::None));
        assert_eq!(
            read(
                "{ policy = \"full_jitter\", base_ms = 100, cap_ms = \"5s\" }",
                backoff
            ),
            Ok(Backoff::FullJitter {
                base_ms: 100.0,
                cap_ms: 5000.0
            })
        );
        for (text, says) in [
            (
                "{ policy = \"full_jitter\", base_ms = 100, cap_ms = -1 }",
                "`network.request_latency.cap_ms`",
            ),
            (
                "{ policy = \"full_jittter\" }",
                "did you mean \"full_jitter\"?",
            ),
        ] {
            let error = read(text, backoff).unwrap_err();
            assert!(error.contains(says), "{text}: {error}");
        }
    }
}
