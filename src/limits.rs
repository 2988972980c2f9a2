//! What this machine offers a run and how a run's estimate is held against it: a run
//! estimated to take long gets a warning with the estimate, and a run that would not fit in
//! memory is refused with it ([`TooMuchMemory`], exit code 2). Each model estimates itself
//! (`model/<name>/estimate.rs`); times are for the threads that really run at once.

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
    /// A machine with `memory_bytes` available and `cores` cores.
    pub const fn new(memory_bytes: u64, cores: usize) -> Self {
        Machine {
            memory_bytes,
            cores,
        }
    }

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

/// The warning for a run estimated to take `seconds`, if that is long; `how` ends the
/// estimate (e.g. " on 2 threads").
pub fn long_run_warning(seconds: f64, how: &str) -> Option<String> {
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
pub fn on_threads(threads: usize, asked: usize) -> String {
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
pub fn human_duration(seconds: f64) -> String {
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
pub fn human_bytes(bytes: u64) -> String {
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
        assert_eq!(
            [45.0, 3_000.0, 9_000.0, 864_000.0].map(human_duration),
            ["45 s", "50 min", "2.5 h", "10 days"]
        );
        assert_eq!([512, 3 << 29].map(human_bytes), ["512 B", "1.5 GiB"]);
    }
}
