//! The answers of docs/cookbook.md, and the README's tour (one sentence per kind of
//! question), from the committed outputs of the shipped configs.

use super::{no_argument, table};
use crate::data::{Csv, Ctx, Row};
use crate::numbers::{decimal, grouped, percent, short, wilson};
use crate::regions::article::significant;
use crate::regions::{contention, load, timeline};

/// The key TTL of `configs/key-ttl.toml`'s sweep that the tour quotes (ms): the file's own
/// 20 s, shorter than its clients' retry window.
const QUOTED_TTL_MS: f64 = 20_000.0;

/// The summary row of (server, metric) at the only p of an article summary.
fn metric<'a>(summary: &'a Csv, server: &str, metric: &str) -> Result<Row<'a>, String> {
    summary
        .rows()
        .find(|row| row.get("server") == server && row.get("metric") == metric)
        .ok_or_else(|| format!("{}: no {server} {metric}", summary.path))
}

/// A share and its 95% interval as percentages: `5.03% (95% interval 4.93% to 5.12%)`, or
/// `none (95% interval up to 0.0019%)` when none was seen.
fn share_with_interval(row: Row, decimals: usize) -> String {
    if row.num("mean") == 0.0 {
        return format!(
            "none (95% interval up to {})",
            percent(row.num("ci_high"), decimals)
        );
    }
    format!(
        "{} (95% interval {} to {})",
        percent(row.num("mean"), decimals),
        percent(row.num("ci_low"), decimals),
        percent(row.num("ci_high"), decimals)
    )
}

/// The folder of the cookbook's article run.
const KEY_RUN: &str = "output/lost-acks-5-percent";

/// `cookbook-key`: `output/lost-acks-5-percent/summary.csv` and `results.csv`: what the key
/// buys at the run's p and retry limit, with the 95% intervals over its runs.
pub fn key(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let summary = ctx.csv(&format!("{KEY_RUN}/summary.csv"))?;
    let results = ctx.csv(&format!("{KEY_RUN}/results.csv"))?;
    let first = results.rows().next().ok_or("results.csv is empty")?;
    let plain_twice = metric(&summary, "non_idempotent", "double_charge_rate")?;
    let keyed_twice = metric(&summary, "idempotency_key", "double_charge_rate")?;
    let extra = metric(&summary, "non_idempotent", "extra_charges_per_request")?;
    let absorbed = metric(
        &summary,
        "idempotency_key",
        "prevented_duplicates_per_request",
    )?;
    let gave_up = metric(&summary, "non_idempotent", "retries_exhausted_rate")?;
    let runs = plain_twice.int("runs");
    let requests = plain_twice.int("requests_per_run");
    let row = |label: &str, plain: Row, keyed: Option<Row>| {
        let interval = |row: Row| {
            format!(
                "{} ({} to {})",
                significant(row.num("mean")),
                significant(row.num("ci_low")),
                significant(row.num("ci_high"))
            )
        };
        vec![
            label.to_string(),
            interval(plain),
            keyed.map_or_else(|| "same".to_string(), interval),
            significant(plain.num("closed_form")),
        ]
    };
    let rows = vec![
        row(
            "share of customers charged twice",
            plain_twice,
            Some(keyed_twice),
        ),
        row(
            "extra charges per request",
            extra,
            Some(metric(
                &summary,
                "idempotency_key",
                "extra_charges_per_request",
            )?),
        ),
        row(
            "duplicates absorbed by the key store, per request",
            metric(
                &summary,
                "non_idempotent",
                "prevented_duplicates_per_request",
            )?,
            Some(absorbed),
        ),
        row("share whose client gave up (every ACK lost)", gave_up, None),
    ];
    Ok(format!(
        "At p = {} with at most {} retries, {} runs of {} requests: without a key {} of the \
         customers are charged twice; with the key {}, and the key \
         store absorbs {} duplicate deliveries per request. The key does not help the {} whose \
         client used every retry without seeing an ACK: they were charged (once, with the key) \
         and never told.\n\n{}",
        short(plain_twice.num("p")),
        first.get("max_retries"),
        grouped(runs),
        grouped(requests),
        share_with_interval(plain_twice, 2),
        share_with_interval(keyed_twice, 4),
        significant(absorbed.num("mean")),
        share_with_interval(gave_up, 4),
        table(
            &[
                "per request (mean over all runs)",
                "no key (95% interval)",
                "with the key",
                "closed form, no key"
            ],
            &[false, true, true, true],
            &rows,
        )
    ))
}

