//! The models as the driver runs them: one trait ([`Model`]) over a model's validated config,
//! its estimate against this machine, its simulation and its report, implemented once per
//! model in this folder. The driver is generic over it; adding a model is one folder per
//! layer (`config/`, `model/`, `report/`), one implementation here and one line of
//! [`crate::driver::run`]'s dispatch.

/// The [`Model`] methods `simulate_cells` and `assemble` of a model whose `$module` (under
/// `model/`) computes its cells as `simulate_cells(&model, threads, cells, progress)` and
/// assembles them with `assemble(&model, cells)`, the results wrapped by `$wrap`.
macro_rules! cells_on_threads {
    ($module:ident, $cell:ty, $results:ty, $wrap:expr) => {
        fn simulate_cells(
            &self,
            cells: &[usize],
            progress: &dyn Progress,
        ) -> Result<Vec<$cell>, Interrupted> {
            $module::simulate_cells(&self.model, self.threads, cells, progress)
        }

        fn assemble(&self, cells: Vec<$cell>) -> $results {
            $wrap($module::assemble(&self.model, cells))
        }
    };
}

pub mod article;
pub mod contention;
pub mod load;
pub mod timeline;

use crate::limits::{Machine, TooMuchMemory, long_run_warning, on_threads};
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

    /// The units of work in all, for the progress bar.
    fn work_units(&self) -> u64;

    /// What the run will cost on `machine`.
    fn plan(&self, machine: Machine) -> Plan;

    /// Settings that are valid but likely not what was meant, each with the fix, in words
    /// (e.g. a timeout below the typical round trip).
    fn warnings(&self) -> Vec<String> {
        Vec::new()
    }

    /// The run held against `machine`: a warning to print first when it is estimated to
    /// take long; refused when it would not fit in memory.
    fn check(&self, machine: Machine) -> Result<Option<String>, TooMuchMemory> {
        let plan = self.plan(machine);
        if plan.memory_bytes > machine.memory_bytes {
            let (what, advice) = plan.too_big;
            return Err(TooMuchMemory {
                what,
                needed: plan.memory_bytes,
                available: machine.memory_bytes,
                advice,
            });
        }
        Ok(long_run_warning(plan.seconds, &plan.how))
    }

    /// What its results show that was likely not meant: e.g. a sweep point at which no
    /// payment succeeded.
    fn result_warnings(_results: &Self::Results) -> Vec<String> {
        Vec::new()
    }

    /// What one cell of the run gives: a cell is a share of the work that is a pure
    /// function of its index and the seed (a run, or a run of one scenario and strategy), the
    /// unit a sharded run (`--shard`, see [`crate::shard`]) hands out. Serialised without loss
    /// (every float reads back bit for bit), so that `simulate merge` rebuilds the results.
    type Cell: serde::Serialize + serde::de::DeserializeOwned + Send + 'static;

    /// The run's cells in order, each with its estimated cost.
    fn cells(&self) -> Vec<CellCost>;

    /// The results of the cells `cells` (indices into [`Model::cells`], ascending), in that
    /// order, telling `progress` how far they came and stopping when asked.
    fn simulate_cells(
        &self,
        cells: &[usize],
        progress: &dyn Progress,
    ) -> Result<Vec<Self::Cell>, Interrupted>;

    /// The results of every cell's results, in cell order.
    fn assemble(&self, cells: Vec<Self::Cell>) -> Self::Results;

    /// Runs it, telling `progress` how far it came and stopping when asked: every cell, then
    /// their results assembled, as a sharded run's merge does.
    fn simulate(&self, progress: &dyn Progress) -> Result<Self::Results, Interrupted> {
        let cells: Vec<usize> = (0..self.cells().len()).collect();
        Ok(self.assemble(self.simulate_cells(&cells, progress)?))
    }
}

/// What one cell of a run is estimated to cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CellCost {
    /// Its time on one thread, as the model's estimate gives it (s).
    pub seconds: f64,
    /// Its units of progress ([`Model::UNIT`]).
    pub units: u64,
}

/// What a run will cost on a machine, as its model estimates it.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Wall-clock time (s).
    pub seconds: f64,
    /// How the warning's estimate ends: ` on 2 threads (1024 asked)`.
    pub how: String,
    /// Memory at the peak (bytes).
    pub memory_bytes: u64,
    /// The run in words and which settings to lower, should it not fit in memory.
    pub too_big: (String, &'static str),
}

impl Plan {
    /// `seconds` on `threads` threads at once (`asked` asked), in memory that does not grow
    /// with the run.
    pub fn on_threads(seconds: f64, threads: usize, asked: usize) -> Self {
        Self {
            seconds,
            how: on_threads(threads, asked),
            memory_bytes: 0,
            too_big: (String::new(), ""),
        }
    }
}

/// The warning for a scenario whose client times out before the typical answer: its timeout
/// (ms) is at most the median round trip (ms) of request, processing and response.
pub fn timeout_warning(scenario: &str, timeout_ms: f64, round_trip_ms: f64) -> Option<String> {
    (timeout_ms <= round_trip_ms).then(|| {
        format!(
            "warning: scenario {scenario}: client.timeout_ms = {timeout_ms} ms is not above the \
             median round trip of {round_trip_ms} ms, so most attempts time out and are sent \
             again; raise it (a duration may carry its unit, e.g. timeout_ms = \"2s\")"
        )
    })
}

/// The warning for a scenario whose keys expire while its clients still retry: a key TTL
/// (ms) shorter than the clients' retry window (ms).
pub fn ttl_warning(scenario: &str, key_ttl_ms: Option<f64>, window_ms: f64) -> Option<String> {
    let ttl = key_ttl_ms?;
    (ttl < window_ms).then(|| {
        format!(
            "warning: scenario {scenario}: server.key_ttl_ms = {ttl} ms is shorter than the \
             clients' retry window of {window_ms} ms, so a retry that comes after its key \
             expired is charged again; make the TTL at least the window"
        )
    })
}

/// The warning that no payment succeeded, when `succeeded` (over every run, scenario and
/// strategy) is 0; in a sweep the driver names the points it holds at.
pub(crate) fn no_success_warning(succeeded: u64, advice: &str) -> Option<String> {
    (succeeded == 0).then(|| {
        format!("warning: no payment succeeded in any scenario, strategy or run: {advice}")
    })
}
