//! `report.md` of a timeline run: the parameters of every scenario, the stdout tables (run 0,
//! or with several runs the means ± 95% half-widths) and every chart with one sentence saying
//! what it shows, ready to paste into a design document (keep the SVGs next to it: the links
//! are relative).

use std::fmt::Write;

use super::{TimelineReport, table};
use crate::model::timeline::{ArrivalProcess, CopyMode, Scenario, TimelineResults};
use crate::report::format::grouped;

/// `report.md` as bytes.
pub fn report_md(report: &TimelineReport) -> Vec<u8> {
    let results = report.results();
    let mut text = String::new();
    introduction(&mut text, results);
    scenarios(&mut text, results);
    tables(&mut text, report);
    super::backend_report::section(&mut text, results);
    charts(&mut text, results);
    text.into_bytes()
}

fn introduction(text: &mut String, results: &TimelineResults) {
    let model = &results.model;
    let strategies: Vec<&str> = model.strategies.iter().map(|s| s.name()).collect();
    let runs = if model.runs > 1 {
        format!(
            "{} runs (run k draws from `SeedSequence({}, spawn_key=(k,))`); the tables and \
             the bar charts show the mean over the runs ± the half-width of its 95% interval \
             (the latency chart and the backend's tables and charts show run 0); \
             `timeline.csv` has every run, `summary.csv` every estimate and \
             `differences.csv` the paired differences",
            model.runs, model.seed
        )
    } else {
        format!(
            "1 run, drawing from `SeedSequence({}, spawn_key=(0,))`",
            model.seed
        )
    };
    let _ = write!(
        text,
        "# Timeline scenario {title}\n\n\
         A deterministic discrete-event simulation of payments sent with an Idempotency-Key \
         over a network that delays and loses requests and responses, by clients that time out \
         and retry, to a server that handles the key with each strategy compared here ({list}) \
         on the same sampled arrivals, latencies and losses.\n\n\
         ## Parameters\n\n\
         | parameter | value |\n|---|---|\n\
         | scenario file | `{title}` |\n\
         | payments per scenario | {payments} |\n\
         | runs | {runs} |\n\
         | seed | {seed} |\n\
         | strategies | {list} |\n\n",
        title = model.title,
        list = strategies.join(", "),
        payments = grouped(model.payments),
        seed = model.seed,
    );
}

/// How a scenario's payments and copies arrive.
fn arrivals(scenario: &Scenario) -> String {
    let arrivals = &scenario.arrivals;
    let process = match arrivals.process {
        ArrivalProcess::Poisson { rate_per_s } => format!("Poisson, {rate_per_s} per s"),
        ArrivalProcess::Burst => "all at t = 0".to_string(),
        ArrivalProcess::Sequential => "one after another".to_string(),
    };
    match (arrivals.copies, arrivals.copy_mode) {
        (1, _) => format!("{process}; 1 copy"),
        (copies, CopyMode::Sequential) => format!("{process}; {copies} copies, sequential"),
        (copies, CopyMode::Concurrent) => format!(
            "{process}; {copies} copies within {} ms",
            arrivals.copy_spread_ms
        ),
    }
}

fn scenarios(text: &mut String, results: &TimelineResults) {
    text.push_str(
        "| scenario | arrivals | request latency | response latency | request loss | ACK \
         loss | processing | timeout | retries | key TTL |\n\
         |---|---|---|---|---:|---:|---|---:|---|---:|\n",
    );
    for scenario in &results.model.scenarios {
        let network = &scenario.network;
        let client = &scenario.client;
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} | {} | {} ms | {}, {} | {} |",
            scenario.name,
            arrivals(scenario),
            network.request_latency.describe(),
            network.response_latency.describe(),
            network.request_loss,
            network.ack_loss,
            scenario.processing.describe(),
            client.timeout_ms,
            client.max_retries,
            client.backoff.describe(),
            scenario
                .key
                .key_ttl_ms
                .map_or_else(|| "never".to_string(), |ttl| format!("{ttl} ms")),
        );
    }
    text.push('\n');
}

fn tables(text: &mut String, report: &TimelineReport) {
    let runs = report.results().model.runs;
    let heading = if runs > 1 {
        format!("mean ± 95% half-width over {runs} runs")
    } else {
        "run 0".to_string()
    };
    let _ = write!(
        text,
        "## Results ({heading})\n\n\
         Charges per scenario and strategy:\n\n```text\n{}```\n\n\
         Every count per scenario and strategy (`succeeded` and the two ways of giving up are \
         shares of the payments; p50 and p99 are client latencies from the first send to the \
         final outcome, within 0.1%):\n\n```text\n{}```\n\n\
         The key lifecycle and the two ambiguous outcomes (`charged, told failed`: charged \
         although the clients gave up or got a 422; `told ok, not charged`: told the payment \
         succeeded although no charge of its body backs it):\n\n```text\n{}```\n\n",
        table::charges_table(report),
        table::detail_table(report),
        table::lifecycle_table(report),
    );
    let client = table::client_table(report);
    if !client.is_empty() {
        text.push_str(&format!(
            "Offline clients and reconciliation (`offline`: clients that lost the network \
             after their first send and resent on reconnect; `still told failed`: customers \
             charged and told failed that no look-up by key corrected):\n\n```text\n{client}```\n\n"
        ));
    }
    let model = &report.results().model;
    if let Some(first) = model.strategies.first().map(|strategy| strategy.name()) {
        let table = crate::report::summary::differences_markdown(
            report.summary(),
            "strategy",
            first,
            &table::difference_columns(model.payments),
        );
        if !table.is_empty() {
            let _ = write!(
                text,
                "## Paired differences\n\nEach strategy minus `{first}` in the same scenario, \
                 run by run (the strategies of a run share its random numbers), per run of {}: \
                 the payments charged twice, the extra charges, and the share that \
                 succeeded in percentage points; the mean over the runs{}. \
                 `differences.csv` has every metric, and the differences between \
                 scenarios.\n\n{table}\n",
                table::payments_text(model.payments),
                if model.runs > 1 {
                    " ± the half-width of its 95% interval (t across runs)"
                } else {
                    ""
                }
            );
        }
    }
}

