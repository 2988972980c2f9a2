//! The timeline model's summary over runs, checked from the outside: a row of `summary.csv`
//! and of `differences.csv` is the hand computation from the per-run rows of `timeline.csv`;
//! the 95% intervals cover a double-charge probability known in closed form about 95% of the
//! time over many seeds; and a paired difference between two strategies of the same runs is
//! narrower than the unpaired interval of the same two cells.

use std::collections::HashMap;
use std::path::Path;

use crate::common::{csv_rows, run, scenario_file};
use engine::Silent;
use simulate::config::{Job, Overrides};
use simulate::model::timeline::{self, TimelineModel};
use simulate::report::summary::Summary;
use simulate::report::timeline::TimelineReport;

/// The 97.5% quantile of Student's t with 4 degrees of freedom (any t table, e.g.
/// Abramowitz & Stegun table 26.10: 2.776445).
const T_975_4: f64 = 2.776_445_105;
/// With 9 degrees of freedom: 2.262157.
const T_975_9: f64 = 2.262_157_163;
/// With 18 degrees of freedom (the pooled two-sample interval of two cells of ten runs):
/// 2.100922.
const T_975_18: f64 = 2.100_922_040;
/// The 97.5% quantile of the standard normal.
const Z_975: f64 = 1.959_963_984_540_054;

/// The sample mean and standard deviation (divisor n − 1) of `values`, two passes.
fn mean_sd(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let squares = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>();
    (mean, (squares / (n - 1.0)).sqrt())
}

/// The Wilson score interval of `k` of `n` (Wilson 1927; Newcombe 1998, method 3).
fn wilson(k: f64, n: f64) -> (f64, f64) {
    let p = k / n;
    let z2 = Z_975 * Z_975;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z_975 / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    (centre - half, centre + half)
}

fn close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() <= 1e-9 * expected.abs().max(1.0),
        "{what}: {actual} vs {expected}"
    );
}

fn number(row: &HashMap<String, String>, column: &str) -> f64 {
    row[column]
        .parse()
        .unwrap_or_else(|_| panic!("{column} = {:?}", row[column]))
}

/// The row of `rows` whose columns have the values `keys`.
fn find<'a>(
    rows: &'a [HashMap<String, String>],
    keys: &[(&str, &str)],
) -> &'a HashMap<String, String> {
    rows.iter()
        .find(|row| keys.iter().all(|(column, value)| row[*column] == *value))
        .unwrap_or_else(|| panic!("no row {keys:?}"))
}

/// The per-run values of `column` for `strategy` in `timeline.csv`, in run order.
fn per_run(rows: &[HashMap<String, String>], strategy: &str, column: &str) -> Vec<f64> {
    rows.iter()
        .filter(|row| row["strategy"] == strategy)
        .map(|row| number(row, column))
        .collect()
}

/// A summary row is the hand computation from the five per-run rows of `timeline.csv`: a
/// mean's mean, SD, SE and t interval; a share's pooled proportion and Wilson interval; and a
/// paired difference's mean, SD and t interval from the per-run differences.
#[test]
fn a_summary_row_is_the_hand_computation_from_the_runs() {
    let (_, out) = run(
        &scenario_file("mobile-network.toml"),
        &["--payments", "400", "--runs", "5", "--quiet"],
    );
    let runs = csv_rows(&out.path().join("timeline.csv"));
    let summary = csv_rows(&out.path().join("summary.csv"));
    let differences = csv_rows(&out.path().join("differences.csv"));
    assert_eq!(runs.len(), 5 * 3);

    for column in ["extra_charges", "latency_p99_ms"] {
        let values = per_run(&runs, "none", column);
        assert_eq!(values.len(), 5);
        let (mean, sd) = mean_sd(&values);
        let se = sd / 5f64.sqrt();
        let row = find(
            &summary,
            &[("strategy", "none"), ("metric", column), ("kind", "mean")],
        );
        assert_eq!(row["runs"], "5");
        assert_eq!(row["interval"], "t");
        close(number(row, "mean"), mean, "mean");
        close(number(row, "sd"), sd, "sd");
        close(number(row, "se"), se, "se");
        close(number(row, "ci_low"), mean - T_975_4 * se, "ci_low");
        close(number(row, "ci_high"), mean + T_975_4 * se, "ci_high");
    }

    // The share charged twice: the payments pooled over the runs, Wilson.
    let double = per_run(&runs, "none", "double_charged_payments");
    let payments = per_run(&runs, "none", "payments");
    let (k, n) = (double.iter().sum::<f64>(), payments.iter().sum::<f64>());
    let row = find(
        &summary,
        &[("strategy", "none"), ("metric", "double_charged_payments")],
    );
    assert_eq!(
        (row["kind"].as_str(), row["interval"].as_str()),
        ("proportion", "wilson")
    );
    close(number(row, "mean"), k / n, "pooled share");
    let (low, high) = wilson(k, n);
    close(number(row, "ci_low"), low, "wilson low");
    close(number(row, "ci_high"), high, "wilson high");
    let shares: Vec<f64> = double.iter().zip(&payments).map(|(k, n)| k / n).collect();
    close(number(row, "sd"), mean_sd(&shares).1, "sd of the shares");

    // check_then_insert − none, run by run.
    let design = per_run(&runs, "check_then_insert", "extra_charges");
    let baseline = per_run(&runs, "none", "extra_charges");
    let paired: Vec<f64> = design.iter().zip(&baseline).map(|(a, b)| a - b).collect();
    let (mean, sd) = mean_sd(&paired);
    let row = find(
        &differences,
        &[
            ("strategy", "check_then_insert"),
            ("compared", "strategy"),
            ("baseline", "none"),
            ("metric", "extra_charges"),
        ],
    );
    assert_eq!(row["kind"], "difference");
    close(number(row, "mean"), mean, "difference mean");
    close(number(row, "sd"), sd, "difference sd");
    let half = T_975_4 * sd / 5f64.sqrt();
    close(number(row, "ci_low"), mean - half, "difference low");
    close(number(row, "ci_high"), mean + half, "difference high");
}

