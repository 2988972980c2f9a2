//! Stop requests: SIGINT and SIGTERM during a long run (exit 130, previous outputs
//! byte-identical), and at every stage: the moment the handler exists, while the config file
//! is read, while the report renders, in the middle of a load and a contention run.

use super::{
    finish, previous_outputs, snapshot, spawn_article_run, stops_within_two_seconds,
    wait_for_handler, wait_for_handler_only, write_file,
};
use assert_cmd::cargo::cargo_bin;
use nix::sys::signal::{self, Signal};
use nix::unistd::Pid;
use std::process::{Command as Process, Stdio};
use std::time::Duration;
use tempfile::TempDir;

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
