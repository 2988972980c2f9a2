//! `load.csv` (one row per run, scenario and strategy), `load_timeseries.csv` (one row per
//! run, scenario, strategy and time bucket). The counter columns come
//! from [`LoadCounts::columns`] and the steady-state queueing columns from
//! [`Steady::columns`], each declared once in the model with their docs and units.

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use crate::model::load::steady::{Steady, SteadyValue};
use crate::model::load::tally::{Bucket, BucketValue, LoadCounts};
use crate::model::load::{LoadResults, LoadRow, LoadScenario};
use crate::report::format::{CountColumns, decimal, serialize_decimal, to_csv, to_csv_with_header};

/// The columns of `load.csv` that name the event loop: its first four.
#[derive(Debug, Serialize)]
pub struct RunColumns {
    /// The replication; its streams are `SeedSequence(seed, spawn_key=(run, 10))` (arrivals)
    /// and `(run, 11)` (everything else).
    pub run: u32,
    /// The scenario's name.
    pub scenario: String,
    /// `none`, `check_then_insert`, `unique_key` or `lock_wait`.
    pub strategy: &'static str,
    /// The seed of the run streams.
    pub seed: u64,
}

/// The columns of `load.csv` derived from the counts, the queue histograms and the recovery,
/// between [`LoadCounts`]' columns and its trailing `events`.
#[derive(Debug, Serialize)]
pub struct DerivedColumns {
    /// Payments per second of the arrival window (payments/s).
    #[serde(serialize_with = "serialize_decimal")]
    pub offered_load_per_s: f64,
    /// Processings per second of the arrival window, drain included (processings/s).
    #[serde(serialize_with = "serialize_decimal")]
    pub throughput_per_s: f64,
    /// Successful payments per second of the arrival window, drain included (payments/s).
    #[serde(serialize_with = "serialize_decimal")]
    pub goodput_per_s: f64,
    /// Calls per payment: server work per payment (deliveries per payment).
    #[serde(serialize_with = "serialize_decimal")]
    pub amplification: f64,
    /// Mean wait in the queue of the requests a worker took, dropped or answered at once
    /// included (ms, 3 decimals).
    pub mean_queue_wait_ms: String,
    /// Time-averaged queue length over the run (requests, 3 decimals).
    pub mean_queue_length: String,
    /// Median of the queue length over time (requests).
    pub queue_length_p50: u64,
    /// 99th percentile of the queue length over time (requests).
    pub queue_length_p99: u64,
    /// Longest queue (requests).
    pub queue_length_max: u64,
    /// Median over time of the requests inside the server, queued or holding a worker
    /// (requests).
    pub in_flight_p50: u64,
    /// 99th percentile of the same (requests).
    pub in_flight_p99: u64,
    /// Most requests inside the server at once (requests).
    pub in_flight_max: u64,
    /// Whether the run recovered after its trigger (capacity change, outage or spike): from
    /// some window after the trigger on, every window of `[output] recovery_window_s` until
    /// the arrivals end has successes at least 90% of its arrivals times the success ratio
    /// before the trigger (back, and staying back; `true`/`false`; `true` without a trigger:
    /// nothing to recover from).
    pub recovered: String,
    /// The start of the first window of that healthy stretch (s of simulated time; 0 without
    /// a trigger; empty if it never recovered).
    pub recovered_at_s: String,
    /// When the last event happened: the arrival window plus the drain (s, 3 decimals).
    pub end_s: String,
}

/// One row of `load.csv`: one event loop (run, scenario, strategy), drain included: the
/// [`RunColumns`], every counter of [`LoadCounts`] (named after its field, documented there)
/// but the trailing ones, the [`DerivedColumns`], the trailing counters (`events`), then the
/// steady-state queueing columns of [`Steady`] (named after its fields, documented there).
pub type LoadCsvRow = (
    RunColumns,
    CountColumns,
    DerivedColumns,
    CountColumns,
    SteadyColumns,
);

/// The steady-state columns as CSV cells: counts as whole numbers, shares in their shortest
/// round-trip form, durations and levels with 3 decimals, an undefined value empty.
#[derive(Debug)]
pub struct SteadyColumns(pub Steady);

impl SteadyValue {
    /// The value as its CSV cell.
    pub fn cell(self) -> String {
        match self {
            SteadyValue::Count(count) => count.to_string(),
            SteadyValue::Share(share) => share.map_or_else(String::new, decimal),
            SteadyValue::Real(real) => real.map_or_else(String::new, three),
        }
    }

    /// The value as a JSON number (`null` when undefined).
    pub fn to_json(self) -> serde_json::Value {
        match self {
            SteadyValue::Count(count) => count.into(),
            SteadyValue::Share(value) | SteadyValue::Real(value) => {
                value.map_or(serde_json::Value::Null, Into::into)
            }
        }
    }
}

