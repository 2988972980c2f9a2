//! Replays the inputs kept under `tests/fuzz_regressions/` through the two fuzzed parsers with
//! the fuzz targets' own checks (see the notes in `fuzz/`): inputs the fuzzers once crashed on, and
//! hand-picked edge cases at the limits of the parsers' arithmetic. None may panic, and
//! whatever is accepted must be within the documented limits.

use std::path::{Path, PathBuf};

use simulate::config::{Job, Overrides};
use simulate::parse::{self, AckLossList};

fn inputs(target: &str) -> Vec<(PathBuf, String)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target);
    let mut inputs: Vec<(PathBuf, String)> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned();
            (path, text)
        })
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no inputs in {}", folder.display());
    inputs
}

fn check_ack_loss_list(text: &str) -> Result<(), String> {
    let AckLossList(values) = parse::ack_loss_list(text)?;
    assert!(!values.is_empty(), "{text:?}");
    assert!(values.len() <= parse::MAX_ACK_LOSS_VALUES, "{text:?}");
    assert!(values.iter().all(|p| (0.0..=1.0).contains(p)), "{text:?}");
    Ok(())
}

fn check_config(text: &str) -> Result<(), String> {
    let path = Path::new("fuzz.toml");
    let config = match Job::from_text(text, path, &Overrides::default()) {
        Ok(Job::Article(config)) => config,
        Ok(_) => return Ok(()),
        Err(error) => return Err(error.to_string()),
    };
    let model = &config.model;
    assert!(!model.ack_loss.is_empty());
    assert!(model.ack_loss.iter().all(|p| (0.0..=1.0).contains(p)));
    assert!((1..=parse::MAX_REQUESTS).contains(&model.requests));
    assert!(model.max_retries <= parse::MAX_RETRIES);
    assert!((1..=parse::MAX_RUNS).contains(&model.runs));
    assert!(parse::check_total_deliveries(model.requests, model.max_retries, model.runs).is_ok());
    Ok(())
}

#[test]
fn kept_p_lists_parse_or_are_rejected_without_panicking() {
    for (path, text) in inputs("ack_loss_list") {
        let outcome = check_ack_loss_list(&text);
        let name = path.file_name().unwrap().to_string_lossy();
        // The edge cases' expected outcomes, worked out by hand from the grammar.
        match name.as_ref() {
            // START = STOP, far above 1: one value, which is not a probability.
            "widest_decimals" => assert!(outcome.unwrap_err().contains("not a probability")),
            // 0 and 10^-18, then 1.
            "finest_step" => assert_eq!(outcome, Ok(())),
            // 0, 0.0001, ..., 1 is 10,001 values: one over the limit.
            "just_over_the_value_limit" => assert!(outcome.unwrap_err().contains("more than")),
            _ => {}
        }
    }
}

#[test]
fn kept_config_files_parse_or_are_rejected_without_panicking() {
    for (path, text) in inputs("config") {
        let outcome = check_config(&text);
        let name = path.file_name().unwrap().to_string_lossy();
        match name.as_ref() {
            // 10^15 x 1001 x 19 > 2^64 - 1.
            "overflowing_product.toml" => {
                assert!(outcome.unwrap_err().contains("64 bits"));
            }
            // TOML has infinities; they are not probabilities.
            "p_infinite.toml" => assert!(outcome.unwrap_err().contains("not a probability")),
            // 2^64 - 1 does not fit TOML's i64 integers.
            "threads_max.toml" => assert!(outcome.is_err()),
            _ => {}
        }
    }
}
