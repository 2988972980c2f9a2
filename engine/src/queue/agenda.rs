//! The load model's agenda: events in order of `(time, scheduling order)`, popped in exactly
//! the order one plain heap of every event ([`Heap`](crate::queue::heap::Heap))
//! would pop them all, held in a calendar queue ([`Calendar`]: buckets of simulated time)
//! plus lanes, first-in first-out queues for events that are scheduled in order of their
//! time (every attempt's timeout is the send time plus one constant; the next arrival is
//! always later than the last).
//!
//! A timeout is scheduled for every attempt and most are stale long before they are due, so
//! in a busy run they are most of the events: on a lane they cost a push and a pop instead of
//! a place in the calendar. The calendar holds the events scheduled out of order (a request
//! reaching the server, a worker's end, an answer reaching the client, a retry): a bucket per
//! day of simulated time, so that finding the earliest takes a few loads instead of a heap's
//! sifts. Its bucket width changes only the speed, never the order.

use std::collections::VecDeque;

use super::pool_calendar::Calendar;

/// An event and its key, `(time bits, scheduling number)`: the bits of a time that is at
/// least `+0.0` order like the times, so the pair orders by time, then by scheduling number.
#[derive(Debug, Clone, Copy)]
struct Keyed<E> {
    /// The bits of its time (ms, at least `+0.0`).
    time_bits: u64,
    /// Its scheduling number.
    sequence: u64,
    /// What happens.
    event: E,
}

impl<E> Keyed<E> {
    /// `event` at `at_ms` with scheduling number `sequence`.
    #[inline(always)]
    fn new(at_ms: f64, sequence: u64, event: E) -> Self {
        Self {
            time_bits: time_bits(at_ms),
            sequence,
            event,
        }
    }

    /// `(time bits << 64) | sequence`: one integer that orders the events.
    #[inline(always)]
    fn key(&self) -> u128 {
        (u128::from(self.time_bits) << 64) | u128::from(self.sequence)
    }

    /// Its time (ms).
    #[inline(always)]
    fn time_ms(&self) -> f64 {
        f64::from_bits(self.time_bits)
    }
}

/// The bits of a time at least `-0.0` (ms): `+ 0.0` turns -0.0 into +0.0, whose bits are 0.
#[inline(always)]
fn time_bits(at_ms: f64) -> u64 {
    (at_ms + 0.0).to_bits()
}

/// The calendar's bucket width when none is given (ms).
pub const DEFAULT_BUCKET_WIDTH_MS: f64 = 1.0;

/// Events ordered by `(time, scheduling order)`, as the event queue orders them, with
/// `LANES` first-in first-out lanes beside the calendar.
#[derive(Debug)]
pub struct Agenda<E, const LANES: usize> {
    /// Events scheduled out of order.
    calendar: Calendar<E>,
    /// Events scheduled in order of their time, per lane.
    lanes: [VecDeque<Keyed<E>>; LANES],
    /// Events scheduled so far.
    next_sequence: u64,
}

impl<E: Copy, const LANES: usize> Default for Agenda<E, LANES> {
    fn default() -> Self {
        Self::new()
    }
}

/// Where the earliest event waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Calendar,
    Lane(usize),
}

impl<E: Copy, const LANES: usize> Agenda<E, LANES> {
    /// An empty agenda, its calendar's buckets [`DEFAULT_BUCKET_WIDTH_MS`] wide.
    pub fn new() -> Self {
        Self::with_bucket_width(DEFAULT_BUCKET_WIDTH_MS)
    }

    /// An empty agenda, its calendar's buckets `width_ms` wide (a choice of speed only: any
    /// positive finite width gives the same order).
    ///
    /// # Panics
    /// If `width_ms` is not positive and finite.
    pub fn with_bucket_width(width_ms: f64) -> Self {
        Self {
            calendar: Calendar::new(width_ms),
            lanes: std::array::from_fn(|_| VecDeque::new()),
            next_sequence: 0,
        }
    }

