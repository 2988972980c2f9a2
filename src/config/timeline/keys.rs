//! Every key of a timeline file, declared once: the plain timeline's keys and the shared
//! server's (a file with any of `[server] workers`, `queue_limit`, `drop_expired`,
//! `processing_per_in_flight_ms`, `capacity`, `[network] outages`, `[arrivals] clients`,
//! `duration_s`, `phases`, the `[client]` budgets or an `[output]` table runs on the load
//! model's shared clock). Their kinds bound every value the models accept; their defaults
//! are the models' defaults.

use crate::config::key::{
    Bounds, DURATION_MS as DURATION, Key, Kind, MAX_DURATION_MS, OUT_KEY,
    POSITIVE_MS as POSITIVE_DURATION, SEED_KEY, Schema, THREADS_KEY, TimeUnit, runs_key,
};

/// The longest key TTL (ms): 10^12 ms, about 31.7 years (a TTL is only compared, never
/// waited).
pub const MAX_TTL_MS: f64 = 1e12;
/// The longest arrival window or time of a phase, window or bucket (s): 10^6 s.
pub const MAX_DURATION_S: f64 = MAX_DURATION_MS / 1000.0;
/// The lowest Poisson rate (payments per second): one payment per 10^9 ms on average.
pub const MIN_RATE_PER_S: f64 = 1e-6;
/// The highest arrival rate (payments per second), as a phase's.
pub const MAX_RATE_PER_S: f64 = 1e9;
/// The most workers or clients.
pub const MAX_POPULATION: u64 = 10_000_000;

/// A duration in s more than 0, at most [`MAX_DURATION_S`].
const POSITIVE_SECONDS: Kind = Kind::Duration {
    unit: TimeUnit::Seconds,
    bounds: Bounds::above(0.0, MAX_DURATION_S),
};
/// A probability from 0 to 1.
const PROBABILITY: Kind = Kind::Probability { max_open: false };
/// A count of workers or clients.
const POPULATION: Kind = Kind::Whole {
    min: 1,
    max: MAX_POPULATION,
    unit: "workers or clients",
};
/// A number of tokens more than 0.
const TOKENS: Kind = Kind::Number {
    bounds: Bounds::above(0.0, 1e12),
    unit: "tokens",
};
/// A distribution of durations, in ms.
pub const DISTRIBUTION: Kind = Kind::Special {
    expected: "a distribution of durations in ms: { distribution = \"fixed\", ms = 20 }, \
               \"uniform\" (low_ms, high_ms), \"exponential\" (mean_ms), \"log_normal\" \
               (median_ms, p99_ms), or measured: \"percentiles\" (two or more of p50_ms, \
               p75_ms, p90_ms, p95_ms, p99_ms, p999_ms, p9999_ms), \"empirical\" (file, \
               column, unit) or \"histogram\" (le_ms and cumulative counts, or file, format, \
               metric, unit)",
};
/// The time windows of a list such as `outages`.
const WINDOWS: Kind = Kind::Special {
    expected: "a list of windows [{ from_s = 10, to_s = 40 }], 0 <= from_s < to_s <= 1000000",
};

/// The strategies a file may name (`lock_wait` needs a shared server).
pub const STRATEGIES: &[&str] = &["none", "check_then_insert", "unique_key", "lock_wait"];

