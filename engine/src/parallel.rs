//! How the models run independent simulations on several threads: one rayon pool per call,
//! results collected in task order (the same bytes for any thread count), and a stop request
//! from [`Progress`] honoured between units of work.

use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

use crate::{Interrupted, Progress};

/// A thread pool of `threads` workers (at least one).
pub fn thread_pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .expect("a thread pool can be built")
}

/// Runs `work` on consecutive chunks of `chunk` tasks on `threads` threads and returns its
/// results in task order, reporting each chunk's tasks to `progress` as done. Stops with
/// [`Interrupted`] when `progress` asks before a chunk starts or `work` is interrupted.
pub fn map_chunks<T: Sync, R: Send>(
    tasks: &[T],
    chunk: usize,
    threads: usize,
    progress: &dyn Progress,
    work: impl Fn(&[T]) -> Result<Vec<R>, Interrupted> + Sync,
) -> Result<Vec<R>, Interrupted> {
    let stopped = AtomicBool::new(false);
    let chunks: Vec<Vec<R>> = thread_pool(threads).install(|| {
        tasks
            .par_chunks(chunk.max(1))
            .map(|tasks| {
                if stopped.load(Ordering::Relaxed) || progress.should_stop() {
                    stopped.store(true, Ordering::Relaxed);
                    return Vec::new();
                }
                let Ok(results) = work(tasks) else {
                    stopped.store(true, Ordering::Relaxed);
                    return Vec::new();
                };
                progress.advance(tasks.len() as u64);
                results
            })
            .collect()
    });
    if stopped.load(Ordering::Relaxed) {
        return Err(Interrupted);
    }
    Ok(chunks.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Silent;
    use std::sync::atomic::AtomicU64;

    struct Counting(AtomicU64, u64);

    impl Progress for Counting {
        fn advance(&self, units: u64) {
            self.0.fetch_add(units, Ordering::Relaxed);
        }
        fn should_stop(&self) -> bool {
            self.0.load(Ordering::Relaxed) >= self.1
        }
    }

    #[test]
    fn results_come_in_task_order_for_any_thread_count() {
        let tasks: Vec<u32> = (0..1_000).collect();
        for threads in [1, 2, 7] {
            let progress = Counting(AtomicU64::new(0), u64::MAX);
            let squares = map_chunks(&tasks, 16, threads, &progress, |chunk| {
                Ok(chunk.iter().map(|task| task * task).collect())
            })
            .unwrap();
            assert_eq!(
                squares,
                tasks.iter().map(|task| task * task).collect::<Vec<_>>()
            );
            assert_eq!(progress.0.load(Ordering::Relaxed), 1_000);
        }
    }

    #[test]
    fn a_stop_request_or_an_interrupted_chunk_stops_the_run() {
        let tasks: Vec<u32> = (0..1_000).collect();
        let asked = Counting(AtomicU64::new(0), 100);
        let work = |chunk: &[u32]| Ok(chunk.to_vec());
        assert_eq!(map_chunks(&tasks, 10, 2, &asked, work), Err(Interrupted));
        let interrupted = |chunk: &[u32]| {
            if chunk[0] == 500 {
                Err(Interrupted)
            } else {
                Ok(chunk.to_vec())
            }
        };
        assert_eq!(
            map_chunks(&tasks, 10, 2, &Silent, interrupted),
            Err(Interrupted)
        );
    }
}
