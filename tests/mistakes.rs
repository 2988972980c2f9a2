//! The mistakes people make in a config file or on the command line, each with the exact
//! line `simulate` answers: the file, the line and column, the key, the value and the form
//! expected, with a near miss where there is one; exit code 2 and no output folder. And the
//! forms that used to be mistakes and now run: durations with units, a file given without
//! `--config`, a timeout in the wrong unit (a warning, not a refusal).

use tempfile::TempDir;

use crate::common::simulate;

/// Runs `simulate --config FILE` on `text` (named `name`) with `args`, in a folder of its
/// own; returns the exit code, stderr and whether an output folder appeared.
fn run(name: &str, text: &str, args: &[&str]) -> (Option<i32>, String, bool) {
    let folder = TempDir::new().unwrap();
    std::fs::write(folder.path().join(name), text).unwrap();
    let output = simulate()
        .current_dir(folder.path())
        .args(["--config", name, "--out", "out"])
        .args(args)
        .output()
        .unwrap();
    let made = folder.path().join("out").exists();
    (
        output.status.code(),
        String::from_utf8(output.stderr).unwrap(),
        made,
    )
}

/// Every mistake of the table is refused with exactly its line.
#[test]
fn each_mistake_is_one_exact_line() {
    let cases: &[(&str, &str, &str)] = &[
        // A fraction where a count is meant.
        (
            "retries.toml",
            "model = \"timeline\"\n[client]\nmax_retries = 3.5\n",
            "invalid value 3.5 for key `client.max_retries` in config file retries.toml (line 3, \
             column 15): expected a whole number of retries from 0 to 1000",
        ),
        // One bracket where a list of scenarios is meant.
        (
            "single.toml",
            "model = \"timeline\"\n[scenario]\nname = \"slow\"\n",
            "config file single.toml: line 2, column 1: `scenario` must be a list of tables: \
             write each scenario as `[[scenario]]` (two brackets), with its `name` and the keys \
             it changes (in `[scenario]`)",
        ),
        // A timeline table in a file without `model`: the model it belongs to is named.
        (
            "nomodel.toml",
            "[network]\nack_loss = 0.1\n",
            "config file nomodel.toml: line 1, column 2: unknown key `network` for the article \
             model: it is a key of the timeline model (write model = \"timeline\" at the top of \
             the file) (in `[network]`)",
        ),
        // A misspelt name.
        (
            "unique.toml",
            "model = \"timeline\"\nstrategies = [\"unique\"]\n",
            "invalid value \"unique\" for key `strategies[0]` in config file unique.toml (line 2, \
             column 15): expected one of \"none\", \"check_then_insert\", \"unique_key\" or \
             \"lock_wait\" (did you mean \"unique_key\"?)",
        ),
        // A misspelt retry client: every shipped client named.
        (
            "client.toml",
            "model = \"timeline\"\n[client]\nretry_client = \"envoi\"\n",
            "invalid value \"envoi\" for key `client.retry_client` in config file client.toml \
             (line 3, column 16): expected one of \"aws_standard\", \"aws_standard_2_1\", \
             \"grpc\", \"envoy\", \"finagle\" or \"google_sre\" (did you mean \"envoy\"?)",
        ),
        // A misspelt key.
        (
            "typo.toml",
            "model = \"timeline\"\n[client]\ntimeuot_ms = 5\n",
            "config file typo.toml: line 3, column 1: unknown key `client.timeuot_ms` for the \
             timeline model: did you mean `client.timeout_ms`? (in `timeuot_ms = 5`)",
        ),
        // A misspelt model.
        (
            "model.toml",
            "model = \"timelien\"\n",
            "config file model.toml: line 1, column 9: unknown model \"timelien\": expected \
             \"article\", \"timeline\" or \"contention\" (did you mean \"timeline\"?) (in `model = \
             \"timelien\"`)",
        ),
        // Words where a number is meant.
        (
            "words.toml",
            "model = \"timeline\"\n[network]\nack_loss = \"five percent\"\n",
            "invalid value \"five percent\" for key `network.ack_loss` in config file words.toml \
             (line 3, column 12): expected a probability from 0 to 1",
        ),
        // The same strategy twice.
        (
            "twice.toml",
            "model = \"timeline\"\nstrategies = [\"none\", \"none\"]\n",
            "invalid value \"none\" for key `strategies[1]` in config file twice.toml (line 2, \
             column 23): given twice (items 1 and 2): give each at most once",
        ),
        // A distribution without its parameter.
        (
            "fixed.toml",
            "model = \"timeline\"\n[server]\nprocessing = { distribution = \"fixed\" }\n",
            "invalid value { distribution = \"fixed\" } for key `server.processing` in config file \
             fixed.toml (line 3, column 14): a fixed distribution needs `ms`, e.g. { distribution \
             = \"fixed\", ms = 20 }",
        ),
        // A misspelt field of a distribution.
        (
            "msec.toml",
            "model = \"timeline\"\n[server]\nprocessing = { distribution = \"fixed\", msec = 50 }\n",
            "invalid value 50 for key `server.processing.msec` in config file msec.toml (line 3, \
             column 47): `msec` is not a field of a distribution: its fields are distribution, \
             ms, low_ms, high_ms, mean_ms, median_ms, p50_ms, p75_ms, p90_ms, p95_ms, p99_ms, \
             p999_ms, p9999_ms, file, column, unit, le_ms, counts, format, metric (did you mean \
             `ms`?)",
        ),
        // Phases back in time.
        (
            "phases.toml",
            "model = \"timeline\"\n[arrivals]\nphases = [{ until_s = 30, rate_per_s = 10 }, \
             { until_s = 20, rate_per_s = 5 }]\n",
            "invalid value 20 for key `arrivals.phases[1].until_s` in config file phases.toml \
             (line 3, column 58): phases must end at increasing times after 0 s, at most 1000000 \
             s (no overlap, never back in time)",
        ),
        // A backoff cap below its base.
        (
            "cap.toml",
            "model = \"contention\"\nbase_ms = 100\ncap_ms = 10\n",
            "invalid value 10 for key `cap_ms` in config file cap.toml (line 3, column 10): the cap \
             must be at least base_ms = 100",
        ),
        // A number beyond 64 bits.
        (
            "big.toml",
            "model = \"timeline\"\n[server]\nworkers = 99999999999999999999\n",
            "invalid value 99999999999999999999 for key `server.workers` in config file big.toml \
             (line 3, column 11): too large: expected a whole number of workers or clients from \
             1 to 10000000",
        ),
        // A file's key inside a scenario.
        (
            "inside.toml",
            "model = \"timeline\"\n[[scenario]]\nname = \"a\"\nseed = 3\n",
            "config file inside.toml: line 4, column 1: `seed` applies to the whole file, not to \
             one scenario: move it out of the `[[scenario]]` entry (in `seed = 3`)",
        ),
        // A scenario without its name.
        (
            "noname.toml",
            "model = \"timeline\"\n[[scenario]]\nclient = { max_retries = 1 }\n",
            "config file noname.toml: line 2, column 1: scenario[0] needs a name: name = \"...\" \
             (in `[[scenario]]`)",
        ),
        // A strategy that needs a shared server.
        (
            "lock.toml",
            "model = \"timeline\"\nstrategies = [\"lock_wait\"]\n",
            "invalid value [\"lock_wait\"] for key `strategies` in config file lock.toml (line 2, \
             column 14): lock_wait needs a shared server: add [server] workers = N (the load \
             model, see docs/models/load.md)",
        ),
        // A unit that is not one.
        (
            "parsecs.toml",
            "model = \"timeline\"\n[client]\ntimeout_ms = \"2 parsecs\"\n",
            "invalid value \"2 parsecs\" for key `client.timeout_ms` in config file parsecs.toml \
             (line 3, column 14): not a duration: expected a duration more than 0 and at most \
             1000000000 ms, as a number of ms or a string such as \"250ms\", \"2s\"",
        ),
    ];
    let mut wrong = Vec::new();
    for (name, text, line) in cases {
        let (code, stderr, made) = run(name, text, &[]);
        if code != Some(2) || stderr != format!("error: {line}\n") || made {
            wrong.push(format!(
                "{name}: exit {code:?}, folder made {made}, said\n{stderr}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Every `--set` mistake is refused with exactly its line, naming the flag as typed.
#[test]
fn each_set_mistake_is_one_exact_line() {
    let file = "model = \"timeline\"\npayments = 20\n";
    let cases: &[(&[&str], &str)] = &[
        (
            &["--set", "client.timeuot_ms=2s"],
            "--set client.timeuot_ms=2s: unknown key `client.timeuot_ms` for the timeline \
             model: did you mean `client.timeout_ms`?",
        ),
        (
            &["--set", "client.max_retries=3.5"],
            "invalid value 3.5 for key `client.max_retries` in --set client.max_retries=3.5: \
             expected a whole number of retries from 0 to 1000",
        ),
        (
            &[
                "--set",
                "network.request_latency={ distribution = \"fixed\", ms = -1 }",
            ],
            "invalid value -1 for key `network.request_latency.ms` in --set \
             network.request_latency={ distribution = \"fixed\", ms = -1 }: expected a duration \
             from 0 to 1000000000 ms, as a number of ms or a string such as \"250ms\", \"2s\"",
        ),
        (
            &["--set", "requests=5"],
            "--set requests=5: unknown key `requests` for the timeline model: it is a key of the \
             article model (write model = \"article\" at the top of the file)",
        ),
        (
            &["--set", "seed=3", "--seed", "4"],
            "--set seed=3: `seed` is also set by --seed: give one of the two",
        ),
        (
            &["--set", "model=article"],
            "--set model=article: the model is the config file's `model`; write another file \
             to run another model",
        ),
    ];
    let mut wrong = Vec::new();
    for (args, line) in cases {
        let (code, stderr, made) = run("set.toml", file, args);
        if code != Some(2) || stderr != format!("error: {line}\n") || made {
            wrong.push(format!(
                "{args:?}: exit {code:?}, folder made {made}, said\n{stderr}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Without `=`, clap refuses the flag's value before any file is read.
    let (code, stderr, made) = run("set.toml", file, &["--set", "client.timeout_ms"]);
    assert_eq!((code, made), (Some(2), false), "{stderr}");
    assert!(stderr.contains("expected KEY=VALUE"), "{stderr}");
}

/// `--set KEY=VALUE` runs as the file with that key written in it would, for every scenario:
/// it replaces what a `[[scenario]]` entry writes.
#[test]
fn a_key_set_on_the_command_line_is_the_key_written_in_the_file() {
    let csv = |text: &str, args: &[&str]| {
        let folder = TempDir::new().unwrap();
        std::fs::write(folder.path().join("a.toml"), text).unwrap();
        simulate()
            .current_dir(folder.path())
            .args(["--config", "a.toml", "--quiet", "--out", "out"])
            .args(args)
            .assert()
            .success();
        std::fs::read(folder.path().join("out/timeline.csv")).unwrap()
    };
    // Latencies that a 150 ms timeout cuts short, but a 2 s one rarely does.
    let scenarios = "model = \"timeline\"\npayments = 300\n[network]\n\
                     request_latency = { distribution = \"exponential\", mean_ms = 100 }\n\
                     [[scenario]]\nname = \"a\"\n\
                     client = { timeout_ms = 150 }\n[[scenario]]\nname = \"b\"\n";
    let written = "model = \"timeline\"\npayments = 300\n[network]\n\
                   request_latency = { distribution = \"exponential\", mean_ms = 100 }\n\
                   [client]\ntimeout_ms = 2000\n\
                   [server]\nerror_rate = 0.1\nerror_policy = \"retry\"\n\
                   [[scenario]]\nname = \"a\"\n[[scenario]]\nname = \"b\"\n";
    let set = csv(
        scenarios,
        &[
            "--set",
            "client.timeout_ms=2s",
            "--set",
            "server.error_rate=0.1",
            "--set",
            "server.error_policy=retry",
        ],
    );
    assert_eq!(set, csv(written, &[]));
    assert_ne!(set, csv(scenarios, &[]));
}

/// An output folder that is a file is a usage error (exit code 2), not a failure to write.
#[test]
fn an_output_folder_that_is_a_file_is_refused_at_once() {
    let folder = TempDir::new().unwrap();
    std::fs::write(folder.path().join("out"), "a file").unwrap();
    let output = simulate()
        .current_dir(folder.path())
        .args(["--requests", "10", "--out", "out"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "error: invalid value \"out\" for --out: the output folder is a file: give a folder \
         (created if missing), or remove the file\n"
    );
}

/// Durations with units are the numbers they say: the same bytes either way.
#[test]
fn durations_with_units_give_the_same_bytes() {
    let numbers = "model = \"timeline\"\npayments = 300\n[client]\ntimeout_ms = 2000\n\
                   backoff = { policy = \"constant\", base_ms = 150 }\n";
    let units = "model = \"timeline\"\npayments = 300\n[client]\ntimeout_ms = \"2s\"\n\
                 backoff = { policy = \"constant\", base_ms = \"150ms\" }\n";
    let csv = |text: &str| {
        let folder = TempDir::new().unwrap();
        std::fs::write(folder.path().join("a.toml"), text).unwrap();
        simulate()
            .current_dir(folder.path())
            .args(["--config", "a.toml", "--quiet", "--out", "out"])
            .assert()
            .success();
        std::fs::read(folder.path().join("out/timeline.csv")).unwrap()
    };
    assert_eq!(csv(numbers), csv(units));
}

/// A config file given without `--config` runs as with it.
#[test]
fn a_file_alone_is_run() {
    let folder = TempDir::new().unwrap();
    std::fs::write(
        folder.path().join("a.toml"),
        "model = \"timeline\"\npayments = 50\n",
    )
    .unwrap();
    simulate()
        .current_dir(folder.path())
        .args(["a.toml", "--quiet"])
        .assert()
        .success();
    assert!(folder.path().join("output/a/timeline.csv").is_file());
}

/// A timeout in seconds where milliseconds are meant runs, with a warning that says so and
/// how to write it.
#[test]
fn a_timeout_below_the_round_trip_is_warned_about() {
    let (code, stderr, made) = run(
        "quick.toml",
        "model = \"timeline\"\npayments = 20\n[client]\ntimeout_ms = 2\n",
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(made);
    assert_eq!(
        stderr,
        "warning: scenario quick: client.timeout_ms = 2 ms is not above the median round trip \
         of 90 ms, so most attempts time out and are sent again; raise it (a duration may carry \
         its unit, e.g. timeout_ms = \"2s\")\n\
         warning: no payment succeeded in any scenario, strategy or run: what fails is not \
         the key; look at the timeouts and losses first\n"
    );
}

/// A sweep point at which nothing succeeds is named after the run, once for all such points;
/// a sweep whose every point has successes says nothing.
#[test]
fn a_sweep_point_without_success_is_warned_about() {
    // Every request is lost: no TTL can help, at every point.
    let lost = "model = \"timeline\"\npayments = 20\n[network]\nrequest_loss = 1.0\n\
                [sweep]\n\"server.key_ttl_ms\" = [1000, \"5s\"]\n";
    let (code, stderr, made) = run("lost.toml", lost, &[]);
    assert_eq!((code, made), (Some(0), true), "{stderr}");
    assert_eq!(
        stderr,
        "warning: at server.key_ttl_ms = 1000: scenario lost: server.key_ttl_ms = 1000 ms is \
         shorter than the clients' retry window of 4700 ms, so a retry that comes after its key \
         expired is charged again; make the TTL at least the window\n\
         warning: no payment succeeded in any scenario, strategy or run: what fails is not \
         the key; look at the timeouts and losses first\n"
    );
    // At a failure rate of 1 every attempt fails, whatever the retries: that point is named.
    let failing = "model = \"timeline\"\nruns = 2\n[arrivals]\nclients = 5\nrate_per_s = 50.0\n\
                   duration_s = 1.0\n[server]\nerror_policy = \"retry\"\n";
    let (code, stderr, _) = run(
        "failing.toml",
        failing,
        &["--sweep", "server.error_rate=0,0.5,1"],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        stderr,
        "warning: at server.error_rate = 1: no payment succeeded in any scenario, strategy or \
         run: every attempt fails; look at the error rate, the losses and the timeouts\n"
    );
    let (code, stderr, _) = run(
        "fine.toml",
        failing,
        &["--sweep", "server.error_rate=0,0.5,0.9"],
    );
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    let (code, stderr, _) = run("quiet.toml", lost, &["--quiet"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
}

/// `simulate check` reads a file as a run would, shows each setting and where it came from,
/// and runs nothing; a bad file is the run's error.
#[test]
fn check_shows_the_settings_and_runs_nothing() {
    let folder = TempDir::new().unwrap();
    std::fs::write(
        folder.path().join("a.toml"),
        "model = \"timeline\"\n[client]\ntimeout_ms = \"2s\"\n",
    )
    .unwrap();
    let output = simulate()
        .current_dir(folder.path())
        .args(["check", "a.toml", "--runs", "3"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.starts_with("a.toml: a timeline file; it would run"),
        "{stdout}"
    );
    for line in [
        "client.timeout_ms                   \"2s\" (2000 ms)  (line 3)",
        "runs                                3  (--runs)",
        "arrivals.rate_per_s                 100 payments per s  (default)",
    ] {
        assert!(stdout.contains(line), "{line:?} not in\n{stdout}");
    }
    assert!(!folder.path().join("output").exists());
    std::fs::write(
        folder.path().join("b.toml"),
        "model = \"timeline\"\nruns = 0\n",
    )
    .unwrap();
    let output = simulate()
        .current_dir(folder.path())
        .args(["check", "b.toml"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .contains("key `runs`")
    );
}