/// Every key of a timeline file.
pub const KEYS: &[Key] = &[
    SEED_KEY,
    runs_key(
        "1",
        "Independent replications; run k draws from SeedSequence(seed, spawn_key=(k,)). `--runs` overrides.",
    ),
    Key::file(
        "payments",
        Kind::Whole {
            min: 1,
            max: 1_000_000_000_000,
            unit: "payments",
        },
        Some("10000"),
        "Payments per run and scenario of a plain timeline file (a shared server issues payments over `arrivals.duration_s` instead). `--payments` overrides.",
    ),
    Key::file(
        "strategies",
        Kind::List {
            item: &Kind::Choice(STRATEGIES),
            max_items: 4,
        },
        None,
        "The server strategies compared, in report order: none, check_then_insert, unique_key, and lock_wait with a shared server. Absent: all of them.",
    ),
    OUT_KEY,
    THREADS_KEY,
    Key::scenario(
        "arrivals.process",
        Kind::Choice(&["poisson", "burst", "sequential"]),
        Some("\"poisson\""),
        "When payments start: a Poisson process, all at t = 0 (burst), or each when the previous one reached its final outcome (sequential).",
    ),
    Key::scenario(
        "arrivals.rate_per_s",
        Kind::Number {
            bounds: Bounds::closed(MIN_RATE_PER_S, MAX_RATE_PER_S),
            unit: "payments per s",
        },
        Some("100"),
        "The Poisson rate of payments (the constant rate of a shared server without phases).",
    ),
    Key::scenario(
        "arrivals.copies",
        Kind::Whole {
            min: 1,
            max: 1_000,
            unit: "copies",
        },
        Some("1"),
        "Copies of each payment sent with the same key (double clicks, a client and its proxy), each retrying on its own; the payment succeeds with its first copy's success and fails when every copy gave up. A shared server processes each copy like any request, and the retry control counts each as a request of the payment's client.",
    ),
    Key::scenario(
        "arrivals.copy_mode",
        Kind::Choice(&["concurrent", "sequential"]),
        Some("\"concurrent\""),
        "Concurrent copies each have their own client, sent within the spread; sequential ones are sent each when the previous one reached its final outcome.",
    ),
    Key::scenario(
        "arrivals.copy_spread_ms",
        DURATION,
        Some("0"),
        "Concurrent copies are sent within this time after the first.",
    ),
    Key::scenario(
        "arrivals.copy_spacing",
        Kind::Choice(&["even", "random"]),
        Some("\"even\""),
        "Where concurrent copies fall in their spread: copy c of n at c x spread / (n - 1), or the first at 0 and the others uniformly.",
    ),
    Key::scenario(
        "arrivals.clients",
        POPULATION,
        None,
        "A shared server: the client population; each payment is issued by a client drawn uniformly. Absent: every payment its own client.",
    ),
    Key::scenario(
        "arrivals.duration_s",
        POSITIVE_SECONDS,
        None,
        "A shared server: payments arrive during [0, duration_s); the run goes on until every payment is finished. Absent: the last phase's until_s, else 60.",
    ),
    Key::scenario(
        "arrivals.phases",
        Kind::Special {
            expected: "a list of phases [{ until_s = 30, rate_per_s = 100 }, { until_s = 60, ramp_to_per_s = 500 }], until_s increasing, rates from 0 to 1000000000 per s",
        },
        None,
        "A shared server: the Poisson rate over time; each phase runs from the previous until_s; a ramp goes linearly from its own rate_per_s, else from where the previous phase ended, to ramp_to_per_s.",
    ),
    Key::scenario(
        "network.request_latency",
        DISTRIBUTION,
        Some("{ distribution = \"fixed\", ms = 20 }"),
        "Client-to-server latency of each attempt.",
    ),
    Key::scenario(
        "network.response_latency",
        DISTRIBUTION,
        Some("{ distribution = \"fixed\", ms = 20 }"),
        "Server-to-client latency of each answer.",
    ),
    Key::scenario(
        "network.request_loss",
        PROBABILITY,
        Some("0"),
        "Probability that a request is lost on the way: the server never sees it.",
    ),
    Key::scenario(
        "network.ack_loss",
        PROBABILITY,
        Some("0"),
        "Probability that a response (ACK) is lost on the way back: the client times out and retries.",
    ),
    Key::scenario(
        "network.outages",
        WINDOWS,
        None,
        "A shared server: windows in which every message sent, either way, is lost.",
    ),
    Key::scenario(
        "server.processing",
        DISTRIBUTION,
        Some("{ distribution = \"fixed\", ms = 50 }"),
        "Processing time of a charge.",
    ),
    Key::scenario(
        "server.key_ttl_ms",
        Kind::Duration {
            unit: TimeUnit::Milliseconds,
            bounds: Bounds::above(0.0, MAX_TTL_MS),
        },
        None,
        "The key store prunes a key this long after creating it; a delivery arriving later is processed as new. Absent: keys never expire.",
    ),
    Key::scenario(
        "server.fingerprint",
        Kind::Switch,
        Some("true"),
        "true: a delivery whose body differs from the key's gets 422; false: it is answered as if the body matched.",
    ),
    Key::scenario(
        "server.error_rate",
        PROBABILITY,
        Some("0"),
        "Share of first processings (every processing, with a shared server) that fail with a 500 and charge nothing.",
    ),
    Key::scenario(
        "server.error_policy",
        Kind::Choice(&["store", "retry"]),
        Some("\"store\""),
        "store: the 500 is stored under the key and replayed (as Stripe does); retry: failures are not stored and the retry is processed again.",
    ),
    Key::scenario(
        "server.duplicate_answer",
        Kind::Choice(&["replay", "ok_200", "conflict_409", "error_500"]),
        Some("\"replay\""),
        "The answer to a delivery whose key is present with a matching body: the stored response (409 while in flight), or 200, 409 or 500 at once (webhook receivers).",
    ),
    Key::scenario(
        "server.crash_rate",
        PROBABILITY,
        Some("0"),
        "Share of processings during which the server crashes, at a point drawn uniformly among before the charge, after the charge and after saving the key.",
    ),
    Key::scenario(
        "server.key_store",
        Kind::Choice(&["same_transaction", "separate_store", "key_first"]),
        Some("\"same_transaction\""),
        "Where the key is written: in the charge's transaction, to another store after the commit, or to another store before the charge as a lock.",
    ),
    Key::scenario(
        "server.key_write_failure",
        PROBABILITY,
        Some("0"),
        "Share of writes to a separate key store that fail (separate_store, key_first).",
    ),
    Key::scenario(
        "server.key_lock_ttl_ms",
        POSITIVE_DURATION,
        Some("30000"),
        "key_first: an in-flight key's lock expires this long after it was taken, and the store drops it.",
    ),
    Key::scenario(
        "server.completer_interval_ms",
        POSITIVE_DURATION,
        None,
        "A completer finds keys left in flight this often and completes or releases them. Absent: no completer.",
    ),
    Key::scenario(
        "server.completer_work",
        DISTRIBUTION,
        Some("{ distribution = \"fixed\", ms = 0 }"),
        "The completer's work on each key it finds in flight, before the key is completed or released: it holds a worker (a shared server's, queued behind the requests waiting before it), and a key whose lock expires first is not recovered.",
    ),
    Key::scenario(
        "server.workers",
        POPULATION,
        None,
        "A shared server: the worker pool (M/M/c's c). Absent: unlimited.",
    ),
    Key::scenario(
        "server.queue_limit",
        POPULATION,
        None,
        "A shared server: requests that may wait for a worker; one more is answered 503 at once. Absent: no limit.",
    ),
    Key::scenario(
        "server.drop_expired",
        Kind::Switch,
        Some("false"),
        "A shared server: a worker drops unprocessed a request that waited longer than its client's timeout.",
    ),
    Key::scenario(
        "server.processing_per_in_flight_ms",
        DURATION,
        Some("0"),
        "A shared server: extra processing per request holding a worker, this one included (ms per request).",
    ),
    Key::scenario(
        "server.capacity",
        Kind::Special {
            expected: "a list of windows [{ from_s = 30, to_s = 90, workers = 50 }], 0 <= from_s < to_s <= 1000000, not overlapping, workers from 1 to 10000000",
        },
        None,
        "A shared server: the workers during windows of the run (a capacity drop).",
    ),
    Key::scenario(
        "client.timeout_ms",
        POSITIVE_DURATION,
        Some("1000"),
        "The client stops waiting this long after a send and retries.",
    ),
    Key::scenario(
        "client.max_retries",
        Kind::Whole {
            min: 0,
            max: 1_000,
            unit: "retries",
        },
        Some("3"),
        "Retries per copy after its first send.",
    ),
    Key::scenario(
        "client.backoff",
        Kind::Special {
            expected: "a backoff policy: { policy = \"full_jitter\", base_ms = 100, cap_ms = 5000 }, \"none\", \"constant\" (base_ms), \"exponential\", \"equal_jitter\" or \"decorrelated_jitter\" (base_ms, cap_ms)",
        },
        Some("{ policy = \"full_jitter\", base_ms = 100, cap_ms = 5000 }"),
        "The wait before each retry, as in the AWS Architecture Blog's Exponential Backoff And Jitter.",
    ),
    Key::scenario(
        "client.different_body_rate",
        PROBABILITY,
        Some("0"),
        "Share of retries that carry a different body under the same key (a client bug).",
    ),
    Key::scenario(
        "client.offline.share",
        PROBABILITY,
        Some("0"),
        "Share of payments whose client loses the network right after its first send: it never hears that answer, and on reconnect resends with the same key as its first retry (none without retries).",
    ),
    Key::scenario(
        "client.offline.duration",
        DISTRIBUTION,
        Some("{ distribution = \"log_normal\", median_ms = 3600000, p99_ms = 86400000 }"),
        "How long an offline client stays offline before it resends.",
    ),
    Key::scenario(
        "client.reconciliation.after_ms",
        Kind::Duration {
            unit: TimeUnit::Milliseconds,
            bounds: Bounds::above(0.0, MAX_TTL_MS),
        },
        None,
        "A payment given up (charged or not) is looked up by its key this long after: a key still stored with a success tells the customer it was charged. Absent: no reconciliation.",
    ),
    Key::scenario(
        "client.retry_client",
        Kind::Choice(crate::model::load::RetryClient::NAMES),
        None,
        "A shared server: a retry client as an SDK or proxy ships it, which sets client.max_retries, client.backoff and its retry control (each key written overrides its part; docs/models/load.md cites each source). \"aws_standard\": botocore's standard mode (3 attempts, backoff rand x min(2^(n-1) s, 20 s), quota 500, retry cost 5, timeout cost 10, a success refunds its last retry's cost or 1); \"aws_standard_2_1\": retry behaviour 2.1, the same with every retry (timeouts too) costing 14 and base 50 ms; \"grpc\": gRFC A6 (4 attempts, at most 5 whatever is written, full jitter 100 ms to 1 s, [client.retry_throttling]); \"envoy\": 1 retry, full jitter 25 to 250 ms, [client.concurrent_retry_budget]; \"finagle\": 3 retries, no backoff, [client.windowed_retry_budget]; \"google_sre\": the SRE book's 3 attempts, retry_ratio 0.1, full jitter 100 ms to 5 s, [client.adaptive_throttling].",
    ),
    Key::scenario(
        "client.token_bucket.refund",
        Kind::Choice(&["fixed", "last_retry_cost"]),
        Some("\"fixed\""),
        "What a success gives back: always success_refund, or (botocore) the tokens the payment's last retry took, success_refund if it sent none. A retry_client sets last_retry_cost.",
    ),
    Key::scenario(
        "client.token_bucket.capacity",
        TOKENS,
        Some("500"),
        "A shared server, with a [client.token_bucket] table: the retry quota's capacity (AWS SDK standard mode).",
    ),
    Key::scenario(
        "client.token_bucket.retry_cost",
        Kind::Number {
            bounds: Bounds::closed(0.0, 1e12),
            unit: "tokens",
        },
        Some("5"),
        "Tokens a retry after an error takes (at most the capacity).",
    ),
    Key::scenario(
        "client.token_bucket.timeout_cost",
        Kind::Number {
            bounds: Bounds::closed(0.0, 1e12),
            unit: "tokens",
        },
        Some("10"),
        "Tokens a retry after a timeout takes (at most the capacity).",
    ),
    Key::scenario(
        "client.token_bucket.success_refund",
        Kind::Number {
            bounds: Bounds::closed(0.0, 1e12),
            unit: "tokens",
        },
        Some("1"),
        "Tokens a success gives back (at most the capacity).",
    ),
    Key::scenario(
        "client.adaptive_bucket.deposit",
        TOKENS,
        Some("0.1"),
        "A shared server, with a [client.adaptive_bucket] table: tokens a success deposits (Brooker's adaptive retry).",
    ),
    Key::scenario(
        "client.adaptive_bucket.capacity",
        Kind::Number {
            bounds: Bounds::closed(1.0, 1e12),
            unit: "tokens",
        },
        Some("5"),
        "The adaptive bucket's capacity (at least 1).",
    ),
    Key::scenario(
        "client.retry_throttling.max_tokens",
        Kind::Number {
            bounds: Bounds::above(0.0, 1000.0),
            unit: "tokens",
        },
        Some("10"),
        "A shared server, with a [client.retry_throttling] table or retry_client = \"grpc\": gRFC A6's maxTokens, where each client's token_count starts; a failed attempt takes 1, and retries go out only while token_count > maxTokens / 2.",
    ),
    Key::scenario(
        "client.retry_throttling.token_ratio",
        Kind::Number {
            bounds: Bounds::above(0.0, 1.0),
            unit: "tokens per success",
        },
        Some("0.1"),
        "gRFC A6's tokenRatio: what a success adds to token_count, up to maxTokens (rounded to 0.001, as gRPC keeps thousandths).",
    ),
    Key::scenario(
        "client.concurrent_retry_budget.budget_percent",
        Kind::Number {
            bounds: Bounds::closed(0.0, 100.0),
            unit: "percent",
        },
        Some("20"),
        "A shared server, with a [client.concurrent_retry_budget] table or retry_client = \"envoy\": Envoy's retry_budget.budget_percent, the client's active retries at most this share of its attempts in flight.",
    ),
    Key::scenario(
        "client.concurrent_retry_budget.min_retry_concurrency",
        Kind::Whole {
            min: 0,
            max: 1_000_000,
            unit: "retries",
        },
        Some("3"),
        "Envoy's retry_budget.min_retry_concurrency: the active retries the budget always allows.",
    ),
    Key::scenario(
        "client.windowed_retry_budget.ttl_s",
        Kind::Whole {
            min: 1,
            max: 60,
            unit: "seconds",
        },
        Some("10"),
        "A shared server, with a [client.windowed_retry_budget] table or retry_client = \"finagle\": Finagle's RetryBudget ttl, how long a deposit or a withdrawal counts (10 slices of ttl / 10).",
    ),
    Key::scenario(
        "client.windowed_retry_budget.min_retries_per_s",
        Kind::Whole {
            min: 0,
            max: 1_000_000,
            unit: "retries per s",
        },
        Some("10"),
        "Finagle's minRetriesPerSec: a reserve of this many retries per second of ttl on top of the deposits.",
    ),
    Key::scenario(
        "client.windowed_retry_budget.percent_can_retry",
        Kind::Number {
            bounds: Bounds::above(0.0, 1000.0),
            unit: "retries per payment",
        },
        Some("0.2"),
        "Finagle's percentCanRetry: retries each payment's deposit pays for.",
    ),
    Key::scenario(
        "client.adaptive_throttling.k",
        Kind::Number {
            bounds: Bounds::closed(1.0, 1e6),
            unit: "requests per accept",
        },
        Some("2"),
        "A shared server, with a [client.adaptive_throttling] table or retry_client = \"google_sre\": the SRE book's K; the client rejects an attempt itself with probability max(0, (requests - K x accepts) / (requests + 1)).",
    ),
    Key::scenario(
        "client.adaptive_throttling.window_s",
        Kind::Duration {
            unit: TimeUnit::Seconds,
            bounds: Bounds::above(0.0, 86_400.0),
        },
        Some("120"),
        "The window of the adaptive throttling's requests and accepts (120 slices of window_s / 120).",
    ),
    Key::scenario(
        "client.breaker.threshold",
        PROBABILITY,
        Some("0.1"),
        "A shared server, with a [client.breaker] table: the failure rate above which the breaker refuses retries.",
    ),
    Key::scenario(
        "client.breaker.window_s",
        POSITIVE_SECONDS,
        None,
        "The window the failure rate is measured over. Absent: the whole run.",
    ),
    Key::scenario(
        "client.breaker.cooldown_s",
        POSITIVE_SECONDS,
        None,
        "How long an open breaker stays open. Absent: a ratio gate with no open state.",
    ),
    Key::scenario(
        "client.retry_ratio",
        Kind::Number {
            bounds: Bounds::closed(0.0, 1e6),
            unit: "retries per payment",
        },
        None,
        "A shared server: retries at most this share of the client's payments. Absent: no budget.",
    ),
    Key::scenario(
        "client.payment_deadline_ms",
        POSITIVE_DURATION,
        None,
        "A shared server: a payment is given up this long after it started, whatever retries are left. Absent: none.",
    ),
    Key::scenario(
        "provider.latency",
        DISTRIBUTION,
        Some("{ distribution = \"fixed\", ms = 100 }"),
        "With a [provider] table the server calls a payment provider: its round trip.",
    ),
    Key::scenario(
        "provider.loss",
        PROBABILITY,
        Some("0"),
        "Probability that a provider call gets no answer.",
    ),
    Key::scenario(
        "provider.timeout_ms",
        POSITIVE_DURATION,
        Some("2000"),
        "The server gives up waiting for the provider after this long and retries the call.",
    ),
    Key::scenario(
        "provider.max_retries",
        Kind::Whole {
            min: 0,
            max: 1_000,
            unit: "retries",
        },
        Some("2"),
        "Retries of a provider call per processing.",
    ),
    Key::scenario(
        "provider.pass_key",
        Kind::Switch,
        Some("false"),
        "The server passes the Idempotency-Key on to the provider, which then charges once per key.",
    ),
    Key::scenario(
        "receipts.mode",
        Kind::Choice(&["direct", "outbox"]),
        Some("\"direct\""),
        "With a [receipts] table the server sends a receipt after each charge: at once (direct, lost if the send fails) or through an outbox in the charge's transaction.",
    ),
    Key::scenario(
        "receipts.send_failure",
        Kind::Probability { max_open: true },
        Some("0"),
        "Share of receipt sends that fail.",
    ),
    Key::scenario(
        "receipts.relay_work",
        DISTRIBUTION,
        Some("{ distribution = \"fixed\", ms = 0 }"),
        "The outbox relay's work on each row (its sends, retries included): it holds a shared server's worker, queued behind the requests waiting before it. A plain timeline's server always has one free, and a receipt's delay is not measured there.",
    ),
    Key::scenario(
        "key_store.outages",
        WINDOWS,
        None,
        "A shared server: windows in which the other key store (separate_store, key_first) answers no call; a key in the charge's transaction has no other store.",
    ),
    Key::scenario(
        "key_store.latency",
        DISTRIBUTION,
        Some("{ distribution = \"fixed\", ms = 0 }"),
        "The round trip of each call the server makes to the other key store (separate_store, key_first; none in the charge's transaction): the look-up or reservation before the charge and the write after the commit, each holding the worker (a shared server's key_first reservation is made in front of the queue and holds none).",
    ),
    Key::scenario(
        "key_store.on_unavailable",
        Kind::Choice(&["fail_closed", "fail_open"]),
        Some("\"fail_closed\""),
        "What the server does with a delivery while the key store is down: fail_closed answers 503 at once (lost goodput), fail_open processes it without the key (double charges possible; the key write after the commit fails).",
    ),
    Key::file(
        "output.bucket_s",
        Kind::Duration {
            unit: TimeUnit::Seconds,
            bounds: Bounds::closed(0.001, MAX_DURATION_S),
        },
        Some("1"),
        "A shared server: the width of a time-series bucket (at most 1000000 buckets per run).",
    ),
    Key::file(
        "output.warm_up_s",
        Kind::Duration {
            unit: TimeUnit::Seconds,
            bounds: Bounds::closed(0.0, MAX_DURATION_S),
        },
        Some("0"),
        "A shared server: the start of the arrival window left out of load.csv's steady-state columns (utilisation to mean_in_system), less than every scenario's duration_s.",
    ),
    Key::file(
        "output.recovery_window_s",
        Kind::Duration {
            unit: TimeUnit::Seconds,
            bounds: Bounds::closed(0.001, MAX_DURATION_S),
        },
        Some("5"),
        "A shared server: the sliding window over which recovery after a trigger is judged (rounded up to whole buckets): a run has recovered from the first window after the trigger from which every window until the arrivals end has successes at least 90% of its arrivals times the pre-trigger success ratio.",
    ),
];

