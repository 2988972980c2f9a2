//! Retry backoff policies, as defined in the AWS Architecture Blog's "Exponential Backoff And
//! Jitter" (Marc Brooker, 2015). Each is a pure function of the retry number, the previous
//! sleep and one uniform draw.

/// How long a client waits before a retry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Backoff {
    /// Retry at once.
    None,
    /// Always `base_ms`.
    Constant {
        /// The wait (ms, at least 0).
        base_ms: f64,
    },
    /// `min(cap_ms, base_ms * 2^retry)`.
    Exponential {
        /// The first wait (ms, at least 0).
        base_ms: f64,
        /// The longest wait (ms, at least 0).
        cap_ms: f64,
    },
    /// `uniform(0, min(cap_ms, base_ms * 2^retry))`.
    FullJitter {
        /// The first wait's ceiling (ms, at least 0).
        base_ms: f64,
        /// The longest wait (ms, at least 0).
        cap_ms: f64,
    },
    /// `temp / 2 + uniform(0, temp / 2)` with `temp = min(cap_ms, base_ms * 2^retry)`.
    EqualJitter {
        /// The first wait's ceiling (ms, at least 0).
        base_ms: f64,
        /// The longest wait (ms, at least 0).
        cap_ms: f64,
    },
    /// `min(cap_ms, uniform(base_ms, previous * 3))`, the previous sleep starting at `base_ms`.
    DecorrelatedJitter {
        /// The shortest wait and the first "previous sleep" (ms, at least 0).
        base_ms: f64,
        /// The longest wait (ms, at least 0).
        cap_ms: f64,
    },
}

/// `2^exponent`, exactly (what `2f64.powi(exponent)` computes, without its loop of
/// multiplications): the bits of a normal `f64` with that exponent and no fraction.
#[inline(always)]
fn power_of_two(exponent: u32) -> f64 {
    assert!(
        exponent <= 1_000,
        "2^{exponent} is beyond the waits a backoff uses"
    );
    f64::from_bits((1_023 + u64::from(exponent)) << 52)
}

impl Backoff {
    /// The wait before retry number `retry` (0 for the first retry), given the previous wait
    /// (`previous_ms`, ignored by all but decorrelated jitter; pass `base_ms` before the first
    /// retry, see [`Backoff::initial_ms`]) and a uniform draw `u` in `[0, 1)`.
    pub fn delay_ms(&self, retry: u32, previous_ms: f64, u: f64) -> f64 {
        let exponential =
            |base_ms: f64, cap_ms: f64| cap_ms.min(base_ms * power_of_two(retry.min(1_000)));
        match *self {
            Backoff::None => 0.0,
            Backoff::Constant { base_ms } => base_ms,
            Backoff::Exponential { base_ms, cap_ms } => exponential(base_ms, cap_ms),
            Backoff::FullJitter { base_ms, cap_ms } => exponential(base_ms, cap_ms) * u,
            Backoff::EqualJitter { base_ms, cap_ms } => {
                let temp = exponential(base_ms, cap_ms);
                temp / 2.0 + temp / 2.0 * u
            }
            Backoff::DecorrelatedJitter { base_ms, cap_ms } => {
                cap_ms.min(base_ms + (previous_ms * 3.0 - base_ms) * u)
            }
        }
    }

    /// The longest wait before retry number `retry` (0 for the first) over every draw (ms):
    /// 0, `base_ms`, or `min(cap_ms, base_ms × 2^retry)` for the exponential, full and equal
    /// jitter, and `min(cap_ms, base_ms × 3^(retry + 1))` for decorrelated jitter (its ceiling
    /// `previous × 3` grows threefold from `base_ms` when every draw is the highest).
    pub fn max_delay_ms(&self, retry: u32) -> f64 {
        match *self {
            Backoff::DecorrelatedJitter { base_ms, cap_ms } => {
                cap_ms.min(base_ms * 3f64.powi(retry.saturating_add(1).min(1_000) as i32))
            }
            _ => self.delay_ms(retry, self.initial_ms(), 1.0),
        }
    }

    /// The "previous sleep" before the first retry: `base_ms` (0 for no backoff).
    pub fn initial_ms(&self) -> f64 {
        match *self {
            Backoff::None => 0.0,
            Backoff::Constant { base_ms }
            | Backoff::Exponential { base_ms, .. }
            | Backoff::FullJitter { base_ms, .. }
            | Backoff::EqualJitter { base_ms, .. }
            | Backoff::DecorrelatedJitter { base_ms, .. } => base_ms,
        }
    }

    /// A short description for chart subtitles.
    pub fn describe(&self) -> String {
        match *self {
            Backoff::None => "no backoff".into(),
            Backoff::Constant { base_ms } => format!("constant {base_ms} ms backoff"),
            Backoff::Exponential { base_ms, cap_ms } => {
                format!("exponential backoff {base_ms}-{cap_ms} ms")
            }
            Backoff::FullJitter { base_ms, cap_ms } => format!("full jitter {base_ms}-{cap_ms} ms"),
            Backoff::EqualJitter { base_ms, cap_ms } => {
                format!("equal jitter {base_ms}-{cap_ms} ms")
            }
            Backoff::DecorrelatedJitter { base_ms, cap_ms } => {
                format!("decorrelated jitter {base_ms}-{cap_ms} ms")
            }
        }
    }
}

