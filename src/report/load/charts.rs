//! The load model's charts. Over time, each scenario in its own panel, the trigger windows
//! shaded (when there are any): `load_goodput.svg` (offered load, retries and goodput per
//! second, and the queue on a second axis when it ever formed, for the file's first strategy:
//! the metastable-failure picture) and `load_double_charges.svg` (customers charged twice so
//! far, one line per strategy). With one run they draw that run; with more, the mean over the
//! runs of each bucket, with a band for the 95% interval (Student's t across runs) of the
//! goodput and of each strategy's double charges. With an error-rate sweep,
//! `load_failure_sweep.svg`: success rate and amplification against the server's error rate,
//! one row of panels per strategy, one line per scenario (the retry policies), means over runs
//! with error bars for their 95% intervals when there is more than one run. Each chart has one
//! legend, in a row above its panels, so that it never covers a line; a band or bar is cut at
//! the panel's edges.

use plotters::coord::Shift;
use plotters::prelude::*;

use engine::metric::Kind;
use engine::replications::{Estimate, Replications};

use crate::model::load::{Bucket, LoadResults, LoadRow, LoadStrategy};
use crate::report::OutputFile;
use crate::report::chart_style::{
    FONT, GRID, LEGEND_ROW_HEIGHT, LegendEntry, LinearChart, SIZE, draw_marked_line, hue,
    layered_stroke, legend_row, svg, svg_sized,
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
/// The height of one row of sweep panels (pixels).
const SWEEP_ROW_HEIGHT: u32 = 240;
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
pub fn names(results: &LoadResults) -> Vec<&'static str> {
    all(results).iter().map(|file| file.name).collect()
}

/// Every chart, in a fixed order (the sweep's only with a sweep).
pub fn all(results: &LoadResults) -> Vec<OutputFile> {
    let mut files = vec![
        OutputFile::new("load_goodput.svg", goodput(results)),
        OutputFile::new("load_double_charges.svg", double_charges(results)),
    ];
    if !results.sweep.is_empty() {
        files.push(OutputFile::new(
            "load_failure_sweep.svg",
            failure_sweep(results),
        ));
    }
    files
}

/// One colour per scenario of the sweep chart (the matplotlib "tab10" hues, cycled).
fn scenario_colour(index: usize) -> RGBColor {
    const HUES: [RGBColor; 6] = {
        use hue::*;
        [BLUE, RED, GREEN, ORANGE, PURPLE, BROWN]
    };
    HUES[index % HUES.len()]
}

/// The estimate over runs of `value` per sweep point (its mean and t interval), for a
/// scenario under a strategy.
fn sweep_estimates(
    results: &LoadResults,
    scenario: usize,
    strategy: LoadStrategy,
    value: &dyn Fn(&LoadRow) -> f64,
) -> Vec<(f64, Estimate)> {
    results
        .model
        .error_rate_sweep
        .iter()
        .map(|&rate| {
            let mut runs = Replications::default();
            for point in results.sweep.iter().filter(|point| {
                point.error_rate == rate
                    && point.row.scenario == scenario
                    && point.row.strategy == strategy
            }) {
                runs.push(value(&point.row));
            }
            (rate, runs.estimate(Kind::Mean))
        })
        .collect()
}

/// Mean over runs of `value` per sweep point, for a scenario under a strategy.
fn sweep_line(
    results: &LoadResults,
    scenario: usize,
    strategy: LoadStrategy,
    value: &dyn Fn(&LoadRow) -> f64,
) -> Vec<(f64, f64)> {
    sweep_estimates(results, scenario, strategy, value)
        .into_iter()
        .map(|(rate, estimate)| (rate, estimate.mean))
        .collect()
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
    let outline: Vec<(f64, f64)> = band
        .iter()
        .map(|&(x, _, high)| (x, high))
        .chain(band.iter().rev().map(|&(x, low, _)| (x, low)))
        .collect();
    chart
        .draw_series(std::iter::once(Polygon::new(
            outline,
            colour.mix(0.2).filled(),
        )))
        .map_err(|e| e.to_string())?;
    Ok(())
}

/// The legend entries of the scenarios, one colour each.
fn scenario_legend(results: &LoadResults) -> Vec<LegendEntry> {
    let count = results.model.scenarios.len();
    results
        .model
        .scenarios
        .iter()
        .enumerate()
        .map(|(index, scenario)| LegendEntry {
            label: scenario.name.clone(),
            colour: scenario_colour(index),
            stroke: layered_stroke(index, count),
        })
        .collect()
}

