//! The load model (a timeline file with a shared server) as the driver runs it.

use super::{CellCost, Model, Plan, timeout_warning, ttl_warning};
use crate::config::LoadConfig;
use crate::limits::{Machine, human_bytes, on_threads};
use crate::model::load::{self, LoadModel, LoadResults, LoadTally, estimate};
use engine::{Interrupted, Progress};

impl Model for LoadConfig {
    const NAME: &'static str = "load";
    const UNIT: &'static str = "runs";
    type Results = LoadResults;
    type Cell = LoadTally;

    fn work_units(&self) -> u64 {
        self.model.simulations()
    }

    fn plan(&self, machine: Machine) -> Plan {
        plan(self, machine)
    }

    /// A timeout not above the median round trip, a key TTL shorter than the retry window,
    /// and a server offered more work at the start than its workers can do.
    fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        for scenario in &self.model.scenarios {
            let (network, server, client) = (&scenario.network, &scenario.server, &scenario.client);
            let round_trip_ms = network.request_latency.median_ms()
                + server.processing.median_ms()
                + network.response_latency.median_ms();
            warnings.extend(timeout_warning(
                &scenario.name,
                client.timeout_ms,
                round_trip_ms,
            ));
            let window_ms = engine::backoff::retry_window_ms(
                client.timeout_ms,
                client.max_retries,
                &client.backoff,
            );
            warnings.extend(ttl_warning(&scenario.name, server.key_ttl_ms, window_ms));
            warnings.extend(overload_warning(scenario));
        }
        warnings
    }

    /// A run in which no payment of any run, scenario or strategy succeeded.
    fn result_warnings(results: &LoadResults) -> Vec<String> {
        let succeeded: u64 = results
            .rows
            .iter()
            .map(|row| row.tally.counts.succeeded)
            .sum();
        super::no_success_warning(
            succeeded,
            "every attempt fails; look at the error rate, the losses and the timeouts",
        )
        .into_iter()
        .collect()
    }

    /// One cell per event loop (run, scenario, strategy): the loop's estimate on one thread.
    fn cells(&self) -> Vec<CellCost> {
        let model = &self.model;
        let seconds = |scenario: usize, strategy| {
            let one = LoadModel {
                runs: 1,
                scenarios: vec![model.scenarios[scenario].clone()],
                strategies: vec![strategy],
                ..model.clone()
            };
            estimate::estimate(&one, 1, 1).seconds
        };
        let mut known = std::collections::HashMap::new();
        load::tasks(model)
            .into_iter()
            .map(|(_, scenario, strategy)| CellCost {
                seconds: *known
                    .entry((scenario, strategy))
                    .or_insert_with(|| seconds(scenario, strategy)),
                units: 1,
            })
            .collect()
    }

    cells_on_threads!(load, LoadTally, LoadResults, std::convert::identity);
}

/// The warning for a scenario whose server is offered more work from the start than its
/// workers can do: the first phase's starting rate times the mean processing time, in
/// workers' worth of work (erlangs), at least the workers at t = 0.
fn overload_warning(scenario: &load::LoadScenario) -> Option<String> {
    let workers = f64::from(scenario.server.workers_at(0.0));
    let rate_per_s = match scenario.arrivals.phases.first()?.rate {
        load::PhaseRate::Constant(rate) => rate,
        load::PhaseRate::Ramp { from, .. } => from,
    };
    let offered = rate_per_s * scenario.server.processing.mean_ms() / 1000.0;
    (offered >= workers).then(|| {
        format!(
            "warning: scenario {}: {rate_per_s} payments per s of {} ms each offer {offered} \
             workers' worth of work to {workers} workers from the start (utilisation {:.2}): \
             the queue grows before any trigger; add workers or lower the rate",
            scenario.name,
            scenario.server.processing.mean_ms(),
            offered / workers
        )
    })
}

