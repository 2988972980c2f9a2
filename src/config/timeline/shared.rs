//! A timeline file with a shared server (any shared-server key or table, see
//! [`super::keys::SHARED_SERVER_KEYS`]): each scenario's keys read into the load model's
//! [`LoadScenario`]. The plain timeline's keys are read and checked as for any timeline file
//! first; what the shared clock does not model yet is refused, in one line, with the reason.

use super::keys::{MAX_DURATION_S, MAX_POPULATION, MAX_RATE_PER_S};
use super::plain;
use crate::config::ConfigError;
use crate::config::key::{Bounds, Key, Kind, TimeUnit};
use crate::config::lookup::Lookup;
use crate::config::read::{Found, Scalar, scalar};
use crate::model::load::{
    AdaptiveBucket, AdaptiveThrottling, Breaker, CapacityWindow, ConcurrentRetryBudget,
    LoadArrivals, LoadClient, LoadNetwork, LoadScenario, LoadServer, Phase, PhaseRate, Refund,
    RetryClient, RetryControls, RetryThrottling, TokenBucket, Window, WindowedRetryBudget,
};
use crate::model::semantics::{KeyStoreOutages, OnUnavailable};
use crate::model::timeline::{ArrivalProcess, Scenario};

/// Arrival window without phases (s).
pub const DEFAULT_DURATION_S: f64 = 60.0;

/// The scenario named `name` that `lookup` sees, on a shared server.
pub fn scenario(lookup: &Lookup<'_, '_, '_>, name: String) -> Result<LoadScenario, ConfigError> {
    let base = plain::scenario(lookup, name)?;
    unsupported(lookup, &base)?;
    Ok(LoadScenario {
        arrivals: arrivals(lookup, &base)?,
        network: LoadNetwork {
            request_latency: base.network.request_latency,
            response_latency: base.network.response_latency,
            request_loss: base.network.request_loss,
            ack_loss: base.network.ack_loss,
            outages: windows(lookup, "network.outages", false)?
                .into_iter()
                .map(|(window, _)| window)
                .collect(),
        },
        server: server(lookup, &base)?,
        client: client(lookup, &base)?,
        name: base.name,
    })
}

/// Refuses what the shared clock does not model: offline clients and reconciliation, and
/// burst or sequential arrivals.
fn unsupported(lookup: &Lookup<'_, '_, '_>, base: &Scenario) -> Result<(), ConfigError> {
    let refusals: [(&str, bool, &str); 3] = [
        (
            "client.offline.share",
            base.client_lifecycle.offline().is_some(),
            "a shared server's clients stay online (offline clients are the plain timeline's); leave [client.offline] out",
        ),
        (
            "client.reconciliation.after_ms",
            base.client_lifecycle.reconciliation.is_some(),
            "a shared server does not look payments up after they were given up (the plain timeline does); leave [client.reconciliation] out",
        ),
        (
            "arrivals.process",
            !matches!(base.arrivals.process, ArrivalProcess::Poisson { .. }),
            "a shared server's arrivals are Poisson over phases; leave process out",
        ),
    ];
    if let Some((key, _, reason)) = refusals.iter().find(|(_, refused, _)| *refused) {
        return Err(lookup.refuse(key, reason));
    }
    Ok(())
}

/// A field of a table value read as `kind`.
fn field(found: &Found<'_, '_>, kind: Kind) -> Result<f64, ConfigError> {
    match scalar(&Key::file("", kind, None, ""), found)? {
        Scalar::Number(value) => Ok(value),
        Scalar::Whole(value) => Ok(value as f64),
        other => unreachable!("a number field, not {other:?}"),
    }
}

/// Seconds from 0 to [`MAX_DURATION_S`] (a number, or a string with a unit).
const SECONDS: Kind = Kind::Duration {
    unit: TimeUnit::Seconds,
    bounds: Bounds::closed(0.0, MAX_DURATION_S),
};
/// A rate of payments per second.
const RATE: Kind = Kind::Number {
    bounds: Bounds::closed(0.0, MAX_RATE_PER_S),
    unit: "payments per s",
};
/// Workers during a capacity window.
const WORKERS: Kind = Kind::Whole {
    min: 1,
    max: MAX_POPULATION,
    unit: "workers",
};

