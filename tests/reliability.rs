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

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

use crate::common::{ARTICLE_FILES, simulate};
use assert_cmd::cargo::cargo_bin;
use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use predicates::prelude::*;
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

/// Starts a run that takes minutes, sends `signal`, and checks it stops with exit code 130,
/// leaving the previous outputs byte-identical and no temporary files. With
/// `sigint_ignored`, the run starts with SIGINT ignored, as `simulate &` in a script does.
fn interrupted_by(signal: Signal, requests: &str, sigint_ignored: bool) -> String {
    let out = previous_outputs();
    let before = snapshot(out.path());
    let child = spawn_article_run(requests, out.path(), sigint_ignored);
    wait_for_handler(&child);
    signal::kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(130), "{signal}: {stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert_eq!(snapshot(out.path()), before, "{signal} changed the outputs");
    stderr
}

#[test]
fn sigint_leaves_the_previous_outputs_intact() {
    interrupted_by(Signal::SIGINT, "20000000000", false);
}

#[test]
fn sigterm_stops_a_background_job_that_ignores_sigint_cleanly() {
    // A non-interactive shell starts `simulate &` with SIGINT ignored; SIGTERM must still
    // stop it cleanly rather than kill it halfway.
    interrupted_by(Signal::SIGTERM, "20000000000", true);
}

#[test]
fn sigterm_leaves_the_previous_outputs_intact_and_long_runs_are_announced() {
    // 10^15 requests at p up to 0.1: first draws at 7e8 per second on one thread (1.43e6 s)
    // and 0.1 + 0.01 + ... = 0.111 retries each at 1e8 per second (1.11e6 s): 29.4 days.
    let stderr = interrupted_by(Signal::SIGTERM, "1000000000000000", false);
    assert!(
        stderr.contains("warning: this run is estimated to take about 29 days on 1 thread"),
        "{stderr}"
    );
}

#[test]
fn a_full_disk_leaves_the_previous_outputs_intact() {
    let out = previous_outputs();
    let before = snapshot(out.path());
    let mut command = Process::new(cargo_bin("simulate"));
    command
        .args(["--quiet", "--out"])
        .arg(out.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: only async-signal-safe system calls between fork and exec.
    unsafe {
        command.pre_exec(|| {
            // Files may grow to 4 KiB: the CSV files fit, every chart (over 10 KB) does not.
            nix::sys::resource::setrlimit(nix::sys::resource::Resource::RLIMIT_FSIZE, 4096, 4096)?;
            // Without this the kernel kills the writer with SIGXFSZ instead of failing write.
            signal::signal(Signal::SIGXFSZ, signal::SigHandler::SigIgn)?;
            Ok(())
        });
    }
    let (code, stderr) = finish(command.spawn().unwrap());
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("cannot write"), "{stderr}");
    assert!(stderr.contains("File too large"), "{stderr}");
    assert_eq!(snapshot(out.path()), before);
}

#[test]
fn a_rename_failing_midway_restores_the_files_already_replaced() {
    let out = previous_outputs();
    // attempts.svg is put in place last; a folder with content in its place stops it after
    // the four other files were replaced.
    std::fs::remove_file(out.path().join("attempts.svg")).unwrap();
    std::fs::create_dir(out.path().join("attempts.svg")).unwrap();
    std::fs::write(out.path().join("attempts.svg/keep"), b"mine").unwrap();
    let before = snapshot(out.path());
    simulate()
        .args(["--quiet", "--out"])
        .arg(out.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("attempts.svg"));
    assert_eq!(snapshot(out.path()), before);
    assert_eq!(
        std::fs::read(out.path().join("attempts.svg/keep")).unwrap(),
        b"mine"
    );
}

