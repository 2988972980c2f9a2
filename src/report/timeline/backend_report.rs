//! The backend's results in words and tables (issue #12), run 0: crashes and key stores
//! (double charges, keys lost, keys stuck in flight), the provider (calls per payment against
//! the layered retries' closed form, money moved twice) and receipts; for stdout and
//! `report.md`, only when a scenario uses the backend.

use std::fmt::Write;

use super::backend_charts::{compares_key_stores, has_side_effects};
use super::table::run_zero_table;
use crate::model::timeline::backend::layered_provider_calls;
use crate::model::timeline::{Counters, Scenario, Strategy, TimelineResults, TimelineRow};
use crate::report::format::grouped;

/// The column headers of the key store table.
pub const KEY_STORE_HEADERS: [&str; 11] = [
    "scenario",
    "strategy",
    "key store",
    "crashes",
    "before charge",
    "before key",
    "after save",
    "rolled back",
    "keys lost",
    "stuck",
    "mean stuck ms",
];

/// The mean time in flight of the stuck keys (ms), `-` without any.
fn mean_stuck_ms(counts: &Counters) -> String {
    match counts.stuck_payments {
        0 => "-".to_string(),
        stuck => grouped((counts.stuck_in_flight_ms as f64 / stuck as f64).round() as u64),
    }
}

/// Every crash of a tally.
fn crashes(counts: &Counters) -> u64 {
    counts.crashes_before_charge + counts.crashes_after_charge + counts.crashes_after_save
}

/// Crashes and key stores: one row per scenario and strategy of run 0.
pub fn key_store_table(results: &TimelineResults) -> String {
    run_zero_table(results, &KEY_STORE_HEADERS, |scenario, tally| {
        let counts = &tally.counts;
        vec![
            scenario.backend.key.key_store.name().to_string(),
            grouped(crashes(counts)),
            grouped(counts.crashes_before_charge),
            grouped(counts.crashes_after_charge),
            grouped(counts.crashes_after_save),
            grouped(counts.charges_lost_by_crash),
            grouped(counts.keys_lost),
            grouped(counts.stuck_payments),
            mean_stuck_ms(counts),
        ]
    })
}

/// The column headers of the side effects table.
pub const SIDE_EFFECT_HEADERS: [&str; 10] = [
    "scenario",
    "strategy",
    "ledger charges",
    "provider calls",
    "calls/payment",
    "provider charges",
    "moved twice",
    "receipts",
    "sent twice",
    "missing",
];

/// Provider and receipts: one row per scenario and strategy of run 0.
pub fn side_effects_table(results: &TimelineResults) -> String {
    run_zero_table(results, &SIDE_EFFECT_HEADERS, |_, tally| {
        let counts = &tally.counts;
        vec![
            grouped(counts.charges),
            grouped(counts.provider_calls),
            format!("{:.3}", calls_per_payment(counts)),
            grouped(counts.provider_charges),
            grouped(counts.duplicate_provider_charges),
            grouped(counts.receipts_sent),
            grouped(counts.receipts_duplicated),
            grouped(counts.receipts_missing),
        ]
    })
}

/// Provider calls per payment (0 without payments).
fn calls_per_payment(counts: &Counters) -> f64 {
    counts.provider_calls as f64 / counts.payments.max(1) as f64
}

/// The backend tables for stdout, each followed by a blank line; empty without the backend.
pub fn tables(results: &TimelineResults) -> String {
    let mut text = String::new();
    if compares_key_stores(&results.model) {
        text.push('\n');
        text.push_str(&key_store_table(results));
    }
    if has_side_effects(&results.model) {
        text.push('\n');
        text.push_str(&side_effects_table(results));
    }
    text
}

/// The rows of run 0 for one scenario.
fn scenario_rows(results: &TimelineResults, index: usize) -> impl Iterator<Item = &TimelineRow> {
    results.first_run().filter(move |row| row.scenario == index)
}

