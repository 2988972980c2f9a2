//! Reading one key's value as its [`Kind`] says: whole numbers, numbers, probabilities,
//! durations (a number in the key's unit, or a string with a unit, read by `humantime`),
//! names, switches, paths and lists. A value comes from the file (with its line and column),
//! from a flag, or from the key's declared default, and every refusal is one line naming
//! where it came from, the key, the value as written and the form expected.

use std::path::PathBuf;

use toml::de::DeValue;

use super::document::{Document, Entry, Value};
use super::key::{Bounds, Key, Kind, TimeUnit, did_you_mean, quoted_list};
use super::{ConfigError, Origin};

/// The most characters of a value repeated in an error.
pub const ECHO_CHARACTERS: usize = crate::parse::ECHO_CHARACTERS;

/// A value to read, and where it came from.
#[derive(Debug, Clone)]
pub struct Found<'v, 't> {
    /// The value.
    pub value: &'v DeValue<'t>,
    /// Where it was written.
    pub origin: Origin,
    /// How it was written (cut to [`ECHO_CHARACTERS`]).
    pub written: String,
    /// The key as the user reads it (`client.backoff`, `scenario[1].client.backoff`).
    key: String,
    /// The file, to place the values inside this one.
    document: Option<&'v Document<'t>>,
}

impl<'v, 't> Found<'v, 't> {
    /// A value of the file.
    pub fn in_file(entry: &Entry<'v, 't>) -> Self {
        Self::at(entry.document, entry.written(), entry.value)
    }

    /// The value `value` of the file, read as key `key`.
    pub fn at(document: &'v Document<'t>, key: String, value: &'v Value<'t>) -> Self {
        let span = value.span();
        Self {
            value: value.get_ref(),
            origin: document.origin(&key, &span),
            written: crate::parse::echo(document.text.get(span).unwrap_or("").trim()),
            key,
            document: Some(document),
        }
    }

    /// A key's declared default (or any value not in the file), named by `origin`.
    pub fn elsewhere(key: &str, value: &'v DeValue<'t>, origin: Origin) -> Self {
        Self {
            value,
            origin,
            written: crate::parse::echo(&value_text(value)),
            key: key.to_string(),
            document: None,
        }
    }

    /// The folder a relative path in this value is read from: its config file's, or the
    /// working directory for a flag's value or a default.
    pub fn folder(&self) -> PathBuf {
        self.document.map(Document::folder).unwrap_or_default()
    }

    /// The key as the user reads it.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// A part of this value: field `field` of a table (named `key.field`), or an item of a
    /// list (`field` is `[index]`: named `key[index]`).
    pub fn nested(&self, field: &str, value: &'v Value<'t>) -> Self {
        let key = if field.starts_with('[') {
            format!("{}{field}", self.key)
        } else {
            format!("{}.{field}", self.key)
        };
        match self.document {
            Some(document) => Self::at(document, key, value),
            None => {
                let origin = match &self.origin {
                    Origin::Default(name) => Origin::Default(name),
                    other => other.clone(),
                };
                Self::elsewhere(&key, value.get_ref(), origin)
            }
        }
    }

    /// The refusal of this value: `reason` says what was expected.
    pub fn invalid(&self, reason: impl Into<String>) -> ConfigError {
        ConfigError::InvalidValue {
            origin: self.origin.clone(),
            value: self.written.clone(),
            reason: reason.into(),
        }
    }

    /// This value as a table whose fields are among `fields` (an unknown one is refused with
    /// a near miss); `what` names the table in errors ("a distribution").
    pub fn table(
        &self,
        what: &str,
        fields: &[&str],
    ) -> Result<Vec<(&'v str, Found<'v, 't>)>, ConfigError> {
        let DeValue::Table(table) = self.value else {
            return Err(self.invalid(format!("expected {what} (a table such as {{ ... }})")));
        };
        let mut out = Vec::with_capacity(table.len());
        let mut items: Vec<_> = table.iter().collect();
        items.sort_by_key(|(name, _)| name.span().start);
        for (name, value) in items {
            let name: &'v str = name.get_ref().as_ref();
            let found = self.nested(name, value);
            if !fields.contains(&name) {
                let hint = did_you_mean(name, fields.iter().copied())
                    .map_or_else(String::new, |near| format!(" (did you mean `{near}`?)"));
                return Err(found.invalid(format!(
                    "`{name}` is not a field of {what}: its fields are {}{hint}",
                    fields.join(", ")
                )));
            }
            out.push((name, found));
        }
        Ok(out)
    }

