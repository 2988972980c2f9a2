//! The charts draw their data: each SVG is parsed (it must be well-formed XML) and its data
//! marks measured, shapes drawn in a data colour outside the legend box, and checked against
//! the results they show. The check is shown to reject charts whose data were removed, and
//! the charts are shown to be the same bytes on any thread count. (That the committed charts
//! under `output/` are this build's is CI's regeneration, `.ci/run`.)
//!
//! The house style (src/report/chart_style.rs) draws frames, grids, axes and text in greys
//! (black, #222222, #555555, #F0F0F0, white) and every series in a colour; the legend sits in
//! a white box drawn at 90 % opacity.

use std::path::Path;

use crate::common::{SCENARIOS, article_model, run_model, scenario_file};
use engine::Silent;
use simulate::model::article::server::ServerKind;
use simulate::model::article::summary::summarise;
use simulate::model::article::{self as model, Engine};
use simulate::model::timeline;
use simulate::report::OutputFile;
use simulate::report::article::{charts, sweep_charts};
use simulate::report::chart_style::SIZE;

/// Data ink a chart needs at least, in square pixels (a 10 x 10 square; a 1-pixel line of
/// 100 pixels).
const MIN_DATA_INK: f64 = 100.0;

fn article(ack_loss: Vec<f64>, runs: u32) -> model::ArticleResults {
    experiment(ack_loss, runs, 10_000)
}

fn experiment(ack_loss: Vec<f64>, runs: u32, requests: u64) -> model::ArticleResults {
    let mut model = article_model(42, requests, 20, &ack_loss);
    model.runs = runs;
    run_model(&model, Engine::Fast { threads: 2 })
}

/// A shape drawn in a data colour, outside the legend.
#[derive(Debug)]
struct Mark {
    colour: String,
    /// Bounding box: left, top, right, bottom, in pixels.
    bounds: [f64; 4],
    /// Area (filled shapes) or length times stroke width (lines), in square pixels.
    ink: f64,
    /// Where the element is in the SVG text, in bytes.
    range: std::ops::Range<usize>,
}

/// Whether `colour` (`#RRGGBB`) is a data colour: not one of the greys of the frame.
fn is_data_colour(colour: &str) -> bool {
    let hex = colour.trim_start_matches('#');
    hex.len() == 6 && !(hex[0..2] == hex[2..4] && hex[2..4] == hex[4..6])
}

fn number(node: roxmltree::Node, attribute: &str) -> f64 {
    node.attribute(attribute)
        .and_then(|text| text.parse().ok())
        .unwrap_or(0.0)
}

/// The points of a `polyline` or `polygon`.
fn points(node: roxmltree::Node) -> Vec<(f64, f64)> {
    node.attribute("points")
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|pair| {
            let (x, y) = pair.split_once(',')?;
            Some((x.parse().ok()?, y.parse().ok()?))
        })
        .collect()
}

/// A shape's bounding box and ink (see [`Mark`]).
fn measure(node: roxmltree::Node) -> Option<([f64; 4], f64)> {
    let stroke = number(node, "stroke-width").max(1.0);
    match node.tag_name().name() {
        "rect" => {
            let (x, y) = (number(node, "x"), number(node, "y"));
            let (width, height) = (number(node, "width"), number(node, "height"));
            Some(([x, y, x + width, y + height], width * height))
        }
        "circle" => {
            let (x, y, r) = (number(node, "cx"), number(node, "cy"), number(node, "r"));
            Some(([x - r, y - r, x + r, y + r], std::f64::consts::PI * r * r))
        }
        "line" => {
            let (x1, y1) = (number(node, "x1"), number(node, "y1"));
            let (x2, y2) = (number(node, "x2"), number(node, "y2"));
            let bounds = [x1.min(x2), y1.min(y2), x1.max(x2), y1.max(y2)];
            Some((bounds, (x2 - x1).hypot(y2 - y1) * stroke))
        }
        "polyline" | "polygon" => {
            let points = points(node);
            let (first, _) = points.split_first()?;
            let mut bounds = [first.0, first.1, first.0, first.1];
            for &(x, y) in &points {
                bounds = [
                    bounds[0].min(x),
                    bounds[1].min(y),
                    bounds[2].max(x),
                    bounds[3].max(y),
                ];
            }
            let length: f64 = points
                .windows(2)
                .map(|pair| (pair[1].0 - pair[0].0).hypot(pair[1].1 - pair[0].1))
                .sum();
            Some((bounds, length * stroke))
        }
        _ => None,
    }
}

