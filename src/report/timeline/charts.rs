//! SVG charts of a timeline run: charges and double charges, client outcomes, the server's
//! answers (run 0, or with several runs the means over the runs with a 95% error bar on each
//! bar's total) and the latency distribution (run 0), per scenario and strategy. Same frame,
//! fonts and colours as the article's charts ([`crate::report::chart_style`]).

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use super::TimelineReport;
use super::summary::{CellEstimates, TimelineMetric};
use super::table::estimated_count;
use crate::model::timeline::{Counters, Strategy, TimelineResults, TimelineRow};
use crate::report::OutputFile;
use crate::report::chart_style::{
    ABSORBED, CHARGED_TWICE, FIRST_CHARGE, FONT, KEYED, LinearChart, SvgChart, bar, bold_label,
    draw_legend, frame, hue, svg, value_label,
};
use crate::report::format::{grouped, grouped_hundredths};
use crate::report::summary::plus_minus;
use engine::latency::LatencyHistogram;

/// Orange: the naive check's lines in the latency chart.
pub(super) const CHECKED: RGBColor = hue::ORANGE;

/// The charts every timeline run has (the backend's are in `backend_charts`).
pub fn all(report: &TimelineReport) -> Vec<OutputFile> {
    vec![
        OutputFile::new("timeline_charges.svg", charges(report)),
        OutputFile::new("timeline_outcomes.svg", outcomes(report)),
        OutputFile::new("timeline_latency.svg", latency(report.results())),
        OutputFile::new("timeline_answers.svg", answers(report)),
    ]
}

/// What the bar charts draw per cell (the order of [`TimelineResults::first_run`]): run 0's
/// counters, or with several runs the counters summed over the runs (so a count's mean is its
/// sum over the runs, and a share of the payments is pooled), and the cell's estimates.
struct Heights<'a> {
    /// Each cell's counters summed over the runs.
    sums: Vec<Counters>,
    /// The runs summed.
    runs: f64,
    report: &'a TimelineReport,
}

impl<'a> Heights<'a> {
    fn new(report: &'a TimelineReport) -> Self {
        let results = report.results();
        let cells = results.model.scenarios.len() * results.model.strategies.len();
        let mut sums = vec![Counters::default(); cells];
        for (index, row) in results.every_run().enumerate() {
            sums[index % cells] += row.counts;
        }
        Self {
            sums,
            runs: f64::from(results.model.runs),
            report,
        }
    }

    /// The mean per run of `count` in cell `cell`.
    fn mean(&self, cell: usize, count: impl Fn(&Counters) -> u64) -> f64 {
        count(&self.sums[cell]) as f64 / self.runs
    }

    /// Cell `cell`'s estimates, with several runs.
    fn estimates(&self, cell: usize) -> Option<CellEstimates<'a>> {
        self.report.estimates(cell)
    }
}

/// A 95% interval as a black error bar at `x`, from `low` to `high`, with caps.
fn error_bar(x: f64, low: f64, high: f64) -> [PathElement<(f64, f64)>; 3] {
    let cap = 0.12;
    let style = BLACK.stroke_width(2);
    [
        PathElement::new(vec![(x, low), (x, high)], style),
        PathElement::new(vec![(x - cap, low), (x + cap, low)], style),
        PathElement::new(vec![(x - cap, high), (x + cap, high)], style),
    ]
}

/// The error bars of `metric` over every cell that has estimates (none with one run), its
/// interval mapped through `scale`.
fn error_bars(
    layout: &Layout,
    heights: &Heights,
    metric: TimelineMetric,
    scale: impl Fn(f64) -> f64,
) -> Vec<PathElement<(f64, f64)>> {
    layout
        .rows
        .iter()
        .enumerate()
        .filter_map(|(cell, row)| {
            let interval = heights.estimates(cell)?.of(metric).interval?;
            let (a, b) = (scale(interval.low), scale(interval.high));
            Some(error_bar(layout.centre(row), a.min(b), a.max(b)))
        })
        .flatten()
        .collect()
}

