//! The timeline model as the driver runs it.

use super::{CellCost, Model, Plan, timeout_warning, ttl_warning};
use crate::config::TimelineConfig;
use crate::limits::Machine;
use crate::model::timeline::{self, CellTallies, TimelineModel, estimate};
use crate::report::timeline::TimelineReport;
use engine::{Interrupted, Progress};

impl Model for TimelineConfig {
    const NAME: &'static str = "timeline";
    const UNIT: &'static str = "payments";
    type Results = TimelineReport;
    type Cell = CellTallies;

    fn work_units(&self) -> u64 {
        self.model.work_units()
    }

    /// Its time on the threads that run at once; its memory does not grow with the
    /// payments.
    fn plan(&self, machine: Machine) -> Plan {
        let threads = estimate::threads(&self.model, self.threads, machine.cores);
        let seconds = estimate::estimate(&self.model, threads).seconds;
        Plan::on_threads(seconds, threads, self.threads)
    }

    /// A timeout not above the median round trip; a key TTL shorter than the retry window.
    fn warnings(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        for scenario in &self.model.scenarios {
            let network = &scenario.network;
            let round_trip_ms = network.request_latency.median_ms()
                + scenario.processing.median_ms()
                + network.response_latency.median_ms();
            let client = &scenario.client;
            warnings.extend(timeout_warning(
                &scenario.name,
                client.timeout_ms,
                round_trip_ms,
            ));
            warnings.extend(ttl_warning(
                &scenario.name,
                scenario.key.key_ttl_ms,
                client.retry_window_ms(),
            ));
        }
        warnings
    }

    /// A run in which no payment of any run, scenario or strategy succeeded.
    fn result_warnings(report: &TimelineReport) -> Vec<String> {
        let succeeded: u64 = report
            .results()
            .runs
            .iter()
            .map(|row| row.counts.succeeded)
            .sum();
        super::no_success_warning(
            succeeded,
            "what fails is not the key; look at the timeouts and losses first",
        )
        .into_iter()
        .collect()
    }

    /// One cell per run and scenario: one run of the scenario's estimate on one thread.
    fn cells(&self) -> Vec<CellCost> {
        let model = &self.model;
        let per_scenario: Vec<CellCost> = model
            .scenarios
            .iter()
            .map(|scenario| {
                let one = TimelineModel {
                    runs: 1,
                    scenarios: vec![scenario.clone()],
                    ..model.clone()
                };
                CellCost {
                    seconds: estimate::estimate(&one, 1).seconds,
                    units: one.work_units(),
                }
            })
            .collect();
        (0..model.runs)
            .flat_map(|_| per_scenario.iter().copied())
            .collect()
    }

    cells_on_threads!(timeline, CellTallies, TimelineReport, TimelineReport::new);
}