/// The timeline model's schema.
pub const SCHEMA: Schema = Schema {
    model: "timeline",
    keys: KEYS,
    listed_when_written: &[
        "client.offline",
        "client.reconciliation",
        "key_store.latency",
        "server.completer_work",
        "receipts.relay_work",
    ],
};

/// The keys whose presence puts a file on the shared server's clock (the load model).
pub const SHARED_SERVER_KEYS: &[&str] = &[
    "server.workers",
    "server.queue_limit",
    "server.drop_expired",
    "server.processing_per_in_flight_ms",
    "server.capacity",
    "network.outages",
    "key_store.outages",
    "arrivals.clients",
    "arrivals.duration_s",
    "arrivals.phases",
    "client.retry_ratio",
    "client.payment_deadline_ms",
    "client.retry_client",
];

/// The tables whose presence puts a file on the shared server's clock.
pub const SHARED_SERVER_TABLES: &[&str] = &[
    "client.token_bucket",
    "client.adaptive_bucket",
    "client.breaker",
    "client.retry_throttling",
    "client.concurrent_retry_budget",
    "client.windowed_retry_budget",
    "client.adaptive_throttling",
    "output",
];

/// The tables of the shipped clients' retry controls, each with the retry client that sets
/// it: their keys are listed (`simulate check`, `parameters.csv`, the page's parameters) only
/// for a scenario that writes the table or names that client, where they are in effect.
pub const CONTROL_TABLES: &[(&str, &str)] = &[
    ("client.retry_throttling", "grpc"),
    ("client.concurrent_retry_budget", "envoy"),
    ("client.windowed_retry_budget", "finagle"),
    ("client.adaptive_throttling", "google_sre"),
];