/// The top of cell `cell`'s error bar of `metric` (through `scale`), or `value` when higher or
/// when there is none.
fn above(
    heights: &Heights,
    cell: usize,
    metric: TimelineMetric,
    value: f64,
    scale: impl Fn(f64) -> f64,
) -> f64 {
    heights
        .estimates(cell)
        .and_then(|estimates| estimates.of(metric).interval)
        .map_or(value, |interval| {
            value.max(scale(interval.low)).max(scale(interval.high))
        })
}

/// The line colour of a strategy.
pub(super) fn colour(strategy: Strategy) -> RGBColor {
    match strategy {
        Strategy::None => CHARGED_TWICE,
        Strategy::CheckThenInsert => CHECKED,
        Strategy::UniqueKey => KEYED,
    }
}

/// A strategy as written under its bar.
fn label(strategy: Strategy) -> &'static str {
    match strategy {
        Strategy::None => "none",
        Strategy::CheckThenInsert => "check then insert",
        Strategy::UniqueKey => "unique key",
    }
}

/// The run's parameters, printed under each title.
pub(super) fn parameters(results: &TimelineResults) -> String {
    let model = &results.model;
    let mut text = format!(
        "{} · seed {} · {} per scenario",
        model.title,
        model.seed,
        match model.payments {
            1 => "1 payment".to_string(),
            n => format!("{} payments", grouped(n)),
        }
    );
    if let [scenario] = &model.scenarios[..] {
        let client = &scenario.client;
        text.push_str(&format!(
            " · ACK loss {} · request loss {} · timeout {} ms · {} retries, {}",
            scenario.network.ack_loss,
            scenario.network.request_loss,
            client.timeout_ms,
            client.max_retries,
            client.backoff.describe()
        ));
    }
    if model.runs > 1 {
        text.push_str(&format!(" · run 0 of {}", model.runs));
    }
    text
}

/// The parameters under the title of a chart that draws means over the runs.
fn parameters_over_runs(results: &TimelineResults) -> String {
    let runs = results.model.runs;
    let text = parameters(results);
    match text.strip_suffix(&format!(" · run 0 of {runs}")) {
        Some(start) => format!("{start} · mean of {runs} runs, 95% CI"),
        None => text,
    }
}

/// Bars of run 0 laid out in groups of strategies, one group per scenario: bar `(i, j)` is
/// centred on `i × (strategies + 1) + j`.
pub(super) struct Layout<'a> {
    pub(super) rows: Vec<&'a TimelineRow>,
    strategies: usize,
    scenarios: usize,
    /// Strategy names at 9 px when there are more than nine bars.
    small_ticks: bool,
}

/// A [`strategy_chart`] of counts: its y labels whole numbers, grouped by thousands.
pub(super) fn count_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    layout: &Layout,
    top: f64,
    y_desc: &str,
) -> Result<LinearChart<'a, SVGBackend<'b>>, String> {
    strategy_chart(area, layout, top, y_desc, &|y| grouped(y.round() as u64))
}

