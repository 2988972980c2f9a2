//! Checks a run against this machine before it starts: a run estimated to take long gets a
//! warning with the estimate, and a run that would not fit in memory (the servers engine's key
//! tables, the results of every run and p kept for the output files, or a load run's time
//! series, clients and payments in flight) is refused with the estimate (see
//! [`crate::model::cost`] for the rates). Times are for the threads that really run at once:
//! those asked, at most this machine's cores and the run's parallel tasks.

use crate::config::{ArticleConfig, ContentionConfig, LoadConfig, TimelineConfig};
use crate::model::article::Engine;
use crate::model::cost::{self, Estimate};

/// Runs estimated to take longer than this many seconds get a warning first.
pub const WARN_AFTER_SECONDS: f64 = 60.0;
/// The most memory a run may plan on when the available memory cannot be read.
pub const MEMORY_CAP_WITHOUT_INFO: u64 = 16 << 30;

/// What this machine offers a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Machine {
    /// The memory a run may use (bytes): see [`available_memory`].
    pub memory_bytes: u64,
    /// The cores that run threads at once (cores): see [`crate::config::default_threads`].
    pub cores: usize,
}

impl Machine {
    /// This machine now: its available memory and its cores.
    pub fn this() -> Self {
        Machine {
            memory_bytes: available_memory(),
            cores: crate::config::default_threads(),
        }
    }
}

/// A run this machine cannot hold. A usage error (exit code 2): the fix is smaller settings.
#[derive(Debug, thiserror::Error)]
#[error(
    "{what} would need about {} of memory, but {} is available: {advice}",
    human_bytes(*needed),
    human_bytes(*available)
)]
pub struct TooMuchMemory {
    /// The run, in words (`the servers engine ... for 10 requests`).
    pub what: String,
    /// The estimated memory, in bytes.
    pub needed: u64,
    /// The memory the run may use, in bytes.
    pub available: u64,
    /// Which settings to lower.
    pub advice: &'static str,
}

/// Checks `config` against `machine`; returns a warning to print first when the run is
/// estimated to take long.
pub fn check(config: &ArticleConfig, machine: Machine) -> Result<Option<String>, TooMuchMemory> {
    let model = &config.model;
    let available_memory = machine.memory_bytes;
    // The fast engine's threads beyond the cores wait their turn.
    let engine = match config.engine {
        Engine::Fast { threads } => Engine::Fast {
            threads: cost::threads_at_once(threads, machine.cores, u64::MAX),
        },
        Engine::Servers => Engine::Servers,
    };
    let Estimate {
        seconds,
        memory_bytes,
    } = cost::estimate(model, engine);
    if memory_bytes > available_memory {
        let results = format!("{} runs x {} p values", model.runs, model.ack_loss.len());
        return Err(match config.engine {
            Engine::Servers => TooMuchMemory {
                what: format!(
                    "the servers engine with {} requests per run and {results}",
                    model.requests
                ),
                needed: memory_bytes,
                available: available_memory,
                advice: "use --engine fast (constant memory per request), fewer --requests, \
                         --runs or p values",
            },
            Engine::Fast { .. } => TooMuchMemory {
                what: format!("keeping the results of {results} for the output files"),
                needed: memory_bytes,
                available: available_memory,
                advice: "use fewer --runs or p values",
            },
        });
    }
    Ok(long_run_warning(
        seconds,
        &match (config.engine, engine) {
            (Engine::Fast { threads: asked }, Engine::Fast { threads }) => {
                on_threads(threads, asked)
            }
            _ => format!(" and {} of memory", human_bytes(memory_bytes)),
        },
    ))
}

/// Checks a timeline scenario on `machine`: a warning to print first when the run is
/// estimated to take long (its memory does not grow with the payments).
pub fn check_timeline(config: &TimelineConfig, machine: Machine) -> Option<String> {
    let threads = cost::timeline_threads(&config.model, config.threads, machine.cores);
    let estimate = cost::estimate_timeline(&config.model, threads);
    long_run_warning(estimate.seconds, &on_threads(threads, config.threads))
}

