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

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::time::{Duration, Instant};

use assert_cmd::Command;
use assert_cmd::cargo::cargo_bin;
use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use predicates::prelude::*;
use tempfile::TempDir;

/// The files an article-model run writes (README, "Output files"), sorted.
const ARTICLE_FILES: [&str; 10] = [
    "attempts.csv",
    "attempts.svg",
    "deliveries.svg",
    "double_charge_rate.svg",
    "double_charges.svg",
    "extra_charges.svg",
    "report.md",
    "results.csv",
    "retry_amplification.svg",
    "summary.csv",
];

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

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
    assert_eq!(snapshot(out.path()).len(), ARTICLE_FILES.len());
    out
}

/// Waits until the process catches SIGINT (Linux: bit 2 of `SigCgt` in /proc), so the signal
/// tests do not race the handler's installation; elsewhere waits 300 ms.
fn wait_for_handler(child: &Child) {
    let status = PathBuf::from(format!("/proc/{}/status", child.id()));
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        let Ok(text) = std::fs::read_to_string(&status) else {
            std::thread::sleep(Duration::from_millis(300));
            return;
        };
        let caught = text
            .lines()
            .find_map(|line| line.strip_prefix("SigCgt:"))
            .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
            .unwrap_or(0);
        if caught & (1 << (Signal::SIGINT as u64 - 1)) != 0 {
            // Let the simulation start too.
            std::thread::sleep(Duration::from_millis(300));
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
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

/// Starts a run that takes minutes, sends `signal`, and checks it stops with exit code 130,
/// leaving the previous outputs byte-identical and no temporary files. With
/// `sigint_ignored`, the run starts with SIGINT ignored, as `simulate &` in a script does.
fn interrupted_by(signal: Signal, requests: &str, sigint_ignored: bool) -> String {
    let out = previous_outputs();
    let before = snapshot(out.path());
    let mut command = Process::new(cargo_bin("simulate"));
    command
        .args(["--requests", requests, "--threads", "1", "--out"])
        .arg(out.path())
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
    let child = command.spawn().unwrap();
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
    assert_eq!(before.len(), ARTICLE_FILES.len());
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
    assert_eq!(before.len(), ARTICLE_FILES.len());
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
