//! The statistical self-check: the simulated counts agree with the closed forms, and the 95%
//! intervals of `summary.csv` cover the closed-form expectation about 95% of the time.
//!
//! Everything is seeded, so the test is deterministic; the tolerances below say how unlikely a
//! failure would be if the simulator and the intervals were right (a bug in either moves the
//! numbers far outside them).

use engine::Silent;
use simulate::model::article::server::ServerKind;
use simulate::model::article::summary::{self, Metric, MetricSummary};
use simulate::model::article::{self as model, ArticleModel, ArticleResults, Engine};

/// From a rare loss (about one retry per run of 2,000 requests, where counts are small and a
/// normal interval collapses) to a common one.
const ACK_LOSS: [f64; 4] = [0.0005, 0.02, 0.1, 0.3];
const REQUESTS: u64 = 2_000;
const MAX_RETRIES: u32 = 5;
/// Independent experiments whose intervals are checked.
const EXPERIMENTS: usize = 200;

/// `runs_per_experiment · EXPERIMENTS` replications from one seed, cut into experiments of
/// `runs_per_experiment` runs each; each experiment summarised on its own.
fn experiments(seed: u64, runs_per_experiment: u32) -> Vec<Vec<MetricSummary>> {
    let model = ArticleModel {
        ack_loss: ACK_LOSS.to_vec(),
        requests: REQUESTS,
        max_retries: MAX_RETRIES,
        seed,
        runs: runs_per_experiment * EXPERIMENTS as u32,
    };
    let results = model::simulate(&model, Engine::Fast { threads: 2 }, &Silent).unwrap();
    let per_experiment = runs_per_experiment as usize * ACK_LOSS.len();
    results
        .points
        .chunks(per_experiment)
        .map(|points| {
            summary::summarise(&ArticleResults {
                model: ArticleModel {
                    runs: runs_per_experiment,
                    ..model.clone()
                },
                points: points.to_vec(),
            })
        })
        .collect()
}

/// The non-idempotent server's metrics that vary (the key server's are the same draws).
const CHECKED: [Metric; 4] = [
    Metric::DoubleChargeRate,
    Metric::ExtraChargesPerRequest,
    Metric::RetriesExhaustedRate,
    Metric::DeliveriesPerRequest,
];

/// The closed-form mean and variance per request of `metric` (non-idempotent server) as
/// docs/closed-forms.md derives them, written out here independently of the simulator's own
/// `closed_form` module: with `X` the retries, `P(X >= k) = p^k` for `k <= R`, so
/// `E[X] = p (1 - p^R) / (1 - p)`, `E[X²] = Σ_{k=1..R} (2k - 1) p^k`, a rate `P` has variance
/// `P (1 - P)`.
fn closed_form(metric: Metric, p: f64) -> (f64, f64) {
    let retries = MAX_RETRIES as i32;
    let mean_x = p * (1.0 - p.powi(retries)) / (1.0 - p);
    let second_x: f64 = (1..=retries)
        .map(|k| f64::from(2 * k - 1) * p.powi(k))
        .sum();
    let variance_x = second_x - mean_x * mean_x;
    let rate = |share: f64| (share, share * (1.0 - share));
    match metric {
        Metric::DoubleChargeRate => rate(p),
        Metric::ExtraChargesPerRequest => (mean_x, variance_x),
        Metric::RetriesExhaustedRate => rate(p.powi(retries)),
        Metric::DeliveriesPerRequest => (1.0 + mean_x, variance_x),
        Metric::PreventedDuplicatesPerRequest => unreachable!("not checked"),
    }
}

/// For every (p, metric): how many of the experiments' intervals contain the closed form, and
/// the experiments' z-scores against it (computed here, and checked against `summary.csv`'s).
fn coverage(experiments: &[Vec<MetricSummary>]) -> Vec<(f64, Metric, usize, Vec<f64>)> {
    let mut cells = Vec::new();
    for p in ACK_LOSS {
        for metric in CHECKED {
            let (expected, variance) = closed_form(metric, p);
            let rows: Vec<&MetricSummary> = experiments
                .iter()
                .map(|rows| summary::find(rows, p, ServerKind::NonIdempotent, metric).unwrap())
                .collect();
            let covered = rows
                .iter()
                .filter(|row| row.interval.contains(expected))
                .count();
            let z: Vec<f64> = rows
                .iter()
                .map(|row| {
                    let requests = f64::from(row.runs) * row.requests_per_run as f64;
                    let z = (row.mean - expected) / (variance / requests).sqrt();
                    let reported = row.z_score.unwrap();
                    assert!(
                        (reported - z).abs() <= 1e-6 * z.abs().max(1.0),
                        "p = {p}, {}: z-score {reported}, closed form gives {z}",
                        metric.name()
                    );
                    z
                })
                .collect();
            cells.push((p, metric, covered, z));
        }
    }
    cells
}

