//! The article model's `--json`, in the one shape of every model ([`crate::report::json`]):
//! its parameters, the rows of `results.csv` (`results`) and of its own `summary.csv`
//! (`summary`: the closed form and z-score beside each estimate), and the files written.

use std::path::PathBuf;

use crate::model::article::summary::summarise;
use crate::model::article::{ArticleModel, ArticleResults};
use crate::report::json::{Field, Json, Shape, envelope, parameters};

parameters! {
    /// The parameters of the run, as `results.csv` would repeat them in every row.
    struct Parameters<'a>(model: ArticleModel) {
        /// The ACK-loss probabilities, in the order given.
        p: &'a [f64] = Numbers => &model.ack_loss,
        /// The seed of `numpy.random.default_rng`.
        seed: u64 = Integer => model.seed,
        /// Payment requests per run and p.
        requests: u64 = Integer => model.requests,
        /// Retries a client makes at most after its first send.
        max_retries: u32 = Integer => model.max_retries,
        /// Replications.
        runs: u32 = Integer => model.runs,
    }
}

/// The article model's `--json`, declared once: [`Parameters`], the columns of `results.csv`
/// ([`super::csv::ResultRow`]) and of `summary.csv` ([`super::summary::SummaryRow`]),
/// documented there.
pub fn shape() -> Shape {
    let integer = |name| Field::new(name, Json::Integer);
    let number = |name| Field::new(name, Json::Number);
    let text = |name| Field::new(name, Json::Text);
    Shape {
        model: "article",
        results_file: "results.csv",
        parameters: Parameters::FIELDS.to_vec(),
        results: vec![
            integer("run"),
            number("p"),
            text("server"),
            integer("requests"),
            integer("max_retries"),
            integer("seed"),
            integer("deliveries"),
            integer("charges"),
            integer("double_charged_requests"),
            integer("extra_charges"),
            integer("prevented_duplicates"),
            integer("retries_exhausted"),
        ],
        summary: vec![
            number("p"),
            text("server"),
            text("metric"),
            integer("runs"),
            integer("requests_per_run"),
            number("mean"),
            number("sd_across_runs").nullable(),
            number("se_across_runs").nullable(),
            number("sd_per_request"),
            number("ci_low"),
            number("ci_high"),
            text("interval"),
            number("closed_form"),
            number("z_score").nullable(),
        ],
    }
}

/// The `--json` of an article run, `files` the paths written.
pub fn summary(results: &ArticleResults, files: &[PathBuf]) -> Vec<u8> {
    envelope(
        &shape(),
        &Parameters::of(&results.model),
        &super::csv::results_csv(results),
        Some(&super::summary::summary_csv(&summarise(results))),
        files,
    )
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
        assert_eq!(json["model"], "article");
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
        // Three deliveries per request, 2 extra charges without a key.
        let summary = json["summary"].as_array().unwrap();
        let deliveries = summary
            .iter()
            .find(|row| row["metric"] == "deliveries_per_request")
            .unwrap();
        assert_eq!(deliveries["mean"], 3.0);
        assert_eq!(deliveries["sd_across_runs"], serde_json::Value::Null);
        assert_eq!(bytes.last(), Some(&b'\n'));
    }
}
