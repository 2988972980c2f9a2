//! The timeline model as the driver runs it.

use super::{Model, Plan};
use crate::config::TimelineConfig;
use crate::limits::Machine;
use crate::model::timeline::{self, TimelineResults, estimate};
use engine::{Interrupted, Progress};

impl Model for TimelineConfig {
    const NAME: &'static str = "timeline";
    const UNIT: &'static str = "payments";
    type Results = TimelineResults;

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

    fn simulate(&self, progress: &dyn Progress) -> Result<TimelineResults, Interrupted> {
        timeline::simulate(&self.model, self.threads, progress)
    }
}
