//! The article model's outputs: `results.csv`, `attempts.csv`, `summary.csv`, the charts,
//! `report.md`, the stdout table and the `--json` summary.

pub mod charts;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod summary;
pub mod sweep_charts;
pub mod table;

use crate::model::article::ArticleResults;
use crate::model::article::summary::summarise;
use crate::report::{OutputFile, Report};

impl Report for ArticleResults {
    const JSON_SHAPE: fn() -> crate::report::json::Shape = json::shape;
    /// What a sweep of the article's file (a key other than `p`) charts.
    const HEADLINE: &'static [&'static str] = &["double_charge_rate", "extra_charges_per_request"];

    /// Every file the run writes, in a fixed order.
    fn files(&self) -> Vec<OutputFile> {
        let summary = summarise(self);
        let mut files = vec![
            OutputFile::new("results.csv", csv::results_csv(self)),
            OutputFile::new("attempts.csv", csv::attempts_csv(self)),
            OutputFile::new("summary.csv", summary::summary_csv(&summary)),
        ];
        files.extend(charts::all(self));
        files.extend(sweep_charts::all(self, &summary));
        files.push(OutputFile::report_md(markdown::report_md(self, &summary)));
        files
    }

    fn table(&self) -> String {
        table::render(self)
    }

    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8> {
        json::summary(self, written)
    }

    fn run_label(&self) -> String {
        format!("the article's experiment · seed {}", self.model.seed)
    }

    fn summary(&self) -> Option<crate::report::summary::Summary> {
        Some(summary::shared(&summarise(self)))
    }
}
