//! The two event loops against each other (issue #30): at unlimited capacity the shared
//! clock's server is the timeline's server (no queue, every payment its own client), so the
//! same parameters must give the same metrics per payment, up to sampling noise, although
//! the loops draw from different streams in a different order.
//!
//! Each loop runs `RUNS` independent runs; a metric's per-payment mean over each run is one
//! sample, and the two loops are compared with Welch's z, `(m1 − m2) / √(s1²/R + s2²/R)`.
//! Tolerance: Bonferroni over every comparison made (`m` = 1,431: 27 metrics in 53 cells) at a
//! family-wise false-alarm rate of 0.001, two-sided, puts the normal quantile at
//! `Φ⁻¹(1 − 0.0005 / m)` = 4.96; the variances are estimated from 12 runs each, so the
//! statistic has Student's tails, with Welch's degrees of freedom from 11 (one loop's
//! variance dominating) to 22 (equal variances), whose quantiles at that level are 10.06 and
//! 6.85. The limit used, [`Z_LIMIT`], is 6.85: exact for equal variances, a little stricter
//! than the Bonferroni level otherwise. A real difference in the rules moves metrics far
//! beyond it at this size: making the shared clock's crashes roll back as in the charge's
//! transaction whatever the store gives |z| from 7 to 17 on 24 comparisons; ignoring the
//! fingerprint on the shared clock (no 422: the mismatch replayed) gives |z| from 10 to 17
//! on 10 comparisons; a shared-clock completer whose work takes no time gives |z| from 6.6
//! to 9.8 on 3; an outbox that does not deduplicate gives |z| = 22.6 on 2.
//!
//! The files compared are `configs/redis-vs-transaction.toml` (crashes, the three key
//! stores, failed key writes, a `key_first` lock and the completer; its completer scenario
//! again with the completer's work taking 1 to 4 s, so that some keys are recovered and
//! others outlive their lock) and the `store` scenario
//! of `configs/error-replay.toml` under `unique_key` (a first processing failing with a
//! stored 500, replayed: the one case where the loops' 500s agree, since the shared clock
//! fails every processing with `error_rate` and the timeline the first one only), and
//! `configs/same-key-different-body.toml` (retries with another body under the same key,
//! with and without a fingerprint: 422s, wrong replays, successes no charge backs), and
//! `configs/receipts-outbox.toml` (receipts sent directly or through an outbox, with crashes
//! and failed sends), and `configs/same-key-burst.toml` (10 copies of each payment under one
//! key, sequential and concurrent, under none, check_then_insert and unique_key: with its
//! fixed latencies every payment is the same, so the loops must agree exactly; then again
//! with random spacing and exponential latencies and processing). Making the shared clock's
//! copies each a payment of its own with its own key gives |z| = inf on 40 comparisons.
//! And `configs/provider-without-key.toml` (a provider behind the server, retried by the
//! server beneath the client's retries, with and without the key passed downstream), and
//! `configs/webhook-receiver.toml` (a receiver answering duplicates 200, 409 or 500).

use std::path::Path;

use engine::Silent;
use engine::distribution::Distribution;
use simulate::config::{Job, Overrides, TimelineConfig};
use simulate::model::load::{
    self, LoadArrivals, LoadClient, LoadModel, LoadNetwork, LoadScenario, LoadServer, LoadStrategy,
    Phase, PhaseRate,
};
use simulate::model::timeline::{self, ArrivalProcess, CopySpacing, Scenario, Strategy};

/// Independent runs per loop.
const RUNS: u32 = 12;
/// Payments per run (the shared clock's Poisson count has this mean), unless
/// `LOOPS_AGREE_PAYMENTS` says otherwise (`benches/loops_agree.sh` runs the same comparison
/// at a large size).
const PAYMENTS: u64 = 1_500;

/// Payments per run: [`PAYMENTS`], or `LOOPS_AGREE_PAYMENTS`.
fn payments() -> u64 {
    std::env::var("LOOPS_AGREE_PAYMENTS")
        .ok()
        .map(|text| {
            text.parse()
                .expect("LOOPS_AGREE_PAYMENTS is a whole number")
        })
        .unwrap_or(PAYMENTS)
}
/// The largest |z| accepted (see the module's header).
const Z_LIMIT: f64 = 6.85;

/// A shipped timeline file's model with `RUNS` runs of `PAYMENTS` payments.
fn timeline_model(name: &str) -> timeline::TimelineModel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("configs")
        .join(name);
    let overrides = Overrides {
        config: Some(path),
        ..Default::default()
    };
    let Job::Timeline(TimelineConfig { mut model, .. }) =
        Job::from_overrides(&overrides).expect("a shipped file")
    else {
        panic!("{name} is a plain timeline file");
    };
    model.runs = RUNS;
    model.payments = payments();
    model
}

