//! Reading the files a measured distribution names: samples (one a line, or a named column of
//! a CSV file with a header), Prometheus text exposition (`<name>_bucket{le="..."} <count>`
//! lines) and HdrHistogram percentile output (`.hgrm`: `Value Percentile TotalCount
//! 1/(1-Percentile)`). A path is relative to the config file's folder. Each file is read at
//! most once per process (a sweep's points share it) and at most [`MAX_DATA_FILE_BYTES`];
//! a bad file is refused with one line naming the file, the line and, in a CSV file, the
//! column.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use engine::measured::Measured;

use super::key::MAX_DURATION_MS;

/// The largest data file read: 32 MiB (about 3 million samples of 10 characters). A larger
/// one is refused after reading this much.
pub const MAX_DATA_FILE_BYTES: u64 = 32 << 20;

/// The units a data file's durations may be in, and their length in ms.
pub const UNITS: &[(&str, f64)] = &[("us", 1e-3), ("ms", 1.0), ("s", 1e3)];

/// A unit's names, for [`super::key::Kind::Choice`].
pub const UNIT_NAMES: &[&str] = &["us", "ms", "s"];

/// The histogram file formats.
pub const FORMATS: &[&str] = &["prometheus", "hgrm"];

/// What to read from a file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Request {
    /// Samples: one a line, or the column of this name in a CSV file with a header; in `unit`.
    Samples {
        /// The column's name, if any.
        column: Option<String>,
        /// The unit of the samples.
        unit: &'static str,
    },
    /// Prometheus text exposition: the histogram `metric` (its name without `_bucket`; the
    /// only one in the file if `None`), its bounds in `unit` (from the name's `_seconds` or
    /// `_milliseconds` if `None`).
    Prometheus {
        /// The metric's name, if given.
        metric: Option<String>,
        /// The unit of the bounds, if given.
        unit: Option<&'static str>,
    },
    /// HdrHistogram percentile output, its values in `unit`.
    Hgrm {
        /// The unit of the values.
        unit: &'static str,
    },
}

/// Every file read so far, by path and request.
static READ: Mutex<Vec<((PathBuf, Request), &'static Measured)>> = Mutex::new(Vec::new());

/// The distribution in `file` (as written, relative to `folder`), read once per process.
pub fn read(folder: &Path, file: &str, request: &Request) -> Result<&'static Measured, String> {
    let path = folder.join(file);
    let key = (
        path.canonicalize().unwrap_or_else(|_| path.clone()),
        request.clone(),
    );
    if let Some((_, measured)) = lock().iter().find(|(read, _)| *read == key) {
        return Ok(measured);
    }
    let text = text(&path)?;
    let shown = path.display().to_string();
    let measured = match request {
        Request::Samples { column, unit } => samples(&text, &shown, column.as_deref(), unit),
        Request::Prometheus { metric, unit } => prometheus(&text, &shown, metric.as_deref(), *unit),
        Request::Hgrm { unit } => hgrm(&text, &shown, unit),
    }?
    // Described by the path as the config file writes it, wherever the tool runs from.
    .named(file)
    .leak();
    lock().push((key, measured));
    Ok(measured)
}

fn lock() -> std::sync::MutexGuard<'static, Vec<((PathBuf, Request), &'static Measured)>> {
    READ.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The file's text, at most [`MAX_DATA_FILE_BYTES`].
fn text(path: &Path) -> Result<String, String> {
    crate::input::read_text(path, MAX_DATA_FILE_BYTES).map_err(|error| match error {
        crate::input::ReadError::Io(error) => format!("cannot read {}: {error}", path.display()),
        crate::input::ReadError::TooLarge { .. } => format!(
            "{} is larger than {} MiB, the most a data file may be",
            path.display(),
            MAX_DATA_FILE_BYTES >> 20
        ),
        not_text => format!("{} is {not_text}", path.display()),
    })
}

/// The length of `unit` in ms.
fn unit_ms(unit: &str) -> f64 {
    UNITS
        .iter()
        .find(|(name, _)| *name == unit)
        .map(|(_, ms)| *ms)
        .expect("a declared unit")
}

/// A duration written as `text` in a unit of `scale` ms, checked.
fn duration(text: &str, scale: f64) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a number", crate::parse::echo(text.trim())))?;
    let ms = value * scale;
    if !(0.0..=MAX_DURATION_MS).contains(&ms) {
        return Err(format!(
            "`{}` is not a duration from 0 to {MAX_DURATION_MS} ms",
            text.trim()
        ));
    }
    Ok(ms)
}