/// The strategy whose answers the key-store question compares.
const UNIQUE: &str = "unique_key";

/// `cookbook-redis`: `output/redis-vs-transaction/timeline.csv`, run 0: per key store, the
/// customers charged twice under each strategy with a 95% Wilson interval (payments are
/// independent in the timeline model), the keys lost and the payments stuck in flight.
pub fn redis(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let csv = ctx.csv("output/redis-vs-transaction/timeline.csv")?;
    let mut rows = Vec::new();
    for scenario in csv.distinct("scenario") {
        for strategy in csv.distinct("strategy") {
            let row = timeline::row(&csv, &scenario, &strategy)?;
            let (payments, twice) = (row.int("payments"), row.int("double_charged_payments"));
            let (low, high) = wilson(twice, payments);
            let stuck = row.int("stuck_payments");
            rows.push(vec![
                scenario.clone(),
                strategy.clone(),
                grouped(twice),
                format!("{} to {}", percent(low, 2), percent(high, 2)),
                grouped(row.int("keys_lost")),
                if stuck == 0 {
                    "0".to_string()
                } else {
                    format!(
                        "{} ({} s each)",
                        grouped(stuck),
                        decimal(row.num("stuck_in_flight_ms") / stuck as f64 / 1000.0, 1)
                    )
                },
                grouped(row.int("conflicts")),
                grouped(row.int("gave_up_charged")),
            ]);
        }
    }
    let unique = |scenario: &str| timeline::row(&csv, scenario, UNIQUE);
    let same = unique("same-transaction")?;
    let after = unique("redis-after-commit")?;
    let first = unique("redis-lock-first")?;
    let completer = unique("redis-lock-first-completer")?;
    let interval = |row: Row| {
        let (low, high) = wilson(row.int("double_charged_payments"), row.int("payments"));
        format!("95% interval {} to {}", percent(low, 2), percent(high, 2))
    };
    Ok(format!(
        "One run of {} payments per design (run 0), with {} of processings crashing and {} of \
         key writes failing. Under `unique_key`, the key in the charge's transaction: {} \
         customers charged twice ({}); in Redis after the commit: {} ({}), {} keys lost; \
         reserved first in Redis: {} charged twice and {} payments stuck in 409s; with a \
         completer as well: {}. The intervals are Wilson's on one run's count: the timeline \
         model simulates each payment on its own, so the payments are independent trials.\n\n{}",
        grouped(same.int("payments")),
        percent(same.num("crash_rate"), 0),
        percent(same.num("key_write_failure"), 1),
        grouped(same.int("double_charged_payments")),
        interval(same),
        grouped(after.int("double_charged_payments")),
        interval(after),
        grouped(after.int("keys_lost")),
        grouped(first.int("double_charged_payments")),
        grouped(first.int("stuck_payments")),
        grouped(completer.int("double_charged_payments")),
        table(
            &[
                "key store",
                "strategy",
                "charged twice",
                "95% interval of the share",
                "keys lost",
                "stuck in flight (mean time)",
                "409s",
                "charged, told failed",
            ],
            &[false, false, true, true, true, true, true, true],
            &rows,
        )
    ))
}