/// The frame of the per-strategy bar charts: strategies (grouped by scenario) on x, `0..top`
/// on y with `y_desc` and `y_label`, in the house style.
pub(super) fn strategy_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    layout: &Layout,
    top: f64,
    y_desc: &str,
    y_label: &dyn Fn(&f64) -> String,
) -> Result<LinearChart<'a, SVGBackend<'b>>, String> {
    let mut chart = frame(area, layout.x_range(), 0f64..top, 16)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(layout.ticks())
        .x_label_formatter(&|x| layout.tick(*x))
        .x_desc("server strategy for the Idempotency-Key")
        .y_desc(y_desc)
        .y_label_formatter(y_label)
        .axis_desc_style((FONT, 16))
        .label_style((FONT, layout.tick_font()))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

impl<'a> Layout<'a> {
    /// With several scenarios, each one's name centred over its group of bars at height `y`.
    fn draw_scenario_titles(
        &self,
        chart: &mut LinearChart<'_, SVGBackend<'_>>,
        results: &TimelineResults,
        y: f64,
    ) -> Result<(), String> {
        if self.scenarios > 1 {
            chart
                .draw_series(self.scenario_centres().map(|(index, x)| {
                    scenario_title(results.model.scenarios[index].name.clone(), (x, y))
                }))
                .map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    /// The largest `value` of the rows drawn (0 for none).
    pub(super) fn highest(&self, value: impl Fn(&TimelineRow) -> f64) -> f64 {
        self.rows.iter().map(|row| value(row)).fold(0.0, f64::max)
    }

    pub(super) fn new(results: &'a TimelineResults) -> Self {
        Self {
            rows: results.first_run().collect(),
            strategies: results.model.strategies.len(),
            scenarios: results.model.scenarios.len(),
            small_ticks: false,
        }
    }

    /// The same with smaller strategy names under the bars, for charts of many groups.
    pub(super) fn with_small_ticks(mut self) -> Self {
        self.small_ticks = true;
        self
    }

    pub(super) fn centre(&self, row: &TimelineRow) -> f64 {
        let within = self
            .rows
            .iter()
            .filter(|other| other.scenario == row.scenario)
            .position(|other| other.strategy == row.strategy)
            .unwrap_or(0);
        (row.scenario * (self.strategies + 1) + within) as f64
    }

    fn x_range(&self) -> std::ops::Range<f64> {
        // The last bar of the last group is the rightmost; no gap after it.
        -0.6..(self.scenarios * (self.strategies + 1) - 2) as f64 + 0.6
    }

    /// The strategy under the bar centred on `x`, blank between bars.
    fn tick(&self, x: f64) -> String {
        self.rows
            .iter()
            .find(|row| (self.centre(row) - x).abs() < 1e-9)
            .map_or_else(String::new, |row| label(row.strategy).to_string())
    }

    fn ticks(&self) -> usize {
        self.scenarios * (self.strategies + 1) - 1
    }

    /// Where each scenario's name goes: above the middle of its group.
    pub(super) fn scenario_centres(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        (0..self.scenarios).map(move |index| {
            let first = (index * (self.strategies + 1)) as f64;
            (index, first + (self.strategies - 1) as f64 / 2.0)
        })
    }

    /// The scenarios drawn.
    pub(super) fn scenarios_drawn(&self) -> usize {
        self.scenarios
    }

    pub(super) fn tick_font(&self) -> u32 {
        if self.small_ticks && self.rows.len() > 9 {
            9
        } else if self.rows.len() > 6 {
            11
        } else {
            14
        }
    }
}

/// A scenario's name above its group of bars (its baseline at `at`).
fn scenario_title(text: String, at: (f64, f64)) -> Text<'static, (f64, f64), String> {
    bold_label(format!("scenario: {text}"), at, 16, BLACK)
}

pub(super) fn legend_box(colour: RGBColor) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled())
}

