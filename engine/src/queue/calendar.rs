//! A calendar queue for events that are small numbers, each with at most one event waiting
//! (the contention model's clients): the same order as an [`IdQueue`], by time, then by
//! scheduling order, found through buckets of simulated time rather than a heap.
//!
//! Time is cut into days of a fixed width, and days into weeks of 64 days. Two rings of
//! [`SLOTS`] buckets hold the waiting events, as in a hierarchical timing wheel: the near ring
//! a bucket per day, for the 64 weeks from the current one on; the far ring a bucket per
//! week, for the [`SLOTS`] weeks after those. When the current week moves on, the far
//! buckets of the weeks that come within the near ring are emptied into it, and the events
//! beyond both rings wait in an overflow [`IdQueue`]-style heap of keys until the far ring
//! reaches them. A bucket is a list threaded through a per-event array, a bit per bucket says
//! which are occupied, and a bit per 64 buckets which words of those bits are, so the next
//! occupied bucket is found with two trailing-zero counts. The earliest event of a near
//! bucket is the smallest key in its list, so the order is exactly the heap's: the day of a
//! time is monotone in the time, and within a day the keys (time bits, sequence number)
//! decide. Where the events spread over many days, most buckets hold one or two, and finding
//! the earliest takes a few loads whose addresses do not depend on comparisons, instead of a
//! heap's chain of dependent loads and unpredictable branches; an event scheduled far ahead
//! (a long backoff) is moved twice, each time in constant time, instead of through a heap.
//!
//! [`IdQueue`]: crate::queue::heap::IdQueue

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::queue::heap::{NumberedClock, numbered_key};
use crate::queue::ring::{
    MASK, NEAR_WEEKS, NO_WEEK, NONE, Place, RING_WEEKS, Ring, WEEK_DAYS, day_of, days_per_ms, place,
};

pub use crate::queue::ring::SLOTS;

/// An event waiting in a bucket.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// The bits of its time (ms), which order like the times (never negative).
    time_bits: u64,
    /// How many events were scheduled before it: the order among equal times.
    sequence: u32,
    /// The next event in its bucket's list, or [`NONE`].
    next: u32,
}

impl Node {
    /// The order of the queue: by time, then by sequence number.
    #[inline(always)]
    fn before(&self, other: &Node) -> bool {
        (self.time_bits, self.sequence) < (other.time_bits, other.sequence)
    }
}

/// Events `0..events` on one clock, each with at most one waiting, ordered by
/// `(time, sequence number)` as in an [`IdQueue`](crate::queue::heap::IdQueue).
#[derive(Debug)]
pub struct CalendarQueue {
    /// Days per millisecond: `1 / width` of a bucket.
    days_per_ms: f64,
    /// The current day: every event in the near ring has a week in
    /// `week..week + NEAR_WEEKS`, where `week` is this day's.
    day: u64,
    /// A bucket per day, for the events of the current week and the `NEAR_WEEKS - 1` after it.
    near: Ring,
    /// A bucket per week, for the events of the [`SLOTS`] weeks after the near ring's.
    far: Ring,
    /// Each event's place in its bucket, while it waits in a ring.
    nodes: Vec<Node>,
    /// The week of the far ring's earliest bucket ([`NO_WEEK`] when it is empty).
    far_week: u64,
    /// Events whose week was beyond both rings when they were scheduled, as keys
    /// `time bits << 64 | sequence << 32 | event`, earliest first.
    overflow: BinaryHeap<Reverse<u128>>,
    /// The week of the overflow's earliest event ([`NO_WEEK`] when it is empty).
    overflow_week: u64,
    /// The clock and the count of events scheduled.
    clock: NumberedClock,
}

impl Default for CalendarQueue {
    /// An empty queue for no events, with buckets 1 ms wide (see [`CalendarQueue::reset`]).
    fn default() -> Self {
        Self::new(0, 1.0)
    }
}

impl CalendarQueue {
    /// An empty queue for events `0..events`, with buckets `width_ms` wide (a choice of
    /// speed only: any positive finite width gives the same order).
    ///
    /// # Panics
    /// If `width_ms` is not positive and finite.
    pub fn new(events: u32, width_ms: f64) -> Self {
        let mut queue = Self {
            days_per_ms: 1.0,
            day: 0,
            near: Ring::new(),
            far: Ring::new(),
            nodes: Vec::new(),
            far_week: NO_WEEK,
            overflow: BinaryHeap::new(),
            overflow_week: NO_WEEK,
            clock: NumberedClock::default(),
        };
        queue.reset(events, width_ms);
        queue
    }

