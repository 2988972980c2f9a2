//! The load model's outputs: `load.csv`, `load_timeseries.csv`, the charts, `report.md`, the stdout table and the `--json` summary.

pub mod charts;
pub mod csv;
pub mod json;
pub mod table;

use crate::model::load::LoadResults;
use crate::report::{OutputFile, Report};

impl Report for LoadResults {
    /// Every file the run writes, in a fixed order.
    fn files(&self) -> Vec<OutputFile> {
        let mut files = vec![
            OutputFile::new("load.csv", csv::load_csv(self)),
            OutputFile::new("load_timeseries.csv", csv::timeseries_csv(self)),
        ];
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
