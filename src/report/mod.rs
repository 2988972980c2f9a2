//! Turns results into the bytes of each output format; nothing here touches the file system.

pub mod article;
pub mod chart_style;
pub mod contention;
pub mod format;
pub mod html;
pub mod json;
pub mod load;
pub mod parameters;
pub mod schemas;
pub mod sequence;
pub mod summary;
pub mod sweep;
pub mod sweep_chart;
pub mod timeline;
use std::borrow::Cow;

/// One output file: its name inside the output folder and its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    /// File name, e.g. `results.csv` (a sweep's charts are named by their metric).
    pub name: Cow<'static, str>,
    /// The complete contents.
    pub bytes: Vec<u8>,
}

impl OutputFile {
    /// The file `name` holding `contents` (a CSV's bytes, an SVG's or a report's text).
    pub fn new(name: impl Into<Cow<'static, str>>, contents: impl Into<Vec<u8>>) -> Self {
        Self {
            name: name.into(),
            bytes: contents.into(),
        }
    }

    /// `report.md`, the run's report in Markdown (every model writes one, last).
    pub fn report_md(contents: impl Into<Vec<u8>>) -> Self {
        Self::new("report.md", contents)
    }
}

/// A figure of the run's files that the page shows in a section of its own, under a caption
/// in words (the trace of a double charge).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captioned {
    /// The SVG's file name among the run's files.
    pub file: String,
    /// What it shows, in a sentence.
    pub caption: String,
}

/// A model's results turned into bytes: its files, its stdout table and its `--json`
/// summary. Each model's report module implements it for that model's results, so the driver
/// runs every model through the same steps.
pub trait Report {
    /// The shape of the model's `--json` (the same for every run of the model): what a
    /// sweep's `--json` types its combined files by.
    const JSON_SHAPE: fn() -> json::Shape;
    /// The metrics a sweep charts, by column name, in order: the model's headline answers.
    const HEADLINE: &'static [&'static str] = &[];
    /// Every file the run writes, in a fixed order (the driver adds [`html::page`] after
    /// them: `report.html` needs the run's inputs too).
    fn files(&self) -> Vec<OutputFile>;
    /// The table printed on stdout.
    fn table(&self) -> String;
    /// The JSON summary printed with `--json` instead of the table, naming the files
    /// `written`.
    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8>;
    /// The run's estimates across its runs, per cell and metric: what a sweep charts. `None`
    /// for a model that has no [`summary::Summary`].
    fn summary(&self) -> Option<summary::Summary> {
        None
    }
    /// The figures the page shows with a caption of their own, in order (the traces); none by
    /// default.
    fn captioned(&self) -> Vec<Captioned> {
        Vec::new()
    }
    /// What a chart's subtitle names the run by: its config file and seed
    /// (`key-ttl.toml · seed 42`); empty where the model's charts say it otherwise.
    fn run_label(&self) -> String {
        String::new()
    }
    /// Values worth marking on a sweep chart whose first swept key is `key` (the clients'
    /// retry window on a key-TTL axis), in the key's unit.
    fn sweep_marks(&self, key: &str) -> Vec<sweep_chart::Mark> {
        let _ = key;
        Vec::new()
    }
}
