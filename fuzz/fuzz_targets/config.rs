//! Fuzz target: a config file's text, of any model, through `Job::from_text` exactly as
//! `--config` reads it (the `model` key first, then that model's schema, merged with the empty
//! flags). It must never panic, and every configuration it accepts must be within the
//! documented limits: for the article, with the whole run's delivery count
//! (`requests * (max_retries + 1) * runs`) fitting in 64 bits; for a timeline scenario, with
//! payments, runs, copies and retries bounded; for a contention or load file, with its
//! counts, times and rates in range; for every model but the article's, with an output
//! folder that stays inside the folder it names.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use simulate::config::{Job, Overrides, sweep};
use simulate::parse;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(job) = Job::from_text(text, Path::new("fuzz.toml"), &Overrides::default()) else {
        return;
    };
    check(job);
});

/// The invariants every accepted job holds; a sweep's points are each a job of one model.
fn check(job: Job) {
    match job {
        Job::Article(config) => {
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
            assert!(
                config
                    .output
                    .out_dir
                    .to_str()
                    .is_some_and(|out| !out.is_empty())
            );
        }
        Job::Timeline(config) => {
            let model = &config.model;
            assert!((1..=parse::MAX_PAYMENTS).contains(&model.payments));
            assert!((1..=parse::MAX_RUNS).contains(&model.runs));
            assert!(!model.strategies.is_empty() && !model.scenarios.is_empty());
            for scenario in &model.scenarios {
                assert!(scenario.arrivals.copies <= parse::MAX_COPIES);
                assert!(scenario.client.max_retries <= parse::MAX_RETRIES);
            }
            let out = config
                .output
                .out_dir
                .to_str()
                .expect("a UTF-8 output folder");
            assert!(!out.is_empty());
            assert!(out != "output/." && out != "output/..", "{out}");
        }
        Job::Contention(config) => {
            let model = &config.model;
            assert!((1..=parse::MAX_RUNS).contains(&model.runs));
            assert!(!model.clients.is_empty() && model.clients.iter().all(|&n| n > 0));
            assert!(!model.policies.is_empty());
            assert!(model.base_ms.is_finite() && model.base_ms >= 0.0);
            assert!(model.cap_ms.is_finite() && model.cap_ms >= model.base_ms);
            let out = config
                .output
                .out_dir
                .to_str()
                .expect("a UTF-8 output folder");
            assert!(!out.is_empty());
            assert!(out != "output/." && out != "output/..", "{out}");
        }
        Job::Load(config) => {
            let model = &config.model;
            assert!((1..=parse::MAX_RUNS).contains(&model.runs));
            assert!(!model.strategies.is_empty() && !model.scenarios.is_empty());
            assert!(model.bucket_ms.is_finite() && model.bucket_ms > 0.0);
            for scenario in &model.scenarios {
                let duration = scenario.arrivals.duration_ms;
                assert!(duration.is_finite() && duration > 0.0, "{duration}");
                assert!(scenario.server.workers.is_none_or(|workers| workers > 0));
                assert!(scenario.server.queue_limit.is_none_or(|limit| limit > 0));
            }
            let out = config
                .output
                .out_dir
                .to_str()
                .expect("a UTF-8 output folder");
            assert!(!out.is_empty());
            assert!(out != "output/." && out != "output/..", "{out}");
        }
        Job::Sweep(sweep) => {
            assert!(!sweep.keys.is_empty());
            assert!((1..=sweep::MAX_POINTS).contains(&sweep.points.len()));
            for (labels, point) in sweep.points {
                assert_eq!(labels.len(), sweep.keys.len());
                assert!(
                    !matches!(point, Job::Sweep(_)),
                    "a sweep's point is not a sweep"
                );
                check(point);
            }
        }
    }
}