/// A small tmpfs mounted for the test and unmounted on drop (root only).
struct SmallDisk(PathBuf);

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Process::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_really_full_disk_leaves_the_previous_outputs_intact() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!(
            "skipped: mounting a small tmpfs needs root (as in CI); \
             a_full_disk_leaves_the_previous_outputs_intact covers the same path with a file \
             size limit"
        );
        return;
    }
    let args = ["--quiet", "--requests", "100", "--p", "0.2", "--out"];
    // The outputs' size in whole pages, from a run on the ordinary disk.
    let sizing = TempDir::new().unwrap();
    simulate().args(args).arg(sizing.path()).assert().success();
    let pages: u64 = snapshot(sizing.path())
        .values()
        .map(|bytes| (bytes.as_ref().unwrap().len() as u64).div_ceil(4096))
        .sum();
    // Room for the previous outputs and about half a second set: staging runs out of space.
    let folder = TempDir::new().unwrap();
    let mount = folder.path().join("disk");
    std::fs::create_dir(&mount).unwrap();
    let size = format!("size={}k", (pages + pages / 2 + 2) * 4);
    let status = Process::new("mount")
        .args(["-t", "tmpfs", "-o", &size, "tmpfs"])
        .arg(&mount)
        .status()
        .unwrap();
    assert!(status.success(), "as root, mounting a tmpfs must work here");
    let _disk = SmallDisk(mount.clone());
    simulate().args(args).arg(&mount).assert().success();
    let before = snapshot(&mount);
    assert_eq!(before.len(), ARTICLE_FILES.len() + 1);
    // The same outputs again, from another seed: they no longer fit beside the previous ones.
    simulate()
        .args(args)
        .arg(&mount)
        .args(["--seed", "7"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("No space left on device"));
    assert_eq!(
        snapshot(&mount),
        before,
        "no staging folder or partial file is left"
    );
}

/// Makes a folder read-only for the running process and undoes it on drop. As root, which
/// ignores permission bits, the folder is made immutable (`chattr +i`, which binds root too);
/// otherwise its permissions become `r-x`.
struct ReadOnly<'a>(&'a Path);

impl<'a> ReadOnly<'a> {
    fn make(folder: &'a Path) -> Self {
        use std::os::unix::fs::PermissionsExt;
        if nix::unistd::geteuid().is_root() {
            let status = Process::new("chattr").arg("+i").arg(folder).status();
            assert!(
                matches!(status, Ok(status) if status.success()),
                "as root, this test needs `chattr +i` on {} (e2fsprogs, a file system with \
                 the immutable attribute such as ext4): {status:?}",
                folder.display()
            );
        } else {
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(0o555)).unwrap();
        }
        ReadOnly(folder)
    }
}

impl Drop for ReadOnly<'_> {
    fn drop(&mut self) {
        use std::os::unix::fs::PermissionsExt;
        if nix::unistd::geteuid().is_root() {
            let _ = Process::new("chattr").arg("-i").arg(self.0).status();
        } else {
            let _ = std::fs::set_permissions(self.0, std::fs::Permissions::from_mode(0o755));
        }
    }
}