/// A timeline model read from `text` (as the command line would, no flags).
fn model(text: &str) -> TimelineModel {
    let path = Path::new("coverage.toml");
    match Job::from_text(text, path, &Overrides::default()) {
        Ok(Job::Timeline(config)) => config.model,
        _ => panic!("a plain timeline file"),
    }
}

/// The summary of `model` run on two threads.
fn summarise(model: &TimelineModel) -> Summary {
    let results = timeline::simulate(model, 2, &Silent).unwrap();
    TimelineReport::new(results).summary().clone()
}

/// Over many seeds, the 95% intervals of the summary cover the true value about 95% of the
/// time, for a share (Wilson) and for a mean per run (t).
///
/// The file: one copy, one retry, no request loss, fixed latencies (10 ms each way, 10 ms
/// processing) far inside the 1 s timeout, strategy `none`. Per docs/models/timeline.md, a
/// payment's first attempt always arrives and is charged; its response is lost with
/// probability `ack_loss = a`, and only then does the client time out and retry, and the
/// retry arrives and is charged again (`none` charges every delivery). So each payment is
/// charged twice with probability exactly `a`, independently of the others: the share
/// charged twice is `a`, and the extra charges per run are Binomial(payments, a), mean
/// `payments × a`.
///
/// With 1,000 seeds (five runs of 200 payments each), the number of covering seeds is
/// Binomial(1000, 0.95) if the intervals are exact: mean 950, SD 6.9. The test accepts 915
/// to 985: four SDs (28) either side, plus 7 for the interval's own departure from 95%
/// (Wilson's coverage at n = 1,000 and p = 0.05 oscillates within about a point of it; the t
/// interval of five nearly normal binomial counts is close to exact).
#[test]
fn the_intervals_cover_a_closed_form_double_charge_rate_about_95_percent_of_the_time() {
    let a = 0.05;
    let payments = 200;
    let runs = 5;
    let text = format!(
        "model = \"timeline\"\npayments = {payments}\nruns = {runs}\nstrategies = [\"none\"]\n\
         [arrivals]\nprocess = \"sequential\"\ncopies = 1\n\
         [network]\nrequest_latency = {{ distribution = \"fixed\", ms = 10 }}\n\
         response_latency = {{ distribution = \"fixed\", ms = 10 }}\n\
         request_loss = 0.0\nack_loss = {a}\n\
         [server]\nprocessing = {{ distribution = \"fixed\", ms = 10 }}\n\
         [client]\ntimeout_ms = 1000\nmax_retries = 1\n"
    );
    let mut model = model(&text);
    let seeds = 1000;
    let (mut share_covered, mut mean_covered) = (0, 0);
    let mut pooled = (0.0, 0.0);
    for seed in 0..seeds {
        model.seed = 1000 + seed;
        let summary = summarise(&model);
        let row = |metric: &str| {
            summary
                .rows
                .iter()
                .find(|row| row.metric.column.name == metric)
                .unwrap()
        };
        let share = row("double_charged_payments").estimate;
        let interval = share.interval.unwrap();
        share_covered += u32::from(interval.low <= a && a <= interval.high);
        pooled.0 += share.mean;
        pooled.1 += 1.0;
        let extra = row("extra_charges").estimate;
        let interval = extra.interval.unwrap();
        let truth = payments as f64 * a;
        mean_covered += u32::from(interval.low <= truth && truth <= interval.high);
    }
    for (what, covered) in [("wilson", share_covered), ("t", mean_covered)] {
        assert!(
            (915..=985).contains(&covered),
            "{what}: {covered} of {seeds} seeds covered"
        );
    }
    // The closed form itself: over 1,000,000 payments the share is a within 4 binomial SDs.
    let overall = pooled.0 / pooled.1;
    let sd = (a * (1.0 - a) / (seeds * payments * runs) as f64).sqrt();
    assert!((overall - a).abs() < 4.0 * sd, "{overall} vs {a}");
}

