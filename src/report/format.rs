//! Number formats and table layout of the reports: grouped thousands, percentages, axis ticks,
//! the shortest decimal forms of `f64`, plain milliseconds, CSV rows to bytes and plain-text
//! tables.

use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

/// `p` in its shortest form that reads back as the same number (`0.1`, `1`, `0`), in
/// scientific notation below 1e-4 like [`decimal`] (`5e-324`, not 325 characters).
pub fn shortest(p: f64) -> String {
    decimal(p)
}

/// Serializes an `f64` in its [`shortest`] form (a probability in a CSV column).
pub fn serialize_shortest<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&shortest(*value))
}

/// The shortest form that reads back as the same `f64`; below 1e-4 in scientific notation
/// (`1.0000000000000005e-40`) rather than with forty zeros.
pub fn decimal(value: f64) -> String {
    if value != 0.0 && value.abs() < 1e-4 {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

/// Serializes an `f64` in its [`decimal`] form (a statistic in a CSV column).
pub fn serialize_decimal<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&decimal(*value))
}

/// Rows to CSV bytes: a header from the row type's field names, then one line per row.
pub fn to_csv<R: Serialize>(rows: impl IntoIterator<Item = R>) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    for row in rows {
        writer
            .serialize(row)
            .expect("serializing into memory cannot fail");
    }
    writer
        .into_inner()
        .expect("flushing into memory cannot fail")
}

/// [`to_csv`], or with no rows the header alone, taken from `example()` (a row of the same
/// type, never written): a table without rows still names its columns.
pub fn to_csv_with_header<R: Serialize>(
    rows: impl IntoIterator<Item = R>,
    example: impl FnOnce() -> R,
) -> Vec<u8> {
    let mut rows = rows.into_iter().peekable();
    if rows.peek().is_some() {
        return to_csv(rows);
    }
    let mut bytes = to_csv([example()]);
    let header_end = bytes
        .iter()
        .position(|&byte| byte == b'\n')
        .map_or(bytes.len(), |newline| newline + 1);
    bytes.truncate(header_end);
    bytes
}

/// Counters written as CSV columns, one per `(name, value)` in order: a counters struct's
/// `columns()` (see [`crate::model::counters`]) or a selection of them. Serialized as one
/// struct, so it sits in a row tuple next to serde-derived structs and [`to_csv`] writes its
/// names in the header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountColumns(pub Vec<(&'static str, u64)>);

impl Serialize for CountColumns {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut row = serializer.serialize_struct("CountColumns", self.0.len())?;
        for (name, value) in &self.0 {
            row.serialize_field(name, value)?;
        }
        row.end()
    }
}

