//! The load model's charts. Over time, each scenario in its own panel, the trigger windows
//! shaded (when there are any): `load_goodput.svg` (offered load, retries and goodput per
//! second, and the queue on a second axis when it ever formed, for the file's first strategy:
//! the metastable-failure picture) and `load_double_charges.svg` (customers charged twice so
//! far, one line per strategy). With one run they draw that run; with more, the mean over the
//! runs of each bucket, with a band for the 95% interval (Student's t across runs) of the
//! goodput and of each strategy's double charges. (A sweep of the error rate draws its own
//! charts: [`crate::report::sweep_chart`].) Each chart has one
//! legend, in a row above its panels, so that it never covers a line; a band or bar is cut at
//! the panel's edges.

use plotters::coord::Shift;
use plotters::prelude::*;

use engine::metric::Kind;
use engine::replications::{Estimate, Replications};

use crate::model::load::{Bucket, LoadResults, LoadRow, LoadStrategy};
use crate::report::OutputFile;
use crate::report::chart_style::{
    FONT, GRID, LegendEntry, LinearChart, band_outline, hue, layered_stroke, legend_row, svg,
};
use crate::report::format::{tick, whole_tick};

/// Offered load: grey.
const OFFERED: RGBColor = RGBColor(0x7f, 0x7f, 0x7f);
/// Goodput: green.
const GOODPUT: RGBColor = hue::GREEN;
/// Retries: orange.
const RETRIES: RGBColor = hue::ORANGE;
/// The queue: blue.
const QUEUE: RGBColor = hue::BLUE;
/// Room above the highest point (the legends sit above the panels).
const HEADROOM: f64 = 1.1;
/// The trigger window's shade.
const SHADE: RGBColor = RGBColor(0xf3, 0xd9, 0xd9);

/// One colour per strategy.
fn colour(strategy: LoadStrategy) -> RGBColor {
    match strategy {
        LoadStrategy::None => hue::RED,
        LoadStrategy::CheckThenInsert => hue::ORANGE,
        LoadStrategy::UniqueKey => hue::BLUE,
        LoadStrategy::LockWait => hue::PURPLE,
    }
}

/// The charts' file names, in the order of [`all`].
pub fn names(results: &LoadResults) -> Vec<String> {
    all(results)
        .into_iter()
        .map(|file| file.name.into_owned())
        .collect()
}

/// Every chart, in a fixed order.
pub fn all(results: &LoadResults) -> Vec<OutputFile> {
    vec![
        OutputFile::new("load_goodput.svg", goodput(results)),
        OutputFile::new("load_double_charges.svg", double_charges(results)),
    ]
}

/// The 95% interval of `estimate`, cut to `0..=top`; `None` without one.
fn clipped(estimate: &Estimate, top: f64) -> Option<(f64, f64)> {
    let interval = estimate.interval?;
    Some((interval.low.clamp(0.0, top), interval.high.clamp(0.0, top)))
}

/// Draws a band from `low` to `high` over x in `colour`, light.
fn draw_band<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
    band: &[(f64, f64, f64)],
    colour: RGBColor,
) -> Result<(), String> {
    if band.is_empty() {
        return Ok(());
    }
    let outline = band_outline(band);
    chart
        .draw_series(std::iter::once(Polygon::new(
            outline,
            colour.mix(0.2).filled(),
        )))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// a trigger window), then `what`.
fn parameters(results: &LoadResults, what: &str) -> String {
    let model = &results.model;
    let shaded = if model
        .scenarios
        .iter()
        .any(|scenario| !scenario.trigger_windows().is_empty())
    {
        " · shaded: the trigger"
    } else {
        ""
    };
    let runs = if model.runs > 1 {
        format!("mean of {} runs, band: 95% interval", model.runs)
    } else {
        "run 0".to_string()
    };
    format!(
        "{} · seed {} · {runs} · {} s buckets{shaded} · {what}",
        model.title,
        model.seed,
        model.bucket_ms / 1000.0
    )
}

/// Per bucket of a scenario under a strategy, the estimate over runs of `value` (its point at
/// the bucket's middle, s): a run whose series ended earlier adds 0 (`carry = false`, a count
/// per bucket) or its last bucket's value (`carry = true`, a cumulative count).
fn bucket_estimates(
    results: &LoadResults,
    scenario: usize,
    strategy: LoadStrategy,
    value: impl Fn(&Bucket) -> f64,
    carry: bool,
) -> Vec<(f64, Estimate)> {
    let bucket_s = results.model.bucket_ms / 1000.0;
    let runs: Vec<&LoadRow> = results
        .rows
        .iter()
        .filter(|row| row.scenario == scenario && row.strategy == strategy)
        .collect();
    let length = runs
        .iter()
        .map(|row| row.tally.buckets.len())
        .max()
        .unwrap_or(0);
    (0..length)
        .map(|index| {
            let mut sums = Replications::default();
            for row in &runs {
                let buckets = &row.tally.buckets;
                let observed = match (buckets.get(index), buckets.last()) {
                    (Some(bucket), _) => value(bucket),
                    (None, Some(last)) if carry => value(last),
                    _ => 0.0,
                };
                sums.push(observed);
            }
            ((index as f64 + 0.5) * bucket_s, sums.estimate(Kind::Mean))
        })
        .collect()
}

/// The means of `estimates` as a line.
fn means(estimates: &[(f64, Estimate)]) -> Vec<(f64, f64)> {
    estimates
        .iter()
        .map(|(x, estimate)| (*x, estimate.mean))
        .collect()
}

/// The intervals of `estimates` as a band cut to `0..=top` (empty with one run).
fn band(estimates: &[(f64, Estimate)], top: f64) -> Vec<(f64, f64, f64)> {
    estimates
        .iter()
        .filter_map(|(x, estimate)| clipped(estimate, top).map(|(low, high)| (*x, low, high)))
        .collect()
}

/// The panels of the scenarios, one each: two columns when there is more than one (with an
/// odd count, the last cell stays empty).
fn panels<'a>(
    area: &DrawingArea<SVGBackend<'a>, Shift>,
    count: usize,
) -> Vec<DrawingArea<SVGBackend<'a>, Shift>> {
    let columns = if count > 1 { 2 } else { 1 };
    let rows = count.div_ceil(columns).max(1);
    let mut cells = area.split_evenly((rows, columns));
    cells.truncate(count);
    cells
}