/// `cookbook-capacity-drop`: `output/capacity-drop/load.csv`: the storm without retry control
/// and without a key, against a unique key and against each retry control, with the runs'
/// range; then the whole table.
pub fn capacity_drop(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let csv = ctx.csv("output/capacity-drop/load.csv")?;
    let runs = |scenario: &str, strategy: &str| load::runs(&csv, scenario, strategy);
    let storm = runs("no_budget", "none");
    let keyed = runs("no_budget", UNIQUE);
    let describe = |label: &str, runs: &[Row]| {
        format!(
            "{label}: {} payments charged twice per run, {} succeed, {} runs recover",
            load::mean_and_range(runs, "double_charges"),
            percent(load::succeeded(runs), 1),
            load::recovered(runs)
        )
    };
    let mut controls = Vec::new();
    for scenario in csv.distinct("scenario").iter().skip(1) {
        let plain = runs(scenario, "none");
        let unique = runs(scenario, UNIQUE);
        controls.push(format!(
            "`{scenario}`: {} charged twice without a key, {} with `unique_key`; {} and {} \
             succeed; calls per payment {} and {}",
            load::mean_and_range(&plain, "double_charges"),
            load::mean_and_range(&unique, "double_charges"),
            percent(load::succeeded(&plain), 1),
            percent(load::succeeded(&unique), 1),
            decimal(load::mean(&plain, "amplification"), 2),
            decimal(load::mean(&unique, "amplification"), 2),
        ));
    }
    Ok(format!(
        "{} runs of about {} payments each; means over the runs, with the runs' range in \
         brackets. {}. {}. With retry control or load shedding:\n\n{}\n\n{}",
        storm.len(),
        grouped(load::mean(&storm, "payments").round() as u64),
        describe("No retry control, no key", &storm),
        describe("No retry control, `unique_key`", &keyed),
        controls
            .iter()
            .map(|line| format!("- {line}."))
            .collect::<Vec<_>>()
            .join("\n"),
        load::table(ctx, Some("capacity-drop"))?,
    ))
}

/// `cookbook-ttl`: `output/key-ttl/timeline.csv` (the TTL sweep against the retry window)
/// and `output/key-ttl-under-load/load.csv` (the same question under a backlog).
pub fn ttl(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let sweep = timeline::sweep(ctx)?;
    let day_ms = 24.0 * 3600.0 * 1000.0;
    let unique = |index: usize| sweep.double_charged[index][2];
    let last_bad = (0..sweep.ttls.len()).rev().find(|&i| unique(i) > 0);
    let first_clean = last_bad.map_or(Some(0), |i| (i + 1 < sweep.ttls.len()).then_some(i + 1));
    let longest = *sweep.ttls.last().ok_or("no TTLs")?;
    let sweep_sentence = match (last_bad, first_clean) {
        (Some(bad), Some(clean)) => format!(
            "in one run of {} payments, `unique_key` still charges {} customers twice with a \
             {} s TTL and none from {} s on (the sweep goes up to {} s; none of {} is a share \
             whose 95% Wilson interval reaches {})",
            grouped(sweep.payments),
            grouped(unique(bad)),
            short(sweep.ttls[bad] / 1000.0),
            short(sweep.ttls[clean] / 1000.0),
            short(longest / 1000.0),
            grouped(sweep.payments),
            percent(wilson(0, sweep.payments).1, 2),
        ),
        _ => "the sweep does not reach a TTL without double charges".to_string(),
    };
    let under_load = ctx.csv("output/key-ttl-under-load/load.csv")?;
    let scenarios: Vec<String> = under_load
        .distinct("scenario")
        .into_iter()
        .filter(|scenario| scenario != "kept")
        .collect();
    let loaded: Vec<String> = scenarios
        .iter()
        .map(|scenario| {
            let runs = load::runs(&under_load, scenario, UNIQUE);
            format!(
                "`{scenario}`: {} charged twice per run, {} runs recover",
                load::mean_and_range(&runs, "double_charges"),
                load::recovered(&runs)
            )
        })
        .collect();
    Ok(format!(
        "The clients' whole retry window is {} s, so a 24 h TTL is {} times longer; {}. Under \
         load (the capacity drop with a backlog, `unique_key`, means over the runs): {}.\n\n{}",
        short(sweep.window_ms / 1000.0),
        grouped((day_ms / sweep.window_ms).floor() as u64),
        sweep_sentence,
        loaded.join("; "),
        timeline::ttl_sweep(ctx, None)?,
    ))
}

