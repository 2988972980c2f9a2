//! The load model's charts.

use crate::model::load::LoadResults;
use crate::report::OutputFile;

/// The charts' file names.
pub fn names(_results: &LoadResults) -> Vec<&'static str> {
    Vec::new()
}

/// Every chart.
pub fn all(_results: &LoadResults) -> Vec<OutputFile> {
    Vec::new()
}