    /// Empties the queue for events `0..events` with buckets `width_ms` wide, the clock back
    /// at 0 ms, keeping the allocations.
    ///
    /// # Panics
    /// If `width_ms` is not positive and finite.
    pub fn reset(&mut self, events: u32, width_ms: f64) {
        let per_ms = days_per_ms(width_ms);
        // A queue its run emptied has every bucket empty already.
        if !self.near.is_empty() {
            self.near.clear();
        }
        if !self.far.is_empty() {
            self.far.clear();
        }
        self.far_week = NO_WEEK;
        self.overflow.clear();
        self.overflow_week = NO_WEEK;
        self.days_per_ms = per_ms;
        self.day = 0;
        let empty = Node {
            time_bits: 0,
            sequence: 0,
            next: NONE,
        };
        self.nodes.clear();
        self.nodes.resize(events as usize, empty);
        self.clock = NumberedClock::default();
    }

    /// The day of a time (its bits): monotone in the time ([`day_of`]). Times are never
    /// negative or NaN here (the clock's assertion).
    #[inline(always)]
    fn day_of(&self, time_bits: u64) -> u64 {
        day_of(time_bits, self.days_per_ms)
    }

    /// The current week.
    #[inline(always)]
    fn week(&self) -> u64 {
        self.day >> WEEK_DAYS
    }

    /// Schedules `event` at `time_ms`. The caller schedules an event only while it is not
    /// waiting already (the contention model: a client's next request once its previous one
    /// is handled): a second one would overwrite the first one's place in the bucket lists.
    ///
    /// # Panics
    /// If `time_ms` is before the clock or not a number, if `event` is not below the bound
    /// given to [`CalendarQueue::reset`], or after `2^32` events scheduled since it.
    #[inline(always)]
    pub fn schedule(&mut self, time_ms: f64, event: u32) {
        let sequence = self.clock.stamp(time_ms);
        // `+ 0.0` turns -0.0 into +0.0, whose bits are 0.
        self.insert(event, (time_ms + 0.0).to_bits(), sequence);
    }

    /// Puts `event` in its day's bucket of the near ring, its week's of the far ring, or in
    /// the overflow, by how far ahead of the current week it is (never behind: its time is
    /// not before the clock's, whose day the current one is).
    #[inline(always)]
    fn insert(&mut self, event: u32, time_bits: u64, sequence: u32) {
        let node = Node {
            time_bits,
            sequence,
            next: NONE,
        };
        match place(self.day_of(time_bits), self.week()) {
            Place::Near { slot } => {
                let next = self.near.push(slot, event);
                self.nodes[event as usize] = Node { next, ..node };
            }
            Place::Far { slot, week } => {
                let next = self.far.push(slot, event);
                self.nodes[event as usize] = Node { next, ..node };
                self.far_week = self.far_week.min(week);
            }
            Place::Overflow { week } => {
                self.overflow
                    .push(Reverse(numbered_key(time_bits, sequence, event)));
                self.overflow_week = self.overflow_week.min(week);
            }
        }
    }

    /// Moves the far ring's events whose week has come within the near ring into it.
    #[inline(never)]
    fn pull_far(&mut self) {
        while self.far_week - self.week() < NEAR_WEEKS {
            let slot = self.far_week as usize & MASK;
            let mut event = self.far.heads[slot];
            self.far.vacate(slot);
            while event != NONE {
                let node = self.nodes[event as usize];
                self.insert(event, node.time_bits, node.sequence);
                event = node.next;
            }
            self.far_week = self.far.next_occupied_week(self.far_week);
        }
    }

    /// Moves the overflow's events whose week has come within the rings into them.
    #[inline(never)]
    fn pull_overflow(&mut self) {
        self.overflow_week = NO_WEEK;
        while let Some(&Reverse(key)) = self.overflow.peek() {
            let time_bits = (key >> 64) as u64;
            let week = self.day_of(time_bits) >> WEEK_DAYS;
            if week - self.week() >= RING_WEEKS {
                self.overflow_week = week;
                break;
            }
            self.overflow.pop();
            self.insert(key as u32, time_bits, (key >> 32) as u32);
        }
    }

