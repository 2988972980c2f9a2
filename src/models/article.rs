//! The article model as the driver runs it.

use super::{CellCost, Model, Plan};
use crate::config::ArticleConfig;
use crate::limits::{Machine, human_bytes, on_threads};
use crate::model::article::{self, ArticleModel, ArticleResults, Engine, RunCounts, estimate};
use engine::estimate::{Estimate, threads_at_once};
use engine::{Interrupted, Progress};

impl Model for ArticleConfig {
    const NAME: &'static str = "article";
    const UNIT: &'static str = "requests";
    type Results = ArticleResults;
    type Cell = RunCounts;

    fn work_units(&self) -> u64 {
        article::work_units(&self.model, self.engine)
    }

    fn plan(&self, machine: Machine) -> Plan {
        plan(self, machine)
    }

    /// One cell per run, all alike: a run's estimate on one thread.
    fn cells(&self) -> Vec<CellCost> {
        let one = ArticleModel {
            runs: 1,
            ..self.model.clone()
        };
        let engine = match self.engine {
            Engine::Fast { .. } => Engine::Fast { threads: 1 },
            Engine::Servers => Engine::Servers,
        };
        let cost = CellCost {
            seconds: estimate::estimate(&one, engine).seconds,
            units: article::work_units(&one, engine),
        };
        vec![cost; self.model.runs as usize]
    }

    fn simulate_cells(
        &self,
        cells: &[usize],
        progress: &dyn Progress,
    ) -> Result<Vec<RunCounts>, Interrupted> {
        let runs: Vec<u32> = cells
            .iter()
            .map(|&run| u32::try_from(run).expect("a run"))
            .collect();
        article::simulate_runs(&self.model, self.engine, &runs, progress)
    }

    fn assemble(&self, cells: Vec<RunCounts>) -> ArticleResults {
        article::assemble(&self.model, cells)
    }
}

/// What `config` will cost on `machine`: the fast engine's time on the threads that run at
/// once and the results kept for the files; the servers engine's time and key tables.
fn plan(config: &ArticleConfig, machine: Machine) -> Plan {
    let model = &config.model;
    // The fast engine's threads beyond the cores wait their turn.
    let engine = match config.engine {
        Engine::Fast { threads } => Engine::Fast {
            threads: threads_at_once(threads, machine.cores, u64::MAX),
        },
        Engine::Servers => Engine::Servers,
    };
    let Estimate {
        seconds,
        memory_bytes,
    } = estimate::estimate(model, engine);
    let results = format!("{} runs x {} p values", model.runs, model.ack_loss.len());
    let (how, too_big) = match (config.engine, engine) {
        (Engine::Fast { threads: asked }, Engine::Fast { threads }) => (
            on_threads(threads, asked),
            (
                format!("keeping the results of {results} for the output files"),
                "use fewer --runs or p values",
            ),
        ),
        _ => (
            format!(" and {} of memory", human_bytes(memory_bytes)),
            (
                format!(
                    "the servers engine with {} requests per run and {results}",
                    model.requests
                ),
                "use --engine fast (constant memory per request), fewer --requests, --runs or \
                 p values",
            ),
        ),
    };
    Plan {
        seconds,
        how,
        memory_bytes,
        too_big,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::OutputSettings;
    use crate::model::article::ArticleModel;
    use std::path::PathBuf;

    fn config(requests: u64, runs: u32, engine: Engine) -> ArticleConfig {
        ArticleConfig {
            model: ArticleModel {
                ack_loss: vec![0.0],
                requests,
                max_retries: 20,
                seed: 42,
                runs,
            },
            engine,
            output: OutputSettings {
                out_dir: PathBuf::from("out"),
                quiet: false,
                json: false,
            },
        }
    }

    #[test]
    fn short_runs_pass_silently() {
        let article = config(10_000, 1, Engine::Fast { threads: 2 });
        assert_eq!(article.check(Machine::new(1 << 30, 2)).unwrap(), None);
    }

    #[test]
    fn long_runs_are_announced_with_the_estimate() {
        // 4.2 x 10^12 requests x 1 run at p = 0 on 2 threads: 4.2e12 / (7e8 x 2) = 3000 s.
        let long = config(4_200_000_000_000, 1, Engine::Fast { threads: 2 });
        let warning = long.check(Machine::new(1 << 30, 2)).unwrap().unwrap();
        assert!(warning.contains("about 50 min on 2 threads"), "{warning}");
    }

    #[test]
    fn servers_runs_beyond_the_memory_are_refused_with_the_estimate() {
        // 10^9 requests x 160 bytes + 16 MiB + one point = 1.6e11 bytes = 149.0 GiB, against
        // 8 GiB available.
        let big = config(1_000_000_000, 1, Engine::Servers);
        let error = big.check(Machine::new(8 << 30, 2)).unwrap_err().to_string();
        assert!(error.contains("149.0 GiB"), "{error}");
        assert!(error.contains("8.0 GiB is available"), "{error}");
        assert!(error.contains("--engine fast"), "{error}");
        // The fast engine needs no memory per request.
        let fast = config(1_000_000_000, 1, Engine::Fast { threads: 2 });
        assert!(fast.check(Machine::new(8 << 30, 2)).is_ok());
    }

    #[test]
    fn fast_runs_whose_results_do_not_fit_are_refused_with_the_estimate() {
        // 100,000 runs x 10,000 p values x (640 + 8) bytes = 6.48e11 bytes = 603.5 GiB.
        let mut many = config(1, 100_000, Engine::Fast { threads: 2 });
        many.model.ack_loss = (0..10_000).map(|i| f64::from(i) * 1e-9).collect();
        many.model.max_retries = 0;
        let error = many
            .check(Machine::new(8 << 30, 2))
            .unwrap_err()
            .to_string();
        assert!(error.contains("100000 runs x 10000 p values"), "{error}");
        assert!(error.contains("603.5 GiB"), "{error}");
        assert!(error.contains("fewer --runs or p values"), "{error}");
    }

    #[test]
    fn fast_runs_are_estimated_on_the_cores_that_run_them() {
        // 4.2 x 10^12 requests on 1,024 threads asked but 2 cores: 3000 s, not 3 s.
        let long = config(4_200_000_000_000, 1, Engine::Fast { threads: 1024 });
        let warning = long.check(Machine::new(1 << 30, 2)).unwrap().unwrap();
        assert!(
            warning.contains("about 50 min on 2 threads (1024 asked)"),
            "{warning}"
        );
    }
}
