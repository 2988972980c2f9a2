//! The fast engine against the definition: the article's numpy code with every delivery sent to
//! the real servers (`Engine::Servers`), and against numpy's own counts for the article.
//!
//! Identical counts are required for every thread count, at every chunk and lane boundary, at
//! the edges p = 0 and p = 1, for seeds above 2^32, and over many seeds, sizes, p values and
//! retry limits. Chunk boundaries are reached with small chunks ([`ScanPlan`]), so a few
//! thousand requests cross dozens of them; the engine's own chunk size gives the same counts.

use crate::common::{article_model as model, run_model as run};
use engine::Silent;
use simulate::model::article::kernel::{
    CHUNK_REQUESTS, Implementation, ScanPlan, attempt_histograms_planned, attempt_histograms_with,
};
use simulate::model::article::{ArticleModel, AttemptHistogram, Engine};

/// Fast (on 1, 2 and 7 threads) and servers give identical results.
fn assert_engines_agree(model: &ArticleModel) {
    let reference = run(model, Engine::Servers);
    for threads in [1, 2, 7] {
        assert_eq!(
            run(model, Engine::Fast { threads }),
            reference,
            "threads {threads}, {model:?}"
        );
    }
}

#[test]
fn article_counts_match_numpy_on_every_thread_count() {
    // The reference rows: seed,requests,max_retries,p,deliveries,double_charged_requests,
    // extra_charges,retries_exhausted,max_attempts (numpy's output, not ours).
    let reference = include_str!("reference/article_seed42.csv");
    for threads in [1, 2, 7] {
        let results = run(
            &model(42, 10_000, 20, &[0.01, 0.05, 0.10]),
            Engine::Fast { threads },
        );
        for (line, point) in reference.lines().skip(1).zip(&results.points) {
            let fields: Vec<u64> = line
                .split(',')
                .enumerate()
                .filter(|&(index, _)| index != 3)
                .map(|(_, field)| field.parse().unwrap())
                .collect();
            let plain = point.server(simulate::model::article::server::ServerKind::NonIdempotent);
            assert_eq!(plain.deliveries, fields[3], "threads {threads}: {line}");
            assert_eq!(plain.double_charged_requests, fields[4], "{line}");
            assert_eq!(plain.extra_charges, fields[5], "{line}");
            assert_eq!(point.attempts.retries_exhausted(), fields[6], "{line}");
            assert_eq!(
                u64::from(point.attempts.max_attempts()),
                fields[7],
                "{line}"
            );
        }
    }
}

/// The attempt histograms of the definition (the servers engine), one per p.
fn definition(model: &ArticleModel) -> Vec<AttemptHistogram> {
    run(model, Engine::Servers)
        .points
        .into_iter()
        .map(|point| point.attempts)
        .collect()
}

/// The scan's histograms with chunks of `chunk_requests` requests on `threads` threads.
fn scan(
    model: &ArticleModel,
    implementation: Implementation,
    chunk_requests: u64,
    threads: usize,
) -> Vec<AttemptHistogram> {
    let plan = ScanPlan {
        implementation,
        chunk_requests,
        threads,
    };
    attempt_histograms_planned(plan, model, 0, &Silent).unwrap()
}

/// Every scan implementation, on 1 and 3 threads, with chunks of each of `chunk_sizes`,
/// gives the definition's histograms.
fn assert_scans_agree(model: &ArticleModel, chunk_sizes: &[u64]) {
    let reference = definition(model);
    for implementation in Implementation::available() {
        for &chunk_requests in chunk_sizes {
            for threads in [1, 3] {
                assert_eq!(
                    scan(model, implementation, chunk_requests, threads),
                    reference,
                    "{implementation:?}, chunks of {chunk_requests}, {threads} threads, {model:?}"
                );
            }
        }
    }
}

#[test]
fn chunk_and_lane_boundaries() {
    // Fewer requests than lanes, exactly one lane's worth, and a few more (4 portable lanes,
    // 16 AVX-512 lanes), through the whole engine.
    for requests in [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33] {
        assert_engines_agree(&model(9, requests, 6, &[0.3, 0.05]));
    }
    // Chunks of 1 request, fewer than the lanes, a lane multiple and one past it, and a
    // request count one short of, at, and one past a chunk boundary.
    let chunk_sizes = [1, 3, 15, 16, 17, 64, 100];
    for requests in [99, 100, 101, 1_599, 1_600, 1_601] {
        assert_scans_agree(&model(9, requests, 6, &[0.3, 0.05]), &chunk_sizes);
    }
}