/// Whether the key `name` is listed among a scenario's settings as `lookup` sees it: every key
/// but those of a [`CONTROL_TABLES`] table not in effect.
pub fn listed(lookup: &crate::config::lookup::Lookup<'_, '_, '_>, name: &str) -> bool {
    let Some((table, client)) = CONTROL_TABLES.iter().find(|(table, _)| {
        name.strip_prefix(table)
            .is_some_and(|rest| rest.starts_with('.'))
    }) else {
        return true;
    };
    lookup.has_table(table)
        || (lookup.written("client.retry_client")
            && lookup.name("client.retry_client").ok() == Some(*client))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::read::default_value;

    #[test]
    fn every_key_is_documented_and_its_default_is_toml() {
        for key in KEYS {
            assert!(
                key.doc.ends_with('.'),
                "`{}` needs a doc sentence",
                key.name
            );
            if key.default.is_some() {
                assert!(default_value(key).is_some(), "`{}`", key.name);
            }
        }
        let mut names: Vec<&str> = KEYS.iter().map(|key| key.name).collect();
        names.sort_unstable();
        let count = names.len();
        names.dedup();
        assert_eq!(names.len(), count, "a key is declared twice");
        for name in SHARED_SERVER_KEYS {
            assert!(SCHEMA.key(name).is_some(), "{name}");
        }
        for table in SHARED_SERVER_TABLES {
            assert!(SCHEMA.is_table(table), "{table}");
        }
    }
}