/// The client count of the backoff question.
const CLIENTS: &str = "50";

/// `cookbook-backoff`: `output/aws-backoff/summary.csv` at 50 clients: write calls
/// and completion time per policy with 95% intervals over the runs.
pub fn backoff(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let csv = ctx.csv("output/aws-backoff/summary.csv")?;
    let mut rows = Vec::new();
    let mut by_policy = Vec::new();
    for policy in csv.distinct("policy") {
        let writes = contention::summary_row(&csv, CLIENTS, &policy, "writes")?;
        let time = contention::summary_row(&csv, CLIENTS, &policy, "completion_ms")?;
        let interval = |row: Row, decimals: usize| {
            format!(
                "{} ({} to {})",
                decimal(row.num("mean"), decimals),
                decimal(row.num("ci_low"), decimals),
                decimal(row.num("ci_high"), decimals)
            )
        };
        rows.push(vec![policy.clone(), interval(writes, 1), interval(time, 0)]);
        by_policy.push((
            policy,
            writes.num("mean"),
            time.num("mean"),
            writes.int("runs"),
        ));
    }
    let fewest = by_policy
        .iter()
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .ok_or("no policies")?;
    let fastest_jittered = by_policy
        .iter()
        .filter(|p| p.0.ends_with("jitter"))
        .min_by(|a, b| a.2.total_cmp(&b.2))
        .ok_or("no jittered policy")?;
    let slowest = by_policy
        .iter()
        .max_by(|a, b| a.2.total_cmp(&b.2))
        .ok_or("no policies")?;
    let none = by_policy
        .iter()
        .find(|p| p.0 == "none")
        .ok_or("no policy none")?;
    Ok(format!(
        "{CLIENTS} clients, {} runs per policy. The fewest write calls: `{}`, {} (no backoff: \
         {}); the soonest done among the jittered policies: `{}`, {} ms; the slowest: `{}`, {} \
         ms. Means over the runs with 95% Student-t intervals:\n\n{}",
        grouped(none.3),
        fewest.0,
        decimal(fewest.1, 1),
        decimal(none.1, 1),
        fastest_jittered.0,
        decimal(fastest_jittered.2, 0),
        slowest.0,
        decimal(slowest.2, 0),
        table(
            &[
                "policy",
                "write calls (95% interval)",
                "completion ms (95% interval)"
            ],
            &[false, true, true],
            &rows,
        )
    ))
}