/// Checks one set of experiments; `label` names the interval method in messages.
fn check(label: &str, experiments: &[Vec<MetricSummary>]) {
    let cells = coverage(experiments);
    let mut missed = 0;
    for (p, metric, covered, z) in &cells {
        // If an interval covers with probability 0.95, the misses among 200 independent
        // experiments are Binomial(200, 0.05): mean 10, sd 3.1. Score intervals on small
        // counts cover a little less: about one event per run (p = 0.0005, 2,000 requests)
        // the Wilson interval covers 92.0% (exact, summed over Binomial(2000, 0.0005)), so
        // the misses are at most about Binomial(200, 0.08): mean 16, sd 3.8, and 31+ misses
        // have probability 3e-4. An interval that is off by a factor (a missing sqrt(n), the
        // wrong quantile) covers far less than that or all 200, and a normal interval from the
        // per-request spread covers about 63% at p = 0.0005 (it is [0, 0] whenever no request
        // retried, e^-1 of the time).
        assert!(
            *covered >= 170,
            "{label}: p = {p}, {}: only {covered} of 200 intervals cover the closed form",
            metric.name()
        );
        missed += EXPERIMENTS - covered;
        // The z-scores of a correct simulator are standard normal: their mean over 200
        // experiments has sd 0.071 and their sd is 1 ± 0.05. The bounds are about 4 sd wide.
        let mean = z.iter().sum::<f64>() / z.len() as f64;
        let sd = (z.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (z.len() - 1) as f64).sqrt();
        assert!(
            mean.abs() < 0.3,
            "{label}: p = {p}, {}: mean z-score {mean}",
            metric.name()
        );
        // Rare events (retries exhausted at p = 0.02: 2000 · 0.02^5 ≈ 6e-6 expected) are almost
        // always 0, so their z-scores cluster on one value; the spread check needs a few events.
        // At p = 0.0005 the counts are about Poisson(1): their z-scores still have sd 1, with
        // sd about 0.06 over 200 experiments (kurtosis 4), so the same bounds hold.
        if *metric != Metric::RetriesExhaustedRate || *p == 0.3 {
            assert!(
                (0.8..1.2).contains(&sd),
                "{label}: p = {p}, {}: sd of z-scores {sd}",
                metric.name()
            );
        }
    }
    // Over all 16 cells (3,200 intervals, correlated within an experiment) the share that
    // misses should be near 5%; intervals that are too wide would miss almost never.
    let share = missed as f64 / (cells.len() * EXPERIMENTS) as f64;
    assert!(
        (0.02..0.08).contains(&share),
        "{label}: {share} of intervals miss the closed form"
    );
}

#[test]
fn single_run_intervals_cover_the_closed_forms() {
    // Wilson for the rates, the score interval on the counts for the means.
    check("one run", &experiments(20_240_601, 1));
}

#[test]
fn student_t_intervals_across_runs_cover_the_closed_forms() {
    // Five runs per experiment: Wilson on the pooled counts, t with 4 degrees of freedom.
    check("five runs", &experiments(20_240_602, 5));
}

#[test]
fn pooled_counts_match_the_closed_forms() {
    // All 1,000 runs of 2,000 requests pooled: 2 million requests per p. The z-score of each
    // pooled mean against its closed form is standard normal; |z| < 4 fails with
    // probability 6e-5 per cell.
    let model = ArticleModel {
        ack_loss: ACK_LOSS.to_vec(),
        requests: REQUESTS,
        max_retries: MAX_RETRIES,
        seed: 7,
        runs: 1_000,
    };
    let results = model::simulate(&model, Engine::Fast { threads: 2 }, &Silent).unwrap();
    let rows = summary::summarise(&results);
    for p in ACK_LOSS {
        for metric in CHECKED {
            let row = summary::find(&rows, p, ServerKind::NonIdempotent, metric).unwrap();
            let z = row.z_score.unwrap();
            assert!(z.abs() < 4.0, "p = {p}, {}: z = {z}", metric.name());
        }
        // Closed forms by hand: P(double-charged) = p, E[extra] = p + ... + p^5.
        let double = summary::find(
            &rows,
            p,
            ServerKind::NonIdempotent,
            Metric::DoubleChargeRate,
        )
        .unwrap();
        assert_eq!(double.closed_form, p);
        let extra = summary::find(
            &rows,
            p,
            ServerKind::NonIdempotent,
            Metric::ExtraChargesPerRequest,
        )
        .unwrap();
        let geometric = p * (1.0 - p.powi(5)) / (1.0 - p);
        assert!((extra.closed_form - geometric).abs() < 1e-15);
    }
}