impl Serialize for SteadyColumns {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut row = serializer.serialize_struct("Steady", Steady::COLUMNS.len())?;
        for (name, value) in self.0.columns() {
            match value {
                SteadyValue::Count(count) => row.serialize_field(name, &count)?,
                other => row.serialize_field(name, &other.cell())?,
            }
        }
        row.end()
    }
}

/// The columns of `load_timeseries.csv` that name the bucket: its first four.
#[derive(Debug, Serialize)]
pub struct BucketRunColumns {
    /// The replication.
    pub run: u32,
    /// The scenario's name.
    pub scenario: String,
    /// The strategy.
    pub strategy: &'static str,
    /// The bucket's start (s); it lasts `[output] bucket_s`.
    #[serde(serialize_with = "serialize_decimal")]
    pub bucket_start_s: f64,
}

/// A bucket's columns as CSV cells: counts as whole numbers, time averages with 3 decimals.
#[derive(Debug)]
pub struct BucketColumns(pub Bucket);

impl Serialize for BucketColumns {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let columns: Vec<_> = self.0.columns().collect();
        let mut row = serializer.serialize_struct("Bucket", columns.len())?;
        for (name, value) in columns {
            match value {
                BucketValue::Count(count) => row.serialize_field(name, &count)?,
                BucketValue::Mean(mean) => row.serialize_field(name, &three(mean))?,
            }
        }
        row.end()
    }
}

/// One row of `load_timeseries.csv`: one time bucket of one event loop: the
/// [`BucketRunColumns`], then every field of [`Bucket`] (named after it, documented there).
pub type TimeseriesCsvRow = (BucketRunColumns, BucketColumns);

/// Three decimals.
fn three(value: f64) -> String {
    format!("{value:.3}")
}

/// A rate over the arrival window (per second).
fn per_second(count: u64, window_ms: f64) -> f64 {
    count as f64 / (window_ms / 1000.0)
}

/// The counters of `counts` in two parts: the leading columns, then the trailing group.
fn split_counters(counts: &LoadCounts) -> (CountColumns, CountColumns) {
    let mut leading: Vec<_> = counts.columns().collect();
    let trailing = leading.split_off(leading.len() - LoadCounts::TRAILING_COLUMNS);
    (CountColumns(leading), CountColumns(trailing))
}

fn load_row(results: &LoadResults, row: &LoadRow) -> LoadCsvRow {
    let scenario = &results.model.scenarios[row.scenario];
    let window = scenario.arrivals.duration_ms;
    let tally = &row.tally;
    let counts = tally.counts;
    let (recovered, recovered_at_s) = match tally.recovered_at_ms {
        None => ("false".into(), String::new()),
        Some(at) => ("true".into(), decimal(at / 1000.0)),
    };
    let run = RunColumns {
        run: row.run,
        scenario: scenario.name.clone(),
        strategy: row.strategy.name(),
        seed: results.model.seed,
    };
    let derived = DerivedColumns {
        offered_load_per_s: per_second(counts.payments, window),
        throughput_per_s: per_second(counts.processings, window),
        goodput_per_s: per_second(counts.succeeded, window),
        amplification: counts.calls as f64 / counts.payments.max(1) as f64,
        mean_queue_wait_ms: three(tally.mean_queue_wait_ms()),
        mean_queue_length: three(tally.queue.mean()),
        queue_length_p50: tally.queue.quantile(0.5),
        queue_length_p99: tally.queue.quantile(0.99),
        queue_length_max: tally.queue.max(),
        in_flight_p50: tally.in_flight.quantile(0.5),
        in_flight_p99: tally.in_flight.quantile(0.99),
        in_flight_max: tally.in_flight.max(),
        recovered,
        recovered_at_s,
        end_s: three(tally.end_ms / 1000.0),
    };
    let (leading, trailing) = split_counters(&counts);
    (run, leading, derived, trailing, SteadyColumns(tally.steady))
}

/// The scenario's key settings in `load_key_store.csv`, after the [`RunColumns`].
#[derive(Debug, Serialize)]
pub struct KeyStoreSettings {
    /// `same_transaction`, `separate_store` or `key_first`, as the file says (a strategy that
    /// reserves nothing uses `key_first` as `separate_store`).
    pub key_store: &'static str,
    /// Probability that a processing crashes.
    #[serde(serialize_with = "serialize_decimal")]
    pub crash_rate: f64,
    /// Probability that a key write to the other store fails.
    #[serde(serialize_with = "serialize_decimal")]
    pub key_write_failure: f64,
    /// How long a `key_first` lock holds (ms).
    #[serde(serialize_with = "serialize_decimal")]
    pub key_lock_ttl_ms: f64,
    /// Total time the other key store is down (s; 0: never).
    #[serde(serialize_with = "serialize_decimal")]
    pub key_store_down_s: f64,
    /// `fail_closed` or `fail_open` (empty when the store never goes down).
    pub on_unavailable: &'static str,
}

