//! The load model's steady-state queueing columns of `load.csv` against queueing theory, each
//! expected value from its closed form, none from the code under test:
//!
//! - an M/M/c queue (Poisson arrivals, exponential processing, c workers; no latency, no loss,
//!   no retry, a timeout of 10^9 ms that never fires) against Erlang C: the probability of
//!   waiting `C(c, a)`, the mean wait `Wq = C(c, a) / (cμ − λ)`, the utilisation `ρ = λ/(cμ)`,
//!   the mean time in server `W = Wq + 1/μ` and the mean number in system `L = λW` (Little);
//! - the coverage of the 95% t interval of the mean wait over K replications
//!   (`engine::replications`) across many seeds, with the warm-up deleted;
//! - an M/D/1 queue against Pollaczek-Khinchine, `Wq = ρ D / (2 (1 − ρ))`, and the M/G/1
//!   probability of waiting, `ρ` (PASTA).

use std::collections::HashMap;
use std::path::Path;

use engine::Silent;
use engine::metric::Kind;
use engine::replications::Replications;
use simulate::config::{Job, Overrides};
use simulate::model::load::{self, LoadResults, Steady};
use simulate::report::load::csv::load_csv;

/// A queue with `workers` workers, Poisson arrivals at `rate_per_s` for `duration_s` with
/// the first `warm_up_s` left out of the steady-state columns, `processing` (a distribution
/// in the file's syntax), nothing else in the way; `runs` replications from `seed`.
struct Queue<'a> {
    workers: u32,
    rate_per_s: f64,
    processing: &'a str,
    duration_s: f64,
    warm_up_s: f64,
    runs: u32,
    seed: u64,
}

impl Queue<'_> {
    /// The load file.
    fn text(&self) -> String {
        format!(
            "model = \"timeline\"\nseed = {seed}\nruns = {runs}\nstrategies = [\"none\"]\n\
             [arrivals]\nrate_per_s = {rate}\nduration_s = {duration}\n\
             [network]\nrequest_latency = {{ distribution = \"fixed\", ms = 0 }}\n\
             response_latency = {{ distribution = \"fixed\", ms = 0 }}\n\
             [server]\nworkers = {workers}\nprocessing = {processing}\n\
             [client]\ntimeout_ms = 1e9\nmax_retries = 0\n\
             [output]\nwarm_up_s = \"{warm_up}s\"\n",
            seed = self.seed,
            runs = self.runs,
            rate = self.rate_per_s,
            duration = self.duration_s,
            workers = self.workers,
            processing = self.processing,
            warm_up = self.warm_up_s,
        )
    }

    /// Every run of it, simulated on 2 threads.
    fn simulate(&self) -> LoadResults {
        let text = self.text();
        let Ok(Job::Load(config)) =
            Job::from_text(&text, Path::new("queue.toml"), &Overrides::default())
        else {
            panic!("a load file:\n{text}")
        };
        load::simulate(&config.model, 2, &Silent).unwrap()
    }

    /// Each run's steady-state values.
    fn steady(&self) -> Vec<Steady> {
        let results = self.simulate();
        results.rows.iter().map(|row| row.tally.steady).collect()
    }
}

/// Erlang C: the probability that an arrival waits in an M/M/c queue with offered load `a =
/// λ/μ` (Erlangs), from its closed form `(a^c/c!) (c/(c−a)) / (Σ_{k<c} a^k/k! + (a^c/c!)
/// (c/(c−a)))`.
fn erlang_c(workers: u32, a: f64) -> f64 {
    let c = f64::from(workers);
    let factorial = |n: u32| (1..=n).map(f64::from).product::<f64>();
    let below: f64 = (0..workers).map(|k| a.powi(k as i32) / factorial(k)).sum();
    let top = a.powi(workers as i32) / factorial(workers) * c / (c - a);
    top / (below + top)
}

/// M/M/c's mean wait in the queue, `C(c, a) / (cμ − λ)`, in ms (`mu` and `lambda` per s).
fn erlang_wait_ms(workers: u32, lambda: f64, mu: f64) -> f64 {
    erlang_c(workers, lambda / mu) / (f64::from(workers) * mu - lambda) * 1000.0
}

#[test]
fn the_closed_forms_of_these_tests_are_right() {
    // c = 1: C = ρ; c = 2, a = 1: (1/2 · 2) / (1 + 1 + 1) = 1/3 (by hand).
    assert!((erlang_c(1, 0.3) - 0.3).abs() < 1e-15);
    assert!((erlang_c(2, 1.0) - 1.0 / 3.0).abs() < 1e-15);
    // M/M/1 at λ = 5, μ = 10: Wq = ρ / (μ − λ) = 0.5 / 5 s = 100 ms.
    assert!((erlang_wait_ms(1, 5.0, 10.0) - 100.0).abs() < 1e-9);
}

