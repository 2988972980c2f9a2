//! The agenda's calendar queue: events with keys `(time bits, sequence)`, popped in key
//! order, found through buckets of simulated time ([`calendar_ring`]: a near ring of day
//! buckets, a far ring of week buckets, an overflow heap) instead of a heap's sifts.
//!
//! Unlike the contention model's queue, events are not small numbers: each waits in a node of
//! a pool (a free list reuses the nodes popped), and a bucket is a list threaded through the
//! pool. The earliest key can be looked at without popping (the agenda compares it with its
//! lanes' fronts), and is remembered until a pop or an earlier event changes it. The day of a
//! time is monotone in the time and within a day the keys decide, so the order is exactly
//! the keys' order, whatever the (positive, finite) width of a day.
//!
//! [`calendar_ring`]: crate::model::calendar_ring

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::queue::ring::{
    MASK, NEAR_WEEKS, NO_WEEK, NONE, Place, RING_WEEKS, Ring, WEEK_DAYS, day_of, days_per_ms, place,
};

/// An event waiting in the pool, or a free node.
#[derive(Debug, Clone, Copy)]
struct Node<E> {
    /// The bits of its time (ms, at least `+0.0`): they order like the times.
    time_bits: u64,
    /// Its scheduling number: the order among equal times.
    sequence: u64,
    /// The next node in its bucket's list (or in the free list), or [`NONE`].
    next: u32,
    /// What happens.
    event: E,
}

impl<E> Node<E> {
    /// `(time bits << 64) | sequence`: one integer that orders the events.
    #[inline(always)]
    fn key(&self) -> u128 {
        (u128::from(self.time_bits) << 64) | u128::from(self.sequence)
    }
}

/// Events ordered by `(time bits, sequence)`, in day and week buckets.
#[derive(Debug)]
pub struct Calendar<E> {
    /// Days per millisecond: `1 / width` of a bucket.
    days_per_ms: f64,
    /// The current day: the day of the last event popped (0 before the first).
    day: u64,
    /// A bucket per day, for the events of the current week and the `NEAR_WEEKS - 1` after it.
    near: Ring,
    /// A bucket per week, for the events of the [`SLOTS`](crate::queue::ring::SLOTS)
    /// weeks after the near ring's.
    far: Ring,
    /// The pool: every node ever used, waiting or free.
    nodes: Vec<Node<E>>,
    /// The first free node, or [`NONE`].
    free: u32,
    /// The week of the far ring's earliest bucket ([`NO_WEEK`] when it is empty).
    far_week: u64,
    /// Nodes whose week was beyond both rings when scheduled, by key, earliest first.
    overflow: BinaryHeap<Reverse<(u128, u32)>>,
    /// The week of the overflow's earliest node ([`NO_WEEK`] when it is empty).
    overflow_week: u64,
    /// The node of the earliest event, or [`NONE`] when not known (or empty).
    front: u32,
}

impl<E: Copy> Calendar<E> {
    /// An empty calendar with buckets `width_ms` wide (a choice of speed only).
    ///
    /// # Panics
    /// If `width_ms` is not positive and finite.
    pub fn new(width_ms: f64) -> Self {
        Self {
            days_per_ms: days_per_ms(width_ms),
            day: 0,
            near: Ring::new(),
            far: Ring::new(),
            nodes: Vec::new(),
            free: NONE,
            far_week: NO_WEEK,
            overflow: BinaryHeap::new(),
            overflow_week: NO_WEEK,
            front: NONE,
        }
    }

    /// The current week.
    #[inline(always)]
    fn week(&self) -> u64 {
        self.day >> WEEK_DAYS
    }

    /// Schedules `event` with key `(time_bits, sequence)`: the bits of a time (ms, at least
    /// `+0.0`) not before the last event popped, and a sequence number above every earlier one.
    #[inline]
    pub fn schedule(&mut self, time_bits: u64, sequence: u64, event: E) {
        let waiting = Node {
            time_bits,
            sequence,
            next: NONE,
            event,
        };
        let node = if self.free == NONE {
            self.nodes.push(waiting);
            (self.nodes.len() - 1) as u32
        } else {
            let node = self.free;
            self.free = self.nodes[node as usize].next;
            self.nodes[node as usize] = waiting;
            node
        };
        self.insert(node);
        if self.front != NONE && waiting.key() < self.nodes[self.front as usize].key() {
            self.front = node;
        }
    }

    /// Puts `node` in its day's bucket of the near ring, its week's of the far ring, or in
    /// the overflow, by how far ahead of the current week it is (never behind).
    #[inline(always)]
    fn insert(&mut self, node: u32) {
        let time_bits = self.nodes[node as usize].time_bits;
        match place(day_of(time_bits, self.days_per_ms), self.week()) {
            Place::Near { slot } => self.nodes[node as usize].next = self.near.push(slot, node),
            Place::Far { slot, week } => {
                self.nodes[node as usize].next = self.far.push(slot, node);
                self.far_week = self.far_week.min(week);
            }
            Place::Overflow { week } => {
                self.overflow
                    .push(Reverse((self.nodes[node as usize].key(), node)));
                self.overflow_week = self.overflow_week.min(week);
            }
        }
    }

