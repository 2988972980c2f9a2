//! Sharded runs: for every model (and a sweep), four `--shard K/4` processes joined by
//! `simulate merge` write the very bytes of the unsharded run, every file; a missing,
//! duplicated or foreign shard is refused in one line naming the folder, exit 2, nothing
//! written; the index is read from the scheduler's variable when asked.

use std::collections::BTreeMap;
use std::path::Path;

use tempfile::TempDir;

use crate::common::{scenario_file, simulate};

/// Every file of `folder` (hidden ones too) by name, with its bytes.
fn contents(folder: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(folder)
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            (
                entry.file_name().to_string_lossy().into_owned(),
                std::fs::read(entry.path()).unwrap(),
            )
        })
        .collect()
}

/// Runs `simulate ARGS --out OUT EXTRA` in `folder`; returns stdout.
fn run_in(folder: &Path, args: &[&str], out: &str, extra: &[&str]) -> String {
    let assert = simulate()
        .current_dir(folder)
        .args(args)
        .args(["--out", out])
        .args(extra)
        .assert()
        .success();
    String::from_utf8(assert.get_output().stdout.clone()).unwrap()
}

/// Runs `args` once into `full` and as four shards `s0`..`s3` in a fresh folder; returns it.
fn shards_of(args: &[&str]) -> TempDir {
    let folder = TempDir::new().unwrap();
    run_in(folder.path(), args, "full", &[]);
    for index in 0..4 {
        let shard = format!("{index}/4");
        run_in(
            folder.path(),
            args,
            &format!("s{index}"),
            &["--shard", &shard],
        );
    }
    folder
}

/// `simulate merge FOLDERS --out merged` in `folder`.
fn merge(folder: &Path, folders: &[&str]) -> assert_cmd::assert::Assert {
    simulate()
        .current_dir(folder)
        .arg("merge")
        .args(folders)
        .args(["--out", "merged"])
        .assert()
}

/// The four shards of `args` merged are the unsharded run, file by file and byte by byte,
/// and the merge prints what the run printed.
fn merged_equals_unsharded(args: &[&str]) {
    let folder = shards_of(args);
    let stdout = merge(folder.path(), &["s0", "s1", "s2", "s3"]).success();
    let full = contents(&folder.path().join("full"));
    let merged = contents(&folder.path().join("merged"));
    assert!(full.contains_key("report.html"), "{:?}", full.keys());
    assert_eq!(
        full.keys().collect::<Vec<_>>(),
        merged.keys().collect::<Vec<_>>(),
        "{args:?}"
    );
    for (name, bytes) in &full {
        assert!(merged[name] == *bytes, "{args:?}: {name} differs");
    }
    // Each shard holds a share of the cells, together all of them once.
    let mut held = Vec::new();
    for index in 0..4 {
        let manifest: serde_json::Value = serde_json::from_slice(
            &std::fs::read(folder.path().join(format!("s{index}/shard.json"))).unwrap(),
        )
        .unwrap();
        held.extend(
            manifest["cells"]
                .as_array()
                .unwrap()
                .iter()
                .map(|cell| cell.as_u64().unwrap()),
        );
    }
    held.sort_unstable();
    let total = held.len() as u64;
    assert!(total >= 4, "{args:?}: {total} cells");
    assert_eq!(held, (0..total).collect::<Vec<_>>(), "{args:?}");
    // What the merge prints is what the run printed, in its own folder.
    let again = run_in(folder.path(), args, "merged", &[]);
    assert_eq!(
        String::from_utf8(stdout.get_output().stdout.clone()).unwrap(),
        again
    );
}

#[test]
fn article_shards_merge_to_the_unsharded_bytes() {
    merged_equals_unsharded(&["--runs", "6", "--requests", "3000", "--p", "0.05,0.3"]);
}

#[test]
fn timeline_shards_merge_to_the_unsharded_bytes() {
    let file = scenario_file("mobile-network.toml");
    let file = file.to_str().unwrap();
    merged_equals_unsharded(&[file, "--runs", "5", "--payments", "2000"]);
}

#[test]
fn load_shards_merge_to_the_unsharded_bytes() {
    let file = scenario_file("capacity-drop.toml");
    let file = file.to_str().unwrap();
    merged_equals_unsharded(&[file, "--runs", "2"]);
}