/// Checks a contention file on `machine`: a warning to print first when the run is estimated
/// to take long.
pub fn check_contention(config: &ContentionConfig, machine: Machine) -> Option<String> {
    let threads = cost::contention_threads(&config.model, config.threads, machine.cores);
    let estimate = cost::estimate_contention(&config.model, threads);
    long_run_warning(estimate.seconds, &on_threads(threads, config.threads))
}

/// Checks a load file on `machine`: refused when its time series, clients and payments in
/// flight would not fit in the memory available; else a warning to print first when the run
/// is estimated to take long.
pub fn check_load(config: &LoadConfig, machine: Machine) -> Result<Option<String>, TooMuchMemory> {
    let model = &config.model;
    let estimate = cost::estimate_load(model, config.threads, machine.cores);
    let needed = estimate.memory_bytes();
    if needed > machine.memory_bytes {
        let clients = model
            .scenarios
            .iter()
            .filter_map(|scenario| scenario.arrivals.clients)
            .max()
            .map_or(String::new(), |clients| format!("{clients} clients and "));
        return Err(TooMuchMemory {
            what: format!(
                "{}: {} event loops ({} runs x {} scenarios x {} strategies) keeping about {:.0} \
                 time-series buckets, and {} loops at once each holding about {} ({clients}the \
                 payments in flight)",
                model.title,
                model.runs as usize * model.scenarios.len() * model.strategies.len(),
                model.runs,
                model.scenarios.len(),
                model.strategies.len(),
                estimate.buckets,
                estimate.loops_at_once,
                human_bytes(estimate.loop_bytes as u64),
            ),
            needed,
            available: machine.memory_bytes,
            advice: "use wider [output] bucket_s, fewer runs, scenarios, strategies, clients or \
                     --threads, or a lower arrival rate or more workers",
        });
    }
    let threads = cost::load_threads(model, config.threads, machine.cores);
    Ok(long_run_warning(
        estimate.seconds,
        &on_threads(threads, config.threads),
    ))
}

/// The warning for a run estimated to take `seconds`, if that is long; `how` ends the
/// estimate (e.g. " on 2 threads").
fn long_run_warning(seconds: f64, how: &str) -> Option<String> {
    (seconds > WARN_AFTER_SECONDS).then(|| {
        format!(
            "warning: this run is estimated to take about {}{how}; Ctrl-C stops it and leaves \
             the previous outputs intact",
            human_duration(seconds)
        )
    })
}

/// How the estimate ends: ` on 2 threads`, and `(1024 asked)` when fewer threads than asked
/// run at once.
fn on_threads(threads: usize, asked: usize) -> String {
    let on = match threads {
        1 => " on 1 thread".to_string(),
        threads => format!(" on {threads} threads"),
    };
    if threads < asked {
        format!("{on} ({asked} asked)")
    } else {
        on
    }
}

/// The memory a run may use now (bytes): on Linux the least of the machine's `MemAvailable`
/// (`/proc/meminfo`; [`MEMORY_CAP_WITHOUT_INFO`] where that cannot be read), the address
/// space this process may still map (`ulimit -v`, `RLIMIT_AS`: `/proc/self/limits` less the
/// `VmSize` of `/proc/self/status`) and what its control group may still use (cgroup v2
/// `memory.max` less `memory.current`; v1 `memory.limit_in_bytes` less
/// `memory.usage_in_bytes`).
pub fn available_memory() -> u64 {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let machine = read("/proc/meminfo")
        .and_then(|text| mem_available(&text))
        .unwrap_or(MEMORY_CAP_WITHOUT_INFO);
    let address_space = read("/proc/self/limits")
        .zip(read("/proc/self/status"))
        .and_then(|(limits, status)| address_space_room(&limits, &status));
    let group = read("/proc/self/cgroup").and_then(|groups| {
        cgroup_files(&groups)
            .into_iter()
            .find_map(|(limit, usage)| {
                let limit = read(&limit)?;
                let usage = read(&usage)?;
                cgroup_room(&limit, &usage)
            })
    });
    [Some(machine), address_space, group]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(machine)
}

