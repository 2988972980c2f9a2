//! Sweeps from the outside: a sweep's point is the file run with that value set, the
//! `[sweep]` table and `--sweep` are the same grid, the first key is outermost, and a bad
//! sweep is one line, exit 2, nothing written.

use std::path::Path;

use assert_cmd::Command;
use tempfile::TempDir;

fn simulate() -> Command {
    Command::cargo_bin("simulate").unwrap()
}

/// A small timeline file whose timeouts and retries change the outcome: latencies long enough
/// that a 150 ms timeout fires often.
const FILE: &str = "model = \"timeline\"\npayments = 300\nruns = 2\n[network]\n\
                    request_latency = { distribution = \"exponential\", mean_ms = 100 }\n\
                    ack_loss = 0.05\n";

/// Runs `simulate` on `text` (as `a.toml`) with `args` into `out/`; the folder.
fn run(text: &str, args: &[&str]) -> TempDir {
    let folder = TempDir::new().unwrap();
    std::fs::write(folder.path().join("a.toml"), text).unwrap();
    simulate()
        .current_dir(folder.path())
        .args(["a.toml", "--quiet", "--out", "out"])
        .args(args)
        .assert()
        .success();
    folder
}

fn read(folder: &Path, name: &str) -> String {
    std::fs::read_to_string(folder.join("out").join(name)).unwrap()
}

/// Every point's rows of a sweep's CSV are the rows of the file run with the point's values
/// set, after the swept columns; the first key is outermost.
#[test]
fn a_point_of_a_sweep_is_the_file_run_with_its_values_set() {
    let swept = run(
        FILE,
        &[
            "--sweep",
            "client.timeout_ms=150,1s",
            "--sweep",
            "client.max_retries=0:2:1",
        ],
    );
    let combined = read(swept.path(), "timeline.csv");
    let mut lines = combined.lines();
    let header = lines.next().unwrap();
    let mut expected = Vec::new();
    let mut single_header = String::new();
    for timeout in ["150", "1000"] {
        for retries in ["0", "1", "2"] {
            let single = run(
                FILE,
                &[
                    "--set",
                    &format!("client.timeout_ms={timeout}"),
                    "--set",
                    &format!("client.max_retries={retries}"),
                ],
            );
            let text = read(single.path(), "timeline.csv");
            let mut rows = text.lines();
            single_header = rows.next().unwrap().to_string();
            expected.extend(rows.map(|row| format!("{timeout},{retries},{row}")));
        }
    }
    assert_eq!(
        header,
        format!("client.timeout_ms,client.max_retries,{single_header}")
    );
    assert_eq!(lines.collect::<Vec<_>>(), expected);
    // The points differ: the sweep is not the same run six times.
    let column = header
        .split(',')
        .position(|name| name == "charges")
        .unwrap();
    let charges: std::collections::HashSet<&str> = expected
        .iter()
        .map(|row| row.split(',').nth(column).unwrap())
        .collect();
    assert!(charges.len() > 2, "{charges:?}");
}