/// Success rate and amplification against the server's error rate: a row of two panels per
/// strategy, one line per scenario; the chart grows by a row per strategy.
fn failure_sweep(results: &LoadResults) -> String {
    let model = &results.model;
    let subtitle = format!(
        "{} · seed {} · means over {} runs{} · one row per strategy, one line per scenario",
        model.title,
        model.seed,
        model.runs,
        if model.runs > 1 {
            ", bars: 95% interval"
        } else {
            ""
        },
    );
    let rows = model.strategies.len().max(1) as u32;
    let height = SIZE.1.max(68 + LEGEND_ROW_HEIGHT + rows * SWEEP_ROW_HEIGHT);
    svg_sized(
        "Success rate and amplification against the server's error rate",
        &subtitle,
        (SIZE.0, height),
        |area| {
            let body = legend_row(area, &scenario_legend(results), 12)?;
            let panels = body.split_evenly((rows as usize, 2));
            let success = |row: &LoadRow| {
                row.tally.counts.succeeded as f64 / row.tally.counts.payments.max(1) as f64
            };
            let amplification = |row: &LoadRow| {
                row.tally.counts.calls as f64 / row.tally.counts.payments.max(1) as f64
            };
            // A share: the axis ends just above 1.
            let share = SweepAxis {
                description: "success rate",
                top: 1.05,
            };
            // One scale for every strategy's row, so that the rows compare at a glance.
            let highest = model
                .strategies
                .iter()
                .flat_map(|&strategy| {
                    (0..model.scenarios.len())
                        .flat_map(move |scenario| {
                            sweep_line(results, scenario, strategy, &amplification)
                        })
                        .map(|point| point.1)
                })
                .fold(1.0, f64::max);
            let calls = SweepAxis {
                description: "calls per payment",
                top: highest * HEADROOM,
            };
            for (index, &strategy) in model.strategies.iter().enumerate() {
                sweep_panel(results, strategy, &panels[2 * index], &share, &success)?;
                sweep_panel(
                    results,
                    strategy,
                    &panels[2 * index + 1],
                    &calls,
                    &amplification,
                )?;
            }
            Ok(())
        },
    )
}

/// The y axis of a sweep panel.
struct SweepAxis {
    /// What the axis shows.
    description: &'static str,
    /// Where it ends, the same for every strategy's panel.
    top: f64,
}

/// One panel of the sweep chart: `axis` against the error rate for `strategy`, a line per
/// scenario.
fn sweep_panel(
    results: &LoadResults,
    strategy: LoadStrategy,
    panel: &DrawingArea<SVGBackend<'_>, Shift>,
    axis: &SweepAxis,
    value: &dyn Fn(&LoadRow) -> f64,
) -> Result<(), String> {
    let model = &results.model;
    let estimates: Vec<Vec<(f64, Estimate)>> = (0..model.scenarios.len())
        .map(|scenario| sweep_estimates(results, scenario, strategy, value))
        .collect();
    let top = axis.top;
    let right = model
        .error_rate_sweep
        .iter()
        .copied()
        .fold(0.0, f64::max)
        .max(1e-3);
    let mut chart = ChartBuilder::on(panel)
        .margin(10)
        .caption(
            format!("{} · strategy {}", axis.description, strategy.name()),
            (FONT, 14),
        )
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..right, 0.0..top)
        .map_err(|e| e.to_string())?;
    draw_panel_axes(
        &mut chart,
        PanelAxis::new(
            "server error rate (share of processings answered 500)",
            6,
            tick,
        ),
        PanelAxis::new(axis.description, 6, tick),
    )?;
    let count = estimates.len();
    for (index, points) in estimates.into_iter().enumerate() {
        let name = model.scenarios[index].name.as_str();
        let colour = scenario_colour(index);
        // An error bar: a thin bar from the interval's low end to its high end.
        let half_width = right * 0.004;
        let bars = points.iter().filter_map(|(rate, estimate)| {
            let (low, high) = clipped(estimate, top)?;
            Some(Rectangle::new(
                [
                    ((rate - half_width).max(0.0), low),
                    ((rate + half_width).min(right), high),
                ],
                colour.mix(0.6).filled(),
            ))
        });
        chart.draw_series(bars).map_err(|e| e.to_string())?;
        let line: Vec<(f64, f64)> = points.iter().map(|(rate, e)| (*rate, e.mean)).collect();
        let style = (colour, layered_stroke(index, count));
        draw_marked_line(&mut chart, &line, style, name, 14)?;
    }
    Ok(())
}

/// Under each title: the file, the seed, the bucket, what is shaded (only when some panel has
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
