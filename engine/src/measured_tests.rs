//! The measured distributions against closed forms, hand-worked cases and the sampling error
//! of their own draws: a sample quantile's share is binomial, so `n` draws put
//! `share(draw <= x_p)` within a few `sqrt(p (1 - p) / n)` of `p`.

use super::*;
use crate::distribution::Distribution;
use crate::rng::{SeedSequence, unit_f64};

/// Standard normal quantiles, from `scipy.stats.norm.ppf`.
const Z_75: f64 = 0.674_489_750_196_081_7;
const Z_90: f64 = 1.281_551_565_544_600_4;
const Z_99: f64 = 2.326_347_874_040_840_8;
const Z_999: f64 = 3.090_232_306_167_813;
const Z_9999: f64 = 3.719_016_485_455_709;

/// A realistic payments API: p50 120 ms, p90 310 ms, p99 900 ms, p99.9 2.4 s.
const API: [(f64, f64); 4] = [(0.5, 120.0), (0.9, 310.0), (0.99, 900.0), (0.999, 2400.0)];
const API_NAMES: [&str; 4] = ["p50_ms", "p90_ms", "p99_ms", "p999_ms"];

fn api() -> Measured {
    Measured::percentiles(&API, &API_NAMES).unwrap()
}

fn close(actual: f64, expected: f64, relative: f64) {
    assert!(
        (actual - expected).abs() <= relative * expected.abs(),
        "{actual} vs {expected}"
    );
}

/// `n` uniform draws of one seeded stream.
fn uniforms(seed: u64, n: usize) -> impl Iterator<Item = f64> {
    let mut stream = SeedSequence::new(seed).pcg_state();
    (0..n).map(move |_| unit_f64(stream.next_u64()))
}

/// Refuses a share of `n` draws more than `sigmas` binomial standard errors from `p`.
fn within_binomial(count: usize, n: usize, p: f64, sigmas: f64, what: &str) {
    let share = count as f64 / n as f64;
    let error = (p * (1.0 - p) / n as f64).sqrt();
    assert!(
        (share - p).abs() <= sigmas * error,
        "{what}: share {share} vs {p} ({:.1} standard errors)",
        (share - p) / error
    );
}

#[test]
fn percentiles_pass_through_every_given_point() {
    let measured = api();
    for (p, ms) in API {
        close(measured.quantile(p), ms, 1e-12);
    }
}

#[test]
fn sampled_quantiles_reproduce_the_given_percentiles() {
    // 400,000 draws: the share below each given percentile is binomial; 5 standard errors
    // (two-sided, four checks) fail by chance with probability about 2e-6.
    let measured = api();
    let n = 400_000;
    let draws: Vec<f64> = uniforms(7, n).map(|u| measured.quantile(u)).collect();
    for (p, ms) in API {
        let below = draws.iter().filter(|&&x| x <= ms).count();
        within_binomial(below, n, p, 5.0, &format!("p{p}"));
    }
}

#[test]
fn two_percentiles_are_the_log_normal_through_them() {
    let measured = Measured::percentiles(&[(0.5, 40.0), (0.99, 900.0)], &["p50", "p99"]).unwrap();
    let log_normal = Distribution::LogNormal {
        median_ms: 40.0,
        p99_ms: 900.0,
    };
    for step in 0..1000 {
        let u = (f64::from(step) + 0.5) / 1000.0;
        close(measured.quantile(u), log_normal.quantile(u), 1e-12);
    }
    // The log-normal's mean, median × e^(σ²/2) with σ = ln(900 / 40) / z_99, by hand.
    let sigma = (900.0_f64 / 40.0).ln() / Z_99;
    close(
        measured.mean_ms(),
        40.0 * (sigma * sigma / 2.0).exp(),
        1e-12,
    );
}

#[test]
fn the_body_and_the_tail_continue_the_outer_segments() {
    let measured = api();
    // Beyond p99.9: the log-normal through p99 and p99.9, so ln x is linear in z there.
    let slope = (2400.0_f64 / 900.0).ln() / (Z_999 - Z_99);
    close(
        measured.quantile(0.9999),
        2400.0 * (slope * (Z_9999 - Z_999)).exp(),
        1e-12,
    );
    // Below p50: the log-normal through p50 and p90; at p25, z = -z_75.
    let slope = (310.0_f64 / 120.0).ln() / Z_90;
    close(
        measured.quantile(0.25),
        120.0 * (-slope * Z_75).exp(),
        1e-12,
    );
    assert_eq!(measured.quantile(0.0), 0.0);
    // Between p90 and p99, the log-normal of that segment: at p95 (z from scipy).
    let slope = (900.0_f64 / 310.0).ln() / (Z_99 - Z_90);
    close(
        measured.quantile(0.95),
        310.0 * (slope * (1.644_853_626_951_472_2 - Z_90)).exp(),
        1e-12,
    );
}

