//! The load model's outputs: `load.csv`, `load_timeseries.csv`, `load_key_store.csv` (when a
//! scenario sets crashes or keeps its key in another store), `load_bodies.csv` (when a
//! scenario sends retries with another body), `load_receipts.csv` (when a scenario sends
//! receipts), `load_provider.csv` (when a scenario calls a provider), `summary.csv` and
//! `differences.csv` (the estimates over runs), the charts, the traces of a retry answered 409
//! (`trace_409_<strategy>.svg`), `report.md`, the stdout table and the `--json` summary.

pub mod charts;
pub mod csv;
pub mod json;
pub mod summary;
pub mod table;
pub mod trace;

use crate::model::load::LoadResults;
use crate::report::summary::{differences_csv, summary_csv};
use crate::report::{OutputFile, Report};

impl Report for LoadResults {
    const JSON_SHAPE: fn() -> crate::report::json::Shape = json::shape;
    /// What a sweep of a load file charts: Brooker's success rate and amplification, the
    /// double charges and the goodput.
    const HEADLINE: &'static [&'static str] = &[
        "success_rate",
        "amplification",
        "double_charges",
        "goodput_per_s",
    ];

    /// Every file the run writes, in a fixed order.
    fn files(&self) -> Vec<OutputFile> {
        let mut files = vec![
            OutputFile::new("load.csv", csv::load_csv(self)),
            OutputFile::new("load_timeseries.csv", csv::timeseries_csv(self)),
        ];
        if let Some(bytes) = csv::key_store_csv(self) {
            files.push(OutputFile::new("load_key_store.csv", bytes));
        }
        if let Some(bytes) = csv::bodies_csv(self) {
            files.push(OutputFile::new("load_bodies.csv", bytes));
        }
        if let Some(bytes) = csv::receipts_csv(self) {
            files.push(OutputFile::new("load_receipts.csv", bytes));
        }
        if let Some(bytes) = csv::provider_csv(self) {
            files.push(OutputFile::new("load_provider.csv", bytes));
        }
        let summary = self.summary();
        files.push(OutputFile::new("summary.csv", summary_csv(&summary)));
        files.push(OutputFile::new(
            "differences.csv",
            differences_csv(&summary),
        ));
        files.extend(charts::all(self));
        files.extend(trace::all(self).iter().map(|figure| figure.output_file()));
        files.push(OutputFile::report_md(table::report(self)));
        files
    }

    fn captioned(&self) -> Vec<crate::report::Captioned> {
        trace::all(self)
            .into_iter()
            .map(|figure| crate::report::Captioned {
                file: figure.file,
                caption: figure.caption,
            })
            .collect()
    }

    fn table(&self) -> String {
        table::render(self)
    }

    fn json(&self, written: &[std::path::PathBuf]) -> Vec<u8> {
        json::summary(self, written)
    }

    fn run_label(&self) -> String {
        format!("{} · seed {}", self.model.title, self.model.seed)
    }

    fn summary(&self) -> Option<crate::report::summary::Summary> {
        Some(summary::summary(self))
    }
}
