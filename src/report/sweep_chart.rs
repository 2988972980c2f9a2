//! A sweep's charts: one per headline metric of the model, the metric's estimate against the
//! first swept key, a line per cell (scenario, strategy, ...) and value of any further swept
//! key, its 95% interval as a band where the points ran more than once, on a log axis when the
//! swept values span more than two decades.

use plotters::prelude::*;

use crate::report::OutputFile;
use crate::report::chart_style::{
    FONT, LinearChart, band_outline, draw_legend, draw_marked_line, frame, hue,
};
use crate::report::summary::{Row, Summary};
use engine::metric::Kind;

/// The hues of the lines, in order; more lines than hues reuse them lighter.
const HUES: [RGBColor; 8] = [
    hue::BLUE,
    hue::ORANGE,
    hue::GREEN,
    hue::RED,
    hue::PURPLE,
    hue::BROWN,
    hue::PINK,
    hue::CYAN,
];

/// How the first swept key's values sit on the x axis.
#[derive(Debug, Clone, PartialEq)]
enum Across {
    /// Numbers, linear.
    Linear(Vec<f64>),
    /// Positive numbers over more than two decades: their base-10 logarithms.
    Log(Vec<f64>),
    /// Not all numbers: one evenly spaced place each, labelled as written.
    Categories(Vec<String>),
}

impl Across {
    /// The axis of the points' first labels.
    fn of(labels: &[&str]) -> Self {
        let numbers: Option<Vec<f64>> = labels.iter().map(|label| label.parse().ok()).collect();
        match numbers {
            Some(numbers) => {
                let low = numbers.iter().copied().fold(f64::INFINITY, f64::min);
                let high = numbers.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                if low > 0.0 && high / low > 100.0 {
                    Across::Log(numbers.iter().map(|x| x.log10()).collect())
                } else {
                    Across::Linear(numbers)
                }
            }
            None => Across::Categories(labels.iter().map(|label| label.to_string()).collect()),
        }
    }

    /// The place of point `index` on the axis.
    fn place(&self, index: usize) -> f64 {
        match self {
            Across::Linear(values) | Across::Log(values) => values[index],
            Across::Categories(_) => index as f64,
        }
    }

    /// The axis' range, with a margin.
    fn range(&self) -> std::ops::Range<f64> {
        let places: Vec<f64> = match self {
            Across::Linear(values) | Across::Log(values) => values.clone(),
            Across::Categories(names) => (0..names.len()).map(|index| index as f64).collect(),
        };
        let low = places.iter().copied().fold(f64::INFINITY, f64::min);
        let high = places.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let margin = if high > low { (high - low) * 0.04 } else { 0.5 };
        (low - margin)..(high + margin)
    }

    /// The tick label at `place`.
    fn label(&self, place: f64) -> String {
        match self {
            Across::Linear(_) => trimmed(place),
            // Whole decades only.
            Across::Log(_) if (place - place.round()).abs() < 1e-9 => trimmed(10f64.powf(place)),
            Across::Log(_) => String::new(),
            Across::Categories(names) => {
                let index = place.round();
                if (place - index).abs() < 1e-9 && index >= 0.0 && (index as usize) < names.len() {
                    names[index as usize].clone()
                } else {
                    String::new()
                }
            }
        }
    }
}

/// A tick number without trailing zeros.
fn trimmed(value: f64) -> String {
    let text = format!("{value:.6}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

/// A point of a line: its x place, the estimate's mean and its 95% interval (low, high).
type LinePoint = (f64, f64, Option<(f64, f64)>);

/// One line: its name and, per point of the first key, the estimate's mean and interval.
#[derive(Debug, Clone, PartialEq)]
struct Line {
    /// Cell labels and further keys' values, joined.
    name: String,
    /// (x place, mean, interval low, interval high) per point the line has.
    points: Vec<LinePoint>,
}

/// A value of the first swept key worth marking on its axis, e.g. the clients' retry window
/// on a key-TTL axis: its label and its value in the key's unit.
pub type Mark = (String, f64);

/// One chart per metric of `headline` (by column name, in order) that the points' summaries
/// hold: `sweep_<metric>.svg`. `points` are the sweep's points in grid order, each its
/// labels (one per key of `keys`) and its summary; `label` names the run (config file and
/// seed) in the subtitle; `marks` are drawn as dashed lines on a
/// numeric axis. Nothing when the first key has one value.
pub fn charts(
    label: &str,
    keys: &[String],
    points: &[(Vec<String>, Summary)],
    headline: &[&str],
    marks: &[Mark],
) -> Vec<OutputFile> {
    let firsts: Vec<&str> = unique(points.iter().map(|(labels, _)| labels[0].as_str()));
    if firsts.len() < 2 {
        return Vec::new();
    }
    let across = Across::of(&firsts);
    headline
        .iter()
        .filter_map(|&metric| {
            let rows = metric_rows(points, metric);
            let first = rows.first()?.1;
            let lines = lines(&rows, &firsts, &across, first.metric.kind);
            let svg = chart(label, keys, &across, &lines, first, marks);
            Some(OutputFile::new(format!("sweep_{metric}.svg"), svg))
        })
        .collect()
}

/// The summary rows of `metric` (by column name) at every point, each with its point's
/// labels, in the order of `points`.
fn metric_rows<'a>(
    points: &'a [(Vec<String>, Summary)],
    metric: &str,
) -> Vec<(&'a [String], &'a Row)> {
    points
        .iter()
        .flat_map(|(labels, summary)| {
            summary
                .rows
                .iter()
                .filter(move |row| row.metric.column.name == metric)
                .map(move |row| (labels.as_slice(), row))
        })
        .collect()
}

/// The distinct values of `items`, in first-seen order.
fn unique<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen
}

