//! One scenario's view of a file: each key from its `[[scenario]]` entry if written there,
//! else from the top level, else its declared default, read as its kind says and refused,
//! when wrong, where it was written. A file without scenarios is one scenario.

use engine::backoff::Backoff;
use engine::distribution::Distribution;

use crate::config::document::{Entries, Entry, Scenario};
use crate::config::key::{Key, Schema};
use crate::config::read::{Found, Scalar, default_value, scalar};
use crate::config::{ConfigError, Origin, tables};

/// The keys of one scenario: the top level's, under its `[[scenario]]` entry's.
pub struct Lookup<'a, 'd, 't> {
    /// The model's keys.
    pub schema: &'static Schema,
    /// Its top-level keys.
    pub base: &'a Entries<'d, 't>,
    /// The scenario's entry, if the file has `[[scenario]]`s.
    pub over: Option<&'a Scenario<'d, 't>>,
}

impl<'a, 'd, 't> Lookup<'a, 'd, 't> {
    /// The top-level keys of a file read with `schema`, in no scenario.
    pub fn top(schema: &'static Schema, base: &'a Entries<'d, 't>) -> Self {
        Self {
            schema,
            base,
            over: None,
        }
    }

    /// The declaration of `name`.
    ///
    /// # Panics
    /// If the schema does not declare it (a programming error the tests catch).
    fn key(&self, name: &str) -> &'static Key {
        self.schema.key(name).unwrap_or_else(|| {
            panic!(
                "`{name}` is not a declared key of the {} model",
                self.schema.model
            )
        })
    }

    /// Where `name` is written for this scenario, if it is.
    pub fn entry(&self, name: &str) -> Option<&'a Entry<'d, 't>> {
        self.over
            .and_then(|over| over.keys.get(name))
            .or_else(|| self.base.base.get(name))
    }

    /// Whether `name` is written for this scenario.
    pub fn written(&self, name: &str) -> bool {
        self.entry(name).is_some()
    }

    /// Whether the table `name` (`provider`, `client.token_bucket`) is written for this
    /// scenario, even empty.
    pub fn has_table(&self, name: &str) -> bool {
        self.over.is_some_and(|over| over.tables.contains_key(name))
            || self.base.tables.contains_key(name)
    }

    /// The table `name` read by `read` if it is written for this scenario (see
    /// [`Self::has_table`]), else `None`.
    pub fn table_if<T>(
        &self,
        name: &str,
        read: impl FnOnce() -> Result<T, ConfigError>,
    ) -> Result<Option<T>, ConfigError> {
        self.has_table(name).then(read).transpose()
    }

    /// Reads `name` with `read`, from where it is written or from its default; `None` when
    /// it is neither.
    pub fn optional_with<T>(
        &self,
        name: &str,
        read: impl FnOnce(&Found<'_, '_>) -> Result<T, ConfigError>,
    ) -> Result<Option<T>, ConfigError> {
        if self.written(name) || self.key(name).default.is_some() {
            self.with(name, read).map(Some)
        } else {
            Ok(None)
        }
    }

    /// Reads `name` with `read`, from where it is written or from its default.
    ///
    /// # Panics
    /// If the key is neither written nor has a default (the caller asks
    /// [`Lookup::written`] first for those).
    pub fn with<T>(
        &self,
        name: &str,
        read: impl FnOnce(&Found<'_, '_>) -> Result<T, ConfigError>,
    ) -> Result<T, ConfigError> {
        match self.entry(name) {
            Some(entry) => read(&Found::in_file(entry)),
            None => {
                let key = self.key(name);
                let value = default_value(key)
                    .unwrap_or_else(|| panic!("`{name}` has no default; ask `written` first"));
                read(&Found::elsewhere(name, &value, Origin::Default(key.name)))
            }
        }
    }

    /// `name` as a scalar of its declared kind.
    pub fn scalar(&self, name: &str) -> Result<Scalar, ConfigError> {
        let key = self.key(name);
        self.with(name, |found| scalar(key, found))
    }

    /// `name`, a number, probability or duration (in the key's unit).
    pub fn number(&self, name: &str) -> Result<f64, ConfigError> {
        match self.scalar(name)? {
            Scalar::Number(value) => Ok(value),
            other => unreachable!("`{name}` reads as a number, not {other:?}"),
        }
    }

    /// `name` if written, a number.
    pub fn optional_number(&self, name: &str) -> Result<Option<f64>, ConfigError> {
        self.written(name).then(|| self.number(name)).transpose()
    }

    /// `name`, a whole number.
    pub fn whole(&self, name: &str) -> Result<u64, ConfigError> {
        match self.scalar(name)? {
            Scalar::Whole(value) => Ok(value),
            other => unreachable!("`{name}` reads as a whole number, not {other:?}"),
        }
    }

    /// `name` if written, a whole number.
    pub fn optional_whole(&self, name: &str) -> Result<Option<u64>, ConfigError> {
        self.written(name).then(|| self.whole(name)).transpose()
    }

    /// The flag's value if given, else `name` as a whole number (its default when absent).
    pub fn flag_or_whole(&self, flag: Option<u64>, name: &str) -> Result<u64, ConfigError> {
        flag.map_or_else(|| self.whole(name), Ok)
    }

    /// The worker threads: `--threads`, else the file's `threads`, else `default`.
    pub fn threads(&self, flag: Option<usize>, default: usize) -> Result<usize, ConfigError> {
        match flag {
            Some(threads) => Ok(threads),
            None => Ok(self
                .optional_whole("threads")?
                .map_or(default, |threads| threads as usize)),
        }
    }

    /// `name`, one of its names.
    pub fn name(&self, name: &str) -> Result<&'static str, ConfigError> {
        match self.scalar(name)? {
            Scalar::Name(value) => Ok(value),
            other => unreachable!("`{name}` reads as a name, not {other:?}"),
        }
    }

    /// `name`, a folder's path.
    pub fn folder(&self, name: &str) -> Result<std::path::PathBuf, ConfigError> {
        match self.scalar(name)? {
            Scalar::Folder(path) => Ok(path),
            other => unreachable!("`{name}` reads as a folder, not {other:?}"),
        }
    }

    /// `name`, a switch.
    pub fn switch(&self, name: &str) -> Result<bool, ConfigError> {
        match self.scalar(name)? {
            Scalar::Switch(value) => Ok(value),
            other => unreachable!("`{name}` reads as a switch, not {other:?}"),
        }
    }

    /// `name`, a distribution.
    pub fn distribution(&self, name: &str) -> Result<Distribution, ConfigError> {
        self.with(name, tables::distribution)
    }

    /// `name`, a backoff policy.
    pub fn backoff(&self, name: &str) -> Result<Backoff, ConfigError> {
        self.with(name, tables::backoff)
    }

    /// The refusal of `name`'s value (written for this scenario) for `reason`.
    pub fn refuse(&self, name: &str, reason: &str) -> ConfigError {
        let entry = self.entry(name).expect("refused keys are written");
        Found::in_file(entry).invalid(reason)
    }

    /// The first of `names` written for this scenario, as the user reads it.
    pub fn first_written(&self, names: &[&str]) -> Option<&'a Entry<'d, 't>> {
        names.iter().find_map(|name| self.entry(name))
    }
}
