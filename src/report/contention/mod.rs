//! The contention model's outputs: `contention.csv`, `summary.csv` and `differences.csv`
//! (the shared summary shape), the two charts, `report.md`, the stdout table and the `--json`
//! object.

pub mod charts;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod summary;
pub mod table;

use crate::model::contention::ContentionResults;
use crate::report::summary::{differences_csv, summary_csv};
use crate::report::{OutputFile, Report};

impl Report for ContentionResults {
    const JSON_SHAPE: fn() -> crate::report::json::Shape = json::shape;
    /// What a sweep of a contention file charts: the AWS post's calls and time.
    const HEADLINE: &'static [&'static str] = &["writes", "completion_ms"];

    /// Every file the run writes, in a fixed order.
    fn files(&self) -> Vec<OutputFile> {
        let summary = summary::summarise(self);
        let mut files = vec![
            OutputFile::new("contention.csv", csv::contention_csv(self)),
            OutputFile::new("summary.csv", summary_csv(&summary)),
            OutputFile::new("differences.csv", differences_csv(&summary)),
        ];
        files.extend(charts::all(self, &summary));
        files.push(OutputFile::report_md(markdown::report(self, &summary)));
        files
    }

    fn table(&self) -> String {
        table::render(self, &summary::summarise(self))
    }

    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8> {
        json::summary(self, written)
    }

    fn run_label(&self) -> String {
        format!("{} · seed {}", self.model.title, self.model.seed)
    }

    fn summary(&self) -> Option<crate::report::summary::Summary> {
        Some(summary::summarise(self))
    }
}