/// One row of `load_key_store.csv`: one event loop's [`RunColumns`], its scenario's
/// [`KeyStoreSettings`], then every counter of
/// [`KeyStoreCounts`](crate::model::load::tally::KeyStoreCounts) (named after its field,
/// documented there).
pub type KeyStoreCsvRow = (RunColumns, KeyStoreSettings, CountColumns);

/// The bytes of `load_key_store.csv`, by run, then scenario, then strategy; `None` when no
/// scenario sets a crash rate, another key store or its outages (the file is not written).
pub fn key_store_csv(results: &LoadResults) -> Option<Vec<u8>> {
    let used = |scenario: &LoadScenario| scenario.server.uses_key_server();
    let settings = |scenario: &LoadScenario| {
        let server = &scenario.server.key_server;
        let outages = &scenario.server.key_store_outages;
        KeyStoreSettings {
            key_store: server.key_store.name(),
            crash_rate: server.crash_rate,
            key_write_failure: server.key_write_failure,
            key_lock_ttl_ms: server.key_lock_ttl_ms,
            key_store_down_s: outages.windows.iter().fold(0.0, |total, (from_ms, to_ms)| {
                total + (to_ms - from_ms) / 1000.0
            }),
            on_unavailable: if outages.is_empty() {
                ""
            } else {
                outages.on_unavailable.name()
            },
        }
    };
    side_csv(results, used, settings, |row| {
        row.tally.key_store.columns().collect()
    })
}

/// The scenario's body settings in `load_bodies.csv`, after the [`RunColumns`].
#[derive(Debug, Serialize)]
pub struct BodySettings {
    /// Probability that a retry carries another body under the same key.
    #[serde(serialize_with = "serialize_decimal")]
    pub different_body_rate: f64,
    /// Whether the server keeps a fingerprint of the body with the key (422 on a mismatch).
    pub fingerprint: bool,
}

/// One row of `load_bodies.csv`: one event loop's [`RunColumns`], its scenario's
/// [`BodySettings`], then every counter of
/// [`BodyCounts`](crate::model::load::tally::BodyCounts) (named after its field, documented
/// there).
pub type BodyCsvRow = (RunColumns, BodySettings, CountColumns);

/// The bytes of `load_bodies.csv`, by run, then scenario, then strategy; `None` when no
/// scenario sets a different body rate (the file is not written).
pub fn bodies_csv(results: &LoadResults) -> Option<Vec<u8>> {
    let used = |scenario: &LoadScenario| scenario.client.different_body_rate > 0.0;
    let settings = |scenario: &LoadScenario| BodySettings {
        different_body_rate: scenario.client.different_body_rate,
        fingerprint: scenario.server.fingerprint,
    };
    side_csv(results, used, settings, |row| {
        row.tally.bodies.columns().collect()
    })
}

/// The scenario's receipt settings in `load_receipts.csv`, after the [`RunColumns`].
#[derive(Debug, Serialize)]
pub struct ReceiptSettings {
    /// `direct` or `outbox` (empty for a scenario that sends none).
    pub receipts: &'static str,
    /// Probability that one send of a receipt fails.
    #[serde(serialize_with = "serialize_decimal")]
    pub send_failure: f64,
}

/// One row of `load_receipts.csv`: one event loop's [`RunColumns`], its scenario's
/// [`ReceiptSettings`], then every counter of
/// [`ReceiptCounts`](crate::model::load::tally::ReceiptCounts) (named after its field,
/// documented there).
pub type ReceiptCsvRow = (RunColumns, ReceiptSettings, CountColumns);

/// The bytes of `load_receipts.csv`, by run, then scenario, then strategy; `None` when no
/// scenario sends receipts (the file is not written).
pub fn receipts_csv(results: &LoadResults) -> Option<Vec<u8>> {
    let used = |scenario: &LoadScenario| scenario.server.receipts.is_some();
    let settings = |scenario: &LoadScenario| ReceiptSettings {
        receipts: scenario
            .server
            .receipts
            .map_or("", |receipts| receipts.mode.name()),
        send_failure: scenario
            .server
            .receipts
            .map_or(0.0, |receipts| receipts.send_failure),
    };
    side_csv(results, used, settings, |row| {
        row.tally.receipts.columns().collect()
    })
}