/// Samples, one a line (blank lines and `#` comments skipped) or a named CSV column.
fn samples(text: &str, file: &str, column: Option<&str>, unit: &str) -> Result<Measured, String> {
    let scale = unit_ms(unit);
    let mut values = Vec::new();
    match column {
        None => {
            for (number, line) in (1..).zip(text.lines()) {
                let line = line.trim();
                if line.is_empty() || line.starts_with('#') {
                    continue;
                }
                let ms = duration(line, scale).map_err(|why| {
                    let hint = if values.is_empty() && line.contains(',') {
                        " (a CSV file with a header needs `column = \"name\"`)"
                    } else {
                        ""
                    };
                    format!("{file}, line {number}: {why}{hint}")
                })?;
                values.push(ms);
            }
        }
        Some(column) => {
            let mut reader = csv::ReaderBuilder::new()
                .trim(csv::Trim::All)
                .comment(Some(b'#'))
                .from_reader(text.as_bytes());
            let headers = reader
                .headers()
                .map_err(|error| format!("{file}, line 1: {error}"))?
                .clone();
            let Some(index) = headers.iter().position(|name| name == column) else {
                return Err(format!(
                    "{file}, line 1: no column `{column}`; its columns are {}",
                    headers.iter().collect::<Vec<_>>().join(", ")
                ));
            };
            for record in reader.records() {
                let record = record.map_err(|error| match error.position() {
                    Some(position) => format!("{file}, line {}: {error}", position.line()),
                    None => format!("{file}: {error}"),
                })?;
                let line = record.position().map_or(0, csv::Position::line);
                let field = record.get(index).ok_or_else(|| {
                    format!(
                        "{file}, line {line}: no column {} (`{column}`): the line has {} fields",
                        index + 1,
                        record.len()
                    )
                })?;
                let ms = duration(field, scale).map_err(|why| {
                    format!(
                        "{file}, line {line}, column {} (`{column}`): {why}",
                        index + 1
                    )
                })?;
                values.push(ms);
            }
        }
    }
    Measured::samples(values, file, |index| format!("sample {}", index + 1))
        .map_err(|error| format!("{file}: {error}"))
}

/// A bucket line of Prometheus text exposition: its metric (without `_bucket`), its labels
/// other than `le` as written, its bound and its cumulative count.
struct BucketLine<'t> {
    metric: &'t str,
    labels: String,
    le: &'t str,
    count: &'t str,
}

/// `name{labels} value [timestamp]` as a bucket line, if it is one.
fn bucket_line(line: &str) -> Result<Option<BucketLine<'_>>, String> {
    let name_end = line
        .find(|c: char| c == '{' || c.is_whitespace())
        .unwrap_or(line.len());
    let Some(metric) = line[..name_end].strip_suffix("_bucket") else {
        return Ok(None);
    };
    let rest = &line[name_end..];
    let (labels, value) = match rest.strip_prefix('{') {
        Some(inside) => {
            let close = closing_brace(inside).ok_or("a `{` without its `}`")?;
            (&inside[..close], &inside[close + 1..])
        }
        None => ("", rest),
    };
    let mut le = None;
    let mut others = Vec::new();
    for label in split_labels(labels) {
        let (name, quoted) = label
            .split_once('=')
            .ok_or_else(|| format!("label `{label}` is not name=\"value\""))?;
        let quoted = quoted.trim();
        let value = quoted
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .ok_or_else(|| format!("label `{label}`'s value is not quoted"))?;
        if name.trim() == "le" {
            le = Some(value);
        } else {
            others.push(label.trim());
        }
    }
    let le = le.ok_or("a `_bucket` line without an `le` label")?;
    let count = value
        .split_whitespace()
        .next()
        .ok_or("a `_bucket` line without its count")?;
    Ok(Some(BucketLine {
        metric,
        labels: others.join(","),
        le,
        count,
    }))
}

/// Where the `}` closing a label set is (outside quoted values).
fn closing_brace(inside: &str) -> Option<usize> {
    let mut quoted = false;
    let mut escaped = false;
    for (index, c) in inside.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            '}' if !quoted => return Some(index),
            _ => {}
        }
    }
    None
}