/// (1) Charges per strategy: the first charge of each payment and the extra charges on top,
/// with the number of payments charged twice or more.
pub fn charges(report: &TimelineReport) -> String {
    let results = report.results();
    let layout = Layout::new(results);
    let heights = Heights::new(report);
    let same = |y: f64| y;
    let total = |cell: usize| heights.mean(cell, |counts| counts.charges);
    let highest = (0..layout.rows.len())
        .map(|cell| above(&heights, cell, TimelineMetric::Charges, total(cell), same))
        .fold(0.0, f64::max)
        .max(1.0);
    // Room above the bars for their labels, the scenario names and the legend.
    let top = highest * 1.6;
    let parts: [BarPart; 2] = [
        (FIRST_CHARGE, "first charge of each payment", |counts| {
            counts.charges - counts.extra_charges
        }),
        (
            CHARGED_TWICE,
            "extra charges: the same payment charged again",
            |counts| counts.extra_charges,
        ),
    ];
    let payments = results.model.payments;
    svg(
        "Charges per server strategy: first charges and extra charges",
        &parameters_over_runs(results),
        |area| {
            let bars = (&layout, &heights, &parts[..]);
            let mut chart =
                stacked_counts(area, bars, top, "charges (count)", TimelineMetric::Charges)?;
            let size = layout.tick_font();
            chart
                .draw_series(layout.rows.iter().enumerate().flat_map(|(cell, row)| {
                    let x = layout.centre(row);
                    let charges = above(&heights, cell, TimelineMetric::Charges, total(cell), same);
                    let (double, all) = match heights.estimates(cell) {
                        Some(estimates) => (
                            estimated_count(estimates, TimelineMetric::DoubleCharged, payments),
                            format!(
                                "{} charges",
                                estimated_count(estimates, TimelineMetric::Charges, payments)
                            ),
                        ),
                        None => (
                            grouped(row.tally.counts.double_charged_payments),
                            match row.tally.counts.charges {
                                1 => "1 charge".to_string(),
                                n => format!("{} charges", grouped(n)),
                            },
                        ),
                    };
                    [
                        value_label(
                            format!("{double} double-charged"),
                            (x, charges + top * 0.005),
                            size - 2,
                        ),
                        value_label(all, (x, charges + top * 0.045), size),
                    ]
                }))
                .map_err(|e| e.to_string())?;
            layout.draw_scenario_titles(&mut chart, results, highest * 1.27)?;
            draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 14)
        },
    )
}

/// (2) How each payment ended for its customer. Most payments succeed, so a bar of all
/// outcomes would hide the ones a review is about: the bars stack the payments that did not
/// succeed, per 10,000 payments (charged although the client gave up, and not charged), and
/// the share that succeeded is written above each bar.
pub fn outcomes(report: &TimelineReport) -> String {
    let results = report.results();
    let layout = Layout::new(results);
    let heights = Heights::new(report);
    let per = 10_000.0;
    // The shares pooled over the runs (run 0's with one run).
    let failed = |cell: usize| {
        let counts = &heights.sums[cell];
        let whole = counts.payments.max(1) as f64;
        (
            counts.gave_up_charged as f64 * per / whole,
            counts.gave_up_not_charged as f64 * per / whole,
        )
    };
    // Every payment succeeds or gives up: the bar is the share that did not succeed, so its
    // interval is the succeeded share's, turned over.
    let not_succeeded = |share: f64| (1.0 - share) * per;
    let stacked = |cell: usize| {
        let (charged, not_charged) = failed(cell);
        above(
            &heights,
            cell,
            TimelineMetric::Succeeded,
            charged + not_charged,
            not_succeeded,
        )
    };
    let highest = (0..layout.rows.len()).map(stacked).fold(0.0, f64::max);
    // Room above the tallest bar for two label lines, the scenario names and the legend.
    let top = if highest > 0.0 { highest * 1.6 } else { 10.0 };
    svg(
        "How payments ended for the customer, per server strategy",
        &parameters_over_runs(results),
        |area| {
            let mut chart = strategy_chart(
                area,
                &layout,
                top,
                "payments that did not succeed, per 10,000",
                &|y| grouped_hundredths(*y),
            )?;
            let half = 0.36;
            let parts = [
                (
                    CHARGED_TWICE,
                    "gave up although charged (paid, told it failed)",
                ),
                (FIRST_CHARGE, "gave up, not charged"),
            ];
            // The labels above the bars, explained once.
            chart
                .draw_series(std::iter::empty::<Rectangle<(f64, f64)>>())
                .map_err(|e| e.to_string())?
                .label("above the bars: % succeeded (ok), % paid but told it failed (paid)")
                .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], WHITE.filled()));
            for (part, (colour, text)) in parts.into_iter().enumerate() {
                chart
                    .draw_series(layout.rows.iter().enumerate().map(|(cell, row)| {
                        let x = layout.centre(row);
                        let (charged, not_charged) = failed(cell);
                        let (low, high) = match part {
                            0 => (0.0, charged),
                            _ => (charged, charged + not_charged),
                        };
                        bar(x - half, x + half, low, high, colour)
                    }))
                    .map_err(|e| e.to_string())?
                    .label(text)
                    .legend(legend_box(colour));
            }
            chart
                .draw_series(error_bars(
                    &layout,
                    &heights,
                    TimelineMetric::Succeeded,
                    not_succeeded,
                ))
                .map_err(|e| e.to_string())?;
            // Above each bar: the share that succeeded ("ok", green) and the share charged
            // although the client gave up ("paid", red), in the colours they stand for.
            let line = top / 22.0;
            chart
                .draw_series(layout.rows.iter().enumerate().flat_map(|(cell, row)| {
                    let counts = &heights.sums[cell];
                    let percent = |count: u64| count as f64 * 100.0 / counts.payments.max(1) as f64;
                    let x = layout.centre(row);
                    let above = stacked(cell) + line * 0.3;
                    let share = |metric: TimelineMetric, count: u64| match heights.estimates(cell) {
                        Some(estimates) => plus_minus(metric.metric(), estimates.of(metric), 2),
                        None => format!("{:.2}", percent(count)),
                    };
                    [
                        bold_label(
                            format!(
                                "{}% paid",
                                share(TimelineMetric::GaveUpCharged, counts.gave_up_charged)
                            ),
                            (x, above),
                            12,
                            CHARGED_TWICE,
                        ),
                        bold_label(
                            format!("{}% ok", share(TimelineMetric::Succeeded, counts.succeeded)),
                            (x, above + line),
                            12,
                            ABSORBED,
                        ),
                    ]
                }))
                .map_err(|e| e.to_string())?;
            // Between the labels (up to about 0.72 of the height) and the legend (the top eighth).
            layout.draw_scenario_titles(&mut chart, results, top * 0.77)?;
            draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 14)
        },
    )
}