/// The mean over runs of `values` is within 4 standard errors (the runs' spread) of
/// `expected`.
fn within_four_errors(what: &str, values: &[f64], expected: f64) {
    let mut runs = Replications::default();
    for &value in values {
        runs.push(value);
    }
    let estimate = runs.estimate(Kind::Mean);
    let se = estimate.se.expect("several runs");
    let z = (estimate.mean - expected) / se;
    assert!(
        z.abs() < 4.0,
        "{what}: {:.5} over {} runs, closed form {expected:.5}, standard error {se:.5}, z = \
         {z:.2}",
        estimate.mean,
        values.len()
    );
}

/// A column of every row of a `load.csv`, as numbers.
fn column(csv: &[HashMap<String, String>], name: &str) -> Vec<f64> {
    csv.iter()
        .map(|row| {
            let cell = &row[name];
            cell.parse()
                .unwrap_or_else(|_| panic!("{name} = {cell:?} is not a number"))
        })
        .collect()
}

/// The rows of the `load.csv` the results write.
fn load_csv_rows(results: &LoadResults) -> Vec<HashMap<String, String>> {
    let bytes = load_csv(results);
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|record| {
            headers
                .iter()
                .map(String::from)
                .zip(record.unwrap().iter().map(String::from))
                .collect()
        })
        .collect()
}

/// M/M/4 at ρ = 0.7 (λ = 28/s, μ = 10/s, a = 2.8): `load.csv`'s delayed share, mean wait,
/// utilisation, mean time in server and mean number in system over 10 runs of 1,000 s (20 s of
/// warm-up left out) against Erlang C and Little's law.
#[test]
fn an_mmc_queue_matches_erlang_c_and_littles_law() {
    let (workers, lambda, mu) = (4, 28.0, 10.0);
    let queue = Queue {
        workers,
        rate_per_s: lambda,
        processing: "{ distribution = \"exponential\", mean_ms = 100 }",
        duration_s: 1_000.0,
        warm_up_s: 20.0,
        runs: 10,
        seed: 5,
    };
    let rows = load_csv_rows(&queue.simulate());
    assert_eq!(rows.len(), 10);
    let wait_ms = erlang_wait_ms(workers, lambda, mu);
    let in_server_ms = wait_ms + 1000.0 / mu;
    within_four_errors(
        "P(wait)",
        &column(&rows, "delayed_share"),
        erlang_c(workers, lambda / mu),
    );
    within_four_errors("Wq (ms)", &column(&rows, "wait_mean_ms"), wait_ms);
    within_four_errors(
        "utilisation",
        &column(&rows, "utilisation"),
        lambda / (f64::from(workers) * mu),
    );
    within_four_errors("W (ms)", &column(&rows, "in_server_mean_ms"), in_server_ms);
    within_four_errors(
        "L",
        &column(&rows, "mean_in_system"),
        lambda * in_server_ms / 1000.0,
    );
    // No retry, no timeout: a payment's latency is its one delivery's time in server.
    within_four_errors(
        "latency (ms)",
        &column(&rows, "latency_mean_ms"),
        in_server_ms,
    );
    // The window's payments: λ × 980 s, within 4 Poisson standard deviations per run.
    let expected = lambda * 980.0;
    for payments in column(&rows, "steady_payments") {
        assert!(
            (payments - expected).abs() < 4.0 * expected.sqrt(),
            "{payments}"
        );
    }
}

/// Of `seeds` experiments of `runs` replications each (an M/M/2 at ρ = 0.5: λ = 10/s, μ =
/// 10/s, Wq = (1/3) / 10 s = 33.3 ms; each run 5 s of warm-up, then `steady_s` measured), how
/// many 95% t intervals of the mean wait cover Erlang C's.
fn covered(seeds: u64, runs: u32, steady_s: f64) -> u64 {
    let expected = erlang_wait_ms(2, 10.0, 10.0);
    (0..seeds)
        .filter(|&seed| {
            let queue = Queue {
                workers: 2,
                rate_per_s: 10.0,
                processing: "{ distribution = \"exponential\", mean_ms = 100 }",
                duration_s: 5.0 + steady_s,
                warm_up_s: 5.0,
                runs,
                seed: 1_000 + seed,
            };
            let mut waits = Replications::default();
            for steady in queue.steady() {
                waits.push(steady.wait_mean_ms.expect("deliveries in the window"));
            }
            let interval = waits.estimate(Kind::Mean).interval.expect("several runs");
            (interval.low..=interval.high).contains(&expected)
        })
        .count() as u64
}

/// The number of successes of `trials` Bernoulli(0.95) trials lies within 3 standard
/// deviations of its mean, `0.95 n ± 3 √(0.95 · 0.05 · n)` (a correct interval fails this about
/// 0.3% of the time; for 200 trials, 181 to 199).
fn binomial_bounds(trials: u64) -> (f64, f64) {
    let n = trials as f64;
    let sd = (0.95 * 0.05 * n).sqrt();
    (0.95 * n - 3.0 * sd, 0.95 * n + 3.0 * sd)
}