/// The strategies of a run share its random numbers, so the paired interval of their
/// difference (from the per-run differences) is narrower than the unpaired two-sample
/// interval of the same two cells, computed here from their per-run values.
#[test]
fn a_paired_difference_is_narrower_than_the_unpaired_one() {
    let (_, out) = run(
        &scenario_file("mobile-network.toml"),
        &["--payments", "300", "--runs", "10", "--quiet"],
    );
    let runs = csv_rows(&out.path().join("timeline.csv"));
    let differences = csv_rows(&out.path().join("differences.csv"));
    for metric in ["deliveries", "latency_p99_ms"] {
        let design = per_run(&runs, "check_then_insert", metric);
        let baseline = per_run(&runs, "none", metric);
        let ((_, sd_design), (_, sd_baseline)) = (mean_sd(&design), mean_sd(&baseline));
        // The pooled-variance two-sample t interval, 18 degrees of freedom.
        let pooled = ((sd_design.powi(2) + sd_baseline.powi(2)) / 2.0).sqrt();
        let unpaired = T_975_18 * pooled * (2.0 / 10.0f64).sqrt();
        let row = find(
            &differences,
            &[
                ("strategy", "check_then_insert"),
                ("compared", "strategy"),
                ("baseline", "none"),
                ("metric", metric),
            ],
        );
        let paired = (number(row, "ci_high") - number(row, "ci_low")) / 2.0;
        let (_, sd) = mean_sd(
            &design
                .iter()
                .zip(&baseline)
                .map(|(a, b)| a - b)
                .collect::<Vec<_>>(),
        );
        close(paired, T_975_9 * sd / 10f64.sqrt(), "paired half-width");
        assert!(
            paired < unpaired,
            "{metric}: paired ± {paired} not narrower than unpaired ± {unpaired}"
        );
    }
}

/// The vertical black error bars of an SVG: `(x, low y, high y)` in pixels.
fn error_bars(svg: &str) -> Vec<(f64, f64, f64)> {
    let document = roxmltree::Document::parse(svg).unwrap();
    document
        .descendants()
        .filter(|node| {
            node.has_tag_name("polyline")
                && node.attribute("stroke") == Some("#000000")
                && node.attribute("stroke-width") == Some("2")
        })
        .filter_map(|node| {
            let points: Vec<(f64, f64)> = node
                .attribute("points")
                .unwrap()
                .split_whitespace()
                .map(|pair| {
                    let (x, y) = pair.split_once(',').unwrap();
                    (x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            let [(x0, y0), (x1, y1)] = points[..] else {
                return None;
            };
            (x0 == x1).then(|| (x0, y0.min(y1), y0.max(y1)))
        })
        .collect()
}

/// The bars of an SVG (filled rectangles other than the white background and legend): their
/// centre and top in pixels.
fn bar_tops(svg: &str) -> Vec<(f64, f64)> {
    let document = roxmltree::Document::parse(svg).unwrap();
    document
        .descendants()
        .filter(|node| node.has_tag_name("rect") && node.attribute("fill") != Some("#FFFFFF"))
        .map(|node| {
            let number = |name| node.attribute(name).unwrap().parse::<f64>().unwrap();
            (number("x") + number("width") / 2.0, number("y"))
        })
        .collect()
}

/// With several runs, the charges, outcomes and answers charts draw one error bar per bar,
/// through the top of its stack (the mean lies in its interval); with one run, none.
#[test]
fn the_bar_charts_draw_error_bars_over_several_runs_only() {
    let file = scenario_file("retry-storm.toml");
    for (runs, expected) in [("1", 0), ("3", 2 * 3)] {
        let (_, out) = run(&file, &["--payments", "300", "--runs", runs, "--quiet"]);
        for chart in [
            "timeline_charges.svg",
            "timeline_outcomes.svg",
            "timeline_answers.svg",
        ] {
            let svg = std::fs::read_to_string(out.path().join(chart)).unwrap();
            let bars = error_bars(&svg);
            assert_eq!(bars.len(), expected, "{chart} over {runs} runs");
            let tops = bar_tops(&svg);
            for (x, low, high) in bars {
                // The highest rectangle (smallest y) centred on the error bar.
                let top = tops
                    .iter()
                    .filter(|(centre, _)| (centre - x).abs() <= 1.0)
                    .map(|&(_, y)| y)
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    top >= low - 1.0 && top <= high + 1.0,
                    "{chart}: bar top {top} outside its error bar {low}..{high} at x {x}"
                );
            }
        }
    }
}
