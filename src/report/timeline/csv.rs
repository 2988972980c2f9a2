//! `timeline.csv` (one row per run, scenario and strategy; `--json` reads it back,
//! [`super::json`]). The counter columns come from
//! [`Counters::columns`](crate::model::timeline::Counters::columns), so every counter is
//! written, in the order it is declared, from that one place.

use serde::{Serialize, Serializer};

use crate::model::timeline::{RunRow, Scenario, TimelineResults};
use crate::report::format::plain_ms;

/// One cell of a timeline CSV row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// A count or an identifier.
    Count(u64),
    /// A name.
    Text(String),
    /// A ratio, in its shortest round-trip decimal form.
    Real(f64),
    /// A number written with a fixed format (`text`; empty when `value` is `None`).
    Number {
        /// The value, if any.
        value: Option<f64>,
        /// How the CSV writes it.
        text: String,
    },
}

impl Cell {
    /// A number of milliseconds with three decimals; empty when absent.
    fn milliseconds(value: Option<f64>) -> Self {
        Cell::Number {
            value,
            text: value.map_or_else(String::new, |ms| format!("{ms:.3}")),
        }
    }

    /// A number in its shortest decimal form (`20000`, `0.5`); empty when absent.
    fn shortest(value: Option<f64>) -> Self {
        Cell::Number {
            value,
            text: value.map_or_else(String::new, |v| v.to_string()),
        }
    }
}

impl Serialize for Cell {
    /// The CSV form.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Cell::Count(count) => serializer.serialize_u64(*count),
            Cell::Text(text) => serializer.serialize_str(text),
            Cell::Real(value) => serializer.serialize_f64(*value),
            Cell::Number { text, .. } => serializer.serialize_str(text),
        }
    }
}

/// A row: `(column, cell)` in column order.
pub type Row = Vec<(&'static str, Cell)>;

/// The columns that describe the scenario of a row: `copies`, `max_retries`, `key_ttl_ms`,
/// `retry_window_ms` (the client's whole retry window in closed form, ms: every attempt's
/// timeout and the longest backoff before each retry; a key TTL shorter than it can expire
/// while a retry is still to come).
fn scenario_columns(scenario: &Scenario) -> Row {
    vec![
        ("copies", Cell::Count(scenario.arrivals.copies.into())),
        (
            "max_retries",
            Cell::Count(scenario.client.max_retries.into()),
        ),
        ("key_ttl_ms", Cell::shortest(scenario.key.key_ttl_ms)),
        (
            "retry_window_ms",
            Cell::shortest(Some(scenario.client.retry_window_ms())),
        ),
    ]
}

/// The columns that describe a scenario's backend: `key_store`, `crash_rate`,
/// `key_write_failure`, `provider_pass_key`, `provider_max_retries`, `receipts`.
fn backend_columns(scenario: &Scenario) -> Row {
    let backend = &scenario.backend;
    vec![
        ("key_store", Cell::Text(backend.key.key_store.name().into())),
        ("crash_rate", Cell::Real(backend.key.crash_rate)),
        (
            "key_write_failure",
            Cell::Real(backend.key.key_write_failure),
        ),
        (
            "provider_pass_key",
            Cell::Text(
                backend
                    .provider
                    .map_or(String::new(), |p| p.pass_key.to_string()),
            ),
        ),
        (
            "provider_max_retries",
            Cell::Number {
                value: backend.provider.map(|p| f64::from(p.max_retries)),
                text: backend
                    .provider
                    .map_or(String::new(), |p| p.max_retries.to_string()),
            },
        ),
        (
            "receipts",
            Cell::Text(
                backend
                    .receipts
                    .map_or(String::new(), |r| r.mode.name().into()),
            ),
        ),
    ]
}

/// Every counter (the backend's too: 0 in a run without crashes, key stores, provider or
/// receipts, so that every timeline.csv has the same columns; the client lifecycle's only
/// when `client_lifecycle`, a scenario of the file has offline clients or reconciliation),
/// then the latency percentiles, the retry amplification and the span.
fn tally_columns(row: &RunRow, client_lifecycle: bool) -> Row {
    let mut cells: Row = row
        .counts
        .written_columns(client_lifecycle)
        .map(|(name, count)| (name, Cell::Count(count)))
        .collect();
    let [p50, p95, p99] = row.latency_ms;
    cells.extend([
        ("latency_p50_ms", Cell::milliseconds(p50)),
        ("latency_p95_ms", Cell::milliseconds(p95)),
        ("latency_p99_ms", Cell::milliseconds(p99)),
        (
            "deliveries_per_payment",
            Cell::Real(row.counts.deliveries_per_payment()),
        ),
        (
            "simulated_span_ms",
            Cell::Number {
                value: Some(row.span.ms()),
                text: plain_ms(row.span.us()),
            },
        ),
    ]);
    cells
}

/// The rows of `timeline.csv`: runs in order, then scenarios, then strategies as listed.
pub fn rows(results: &TimelineResults) -> Vec<Row> {
    each_row(results).collect()
}

/// The same, one at a time (so that the CSV of many runs is written without holding every
/// row's cells at once).
fn each_row(results: &TimelineResults) -> impl Iterator<Item = Row> + '_ {
    let client_lifecycle = results.model.uses_client_lifecycle();
    results.every_run().map(move |row| {
        let scenario = &results.model.scenarios[row.scenario];
        let mut cells = vec![
            ("run", Cell::Count(row.run.into())),
            ("scenario", Cell::Text(scenario.name.clone())),
            ("strategy", Cell::Text(row.strategy.name().into())),
            ("seed", Cell::Count(results.model.seed)),
        ];
        cells.extend(scenario_columns(scenario));
        cells.extend(backend_columns(scenario));
        cells.extend(tally_columns(row, client_lifecycle));
        cells
    })
}

/// Rows to CSV bytes: the header from the first row's columns, then one line per row.
fn to_csv<R: std::borrow::Borrow<Row>>(rows: impl IntoIterator<Item = R>) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let cannot_fail = "writing CSV into memory cannot fail";
    for (index, row) in rows.into_iter().enumerate() {
        let row = row.borrow();
        if index == 0 {
            writer
                .write_record(row.iter().map(|(name, _)| name))
                .expect(cannot_fail);
        }
        let cells: Vec<&Cell> = row.iter().map(|(_, cell)| cell).collect();
        writer.serialize(cells).expect(cannot_fail);
    }
    writer.into_inner().expect(cannot_fail)
}

/// `timeline.csv`.
pub fn timeline_csv(results: &TimelineResults) -> Vec<u8> {
    to_csv(each_row(results))
}
