//! The load model's charts, run 0 of each scenario in its own panel, the trigger window
//! shaded: `load_goodput.svg` (offered load, retries and goodput per second, and the queue on
//! a second axis, for the file's first strategy: the metastable-failure picture) and
//! `load_double_charges.svg` (customers charged twice so far, one line per strategy).

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::model::load::{Bucket, LoadResults, LoadRow, LoadStrategy};
use crate::report::OutputFile;
use crate::report::chart_style::{FONT, draw_legend, draw_marked_line, svg};
use crate::report::format::tick;

/// Offered load: grey.
const OFFERED: RGBColor = RGBColor(0x7f, 0x7f, 0x7f);
/// Goodput: green.
const GOODPUT: RGBColor = RGBColor(0x2c, 0xa0, 0x2c);
/// Retries: orange.
const RETRIES: RGBColor = RGBColor(0xff, 0x7f, 0x0e);
/// The queue: blue.
const QUEUE: RGBColor = RGBColor(0x1f, 0x77, 0xb4);
/// Room above the highest point for the legend.
const HEADROOM: f64 = 1.6;
/// The trigger window's shade.
const SHADE: RGBColor = RGBColor(0xf3, 0xd9, 0xd9);

/// One colour per strategy.
fn colour(strategy: LoadStrategy) -> RGBColor {
    match strategy {
        LoadStrategy::None => RGBColor(0xd6, 0x27, 0x28),
        LoadStrategy::CheckThenInsert => RGBColor(0xff, 0x7f, 0x0e),
        LoadStrategy::UniqueKey => RGBColor(0x1f, 0x77, 0xb4),
        LoadStrategy::LockWait => RGBColor(0x94, 0x67, 0xbd),
    }
}

/// The charts' file names, in the order of [`all`].
pub fn names(results: &LoadResults) -> Vec<&'static str> {
    all(results).iter().map(|file| file.name).collect()
}

/// Every chart, in a fixed order (the sweep's only with a sweep).
pub fn all(results: &LoadResults) -> Vec<OutputFile> {
    let mut files = vec![
        OutputFile {
            name: "load_goodput.svg",
            bytes: goodput(results).into_bytes(),
        },
        OutputFile {
            name: "load_double_charges.svg",
            bytes: double_charges(results).into_bytes(),
        },
    ];
    if !results.sweep.is_empty() {
        files.push(OutputFile {
            name: "load_failure_sweep.svg",
            bytes: failure_sweep(results).into_bytes(),
        });
    }
    files
}

/// One colour per scenario of the sweep chart (the matplotlib "tab10" hues, cycled).
fn scenario_colour(index: usize) -> RGBColor {
    const HUES: [RGBColor; 6] = [
        RGBColor(0x1f, 0x77, 0xb4),
        RGBColor(0xd6, 0x27, 0x28),
        RGBColor(0x2c, 0xa0, 0x2c),
        RGBColor(0xff, 0x7f, 0x0e),
        RGBColor(0x94, 0x67, 0xbd),
        RGBColor(0x8c, 0x56, 0x4b),
    ];
    HUES[index % HUES.len()]
}

/// Mean over runs of `value` per sweep point, for a scenario under the first strategy.
fn sweep_line(
    results: &LoadResults,
    scenario: usize,
    value: impl Fn(&LoadRow) -> f64,
) -> Vec<(f64, f64)> {
    let strategy = results.model.strategies[0];
    results
        .model
        .error_rate_sweep
        .iter()
        .map(|&rate| {
            let values: Vec<f64> = results
                .sweep
                .iter()
                .filter(|point| {
                    point.error_rate == rate
                        && point.row.scenario == scenario
                        && point.row.strategy == strategy
                })
                .map(|point| value(&point.row))
                .collect();
            (
                rate,
                values.iter().sum::<f64>() / values.len().max(1) as f64,
            )
        })
        .collect()
}

/// Success rate and amplification against the server's error rate, one line per scenario.
fn failure_sweep(results: &LoadResults) -> String {
    let model = &results.model;
    let subtitle = format!(
        "{} · seed {} · means over {} runs · strategy {}",
        model.title,
        model.seed,
        model.runs,
        model.strategies[0].name()
    );
    svg(
        "Success rate and amplification against the server's error rate",
        &subtitle,
        |area| {
            let halves = area.split_evenly((1, 2));
            let success = |row: &LoadRow| {
                row.tally.counts.succeeded as f64 / row.tally.counts.payments.max(1) as f64
            };
            let amplification = |row: &LoadRow| {
                row.tally.counts.calls as f64 / row.tally.counts.payments.max(1) as f64
            };
            // A share: the axis ends just above 1, the legend sits below the lines.
            let share = SweepAxis {
                description: "success rate",
                top: Some(1.05),
                legend: SeriesLabelPosition::LowerLeft,
            };
            let calls = SweepAxis {
                description: "calls per payment",
                top: None,
                legend: SeriesLabelPosition::UpperRight,
            };
            sweep_panel(results, &halves[0], &share, &success)?;
            sweep_panel(results, &halves[1], &calls, &amplification)
        },
    )
}