/// A client's whole retry window for one request (ms), in closed form:
/// `(max_retries + 1) × timeout_ms + Σ_{r < max_retries} max_delay(r)` with
/// [`Backoff::max_delay_ms`]: every attempt is sent at most this long after the first.
pub fn retry_window_ms(timeout_ms: f64, max_retries: u32, backoff: &Backoff) -> f64 {
    let backoffs: f64 = (0..max_retries)
        .map(|retry| backoff.max_delay_ms(retry))
        .sum();
    f64::from(max_retries + 1) * timeout_ms + backoffs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The power of two is `powi`'s, from the first to the last exponent a wait uses.
    #[test]
    fn powers_of_two_are_powis() {
        for exponent in 0..=1_000u32 {
            assert_eq!(
                power_of_two(exponent).to_bits(),
                2f64.powi(exponent as i32).to_bits(),
                "2^{exponent}"
            );
        }
    }

    const BASE: f64 = 100.0;
    const CAP: f64 = 1_000.0;

    #[test]
    fn none_and_constant() {
        assert_eq!(Backoff::None.delay_ms(5, 0.0, 0.9), 0.0);
        assert_eq!(
            Backoff::Constant { base_ms: BASE }.delay_ms(7, 0.0, 0.9),
            100.0
        );
    }

    #[test]
    fn exponential_doubles_up_to_the_cap() {
        let policy = Backoff::Exponential {
            base_ms: BASE,
            cap_ms: CAP,
        };
        let waits: Vec<f64> = (0..6)
            .map(|retry| policy.delay_ms(retry, 0.0, 0.5))
            .collect();
        assert_eq!(waits, vec![100.0, 200.0, 400.0, 800.0, 1_000.0, 1_000.0]);
    }

    #[test]
    fn full_jitter_is_uniform_below_the_exponential() {
        let policy = Backoff::FullJitter {
            base_ms: BASE,
            cap_ms: CAP,
        };
        // retry 2: uniform(0, 400).
        assert_eq!(policy.delay_ms(2, 0.0, 0.0), 0.0);
        assert_eq!(policy.delay_ms(2, 0.0, 0.25), 100.0);
        // retry 9: uniform(0, cap).
        assert_eq!(policy.delay_ms(9, 0.0, 0.5), 500.0);
    }

    #[test]
    fn equal_jitter_keeps_half_the_exponential() {
        let policy = Backoff::EqualJitter {
            base_ms: BASE,
            cap_ms: CAP,
        };
        // retry 1: temp = 200, 100 + uniform(0, 100).
        assert_eq!(policy.delay_ms(1, 0.0, 0.0), 100.0);
        assert_eq!(policy.delay_ms(1, 0.0, 0.5), 150.0);
        assert_eq!(policy.delay_ms(10, 0.0, 0.5), 750.0);
    }

    #[test]
    fn decorrelated_jitter_grows_from_the_previous_sleep() {
        let policy = Backoff::DecorrelatedJitter {
            base_ms: BASE,
            cap_ms: CAP,
        };
        assert_eq!(policy.initial_ms(), 100.0);
        // uniform(100, 300) for the first retry.
        assert_eq!(policy.delay_ms(0, 100.0, 0.0), 100.0);
        assert_eq!(policy.delay_ms(0, 100.0, 0.5), 200.0);
        // previous 200: uniform(100, 600).
        assert_eq!(policy.delay_ms(1, 200.0, 0.5), 350.0);
        // capped.
        assert_eq!(policy.delay_ms(2, 900.0, 0.99), 1_000.0);
    }

    #[test]
    fn the_longest_waits_follow_the_ceilings() {
        let full = Backoff::FullJitter {
            base_ms: BASE,
            cap_ms: CAP,
        };
        // 100, 200, 400, 800, then the cap.
        let waits: Vec<f64> = (0..5).map(|retry| full.max_delay_ms(retry)).collect();
        assert_eq!(waits, vec![100.0, 200.0, 400.0, 800.0, 1_000.0]);
        let decorrelated = Backoff::DecorrelatedJitter {
            base_ms: BASE,
            cap_ms: CAP,
        };
        // 100 × 3 = 300, 100 × 9 = 900, then the cap.
        let waits: Vec<f64> = (0..3)
            .map(|retry| decorrelated.max_delay_ms(retry))
            .collect();
        assert_eq!(waits, vec![300.0, 900.0, 1_000.0]);
        assert_eq!(Backoff::Constant { base_ms: 20.0 }.max_delay_ms(7), 20.0);
        assert_eq!(Backoff::None.max_delay_ms(3), 0.0);
    }
}
