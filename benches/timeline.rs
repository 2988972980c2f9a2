//! The timeline model's speed: 10^6 payments of `configs/mobile-network.toml` (the issue asks
//! for at most 2 s of wall time on 2 cores), all three strategies, on 2 threads (std-only
//! timer, `benches/support/timing.rs`).

#[path = "support/timing.rs"]
mod timing;

use std::path::Path;

use clap::Parser;
use simulate::cli::Cli;
use simulate::config::TimelineConfig;
use simulate::model::{Silent, timeline};

fn main() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/mobile-network.toml");
    let text = std::fs::read_to_string(&path).expect("the shipped scenario exists");
    let cli = Cli::parse_from(["simulate", "--payments", "1000000"]);
    let config = TimelineConfig::from_toml(&text, &path, &cli, 2).expect("the scenario is valid");
    timing::Timer::from_args(10).run(
        "timeline/mobile_network_1e6_payments_2_threads",
        (config.model.payments, "payments"),
        || timeline::simulate(&config.model, 2, &Silent).expect("not interrupted"),
    );
}