#[test]
fn the_percentiles_mean_is_the_integral_of_the_quantile() {
    // The closed form per segment against the midpoint rule over u on a fine grid, the
    // far tail (u > 1 - 1e-7) left to the closed form's share: below 1e-3 relative here.
    let measured = api();
    let n = 2_000_000;
    let numeric: f64 = (0..n)
        .map(|i| measured.quantile((f64::from(i) + 0.5) / f64::from(n)))
        .sum::<f64>()
        / f64::from(n);
    close(measured.mean_ms(), numeric, 1e-3);
}

#[test]
fn percentiles_must_increase_and_be_named() {
    let error = Measured::percentiles(&[(0.5, 120.0), (0.9, 100.0)], &["p50_ms", "p90_ms"])
        .unwrap_err()
        .to_string();
    assert_eq!(error, "p90_ms (100) must be more than p50_ms (120)");
    let error = Measured::percentiles(&[(0.5, 120.0), (0.9, 120.0)], &["p50_ms", "p90_ms"])
        .unwrap_err()
        .to_string();
    assert_eq!(error, "p90_ms (120) must be more than p50_ms (120)");
    let error = Measured::percentiles(&[(0.5, 120.0)], &["p50_ms"])
        .unwrap_err()
        .to_string();
    assert_eq!(error, "needs at least 2 percentiles, found 1");
    let error = Measured::percentiles(&[(0.5, 0.0), (0.9, 1.0)], &["p50_ms", "p90_ms"])
        .unwrap_err()
        .to_string();
    assert_eq!(error, "p50_ms (0) must be more than 0 ms");
}

#[test]
fn samples_are_drawn_as_their_empirical_distribution() {
    // 1,000 samples on 0.5, 1.5, ... with a long tail; 300,000 draws. The largest gap between
    // the draws' ECDF and the samples' (Kolmogorov-Smirnov) is, by the
    // Dvoretzky-Kiefer-Wolfowitz inequality, above sqrt(ln(2 / a) / (2 n)) with probability
    // at most a = 1e-6.
    let samples: Vec<f64> = (0..1000)
        .map(|i| {
            let x = f64::from(i) + 0.5;
            if i % 10 == 0 { x * 40.0 } else { x }
        })
        .collect();
    let measured = Measured::samples(samples.clone(), "test", |i| format!("{i}")).unwrap();
    let n = 300_000;
    let mut draws: Vec<f64> = uniforms(11, n).map(|u| measured.quantile(u)).collect();
    draws.sort_by(f64::total_cmp);
    let mut sorted = samples.clone();
    sorted.sort_by(f64::total_cmp);
    let bound = ((2.0 / 1e-6_f64).ln() / (2.0 * n as f64)).sqrt();
    for (rank, &x) in sorted.iter().enumerate() {
        let sample_cdf = (rank + 1) as f64 / sorted.len() as f64;
        let draws_cdf = draws.partition_point(|&d| d <= x) as f64 / n as f64;
        assert!(
            (draws_cdf - sample_cdf).abs() <= bound,
            "at {x}: {draws_cdf} vs {sample_cdf} (bound {bound})"
        );
    }
    // Only the samples themselves are drawn.
    assert!(
        draws
            .iter()
            .all(|d| sorted.binary_search_by(|s| s.total_cmp(d)).is_ok())
    );
    // Hand-worked: four samples, each a quarter of the draws.
    let four = Measured::samples(vec![30.0, 10.0, 40.0, 20.0], "four", |i| format!("{i}")).unwrap();
    assert_eq!(four.quantile(0.0), 10.0);
    assert_eq!(four.quantile(0.249), 10.0);
    assert_eq!(four.quantile(0.25), 20.0);
    assert_eq!(four.quantile(0.999_999), 40.0);
    assert_eq!(four.mean_ms(), 25.0);
    assert_eq!(four.max_ms(), 40.0);
}

#[test]
fn bad_samples_are_named() {
    let error = Measured::samples(vec![1.0, -2.0], "s", |i| format!("line {}", i + 2))
        .unwrap_err()
        .to_string();
    assert_eq!(error, "line 3 (-2) must be a duration of at least 0 ms");
    let error = Measured::samples(Vec::new(), "s", |i| format!("{i}"))
        .unwrap_err()
        .to_string();
    assert_eq!(error, "needs at least 1 samples, found 0");
}

fn bucket_names() -> (impl Fn(usize) -> String, impl Fn(usize) -> String) {
    (|i| format!("le_ms[{i}]"), |i| format!("counts[{i}]"))
}

