//! The `simulate` binary as a user runs it: the article's table, determinism, config files and
//! every kind of bad input.

use crate::common::{ARTICLE_FILES, csv_rows, files_in, rejected_in, simulate};
use predicates::prelude::*;
use tempfile::TempDir;

const ARTICLE: &str = include_str!("reference/article_seed42.csv");

#[test]
fn defaults_reproduce_the_article_table() {
    let out = TempDir::new().unwrap();
    simulate()
        .args(["--quiet", "--out"])
        .arg(out.path())
        .assert()
        .success()
        .stdout("");
    let results = csv_rows(&out.path().join("results.csv"));
    let reference = csv::Reader::from_reader(ARTICLE.as_bytes())
        .deserialize::<std::collections::HashMap<String, String>>()
        .map(Result::unwrap)
        .collect::<Vec<_>>();
    assert_eq!(reference.len(), 3);
    assert_eq!(results.len(), 6, "one row per (p, server)");
    for expected in &reference {
        let rows: Vec<_> = results
            .iter()
            .filter(|row| row["p"].parse::<f64>().unwrap() == expected["p"].parse::<f64>().unwrap())
            .collect();
        assert_eq!(rows.len(), 2, "p = {}", expected["p"]);
        let plain = rows
            .iter()
            .find(|r| r["server"] == "non_idempotent")
            .unwrap();
        let keyed = rows
            .iter()
            .find(|r| r["server"] == "idempotency_key")
            .unwrap();
        for row in [plain, keyed] {
            assert_eq!(row["run"], "0");
            assert_eq!(row["seed"], expected["seed"]);
            assert_eq!(row["requests"], expected["requests"]);
            assert_eq!(row["max_retries"], expected["max_retries"]);
            assert_eq!(row["deliveries"], expected["deliveries"]);
            assert_eq!(row["retries_exhausted"], expected["retries_exhausted"]);
        }
        assert_eq!(
            plain["double_charged_requests"],
            expected["double_charged_requests"]
        );
        assert_eq!(plain["extra_charges"], expected["extra_charges"]);
        assert_eq!(plain["charges"], expected["deliveries"]);
        assert_eq!(plain["prevented_duplicates"], "0");
        assert_eq!(keyed["double_charged_requests"], "0");
        assert_eq!(keyed["extra_charges"], "0");
        assert_eq!(keyed["charges"], expected["requests"]);
        assert_eq!(keyed["prevented_duplicates"], expected["extra_charges"]);
    }
    // The largest attempt count in attempts.csv is the reference's max_attempts.
    let attempts = csv_rows(&out.path().join("attempts.csv"));
    for expected in &reference {
        let largest = attempts
            .iter()
            .filter(|row| row["p"] == expected["p"])
            .map(|row| row["attempts"].parse::<u32>().unwrap())
            .max()
            .unwrap();
        assert_eq!(largest.to_string(), expected["max_attempts"]);
    }
}

/// Whether a line of `text` holds `cells` one after another (separated by whitespace).
fn has_row(text: &str, cells: &[&str]) -> bool {
    text.lines().any(|line| {
        let words: Vec<&str> = line.split_whitespace().collect();
        words.windows(cells.len()).any(|window| window == cells)
    })
}

#[test]
fn the_published_numbers_appear_in_the_table() {
    let out = TempDir::new().unwrap();
    let assert = simulate()
        .arg("--out")
        .arg(out.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("results.csv"));
    let stdout = String::from_utf8(assert.get_output().stdout.clone()).unwrap();
    for row in [
        ["0.01", "10,000", "101", "1.01%", "101", "0", "101"],
        ["0.05", "10,000", "508", "5.08%", "532", "0", "532"],
        ["0.1", "10,000", "984", "9.84%", "1,082", "0", "1,082"],
    ] {
        assert!(has_row(&stdout, &row), "no row {row:?} in\n{stdout}");
    }
    assert!(
        !has_row(&stdout, &["0.1", "10,000", "985"]),
        "the check can fail"
    );
}