    /// Schedules `event` at `at_ms` (ms of simulated time, not before the last event popped).
    #[inline]
    pub fn schedule(&mut self, at_ms: f64, event: E) {
        self.calendar
            .schedule(time_bits(at_ms), self.next_sequence, event);
        self.next_sequence += 1;
    }

    /// Schedules `event` at `at_ms` on lane `lane` if it is not earlier than the lane's last
    /// event (else in the calendar: the order is the same either way, only the cost differs).
    #[inline]
    pub fn schedule_on_lane(&mut self, lane: usize, at_ms: f64, event: E) {
        let scheduled = Keyed::new(at_ms, self.next_sequence, event);
        let queue = &mut self.lanes[lane];
        if queue
            .back()
            .is_some_and(|last| scheduled.key() < last.key())
        {
            return self.schedule(at_ms, event);
        }
        queue.push_back(scheduled);
        self.next_sequence += 1;
    }

    /// Where the earliest `(time, scheduling number)` waits; `None` when nothing does.
    #[inline]
    fn earliest(&mut self) -> Option<Source> {
        let mut best = self.calendar.peek().map(|key| (key, Source::Calendar));
        for (index, lane) in self.lanes.iter().enumerate() {
            if let Some(front) = lane.front()
                && best.is_none_or(|(key, _)| front.key() < key)
            {
                best = Some((front.key(), Source::Lane(index)));
            }
        }
        best.map(|(_, source)| source)
    }

    /// Events waiting, in the calendar and on the lanes.
    pub fn len(&self) -> usize {
        self.calendar.len() + self.lanes.iter().map(VecDeque::len).sum::<usize>()
    }

    /// Whether no event is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The earliest event and its time; `None` when empty.
    #[inline]
    pub fn pop(&mut self) -> Option<(f64, E)> {
        match self.earliest()? {
            Source::Calendar => {
                let (time_bits, event) = self.calendar.pop_front();
                Some((f64::from_bits(time_bits), event))
            }
            Source::Lane(index) => self.lanes[index]
                .pop_front()
                .map(|laned| (laned.time_ms(), laned.event)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::EventQueue;

    /// The agenda under the queue contract, a third of the events on each lane (the lanes
    /// take an event out of their order to the calendar).
    struct Laned(Agenda<u32, 2>);

    impl EventQueue for Laned {
        type Event = u32;
        fn schedule(&mut self, time_ms: f64, event: u32) {
            match event % 3 {
                0 => self.0.schedule(time_ms, event),
                lane => self.0.schedule_on_lane(lane as usize - 1, time_ms, event),
            }
        }
        fn pop(&mut self) -> Option<(f64, u32)> {
            self.0.pop()
        }
        fn len(&self) -> usize {
            self.0.len()
        }
    }

    #[test]
    fn keeps_the_queue_contract_on_and_off_the_lanes() {
        for width_ms in [0.01, 1.0, 1e6] {
            crate::queue::conformance::check(
                || Laned(Agenda::with_bucket_width(width_ms)),
                width_ms,
            );
        }
    }

    #[test]
    fn ties_at_one_time_keep_the_scheduling_order_across_lanes() {
        let mut agenda: Agenda<&str, 1> = Agenda::new();
        agenda.schedule_on_lane(0, 5.0, "lane first");
        agenda.schedule(5.0, "heap second");
        agenda.schedule_on_lane(0, 5.0, "lane third");
        agenda.schedule(1.0, "heap earliest");
        // Earlier than the lane's last: goes to the heap, still in order.
        agenda.schedule_on_lane(0, 2.0, "lane out of order");
        let order: Vec<&str> = std::iter::from_fn(|| agenda.pop().map(|(_, e)| e)).collect();
        assert_eq!(
            order,
            [
                "heap earliest",
                "lane out of order",
                "lane first",
                "heap second",
                "lane third"
            ]
        );
    }
}
