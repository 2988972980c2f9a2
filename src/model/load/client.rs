//! A client's retry control: the AWS SDK's retry token bucket, Brooker's adaptive bucket, a
//! circuit breaker on retries and the SRE retry-ratio budget, each optional and combined (a
//! retry goes out only if every configured mechanism lets it); and the retry clients as they
//! ship, by name ([`RetryClient`]).

use engine::backoff::Backoff;

use super::LoadClient;

/// A retry client as an SDK ships it, by name: its attempts, backoff and retry quota, each of
/// which a file may override.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryClient {
    /// botocore's "standard" retry mode (`botocore/retries/standard.py` and `quota.py`): 3
    /// attempts, backoff `rand × min(2^(n-1) s, 20 s)` after attempt `n`, a quota of 500
    /// tokens, 5 a retry, 10 a retry after a timeout; a success refunds what its last retry
    /// took, or 1 without a retry.
    AwsStandard,
    /// The AWS SDKs' retry behaviour 2.1 (from November 2026; botocore 1.43 with
    /// `AWS_NEW_RETRIES_2026=true`, the default from 1.44): as [`RetryClient::AwsStandard`]
    /// but a retry costs 14 tokens, after a timeout too (only throttling errors, which this
    /// model does not answer, cost 5), and the backoff's base is 50 ms,
    /// `rand × min(0.05 × 2^(n-1) s, 20 s)`.
    AwsStandard21,
}

impl RetryClient {
    /// Every retry client's name, as a file writes it, in [`RetryClient::ALL`]'s order.
    pub const NAMES: &[&str] = &["aws_standard", "aws_standard_2_1"];
    /// Every retry client.
    pub const ALL: [RetryClient; 2] = [RetryClient::AwsStandard, RetryClient::AwsStandard21];

    /// The client named `name`, if one is.
    pub fn named(name: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|known| *known == name)
            .map(|index| Self::ALL[index])
    }

    /// Retries after the first attempt: botocore's `max_attempts` 3, less the first.
    pub fn max_retries(self) -> u32 {
        2
    }

    /// The wait before a retry: full jitter, `uniform(0, min(cap, base × 2^retry))` with
    /// `retry` = 0 for the first, which is botocore's `random() × min(2^(attempt - 1), 20)`
    /// seconds for the 1-based attempt that failed.
    pub fn backoff(self) -> Backoff {
        let base_ms = match self {
            RetryClient::AwsStandard => 1000.0,
            RetryClient::AwsStandard21 => 50.0,
        };
        Backoff::FullJitter {
            base_ms,
            cap_ms: 20_000.0,
        }
    }

    /// The retry quota: botocore's `RetryQuota(500)` and `RetryQuotaChecker`'s costs.
    pub fn token_bucket(self) -> TokenBucket {
        TokenBucket {
            capacity: 500.0,
            retry_cost: match self {
                RetryClient::AwsStandard => 5.0,
                RetryClient::AwsStandard21 => 14.0,
            },
            timeout_cost: match self {
                RetryClient::AwsStandard => 10.0,
                RetryClient::AwsStandard21 => 14.0,
            },
            success_refund: 1.0,
            refund: Refund::LastRetryCost,
        }
    }
}

/// What a success puts back in a [`TokenBucket`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refund {
    /// Always `success_refund`.
    Fixed,
    /// botocore's `release_retry_quota`: the tokens the payment's last retry took if it
    /// retried, else `success_refund` (its `_NO_RETRY_INCREMENT`).
    LastRetryCost,
}

/// AWS SDK "standard" retry mode: a quota of tokens per client; a retry after an error costs
/// `retry_cost`, a retry after a timeout `timeout_cost`; every success refunds
/// `success_refund`, up to `capacity`. The bucket starts full.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenBucket {
    /// The quota (tokens, more than 0).
    pub capacity: f64,
    /// Tokens a retry after an error answer costs (tokens, at most `capacity`).
    pub retry_cost: f64,
    /// Tokens a retry after a timeout costs (tokens, at most `capacity`).
    pub timeout_cost: f64,
    /// Tokens a success puts back (tokens, at least 0); with [`Refund::LastRetryCost`], only
    /// a success without a retry.
    pub success_refund: f64,
    /// What a success puts back.
    pub refund: Refund,
}