/// The longest time series of any run (s), at least one bucket.
fn span_s(results: &LoadResults) -> f64 {
    let bucket_s = results.model.bucket_ms / 1000.0;
    results
        .rows
        .iter()
        .map(|row| row.tally.buckets.len() as f64 * bucket_s)
        .fold(bucket_s, f64::max)
}

/// A time panel's axes (time in seconds across, `y_desc` up) and its grid, with the
/// trigger windows of `scenario` shaded up to `top`.
fn time_axes<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
    y_desc: &str,
    results: &LoadResults,
    scenario: usize,
    top: f64,
) -> Result<(), String> {
    draw_panel_axes(
        chart,
        PanelAxis::new("time, s", 8, whole_tick),
        PanelAxis::new(y_desc, 5, tick),
    )?;
    shade(chart, results, scenario, top)
}

/// One axis of a panel: its name, how many ticks it has at most and how a tick reads.
#[derive(Clone, Copy)]
struct PanelAxis<'a> {
    description: &'a str,
    ticks: usize,
    label: fn(f64) -> String,
}

impl<'a> PanelAxis<'a> {
    /// The axis named `description` with at most `ticks` ticks, each read by `label`.
    fn new(description: &'a str, ticks: usize, label: fn(f64) -> String) -> Self {
        Self {
            description,
            ticks,
            label,
        }
    }
}

/// Draws a panel's axes, `x` across and `y` up, in the panels' small type and with the light
/// grid.
fn draw_panel_axes<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
    x: PanelAxis,
    y: PanelAxis,
) -> Result<(), String> {
    chart
        .configure_mesh()
        .x_desc(x.description)
        .y_desc(y.description)
        .x_labels(x.ticks)
        .y_labels(y.ticks)
        .x_label_formatter(&|value| (x.label)(*value))
        .y_label_formatter(&|value| (y.label)(*value))
        .axis_desc_style((FONT, 12))
        .label_style((FONT, 11))
        .light_line_style(GRID)
        .draw()
        .map_err(|e| e.to_string())
}

/// Shades the scenario's trigger windows.
fn shade<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
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

/// Whether a queue formed in any time series of `strategy`.
fn queue_formed(results: &LoadResults, strategy: LoadStrategy) -> bool {
    results
        .rows
        .iter()
        .filter(|row| row.strategy == strategy)
        .flat_map(|row| &row.tally.buckets)
        .any(|bucket| bucket.queue_length > 0.0)
}

/// Offered load, retries and goodput per second with the queue on a second axis (left out,
/// and said so, when no request ever waited).
fn goodput(results: &LoadResults) -> String {
    let model = &results.model;
    let strategy = model.strategies[0];
    let queue = queue_formed(results, strategy);
    let what = if queue {
        format!("strategy {}", strategy.name())
    } else {
        format!("strategy {} · the queue stayed empty", strategy.name())
    };
    let line = |label: &str, colour, stroke| LegendEntry {
        label: label.to_string(),
        colour,
        stroke,
    };
    let mut legend = vec![
        line("offered (payments/s)", OFFERED, 2),
        line("retries/s", RETRIES, 2),
        line("goodput (successes/s)", GOODPUT, 2),
    ];
    if queue {
        legend.push(line("queue length (right axis)", QUEUE, 1));
    }
    svg(
        "Goodput, offered load and queue over time, one panel per scenario",
        &parameters(results, &what),
        |area| {
            let body = legend_row(area, &legend, 12)?;
            for (index, panel) in panels(&body, model.scenarios.len()).iter().enumerate() {
                goodput_panel(results, index, strategy, queue, panel)?;
            }
            Ok(())
        },
    )
}

