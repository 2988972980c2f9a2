//! The contention model's outputs: `contention.csv`, `contention_summary.csv`, the two
//! charts, `report.md`, the stdout table and the `--json` summary.

pub mod charts;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod table;

use crate::model::contention::ContentionResults;
use crate::model::contention::summary::summarise;
use crate::report::{OutputFile, Report};

impl Report for ContentionResults {
    /// Every file the run writes, in a fixed order.
    fn files(&self) -> Vec<OutputFile> {
        let summary = summarise(self);
        let mut files = vec![
            OutputFile::new("contention.csv", csv::contention_csv(self)),
            OutputFile::new("contention_summary.csv", csv::summary_csv(&summary)),
        ];
        files.extend(charts::all(self, &summary));
        files.push(OutputFile::report_md(markdown::report(self, &summary)));
        files
    }

    fn table(&self) -> String {
        let summary = summarise(self);
        table::render(self, &summary)
    }

    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8> {
        json::summary(self, written)
    }
}
