//! The contention model as the driver runs it.

use super::{CellCost, Model, Plan};
use crate::config::ContentionConfig;
use crate::limits::Machine;
use crate::model::contention::{self, ContentionModel, ContentionResults, RunTally, estimate};
use engine::{Interrupted, Progress};

impl Model for ContentionConfig {
    const NAME: &'static str = "contention";
    const UNIT: &'static str = "runs";
    type Results = ContentionResults;
    type Cell = RunTally;

    fn work_units(&self) -> u64 {
        self.model.simulations()
    }

    /// Its time on the threads that run at once; its memory is a few events per client.
    fn plan(&self, machine: Machine) -> Plan {
        let threads = estimate::threads(&self.model, self.threads, machine.cores);
        let seconds = estimate::estimate(&self.model, threads).seconds;
        Plan::on_threads(seconds, threads, self.threads)
    }

    /// One cell per simulation (client count, policy, run): its estimate on one thread.
    fn cells(&self) -> Vec<CellCost> {
        let model = &self.model;
        contention::tasks(model)
            .into_iter()
            .map(|(clients, policy, _)| {
                let one = ContentionModel {
                    runs: 1,
                    clients: vec![clients],
                    policies: vec![policy],
                    ..model.clone()
                };
                CellCost {
                    seconds: estimate::estimate(&one, 1).seconds,
                    units: 1,
                }
            })
            .collect()
    }

    cells_on_threads!(
        contention,
        RunTally,
        ContentionResults,
        std::convert::identity
    );
}
