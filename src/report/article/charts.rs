//! SVG charts of the article model's results (plotters' SVG backend, no fonts needed).
//!
//! Each chart carries its own title, axis names with units, legend and the run's parameters,
//! so it can be pasted into a design document without the text around it. Rendering uses only
//! the results, so the same results give the same bytes.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::model::article::server::ServerKind;
use crate::model::article::{ArticleResults, PointResult};
use crate::report::OutputFile;
use crate::report::chart_style::{
    ABSORBED, CHARGED_TWICE, FIRST_CHARGE, FONT, KEYED, LinearChart, bar, draw_legend, hue, svg,
    value_label,
};
use crate::report::format::{grouped, shortest};

/// Series colours of the attempts chart, one per p (cycled).
const SERIES: [RGBColor; 6] = {
    use hue::*;
    [BLUE, ORANGE, VIOLET, BROWN, CYAN, PINK]
};

/// The colour of series `index` of `count`: distinct colours for a few series, a light-to-dark
/// blue ramp (ordered like p) for many.
fn series_colour(index: usize, count: usize) -> RGBColor {
    if count <= SERIES.len() {
        return SERIES[index];
    }
    let t = index as f64 / (count - 1) as f64;
    let mix = |light: u8, dark: u8| {
        (f64::from(light) + (f64::from(dark) - f64::from(light)) * t).round() as u8
    };
    RGBColor(mix(0x9e, 0x08), mix(0xca, 0x30), mix(0xe1, 0x6b))
}

/// Whether series `index` of `count` gets a legend entry: all of a few, five spread over many.
fn in_legend(index: usize, count: usize) -> bool {
    count <= SERIES.len() || (0..5).any(|k| index == k * (count - 1) / 4)
}

/// Every chart of an article-model run.
pub fn all(results: &ArticleResults) -> Vec<OutputFile> {
    vec![
        OutputFile::new("double_charges.svg", double_charges(results)),
        OutputFile::new("deliveries.svg", deliveries(results)),
        OutputFile::new("attempts.svg", attempts(results)),
    ]
}

/// The run's parameters, printed under each title.
fn parameters(results: &ArticleResults) -> String {
    let model = &results.model;
    let runs = if model.runs > 1 {
        format!(" · run 0 of {}", model.runs)
    } else {
        String::new()
    };
    format!(
        "seed {} · {} requests per p · at most {} retries · numpy default_rng draws{runs}",
        model.seed,
        grouped(model.requests),
        model.max_retries
    )
}

/// The grouped-bar frame of the per-p charts: one group per p on x, counts on y from 0 to
/// `y_max`, axis names and grouped-thousands labels.
fn bar_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    points: &[&PointResult],
    y_max: f64,
    x_label_area: u32,
    x_desc: &str,
    y_desc: &str,
) -> Result<LinearChart<'a, SVGBackend<'b>>, String> {
    let mut chart = ChartBuilder::on(area)
        .margin(16)
        .x_label_area_size(x_label_area)
        .y_label_area_size(90)
        .build_cartesian_2d(group_range(points.len()), 0f64..y_max)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(points.len().min(12))
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|x| group_label(points, *x))
        .y_label_formatter(&|y| grouped(y.round() as u64))
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 14))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

/// Labels of the p groups: `p = 0.05`.
fn p_label(p: f64) -> String {
    format!("p = {}", shortest(p))
}

/// The x range of `count` groups: group `i` spans `i - 0.5 .. i + 0.5`, centred on `i`.
fn group_range(count: usize) -> std::ops::Range<f64> {
    -0.5..count as f64 - 0.5
}

/// The label of the group centred on `x` (ticks fall on whole numbers; others stay blank).
fn group_label(points: &[&PointResult], x: f64) -> String {
    let index = x.round();
    if (x - index).abs() > 1e-9 || index < 0.0 {
        return String::new();
    }
    points
        .get(index as usize)
        .map_or_else(String::new, |point| p_label(point.ack_loss))
}

/// The largest of `value` over `points`, at least 1 (a bar chart's height).
fn highest_of(points: &[&PointResult], value: impl Fn(&PointResult) -> u64) -> f64 {
    points
        .iter()
        .map(|point| value(point))
        .max()
        .unwrap_or(1)
        .max(1) as f64
}