#[test]
fn contention_shards_merge_to_the_unsharded_bytes() {
    let file = scenario_file("aws-backoff.toml");
    let file = file.to_str().unwrap();
    merged_equals_unsharded(&[file, "--runs", "3"]);
}

#[test]
fn sweep_shards_merge_to_the_unsharded_bytes() {
    let file = scenario_file("key-ttl.toml");
    let file = file.to_str().unwrap();
    merged_equals_unsharded(&[file, "--runs", "2", "--payments", "400"]);
}

/// Article shards of a small run, to refuse in ways.
const SMALL: &[&str] = &["--runs", "4", "--requests", "500"];

/// A refused merge: exit 2, one line on stderr holding every needle, no output folder.
fn refused(folder: &Path, folders: &[&str], needles: &[&str]) {
    let assert = merge(folder, folders).failure().code(2).stdout("");
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    for needle in needles {
        assert!(stderr.contains(needle), "{needle:?} not in {stderr}");
    }
    assert!(!folder.join("merged").exists(), "{folders:?} wrote files");
}

#[test]
fn a_missing_shard_is_refused() {
    let folder = shards_of(SMALL);
    refused(
        folder.path(),
        &["s0", "s1", "s3"],
        &["s0: shard 2 of 4 is missing"],
    );
    refused(folder.path(), &["s3"], &["shard 0, 1, 2 of 4 is missing"]);
}

#[test]
fn a_duplicated_shard_is_refused() {
    let folder = shards_of(SMALL);
    std::fs::create_dir(folder.path().join("copy")).unwrap();
    for file in ["shard.json", "cells.json"] {
        std::fs::copy(
            folder.path().join("s1").join(file),
            folder.path().join("copy").join(file),
        )
        .unwrap();
    }
    refused(
        folder.path(),
        &["s0", "s1", "copy", "s2", "s3"],
        &["copy: shard 1/4 again (also in s1)"],
    );
}

#[test]
fn a_shard_of_another_config_is_refused() {
    let folder = shards_of(SMALL);
    // The same run with another seed: its shard 2 is not this run's.
    let other: Vec<&str> = SMALL.iter().copied().chain(["--seed", "7"]).collect();
    run_in(folder.path(), &other, "other", &["--shard", "2/4"]);
    refused(
        folder.path(),
        &["s0", "s1", "other", "s3"],
        &["other: a shard of another run: its config hash is"],
    );
    // Cut into another number of shards.
    run_in(folder.path(), SMALL, "half", &["--shard", "1/2"]);
    refused(
        folder.path(),
        &["s0", "half", "s2", "s3"],
        &["half: a shard of another run: its shard count is 2, but s0 has 4"],
    );
    // Not a shard at all.
    refused(
        folder.path(),
        &["s0", "s1", "full", "s3"],
        &["full: not a shard's folder: it has no shard.json"],
    );
}

#[test]
fn the_index_comes_from_the_scheduler_when_asked() {
    let folder = TempDir::new().unwrap();
    run_in(folder.path(), SMALL, "given", &["--shard", "1/2"]);
    for (variable, flag, out) in [
        ("SLURM_ARRAY_TASK_ID", "slurm/2", "slurm"),
        ("JOB_COMPLETION_INDEX", "k8s/2", "k8s"),
    ] {
        simulate()
            .current_dir(folder.path())
            .env(variable, "1")
            .args(SMALL)
            .args(["--out", out, "--shard", flag])
            .assert()
            .success();
        assert_eq!(
            std::fs::read(folder.path().join(out).join("cells.json")).unwrap(),
            std::fs::read(folder.path().join("given/cells.json")).unwrap()
        );
    }
    let assert = simulate()
        .current_dir(folder.path())
        .env_remove("SLURM_ARRAY_TASK_ID")
        .args(SMALL)
        .args(["--out", "unset", "--shard", "slurm/2"])
        .assert()
        .failure()
        .code(2);
    let stderr = String::from_utf8(assert.get_output().stderr.clone()).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--shard: SLURM_ARRAY_TASK_ID is not set"),
        "{stderr}"
    );
    assert!(!folder.path().join("unset").exists());
}
