//! The timeline model's outputs: `timeline.csv`, its charts, `report.md`, the
//! stdout table and the `--json` summary.

pub mod backend_charts;
pub mod backend_report;
pub mod charts;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod table;

use crate::model::timeline::TimelineResults;
use crate::report::{OutputFile, Report};

impl Report for TimelineResults {
    /// Every file the run writes, in a fixed order.
    fn files(&self) -> Vec<OutputFile> {
        let mut files = vec![OutputFile::new("timeline.csv", csv::timeline_csv(self))];
        files.extend(charts::all(self));
        files.extend(backend_charts::all(self));
        files.push(OutputFile::report_md(markdown::report_md(self)));
        files
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

    /// On a key-TTL axis, each scenario's whole retry window: a TTL beyond it never prunes a
    /// key a retry still needs.
    fn sweep_marks(&self, key: &str) -> Vec<crate::report::sweep_chart::Mark> {
        if key != "server.key_ttl_ms" {
            return Vec::new();
        }
        let scenarios = &self.model.scenarios;
        scenarios
            .iter()
            .map(|scenario| {
                let window = scenario.client.retry_window_ms();
                let name = if scenarios.len() > 1 {
                    format!("{}: ", scenario.name)
                } else {
                    String::new()
                };
                let text = crate::report::format::grouped(window.round() as u64);
                (format!("{name}retry window {text} ms"), window)
            })
            .collect()
    }
}
