//! `results.csv` and `attempts.csv`: the run's counts as CSV bytes.

use serde::Serialize;

use crate::model::article::ArticleResults;
use crate::model::article::server::ServerKind;
use crate::report::format::{self, to_csv};

/// One row of `results.csv`: what one server did at one p in one run.
#[derive(Debug, Serialize)]
pub struct ResultRow {
    /// The replication; 0 is the article's run (`default_rng(seed)`).
    pub run: u32,
    /// The probability that a response (ACK) is lost, in its shortest decimal form.
    #[serde(serialize_with = "format::serialize_shortest")]
    pub p: f64,
    /// `non_idempotent` (every delivery charges) or `idempotency_key` (key store).
    pub server: &'static str,
    /// Payment requests the clients sent (each with its own key).
    pub requests: u64,
    /// Retries a client makes at most after its first send.
    pub max_retries: u32,
    /// The seed of `numpy.random.default_rng`.
    pub seed: u64,
    /// Deliveries (copies of requests) the server received: first sends plus retries.
    pub deliveries: u64,
    /// Charges the server made.
    pub charges: u64,
    /// Requests charged two or more times (customers charged twice or more).
    pub double_charged_requests: u64,
    /// Charges beyond one per request.
    pub extra_charges: u64,
    /// Deliveries the key store answered with the stored response, without charging.
    pub prevented_duplicates: u64,
    /// Requests that used every retry (`max_retries + 1` attempts); their client gave up.
    pub retries_exhausted: u64,
}

/// One row of `attempts.csv`: how many requests made a given number of attempts.
#[derive(Debug, Serialize)]
pub struct AttemptsRow {
    /// The probability that a response (ACK) is lost.
    #[serde(serialize_with = "format::serialize_shortest")]
    pub p: f64,
    /// Deliveries of one request: 1 (no retry) up to the largest count seen at this p.
    pub attempts: u32,
    /// Requests that made exactly that many attempts (summed over runs).
    pub requests: u64,
}

/// The rows of `results.csv`: one per (run, p, server), runs in order, p in the given order.
pub fn result_rows(results: &ArticleResults) -> Vec<ResultRow> {
    let model = &results.model;
    results
        .points
        .iter()
        .flat_map(|point| {
            ServerKind::ALL.map(|kind| {
                let tally = point.server(kind);
                ResultRow {
                    run: point.run,
                    p: point.ack_loss,
                    server: kind.name(),
                    requests: model.requests,
                    max_retries: model.max_retries,
                    seed: model.seed,
                    deliveries: tally.deliveries,
                    charges: tally.charges,
                    double_charged_requests: tally.double_charged_requests,
                    extra_charges: tally.extra_charges,
                    prevented_duplicates: tally.prevented_duplicates,
                    retries_exhausted: point.attempts.retries_exhausted(),
                }
            })
        })
        .collect()
}

/// `results.csv`.
pub fn results_csv(results: &ArticleResults) -> Vec<u8> {
    to_csv(result_rows(results))
}

/// `attempts.csv`: per p (in the given order, each p once), requests by attempts from 1 to the
/// largest attempt count seen, zeros included, summed over runs.
pub fn attempts_csv(results: &ArticleResults) -> Vec<u8> {
    let rows = results
        .attempts_by_p()
        .into_iter()
        .flat_map(|(p, histogram)| {
            let largest = histogram.max_attempts();
            (1..=largest).map(move |attempts| AttemptsRow {
                p,
                attempts,
                requests: histogram.requests_with(attempts),
            })
        });
    to_csv(rows)
}
