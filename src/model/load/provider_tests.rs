//! A downstream provider on the shared clock (issue #30), worked by hand: its calls hold the
//! processing's worker, their timeouts and retries included, and without the key passed
//! downstream every call the provider receives moves money. Every expected count follows
//! from the fixed latencies in the comments, not from the code.

use super::tests::{run, scenario};
use super::*;
use crate::model::semantics::Provider;
use engine::distribution::Distribution;

/// A provider answering every call in a fixed `latency_ms`, the server waiting `timeout_ms`
/// for each and retrying twice.
fn provider(latency_ms: f64, timeout_ms: f64, pass_key: bool) -> Provider {
    Provider {
        latency: Distribution::Fixed { ms: latency_ms },
        loss: 0.0,
        timeout_ms,
        max_retries: 2,
        pass_key,
    }
}

/// One worker, 100 ms processing, a provider answering in 300 ms. Payment A reaches the
/// server at 10 and holds the worker until 410 (100 + 300); B reaches at 20 and waits for it
/// until 410 (390 ms in the queue, against 90 ms if the provider's wait took no worker),
/// then holds it until 810, answered at 820, before its client's timeout at 1,010.
#[test]
fn a_provider_call_holds_the_worker_while_it_waits() {
    let mut scenario = scenario();
    scenario.server.provider = Some(provider(300.0, 1_000.0, false));
    let tally = run(&scenario, LoadStrategy::UniqueKey, &[0.0, 10.0]);
    assert_eq!((tally.dequeued, tally.queue_wait_ms), (2, 390.0));
    let counts = tally.counts;
    assert_eq!(
        (counts.succeeded, counts.timeouts, counts.charges),
        (2, 0, 2)
    );
    let provider = tally.provider;
    assert_eq!((provider.provider_calls, provider.provider_charges), (2, 2));
    assert_eq!(provider.duplicate_provider_charges, 0);
}

/// A provider slower (300 ms) than the server waits for it (200 ms): the payment's one
/// processing reaches at 10 and sends three calls, each timed out, so it fails with a 500
/// at 710 (100 + 3 × 200), answered at 720, and the client (no retries) gives up. Each call
/// reached the provider: without the key passed downstream it charged three times, money
/// moved twice too many although the ledger charged nothing; honouring the key, once.
#[test]
fn calls_that_time_out_charge_at_the_provider_unless_it_honours_the_key() {
    for (pass_key, charges) in [(false, 3), (true, 1)] {
        let mut scenario = scenario();
        scenario.server.provider = Some(provider(300.0, 200.0, pass_key));
        scenario.client.max_retries = 0;
        let tally = run(&scenario, LoadStrategy::UniqueKey, &[0.0]);
        let counts = tally.counts;
        assert_eq!(
            (counts.charges, counts.server_errors, counts.failed),
            (0, 1, 1),
            "{pass_key}"
        );
        assert_eq!(tally.queue_wait_ms, 0.0);
        let provider = tally.provider;
        assert_eq!(
            (provider.provider_calls, provider.provider_timeouts),
            (3, 3),
            "{pass_key}"
        );
        assert_eq!(
            (
                provider.provider_charges,
                provider.duplicate_provider_charges
            ),
            (charges, charges - 1),
            "{pass_key}"
        );
    }
}

/// The same slow provider, the client retrying once: the first
/// processing (10-710) fails; the 500 is stored and the retry, sent at 720 when the 500 is
/// received and reaching at 730, gets it replayed: no second processing, no more calls.
#[test]
fn a_stored_500_after_the_providers_timeouts_is_replayed_without_calling_again() {
    let mut scenario = scenario();
    scenario.server.provider = Some(provider(300.0, 200.0, false));
    scenario.client.max_retries = 1;
    let tally = run(&scenario, LoadStrategy::UniqueKey, &[0.0]);
    let counts = tally.counts;
    assert_eq!(
        (counts.attempts, counts.processings, counts.replays),
        (2, 1, 1)
    );
    assert_eq!(tally.provider.provider_calls, 3);
}
