//! The reading of timeline files with a shared server: each refusal names the key written
//! and its value as written, the bounds hold, and the keys reach the model.

use std::path::Path;

use crate::config::{Job, LoadConfig, Overrides};
use crate::model::semantics::DuplicateAnswer as LoadDuplicateAnswer;

fn load(text: &str) -> Result<LoadConfig, String> {
    match Job::from_text(text, Path::new("sweep.toml"), &Overrides::default()) {
        Ok(Job::Load(config)) => Ok(config),
        Ok(other) => panic!("not a shared-server file: {other:?}"),
        Err(error) => Err(error.to_string()),
    }
}

/// `text` with `model = "timeline"` and two workers is refused naming `key` and `value`
/// exactly, with its place, on one line, with a reason holding `reason`.
fn refused(text: &str, key: &str, value: &str, reason: &str) {
    let text = format!("model = \"timeline\"\n{text}\n[server]\nworkers = 2\n");
    let error = load(&text).unwrap_err();
    let start = format!("invalid value {value} for key `{key}` in config file sweep.toml (line ");
    assert!(error.starts_with(&start), "{text}: {error}");
    assert!(error.contains(reason), "{text}: {error}");
    assert!(!error.contains('\n'), "{text}: {error}");
}

/// The error-rate sweep key of earlier versions is refused with the sweep that replaces it.
#[test]
fn the_retired_error_rate_sweep_key_points_to_the_sweep() {
    let error = load(
        "model = \"timeline\"\n[server]\nworkers = 2\n[output]\nerror_rate_sweep = [0, 0.5]\n",
    )
    .unwrap_err();
    assert!(
        error.contains("`output.error_rate_sweep` is no longer a key: sweep the error rate"),
        "{error}"
    );
    assert!(
        error.contains("--sweep server.error_rate=0,0.1,0.5"),
        "{error}"
    );
    assert!(!error.contains('\n'), "{error}");
}

/// Each refusal names the key that was written, with its value as written (never hundreds of
/// digits), and says what is wrong with it.
#[test]
fn refusals_name_the_key_written_and_its_value() {
    refused(
        "[client.offline]\nshare = 0.05",
        "client.offline.share",
        "0.05",
        "clients stay online",
    );
    refused(
        "[client.reconciliation]\nafter_ms = \"1h\"",
        "client.reconciliation.after_ms",
        "\"1h\"",
        "does not look payments up",
    );
    // Copies reach the shared clock; a bad count is refused by key, value and place.
    let text = "model = \"timeline\"\n[server]\nworkers = 2\n[arrivals]\ncopies = 3\n\
                copy_mode = \"sequential\"\ncopy_spread_ms = 40\n";
    let copies = load(text).unwrap().model.scenarios[0].arrivals.copies;
    assert_eq!(
        (copies.count, copies.mode, copies.spread_ms),
        (3, crate::model::semantics::CopyMode::Sequential, 40.0)
    );
    refused(
        "[arrivals]\ncopies = 0",
        "arrivals.copies",
        "0",
        "from 1 to 1000",
    );
    // The key store's settings reach the shared clock; its outages' bad values are refused
    // by key, value and place.
    let text = "model = \"timeline\"\n[server]\nworkers = 2\ncrash_rate = 0.1\n\
                key_store = \"key_first\"\nkey_write_failure = 0.2\nkey_lock_ttl_ms = 5\n\
                completer_interval_ms = 7\n[key_store]\non_unavailable = \"fail_open\"\n\
                outages = [{ from_s = 10, to_s = 40 }]\n";
    let server = &load(text).unwrap().model.scenarios[0].server;
    let key = server.key_server;
    assert_eq!(
        (key.crash_rate, key.key_write_failure, key.key_lock_ttl_ms),
        (0.1, 0.2, 5.0)
    );
    assert_eq!(key.key_store, crate::model::semantics::KeyStore::KeyFirst);
    assert_eq!(key.completer_interval_ms, Some(7.0));
    let outages = &server.key_store_outages;
    assert_eq!(outages.windows, vec![(10_000.0, 40_000.0)]);
    assert_eq!(
        outages.on_unavailable,
        crate::model::semantics::OnUnavailable::FailOpen
    );
    refused(
        "[key_store]\non_unavailable = \"fail_sideways\"",
        "key_store.on_unavailable",
        "\"fail_sideways\"",
        "\"fail_closed\" or \"fail_open\"",
    );
    let error = load(
        "model = \"timeline\"\n[server]\nworkers = 2\n[key_store]\n\
         outages = [{ from_s = 40, to_s = 10 }]\n",
    )
    .unwrap_err();
    assert!(error.contains("line 5"), "{error}");
    assert!(error.contains("from_s < to_s"), "{error}");
    assert!(!error.contains('\n'), "{error}");
    // An outage alone puts a file on the shared clock, as a network outage does.
    let alone = "model = \"timeline\"\n[key_store]\noutages = [{ from_s = 1, to_s = 2 }]\n";
    assert!(load(alone).is_ok());
    // A provider is modelled on the shared clock; its bad values are refused by key.
    let text = "model = \"timeline\"\n[server]\nworkers = 2\n[provider]\npass_key = true\n";
    let provider = load(text).unwrap().model.scenarios[0].server.provider;
    assert!(provider.is_some_and(|provider| provider.pass_key));
    refused(
        "[provider]\nloss = 1.5",
        "provider.loss",
        "1.5",
        "from 0 to 1",
    );
    // Receipts are modelled on the shared clock.
    let receipts = "model = \"timeline\"\n[server]\nworkers = 2\n[receipts]\n";
    assert!(load(receipts).is_ok());
}

