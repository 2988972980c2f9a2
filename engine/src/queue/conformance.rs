//! The one conformance test of the [`EventQueue`] contract, run against every queue: random
//! scheduling, popping and replacing against a plain list, with leads from zero (ties with the
//! clock) and a grid (ties among themselves) to far beyond a calendar's rings and huge times.

use rand_core::Rng;

use super::EventQueue;
use crate::rng::{SeedSequence, unit_f64};

/// Events in play: numbers below this, each waiting at most once (as the calendar of small
/// numbers requires).
const EVENTS: u32 = 97;
/// Operations per seed.
const STEPS: u32 = 30_000;

/// Checks that queues from `make` keep the contract, for leads scaled by `scale_ms` (a
/// calendar's bucket width, so that leads fall within a bucket, within the near ring, within
/// the far ring and beyond both).
pub(crate) fn check<Q: EventQueue<Event = u32>>(make: impl Fn() -> Q, scale_ms: f64) {
    for seed in 1..=3 {
        check_one(make(), scale_ms, seed);
    }
}

/// One seed's run of [`check`].
fn check_one<Q: EventQueue<Event = u32>>(mut queue: Q, scale_ms: f64, seed: u64) {
    let mut stream = SeedSequence::new(seed).pcg64();
    // (time, sequence) of each event's waiting entry.
    let mut waiting: Vec<Option<(f64, u64)>> = vec![None; EVENTS as usize];
    let mut sequence = 0u64;
    let mut now = 0.0f64;
    let rings = 4096.0 * scale_ms;
    for step in 0..STEPS {
        let draw = stream.next_u64();
        let u = unit_f64(stream.next_u64());
        let lead_ms = match (draw >> 16) % 8 {
            0 => 0.0,
            1 => ((draw >> 24) % 4) as f64 * 0.5 * scale_ms,
            2 => u * 3.0 * scale_ms,
            3 => u * 50.0 * scale_ms,
            4 => u * rings * 3.0,
            5 => u * rings * 4096.0 / 8.0,
            6 if step > STEPS - STEPS / 10 => 1e300 * u,
            _ => u * 0.01 * scale_ms,
        };
        let event = (draw % u64::from(EVENTS)) as u32;
        let earliest = (0..EVENTS)
            .filter_map(|e| waiting[e as usize].map(|key| (key, e)))
            .min_by(|(a, _), (b, _)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let free = waiting[event as usize].is_none();
        match (draw >> 8) % 6 {
            0..=2 if free => {
                queue.schedule(now + lead_ms, event);
                waiting[event as usize] = Some((now + lead_ms, sequence));
                sequence += 1;
            }
            3 if free => {
                // Popped first, so the new event's time counts from the popped one.
                let time = earliest.map_or(now, |((time, _), _)| time) + lead_ms;
                let expected = earliest.map(|((time, _), e)| {
                    waiting[e as usize] = None;
                    (time, e)
                });
                let replaced = queue.replace_earliest(time, event);
                assert_eq!(replaced, expected, "replace, seed {seed}, step {step}");
                if let Some((popped, _)) = expected {
                    waiting[event as usize] = Some((time, sequence));
                    sequence += 1;
                    now = popped;
                }
            }
            _ => {
                let expected = earliest.map(|((time, _), e)| {
                    waiting[e as usize] = None;
                    (time, e)
                });
                assert_eq!(queue.pop(), expected, "pop, seed {seed}, step {step}");
                if let Some((time, _)) = expected {
                    now = time;
                }
            }
        }
        let count = waiting.iter().flatten().count();
        assert_eq!(queue.is_empty(), count == 0, "seed {seed}, step {step}");
        if step % 1_000 == 0 {
            assert_eq!(queue.len(), count, "seed {seed}, step {step}");
        }
    }
    // Everything left comes out in order.
    let mut left: Vec<((f64, u64), u32)> = (0..EVENTS)
        .filter_map(|e| waiting[e as usize].map(|key| (key, e)))
        .collect();
    left.sort_by(|(a, _), (b, _)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let expected: Vec<(f64, u32)> = left.into_iter().map(|((time, _), e)| (time, e)).collect();
    let popped: Vec<(f64, u32)> = std::iter::from_fn(|| queue.pop()).collect();
    assert_eq!(popped, expected, "the rest, seed {seed}");
}
