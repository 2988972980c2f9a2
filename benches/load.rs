//! The load model's speed, in events per second on one thread (the target: at least
//! 10^7): a steady payment API at 80% load (2,000 payments/s for 300 s on 125 workers, 50 ms
//! exponential processing, 20 ms latencies, retries after 1 s) and the shipped
//! `configs/capacity-drop.toml` (every run, scenario and strategy, one thread). Std-only timer,
//! `benches/support/timing.rs`.
//!
//! - `cargo bench --bench load [-- FILTER]`: the timed cases (median and fastest of 5);
//! - `cargo bench --bench load -- --once FILTER`: each case whose name contains FILTER once,
//!   untimed, for instruction counts (`benches/load_instructions.sh`, callgrind) and
//!   alternating A/B runs of two builds (`benches/load_ab.sh`);
//! - `cargo bench --bench load -- --check-log1p COUNT`: the `log1p` replica behind the
//!   exponential draws (`engine::numerics::log1p`) against the C library's `log1p`, bit for
//!   bit, on COUNT inputs (half `-u` for uniform draws `u` made as the model makes them, a
//!   quarter random bit patterns, a quarter of random sign and a magnitude log-uniform in
//!   `[2^-60, 2^60]`), the model's draws also through the block path (`ln_1p_block`); prints
//!   the mismatches (none expected where glibc picks `__log1p_fma`).

#[path = "support/timing.rs"]
mod timing;

use std::path::Path;

use engine::Silent;
use engine::distribution::Distribution;
use engine::numerics::exp::replicates_c_library;
use engine::numerics::log1p::{BLOCK, ln_1p, ln_1p_block};
use engine::rng::{PcgState, unit_f64};
use simulate::config::{Job, LoadConfig, Overrides};
use simulate::model::load::simulate;
use simulate::model::load::{self, LoadModel, LoadStrategy, PhaseRate};

fn shipped() -> LoadModel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/capacity-drop.toml");
    let overrides = Overrides {
        config: Some(path),
        ..Default::default()
    };
    match Job::from_overrides(&overrides).expect("the shipped scenario is valid") {
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

/// The replica against the C library on `count` inputs; returns the mismatches.
fn check_log1p(count: u64) -> u64 {
    if !replicates_c_library() {
        println!("the C library's log1p here is not glibc's __log1p_fma: nothing to compare");
    }
    let mut rng = PcgState::new(0x1064, 7);
    let mut wrong = 0;
    let mut report = |x: f64, replica: f64, what: &str| {
        let c_library = std::hint::black_box(x).ln_1p();
        if replica.to_bits() != c_library.to_bits() {
            wrong += 1;
            if wrong <= 10 {
                println!("{what}: log1p({x:e}) replica {replica:e}, C library {c_library:e}");
            }
        }
    };
    let blocks = count / 2 / BLOCK as u64;
    for _ in 0..blocks {
        let inputs: [f64; BLOCK] = std::array::from_fn(|_| -unit_f64(rng.next_u64()));
        let mut results = inputs;
        ln_1p_block(&mut results);
        for (x, result) in inputs.into_iter().zip(results) {
            report(x, ln_1p(x), "model draw");
            report(x, result, "model draw, block");
        }
    }
    for index in 0..count - blocks * BLOCK as u64 {
        let x = if index % 2 == 0 {
            f64::from_bits(rng.next_u64())
        } else {
            let magnitude = (120.0 * unit_f64(rng.next_u64()) - 60.0).exp2();
            if rng.next_u64() & 1 == 0 {
                magnitude
            } else {
                -magnitude.min(1.0)
            }
        };
        report(x, ln_1p(x), "other");
    }
    println!("log1p: {count} inputs, {wrong} mismatches");
    wrong
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|arg| arg == "--check-log1p") {
        let count = args
            .get(at + 1)
            .map_or(Ok(1_000_000), |count| count.parse());
        let wrong = check_log1p(count.expect("--check-log1p COUNT: a whole number"));
        std::process::exit(i32::from(wrong > 0));
    }
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