/// The retry controls' refusals name the field, not the table; numbers keep their form.
#[test]
fn retry_controls_are_refused_by_field() {
    for (entry, key, value, reason) in [
        (
            "token_bucket = { capacity = -1 }",
            "client.token_bucket.capacity",
            "-1",
            "more than 0",
        ),
        (
            "token_bucket = { retry_cost = 600 }",
            "client.token_bucket.retry_cost",
            "600",
            "capacity",
        ),
        (
            "token_bucket = { timeout_cost = -2 }",
            "client.token_bucket.timeout_cost",
            "-2",
            "from 0",
        ),
        (
            "token_bucket = { success_refund = 501 }",
            "client.token_bucket.success_refund",
            "501",
            "capacity",
        ),
        (
            "adaptive_bucket = { deposit = 0 }",
            "client.adaptive_bucket.deposit",
            "0",
            "more than 0",
        ),
        (
            "adaptive_bucket = { capacity = 0.5 }",
            "client.adaptive_bucket.capacity",
            "0.5",
            "from 1",
        ),
        (
            "breaker = { threshold = 2 }",
            "client.breaker.threshold",
            "2",
            "from 0 to 1",
        ),
        (
            "breaker = { window_s = -1 }",
            "client.breaker.window_s",
            "-1",
            "more than 0",
        ),
        (
            "breaker = { cooldown_s = 1e7 }",
            "client.breaker.cooldown_s",
            "1e7",
            "at most 1000000 s",
        ),
    ] {
        refused(&format!("[client]\n{entry}"), key, value, reason);
    }
    refused(
        "[arrivals]\nduration_s = 1e308",
        "arrivals.duration_s",
        "1e308",
        "at most 1000000",
    );
    refused(
        "[output]\nbucket_s = 1e-300",
        "output.bucket_s",
        "1e-300",
        "from 0.001",
    );
    refused(
        "[arrivals]\nphases = [{ until_s = 1e300, rate_per_s = 1 }]",
        "arrivals.phases[0].until_s",
        "1e300",
        "from 0 to 1000000 s",
    );
}

/// `[arrivals] rate_per_s` is held to the phases' bound, 10^9 payments per second.
#[test]
fn the_arrival_rate_is_at_most_a_billion_per_second() {
    for rate in ["1e308", "1000000001"] {
        refused(
            &format!("[arrivals]\nrate_per_s = {rate}"),
            "arrivals.rate_per_s",
            rate,
            "from 0.000001 to 1000000000",
        );
    }
    let text = "model = \"timeline\"\n[arrivals]\nrate_per_s = 1e9\nduration_s = 1\n\
                [server]\nworkers = 2\n";
    let config = load(text).unwrap();
    assert_eq!(config.model.scenarios[0].arrivals.expected_payments(), 1e9);
}