/// `report.md`'s section on the backend: the tables and one paragraph per scenario.
pub fn section(text: &mut String, results: &TimelineResults) {
    if !results.model.uses_backend() {
        return;
    }
    text.push_str(
        "## Inside the server and behind it (run 0)\n\n\
         Crashes fall before the charge, between the charge and the key (`before key`: \
         rolled back in the charge's transaction, else committed without a key) or after \
         saving; `keys lost` are committed charges whose key the request never stored, \
         `stuck` the payments whose `key_first` key a crash or failed write left in flight \
         (409s until the lock expires or the completer runs).\n\n",
    );
    if compares_key_stores(&results.model) {
        let _ = write!(text, "```text\n{}```\n\n", key_store_table(results));
    }
    if has_side_effects(&results.model) {
        let _ = write!(
            text,
            "`ledger charges` are the API's own, `provider charges` the money that moved; \
             `moved twice` counts provider charges beyond one per payment.\n\n\
             ```text\n{}```\n\n",
            side_effects_table(results)
        );
    }
    for (index, scenario) in results.model.scenarios.iter().enumerate() {
        if scenario.backend.is_used() {
            let _ = writeln!(text, "{}\n", paragraph(results, index, scenario));
        }
    }
}

/// One scenario's results in sentences.
fn paragraph(results: &TimelineResults, index: usize, scenario: &Scenario) -> String {
    let backend = &scenario.backend;
    let mut text = format!(
        "**{}** (key store `{}`, crash rate {}, key write failure {}):",
        scenario.name,
        backend.key.key_store.name(),
        backend.key.crash_rate,
        backend.key.key_write_failure
    );
    for row in scenario_rows(results, index) {
        let counts = &row.tally.counts;
        let _ = write!(
            text,
            " `{}` charged {} customers twice, with {} crashes, {} keys lost and {} payments \
             stuck in flight;",
            row.strategy.name(),
            grouped(counts.double_charged_payments),
            grouped(crashes(counts)),
            grouped(counts.keys_lost),
            grouped(counts.stuck_payments)
        );
    }
    text.pop();
    text.push('.');
    if let Some(provider) = backend.provider {
        text.push_str(&provider_sentences(results, index, scenario, provider));
    }
    if let Some(receipts) = backend.receipts {
        for row in scenario_rows(results, index) {
            let counts = &row.tally.counts;
            let _ = write!(
                text,
                " Receipts `{}` under `{}`: {} sent, {} sent twice, {} charged payments without \
                 one.",
                receipts.mode.name(),
                row.strategy.name(),
                grouped(counts.receipts_sent),
                grouped(counts.receipts_duplicated),
                grouped(counts.receipts_missing)
            );
        }
    }
    text
}

/// The provider's amplification: measured calls per payment, the worst case (the product of
/// the attempts per layer, times the copies) and the closed form with the measured call
/// failure rate.
fn provider_sentences(
    results: &TimelineResults,
    index: usize,
    scenario: &Scenario,
    provider: crate::model::timeline::Provider,
) -> String {
    let client_attempts = u64::from(scenario.client.max_retries) + 1;
    let server_attempts = u64::from(provider.max_retries) + 1;
    let worst = u64::from(scenario.arrivals.copies) * client_attempts * server_attempts;
    let mut text = format!(
        " Provider (key passed downstream: {}): at worst {} × {} = {} calls per copy.",
        if provider.pass_key { "yes" } else { "no" },
        client_attempts,
        server_attempts,
        grouped(worst)
    );
    if let Some(row) = scenario_rows(results, index).find(|row| row.strategy == Strategy::None) {
        let counts = &row.tally.counts;
        let failure = counts.provider_timeouts as f64 / counts.provider_calls.max(1) as f64;
        let closed =
            layered_provider_calls(failure, provider.max_retries, scenario.client.max_retries);
        let _ = write!(
            text,
            " Under `none`, {:.3} calls per payment; a call went unanswered {:.2}% of the time, \
             for which the closed form of two retrying layers (each retrying only a failure) \
             gives {:.3}; the rest comes from the client's own retries: after lost requests, \
             lost responses and crashes, and while the server was still calling the provider \
             (client timeout {} ms).",
            calls_per_payment(counts),
            failure * 100.0,
            closed,
            scenario.client.timeout_ms
        );
    }
    for row in scenario_rows(results, index) {
        let counts = &row.tally.counts;
        let _ = write!(
            text,
            " `{}`: {} ledger charges, {} provider charges, {} moved twice.",
            row.strategy.name(),
            grouped(counts.charges),
            grouped(counts.provider_charges),
            grouped(counts.duplicate_provider_charges)
        );
    }
    text
}