/// The address space still free under the soft `Max address space` of a `/proc/self/limits`
/// text, less the `VmSize` of a `/proc/self/status` text (bytes); `None` when unlimited or
/// unreadable.
fn address_space_room(limits: &str, status: &str) -> Option<u64> {
    let soft = limits
        .lines()
        .find_map(|line| line.strip_prefix("Max address space"))?
        .split_whitespace()
        .next()?;
    let limit: u64 = soft.parse().ok()?;
    let mapped = kibibytes_of(status, "VmSize:")?;
    Some(limit.saturating_sub(mapped))
}

/// The `(limit, usage)` files of the memory controller of this process's control group, from
/// a `/proc/self/cgroup` text: cgroup v2 (`0::PATH`, `memory.max` and `memory.current`) and
/// v1 (`N:...memory...:PATH`, `memory.limit_in_bytes` and `memory.usage_in_bytes`), each under
/// its path and, where the path is not visible from inside a container, at the root.
fn cgroup_files(groups: &str) -> Vec<(String, String)> {
    let mut files = Vec::new();
    for line in groups.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) =
            (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let path = path.trim_end_matches('/');
        let (root, limit, usage) = if controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max", "memory.current")
        } else if controllers.split(',').any(|name| name == "memory") {
            (
                "/sys/fs/cgroup/memory",
                "memory.limit_in_bytes",
                "memory.usage_in_bytes",
            )
        } else {
            continue;
        };
        for folder in [format!("{root}{path}"), root.to_string()] {
            files.push((format!("{folder}/{limit}"), format!("{folder}/{usage}")));
        }
    }
    files
}

/// A control group's limit less its usage (bytes), from the texts of its two files; `None`
/// without a limit (`max`).
fn cgroup_room(limit: &str, usage: &str) -> Option<u64> {
    let limit: u64 = limit.trim().parse().ok()?;
    let usage: u64 = usage.trim().parse().ok()?;
    Some(limit.saturating_sub(usage))
}

/// The value of a `NAME:   123 kB` line of a `/proc` text, in bytes.
fn kibibytes_of(text: &str, name: &str) -> Option<u64> {
    let line = text.lines().find(|line| line.starts_with(name))?;
    let kibibytes: u64 = line
        .trim_start_matches(name)
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    kibibytes.checked_mul(1024)
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    kibibytes_of(meminfo, "MemAvailable:")
}

/// `seconds` as a rough human duration: `45 s`, `12 min`, `3.5 h`, `40 days`.
fn human_duration(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else if seconds < 7_200.0 {
        format!("{:.0} min", seconds / 60.0)
    } else if seconds < 172_800.0 {
        format!("{:.1} h", seconds / 3_600.0)
    } else if seconds < 3.2e9 {
        format!("{:.0} days", seconds / 86_400.0)
    } else {
        format!("{:.0e} years", seconds / 3.15576e7)
    }
}

