//! Runs and their output folder: unrelated files kept, a run waiting for the run holding the
//! folder, simultaneous runs never mixing their files, staging folders left by killed runs
//! removed, a run's file set replacing the previous one's.

use super::{
    ARTICLE_MANIFEST, finish, names_in, previous_outputs, snapshot, stops_within_two_seconds,
    write_file,
};
use crate::common::{ARTICLE_FILES, simulate};
use assert_cmd::cargo::cargo_bin;
use std::process::{Child, Command as Process, Stdio};
use std::time::Duration;
use tempfile::TempDir;

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
