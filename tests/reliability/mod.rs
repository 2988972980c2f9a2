//! The `simulate` binary under stress: interrupted and failing runs leave the previous outputs
//! intact, stdout closed early is not an error, scripts get JSON, and the helper commands.
//!
//! What the failure tests cover (tests run as root in CI, where permissions are ignored):
//! - SIGINT and SIGTERM during a long run: exit 130, previous outputs byte-identical.
//! - A full disk: as root (as in CI), a real one, a tmpfs too small for a second set of
//!   outputs (`ENOSPC`); for everyone, a file size limit (`RLIMIT_FSIZE`) that makes a write
//!   fail partway with `EFBIG` where `ENOSPC` would.
//! - A rename failing after others succeeded (the last file's name taken by a folder): the
//!   replaced files are put back.
//! - An output folder made read-only halfway through a run: with `chattr +i` as root (which
//!   ignores permission bits but not the immutable attribute; the test fails if that cannot be
//!   set), with `chmod 555` otherwise.
//! - Stop requests at every stage: the moment the handler exists (20 trials of SIGINT with
//!   SIGINT ignored, SIGTERM and SIGHUP), while the config file is still being read (a FIFO),
//!   while the report renders (10,000 p values; within 2 s, no folder left behind), in the
//!   middle of a load run and of a contention run (within 2 s, the same message naming the
//!   folder left unchanged whether the model or the driver saw the request first), while
//!   waiting for another run's lock. A signal before `main` runs cannot be caught and is not
//!   tested (docs/guide.md, "Stopping a run").
//! - Two runs into one folder: a run waits while the folder is locked (the lock held by the
//!   test), and 30 pairs of simultaneous runs never mix their files.
//! - What a killed run leaves: staging folders (made by hand, and by `kill -9` at three
//!   moments) are removed by the next run; in an append-only folder (`chattr +a`, root only)
//!   the run names the staging folder it cannot remove.
//! - A run's file set replaces the previous one's (a timeline scenario dropping its TTL sweep),
//!   other files kept.
//! - Inputs refused with one line and exit code 2, nothing written: seeds at and above 2^63
//!   keep a timeline file a timeline, a config file over 1 MiB or endless (`/dev/zero`), empty
//!   and non-UTF-8 output folders, scenario file names such as `...toml`, TOML syntax errors, a
//!   flag followed by a flag instead of its value; a dangling symbolic link as `--out` is named.
//! - `--help`, `--version`, `man` and `completions` into a full stdout (`/dev/full`): exit 1.

mod commands;
mod disk;
mod folders;
mod inputs;
mod memory;
mod signals;

use crate::common::{ARTICLE_FILES, simulate};
use assert_cmd::cargo::cargo_bin;
use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};
use tempfile::TempDir;

/// The list of the files an article run wrote, which the next run reads (docs/guide.md, "Output
/// files").
const ARTICLE_MANIFEST: &str = ".simulate-article-files";

/// Every entry of a folder (hidden ones included) with its bytes; folders as `None`.
fn snapshot(folder: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let bytes = entry
                .file_type()
                .unwrap()
                .is_file()
                .then(|| std::fs::read(entry.path()).unwrap());
            (entry.file_name().to_string_lossy().into_owned(), bytes)
        })
        .collect()
}

/// A folder holding the outputs of a small earlier run.
fn previous_outputs() -> TempDir {
    let out = TempDir::new().unwrap();
    simulate()
        .args(["--quiet", "--requests", "100", "--p", "0.2", "--out"])
        .arg(out.path())
        .assert()
        .success();
    assert_eq!(snapshot(out.path()).len(), ARTICLE_FILES.len() + 1);
    out
}

/// Waits until the process catches the stop signals (see [`wait_for_handler_only`]), so the
/// signal tests do not race the handler's installation, then 300 ms more for the simulation to start;
/// elsewhere waits 300 ms.
fn wait_for_handler(child: &Child) {
    wait_for_handler_only(child);
    std::thread::sleep(Duration::from_millis(300));
}

/// Waits until the process catches SIGINT, SIGTERM and SIGHUP (Linux: their bits of `SigCgt`
/// in /proc), and not a moment longer; elsewhere returns at once.
fn wait_for_handler_only(child: &Child) {
    let status = PathBuf::from(format!("/proc/{}/status", child.id()));
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let Ok(text) = std::fs::read_to_string(&status) else {
            return;
        };
        let caught = text
            .lines()
            .find_map(|line| line.strip_prefix("SigCgt:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .unwrap_or(0);
        let stop_signals = [Signal::SIGINT, Signal::SIGTERM, Signal::SIGHUP];
        if stop_signals
            .iter()
            .all(|&signal| caught & (1 << (signal as u64 - 1)) != 0)
        {
            return;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    panic!("the handler was not installed within 10 s");
}

/// Waits at most 60 s for the process to exit; returns its exit code and stderr.
fn finish(mut child: Child) -> (Option<i32>, String) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the run did not stop within 60 s of the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    (status.code(), stderr)
}

/// Starts an article run of `requests` requests on one thread into `out`, stdout discarded and
/// stderr piped; with `sigint_ignored`, SIGINT is ignored from the start, as a non-interactive
/// shell does for a background job.
fn spawn_article_run(requests: &str, out: &Path, sigint_ignored: bool) -> Child {
    let mut command = Process::new(cargo_bin("simulate"));
    command
        .args(["--requests", requests, "--threads", "1", "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if sigint_ignored {
        // SAFETY: only an async-signal-safe system call between fork and exec.
        unsafe {
            command.pre_exec(|| {
                signal::signal(Signal::SIGINT, signal::SigHandler::SigIgn)?;
                Ok(())
            });
        }
    }
    command.spawn().unwrap()
}

/// Writes `text` into `name` inside `folder`; returns the path.
fn write_file(folder: &Path, name: &str, text: &str) -> PathBuf {
    let path = folder.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Every entry of a folder (hidden ones included), sorted; empty if it does not exist.
fn names_in(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .map(|entries| {
            entries
                .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Starts a run of `args` into `out`, sends SIGINT after `delay`, and checks that it stops
/// within 2 s with exit code 130, leaving `out` as it was.
fn stops_within_two_seconds(args: &[&str], out: &Path, delay: Duration) {
    let before = names_in(out);
    let snapshot_before = out.exists().then(|| snapshot(out));
    let child = Process::new(cargo_bin("simulate"))
        .args(args)
        .arg("--out")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_handler(&child);
    std::thread::sleep(delay);
    let pid = Pid::from_raw(child.id() as i32);
    let mut child = child;
    assert!(
        child.try_wait().unwrap().is_none(),
        "{args:?} finished before the signal: the workload is too small for this test"
    );
    signal::kill(pid, Signal::SIGINT).unwrap();
    let sent = Instant::now();
    let (code, stderr) = finish(child);
    let took = sent.elapsed();
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        took < Duration::from_secs(2),
        "stopped {took:?} after SIGINT"
    );
    assert!(stderr.contains("is unchanged"), "{stderr}");
    assert_eq!(names_in(out), before);
    assert_eq!(out.exists().then(|| snapshot(out)), snapshot_before);
}
