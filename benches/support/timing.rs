//! A minimal benchmark timer on the standard library (`std::time`, `std::hint::black_box`),
//! so that benchmarks add no dependency to a newcomer's first `cargo test`.
//!
//! Each case runs once to warm up, then `samples` times; the median and the fastest sample
//! are printed, with the throughput at the median. `cargo bench --bench NAME -- FILTER` runs
//! only the cases whose name contains FILTER.

use std::time::{Duration, Instant};

/// The cases to run and how many samples each gets.
pub struct Timer {
    filter: Option<String>,
    samples: usize,
}

impl Timer {
    /// A timer taking `samples` samples per case, filtered by the first command-line argument
    /// that is not a flag (cargo passes `--bench`).
    pub fn from_args(samples: usize) -> Self {
        let filter = std::env::args().skip(1).find(|arg| !arg.starts_with('-'));
        Self { filter, samples }
    }

    /// Times `case` unless the filter excludes `name`; `elements` (with its unit, for example
    /// "requests") gives the throughput.
    pub fn run<T>(&self, name: &str, elements: (u64, &str), mut case: impl FnMut() -> T) {
        if self
            .filter
            .as_ref()
            .is_some_and(|filter| !name.contains(filter))
        {
            return;
        }
        std::hint::black_box(case());
        let mut times: Vec<Duration> = (0..self.samples)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(case());
                start.elapsed()
            })
            .collect();
        times.sort();
        let median = times[times.len() / 2];
        let (count, unit) = elements;
        println!(
            "{name:<52} median {:>10.3} ms  fastest {:>10.3} ms  {:>8.1} M{unit}/s",
            median.as_secs_f64() * 1e3,
            times[0].as_secs_f64() * 1e3,
            count as f64 / median.as_secs_f64() / 1e6,
        );
    }
}
