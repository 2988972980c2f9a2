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
        let mut files = vec![OutputFile {
            name: "timeline.csv",
            bytes: csv::timeline_csv(results),
        }];
        files.extend(charts::all(results));
        files.extend(backend_charts::all(results));
        if !results.ttl_sweep.is_empty() {
            files.push(OutputFile {
                name: "ttl_sweep.csv",
                bytes: csv::ttl_sweep_csv(results),
            });
            files.push(OutputFile {
                name: "ttl_sweep.svg",
                bytes: ttl_sweep_chart::ttl_sweep(results).into_bytes(),
            });
        }
        files.push(OutputFile {
            name: "report.md",
            bytes: markdown::report_md(results),
        });
        files
    }

    fn table(&self) -> String {
        table::render(self)
    }

    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8> {
        json::summary(self, written)
    }
}
