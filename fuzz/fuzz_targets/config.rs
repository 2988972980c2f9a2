//! Fuzz target: a config file's text through the TOML parser (`FileSettings::from_toml`) and
//! the merge with the (empty) flags (`Config::merge`). It must never panic, and every
//! configuration it accepts must be within the documented limits, with the whole run's
//! delivery count (`requests * (max_retries + 1) * runs`) fitting in 64 bits.

#![no_main]

use std::path::Path;

use clap::Parser;
use libfuzzer_sys::fuzz_target;
use simulate::cli::Cli;
use simulate::config::ArticleConfig as Config;
use simulate::config::article::FileSettings;
use simulate::parse;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let path = Path::new("fuzz.toml");
    let Ok(file) = FileSettings::from_toml(text, path) else {
        return;
    };
    let cli = Cli::try_parse_from(["simulate"]).expect("no flags parse");
    let Ok(config) = Config::merge(&cli, Some((file, path)), 2) else {
        return;
    };
    let model = &config.model;
    assert!(!model.ack_loss.is_empty());
    assert!(model.ack_loss.len() <= parse::MAX_ACK_LOSS_VALUES);
    assert!(model.ack_loss.iter().all(|p| (0.0..=1.0).contains(p)));
    assert!((1..=parse::MAX_REQUESTS).contains(&model.requests));
    assert!(model.max_retries <= parse::MAX_RETRIES);
    assert!((1..=parse::MAX_RUNS).contains(&model.runs));
    let deliveries = model
        .requests
        .checked_mul(u64::from(model.max_retries) + 1)
        .and_then(|total| total.checked_mul(u64::from(model.runs)));
    assert!(deliveries.is_some(), "{model:?} overflows");
});
