//! The stdout table, laid out like the article's: one line per p of the article's run (run 0).

use crate::model::ArticleResults;
use crate::server::ServerKind;

/// The column headers, as in the article.
pub const HEADERS: [&str; 7] = [
    "p",
    "requests",
    "double-charged (no key)",
    "rate",
    "extra charges (no key)",
    "double-charged (key)",
    "prevented duplicates",
];

/// The cells of the table, one row per p of run 0, in the order of [`HEADERS`].
pub fn rows(results: &ArticleResults) -> Vec<[String; 7]> {
    results
        .first_run()
        .map(|point| {
            let plain = point.server(ServerKind::NonIdempotent);
            let keyed = point.server(ServerKind::IdempotencyKey);
            let requests = point.attempts.requests();
            [
                super::shortest(point.ack_loss),
                grouped(requests),
                grouped(plain.double_charged_requests),
                percent(plain.double_charged_requests, requests),
                grouped(plain.extra_charges),
                grouped(keyed.double_charged_requests),
                grouped(keyed.prevented_duplicates),
            ]
        })
        .collect()
}

/// The table as text, ending in a newline.
pub fn render(results: &ArticleResults) -> String {
    let rows: Vec<Vec<String>> = rows(results).into_iter().map(Vec::from).collect();
    layout(&HEADERS, &rows)
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
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(10_000), "10,000");
        assert_eq!(grouped(1_234_567), "1,234,567");
    }

    #[test]
    fn rates_have_two_decimals() {
        assert_eq!(percent(101, 10_000), "1.01%");
        assert_eq!(percent(984, 10_000), "9.84%");
        assert_eq!(percent(1, 0), "-");
    }
}
