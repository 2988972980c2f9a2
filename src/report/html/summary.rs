//! A run's [`Summary`] as the page's answer: one table of estimates (a row per cell, a
//! column per metric, each `mean ± half-width` over its 95% interval) and one of the paired
//! differences between designs (design − baseline, estimated run by run), with what each
//! metric is.

use std::fmt::Write as _;

use super::escape;
use crate::report::summary::{Metric, Summary, plus_minus_of};
use engine::metric::Kind;
use engine::replications::Estimate;

/// The decimals an estimate is shown with: two significant digits of its half-width, or,
/// without an interval, a few by the mean's size.
pub(crate) fn decimals(kind: Kind, estimate: &Estimate) -> usize {
    let scale = scale(kind);
    let shown = |value: f64| value * scale;
    let mean = shown(estimate.mean).abs();
    match estimate.half_width().map(shown) {
        // A half-width at rounding level (a difference the same in every run) is none.
        Some(half) if half > 1e-9 * mean.max(1e-3) && half.is_finite() => {
            (1 - half.log10().floor() as i64).clamp(0, 6) as usize
        }
        _ => match mean {
            0.0 => 0,
            mean if mean >= 100.0 => 1,
            mean if mean >= 1.0 => 2,
            _ => 4,
        },
    }
}

/// What a metric's values are multiplied by on the page: a share is a percentage.
fn scale(kind: Kind) -> f64 {
    if kind == Kind::Proportion { 100.0 } else { 1.0 }
}

/// A metric's unit under its name: `% of payments` for a share, its unit for a mean.
fn unit(metric: Metric) -> String {
    match (metric.kind, metric.column.unit) {
        (Kind::Proportion, "") => "%".to_string(),
        (Kind::Proportion, unit) => format!("% of {unit}"),
        (Kind::Mean, unit) => unit.to_string(),
    }
}

/// One estimate's cell: `mean ± half-width`, its interval below.
pub(crate) fn cell(kind: Kind, estimate: &Estimate) -> String {
    let decimals = decimals(kind, estimate);
    let scale = scale(kind);
    let mut html = format!(
        "<td class=\"num\">{}",
        escape(&plus_minus_of(kind, estimate, decimals))
    );
    if let Some(interval) = estimate.interval {
        let _ = write!(
            html,
            "<br><small>[{:.decimals$}, {:.decimals$}]</small>",
            interval.low * scale,
            interval.high * scale
        );
    }
    html.push_str("</td>");
    html
}

/// A header cell per metric: its name, its unit below (for a difference of shares,
/// percentage points), its doc on hover.
fn metric_headers(metrics: &[Metric], differences: bool) -> String {
    let mut html = String::new();
    for metric in metrics {
        let unit = match (differences, metric.kind) {
            (true, Kind::Proportion) => "percentage points".to_string(),
            _ => unit(*metric),
        };
        let _ = write!(
            html,
            "<th class=\"num\" title=\"{}\">{}<br><small>{}</small></th>",
            escape(&metric.column.description()),
            escape(metric.column.name),
            escape(&unit)
        );
    }
    html
}

/// Groups consecutive items with the same key, in order.
fn runs_of<T, K: PartialEq>(items: &[T], key: impl Fn(&T) -> K) -> Vec<&[T]> {
    let mut groups = Vec::new();
    let mut start = 0;
    for index in 1..=items.len() {
        if index == items.len() || key(&items[index]) != key(&items[start]) {
            if index > start {
                groups.push(&items[start..index]);
            }
            start = index;
        }
    }
    groups
}