    /// This value as a list, each item with its place.
    pub fn list(&self) -> Result<Vec<Found<'v, 't>>, ConfigError> {
        let DeValue::Array(items) = self.value else {
            return Err(self.invalid(format!(
                "expected a list [...], not {}",
                type_of(self.value)
            )));
        };
        Ok(items
            .iter()
            .enumerate()
            .map(|(index, item)| self.nested(&format!("[{index}]"), item))
            .collect())
    }
}

/// A key's declared default, parsed as the file would be.
///
/// # Panics
/// If the declaration's default is not valid TOML (a programming error the schema tests
/// catch).
pub fn default_value(key: &Key) -> Option<DeValue<'static>> {
    let text = key.default?;
    let value = DeValue::parse(text)
        .unwrap_or_else(|error| panic!("the default of `{}` is not TOML: {error}", key.name));
    Some(value.into_inner())
}

/// A value written back as TOML (for a value that is not in the file).
pub fn value_text(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(text) => format!("{:?}", text.as_ref()),
        DeValue::Integer(integer) => integer.to_string(),
        DeValue::Float(float) => float.as_str().to_string(),
        DeValue::Boolean(flag) => flag.to_string(),
        DeValue::Datetime(datetime) => datetime.to_string(),
        DeValue::Array(items) => {
            let items: Vec<String> = items
                .iter()
                .map(|item| value_text(item.get_ref()))
                .collect();
            format!("[{}]", items.join(", "))
        }
        DeValue::Table(table) => {
            let items: Vec<String> = table
                .iter()
                .map(|(name, value)| {
                    format!("{} = {}", name.get_ref(), value_text(value.get_ref()))
                })
                .collect();
            format!("{{ {} }}", items.join(", "))
        }
    }
}

/// The default's origin in errors (a default is always valid; this names it if not).
pub fn default_origin(key: &Key) -> Origin {
    Origin::Default(key.name)
}