/// Points of the latency curve per factor of ten: enough for a smooth curve, few enough
/// for a small file.
const CURVE_POINTS_PER_DECADE: f64 = 100.0;

/// The cumulative share of payments by latency: `(latency ms, share at or below)`, the last
/// histogram bucket of every 1/100 decade.
fn cumulative(histogram: &LatencyHistogram) -> Vec<(f64, f64)> {
    let count = histogram.count().max(1) as f64;
    let bin = |ms: f64| (ms.max(1e-3).log10() * CURVE_POINTS_PER_DECADE).floor() as i64;
    let mut seen = 0;
    let mut points: Vec<(f64, f64)> = Vec::new();
    for (edge, n) in histogram.buckets() {
        seen += n;
        let point = (edge, seen as f64 / count);
        match points.last_mut() {
            Some(last) if bin(last.0) == bin(edge) => *last = point,
            _ => points.push(point),
        }
    }
    points
}

/// A chart whose x axis is a time on a log scale.
pub(super) type LogTimeChart<'a, 'b> = SvgChart<'a, 'b, LogCoord<f64>, RangedCoordf64>;

/// The frame of the charts against a time (ms) on a log scale: `x` across with `x_desc` and
/// `x_label`, `0..top` up with `y_desc` and `y_label`, in the house style with room on the
/// right for the last tick.
pub(super) fn log_time_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    x: std::ops::Range<f64>,
    top: f64,
    x_desc: &str,
    y_desc: &str,
    x_label: &dyn Fn(&f64) -> String,
    y_label: &dyn Fn(&f64) -> String,
) -> Result<LogTimeChart<'a, 'b>, String> {
    let mut chart = frame(area, x.log_scale(), 0f64..top, 40)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(x_label)
        .y_label_formatter(y_label)
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 14))
        .draw()
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