/// The data marks of a chart; panics if it is not well-formed SVG.
fn data_marks(name: &str, svg: &[u8]) -> Vec<Mark> {
    let text = std::str::from_utf8(svg).unwrap_or_else(|error| panic!("{name}: {error}"));
    let document = roxmltree::Document::parse(text)
        .unwrap_or_else(|error| panic!("{name} is not well-formed SVG: {error}"));
    assert_eq!(document.root_element().tag_name().name(), "svg", "{name}");
    let legends = legend_boxes(svg);
    let in_legend = |bounds: &[f64; 4]| {
        legends.iter().any(|legend| {
            bounds[0] >= legend[0]
                && bounds[1] >= legend[1]
                && bounds[2] <= legend[2]
                && bounds[3] <= legend[3]
        })
    };
    document
        .descendants()
        .filter_map(|node| {
            let colour = [node.attribute("fill"), node.attribute("stroke")]
                .into_iter()
                .flatten()
                .find(|colour| is_data_colour(colour))?;
            let (bounds, ink) = measure(node)?;
            Some(Mark {
                colour: colour.to_string(),
                bounds,
                ink,
                range: node.range(),
            })
            .filter(|mark| !in_legend(&mark.bounds))
        })
        .collect()
}

/// The total ink of a chart's data marks, in square pixels.
fn data_ink(name: &str, svg: &[u8]) -> f64 {
    data_marks(name, svg).iter().map(|mark| mark.ink).sum()
}

/// Checks that a chart draws data: at least [`MIN_DATA_INK`] inside the canvas, and the
/// parameters (seed 42) under its title.
fn assert_draws_data(name: &str, svg: &[u8]) {
    assert_draws_data_of_seed(name, svg, 42);
}

/// The canvas of a chart (width, height in pixels): [`SIZE`] unless its `svg` element says
/// otherwise (the load model's sweep chart grows with its strategies).
fn canvas(svg: &[u8]) -> (f64, f64) {
    let text = std::str::from_utf8(svg).unwrap();
    let document = roxmltree::Document::parse(text).unwrap();
    let root = document.root_element();
    let size = |attribute, default: u32| {
        root.attribute(attribute)
            .and_then(|value| value.parse().ok())
            .unwrap_or(f64::from(default))
    };
    (size("width", SIZE.0), size("height", SIZE.1))
}

/// [`assert_draws_data`] of a chart whose parameters name `seed`.
fn assert_draws_data_of_seed(name: &str, svg: &[u8], seed: u64) {
    let marks = data_marks(name, svg);
    let ink: f64 = marks.iter().map(|mark| mark.ink).sum();
    assert!(
        ink >= MIN_DATA_INK,
        "{name} draws almost no data ({ink:.0} px² in {} marks)",
        marks.len()
    );
    let (width, height) = canvas(svg);
    for mark in &marks {
        let [left, top, right, bottom] = mark.bounds;
        assert!(
            left >= 0.0 && top >= 0.0 && right <= width && bottom <= height,
            "{name}: a mark outside the canvas: {mark:?}"
        );
    }
    let text = std::str::from_utf8(svg).unwrap();
    assert!(
        text.contains(&format!("seed {seed}")),
        "{name} lacks the parameters"
    );
}

/// The article charts and the sweep charts of `results`.
fn every_chart(results: &model::ArticleResults) -> Vec<OutputFile> {
    let mut files = charts::all(results);
    files.extend(sweep_charts::all(results, &summarise(results)));
    files
}

#[test]
fn article_charts_draw_their_data() {
    for file in every_chart(&article(vec![0.01, 0.05, 0.1], 1)) {
        assert_draws_data(&file.name, &file.bytes);
    }
}

/// The red bars of double_charges.svg are as tall as the counts of customers charged twice:
/// one per p, in order, all at one scale (to the pixel).
#[test]
fn double_charge_bars_are_as_tall_as_the_counts() {
    let results = article(vec![0.01, 0.05, 0.1, 0.3], 1);
    let counts: Vec<f64> = results
        .points
        .iter()
        .map(|point| {
            point
                .server(ServerKind::NonIdempotent)
                .double_charged_requests as f64
        })
        .collect();
    let chart = charts::all(&results)
        .into_iter()
        .find(|file| file.name == "double_charges.svg")
        .unwrap();
    let mut bars: Vec<Mark> = data_marks(&chart.name, &chart.bytes)
        .into_iter()
        .filter(|mark| mark.colour == "#D62728")
        .collect();
    bars.sort_by(|a, b| a.bounds[0].total_cmp(&b.bounds[0]));
    assert_eq!(bars.len(), counts.len(), "one red bar per p: {bars:?}");
    let heights: Vec<f64> = bars
        .iter()
        .map(|bar| bar.bounds[3] - bar.bounds[1])
        .collect();
    let scale = heights[3] / counts[3];
    for (height, count) in heights.iter().zip(&counts) {
        assert!(
            (height - count * scale).abs() <= 1.0,
            "heights {heights:?} are not proportional to the counts {counts:?}"
        );
    }
    assert!(heights.iter().all(|&height| height > 10.0), "{heights:?}");
}