/// The y axis of a sweep panel.
struct SweepAxis {
    /// What the axis shows.
    description: &'static str,
    /// Where it ends; `None`: the largest value with room for the legend above it.
    top: Option<f64>,
    /// Where the legend goes.
    legend: SeriesLabelPosition,
}

fn sweep_panel(
    results: &LoadResults,
    panel: &DrawingArea<SVGBackend<'_>, Shift>,
    axis: &SweepAxis,
    value: &dyn Fn(&LoadRow) -> f64,
) -> Result<(), String> {
    let model = &results.model;
    let lines: Vec<Vec<(f64, f64)>> = (0..model.scenarios.len())
        .map(|scenario| sweep_line(results, scenario, value))
        .collect();
    let top = axis.top.unwrap_or_else(|| {
        lines
            .iter()
            .flatten()
            .map(|point| point.1)
            .fold(1.0, f64::max)
            * HEADROOM
    });
    let right = model
        .error_rate_sweep
        .iter()
        .copied()
        .fold(0.0, f64::max)
        .max(1e-3);
    let mut chart = ChartBuilder::on(panel)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..right, 0.0..top)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("server error rate (share of processings answered 500)")
        .y_desc(axis.description)
        .x_labels(6)
        .y_labels(6)
        .axis_desc_style((FONT, 13))
        .label_style((FONT, 12))
        .light_line_style(RGBColor(0xf0, 0xf0, 0xf0))
        .draw()
        .map_err(|e| e.to_string())?;
    for (index, points) in lines.into_iter().enumerate() {
        let name = model.scenarios[index].name.as_str();
        draw_marked_line(&mut chart, &points, scenario_colour(index), name, 14)?;
    }
    draw_legend(&mut chart, axis.legend.clone(), 11)
}

/// Under each title: the file, the seed, the bucket.
fn parameters(results: &LoadResults, what: &str) -> String {
    let model = &results.model;
    format!(
        "{} · seed {} · run 0 · {} s buckets · shaded: the trigger · {what}",
        model.title,
        model.seed,
        model.bucket_ms / 1000.0
    )
}

/// Run 0's row of a scenario and strategy.
fn row_of(results: &LoadResults, scenario: usize, strategy: LoadStrategy) -> Option<&LoadRow> {
    results
        .rows
        .iter()
        .find(|row| row.run == 0 && row.scenario == scenario && row.strategy == strategy)
}

/// The panels of the scenarios: two columns when there is more than one.
fn panels<'a>(
    area: &DrawingArea<SVGBackend<'a>, Shift>,
    count: usize,
) -> Vec<DrawingArea<SVGBackend<'a>, Shift>> {
    let columns = if count > 1 { 2 } else { 1 };
    let rows = count.div_ceil(columns).max(1);
    area.split_evenly((rows, columns))
}

/// A point per bucket at its middle (s).
fn series(buckets: &[Bucket], bucket_s: f64, value: impl Fn(&Bucket) -> f64) -> Vec<(f64, f64)> {
    buckets
        .iter()
        .enumerate()
        .map(|(index, bucket)| ((index as f64 + 0.5) * bucket_s, value(bucket)))
        .collect()
}

/// The longest run-0 time series (s), at least one bucket.
fn span_s(results: &LoadResults) -> f64 {
    let bucket_s = results.model.bucket_ms / 1000.0;
    results
        .rows
        .iter()
        .filter(|row| row.run == 0)
        .map(|row| row.tally.buckets.len() as f64 * bucket_s)
        .fold(bucket_s, f64::max)
}