impl TokenBucket {
    /// The tokens a retry after `failure` takes.
    pub fn cost(&self, failure: Failure) -> f64 {
        match failure {
            Failure::Timeout => self.timeout_cost,
            Failure::Error => self.retry_cost,
        }
    }
}

/// Brooker's adaptive bucket (retry_sim): every new payment deposits `deposit` tokens up to
/// `capacity`; a retry needs more than one token and takes one. The bucket starts full.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveBucket {
    /// Tokens each new payment deposits (tokens, more than 0).
    pub deposit: f64,
    /// The most the bucket holds (tokens, at least 1).
    pub capacity: f64,
}

/// A circuit breaker on retries only: it counts the client's payments and failed attempts.
/// Without `cooldown_ms` it refuses every retry while failures / payments exceed `threshold`
/// (Brooker's retry_sim breaker). With it, crossing the threshold opens it for `cooldown_ms`
/// (every retry refused), then it half-opens: one retry goes out as a probe; the client's
/// next success closes it (counts reset), its next failure opens it again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Breaker {
    /// Failures per payment above which it trips (0 to 1).
    pub threshold: f64,
    /// Counts start again every `window_ms` (tumbling windows; ms). `None`: over the whole run.
    pub window_ms: Option<f64>,
    /// How long it stays open before half-opening (ms). `None`: never opens, gates by ratio.
    pub cooldown_ms: Option<f64>,
}

/// Where a breaker stands.
#[derive(Debug, Clone, Copy, PartialEq)]
enum BreakerState {
    /// Retries allowed while the failure ratio is under the threshold.
    Closed,
    /// Every retry refused until the time (ms).
    Open { until_ms: f64 },
    /// One probe retry allowed; `probing` once it went out.
    HalfOpen { probing: bool },
}

/// Why an attempt failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// No answer within the timeout.
    Timeout,
    /// An error answer: 500, 409 or 503.
    Error,
}

/// One client's retry-control state.
#[derive(Debug, Clone, Copy)]
pub struct ClientState {
    /// Tokens of the AWS bucket.
    tokens: f64,
    /// Tokens of the adaptive bucket.
    adaptive: f64,
    /// Payments in the breaker's current window.
    calls: u64,
    /// Failed attempts in the breaker's current window.
    failures: u64,
    /// Start of the breaker's current window (ms).
    window_start_ms: f64,
    /// The breaker.
    state: BreakerState,
    /// Payments issued (for the retry ratio).
    payments: u64,
    /// Retries sent (for the retry ratio).
    retries: u64,
}

impl ClientState {
    /// A fresh client: buckets full, breaker closed.
    pub fn new(policy: &LoadClient) -> Self {
        Self {
            tokens: policy.token_bucket.map_or(0.0, |bucket| bucket.capacity),
            adaptive: policy.adaptive_bucket.map_or(0.0, |bucket| bucket.capacity),
            calls: 0,
            failures: 0,
            window_start_ms: 0.0,
            state: BreakerState::Closed,
            payments: 0,
            retries: 0,
        }
    }

    /// Starts the breaker's window again if `now_ms` is past it.
    fn roll_window(&mut self, policy: &LoadClient, now_ms: f64) {
        let Some(window_ms) = policy.breaker.and_then(|breaker| breaker.window_ms) else {
            return;
        };
        if now_ms - self.window_start_ms >= window_ms {
            self.window_start_ms +=
                ((now_ms - self.window_start_ms) / window_ms).floor() * window_ms;
            self.calls = 0;
            self.failures = 0;
        }
    }

    /// The client issues a new payment at `now_ms`.
    pub fn on_payment(&mut self, policy: &LoadClient, now_ms: f64) {
        self.roll_window(policy, now_ms);
        self.calls += 1;
        self.payments += 1;
        if let Some(bucket) = policy.adaptive_bucket {
            self.adaptive = (self.adaptive + bucket.deposit).min(bucket.capacity);
        }
    }