#[test]
fn many_p_values_still_draw_their_data() {
    let ack_loss: Vec<f64> = (0..=30).map(|k| f64::from(k) / 100.0).collect();
    for file in every_chart(&article(ack_loss, 1)) {
        assert_draws_data(&format!("sweep_{}", file.name), &file.bytes);
    }
}

/// The sweep charts at the ends of their range: one p value and one run; 300 p values of one
/// run (wide intervals, dense markers); 31 p values of 1,000 runs (narrow intervals).
#[test]
fn sweep_charts_draw_from_one_to_many_p_values_and_runs() {
    let cases = [
        ("one", experiment(vec![0.05], 1, 10_000)),
        (
            "dense",
            experiment((1..=300).map(|k| f64::from(k) / 1000.0).collect(), 1, 2_000),
        ),
        (
            "runs",
            experiment((0..=30).map(|k| f64::from(k) / 100.0).collect(), 1_000, 200),
        ),
    ];
    for (case, results) in &cases {
        for file in sweep_charts::all(results, &summarise(results)) {
            assert_draws_data(&format!("{case}_{}", file.name), &file.bytes);
        }
    }
}

/// The files of a shipped timeline scenario, simulated with `payments` payments (the file's
/// own number if `None`) on `threads` threads.
fn timeline_files(file: &str, payments: Option<u64>, threads: usize) -> Vec<OutputFile> {
    let path = scenario_file(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let overrides = simulate::config::Overrides {
        threads: Some(threads),
        ..Default::default()
    };
    let Ok(simulate::config::Job::Timeline(mut config)) =
        simulate::config::Job::from_text(&text, &path, &overrides)
    else {
        panic!("{file} is a timeline file")
    };
    if let Some(payments) = payments {
        config.model.payments = payments;
    }
    let results = timeline::simulate(&config.model, threads, &Silent).unwrap();
    let report = simulate::report::timeline::TimelineReport::new(results);
    simulate::report::Report::files(&report)
}

/// The charts among [`timeline_files`].
fn timeline_charts(file: &str, payments: Option<u64>, threads: usize) -> Vec<OutputFile> {
    timeline_files(file, payments, threads)
        .into_iter()
        // The traces are sequence diagrams, not charts of the results: tests/traces.rs.
        .filter(|file| file.name.ends_with(".svg") && !file.name.starts_with("trace_"))
        .collect()
}

/// Payments that did not succeed (`gave_up_charged + gave_up_not_charged`), in all rows of a
/// timeline.csv: what timeline_outcomes.svg draws.
fn failed_payments(timeline_csv: &[u8]) -> u64 {
    let mut reader = csv::Reader::from_reader(timeline_csv);
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|header| header == name).unwrap();
    let (charged, not_charged) = (column("gave_up_charged"), column("gave_up_not_charged"));
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            record[charged].parse::<u64>().unwrap() + record[not_charged].parse::<u64>().unwrap()
        })
        .sum()
}

#[test]
fn timeline_charts_draw_their_data() {
    for file in SCENARIOS {
        let payments = if file == "same-key-burst.toml" {
            1
        } else {
            2_000
        };
        let stem = file.trim_end_matches(".toml");
        let files = timeline_files(file, Some(payments), 2);
        let csv = files
            .iter()
            .find(|file| file.name == "timeline.csv")
            .unwrap();
        let failed = failed_payments(&csv.bytes);
        let charts = files
            .iter()
            .filter(|file| file.name.ends_with(".svg") && !file.name.starts_with("trace_"));
        for chart in charts {
            let name = format!("{stem}_{}", chart.name);
            if chart.name == "timeline_outcomes.svg" && failed == 0 {
                // Every payment succeeded: the bars of failures have no height.
                assert_eq!(data_ink(&name, &chart.bytes), 0.0, "{name}");
                continue;
            }
            assert_draws_data(&name, &chart.bytes);
        }
    }
}