/// What a load file will cost on `machine`: its time on the threads that run at once, and
/// its time series, clients and payments in flight in memory.
fn plan(config: &LoadConfig, machine: Machine) -> Plan {
    let model = &config.model;
    let estimate = estimate::estimate(model, config.threads, machine.cores);
    let clients = model
        .scenarios
        .iter()
        .filter_map(|scenario| scenario.arrivals.clients)
        .max()
        .map_or(String::new(), |clients| format!("{clients} clients and "));
    let what = format!(
        "{}: {} event loops ({} runs x {} scenarios x {} strategies) keeping about {:.0} \
         time-series buckets, and {} loops at once each holding about {} ({clients}the payments \
         in flight)",
        model.title,
        model.runs as usize * model.scenarios.len() * model.strategies.len(),
        model.runs,
        model.scenarios.len(),
        model.strategies.len(),
        estimate.buckets,
        estimate.loops_at_once,
        human_bytes(estimate.loop_bytes as u64),
    );
    let threads = estimate::threads(model, config.threads, machine.cores);
    Plan {
        seconds: estimate.seconds,
        how: on_threads(threads, config.threads),
        memory_bytes: estimate.memory_bytes(),
        too_big: (
            what,
            "use wider [output] bucket_s, fewer runs, scenarios, strategies, clients or \
             --threads, or a lower arrival rate or more workers",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A load or timeline file's config as the command line reads it, with `threads`.
    fn scenario_config(text: &str, threads: Option<usize>) -> crate::config::Job {
        let overrides = crate::config::Overrides {
            threads,
            ..Default::default()
        };
        crate::config::Job::from_text(text, std::path::Path::new("storm.toml"), &overrides).unwrap()
    }

    #[test]
    fn long_load_runs_are_announced_on_the_threads_that_run_them() {
        // 24,000 payments of 1,001 attempts, 4 loops: about 120 s on 2 threads (see
        // model::load::estimate::tests::load_estimates_count_every_attempt), whatever the threads asked.
        let text = "model = \"timeline\"\n[arrivals]\nrate_per_s = 100\nduration_s = 240\n\
                    [server]\nworkers = 100\nerror_rate = 1.0\n\
                    processing = { distribution = \"fixed\", ms = 1 }\n\
                    [client]\nmax_retries = 1000\nbackoff = { policy = \"none\" }\n";
        for (threads, ending) in [
            (2, "about 2 min on 2 threads;"),
            (1024, "about 2 min on 2 threads (1024 asked);"),
            (1, "about 4 min on 1 thread;"),
        ] {
            let crate::config::Job::Load(config) = scenario_config(text, Some(threads)) else {
                panic!("not a load file");
            };
            let warning = config.check(Machine::new(8 << 30, 2)).unwrap().unwrap();
            assert!(warning.contains(ending), "{threads}: {warning}");
        }
    }

    #[test]
    fn load_runs_beyond_the_memory_are_refused_with_the_estimate() {
        // 10^7 clients of 72 bytes in each of 16 loops at once (16 threads, 32 loops), one
        // payment in flight each, and 32 loops of 12 buckets: 11,520,094,208 bytes = 10.7
        // GiB, against 8 GiB available.
        let text = "model = \"timeline\"\nruns = 8\n[arrivals]\nclients = 10000000\n\
                    rate_per_s = 1\nduration_s = 10\n[server]\nworkers = 4\n";
        let crate::config::Job::Load(config) = scenario_config(text, Some(16)) else {
            panic!("not a load file");
        };
        let error = config
            .check(Machine::new(8 << 30, 2))
            .unwrap_err()
            .to_string();
        for part in [
            "storm.toml: 32 event loops (8 runs x 1 scenarios x 4 strategies)",
            "16 loops at once each holding about 762.9 MiB (10000000 clients and the payments \
             in flight) would need",
            "about 11.9 GiB of memory, but 8.0 GiB is available",
            "--threads",
        ] {
            assert!(error.contains(part), "{part:?} not in {error}");
        }
        assert!(!error.contains('\n'), "{error}");
        // On 2 threads: 2 x 800,000,512 bytes and the buckets, about 1.5 GiB: it fits.
        let crate::config::Job::Load(config) = scenario_config(text, Some(2)) else {
            panic!("not a load file");
        };
        assert_eq!(config.check(Machine::new(8 << 30, 2)).unwrap(), None);
    }
}