/// The same scenario on the shared clock with unlimited workers: Poisson arrivals at the
/// file's rate for as long as `PAYMENTS` take on average, every payment its own client. A
/// plain timeline's payments do not meet, so when they arrive changes none of their metrics:
/// a burst of them is compared with Poisson arrivals at one payment a second.
fn on_shared_clock(scenario: &Scenario) -> LoadScenario {
    let rate_per_s = match scenario.arrivals.process {
        ArrivalProcess::Poisson { rate_per_s } => rate_per_s,
        ArrivalProcess::Burst => 1.0,
        ArrivalProcess::Sequential => panic!("the compared files have no sequential arrivals"),
    };
    let duration_ms = payments() as f64 / rate_per_s * 1000.0;
    LoadScenario {
        name: scenario.name.clone(),
        arrivals: LoadArrivals {
            clients: None,
            duration_ms,
            phases: vec![Phase {
                until_ms: duration_ms,
                rate: PhaseRate::Constant(rate_per_s),
            }],
            copies: scenario.arrivals.copies(),
        },
        network: LoadNetwork {
            request_latency: scenario.network.request_latency,
            response_latency: scenario.network.response_latency,
            request_loss: scenario.network.request_loss,
            ack_loss: scenario.network.ack_loss,
            outages: Vec::new(),
        },
        server: LoadServer {
            workers: None,
            queue_limit: None,
            drop_expired: false,
            processing: scenario.processing,
            processing_per_in_flight_ms: 0.0,
            error_rate: scenario.key.error_rate,
            error_policy: scenario.key.error_policy,
            key_ttl_ms: scenario.key.key_ttl_ms,
            duplicate_answer: scenario.key.duplicate_answer,
            fingerprint: scenario.key.fingerprint,
            capacity: Vec::new(),
            key_server: scenario.backend.key_server(),
            key_store_outages: Default::default(),
            receipts: scenario.backend.receipts,
            provider: scenario.backend.provider,
        },
        client: LoadClient {
            timeout_ms: scenario.client.timeout_ms,
            max_retries: scenario.client.max_retries,
            backoff: scenario.client.backoff,
            token_bucket: None,
            adaptive_bucket: None,
            breaker: None,
            retry_ratio: None,
            controls: Default::default(),
            payment_deadline_ms: None,
            different_body_rate: scenario.client.different_body_rate,
        },
    }
}

