//! SVG charts of the statistics across p and runs: observed means with their 95% intervals
//! against the closed-form curves (same look and frame as [`super::charts`], from [`crate::report::chart_style`]).
//!
//! The x axis is the ACK-loss probability itself, so the charts read the same with 1 or 300
//! p values; markers and interval caps shrink as p values get dense.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::model::article::ArticleResults;
use crate::model::article::server::ServerKind;
use crate::model::article::summary::{Metric, MetricSummary};
use crate::report::OutputFile;
use crate::report::chart_style::{ABSORBED, CHARGED_TWICE, FONT, GRID, KEYED, draw_legend, svg};
use crate::report::format::grouped;

/// Purple: deliveries per request (the same for both servers).
const AMPLIFICATION: RGBColor = RGBColor(0x6a, 0x3d, 0x9a);
/// Near-black: closed-form curves.
const CLOSED_FORM: RGBColor = RGBColor(0x22, 0x22, 0x22);
/// Points on each closed-form curve.
const CURVE_SAMPLES: usize = 240;

/// The sweep charts, in a fixed order.
pub fn all(results: &ArticleResults, summary: &[MetricSummary]) -> Vec<OutputFile> {
    vec![
        OutputFile::new(
            "double_charge_rate.svg",
            double_charge_rate(results, summary),
        ),
        OutputFile::new("extra_charges.svg", extra_charges(results, summary)),
        OutputFile::new(
            "retry_amplification.svg",
            retry_amplification(results, summary),
        ),
    ]
}

/// The run's parameters under each title.
fn parameters(results: &ArticleResults) -> String {
    let model = &results.model;
    let runs = match model.runs {
        1 => "1 run".to_string(),
        runs => format!("{} runs", grouped(u64::from(runs))),
    };
    format!(
        "seed {} · {} requests per run · at most {} retries · {runs} per p · bars: 95% intervals",
        model.seed,
        grouped(model.requests),
        model.max_retries
    )
}

/// The rows of one (server, metric), p in the order given.
fn rows(summary: &[MetricSummary], server: ServerKind, metric: Metric) -> Vec<&MetricSummary> {
    summary
        .iter()
        .filter(|row| row.server == server && row.metric == metric)
        .collect()
}

/// The x range: the p values with a margin, so edge markers are not cut.
fn p_range(results: &ArticleResults) -> std::ops::Range<f64> {
    let ack_loss = &results.model.ack_loss;
    let low = ack_loss.iter().copied().fold(f64::INFINITY, f64::min);
    let high = ack_loss.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let pad = ((high - low) * 0.04).max(0.01);
    low - pad..high + pad
}

/// A tick label: up to four decimals, trailing zeros dropped, nothing left of 0 or right of 1.
fn tick(value: f64) -> String {
    if !(-1e-12..=1.0 + 1e-12).contains(&value) {
        return String::new();
    }
    let text = format!("{:.4}", value.abs());
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Observed means with their intervals: one series of a chart.
struct Observed<'a> {
    rows: Vec<&'a MetricSummary>,
    /// Multiplies every value (100 for percent, 10,000 for per 10,000 requests).
    scale: f64,
    colour: RGBColor,
    label: String,
}

/// A line: a closed-form curve or a constant.
struct Curve {
    points: Vec<(f64, f64)>,
    colour: RGBColor,
    width: u32,
    label: String,
}

/// The closed form of `metric` for `server`, scaled, sampled across the x range.
fn closed_form_curve(
    results: &ArticleResults,
    x: &std::ops::Range<f64>,
    server: ServerKind,
    metric: Metric,
    scale: f64,
    label: String,
) -> Curve {
    let from = x.start.max(0.0);
    let to = x.end.min(1.0);
    let points = (0..=CURVE_SAMPLES)
        .map(|step| {
            let p = from + (to - from) * step as f64 / CURVE_SAMPLES as f64;
            let value = metric
                .closed_form(server, p, results.model.max_retries)
                .mean;
            (p, value * scale)
        })
        .collect();
    Curve {
        points,
        colour: CLOSED_FORM,
        width: 2,
        label,
    }
}

/// The largest value any series or curve reaches (at least `floor`).
fn highest(observed: &[Observed], curves: &[Curve], floor: f64) -> f64 {
    observed
        .iter()
        .flat_map(|series| {
            series
                .rows
                .iter()
                .map(|row| row.interval.high * series.scale)
        })
        .chain(
            curves
                .iter()
                .flat_map(|curve| curve.points.iter().map(|p| p.1)),
        )
        .fold(floor, f64::max)
}