#[test]
fn several_chunks_on_several_threads() {
    // 2 chunks and a partial one; at p = 0.9 a chunk has more losses than a follow-up batch
    // holds (512), so batches are followed in the middle of the scan too.
    let model = model(3, 2 * 1_000 + 123, 4, &[0.02, 0.9]);
    let reference = definition(&model);
    for threads in [1, 2, 7] {
        for implementation in Implementation::available() {
            assert_eq!(
                scan(&model, implementation, 1_000, threads),
                reference,
                "{implementation:?}, {threads} threads"
            );
        }
    }
}

#[test]
fn the_engines_chunk_size_gives_the_counts_of_small_chunks() {
    // One request past the engine's own chunk boundary, and a partial second chunk: the same
    // histograms as with small chunks (which match the definition, above).
    for requests in [CHUNK_REQUESTS + 1, CHUNK_REQUESTS + 17] {
        let model = model(u64::MAX, requests, 6, &[0.3, 0.0, 0.05]);
        for implementation in Implementation::available() {
            let engine = attempt_histograms_with(implementation, &model, 0, 2, &Silent).unwrap();
            assert_eq!(
                engine,
                scan(&model, implementation, 4_099, 2),
                "{implementation:?}, {requests} requests"
            );
        }
    }
}

#[test]
fn edges_p_zero_and_one() {
    let requests = 1_000;
    let max_retries = 7;
    let results = run(
        &model(5, requests, max_retries, &[0.0, 1.0]),
        Engine::Fast { threads: 2 },
    );
    // p = 0: one attempt each. p = 1: every ACK is lost, every retry used.
    assert_eq!(results.points[0].attempts.requests_with(1), requests);
    assert_eq!(
        results.points[1].attempts.requests_with(max_retries + 1),
        requests
    );
    assert_eq!(results.points[1].attempts.retries_exhausted(), requests);
    assert_engines_agree(&model(5, requests, max_retries, &[0.0, 1.0]));
}

#[test]
fn seeds_above_two_to_the_32() {
    for seed in [1 << 32, (1 << 32) + 1, u64::MAX, 0xdead_beef_cafe_f00d] {
        assert_engines_agree(&model(seed, 5_000, 12, &[0.5, 0.1]));
    }
}

#[test]
fn many_seeds_sizes_probabilities_and_retry_limits() {
    // A fixed, spread-out grid (no randomness in the test itself).
    let probabilities: [&[f64]; 5] = [
        &[0.01, 0.05, 0.10],
        &[0.9],
        &[0.5, 0.25, 0.75, 0.25],
        &[0.0, 0.3],
        &[1.0, 0.6],
    ];
    let mut cases = 0;
    for seed in [0u64, 1, 42, 2024, 4_294_967_295] {
        for (index, &requests) in [1u64, 17, 999, 4_096].iter().enumerate() {
            for max_retries in [0u32, 1, 3, 20] {
                let ack_loss = probabilities[(seed as usize + index) % probabilities.len()];
                assert_engines_agree(&model(seed, requests, max_retries, ack_loss));
                cases += 1;
            }
        }
    }
    assert_eq!(cases, 80);
}

#[test]
fn replications_use_their_own_streams() {
    let mut replicated = model(42, 10_000, 20, &[0.05]);
    replicated.runs = 3;
    let results = run(&replicated, Engine::Fast { threads: 2 });
    assert_eq!(run(&replicated, Engine::Servers), results);
    let counts: Vec<u64> = results
        .points
        .iter()
        .map(|point| point.attempts.retried_requests())
        .collect();
    assert_eq!(counts[0], 508, "run 0 is the article's run");
    assert!(counts[1] != counts[0] || counts[2] != counts[0]);
}

#[test]
fn every_scan_implementation_gives_the_definitions_counts() {
    let implementations = Implementation::available();
    assert!(implementations.contains(&Implementation::Portable));
    eprintln!("scan implementations on this processor: {implementations:?}");
    for (seed, requests, max_retries, ack_loss) in [
        (42u64, 10_000u64, 20u32, vec![0.01, 0.05, 0.10]),
        (7, 1, 3, vec![1.0]),
        (8, 15, 3, vec![0.5]),
        (9, 17, 5, vec![0.6, 0.2]),
        (10, 33, 0, vec![0.9]),
        (u64::MAX, 4 * 1_024 + 17, 6, vec![0.3, 0.0, 0.05]),
        // More than 16 p values take the other counting path.
        (
            11,
            5_000,
            8,
            (0..=20).map(|k| f64::from(k) / 20.0).collect(),
        ),
    ] {
        let model = model(seed, requests, max_retries, &ack_loss);
        assert_scans_agree(&model, &[1_024, CHUNK_REQUESTS]);
    }
}