/// (1) Customers charged twice or more, per p, both servers side by side.
pub fn double_charges(results: &ArticleResults) -> String {
    let points: Vec<&PointResult> = results.first_run().collect();
    let requests = results.model.requests;
    let highest = highest_of(&points, |point| {
        point
            .server(ServerKind::NonIdempotent)
            .double_charged_requests
    });
    let label_size = if points.len() > 8 { 11 } else { 15 };
    svg(
        "Customers charged twice or more, by ACK-loss rate",
        &parameters(results),
        |area| {
            let mut chart = bar_chart(
                area,
                &points,
                highest * 1.18,
                48,
                "ACK-loss probability p (each response lost independently)",
                "double-charged requests (count)",
            )?;
            for (offset, kind, colour) in [
                (0.14, ServerKind::NonIdempotent, CHARGED_TWICE),
                (0.52, ServerKind::IdempotencyKey, KEYED),
            ] {
                chart
                    .draw_series(points.iter().enumerate().map(|(index, point)| {
                        let x = index as f64 - 0.5 + offset;
                        let value = point.server(kind).double_charged_requests as f64;
                        bar(x, x + 0.34, 0.0, value, colour)
                    }))
                    .map_err(|e| e.to_string())?
                    .label(kind.label())
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled())
                    });
                if points.len() > 12 {
                    continue;
                }
                chart
                    .draw_series(points.iter().enumerate().map(|(index, point)| {
                        let count = point.server(kind).double_charged_requests;
                        let text = if kind == ServerKind::NonIdempotent && points.len() <= 8 {
                            format!(
                                "{} ({})",
                                grouped(count),
                                crate::report::format::percent(count, requests)
                            )
                        } else {
                            grouped(count)
                        };
                        value_label(
                            text,
                            (index as f64 - 0.5 + offset + 0.17, count as f64),
                            label_size,
                        )
                    }))
                    .map_err(|e| e.to_string())?;
            }
            draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 15)
        },
    )
}

/// The chart area of the per-p bar charts.
type BarChart<'a, 'b> = LinearChart<'a, SVGBackend<'b>>;

/// Where each server's bar starts within its p group (the group spans 1 on x).
const SERVER_BARS: [(f64, ServerKind); 2] = [
    (0.14, ServerKind::NonIdempotent),
    (0.52, ServerKind::IdempotencyKey),
];

/// (2) What each server did with the same deliveries: charges made and duplicates absorbed.
pub fn deliveries(results: &ArticleResults) -> String {
    let points: Vec<&PointResult> = results.first_run().collect();
    let highest = highest_of(&points, |point| point.attempts.deliveries());
    let label_size = if points.len() > 6 { 11 } else { 14 };
    svg(
        "What each server did with the same deliveries",
        &parameters(results),
        |area| {
            let mut chart = bar_chart(
                area,
                &points,
                highest * 1.22,
                64,
                "ACK-loss probability p · left bar: without Idempotency-Key · right bar: with it",
                "deliveries received (count)",
            )?;
            draw_delivery_bars(&mut chart, &points)?;
            let labels = if points.len() > 6 {
                &points[..0]
            } else {
                &points[..]
            };
            draw_delivery_labels(&mut chart, labels, label_size)?;
            draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 14)
        },
    )
}

/// One server's bar in the deliveries chart: (bottom segment, top segment, top colour). The
/// bottom is each request's first charge; the top the retries, charged again without a key or
/// answered from the key store with one.
fn delivery_segments(point: &PointResult, kind: ServerKind) -> (u64, u64, RGBColor) {
    let tally = point.server(kind);
    match kind {
        ServerKind::NonIdempotent => (
            tally.charges - tally.extra_charges,
            tally.extra_charges,
            CHARGED_TWICE,
        ),
        ServerKind::IdempotencyKey => (tally.charges, tally.prevented_duplicates, ABSORBED),
    }
}