/// "More than 0" means it: the smallest positive numbers (below `f64::MIN_POSITIVE`, about
/// 2.2e-308) are more than 0 and accepted.
#[test]
fn numbers_more_than_0_accept_the_smallest_positive_ones() {
    let text = "model = \"timeline\"\n[server]\nworkers = 2\n[arrivals]\nduration_s = 1e-320\n\
                [client]\npayment_deadline_ms = 1e-320\n\
                breaker = { window_s = 1e-320, cooldown_s = 1e-320 }\n\
                token_bucket = { capacity = 1e-320, retry_cost = 0, timeout_cost = 0, success_refund = 0 }\n\
                adaptive_bucket = { deposit = 1e-320 }\n";
    let config = load(text).unwrap();
    let scenario = &config.model.scenarios[0];
    assert_eq!(scenario.arrivals.duration_ms, 1e-320 * 1000.0);
    assert_eq!(scenario.client.payment_deadline_ms, Some(1e-320));
    assert_eq!(
        scenario.client.breaker.unwrap().window_ms,
        Some(1e-320 * 1000.0)
    );
    assert_eq!(scenario.client.token_bucket.unwrap().capacity, 1e-320);
    assert_eq!(scenario.client.adaptive_bucket.unwrap().deposit, 1e-320);
    refused(
        "[arrivals]\nduration_s = 0",
        "arrivals.duration_s",
        "0",
        "more than 0",
    );
}

/// The key's TTL and duplicate answer reach each scenario's server, overridable per
/// `[[scenario]]` like every timeline key.
#[test]
fn the_keys_ttl_and_duplicate_answer_reach_the_server() {
    let text = "model = \"timeline\"\n[server]\nworkers = 2\nkey_ttl_ms = 30000\n\
                duplicate_answer = \"conflict_409\"\n\
                [[scenario]]\nname = \"redis\"\n\
                [[scenario]]\nname = \"plain\"\n\
                server = { key_ttl_ms = 5000, duplicate_answer = \"replay\" }\n";
    let config = load(text).unwrap();
    let servers: Vec<_> = config
        .model
        .scenarios
        .iter()
        .map(|scenario| (scenario.server.key_ttl_ms, scenario.server.duplicate_answer))
        .collect();
    assert_eq!(
        servers,
        [
            (Some(30_000.0), LoadDuplicateAnswer::Conflict409),
            (Some(5_000.0), LoadDuplicateAnswer::Replay),
        ]
    );
}

/// Every refused value is repeated up to its first 40 characters, then `…`, whichever model
/// and key refused it (here a list of 30 strategies and of 1,001 client counts).
#[test]
fn refused_values_are_cut_after_40_characters() {
    let strategies = vec!["\"none\""; 30].join(", ");
    let shared =
        format!("model = \"timeline\"\nstrategies = [{strategies}]\n[server]\nworkers = 2\n");
    let clients: Vec<String> = (1..=1_001).map(|count: u32| count.to_string()).collect();
    let contention = format!(
        "model = \"contention\"\nclients = [{}]\n",
        clients.join(", ")
    );
    for text in [shared, contention] {
        let error = Job::from_text(&text, Path::new("long.toml"), &Overrides::default())
            .unwrap_err()
            .to_string();
        let value = error
            .strip_prefix("invalid value ")
            .and_then(|rest| rest.split_once(" for key `"))
            .map(|(value, _)| value)
            .unwrap_or_else(|| panic!("{error}"));
        assert_eq!(value.chars().count(), 41, "{error}");
        assert!(value.ends_with('…'), "{error}");
    }
}

/// A shared-server key whose value no 64-bit integer holds still makes the file a shared
/// file: the error is about that value, where it stands.
#[test]
fn a_value_beyond_64_bits_is_named_where_it_stands() {
    for (text, key) in [
        (
            "[server]\nworkers = 99999999999999999999\n",
            "server.workers",
        ),
        (
            "[arrivals]\nduration_s = 10\n[server]\nworkers = 99999999999999999999\n",
            "server.workers",
        ),
        (
            "[arrivals]\nclients = -99999999999999999999\n",
            "arrivals.clients",
        ),
    ] {
        let error = load(&format!("model = \"timeline\"\n{text}")).unwrap_err();
        assert!(
            error.starts_with("invalid value ") && error.contains(&format!("`{key}`")),
            "{text}: {error}"
        );
        assert!(error.contains("99999999999999999999"), "{error}");
    }
}