#[test]
fn buckets_are_uniform_inside_as_prometheus_interpolates() {
    let (bound, count) = bucket_names();
    // 5 payments up to 10 ms, 5 from 10 to 20 ms: the quartiles are 5 and 15 ms.
    let two = Measured::buckets(0.0, &[10.0, 20.0], &[5.0, 10.0], "h", &bound, &count).unwrap();
    close(two.quantile(0.25), 5.0, 1e-15);
    close(two.quantile(0.75), 15.0, 1e-15);
    close(two.mean_ms(), 10.0, 1e-15);
    // The +Inf bucket's 2 of 10 at the last finite bound, as histogram_quantile says.
    let overflow = Measured::buckets(
        0.0,
        &[10.0, f64::INFINITY],
        &[8.0, 10.0],
        "h",
        &bound,
        &count,
    )
    .unwrap();
    assert_eq!(overflow.quantile(0.85), 10.0);
    close(overflow.quantile(0.4), 5.0, 1e-15);
    // 8 × 5 ms + 2 × 10 ms over 10.
    close(overflow.mean_ms(), 6.0, 1e-15);
    assert_eq!(overflow.max_ms(), 10.0);
    // An empty bucket is never drawn: nothing from 10 to 20 ms.
    let gap = Measured::buckets(
        0.0,
        &[10.0, 20.0, 30.0],
        &[5.0, 5.0, 10.0],
        "h",
        &bound,
        &count,
    )
    .unwrap();
    for u in uniforms(3, 10_000) {
        let x = gap.quantile(u);
        assert!(!(x > 10.0 && x < 20.0), "{x}");
    }
}

#[test]
fn bucket_shares_are_reproduced() {
    // Prometheus' default buckets in ms with counts of a payments API; 300,000 draws; each
    // bucket's share is binomial, 5 standard errors each (12 buckets: about 7e-6 by chance).
    let (bound, count) = bucket_names();
    let le = [
        5.0,
        10.0,
        25.0,
        50.0,
        100.0,
        250.0,
        500.0,
        1000.0,
        2500.0,
        5000.0,
        10000.0,
        f64::INFINITY,
    ];
    let cumulative = [
        3.0, 20.0, 150.0, 800.0, 3100.0, 8200.0, 9400.0, 9800.0, 9950.0, 9985.0, 9995.0, 10000.0,
    ];
    let measured = Measured::buckets(0.0, &le, &cumulative, "h", &bound, &count).unwrap();
    let n = 300_000;
    let draws: Vec<f64> = uniforms(5, n).map(|u| measured.quantile(u)).collect();
    let mut lower = 0.0;
    let mut below = 0.0;
    for (&upper, &cumulative) in le.iter().zip(&cumulative) {
        let in_bucket = if upper == f64::INFINITY {
            draws.iter().filter(|&&x| x == 10000.0).count()
        } else {
            draws
                .iter()
                .filter(|&&x| (x > lower || (lower == 0.0 && x >= 0.0)) && x < upper)
                .count()
        };
        let share = (cumulative - below) / 10000.0;
        within_binomial(in_bucket, n, share, 5.0, &format!("bucket le {upper}"));
        lower = upper;
        below = cumulative;
    }
}

#[test]
fn bad_buckets_are_named() {
    let (bound, count) = bucket_names();
    let error = Measured::buckets(0.0, &[10.0, 10.0], &[1.0, 2.0], "h", &bound, &count)
        .unwrap_err()
        .to_string();
    assert_eq!(error, "le_ms[1] (10) must be more than le_ms[0] (10)");
    let error = Measured::buckets(0.0, &[10.0, 20.0], &[5.0, 4.0], "h", &bound, &count)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "counts[1] (cumulative, less than counts[0] = 5) (4) must not decrease: the counts \
         are cumulative"
    );
    let error = Measured::buckets(0.0, &[10.0], &[0.0], "h", &bound, &count)
        .unwrap_err()
        .to_string();
    assert_eq!(
        error,
        "counts[0] (0) must be more than 0: the histogram counts nothing"
    );
}

#[test]
fn equal_distributions_are_kept_once() {
    let first = api().leak();
    let second = api().leak();
    assert!(std::ptr::eq(first, second));
    let other = Measured::percentiles(&[(0.5, 1.0), (0.9, 2.0)], &["a", "b"])
        .unwrap()
        .leak();
    assert!(!std::ptr::eq(first, other));
    let distribution = Distribution::Measured(first);
    assert_eq!(distribution.sampler().quantile(0.5), 120.0);
    assert_eq!(
        distribution.describe(),
        "percentiles p50 120 ms, p90 310 ms, p99 900 ms, p99.9 2400 ms"
    );
}
