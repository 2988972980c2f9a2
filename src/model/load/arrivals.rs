//! Arrivals over time: a Poisson process whose rate follows phases (constant, steps, linear
//! ramps), sampled exactly by inverting its cumulative rate: one exponential draw per payment.

use super::Window;

/// The rate during a phase.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PhaseRate {
    /// A constant rate (payments per second, at least 0).
    Constant(f64),
    /// A straight line from `from` at the phase's start to `to` at its end (payments per
    /// second, at least 0 each).
    Ramp {
        /// The rate at the phase's start (payments per second).
        from: f64,
        /// The rate at the phase's end (payments per second).
        to: f64,
    },
}

/// One phase: the rate from the previous phase's end (0 for the first) until `until_ms`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Phase {
    /// The phase's end (ms of simulated time; more than the previous phase's).
    pub until_ms: f64,
    /// The rate during it.
    pub rate: PhaseRate,
}

impl Phase {
    /// The rate at the phase's start and end (payments per ms).
    fn rates_per_ms(&self) -> (f64, f64) {
        match self.rate {
            PhaseRate::Constant(rate) => (rate / 1000.0, rate / 1000.0),
            PhaseRate::Ramp { from, to } => (from / 1000.0, to / 1000.0),
        }
    }

    /// The rate at its end (payments per second).
    pub fn final_rate_per_s(&self) -> f64 {
        self.rates_per_ms().1 * 1000.0
    }

    /// The highest rate in the phase (payments per second).
    pub fn peak_rate_per_s(&self) -> f64 {
        let (from, to) = self.rates_per_ms();
        from.max(to) * 1000.0
    }
}

/// The phases whose rate exceeds the first phase's starting rate: a spike's windows.
pub fn spikes(phases: &[Phase]) -> Vec<Window> {
    let Some(first) = phases.first() else {
        return Vec::new();
    };
    let base = first.rates_per_ms().0 * 1000.0;
    let mut start = 0.0;
    let mut windows = Vec::new();
    for phase in phases {
        if phase.peak_rate_per_s() > base {
            windows.push(Window {
                from_ms: start,
                to_ms: phase.until_ms,
            });
        }
        start = phase.until_ms;
    }
    windows
}

/// The Poisson rate over time as straight segments, walked forward one arrival at a time.
#[derive(Debug, Clone)]
pub struct RateCurve {
    /// `(start_ms, end_ms, rate at start, rate at end)` in payments per ms; the last segment
    /// ends at the arrivals' end.
    segments: Vec<(f64, f64, f64, f64)>,
    /// The segment the last arrival fell in.
    current: usize,
}

impl RateCurve {
    /// The curve of `phases` until `duration_ms`; after the last phase its final rate holds.
    pub fn new(phases: &[Phase], duration_ms: f64) -> Self {
        let mut segments = Vec::with_capacity(phases.len() + 1);
        let mut start = 0.0;
        for phase in phases {
            let (from, to) = phase.rates_per_ms();
            if start < duration_ms {
                segments.push((start, phase.until_ms.min(duration_ms), from, to));
            }
            start = phase.until_ms;
        }
        if start < duration_ms {
            let last = phases.last().map_or(0.0, |phase| phase.rates_per_ms().1);
            segments.push((start, duration_ms, last, last));
        }
        Self {
            segments,
            current: 0,
        }
    }

    /// The rate at `time_ms` within segment `index` (payments per ms).
    fn rate(&self, index: usize, time_ms: f64) -> f64 {
        let (start, end, from, to) = self.segments[index];
        if end <= start {
            return from;
        }
        from + (to - from) * (time_ms - start) / (end - start)
    }