/// 200 seeds of 10 replications of 100 s (after 5 s of warm-up): the t interval of the mean
/// wait covers Erlang C's about 95% of the time.
#[test]
fn the_t_interval_of_the_mean_wait_covers_erlang_c_about_95_percent_of_the_time() {
    let seeds = 200;
    let hits = covered(seeds, 10, 100.0);
    let (low, high) = binomial_bounds(seeds);
    assert!(
        (low..=high).contains(&(hits as f64)),
        "{hits} of {seeds} intervals covered Erlang C's mean wait, expected {low:.1} to \
         {high:.1}"
    );
}

/// The long version: 1,000 seeds of 10 replications of 400 s.
#[test]
#[ignore = "about a minute in a debug build; the 200-seed version runs by default"]
fn the_t_interval_covers_erlang_c_over_a_thousand_seeds() {
    let seeds = 1_000;
    let hits = covered(seeds, 10, 400.0);
    let (low, high) = binomial_bounds(seeds);
    assert!(
        (low..=high).contains(&(hits as f64)),
        "{hits} of {seeds} intervals covered, expected {low:.1} to {high:.1}"
    );
}

/// M/D/1 with D = 100 ms at ρ = 0.5 and 0.8: Pollaczek-Khinchine's mean wait `ρ D / (2 (1 −
/// ρ))` (50 and 200 ms), the M/G/1 probability of waiting and utilisation `ρ`, and the time
/// in server `Wq + D`.
#[test]
fn an_md1_queue_matches_pollaczek_khinchine() {
    let service_ms = 100.0;
    for (rho, duration_s) in [(0.5, 1_000.0), (0.8, 3_000.0)] {
        let queue = Queue {
            workers: 1,
            rate_per_s: rho * 1000.0 / service_ms,
            processing: "{ distribution = \"fixed\", ms = 100 }",
            duration_s,
            warm_up_s: 50.0,
            runs: 10,
            seed: 9,
        };
        let steady = queue.steady();
        let wait_ms = rho * service_ms / (2.0 * (1.0 - rho));
        let values = |get: fn(&Steady) -> Option<f64>| -> Vec<f64> {
            steady.iter().map(|s| get(s).unwrap()).collect()
        };
        within_four_errors(
            &format!("M/D/1 at {rho}: Wq (ms)"),
            &values(|s| s.wait_mean_ms),
            wait_ms,
        );
        within_four_errors(
            &format!("M/D/1 at {rho}: W (ms)"),
            &values(|s| s.in_server_mean_ms),
            wait_ms + service_ms,
        );
        within_four_errors(
            &format!("M/D/1 at {rho}: P(wait)"),
            &values(|s| s.delayed_share),
            rho,
        );
        within_four_errors(
            &format!("M/D/1 at {rho}: utilisation"),
            &values(|s| s.utilisation),
            rho,
        );
        // Every time in server is at least D: its 50th percentile too.
        for s in &steady {
            assert!(s.in_server_p50_ms.unwrap() >= service_ms, "{s:?}");
        }
    }
}

/// The steady-state columns are written from their one declaration: they end `load.csv`'s
/// header in the declared order, and `--json` has one `steady_state` object per row with the
/// same names and the same values as numbers (the CSV's 3 decimals aside).
#[test]
fn the_csv_and_the_json_write_the_declared_steady_state_columns() {
    let folder = tempfile::TempDir::new().unwrap();
    let config = folder.path().join("small.toml");
    let queue = Queue {
        workers: 2,
        rate_per_s: 15.0,
        processing: "{ distribution = \"exponential\", mean_ms = 100 }",
        duration_s: 20.0,
        warm_up_s: 2.0,
        runs: 2,
        seed: 3,
    };
    std::fs::write(&config, queue.text()).unwrap();
    let out = folder.path().join("out");
    let assert = crate::common::simulate()
        .arg("--config")
        .arg(&config)
        .arg("--out")
        .arg(&out)
        .arg("--json")
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let declared: Vec<&str> = Steady::COLUMNS.iter().map(|column| column.name).collect();
    let header = crate::common::csv_header(&out.join("load.csv"));
    assert!(
        header.ends_with(&format!(",events,{}", declared.join(","))),
        "{header}"
    );
    let rows = crate::common::csv_rows(&out.join("load.csv"));
    // `--json` carries every load.csv row as `results`, the steady-state columns typed.
    let objects = json["results"].as_array().unwrap();
    assert_eq!(objects.len(), rows.len());
    for (object, row) in objects.iter().zip(&rows) {
        for name in &declared {
            let cell: f64 = row[*name].parse().unwrap();
            let value = object[*name].as_f64().unwrap();
            assert!(
                (cell - value).abs() <= 0.0005 + 1e-12,
                "{name}: {cell} vs {value}"
            );
        }
    }
}