/// One panel: axes, curves, then the observed points with interval bars, and a legend.
#[allow(clippy::too_many_arguments)]
fn panel(
    area: &DrawingArea<SVGBackend, Shift>,
    caption: Option<&str>,
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
    y_description: &str,
    y_label: &dyn Fn(&f64) -> String,
    curves: &[Curve],
    observed: &[Observed],
) -> Result<(), String> {
    let mut builder = ChartBuilder::on(area);
    builder
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(80);
    if let Some(caption) = caption {
        builder.caption(caption, (FONT, 17));
    }
    let mut chart = builder
        .build_cartesian_2d(x.clone(), y)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("ACK-loss probability p")
        .y_desc(y_description)
        .x_labels(8)
        .y_labels(8)
        .x_label_formatter(&|value| tick(*value))
        .y_label_formatter(y_label)
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 14))
        .light_line_style(GRID)
        .draw()
        .map_err(|e| e.to_string())?;
    for curve in curves {
        let style = curve.colour.stroke_width(curve.width);
        chart
            .draw_series(LineSeries::new(curve.points.iter().copied(), style))
            .map_err(|e| e.to_string())?
            .label(curve.label.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], style));
    }
    for series in observed {
        let dense = series.rows.len() > 40;
        let radius = if dense { 2 } else { 4 };
        let cap = if dense {
            0.0
        } else {
            (x.end - x.start) * 0.006
        };
        let colour = series.colour;
        let scale = series.scale;
        chart
            .draw_series(series.rows.iter().map(|row| {
                let (p, low, high) = (
                    row.ack_loss,
                    row.interval.low * scale,
                    row.interval.high * scale,
                );
                PathElement::new(
                    vec![
                        (p - cap, low),
                        (p + cap, low),
                        (p, low),
                        (p, high),
                        (p - cap, high),
                        (p + cap, high),
                    ],
                    colour.mix(0.7).stroke_width(1),
                )
            }))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(
                series.rows.iter().map(|row| {
                    Circle::new((row.ack_loss, row.mean * scale), radius, colour.filled())
                }),
            )
            .map_err(|e| e.to_string())?
            .label(series.label.as_str())
            .legend(move |(x, y)| {
                EmptyElement::at((x + 9, y))
                    + PathElement::new(vec![(0, -7), (0, 7)], colour.stroke_width(1))
                    + Circle::new((0, 0), 4, colour.filled())
            });
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 14)
}

/// A chart of one [`panel`] over the p range, titled `title`: `y` up with `y_description` and
/// `y_label`, the closed-form `curves` and the `observed` series.
fn one_panel_chart(
    results: &ArticleResults,
    title: &str,
    y: std::ops::Range<f64>,
    y_description: &str,
    y_label: &dyn Fn(&f64) -> String,
    (curves, observed): (&[Curve], &[Observed]),
) -> String {
    svg(title, &parameters(results), |area| {
        let x = p_range(results);
        panel(area, None, x, y, y_description, y_label, curves, observed)
    })
}

/// `0.1234` as `0.12%`-style percent labels with as many decimals as the axis needs.
fn percent_label(value: f64) -> String {
    let text = format!("{value:.3}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text}%")
}