    /// One of the client's attempts succeeded at `now_ms`; `last_retry` is why the payment's
    /// last retry was sent (`None` if it sent none), for a refund of what that retry took.
    pub fn on_success(&mut self, policy: &LoadClient, now_ms: f64, last_retry: Option<Failure>) {
        if let Some(bucket) = policy.token_bucket {
            let refund = match (bucket.refund, last_retry) {
                (Refund::LastRetryCost, Some(failure)) => bucket.cost(failure),
                _ => bucket.success_refund,
            };
            // botocore's `RetryQuota.release`: never above the quota.
            self.tokens = (self.tokens + refund).min(bucket.capacity);
        }
        if let BreakerState::HalfOpen { .. } = self.state {
            self.state = BreakerState::Closed;
            self.calls = 0;
            self.failures = 0;
            self.window_start_ms = now_ms;
        }
    }

    /// One of the client's attempts failed at `now_ms`: the breaker counts it.
    pub fn on_failure(&mut self, policy: &LoadClient, now_ms: f64) {
        self.roll_window(policy, now_ms);
        self.failures += 1;
        if let (Some(breaker), BreakerState::HalfOpen { probing: true }) =
            (policy.breaker, self.state)
        {
            self.state = BreakerState::Open {
                until_ms: now_ms + breaker.cooldown_ms.unwrap_or(0.0),
            };
        }
    }

    /// Whether the breaker lets a retry out at `now_ms` (and moves it if it trips).
    fn breaker_allows(&mut self, breaker: &Breaker, now_ms: f64) -> bool {
        let ratio = self.failures as f64 / self.calls.max(1) as f64;
        let Some(cooldown_ms) = breaker.cooldown_ms else {
            return ratio <= breaker.threshold;
        };
        match self.state {
            BreakerState::Open { until_ms } if now_ms < until_ms => false,
            BreakerState::Open { .. } | BreakerState::HalfOpen { probing: false } => {
                self.state = BreakerState::HalfOpen { probing: true };
                true
            }
            BreakerState::HalfOpen { probing: true } => false,
            BreakerState::Closed if ratio > breaker.threshold => {
                self.state = BreakerState::Open {
                    until_ms: now_ms + cooldown_ms,
                };
                false
            }
            BreakerState::Closed => true,
        }
    }

    /// Whether the client may retry after `failure` at `now_ms`; takes the tokens it costs.
    /// Mechanisms are asked in order (breaker, AWS bucket, adaptive bucket, ratio) and the
    /// first refusal stops: a refused retry costs nothing.
    pub fn allow_retry(&mut self, policy: &LoadClient, failure: Failure, now_ms: f64) -> bool {
        if let Some(breaker) = &policy.breaker
            && !self.breaker_allows(breaker, now_ms)
        {
            return false;
        }
        let cost = policy.token_bucket.map(|bucket| bucket.cost(failure));
        if cost.is_some_and(|cost| self.tokens < cost) {
            return false;
        }
        if policy.adaptive_bucket.is_some() && self.adaptive <= 1.0 {
            return false;
        }
        if let Some(ratio) = policy.retry_ratio
            && (self.retries + 1) as f64 > ratio * self.payments as f64
        {
            return false;
        }
        self.tokens -= cost.unwrap_or(0.0);
        if policy.adaptive_bucket.is_some() {
            self.adaptive -= 1.0;
        }
        self.retries += 1;
        true
    }

    /// Whether the breaker is open or half-open (for tests and counters).
    pub fn breaker_open(&self) -> bool {
        !matches!(self.state, BreakerState::Closed)
    }