    /// Moves the far ring's nodes whose week has come within the near ring into it.
    #[inline(never)]
    fn pull_far(&mut self) {
        while self.far_week - self.week() < NEAR_WEEKS {
            let slot = self.far_week as usize & MASK;
            let mut node = self.far.heads[slot];
            self.far.vacate(slot);
            while node != NONE {
                let next = self.nodes[node as usize].next;
                self.insert(node);
                node = next;
            }
            self.far_week = self.far.next_occupied_week(self.far_week);
        }
    }

    /// Moves the overflow's nodes whose week has come within the rings into them.
    #[inline(never)]
    fn pull_overflow(&mut self) {
        self.overflow_week = NO_WEEK;
        while let Some(&Reverse((key, node))) = self.overflow.peek() {
            let week = day_of((key >> 64) as u64, self.days_per_ms) >> WEEK_DAYS;
            if week - self.week() >= RING_WEEKS {
                self.overflow_week = week;
                break;
            }
            self.overflow.pop();
            self.insert(node);
        }
    }

    /// The node with the smallest key in the list starting at `head` (not [`NONE`]).
    #[inline(always)]
    fn smallest_in(&self, head: u32) -> u32 {
        let mut best = head;
        let mut best_key = self.nodes[head as usize].key();
        let mut node = self.nodes[head as usize].next;
        while node != NONE {
            let key = self.nodes[node as usize].key();
            if key < best_key {
                (best, best_key) = (node, key);
            }
            node = self.nodes[node as usize].next;
        }
        best
    }

    /// The earliest key, `(time bits << 64) | sequence`; `None` when empty. Moves nothing:
    /// an event scheduled later may still be earlier.
    #[inline]
    pub fn peek(&mut self) -> Option<u128> {
        if self.front == NONE {
            // The near ring's events are before the far ring's, which are before the
            // overflow's.
            self.front = if let Some(slot) = self.near.first_occupied(self.day as usize & MASK) {
                self.smallest_in(self.near.heads[slot])
            } else if self.far_week != NO_WEEK {
                self.smallest_in(self.far.heads[self.far_week as usize & MASK])
            } else {
                self.overflow.peek()?.0.1
            };
        }
        Some(self.nodes[self.front as usize].key())
    }

    /// Removes the earliest event (the one [`Calendar::peek`] gave last, which must have
    /// found one) and returns its time bits and event.
    #[inline]
    pub fn pop_front(&mut self) -> (u64, E) {
        let front = std::mem::replace(&mut self.front, NONE);
        let popped = self.nodes[front as usize];
        let day = day_of(popped.time_bits, self.days_per_ms);
        self.day = day;
        // The far ring's weeks are at least the week before + NEAR_WEEKS, the overflow's the
        // week before + RING_WEEKS: those now within a ring move in (the front too, if it
        // was in the far ring or the overflow: it comes into the current day's bucket).
        if self.far_week - self.week() < NEAR_WEEKS {
            self.pull_far();
        }
        if self.overflow_week - self.week() < RING_WEEKS {
            self.pull_overflow();
        }
        let slot = day as usize & MASK;
        let head = self.near.heads[slot];
        let head_node = self.nodes[head as usize];
        if head != front {
            // The list's order does not matter: the head's event takes the front's node.
            self.nodes[front as usize] = Node {
                next: self.nodes[front as usize].next,
                ..head_node
            };
        }
        if head_node.next == NONE {
            self.near.vacate(slot);
        } else {
            self.near.heads[slot] = head_node.next;
        }
        self.nodes[head as usize].next = self.free;
        self.free = head;
        (popped.time_bits, popped.event)
    }

    /// Events waiting (counted through the buckets: for checks, not for a simulation loop).
    pub fn len(&self) -> usize {
        let next = |node: u32| self.nodes[node as usize].next;
        self.near.len(next) + self.far.len(next) + self.overflow.len()
    }

    /// Whether no event waits.
    pub fn is_empty(&self) -> bool {
        self.near.is_empty() && self.far.is_empty() && self.overflow.is_empty()
    }

    /// Where the events wait: near ring, far ring, overflow (for the tests).
    #[cfg(test)]
    fn placed(&self) -> (usize, usize, usize) {
        let next = |node: u32| self.nodes[node as usize].next;
        (self.near.len(next), self.far.len(next), self.overflow.len())
    }
}

#[cfg(test)]
mod tests {

    use super::*;

