//! Failing writes: a full disk (a file size limit, and a real tmpfs too small as root), a
//! rename failing midway, a folder made read-only halfway, an append-only folder, and the help
//! commands into a full stdout.

use super::{ARTICLE_MANIFEST, finish, names_in, previous_outputs, snapshot, wait_for_handler};
use crate::common::{ARTICLE_FILES, simulate};
use assert_cmd::cargo::cargo_bin;
use nix::sys::signal::{self, Signal};
use predicates::prelude::*;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, Stdio};
use tempfile::TempDir;

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