/// (3) Client latency to the final outcome: the cumulative distribution per scenario and
/// strategy on a log time axis, with p50 and p99 in the legend.
pub fn latency(results: &TimelineResults) -> String {
    let rows: Vec<&TimelineRow> = results.first_run().collect();
    let curves: Vec<Vec<(f64, f64)>> = rows
        .iter()
        .map(|row| cumulative(&row.tally.latency))
        .collect();
    let shortest = curves
        .iter()
        .filter_map(|curve| curve.first().map(|point| point.0))
        .fold(f64::INFINITY, f64::min);
    let longest = curves
        .iter()
        .filter_map(|curve| curve.last().map(|point| point.0))
        .fold(0.0, f64::max);
    let low = 10f64.powf((shortest.max(1e-3) / 1.5).log10().floor());
    let high = 10f64.powf((longest.max(low * 10.0) * 1.5).log10().ceil());
    let scenarios = results.model.scenarios.len();
    svg(
        "Client latency to the final outcome, per server strategy",
        &parameters(results),
        |area| {
            let mut chart = log_time_chart(
                area,
                low..high,
                1.0,
                "time from the first send to success or giving up (ms, log scale)",
                "share of payments done (%)",
                &|x| {
                    if *x >= 1.0 {
                        grouped(x.round() as u64)
                    } else {
                        format!("{x}")
                    }
                },
                &|y| format!("{:.0}%", y * 100.0),
            )?;
            // Wider lines first, so that identical curves stay visible beneath narrower ones.
            for (order, (row, curve)) in rows.iter().zip(&curves).enumerate() {
                let width = (rows.len() - order) as u32 + 1;
                let base = colour(row.strategy);
                let shade = if scenarios > 1 && row.scenario % 2 == 1 {
                    base.mix(0.55)
                } else {
                    base.mix(1.0)
                };
                // A step function: the share stays until the next bucket edge.
                let mut points = vec![(low, 0.0)];
                let mut previous = 0.0;
                for &(edge, share) in curve {
                    points.push((edge, previous));
                    points.push((edge, share));
                    previous = share;
                }
                points.push((high, previous));
                let quantile = |q| {
                    row.tally
                        .latency
                        .quantile_ms(q)
                        .map_or_else(|| "-".into(), |ms| format!("{ms:.0}"))
                };
                let name = if scenarios > 1 {
                    format!("{} · {}", results.scenario(row).name, row.strategy.name())
                } else {
                    row.strategy.name().to_string()
                };
                chart
                    .draw_series(LineSeries::new(points, shade.stroke_width(width)))
                    .map_err(|e| e.to_string())?
                    .label(format!(
                        "{name}: p50 {} ms, p99 {} ms",
                        quantile(0.5),
                        quantile(0.99)
                    ))
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], shade.stroke_width(3))
                    });
            }
            draw_legend(&mut chart, SeriesLabelPosition::LowerRight, 14)
        },
    )
}

/// Purple: 409 Conflict answers.
pub(super) const CONFLICTED: RGBColor = hue::VIOLET;
/// Brown: 500s, from a failed processing or replayed.
pub(super) const FAILED: RGBColor = hue::BROWN;
/// Pink: 422 answers to another body.
pub(super) const REJECTED: RGBColor = hue::PINK;

/// A segment of a stacked bar: its colour, legend text and count of a cell's counters.
type BarPart = (RGBColor, &'static str, fn(&Counters) -> u64);

/// A [`count_chart`] of stacked bars, `parts` of `heights` laid out by `layout`, with the
/// 95% intervals of `metric` (a count) on top.
fn stacked_counts<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, Shift>,
    (layout, heights, parts): (&Layout, &Heights, &[BarPart]),
    top: f64,
    y_desc: &str,
    metric: TimelineMetric,
) -> Result<LinearChart<'a, SVGBackend<'b>>, String> {
    let mut chart = count_chart(area, layout, top, y_desc)?;
    draw_stacked(&mut chart, layout, heights, parts)?;
    chart
        .draw_series(error_bars(layout, heights, metric, |y| y))
        .map_err(|e| e.to_string())?;
    Ok(chart)
}

