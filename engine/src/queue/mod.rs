//! Discrete-event queues on one simulated clock, behind one contract ([`EventQueue`]): events
//! come out in order of their time, and events at the same time in the order they were
//! scheduled, so a run is deterministic whatever the events are. Each queue is a choice of
//! speed only; every one passes the same conformance test against a sorted list.
//!
//! - [`heap::Heap`]: a binary heap for any event (the plain reference);
//! - [`heap::IdQueue`]: a heap for events that are a number, packed into the key;
//! - [`calendar::CalendarQueue`]: buckets of simulated time for events that are small numbers,
//!   each waiting at most once (the contention model's clients);
//! - [`agenda::Agenda`]: a calendar of any events ([`pool_calendar`]) with first-in first-out
//!   lanes beside it for events scheduled in time order (the load model);
//! - [`small::SmallQueue`]: a scanned buffer or a heap for one payment's few events (the
//!   timeline model).
//!
//! The two calendars share their rings in [`ring`].

pub mod agenda;
pub mod calendar;
pub mod heap;
pub mod pool_calendar;
pub mod ring;
pub mod small;

/// The contract every event queue keeps: [`EventQueue::pop`] gives the waiting event with the
/// smallest time, and among equal times the one scheduled first.
pub trait EventQueue {
    /// What waits in the queue.
    type Event: Copy;

    /// Schedules `event` at `time_ms` (ms of simulated time, not before the last event
    /// popped).
    fn schedule(&mut self, time_ms: f64, event: Self::Event);

    /// The earliest event and its time; `None` when empty.
    fn pop(&mut self) -> Option<(f64, Self::Event)>;

    /// Events waiting.
    fn len(&self) -> usize;

    /// Whether no event is waiting.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Pops the earliest event and schedules `event` at `time_ms`: the same as
    /// [`EventQueue::pop`] then [`EventQueue::schedule`] (a queue may do it in one step).
    /// `None`, and nothing scheduled, when the queue is empty.
    fn replace_earliest(&mut self, time_ms: f64, event: Self::Event) -> Option<(f64, Self::Event)> {
        let earliest = self.pop()?;
        self.schedule(time_ms, event);
        Some(earliest)
    }
}

impl<E: Copy> EventQueue for heap::Heap<E> {
    type Event = E;
    #[inline(always)]
    fn schedule(&mut self, time_ms: f64, event: E) {
        heap::Heap::schedule(self, time_ms, event);
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<(f64, E)> {
        heap::Heap::pop(self)
    }
    fn len(&self) -> usize {
        heap::Heap::len(self)
    }
    fn replace_earliest(&mut self, time_ms: f64, event: E) -> Option<(f64, E)> {
        (!self.is_empty()).then(|| heap::Heap::replace_earliest(self, time_ms, event))
    }
}

impl EventQueue for heap::IdQueue {
    type Event = u32;
    #[inline(always)]
    fn schedule(&mut self, time_ms: f64, event: u32) {
        heap::IdQueue::schedule(self, time_ms, event);
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<(f64, u32)> {
        heap::IdQueue::pop(self)
    }
    fn len(&self) -> usize {
        heap::IdQueue::len(self)
    }
    fn replace_earliest(&mut self, time_ms: f64, event: u32) -> Option<(f64, u32)> {
        (!self.is_empty()).then(|| heap::IdQueue::replace_earliest(self, time_ms, event))
    }
}

impl EventQueue for calendar::CalendarQueue {
    type Event = u32;
    #[inline(always)]
    fn schedule(&mut self, time_ms: f64, event: u32) {
        calendar::CalendarQueue::schedule(self, time_ms, event);
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<(f64, u32)> {
        calendar::CalendarQueue::pop(self)
    }
    fn len(&self) -> usize {
        calendar::CalendarQueue::len(self)
    }
}

impl<E: Copy, const LANES: usize> EventQueue for agenda::Agenda<E, LANES> {
    type Event = E;
    #[inline(always)]
    fn schedule(&mut self, time_ms: f64, event: E) {
        agenda::Agenda::schedule(self, time_ms, event);
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<(f64, E)> {
        agenda::Agenda::pop(self)
    }
    fn len(&self) -> usize {
        agenda::Agenda::len(self)
    }
}

impl<E: Copy> EventQueue for small::SmallQueue<E> {
    type Event = E;
    #[inline(always)]
    fn schedule(&mut self, time_ms: f64, event: E) {
        small::SmallQueue::schedule(self, time_ms, event);
    }
    #[inline(always)]
    fn pop(&mut self) -> Option<(f64, E)> {
        small::SmallQueue::pop(self)
    }
    fn len(&self) -> usize {
        small::SmallQueue::len(self)
    }
}

#[cfg(test)]
pub(crate) mod conformance;
