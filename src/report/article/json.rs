//! The article model's `--json` summary for scripts: the parameters, the rows of `results.csv` and the files
//! written, as one JSON object on stdout.

use std::path::PathBuf;

use serde::Serialize;

use super::csv::{ResultRow, result_rows};
use crate::model::article::ArticleResults;
use crate::report::json::{paths, pretty};

/// The parameters of the run, as `results.csv` would repeat them in every row.
#[derive(Debug, Serialize)]
struct Parameters<'a> {
    p: &'a [f64],
    seed: u64,
    requests: u64,
    max_retries: u32,
    runs: u32,
}

#[derive(Debug, Serialize)]
struct Summary<'a> {
    parameters: Parameters<'a>,
    results: Vec<serde_json::Value>,
    files: Vec<String>,
}

/// The summary as pretty-printed JSON, ending in a newline. `files` are the paths written.
pub fn summary(results: &ArticleResults, files: &[PathBuf]) -> Vec<u8> {
    let model = &results.model;
    let rows = result_rows(results);
    let summary = Summary {
        parameters: Parameters {
            p: &model.ack_loss,
            seed: model.seed,
            requests: model.requests,
            max_retries: model.max_retries,
            runs: model.runs,
        },
        results: rows.iter().map(row_object).collect(),
        files: paths(files),
    };
    pretty(&summary)
}

/// One row of `results.csv` as a JSON object with the same keys in the same order, `p` as a
/// number rather than the CSV's text.
fn row_object(row: &ResultRow) -> serde_json::Value {
    let mut object = serde_json::to_value(row).expect("a row is a plain object");
    object["p"] = serde_json::Value::from(row.p);
    object
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::article::{ArticleModel, Engine, simulate};
    use engine::Silent;

    #[test]
    fn the_summary_holds_parameters_rows_and_files() {
        // p = 1 with 2 retries: every request is delivered 3 times, whatever the draws.
        let model = ArticleModel {
            ack_loss: vec![1.0],
            requests: 10,
            max_retries: 2,
            seed: 5,
            runs: 1,
        };
        let results = simulate(&model, Engine::Fast { threads: 1 }, &Silent).unwrap();
        let bytes = summary(&results, &[PathBuf::from("out/results.csv")]);
        let json: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(json["parameters"]["p"], serde_json::json!([1.0]));
        assert_eq!(json["parameters"]["requests"], 10);
        assert_eq!(json["files"], serde_json::json!(["out/results.csv"]));
        let rows = json["results"].as_array().unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0]["server"], "non_idempotent");
        assert_eq!(rows[0]["p"], 1.0);
        assert_eq!(rows[0]["deliveries"], 30);
        assert_eq!(rows[0]["extra_charges"], 20);
        assert_eq!(rows[1]["server"], "idempotency_key");
        assert_eq!(rows[1]["charges"], 10);
        assert_eq!(rows[1]["prevented_duplicates"], 20);
        assert_eq!(bytes.last(), Some(&b'\n'));
    }
}
