//! Means over runs with their standard errors and 95% intervals, per client count, policy
//! and metric.

use super::{ContentionResults, Policy, RunTally};
use engine::stats;

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

/// One metric of one (client count, policy) over the runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MetricSummary {
    /// Clients racing for the row.
    pub clients: u32,
    /// The backoff policy.
    pub policy: Policy,
    /// What is averaged.
    pub metric: Metric,
    /// Runs averaged.
    pub runs: u32,
    /// The mean over runs.
    pub mean: f64,
    /// The sample standard deviation across runs (divisor `runs − 1`); `None` for one run.
    pub sd: Option<f64>,
    /// The 95% interval for the expectation: Student's t across runs (`None` for one run).
    pub interval: Option<stats::Interval>,
}

impl MetricSummary {
    /// The standard error of the mean, `sd / √runs`; `None` for one run.
    pub fn standard_error(&self) -> Option<f64> {
        self.sd.map(|sd| sd / f64::from(self.runs).sqrt())
    }
}

/// The summary of every (client count, policy, metric), in the results' order, metrics as in
/// [`Metric::ALL`].
pub fn summarise(results: &ContentionResults) -> Vec<MetricSummary> {
    let runs = results.model.runs as usize;
    results
        .rows
        .chunks(runs.max(1))
        .flat_map(|group| {
            let (clients, policy) = (group[0].clients, group[0].policy);
            Metric::ALL.iter().map(move |&metric| {
                let values: Vec<f64> = group.iter().map(|row| metric.of(&row.tally)).collect();
                MetricSummary {
                    clients,
                    policy,
                    metric,
                    runs: values.len() as u32,
                    mean: stats::mean(&values),
                    sd: stats::sample_standard_deviation(&values),
                    interval: (values.len() > 1).then(|| stats::t_interval(&values)),
                }
            })
        })
        .collect()
}

/// The summary of one (client count, policy, metric).
pub fn find(
    summary: &[MetricSummary],
    clients: u32,
    policy: Policy,
    metric: Metric,
) -> Option<&MetricSummary> {
    summary
        .iter()
        .find(|row| row.clients == clients && row.policy == policy && row.metric == metric)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::contention::{ContentionModel, ContentionRow, ContentionSetup, Delay};
    use engine::distribution::Distribution;

    #[test]
    fn means_and_standard_errors_by_hand() {
        let tally = |writes: u64, completion_ms: f64| RunTally {
            writes,
            completion_ms,
            ..RunTally::default()
        };
        let model = ContentionModel {
            title: "t".into(),
            seed: 1,
            runs: 3,
            clients: vec![2],
            policies: vec![Policy::None],
            base_ms: 5.0,
            cap_ms: 10.0,
            setup: ContentionSetup {
                delay: Delay::Timeline(Distribution::Fixed { ms: 1.0 }),
                max_retries: None,
            },
        };
        let rows = [tally(2, 10.0), tally(4, 20.0), tally(6, 60.0)]
            .into_iter()
            .enumerate()
            .map(|(run, tally)| ContentionRow {
                clients: 2,
                policy: Policy::None,
                run: run as u32,
                tally,
            })
            .collect();
        let summary = summarise(&ContentionResults { model, rows });
        assert_eq!(summary.len(), Metric::ALL.len());
        let writes = find(&summary, 2, Policy::None, Metric::Writes).unwrap();
        // Mean 4, sd 2, standard error 2 / sqrt(3).
        assert_eq!(writes.mean, 4.0);
        assert_eq!(writes.sd, Some(2.0));
        assert!((writes.standard_error().unwrap() - 2.0 / 3f64.sqrt()).abs() < 1e-15);
        // t(0.975, 2) = 4.302653: 4 ± 4.302653 × 1.154701.
        let interval = writes.interval.unwrap();
        assert!((interval.high - (4.0 + 4.302_653 * 2.0 / 3f64.sqrt())).abs() < 1e-5);
        let time = find(&summary, 2, Policy::None, Metric::CompletionMs).unwrap();
        assert_eq!(time.mean, 30.0);
    }
}
