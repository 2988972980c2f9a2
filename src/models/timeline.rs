//! The timeline model as the driver runs it.

use super::Model;
use crate::config::{OutputSettings, TimelineConfig};
use crate::limits::{Machine, TooMuchMemory, long_run_warning, on_threads};
use crate::model::timeline::{self, TimelineResults, estimate};
use engine::{Interrupted, Progress};

impl Model for TimelineConfig {
    const NAME: &'static str = "timeline";
    const UNIT: &'static str = "payments";
    type Results = TimelineResults;

    fn output(&self) -> &OutputSettings {
        &self.output
    }

    fn work_units(&self) -> u64 {
        self.model.work_units()
    }

    /// A warning to print first when the run is estimated to take long (its memory does not
    /// grow with the payments).
    fn check(&self, machine: Machine) -> Result<Option<String>, TooMuchMemory> {
        let threads = estimate::threads(&self.model, self.threads, machine.cores);
        let seconds = estimate::estimate(&self.model, threads).seconds;
        Ok(long_run_warning(
            seconds,
            &on_threads(threads, self.threads),
        ))
    }

    fn simulate(&self, progress: &dyn Progress) -> Result<TimelineResults, Interrupted> {
        timeline::simulate(&self.model, self.threads, progress)
    }
}