/// The lines of one metric's rows: one per cell and value of the keys after the first.
fn lines(rows: &[(&[String], &Row)], firsts: &[&str], across: &Across, kind: Kind) -> Vec<Line> {
    // Shares are drawn as percentages.
    let scale = match kind {
        Kind::Proportion => 100.0,
        Kind::Mean => 1.0,
    };
    let mut lines: Vec<Line> = Vec::new();
    for (labels, row) in rows {
        let name = row
            .cell
            .iter()
            .chain(&labels[1..])
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" · ");
        let index = firsts
            .iter()
            .position(|first| *first == labels[0])
            .expect("every point's first label is among the firsts");
        let estimate = &row.estimate;
        let point = (
            across.place(index),
            estimate.mean * scale,
            estimate
                .interval
                // A share's score interval holds for one run too (its units are
                // independent); a mean over one run has none worth drawing.
                .filter(|_| estimate.runs > 1 || kind == Kind::Proportion)
                .map(|interval| (interval.low * scale, interval.high * scale)),
        );
        match lines.iter_mut().find(|line| line.name == name) {
            Some(line) => line.points.push(point),
            None => lines.push(Line {
                name,
                points: vec![point],
            }),
        }
    }
    lines
}

/// The SVG of one metric's lines.
fn chart(
    label: &str,
    keys: &[String],
    across: &Across,
    lines: &[Line],
    first: &Row,
    marks: &[Mark],
) -> String {
    let column = first.metric.column;
    let (unit, kind_text) = match first.metric.kind {
        Kind::Proportion => (format!("% of {}", column.unit), "share"),
        Kind::Mean => (column.unit.to_string(), "mean per run"),
    };
    let highest = lines
        .iter()
        .flat_map(|line| &line.points)
        .map(|&(_, mean, interval)| interval.map_or(mean, |(_, high)| high.max(mean)))
        .fold(0.0, f64::max);
    let lowest = lines
        .iter()
        .flat_map(|line| &line.points)
        .map(|&(_, mean, interval)| interval.map_or(mean, |(low, _)| low.min(mean)))
        .fold(0.0, f64::min);
    let top = if highest > 0.0 { highest * 1.35 } else { 1.0 };
    let runs = first.estimate.runs;
    let subtitle = format!(
        "{label} · {} per point ({kind_text}){}{}",
        if runs == 1 {
            "1 run".to_string()
        } else {
            format!("{runs} runs")
        },
        if lines
            .iter()
            .flat_map(|line| &line.points)
            .any(|point| point.2.is_some())
        {
            ", bands: 95% interval"
        } else {
            ""
        },
        if keys.len() > 1 {
            format!("; lines also by {}", keys[1..].join(", "))
        } else {
            String::new()
        }
    );
    let log = matches!(across, Across::Log(_));
    let x_desc = format!("{}{}", keys[0], if log { " (log scale)" } else { "" });
    crate::report::chart_style::svg(
        &format!("{} against {}", column.name, keys[0]),
        &subtitle,
        |area| {
            let mut chart: LinearChart<_> = frame(area, across.range(), lowest..top, 40)?;
            let x_label = |place: &f64| across.label(*place);
            let y_label = |value: &f64| trimmed(*value);
            let ticks = match across {
                Across::Categories(names) => names.len() * 2 + 1,
                Across::Log(values) => {
                    // One tick per whole decade.
                    let span = values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                        - values.iter().copied().fold(f64::INFINITY, f64::min);
                    span.ceil() as usize + 1
                }
                // Whole numbers over a short span: one tick each.
                Across::Linear(values)
                    if values.iter().all(|value| value.fract() == 0.0)
                        && values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                            - values.iter().copied().fold(f64::INFINITY, f64::min)
                            <= 20.0 =>
                {
                    let span = values.iter().copied().fold(f64::NEG_INFINITY, f64::max)
                        - values.iter().copied().fold(f64::INFINITY, f64::min);
                    span as usize + 1
                }
                Across::Linear(_) => 10,
            };
            chart
                .configure_mesh()
                .x_desc(x_desc.as_str())
                .y_desc(format!("{} ({unit})", column.name))
                .x_labels(ticks)
                .x_label_formatter(&x_label)
                .y_label_formatter(&y_label)
                .light_line_style(crate::report::chart_style::GRID)
                .axis_desc_style((FONT, 16))
                .label_style((FONT, 14))
                .draw()
                .map_err(|e| e.to_string())?;
            draw_marks(&mut chart, across, marks, highest.max(lowest))?;
            for (index, line) in lines.iter().enumerate() {
                let base = HUES[index % HUES.len()];
                let colour = if (index / HUES.len()) % 2 == 1 {
                    mix_white(base)
                } else {
                    base
                };
                draw_band(&mut chart, line, colour)?;
                let points: Vec<(f64, f64)> =
                    line.points.iter().map(|&(x, mean, _)| (x, mean)).collect();
                draw_marked_line(&mut chart, &points, (colour, 2), &line.name, 18)?;
            }
            draw_legend(&mut chart, SeriesLabelPosition::UpperRight, 13)
        },
    )
}