/// `[output] warm_up_s` takes a duration (a number of s or with a unit), defaults to 0, and
/// must end before the shortest scenario's arrivals; a bad one is refused naming it.
#[test]
fn the_warm_up_is_a_duration_before_the_end_of_the_arrivals() {
    let file = |warm_up: &str| {
        format!(
            "model = \"timeline\"\n[arrivals]\nduration_s = 30\n[server]\nworkers = 2\n\
             [output]\n{warm_up}\n[[scenario]]\nname = \"short\"\n\
             [scenario.arrivals]\nduration_s = 20\n"
        )
    };
    assert_eq!(load(&file("")).unwrap().model.warm_up_ms, 0.0);
    assert_eq!(
        load(&file("warm_up_s = \"1500ms\""))
            .unwrap()
            .model
            .warm_up_ms,
        1_500.0
    );
    assert_eq!(
        load(&file("warm_up_s = 19.5")).unwrap().model.warm_up_ms,
        19_500.0
    );
    for (value, reason) in [
        ("20", "scenario short has arrivals.duration_s = 20 s"),
        ("-1", "from 0"),
        ("\"a while\"", "duration"),
    ] {
        let error = load(&file(&format!("warm_up_s = {value}"))).unwrap_err();
        let start = format!(
            "invalid value {value} for key `output.warm_up_s` in config file sweep.toml (line 7, \
             column "
        );
        assert!(error.starts_with(&start), "{value}: {error}");
        assert!(error.contains(reason), "{value}: {error}");
        assert!(!error.contains('\n'), "{value}: {error}");
    }
}

/// A retry client by name sets the retries, the backoff and the quota as botocore ships them
/// (3 attempts; rand x min(2^(n-1) s, 20 s); 500 tokens, 5 a retry, 10 after a timeout, the
/// last retry's cost refunded); each key written overrides its part; retry behaviour 2.1
/// costs 14 a retry (a timeout too) with a 50 ms base. A retry client puts the file on the
/// shared server's clock.
#[test]
fn a_retry_client_by_name_with_its_parameters_overridable() {
    use crate::model::load::{Refund, TokenBucket};
    use engine::backoff::Backoff;
    let text = "model = \"timeline\"\n[client]\nretry_client = \"aws_standard\"\n\
                [[scenario]]\nname = \"shipped\"\n\
                [[scenario]]\nname = \"overridden\"\n\
                client = { max_retries = 4, token_bucket = { retry_cost = 2 } }\n\
                [[scenario]]\nname = \"v2.1\"\nclient = { retry_client = \"aws_standard_2_1\" }\n";
    let config = load(text).unwrap();
    let [shipped, overridden, v21] = &config.model.scenarios[..] else {
        panic!("three scenarios");
    };
    assert_eq!(shipped.client.max_retries, 2);
    assert_eq!(
        shipped.client.backoff,
        Backoff::FullJitter {
            base_ms: 1000.0,
            cap_ms: 20_000.0
        }
    );
    assert_eq!(
        shipped.client.token_bucket,
        Some(TokenBucket {
            capacity: 500.0,
            retry_cost: 5.0,
            timeout_cost: 10.0,
            success_refund: 1.0,
            refund: Refund::LastRetryCost,
        })
    );
    assert_eq!(overridden.client.max_retries, 4);
    let bucket = overridden.client.token_bucket.unwrap();
    assert_eq!((bucket.retry_cost, bucket.timeout_cost), (2.0, 10.0));
    assert_eq!(overridden.client.backoff, shipped.client.backoff);
    let bucket = v21.client.token_bucket.unwrap();
    assert_eq!((bucket.retry_cost, bucket.timeout_cost), (14.0, 14.0));
    assert_eq!(
        v21.client.backoff,
        Backoff::FullJitter {
            base_ms: 50.0,
            cap_ms: 20_000.0
        }
    );
    refused(
        "[client]\nretry_client = \"aws_legacy\"",
        "client.retry_client",
        "\"aws_legacy\"",
        "\"aws_standard\"",
    );
}

