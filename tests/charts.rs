//! The charts are valid SVG that a real renderer draws: each is rasterised with resvg.
//!
//! Set `SIMULATE_CHART_PNG=DIR` to keep the PNGs for a look.

use simulate::model::Silent;
use simulate::model::article::summary::summarise;
use simulate::model::article::{self as model, ArticleModel, Engine};
use simulate::report::OutputFile;
use simulate::report::article::{charts, sweep_charts};

fn article(ack_loss: Vec<f64>, runs: u32) -> model::ArticleResults {
    experiment(ack_loss, runs, 10_000)
}

fn experiment(ack_loss: Vec<f64>, runs: u32, requests: u64) -> model::ArticleResults {
    let model = ArticleModel {
        ack_loss,
        requests,
        max_retries: 20,
        seed: 42,
        runs,
    };
    model::simulate(&model, Engine::Fast { threads: 2 }, &Silent).unwrap()
}

/// Rasterises an SVG; returns the share of pixels that are not white.
fn rasterise(name: &str, svg: &[u8]) -> f64 {
    let mut options = resvg::usvg::Options::default();
    options.fontdb_mut().load_system_fonts();
    let tree = resvg::usvg::Tree::from_data(svg, &options)
        .unwrap_or_else(|error| panic!("{name} is not valid SVG: {error}"));
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    if let Some(folder) = std::env::var_os("SIMULATE_CHART_PNG") {
        std::fs::create_dir_all(&folder).unwrap();
        pixmap
            .save_png(std::path::Path::new(&folder).join(name.replace(".svg", ".png")))
            .unwrap();
    }
    let pixels = pixmap.pixels();
    let inked = pixels
        .iter()
        .filter(|pixel| pixel.red() < 240 || pixel.green() < 240 || pixel.blue() < 240)
        .count();
    inked as f64 / pixels.len() as f64
}

/// The article charts and the sweep charts of `results`.
fn every_chart(results: &model::ArticleResults) -> Vec<OutputFile> {
    let mut files = charts::all(results);
    files.extend(sweep_charts::all(results, &summarise(results)));
    files
}

#[test]
fn article_charts_render_with_content() {
    for file in every_chart(&article(vec![0.01, 0.05, 0.1], 1)) {
        let ink = rasterise(file.name, &file.bytes);
        assert!(ink > 0.01, "{} is almost blank ({ink})", file.name);
        let text = String::from_utf8(file.bytes).unwrap();
        assert!(
            text.contains("seed 42"),
            "{} lacks the parameters",
            file.name
        );
    }
}

#[test]
fn many_p_values_still_render() {
    let ack_loss: Vec<f64> = (0..=30).map(|k| f64::from(k) / 100.0).collect();
    for file in every_chart(&article(ack_loss, 1)) {
        let name = format!("sweep_{}", file.name);
        assert!(
            rasterise(&name, &file.bytes) > 0.01,
            "{name} is almost blank"
        );
    }
}

#[test]
fn charts_are_byte_identical_across_renders() {
    let results = article(vec![0.05, 0.2], 1);
    assert_eq!(every_chart(&results), every_chart(&results));
}

/// The sweep charts at the ends of their range: one p value and one run; 300 p values of one
/// run (wide intervals, dense markers); 31 p values of 1,000 runs (narrow intervals).
#[test]
fn sweep_charts_render_from_one_to_many_p_values_and_runs() {
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
            let name = format!("{case}_{}", file.name);
            assert!(
                rasterise(&name, &file.bytes) > 0.01,
                "{name} is almost blank"
            );
        }
    }
}

/// The timeline charts of a shipped scenario file, simulated with `payments` payments.
fn timeline_charts(file: &str, payments: u64) -> Vec<OutputFile> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("configs")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let cli = <simulate::cli::Cli as clap::Parser>::parse_from(["simulate"]);
    let mut config = simulate::config::TimelineConfig::from_toml(&text, &path, &cli, 2).unwrap();
    config.model.payments = payments;
    let results = simulate::model::timeline::simulate(&config.model, 2, &Silent).unwrap();
    simulate::report::timeline::files(&results)
        .into_iter()
        .filter(|file| file.name.ends_with(".svg"))
        .collect()
}

#[test]
fn timeline_charts_render_with_content() {
    for (file, payments) in [
        ("same-key-burst.toml", 1),
        ("mobile-network.toml", 5_000),
        ("retry-storm.toml", 2_000),
        ("key-ttl.toml", 2_000),
        ("same-key-different-body.toml", 2_000),
        ("error-replay.toml", 2_000),
        ("webhook-receiver.toml", 2_000),
    ] {
        let stem = file.trim_end_matches(".toml");
        for chart in timeline_charts(file, payments) {
            let name = format!("{stem}_{}", chart.name);
            assert!(
                rasterise(&name, &chart.bytes) > 0.01,
                "{name} is almost blank"
            );
            let text = String::from_utf8(chart.bytes).unwrap();
            assert!(text.contains("seed 42"), "{name} lacks the parameters");
        }
    }
}