/// One stacked bar per row of `layout`, `parts` from the axis up (their means per run), each
/// part in the legend.
fn draw_stacked<DB: DrawingBackend>(
    chart: &mut LinearChart<'_, DB>,
    layout: &Layout,
    heights: &Heights,
    parts: &[BarPart],
) -> Result<(), String> {
    let half = 0.36;
    for (part, &(colour, text, count)) in parts.iter().enumerate() {
        chart
            .draw_series(layout.rows.iter().enumerate().map(|(cell, row)| {
                let x = layout.centre(row);
                let counts = &heights.sums[cell];
                let below: u64 = parts[..part]
                    .iter()
                    .map(|(_, _, count)| count(counts))
                    .sum();
                bar(
                    x - half,
                    x + half,
                    below as f64 / heights.runs,
                    (below + count(counts)) as f64 / heights.runs,
                    colour,
                )
            }))
            .map_err(|e| e.to_string())?
            .label(text)
            .legend(legend_box(colour));
    }
    Ok(())
}

/// (4) What the server answered to the deliveries: every delivery is charged, fails with a
/// 500, is replayed (its own body's response or, without a fingerprint, another's), or is
/// answered 409, a replayed 500 or 422, so the stack is the deliveries.
/// For a webhook receiver: deliveries per event and processed events per duplicate answer.
pub fn answers(report: &TimelineReport) -> String {
    let results = report.results();
    let layout = Layout::new(results);
    let heights = Heights::new(report);
    let same = |y: f64| y;
    let total = |cell: usize| {
        let deliveries = heights.mean(cell, |counts| counts.deliveries);
        above(&heights, cell, TimelineMetric::Deliveries, deliveries, same)
    };
    let highest = (0..layout.rows.len())
        .map(total)
        .fold(0.0, f64::max)
        .max(1.0);
    // Room above the bars for their labels, the scenario names and the legend.
    let top = highest * 1.85;
    let parts: [BarPart; 7] = [
        (FIRST_CHARGE, "processed and charged", |counts| {
            counts.charges
        }),
        (CHARGED_TWICE, "processed, failed with a 500", |counts| {
            counts.server_errors
        }),
        (
            ABSORBED,
            "success replayed (200 to a duplicate)",
            |counts| counts.replays - counts.wrong_replays,
        ),
        (CHECKED, "wrong replay: another body's response", |counts| {
            counts.wrong_replays
        }),
        (CONFLICTED, "409 Conflict", |counts| counts.conflicts),
        (
            FAILED,
            "500 replayed or answered to a duplicate",
            |counts| counts.errors_replayed,
        ),
        (REJECTED, "422: another body under the key", |counts| {
            counts.rejected_mismatches
        }),
    ];
    svg(
        "What the server answered to each delivery, per server strategy",
        &parameters_over_runs(results),
        |area| {
            let bars = (&layout, &heights, &parts[..]);
            let mut chart = stacked_counts(
                area,
                bars,
                top,
                "deliveries (count)",
                TimelineMetric::Deliveries,
            )?;
            let size = layout.tick_font();
            chart
                .draw_series(layout.rows.iter().enumerate().map(|(cell, row)| {
                    let per_payment = match heights.estimates(cell) {
                        Some(estimates) => plus_minus(
                            TimelineMetric::DeliveriesPerPayment.metric(),
                            estimates.of(TimelineMetric::DeliveriesPerPayment),
                            2,
                        ),
                        None => format!("{:.2}", row.tally.counts.deliveries_per_payment()),
                    };
                    value_label(
                        format!("{per_payment} per payment"),
                        (layout.centre(row), total(cell) + top * 0.005),
                        size - 1,
                    )
                }))
                .map_err(|e| e.to_string())?;
            layout.draw_scenario_titles(&mut chart, results, highest * 1.12)?;
            draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 13)
        },
    )
}
