//! The contention model as the driver runs it.

use super::Model;
use crate::config::{ContentionConfig, OutputSettings};
use crate::limits::{Machine, TooMuchMemory, long_run_warning, on_threads};
use crate::model::contention::{self, ContentionResults, estimate};
use engine::{Interrupted, Progress};

impl Model for ContentionConfig {
    const NAME: &'static str = "contention";
    const UNIT: &'static str = "runs";
    type Results = ContentionResults;

    fn output(&self) -> &OutputSettings {
        &self.output
    }

    fn work_units(&self) -> u64 {
        self.model.simulations()
    }

    /// A warning to print first when the run is estimated to take long.
    fn check(&self, machine: Machine) -> Result<Option<String>, TooMuchMemory> {
        let threads = estimate::threads(&self.model, self.threads, machine.cores);
        let seconds = estimate::estimate(&self.model, threads).seconds;
        Ok(long_run_warning(
            seconds,
            &on_threads(threads, self.threads),
        ))
    }

    fn simulate(&self, progress: &dyn Progress) -> Result<ContentionResults, Interrupted> {
        contention::simulate(&self.model, self.threads, progress)
    }
}