    /// After the current day moved on: the events that came within a ring moved into it.
    #[inline(always)]
    fn catch_up(&mut self) {
        // The far ring's weeks are at least the old week + NEAR_WEEKS, and the overflow's the
        // old week + RING_WEEKS: neither behind the current week.
        if self.far_week - self.week() < NEAR_WEEKS {
            self.pull_far();
        }
        if self.overflow_week - self.week() < RING_WEEKS {
            self.pull_overflow();
        }
    }

    /// The bucket of the earliest event, the current day moved to its day; `None` when the
    /// queue is empty.
    #[inline(always)]
    fn earliest_bucket(&mut self) -> Option<usize> {
        loop {
            let current = self.day as usize & MASK;
            if let Some(slot) = self.near.first_occupied(current) {
                // Forward to the bucket's day (without a branch: often it is the same).
                self.day += (slot.wrapping_sub(current) & MASK) as u64;
                self.catch_up();
                return Some(slot);
            }
            // The near ring is empty: forward to the first day of the next week that has
            // events, which then come within the near ring.
            let week = self.far_week.min(self.overflow_week);
            if week == NO_WEEK {
                return None;
            }
            self.day = week << WEEK_DAYS;
            self.catch_up();
        }
    }

    /// The earliest event and its time, the clock moved to that time; `None` when empty.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(f64, u32)> {
        let slot = self.earliest_bucket()?;
        // The smallest in the bucket's list, and the event before it.
        let mut best = self.near.heads[slot];
        let mut best_node = self.nodes[best as usize];
        let mut best_previous = NONE;
        let mut previous = best;
        let mut event = best_node.next;
        while event != NONE {
            let node = self.nodes[event as usize];
            if node.before(&best_node) {
                (best, best_node, best_previous) = (event, node, previous);
            }
            previous = event;
            event = node.next;
        }
        // Out of the list.
        if best_previous == NONE {
            if best_node.next == NONE {
                self.near.vacate(slot);
            } else {
                self.near.heads[slot] = best_node.next;
            }
        } else {
            self.nodes[best_previous as usize].next = best_node.next;
        }
        let now_ms = f64::from_bits(best_node.time_bits);
        self.clock.advance(now_ms);
        Some((now_ms, best))
    }

    /// The clock: the time of the last event popped (ms; 0 before the first).
    pub fn now_ms(&self) -> f64 {
        self.clock.now_ms()
    }

    /// Events waiting (counted through the buckets: for checks, not for a simulation loop).
    pub fn len(&self) -> usize {
        let next = |event: u32| self.nodes[event as usize].next;
        self.near.len(next) + self.far.len(next) + self.overflow.len()
    }

    /// Whether no event is waiting.
    pub fn is_empty(&self) -> bool {
        self.near.is_empty() && self.far.is_empty() && self.overflow.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equal times come out in the order they were scheduled, an event beyond the ring after
    /// the ones in it, and a bucket that holds several events gives its earliest first.
    #[test]
    fn pops_by_time_then_by_scheduling_order() {
        // Buckets 1 ms wide: the ring covers 4,096 ms.
        let mut queue = CalendarQueue::new(6, 1.0);
        queue.schedule(5_000.0, 0); // beyond the ring: the overflow
        queue.schedule(2.5, 1);
        queue.schedule(2.25, 2); // the same bucket as 1, earlier
        queue.schedule(2.5, 3); // the same time as 1, scheduled after it
        queue.schedule(0.0, 4);
        assert_eq!(queue.len(), 5);
        assert_eq!(queue.pop(), Some((0.0, 4)));
        assert_eq!(queue.pop(), Some((2.25, 2)));
        assert_eq!(queue.pop(), Some((2.5, 1)));
        assert_eq!(queue.now_ms(), 2.5);
        queue.schedule(2.5, 5); // at the clock, after 3
        assert_eq!(queue.pop(), Some((2.5, 3)));
        assert_eq!(queue.pop(), Some((2.5, 5)));
        assert_eq!(queue.pop(), Some((5_000.0, 0)));
        assert_eq!(queue.pop(), None);
        assert!(queue.is_empty());
    }

    /// An event exactly one ring ahead of the current day (its day maps to the current
    /// bucket) stays in the far ring until the near ring reaches it, behind the events before
    /// it.
    #[test]
    fn an_event_one_ring_ahead_waits_its_turn() {
        let mut queue = CalendarQueue::new(4, 1.0);
        queue.schedule(0.5, 0); // day 0
        queue.schedule(SLOTS as f64 + 1.5, 1); // day SLOTS + 1: the overflow
        queue.schedule(1.5, 2); // day 1
        queue.schedule(4_000.5, 3); // day 4,000: in the ring
        let order: Vec<u32> = std::iter::from_fn(|| queue.pop().map(|(_, event)| event)).collect();
        assert_eq!(order, vec![0, 2, 3, 1]);
    }

    /// Where each lead lands, by hand, with buckets 1 ms wide (a day is a millisecond, a week
    /// 64 of them): the near ring holds weeks 0 to 63 (days up to 4,095), the far ring weeks
    /// 64 to 4,159 (days up to 266,239), the overflow what is later; a far week's events come
    /// out in time order, and when the near ring runs empty the queue jumps to the far ring's
    /// first week, pulling the overflow's events that the jump brings within the rings.
    #[test]
    fn far_events_wait_in_the_far_ring_then_the_overflow() {
        let mut queue = CalendarQueue::new(7, 1.0);
        queue.schedule(4_096.5, 0); // week 64: the far ring's first
        queue.schedule(0.5, 1); // week 0: near
        queue.schedule(4_095.5, 2); // week 63: near, its last
        queue.schedule(266_239.5, 3); // week 4,159: the far ring's last
        queue.schedule(266_240.5, 4); // week 4,160: the overflow
        queue.schedule(4_096.25, 5); // week 64, before event 0
        let placed = |queue: &CalendarQueue| {
            (
                queue.near.len(|event| queue.nodes[event as usize].next),
                queue.far.len(|event| queue.nodes[event as usize].next),
                queue.overflow.len(),
            )
        };
        assert_eq!(placed(&queue), (2, 3, 1));
        assert_eq!(queue.pop(), Some((0.5, 1)));
        assert_eq!(placed(&queue), (1, 3, 1));
        // Week 63 is current: week 64 has come within the near ring, and the overflow's
        // week 4,160 within the far ring; week 4,159 stays in the far ring.
        assert_eq!(queue.pop(), Some((4_095.5, 2)));
        assert_eq!(placed(&queue), (2, 2, 0));
        queue.schedule(4_095.75, 6); // week 63
        assert_eq!(placed(&queue), (3, 2, 0));
        let order: Vec<(f64, u32)> = std::iter::from_fn(|| queue.pop()).collect();
        assert_eq!(
            order,
            vec![
                (4_095.75, 6),
                (4_096.25, 5),
                (4_096.5, 0),
                (266_239.5, 3),
                (266_240.5, 4)
            ]
        );
        assert!(queue.is_empty());
    }

    /// A far week comes into the near ring as soon as it is within 63 weeks of the current
    /// one, before the events scheduled into that week's near buckets from then on (1 ms
    /// buckets: week 64 is days 4,096 to 4,159).
    #[test]
    fn a_far_week_comes_near_as_soon_as_the_near_ring_holds_it() {
        let mut queue = CalendarQueue::new(3, 1.0);
        queue.schedule(4_106.5, 0); // week 64, 64 weeks ahead: the far ring
        queue.schedule(64.5, 1); // week 1: near
        assert_eq!(queue.pop(), Some((64.5, 1)));
        queue.schedule(4_116.5, 2); // week 64, now 63 weeks ahead: near
        assert_eq!(queue.pop(), Some((4_106.5, 0)));
        assert_eq!(queue.pop(), Some((4_116.5, 2)));
        assert_eq!(queue.pop(), None);
    }

    /// A run that did not empty its queue leaves nothing behind after a reset.
    #[test]
    fn a_reset_empties_the_queue() {
        let mut queue = CalendarQueue::new(3, 0.5);
        queue.schedule(1.0, 0);
        queue.schedule(9_999.0, 1);
        queue.reset(3, 2.0);
        assert_eq!(queue.pop(), None);
        queue.schedule(3.0, 2);
        assert_eq!(queue.pop(), Some((3.0, 2)));
        assert_eq!(queue.pop(), None);
    }

    /// The queue contract, for bucket widths from far narrower to far wider than the gaps
    /// between the times.
    #[test]
    fn keeps_the_queue_contract_for_any_width() {
        for width_ms in [0.001, 0.1, 1.0, 37.5, 1e6] {
            crate::queue::conformance::check(|| CalendarQueue::new(97, width_ms), width_ms);
        }
    }
}
