//! Issue #12 through the binary: a file without backend settings (crashes, key stores, a
//! provider, receipts) writes neither the backend columns nor the backend charts, and the same
//! file with a crash rate writes both. The backend's behaviour itself is tested in
//! `src/model/timeline/backend_tests.rs`.

use crate::common::{TIMELINE_FILES, run, scenario_file};

/// A file without backend settings writes the plain model's columns and charts, and the same
/// file with a crash rate adds the backend's.
#[test]
fn the_backend_columns_are_always_written_and_its_charts_only_when_used() {
    let (_, plain) = run(
        &scenario_file("mobile-network.toml"),
        &["--payments", "500", "--quiet"],
    );
    let mut written: Vec<String> = std::fs::read_dir(plain.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".svg") || name.ends_with(".csv"))
        // The traces of its double charges are tests/traces.rs's.
        .filter(|name| !name.starts_with("trace_"))
        .collect();
    written.sort();
    assert_eq!(written, TIMELINE_FILES);
    // Without a backend its columns hold the defaults: no crash, no key write failure.
    let plain_rows = crate::common::csv_rows(&plain.path().join("timeline.csv"));
    for row in &plain_rows {
        assert_eq!(row["key_store"], "same_transaction");
        assert_eq!(row["crash_rate"].parse::<f64>().unwrap(), 0.0);
        assert_eq!(row["crashes_before_charge"], "0");
        assert_eq!(row["charges_lost_by_crash"], "0");
    }
    let plain_header = crate::common::csv_header(&plain.path().join("timeline.csv"));
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
        header.contains("key_ttl_ms,retry_window_ms,key_store,crash_rate,"),
        "{header}"
    );
    assert!(header.ends_with("receipt_send_failures,latency_p50_ms,latency_p95_ms,latency_p99_ms,deliveries_per_payment,simulated_span_ms"), "{header}");
    // One set of columns for every timeline file.
    assert_eq!(header, plain_header);
    assert!(out.path().join("timeline_key_stores.svg").exists());
    assert!(!out.path().join("timeline_side_effects.svg").exists());
}