/// A number label with thousands grouped and up to two decimals.
fn number_label(value: f64) -> String {
    if value.abs() >= 100.0 {
        let sign = if value < 0.0 { "-" } else { "" };
        format!("{sign}{}", grouped(value.abs().round() as u64))
    } else {
        let text = format!("{value:.2}");
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// (4) Double-charge rate against p for both servers, with the closed form `P = p`.
pub fn double_charge_rate(results: &ArticleResults, summary: &[MetricSummary]) -> String {
    let x = p_range(results);
    let plain = ServerKind::NonIdempotent;
    let keyed = ServerKind::IdempotencyKey;
    let rule = if results.model.max_retries == 0 {
        "no retries: 0"
    } else {
        "P(double-charged) = p"
    };
    let curves = [
        closed_form_curve(
            results,
            &x,
            plain,
            Metric::DoubleChargeRate,
            100.0,
            format!("closed form without key: {rule}"),
        ),
        Curve {
            points: vec![(x.start.max(0.0), 0.0), (x.end.min(1.0), 0.0)],
            colour: KEYED,
            width: 3,
            label: "closed form with Idempotency-Key: 0".to_string(),
        },
    ];
    let observed = [
        Observed {
            rows: rows(summary, plain, Metric::DoubleChargeRate),
            scale: 100.0,
            colour: CHARGED_TWICE,
            label: "without Idempotency-Key: observed, 95% Wilson interval".to_string(),
        },
        Observed {
            rows: rows(summary, keyed, Metric::DoubleChargeRate),
            scale: 100.0,
            colour: KEYED,
            label: "with Idempotency-Key: observed (never charged twice)".to_string(),
        },
    ];
    let top = highest(&observed, &curves, 0.1) * 1.3;
    one_panel_chart(
        results,
        "Share of customers charged twice, by ACK-loss rate",
        -top * 0.03..top,
        "customers charged twice or more (% of requests)",
        &|value| percent_label(*value),
        (&curves, &observed),
    )
}

/// (5) Extra charges per 10,000 requests without a key, next to the duplicates the key store
/// absorbed, both against their closed form `10,000 (p + ... + p^R)`.
pub fn extra_charges(results: &ArticleResults, summary: &[MetricSummary]) -> String {
    let x = p_range(results);
    let plain = ServerKind::NonIdempotent;
    let keyed = ServerKind::IdempotencyKey;
    let per = 10_000.0;
    let rule = "closed form: 10,000 × (p + p² + … + p^R)";
    let left_curves = [
        closed_form_curve(
            results,
            &x,
            plain,
            Metric::ExtraChargesPerRequest,
            per,
            rule.to_string(),
        ),
        Curve {
            points: vec![(x.start.max(0.0), 0.0), (x.end.min(1.0), 0.0)],
            colour: KEYED,
            width: 3,
            label: "with Idempotency-Key: 0 extra charges".to_string(),
        },
    ];
    let left = [Observed {
        rows: rows(summary, plain, Metric::ExtraChargesPerRequest),
        scale: per,
        colour: CHARGED_TWICE,
        label: "without key: observed, 95% interval".to_string(),
    }];
    let right_curves = [closed_form_curve(
        results,
        &x,
        keyed,
        Metric::PreventedDuplicatesPerRequest,
        per,
        rule.to_string(),
    )];
    let right = [Observed {
        rows: rows(summary, keyed, Metric::PreventedDuplicatesPerRequest),
        scale: per,
        colour: ABSORBED,
        label: "with key: observed, 95% interval".to_string(),
    }];
    let top = highest(&left, &left_curves, 1.0).max(highest(&right, &right_curves, 1.0)) * 1.35;
    svg(
        "Extra charges without a key, duplicates absorbed with one",
        &parameters(results),
        |area| {
            let (left_area, right_area) = area.split_horizontally(area.dim_in_pixel().0 / 2);
            panel(
                &left_area,
                Some("without Idempotency-Key: charged again"),
                x.clone(),
                -top * 0.03..top,
                "extra charges per 10,000 requests",
                &|value| number_label(*value),
                &left_curves,
                &left,
            )?;
            panel(
                &right_area,
                Some("with Idempotency-Key: absorbed by the key store"),
                x.clone(),
                -top * 0.03..top,
                "duplicates absorbed per 10,000 requests",
                &|value| number_label(*value),
                &right_curves,
                &right,
            )
        },
    )
}

/// (6) Retry amplification: deliveries per request against p, with `1 + p + ... + p^R`.
pub fn retry_amplification(results: &ArticleResults, summary: &[MetricSummary]) -> String {
    let x = p_range(results);
    let plain = ServerKind::NonIdempotent;
    let curves = [closed_form_curve(
        results,
        &x,
        plain,
        Metric::DeliveriesPerRequest,
        1.0,
        "closed form: 1 + p + p² + … + p^R".to_string(),
    )];
    let observed = [Observed {
        rows: rows(summary, plain, Metric::DeliveriesPerRequest),
        scale: 1.0,
        colour: AMPLIFICATION,
        label: "observed (both servers receive the same deliveries), 95% interval".to_string(),
    }];
    let top = highest(&observed, &curves, 1.0);
    let span = (top - 1.0).max(0.01);
    one_panel_chart(
        results,
        "Retry amplification: deliveries per payment request",
        1.0 - span * 0.03..top + span * 0.3,
        "deliveries per request (1 = no retries)",
        &|value| {
            format!("{value:.3}")
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        },
        (&curves, &observed),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_short_and_stay_in_the_unit_interval() {
        assert_eq!(
            [0.05, 0.1, 0.0, -0.01, 1.02].map(tick),
            ["0.05", "0.1", "0", "", ""]
        );
        assert_eq!(percent_label(12.5), "12.5%");
        assert_eq!([1234.0, 2.5].map(number_label), ["1,234", "2.5"]);
    }
}
