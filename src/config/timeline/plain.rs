//! A plain timeline file's scenarios (no shared server): each scenario's keys read into the
//! timeline model's [`Scenario`], in the order of the file's tables.

use crate::config::ConfigError;
use crate::config::lookup::Lookup;
use crate::model::semantics::{ErrorPolicy, KeyServer};
use crate::model::timeline::{
    ArrivalProcess, Arrivals, Backend, ClientLifecycle, ClientPolicy, CopyMode, CopySpacing,
    DuplicateAnswer, KeyLifecycle, KeyStore, Network, Offline, Provider, ReceiptMode, Receipts,
    Reconciliation, Scenario,
};
use engine::distribution::Distribution;

/// The scenario named `name` that `lookup` sees.
pub fn scenario(lookup: &Lookup<'_, '_, '_>, name: String) -> Result<Scenario, ConfigError> {
    let arrivals = arrivals(lookup)?;
    let network = network(lookup)?;
    let processing = lookup.distribution("server.processing")?;
    let key = key(lookup)?;
    let backend = backend(lookup)?;
    let client = client(lookup)?;
    let client_lifecycle = client_lifecycle(lookup)?;
    Ok(Scenario {
        name,
        arrivals,
        network,
        processing,
        client,
        key,
        backend,
        client_lifecycle,
    })
}

/// `[arrivals]`.
pub fn arrivals(lookup: &Lookup<'_, '_, '_>) -> Result<Arrivals, ConfigError> {
    let rate_per_s = lookup.number("arrivals.rate_per_s")?;
    Ok(Arrivals {
        process: match lookup.name("arrivals.process")? {
            "poisson" => ArrivalProcess::Poisson { rate_per_s },
            "burst" => ArrivalProcess::Burst,
            _ => ArrivalProcess::Sequential,
        },
        copies: lookup.whole("arrivals.copies")? as u32,
        copy_mode: match lookup.name("arrivals.copy_mode")? {
            "concurrent" => CopyMode::Concurrent,
            _ => CopyMode::Sequential,
        },
        copy_spread_ms: lookup.number("arrivals.copy_spread_ms")?,
        copy_spacing: match lookup.name("arrivals.copy_spacing")? {
            "even" => CopySpacing::Even,
            _ => CopySpacing::Random,
        },
    })
}

/// `[network]`.
pub fn network(lookup: &Lookup<'_, '_, '_>) -> Result<Network, ConfigError> {
    Ok(Network {
        request_latency: lookup.distribution("network.request_latency")?,
        response_latency: lookup.distribution("network.response_latency")?,
        request_loss: lookup.number("network.request_loss")?,
        ack_loss: lookup.number("network.ack_loss")?,
    })
}

/// `[server]`'s key settings.
pub fn key(lookup: &Lookup<'_, '_, '_>) -> Result<KeyLifecycle, ConfigError> {
    Ok(KeyLifecycle {
        key_ttl_ms: lookup.optional_number("server.key_ttl_ms")?,
        fingerprint: lookup.switch("server.fingerprint")?,
        error_rate: lookup.number("server.error_rate")?,
        error_policy: error_policy(lookup)?,
        duplicate_answer: match lookup.name("server.duplicate_answer")? {
            "replay" => DuplicateAnswer::Replay,
            "ok_200" => DuplicateAnswer::Ok200,
            "conflict_409" => DuplicateAnswer::Conflict409,
            _ => DuplicateAnswer::Error500,
        },
    })
}

/// `[server] error_policy`.
pub fn error_policy(lookup: &Lookup<'_, '_, '_>) -> Result<ErrorPolicy, ConfigError> {
    Ok(match lookup.name("server.error_policy")? {
        "store" => ErrorPolicy::Store,
        _ => ErrorPolicy::Retry,
    })
}

/// `[server]`'s crash and key store settings, `[provider]` and `[receipts]`.
fn backend(lookup: &Lookup<'_, '_, '_>) -> Result<Backend, ConfigError> {
    Ok(Backend {
        key: KeyServer {
            crash_rate: lookup.number("server.crash_rate")?,
            key_store: match lookup.name("server.key_store")? {
                "same_transaction" => KeyStore::SameTransaction,
                "separate_store" => KeyStore::SeparateStore,
                _ => KeyStore::KeyFirst,
            },
            key_write_failure: lookup.number("server.key_write_failure")?,
            key_lock_ttl_ms: lookup.number("server.key_lock_ttl_ms")?,
            completer_interval_ms: lookup.optional_number("server.completer_interval_ms")?,
            key_store_latency: time_taken(lookup, "key_store.latency")?,
            completer_work: time_taken(lookup, "server.completer_work")?,
        },
        provider: provider(lookup)?,
        receipts: receipts(lookup)?,
    })
}

/// A duration distribution whose default, a fixed 0 ms, means the work takes no time: `None`
/// then, so that nothing is drawn and the results are those without the key.
fn time_taken(lookup: &Lookup<'_, '_, '_>, key: &str) -> Result<Option<Distribution>, ConfigError> {
    Ok(Some(lookup.distribution(key)?).filter(|work| *work != Distribution::Fixed { ms: 0.0 }))
}

/// `[provider]`, if the scenario or the top level has one.
fn provider(lookup: &Lookup<'_, '_, '_>) -> Result<Option<Provider>, ConfigError> {
    if !lookup.has_table("provider") {
        return Ok(None);
    }
    Ok(Some(Provider {
        latency: lookup.distribution("provider.latency")?,
        loss: lookup.number("provider.loss")?,
        timeout_ms: lookup.number("provider.timeout_ms")?,
        max_retries: lookup.whole("provider.max_retries")? as u32,
        pass_key: lookup.switch("provider.pass_key")?,
    }))
}

/// `[receipts]`, if the scenario or the top level has one.
fn receipts(lookup: &Lookup<'_, '_, '_>) -> Result<Option<Receipts>, ConfigError> {
    if !lookup.has_table("receipts") {
        return Ok(None);
    }
    Ok(Some(Receipts {
        mode: match lookup.name("receipts.mode")? {
            "direct" => ReceiptMode::Direct,
            _ => ReceiptMode::Outbox,
        },
        send_failure: lookup.number("receipts.send_failure")?,
        relay_work: time_taken(lookup, "receipts.relay_work")?,
    }))
}

/// `[client.offline]` and `[client.reconciliation]`: off unless written.
pub fn client_lifecycle(lookup: &Lookup<'_, '_, '_>) -> Result<ClientLifecycle, ConfigError> {
    let offline = lookup.table_if("client.offline", || {
        Ok(Offline {
            share: lookup.number("client.offline.share")?,
            duration: lookup.distribution("client.offline.duration")?,
        })
    })?;
    let reconciliation = lookup
        .optional_number("client.reconciliation.after_ms")?
        .map(|after_ms| Reconciliation { after_ms });
    Ok(ClientLifecycle {
        offline,
        reconciliation,
    })
}

/// `[client]`.
pub fn client(lookup: &Lookup<'_, '_, '_>) -> Result<ClientPolicy, ConfigError> {
    Ok(ClientPolicy {
        timeout_ms: lookup.number("client.timeout_ms")?,
        max_retries: lookup.whole("client.max_retries")? as u32,
        backoff: lookup.backoff("client.backoff")?,
        different_body_rate: lookup.number("client.different_body_rate")?,
    })
}
