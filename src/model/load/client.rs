//! A client's retry control: the AWS SDK's retry token bucket, Brooker's adaptive bucket, a
//! circuit breaker on retries and the SRE retry-ratio budget, gRPC's retry throttling, Envoy's
//! concurrent retry budget, Finagle's windowed retry budget and the SRE book's adaptive
//! throttling, each optional and combined (a retry goes out only if every configured mechanism
//! lets it); and the retry clients as they ship, by name ([`RetryClient`]).

use engine::backoff::Backoff;

use super::LoadClient;

/// A retry client as an SDK or proxy ships it, by name: its attempts, backoff and retry
/// control, each of which a file may override.
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
    /// gRPC's retries (gRFC A6): the retry policy of the gRFC's example (4 attempts,
    /// `random(0, min(0.1 s × 2^(n-1), 1 s))`) and its retry throttling (10 tokens, 0.1 a
    /// success, [`RetryThrottling`]).
    Grpc,
    /// Envoy's router retries: `num_retries` 1, backoff `random(0, min(25 ms × 2^(n-1),
    /// 250 ms))` and the cluster's retry budget (20%, at least 3, [`ConcurrentRetryBudget`]).
    Envoy,
    /// Finagle's client: `RetryBudget()` (10 s, 10 retries a second, 20%,
    /// [`WindowedRetryBudget`]), no backoff (its requeue default), 3 retries (a choice: the
    /// budget has no per-request limit).
    Finagle,
    /// The SRE book's client (chapter 21, "Handling Overload"): adaptive throttling (K = 2
    /// over 2 minutes, [`AdaptiveThrottling`]), at most 3 attempts per request, retries at most
    /// 10% of requests; full jitter 100 ms to 5 s (a choice: the book names no numbers).
    GoogleSre,
}

impl RetryClient {
    /// Every retry client's name, as a file writes it, in [`RetryClient::ALL`]'s order.
    pub const NAMES: &[&str] = &[
        "aws_standard",
        "aws_standard_2_1",
        "grpc",
        "envoy",
        "finagle",
        "google_sre",
    ];
    /// Every retry client.
    pub const ALL: [RetryClient; 6] = [
        RetryClient::AwsStandard,
        RetryClient::AwsStandard21,
        RetryClient::Grpc,
        RetryClient::Envoy,
        RetryClient::Finagle,
        RetryClient::GoogleSre,
    ];

    /// The client named `name`, if one is.
    pub fn named(name: &str) -> Option<Self> {
        Self::NAMES
            .iter()
            .position(|known| *known == name)
            .map(|index| Self::ALL[index])
    }

    /// Retries after the first attempt: botocore's `max_attempts` 3, gRFC A6's example
    /// `maxAttempts` 4, Envoy's `num_retries` 1, 3 for Finagle (a choice), the SRE book's 3
    /// attempts; each less the first.
    pub fn max_retries(self) -> u32 {
        match self {
            RetryClient::AwsStandard | RetryClient::AwsStandard21 | RetryClient::GoogleSre => 2,
            RetryClient::Grpc | RetryClient::Finagle => 3,
            RetryClient::Envoy => 1,
        }
    }

    /// The most retries the client sends whatever a file asks: gRFC A6's client-side
    /// `maxAttempts` limit of 5, less the first; no limit for the others.
    pub fn retries_cap(self) -> Option<u32> {
        match self {
            RetryClient::Grpc => Some(GRPC_MAX_ATTEMPTS - 1),
            _ => None,
        }
    }