/// `bytes` in binary units: `512 B`, `1.5 GiB`.
fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{ArticleConfig, OutputSettings};
    use crate::model::article::ArticleModel;
    use std::path::PathBuf;

    /// A machine with `memory_bytes` available and `cores` cores.
    fn machine(memory_bytes: u64, cores: usize) -> Machine {
        Machine {
            memory_bytes,
            cores,
        }
    }

    fn config(requests: u64, runs: u32, engine: Engine) -> ArticleConfig {
        ArticleConfig {
            model: ArticleModel {
                ack_loss: vec![0.0],
                requests,
                max_retries: 20,
                seed: 42,
                runs,
            },
            engine,
            output: OutputSettings {
                out_dir: PathBuf::from("out"),
                quiet: false,
                json: false,
            },
        }
    }

    #[test]
    fn short_runs_pass_silently() {
        let article = config(10_000, 1, Engine::Fast { threads: 2 });
        assert_eq!(check(&article, machine(1 << 30, 2)).unwrap(), None);
    }

    #[test]
    fn long_runs_are_announced_with_the_estimate() {
        // 4.2 x 10^12 requests x 1 run at p = 0 on 2 threads: 4.2e12 / (7e8 x 2) = 3000 s.
        let long = config(4_200_000_000_000, 1, Engine::Fast { threads: 2 });
        let warning = check(&long, machine(1 << 30, 2)).unwrap().unwrap();
        assert!(warning.contains("about 50 min on 2 threads"), "{warning}");
    }

    #[test]
    fn servers_runs_beyond_the_memory_are_refused_with_the_estimate() {
        // 10^9 requests x 160 bytes + 16 MiB + one point = 1.6e11 bytes = 149.0 GiB, against
        // 8 GiB available.
        let big = config(1_000_000_000, 1, Engine::Servers);
        let error = check(&big, machine(8 << 30, 2)).unwrap_err().to_string();
        assert!(error.contains("149.0 GiB"), "{error}");
        assert!(error.contains("8.0 GiB is available"), "{error}");
        assert!(error.contains("--engine fast"), "{error}");
        // The fast engine needs no memory per request.
        let fast = config(1_000_000_000, 1, Engine::Fast { threads: 2 });
        assert!(check(&fast, machine(8 << 30, 2)).is_ok());
    }

    #[test]
    fn fast_runs_whose_results_do_not_fit_are_refused_with_the_estimate() {
        // 100,000 runs x 10,000 p values x (640 + 8) bytes = 6.48e11 bytes = 603.5 GiB.
        let mut many = config(1, 100_000, Engine::Fast { threads: 2 });
        many.model.ack_loss = (0..10_000).map(|i| f64::from(i) * 1e-9).collect();
        many.model.max_retries = 0;
        let error = check(&many, machine(8 << 30, 2)).unwrap_err().to_string();
        assert!(error.contains("100000 runs x 10000 p values"), "{error}");
        assert!(error.contains("603.5 GiB"), "{error}");
        assert!(error.contains("fewer --runs or p values"), "{error}");
    }

    #[test]
    fn fast_runs_are_estimated_on_the_cores_that_run_them() {
        // 4.2 x 10^12 requests on 1,024 threads asked but 2 cores: 3000 s, not 3 s.
        let long = config(4_200_000_000_000, 1, Engine::Fast { threads: 1024 });
        let warning = check(&long, machine(1 << 30, 2)).unwrap().unwrap();
        assert!(
            warning.contains("about 50 min on 2 threads (1024 asked)"),
            "{warning}"
        );
    }

    /// A load or timeline file's config as the command line reads it, with `threads`.
    fn scenario_config(text: &str, threads: Option<usize>) -> crate::config::Job {
        let overrides = crate::config::Overrides {
            threads,
            ..Default::default()
        };
        crate::config::Job::from_text(text, std::path::Path::new("storm.toml"), &overrides).unwrap()
    }

    #[test]
    fn long_load_runs_are_announced_on_the_threads_that_run_them() {
        // 24,000 payments of 1,001 attempts, 4 loops: about 120 s on 2 threads (see
        // cost::tests::load_estimates_count_every_attempt), whatever the threads asked.
        let text = "model = \"timeline\"\n[arrivals]\nrate_per_s = 100\nduration_s = 240\n\
                    [server]\nworkers = 100\nerror_rate = 1.0\n\
                    processing = { distribution = \"fixed\", ms = 1 }\n\
                    [client]\nmax_retries = 1000\nbackoff = { policy = \"none\" }\n";
        for (threads, ending) in [
            (2, "about 2 min on 2 threads;"),
            (1024, "about 2 min on 2 threads (1024 asked);"),
            (1, "about 4 min on 1 thread;"),
        ] {
            let crate::config::Job::Load(config) = scenario_config(text, Some(threads)) else {
                panic!("not a load file");
            };
            let warning = check_load(&config, machine(8 << 30, 2)).unwrap().unwrap();
            assert!(warning.contains(ending), "{threads}: {warning}");
        }
    }

    #[test]
    fn load_runs_beyond_the_memory_are_refused_with_the_estimate() {
        // 10^7 clients of 72 bytes in each of 16 loops at once (16 threads, 32 loops), one
        // payment in flight each, and 32 loops of 12 buckets: 11,520,094,208 bytes = 10.7
        // GiB, against 8 GiB available.
        let text = "model = \"timeline\"\nruns = 8\n[arrivals]\nclients = 10000000\n\
                    rate_per_s = 1\nduration_s = 10\n[server]\nworkers = 4\n";
        let crate::config::Job::Load(config) = scenario_config(text, Some(16)) else {
            panic!("not a load file");
        };
        let error = check_load(&config, machine(8 << 30, 2))
            .unwrap_err()
            .to_string();
        for part in [
            "storm.toml: 32 event loops (8 runs x 1 scenarios x 4 strategies)",
            "16 loops at once each holding about 686.6 MiB (10000000 clients and the payments \
             in flight) would need",
            "about 10.7 GiB of memory, but 8.0 GiB is available",
            "--threads",
        ] {
            assert!(error.contains(part), "{part:?} not in {error}");
        }
        assert!(!error.contains('\n'), "{error}");
        // On 2 threads: 2 x 720,000,512 bytes and the buckets, about 1.3 GiB: it fits.
        let crate::config::Job::Load(config) = scenario_config(text, Some(2)) else {
            panic!("not a load file");
        };
        assert_eq!(check_load(&config, machine(8 << 30, 2)).unwrap(), None);
    }

    #[test]
    fn meminfo_is_read_in_kibibytes() {
        let text = "MemTotal:       24000000 kB\nMemAvailable:   2048 kB\n";
        assert_eq!(mem_available(text), Some(2048 * 1024));
        assert_eq!(mem_available("MemTotal: 1 kB\n"), None);
    }

    #[test]
    fn the_address_space_limit_counts_what_is_mapped_already() {
        let limits = "Limit                     Soft Limit           Hard Limit           Units\n\
                      Max stack size            8388608              unlimited            bytes\n\
                      Max address space         2147483648           4294967296           bytes\n";
        let status = "Name:\tsimulate\nVmPeak:\t   9000 kB\nVmSize:\t   8192 kB\n";
        // 2 GiB soft limit, 8 MiB mapped.
        assert_eq!(
            address_space_room(limits, status),
            Some((2 << 30) - (8 << 20))
        );
        let unlimited =
            "Max address space         unlimited            unlimited            bytes\n";
        assert_eq!(address_space_room(unlimited, status), None);
    }

    #[test]
    fn control_groups_are_found_for_both_versions() {
        let v2 = cgroup_files("0::/user.slice/run-1.scope\n");
        assert_eq!(
            v2[0],
            (
                "/sys/fs/cgroup/user.slice/run-1.scope/memory.max".to_string(),
                "/sys/fs/cgroup/user.slice/run-1.scope/memory.current".to_string()
            )
        );
        assert_eq!(v2[1].0, "/sys/fs/cgroup/memory.max");
        let v1 = cgroup_files("4:memory:/docker/abc\n3:cpuset:/\n");
        assert_eq!(v1.len(), 2);
        assert_eq!(
            v1[0].0,
            "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes"
        );
        assert_eq!(v1[1].1, "/sys/fs/cgroup/memory/memory.usage_in_bytes");
        assert_eq!(
            cgroup_room("1073741824\n", "268435456\n"),
            Some(805_306_368)
        );
        assert_eq!(cgroup_room("max\n", "268435456\n"), None);
    }

    #[test]
    fn durations_and_sizes_read_naturally() {
        assert_eq!(human_duration(45.0), "45 s");
        assert_eq!(human_duration(3_000.0), "50 min");
        assert_eq!(human_duration(9_000.0), "2.5 h");
        assert_eq!(human_duration(864_000.0), "10 days");
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
    }
}
