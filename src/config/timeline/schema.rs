//! The schema of a timeline scenario file: its tables and keys as written (serde,
//! `deny_unknown_fields` everywhere, every key optional but `model`), and the conversion of
//! each named choice, distribution and backoff policy into the model's types, checking the
//! values on the way.

use std::path::PathBuf;

use serde::Deserialize;

use crate::model::semantics::ErrorPolicy;
use crate::model::timeline::{
    CopyMode, CopySpacing, DuplicateAnswer, KeyStore, ReceiptMode, Strategy,
};
use engine::backoff::Backoff;
use engine::distribution::Distribution;

/// A timeline scenario file as written; every key but `model` is optional.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TimelineFile {
    /// Always `timeline` here (see [`super::is_timeline`]).
    #[serde(rename = "model")]
    pub _model: crate::config::ModelName,
    pub seed: Option<u64>,
    pub runs: Option<u32>,
    pub payments: Option<u64>,
    pub strategies: Option<Vec<StrategyName>>,
    pub out: Option<PathBuf>,
    pub threads: Option<usize>,
    pub ttl_sweep_ms: Option<Vec<f64>>,
    #[serde(default)]
    pub arrivals: ArrivalsTable,
    #[serde(default)]
    pub network: NetworkTable,
    #[serde(default)]
    pub server: ServerTable,
    #[serde(default)]
    pub client: ClientTable,
    pub provider: Option<ProviderTable>,
    pub receipts: Option<ReceiptsTable>,
    #[serde(default)]
    pub scenario: Vec<NamedSections>,
}

/// The tables of a scenario, as written (all keys optional; `provider` and `receipts` are
/// off unless written).
#[derive(Debug, Default, Clone)]
pub(super) struct Sections {
    pub arrivals: ArrivalsTable,
    pub network: NetworkTable,
    pub server: ServerTable,
    pub client: ClientTable,
    pub provider: Option<ProviderTable>,
    pub receipts: Option<ReceiptsTable>,
}

/// A `[[scenario]]` entry: a name and the tables it overrides (serde's `flatten` cannot be
/// combined with `deny_unknown_fields`, hence the repetition of [`TimelineFile`]'s tables).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NamedSections {
    pub name: String,
    #[serde(default)]
    pub arrivals: ArrivalsTable,
    #[serde(default)]
    pub network: NetworkTable,
    #[serde(default)]
    pub server: ServerTable,
    #[serde(default)]
    pub client: ClientTable,
    pub provider: Option<ProviderTable>,
    pub receipts: Option<ReceiptsTable>,
}

impl NamedSections {
    pub fn sections(&self) -> Sections {
        Sections {
            arrivals: self.arrivals.clone(),
            network: self.network.clone(),
            server: self.server.clone(),
            client: self.client.clone(),
            provider: self.provider.clone(),
            receipts: self.receipts.clone(),
        }
    }
}

/// `[arrivals]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ArrivalsTable {
    pub process: Option<ProcessName>,
    pub rate_per_s: Option<f64>,
    pub copies: Option<u32>,
    pub copy_mode: Option<CopyModeName>,
    pub copy_spread_ms: Option<f64>,
    pub copy_spacing: Option<CopySpacingName>,
}

/// `[network]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NetworkTable {
    pub request_latency: Option<DistributionTable>,
    pub response_latency: Option<DistributionTable>,
    pub request_loss: Option<f64>,
    pub ack_loss: Option<f64>,
}

/// `[server]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ServerTable {
    pub processing: Option<DistributionTable>,
    pub key_ttl_ms: Option<f64>,
    pub fingerprint: Option<bool>,
    pub error_rate: Option<f64>,
    pub error_policy: Option<ErrorPolicyName>,
    pub duplicate_answer: Option<DuplicateAnswerName>,
    pub crash_rate: Option<f64>,
    pub key_store: Option<KeyStoreName>,
    pub key_write_failure: Option<f64>,
    pub key_lock_ttl_ms: Option<f64>,
    pub completer_interval_ms: Option<f64>,
}

/// `[provider]`: present, the server calls a downstream provider.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ProviderTable {
    pub latency: Option<DistributionTable>,
    pub loss: Option<f64>,
    pub timeout_ms: Option<f64>,
    pub max_retries: Option<u32>,
    pub pass_key: Option<bool>,
}

/// `[receipts]`: present, the server sends a receipt after each charge.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ReceiptsTable {
    pub mode: Option<ReceiptModeName>,
    pub send_failure: Option<f64>,
}

/// `[client]`.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClientTable {
    pub timeout_ms: Option<f64>,
    pub max_retries: Option<u32>,
    pub backoff: Option<BackoffTable>,
    pub different_body_rate: Option<f64>,
}

