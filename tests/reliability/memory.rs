//! Sizes and memory: sizes that overflow or exceed memory refused before running, runs made
//! long by their retries announced, and runs beyond the address space refused.

use super::{finish, names_in, write_file};
use crate::common::simulate;
use assert_cmd::cargo::cargo_bin;
use predicates::prelude::*;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command as Process, Stdio};
use std::time::Duration;
use tempfile::TempDir;

#[test]
fn sizes_that_overflow_or_exceed_memory_are_refused_before_running() {
    // 10^15 x 1001 x 19 deliveries exceed 2^64 - 1.
    simulate()
        .args([
            "--requests",
            "1000000000000000",
            "--max-retries",
            "1000",
            "--runs",
            "19",
        ])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("does not fit in 64 bits"));
    // 10^15 requests x 160 bytes (+ 16 MiB and 3 results) = 1.6e17 bytes = 142.1 PiB.
    simulate()
        .args(["--requests", "1000000000000000", "--engine", "servers"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("142.1 PiB"));
}

/// Starts `simulate --config FILE --out OUT ARGS` in `folder` with stdout discarded, stderr
/// piped and its address space limited to 4 GiB, so that a run the estimates wrongly let
/// through aborts at once instead of taking the machine's memory.
fn spawn_within_4_gib(folder: &Path, file: &str, args: &[&str]) -> Child {
    let mut command = Process::new(cargo_bin("simulate"));
    command
        .current_dir(folder)
        .args(["--config", file, "--out", "out"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: only an async-signal-safe system call between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = 4 << 30;
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_AS, limit, limit)?;
            Ok(())
        });
    }
    command.spawn().unwrap()
}

/// The first line the child writes on stderr within 30 s (empty if none), then the child is
/// killed: a run that warns does so before any work.
fn first_stderr_line_then_kill(mut child: Child) -> String {
    let stderr = child.stderr.take().unwrap();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = std::io::BufRead::read_line(&mut std::io::BufReader::new(stderr), &mut line);
        let _ = sender.send(line);
    });
    let line = receiver
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_default();
    let _ = child.kill();
    child.wait().unwrap();
    line
}

/// Runs whose retries make them long are announced: the estimates count the expected
/// attempts, not one per payment. Each file is one the adversary ran (issue #29, item 7).
#[test]
fn runs_made_long_by_their_retries_are_announced() {
    let folder = TempDir::new().unwrap();
    // Every processing fails and is retried at once, up to 1,000 times: 24,000 payments of
    // 1,001 attempts of about 5 events each, 4 strategies, 1.2 x 10^8 events per loop at
    // 2 x 10^6 per second per thread on at most 2 threads (4 loops): over 60 s (it ran 93 s).
    write_file(
        folder.path(),
        "storm.toml",
        "model = \"timeline\"\n[arrivals]\nrate_per_s = 100\nduration_s = 240\n[server]\n\
         workers = 100\nerror_rate = 1.0\nprocessing = { distribution = \"fixed\", ms = 1 }\n\
         [client]\nmax_retries = 1000\nbackoff = { policy = \"none\" }\n",
    );
    // Every answer is lost: 150 payments x 1,000 copies x 1,001 attempts, one chunk of
    // payments, so one thread: 1.5 x 10^8 attempts at 10^6 per second (it ran 81.5 s).
    write_file(
        folder.path(),
        "lost.toml",
        "model = \"timeline\"\npayments = 150\n[arrivals]\ncopies = 1000\n[network]\n\
         ack_loss = 1.0\n[client]\ntimeout_ms = 1000\nmax_retries = 1000\n\
         backoff = { policy = \"none\" }\n",
    );
    for file in ["storm.toml", "lost.toml"] {
        let line = first_stderr_line_then_kill(spawn_within_4_gib(folder.path(), file, &[]));
        assert!(
            line.starts_with("warning: this run is estimated to take about"),
            "{file}: {line:?}"
        );
    }
}

