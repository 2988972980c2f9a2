//! The timeline model's outputs: `timeline.csv`, its charts, the TTL sweep, `report.md`, the
//! stdout table and the `--json` summary.

pub mod backend_charts;
pub mod backend_report;
pub mod charts;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod table;
pub mod ttl_sweep_chart;

use crate::model::timeline::TimelineResults;
use crate::report::{OutputFile, Report};

impl Report for TimelineResults {
    /// Every file the run writes, in a fixed order.
    fn files(&self) -> Vec<OutputFile> {
        let results = self;
        let mut files = vec![OutputFile::new("timeline.csv", csv::timeline_csv(results))];
        files.extend(charts::all(results));
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
        files.push(OutputFile::new("report.md", markdown::report_md(results)));
        files
    }

    fn table(&self) -> String {
        table::render(self)
    }

    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8> {
        json::summary(self, written)
    }
}