/// The stacked bars of the deliveries chart, one series (and legend entry) per segment kind.
fn draw_delivery_bars(chart: &mut BarChart, points: &[&PointResult]) -> Result<(), String> {
    let legend = [
        (FIRST_CHARGE, "first charge of each request (both servers)"),
        (
            CHARGED_TWICE,
            "retries charged again (without key: extra charges)",
        ),
        (ABSORBED, "retries answered from the key store, not charged"),
    ];
    for (series, (colour, text)) in legend.into_iter().enumerate() {
        let bars = points.iter().enumerate().flat_map(|(index, point)| {
            SERVER_BARS.into_iter().filter_map(move |(offset, kind)| {
                let (bottom, top, top_colour) = delivery_segments(point, kind);
                let x = index as f64 - 0.5 + offset;
                match series {
                    0 => Some(bar(x, x + 0.34, 0.0, bottom as f64, FIRST_CHARGE)),
                    _ if top_colour == colour => Some(bar(
                        x,
                        x + 0.34,
                        bottom as f64,
                        (bottom + top) as f64,
                        colour,
                    )),
                    _ => None,
                }
            })
        });
        chart
            .draw_series(bars)
            .map_err(|e| e.to_string())?
            .label(text)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled()));
    }
    Ok(())
}

/// The retries on top of each bar of the deliveries chart: `+12 charged`, `+12 absorbed`.
fn draw_delivery_labels(
    chart: &mut BarChart,
    points: &[&PointResult],
    label_size: u32,
) -> Result<(), String> {
    chart
        .draw_series(points.iter().enumerate().flat_map(|(index, point)| {
            SERVER_BARS.map(|(offset, kind)| {
                let (bottom, top, _) = delivery_segments(point, kind);
                let sign = match kind {
                    ServerKind::NonIdempotent => "charged",
                    ServerKind::IdempotencyKey => "absorbed",
                };
                value_label(
                    format!("+{} {sign}", grouped(top)),
                    (index as f64 - 0.5 + offset + 0.17, (bottom + top) as f64),
                    label_size,
                )
            })
        }))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// (3) How many attempts requests needed, per p, on a log scale.
pub fn attempts(results: &ArticleResults) -> String {
    let by_p = results.attempts_by_p();
    let largest_attempts = by_p
        .iter()
        .map(|(_, histogram)| histogram.max_attempts())
        .max()
        .unwrap_or(1)
        .max(1);
    let most_requests = by_p
        .iter()
        .flat_map(|(_, histogram)| histogram.iter().map(|(_, n)| n))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    // Powers of ten up to the largest count, for the log axis.
    let top = 10f64.powf((most_requests * 3.0).log10().ceil());
    let series_count = by_p.len().max(1);
    let width = 0.8 / series_count as f64;
    let subtitle = if results.model.runs > 1 {
        parameters(results).replace(
            &format!(" · run 0 of {}", results.model.runs),
            &format!(" · summed over {} runs", results.model.runs),
        )
    } else {
        parameters(results)
    };
    svg(
        "How many times each payment request was delivered",
        &subtitle,
        |area| {
            let mut chart = ChartBuilder::on(area)
                .margin(16)
                .x_label_area_size(48)
                .y_label_area_size(90)
                .build_cartesian_2d(
                    0.5f64..largest_attempts as f64 + 0.5,
                    (0.5f64..top).log_scale(),
                )
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_desc("attempts per request (1 = first ACK arrived; 2 = one retry; ...)")
                .y_desc("requests (count, log scale)")
                .x_labels(largest_attempts as usize)
                .x_label_formatter(&|x| {
                    if (x - x.round()).abs() < 1e-9 {
                        format!("{}", x.round() as u64)
                    } else {
                        String::new()
                    }
                })
                .y_label_formatter(&|y| grouped(y.round() as u64))
                .axis_desc_style((FONT, 16))
                .label_style((FONT, 14))
                .draw()
                .map_err(|e| e.to_string())?;
            for (series, (p, histogram)) in by_p.iter().enumerate() {
                let colour = series_colour(series, series_count);
                let left = |attempts: u32| f64::from(attempts) - 0.4 + series as f64 * width;
                let drawn =
                    chart
                        .draw_series(histogram.iter().filter(|&(_, n)| n > 0).map(|(a, n)| {
                            bar(left(a), left(a) + width * 0.92, 0.5, n as f64, colour)
                        }))
                        .map_err(|e| e.to_string())?;
                if in_legend(series, series_count) {
                    drawn.label(p_label(*p)).legend(move |(x, y)| {
                        Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled())
                    });
                }
                if series_count <= 6 {
                    chart
                        .draw_series(histogram.iter().filter(|&(_, n)| n > 0).map(|(a, n)| {
                            value_label(grouped(n), (left(a) + width * 0.46, n as f64), 11)
                        }))
                        .map_err(|e| e.to_string())?;
                }
            }
            draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 15)
        },
    )
}