/// The other shipped clients by name: each sets its attempts, backoff and retry control as
/// docs/models/load.md cites them (gRFC A6's example policy and throttling, Envoy's
/// `num_retries` 1 and retry budget, Finagle's `RetryBudget()` without backoff, the SRE
/// book's three attempts, 10% retry ratio and adaptive throttling); a key written overrides
/// its part; gRPC caps attempts at 5; a control's table alone turns it on with the defaults.
#[test]
fn the_proxies_and_rpc_clients_by_name_with_their_parameters_overridable() {
    use crate::model::load::{
        AdaptiveThrottling, ConcurrentRetryBudget, RetryClient, RetryControls, RetryThrottling,
        WindowedRetryBudget,
    };
    use engine::backoff::Backoff;
    let text = "model = \"timeline\"\n[server]\nworkers = 2\n\
                [[scenario]]\nname = \"grpc\"\nclient = { retry_client = \"grpc\" }\n\
                [[scenario]]\nname = \"envoy\"\nclient = { retry_client = \"envoy\" }\n\
                [[scenario]]\nname = \"finagle\"\nclient = { retry_client = \"finagle\" }\n\
                [[scenario]]\nname = \"sre\"\nclient = { retry_client = \"google_sre\" }\n\
                [[scenario]]\nname = \"grpc_9\"\n\
                client = { retry_client = \"grpc\", max_retries = 9, retry_throttling = { token_ratio = 0.5 } }\n\
                [[scenario]]\nname = \"overridden\"\n\
                client = { retry_client = \"google_sre\", retry_ratio = 0.5, adaptive_throttling = { window_s = \"1m\" } }\n\
                [[scenario]]\nname = \"tables\"\n\
                client = { concurrent_retry_budget = { min_retry_concurrency = 0 }, windowed_retry_budget = { ttl_s = 2 } }\n";
    let config = load(text).unwrap();
    let [grpc, envoy, finagle, sre, grpc_9, overridden, tables] = &config.model.scenarios[..]
    else {
        panic!("seven scenarios");
    };
    let throttling = RetryThrottling {
        max_tokens: 10.0,
        token_ratio: 0.1,
    };
    assert_eq!(
        (grpc.client.max_retries, grpc.client.backoff),
        (
            3,
            Backoff::FullJitter {
                base_ms: 100.0,
                cap_ms: 1_000.0
            }
        )
    );
    assert_eq!(grpc.client.token_bucket, None);
    assert_eq!(grpc.client.retry_ratio, None);
    assert_eq!(grpc.client.controls.retry_throttling, Some(throttling));
    assert_eq!(grpc.client.controls, RetryClient::Grpc.controls());
    assert_eq!(
        (envoy.client.max_retries, envoy.client.backoff),
        (
            1,
            Backoff::FullJitter {
                base_ms: 25.0,
                cap_ms: 250.0
            }
        )
    );
    let budget = ConcurrentRetryBudget {
        budget_percent: 20.0,
        min_retry_concurrency: 3,
    };
    assert_eq!(
        envoy.client.controls,
        RetryControls {
            concurrent_retry_budget: Some(budget),
            ..Default::default()
        }
    );
    let windowed = WindowedRetryBudget {
        ttl_s: 10,
        min_retries_per_s: 10,
        percent_can_retry: 0.2,
    };
    assert_eq!(
        (finagle.client.max_retries, finagle.client.backoff),
        (3, Backoff::None)
    );
    assert_eq!(
        finagle.client.controls.windowed_retry_budget,
        Some(windowed)
    );
    assert_eq!(finagle.client.controls, RetryClient::Finagle.controls());
    let adaptive = AdaptiveThrottling {
        k: 2.0,
        window_ms: 120_000.0,
    };
    assert_eq!(
        (sre.client.max_retries, sre.client.retry_ratio),
        (2, Some(0.1))
    );
    assert_eq!(sre.client.controls.adaptive_throttling, Some(adaptive));
    assert_eq!(sre.client.controls, RetryClient::GoogleSre.controls());
    // gRFC A6: at most 5 attempts whatever is asked; the ratio written, the rest shipped.
    assert_eq!(grpc_9.client.max_retries, 4);
    assert_eq!(
        grpc_9.client.controls.retry_throttling,
        Some(RetryThrottling {
            token_ratio: 0.5,
            ..throttling
        })
    );
    assert_eq!(overridden.client.retry_ratio, Some(0.5));
    assert_eq!(
        overridden.client.controls.adaptive_throttling,
        Some(AdaptiveThrottling {
            window_ms: 60_000.0,
            ..adaptive
        })
    );
    // Tables without a client: the plain client's retries, the defaults beside the key.
    assert_eq!(tables.client.max_retries, 3);
    assert_eq!(
        tables.client.controls,
        RetryControls {
            concurrent_retry_budget: Some(ConcurrentRetryBudget {
                min_retry_concurrency: 0,
                ..budget
            }),
            windowed_retry_budget: Some(WindowedRetryBudget {
                ttl_s: 2,
                ..windowed
            }),
            ..Default::default()
        }
    );
}

