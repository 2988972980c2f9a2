//! `--json` of every model through the binary: one shape (`model`, `parameters`, `results`,
//! `summary`, `files`) that validates against the model's committed JSON Schema
//! (`schemas/<model>.schema.json`, checked with the `jsonschema` crate), numbers as JSON
//! numbers (no numeric strings), and `results` and `summary` the rows of the CSV files the run
//! wrote, cell for cell; and every results CSV loads as one table (one header, every row as
//! long).

use std::path::{Path, PathBuf};

use serde_json::Value;
use tempfile::TempDir;

use crate::common::{scenario_file, simulate};

/// The schema checks, with the `jsonschema` crate of the `schema-check` feature.
#[cfg(feature = "schema-check")]
mod check {
    use serde_json::Value;

    /// Every error of `json` against `schema`, with where it is.
    pub fn errors(schema: &Value, json: &Value) -> Vec<String> {
        jsonschema::validator_for(schema)
            .unwrap()
            .iter_errors(json)
            .map(|error| format!("{} at {}", error, error.instance_path()))
            .collect()
    }

    /// Whether `schema` accepts `json`.
    pub fn is_valid(schema: &Value, json: &Value) -> bool {
        jsonschema::validator_for(schema).unwrap().is_valid(json)
    }
}

/// Without the feature the tests that call these are ignored.
#[cfg(not(feature = "schema-check"))]
mod check {
    use serde_json::Value;

    pub fn errors(_: &Value, _: &Value) -> Vec<String> {
        unreachable!("ignored without the schema-check feature")
    }

    pub fn is_valid(_: &Value, _: &Value) -> bool {
        unreachable!("ignored without the schema-check feature")
    }
}

/// One model's small run: its name, the config (none: the article's defaults), extra flags,
/// and its results CSV.
struct Case {
    model: &'static str,
    config: Option<PathBuf>,
    args: &'static [&'static str],
    results: &'static str,
}

/// A small load file: 4 workers, 2 s of 40 payments/s, half the workers lost for 0.5 s (a
/// trigger, so the recovery columns are written), two runs.
const LOAD: &str = "model = \"timeline\"\nruns = 2\n\
                    [arrivals]\nrate_per_s = 40.0\nduration_s = 2.0\n\
                    [server]\nworkers = 4\n\
                    capacity = [{ from_s = 0.5, to_s = 1.0, workers = 2 }]\n";

/// Two client counts, two policies, three runs.
const CONTENTION: &str = "model = \"contention\"\nclients = [2, 3]\nruns = 3\n\
                          policies = [\"exponential\", \"full_jitter\"]\n";

/// Every model's case; `folder` holds the configs written.
fn cases(folder: &Path) -> Vec<Case> {
    let write = |name: &str, text: &str| {
        let path = folder.join(name);
        std::fs::write(&path, text).unwrap();
        Some(path)
    };
    vec![
        Case {
            model: "article",
            config: None,
            args: &["--requests", "2000", "--runs", "2"],
            results: "results.csv",
        },
        Case {
            model: "timeline",
            config: Some(scenario_file("same-key-burst.toml")),
            args: &[],
            results: "timeline.csv",
        },
        // A backend's columns (key store, crashes, provider) are written by some files only.
        Case {
            model: "timeline",
            config: Some(scenario_file("redis-vs-transaction.toml")),
            args: &["--payments", "200"],
            results: "timeline.csv",
        },
        Case {
            model: "load",
            config: write("load.toml", LOAD),
            args: &[],
            results: "load.csv",
        },
        Case {
            model: "contention",
            config: write("race.toml", CONTENTION),
            args: &[],
            results: "contention.csv",
        },
    ]
}

/// Runs `case` with `--json` into `out`; returns the parsed stdout.
fn run_json(case: &Case, out: &Path) -> Value {
    let mut command = simulate();
    if let Some(config) = &case.config {
        command.arg("--config").arg(config);
    }
    let assert = command
        .args(case.args)
        .arg("--json")
        .arg("--out")
        .arg(out)
        .assert()
        .success();
    serde_json::from_slice(&assert.get_output().stdout).unwrap()
}

