//! Reading the table values several models share: a distribution of durations
//! (`{ distribution = "log_normal", median_ms = 40, p99_ms = 400 }`) and a backoff policy
//! (`{ policy = "full_jitter", base_ms = 100, cap_ms = 5000 }`). Every field is a duration in
//! ms (a number, or a string with a unit), checked where it is written.

use engine::backoff::Backoff;
use engine::distribution::Distribution;
use toml::de::DeValue;

use super::ConfigError;
use super::key::{DURATION_MS as DURATION, Key, Kind, POSITIVE_MS as POSITIVE, quoted_list};
use super::read::{Found, Scalar, scalar};

/// The distributions' names.
pub const DISTRIBUTIONS: &[&str] = &["fixed", "uniform", "exponential", "log_normal"];
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
    let fields = [
        "distribution",
        "ms",
        "low_ms",
        "high_ms",
        "mean_ms",
        "median_ms",
        "p99_ms",
    ];
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
        _ => {
            only(&fields, &["median_ms", "p99_ms"])?;
            let median_ms = fields.duration("median_ms", POSITIVE)?;
            Distribution::LogNormal {
                median_ms,
                p99_ms: fields.at_least("p99_ms", POSITIVE, "median_ms", median_ms)?,
            }
        }
    })
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