/// One scenario's panel of [`goodput`] under `strategy` (the goodput's band with more than
/// one run); the queue and its axis only with `queue`.
fn goodput_panel(
    results: &LoadResults,
    scenario: usize,
    strategy: LoadStrategy,
    queue: bool,
    panel: &DrawingArea<SVGBackend<'_>, Shift>,
) -> Result<(), String> {
    let bucket_s = results.model.bucket_ms / 1000.0;
    let per_second = |count: u64| count as f64 / bucket_s;
    let over_runs = |value: &dyn Fn(&Bucket) -> f64| {
        bucket_estimates(results, scenario, strategy, value, false)
    };
    let offered = means(&over_runs(&|b| per_second(b.arrivals)));
    let retries = means(&over_runs(&|b| per_second(b.retries)));
    let good_estimates = over_runs(&|b| per_second(b.successes));
    let good = means(&good_estimates);
    let queue_length = means(&over_runs(&|b| b.queue_length));
    let top = offered
        .iter()
        .chain(&retries)
        .chain(&good)
        .map(|point| point.1)
        .fold(1.0, f64::max)
        * HEADROOM;
    let queue_top = queue_length.iter().map(|point| point.1).fold(1.0, f64::max) * HEADROOM;
    let span = span_s(results);
    let mut chart = ChartBuilder::on(panel)
        .margin(8)
        .caption(&results.model.scenarios[scenario].name, (FONT, 15))
        .x_label_area_size(30)
        .y_label_area_size(48)
        .right_y_label_area_size(if queue { 64 } else { 8 })
        .build_cartesian_2d(0.0..span, 0.0..top)
        .map_err(|e| e.to_string())?
        .set_secondary_coord(0.0..span, 0.0..queue_top);
    time_axes(&mut chart, "per second", results, scenario, top)?;
    draw_band(&mut chart, &band(&good_estimates, top), GOODPUT)?;
    for (points, colour) in [(offered, OFFERED), (retries, RETRIES), (good, GOODPUT)] {
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(|e| e.to_string())?;
    }
    if queue {
        chart
            .configure_secondary_axes()
            .y_desc("queue length")
            .y_labels(5)
            .y_label_formatter(&|value| tick(*value))
            .axis_desc_style((FONT, 12))
            .label_style((FONT, 11))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_secondary_series(LineSeries::new(queue_length, QUEUE.stroke_width(1)))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Customers charged twice so far, one line per strategy, one panel per scenario.
fn double_charges(results: &LoadResults) -> String {
    let model = &results.model;
    let count = model.strategies.len();
    let legend: Vec<LegendEntry> = model
        .strategies
        .iter()
        .enumerate()
        .map(|(index, &strategy)| LegendEntry {
            label: strategy.name().to_string(),
            colour: colour(strategy),
            stroke: layered_stroke(index, count),
        })
        .collect();
    svg(
        "Customers charged twice, over time, per strategy",
        &parameters(results, "cumulative double charges"),
        |area| {
            let body = legend_row(area, &legend, 12)?;
            for (index, panel) in panels(&body, model.scenarios.len()).iter().enumerate() {
                double_charges_panel(results, index, panel)?;
            }
            Ok(())
        },
    )
}

/// One scenario's panel of [`double_charges`] (each strategy's band with more than one run).
/// The axis shows at least 0 to 5, so that a count never gets a fractional tick.
fn double_charges_panel(
    results: &LoadResults,
    scenario: usize,
    panel: &DrawingArea<SVGBackend<'_>, Shift>,
) -> Result<(), String> {
    let model = &results.model;
    let estimates: Vec<(LoadStrategy, Vec<(f64, Estimate)>)> = model
        .strategies
        .iter()
        .map(|&strategy| {
            let cumulative = |b: &Bucket| b.double_charges as f64;
            let estimates = bucket_estimates(results, scenario, strategy, cumulative, true);
            (strategy, estimates)
        })
        .collect();
    let lines: Vec<(LoadStrategy, Vec<(f64, f64)>)> = estimates
        .iter()
        .map(|(strategy, estimates)| (*strategy, means(estimates)))
        .collect();
    let top = (lines
        .iter()
        .flat_map(|(_, points)| points.iter().map(|point| point.1))
        .fold(0.0, f64::max)
        * HEADROOM)
        .max(5.0);
    let span = span_s(results);
    let mut chart = ChartBuilder::on(panel)
        .margin(8)
        .caption(&model.scenarios[scenario].name, (FONT, 15))
        .x_label_area_size(30)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..span, 0.0..top)
        .map_err(|e| e.to_string())?;
    time_axes(&mut chart, "payments charged twice", results, scenario, top)?;
    for (strategy, estimates) in &estimates {
        draw_band(&mut chart, &band(estimates, top), colour(*strategy))?;
    }
    let count = model.strategies.len();
    for (strategy, points) in lines {
        let index = model.strategies.iter().position(|&s| s == strategy);
        let stroke = layered_stroke(index.unwrap_or(0), count);
        chart
            .draw_series(LineSeries::new(
                points,
                colour(strategy).stroke_width(stroke),
            ))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}