/// The file's `[sweep]` table and `--sweep` give the same bytes; a flag naming the file's
/// axis replaces it.
#[test]
fn the_sweep_table_and_the_flag_are_the_same_grid() {
    let table = format!(
        "{FILE}[sweep]\nclient.timeout_ms = [150, \"1s\"]\nserver.error_rate = \"0:0.1:0.1\"\n"
    );
    let from_file = run(&table, &[]);
    let from_flags = run(
        FILE,
        &[
            "--sweep",
            "client.timeout_ms=150,1s",
            "--sweep",
            "server.error_rate=0:0.1:0.1",
        ],
    );
    let file = read(from_file.path(), "timeline.csv");
    assert_eq!(file, read(from_flags.path(), "timeline.csv"));
    assert!(file.starts_with("client.timeout_ms,server.error_rate,run,"));
    let replaced = run(&table, &["--sweep", "server.error_rate=0.2"]);
    let text = read(replaced.path(), "timeline.csv");
    let rates: std::collections::BTreeSet<&str> = text
        .lines()
        .skip(1)
        .map(|row| row.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(rates.into_iter().collect::<Vec<_>>(), ["0.2"]);
}

/// A sweep of the article model's own keys: `p` is its list (no second `p` column), and a
/// key its CSV already has is that column.
#[test]
fn the_article_model_sweeps_p_itself() {
    let folder = TempDir::new().unwrap();
    let run = |args: &[&str], out: &str| {
        simulate()
            .current_dir(folder.path())
            .args(["--quiet", "--requests", "2000", "--out", out])
            .args(args)
            .assert()
            .success();
        std::fs::read_to_string(folder.path().join(out).join("results.csv")).unwrap()
    };
    assert_eq!(
        run(&["--sweep", "p=0.1,0.2"], "swept"),
        run(&["--p", "0.1,0.2"], "listed")
    );
    let retries = run(&["--sweep", "max_retries=1,3", "--p", "0.2"], "retries");
    assert!(
        retries.starts_with("run,p,server,requests,max_retries,"),
        "{retries}"
    );
    assert_eq!(retries.lines().count(), 1 + 2 * 2);
}

/// Bad sweeps are one exact line, exit 2, and no folder.
#[test]
fn each_sweep_mistake_is_one_exact_line() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["--sweep", "client.timeuot_ms=1,2"],
            "--sweep client.timeuot_ms=1,2: unknown key `client.timeuot_ms` for the timeline \
             model: did you mean `client.timeout_ms`?",
        ),
        (
            &["--sweep", "client.timeout_ms=150,-1"],
            "invalid value -1 for key `client.timeout_ms` in --sweep client.timeout_ms=150,-1: \
             expected a duration more than 0 and at most 1000000000 ms, as a number of ms or a \
             string such as \"250ms\", \"2s\"",
        ),
        (
            &["--sweep", "client.max_retries=1,1"],
            "--sweep client.max_retries=1,1: `client.max_retries` is swept over 1 twice: give \
             each value once",
        ),
        (
            &["--sweep", "server.error_rate=0.5:0.1:0.1"],
            "--sweep server.error_rate=0.5:0.1:0.1: range '0.5:0.1:0.1' is reversed: START is \
             above STOP (write it in increasing order)",
        ),
        (
            &["--sweep", "requests=1,2"],
            "--sweep requests=1,2: unknown key `requests` for the timeline model: it is a key \
             of the article model (write model = \"article\" at the top of the file)",
        ),
        (
            &[
                "--sweep",
                "client.max_retries=1,2",
                "--set",
                "client.max_retries=3",
            ],
            "--set client.max_retries=3: `client.max_retries` is also swept: set it or sweep it",
        ),
        (
            &[
                "--sweep",
                "client.max_retries=0:99:1",
                "--sweep",
                "server.error_rate=0:0.99:0.01",
                "--sweep",
                "seed=1,2",
            ],
            "the run is too large: the sweep's grid has more than 10000 points: \
             client.max_retries (100) × server.error_rate (100) × seed (2); sweep fewer values",
        ),
    ];
    let mut wrong = Vec::new();
    for (args, line) in cases {
        let folder = TempDir::new().unwrap();
        std::fs::write(folder.path().join("a.toml"), FILE).unwrap();
        let output = simulate()
            .current_dir(folder.path())
            .args(["a.toml", "--out", "out"])
            .args(*args)
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        let made = folder.path().join("out").exists();
        if output.status.code() != Some(2) || stderr != format!("error: {line}\n") || made {
            wrong.push(format!(
                "{args:?}: exit {:?}, folder made {made}, said\n{stderr}",
                output.status.code()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A bad value in the file's `[sweep]` is placed at its line and column.
#[test]
fn a_bad_value_in_the_sweep_table_names_its_line() {
    let folder = TempDir::new().unwrap();
    let text = format!("{FILE}[sweep]\nclient.max_retries = [1, 2.5]\n");
    std::fs::write(folder.path().join("a.toml"), text).unwrap();
    let output = simulate()
        .current_dir(folder.path())
        .args(["a.toml", "--out", "out"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "error: invalid value 2.5 for key `sweep.client.max_retries` in config file a.toml \
         (line 8, column 26): expected a whole number of retries from 0 to 1000\n"
    );
}

/// The article model swept over a key other than `p` charts its headline metrics against
/// it, from its own estimates.
#[test]
fn an_article_sweep_charts_its_headline_metrics() {
    let folder = TempDir::new().unwrap();
    simulate()
        .current_dir(folder.path())
        .args(["--quiet", "--out", "out", "--p", "0.1", "--requests", "500"])
        .args(["--runs", "2", "--sweep", "max_retries=1,3"])
        .assert()
        .success();
    for metric in ["double_charge_rate", "extra_charges_per_request"] {
        let svg = read(folder.path(), &format!("sweep_{metric}.svg"));
        assert!(
            svg.contains(&format!("{metric} against max_retries")),
            "{metric}"
        );
        assert!(svg.contains("seed 42"), "{metric}");
    }
}
