//! Turns results into the bytes of each output format; nothing here touches the file system.

pub mod article;
pub mod chart_style;
pub mod contention;
pub mod format;
pub mod json;
pub mod load;
pub mod timeline;

/// One output file: its name inside the output folder and its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    /// File name, e.g. `results.csv`.
    pub name: &'static str,
    /// The complete contents.
    pub bytes: Vec<u8>,
}