/// The labels of a label set, split at the commas outside quoted values.
fn split_labels(labels: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut quoted, mut escaped, mut start) = (false, false, 0);
    for (index, c) in labels.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                parts.push(&labels[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    parts.push(&labels[start..]);
    parts
        .into_iter()
        .filter(|part| !part.trim().is_empty())
        .collect()
}

/// The histogram `metric` of a Prometheus text exposition file.
fn prometheus(
    text: &str,
    file: &str,
    metric: Option<&str>,
    unit: Option<&'static str>,
) -> Result<Measured, String> {
    let mut lines = Vec::new();
    for (number, line) in (1..).zip(text.lines()) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(bucket) =
            bucket_line(line).map_err(|why| format!("{file}, line {number}: {why}"))?
        {
            lines.push((number, bucket));
        }
    }
    let mut metrics: Vec<&str> = lines.iter().map(|(_, bucket)| bucket.metric).collect();
    metrics.dedup();
    let metric = match metric {
        Some(metric) => {
            if !metrics.contains(&metric) {
                return Err(format!(
                    "{file}: no histogram `{metric}` (no `{metric}_bucket` lines); its histograms \
                     are {}",
                    if metrics.is_empty() {
                        "none".to_string()
                    } else {
                        metrics.join(", ")
                    }
                ));
            }
            metric
        }
        None => match metrics.as_slice() {
            [one] => one,
            [] => {
                return Err(format!(
                    "{file}: no `_bucket` lines: not a Prometheus histogram"
                ));
            }
            several => {
                return Err(format!(
                    "{file}: several histograms ({}); name one with `metric = \"...\"`",
                    several.join(", ")
                ));
            }
        },
    };
    let unit = match unit {
        Some(unit) => unit,
        None if metric.ends_with("_seconds") => "s",
        None if metric.ends_with("_milliseconds") || metric.ends_with("_ms") => "ms",
        None => {
            return Err(format!(
                "{file}: the unit of `{metric}` is not in its name: give `unit`, one of \"us\", \
                 \"ms\", \"s\""
            ));
        }
    };
    let scale = unit_ms(unit);
    let buckets: Vec<&(usize, BucketLine<'_>)> = lines
        .iter()
        .filter(|(_, bucket)| bucket.metric == metric)
        .collect();
    let series = &buckets[0].1.labels;
    let mut upper = Vec::with_capacity(buckets.len());
    let mut cumulative = Vec::with_capacity(buckets.len());
    let mut numbers = Vec::with_capacity(buckets.len());
    for (number, bucket) in buckets {
        let at = |why: String| format!("{file}, line {number}: {why}");
        if bucket.labels != *series {
            return Err(at(format!(
                "a second series of `{metric}` ({{{}}} after {{{series}}}); keep one series in \
                 the file",
                bucket.labels
            )));
        }
        let le = if bucket.le == "+Inf" || bucket.le == "Inf" {
            f64::INFINITY
        } else {
            duration(bucket.le, scale).map_err(|why| at(format!("le {why}")))?
        };
        let count: f64 = bucket
            .count
            .parse()
            .map_err(|_| at(format!("the count `{}` is not a number", bucket.count)))?;
        upper.push(le);
        cumulative.push(count);
        numbers.push(*number);
    }
    Measured::buckets(
        0.0,
        &upper,
        &cumulative,
        file,
        |index| format!("line {}'s le", numbers[index]),
        |index| format!("line {}'s count", numbers[index]),
    )
    .map_err(|error| format!("{file}: {error}"))
}

/// HdrHistogram percentile output: after the `Value Percentile TotalCount 1/(1-Percentile)`
/// header, lines of `value percentile total_count [1/(1-percentile)]` (`#` lines are the
/// summary); each value with the count of recorded values up to it, so the first line's count
/// sits at its value and each later count spreads uniformly back to the line before.
fn hgrm(text: &str, file: &str, unit: &str) -> Result<Measured, String> {
    let scale = unit_ms(unit);
    let mut points: Vec<(usize, f64, f64)> = Vec::new();
    let mut header = false;
    for (number, line) in (1..).zip(text.lines()) {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !header {
            if line.starts_with("Value") && line.contains("Percentile") {
                header = true;
                continue;
            }
            return Err(format!(
                "{file}, line {number}: expected the header `Value Percentile TotalCount \
                 1/(1-Percentile)` of HdrHistogram's percentile output"
            ));
        }
        let at = |why: String| format!("{file}, line {number}: {why}");
        let cell =
            |column: usize, why: String| format!("{file}, line {number}, column {column}: {why}");
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 3 {
            return Err(at(format!(
                "expected `value percentile total_count`, found {} fields",
                fields.len()
            )));
        }
        let value = duration(fields[0], scale).map_err(|why| cell(1, why))?;
        let count: f64 = fields[2]
            .parse()
            .map_err(|_| cell(3, format!("`{}` is not a count", fields[2])))?;
        match points.last() {
            Some(&(_, last, last_count)) if value == last => {
                if count != last_count {
                    return Err(at(format!(
                        "the value {} repeats with another count ({count} after {last_count})",
                        fields[0]
                    )));
                }
            }
            Some(&(_, last, _)) if value < last => {
                return Err(cell(
                    1,
                    format!(
                        "the values must not decrease ({} after {})",
                        fields[0],
                        last / scale
                    ),
                ));
            }
            _ => points.push((number, value, count)),
        }
    }
    if !header {
        return Err(format!(
            "{file}: no `Value Percentile TotalCount` header: not HdrHistogram percentile output"
        ));
    }
    let Some(&(_, lowest, _)) = points.first() else {
        return Err(format!("{file}: no lines after the header"));
    };
    let upper: Vec<f64> = points.iter().map(|&(_, value, _)| value).collect();
    let cumulative: Vec<f64> = points.iter().map(|&(_, _, count)| count).collect();
    Measured::buckets(
        lowest,
        &upper,
        &cumulative,
        file,
        |index| format!("line {}'s value", points[index].0),
        |index| format!("line {}'s count", points[index].0),
    )
    .map_err(|error| format!("{file}: {error}"))
}

#[cfg(test)]
#[path = "measured_tests.rs"]
mod tests;