/// The committed schema of `model`.
fn schema(model: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schemas")
        .join(format!("{model}.schema.json"));
    serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap()
}

/// The rows of a CSV file read strictly: one header, every record as long (the `csv` crate
/// refuses a record of another length unless asked to be flexible).
fn strict_table(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .from_path(path)
        .unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let rows = reader
        .records()
        .map(|record| {
            let record = record.unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            assert_eq!(record.len(), header.len(), "{}", path.display());
            record.iter().map(String::from).collect()
        })
        .collect();
    (header, rows)
}

/// `objects` are the rows of the CSV file at `path`: the same keys in the header's order, an
/// empty cell `null`, a number a JSON number equal to the cell's, text and booleans as
/// written.
fn same_as_csv(objects: &[Value], path: &Path) {
    let (header, rows) = strict_table(path);
    assert!(!rows.is_empty(), "{}", path.display());
    assert_eq!(objects.len(), rows.len(), "{}", path.display());
    for (object, row) in objects.iter().zip(&rows) {
        let object = object.as_object().unwrap();
        let keys: Vec<&String> = object.keys().collect();
        assert_eq!(
            keys,
            header.iter().collect::<Vec<_>>(),
            "{}",
            path.display()
        );
        for ((column, cell), value) in header.iter().zip(row).zip(object.values()) {
            let what = format!("{} {column}: {value} vs {cell:?}", path.display());
            match value {
                Value::Null => assert_eq!(cell, "", "{what}"),
                Value::Bool(flag) => assert_eq!(cell, &flag.to_string(), "{what}"),
                Value::String(text) => assert_eq!(text, cell, "{what}"),
                Value::Number(number) => {
                    let (json, csv) = (number.as_f64().unwrap(), cell.parse::<f64>().unwrap());
                    assert!((json - csv).abs() <= 1e-15 * csv.abs(), "{what}");
                }
                other => panic!("{what}: not a cell: {other}"),
            }
        }
    }
}

/// No string of `rows` reads as a number: every number is a JSON number.
fn no_numeric_strings(rows: &[Value], what: &str) {
    for row in rows {
        for (key, value) in row.as_object().unwrap() {
            if let Value::String(text) = value {
                assert!(
                    text.parse::<f64>().is_err(),
                    "{what} {key}: the number {text:?} is a string"
                );
            }
        }
    }
}

#[test]
#[cfg_attr(
    not(feature = "schema-check"),
    ignore = "needs --features schema-check: run by .ci/run"
)]
fn every_model_prints_one_shape_that_its_schema_accepts() {
    let folder = TempDir::new().unwrap();
    for (index, case) in cases(folder.path()).iter().enumerate() {
        let out = folder.path().join(format!("out-{index}"));
        let json = run_json(case, &out);
        let schema = schema(case.model);
        let errors = check::errors(&schema, &json);
        assert!(errors.is_empty(), "{}: {errors:#?}", case.model);
        let keys: Vec<&String> = json.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["model", "parameters", "results", "summary", "files"],
            "{}",
            case.model
        );
        assert_eq!(json["model"], case.model);
        // Every column of this run is one the schema declares (a swept key's would not be).
        let declared = schema["properties"]["results"]["items"]["properties"]
            .as_object()
            .unwrap();
        let results = json["results"].as_array().unwrap();
        for key in results[0].as_object().unwrap().keys() {
            assert!(declared.contains_key(key), "{}: {key}", case.model);
        }
        no_numeric_strings(results, case.model);
        same_as_csv(results, &out.join(case.results));
        let summary = json["summary"].as_array().unwrap();
        no_numeric_strings(summary, case.model);
        let summary_csv = out.join("summary.csv");
        if summary_csv.exists() {
            same_as_csv(summary, &summary_csv);
        } else {
            assert!(summary.is_empty(), "{}", case.model);
        }
        // `files` names what the run wrote.
        for path in json["files"].as_array().unwrap() {
            assert!(Path::new(path.as_str().unwrap()).is_file(), "{path}");
        }
    }
}