    /// The wait before a retry: full jitter, `uniform(0, min(cap, base × 2^retry))` with
    /// `retry` = 0 for the first, which is botocore's `random() × min(2^(attempt - 1), 20)`
    /// seconds for the 1-based attempt that failed, gRFC A6's `random(0,
    /// min(initialBackoff × backoffMultiplier^(n-1), maxBackoff))` with multiplier 2 and
    /// Envoy's `JitteredExponentialBackOffStrategy` (`random() % next_interval`, the interval
    /// doubling from 25 ms up to 250 ms); none for Finagle.
    pub fn backoff(self) -> Backoff {
        let (base_ms, cap_ms) = match self {
            RetryClient::AwsStandard => (1000.0, 20_000.0),
            RetryClient::AwsStandard21 => (50.0, 20_000.0),
            RetryClient::Grpc => (100.0, 1_000.0),
            RetryClient::Envoy => (25.0, 250.0),
            RetryClient::Finagle => return Backoff::None,
            RetryClient::GoogleSre => (100.0, 5_000.0),
        };
        Backoff::FullJitter { base_ms, cap_ms }
    }

    /// The retry quota of the AWS clients: botocore's `RetryQuota(500)` and
    /// `RetryQuotaChecker`'s costs; none for the others.
    pub fn token_bucket(self) -> Option<TokenBucket> {
        let (retry_cost, timeout_cost) = match self {
            RetryClient::AwsStandard => (5.0, 10.0),
            RetryClient::AwsStandard21 => (14.0, 14.0),
            _ => return None,
        };
        Some(TokenBucket {
            capacity: 500.0,
            retry_cost,
            timeout_cost,
            success_refund: 1.0,
            refund: Refund::LastRetryCost,
        })
    }

    /// The retry controls other than the AWS quota: gRPC's throttling, Envoy's budget,
    /// Finagle's budget, the SRE book's adaptive throttling.
    pub fn controls(self) -> RetryControls {
        let mut controls = RetryControls::default();
        match self {
            RetryClient::Grpc => {
                controls.retry_throttling = Some(RetryThrottling {
                    max_tokens: 10.0,
                    token_ratio: 0.1,
                });
            }
            RetryClient::Envoy => {
                controls.concurrent_retry_budget = Some(ConcurrentRetryBudget {
                    budget_percent: 20.0,
                    min_retry_concurrency: 3,
                });
            }
            RetryClient::Finagle => {
                controls.windowed_retry_budget = Some(WindowedRetryBudget {
                    ttl_s: 10,
                    min_retries_per_s: 10,
                    percent_can_retry: 0.2,
                });
            }
            RetryClient::GoogleSre => {
                controls.adaptive_throttling = Some(AdaptiveThrottling {
                    k: 2.0,
                    window_ms: 120_000.0,
                });
            }
            RetryClient::AwsStandard | RetryClient::AwsStandard21 => {}
        }
        controls
    }

    /// The SRE book's per-client retry budget for [`RetryClient::GoogleSre`]: retries at most
    /// 10% of requests; none for the others.
    pub fn retry_ratio(self) -> Option<f64> {
        (self == RetryClient::GoogleSre).then_some(0.1)
    }
}

/// gRFC A6's client-side limit on `maxAttempts`: "by default, a client-side maximum value of 5".
pub const GRPC_MAX_ATTEMPTS: u32 = 5;

/// The retry controls of the shipped clients other than the AWS quota, each optional.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RetryControls {
    /// gRPC's retry throttling, per client (gRFC A6's "per server name").
    pub retry_throttling: Option<RetryThrottling>,
    /// Envoy's retry budget, per client (an Envoy's cluster).
    pub concurrent_retry_budget: Option<ConcurrentRetryBudget>,
    /// Finagle's retry budget, per client.
    pub windowed_retry_budget: Option<WindowedRetryBudget>,
    /// The SRE book's client-side adaptive throttling, per client.
    pub adaptive_throttling: Option<AdaptiveThrottling>,
}

/// gRFC A6's retry throttling ("Throttling Retry Attempts and Hedged RPCs"): `token_count`
/// starts at `max_tokens`, every failed attempt takes 1 (not below 0), every success adds
/// `token_ratio` (not above `max_tokens`); a retry goes out only while `token_count >
/// max_tokens / 2`. Counted in thousandths of a token, as gRPC's C core does (`tokenRatio`
/// has at most 3 decimals), so the comparisons are exact.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryThrottling {
    /// `maxTokens` (tokens, more than 0, at most 1000).
    pub max_tokens: f64,
    /// `tokenRatio` (tokens a success adds, more than 0, at most 1; rounded to 0.001).
    pub token_ratio: f64,
}

