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
        let results = self;
        let summary = summarise(results);
        let mut files = vec![
            OutputFile {
                name: "contention.csv",
                bytes: csv::contention_csv(results),
            },
            OutputFile {
                name: "contention_summary.csv",
                bytes: csv::summary_csv(&summary),
            },
        ];
        files.extend(charts::all(results, &summary));
        files.push(OutputFile {
            name: "report.md",
            bytes: markdown::report(results, &summary).into_bytes(),
        });
        files
    }

    fn table(&self) -> String {
        let summary = summarise(self);
        table::render(self, &summary)
    }

    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8> {
        let summary = summarise(self);
        json::summary(self, &summary, written)
    }
}
