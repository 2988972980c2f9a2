//! The load model's speed, in events per second on one thread (the target: at least
//! 10^7): a steady payment API at 80% load (2,000 payments/s for 300 s on 125 workers, 50 ms
//! exponential processing, 20 ms latencies, retries after 1 s) and the shipped
//! `configs/capacity-drop.toml` (every run, scenario and strategy, one thread). Std-only timer,
//! `benches/support/timing.rs`.
//!
//! - `cargo bench --bench load [-- FILTER]`: the timed cases (median and fastest of 5);
//! - `cargo bench --bench load -- --once FILTER`: each case whose name contains FILTER once,
//!   untimed, for instruction counts (`benches/load_instructions.sh`, callgrind) and
//!   alternating A/B runs of two builds (`benches/load_ab.sh`).

#[path = "support/timing.rs"]
mod timing;

use std::path::Path;

use clap::Parser;
use simulate::cli::Cli;
use simulate::config::{Job, LoadConfig};
use simulate::model::load::{self, LoadModel, LoadStrategy, PhaseRate};
use simulate::model::timeline::Distribution;
use simulate::model::{Silent, load::simulate};

fn shipped() -> LoadModel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/capacity-drop.toml");
    let cli = Cli::parse_from(["simulate", "--config", path.to_str().unwrap()]);
    match Job::from_cli(&cli).expect("the shipped scenario is valid") {
        Job::Load(LoadConfig { model, .. }) => model,
        _ => panic!("capacity-drop.toml is a load file"),
    }
}

/// The steady case: the shipped file's first scenario without its capacity drop, scaled up.
fn steady() -> LoadModel {
    let mut model = shipped();
    let mut scenario = model.scenarios[0].clone();
    scenario.server.capacity.clear();
    scenario.server.workers = Some(125);
    scenario.server.processing = Distribution::Exponential { mean_ms: 50.0 };
    scenario.arrivals.clients = Some(1_000);
    scenario.arrivals.duration_ms = 300_000.0;
    scenario.arrivals.phases[0].until_ms = 300_000.0;
    scenario.arrivals.phases[0].rate = PhaseRate::Constant(2_000.0);
    model.scenarios = vec![scenario];
    model.runs = 1;
    model.strategies = vec![LoadStrategy::UniqueKey];
    model
}

fn events(model: &LoadModel) -> u64 {
    let results = simulate(model, 1, &Silent).expect("not interrupted");
    results.rows.iter().map(|row| row.tally.counts.events).sum()
}

/// The cases: name and model.
fn cases() -> [(&'static str, LoadModel); 2] {
    [
        ("load/steady_2000_per_s_300_s_1_thread", steady()),
        ("load/capacity_drop_toml_1_thread", shipped()),
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == "--once") {
        let filter = args.get(at + 1).map_or("", String::as_str);
        for (name, model) in cases() {
            if name.contains(filter) {
                println!("{name}: {} events", events(&model));
            }
        }
        return;
    }
    let timer = timing::Timer::from_args(5);
    println!("events per second per thread (each case on one thread, wall clock; target 10 M)");
    for (name, model) in cases() {
        let count = events(&model);
        timer.run(name, (count, "events"), || {
            load::simulate(&model, 1, &Silent).expect("not interrupted")
        });
    }
}
