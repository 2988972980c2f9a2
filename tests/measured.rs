//! Measured latency distributions through the command line: a data file is read relative to
//! its config file, a bad one is one line naming the file, the line and the column (exit 2,
//! nothing written), and a measured distribution that always gives the same duration runs
//! exactly as the fixed one (one draw per duration, so every other draw is unchanged).

use std::path::Path;

use crate::common::{rejected_in, run, scenario_file, simulate};

/// A timeline file whose server takes `processing` (a TOML table).
fn timeline_config(processing: &str) -> String {
    format!(
        "model = \"timeline\"\nseed = 7\npayments = 3000\n\n[network]\nack_loss = 0.05\n\
         request_latency = {{ distribution = \"log_normal\", median_ms = 20.0, p99_ms = 300.0 }}\n\n\
         [server]\nprocessing = {processing}\n\n[client]\ntimeout_ms = 400.0\nmax_retries = 3\n"
    )
}

fn write(folder: &Path, name: &str, text: &str) {
    let path = folder.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_bad_samples_file_is_one_line_naming_file_line_and_column() {
    let folder = tempfile::tempdir().unwrap();
    write(
        folder.path(),
        "data/latency.csv",
        "id,ms\n1,40\n2,4o\n3,50\n",
    );
    write(
        folder.path(),
        "configs/c.toml",
        &timeline_config(
            "{ distribution = \"empirical\", file = \"../data/latency.csv\", column = \"ms\" }",
        ),
    );
    let (stderr, _) = rejected_in(
        folder.path(),
        &["--config", "configs/c.toml"],
        2,
        &[
            "key `server.processing.file` in config file configs/c.toml (line 10, column",
            "configs/../data/latency.csv, line 3, column 2 (`ms`): `4o` is not a number",
        ],
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    // A missing column, and a bucket file whose counts decrease, likewise.
    write(
        folder.path(),
        "configs/h.toml",
        &timeline_config("{ distribution = \"histogram\", file = \"h.prom\", unit = \"ms\" }"),
    );
    write(
        folder.path(),
        "configs/h.prom",
        "x_bucket{le=\"10\"} 5\nx_bucket{le=\"20\"} 3\nx_bucket{le=\"+Inf\"} 9\n",
    );
    let (stderr, _) = rejected_in(
        folder.path(),
        &["--config", "configs/h.toml"],
        2,
        &["configs/h.prom: line 2's count (cumulative, less than line 1's count = 5) (3)"],
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

#[test]
fn non_increasing_percentiles_are_refused_naming_the_keys() {
    let folder = tempfile::tempdir().unwrap();
    write(
        folder.path(),
        "c.toml",
        &timeline_config(
            "{ distribution = \"percentiles\", p50_ms = 120, p99_ms = 900, p999_ms = 800 }",
        ),
    );
    let (stderr, _) = rejected_in(
        folder.path(),
        &["--config", "c.toml"],
        2,
        &[
            "key `server.processing.p999_ms`",
            "p999_ms (800) must be more than p99_ms (900)",
        ],
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

#[test]
fn one_valued_measurements_run_as_the_fixed_distribution() {
    // Samples all 50 ms as the fixed 50 ms: the same draws feed every other quantity, so the
    // outputs are the same bytes (the files share a name: the scenario is named after it).
    let folder = tempfile::tempdir().unwrap();
    write(
        folder.path(),
        "fixed/c.toml",
        &timeline_config("{ distribution = \"fixed\", ms = 50 }"),
    );
    write(folder.path(), "samples/fifty.txt", "50\n50\n50\n");
    write(
        folder.path(),
        "samples/c.toml",
        &timeline_config("{ distribution = \"empirical\", file = \"fifty.txt\" }"),
    );
    let (_, fixed) = run(&folder.path().join("fixed/c.toml"), &["--quiet"]);
    let (_, samples) = run(&folder.path().join("samples/c.toml"), &["--quiet"]);
    for file in ["timeline.csv", "summary.csv"] {
        assert_eq!(
            std::fs::read(fixed.path().join(file)).unwrap(),
            std::fs::read(samples.path().join(file)).unwrap(),
            "{file}"
        );
    }
}

#[test]
fn a_flag_reads_its_file_from_the_working_directory() {
    let folder = tempfile::tempdir().unwrap();
    write(folder.path(), "here/s.txt", "30\n60\n90\n");
    let config = scenario_file("capacity-drop.toml");
    let out = folder.path().join("out");
    simulate()
        .current_dir(folder.path())
        .arg("--config")
        .arg(&config)
        .args([
            "--runs",
            "1",
            "--quiet",
            "--set",
            "server.processing={ distribution = \"empirical\", file = \"here/s.txt\" }",
            "--set",
            "network.request_latency={ distribution = \"percentiles\", p50_ms = 5, p99_ms = 40 }",
            "--out",
        ])
        .arg(&out)
        .assert()
        .success();
    assert!(out.join("load.csv").exists());
}
