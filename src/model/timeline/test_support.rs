//! Fixtures shared by the unit tests of the paths past the event loop (`shortcut`,
//! `single_copy`): `configs/mobile-network.toml`'s scenario, a one-scenario model, and a walk
//! over a scenario's payments as the chunk walker reads them, with the event loop at hand to
//! compare against.

use super::backend::BackendDraws;
use super::draws::PaymentDraws;
use super::run::ChunkWalker;
use super::simulation::{PaymentOutcome, Simulator};
use super::{
    ArrivalProcess, Arrivals, Backend, ClientPolicy, CopyMode, CopySpacing, KeyLifecycle, Network,
    Scenario, Strategy, Streams, TimelineModel,
};
use engine::Silent;
use engine::backoff::Backoff;
use engine::distribution::Distribution;

/// A log-normal duration by its median and 99th percentile (ms).
pub fn log_normal(median_ms: f64, p99_ms: f64) -> Distribution {
    Distribution::LogNormal { median_ms, p99_ms }
}

/// `configs/mobile-network.toml`'s scenario: one copy on a lossy network with long tails,
/// retries with full jitter.
pub fn mobile() -> Scenario {
    Scenario {
        name: "mobile".into(),
        arrivals: Arrivals {
            process: ArrivalProcess::Poisson { rate_per_s: 200.0 },
            copies: 1,
            copy_mode: CopyMode::Concurrent,
            copy_spread_ms: 0.0,
            copy_spacing: CopySpacing::Even,
        },
        network: Network {
            request_latency: log_normal(60.0, 600.0),
            response_latency: log_normal(80.0, 2500.0),
            request_loss: 0.02,
            ack_loss: 0.05,
        },
        processing: log_normal(150.0, 1200.0),
        client: ClientPolicy {
            timeout_ms: 1_000.0,
            max_retries: 4,
            backoff: Backoff::FullJitter {
                base_ms: 200.0,
                cap_ms: 5_000.0,
            },
            different_body_rate: 0.0,
        },
        key: KeyLifecycle::default(),
        backend: Backend::default(),
        client_lifecycle: Default::default(),
    }
}

/// 3,000 payments of `scenario` under every strategy, seeded `seed`.
pub fn model(scenario: &Scenario, seed: u64) -> TimelineModel {
    TimelineModel {
        title: "test".into(),
        seed,
        runs: 1,
        payments: PAYMENTS,
        strategies: Strategy::ALL.to_vec(),
        scenarios: vec![scenario.clone()],
    }
}

/// The payments [`for_each_payment`] walks.
pub const PAYMENTS: u64 = 3_000;

/// The event loop, for a payment's outcome to compare with.
#[derive(Default)]
pub struct EventLoop(Simulator);

impl EventLoop {
    /// The payment in `draws` under `strategy`, through the event loop (no backend).
    pub fn run(
        &mut self,
        scenario: &Scenario,
        strategy: Strategy,
        draws: &mut PaymentDraws,
    ) -> PaymentOutcome {
        self.0
            .run(scenario, strategy, draws, &BackendDraws::default(), &Silent)
            .expect("not interrupted")
    }
}

/// Reads the draws of the first [`PAYMENTS`] payments of run 0 of [`model`]`(scenario, seed)`
/// from their places in the streams, as the chunk walker does, and hands each to `visit`
/// with an event loop.
pub fn for_each_payment(
    scenario: &Scenario,
    seed: u64,
    mut visit: impl FnMut(&mut PaymentDraws, &mut EventLoop),
) {
    let streams = Streams::of(&model(scenario, seed), 0);
    let walker = ChunkWalker::new(scenario, streams);
    let mut stream = streams.attempts;
    let mut lifecycle_stream = streams.lifecycle;
    let mut client_stream = streams.client;
    let mut draws = PaymentDraws::new(&streams.attempts, scenario);
    let mut event_loop = EventLoop::default();
    for _ in 0..PAYMENTS {
        draws.read(&stream);
        stream.apply(&walker.payment_jump);
        if walker.lifecycle_stride > 0 {
            draws.lifecycle.read(&mut lifecycle_stream);
        }
        if walker.client_stride > 0 {
            draws.client.read(&mut client_stream);
        }
        visit(&mut draws, &mut event_loop);
    }
}
