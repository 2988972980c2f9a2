//! The models as the driver runs them: one trait ([`Model`]) over a model's validated config,
//! its estimate against this machine, its simulation and its report, implemented once per
//! model in this folder. The driver is generic over it; adding a model is one folder per
//! layer (`config/`, `model/`, `report/`), one implementation here and one line of
//! [`crate::driver::run`]'s dispatch.

pub mod article;
pub mod contention;
pub mod load;
pub mod timeline;

use crate::config::OutputSettings;
use crate::limits::{Machine, TooMuchMemory};
use crate::report::Report;
use engine::{Interrupted, Progress};

/// One model, ready to run: its validated config, and what the driver needs of it.
pub trait Model: Send + 'static {
    /// The model's name (the output folder's marker says which model wrote it).
    const NAME: &'static str;
    /// What one unit of its progress counts (`requests`, `payments`, `runs`).
    const UNIT: &'static str;
    /// What a run produces, and how it turns into files, a table and JSON.
    type Results: Report + Send + 'static;

    /// Where the files go and what is printed.
    fn output(&self) -> &OutputSettings;

    /// The units of work in all, for the progress bar.
    fn work_units(&self) -> u64;

    /// The run held against `machine`: a warning to print first when it is estimated to
    /// take long; refused when it would not fit in memory.
    fn check(&self, machine: Machine) -> Result<Option<String>, TooMuchMemory>;

    /// Runs it, telling `progress` how far it came and stopping when asked.
    fn simulate(&self, progress: &dyn Progress) -> Result<Self::Results, Interrupted>;
}
