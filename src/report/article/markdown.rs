//! `report.md`: the parameters, the article's table, the summary with 95% intervals and the
//! charts with one sentence each, ready to paste into a design document.

use std::fmt::Write;

use super::table;
use crate::model::article::ArticleResults;
use crate::model::article::server::ServerKind;
use crate::model::article::summary::{Metric, MetricSummary, by_p, find};
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
         Each response (ACK) is lost independently with probability p; {client}. Two servers \
         get the same deliveries: one charges every delivery, the other charges the first delivery of each \
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
        client = match model.max_retries {
            0 => "clients never send a request again (no retries), whether or not its ACK \
                  arrives"
                .to_string(),
            1 => "a client that sees no ACK sends the same request again, once at most".to_string(),
            retries => format!(
                "a client that sees no ACK sends the same request again, at most {retries} times"
            ),
        },
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

fn summary_table(text: &mut String, results: &ArticleResults, summary: &[MetricSummary]) {
    let model = &results.model;
    let method = if model.runs > 1 {
        format!(
            "Student-t intervals across the {} runs for means",
            grouped(u64::from(model.runs))
        )
    } else {
        "for the means of a single run score intervals on the counts".to_string()
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
    for rows_at_p in by_p(summary) {
        let p = rows_at_p[0].ack_loss;
        let row = |metric| find(rows_at_p, p, plain, metric).expect("every metric is summarised");
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
    text.push('\n');
    key_server_sentence(text, results);
    coverage_sentence(text, summary);
}

/// What the key server did in all runs, and what it absorbed.
fn key_server_sentence(text: &mut String, results: &ArticleResults) {
    let keyed = results
        .points
        .iter()
        .map(|point| point.server(ServerKind::IdempotencyKey));
    let (double, extra, absorbed) = keyed.fold((0u64, 0u64, 0u64), |(d, e, a), tally| {
        (
            d + tally.double_charged_requests,
            e + tally.extra_charges,
            a + tally.prevented_duplicates,
        )
    });
    let absorbed = match absorbed {
        0 => "no request was delivered twice, so there was nothing to absorb".to_string(),
        1 => "the key store answered the 1 duplicate delivery from its store instead".to_string(),
        n => format!(
            "the key store answered all {} duplicate deliveries from its store instead",
            grouped(n)
        ),
    };
    let _ = write!(
        text,
        "With the Idempotency-Key server: {} double charges and {} extra charges in all runs \
         (closed form 0); {absorbed}. ",
        grouped(double),
        grouped(extra),
    );
}

/// How many of the intervals whose metric can vary contain the closed form.
fn coverage_sentence(text: &mut String, summary: &[MetricSummary]) {
    let varying: Vec<&MetricSummary> = summary.iter().filter(|row| row.z_score.is_some()).collect();
    let covered = varying
        .iter()
        .filter(|row| row.interval.contains(row.closed_form))
        .count();
    let _ = match varying.len() {
        0 => write!(
            text,
            "No metric in `summary.csv` can vary at these settings (every closed-form variance \
             is 0), so every observation equals its closed form and no interval is checked.\n\n"
        ),
        total => write!(
            text,
            "Of the {} in `summary.csv` whose metric can vary, {covered} ({:.1}%) {} the \
             closed-form expectation; about 95% is what correct intervals give.\n\n",
            if total == 1 {
                "1 interval".to_string()
            } else {
                format!("{} intervals", grouped(total as u64))
            },
            covered as f64 * 100.0 / total as f64,
            if covered == 1 { "contains" } else { "contain" },
        ),
    };
}

/// The rows of the non-idempotent and key servers at the highest p, which the chart sentences
/// quote.
struct AtHighestP<'a> {
    p: String,
    max_retries: u32,
    double: &'a MetricSummary,
    extra: &'a MetricSummary,
    absorbed: &'a MetricSummary,
    deliveries: &'a MetricSummary,
}

impl<'a> AtHighestP<'a> {
    fn new(results: &ArticleResults, summary: &'a [MetricSummary]) -> Self {
        let rows_at_highest = by_p(summary)
            .max_by(|left, right| left[0].ack_loss.total_cmp(&right[0].ack_loss))
            .expect("at least one p");
        let highest_p = rows_at_highest[0].ack_loss;
        let row =
            |server, metric| find(rows_at_highest, highest_p, server, metric).expect("summarised");
        let plain = ServerKind::NonIdempotent;
        Self {
            p: shortest(highest_p),
            max_retries: results.model.max_retries,
            double: row(plain, Metric::DoubleChargeRate),
            extra: row(plain, Metric::ExtraChargesPerRequest),
            absorbed: row(
                ServerKind::IdempotencyKey,
                Metric::PreventedDuplicatesPerRequest,
            ),
            deliveries: row(plain, Metric::DeliveriesPerRequest),
        }
    }

    fn double_charge_rate(&self) -> String {
        let Self { p, double, .. } = self;
        if self.max_retries == 0 {
            return "With no retries (R = 0) no customer can be charged twice: the share is 0 at \
                    every p for both servers, as the closed form says."
                .to_string();
        }
        format!(
            "Without a key the share of customers charged twice follows the closed form P = p \
             (at p = {p}: {} observed, 95% interval {} to {}), while the Idempotency-Key server \
             stays at zero at every p.",
            percent(double.mean),
            percent(double.interval.low),
            percent(double.interval.high)
        )
    }

    fn extra_charges(&self) -> String {
        let Self {
            p, extra, absorbed, ..
        } = self;
        if self.max_retries == 0 {
            return "With no retries (R = 0) there are no extra charges and no duplicates to \
                    absorb: 0 per 10,000 requests with either server at every p."
                .to_string();
        }
        format!(
            "Every retry is a second charge without a key and a replayed response with one: at \
             p = {p}, {} extra charges per 10,000 requests without the key (closed form {}), {} \
             duplicates per 10,000 absorbed by the key store, and no extra charge.",
            tenths(extra.mean * 10_000.0),
            tenths(extra.closed_form * 10_000.0),
            tenths(absorbed.mean * 10_000.0)
        )
    }

    fn retry_amplification(&self) -> String {
        let Self { p, deliveries, .. } = self;
        if self.max_retries == 0 {
            return "With no retries (R = 0) every request is delivered exactly once, whichever \
                    server design: 1 delivery per request at every p."
                .to_string();
        }
        format!(
            "Retries multiply the load on the server by 1 + p + p² + … + p^R, whichever server \
             design: {:.4} deliveries per request at p = {p} (closed form {:.4}).",
            deliveries.mean, deliveries.closed_form
        )
    }
}

/// The sentence under `attempts.svg`.
fn attempts_sentence(max_retries: u32) -> String {
    match max_retries {
        0 => "How many deliveries each request needed, summed over runs: with no retries \
              (R = 0) every request was delivered exactly once."
            .to_string(),
        _ => "How many deliveries each request needed, summed over runs, on a log scale: a \
              request needs k + 1 deliveries with probability p^k (1 − p) for k < R, and R + 1 \
              (every retry used) with probability p^R."
            .to_string(),
    }
}

fn charts(text: &mut String, results: &ArticleResults, summary: &[MetricSummary]) {
    let at_highest = AtHighestP::new(results, summary);
    let runs = if results.model.runs > 1 {
        " (run 0)"
    } else {
        ""
    };
    let charts = [
        (
            "double_charge_rate.svg",
            "Share of customers charged twice, by ACK-loss rate".to_string(),
            at_highest.double_charge_rate(),
        ),
        (
            "extra_charges.svg",
            "Extra charges without a key, duplicates absorbed with one".to_string(),
            at_highest.extra_charges(),
        ),
        (
            "retry_amplification.svg",
            "Retry amplification: deliveries per payment request".to_string(),
            at_highest.retry_amplification(),
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
            attempts_sentence(results.model.max_retries),
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
    use crate::model::article::summary::summarise;
    use crate::model::article::{ArticleModel, Engine, simulate};
    use engine::Silent;

    /// `report.md` of a real (small) run.
    fn report(ack_loss: &[f64], max_retries: u32, runs: u32) -> String {
        let model = ArticleModel {
            ack_loss: ack_loss.to_vec(),
            requests: 100,
            max_retries,
            seed: 42,
            runs,
        };
        let results = simulate(&model, Engine::Fast { threads: 1 }, &Silent).unwrap();
        String::from_utf8(report_md(&results, &summarise(&results))).unwrap()
    }

    fn assert_says(text: &str, wanted: &[&str], never: &[&str]) {
        for phrase in wanted {
            assert!(text.contains(phrase), "missing {phrase:?} in:\n{text}");
        }
        for phrase in never {
            assert!(!text.contains(phrase), "false {phrase:?} in:\n{text}");
        }
    }

    /// Phrases that were false for some valid input.
    const FALSE_SOMEWHERE: [&str; 4] = ["at most 0 times", "Of the 0 intervals", "(-)", "1 times"];

    #[test]
    fn no_retries_say_so_instead_of_quoting_p() {
        let text = report(&[0.1, 0.5], 0, 1);
        assert_says(
            &text,
            &[
                "clients never send a request again (no retries)",
                "With no retries (R = 0) no customer can be charged twice",
                "0 double charges and 0 extra charges in all runs",
                "no request was delivered twice, so there was nothing to absorb",
                "every request is delivered exactly once",
                "every request was delivered exactly once",
                // Every rate and mean is fixed by R = 0 (the closed forms have no variance).
                "No metric in `summary.csv` can vary at these settings",
            ],
            &[
                &FALSE_SOMEWHERE[..],
                &["P = p", "p^R", "about p times rarer"],
            ]
            .concat(),
        );
    }

    #[test]
    fn one_retry_and_one_p() {
        let text = report(&[0.3], 1, 1);
        assert_says(
            &text,
            &[
                "| ACK-loss probability p | 0.3 |",
                "sends the same request again, once at most",
                "follows the closed form P = p (at p = 0.3:",
                "Of the ",
            ],
            &FALSE_SOMEWHERE,
        );
    }

    #[test]
    fn p_zero_has_nothing_to_absorb_and_nothing_that_varies() {
        let text = report(&[0.0], 3, 2);
        assert_says(
            &text,
            &[
                "(at p = 0: 0.00% observed, 95% interval 0.00% to ",
                "no request was delivered twice, so there was nothing to absorb",
                "1.0000 deliveries per request at p = 0 (closed form 1.0000)",
                "No metric in `summary.csv` can vary at these settings",
                "Customers charged twice or more (run 0)",
            ],
            &FALSE_SOMEWHERE,
        );
    }

    #[test]
    fn p_one_uses_every_retry() {
        // 2 runs x 100 requests x 3 retries, all lost: 600 duplicates for the key store.
        let text = report(&[1.0], 3, 2);
        assert_says(
            &text,
            &[
                "(at p = 1: 100.00% observed, 95% interval ",
                " to 100.00%)",
                "the key store answered all 600 duplicate deliveries from its store instead",
                "4.0000 deliveries per request at p = 1 (closed form 4.0000)",
                "No metric in `summary.csv` can vary at these settings",
            ],
            &FALSE_SOMEWHERE,
        );
    }

    #[test]
    fn numbers_are_formatted_for_reading() {
        assert_eq!(percent(0.0984), "9.84%");
        assert_eq!(tenths(1082.04), "1,082.0");
        assert_eq!(tenths(-0.01), "0.0");
        assert_eq!(tenths(12.35), "12.3"); // 12.35 is stored as 12.3499…
    }
}
