//! The plain values a key is given by outside the file's own keys: an [`Assignment`] (one
//! key at one value, from `--set`, a `--sweep` or a file's `[sweep]` table, and its
//! [`Source`]) and a [`SweepFlag`] (`--sweep KEY=VALUES` as typed). It imports no other
//! config module: the document, the command line's [`Overrides`](super::Overrides), `--set`
//! ([`super::set`]) and sweeps ([`super::sweep`]) all build on it.

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

/// `--sweep KEY=VALUES` as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepFlag {
    /// What follows `--sweep`, as typed.
    pub written: String,
    /// The key as typed.
    pub key: String,
    /// Its values as typed: a list or a range.
    pub values: String,
}

impl SweepFlag {
    /// Splits `written` at its first `=`; the values are read with the file.
    pub fn parse(written: &str) -> Result<Self, String> {
        let (key, values) = split_key(written)?;
        if values.trim().is_empty() {
            return Err(
                "no values after `=`: give a list (500,1000,2000) or a range \
                        (500:2000:500)"
                    .into(),
            );
        }
        Ok(Self {
            written: written.to_string(),
            key: key.to_string(),
            values: values.trim().to_string(),
        })
    }
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
