//! The timeline model's outputs: `timeline.csv`, the summary over the runs (`summary.csv`,
//! `differences.csv`), its charts, the TTL sweep, `report.md`, the stdout table and the
//! `--json` summary.

pub mod backend_charts;
pub mod backend_report;
pub mod charts;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod summary;
pub mod table;
pub mod ttl_sweep_chart;

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
}

impl TimelineReport {
    /// The report of `results`, summarised over its runs.
    pub fn new(results: TimelineResults) -> Self {
        let summary = summary::summarise(&results);
        Self { results, summary }
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
        (self.results.model.runs > 1).then(|| summary::cell(&self.summary, index))
    }
}

impl Report for TimelineReport {
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
        if !results.ttl_sweep.is_empty() {
            files.push(OutputFile::new(
                "ttl_sweep.csv",
                csv::ttl_sweep_csv(results),
            ));
            files.push(OutputFile::new(
                "ttl_sweep.svg",
                ttl_sweep_chart::ttl_sweep(results),
            ));
        }
        files.push(OutputFile::report_md(markdown::report_md(self)));
        files
    }

    fn table(&self) -> String {
        table::render(self)
    }

    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8> {
        json::summary(&self.results, written)
    }
}