impl RetryThrottling {
    /// `max_tokens` in thousandths.
    fn max_milli(&self) -> i64 {
        (self.max_tokens * 1000.0).round() as i64
    }

    /// `token_ratio` in thousandths.
    fn ratio_milli(&self) -> i64 {
        (self.token_ratio * 1000.0).round() as i64
    }
}

/// Envoy's cluster retry budget (`circuit_breakers.thresholds.retry_budget`): a retry goes out
/// only while the client's active retries are fewer than `max(budget_percent% × (active
/// requests + pending requests), min_retry_concurrency)` (the product truncated, as
/// `RetryBudgetImpl::max` converts it to an integer). A retry is active from when it is
/// allowed, through its backoff, until its attempt is answered or times out; an active
/// request is an attempt sent and not yet answered or timed out (this model has no
/// connection pool, so nothing is pending).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConcurrentRetryBudget {
    /// `budget_percent` (percent of active requests, 0 to 100).
    pub budget_percent: f64,
    /// `min_retry_concurrency` (retries).
    pub min_retry_concurrency: u32,
}

/// Finagle's `RetryBudget(ttl, minRetriesPerSec, percentCanRetry)`: every new payment deposits
/// 1000 units, a retry withdraws `floor(1000 / percent_can_retry)` if the balance, a reserve
/// of `min_retries_per_s × ttl_s` withdrawals plus what was deposited less what was withdrawn
/// within the window, covers it. The window is Finagle's `WindowedAdder(ttl, 10 slices)`: ten
/// slices of `ttl_s / 10` seconds, the current one and the nine before it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowedRetryBudget {
    /// `ttl` (whole seconds, 1 to 60).
    pub ttl_s: u32,
    /// `minRetriesPerSec` (retries per second).
    pub min_retries_per_s: u32,
    /// `percentCanRetry` (retries per payment, more than 0, at most 1000).
    pub percent_can_retry: f64,
}

impl WindowedRetryBudget {
    /// Finagle's `ScaleFactor`: a deposit's units.
    const DEPOSIT: i64 = 1000;

    /// What a retry withdraws (units): `(ScaleFactor / percentCanRetry).toInt`.
    fn withdrawal(&self) -> i64 {
        (1000.0 / self.percent_can_retry) as i64
    }

    /// The reserve (units): `minRetriesPerSec × ttl.inSeconds × withdrawalAmount`.
    fn reserve(&self) -> i64 {
        i64::from(self.min_retries_per_s) * i64::from(self.ttl_s) * self.withdrawal()
    }
}

/// The SRE book's client-side adaptive throttling (chapter 21, "Client-Side Throttling"):
/// before each attempt the client rejects it itself with probability `max(0, (requests −
/// k × accepts) / (requests + 1))`, `requests` the attempts it tried (rejected ones too) and
/// `accepts` the success answers it got, both over the last `window_ms`. A rejected attempt
/// fails its payment at once (no retry): it counts as throttled. The window is 120 slices of
/// `window_ms / 120` (1 s for the book's 2 minutes), the current one and the 119 before it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveThrottling {
    /// The multiplier `K` (at least 1; the book's 2).
    pub k: f64,
    /// The window of the counts (ms; the book's 2 minutes).
    pub window_ms: f64,
}

/// Slices of the adaptive throttling's window.
pub const ADAPTIVE_SLICES: usize = 120;
/// Slices of Finagle's `WindowedAdder`.
pub const FINAGLE_SLICES: usize = 10;

/// Sums over a sliding window of `N` slices of `width_ms`: the current slice (the one `now`
/// falls in, counting from 0 ms) and the `N - 1` before it. Memory is `N` values whatever the
/// rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Slices<T, const N: usize> {
    /// A slice's width (ms).
    width_ms: f64,
    /// The index of the newest slice written or rolled to.
    head: i64,
    /// Each slice's sum, slice `i` at `i mod N`.
    values: [T; N],
}