/// `--threads 1024` on a machine with fewer cores does not divide the estimate by 1024: a
/// run is estimated on the threads that really run at once (issue #29, item 8). 10^9
/// payments of `mobile-network.toml` (1 + 0.069 + ... + 0.069^4 = 1.074 attempts each, at
/// 10^6 per second per thread) take about 1,074 s on one thread: over 60 s on up to 17 cores
/// (divided by 1,024, 1 s).
#[test]
fn threads_beyond_the_cores_do_not_hide_the_long_run_warning() {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores > 17 {
        return;
    }
    let folder = TempDir::new().unwrap();
    let config = crate::common::scenario_file("mobile-network.toml");
    let config = config.to_str().unwrap();
    let child = spawn_within_4_gib(
        folder.path(),
        config,
        &["--payments", "1000000000", "--threads", "1024"],
    );
    let line = first_stderr_line_then_kill(child);
    assert!(
        line.starts_with("warning: this run is estimated to take about"),
        "{line:?}"
    );
    assert!(line.contains("(1024 asked)"), "{line:?}");
}

/// Load runs whose time series, client population or payments in flight would not fit are
/// refused before they start, with one line (exit code 2, nothing written), instead of
/// aborting on a failed allocation (issue #29, items 4 to 6). The sizes are far beyond any
/// machine's memory, so the refusal does not depend on this one's.
#[test]
fn load_runs_that_would_not_fit_in_memory_are_refused_before_they_start() {
    let folder = TempDir::new().unwrap();
    let head = "model = \"timeline\"\n";
    for (file, text, args) in [
        // 10^6 buckets of 1 ms per loop, 4,000 loops: about 8 x 10^11 bytes of series.
        (
            "series.toml",
            format!(
                "{head}runs = 1000\n[arrivals]\nrate_per_s = 1\nduration_s = 1000\n[server]\n\
                 workers = 4\n[output]\nbucket_s = 0.001\n"
            ),
            &[][..],
        ),
        // 10^7 clients of 72 bytes in each of 1,024 loops at once: about 7 x 10^11 bytes.
        (
            "crowd.toml",
            format!(
                "{head}runs = 1000\n[arrivals]\nclients = 10000000\nrate_per_s = 1\n\
                 duration_s = 10\n[server]\nworkers = 4\n"
            ),
            &["--threads", "1024"][..],
        ),
        // 6 x 10^10 payments queue at 4 workers: each one is in flight at the end.
        (
            "flood.toml",
            format!("{head}[arrivals]\nrate_per_s = 1e9\n[server]\nworkers = 4\n"),
            &[][..],
        ),
    ] {
        write_file(folder.path(), file, &text);
        let (code, stderr) = finish(spawn_within_4_gib(folder.path(), file, args));
        assert_eq!(code, Some(2), "{file}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{file}: {stderr}");
        assert!(stderr.contains(file), "{file}: {stderr}");
        assert!(stderr.contains("of memory, but"), "{file}: {stderr}");
        assert!(
            names_in(folder.path()).iter().all(|name| name != "out"),
            "{file} wrote files"
        );
    }
}

/// A run that would not fit in the address space it may use (`ulimit -v`, here 2 GiB) is
/// refused like one beyond the machine's memory, not aborted on a failed allocation: 4 runs x
/// 4 strategies of 10^6 buckets (issue #29, item 4: it held 2.45 GB) are estimated at about
/// 3.5 GiB.
#[test]
fn a_run_beyond_the_address_space_limit_is_refused() {
    let folder = TempDir::new().unwrap();
    write_file(
        folder.path(),
        "series.toml",
        "model = \"timeline\"\nruns = 4\n[arrivals]\nrate_per_s = 1\nduration_s = 1000\n\
         [server]\nworkers = 4\n[output]\nbucket_s = 0.001\n",
    );
    let mut command = Process::new(cargo_bin("simulate"));
    command
        .current_dir(folder.path())
        .args(["--config", "series.toml", "--out", "out"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: only an async-signal-safe system call between fork and exec.
    unsafe {
        command.pre_exec(|| {
            let limit = 2 << 30;
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_AS, limit, limit)?;
            Ok(())
        });
    }
    let (code, stderr) = finish(command.spawn().unwrap());
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("about 3.5 GiB of memory, but"), "{stderr}");
    assert!(!folder.path().join("out").exists());
}
