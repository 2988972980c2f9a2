//! The side-by-side chart of one metric (`compare_<metric>.svg`): a row per matched cell, in
//! each row a dot per folder at its mean with its 95% interval as a band, a colour per folder;
//! the axis spans the values shown.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::folder::Row;
use super::table::Comparison;
use crate::report::chart_style::{self, FONT, LEGEND_ROW_HEIGHT, LegendEntry, hue};
use crate::report::format::tick;
use crate::report::sweep_chart::mix_white;

/// The folders' colours, in order (repeated past the eighth).
const COLOURS: [RGBColor; 8] = [
    hue::BLUE,
    hue::ORANGE,
    hue::GREEN,
    hue::PURPLE,
    hue::BROWN,
    hue::PINK,
    hue::CYAN,
    hue::RED,
];

/// Pixels per row of the chart.
const ROW_HEIGHT: u32 = 30;

/// The colour of folder `index`.
pub fn colour(index: usize) -> RGBColor {
    COLOURS[index % COLOURS.len()]
}

/// One folder's point in a row: its mean and interval, as shown (a share in percent).
type Point = (f64, Option<(f64, f64)>);

/// The chart's file name for `metric`.
pub fn file_name(metric: &str) -> String {
    format!("compare_{metric}.svg")
}

/// One row of the chart: its label and each folder's point (`None` where it has none).
type ChartRow = (String, Vec<Option<Point>>);

/// The rows of `metric`'s chart, one per cell that has it, and the unit its axis shows.
fn rows_of(comparison: &Comparison, metric: &str) -> (Vec<ChartRow>, String) {
    let mut rows: Vec<ChartRow> = Vec::new();
    let mut unit = String::new();
    for cell in &comparison.cells {
        let Some(line) = cell.lines.iter().find(|line| line.metric == metric) else {
            continue;
        };
        let any = line.any();
        let scale = if any.is_share() { 100.0 } else { 1.0 };
        unit = match (any.is_share(), any.unit.as_str()) {
            (true, "") => "%".into(),
            (true, of) => format!("% of {of}"),
            (false, unit) => unit.to_string(),
        };
        let points = line
            .rows
            .iter()
            .map(|row| {
                let side = row.and_then(Row::estimate)?;
                let interval = side
                    .interval
                    .map(|interval| (interval.low * scale, interval.high * scale));
                Some((side.mean * scale, interval))
            })
            .collect();
        let label = cell
            .labels
            .iter()
            .filter(|label| !label.is_empty())
            .cloned()
            .collect::<Vec<_>>()
            .join(" · ");
        rows.push((label, points));
    }
    (rows, unit)
}

/// The x axis of `rows`: it spans the data (dots and bands need no zero), a little more each
/// side.
fn x_range(rows: &[ChartRow]) -> std::ops::Range<f64> {
    let values = rows.iter().flat_map(|(_, points)| points.iter().flatten());
    let (low, high) = values.fold((f64::MAX, f64::MIN), |(low, high), (mean, interval)| {
        let (a, b) = interval.unwrap_or((*mean, *mean));
        (low.min(a).min(*mean), high.max(b).max(*mean))
    });
    let span = if high > low {
        high - low
    } else {
        high.abs().max(1.0)
    };
    low - 0.04 * span..high + 0.04 * span
}

/// The chart of `metric`, or `None` when no cell has it.
pub fn chart(comparison: &Comparison, metric: &str, subtitle: &str) -> Option<String> {
    let folders = comparison.folders.len();
    let (rows, unit) = rows_of(comparison, metric);
    if rows.is_empty() {
        return None;
    }
    let x_range = x_range(&rows);
    let count = rows.len();
    let longest = rows.iter().map(|(label, _)| label.chars().count()).max();
    let label_width = (longest.unwrap_or(0) as u32 * 7 + 24).clamp(80, 440);
    let height = 68 + LEGEND_ROW_HEIGHT + 16 + 48 + 16 + ROW_HEIGHT * count as u32;
    let title = format!("{metric}, folder by folder");
    let entries: Vec<LegendEntry> = comparison
        .names
        .iter()
        .enumerate()
        .map(|(index, name)| LegendEntry {
            label: name.clone(),
            colour: colour(index),
            stroke: 6,
        })
        .collect();
    let axis = if unit.is_empty() {
        metric.to_string()
    } else {
        format!("{metric} ({unit})")
    };
    Some(chart_style::svg_sized(
        &title,
        subtitle,
        (chart_style::SIZE.0, height),
        |area| {
            let rest = chart_style::legend_row(area, &entries, 14)?;
            let mut chart = ChartBuilder::on(&rest)
                .margin(16)
                .x_label_area_size(48)
                .y_label_area_size(label_width)
                .build_cartesian_2d(x_range.clone(), 0f64..count as f64)
                .map_err(|e| e.to_string())?;
            let signed_tick = |value: &f64| match *value {
                value if value < 0.0 => format!("-{}", tick(-value)),
                value => tick(value),
            };
            chart
                .configure_mesh()
                .disable_y_mesh()
                .y_labels(0)
                .x_desc(axis.as_str())
                .x_label_formatter(&signed_tick)
                .light_line_style(chart_style::GRID)
                .axis_desc_style((FONT, 16))
                .label_style((FONT, 14))
                .draw()
                .map_err(|e| e.to_string())?;
            let step = 0.6 / folders as f64;
            for (index, (label, points)) in rows.iter().enumerate() {
                let centre = (count - index) as f64 - 0.5;
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((x_range.start, centre))
                            + Text::new(
                                label.clone(),
                                (-8, 0),
                                (FONT, 13)
                                    .into_font()
                                    .color(&BLACK)
                                    .pos(Pos::new(HPos::Right, VPos::Center)),
                            ),
                    ))
                    .map_err(|e| e.to_string())?;
                for (folder, point) in points.iter().enumerate() {
                    let Some((mean, interval)) = point else {
                        continue;
                    };
                    let y = centre + 0.3 - step * (folder as f64 + 0.5);
                    let colour = colour(folder);
                    if let Some((low, high)) = interval {
                        let half = step * 0.35;
                        chart
                            .draw_series(std::iter::once(Rectangle::new(
                                [(*low, y - half), (*high, y + half)],
                                mix_white(colour).filled(),
                            )))
                            .map_err(|e| e.to_string())?;
                    }
                    chart
                        .draw_series(std::iter::once(Circle::new((*mean, y), 4, colour.filled())))
                        .map_err(|e| e.to_string())?;
                }
            }
            Ok(())
        },
    ))
}
