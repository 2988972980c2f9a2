//! Benchmarks of the article model's engines at several sizes (std-only timer,
//! `benches/support/timing.rs`).
//!
//! `cargo bench --bench kernel` times the fast engine on one thread and on all cores (charts
//! and files excluded), each scan implementation this processor has on one thread, and the
//! servers engine (the definition) at the small sizes. Throughput is reported in requests.
//! `cargo bench --bench kernel -- scan_Portable` runs only the cases whose name contains the
//! filter; `SIMULATE_BENCH_MAX_REQUESTS=10000000` leaves out the larger sizes.

#[path = "support/timing.rs"]
mod timing;

use std::hint::black_box;

use engine::Silent;
use simulate::model::article::kernel::{Implementation, attempt_histograms_with};
use simulate::model::article::{self as model, ArticleModel, Engine};

fn article(requests: u64) -> ArticleModel {
    ArticleModel {
        ack_loss: vec![0.01, 0.05, 0.10],
        requests,
        max_retries: 20,
        seed: 42,
        runs: 1,
    }
}

fn main() {
    let timer = timing::Timer::from_args(10);
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let largest: u64 = std::env::var("SIMULATE_BENCH_MAX_REQUESTS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(u64::MAX);
    let sizes = [100_000u64, 1_000_000, 10_000_000, 100_000_000];
    for requests in sizes.into_iter().filter(|&requests| requests <= largest) {
        let model = article(requests);
        let elements = (requests, "requests");
        for threads in [1, cores] {
            timer.run(
                &format!("article_3p/fast_{threads}_threads/{requests}"),
                elements,
                || model::simulate(black_box(&model), Engine::Fast { threads }, &Silent).unwrap(),
            );
        }
        for implementation in Implementation::available() {
            timer.run(
                &format!("article_3p/scan_{implementation:?}_1_thread/{requests}"),
                elements,
                || {
                    attempt_histograms_with(implementation, black_box(&model), 0, 1, &Silent)
                        .unwrap()
                },
            );
        }
        if requests <= 1_000_000 {
            timer.run(&format!("article_3p/servers/{requests}"), elements, || {
                model::simulate(black_box(&model), Engine::Servers, &Silent).unwrap()
            });
        }
    }
}