    /// Tokens left in the AWS bucket.
    pub fn tokens(&self) -> f64 {
        self.tokens
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hand-worked scenario's client: 1 s timeout, 3 retries, no backoff, no retry control.
    fn policy() -> LoadClient {
        crate::model::load::tests::scenario().client
    }

    /// AWS standard mode, worked by hand: 500 tokens, 5 a retry, 10 after a timeout.
    #[test]
    fn a_token_bucket_runs_dry_and_refills_on_success() {
        let mut policy = policy();
        policy.token_bucket = Some(TokenBucket {
            capacity: 20.0,
            retry_cost: 5.0,
            timeout_cost: 10.0,
            success_refund: 1.0,
            refund: Refund::Fixed,
        });
        let mut client = ClientState::new(&policy);
        // 20 → 10 (timeout) → 5 (error) → 0 (error) → refused.
        assert!(client.allow_retry(&policy, Failure::Timeout, 0.0));
        assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        assert_eq!(client.tokens(), 0.0);
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
        // Five successes put 5 back: one error retry, not a timeout retry.
        for _ in 0..5 {
            client.on_success(&policy, 0.0, Some(Failure::Error));
        }
        assert!(!client.allow_retry(&policy, Failure::Timeout, 0.0));
        assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
    }

    /// Brooker's adaptive bucket: capacity 5, 0.1 per payment, a retry needs more than 1.
    #[test]
    fn an_adaptive_bucket_needs_more_than_one_token() {
        let mut policy = policy();
        policy.adaptive_bucket = Some(AdaptiveBucket {
            deposit: 0.1,
            capacity: 5.0,
        });
        let mut client = ClientState::new(&policy);
        // 5 → 4 → 3 → 2 → 1, and 1 is not more than 1.
        for _ in 0..4 {
            assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        }
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
        // Five payments later it holds 1.5: one retry, then 0.5 is not enough.
        for _ in 0..5 {
            client.on_payment(&policy, 0.0);
        }
        assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
    }

    /// A breaker with a cool-down: trips, stays open, half-opens for one probe, reopens on
    /// the probe's failure, closes on a success.
    #[test]
    fn a_breaker_opens_and_half_opens() {
        let mut policy = policy();
        policy.breaker = Some(Breaker {
            threshold: 0.5,
            window_ms: None,
            cooldown_ms: Some(1_000.0),
        });
        let mut client = ClientState::new(&policy);
        for _ in 0..2 {
            client.on_payment(&policy, 0.0);
        }
        // 1 failure / 2 payments = 0.5: not above, retry allowed.
        client.on_failure(&policy, 10.0);
        assert!(client.allow_retry(&policy, Failure::Error, 10.0));
        // 2 / 2 = 1 > 0.5: opens at 20 ms until 1,020 ms.
        client.on_failure(&policy, 20.0);
        assert!(!client.allow_retry(&policy, Failure::Error, 20.0));
        assert!(client.breaker_open());
        client.on_failure(&policy, 500.0);
        assert!(!client.allow_retry(&policy, Failure::Error, 1_019.0));
        // Cool-down over: one probe goes out, a second retry does not.
        assert!(client.allow_retry(&policy, Failure::Error, 1_020.0));
        assert!(!client.allow_retry(&policy, Failure::Error, 1_021.0));
        // The probe fails: open again until 1,100 + 1,000.
        client.on_failure(&policy, 1_100.0);
        assert!(!client.allow_retry(&policy, Failure::Error, 2_099.0));
        assert!(client.allow_retry(&policy, Failure::Error, 2_100.0));
        // A success closes it and starts the counts again.
        client.on_success(&policy, 2_200.0, None);
        assert!(!client.breaker_open());
        client.on_payment(&policy, 2_300.0);
        client.on_failure(&policy, 2_400.0);
        // 1 / 1 > 0.5: trips again.
        assert!(!client.allow_retry(&policy, Failure::Error, 2_400.0));
    }

    /// Without a cool-down the breaker is Brooker's ratio gate, over tumbling windows here.
    #[test]
    fn a_breaker_without_cooldown_gates_by_ratio_per_window() {
        let mut policy = policy();
        policy.breaker = Some(Breaker {
            threshold: 0.1,
            window_ms: Some(1_000.0),
            cooldown_ms: None,
        });
        let mut client = ClientState::new(&policy);
        for _ in 0..10 {
            client.on_payment(&policy, 0.0);
        }
        client.on_failure(&policy, 1.0);
        assert!(client.allow_retry(&policy, Failure::Error, 1.0));
        client.on_failure(&policy, 2.0);
        assert!(!client.allow_retry(&policy, Failure::Error, 2.0));
        // The next window starts from nothing: 1 failure / max(0, 1) payments = 1 > 0.1.
        client.on_failure(&policy, 1_500.0);
        assert!(!client.allow_retry(&policy, Failure::Error, 1_500.0));
        client.on_payment(&policy, 1_600.0);
        assert!(!client.allow_retry(&policy, Failure::Error, 1_600.0));
    }

    #[test]
    fn a_retry_ratio_caps_retries_per_payment() {
        let mut policy = policy();
        policy.retry_ratio = Some(0.1);
        let mut client = ClientState::new(&policy);
        for _ in 0..9 {
            client.on_payment(&policy, 0.0);
        }
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
        client.on_payment(&policy, 0.0);
        assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
    }

    /// The load loop's decision after a failed attempt (`fail` in `simulation.rs`): give up
    /// once `max_retries` retries were sent, else ask the client state; the delay of a retry.
    fn decide(
        client: &mut ClientState,
        policy: &LoadClient,
        retries: u32,
        failure: Failure,
        u: f64,
    ) -> Option<f64> {
        if retries >= policy.max_retries || !client.allow_retry(policy, failure, 0.0) {
            return None;
        }
        Some(policy.backoff.delay_ms(retries, 0.0, u))
    }

    /// benches/botocore_conformance.sh: botocore's RetryHandler and RetryQuotaChecker on
    /// seeded sequences of payments, successes, 500s and timeouts, one client's quota, in its
    /// classic standard mode and in retry behaviour 2.1. Every decision, every delay and the
    /// tokens after every event agree (the delays to 1e-12: botocore multiplies seconds).
    #[test]
    fn retry_clients_decide_as_botocore_does() {
        let text = include_str!("../../../benches/botocore_retry_reference.csv");
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let mut state: Option<(&str, LoadClient, ClientState)> = None;
        let mut payments: std::collections::HashMap<u64, (u32, Option<Failure>)> =
            std::collections::HashMap::new();
        let mut refusals = 0;
        let mut rows = 0;
        for record in reader.records() {
            let record = record.unwrap();
            let mode = record[0].to_string();
            if state.as_ref().is_none_or(|(current, ..)| *current != mode) {
                let shipped = RetryClient::named(&mode).expect("a retry client");
                let mut policy = policy();
                policy.max_retries = shipped.max_retries();
                policy.backoff = shipped.backoff();
                policy.token_bucket = Some(shipped.token_bucket());
                let client = ClientState::new(&policy);
                state = Some((
                    RetryClient::NAMES
                        [RetryClient::ALL.iter().position(|c| *c == shipped).unwrap()],
                    policy,
                    client,
                ));
                payments.clear();
            }
            let (_, policy, client) = state.as_mut().unwrap();
            let payment: u64 = record[2].parse().unwrap();
            let at = format!("{mode} step {}", &record[1]);
            match &record[3] {
                "call" => {
                    client.on_payment(policy, 0.0);
                    payments.insert(payment, (0, None));
                }
                "ok" => {
                    let (_, last_retry) = payments.remove(&payment).unwrap();
                    client.on_success(policy, 0.0, last_retry);
                }
                event => {
                    let failure = if event == "timeout" {
                        Failure::Timeout
                    } else {
                        Failure::Error
                    };
                    let (retries, _) = payments[&payment];
                    let u: f64 = record[5].parse().unwrap();
                    match (decide(client, policy, retries, failure, u), &record[6]) {
                        (Some(delay), "retry") => {
                            let expected: f64 = record[7].parse().unwrap();
                            assert!(
                                (delay - expected).abs() <= 1e-12 * expected,
                                "{at}: {delay} vs {expected}"
                            );
                            payments.insert(payment, (retries + 1, Some(failure)));
                        }
                        (None, "give_up") => {
                            refusals += u32::from(retries < policy.max_retries);
                            payments.remove(&payment);
                        }
                        (ours, botocore) => panic!("{at}: ours {ours:?}, botocore {botocore}"),
                    }
                }
            }
            let tokens: f64 = record[8].parse().unwrap();
            assert_eq!(client.tokens(), tokens, "{at}: tokens");
            rows += 1;
        }
        assert_eq!(rows, 4000);
        // The quota ran dry (retries refused before the third attempt) in both modes.
        assert!(refusals > 500, "{refusals} refusals");
    }
}
