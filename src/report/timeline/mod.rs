//! The timeline model's outputs: `timeline.csv`, the summary over the runs (`summary.csv`,
//! `differences.csv`), its charts, `report.md`, the stdout table and the `--json` summary.

pub mod backend_charts;
pub mod backend_report;
pub mod charts;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod summary;
pub mod table;
pub mod trace;

use crate::model::timeline::TimelineResults;
use crate::report::summary::{Summary, differences_csv, summary_csv};
use crate::report::{OutputFile, Report};

/// A timeline run's results with their summary over the runs, built once: what every output
/// of the run is written from.
#[derive(Debug, Clone, PartialEq)]
pub struct TimelineReport {
    /// The results.
    results: TimelineResults,
    /// Every cell's and metric's estimate over the runs, and the paired differences.
    summary: Summary,
    /// The traces of run 0 ([`trace::all`]), found when first asked for.
    traces: std::sync::OnceLock<Vec<trace::TraceFigure>>,
}

impl TimelineReport {
    /// The report of `results`, summarised over its runs.
    pub fn new(results: TimelineResults) -> Self {
        let summary = summary::summarise(&results);
        Self {
            results,
            summary,
            traces: std::sync::OnceLock::new(),
        }
    }

    /// The traces of a double charge and of a stuck key in run 0 ([`trace::all`]).
    pub fn traces(&self) -> &[trace::TraceFigure] {
        self.traces.get_or_init(|| trace::all(&self.results))
    }

    /// The results.
    pub fn results(&self) -> &TimelineResults {
        &self.results
    }

    /// The summary over the runs (`summary.csv`, `differences.csv`).
    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    /// The estimates of every metric in cell `index` (the order of
    /// [`TimelineResults::first_run`]) when the run has several replications, `None` for one
    /// run (whose tables and charts show run 0 as it is).
    pub fn estimates(&self, index: usize) -> Option<summary::CellEstimates<'_>> {
        let metrics = summary::TimelineMetric::of_model(&self.results.model).len();
        (self.results.model.runs > 1).then(|| summary::cell(&self.summary, index, metrics))
    }
}

impl Report for TimelineReport {
    const JSON_SHAPE: fn() -> crate::report::json::Shape = json::shape;
    /// What a sweep of a timeline file charts: customers charged twice, the extra charges,
    /// the payments that succeeded and the tail latency.
    const HEADLINE: &'static [&'static str] = &[
        "double_charged_payments",
        "extra_charges",
        "succeeded",
        "latency_p99_ms",
    ];

    /// Every file the run writes, in a fixed order.
    fn files(&self) -> Vec<OutputFile> {
        let results = &self.results;
        let mut files = vec![
            OutputFile::new("timeline.csv", csv::timeline_csv(results)),
            OutputFile::new("summary.csv", summary_csv(&self.summary)),
            OutputFile::new("differences.csv", differences_csv(&self.summary)),
        ];
        files.extend(charts::all(self));
        files.extend(backend_charts::all(results));
        files.extend(self.traces().iter().map(trace::TraceFigure::output_file));
        files.push(OutputFile::report_md(markdown::report_md(self)));
        files
    }

    fn table(&self) -> String {
        render(self)
    }

    fn captioned(&self) -> Vec<crate::report::Captioned> {
        self.traces()
            .iter()
            .map(|figure| crate::report::Captioned {
                file: figure.file.clone(),
                caption: figure.caption.clone(),
            })
            .collect()
    }

    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8> {
        json::summary(self, written)
    }

    fn summary(&self) -> Option<Summary> {
        Some(self.summary.clone())
    }

    fn run_label(&self) -> String {
        format!(
            "{} · seed {}",
            self.results.model.title, self.results.model.seed
        )
    }

    /// On a key-TTL axis, each scenario's whole retry window: a TTL beyond it never prunes a
    /// key a retry still needs.
    fn sweep_marks(&self, key: &str) -> Vec<crate::report::sweep_chart::Mark> {
        if key != "server.key_ttl_ms" {
            return Vec::new();
        }
        let scenarios = &self.results.model.scenarios;
        scenarios
            .iter()
            .map(|scenario| {
                let window = scenario.client.retry_window_ms();
                let name = if scenarios.len() > 1 {
                    format!("{}: ", scenario.name)
                } else {
                    String::new()
                };
                let text = crate::report::format::grouped(window.round() as u64);
                (format!("{name}retry window {text} ms"), window)
            })
            .collect()
    }
}

/// The three tables, a blank line apart: charges, details, key lifecycle (with the ambiguous
/// outcomes, reported for every scenario); then the client lifecycle's table, when a
/// scenario has offline clients or reconciliation, and the backend's tables (run 0), when it
/// is used.
pub fn render(report: &TimelineReport) -> String {
    let differences = table::differences_table(report);
    let client = table::client_table(report);
    format!(
        "{}\n{}\n{}{}{}{}",
        table::charges_table(report),
        table::detail_table(report),
        table::lifecycle_table(report),
        if client.is_empty() {
            String::new()
        } else {
            format!("\n{client}")
        },
        backend_report::tables(report.results()),
        if differences.is_empty() {
            String::new()
        } else {
            format!("\n{differences}")
        }
    )
}
