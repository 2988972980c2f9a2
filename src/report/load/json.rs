//! A load run's `--json` summary for scripts: its parameters, the stdout table's rows and the
//! files written, as one JSON object on stdout.

use std::path::PathBuf;

use serde::Serialize;

use crate::model::load::LoadResults;
use crate::report::json::{paths, pretty};

#[derive(Debug, Serialize)]
struct LoadSummary<'a> {
    scenario_file: &'a str,
    seed: u64,
    runs: u32,
    columns: Vec<&'static str>,
    rows: Vec<Vec<String>>,
    files: Vec<String>,
}

/// The summary: parameters, the table's rows (as in the stdout table) and the paths written.
pub fn summary(results: &LoadResults, files: &[PathBuf]) -> Vec<u8> {
    let model = &results.model;
    pretty(&LoadSummary {
        scenario_file: &model.title,
        seed: model.seed,
        runs: model.runs,
        columns: super::table::HEADERS.to_vec(),
        rows: super::table::rows(results),
        files: paths(files),
    })
}
