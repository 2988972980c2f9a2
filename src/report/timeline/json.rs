//! A timeline run's `--json` summary for scripts: its parameters, the rows of `timeline.csv`
//! and the files written, as one JSON object on stdout.

use std::path::PathBuf;

use serde::Serialize;

use crate::model::timeline::TimelineResults;
use crate::report::json::{paths, pretty};

/// The parameters of a timeline run.
#[derive(Debug, Serialize)]
struct TimelineParameters<'a> {
    scenario_file: &'a str,
    seed: u64,
    payments: u64,
    runs: u32,
    scenarios: Vec<&'a str>,
}

#[derive(Debug, Serialize)]
struct TimelineSummary<'a> {
    parameters: TimelineParameters<'a>,
    results: Vec<serde_json::Map<String, serde_json::Value>>,
    files: Vec<String>,
}

/// The summary of a timeline run: its parameters, the rows of `timeline.csv` (same keys, same
/// order; numbers as JSON numbers, an absent latency or TTL as `null`) and the paths written, as pretty-printed JSON ending in a newline.
pub fn summary(results: &TimelineResults, files: &[PathBuf]) -> Vec<u8> {
    let model = &results.model;
    let summary = TimelineSummary {
        parameters: TimelineParameters {
            scenario_file: &model.title,
            seed: model.seed,
            payments: model.payments,
            runs: model.runs,
            scenarios: model.scenarios.iter().map(|s| s.name.as_str()).collect(),
        },
        results: super::csv::rows(results)
            .iter()
            .map(|row| {
                row.iter()
                    .map(|(name, cell)| ((*name).to_string(), cell.to_json()))
                    .collect()
            })
            .collect(),
        files: paths(files),
    };
    pretty(&summary)
}
