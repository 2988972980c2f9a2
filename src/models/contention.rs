//! The contention model as the driver runs it.

use super::{Model, Plan};
use crate::config::ContentionConfig;
use crate::limits::Machine;
use crate::model::contention::{self, ContentionResults, estimate};
use engine::{Interrupted, Progress};

impl Model for ContentionConfig {
    const NAME: &'static str = "contention";
    const UNIT: &'static str = "runs";
    type Results = ContentionResults;

    fn work_units(&self) -> u64 {
        self.model.simulations()
    }

    /// Its time on the threads that run at once; its memory is a few events per client.
    fn plan(&self, machine: Machine) -> Plan {
        let threads = estimate::threads(&self.model, self.threads, machine.cores);
        let seconds = estimate::estimate(&self.model, threads).seconds;
        Plan::on_threads(seconds, threads, self.threads)
    }

    fn simulate(&self, progress: &dyn Progress) -> Result<ContentionResults, Interrupted> {
        contention::simulate(&self.model, self.threads, progress)
    }
}
