//! Issue #12 through the binary and the committed outputs: the README's numbers for the three
//! backend scenarios (crashes and key stores, receipts, a provider) are read from
//! `output/<scenario>/timeline.csv`, and a file without backend settings writes neither the
//! backend columns nor the backend charts.

mod common;

use std::path::Path;

use common::{TIMELINE_FILES, assert_readme_says, flat_readme, run, scenario_file};
use simulate::model::timeline::backend::layered_provider_calls;

/// The committed `timeline.csv` of a scenario, run 0: `(scenario, strategy) -> column -> value`.
struct Committed {
    headers: csv::StringRecord,
    records: Vec<csv::StringRecord>,
}

impl Committed {
    fn read(scenario: &str) -> Self {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("output")
            .join(scenario)
            .join("timeline.csv");
        let mut reader = csv::Reader::from_path(&path).unwrap();
        let headers = reader.headers().unwrap().clone();
        let records = reader.records().map(Result::unwrap).collect();
        Self { headers, records }
    }

    fn count(&self, scenario: &str, strategy: &str, column: &str) -> u64 {
        let at = |name: &str| self.headers.iter().position(|h| h == name).unwrap();
        let record = self
            .records
            .iter()
            .find(|r| {
                &r[at("run")] == "0"
                    && &r[at("scenario")] == scenario
                    && &r[at("strategy")] == strategy
            })
            .unwrap_or_else(|| panic!("{scenario} / {strategy}"));
        record[at(column)].parse().unwrap()
    }
}

/// A count with thousands grouped, as the README writes it.
fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut text = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

#[test]
fn the_readme_numbers_for_crashes_and_key_stores_match_the_committed_outputs() {
    let readme = flat_readme();
    let csv = Committed::read("redis-vs-transaction");
    let unique = |scenario: &str, column: &str| csv.count(scenario, "unique_key", column);
    let twice = |scenario: &str| grouped(unique(scenario, "double_charged_payments"));
    let mean_s = |scenario: &str| {
        unique(scenario, "stuck_in_flight_ms") as f64
            / unique(scenario, "stuck_payments") as f64
            / 1000.0
    };
    assert_readme_says(
        &readme,
        &format!(
            "`unique_key` charges {} customers twice in the transaction, {} in Redis after the commit ({} keys lost), and {} with the key reserved first, where {} payments are stuck in flight for {:.1} s on average ({} 409s, {} customers charged and told it failed); with the completer {} customers are charged twice and the keys are stuck for {:.1} s.",
            twice("same-transaction"),
            twice("redis-after-commit"),
            grouped(unique("redis-after-commit", "keys_lost")),
            twice("redis-lock-first"),
            grouped(unique("redis-lock-first", "stuck_payments")),
            mean_s("redis-lock-first"),
            grouped(unique("redis-lock-first", "conflicts")),
            grouped(unique("redis-lock-first", "gave_up_charged")),
            twice("redis-lock-first-completer"),
            mean_s("redis-lock-first-completer"),
        ),
    );
}

#[test]
fn the_readme_numbers_for_receipts_match_the_committed_outputs() {
    let readme = flat_readme();
    let csv = Committed::read("receipts-outbox");
    let outbox = |column: &str| {
        ["none", "check_then_insert", "unique_key"]
            .iter()
            .map(|strategy| csv.count("outbox", strategy, column))
            .max()
            .unwrap()
    };
    assert_readme_says(
        &readme,
        &format!(
            "Sent directly, {} customers charged under `unique_key` get no receipt, and under `none` {} receipts go out twice; through the outbox, {} missing and {} twice under every strategy.",
            grouped(csv.count("direct", "unique_key", "receipts_missing")),
            grouped(csv.count("direct", "none", "receipts_duplicated")),
            grouped(outbox("receipts_missing")),
            grouped(outbox("receipts_duplicated")),
        ),
    );
}

#[test]
fn the_readme_numbers_for_the_provider_match_the_committed_outputs() {
    let readme = flat_readme();
    let csv = Committed::read("provider-without-key");
    let entry = |strategy: &str, column: &str| csv.count("entry key only", strategy, column);
    let downstream = ["none", "check_then_insert", "unique_key"]
        .iter()
        .map(|strategy| {
            csv.count(
                "key passed downstream",
                strategy,
                "duplicate_provider_charges",
            )
        })
        .max()
        .unwrap();
    assert_eq!(entry("unique_key", "double_charged_payments"), 0);
    let calls = entry("none", "provider_calls");
    let failure = entry("none", "provider_timeouts") as f64 / calls as f64;
    // 2 server retries, 3 client retries (configs/provider-without-key.toml).
    let closed = layered_provider_calls(failure, 2, 3);
    assert_readme_says(
        &readme,
        &format!(
            "`unique_key` charges nobody twice in its ledger yet the provider moves the money twice {} times (`none`: {}); passing the key downstream, {}. The provider sees {:.3} calls per payment under `none`, against {:.3} from the closed form",
            grouped(entry("unique_key", "duplicate_provider_charges")),
            grouped(entry("none", "duplicate_provider_charges")),
            grouped(downstream),
            calls as f64 / csv.count("entry key only", "none", "payments") as f64,
            closed,
        ),
    );
    assert_readme_says(&readme, "(at worst 12 calls per copy)");
    assert_eq!(layered_provider_calls(1.0, 2, 3), 12.0);
}

/// A file without backend settings writes the plain model's columns and charts, and the same
/// file with a crash rate adds the backend's.
#[test]
fn the_backend_columns_and_charts_appear_only_when_used() {
    let (_, plain) = run(
        &scenario_file("mobile-network.toml"),
        &["--payments", "500", "--quiet"],
    );
    let mut written: Vec<String> = std::fs::read_dir(plain.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".svg") || name.ends_with(".csv"))
        .collect();
    written.sort();
    assert_eq!(written, TIMELINE_FILES);
    let header = std::fs::read_to_string(plain.path().join("timeline.csv")).unwrap();
    assert!(
        !header.lines().next().unwrap().contains("crashes"),
        "{header}"
    );
    let text = std::fs::read_to_string(scenario_file("mobile-network.toml")).unwrap();
    let folder = tempfile::TempDir::new().unwrap();
    let crashing = folder.path().join("crashing.toml");
    std::fs::write(
        &crashing,
        text.replace("[server]", "[server]\ncrash_rate = 0.05"),
    )
    .unwrap();
    let (_, out) = run(&crashing, &["--payments", "500", "--quiet"]);
    let header = std::fs::read_to_string(out.path().join("timeline.csv")).unwrap();
    let header = header.lines().next().unwrap();
    assert!(
        header.contains("key_ttl_ms,key_store,crash_rate,"),
        "{header}"
    );
    assert!(header.ends_with("receipt_send_failures,latency_p50_ms,latency_p95_ms,latency_p99_ms,deliveries_per_payment,simulated_span_ms"), "{header}");
    assert!(out.path().join("timeline_key_stores.svg").exists());
    assert!(!out.path().join("timeline_side_effects.svg").exists());
}
