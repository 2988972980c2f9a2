//! Benchmarks of the article model's engines at several sizes (criterion).
//!
//! `cargo bench --bench kernel` times the fast engine on one thread and on all cores (charts
//! and files excluded), each scan implementation this processor has on one thread, and the
//! servers engine (the definition) at the small sizes. Throughput is reported in requests.

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use simulate::model::Silent;
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

fn engines(criterion: &mut Criterion) {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut group = criterion.benchmark_group("article_3p");
    group.sample_size(10);
    for requests in [100_000u64, 1_000_000, 10_000_000, 100_000_000] {
        group.throughput(Throughput::Elements(requests));
        let model = article(requests);
        for threads in [1, cores] {
            group.bench_with_input(
                BenchmarkId::new(format!("fast_{threads}_threads"), requests),
                &model,
                |bench, model| {
                    bench.iter(|| {
                        model::simulate(black_box(model), Engine::Fast { threads }, &Silent)
                            .unwrap()
                    })
                },
            );
        }
        for implementation in Implementation::available() {
            group.bench_with_input(
                BenchmarkId::new(format!("scan_{implementation:?}_1_thread"), requests),
                &model,
                |bench, model| {
                    bench.iter(|| {
                        attempt_histograms_with(
                            implementation,
                            &model.seed_sequence(0),
                            model.requests,
                            model.max_retries,
                            &model.ack_loss,
                            1,
                            &Silent,
                        )
                        .unwrap()
                    })
                },
            );
        }
        if requests <= 1_000_000 {
            group.bench_with_input(
                BenchmarkId::new("servers", requests),
                &model,
                |bench, model| {
                    bench.iter(|| {
                        model::simulate(black_box(model), Engine::Servers, &Silent).unwrap()
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, engines);
criterion_main!(benches);