/// Each mark inside the axis' range as a dashed grey line with its label above it.
fn draw_marks<'a, DB: DrawingBackend + 'a>(
    chart: &mut LinearChart<'a, DB>,
    across: &Across,
    marks: &[Mark],
    highest: f64,
) -> Result<(), String> {
    let range = across.range();
    let grey = hue::DARK_GREY;
    for (index, (label, value)) in marks.iter().enumerate() {
        let place = match across {
            Across::Linear(_) => *value,
            Across::Log(_) if *value > 0.0 => value.log10(),
            Across::Log(_) | Across::Categories(_) => continue,
        };
        if !range.contains(&place) {
            continue;
        }
        let top = highest.max(f64::MIN_POSITIVE) * 1.08;
        chart
            .draw_series(DashedLineSeries::new(
                [(place, 0.0), (place, top)],
                6,
                4,
                grey.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(std::iter::once(Text::new(
                label.clone(),
                (place, top * (1.01 + 0.06 * index as f64)),
                (FONT, 14)
                    .into_font()
                    .color(&grey)
                    .pos(plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Bottom,
                    )),
            )))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// `colour` halfway to white: the second round of hues.
pub(crate) fn mix_white(colour: RGBColor) -> RGBColor {
    let half = |channel: u8| ((u16::from(channel) + 255) / 2) as u8;
    RGBColor(half(colour.0), half(colour.1), half(colour.2))
}

/// The line's interval as a translucent band, where its points have one.
fn draw_band<'a, DB: DrawingBackend + 'a>(
    chart: &mut LinearChart<'a, DB>,
    line: &Line,
    colour: RGBColor,
) -> Result<(), String> {
    let with: Vec<(f64, f64, f64)> = line
        .points
        .iter()
        .filter_map(|&(x, _, interval)| interval.map(|(low, high)| (x, low, high)))
        .collect();
    if with.len() < 2 {
        // A single interval: an error bar.
        for (x, low, high) in with {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, low), (x, high)],
                    colour.stroke_width(2),
                )))
                .map_err(|e| e.to_string())?;
        }
        return Ok(());
    }
    let outline = band_outline(&with);
    chart
        .draw_series(std::iter::once(Polygon::new(outline, colour.mix(0.18))))
        .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::summary::test_columns::{STRATEGY, metrics};
    use crate::report::summary::{Observation, SummaryBuilder};

    /// A summary of two strategies over `runs` runs whose double charges are `charged` of
    /// 1,000 payments in every run.
    fn summary(runs: u32, charged: [u64; 2]) -> Summary {
        let mut builder = SummaryBuilder::new(vec![STRATEGY], &["strategy"], metrics());
        for run in 0..runs {
            let cells = ["none", "unique_key"]
                .iter()
                .zip(charged)
                .map(|(name, charged)| {
                    (
                        vec![name.to_string()],
                        vec![
                            Observation::Share {
                                with_property: charged + u64::from(run % 2),
                                units: 1000,
                            },
                            Observation::Value(100.0 + f64::from(run)),
                        ],
                    )
                })
                .collect();
            builder.run(cells);
        }
        builder.finish()
    }

    fn keys() -> Vec<String> {
        vec!["client.timeout_ms".to_string()]
    }

    /// Two points, 500 and 1000 ms, of `runs` runs: 50 and 20 of 1,000 charged twice without
    /// a key, 1 and 0 with one.
    fn two_points(runs: u32) -> Vec<(Vec<String>, Summary)> {
        vec![
            (vec!["500".to_string()], summary(runs, [50, 1])),
            (vec!["1000".to_string()], summary(runs, [20, 0])),
        ]
    }

    #[test]
    fn one_chart_per_headline_metric_the_summaries_hold() {
        let points = two_points(3);
        let files = charts(
            "t.toml · seed 42",
            &keys(),
            &points,
            &["double_charged", "absent", "latency_ms"],
            &[("retry window 700 ms".to_string(), 700.0)],
        );
        let names: Vec<&str> = files.iter().map(|file| file.name.as_ref()).collect();
        assert_eq!(names, ["sweep_double_charged.svg", "sweep_latency_ms.svg"]);
        let svg = String::from_utf8(files[0].bytes.clone()).unwrap();
        assert!(svg.contains("double_charged against client.timeout_ms"));
        // Two lines, each with a band (three runs: intervals exist).
        assert_eq!(svg.matches("<polygon").count(), 2, "{svg}");
        assert!(svg.contains("retry window 700 ms"));
        // One run: no bands for a mean; a share keeps its Wilson band.
        let single = two_points(1);
        let svg = charts(
            "t.toml · seed 42",
            &keys(),
            &single,
            &["double_charged", "latency_ms"],
            &[],
        )
        .iter()
        .map(|file| String::from_utf8(file.bytes.clone()).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
        let (share, latency) = svg.split_once("</svg>").unwrap();
        assert_eq!(share.matches("<polygon").count(), 2);
        assert_eq!(latency.matches("<polygon").count(), 0);
    }

    #[test]
    fn lines_hold_each_cells_mean_per_point_shares_in_percent() {
        let points = two_points(1);
        let rows = metric_rows(&points, "double_charged");
        let across = Across::of(&["500", "1000"]);
        let lines = lines(&rows, &["500", "1000"], &across, Kind::Proportion);
        // 50 of 1,000 is 5%, 20 of 1,000 is 2%.
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].name, "none");
        let means = |line: &Line| -> Vec<(f64, f64)> {
            line.points.iter().map(|&(x, mean, _)| (x, mean)).collect()
        };
        assert_eq!(means(&lines[0]), [(500.0, 5.0), (1000.0, 2.0)]);
        assert_eq!(means(&lines[1]), [(500.0, 0.1), (1000.0, 0.0)]);
        // The Wilson interval of 50 of 1,000 (z = 1.96), by hand: 3.81% to 6.53%.
        let (low, high) = lines[0].points[0].2.unwrap();
        assert!(
            (low - 3.813).abs() < 0.01 && (high - 6.531).abs() < 0.01,
            "{low} {high}"
        );
    }

    #[test]
    fn the_axis_is_logarithmic_beyond_two_decades_and_categorical_for_words() {
        assert_eq!(
            Across::of(&["1", "50", "100"]),
            Across::Linear(vec![1.0, 50.0, 100.0])
        );
        assert_eq!(
            Across::of(&["1", "10", "1000"]),
            Across::Log(vec![0.0, 1.0, 3.0])
        );
        assert_eq!(
            Across::of(&["0", "10", "1000"]),
            Across::Linear(vec![0.0, 10.0, 1000.0])
        );
        let words = Across::of(&["retry", "fail"]);
        assert_eq!(words.label(1.0), "fail");
        assert_eq!(words.label(0.5), "");
        let log = Across::of(&["1", "10", "1000"]);
        assert_eq!(log.label(2.0), "100");
        assert_eq!(log.label(2.5), "");
        assert_eq!(Across::of(&["1", "2"]).label(1.5), "1.5");
    }

    #[test]
    fn one_value_of_the_first_key_draws_nothing() {
        let points = vec![(vec!["500".to_string()], summary(2, [50, 1]))];
        assert!(
            charts(
                "t.toml · seed 42",
                &keys(),
                &points,
                &["double_charged"],
                &[]
            )
            .is_empty()
        );
    }
}
