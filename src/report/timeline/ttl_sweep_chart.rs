//! `ttl_sweep.svg`: double-charged payments against the key TTL (log scale), one line per
//! scenario and strategy, with each scenario's whole retry window marked.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::charts::{LogTimeChart, colour, log_time_chart, parameters};
use crate::model::timeline::TimelineResults;
use crate::report::chart_style::{FONT, draw_legend, hue, svg};
use crate::report::format::grouped;

/// The x range: whole decades around every TTL of the sweep and every retry window.
fn ttl_range(ttls: &[f64], windows: &[f64]) -> (f64, f64) {
    let shortest = ttls
        .iter()
        .chain(windows)
        .copied()
        .fold(f64::INFINITY, f64::min);
    let longest = ttls.iter().chain(windows).copied().fold(0.0, f64::max);
    let low = 10f64.powf((shortest / 1.5).log10().floor());
    let high = 10f64.powf((longest * 1.5).log10().ceil());
    (low, high)
}

/// The TTL sweep chart; call only when the results have a sweep.
pub fn ttl_sweep(results: &TimelineResults) -> String {
    let model = &results.model;
    let windows: Vec<f64> = model
        .scenarios
        .iter()
        .map(|scenario| scenario.client.retry_window_ms())
        .collect();
    let (low, high) = ttl_range(&model.ttl_sweep_ms, &windows);
    let highest = results
        .ttl_sweep
        .iter()
        .map(|row| row.tally.counts.double_charged_payments)
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    // Room above the lines for the legend.
    let top = highest * 1.45;
    svg(
        "Double charges against the key TTL",
        &parameters(results),
        |area| {
            let count = |value: &f64| grouped(value.round() as u64);
            let mut chart = log_time_chart(
                area,
                low..high,
                top,
                "key TTL: the store prunes a key this long after creating it (ms, log scale)",
                "payments charged twice or more (count)",
                &count,
                &count,
            )?;
            draw_windows(&mut chart, results, &windows, highest)?;
            draw_lines(&mut chart, results)?;
            draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 14)
        },
    )
}

/// Each scenario's retry window: a dashed grey line with its value above.
fn draw_windows(
    chart: &mut LogTimeChart,
    results: &TimelineResults,
    windows: &[f64],
    highest: f64,
) -> Result<(), String> {
    let model = &results.model;
    let grey = hue::DARK_GREY;
    for (index, window) in windows.iter().enumerate() {
        chart
            .draw_series(DashedLineSeries::new(
                [(*window, 0.0), (*window, highest * 1.08)],
                6,
                4,
                grey.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?;
        let name = if model.scenarios.len() > 1 {
            format!("{}: ", model.scenarios[index].name)
        } else {
            String::new()
        };
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{name}retry window {} ms", grouped(window.round() as u64)),
                (*window, highest * (1.09 + 0.06 * index as f64)),
                (FONT, 14)
                    .into_font()
                    .color(&grey)
                    .pos(Pos::new(HPos::Center, VPos::Bottom)),
            )))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// One line with markers per scenario and strategy: double-charged payments per TTL.
fn draw_lines(chart: &mut LogTimeChart, results: &TimelineResults) -> Result<(), String> {
    let model = &results.model;
    let scenarios = model.scenarios.len();
    for (index, scenario) in model.scenarios.iter().enumerate() {
        for (order, &strategy) in model.strategies.iter().enumerate() {
            let points: Vec<(f64, f64)> = results
                .ttl_sweep
                .iter()
                .filter(|row| row.scenario == index && row.strategy == strategy)
                .map(|row| {
                    (
                        row.key_ttl_ms,
                        row.tally.counts.double_charged_payments as f64,
                    )
                })
                .collect();
            let base = colour(strategy);
            let shade = if index % 2 == 1 {
                base.mix(0.55)
            } else {
                base.mix(1.0)
            };
            // Wider lines first, so that identical lines stay visible beneath.
            let width = (model.strategies.len() - order) as u32 + 1;
            let name = if scenarios > 1 {
                format!("{} · {}", scenario.name, strategy.name())
            } else {
                strategy.name().to_string()
            };
            chart
                .draw_series(LineSeries::new(points.clone(), shade.stroke_width(width)))
                .map_err(|e| e.to_string())?
                .label(name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], shade.stroke_width(3))
                });
            chart
                .draw_series(
                    points
                        .into_iter()
                        .map(|point| Circle::new(point, 4, shade.filled())),
                )
                .map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
