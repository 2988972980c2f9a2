//! What a client does after its retry window (issue #34): a mobile client that loses the
//! network right after its first send and resends with the same key when it reconnects, and
//! the reconciliation look-up by key after a payment was given up; with the two draws per
//! payment these need, read from a fourth stream so that the other streams' draws are the
//! same with and without them.

use engine::distribution::{Distribution, Sampler};
use engine::rng::{PcgState, unit_f64};

/// The longest offline period a payment can draw (ms): 10^12 ms, about 31.7 years, the
/// longest key TTL; a longer draw (a distribution's far tail) is cut to it.
pub const MAX_OFFLINE_MS: f64 = 1e12;

/// Clients that lose the network right after sending their first attempt.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Offline {
    /// Share of payments whose first copy's client goes offline right after its first send
    /// (0 to 1): it never receives that attempt's response.
    pub share: f64,
    /// How long it stays offline (ms); on reconnect it resends with the same key, as its
    /// first retry (within `max_retries`), and retries as usual after that.
    pub duration: Distribution,
}

/// The look-up by key after a payment was given up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reconciliation {
    /// The client (or a nightly job) looks the payment up by its key this long after it was
    /// given up (ms, more than 0).
    pub after_ms: f64,
}

/// The client's life beyond its retry window: going offline, and reconciling by key.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ClientLifecycle {
    /// Clients that go offline after their first send; `None`: none do.
    pub offline: Option<Offline>,
    /// The look-up after giving up; `None`: no reconciliation.
    pub reconciliation: Option<Reconciliation>,
}

impl ClientLifecycle {
    /// Whether either is written (then the reports add their counters and metrics; a
    /// `[client.offline]` table with a share of 0, as a sweep's first point may have, is
    /// reported too, as zeros).
    pub fn is_used(&self) -> bool {
        self.offline.is_some() || self.reconciliation.is_some()
    }

    /// The offline settings when some client can go offline.
    pub fn offline(&self) -> Option<Offline> {
        self.offline.filter(|offline| offline.share > 0.0)
    }
}

/// Uniform draws each payment has in the client stream: goes offline, offline duration.
pub const CLIENT_DRAWS_PER_PAYMENT: u128 = 2;

/// One payment's client draws, read from its slice of the run's client stream
/// (`SeedSequence(seed, spawn_key=(run, 3))`, two draws a payment) when a scenario has offline
/// clients; otherwise no client goes offline.
#[derive(Debug, Clone, Copy)]
pub struct ClientDraws {
    /// Whether the payment's first client goes offline, and for how long (ms).
    offline_ms: Option<f64>,
    /// The scenario's offline settings, with the duration ready to sample.
    offline: Option<(f64, Sampler)>,
}

impl ClientDraws {
    /// Draws per payment in the client stream for `lifecycle`: 0 when no client goes offline.
    pub fn stride(lifecycle: &ClientLifecycle) -> u128 {
        if lifecycle.offline().is_some() {
            CLIENT_DRAWS_PER_PAYMENT
        } else {
            0
        }
    }

    /// Empty draws for the payments of a scenario with `lifecycle`.
    pub fn new(lifecycle: &ClientLifecycle) -> Self {
        Self {
            offline_ms: None,
            offline: lifecycle
                .offline()
                .map(|offline| (offline.share, offline.duration.sampler())),
        }
    }

    /// Reads the next payment's draws from `stream`, leaving it at the payment after.
    pub fn read(&mut self, stream: &mut PcgState) {
        let (goes, duration) = (unit_f64(stream.next_u64()), unit_f64(stream.next_u64()));
        self.offline_ms = self.offline.and_then(|(share, sampler)| {
            (goes < share).then(|| sampler.quantile(duration).clamp(0.0, MAX_OFFLINE_MS))
        });
    }

    /// How long the payment's first client stays offline after its first send (ms), if it
    /// goes offline.
    pub fn offline_ms(&self) -> Option<f64> {
        self.offline_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_of_payments_goes_offline_for_the_drawn_duration() {
        let lifecycle = ClientLifecycle {
            offline: Some(Offline {
                share: 0.25,
                duration: Distribution::Uniform {
                    low_ms: 1_000.0,
                    high_ms: 3_000.0,
                },
            }),
            reconciliation: None,
        };
        assert!(lifecycle.is_used());
        assert_eq!(ClientDraws::stride(&lifecycle), 2);
        let mut draws = ClientDraws::new(&lifecycle);
        let mut stream = engine::rng::SeedSequence::new(7).pcg_state();
        let (mut offline, payments) = (0, 40_000);
        for _ in 0..payments {
            draws.read(&mut stream);
            if let Some(ms) = draws.offline_ms() {
                assert!((1_000.0..=3_000.0).contains(&ms), "{ms}");
                offline += 1;
            }
        }
        // Binomial(40,000, 0.25): sd 86.6; 5 sd either way.
        assert!((offline as f64 - 10_000.0).abs() < 5.0 * 86.6, "{offline}");
    }

    #[test]
    fn no_share_draws_nothing() {
        let lifecycle = ClientLifecycle {
            offline: Some(Offline {
                share: 0.0,
                duration: Distribution::Fixed { ms: 1.0 },
            }),
            reconciliation: None,
        };
        // Written, so reported (as zeros), but nothing is drawn.
        assert!(lifecycle.is_used());
        assert_eq!(ClientDraws::stride(&lifecycle), 0);
        assert!(!ClientLifecycle::default().is_used());
        let with_reconciliation = ClientLifecycle {
            reconciliation: Some(Reconciliation { after_ms: 1.0 }),
            ..ClientLifecycle::default()
        };
        assert!(with_reconciliation.is_used());
        assert_eq!(ClientDraws::stride(&with_reconciliation), 0);
    }
}