/// `network.outages` or `server.capacity` (`workers`: each window has its workers): windows
/// `{ from_s, to_s }`, `0 <= from_s < to_s`, and capacity windows not overlapping.
fn windows(
    lookup: &Lookup<'_, '_, '_>,
    name: &str,
    workers: bool,
) -> Result<Vec<(Window, u32)>, ConfigError> {
    if !lookup.written(name) {
        return Ok(Vec::new());
    }
    let fields: &[&str] = if workers {
        &["from_s", "to_s", "workers"]
    } else {
        &["from_s", "to_s"]
    };
    lookup.with(name, |found| {
        let mut windows = Vec::new();
        for item in found.list()? {
            let table = item.table("a window", fields)?;
            let get = |field_name: &str| table.iter().find(|(n, _)| *n == field_name);
            let read = |field_name: &str, kind: Kind| match get(field_name) {
                Some((_, value)) => field(value, kind),
                None => Err(item.invalid(format!(
                    "every window needs {}, e.g. {{ {} }}",
                    fields.join(" and "),
                    if workers {
                        "from_s = 30, to_s = 90, workers = 50"
                    } else {
                        "from_s = 10, to_s = 40"
                    }
                ))),
            };
            let from_s = read("from_s", SECONDS)?;
            let to_s = read("to_s", SECONDS)?;
            if from_s >= to_s {
                return Err(item.invalid("a window needs 0 <= from_s < to_s <= 1000000 (seconds)"));
            }
            let count = if workers {
                read("workers", WORKERS)? as u32
            } else {
                0
            };
            windows.push((
                Window {
                    from_ms: from_s * 1000.0,
                    to_ms: to_s * 1000.0,
                },
                count,
            ));
        }
        if workers {
            let mut sorted = windows.clone();
            sorted.sort_by(|a, b| a.0.from_ms.total_cmp(&b.0.from_ms));
            if sorted
                .windows(2)
                .any(|pair| pair[1].0.from_ms < pair[0].0.to_ms)
            {
                return Err(found.invalid("capacity windows must not overlap"));
            }
            windows = sorted;
        }
        Ok(windows)
    })
}

/// `[arrivals]` on a shared server: the rate over phases, the window, the clients.
fn arrivals(lookup: &Lookup<'_, '_, '_>, base: &Scenario) -> Result<LoadArrivals, ConfigError> {
    let ArrivalProcess::Poisson { rate_per_s } = base.arrivals.process else {
        unreachable!("refused above")
    };
    let clients = lookup
        .optional_whole("arrivals.clients")?
        .map(|clients| clients as u32);
    let phases = if lookup.written("arrivals.phases") {
        lookup.with("arrivals.phases", |found| phases(found, rate_per_s))?
    } else {
        Vec::new()
    };
    let duration_s = match lookup.optional_number("arrivals.duration_s")? {
        Some(duration_s) => duration_s,
        None => phases
            .last()
            .map_or(DEFAULT_DURATION_S, |phase| phase.until_ms / 1000.0),
    };
    let phases = if phases.is_empty() {
        vec![Phase {
            until_ms: duration_s * 1000.0,
            rate: PhaseRate::Constant(rate_per_s),
        }]
    } else {
        phases
    };
    Ok(LoadArrivals {
        clients,
        duration_ms: duration_s * 1000.0,
        phases,
        copies: base.arrivals.copies(),
    })
}

/// `arrivals.phases`: at least one, ending at increasing times; a ramp starts at its own
/// `rate_per_s`, else where the previous phase ended, else at `arrivals.rate_per_s`.
fn phases(found: &Found<'_, '_>, start_rate: f64) -> Result<Vec<Phase>, ConfigError> {
    let items = found.list()?;
    if items.is_empty() {
        return Err(found.invalid("give at least one phase, or leave phases out"));
    }
    let mut phases = Vec::with_capacity(items.len());
    let mut previous_end = 0.0;
    let mut rate_before = start_rate;
    for item in items {
        let table = item.table("a phase", &["until_s", "rate_per_s", "ramp_to_per_s"])?;
        let get = |name: &str| table.iter().find(|(n, _)| *n == name).map(|(_, f)| f);
        let Some(until) = get("until_s") else {
            return Err(
                item.invalid("every phase needs until_s, e.g. { until_s = 30, rate_per_s = 100 }")
            );
        };
        let until_s = field(until, SECONDS)?;
        if until_s <= previous_end {
            return Err(until.invalid(
                "phases must end at increasing times after 0 s, at most 1000000 s (no \
                 overlap, never back in time)",
            ));
        }
        let rate = |value: &Found<'_, '_>| field(value, RATE);
        let rate = match (get("rate_per_s"), get("ramp_to_per_s")) {
            (Some(constant), None) => PhaseRate::Constant(rate(constant)?),
            (from, Some(to)) => PhaseRate::Ramp {
                from: from.map(rate).transpose()?.unwrap_or(rate_before),
                to: rate(to)?,
            },
            (None, None) => {
                return Err(item.invalid("each phase needs rate_per_s or ramp_to_per_s"));
            }
        };
        let phase = Phase {
            until_ms: until_s * 1000.0,
            rate,
        };
        rate_before = phase.final_rate_per_s();
        previous_end = until_s;
        phases.push(phase);
    }
    Ok(phases)
}

