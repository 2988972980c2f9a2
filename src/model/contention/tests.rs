//! Hand-worked collisions on fixed delays, closed forms for synchronised clients, and
//! properties over random seeds and settings.

use super::*;
use engine::Silent;
use engine::distribution::Distribution;

fn model(
    clients: Vec<u32>,
    policies: Vec<Policy>,
    delay: Delay,
    max_retries: Option<u32>,
) -> ContentionModel {
    ContentionModel {
        title: "test.toml".into(),
        seed: 42,
        runs: 1,
        clients,
        policies,
        base_ms: 5.0,
        cap_ms: 2_000.0,
        setup: ContentionSetup { delay, max_retries },
    }
}

const FIXED_10: Delay = Delay::Timeline(Distribution::Fixed { ms: 10.0 });

fn one(clients: u32, policy: Policy, delay: Delay, max_retries: Option<u32>) -> RunTally {
    let model = model(vec![clients], vec![policy], delay, max_retries);
    simulate_one(&model, &mut Simulator::default(), clients, policy, 0)
}

/// Two clients, every message 10 ms, exponential backoff from 5 ms.
///
/// - t = 10: both read requests arrive (client 0 first: scheduled first); both read version 0.
/// - t = 20: both read replies; t = 30: both writes arrive with version 0. Client 0's is
///   accepted (version becomes 1), client 1's is stale and rejected.
/// - t = 40: both write replies. Client 0 is done at 40 ms. Client 1's first rejection: it
///   waits the 10 ms network delay plus min(2000, 5 × 2^1) = 10 ms backoff.
/// - t = 60: client 1's read arrives (version 1); t = 70 its reply; t = 80 its write, accepted
///   (version 2); t = 90 its reply. Done.
///
/// Reads 3, writes 3 (1 rejected), the last client done at 90 ms, the mean client at
/// (40 + 90) / 2 = 65 ms, final version 2.
#[test]
fn two_clients_collide_once_by_hand() {
    let tally = one(2, Policy::Exponential, FIXED_10, None);
    assert_eq!(
        tally,
        RunTally {
            reads: 3,
            writes: 3,
            failed_writes: 1,
            succeeded: 2,
            gave_up: 0,
            completion_ms: 90.0,
            mean_client_completion_ms: 65.0,
            final_version: 2,
        }
    );
    // Without backoff client 1 reads again at 40 + 10 = 50 and is done at 80 ms; with a
    // constant 5 ms backoff at 55 and 85 ms.
    assert_eq!(one(2, Policy::None, FIXED_10, None).completion_ms, 80.0);
    assert_eq!(one(2, Policy::Constant, FIXED_10, None).completion_ms, 85.0);
}

/// Three clients without backoff on 10 ms messages, by hand: writes at 30 ms (client 0
/// accepted, 1 and 2 rejected), replies at 40, both read again at 50 (version 1), write at 70
/// (client 1 accepted, 2 rejected), reply at 80; client 2 reads at 90, writes at 110
/// (accepted), reply at 120. Reads 6, writes 6, 3 rejected, done at 120 ms.
#[test]
fn three_clients_without_backoff_by_hand() {
    let tally = one(3, Policy::None, FIXED_10, None);
    assert_eq!((tally.reads, tally.writes, tally.failed_writes), (6, 6, 3));
    assert_eq!(tally.completion_ms, 120.0);
    assert_eq!(tally.mean_client_completion_ms, (40.0 + 80.0 + 120.0) / 3.0);
}

/// With fixed delays and an unjittered policy, all rejected clients stay in step: each round
/// of 4 messages admits exactly one writer. So `n` clients make `n (n + 1) / 2` writes, and
/// the last finishes after `n` rounds of `4 × 10` ms plus the waits after the 1st .. (n-1)-th
/// rejection: 0 without backoff, `min(2000, 5 × 2^k)` for exponential backoff.
#[test]
fn synchronised_clients_follow_the_closed_form() {
    for n in [1u32, 4, 9, 17] {
        let writes = u64::from(n) * u64::from(n + 1) / 2;
        let none = one(n, Policy::None, FIXED_10, None);
        assert_eq!(none.writes, writes);
        assert_eq!(none.completion_ms, 40.0 * f64::from(n));
        let exponential = one(n, Policy::Exponential, FIXED_10, None);
        let waits: f64 = (1..n)
            .map(|k| 2_000f64.min(5.0 * 2f64.powi(k as i32)))
            .sum();
        assert_eq!(exponential.writes, writes);
        assert_eq!(exponential.completion_ms, 40.0 * f64::from(n) + waits);
    }
}

