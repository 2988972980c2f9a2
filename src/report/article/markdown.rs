//! `report.md`: the parameters, the article's table, the summary with 95% intervals and the
//! charts with one sentence each, ready to paste into a design document.

use std::fmt::Write;

use super::table;
use crate::model::article::ArticleResults;
use crate::model::article::server::ServerKind;
use crate::model::article::summary::{Metric, MetricSummary, find};
use crate::report::format::{grouped, shortest};

/// `report.md` as bytes.
pub fn report_md(results: &ArticleResults, summary: &[MetricSummary]) -> Vec<u8> {
    let mut text = String::new();
    parameters(&mut text, results);
    article_table(&mut text, results);
    summary_table(&mut text, results, summary);
    charts(&mut text, results, summary);
    text.into_bytes()
}

fn parameters(text: &mut String, results: &ArticleResults) {
    let model = &results.model;
    let p_values = &model.ack_loss;
    let listed: Vec<String> = p_values.iter().map(|&p| shortest(p)).collect();
    let p_text = if listed.len() <= 8 {
        listed.join(", ")
    } else {
        format!(
            "{} values from {} to {}",
            listed.len(),
            listed[0],
            listed[listed.len() - 1]
        )
    };
    let seed = model.seed;
    let later_runs = if model.runs > 1 {
        format!(
            "; run k = 1 to {} is `numpy.random.default_rng(numpy.random.SeedSequence({seed}, \
             spawn_key=(k - 1,)))`",
            model.runs - 1
        )
    } else {
        String::new()
    };
    let _ = write!(
        text,
        "# Double charges under at-least-once delivery, with and without an Idempotency-Key\n\n\
         Each response (ACK) is lost independently with probability p; a client that sees no \
         ACK sends the same request again, at most {retries} times. Two servers get the same \
         deliveries: one charges every delivery, the other charges the first delivery of each \
         Idempotency-Key and replays its response for the rest.\n\n\
         ## Parameters\n\n\
         | parameter | value |\n|---|---|\n\
         | ACK-loss probability p | {p_text} |\n\
         | payment requests per run | {requests} |\n\
         | retries at most (R) | {retries} |\n\
         | runs per p | {runs} |\n\
         | seed | {seed} |\n\
         | random numbers | run 0 is `numpy.random.default_rng({seed})`{later_runs}; every p \
         of a run uses the same stream |\n\n",
        retries = model.max_retries,
        requests = grouped(model.requests),
        runs = grouped(u64::from(model.runs)),
    );
}

fn article_table(text: &mut String, results: &ArticleResults) {
    text.push_str("## The article's table (run 0)\n\n");
    let _ = writeln!(text, "| {} |", table::HEADERS.join(" | "));
    let _ = writeln!(
        text,
        "|{}",
        table::HEADERS
            .map(|_| "---:|")
            .concat()
            .replacen("---:", "---", 1)
    );
    for row in table::rows(results) {
        let _ = writeln!(text, "| {} |", row.join(" | "));
    }
    text.push('\n');
}

/// `0.0984` as `9.84%`.
fn percent(share: f64) -> String {
    format!("{:.2}%", share * 100.0)
}

/// `value` with one decimal and thousands grouped: `1,082.3`.
fn tenths(value: f64) -> String {
    let rounded = format!("{:.1}", value.abs());
    let (whole, decimals) = rounded.split_once('.').expect("one decimal");
    let sign = if value < 0.0 && rounded != "0.0" {
        "-"
    } else {
        ""
    };
    format!(
        "{sign}{}.{decimals}",
        grouped(whole.parse().expect("digits"))
    )
}

fn z(row: &MetricSummary) -> String {
    row.z_score.map_or_else(
        || "–".to_string(),
        |z| match format!("{z:.2}") {
            // A z-score that rounds to zero is written without a sign.
            text if text == "-0.00" => "0.00".to_string(),
            text => text,
        },
    )
}

/// `observed [low, high]` in the units of `format`.
fn observed(row: &MetricSummary, format: &dyn Fn(f64) -> String) -> String {
    format!(
        "{} [{}, {}]",
        format(row.mean),
        format(row.interval.low),
        format(row.interval.high)
    )
}

/// Each p once, in the order first given (as the summary reports them).
fn distinct_p(results: &ArticleResults) -> Vec<f64> {
    let ack_loss = &results.model.ack_loss;
    ack_loss
        .iter()
        .enumerate()
        .filter(|&(index, p)| !ack_loss[..index].iter().any(|q| q.to_bits() == p.to_bits()))
        .map(|(_, &p)| p)
        .collect()
}