/// `[server]` on a shared server.
fn server(lookup: &Lookup<'_, '_, '_>, base: &Scenario) -> Result<LoadServer, ConfigError> {
    Ok(LoadServer {
        workers: lookup.optional_whole("server.workers")?.map(|w| w as u32),
        queue_limit: lookup
            .optional_whole("server.queue_limit")?
            .map(|q| q as u32),
        drop_expired: lookup.switch("server.drop_expired")?,
        processing: base.processing,
        processing_per_in_flight_ms: lookup.number("server.processing_per_in_flight_ms")?,
        error_rate: base.key.error_rate,
        error_policy: base.key.error_policy,
        key_ttl_ms: base.key.key_ttl_ms,
        duplicate_answer: base.key.duplicate_answer,
        fingerprint: base.key.fingerprint,
        capacity: windows(lookup, "server.capacity", true)?
            .into_iter()
            .map(|(window, workers)| CapacityWindow { window, workers })
            .collect(),
        key_server: base.backend.key_server(),
        key_store_outages: KeyStoreOutages {
            windows: windows(lookup, "key_store.outages", false)?
                .into_iter()
                .map(|(window, _)| (window.from_ms, window.to_ms))
                .collect(),
            on_unavailable: match lookup.name("key_store.on_unavailable")? {
                "fail_closed" => OnUnavailable::FailClosed,
                _ => OnUnavailable::FailOpen,
            },
        },
        receipts: base.backend.receipts,
        provider: base.backend.provider,
    })
}