/// A misspelt retry client: one line naming the file, the line, the key and the value, with
/// the near miss and every name it could be.
#[test]
fn an_unknown_retry_client_is_refused_with_the_names() {
    let text = "model = \"timeline\"\n[server]\nworkers = 2\n[client]\nretry_client = \"envoi\"\n";
    let error = load(text).unwrap_err();
    assert!(
        error.starts_with(
            "invalid value \"envoi\" for key `client.retry_client` in config file sweep.toml \
             (line 5, column "
        ),
        "{error}"
    );
    for name in crate::model::load::RetryClient::NAMES {
        assert!(error.contains(&format!("\"{name}\"")), "{name}: {error}");
    }
    assert!(error.contains("did you mean \"envoy\"?"), "{error}");
    assert!(!error.contains('\n'), "{error}");
    for (written, key) in [
        (
            "retry_throttling = { max_tokens = 1001 }",
            "client.retry_throttling.max_tokens",
        ),
        (
            "retry_throttling = { token_ratio = 0 }",
            "client.retry_throttling.token_ratio",
        ),
        (
            "concurrent_retry_budget = { budget_percent = 101 }",
            "client.concurrent_retry_budget.budget_percent",
        ),
        (
            "windowed_retry_budget = { ttl_s = 61 }",
            "client.windowed_retry_budget.ttl_s",
        ),
        (
            "adaptive_throttling = { k = 0.5 }",
            "client.adaptive_throttling.k",
        ),
    ] {
        let error = load(&format!(
            "model = \"timeline\"\n[server]\nworkers = 2\n[client]\n{written}\n"
        ))
        .unwrap_err();
        assert!(
            error.contains(&format!(
                "for key `{key}` in config file sweep.toml (line 5"
            )),
            "{written}: {error}"
        );
        assert!(!error.contains('\n'), "{error}");
    }
}

/// A plain timeline file's offline and reconciliation keys: a bad value is one line naming
/// the file, the line, the key and the value; good ones reach the scenario, off by default.
#[test]
fn offline_and_reconciliation_keys_are_read_or_refused_on_one_line() {
    let read = |text: &str| {
        let text = format!("model = \"timeline\"\n{text}\n");
        match Job::from_text(&text, Path::new("mobile.toml"), &Overrides::default()) {
            Ok(Job::Timeline(config)) => Ok(config.model.scenarios[0].client_lifecycle),
            Ok(other) => panic!("not a plain timeline file: {other:?}"),
            Err(error) => Err(error.to_string()),
        }
    };
    for (text, key, value) in [
        (
            "[client.offline]\nshare = -0.05",
            "client.offline.share",
            "-0.05",
        ),
        (
            "[client.offline]\nshare = 1.5",
            "client.offline.share",
            "1.5",
        ),
        (
            "[client.offline]\nshare = 0.1\nduration = { distribution = \"fixed\", ms = -3 }",
            "client.offline.duration.ms",
            "-3",
        ),
        (
            "[client.reconciliation]\nafter_ms = 0",
            "client.reconciliation.after_ms",
            "0",
        ),
        (
            "[client.reconciliation]\nafter_ms = \"-1h\"",
            "client.reconciliation.after_ms",
            "\"-1h\"",
        ),
    ] {
        let error = read(text).unwrap_err();
        let start =
            format!("invalid value {value} for key `{key}` in config file mobile.toml (line ");
        assert!(error.starts_with(&start), "{text}: {error}");
        assert!(!error.contains('\n'), "{text}: {error}");
    }
    assert_eq!(
        read("").unwrap(),
        crate::model::timeline::ClientLifecycle::default()
    );
    let lifecycle = read(
        "[client.offline]\nshare = 0.05\nduration = { distribution = \"exponential\", mean_ms = \"1h\" }\n\
         [client.reconciliation]\nafter_ms = \"48h\"",
    )
    .unwrap();
    let offline = lifecycle.offline.unwrap();
    assert_eq!(offline.share, 0.05);
    assert_eq!(
        offline.duration,
        engine::distribution::Distribution::Exponential {
            mean_ms: 3_600_000.0
        }
    );
    assert_eq!(
        lifecycle.reconciliation.unwrap().after_ms,
        48.0 * 3_600_000.0
    );
}
