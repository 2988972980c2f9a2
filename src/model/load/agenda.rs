//! The load model's agenda: the shared [`EventQueue`] plus lanes, first-in first-out queues
//! for events that are scheduled in order of their time (every attempt's timeout is the send
//! time plus one constant; the next arrival is always later than the last), popped in exactly
//! the order one [`EventQueue`] would pop them all.
//!
//! A timeout is scheduled for every attempt and most are stale long before they are due, so
//! in a busy run they are most of the queue: on a lane they cost a push and a pop instead of
//! two sifts through a heap that they would make several levels deeper.

use std::collections::VecDeque;

use crate::model::event_queue::EventQueue;

/// An event on a lane: its key and the event.
#[derive(Debug, Clone, Copy)]
struct Laned<E> {
    /// Its [`key`].
    key: u128,
    /// What happens.
    event: E,
}

/// `(time bits << 64) | sequence`, as [`EventQueue`] orders its events: the bits of a time
/// that is at least `+0.0` order like the times, so one integer comparison orders by time,
/// then by scheduling number.
fn key(at_ms: f64, sequence: u64) -> u128 {
    // `+ 0.0` turns -0.0 into +0.0, whose bits are 0.
    (u128::from((at_ms + 0.0).to_bits()) << 64) | u128::from(sequence)
}

/// The time of a [`key`] (ms).
fn time_ms(key: u128) -> f64 {
    f64::from_bits((key >> 64) as u64)
}

/// Events ordered by `(time, scheduling order)`, as [`EventQueue`] orders them, with `LANES`
/// first-in first-out lanes beside the heap.
#[derive(Debug)]
pub struct Agenda<E, const LANES: usize> {
    /// Events scheduled out of order, each with its scheduling number.
    heap: EventQueue<(u64, E)>,
    /// Events scheduled in order of their time, per lane.
    lanes: [VecDeque<Laned<E>>; LANES],
    /// Events scheduled so far.
    next_sequence: u64,
    /// Whether the heap's earliest event was popped but is still in the heap: the next event
    /// scheduled in the heap replaces it (one sift instead of two), else the next pop removes
    /// it.
    popped_in_heap: bool,
}

impl<E: Copy, const LANES: usize> Default for Agenda<E, LANES> {
    fn default() -> Self {
        Self::new()
    }
}

/// Where the earliest event waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Heap,
    Lane(usize),
}

impl<E: Copy, const LANES: usize> Agenda<E, LANES> {
    /// An empty agenda.
    pub fn new() -> Self {
        Self {
            heap: EventQueue::new(),
            lanes: std::array::from_fn(|_| VecDeque::new()),
            next_sequence: 0,
            popped_in_heap: false,
        }
    }

    /// Schedules `event` at `at_ms` (ms of simulated time, not before the last event popped).
    pub fn schedule(&mut self, at_ms: f64, event: E) {
        let scheduled = (self.next_sequence, event);
        if self.popped_in_heap {
            self.popped_in_heap = false;
            self.heap.replace_earliest(at_ms, scheduled);
        } else {
            self.heap.schedule(at_ms, scheduled);
        }
        self.next_sequence += 1;
    }

    /// Schedules `event` at `at_ms` on lane `lane` if it is not earlier than the lane's last
    /// event (else in the heap: the order is the same either way, only the cost differs).
    pub fn schedule_on_lane(&mut self, lane: usize, at_ms: f64, event: E) {
        let key = key(at_ms, self.next_sequence);
        let queue = &mut self.lanes[lane];
        if queue.back().is_some_and(|last| key < last.key) {
            return self.schedule(at_ms, event);
        }
        queue.push_back(Laned { key, event });
        self.next_sequence += 1;
    }

    /// Where the earliest `(time, scheduling number)` waits; `None` when nothing does.
    fn earliest(&self) -> Option<Source> {
        let mut best = self
            .heap
            .peek()
            .map(|(at_ms, &(sequence, _))| (key(at_ms, sequence), Source::Heap));
        for (index, lane) in self.lanes.iter().enumerate() {
            if let Some(front) = lane.front()
                && best.is_none_or(|(key, _)| front.key < key)
            {
                best = Some((front.key, Source::Lane(index)));
            }
        }
        best.map(|(_, source)| source)
    }

    /// The earliest event and its time; `None` when empty.
    pub fn pop(&mut self) -> Option<(f64, E)> {
        if self.popped_in_heap {
            self.popped_in_heap = false;
            self.heap.pop();
        }
        match self.earliest()? {
            Source::Heap => {
                // Left in the heap until the next schedule replaces it or the next pop.
                self.popped_in_heap = true;
                self.heap.peek().map(|(at_ms, &(_, event))| (at_ms, event))
            }
            Source::Lane(index) => self.lanes[index]
                .pop_front()
                .map(|laned| (time_ms(laned.key), laned.event)),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use rand_core::Rng;

    use super::*;
    use crate::rng::{SeedSequence, unit_f64};

    /// Pops everything in order, scheduling the draws' events as it goes, on an agenda and on
    /// one [`EventQueue`]: both must pop the same `(time, event)` sequence.
    fn same_order_as_one_queue(seed: u64, events: usize, tie_grid_ms: f64) {
        let mut stream = SeedSequence::new(seed).pcg64();
        let mut draw = move || unit_f64(stream.next_u64());
        let mut agenda: Agenda<usize, 2> = Agenda::new();
        let mut reference = EventQueue::new();
        let mut now = 0.0;
        let mut popped = Vec::new();
        let mut expected = Vec::new();
        for id in 0..events {
            // Times on a coarse grid make ties common; lane 0 gets "timeouts" at a constant
            // delay, lane 1 arbitrary times (often out of order: they go to the heap).
            let delay = (draw() * 5.0).floor() * tie_grid_ms;
            let (lane, at) = match (draw() * 3.0) as usize {
                0 => (None, now + delay),
                1 => (Some(0), now + 3.0 * tie_grid_ms),
                _ => (Some(1), now + delay),
            };
            match lane {
                None => agenda.schedule(at, id),
                Some(lane) => agenda.schedule_on_lane(lane, at, id),
            }
            reference.schedule(at, id);
            if draw() < 0.5 {
                let (time, event) = agenda.pop().unwrap();
                popped.push((time, event));
                expected.push(reference.pop().unwrap());
                now = time;
            }
        }
        popped.extend(std::iter::from_fn(|| agenda.pop()));
        expected.extend(std::iter::from_fn(|| reference.pop()));
        assert_eq!(popped.len(), events);
        assert_eq!(popped, expected);
    }

    #[test]
    fn pops_in_the_order_of_one_event_queue() {
        same_order_as_one_queue(7, 5_000, 1.0);
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

    proptest! {
        #[test]
        fn any_schedule_pops_like_one_queue(seed in any::<u64>(), grid in 0.0f64..3.0) {
            same_order_as_one_queue(seed, 300, grid);
        }
    }
}