    /// Pops everything: `(time, event)` in order.
    fn pop_all(calendar: &mut Calendar<u32>) -> Vec<(f64, u32)> {
        std::iter::from_fn(|| {
            calendar.peek()?;
            let (bits, event) = calendar.pop_front();
            Some((f64::from_bits(bits), event))
        })
        .collect()
    }

    /// Schedules `(time, event)` with sequence numbers from `first`.
    fn schedule(calendar: &mut Calendar<u32>, first: u64, events: &[(f64, u32)]) {
        for (index, &(time, event)) in events.iter().enumerate() {
            calendar.schedule(time.to_bits(), first + index as u64, event);
        }
    }

    /// Equal times by sequence; either side of a bucket boundary (1 ms buckets: 1.0 is day
    /// 1); one day's bucket holding several.
    #[test]
    fn equal_times_and_bucket_boundaries() {
        let mut calendar = Calendar::new(1.0);
        schedule(
            &mut calendar,
            0,
            &[
                (1.0, 0),
                (0.999_999_999, 1),
                (1.0, 2),
                (0.0, 3),
                (1.5, 4),
                (2.0, 5),
            ],
        );
        assert_eq!(calendar.placed(), (6, 0, 0));
        assert_eq!(
            pop_all(&mut calendar),
            [
                (0.0, 3),
                (0.999_999_999, 1),
                (1.0, 0),
                (1.0, 2),
                (1.5, 4),
                (2.0, 5)
            ]
        );
        assert!(calendar.is_empty());
    }

    /// With 1 ms buckets the near ring holds days up to 4,095, the far ring weeks 64 to
    /// 4,159 (days up to 266,239), the overflow what is later; after the near ring empties,
    /// the far ring's first week comes first, and an event scheduled then into the near ring
    /// before it still comes before it.
    #[test]
    fn far_ring_and_overflow() {
        let mut calendar = Calendar::new(1.0);
        schedule(
            &mut calendar,
            0,
            &[
                (4_096.5, 0),
                (0.5, 1),
                (4_095.5, 2),
                (266_239.5, 3),
                (266_240.5, 4),
                (4_096.25, 5),
            ],
        );
        assert_eq!(calendar.placed(), (2, 3, 1));
        assert_eq!(calendar.peek(), Some((0.5f64.to_bits() as u128) << 64 | 1));
        calendar.pop_front();
        calendar.peek();
        assert_eq!(calendar.pop_front(), (4_095.5f64.to_bits(), 2));
        // Week 63 is current: week 64 came near, the overflow's week 4,160 into the far ring.
        assert_eq!(calendar.placed(), (2, 2, 0));
        // Looked at but not popped, then an earlier event arrives.
        calendar.peek();
        schedule(&mut calendar, 6, &[(4_095.75, 6)]);
        assert_eq!(
            pop_all(&mut calendar),
            [
                (4_095.75, 6),
                (4_096.25, 5),
                (4_096.5, 0),
                (266_239.5, 3),
                (266_240.5, 4)
            ]
        );
    }

    /// The front found in the far ring or the overflow (the near ring empty) is popped from
    /// there; huge times share the last day and keep their order.
    #[test]
    fn front_beyond_the_near_ring_and_huge_times() {
        let mut calendar = Calendar::new(1.0);
        schedule(
            &mut calendar,
            0,
            &[
                (1e300, 0),
                (f64::MAX, 1),
                (1e300, 2),
                (500_000.0, 3),
                (10_000.0, 4),
            ],
        );
        assert_eq!(calendar.placed(), (0, 1, 4));
        assert_eq!(
            pop_all(&mut calendar),
            [
                (10_000.0, 4),
                (500_000.0, 3),
                (1e300, 0),
                (1e300, 2),
                (f64::MAX, 1)
            ]
        );
    }

    /// The calendar under the queue contract: scheduling with a running sequence number.
    struct Numbered {
        calendar: Calendar<u32>,
        sequence: u64,
    }

    impl crate::queue::EventQueue for Numbered {
        type Event = u32;
        fn schedule(&mut self, time_ms: f64, event: u32) {
            self.calendar
                .schedule(time_ms.to_bits(), self.sequence, event);
            self.sequence += 1;
        }
        fn pop(&mut self) -> Option<(f64, u32)> {
            self.calendar.peek()?;
            let (bits, event) = self.calendar.pop_front();
            Some((f64::from_bits(bits), event))
        }
        fn len(&self) -> usize {
            self.calendar.len()
        }
    }

    /// The queue contract, for widths from tiny to huge.
    #[test]
    fn keeps_the_queue_contract_for_any_width() {
        for width_ms in [1e-9, 0.01, 1.0, 37.5, 1e9] {
            let make = || Numbered {
                calendar: Calendar::new(width_ms),
                sequence: 0,
            };
            crate::queue::conformance::check(make, width_ms);
        }
    }
}