/// The schema refuses what the envelope must not print: a number as a string, a missing
/// column, another model's name.
#[test]
#[cfg_attr(
    not(feature = "schema-check"),
    ignore = "needs --features schema-check: run by .ci/run"
)]
fn the_schemas_refuse_a_numeric_string_a_missing_column_and_another_model() {
    let folder = TempDir::new().unwrap();
    let case = cases(folder.path()).pop().unwrap();
    let json = run_json(&case, &folder.path().join("out"));
    let contention = schema("contention");
    assert!(check::is_valid(&contention, &json));
    let mut stringly = json.clone();
    stringly["results"][0]["writes"] = Value::from("3");
    assert!(!check::is_valid(&contention, &stringly));
    let mut missing = json.clone();
    missing["results"][1]
        .as_object_mut()
        .unwrap()
        .remove("completion_ms");
    assert!(!check::is_valid(&contention, &missing));
    let mut other = json.clone();
    other["model"] = Value::from("load");
    assert!(!check::is_valid(&contention, &other));
    assert!(!check::is_valid(&schema("load"), &json));
}

/// The parameters are the run's resolved settings, typed: flags and defaults included.
#[test]
fn parameters_are_typed_and_resolved() {
    let folder = TempDir::new().unwrap();
    let case = cases(folder.path()).pop().unwrap();
    let json = run_json(&case, &folder.path().join("out"));
    let parameters = &json["parameters"];
    assert_eq!(parameters["config_file"], "race.toml");
    assert_eq!(parameters["clients"], serde_json::json!([2, 3]));
    assert_eq!(parameters["runs"], 3);
    // The defaults the file does not set: seed 42, base 5 ms, cap 2 s, retries until success.
    assert_eq!(parameters["seed"], 42);
    assert_eq!(parameters["base_ms"], 5.0);
    assert_eq!(parameters["cap_ms"], 2000.0);
    assert_eq!(parameters["max_retries"], Value::Null);
}

/// A sweep's `--json` is its model's one shape: the schema accepts it, `parameters` adds the
/// `sweep` (keys and points), and `results` and `summary` are the combined files' rows, the
/// swept key's column a number.
#[test]
#[cfg_attr(
    not(feature = "schema-check"),
    ignore = "needs --features schema-check: run by .ci/run"
)]
fn a_sweep_prints_its_models_shape() {
    let folder = TempDir::new().unwrap();
    let load = folder.path().join("load.toml");
    std::fs::write(&load, LOAD).unwrap();
    for (model, config, results, key) in [
        (
            "timeline",
            scenario_file("same-key-burst.toml"),
            "timeline.csv",
            "client.max_retries",
        ),
        ("load", load, "load.csv", "server.workers"),
    ] {
        let out = folder.path().join(format!("out-{model}"));
        let assert = simulate()
            .arg("--config")
            .arg(&config)
            .args(["--sweep", &format!("{key}=2,3"), "--json", "--out"])
            .arg(&out)
            .assert()
            .success();
        let json: Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
        let errors = check::errors(&schema(model), &json);
        assert!(errors.is_empty(), "{model}: {errors:#?}");
        assert_eq!(json["parameters"]["sweep"]["keys"][0], key);
        assert_eq!(
            json["parameters"]["sweep"]["points"]
                .as_array()
                .unwrap()
                .len(),
            2
        );
        let rows = json["results"].as_array().unwrap();
        assert_eq!(rows[0][key], 2);
        assert_eq!(rows[rows.len() - 1][key], 3);
        no_numeric_strings(rows, model);
        same_as_csv(rows, &out.join(results));
        let summary = json["summary"].as_array().unwrap();
        assert!(!summary.is_empty(), "{model}");
        same_as_csv(summary, &out.join("summary.csv"));
    }
}
