//! The timeline model's speed (std-only timer, `benches/support/timing.rs`):
//! - `timeline/mobile_network_1e6_payments_2_threads`: 10^6 payments of
//!   `configs/mobile-network.toml`, all three strategies, on 2 threads, as the CLI runs them
//!   (shortcuts included);
//! - `timeline/event_loop_*`: the event loop alone on one thread, every payment run through it
//!   under all three strategies (no shortcut), in events per second; the events it handled are
//!   counted by the simulator and printed.

#[path = "support/timing.rs"]
mod timing;

use std::path::Path;

use engine::Silent;
use simulate::config::{Job, Overrides, TimelineConfig};
use simulate::model::timeline;
use simulate::model::timeline::backend::BackendDraws;
use simulate::model::timeline::draws::PaymentDraws;
use simulate::model::timeline::simulation::Simulator;
use simulate::model::timeline::{Strategy, Streams, TimelineModel};

/// The scenario file `name` of `configs/`, with `payments` payments.
fn config(name: &str, payments: &str) -> TimelineConfig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("configs")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("the shipped scenario exists");
    let overrides = Overrides {
        payments: Some(payments.parse().expect("a count")),
        threads: Some(2),
        ..Default::default()
    };
    match Job::from_text(&text, &path, &overrides).expect("the scenario is valid") {
        Job::Timeline(config) => config,
        _ => panic!("{name} is a timeline file"),
    }
}

/// Runs every payment of the first scenario of `model` through the event loop under the three
/// strategies, on one thread; returns the events handled.
fn event_loop(model: &TimelineModel) -> u64 {
    let scenario = &model.scenarios[0];
    let streams = Streams::of(model, 0);
    let (copies, max_retries) = (scenario.arrivals.copies, scenario.client.max_retries);
    let jump = streams
        .attempts
        .jump(PaymentDraws::stride(copies, max_retries));
    let lifecycle = scenario.key.error_rate > 0.0 || scenario.client.different_body_rate > 0.0;
    let (mut stream, mut lifecycle_stream) = (streams.attempts, streams.lifecycle);
    let mut draws = PaymentDraws::new(&streams.attempts, scenario);
    let mut simulator = Simulator::default();
    for _ in 0..model.payments {
        draws.read(&stream);
        stream.apply(&jump);
        if lifecycle {
            draws.lifecycle.read(&mut lifecycle_stream);
        }
        // The scenarios benchmarked here use no backend: its draws all read as 1.
        for strategy in Strategy::ALL {
            std::hint::black_box(
                simulator
                    .run(
                        scenario,
                        strategy,
                        &mut draws,
                        &BackendDraws::default(),
                        &Silent,
                    )
                    .expect("not interrupted"),
            );
        }
    }
    simulator.events_handled()
}

fn main() {
    let timer = timing::Timer::from_args(10);
    let mobile = config("mobile-network.toml", "1000000");
    timer.run(
        "timeline/mobile_network_1e6_payments_2_threads",
        (mobile.model.payments, "payments"),
        || timeline::simulate(&mobile.model, 2, &Silent).expect("not interrupted"),
    );
    for (name, file) in [
        ("mobile_network", "mobile-network.toml"),
        ("same_key_burst", "same-key-burst.toml"),
    ] {
        let model = config(file, "100000").model;
        let events = event_loop(&model);
        println!("{file}: {events} events for 100,000 payments under 3 strategies");
        timer.run(
            &format!("timeline/event_loop_{name}_1e5_payments_1_thread"),
            (events, "events"),
            || event_loop(&model),
        );
    }
}