/// Declares a unit-variant enum of names as written in the file, and its conversion into the
/// model's type.
macro_rules! names {
    ($(#[doc = $doc:literal])+ $name:ident => $model:ty {
        $( $(#[$attribute:meta])* $variant:ident => $target:expr, )+
    }) => {
        $(#[doc = $doc])+
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub(super) enum $name {
            $( $(#[$attribute])* $variant, )+
        }

        impl From<$name> for $model {
            fn from(name: $name) -> $model {
                match name {
                    $( $name::$variant => $target, )+
                }
            }
        }
    };
}

names! {
    /// `strategies`: `none`, `check_then_insert`, `unique_key`.
    StrategyName => Strategy {
        None => Strategy::None,
        CheckThenInsert => Strategy::CheckThenInsert,
        UniqueKey => Strategy::UniqueKey,
    }
}

names! {
    /// `[arrivals] copy_mode`: `concurrent` or `sequential`.
    CopyModeName => CopyMode {
        Concurrent => CopyMode::Concurrent,
        Sequential => CopyMode::Sequential,
    }
}

names! {
    /// `[arrivals] copy_spacing`: `even` or `random`.
    CopySpacingName => CopySpacing {
        Even => CopySpacing::Even,
        Random => CopySpacing::Random,
    }
}

names! {
    /// `[server] error_policy`: `store` or `retry`.
    ErrorPolicyName => ErrorPolicy {
        Store => ErrorPolicy::Store,
        Retry => ErrorPolicy::Retry,
    }
}

names! {
    /// `[server] duplicate_answer`: `replay`, `ok_200`, `conflict_409` or `error_500`.
    DuplicateAnswerName => DuplicateAnswer {
        Replay => DuplicateAnswer::Replay,
        #[serde(rename = "ok_200")]
        Ok200 => DuplicateAnswer::Ok200,
        #[serde(rename = "conflict_409")]
        Conflict409 => DuplicateAnswer::Conflict409,
        #[serde(rename = "error_500")]
        Error500 => DuplicateAnswer::Error500,
    }
}

names! {
    /// `[server] key_store`: `same_transaction`, `separate_store` or `key_first`.
    KeyStoreName => KeyStore {
        SameTransaction => KeyStore::SameTransaction,
        SeparateStore => KeyStore::SeparateStore,
        KeyFirst => KeyStore::KeyFirst,
    }
}

names! {
    /// `[receipts] mode`: `direct` or `outbox`.
    ReceiptModeName => ReceiptMode {
        Direct => ReceiptMode::Direct,
        Outbox => ReceiptMode::Outbox,
    }
}

/// `[arrivals] process`: `poisson`, `burst` or `sequential`.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum ProcessName {
    #[default]
    Poisson,
    Burst,
    Sequential,
}

/// A bad value inside a distribution or backoff table: `(field, value, reason)`.
pub(crate) type FieldProblem = (&'static str, f64, String);

/// A distribution as written: `{ distribution = "...", ... }`, all in ms.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(tag = "distribution", rename_all = "snake_case", deny_unknown_fields)]
pub(crate) enum DistributionTable {
    Fixed { ms: f64 },
    Uniform { low_ms: f64, high_ms: f64 },
    Exponential { mean_ms: f64 },
    LogNormal { median_ms: f64, p99_ms: f64 },
}

impl DistributionTable {
    /// The model's distribution, its parameters checked with `duration` (a duration at least
    /// 0) and `positive` (more than 0).
    pub fn to_model(
        self,
        duration: fn(f64) -> Result<f64, String>,
        positive: fn(f64) -> Result<f64, String>,
    ) -> Result<Distribution, FieldProblem> {
        let check = |field: &'static str, value: f64, rule: fn(f64) -> Result<f64, String>| {
            rule(value).map_err(|reason| (field, value, reason))
        };
        let at_least = |field: &'static str, value: f64, low_field: &str, low: f64| {
            if value < low {
                Err((
                    field,
                    value,
                    format!("must be at least {low_field} = {low}"),
                ))
            } else {
                Ok(value)
            }
        };
        Ok(match self {
            DistributionTable::Fixed { ms } => Distribution::Fixed {
                ms: check("ms", ms, duration)?,
            },
            DistributionTable::Uniform { low_ms, high_ms } => {
                let low_ms = check("low_ms", low_ms, duration)?;
                let high_ms = check("high_ms", high_ms, duration)?;
                Distribution::Uniform {
                    low_ms,
                    high_ms: at_least("high_ms", high_ms, "low_ms", low_ms)?,
                }
            }
            DistributionTable::Exponential { mean_ms } => Distribution::Exponential {
                mean_ms: check("mean_ms", mean_ms, positive)?,
            },
            DistributionTable::LogNormal { median_ms, p99_ms } => {
                let median_ms = check("median_ms", median_ms, positive)?;
                let p99_ms = check("p99_ms", p99_ms, positive)?;
                Distribution::LogNormal {
                    median_ms,
                    p99_ms: at_least("p99_ms", p99_ms, "median_ms", median_ms)?,
                }
            }
        })
    }
}

/// A backoff policy as written: `{ policy = "...", ... }`, all in ms.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(tag = "policy", rename_all = "snake_case", deny_unknown_fields)]
pub(super) enum BackoffTable {
    None,
    Constant { base_ms: f64 },
    Exponential { base_ms: f64, cap_ms: f64 },
    FullJitter { base_ms: f64, cap_ms: f64 },
    EqualJitter { base_ms: f64, cap_ms: f64 },
    DecorrelatedJitter { base_ms: f64, cap_ms: f64 },
}

impl BackoffTable {
    /// The model's policy, every parameter checked with `duration`.
    pub fn to_model(
        self,
        duration: fn(f64) -> Result<f64, String>,
    ) -> Result<Backoff, FieldProblem> {
        let check = |field: &'static str, value: f64| {
            duration(value).map_err(|reason| (field, value, reason))
        };
        let pair = |base_ms: f64, cap_ms: f64| -> Result<(f64, f64), FieldProblem> {
            Ok((check("base_ms", base_ms)?, check("cap_ms", cap_ms)?))
        };
        Ok(match self {
            BackoffTable::None => Backoff::None,
            BackoffTable::Constant { base_ms } => Backoff::Constant {
                base_ms: check("base_ms", base_ms)?,
            },
            BackoffTable::Exponential { base_ms, cap_ms } => {
                let (base_ms, cap_ms) = pair(base_ms, cap_ms)?;
                Backoff::Exponential { base_ms, cap_ms }
            }
            BackoffTable::FullJitter { base_ms, cap_ms } => {
                let (base_ms, cap_ms) = pair(base_ms, cap_ms)?;
                Backoff::FullJitter { base_ms, cap_ms }
            }
            BackoffTable::EqualJitter { base_ms, cap_ms } => {
                let (base_ms, cap_ms) = pair(base_ms, cap_ms)?;
                Backoff::EqualJitter { base_ms, cap_ms }
            }
            BackoffTable::DecorrelatedJitter { base_ms, cap_ms } => {
                let (base_ms, cap_ms) = pair(base_ms, cap_ms)?;
                Backoff::DecorrelatedJitter { base_ms, cap_ms }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn duration(value: f64) -> Result<f64, String> {
        if value >= 0.0 {
            Ok(value)
        } else {
            Err("negative".into())
        }
    }

    fn positive(value: f64) -> Result<f64, String> {
        if value > 0.0 {
            Ok(value)
        } else {
            Err("not positive".into())
        }
    }

    #[test]
    fn bad_distribution_parameters_are_named() {
        let fixed = DistributionTable::Fixed { ms: -1.0 };
        let (field, value, _) = fixed.to_model(duration, positive).unwrap_err();
        assert_eq!((field, value), ("ms", -1.0));
        let backwards = DistributionTable::LogNormal {
            median_ms: 40.0,
            p99_ms: 20.0,
        };
        let (field, _, reason) = backwards.to_model(duration, positive).unwrap_err();
        assert_eq!(field, "p99_ms");
        assert!(reason.contains("median_ms = 40"), "{reason}");
        let zero_mean = DistributionTable::Exponential { mean_ms: 0.0 };
        assert_eq!(
            zero_mean.to_model(duration, positive).unwrap_err().0,
            "mean_ms"
        );
        let uniform = DistributionTable::Uniform {
            low_ms: 1.0,
            high_ms: 2.0,
        };
        assert_eq!(
            uniform.to_model(duration, positive),
            Ok(Distribution::Uniform {
                low_ms: 1.0,
                high_ms: 2.0
            })
        );
    }

    #[test]
    fn bad_backoff_parameters_are_named() {
        let policy = BackoffTable::DecorrelatedJitter {
            base_ms: 10.0,
            cap_ms: -5.0,
        };
        let (field, value, _) = policy.to_model(duration).unwrap_err();
        assert_eq!((field, value), ("cap_ms", -5.0));
        assert_eq!(BackoffTable::None.to_model(duration), Ok(Backoff::None));
    }
}