/// Lays out a table: headers, a rule of dashes, then the rows; the first column left-aligned,
/// the others right-aligned, columns two spaces apart, every line ending in a newline.
pub fn layout(headers: &[&str], rows: &[Vec<String>]) -> String {
    let widths: Vec<usize> = (0..headers.len())
        .map(|column| {
            rows.iter()
                .map(|row| row[column].len())
                .chain([headers[column].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[&str]| -> String {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(column, (cell, &width))| {
                if column == 0 {
                    format!("{cell:<width$}")
                } else {
                    format!("{cell:>width$}")
                }
            })
            .collect();
        format!("{}\n", padded.join("  ").trim_end())
    };
    let mut text = line(headers);
    let rule: Vec<String> = widths.iter().map(|&w| "-".repeat(w)).collect();
    text.push_str(&line(&rule.iter().map(String::as_str).collect::<Vec<_>>()));
    for row in rows {
        text.push_str(&line(&row.iter().map(String::as_str).collect::<Vec<_>>()));
    }
    text
}

/// `12345` as `12,345`.
pub fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// An axis tick at or above 0: a whole number grouped by thousands (`12,345`), else with up
/// to three decimals and no trailing zeros (`0.5`, `1.25`), so that ticks closer than 1 apart
/// do not print the same label.
pub fn tick(value: f64) -> String {
    let whole = value.round();
    if (value - whole).abs() <= 1e-9 * whole.abs().max(1.0) {
        return grouped(whole.max(0.0) as u64);
    }
    let text = format!("{value:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// An axis tick of a whole quantity (seconds, clients): [`tick`] of the nearest whole
/// number (`20`, `1,000`).
pub fn whole_tick(value: f64) -> String {
    tick(value.round())
}

/// A tick value to two decimals at most, thousands grouped like every other chart's axis:
/// `4,500`, `2.5`, `0`.
pub fn grouped_hundredths(value: f64) -> String {
    let hundredths = (value.max(0.0) * 100.0).round() as u64;
    let whole = grouped(hundredths / 100);
    match hundredths % 100 {
        0 => whole,
        fraction => {
            let digits = format!("{fraction:02}");
            format!("{whole}.{}", digits.trim_end_matches('0'))
        }
    }
}

/// Whole microseconds as ms in plain decimal, never in scientific notation: the shortest form
/// of `us / 1000` (`12.0`, `54418.824`).
pub fn plain_ms(us: u128) -> String {
    let (whole, fraction) = (us / 1000, us % 1000);
    let digits = format!("{fraction:03}");
    let digits = digits.trim_end_matches('0');
    format!("{whole}.{}", if digits.is_empty() { "0" } else { digits })
}

/// `part / whole` as a percentage with two decimals (`1.01%`).
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "-".to_string();
    }
    format!("{:.2}%", part as f64 * 100.0 / whole as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_in_thousands() {
        assert_eq!(
            [0, 999, 1_000, 10_000, 1_234_567].map(grouped),
            ["0", "999", "1,000", "10,000", "1,234,567"]
        );
    }

    #[test]
    fn outcome_ticks_group_thousands() {
        assert_eq!(
            [4500.0, 2.5, 0.25, 0.0, 12345.678].map(grouped_hundredths),
            ["4,500", "2.5", "0.25", "0", "12,345.68"]
        );
    }

    #[test]
    fn spans_are_plain_decimals() {
        assert_eq!(
            [12_000, 54_418_824, 1_500, 7, 0].map(plain_ms),
            ["12.0", "54418.824", "1.5", "0.007", "0.0"]
        );
        // Beyond 2^64 µs, where an f64 would print 1.8446744073709552e16.
        assert_eq!(plain_ms(u128::from(u64::MAX) + 1), "18446744073709551.616");
    }

    #[test]
    fn ticks_closer_than_one_apart_keep_their_fractions() {
        let labels: Vec<String> = [0.0, 0.5, 1.0, 1.5, 2.0, 2_000.0, 0.25, 0.125]
            .into_iter()
            .map(tick)
            .collect();
        assert_eq!(
            labels,
            ["0", "0.5", "1", "1.5", "2", "2,000", "0.25", "0.125"]
        );
        assert_eq!(whole_tick(19.6), "20");
        assert_eq!(whole_tick(1_000.2), "1,000");
    }

    #[test]
    fn count_columns_join_a_row_and_its_header() {
        #[derive(Serialize)]
        struct Name {
            name: &'static str,
        }
        let row = (
            Name { name: "a,b" },
            CountColumns(vec![("first", 1), ("second", 20)]),
        );
        let bytes = to_csv([row]);
        assert_eq!(
            String::from_utf8(bytes).unwrap(),
            "name,first,second\n\"a,b\",1,20\n"
        );
    }

    #[test]
    fn rates_have_two_decimals() {
        assert_eq!(percent(101, 10_000), "1.01%");
        assert_eq!(percent(984, 10_000), "9.84%");
        assert_eq!(percent(1, 0), "-");
    }

    #[test]
    fn tiny_numbers_use_an_exponent() {
        assert_eq!(decimal(0.0101), "0.0101");
        assert_eq!(decimal(0.0), "0");
        assert_eq!(decimal(1e-20), "1e-20");
        assert_eq!(decimal(-2.5e-7), "-2.5e-7");
        assert_eq!(decimal(1.5), "1.5");
    }
}
