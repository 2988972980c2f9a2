//! Offline clients and the reconciliation look-up: hand-worked timelines of one payment, and
//! the share of offline clients charged twice against its closed form `P(D >= T)` for an
//! offline duration `D` and a key TTL `T`, computed here from the distributions' own
//! formulas, not from the code.

use super::tests::{model, scenario, tallies};
use super::*;
use engine::Silent;
use engine::distribution::Distribution;

/// One hour (ms).
const HOUR_MS: f64 = 3_600_000.0;

/// 20 ms each way, 50 ms processing, no loss, a 1 s timeout, `max_retries` retries without
/// backoff, every client offline for `offline`, keys kept `key_ttl_ms`.
fn offline(
    offline: Distribution,
    share: f64,
    max_retries: u32,
    key_ttl_ms: Option<f64>,
) -> Scenario {
    let mut scenario = scenario();
    scenario.network.request_latency = Distribution::Fixed { ms: 20.0 };
    scenario.network.response_latency = Distribution::Fixed { ms: 20.0 };
    scenario.processing = Distribution::Fixed { ms: 50.0 };
    scenario.client.max_retries = max_retries;
    scenario.key.key_ttl_ms = key_ttl_ms;
    scenario.client_lifecycle.offline = Some(Offline {
        share,
        duration: offline,
    });
    scenario
}

/// The highest latency of a tally of one payment (ms, at most 0.1% high).
fn latency(tally: &StrategyTally) -> f64 {
    tally.latency.quantile_ms(1.0).unwrap()
}

/// Within the histogram's 0.1% of `expected`.
fn near(value: f64, expected: f64) -> bool {
    value >= expected && value <= expected * 1.001 + 0.001
}

#[test]
fn an_offline_client_resends_on_reconnect_and_an_expired_key_charges_again() {
    // Sent at 0, delivered at 20 (unique_key inserts the key), charged at 70, answered at 90
    // to a client offline since 0. Back at 10,000 it resends: delivered at 10,020, 10,000
    // after the key was created, so a 5 s TTL has pruned it and the resend charges again
    // (answered at 10,090); without a TTL it is replayed (answered at 10,040).
    let ten_s = Distribution::Fixed { ms: 10_000.0 };
    let [none, check, unique] = tallies(offline(ten_s, 1.0, 3, Some(5_000.0)), 1, 1);
    for tally in [&none, &check, &unique] {
        let counts = &tally.counts;
        assert_eq!(
            (counts.attempts, counts.deliveries, counts.charges),
            (2, 2, 2)
        );
        assert_eq!(
            (counts.offline_payments, counts.offline_double_charged),
            (1, 1)
        );
        assert_eq!((counts.double_charged_payments, counts.succeeded), (1, 1));
        assert!(near(latency(tally), 10_090.0), "{}", latency(tally));
    }
    assert_eq!(unique.counts.expired_key_charges, 1);
    // check_then_insert inserts at the charge, 70: 9,950 before the resend, still pruned.
    assert_eq!(check.counts.expired_key_charges, 1);
    let [none, check, unique] = tallies(offline(ten_s, 1.0, 3, None), 1, 1);
    assert_eq!(
        (none.counts.charges, none.counts.offline_double_charged),
        (2, 1)
    );
    for tally in [&check, &unique] {
        let counts = &tally.counts;
        assert_eq!(
            (
                counts.charges,
                counts.replays,
                counts.offline_double_charged
            ),
            (1, 1, 0)
        );
        assert_eq!(counts.offline_payments, 1);
        assert!(near(latency(tally), 10_040.0), "{}", latency(tally));
    }
}

#[test]
fn an_offline_client_without_retries_gives_up_when_it_reconnects() {
    // Charged at 70 while the client is offline; back at 10,000 with no retry left, it
    // gives up: charged and told failed.
    let ten_s = Distribution::Fixed { ms: 10_000.0 };
    for tally in tallies(offline(ten_s, 1.0, 0, None), 1, 1) {
        let counts = &tally.counts;
        assert_eq!(
            (counts.attempts, counts.charges, counts.gave_up_charged),
            (1, 1, 1)
        );
        assert_eq!(counts.told_failed_after_reconciliation, 1);
        assert!(near(latency(&tally), 10_000.0), "{}", latency(&tally));
    }
}

/// Every response lost, one retry, no backoff: attempt 0 is charged at 70 (its answer lost),
/// times out at 1,000, the retry is replayed (or charged again by `none`) and lost too, and
/// the client gives up at 2,000; the look-up comes `after_ms` later.
fn given_up(key_ttl_ms: Option<f64>, after_ms: Option<f64>) -> [StrategyTally; 3] {
    let mut scenario = scenario();
    scenario.network.request_latency = Distribution::Fixed { ms: 20.0 };
    scenario.network.response_latency = Distribution::Fixed { ms: 20.0 };
    scenario.processing = Distribution::Fixed { ms: 50.0 };
    scenario.network.ack_loss = 1.0;
    scenario.client.max_retries = 1;
    scenario.key.key_ttl_ms = key_ttl_ms;
    scenario.client_lifecycle.reconciliation = after_ms.map(|after_ms| Reconciliation { after_ms });
    tallies(scenario, 1, 1)
}

