//! A load run's `--json` summary for scripts: its parameters, the stdout table's rows, the
//! steady-state queueing columns of every event loop (as in `load.csv`, typed numbers) and the
//! files written, as one JSON object on stdout.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::model::load::LoadResults;
use crate::report::json::{paths, pretty};

#[derive(Debug, Serialize)]
struct LoadSummary<'a> {
    scenario_file: &'a str,
    seed: u64,
    runs: u32,
    columns: Vec<&'static str>,
    rows: Vec<Vec<String>>,
    steady_state: Vec<Map<String, Value>>,
    files: Vec<String>,
}

/// The summary: parameters, the table's rows (as in the stdout table), per event loop its
/// `run`, `scenario`, `strategy` and the [`Steady`](crate::model::load::Steady) columns
/// (named and typed as declared; an empty cell is `null`), and the paths written.
pub fn summary(results: &LoadResults, files: &[PathBuf]) -> Vec<u8> {
    let model = &results.model;
    let steady_state = results
        .rows
        .iter()
        .map(|row| {
            let mut object = Map::new();
            object.insert("run".into(), row.run.into());
            object.insert(
                "scenario".into(),
                model.scenarios[row.scenario].name.clone().into(),
            );
            object.insert("strategy".into(), row.strategy.name().into());
            for (name, value) in row.tally.steady.columns() {
                object.insert(name.into(), value.to_json());
            }
            object
        })
        .collect();
    pretty(&LoadSummary {
        scenario_file: &model.title,
        seed: model.seed,
        runs: model.runs,
        columns: super::table::HEADERS.to_vec(),
        rows: super::table::rows(results),
        steady_state,
        files: paths(files),
    })
}
