//! `report.html` in a real browser: a page of every model and of a sweep, written by this
//! build into a temporary folder, loaded in headless Chromium by `.ci/browser-check` (no
//! console message, no request but for the page itself, no script, every chart and figure
//! drawn at a non-zero size, no page-wide sideways scroll, a screenshot that is not blank).
//!
//! It needs Chromium, Node.js and two npm packages, which `.ci/browser-check` installs when
//! they are absent (as root, with apt-get): so a plain `cargo test` reports it as ignored, and
//! `.ci/run` runs it with `cargo test --test integration -- --ignored browser`, after
//! `.ci/browser-check` has checked every committed page (and installed what it needs).

use std::path::{Path, PathBuf};

use crate::common::simulate;

/// Runs `simulate` with `args` into `out`, quietly.
fn run(out: &Path, args: &[&str]) -> PathBuf {
    simulate()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .arg("--quiet")
        .arg("--out")
        .arg(out)
        .assert()
        .success();
    let page = out.join("report.html");
    assert!(page.is_file(), "{} was not written", page.display());
    page
}

#[test]
#[ignore = "needs Chromium and Node.js: .ci/run runs it after .ci/browser-check installs them"]
fn every_models_page_renders_in_chromium() {
    let folder = tempfile::tempdir().unwrap();
    let contention = folder.path().join("contention.toml");
    std::fs::write(
        &contention,
        "# Two <small> races: does jitter help?\nmodel = \"contention\"\nclients = [2, 3]\n\
         runs = 2\npolicies = [\"none\", \"full_jitter\"]\n",
    )
    .unwrap();
    let contention = contention.to_string_lossy().into_owned();
    let pages = [
        run(
            &folder.path().join("article"),
            &["--requests", "1000", "--runs", "2"],
        ),
        run(
            &folder.path().join("timeline"),
            &["--config", "configs/same-key-burst.toml"],
        ),
        run(
            &folder.path().join("load"),
            &[
                "--config",
                "configs/capacity-drop.toml",
                "--set",
                "arrivals.duration_s=5",
                "--runs",
                "1",
            ],
        ),
        run(
            &folder.path().join("contention"),
            &["--config", &contention],
        ),
        run(
            &folder.path().join("sweep"),
            &[
                "--config",
                "configs/same-key-burst.toml",
                "--sweep",
                "client.max_retries=1,2",
            ],
        ),
    ];
    let output = std::process::Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/browser-check"))
        .args(&pages)
        .env("SHOTS", folder.path().join("shots"))
        .output()
        .expect("running .ci/browser-check");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(printed.contains("5 passed, 0 failed"), "{printed}");
}