#[test]
fn a_look_up_by_key_finds_the_charge_while_the_key_is_kept() {
    // The key was created at 20 (unique_key) or 70 (check_then_insert); the look-up at
    // 2,000 + 1 h = 3,602,000 finds it with a 24 h TTL and a 1 h 2 s one (pruned at
    // 3,602,020 or 3,602,070), not with a 1 h 1 s one (pruned at 3,601,020 or 3,601,070),
    // nor 48 h later with a 24 h TTL.
    for (ttl_ms, after_ms, found) in [
        (None, HOUR_MS, true),
        (Some(24.0 * HOUR_MS), HOUR_MS, true),
        (Some(HOUR_MS + 2_000.0), HOUR_MS, true),
        (Some(HOUR_MS + 1_000.0), HOUR_MS, false),
        (Some(24.0 * HOUR_MS), 48.0 * HOUR_MS, false),
    ] {
        let [none, check, unique] = given_up(ttl_ms, Some(after_ms));
        for tally in [&check, &unique] {
            let counts = &tally.counts;
            assert_eq!((counts.charges, counts.gave_up_charged), (1, 1));
            assert_eq!(counts.reconciled, u64::from(found), "{ttl_ms:?} {after_ms}");
            assert_eq!(counts.told_failed_after_reconciliation, u64::from(!found));
            assert!(near(latency(tally), 2_000.0));
        }
        // `none` keeps no key: nothing to find.
        assert_eq!((none.counts.charges, none.counts.gave_up_charged), (2, 1));
        assert_eq!(
            (
                none.counts.reconciled,
                none.counts.told_failed_after_reconciliation
            ),
            (0, 1)
        );
    }
    // Without reconciliation nothing is corrected: every customer charged and told failed
    // still is.
    let [_, _, unique] = given_up(None, None);
    assert_eq!(
        (
            unique.counts.reconciled,
            unique.counts.told_failed_after_reconciliation
        ),
        (0, 1)
    );
}

/// The binomial z-score of `observed` successes in `trials` against probability `p`.
fn z_score(observed: u64, trials: u64, p: f64) -> f64 {
    let n = trials as f64;
    (observed as f64 - n * p) / (n * p * (1.0 - p)).sqrt()
}

/// The standard normal's upper tail `1 − Φ(z)`, from `erfc` by Abramowitz and Stegun 7.1.26
/// (absolute error below 1.5 × 10⁻⁷), written out here apart from the engine's quantile.
fn normal_upper_tail(z: f64) -> f64 {
    let x = z.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * x);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erfc = poly * (-x * x).exp();
    if z >= 0.0 {
        erfc / 2.0
    } else {
        1.0 - erfc / 2.0
    }
}

/// The offline clients' double charges against `p` (`unique_key`, whose key is created at
/// delivery, so that the resend, delivered the offline duration later, finds it pruned
/// exactly when `D >= T`): within 4 binomial standard deviations, and the share offline
/// within 4 of its own.
fn offline_double_charges_match(duration: Distribution, ttl_ms: f64, p: f64) {
    let (payments, share) = (20_000, 0.5);
    let scenario = offline(duration, share, 3, Some(ttl_ms));
    let results = simulate(&model(scenario, payments, 2_026), 1, &Silent).unwrap();
    let unique = &results.rows[2];
    assert_eq!(unique.strategy, Strategy::UniqueKey);
    let counts = &unique.tally.counts;
    let z_offline = z_score(counts.offline_payments, payments, share);
    assert!(
        z_offline.abs() < 4.0,
        "offline {} of {payments}",
        counts.offline_payments
    );
    let z = z_score(counts.offline_double_charged, counts.offline_payments, p);
    assert!(
        z.abs() < 4.0,
        "{} of {} charged twice, expected share {p} (z = {z})",
        counts.offline_double_charged,
        counts.offline_payments
    );
    // Nothing else fails: only offline clients are charged twice, and every payment ends
    // with a success.
    assert_eq!(
        counts.double_charged_payments,
        counts.offline_double_charged
    );
    assert_eq!(counts.succeeded, payments);
}

#[test]
fn the_share_of_offline_clients_charged_twice_is_the_chance_the_key_expired_first() {
    // Exponential offline periods with a 1 h mean and a 1 h TTL: P(D >= T) = e^-1.
    let exponential = Distribution::Exponential { mean_ms: HOUR_MS };
    offline_double_charges_match(exponential, HOUR_MS, (-1.0f64).exp());
    // Uniform over 0 to 48 h with a 24 h TTL: 1/2; with a 36 h one: 1/4.
    let uniform = Distribution::Uniform {
        low_ms: 0.0,
        high_ms: 48.0 * HOUR_MS,
    };
    offline_double_charges_match(uniform, 24.0 * HOUR_MS, 0.5);
    offline_double_charges_match(uniform, 36.0 * HOUR_MS, 0.25);
    // Log-normal, median 6 h and p99 72 h, with a 24 h TTL:
    // 1 − Φ(ln(24 / 6) / σ), σ = ln(72 / 6) / z_0.99 (z_0.99 = 2.326347874).
    let log_normal = Distribution::LogNormal {
        median_ms: 6.0 * HOUR_MS,
        p99_ms: 72.0 * HOUR_MS,
    };
    let sigma = (72.0f64 / 6.0).ln() / 2.326_347_874;
    let p = normal_upper_tail((24.0f64 / 6.0).ln() / sigma);
    assert!((p - 0.0976).abs() < 0.001, "{p}");
    offline_double_charges_match(log_normal, 24.0 * HOUR_MS, p);
}

#[test]
fn the_erfc_approximation_is_the_normal_tail() {
    // Tabulated values of 1 − Φ(z).
    for (z, tail) in [
        (0.0, 0.5),
        (1.0, 0.158_655_25),
        (1.959_964, 0.025),
        (-1.0, 0.841_344_75),
    ] {
        assert!((normal_upper_tail(z) - tail).abs() < 2e-7, "{z}");
    }
}