/// Removes the data marks (outside the legend) from an SVG: the frame, axes, texts and legend
/// are left, as in a chart that lost its data.
fn without_data(name: &str, svg: &[u8]) -> Vec<u8> {
    let mut bytes = svg.to_vec();
    let mut marks = data_marks(name, svg);
    marks.sort_by_key(|mark| std::cmp::Reverse(mark.range.start));
    for mark in marks {
        bytes.drain(mark.range);
    }
    bytes
}

/// The check fails on a chart with axes, texts and a legend but no data: every chart of the
/// article's run, of a sweep, and of every timeline scenario, with its data marks removed.
#[test]
fn the_data_check_rejects_charts_without_data() {
    let mut charts = every_chart(&article(vec![0.01, 0.05, 0.1], 1));
    charts.extend(every_chart(&article(
        (0..=30).map(|k| f64::from(k) / 100.0).collect(),
        1,
    )));
    for file in SCENARIOS {
        charts.extend(timeline_charts(file, Some(2_000), 2));
    }
    for chart in charts {
        let emptied = without_data(&chart.name, &chart.bytes);
        let text = String::from_utf8(emptied.clone()).unwrap();
        assert!(
            text.contains("<polyline") && text.contains("<text") && text.contains("seed 42"),
            "{}: the frame and texts are left",
            chart.name
        );
        let ink = data_ink(&chart.name, &emptied);
        assert!(ink < MIN_DATA_INK, "{}: {ink} px² left", chart.name);
        let rejected = std::panic::catch_unwind(|| assert_draws_data(&chart.name, &emptied));
        assert!(rejected.is_err(), "{} without data passed", chart.name);
    }
}

/// Charts drawn from results without data (no p value at all) are rejected too.
#[test]
fn the_data_check_rejects_charts_of_empty_results() {
    let mut results = article(vec![0.05], 1);
    results.points.clear();
    results.model.ack_loss.clear();
    for chart in charts::all(&results) {
        assert_eq!(data_ink(&chart.name, &chart.bytes), 0.0, "{}", chart.name);
        let rejected = std::panic::catch_unwind(|| assert_draws_data(&chart.name, &chart.bytes));
        assert!(rejected.is_err(), "{} without data passed", chart.name);
    }
}

/// The charts of the article's run (drawn on 1 and on 7 threads) and of every timeline
/// scenario (on 1 and 2 threads) are the same bytes on every thread count.
#[test]
fn charts_are_byte_identical_for_any_thread_count() {
    let model = article_model(42, 10_000, 20, &[0.01, 0.05, 0.1]);
    let one = every_chart(&run_model(&model, Engine::Fast { threads: 1 }));
    let seven = every_chart(&run_model(&model, Engine::Fast { threads: 7 }));
    assert_eq!(one.len(), seven.len());
    for (a, b) in one.iter().zip(&seven) {
        assert_eq!(a.name, b.name);
        assert!(a.bytes == b.bytes, "{} differs on 7 threads", a.name);
    }
    for scenario in SCENARIOS {
        let one = timeline_charts(scenario, None, 1);
        let two = timeline_charts(scenario, None, 2);
        assert_eq!(one.len(), two.len(), "{scenario}");
        for (a, b) in one.iter().zip(&two) {
            assert_eq!(a.name, b.name);
            assert!(
                a.bytes == b.bytes,
                "{scenario}: {} differs on 2 threads",
                a.name
            );
        }
    }
}