/// What a TOML value is, in words.
pub fn type_of(value: &DeValue<'_>) -> &'static str {
    match value {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "a whole number",
        DeValue::Float(_) => "a number with a fraction",
        DeValue::Boolean(_) => "true or false",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "a list",
        DeValue::Table(_) => "a table",
    }
}

/// The number a TOML integer or float holds (`-0` is 0); `None` for other types.
pub fn as_number(value: &DeValue<'_>) -> Option<f64> {
    let number = match value {
        DeValue::Integer(integer) => {
            let digits = integer.as_str().replace('_', "");
            match integer.radix() {
                10 => digits.parse::<f64>().ok()?,
                radix => i128::from_str_radix(&digits, radix).ok()? as f64,
            }
        }
        DeValue::Float(float) => float.as_str().replace('_', "").parse::<f64>().ok()?,
        _ => return None,
    };
    // `+ 0.0` turns -0 into 0.
    Some(number + 0.0)
}

/// The whole number a TOML integer holds, if it is one and fits 64 bits unsigned; `Err` with
/// the reason otherwise.
pub fn as_whole(value: &DeValue<'_>) -> Result<u64, &'static str> {
    match value {
        DeValue::Integer(integer) => {
            let digits = integer.as_str().replace('_', "");
            if digits.starts_with('-') {
                return Err("negative");
            }
            u64::from_str_radix(digits.trim_start_matches('+'), integer.radix())
                .map_err(|_| "too large")
        }
        DeValue::Float(_) => Err("not whole"),
        _ => Err("not a number"),
    }
}

/// Reads `found` as `key` says (the scalar kinds; `List` and `Special` are read by their own
/// functions).
pub fn scalar(key: &Key, found: &Found<'_, '_>) -> Result<Scalar, ConfigError> {
    let expected = || format!("expected {}", key.kind.expected());
    match key.kind {
        Kind::Whole { min, max, .. } => {
            let whole = as_whole(found.value).map_err(|why| {
                found.invalid(match why {
                    "too large" => format!("too large: {}", expected()),
                    _ => expected(),
                })
            })?;
            if whole < min || whole > max {
                return Err(found.invalid(expected()));
            }
            Ok(Scalar::Whole(whole))
        }
        Kind::Number { bounds, .. } => number(found, None, bounds, expected).map(Scalar::Number),
        Kind::Probability { max_open } => {
            let bounds = if max_open {
                Bounds::below(0.0, 1.0)
            } else {
                Bounds::closed(0.0, 1.0)
            };
            number(found, None, bounds, expected).map(Scalar::Number)
        }
        Kind::Duration { unit, bounds } => {
            number(found, Some(unit), bounds, expected).map(Scalar::Number)
        }
        Kind::Choice(names) => choice(found, names).map(Scalar::Name),
        Kind::Switch => match found.value {
            DeValue::Boolean(flag) => Ok(Scalar::Switch(*flag)),
            _ => Err(found.invalid(expected())),
        },
        Kind::Folder => match found.value {
            DeValue::String(text) => Ok(Scalar::Folder(PathBuf::from(text.as_ref()))),
            _ => Err(found.invalid(expected())),
        },
        Kind::List { .. } | Kind::Special { .. } => {
            unreachable!("`{}` is read by its model's config", key.name)
        }
    }
}

/// Reads `found` as the list `key` declares (`Kind::List`): at least one item, at most its
/// limit, each read as the item's kind and given at most once.
pub fn list(key: &Key, found: &Found<'_, '_>) -> Result<Vec<Scalar>, ConfigError> {
    let Kind::List { item, max_items } = key.kind else {
        unreachable!("`{}` is not a list", key.name)
    };
    let items = found.list()?;
    if items.is_empty() || items.len() > max_items {
        return Err(found.invalid(format!("expected {}", key.kind.expected())));
    }
    let item_key = Key::file(key.name, *item, None, "");
    let mut values: Vec<Scalar> = Vec::with_capacity(items.len());
    let mut seen = std::collections::HashMap::with_capacity(items.len());
    for (position, item) in (1..).zip(&items) {
        let value = scalar(&item_key, item)?;
        if let Some(first) = seen.insert(identity(&value), position) {
            return Err(item.invalid(format!(
                "given twice (items {first} and {position}): give each at most once"
            )));
        }
        values.push(value);
    }
    Ok(values)
}

/// What makes two items of a list the same: numbers by their bits (`-0` already 0).
fn identity(value: &Scalar) -> String {
    match value {
        Scalar::Number(number) => format!("{:x}", number.to_bits()),
        other => format!("{other:?}"),
    }
}

/// A value of a scalar kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// A whole number.
    Whole(u64),
    /// A number, a probability or a duration in the key's unit.
    Number(f64),
    /// One of a choice's names.
    Name(&'static str),
    /// A switch.
    Switch(bool),
    /// A path.
    Folder(PathBuf),
}

/// A number within `bounds`; with a `unit`, a duration too: a number of `unit`s, or a
/// string with a unit.
fn number(
    found: &Found<'_, '_>,
    unit: Option<TimeUnit>,
    bounds: Bounds,
    expected: impl Fn() -> String,
) -> Result<f64, ConfigError> {
    let value = match (found.value, unit) {
        (DeValue::String(text), Some(unit)) => {
            let parsed = humantime::parse_duration(text.trim())
                .map_err(|_| found.invalid(format!("not a duration: {}", expected())))?;
            // Whole nanoseconds, so "150ms" is exactly 150 and "2s" exactly 2000.
            parsed.as_nanos() as f64 / (unit.seconds() * 1e9)
        }
        (other, _) => as_number(other).ok_or_else(|| found.invalid(expected()))?,
    };
    bounds
        .contains(value)
        .then_some(value)
        .ok_or_else(|| found.invalid(expected()))
}

/// One of `names`; a near miss is named.
fn choice(
    found: &Found<'_, '_>,
    names: &'static [&'static str],
) -> Result<&'static str, ConfigError> {
    let DeValue::String(text) = found.value else {
        return Err(found.invalid(format!("expected one of {}", quoted_list(names))));
    };
    if let Some(name) = names.iter().find(|name| **name == text.as_ref()) {
        return Ok(name);
    }
    let hint = did_you_mean(text, names.iter().copied())
        .map_or_else(String::new, |near| format!(" (did you mean \"{near}\"?)"));
    Err(found.invalid(format!("expected one of {}{hint}", quoted_list(names))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::key::TimeUnit;

    fn read(kind: Kind, text: &str) -> Result<Scalar, String> {
        let key = Key::file("client.timeout_ms", kind, None, "doc");
        let value = DeValue::parse(text).unwrap().into_inner();
        let origin = Origin::File {
            path: PathBuf::from("f.toml"),
            key: key.name.into(),
            at: Some((3, 14)),
        };
        let found = Found::elsewhere(key.name, &value, origin);
        scalar(&key, &found).map_err(|error| error.to_string())
    }

    const MS: Kind = Kind::Duration {
        unit: TimeUnit::Milliseconds,
        bounds: Bounds::above(0.0, 1e9),
    };

    #[test]
    fn durations_read_numbers_and_units_alike() {
        assert_eq!(read(MS, "2000"), Ok(Scalar::Number(2000.0)));
        assert_eq!(read(MS, "\"2s\""), Ok(Scalar::Number(2000.0)));
        assert_eq!(read(MS, "\"150ms\""), Ok(Scalar::Number(150.0)));
        assert_eq!(read(MS, "\"5min\""), Ok(Scalar::Number(300_000.0)));
        assert_eq!(read(MS, "\"24h\""), Ok(Scalar::Number(86_400_000.0)));
        let seconds = Kind::Duration {
            unit: TimeUnit::Seconds,
            bounds: Bounds::closed(0.0, 1e6),
        };
        assert_eq!(read(seconds, "\"90s\""), Ok(Scalar::Number(90.0)));
        assert_eq!(read(seconds, "\"1500ms\""), Ok(Scalar::Number(1.5)));
        let error = read(MS, "\"2 parsecs\"").unwrap_err();
        assert!(
            error.contains("key `client.timeout_ms` in config file f.toml (line 3, column 14)"),
            "{error}"
        );
        assert!(error.contains("such as \"250ms\""), "{error}");
        let error = read(MS, "0").unwrap_err();
        assert!(
            error.contains("more than 0 and at most 1000000000 ms"),
            "{error}"
        );
    }

    #[test]
    fn whole_numbers_refuse_fractions_and_say_too_large() {
        let retries = Kind::Whole {
            min: 0,
            max: 1000,
            unit: "retries",
        };
        assert_eq!(read(retries, "3"), Ok(Scalar::Whole(3)));
        let error = read(retries, "3.5").unwrap_err();
        assert!(
            error.contains("expected a whole number of retries from 0 to 1000"),
            "{error}"
        );
        let error = read(retries, "99999999999999999999").unwrap_err();
        assert!(error.contains("too large"), "{error}");
        assert!(read(retries, "-1").is_err());
    }

    #[test]
    fn names_suggest_the_near_miss() {
        let error = read(Kind::Choice(&["none", "unique_key"]), "\"unique\"").unwrap_err();
        assert!(error.contains("did you mean \"unique_key\"?"), "{error}");
        assert_eq!(
            read(Kind::Choice(&["none", "unique_key"]), "\"none\""),
            Ok(Scalar::Name("none"))
        );
    }

    #[test]
    fn lists_refuse_repeats_and_read_each_item() {
        const ITEM: Kind = Kind::Probability { max_open: false };
        let key = Key::file(
            "output.error_rate_sweep",
            Kind::List {
                item: &ITEM,
                max_items: 3,
            },
            None,
            "d",
        );
        let read = |text: &str| {
            let value = DeValue::parse(text).unwrap().into_inner();
            list(
                &key,
                &Found::elsewhere(key.name, &value, Origin::Default(key.name)),
            )
            .map_err(|error| error.to_string())
        };
        assert_eq!(
            read("[0.1, 0.2]"),
            Ok(vec![Scalar::Number(0.1), Scalar::Number(0.2)])
        );
        let error = read("[0.0, -0.0]").unwrap_err();
        assert!(error.contains("given twice (items 1 and 2)"), "{error}");
        assert!(read("[]").is_err());
        assert!(read("[0.1, 0.2, 0.3, 0.4]").is_err());
        assert!(read("[1.5]").unwrap_err().contains("probability"));
    }

    #[test]
    fn negative_zero_reads_as_zero() {
        let Ok(Scalar::Number(zero)) = read(Kind::Probability { max_open: false }, "-0.0") else {
            panic!("read")
        };
        assert_eq!(zero.to_bits(), 0.0f64.to_bits());
    }
}
