//! The per-run quantities the contention model's summary estimates across runs, declared
//! once (name, kind, unit, doc); `report::contention::summary` folds them into the shared
//! summary shape (`summary.csv`, `differences.csv`).

use super::RunTally;

engine::metrics! {
    /// A per-run quantity the summary averages.
    pub enum Metric {
        /// Write calls, accepted or not: the AWS post's "calls".
        Writes = "writes": mean "calls per run",
        /// Rejected writes.
        FailedWrites = "failed_writes": mean "calls per run",
        /// Read calls.
        Reads = "reads": mean "calls per run",
        /// When the last client got its final reply: the AWS post's "time".
        CompletionMs = "completion_ms": mean "ms",
        /// The mean client's time to its final reply.
        MeanClientCompletionMs = "mean_client_completion_ms": mean "ms",
        /// Clients that gave up.
        GaveUp = "gave_up": mean "clients per run",
    }
}

impl Metric {
    /// This metric's value in one run.
    pub fn of(self, tally: &RunTally) -> f64 {
        match self {
            Metric::Writes => tally.writes as f64,
            Metric::FailedWrites => tally.failed_writes as f64,
            Metric::Reads => tally.reads as f64,
            Metric::CompletionMs => tally.completion_ms,
            Metric::MeanClientCompletionMs => tally.mean_client_completion_ms,
            Metric::GaveUp => f64::from(tally.gave_up),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_metric_reads_its_own_count() {
        let tally = RunTally {
            reads: 1,
            writes: 2,
            failed_writes: 3,
            succeeded: 4,
            gave_up: 5,
            completion_ms: 6.0,
            mean_client_completion_ms: 7.0,
            final_version: 8,
        };
        let values: Vec<f64> = Metric::ALL.iter().map(|metric| metric.of(&tally)).collect();
        assert_eq!(values, [2.0, 3.0, 1.0, 6.0, 7.0, 5.0]);
    }
}
