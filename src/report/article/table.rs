//! The stdout table, laid out like the article's: one line per p of the article's run (run 0).

use crate::model::article::ArticleResults;
use crate::model::article::server::ServerKind;
use crate::report::format::{grouped, layout, percent, shortest};

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
                shortest(point.ack_loss),
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