/// Shades the scenario's trigger windows.
fn shade<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    results: &LoadResults,
    scenario: usize,
    top: f64,
) -> Result<(), String> {
    let windows = results.model.scenarios[scenario].trigger_windows();
    chart
        .draw_series(windows.iter().map(|window| {
            Rectangle::new(
                [(window.from_ms / 1000.0, 0.0), (window.to_ms / 1000.0, top)],
                SHADE.filled(),
            )
        }))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// Offered load, retries and goodput per second with the queue on a second axis.
fn goodput(results: &LoadResults) -> String {
    let model = &results.model;
    let strategy = model.strategies[0];
    let subtitle = parameters(results, &format!("strategy {}", strategy.name()));
    svg(
        "Goodput, offered load and queue over time, one panel per scenario",
        &subtitle,
        |area| {
            for (index, panel) in panels(area, model.scenarios.len()).iter().enumerate() {
                if let Some(row) = row_of(results, index, strategy) {
                    goodput_panel(results, index, row, panel)?;
                }
            }
            Ok(())
        },
    )
}

fn goodput_panel(
    results: &LoadResults,
    scenario: usize,
    row: &LoadRow,
    panel: &DrawingArea<SVGBackend<'_>, Shift>,
) -> Result<(), String> {
    let bucket_s = results.model.bucket_ms / 1000.0;
    let buckets = &row.tally.buckets;
    let per_second = |count: u64| count as f64 / bucket_s;
    let offered = series(buckets, bucket_s, |b| per_second(b.arrivals));
    let retries = series(buckets, bucket_s, |b| per_second(b.retries));
    let good = series(buckets, bucket_s, |b| per_second(b.successes));
    let queue = series(buckets, bucket_s, |b| b.queue_length);
    let top = offered
        .iter()
        .chain(&retries)
        .chain(&good)
        .map(|point| point.1)
        .fold(1.0, f64::max)
        * HEADROOM;
    let queue_top = queue.iter().map(|point| point.1).fold(1.0, f64::max) * HEADROOM;
    let span = span_s(results);
    let mut chart = ChartBuilder::on(panel)
        .margin(8)
        .caption(&results.model.scenarios[scenario].name, (FONT, 15))
        .x_label_area_size(30)
        .y_label_area_size(48)
        .right_y_label_area_size(48)
        .build_cartesian_2d(0.0..span, 0.0..top)
        .map_err(|e| e.to_string())?
        .set_secondary_coord(0.0..span, 0.0..queue_top);
    chart
        .configure_mesh()
        .x_desc("time, s")
        .y_desc("per second")
        .x_labels(8)
        .x_label_formatter(&|value| format!("{}", value.round() as i64))
        .y_labels(5)
        .y_label_formatter(&|value| tick(*value))
        .axis_desc_style((FONT, 12))
        .label_style((FONT, 11))
        .light_line_style(RGBColor(0xf0, 0xf0, 0xf0))
        .draw()
        .map_err(|e| e.to_string())?;
    chart
        .configure_secondary_axes()
        .y_desc("queue length")
        .y_labels(5)
        .y_label_formatter(&|value| tick(*value))
        .axis_desc_style((FONT, 12))
        .label_style((FONT, 11))
        .draw()
        .map_err(|e| e.to_string())?;
    shade(&mut chart, results, scenario, top)?;
    for (points, colour, label) in [
        (offered, OFFERED, "offered (payments/s)"),
        (retries, RETRIES, "retries/s"),
        (good, GOODPUT, "goodput (successes/s)"),
    ] {
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 14, y)], colour.stroke_width(2))
            });
    }
    chart
        .draw_secondary_series(LineSeries::new(queue, QUEUE.mix(0.8).stroke_width(1)))
        .map_err(|e| e.to_string())?
        .label("queue (right axis)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], QUEUE.stroke_width(1)));
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 10)
}

/// Customers charged twice so far, one line per strategy, one panel per scenario.
fn double_charges(results: &LoadResults) -> String {
    let model = &results.model;
    svg(
        "Customers charged twice, over time, per strategy",
        &parameters(results, "cumulative double charges"),
        |area| {
            for (index, panel) in panels(area, model.scenarios.len()).iter().enumerate() {
                double_charges_panel(results, index, panel)?;
            }
            Ok(())
        },
    )
}

fn double_charges_panel(
    results: &LoadResults,
    scenario: usize,
    panel: &DrawingArea<SVGBackend<'_>, Shift>,
) -> Result<(), String> {
    let model = &results.model;
    let bucket_s = model.bucket_ms / 1000.0;
    let lines: Vec<(LoadStrategy, Vec<(f64, f64)>)> = model
        .strategies
        .iter()
        .filter_map(|&strategy| {
            let row = row_of(results, scenario, strategy)?;
            let points = series(&row.tally.buckets, bucket_s, |b| b.double_charges as f64);
            Some((strategy, points))
        })
        .collect();
    let top = lines
        .iter()
        .flat_map(|(_, points)| points.iter().map(|point| point.1))
        .fold(1.0, f64::max)
        * HEADROOM;
    let span = span_s(results);
    let mut chart = ChartBuilder::on(panel)
        .margin(8)
        .caption(&model.scenarios[scenario].name, (FONT, 15))
        .x_label_area_size(30)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..span, 0.0..top)
        .map_err(|e| e.to_string())?;
    chart
        .configure_mesh()
        .x_desc("time, s")
        .y_desc("payments charged twice")
        .x_labels(8)
        .x_label_formatter(&|value| format!("{}", value.round() as i64))
        .y_labels(5)
        .y_label_formatter(&|value| tick(*value))
        .axis_desc_style((FONT, 12))
        .label_style((FONT, 11))
        .light_line_style(RGBColor(0xf0, 0xf0, 0xf0))
        .draw()
        .map_err(|e| e.to_string())?;
    shade(&mut chart, results, scenario, top)?;
    for (strategy, points) in lines {
        let colour = colour(strategy);
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label(strategy.name())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 14, y)], colour.stroke_width(2))
            });
    }
    draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 10)
}