/// `tour`: the README's short tour, one command and one sentence per kind of question, from
/// the outputs the cookbook answers with.
pub fn tour(ctx: &Ctx, argument: Option<&str>) -> Result<String, String> {
    no_argument(argument)?;
    let mut items = Vec::new();

    let summary = ctx.csv(&format!("{KEY_RUN}/summary.csv"))?;
    let results = ctx.csv(&format!("{KEY_RUN}/results.csv"))?;
    let twice = metric(&summary, "non_idempotent", "double_charge_rate")?;
    let keyed = metric(&summary, "idempotency_key", "double_charge_rate")?;
    items.push(format!(
        "**Lost ACKs.** `simulate --config configs/lost-acks-5-percent.toml`: at {} ACK loss \
         and {} retries, {} of customers are charged twice without a key; with one, {}.",
        percent(twice.num("p"), 0),
        results
            .rows()
            .next()
            .ok_or("results.csv is empty")?
            .get("max_retries"),
        share_with_interval(twice, 2),
        share_with_interval(keyed, 4),
    ));

    let sweep = timeline::sweep(ctx)?;
    let key_ttl = ctx.csv("output/key-ttl/timeline.csv")?;
    let unique = key_ttl
        .rows()
        .find(|row| {
            row.num("server.key_ttl_ms") == QUOTED_TTL_MS
                && row.get("run") == "0"
                && row.get("strategy") == UNIQUE
        })
        .ok_or("output/key-ttl/timeline.csv: no unique_key run 0 at the quoted TTL")?;
    let clean = (0..sweep.ttls.len())
        .find(|&i| {
            sweep.double_charged[i..]
                .iter()
                .all(|counts| counts[2] == 0)
        })
        .map(|i| short(sweep.ttls[i] / 1000.0));
    items.push(format!(
        "**The clock and the key's lifecycle.** `simulate --config configs/key-ttl.toml`: keys \
         kept {} s while clients retry for up to {} s: {} of {} customers charged twice even \
         with a unique key{}.",
        short(unique.num("key_ttl_ms") / 1000.0),
        short(sweep.window_ms / 1000.0),
        grouped(unique.int("double_charged_payments")),
        grouped(unique.int("payments")),
        clean.map_or(String::new(), |ttl| format!(
            "; in this run, none from a {ttl} s TTL on"
        )),
    ));

    let redis = ctx.csv("output/redis-vs-transaction/timeline.csv")?;
    let same = timeline::row(&redis, "same-transaction", UNIQUE)?;
    let after = timeline::row(&redis, "redis-after-commit", UNIQUE)?;
    items.push(format!(
        "**Crashes and key stores.** `simulate --config configs/redis-vs-transaction.toml`: \
         with {} of processings crashing, a unique key in the charge's transaction charges {} \
         of {} customers twice; written to Redis after the commit, {}.",
        percent(same.num("crash_rate"), 0),
        grouped(same.int("double_charged_payments")),
        grouped(same.int("payments")),
        grouped(after.int("double_charged_payments")),
    ));

    let drop = ctx.csv("output/capacity-drop/load.csv")?;
    let storm = load::runs(&drop, "no_budget", "none");
    let keyed = load::runs(&drop, "no_budget", UNIQUE);
    let recovered = |runs: &[Row]| {
        let count = runs
            .iter()
            .filter(|row| row.get("recovered") == "true")
            .count();
        format!("{count} of {}", runs.len())
    };
    items.push(format!(
        "**Shared capacity.** `simulate --config configs/capacity-drop.toml`: half the workers \
         lost for 10 s at 80% load, no retry control: without a key {} of about {} payments \
         per run are charged twice (mean of {} runs) and {} runs recover; with a unique key \
         {}, and {} recover.",
        decimal(load::mean(&storm, "double_charges"), 0),
        grouped(load::mean(&storm, "payments").round() as u64),
        storm.len(),
        recovered(&storm),
        decimal(load::mean(&keyed, "double_charges"), 0),
        recovered(&keyed),
    ));

    let race = ctx.csv("output/aws-backoff/summary.csv")?;
    let calls = |policy: &str| -> Result<String, String> {
        Ok(decimal(
            contention::summary_row(&race, CLIENTS, policy, "writes")?.num("mean"),
            0,
        ))
    };
    let seconds = |policy: &str| -> Result<String, String> {
        Ok(decimal(
            contention::summary_row(&race, CLIENTS, policy, "completion_ms")?.num("mean") / 1000.0,
            1,
        ))
    };
    items.push(format!(
        "**Contention.** `simulate --config configs/aws-backoff.toml`: {CLIENTS} clients \
         racing for one row make {} write calls with full jitter against {} without backoff \
         (means of {} runs); plain exponential backoff makes {} and takes {} s instead of {} \
         s.",
        calls("full_jitter")?,
        calls("none")?,
        contention::summary_row(&race, CLIENTS, "none", "writes")?.get("runs"),
        calls("exponential")?,
        seconds("exponential")?,
        seconds("full_jitter")?,
    ));
    Ok(items
        .into_iter()
        .map(|item| format!("- {item}"))
        .collect::<Vec<_>>()
        .join("\n"))
}