impl<T: Copy + Default + std::ops::AddAssign + std::iter::Sum, const N: usize> Slices<T, N> {
    /// Empty slices of `width_ms`.
    pub fn new(width_ms: f64) -> Self {
        Self {
            width_ms,
            head: 0,
            values: [T::default(); N],
        }
    }

    /// Moves the window to `now_ms`: slices that left it are emptied.
    fn roll(&mut self, now_ms: f64) {
        let slice = (now_ms / self.width_ms).floor() as i64;
        if slice <= self.head {
            return;
        }
        let steps = (slice - self.head).min(N as i64);
        for step in 1..=steps {
            self.values[(self.head + step).rem_euclid(N as i64) as usize] = T::default();
        }
        self.head = slice;
    }

    /// Adds `value` at `now_ms`.
    pub fn add(&mut self, now_ms: f64, value: T) {
        self.roll(now_ms);
        self.values[self.head.rem_euclid(N as i64) as usize] += value;
    }

    /// The sum over the window at `now_ms`.
    pub fn sum(&mut self, now_ms: f64) -> T {
        self.roll(now_ms);
        self.values.iter().copied().sum()
    }
}

/// The state of gRPC's throttling, Envoy's and Finagle's budgets and the adaptive throttling:
/// boxed, and only there when one of them is configured, so a client without them stays small.
#[derive(Debug, Clone, PartialEq)]
pub struct ControlState {
    /// gRPC's `token_count`, in thousandths of a token.
    grpc_milli_tokens: i64,
    /// Attempts sent and neither answered nor timed out (Envoy's active requests).
    active: u32,
    /// Retries allowed whose attempt is not answered or timed out yet (Envoy's active retries).
    active_retries: u32,
    /// Finagle's deposits less withdrawals (units).
    finagle: Slices<i64, FINAGLE_SLICES>,
    /// The adaptive throttling's attempts tried.
    requests: Slices<u64, ADAPTIVE_SLICES>,
    /// The adaptive throttling's success answers.
    accepts: Slices<u64, ADAPTIVE_SLICES>,
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
#[derive(Debug, Clone)]
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
    /// gRPC's, Envoy's, Finagle's and the adaptive throttling's state, when configured.
    controls: Option<Box<ControlState>>,
}