/// The scenario's provider settings in `load_provider.csv`, after the [`RunColumns`].
#[derive(Debug, Serialize)]
pub struct ProviderSettings {
    /// Whether the server passes the payment's key downstream and the provider honours it
    /// (empty for a scenario without a provider).
    pub provider_pass_key: Option<bool>,
    /// Calls the server retries at most after the first, per processing (empty without a
    /// provider).
    pub provider_max_retries: Option<u32>,
}

/// One row of `load_provider.csv`: one event loop's [`RunColumns`], its scenario's
/// [`ProviderSettings`], then every counter of
/// [`ProviderCounts`](crate::model::load::tally::ProviderCounts) (named after its field,
/// documented there).
pub type ProviderCsvRow = (RunColumns, ProviderSettings, CountColumns);

/// The bytes of `load_provider.csv`, by run, then scenario, then strategy; `None` when no
/// scenario calls a provider (the file is not written).
pub fn provider_csv(results: &LoadResults) -> Option<Vec<u8>> {
    let used = |scenario: &LoadScenario| scenario.server.provider.is_some();
    let settings = |scenario: &LoadScenario| ProviderSettings {
        provider_pass_key: scenario.server.provider.map(|provider| provider.pass_key),
        provider_max_retries: scenario
            .server
            .provider
            .map(|provider| provider.max_retries),
    };
    side_csv(results, used, settings, |row| {
        row.tally.provider.columns().collect()
    })
}

/// A file of one row per event loop beside `load.csv`: the [`RunColumns`], the scenario's
/// `settings`, then the loop's `counts`; `None` unless some scenario is `used`.
fn side_csv<S: Serialize>(
    results: &LoadResults,
    used: impl Fn(&LoadScenario) -> bool,
    settings: impl Fn(&LoadScenario) -> S,
    counts: impl Fn(&LoadRow) -> Vec<(&'static str, u64)>,
) -> Option<Vec<u8>> {
    let model = &results.model;
    if !model.scenarios.iter().any(used) {
        return None;
    }
    let rows = results.rows.iter().map(|row| {
        let scenario = &model.scenarios[row.scenario];
        let run = RunColumns {
            run: row.run,
            scenario: scenario.name.clone(),
            strategy: row.strategy.name(),
            seed: model.seed,
        };
        (run, settings(scenario), CountColumns(counts(row)))
    });
    Some(to_csv(rows))
}

/// The bytes of `load.csv`: by run, then scenario, then strategy.
pub fn load_csv(results: &LoadResults) -> Vec<u8> {
    to_csv(results.rows.iter().map(|row| load_row(results, row)))
}

/// The bytes of `load_timeseries.csv`: by run, scenario, strategy, then time; the header
/// alone when no loop has a bucket (no event happened: a rate of 0).
pub fn timeseries_csv(results: &LoadResults) -> Vec<u8> {
    let bucket_s = results.model.bucket_ms / 1000.0;
    let header_only = || -> TimeseriesCsvRow {
        let run = BucketRunColumns {
            run: 0,
            scenario: String::new(),
            strategy: "",
            bucket_start_s: 0.0,
        };
        (run, BucketColumns(Bucket::default()))
    };
    let rows = results.rows.iter().flat_map(|row| {
        let scenario = &results.model.scenarios[row.scenario].name;
        row.tally
            .buckets
            .iter()
            .enumerate()
            .map(move |(index, bucket)| -> TimeseriesCsvRow {
                let run = BucketRunColumns {
                    run: row.run,
                    scenario: scenario.clone(),
                    strategy: row.strategy.name(),
                    bucket_start_s: index as f64 * bucket_s,
                };
                (run, BucketColumns(*bucket))
            })
    });
    to_csv_with_header(rows, header_only)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Job, Overrides};
    use std::path::Path;

    /// A rate of 0 issues no payment: no event, no bucket. The file still names its columns,
    /// as every other CSV file does: the four that name the bucket, then the ten of a bucket.
    #[test]
    fn a_time_series_without_buckets_still_has_its_header() {
        let text = "model = \"timeline\"\n[arrivals]\nphases = [{ until_s = 10, rate_per_s = 0 }]\n\
                    [server]\nworkers = 4\n";
        let Ok(Job::Load(config)) =
            Job::from_text(text, Path::new("idle.toml"), &Overrides::default())
        else {
            panic!("a load file")
        };
        let results = crate::model::load::simulate(&config.model, 1, &engine::Silent).unwrap();
        assert!(results.rows.iter().all(|row| row.tally.buckets.is_empty()));
        assert_eq!(
            String::from_utf8(timeseries_csv(&results)).unwrap(),
            "run,scenario,strategy,bucket_start_s,arrivals,retries,successes,timeouts,\
             conflicts,shed,calls,queue_length,workers_busy,double_charges\n"
        );
    }
}