/// The summary's tables, or nothing when it has no rows.
pub fn tables(summary: &Summary) -> String {
    if summary.rows.is_empty() {
        return String::new();
    }
    let cells = runs_of(&summary.rows, |row| row.cell.clone());
    let metrics: Vec<Metric> = cells[0].iter().map(|row| row.metric).collect();
    let runs = summary.rows[0].estimate.runs;
    let mut html = format!(
        "<p>Estimates over {runs} run{}: the mean ± the half-width of its 95% interval, the \
         interval below (Student's t across runs for a mean, the Wilson score interval for a \
         share).</p>\n",
        if runs == 1 { "" } else { "s" }
    );
    html.push_str("<div class=\"wide\"><table class=\"estimates\">\n<thead><tr>");
    for column in &summary.cell_columns {
        let _ = write!(
            html,
            "<th title=\"{}\">{}</th>",
            escape(&column.description()),
            escape(column.name)
        );
    }
    html.push_str(&metric_headers(&metrics, false));
    html.push_str("</tr></thead>\n<tbody>\n");
    for rows in &cells {
        html.push_str("<tr>");
        for label in &rows[0].cell {
            let _ = write!(html, "<td>{}</td>", escape(label));
        }
        for row in *rows {
            html.push_str(&cell(row.metric.kind, &row.estimate));
        }
        html.push_str("</tr>\n");
    }
    html.push_str("</tbody></table></div>\n");
    if !summary.differences.is_empty() {
        html.push_str(
            "<h3>Paired differences</h3>\n<p>Each design against a baseline that differs from \
             it in one column only, estimated from the run-by-run differences (the designs of \
             a run share its random numbers, so the interval is narrower than the two \
             designs' own): design − baseline, ± the half-width of the 95% interval.</p>\n\
             <div class=\"wide\"><table class=\"differences\">\n<thead><tr>",
        );
        for column in &summary.cell_columns {
            let _ = write!(html, "<th>{}</th>", escape(column.name));
        }
        html.push_str(&metric_headers(&metrics, true));
        html.push_str("</tr></thead>\n<tbody>\n");
        let pairs = runs_of(&summary.differences, |difference| {
            (
                difference.cell.clone(),
                difference.compared,
                difference.baseline.clone(),
            )
        });
        for differences in pairs {
            let first = &differences[0];
            html.push_str("<tr>");
            for (column, label) in summary.cell_columns.iter().zip(&first.cell) {
                if column.name == first.compared {
                    let _ = write!(
                        html,
                        "<td><b>{} − {}</b></td>",
                        escape(label),
                        escape(&first.baseline)
                    );
                } else {
                    let _ = write!(html, "<td>{}</td>", escape(label));
                }
            }
            for difference in differences {
                html.push_str(&cell(difference.metric.kind, &difference.estimate));
            }
            html.push_str("</tr>\n");
        }
        html.push_str("</tbody></table></div>\n");
    }
    html.push_str("<dl class=\"metrics\">\n");
    for metric in &metrics {
        let _ = writeln!(
            html,
            "<dt>{}</dt><dd>{} ({})</dd>",
            escape(metric.column.name),
            escape(&metric.column.description()),
            escape(&match unit(*metric).as_str() {
                "" => "no unit".to_string(),
                unit => unit.to_string(),
            })
        );
    }
    html.push_str("</dl>\n");
    html
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::test_columns::{LATENCY, SCENARIO, STRATEGY, metrics};
    use crate::report::summary::{Observation, SummaryBuilder};

    /// Two runs of one scenario, two strategies: shares of 100 payments and latencies.
    fn summary() -> Summary {
        let metrics = metrics();
        let mut builder = SummaryBuilder::new(vec![SCENARIO, STRATEGY], &["strategy"], metrics);
        let cell = |strategy: &str, charged: u64, latency: f64| {
            (
                vec!["a<1>".to_string(), strategy.to_string()],
                vec![
                    Observation::Share {
                        with_property: charged,
                        units: 100,
                    },
                    Observation::Value(latency),
                ],
            )
        };
        builder.run(vec![cell("none", 10, 100.0), cell("key", 0, 110.0)]);
        builder.run(vec![cell("none", 14, 104.0), cell("key", 0, 112.0)]);
        builder.finish()
    }

    #[test]
    fn estimates_read_as_mean_plus_minus_half_width_over_the_interval() {
        let html = tables(&summary());
        // 24 of 200 pooled: 12%; the Wilson interval of 24/200 at z = 1.959964 is 8.198% to
        // 17.234% (by hand: centre (p + z²/2n)/(1 + z²/n), half z·√(p(1−p)/n + z²/4n²)/(1 +
        // z²/n)); the larger side, 5.23 points, has two significant digits at one decimal.
        assert!(
            html.contains("<td class=\"num\">12.0 ± 5.2<br><small>[8.2, 17.2]</small></td>"),
            "{html}"
        );
        // Latencies 100 and 104: mean 102, se 2, t(0.975, 1) = 12.7062, half 25.41.
        assert!(html.contains("<td class=\"num\">102 ± 25<br><small>[77, 127]</small></td>"));
        // The key's latency 110 and 112 minus none's 100 and 104: 10 and 8, mean 9, sd √2,
        // se 1, half 12.71.
        assert!(html.contains("<td>a&lt;1&gt;</td><td><b>key − none</b></td>"));
        assert!(html.contains("<td class=\"num\">9 ± 13<br><small>[-4, 22]</small></td>"));
        // Shares differ run by run: 0 − 10% and 0 − 14%: mean −12 points, half 25.41.
        assert!(html.contains("<td class=\"num\">-12 ± 25<br><small>[-37, 13]</small></td>"));
        // One row per cell, one per pair, every label and doc escaped.
        assert_eq!(html.matches("<tr>").count(), 1 + 2 + 1 + 1);
        assert!(html.contains("title=\"Payments charged &lt;twice&gt;.\""));
        assert!(!html.contains("<twice>") && !html.contains("a<1>"));
        assert!(html.contains("<small>% of payments</small>"));
        assert!(html.contains("<small>percentage points</small>"));
    }

    /// A builder of one mean (the latency) per strategy.
    fn latency_by_strategy() -> SummaryBuilder {
        SummaryBuilder::new(
            vec![STRATEGY],
            &["strategy"],
            vec![Metric {
                column: &LATENCY,
                kind: Kind::Mean,
            }],
        )
    }

    #[test]
    fn one_run_shows_the_mean_alone_and_no_summary_shows_nothing() {
        let mut builder = latency_by_strategy();
        builder.run(vec![(
            vec!["none".into()],
            vec![Observation::Value(1234.5)],
        )]);
        let html = tables(&builder.finish());
        assert!(html.contains("Estimates over 1 run:"));
        assert!(html.contains("<td class=\"num\">1234.5</td>"), "{html}");
        // Differences the same in every run but for rounding (0.3 − 0.1 and 0.9 − 0.7) show
        // the mean's decimals, not six of a half-width of 1e-16.
        let mut builder = latency_by_strategy();
        for (a, b) in [(0.1, 0.3), (0.7, 0.9)] {
            builder.run(vec![
                (vec!["a".into()], vec![Observation::Value(a)]),
                (vec!["b".into()], vec![Observation::Value(b)]),
            ]);
        }
        let html = tables(&builder.finish());
        assert!(html.contains(">0.2000 ± 0.0000<"), "{html}");
        let empty = Summary {
            cell_columns: vec![STRATEGY],
            rows: Vec::new(),
            differences: Vec::new(),
        };
        assert_eq!(tables(&empty), "");
    }
}
