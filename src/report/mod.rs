//! Turns results into the bytes of each output format; nothing here touches the file system.

pub mod charts;
pub mod csv;
pub mod json;
pub mod markdown;
pub mod summary;
pub mod sweep_charts;
pub mod table;
pub mod timeline_charts;
pub mod timeline_csv;
pub mod timeline_table;
pub mod ttl_sweep_chart;

use crate::model::ArticleResults;
use crate::model::summary::summarise;
use crate::model::timeline::TimelineResults;

/// One output file: its name inside the output folder and its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    /// File name, e.g. `results.csv`.
    pub name: &'static str,
    /// The complete contents.
    pub bytes: Vec<u8>,
}

/// Every file a run writes, in a fixed order.
pub fn output_files(results: &ArticleResults) -> Vec<OutputFile> {
    let summary = summarise(results);
    let mut files = vec![
        OutputFile {
            name: "results.csv",
            bytes: csv::results_csv(results),
        },
        OutputFile {
            name: "attempts.csv",
            bytes: csv::attempts_csv(results),
        },
        OutputFile {
            name: "summary.csv",
            bytes: summary::summary_csv(&summary),
        },
    ];
    files.extend(charts::all(results));
    files.extend(sweep_charts::all(results, &summary));
    files.push(OutputFile {
        name: "report.md",
        bytes: markdown::report_md(results, &summary),
    });
    files
}

/// Every file a timeline run writes, in a fixed order.
pub fn timeline_files(results: &TimelineResults) -> Vec<OutputFile> {
    let mut files = vec![OutputFile {
        name: "timeline.csv",
        bytes: timeline_csv::timeline_csv(results),
    }];
    files.extend(timeline_charts::all(results));
    if !results.ttl_sweep.is_empty() {
        files.push(OutputFile {
            name: "ttl_sweep.csv",
            bytes: timeline_csv::ttl_sweep_csv(results),
        });
        files.push(OutputFile {
            name: "ttl_sweep.svg",
            bytes: ttl_sweep_chart::ttl_sweep(results).into_bytes(),
        });
    }
    files
}

/// `p` in its shortest decimal form that reads back as the same number (`0.1`, `1`, `0`).
pub fn shortest(p: f64) -> String {
    format!("{p}")
}