#[test]
fn a_folder_made_read_only_halfway_leaves_the_previous_outputs_intact() {
    // On the project's own disk (target/tmp), where the immutable attribute is supported.
    let out = tempfile::Builder::new()
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    simulate()
        .args(["--quiet", "--requests", "100", "--p", "0.2", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let before = snapshot(out.path());
    assert_eq!(before.len(), ARTICLE_FILES.len() + 1);
    // A run of a few seconds; the folder turns read-only while it simulates.
    let child = Process::new(cargo_bin("simulate"))
        .args([
            "--quiet",
            "--requests",
            "2000000000",
            "--threads",
            "1",
            "--out",
        ])
        .arg(out.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_handler(&child);
    let read_only = ReadOnly::make(out.path());
    let (code, stderr) = finish(child);
    let after = snapshot(out.path());
    drop(read_only);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot write into output folder"),
        "{stderr}"
    );
    assert_eq!(after, before);
}

#[test]
fn out_dot_keeps_unrelated_files() {
    let folder = TempDir::new().unwrap();
    std::fs::write(folder.path().join("notes.txt"), b"mine").unwrap();
    simulate()
        .current_dir(folder.path())
        .args(["--quiet", "--requests", "50", "--out", "."])
        .assert()
        .success();
    let after = snapshot(folder.path());
    let mut expected: Vec<&str> = ARTICLE_FILES.to_vec();
    expected.push("notes.txt");
    expected.push(ARTICLE_MANIFEST);
    expected.sort_unstable();
    assert_eq!(after.keys().collect::<Vec<_>>(), expected);
    assert_eq!(after["notes.txt"].as_deref(), Some(&b"mine"[..]));
}

/// Runs with stdout closed before anything is written, as `simulate | head -0` does.
fn with_stdout_closed(args: &[&str]) -> (Option<i32>, String) {
    let out = TempDir::new().unwrap();
    let mut child = Process::new(cargo_bin("simulate"))
        .current_dir(out.path())
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    finish(child)
}

#[test]
fn a_closed_stdout_is_not_an_error() {
    for args in [
        &["--requests", "1000"][..],
        &["--requests", "1000", "--json"],
        &["completions", "bash"],
        &["man"],
    ] {
        let (code, stderr) = with_stdout_closed(args);
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert_eq!(stderr, "", "{args:?}");
    }
}

#[test]
fn json_prints_the_article_numbers_for_scripts() {
    let out = TempDir::new().unwrap();
    let assert = simulate()
        .args(["--json", "--out"])
        .arg(out.path())
        .assert()
        .success()
        .stderr("");
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(json["parameters"]["seed"], 42);
    assert_eq!(
        json["parameters"]["p"],
        serde_json::json!([0.01, 0.05, 0.1])
    );
    // The article's figures: 101, 508 and 984 customers charged twice without a key.
    let double_charged: Vec<(f64, u64)> = json["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|row| row["server"] == "non_idempotent")
        .map(|row| {
            (
                row["p"].as_f64().unwrap(),
                row["double_charged_requests"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(double_charged, [(0.01, 101), (0.05, 508), (0.1, 984)]);
    let files: Vec<PathBuf> = json["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|path| PathBuf::from(path.as_str().unwrap()))
        .collect();
    assert_eq!(files.len(), ARTICLE_FILES.len());
    assert!(files.iter().all(|path| path.is_file()), "{files:?}");
}

#[test]
fn completions_and_man_page_are_printed() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        simulate()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains("max-retries"));
    }
    simulate()
        .arg("man")
        .assert()
        .success()
        .stdout(predicate::str::starts_with(".ie"))
        .stdout(predicate::str::contains(".TH simulate 1"))
        .stdout(predicate::str::contains("max\\-retries"));
    simulate()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stdout("");
}

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

#[test]
fn seeds_of_2_63_and_above_keep_a_timeline_file_a_timeline() {
    let folder = TempDir::new().unwrap();
    for (seed, extra) in [
        ("18446744073709551615", ""),
        ("9223372036854775808", "payments = 100\n"),
    ] {
        let config = write_file(
            folder.path(),
            "t.toml",
            &format!("model = \"timeline\"\nseed = {seed}\n{extra}"),
        );
        let out = folder.path().join(format!("out-{seed}"));
        let assert = simulate()
            .args(["--json", "--payments", "50", "--config"])
            .arg(&config)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
        let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
        assert_eq!(json["parameters"]["seed"].to_string(), seed);
        assert!(out.join("timeline.csv").is_file(), "{:?}", names_in(&out));
        assert!(!out.join("results.csv").exists(), "ran the article model");
    }
    // The article's file kind takes every seed too.
    let config = write_file(folder.path(), "a.toml", "seed = 18446744073709551615\n");
    let assert = simulate()
        .args(["--json", "--requests", "100", "--config"])
        .arg(&config)
        .arg("--out")
        .arg(folder.path().join("article"))
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(
        json["parameters"]["seed"].to_string(),
        "18446744073709551615"
    );
}

#[test]
fn endless_or_huge_config_files_are_refused_after_1_mib() {
    let folder = TempDir::new().unwrap();
    let mut huge = "# padding\n".repeat(110_000);
    huge.push_str("seed = 1\n");
    let huge = write_file(folder.path(), "huge.toml", &huge);
    for config in [Path::new("/dev/zero"), huge.as_path()] {
        let started = Instant::now();
        let assert = simulate()
            .current_dir(folder.path())
            .arg("--config")
            .arg(config)
            .assert()
            .code(2)
            .stdout("");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{config:?} was read in full"
        );
        let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains("larger than 1024 KiB"), "{stderr}");
        assert!(stderr.contains(&config.display().to_string()), "{stderr}");
    }
    assert_eq!(names_in(folder.path()), ["huge.toml"]);
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

#[test]
fn a_stop_request_ends_the_report_stage_within_two_seconds() {
    // 10,000 p values and 200 runs of one request without retries: two million (run, p)
    // points, whose summary, charts and tables take several seconds after a short simulation
    // (about 1 s of work per 20 runs, measured on a loaded 2-core machine). The folder does
    // not exist beforehand and must not be left behind, empty or not.
    let folder = TempDir::new().unwrap();
    let args = [
        "--p",
        "0:0.9999:0.0001",
        "--requests",
        "1",
        "--max-retries",
        "0",
        "--runs",
        "200",
        "--quiet",
    ];
    for (index, delay) in [300, 1500].into_iter().enumerate() {
        let out = folder.path().join(format!("new-{index}"));
        stops_within_two_seconds(&args, &out, Duration::from_millis(delay));
        assert!(!out.exists(), "the interrupted run left {}", out.display());
    }
    // Previous outputs stay byte-identical.
    let out = previous_outputs();
    stops_within_two_seconds(&args, out.path(), Duration::from_millis(800));
}

#[test]
fn a_stop_request_ends_load_and_contention_runs_within_two_seconds() {
    // A simulated hour at 2,000 payments/s on one shared server (three strategies, about
    // 2 x 10^7 payments), and 10^5 runs of 190 clients under six policies: each takes many
    // seconds, so the signal lands in the simulation. Neither folder exists beforehand, and
    // neither may be left behind.
    let folder = TempDir::new().unwrap();
    let load = write_file(
        folder.path(),
        "load.toml",
        "model = \"timeline\"\nseed = 1\n[arrivals]\nrate_per_s = 2000.0\nduration_s = 3600.0\n\
         [server]\nworkers = 200\n",
    );
    let contention = write_file(
        folder.path(),
        "contention.toml",
        "model = \"contention\"\nseed = 1\nclients = [190]\nruns = 100000\n",
    );
    for (name, config) in [("load", &load), ("contention", &contention)] {
        let out = folder.path().join(format!("out-{name}"));
        let config = config.to_str().unwrap();
        stops_within_two_seconds(
            &["--config", config, "--quiet"],
            &out,
            Duration::from_millis(300),
        );
        assert!(
            !out.exists(),
            "the interrupted {name} run left {}",
            out.display()
        );
    }
}

#[test]
fn a_run_waits_for_the_run_holding_the_output_folder() {
    let out = previous_outputs();
    let before = snapshot(out.path());
    // Another run's lock on the folder, held by this test.
    let lock = std::fs::File::open(out.path()).unwrap();
    lock.lock().unwrap();
    let mut child = Process::new(cargo_bin("simulate"))
        .args(["--requests", "100", "--p", "0.3", "--seed", "7", "--out"])
        .arg(out.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().unwrap().is_none(), "it did not wait");
    assert_eq!(
        snapshot(out.path()),
        before,
        "it wrote while the folder was locked"
    );
    lock.unlock().unwrap();
    let (code, stderr) = finish(child);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("waiting for another simulate run"),
        "{stderr}"
    );
    assert_ne!(snapshot(out.path()), before);
    // A stop request while waiting ends the run with 130 and changes nothing.
    let before = snapshot(out.path());
    lock.lock().unwrap();
    stops_within_two_seconds(
        &["--requests", "100", "--p", "0.4", "--quiet"],
        out.path(),
        Duration::from_millis(300),
    );
    assert_eq!(snapshot(out.path()), before);
}

#[test]
fn simultaneous_runs_into_one_folder_never_mix_their_files() {
    let folder = TempDir::new().unwrap();
    let args = [
        "--quiet",
        "--requests",
        "300",
        "--p",
        "0.3",
        "--threads",
        "1",
    ];
    // What each of the two runs writes on its own.
    let alone: Vec<_> = ["1", "2"]
        .iter()
        .map(|seed| {
            let out = folder.path().join(format!("alone-{seed}"));
            simulate()
                .args(args)
                .args(["--seed", seed, "--out"])
                .arg(&out)
                .assert()
                .success();
            snapshot(&out)
        })
        .collect();
    assert_ne!(alone[0], alone[1]);
    for trial in 0..30 {
        let out = folder.path().join(format!("shared-{trial}"));
        let children: Vec<Child> = ["1", "2"]
            .iter()
            .map(|seed| {
                Process::new(cargo_bin("simulate"))
                    .args(args)
                    .args(["--seed", seed, "--out"])
                    .arg(&out)
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let (code, stderr) = finish(child);
            assert_eq!(code, Some(0), "{stderr}");
        }
        let after = snapshot(&out);
        assert!(
            after == alone[0] || after == alone[1],
            "trial {trial}: the folder holds files of both runs"
        );
    }
}

#[test]
fn a_stop_request_right_after_start_is_always_a_clean_stop() {
    // The signal goes out the moment the process catches it, i.e. as soon as `main` has
    // installed the handler, before the flags are even parsed: always a clean stop. (The run
    // would take minutes, so that a test thread descheduled on a busy machine cannot send
    // the signal after the run has finished.)
    let out = previous_outputs();
    let before = snapshot(out.path());
    for trial in 0..20 {
        for (signal, sigint_ignored) in [
            (Signal::SIGINT, true),
            (Signal::SIGTERM, false),
            (Signal::SIGHUP, false),
        ] {
            let child = spawn_article_run("20000000000", out.path(), sigint_ignored);
            wait_for_handler_only(&child);
            signal::kill(Pid::from_raw(child.id() as i32), signal).unwrap();
            let (code, stderr) = finish(child);
            assert_eq!(code, Some(130), "trial {trial}, {signal}: {stderr}");
            assert_eq!(snapshot(out.path()), before, "trial {trial}, {signal}");
        }
    }
}

#[test]
fn a_stop_request_while_the_config_file_is_read_is_honoured() {
    // The config file is a pipe that stays empty until the signal has been sent: the run is
    // stuck reading it, before any validation, and must already be catching stop requests.
    let out = previous_outputs();
    let before = snapshot(out.path());
    let folder = TempDir::new().unwrap();
    let fifo = folder.path().join("config.toml");
    let made = Process::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    for signal in [Signal::SIGINT, Signal::SIGTERM] {
        let child = Process::new(cargo_bin("simulate"))
            .arg("--config")
            .arg(&fifo)
            .arg("--out")
            .arg(out.path())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            wait_for_handler_only(&child);
        }));
        if caught.is_ok() {
            signal::kill(Pid::from_raw(child.id() as i32), signal).unwrap();
        }
        // Unblock the run in every case, so that a failure leaves no process behind.
        std::fs::write(&fifo, "seed = 5\nrequests = 100\np = [0.3]\n").unwrap();
        let (code, stderr) = finish(child);
        if let Err(panic) = caught {
            std::panic::resume_unwind(panic);
        }
        assert_eq!(code, Some(130), "{signal}: {stderr}");
        assert_eq!(snapshot(out.path()), before, "{signal}");
    }
}

#[test]
fn staging_folders_left_by_a_killed_run_are_removed_by_the_next() {
    let out = previous_outputs();
    let before = snapshot(out.path());
    // What `kill -9` during staging leaves: a staging folder with partial files.
    let stale = out.path().join(".simulate-staging-k1LLeD");
    std::fs::create_dir_all(stale.join("previous")).unwrap();
    std::fs::write(stale.join("results.csv"), b"p,requests\n0.2,1").unwrap();
    simulate()
        .args(["--quiet", "--requests", "100", "--p", "0.2", "--out"])
        .arg(out.path())
        .assert()
        .success();
    assert!(!stale.exists(), "{:?}", names_in(out.path()));
    assert_eq!(snapshot(out.path()), before, "same inputs, same files");
}

#[test]
fn a_killed_run_leaves_at_most_a_staging_folder_that_the_next_run_removes() {
    // kill -9 at several moments of a run whose report takes seconds.
    let out = previous_outputs();
    let args = [
        "--quiet",
        "--p",
        "0:0.9999:0.0005",
        "--requests",
        "10",
        "--out",
    ];
    for delay in [100, 700, 1500] {
        let mut child = Process::new(cargo_bin("simulate"))
            .args(args)
            .arg(out.path())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().unwrap();
        child.wait().unwrap();
    }
    simulate()
        .args(["--quiet", "--requests", "100", "--p", "0.2", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let mut expected: Vec<&str> = ARTICLE_FILES.to_vec();
    expected.push(ARTICLE_MANIFEST);
    expected.sort_unstable();
    assert_eq!(names_in(out.path()), expected);
}

#[test]
fn a_timeline_run_replaces_the_previous_runs_file_set_and_keeps_other_files() {
    let folder = TempDir::new().unwrap();
    let out = folder.path().join("out");
    let run = |text: &str| {
        let config = write_file(folder.path(), "scenario.toml", text);
        simulate()
            .args(["--quiet", "--payments", "50", "--config"])
            .arg(&config)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
    };
    run("model = \"timeline\"\n[sweep]\n\"server.key_ttl_ms\" = [100.0, 1000.0]\n");
    assert!(out.join("timeline.csv").is_file() && !out.join("timeline_charges.svg").exists());
    std::fs::write(out.join("notes.txt"), b"mine").unwrap();
    run("model = \"timeline\"\n");
    let names = names_in(&out);
    assert!(
        names.contains(&"timeline_charges.svg".to_string()),
        "{names:?}"
    );
    assert!(names.contains(&"timeline.csv".to_string()), "{names:?}");
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine");
    // An article run into the same folder leaves the timeline's files alone.
    simulate()
        .args(["--quiet", "--requests", "50", "--out"])
        .arg(&out)
        .assert()
        .success();
    assert!(out.join("timeline.csv").is_file() && out.join("results.csv").is_file());
}

/// Runs `simulate` in `folder` with `args`; checks exit code 2, one line of stderr holding
/// every needle, and nothing written into `folder`.
fn refused_in(folder: &Path, args: &[&std::ffi::OsStr], needles: &[&str]) {
    let before = names_in(folder);
    let assert = simulate()
        .current_dir(folder)
        .args(args)
        .assert()
        .code(2)
        .stdout("");
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    let message = stderr.lines().next().unwrap_or_default();
    for needle in needles {
        assert!(
            message.contains(needle),
            "{args:?}: {needle:?} not in:\n{stderr}"
        );
    }
    assert_eq!(names_in(folder), before, "{args:?} wrote files");
}

#[test]
fn unsafe_or_unclear_output_folders_and_files_are_refused_with_one_line() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let folder = TempDir::new().unwrap();
    let dir = folder.path();
    write_file(dir, "empty-out.toml", "out = \"\"\n");
    write_file(
        dir,
        "timeline-empty-out.toml",
        "model = \"timeline\"\nout = \"\"\n",
    );
    write_file(dir, "...toml", "model = \"timeline\"\n");
    write_file(dir, "..toml", "model = \"timeline\"\n");
    write_file(dir, "broken.toml", "seed = 1\np = [0.1,\n");
    let os = |text: &'static str| OsStr::new(text);
    let cases: [(&[&OsStr], &[&str]); 7] = [
        (
            &[os("--config"), os("empty-out.toml")],
            &["key `out` in config file empty-out.toml", "empty"],
        ),
        (
            &[os("--config"), os("timeline-empty-out.toml")],
            &["key `out`", "timeline-empty-out.toml", "empty"],
        ),
        (&[os("--out"), os("")], &["--out"]),
        (&[os("--config"), os("...toml")], &["...toml", "output/.."]),
        (&[os("--config"), os("..toml")], &["..toml", "--out"]),
        (
            &[os("--config"), os("broken.toml")],
            &["config file broken.toml: line 2, column 10: unclosed array"],
        ),
        (
            &[os("--p"), os("--seed"), os("5")],
            &["a value is required for '--p <LIST>'", "'--seed'"],
        ),
    ];
    for (args, needles) in cases {
        refused_in(dir, args, needles);
    }
    refused_in(
        dir,
        &[os("--out"), OsStr::from_bytes(b"out-\xff")],
        &["--out", "UTF-8"],
    );
    // Every TOML error is one line.
    let assert = simulate()
        .current_dir(dir)
        .args(["--config", "broken.toml"])
        .assert()
        .code(2);
    assert_eq!(
        assert
            .get_output()
            .stderr
            .iter()
            .filter(|&&b| b == b'\n')
            .count(),
        1
    );
}

#[test]
fn a_dangling_symlink_as_output_folder_is_named_as_such() {
    let folder = TempDir::new().unwrap();
    let link = folder.path().join("out");
    std::os::unix::fs::symlink(folder.path().join("gone"), &link).unwrap();
    simulate()
        .args(["--quiet", "--requests", "50", "--out"])
        .arg(&link)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("is a symbolic link to"))
        .stderr(predicate::str::contains("gone"))
        .stderr(predicate::str::contains("which does not exist"));
}

#[test]
fn help_version_and_man_to_a_full_disk_are_errors() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    for args in [
        &["--help"][..],
        &["--version"],
        &["man"],
        &["completions", "bash"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = Process::new(cargo_bin("simulate"))
            .args(args)
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains("No space left on device"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn help_and_man_page_document_the_signals_and_only_existing_pages() {
    let help = simulate().arg("--help").assert().success();
    let help = String::from_utf8(help.get_output().stdout.clone()).unwrap();
    assert!(help.contains("SIGHUP"), "{help}");
    // Flags that every model takes say so, not only the article's.
    let threads = help.split("--threads").nth(1).unwrap();
    assert!(!threads.contains("fast engine"), "--threads: {threads}");
    let runs = help.split("--runs").nth(1).unwrap();
    assert!(runs.contains("scenario"), "--runs: {runs}");
    // Every model and the helper commands are named.
    for word in [
        "timeline",
        "contention",
        "load model",
        "simulate keys",
        "simulate check",
    ] {
        assert!(help.contains(word), "{word} not in the help");
    }
    let man = simulate().arg("man").assert().success();
    let man = String::from_utf8(man.get_output().stdout.clone()).unwrap();
    for missing in [
        "simulate\\-completions(1)",
        "simulate\\-man(1)",
        "simulate\\-help(1)",
    ] {
        assert!(!man.contains(missing), "the man page names {missing}");
    }
    let synopsis = man.split(".SH SYNOPSIS").nth(1).unwrap();
    let synopsis = synopsis.split(".SH").next().unwrap();
    for value in [
        "\\-\\-p\\fR \\fILIST\\fR",
        "\\-\\-out\\fR \\fIDIR\\fR",
        "completions\\fR \\fISHELL",
    ] {
        assert!(synopsis.contains(value), "{value} not in {synopsis}");
    }
    assert!(man.contains("SIGHUP"));
}

/// Makes a folder append-only (`chattr +a`: entries can be added, not removed or replaced)
/// and undoes it on drop. Root only.
struct AppendOnly<'a>(&'a Path);

impl Drop for AppendOnly<'_> {
    fn drop(&mut self) {
        let _ = Process::new("chattr").arg("-a").arg(self.0).status();
    }
}

#[test]
fn an_append_only_folder_leaves_a_named_staging_folder_that_a_later_run_removes() {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipped: `chattr +a` needs root (as in CI)");
        return;
    }
    let out = tempfile::Builder::new()
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let status = Process::new("chattr").arg("+a").arg(out.path()).status();
    assert!(
        matches!(status, Ok(status) if status.success()),
        "as root, this test needs `chattr +a` on {}: {status:?}",
        out.path().display()
    );
    let append_only = AppendOnly(out.path());
    // New files can be added, but the staging folder cannot be removed: the run says so.
    let args = ["--quiet", "--requests", "50", "--out"];
    simulate()
        .args(args)
        .arg(out.path())
        .assert()
        .success()
        .stderr(predicate::str::contains("cannot remove the staging folder"));
    assert!(
        names_in(out.path())
            .iter()
            .any(|name| name.starts_with(".simulate-staging-")),
        "{:?}",
        names_in(out.path())
    );
    drop(append_only);
    simulate()
        .args(args)
        .arg(out.path())
        .assert()
        .success()
        .stderr("");
    let mut expected: Vec<&str> = ARTICLE_FILES.to_vec();
    expected.push(ARTICLE_MANIFEST);
    expected.sort_unstable();
    assert_eq!(names_in(out.path()), expected);
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