#[test]
fn runs_are_byte_identical_whatever_the_threads_or_engine() {
    let runs: Vec<TempDir> = (0..4).map(|_| TempDir::new().unwrap()).collect();
    let variants: [&[&str]; 4] = [
        &["--threads", "1"],
        &["--threads", "2"],
        &["--threads", "7"],
        &["--engine", "servers"],
    ];
    for (out, extra) in runs.iter().zip(variants) {
        simulate()
            .args(["--quiet", "--p", "0.3,0.01", "--requests", "3000", "--out"])
            .arg(out.path())
            .args(extra)
            .assert()
            .success();
    }
    let names = files_in(runs[0].path());
    assert_eq!(names, ARTICLE_FILES);
    for other in &runs[1..] {
        assert_eq!(files_in(other.path()), names);
        for name in &names {
            assert_eq!(
                std::fs::read(runs[0].path().join(name)).unwrap(),
                std::fs::read(other.path().join(name)).unwrap(),
                "{name} differs"
            );
        }
    }
}

#[test]
fn p_is_written_in_shortest_form_in_the_given_order() {
    let out = TempDir::new().unwrap();
    simulate()
        .args(["--quiet", "--p", "0.10,0,1", "--requests", "10", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let p: Vec<String> = csv_rows(&out.path().join("results.csv"))
        .into_iter()
        .map(|row| row["p"].clone())
        .collect();
    assert_eq!(p, ["0.1", "0.1", "0", "0", "1", "1"]);
}

#[test]
fn a_config_file_sets_the_experiment_and_flags_override_it() {
    let folder = TempDir::new().unwrap();
    let config = folder.path().join("scenario.toml");
    std::fs::write(
        &config,
        "p = [0.5]\nseed = 7\nrequests = 20\nmax_retries = 3\nout = \"ignored\"\n",
    )
    .unwrap();
    let out = folder.path().join("out");
    simulate()
        .arg("--config")
        .arg(&config)
        .args(["--quiet", "--seed", "8", "--out"])
        .arg(&out)
        .assert()
        .success();
    let rows = csv_rows(&out.join("results.csv"));
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["p"], "0.5");
    assert_eq!(rows[0]["seed"], "8", "the flag wins");
    assert_eq!(rows[0]["requests"], "20");
    assert_eq!(rows[0]["max_retries"], "3");
    assert!(!folder.path().join("ignored").exists());
}

#[test]
fn the_shipped_article_config_is_the_default_experiment() {
    let (from_config, from_defaults) = (TempDir::new().unwrap(), TempDir::new().unwrap());
    simulate()
        .args(["--quiet", "--config", "configs/article.toml", "--out"])
        .arg(from_config.path())
        .assert()
        .success();
    simulate()
        .args(["--quiet", "--out"])
        .arg(from_defaults.path())
        .assert()
        .success();
    // Every file but the page and parameters.csv, which name the file it ran (its comment,
    // its lines) as where the values came from.
    for name in files_in(from_defaults.path()) {
        if name == "report.html" || name == "parameters.csv" {
            continue;
        }
        assert_eq!(
            std::fs::read(from_config.path().join(&name)).unwrap(),
            std::fs::read(from_defaults.path().join(&name)).unwrap(),
            "{name}"
        );
    }
}

/// Runs with bad input: exit code, one line naming the value and its source, no files.
fn rejected(args: &[&str], code: i32, needles: &[&str]) {
    let folder = TempDir::new().unwrap();
    rejected_in(folder.path(), args, code, needles);
}

#[test]
fn bad_flags_are_usage_errors_naming_the_flag_and_value() {
    rejected(&["--p", "nan"], 2, &["--p", "NaN"]);
    rejected(&["--p", "-0.1"], 2, &["--p", "-0.1"]);
    rejected(&["--p", "1.01"], 2, &["--p", "1.01"]);
    rejected(&["--p", "abc"], 2, &["--p", "'abc' is not a number"]);
    rejected(&["--p", ""], 2, &["--p", "empty"]);
    rejected(&["--p", "0.1,,0.2"], 2, &["--p", "empty item"]);
    rejected(&["--p", "0.3:0:0.1"], 2, &["--p", "reversed"]);
    rejected(&["--requests", "0"], 2, &["--requests", "got 0"]);
    rejected(&["--requests", "ten"], 2, &["--requests", "'ten'"]);
    rejected(&["--seed", "-1"], 2, &["--seed", "'-1' is not a seed"]);
    rejected(&["--seed", "x"], 2, &["--seed", "'x'"]);
    rejected(&["--seed", "18446744073709551616"], 2, &["--seed"]);
    rejected(&["--max-retries", "-3"], 2, &["--max-retries", "'-3'"]);
    rejected(&["--threads", "0"], 2, &["--threads", "got 0"]);
    rejected(&["--engine", "gpu"], 2, &["--engine", "gpu"]);
    rejected(&["--colour", "red"], 2, &["--colour"]);
}

#[test]
fn bad_config_files_are_usage_errors_naming_file_and_key() {
    let folder = TempDir::new().unwrap();
    let write = |name: &str, text: &str| {
        let path = folder.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.to_string_lossy().into_owned()
    };
    let cases = [
        (
            write("p.toml", "p = [0.1, 2]\n"),
            vec!["p.toml", "key `p[1]`", "2"],
        ),
        (
            write("nan.toml", "p = [nan]\n"),
            vec!["nan.toml", "key `p[0]`", "NaN"],
        ),
        (
            write("range.toml", "p = \"0:0.3:0\"\n"),
            vec!["range.toml", "key `p`", "zero STEP"],
        ),
        (
            write("requests.toml", "requests = 0\n"),
            vec!["requests.toml", "key `requests`"],
        ),
        (write("seed.toml", "seed = -5\n"), vec!["seed.toml", "seed"]),
        (
            write("unknown.toml", "seeds = 5\n"),
            vec![
                "unknown.toml",
                "unknown key `seeds`",
                "did you mean `seed`?",
            ],
        ),
        (
            write("broken.toml", "p = [0.1\n"),
            vec!["broken.toml", "line 1"],
        ),
        (
            write("type.toml", "requests = \"many\"\n"),
            vec!["type.toml", "requests"],
        ),
    ];
    for (path, needles) in &cases {
        rejected(&["--config", path], 2, needles);
    }
    rejected(
        &["--config", "does-not-exist.toml"],
        2,
        &["does-not-exist.toml", "cannot read config file"],
    );
}

#[test]
fn an_output_folder_that_cannot_be_made_is_a_failure_naming_it() {
    let folder = TempDir::new().unwrap();
    let blocker = folder.path().join("taken");
    std::fs::write(&blocker, "a file, not a folder").unwrap();
    // The folder itself is a file: a usage error, said before the run.
    simulate()
        .args(["--quiet", "--out"])
        .arg(&blocker)
        .assert()
        .failure()
        .code(2)
        .stderr(predicate::str::contains("taken"))
        .stderr(predicate::str::contains("the output folder is a file"));
    // A folder inside a file cannot be made: a failure of the run, naming it.
    simulate()
        .args(["--quiet", "--requests", "10", "--out"])
        .arg(blocker.join("inside"))
        .assert()
        .failure()
        .code(1)
        .stderr(predicate::str::contains("taken"))
        .stderr(predicate::str::contains("cannot create output folder"));
    assert_eq!(
        std::fs::read_to_string(&blocker).unwrap(),
        "a file, not a folder"
    );
}

#[test]
fn previous_outputs_survive_a_failed_run() {
    let out = TempDir::new().unwrap();
    simulate()
        .args(["--quiet", "--requests", "100", "--out"])
        .arg(out.path())
        .assert()
        .success();
    let before = std::fs::read(out.path().join("results.csv")).unwrap();
    simulate()
        .args(["--quiet", "--requests", "0", "--out"])
        .arg(out.path())
        .assert()
        .code(2);
    assert_eq!(
        std::fs::read(out.path().join("results.csv")).unwrap(),
        before
    );
    assert_eq!(
        files_in(out.path()),
        ARTICLE_FILES,
        "no temporary files left"
    );
}

#[test]
fn p_zero_and_one_are_valid_edges() {
    let out = TempDir::new().unwrap();
    simulate()
        .args([
            "--quiet",
            "--p",
            "0,1",
            "--requests",
            "50",
            "--max-retries",
            "4",
            "--out",
        ])
        .arg(out.path())
        .assert()
        .success();
    let rows = csv_rows(&out.path().join("results.csv"));
    // p = 0: every ACK arrives; p = 1: every request uses all 4 retries (5 deliveries).
    assert_eq!(rows[0]["deliveries"], "50");
    assert_eq!(rows[0]["double_charged_requests"], "0");
    assert_eq!(rows[2]["deliveries"], "250");
    assert_eq!(rows[2]["double_charged_requests"], "50");
    assert_eq!(rows[2]["extra_charges"], "200");
    assert_eq!(rows[2]["retries_exhausted"], "50");
    assert_eq!(rows[3]["charges"], "50");
    assert_eq!(rows[3]["prevented_duplicates"], "200");
}

#[test]
fn help_and_version_work() {
    simulate()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("--max-retries"));
    simulate()
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::contains(env!("CARGO_PKG_VERSION")));
}

