//! The load model's outputs: `load.csv`, `load_timeseries.csv`, `load_sweep.csv` (with an
//! error-rate sweep), `summary.csv` and `differences.csv` (the estimates over runs), the
//! charts, `report.md`, the stdout table and the `--json` summary.

pub mod charts;
pub mod csv;
pub mod json;
pub mod summary;
pub mod table;

use crate::model::load::LoadResults;
use crate::report::summary::{differences_csv, summary_csv};
use crate::report::{OutputFile, Report};

impl Report for LoadResults {
    /// Every file the run writes, in a fixed order.
    fn files(&self) -> Vec<OutputFile> {
        let mut files = vec![
            OutputFile::new("load.csv", csv::load_csv(self)),
            OutputFile::new("load_timeseries.csv", csv::timeseries_csv(self)),
        ];
        if !self.sweep.is_empty() {
            files.push(OutputFile::new("load_sweep.csv", csv::sweep_csv(self)));
        }
        let summary = self.summary();
        files.push(OutputFile::new("summary.csv", summary_csv(&summary)));
        files.push(OutputFile::new(
            "differences.csv",
            differences_csv(&summary),
        ));
        files.extend(charts::all(self));
        files.push(OutputFile::report_md(table::report(self)));
        files
    }

    fn table(&self) -> String {
        table::render(self)
    }

    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8> {
        json::summary(self, written)
    }
}