/// `max_retries = 0` on three synchronised clients: client 0 is accepted, clients 1 and 2 are
/// rejected once and give up at 40 ms.
#[test]
fn clients_give_up_after_max_retries() {
    let tally = one(3, Policy::None, FIXED_10, Some(0));
    assert_eq!((tally.succeeded, tally.gave_up), (1, 2));
    assert_eq!((tally.writes, tally.failed_writes), (3, 2));
    assert_eq!(tally.final_version, 1);
    assert_eq!(tally.completion_ms, 40.0);
}

fn random_model(seed: u64, runs: u32, max_retries: Option<u32>) -> ContentionModel {
    ContentionModel {
        seed,
        runs,
        ..model(
            vec![1, 2, 7, 25],
            Policy::ALL.to_vec(),
            Delay::FoldedNormal {
                mean_ms: 10.0,
                sd_ms: 2.0,
            },
            max_retries,
        )
    }
}

/// Unbounded retries: every client eventually succeeds, the final version counts the
/// accepted writes, and every write was preceded by its read.
#[test]
fn every_client_succeeds_when_retries_are_unbounded() {
    for seed in 0..8 {
        let results = simulate(&random_model(seed, 3, None), 2, &Silent).unwrap();
        assert_eq!(results.rows.len(), 4 * 6 * 3);
        for row in &results.rows {
            let tally = row.tally;
            assert_eq!(tally.succeeded, row.clients, "{row:?}");
            assert_eq!(tally.gave_up, 0);
            assert_eq!(tally.final_version, u64::from(tally.succeeded));
            assert_eq!(tally.writes, tally.final_version + tally.failed_writes);
            assert_eq!(tally.reads, tally.writes);
            assert!(tally.completion_ms >= tally.mean_client_completion_ms);
            // Four messages of at least 0 ms each; one client alone never collides.
            if row.clients == 1 {
                assert_eq!(tally.writes, 1);
            }
        }
    }
}

/// With a retry limit, every client ends (accepted or gave up), the version still counts the
/// accepted writes, and nobody writes more than `max_retries + 1` times.
#[test]
fn every_client_ends_within_its_retry_limit() {
    for max_retries in [0, 1, 3] {
        let results = simulate(&random_model(3, 4, Some(max_retries)), 2, &Silent).unwrap();
        for row in &results.rows {
            let tally = row.tally;
            assert_eq!(tally.succeeded + tally.gave_up, row.clients, "{row:?}");
            assert_eq!(tally.final_version, u64::from(tally.succeeded));
            assert!(tally.writes <= u64::from(row.clients) * u64::from(max_retries + 1));
            assert!(
                tally.succeeded >= 1,
                "the first write to arrive is always accepted"
            );
        }
    }
}

/// The same model gives the same rows with 1 and 3 threads, and a client count's results do
/// not depend on which other client counts and policies are listed.
#[test]
fn results_do_not_depend_on_threads_or_on_the_rest_of_the_sweep() {
    let full = random_model(11, 3, None);
    let one_thread = simulate(&full, 1, &Silent).unwrap();
    let three_threads = simulate(&full, 3, &Silent).unwrap();
    assert_eq!(one_thread, three_threads);
    let alone = ContentionModel {
        clients: vec![7],
        policies: vec![Policy::FullJitter],
        ..full.clone()
    };
    let alone_rows = simulate(&alone, 1, &Silent).unwrap().rows;
    let same: Vec<ContentionRow> = one_thread
        .rows
        .iter()
        .filter(|row| row.clients == 7 && row.policy == Policy::FullJitter)
        .copied()
        .collect();
    assert_eq!(alone_rows, same);
}

#[test]
fn rows_come_in_clients_policy_run_order() {
    let results = simulate(&random_model(1, 2, None), 2, &Silent).unwrap();
    let keys: Vec<(u32, Policy, u32)> = results
        .rows
        .iter()
        .map(|row| (row.clients, row.policy, row.run))
        .collect();
    let mut expected = Vec::new();
    for clients in [1, 2, 7, 25] {
        for policy in Policy::ALL {
            for run in 0..2 {
                expected.push((clients, policy, run));
            }
        }
    }
    assert_eq!(keys, expected);
}

#[test]
fn policies_round_trip_their_names() {
    for policy in Policy::ALL {
        assert_eq!(Policy::from_name(policy.name()), Some(policy));
    }
    assert_eq!(Policy::from_name("linear"), None);
}