#[test]
fn a_sweep_with_runs_writes_the_summary_and_the_report() {
    let out = TempDir::new().unwrap();
    simulate()
        .args([
            "--quiet",
            "--p",
            "0:0.3:0.01",
            "--runs",
            "100",
            "--requests",
            "2000",
            "--out",
        ])
        .arg(out.path())
        .assert()
        .success();
    let rows = csv_rows(&out.path().join("summary.csv"));
    // 31 p values × 2 servers × 5 metrics.
    assert_eq!(rows.len(), 31 * 2 * 5);
    let p: std::collections::BTreeSet<String> = rows.iter().map(|row| row["p"].clone()).collect();
    assert_eq!(p.len(), 31);
    assert_eq!(
        csv_rows(&out.path().join("results.csv")).len(),
        100 * 31 * 2
    );
    for row in &rows {
        assert_eq!(row["runs"], "100");
        assert_eq!(row["requests_per_run"], "2000");
        let number = |column: &str| row[column].parse::<f64>().unwrap();
        let p = number("p");
        // Closed forms by hand (R = 20): P(double-charged) = p, E[deliveries] = 1 + p + ... + p^20.
        let extra: f64 = (1..=20).map(|k| p.powi(k)).sum();
        let keyed = row["server"] == "idempotency_key";
        let expected = match row["metric"].as_str() {
            "double_charge_rate" if keyed => 0.0,
            "double_charge_rate" => p,
            "extra_charges_per_request" if keyed => 0.0,
            "extra_charges_per_request" => extra,
            "prevented_duplicates_per_request" if keyed => extra,
            "prevented_duplicates_per_request" => 0.0,
            "retries_exhausted_rate" => p.powi(20),
            "deliveries_per_request" => 1.0 + extra,
            other => panic!("unexpected metric {other}"),
        };
        assert!((number("closed_form") - expected).abs() < 1e-12, "{row:?}");
        let interval = if row["metric"].ends_with("_rate") {
            "wilson"
        } else {
            "student_t"
        };
        assert_eq!(row["interval"], interval);
        assert!(number("ci_low") <= number("mean") && number("mean") <= number("ci_high"));
        // Every p of a run reads the same draws, so the rows are strongly correlated and their
        // coverage is not a binomial count (tests/statistics.rs checks coverage over independent
        // seeds). Each z-score is standard normal; |z| >= 5 has probability 6e-7, so by the union
        // bound over these 210 rows a correct simulator fails here with probability below 2e-4.
        match row["z_score"].as_str() {
            "" => assert_eq!(
                number("mean"),
                expected,
                "a metric that cannot vary: {row:?}"
            ),
            z => assert!(z.parse::<f64>().unwrap().abs() < 5.0, "{row:?}"),
        }
    }
    let report = std::fs::read_to_string(out.path().join("report.md")).unwrap();
    for needle in [
        "31 values from 0 to 0.3",
        "SeedSequence(42, spawn_key=(k - 1,))",
        "| 0.3 |",
        "![Share of customers charged twice, by ACK-loss rate](double_charge_rate.svg)",
        "(extra_charges.svg)",
        "(retry_amplification.svg)",
    ] {
        assert!(report.contains(needle), "report.md lacks {needle}");
    }
}
