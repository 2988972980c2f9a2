//! Inputs refused with one line and exit code 2, nothing written: seeds at and above 2^63,
//! huge or endless config files, unsafe or unclear output folders and files, a dangling
//! symbolic link as `--out`.

use super::{names_in, write_file};
use crate::common::simulate;
use predicates::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};
use tempfile::TempDir;

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