/// The contention charts of a small run through the binary draw their data.
#[test]
fn contention_charts_draw_their_data() {
    let folder = tempfile::TempDir::new().unwrap();
    let config = folder.path().join("race.toml");
    std::fs::write(
        &config,
        "model = \"contention\"\nclients = [2, 8, 16]\nruns = 5\n",
    )
    .unwrap();
    let out = folder.path().join("out");
    crate::common::simulate()
        .args(["--quiet", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .assert()
        .success();
    for name in ["calls.svg", "completion_time.svg"] {
        let svg = std::fs::read(out.join(name)).unwrap();
        assert_draws_data(name, &svg);
    }
}

/// A small load experiment through the binary, seed 42: three scenarios (an odd count: the
/// last row of panels is half empty), two workers losing one between 2 s and 4 s when
/// `trigger`, plenty of workers, three workers), two strategies and a sweep of three error
/// rates. Returns the temporary folder; the outputs are in its `out`.
fn load_run(trigger: bool) -> tempfile::TempDir {
    load_run_with(trigger, &[])
}

/// [`load_run`] with more arguments (a `--sweep`).
fn load_run_with(trigger: bool, args: &[&str]) -> tempfile::TempDir {
    let folder = tempfile::TempDir::new().unwrap();
    let capacity = if trigger {
        "capacity = [{ from_s = 2.0, to_s = 4.0, workers = 1 }]\n"
    } else {
        ""
    };
    let config = format!(
        "model = \"timeline\"\nseed = 42\nruns = 2\nstrategies = [\"none\", \"unique_key\"]\n\
         [arrivals]\nclients = 20\nrate_per_s = 60.0\nduration_s = 8.0\n\
         [server]\nworkers = 2\nprocessing = {{ distribution = \"exponential\", mean_ms = 25.0 }}\n\
         {capacity}\
         [client]\ntimeout_ms = 300.0\nmax_retries = 3\n\
         [output]\nbucket_s = 0.5\n\
         [[scenario]]\nname = \"two_workers\"\n\
         [[scenario]]\nname = \"many_workers\"\nserver = {{ workers = 64 }}\n\
         [[scenario]]\nname = \"three_workers\"\nserver = {{ workers = 3 }}\n"
    );
    let path = folder.path().join("load.toml");
    std::fs::write(&path, config).unwrap();
    crate::common::simulate()
        .args(["--quiet", "--config"])
        .arg(&path)
        .arg("--out")
        .arg(folder.path().join("out"))
        .args(args)
        .assert()
        .success();
    folder
}

/// The load charts of a folder, by name.
fn load_charts(folder: &Path) -> Vec<(String, Vec<u8>)> {
    ["load_goodput.svg", "load_double_charges.svg"]
        .into_iter()
        .filter(|name| folder.join(name).exists())
        .map(|name| (name.to_string(), std::fs::read(folder.join(name)).unwrap()))
        .collect()
}

/// The boxes of the legends of a chart (left, top, right, bottom).
fn legend_boxes(svg: &[u8]) -> Vec<[f64; 4]> {
    let text = std::str::from_utf8(svg).unwrap();
    let document = roxmltree::Document::parse(text).unwrap();
    document
        .descendants()
        .filter(|node| {
            node.has_tag_name("rect")
                && node.attribute("fill") == Some("#FFFFFF")
                && node.attribute("opacity") == Some("0.9")
        })
        .filter_map(|node| measure(node).map(|(bounds, _)| bounds))
        .collect()
}

/// The load model's charts draw their data, with one legend above the panels that no data
/// mark reaches (it used to cover the offered-load line), and fail the check once emptied.
#[test]
fn load_charts_draw_their_data_below_their_legend() {
    let run = load_run(true);
    let charts = load_charts(&run.path().join("out"));
    assert_eq!(charts.len(), 2);
    for (name, svg) in &charts {
        assert_draws_data(name, svg);
        let legends = legend_boxes(svg);
        assert_eq!(legends.len(), 1, "{name}: one legend");
        let legend_bottom = legends[0][3];
        for mark in data_marks(name, svg) {
            assert!(
                mark.bounds[1] >= legend_bottom,
                "{name}: a data mark reaches into the legend: {mark:?}"
            );
        }
        let emptied = without_data(name, svg);
        let rejected = std::panic::catch_unwind(|| assert_draws_data(name, &emptied));
        assert!(rejected.is_err(), "{name} without data passed");
    }
}

/// Runs the shipped load file `configs/NAME.toml` with one run into a fresh folder; the
/// outputs are in its `out`.
fn shipped_load_run(name: &str) -> tempfile::TempDir {
    let folder = tempfile::TempDir::new().unwrap();
    crate::common::simulate()
        .args(["--quiet", "--runs", "1", "--config"])
        .arg(scenario_file(&format!("{name}.toml")))
        .arg("--out")
        .arg(folder.path().join("out"))
        .assert()
        .success();
    folder
}

/// The shipped load files' charts (one run each) draw their data below their one legend too.
#[test]
fn shipped_load_charts_draw_their_data() {
    for (scenario, seed) in [
        ("capacity-drop", 42),
        ("key-ttl-under-load", 42),
        ("brooker-retry", 2022),
        ("brooker-collapse", 2023),
        ("aws-retry-2-1", 42),
    ] {
        let run = shipped_load_run(scenario);
        for (name, svg) in load_charts(&run.path().join("out")) {
            let name = format!("{scenario}/{name}");
            assert_draws_data_of_seed(&name, &svg, seed);
            let legend_bottom = legend_boxes(&svg)[0][3];
            assert!(
                data_marks(&name, &svg)
                    .iter()
                    .all(|mark| mark.bounds[1] >= legend_bottom),
                "{name}: data under the legend"
            );
        }
    }
}

/// The subtitle says what is shaded only when a trigger window is drawn, and the queue's axis
/// is left out, and said so, when no request ever waited.
#[test]
fn load_charts_say_only_what_they_draw() {
    const SHADE: &str = "#F3D9D9";
    let shade_rects = |svg: &[u8]| {
        let text = std::str::from_utf8(svg).unwrap();
        text.matches(&format!("fill=\"{SHADE}\"")).count()
    };
    let with = load_run(true);
    let without = load_run(false);
    for (name, svg) in load_charts(&with.path().join("out")) {
        let text = String::from_utf8(svg.clone()).unwrap();
        assert!(text.contains("shaded: the trigger"), "{name}");
        assert!(shade_rects(&svg) > 0, "{name}: nothing shaded");
    }
    for (name, svg) in load_charts(&without.path().join("out")) {
        let text = String::from_utf8(svg.clone()).unwrap();
        assert!(!text.contains("shaded"), "{name} speaks of a shade");
        assert_eq!(shade_rects(&svg), 0, "{name}");
    }
    let goodput = std::fs::read(with.path().join("out/load_goodput.svg")).unwrap();
    let goodput = String::from_utf8(goodput).unwrap();
    assert!(goodput.contains("queue length") && !goodput.contains("the queue stayed empty"));
    let collapse = shipped_load_run("brooker-collapse");
    let empty = std::fs::read_to_string(collapse.path().join("out/load_goodput.svg")).unwrap();
    assert!(empty.contains("the queue stayed empty") && !empty.contains("queue length"));
}

/// The bands of a chart: the polygons filled in `colour` (`#RRGGBB`), light.
fn bands_of(svg: &[u8], colour: &str) -> usize {
    let text = std::str::from_utf8(svg).unwrap();
    text.matches(&format!("<polygon opacity=\"0.2\" fill=\"{colour}\""))
        .count()
}

/// With more than one run the load charts draw means over the runs with their 95% intervals
/// (a band of goodput per scenario panel, a band per strategy and panel of double charges)
/// and say so; with one run they draw that run, with no band.
#[test]
fn load_charts_draw_intervals_with_more_than_one_run() {
    const GOODPUT: &str = "#2CA02C";
    let run = load_run(true);
    let out = run.path().join("out");
    let goodput = std::fs::read(out.join("load_goodput.svg")).unwrap();
    let charged = std::fs::read(out.join("load_double_charges.svg")).unwrap();
    // Three scenarios, two strategies.
    assert_eq!(bands_of(&goodput, GOODPUT), 3);
    let strategies = ["#D62728", "#1F77B4"];
    for colour in strategies {
        assert_eq!(bands_of(&charged, colour), 3, "{colour}");
    }
    for svg in [&goodput, &charged] {
        assert!(String::from_utf8_lossy(svg).contains("mean of 2 runs, band: 95% interval"));
    }
    let once = shipped_load_run("capacity-drop");
    let goodput = std::fs::read(once.path().join("out/load_goodput.svg")).unwrap();
    assert_eq!(bands_of(&goodput, GOODPUT), 0);
    assert!(String::from_utf8_lossy(&goodput).contains("run 0"));
}

/// A sweep of a load file charts each headline metric against the swept key: a line per
/// scenario and strategy, each with its interval band over the runs, named by the metric.
#[test]
fn a_load_sweep_charts_each_headline_metric_with_bands() {
    let run = load_run_with(true, &["--sweep", "server.error_rate=0,0.2,0.5"]);
    let out = run.path().join("out");
    for metric in [
        "success_rate",
        "amplification",
        "double_charges",
        "goodput_per_s",
    ] {
        let svg = std::fs::read(out.join(format!("sweep_{metric}.svg"))).unwrap();
        let text = String::from_utf8_lossy(&svg);
        assert!(
            text.contains(&format!("{metric} against server.error_rate")),
            "{metric}"
        );
        // Three scenarios × two strategies, two runs each: six bands.
        assert_eq!(text.matches("<polygon").count(), 6, "{metric}");
        assert_draws_data(&format!("sweep_{metric}.svg"), &svg);
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("![sweep_success_rate.svg](sweep_success_rate.svg)"));
}