    /// The next arrival after `now_ms`, given an exponential draw `mass` with mean 1: the time
    /// at which the integrated rate from `now_ms` reaches `mass`; `None` after the end.
    pub fn next(&mut self, now_ms: f64, mass: f64) -> Option<f64> {
        let mut now = now_ms;
        let mut mass = mass;
        while self.current < self.segments.len() {
            let (start, end, from, to) = self.segments[self.current];
            let now_here = now.max(start);
            if from == to && from > 0.0 {
                // A constant rate: the general steps below with a slope of exactly 0 and the
                // rate `from` (`from + 0 * .. / ..`), without their two divisions.
                let left = end - now_here;
                let available = from * left;
                if available >= mass && available > 0.0 {
                    return Some((now_here + mass / from).min(end));
                }
                mass -= available.max(0.0);
                now = now.max(end);
                self.current += 1;
                continue;
            }
            let rate_now = self.rate(self.current, now_here);
            let slope = if end > start {
                (to - from) / (end - start)
            } else {
                0.0
            };
            let left = end - now_here;
            // The mass of the rest of the segment.
            let available = rate_now * left + slope / 2.0 * left * left;
            if available >= mass && available > 0.0 {
                // Solve slope/2 d² + rate_now d = mass for the smallest d ≥ 0.
                let gap = if slope == 0.0 {
                    mass / rate_now
                } else {
                    2.0 * mass / (rate_now + (rate_now * rate_now + 2.0 * slope * mass).sqrt())
                };
                return Some((now_here + gap).min(end));
            }
            mass -= available.max(0.0);
            now = now.max(end);
            self.current += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_rate_spaces_arrivals_by_mass_over_rate() {
        let phases = [Phase {
            until_ms: 10_000.0,
            rate: PhaseRate::Constant(2.0),
        }];
        let mut curve = RateCurve::new(&phases, 10_000.0);
        // 2 per s = 0.002 per ms: a mass of 1 is 500 ms away.
        assert_eq!(curve.next(0.0, 1.0), Some(500.0));
        assert_eq!(curve.next(500.0, 0.5), Some(750.0));
        // 9,750 + 500 is past the end.
        assert_eq!(curve.next(9_750.0, 1.0), None);
    }

    #[test]
    fn mass_carries_over_a_step() {
        // 1 per s for 1 s, then 4 per s: from 0.5 s a mass of 1 uses 0.5 in the first phase,
        // then 0.5 / 0.004 = 125 ms of the second.
        let phases = [
            Phase {
                until_ms: 1_000.0,
                rate: PhaseRate::Constant(1.0),
            },
            Phase {
                until_ms: 2_000.0,
                rate: PhaseRate::Constant(4.0),
            },
        ];
        let mut curve = RateCurve::new(&phases, 5_000.0);
        assert_eq!(curve.next(500.0, 1.0), Some(1_125.0));
        // After the last phase its rate holds until the end: 4 per s.
        assert_eq!(curve.next(2_500.0, 2.0), Some(3_000.0));
    }

    #[test]
    fn a_ramp_inverts_the_integrated_rate() {
        // From 0 to 2 per s over 1 s: rate(t) = 0.002 t / 1000 per ms; mass to t is t²/1e6.
        let phases = [Phase {
            until_ms: 1_000.0,
            rate: PhaseRate::Ramp { from: 0.0, to: 2.0 },
        }];
        let mut curve = RateCurve::new(&phases, 1_000.0);
        let at = curve.next(0.0, 0.25).unwrap();
        assert!((at - 500.0).abs() < 1e-9, "{at}");
    }

    #[test]
    fn spikes_are_phases_above_the_first_rate() {
        let phases = [
            Phase {
                until_ms: 20_000.0,
                rate: PhaseRate::Constant(40.0),
            },
            Phase {
                until_ms: 25_000.0,
                rate: PhaseRate::Constant(80.0),
            },
            Phase {
                until_ms: 80_000.0,
                rate: PhaseRate::Constant(40.0),
            },
        ];
        assert_eq!(
            spikes(&phases),
            vec![Window {
                from_ms: 20_000.0,
                to_ms: 25_000.0
            }]
        );
    }
}