impl ClientState {
    /// A fresh client: buckets full, breaker closed, windows empty.
    pub fn new(policy: &LoadClient) -> Self {
        let controls = &policy.controls;
        let finagle_ms = controls
            .windowed_retry_budget
            .map_or(1000.0, |budget| f64::from(budget.ttl_s) * 1000.0);
        let adaptive_ms = controls
            .adaptive_throttling
            .map_or(1000.0, |throttling| throttling.window_ms);
        let state = (*controls != RetryControls::default()).then(|| {
            Box::new(ControlState {
                grpc_milli_tokens: controls
                    .retry_throttling
                    .map_or(0, |throttling| throttling.max_milli()),
                active: 0,
                active_retries: 0,
                finagle: Slices::new(finagle_ms / FINAGLE_SLICES as f64),
                requests: Slices::new(adaptive_ms / ADAPTIVE_SLICES as f64),
                accepts: Slices::new(adaptive_ms / ADAPTIVE_SLICES as f64),
            })
        });
        Self {
            tokens: policy.token_bucket.map_or(0.0, |bucket| bucket.capacity),
            adaptive: policy.adaptive_bucket.map_or(0.0, |bucket| bucket.capacity),
            calls: 0,
            failures: 0,
            window_start_ms: 0.0,
            state: BreakerState::Closed,
            payments: 0,
            retries: 0,
            controls: state,
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
        if policy.controls.windowed_retry_budget.is_some()
            && let Some(windows) = &mut self.controls
        {
            windows.finagle.add(now_ms, WindowedRetryBudget::DEPOSIT);
        }
    }

    /// Whether the adaptive throttling rejects the attempt the client is about to send at
    /// `now_ms`: with probability `max(0, (requests − K × accepts) / (requests + 1))` over the
    /// window, `draw` giving a uniform number in `[0, 1)` only when that is above 0. The
    /// attempt counts as a request either way. `false` without adaptive throttling.
    pub fn rejects_attempt(
        &mut self,
        policy: &LoadClient,
        now_ms: f64,
        draw: impl FnOnce() -> f64,
    ) -> bool {
        let (Some(throttling), Some(windows)) =
            (policy.controls.adaptive_throttling, &mut self.controls)
        else {
            return false;
        };
        let probability = rejection_probability(
            windows.requests.sum(now_ms),
            windows.accepts.sum(now_ms),
            throttling.k,
        );
        windows.requests.add(now_ms, 1);
        probability > 0.0 && draw() < probability
    }

    /// The client sends an attempt (Envoy's active requests).
    pub fn on_send(&mut self) {
        if let Some(state) = &mut self.controls {
            state.active += 1;
        }
    }

    /// The client stops waiting for an attempt, answered or timed out; `retry` if it was a
    /// retry (Envoy's active retries).
    pub fn on_attempt_end(&mut self, retry: bool) {
        if let Some(state) = &mut self.controls {
            state.active = state.active.saturating_sub(1);
            if retry {
                state.active_retries = state.active_retries.saturating_sub(1);
            }
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
        if let Some(state) = &mut self.controls {
            if let Some(throttling) = policy.controls.retry_throttling {
                state.grpc_milli_tokens = (state.grpc_milli_tokens + throttling.ratio_milli())
                    .min(throttling.max_milli());
            }
            if policy.controls.adaptive_throttling.is_some() {
                state.accepts.add(now_ms, 1);
            }
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
        if policy.controls.retry_throttling.is_some()
            && let Some(state) = &mut self.controls
        {
            state.grpc_milli_tokens = (state.grpc_milli_tokens - 1000).max(0);
        }
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
    /// Mechanisms are asked in order (breaker, AWS bucket, adaptive bucket, ratio, gRPC
    /// throttling, Envoy budget, Finagle budget) and the first refusal stops: a refused retry
    /// costs nothing.
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
        let controls = &policy.controls;
        if let Some(state) = &mut self.controls {
            if let Some(throttling) = controls.retry_throttling
                && state.grpc_milli_tokens <= throttling.max_milli() / 2
            {
                return false;
            }
            if let Some(budget) = controls.concurrent_retry_budget {
                let share = (budget.budget_percent / 100.0 * f64::from(state.active)) as u32;
                if state.active_retries >= share.max(budget.min_retry_concurrency) {
                    return false;
                }
            }
            if let Some(budget) = controls.windowed_retry_budget {
                let withdrawal = budget.withdrawal();
                if state.finagle.sum(now_ms) + budget.reserve() < withdrawal {
                    return false;
                }
                state.finagle.add(now_ms, -withdrawal);
            }
            if controls.concurrent_retry_budget.is_some() {
                state.active_retries += 1;
            }
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

    /// gRPC's `token_count` (tokens).
    pub fn grpc_tokens(&self) -> f64 {
        self.controls
            .as_ref()
            .map_or(0.0, |state| state.grpc_milli_tokens as f64 / 1000.0)
    }
}

/// The SRE book's client request rejection probability, `max(0, (requests − k × accepts) /
/// (requests + 1))`.
pub fn rejection_probability(requests: u64, accepts: u64, k: f64) -> f64 {
    ((requests as f64 - k * accepts as f64) / (requests as f64 + 1.0)).max(0.0)
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

    /// gRFC A6 worked by hand with the gRFC's example throttling, maxTokens 10 and tokenRatio
    /// 0.1: the threshold is 10 / 2 = 5; retries go out only while token_count > 5.
    #[test]
    fn grpc_throttling_retries_only_above_half_the_tokens() {
        let mut policy = policy();
        policy.controls.retry_throttling = Some(RetryThrottling {
            max_tokens: 10.0,
            token_ratio: 0.1,
        });
        let mut client = ClientState::new(&policy);
        assert_eq!(client.grpc_tokens(), 10.0);
        // Failures 1 to 4: 9, 8, 7, 6 tokens, each above 5: retry.
        for left in [9.0, 8.0, 7.0, 6.0] {
            client.on_failure(&policy, 0.0);
            assert_eq!(client.grpc_tokens(), left);
            assert!(client.allow_retry(&policy, Failure::Error, 0.0), "{left}");
        }
        // The fifth: 5 is not above 5.
        client.on_failure(&policy, 0.0);
        assert_eq!(client.grpc_tokens(), 5.0);
        assert!(!client.allow_retry(&policy, Failure::Timeout, 0.0));
        // One success: 5.1 > 5, a retry may go out again.
        client.on_success(&policy, 0.0, None);
        assert_eq!(client.grpc_tokens(), 5.1);
        assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        // The next failure takes it to 4.1: nine successes make 5.0, still not above 5;
        // the tenth makes 5.1.
        client.on_failure(&policy, 0.0);
        assert_eq!(client.grpc_tokens(), 4.1);
        for _ in 0..9 {
            client.on_success(&policy, 0.0, None);
        }
        assert_eq!(client.grpc_tokens(), 5.0);
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
        client.on_success(&policy, 0.0, None);
        assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        // Never above maxTokens, never below 0.
        for _ in 0..100 {
            client.on_success(&policy, 0.0, None);
        }
        assert_eq!(client.grpc_tokens(), 10.0);
        for _ in 0..20 {
            client.on_failure(&policy, 0.0);
        }
        assert_eq!(client.grpc_tokens(), 0.0);
    }

    /// Envoy's retry budget worked by hand, 20% and at least 3: with nothing in flight 3
    /// retries may be active; with 20 attempts in flight max(0.2 x 20, 3) = 4; with 24,
    /// 0.2 x 24 = 4.8 truncates to 4; with 25, 5. A retry's attempt ending frees its place.
    #[test]
    fn envoy_budget_counts_active_retries_against_active_requests() {
        let mut policy = policy();
        policy.controls.concurrent_retry_budget = Some(ConcurrentRetryBudget {
            budget_percent: 20.0,
            min_retry_concurrency: 3,
        });
        let mut client = ClientState::new(&policy);
        for _ in 0..3 {
            assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        }
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
        for _ in 0..20 {
            client.on_send();
        }
        assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
        for _ in 0..4 {
            client.on_send();
        }
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
        client.on_send();
        assert!(client.allow_retry(&policy, Failure::Error, 0.0));
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
        // A first attempt ending leaves 24 in flight: 4 allowed, 5 active, refused; a retry's
        // attempt ending too leaves 23 in flight and 4 active: still refused (4 >= 4); a
        // second retry's leaves 3 active, 22 in flight: one more.
        client.on_attempt_end(false);
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
        client.on_attempt_end(true);
        assert!(!client.allow_retry(&policy, Failure::Error, 0.0));
        client.on_attempt_end(true);
        assert!(client.allow_retry(&policy, Failure::Error, 0.0));
    }

    /// Finagle's default budget worked by hand: a withdrawal is 1000 / 0.2 = 5000 units, the
    /// reserve 10 retries/s x 10 s x 5000 = 500,000 units = 100 retries, a payment deposits
    /// 1000 (a fifth of a retry); everything counts for the 10 one-second slices from its own.
    #[test]
    fn finagle_budget_is_a_reserve_plus_a_fifth_of_payments_over_ten_seconds() {
        let mut policy = policy();
        policy.controls.windowed_retry_budget = Some(WindowedRetryBudget {
            ttl_s: 10,
            min_retries_per_s: 10,
            percent_can_retry: 0.2,
        });
        let mut client = ClientState::new(&policy);
        for retry in 0..100 {
            assert!(client.allow_retry(&policy, Failure::Error, 0.0), "{retry}");
        }
        assert!(!client.allow_retry(&policy, Failure::Error, 500.0));
        // Five payments in slice 5 pay for one retry; four more do not pay for another.
        for _ in 0..5 {
            client.on_payment(&policy, 5_000.0);
        }
        assert!(client.allow_retry(&policy, Failure::Error, 5_000.0));
        for _ in 0..4 {
            client.on_payment(&policy, 5_500.0);
        }
        assert!(!client.allow_retry(&policy, Failure::Error, 5_999.0));
        // At 9.999 s slice 0 still counts; at 10 s it has left: 100 withdrawals gone, the
        // balance is 500,000 + 9 x 1000 - 5000 = 504,000 units, 100 retries and 4,000 left.
        assert!(!client.allow_retry(&policy, Failure::Error, 9_999.0));
        for retry in 0..100 {
            assert!(
                client.allow_retry(&policy, Failure::Error, 10_000.0),
                "{retry}"
            );
        }
        assert!(!client.allow_retry(&policy, Failure::Error, 10_000.0));
        // One more payment makes 5000: one retry.
        client.on_payment(&policy, 10_000.0);
        assert!(client.allow_retry(&policy, Failure::Error, 10_000.0));
        assert!(!client.allow_retry(&policy, Failure::Error, 10_000.0));
    }

    /// The SRE book's formula worked by hand: 10 requests and 4 accepts with K = 2 reject
    /// with probability (10 - 8) / 11 = 2/11; 10 requests and 5 accepts never.
    #[test]
    fn the_sre_rejection_probability_is_the_books() {
        assert_eq!(rejection_probability(10, 4, 2.0), 2.0 / 11.0);
        assert_eq!(rejection_probability(10, 5, 2.0), 0.0);
        assert_eq!(rejection_probability(0, 0, 2.0), 0.0);
        assert_eq!(rejection_probability(3, 0, 2.0), 3.0 / 4.0);
        assert_eq!(rejection_probability(10, 4, 1.0), 6.0 / 11.0);
    }

    /// The adaptive throttling in a client: after 4 accepts and 10 requests the 11th attempt
    /// is rejected by a draw under 2/11 and sent with a draw over it (counting a request
    /// either way); counts two minutes old no longer count.
    #[test]
    fn adaptive_throttling_rejects_with_the_books_probability_over_its_window() {
        let mut policy = policy();
        policy.controls.adaptive_throttling = Some(AdaptiveThrottling {
            k: 2.0,
            window_ms: 120_000.0,
        });
        let mut client = ClientState::new(&policy);
        for _ in 0..4 {
            client.on_success(&policy, 0.0, None);
        }
        // Requests 1 to 10: at most (9 - 8) / 10 = 0.1 before each, never above the draw.
        for _ in 0..10 {
            assert!(!client.rejects_attempt(&policy, 500.0, || 0.11));
        }
        let mut asked = None;
        let rejected = client.rejects_attempt(&policy, 1_000.0, || {
            asked = Some(());
            2.0 / 11.0 - 1e-12
        });
        assert!(rejected && asked.is_some());
        // 11 requests, 4 accepts: (11 - 8) / 12 = 1/4.
        assert!(!client.rejects_attempt(&policy, 1_000.0, || 0.25));
        // At 119.999 s (slice 119) the slice of 0 s still counts: (12 - 8) / 13 > 0.
        assert!(client.rejects_attempt(&policy, 119_999.0, || 0.0));
        // 120.5 s: only the requests of 1 s (2) and 119.999 s (1) remain, no accepts: 3 / 4.
        assert!(client.rejects_attempt(&policy, 120_500.0, || 0.75 - 1e-12));
        // 241 s: everything has left; p = 0 and no draw is taken.
        assert!(!client.rejects_attempt(&policy, 241_000.0, || panic!("no draw at p = 0")));
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
                policy.token_bucket = shipped.token_bucket();
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
