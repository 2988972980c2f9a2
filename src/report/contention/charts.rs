//! The AWS post's two charts: write calls and completion time against the number of clients,
//! one line per backoff policy, each mean with its 95% interval (house style from
//! [`crate::report::chart_style`]).

use plotters::prelude::*;

use super::summary::find;
use crate::model::contention::summary::Metric;
use crate::model::contention::{ContentionResults, Policy};
use crate::report::OutputFile;
use crate::report::chart_style::{
    FONT, GRID, draw_legend, draw_marked_line, frame, hue, layered_stroke, svg,
};
use crate::report::format::{grouped, tick, whole_tick};
use crate::report::summary::{Row, Summary};

/// One colour per policy (the matplotlib "tab10" hues, one per policy in [`Policy::ALL`]).
fn colour(policy: Policy) -> RGBColor {
    match policy {
        Policy::None => hue::RED,
        Policy::Constant => hue::BROWN,
        Policy::Exponential => hue::BLUE,
        Policy::FullJitter => hue::GREEN,
        Policy::EqualJitter => hue::ORANGE,
        Policy::DecorrelatedJitter => hue::PURPLE,
    }
}

/// The two charts, in a fixed order.
pub fn all(results: &ContentionResults, summary: &Summary) -> Vec<OutputFile> {
    vec![
        OutputFile::new(
            "calls.svg",
            sweep(
                results,
                summary,
                Metric::Writes,
                "Work: write calls until every client has written",
                "write calls per run (mean, 95% interval)",
            ),
        ),
        OutputFile::new(
            "completion_time.svg",
            sweep(
                results,
                summary,
                Metric::CompletionMs,
                "Time until the last client has written",
                "completion time, ms (mean, 95% interval)",
            ),
        ),
    ]
}

/// The run's parameters under each title.
pub fn parameters(results: &ContentionResults) -> String {
    let model = &results.model;
    let retries = model.setup.max_retries.map_or_else(
        || "retries until success".to_string(),
        |max| format!("at most {max} retries"),
    );
    format!(
        "{} · seed {} · {} runs per point · base {} ms, cap {} ms · delay {} per message · {retries}",
        model.title,
        model.seed,
        grouped(u64::from(model.runs)),
        model.base_ms,
        model.cap_ms,
        model.setup.delay.describe(),
    )
}

/// One chart: `metric` against clients, a line per policy with interval bars.
fn sweep(
    results: &ContentionResults,
    summary: &Summary,
    metric: Metric,
    title: &str,
    y_description: &str,
) -> String {
    let model = &results.model;
    let series: Vec<(Policy, Vec<(u32, &Row)>)> = model
        .policies
        .iter()
        .map(|&policy| {
            let rows = model
                .clients
                .iter()
                .filter_map(|&clients| {
                    find(summary, clients, policy, metric).map(|row| (clients, row))
                })
                .collect();
            (policy, rows)
        })
        .collect();
    let low_x = model.clients.iter().copied().min().unwrap_or(1) as f64;
    let high_x = model.clients.iter().copied().max().unwrap_or(1) as f64;
    let pad = ((high_x - low_x) * 0.04).max(1.0);
    let x = (low_x - pad)..(high_x + pad);
    let top = series
        .iter()
        .flat_map(|(_, rows)| rows.iter())
        .map(|(_, row)| {
            let estimate = &row.estimate;
            estimate
                .interval
                .map_or(estimate.mean, |interval| interval.high)
        })
        .fold(1.0, f64::max)
        * 1.08;
    svg(title, &parameters(results), |area| {
        let mut chart = frame(area, x.clone(), 0.0..top, 16)?;
        chart
            .configure_mesh()
            .x_desc("clients racing for one row")
            .y_desc(y_description)
            .x_labels(10)
            .y_labels(8)
            .x_label_formatter(&|value| whole_tick(*value))
            .y_label_formatter(&|value| tick(*value))
            .axis_desc_style((FONT, 16))
            .label_style((FONT, 14))
            .light_line_style(GRID)
            .draw()
            .map_err(|e| e.to_string())?;
        let cap = (x.end - x.start) * 0.005;
        for (index, (policy, rows)) in series.iter().enumerate() {
            let colour = colour(*policy);
            let stroke = layered_stroke(index, series.len());
            chart
                .draw_series(rows.iter().filter_map(|(clients, row)| {
                    let interval = row.estimate.interval?;
                    let at = f64::from(*clients);
                    Some(PathElement::new(
                        vec![
                            (at - cap, interval.low),
                            (at + cap, interval.low),
                            (at, interval.low),
                            (at, interval.high),
                            (at - cap, interval.high),
                            (at + cap, interval.high),
                        ],
                        colour.mix(0.8).stroke_width(1),
                    ))
                }))
                .map_err(|e| e.to_string())?;
            let points: Vec<(f64, f64)> = rows
                .iter()
                .map(|(clients, row)| (f64::from(*clients), row.estimate.mean))
                .collect();
            draw_marked_line(&mut chart, &points, (colour, stroke), policy.name(), 18)?;
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperLeft, 14)
    })
}