/// The metrics both loops count, per payment, in the timeline's names: each loop's run as a
/// list of `(name, total)`, with the run's payments.
type Metrics = (u64, Vec<(&'static str, u64)>);

fn timeline_metrics(counts: &timeline::Counters) -> Metrics {
    (
        counts.payments,
        vec![
            ("succeeded", counts.succeeded),
            ("gave_up_charged", counts.gave_up_charged),
            ("attempts", counts.attempts),
            ("deliveries", counts.deliveries),
            ("charges", counts.charges),
            ("double_charged_payments", counts.double_charged_payments),
            ("conflicts", counts.conflicts),
            ("replays", counts.replays + counts.errors_replayed),
            ("server_errors", counts.server_errors),
            ("crashes_before_charge", counts.crashes_before_charge),
            ("crashes_after_charge", counts.crashes_after_charge),
            ("crashes_after_save", counts.crashes_after_save),
            ("charges_lost_by_crash", counts.charges_lost_by_crash),
            ("key_write_failures", counts.key_write_failures),
            ("keys_lost", counts.keys_lost),
            ("completer_recoveries", counts.completer_recoveries),
            ("rejected_mismatches", counts.rejected_mismatches),
            ("wrong_replays", counts.wrong_replays),
            (
                "told_succeeded_not_charged",
                counts.told_succeeded_not_charged,
            ),
            ("receipts_sent", counts.receipts_sent),
            ("receipts_duplicated", counts.receipts_duplicated),
            ("receipts_missing", counts.receipts_missing),
            ("receipt_send_failures", counts.receipt_send_failures),
            ("provider_calls", counts.provider_calls),
            ("provider_timeouts", counts.provider_timeouts),
            ("provider_charges", counts.provider_charges),
            (
                "duplicate_provider_charges",
                counts.duplicate_provider_charges,
            ),
        ],
    )
}

fn load_metrics(tally: &load::LoadTally) -> Metrics {
    let (counts, keys) = (&tally.counts, &tally.key_store);
    let (bodies, receipts, provider) = (&tally.bodies, &tally.receipts, &tally.provider);
    (
        counts.payments,
        vec![
            ("succeeded", counts.succeeded),
            ("gave_up_charged", counts.failed_charged),
            ("attempts", counts.attempts),
            ("deliveries", counts.calls),
            ("charges", counts.charges),
            ("double_charged_payments", counts.double_charges),
            ("conflicts", counts.conflicts),
            ("replays", counts.replays),
            ("server_errors", counts.server_errors),
            ("crashes_before_charge", keys.crashes_before_charge),
            ("crashes_after_charge", keys.crashes_after_charge),
            ("crashes_after_save", keys.crashes_after_save),
            ("charges_lost_by_crash", keys.charges_lost_by_crash),
            ("key_write_failures", keys.key_write_failures),
            ("keys_lost", keys.keys_lost),
            ("completer_recoveries", keys.completer_recoveries),
            ("rejected_mismatches", bodies.rejected_mismatches),
            ("wrong_replays", bodies.wrong_replays),
            (
                "told_succeeded_not_charged",
                bodies.told_succeeded_not_charged,
            ),
            ("receipts_sent", receipts.receipts_sent),
            ("receipts_duplicated", receipts.receipts_duplicated),
            ("receipts_missing", receipts.receipts_missing),
            ("receipt_send_failures", receipts.receipt_send_failures),
            ("provider_calls", provider.provider_calls),
            ("provider_timeouts", provider.provider_timeouts),
            ("provider_charges", provider.provider_charges),
            (
                "duplicate_provider_charges",
                provider.duplicate_provider_charges,
            ),
        ],
    )
}

/// Mean and variance over the runs of each metric's per-payment mean.
fn per_payment(runs: &[Metrics]) -> Vec<(&'static str, f64, f64)> {
    let names: Vec<&str> = runs[0].1.iter().map(|(name, _)| *name).collect();
    names
        .iter()
        .enumerate()
        .map(|(index, &name)| {
            let samples: Vec<f64> = runs
                .iter()
                .map(|(payments, values)| values[index].1 as f64 / *payments as f64)
                .collect();
            let n = samples.len() as f64;
            let mean = samples.iter().sum::<f64>() / n;
            let variance = samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
            (name, mean, variance)
        })
        .collect()
}

/// Runs `file`'s scenarios (those `keep` selects, each changed by `adjust`) under
/// `strategies` on both loops and returns every comparison `(cell, metric, timeline mean,
/// shared mean, z)`.
fn compare(
    file: &str,
    keep: impl Fn(&Scenario) -> bool,
    adjust: impl Fn(&mut Scenario),
    strategies: &[Strategy],
) -> Vec<(String, &'static str, f64, f64, f64)> {
    let mut model = timeline_model(file);
    model.scenarios.retain(|scenario| keep(scenario));
    model.scenarios.iter_mut().for_each(adjust);
    model.strategies = strategies.to_vec();
    let plain = timeline::simulate(&model, 2, &Silent).expect("not interrupted");
    let shared = LoadModel {
        title: model.title.clone(),
        seed: model.seed,
        runs: RUNS,
        strategies: strategies
            .iter()
            .map(|strategy| LoadStrategy::from_name(strategy.name()).expect("shared names"))
            .collect(),
        scenarios: model.scenarios.iter().map(on_shared_clock).collect(),
        bucket_ms: 1_000.0,
        warm_up_ms: 0.0,
        recovery_window_ms: 5_000.0,
    };
    let loaded = load::simulate(&shared, 2, &Silent).expect("not interrupted");
    let mut comparisons = Vec::new();
    for (index, scenario) in model.scenarios.iter().enumerate() {
        for &strategy in strategies {
            let timeline_runs: Vec<Metrics> = plain
                .every_run()
                .filter(|row| row.scenario == index && row.strategy == strategy)
                .map(|row| timeline_metrics(&row.counts))
                .collect();
            let load_runs: Vec<Metrics> = loaded
                .rows
                .iter()
                .filter(|row| row.scenario == index && row.strategy.name() == strategy.name())
                .map(|row| load_metrics(&row.tally))
                .collect();
            assert_eq!(
                (timeline_runs.len(), load_runs.len()),
                (RUNS as usize, RUNS as usize)
            );
            let cell = format!("{} / {}", scenario.name, strategy.name());
            for ((name, m1, v1), (_, m2, v2)) in per_payment(&timeline_runs)
                .into_iter()
                .zip(per_payment(&load_runs))
            {
                let se = ((v1 + v2) / f64::from(RUNS)).sqrt();
                let z = if se > 0.0 {
                    (m1 - m2) / se
                } else if m1 == m2 {
                    0.0
                } else {
                    f64::INFINITY
                };
                comparisons.push((cell.clone(), name, m1, m2, z));
            }
        }
    }
    comparisons
}

#[test]
fn at_unlimited_capacity_the_two_loops_agree_on_every_metric() {
    let unchanged = |_: &mut Scenario| {};
    let mut comparisons = compare(
        "redis-vs-transaction.toml",
        |_| true,
        unchanged,
        &Strategy::ALL,
    );
    comparisons.extend(compare(
        "redis-vs-transaction.toml",
        |scenario| scenario.name == "redis-lock-first-completer",
        |scenario| {
            scenario.backend.key.completer_work = Some(Distribution::Uniform {
                low_ms: 1_000.0,
                high_ms: 4_000.0,
            });
        },
        &[Strategy::UniqueKey],
    ));
    comparisons.extend(compare(
        "error-replay.toml",
        |scenario| scenario.name == "store",
        unchanged,
        &[Strategy::UniqueKey],
    ));
    comparisons.extend(compare(
        "same-key-different-body.toml",
        |_| true,
        unchanged,
        &Strategy::ALL,
    ));
    comparisons.extend(compare(
        "receipts-outbox.toml",
        |_| true,
        unchanged,
        &Strategy::ALL,
    ));
    comparisons.extend(compare(
        "webhook-receiver.toml",
        |_| true,
        unchanged,
        &Strategy::ALL,
    ));
    comparisons.extend(compare(
        "provider-without-key.toml",
        |_| true,
        unchanged,
        &Strategy::ALL,
    ));
    let copies = [
        Strategy::None,
        Strategy::CheckThenInsert,
        Strategy::UniqueKey,
    ];
    // Fixed latencies: every payment the same, so the loops must agree exactly.
    comparisons.extend(compare("same-key-burst.toml", |_| true, unchanged, &copies));
    comparisons.extend(compare(
        "same-key-burst.toml",
        |_| true,
        |scenario| {
            scenario.arrivals.copy_spacing = CopySpacing::Random;
            scenario.network.request_latency = Distribution::Exponential { mean_ms: 2.0 };
            scenario.network.response_latency = Distribution::Exponential { mean_ms: 2.0 };
            scenario.processing = Distribution::Exponential { mean_ms: 10.0 };
        },
        &copies,
    ));
    // The comparisons have power: the crashes and lost keys are there to be compared.
    let lost: f64 = comparisons
        .iter()
        .filter(|(_, name, ..)| *name == "keys_lost")
        .map(|(_, _, m1, ..)| m1)
        .sum();
    assert!(lost > 0.01, "the redis scenarios lose keys: {lost}");
    let mismatched: f64 = comparisons
        .iter()
        .filter(|(_, name, ..)| name.contains("mismatches") || name.contains("wrong_replays"))
        .map(|(_, _, m1, ..)| m1)
        .sum();
    assert!(mismatched > 0.01, "the bodies differ: {mismatched}");
    let duplicated: f64 = comparisons
        .iter()
        .filter(|(_, name, ..)| *name == "receipts_duplicated" || *name == "receipts_missing")
        .map(|(_, _, m1, ..)| m1)
        .sum();
    assert!(
        duplicated > 0.01,
        "receipts are duplicated or missing: {duplicated}"
    );
    let moved_twice: f64 = comparisons
        .iter()
        .filter(|(_, name, ..)| *name == "duplicate_provider_charges")
        .map(|(_, _, m1, ..)| m1)
        .sum();
    assert!(
        moved_twice > 0.01,
        "the provider moves money twice: {moved_twice}"
    );
    let largest = comparisons
        .iter()
        .max_by(|a, b| a.4.abs().total_cmp(&b.4.abs()))
        .expect("comparisons were made");
    eprintln!(
        "{} comparisons, the largest |z| {:.2} ({} {})",
        comparisons.len(),
        largest.4.abs(),
        largest.0,
        largest.1
    );
    let off: Vec<String> = comparisons
        .iter()
        .filter(|(.., z)| z.abs() > Z_LIMIT)
        .map(|(cell, name, m1, m2, z)| {
            format!("{cell} {name}: timeline {m1:.5} shared {m2:.5} per payment, z = {z:.1}")
        })
        .collect();
    assert!(
        off.is_empty(),
        "{} of {} comparisons beyond |z| = {Z_LIMIT}:\n{}",
        off.len(),
        comparisons.len(),
        off.join("\n")
    );
}
