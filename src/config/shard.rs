//! `--shard K/N`: which share of a run's cells this process runs. `K/N` names shard `K` of
//! `N` (`K` from 0 to `N − 1`); `slurm/N` and `k8s/N` read `K` from the scheduler's
//! variable when the run starts (`SLURM_ARRAY_TASK_ID` of a Slurm job array,
//! `JOB_COMPLETION_INDEX` of a Kubernetes Indexed Job), so one command serves every task.

use super::{ConfigError, Origin};

/// The most shards a run may be cut into.
pub const MAX_SHARDS: u32 = 100_000;

/// Where a shard's index comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardIndex {
    /// Given on the command line (`--shard 2/4`).
    Given(u32),
    /// Read from an environment variable when the run starts (`--shard slurm/4`).
    Variable(Scheduler),
}

/// A scheduler that numbers its tasks in an environment variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheduler {
    /// A Slurm job array (`sbatch --array=0-3`): `SLURM_ARRAY_TASK_ID`.
    Slurm,
    /// A Kubernetes Indexed Job (`completionMode: Indexed`): `JOB_COMPLETION_INDEX`.
    Kubernetes,
}

impl Scheduler {
    /// Its name in `--shard NAME/N`.
    pub fn name(self) -> &'static str {
        match self {
            Scheduler::Slurm => "slurm",
            Scheduler::Kubernetes => "k8s",
        }
    }

    /// The environment variable that holds the task's index.
    pub fn variable(self) -> &'static str {
        match self {
            Scheduler::Slurm => "SLURM_ARRAY_TASK_ID",
            Scheduler::Kubernetes => "JOB_COMPLETION_INDEX",
        }
    }
}

/// `--shard` as typed: the index (or where to read it) and the number of shards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardFlag {
    /// The shard's index, or the scheduler whose variable holds it.
    pub index: ShardIndex,
    /// The number of shards, 1 to [`MAX_SHARDS`].
    pub count: u32,
    /// The flag's value as typed, for messages.
    pub written: String,
}

/// The shard a process runs: index `index` (0 to `count − 1`) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Shard {
    /// Its index, from 0.
    pub index: u32,
    /// The number of shards.
    pub count: u32,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl ShardFlag {
    /// Parses `K/N`, `slurm/N` or `k8s/N` (the error says what is expected; the caller names
    /// the value).
    pub fn parse(text: &str) -> Result<Self, String> {
        let expected = "expected K/N (shard K of N, K from 0 to N-1), slurm/N or k8s/N";
        let (index, count) = text.split_once('/').ok_or_else(|| expected.to_string())?;
        let count: u32 = count
            .trim()
            .parse()
            .ok()
            .filter(|count| (1..=MAX_SHARDS).contains(count))
            .ok_or_else(|| {
                format!("N must be a whole number from 1 to {MAX_SHARDS}; {expected}")
            })?;
        let index = match index.trim() {
            "slurm" => ShardIndex::Variable(Scheduler::Slurm),
            "k8s" => ShardIndex::Variable(Scheduler::Kubernetes),
            given => {
                let index: u32 = given
                    .parse()
                    .map_err(|_| format!("K must be a whole number; {expected}"))?;
                if index >= count {
                    return Err(format!(
                        "K must be below N (shards are numbered 0 to {})",
                        count - 1
                    ));
                }
                ShardIndex::Given(index)
            }
        };
        Ok(Self {
            index,
            count,
            written: text.to_string(),
        })
    }

    /// The shard, its index read from the scheduler's variable in `environment` (the
    /// process's, `std::env::var`) where the flag asks for it; a variable not set or not an
    /// index below N is the error.
    pub fn resolve(
        &self,
        environment: impl Fn(&str) -> Option<String>,
    ) -> Result<Shard, ConfigError> {
        let index = match self.index {
            ShardIndex::Given(index) => index,
            ShardIndex::Variable(scheduler) => {
                let variable = scheduler.variable();
                let invalid = |reason: String| ConfigError::InvalidValue {
                    origin: Origin::Flag("--shard"),
                    value: self.written.clone(),
                    reason,
                };
                let value = environment(variable).ok_or_else(|| {
                    invalid(format!(
                        "{variable} is not set: run it as a task of a {} (or give the index, \
                         --shard K/{})",
                        match scheduler {
                            Scheduler::Slurm =>
                                format!("Slurm job array (sbatch --array=0-{})", self.count - 1),
                            Scheduler::Kubernetes => "Kubernetes Indexed Job".to_string(),
                        },
                        self.count
                    ))
                })?;
                value
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|index| *index < self.count)
                    .ok_or_else(|| {
                        invalid(format!(
                            "{variable} = {value:?} is not a shard index from 0 to {}",
                            self.count - 1
                        ))
                    })?
            }
        };
        Ok(Shard {
            index,
            count: self.count,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_given_or_read_from_the_scheduler() {
        let given = ShardFlag::parse("2/4").unwrap();
        assert_eq!(
            given.resolve(|_| None).unwrap(),
            Shard { index: 2, count: 4 }
        );
        let slurm = ShardFlag::parse("slurm/4").unwrap();
        let env = |name: &str| (name == "SLURM_ARRAY_TASK_ID").then(|| "3".to_string());
        assert_eq!(slurm.resolve(env).unwrap(), Shard { index: 3, count: 4 });
        let k8s = ShardFlag::parse("k8s/2").unwrap();
        let env = |name: &str| (name == "JOB_COMPLETION_INDEX").then(|| "0".to_string());
        assert_eq!(k8s.resolve(env).unwrap(), Shard { index: 0, count: 2 });
    }

    #[test]
    fn bad_shards_are_one_line_naming_the_flag() {
        for (bad, why) in [
            ("4/4", "K must be below N (shards are numbered 0 to 3)"),
            ("1", "expected K/N"),
            ("a/3", "K must be a whole number"),
            ("-1/3", "K must be a whole number"),
            ("1/0", "N must be a whole number from 1 to 100000"),
            ("1/100001", "N must be a whole number from 1 to 100000"),
            ("slurm/", "N must be a whole number"),
        ] {
            let error = ShardFlag::parse(bad).unwrap_err();
            assert!(error.contains(why), "{bad}: {error}");
        }
        let slurm = ShardFlag::parse("slurm/4").unwrap();
        let unset = slurm.resolve(|_| None).unwrap_err().to_string();
        assert!(unset.contains("--shard"), "{unset}");
        assert!(unset.contains("SLURM_ARRAY_TASK_ID is not set"), "{unset}");
        let beyond = slurm.resolve(|_| Some("4".into())).unwrap_err().to_string();
        assert!(
            beyond.contains("\"4\" is not a shard index from 0 to 3"),
            "{beyond}"
        );
        assert!(!beyond.contains('\n'));
    }
}