/// `[client]` on a shared server: the plain client's retries and the retry controls.
fn client(lookup: &Lookup<'_, '_, '_>, base: &Scenario) -> Result<LoadClient, ConfigError> {
    // A retry client sets the retries, the backoff and the bucket; a key written overrides.
    let retry_client = if lookup.written("client.retry_client") {
        RetryClient::named(lookup.name("client.retry_client")?)
    } else {
        None
    };
    let preset = |name: &str, value: f64| -> Result<f64, ConfigError> {
        if lookup.written(name) {
            lookup.number(name)
        } else {
            Ok(value)
        }
    };
    let shipped_bucket = retry_client.and_then(RetryClient::token_bucket);
    let token_bucket = if lookup.has_table("client.token_bucket") || shipped_bucket.is_some() {
        let shipped = shipped_bucket;
        let field = |name: &str, pick: fn(&TokenBucket) -> f64| match &shipped {
            Some(bucket) => preset(name, pick(bucket)),
            None => lookup.number(name),
        };
        let capacity = field("client.token_bucket.capacity", |bucket| bucket.capacity)?;
        let within = |name: &str, pick: fn(&TokenBucket) -> f64| -> Result<f64, ConfigError> {
            let value = field(name, pick)?;
            if value > capacity {
                return Err(lookup.refuse(
                    name,
                    "must be from 0 tokens to the bucket's capacity (a cost above the quota \
                     never lets a retry out)",
                ));
            }
            Ok(value)
        };
        let refund = match (lookup.written("client.token_bucket.refund"), &shipped) {
            (false, Some(bucket)) => bucket.refund,
            _ => match lookup.name("client.token_bucket.refund")? {
                "last_retry_cost" => Refund::LastRetryCost,
                _ => Refund::Fixed,
            },
        };
        Some(TokenBucket {
            capacity,
            retry_cost: within("client.token_bucket.retry_cost", |bucket| bucket.retry_cost)?,
            timeout_cost: within("client.token_bucket.timeout_cost", |bucket| {
                bucket.timeout_cost
            })?,
            success_refund: within("client.token_bucket.success_refund", |bucket| {
                bucket.success_refund
            })?,
            refund,
        })
    } else {
        None
    };
    let max_retries = match retry_client {
        Some(client) if !lookup.written("client.max_retries") => client.max_retries(),
        _ => base.client.max_retries,
    };
    // gRFC A6: a maxAttempts above the client's limit is treated as the limit.
    let max_retries = match retry_client.and_then(RetryClient::retries_cap) {
        Some(cap) => max_retries.min(cap),
        None => max_retries,
    };
    let backoff = match retry_client {
        Some(client) if !lookup.written("client.backoff") => client.backoff(),
        _ => base.client.backoff,
    };
    let adaptive_bucket = lookup.table_if("client.adaptive_bucket", || {
        Ok(AdaptiveBucket {
            deposit: lookup.number("client.adaptive_bucket.deposit")?,
            capacity: lookup.number("client.adaptive_bucket.capacity")?,
        })
    })?;
    let breaker = lookup.table_if("client.breaker", || {
        Ok(Breaker {
            threshold: lookup.number("client.breaker.threshold")?,
            window_ms: lookup
                .optional_number("client.breaker.window_s")?
                .map(|s| s * 1000.0),
            cooldown_ms: lookup
                .optional_number("client.breaker.cooldown_s")?
                .map(|s| s * 1000.0),
        })
    })?;
    Ok(LoadClient {
        timeout_ms: base.client.timeout_ms,
        max_retries,
        backoff,
        token_bucket,
        adaptive_bucket,
        breaker,
        retry_ratio: match lookup.optional_number("client.retry_ratio")? {
            Some(ratio) => Some(ratio),
            None => retry_client.and_then(RetryClient::retry_ratio),
        },
        controls: controls(lookup, retry_client)?,
        payment_deadline_ms: lookup.optional_number("client.payment_deadline_ms")?,
        different_body_rate: base.client.different_body_rate,
    })
}

/// The retry controls of the shipped clients: each table written, or set by the retry client;
/// a key's default is the shipped value, so a key written overrides just its part.
fn controls(
    lookup: &Lookup<'_, '_, '_>,
    retry_client: Option<RetryClient>,
) -> Result<RetryControls, ConfigError> {
    let shipped = retry_client.map(RetryClient::controls).unwrap_or_default();
    let on = |table: &str, by_client: bool| lookup.has_table(table) || by_client;
    let mut controls = RetryControls::default();
    if on(
        "client.retry_throttling",
        shipped.retry_throttling.is_some(),
    ) {
        controls.retry_throttling = Some(RetryThrottling {
            max_tokens: lookup.number("client.retry_throttling.max_tokens")?,
            token_ratio: lookup.number("client.retry_throttling.token_ratio")?,
        });
    }
    if on(
        "client.concurrent_retry_budget",
        shipped.concurrent_retry_budget.is_some(),
    ) {
        controls.concurrent_retry_budget = Some(ConcurrentRetryBudget {
            budget_percent: lookup.number("client.concurrent_retry_budget.budget_percent")?,
            min_retry_concurrency: lookup
                .whole("client.concurrent_retry_budget.min_retry_concurrency")?
                as u32,
        });
    }
    if on(
        "client.windowed_retry_budget",
        shipped.windowed_retry_budget.is_some(),
    ) {
        controls.windowed_retry_budget = Some(WindowedRetryBudget {
            ttl_s: lookup.whole("client.windowed_retry_budget.ttl_s")? as u32,
            min_retries_per_s: lookup.whole("client.windowed_retry_budget.min_retries_per_s")?
                as u32,
            percent_can_retry: lookup.number("client.windowed_retry_budget.percent_can_retry")?,
        });
    }
    if on(
        "client.adaptive_throttling",
        shipped.adaptive_throttling.is_some(),
    ) {
        controls.adaptive_throttling = Some(AdaptiveThrottling {
            k: lookup.number("client.adaptive_throttling.k")?,
            window_ms: lookup.number("client.adaptive_throttling.window_s")? * 1000.0,
        });
    }
    Ok(controls)
}
