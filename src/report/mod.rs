//! Turns results into the bytes of each output format; nothing here touches the file system.

pub mod charts;
pub mod csv;
pub mod json;
pub mod table;

use crate::model::ArticleResults;

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
    let mut files = vec![
        OutputFile {
            name: "results.csv",
            bytes: csv::results_csv(results),
        },
        OutputFile {
            name: "attempts.csv",
            bytes: csv::attempts_csv(results),
        },
    ];
    files.extend(charts::all(results));
    files
}

/// `p` in its shortest decimal form that reads back as the same number (`0.1`, `1`, `0`).
pub fn shortest(p: f64) -> String {
    format!("{p}")
}