fn charts(text: &mut String, results: &TimelineResults) {
    text.push_str("## Charts\n\n");
    let runs = results.model.runs;
    // With several runs the bar charts draw the means, with an error bar.
    let (of_runs, bars) = if runs > 1 {
        (
            format!("of the {runs} runs"),
            " Each bar is the mean over the runs; the black error bar is the 95% interval of \
             its total.",
        )
    } else {
        ("of run 0".to_string(), "")
    };
    let mut chart = |file: &str, alt: &str, sentence: &str| {
        let _ = write!(text, "![{alt}]({file})\n\n{sentence}\n\n");
    };
    chart(
        "timeline_charges.svg",
        "Charges per server strategy",
        &format!(
            "Charges per strategy and scenario {}: the first charge of each payment, with the \
             extra charges stacked on top and the number of payments charged twice or more \
             written above each bar.{bars}",
            if runs > 1 { "per run" } else { "in run 0" }
        ),
    );
    chart(
        "timeline_outcomes.svg",
        "How payments ended for the customer",
        &format!(
            "The payments {of_runs} that did not succeed, per 10,000, per strategy and \
             scenario: those whose customer was charged although told the payment failed, and \
             those never charged; above each bar, the share that succeeded and the share \
             charged although told it failed.{bars}"
        ),
    );
    chart(
        "timeline_latency.svg",
        "Client latency to the final outcome",
        "The cumulative share of the payments of run 0 that reached their final outcome (the \
         first success, or the last copy giving up) by each time after the first send, on a log \
         time axis, one line per strategy and scenario, with p50 and p99 in the legend.",
    );
    chart(
        "timeline_answers.svg",
        "What the server answered to every delivery",
        &format!(
            "Every delivery {of_runs} stacked by the server's answer (charged, failed with a \
             500, replayed, another body's response replayed, 409, 500 replayed, 422), per \
             strategy and scenario, with the deliveries per payment on top.{bars}"
        ),
    );
    if super::backend_charts::compares_key_stores(&results.model) {
        chart(
            "timeline_key_stores.svg",
            "Key store designs: double charges and stuck keys",
            "Per design (scenario) and strategy in run 0: the payments charged twice or more \
             and the payments whose key a crash left in flight, with the mean time the keys \
             stayed there.",
        );
    }
    if super::backend_charts::has_side_effects(&results.model) {
        chart(
            "timeline_side_effects.svg",
            "Duplicate side effects per design",
            "Per design and strategy in run 0: the extra charges in the API's ledger and, \
             where the scenarios have them, at the provider (money that moved twice), the \
             receipts sent twice and the charged payments without a receipt.",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::timeline::{
        Arrivals, Backend, ClientPolicy, CopySpacing, KeyLifecycle, Network, Strategy,
        TimelineModel, simulate,
    };
    use engine::backoff::Backoff;
    use engine::distribution::Distribution;

    fn results() -> TimelineResults {
        let scenario = Scenario {
            name: "tiny".into(),
            arrivals: Arrivals {
                process: ArrivalProcess::Burst,
                copies: 2,
                copy_mode: CopyMode::Concurrent,
                copy_spread_ms: 3.0,
                copy_spacing: CopySpacing::Even,
            },
            network: Network {
                request_latency: Distribution::Fixed { ms: 1.0 },
                response_latency: Distribution::Fixed { ms: 1.0 },
                request_loss: 0.0,
                ack_loss: 0.0,
            },
            processing: Distribution::Fixed { ms: 10.0 },
            client: ClientPolicy {
                timeout_ms: 100.0,
                max_retries: 1,
                backoff: Backoff::None,
                different_body_rate: 0.0,
            },
            key: KeyLifecycle::default(),
            backend: Backend::default(),
            client_lifecycle: Default::default(),
        };
        let model = TimelineModel {
            title: "tiny.toml".into(),
            seed: 7,
            runs: 1,
            payments: 3,
            strategies: vec![Strategy::UniqueKey],
            scenarios: vec![scenario],
        };
        simulate(&model, 1, &engine::Silent).unwrap()
    }

    #[test]
    fn the_report_links_every_chart() {
        let text = String::from_utf8(report_md(&TimelineReport::new(results()))).unwrap();
        assert!(
            text.starts_with("# Timeline scenario tiny.toml\n"),
            "{text}"
        );
        for file in [
            "timeline_charges.svg",
            "timeline_outcomes.svg",
            "timeline_latency.svg",
            "timeline_answers.svg",
        ] {
            assert!(text.contains(&format!("]({file})")), "{file}");
        }
        assert!(
            text.contains("| tiny | all at t = 0; 2 copies within 3 ms |"),
            "{text}"
        );
    }
}