fn summary_table(text: &mut String, results: &ArticleResults, summary: &[MetricSummary]) {
    let model = &results.model;
    let method = if model.runs > 1 {
        format!(
            "Student-t intervals across the {} runs for means",
            grouped(u64::from(model.runs))
        )
    } else {
        "for means of a single run normal intervals from the per-request spread".to_string()
    };
    let _ = write!(
        text,
        "## Summary with 95% intervals\n\n\
         Observed mean over runs, its 95% interval (Wilson score intervals for rates, {method}), \
         the closed-form expectation and the z-score of the observation against it \
         (see `summary.csv` for every metric of both servers).\n\n\
         | p | double-charged without key [95%] | closed form | z | extra charges per 10,000 \
         without key [95%] | closed form | z | deliveries per request [95%] | closed form |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
    );
    let plain = ServerKind::NonIdempotent;
    let per_10k = |value: f64| tenths(value * 10_000.0);
    let four = |value: f64| format!("{value:.4}");
    for p in distinct_p(results) {
        let row = |metric| find(summary, p, plain, metric).expect("every metric is summarised");
        let double = row(Metric::DoubleChargeRate);
        let extra = row(Metric::ExtraChargesPerRequest);
        let deliveries = row(Metric::DeliveriesPerRequest);
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            shortest(p),
            observed(double, &percent),
            percent(double.closed_form),
            z(double),
            observed(extra, &per_10k),
            per_10k(extra.closed_form),
            z(extra),
            observed(deliveries, &four),
            four(deliveries.closed_form),
        );
    }
    let keyed_charged: u64 = results
        .points
        .iter()
        .map(|point| {
            let tally = point.server(ServerKind::IdempotencyKey);
            tally.double_charged_requests + tally.extra_charges
        })
        .sum();
    let varying: Vec<&MetricSummary> = summary.iter().filter(|row| row.z_score.is_some()).collect();
    let covered = varying
        .iter()
        .filter(|row| row.interval.contains(row.closed_form))
        .count();
    let _ = write!(
        text,
        "\nWith the Idempotency-Key server: {} double charges and {} extra charges in all runs \
         (closed form 0); the key store absorbed every duplicate instead. Of the {} intervals in \
         `summary.csv` whose metric can vary, {} ({}) contain the closed-form expectation; about \
         95% is what correct intervals give.\n\n",
        keyed_charged,
        keyed_charged,
        varying.len(),
        covered,
        if varying.is_empty() {
            "-".to_string()
        } else {
            format!("{:.1}%", covered as f64 * 100.0 / varying.len() as f64)
        },
    );
}

fn charts(text: &mut String, results: &ArticleResults, summary: &[MetricSummary]) {
    let model = &results.model;
    let plain = ServerKind::NonIdempotent;
    let keyed = ServerKind::IdempotencyKey;
    let highest_p = distinct_p(results)
        .into_iter()
        .fold(f64::NEG_INFINITY, f64::max);
    let at_highest = |server, metric| find(summary, highest_p, server, metric).expect("summarised");
    let double = at_highest(plain, Metric::DoubleChargeRate);
    let extra = at_highest(plain, Metric::ExtraChargesPerRequest);
    let absorbed = at_highest(keyed, Metric::PreventedDuplicatesPerRequest);
    let deliveries = at_highest(plain, Metric::DeliveriesPerRequest);
    let p = shortest(highest_p);
    let runs = if model.runs > 1 { " (run 0)" } else { "" };
    let charts = [
        (
            "double_charge_rate.svg",
            "Share of customers charged twice, by ACK-loss rate".to_string(),
            format!(
                "Without a key the share of customers charged twice follows the closed form \
                 P = p (at p = {p}: {} observed, 95% interval {} to {}), while the \
                 Idempotency-Key server stays at zero at every p.",
                percent(double.mean),
                percent(double.interval.low),
                percent(double.interval.high)
            ),
        ),
        (
            "extra_charges.svg",
            "Extra charges without a key, duplicates absorbed with one".to_string(),
            format!(
                "Every retry is a second charge without a key and a replayed response with one: \
                 at p = {p}, {} extra charges per 10,000 requests without the key (closed form \
                 {}), {} duplicates per 10,000 absorbed by the key store, and no extra charge.",
                tenths(extra.mean * 10_000.0),
                tenths(extra.closed_form * 10_000.0),
                tenths(absorbed.mean * 10_000.0)
            ),
        ),
        (
            "retry_amplification.svg",
            "Retry amplification: deliveries per payment request".to_string(),
            format!(
                "Retries multiply the load on the server by 1 + p + p² + … + p^R, whichever \
                 server design: {:.4} deliveries per request at p = {p} (closed form {:.4}).",
                deliveries.mean, deliveries.closed_form
            ),
        ),
        (
            "double_charges.svg",
            format!("Customers charged twice or more{runs}"),
            format!(
                "The article's bar chart{runs}: customers charged twice or more per p, both \
                 servers side by side."
            ),
        ),
        (
            "deliveries.svg",
            format!("What each server did with the same deliveries{runs}"),
            format!(
                "The same deliveries{runs}, split into each request's first charge and the \
                 retries that the non-idempotent server charged again and the key server \
                 answered from its store."
            ),
        ),
        (
            "attempts.svg",
            "How many times each payment request was delivered".to_string(),
            "How many deliveries each request needed, summed over runs, on a log scale: most \
             requests need one, and each extra attempt is about p times rarer."
                .to_string(),
        ),
    ];
    text.push_str("## Charts\n\n");
    for (file, alt, sentence) in charts {
        let _ = write!(text, "![{alt}]({file})\n\n{sentence}\n\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_formatted_for_reading() {
        assert_eq!(percent(0.0984), "9.84%");
        assert_eq!(tenths(1082.04), "1,082.0");
        assert_eq!(tenths(-0.01), "0.0");
        assert_eq!(tenths(12.35), "12.3"); // 12.35 is stored as 12.3499…
    }
}
