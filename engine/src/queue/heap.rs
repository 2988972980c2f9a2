//! The binary-heap event queues: [`Heap`], the plain heap for any event (the reference the
//! faster queues are read against), and [`IdQueue`], a heap for events that are a number (the
//! contention model's client), packed into the key: half the bytes to move per step of the
//! heap. [`NumberedClock`] and [`numbered_key`] are what `IdQueue` shares with the
//! [`CalendarQueue`](crate::queue::calendar::CalendarQueue).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An event waiting in the queue: its time and sequence number as one integer key, and the
/// event itself.
#[derive(Debug)]
struct Scheduled<E> {
    /// `(time bits << 64) | sequence`: the bits of a time that is at least `+0.0` order like
    /// the times, so one integer comparison orders by time, then by sequence number (how many
    /// events were scheduled before it).
    key: u128,
    /// What happens.
    event: E,
}

impl<E> Scheduled<E> {
    fn new(time_ms: f64, sequence: u64, event: E) -> Self {
        // `+ 0.0` turns -0.0 into +0.0, whose bits are 0.
        let bits = (time_ms + 0.0).to_bits();
        Self {
            key: (u128::from(bits) << 64) | u128::from(sequence),
            event,
        }
    }

    fn time_ms(&self) -> f64 {
        f64::from_bits((self.key >> 64) as u64)
    }
}

impl<E> PartialEq for Scheduled<E> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl<E> Eq for Scheduled<E> {}

impl<E> PartialOrd for Scheduled<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<E> Ord for Scheduled<E> {
    /// Reversed, so that the standard max-heap pops the earliest `(time, sequence)` first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Events ordered by `(time, sequence number)` on one clock that only moves forward.
#[derive(Debug)]
pub struct Heap<E> {
    heap: BinaryHeap<Scheduled<E>>,
    next_sequence: u64,
    now_ms: f64,
}

impl<E> Default for Heap<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> Heap<E> {
    /// An empty queue with the clock at 0 ms.
    pub fn new() -> Self {
        Self {
            heap: BinaryHeap::new(),
            next_sequence: 0,
            now_ms: 0.0,
        }
    }

    /// Empties the queue and sets the clock back to 0 ms, keeping the allocation.
    pub fn clear(&mut self) {
        self.heap.clear();
        self.next_sequence = 0;
        self.now_ms = 0.0;
    }

    /// Schedules `event` at `time_ms` (ms of simulated time).
    ///
    /// # Panics
    /// If `time_ms` is before the clock (time never runs backwards) or is not a number.
    #[inline]
    pub fn schedule(&mut self, time_ms: f64, event: E) {
        assert!(
            time_ms >= self.now_ms,
            "an event at {time_ms} ms is before the clock ({} ms)",
            self.now_ms
        );
        self.heap
            .push(Scheduled::new(time_ms, self.next_sequence, event));
        self.next_sequence += 1;
    }

    /// The earliest event and its time, the clock moved to that time; `None` when empty.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(f64, E)> {
        let earliest = self.heap.pop()?;
        self.now_ms = earliest.time_ms();
        Some((self.now_ms, earliest.event))
    }

    /// The earliest event and its time, left in the queue (the clock does not move).
    #[inline(always)]
    pub fn peek(&self) -> Option<(f64, &E)> {
        self.heap
            .peek()
            .map(|scheduled| (scheduled.time_ms(), &scheduled.event))
    }

    /// Pops the earliest event and schedules `event` at `time_ms` in one step (one sift
    /// through the heap instead of two): the same as [`Heap::pop`] then
    /// [`Heap::schedule`], for the common case where handling an event schedules the
    /// next one. Returns the earliest event and its time, the clock moved to that time.
    ///
    /// # Panics
    /// If the queue is empty, or `time_ms` is before the earliest event's time.
    #[inline(always)]
    pub fn replace_earliest(&mut self, time_ms: f64, event: E) -> (f64, E) {
        let mut earliest = self
            .heap
            .peek_mut()
            .expect("replace_earliest needs an event in the queue");
        let now_ms = earliest.time_ms();
        assert!(
            time_ms >= now_ms,
            "an event at {time_ms} ms is before the clock ({now_ms} ms)"
        );
        self.now_ms = now_ms;
        let replaced = std::mem::replace(
            &mut *earliest,
            Scheduled::new(time_ms, self.next_sequence, event),
        );
        drop(earliest);
        self.next_sequence += 1;
        (now_ms, replaced.event)
    }

    /// The clock: the time of the last event popped (ms; 0 before the first).
    pub fn now_ms(&self) -> f64 {
        self.now_ms
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is waiting.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

/// The clock of a queue of events that are a number, and its count of events scheduled, which
/// orders equal times: what [`IdQueue`] and the
/// [`CalendarQueue`](crate::queue::calendar::CalendarQueue) share.
#[derive(Debug, Default, Clone, Copy)]
pub struct NumberedClock {
    /// The time of the last event popped (ms; 0 before the first).
    now_ms: f64,
    /// The sequence number of the next event scheduled.
    next_sequence: u32,
}

impl NumberedClock {
    /// The sequence number of an event scheduled at `time_ms`.
    ///
    /// # Panics
    /// If `time_ms` is before the clock (time never runs backwards) or is not a number, or
    /// after `2^32` events scheduled since the clock was last set back.
    #[inline(always)]
    pub fn stamp(&mut self, time_ms: f64) -> u32 {
        assert!(
            time_ms >= self.now_ms,
            "an event at {time_ms} ms is before the clock ({} ms)",
            self.now_ms
        );
        let sequence = self.next_sequence;
        self.next_sequence = sequence
            .checked_add(1)
            .expect("a queue of numbered events schedules at most 2^32 between clears");
        sequence
    }

    /// Moves the clock to `now_ms`, the time of the event just popped.
    #[inline(always)]
    pub fn advance(&mut self, now_ms: f64) {
        self.now_ms = now_ms;
    }

    /// The time of the last event popped (ms; 0 before the first).
    pub fn now_ms(&self) -> f64 {
        self.now_ms
    }
}

/// The key of a numbered event: `time bits << 64 | sequence << 32 | event`, which orders by
/// time, then by sequence number (the bits of a time of at least `+0.0` order like the times).
#[inline(always)]
pub fn numbered_key(time_bits: u64, sequence: u32, event: u32) -> u128 {
    (u128::from(time_bits) << 64) | (u128::from(sequence) << 32) | u128::from(event)
}

/// A binary heap of events that are a number (`u32`, e.g. a client's): the order and the
/// steps of [`Heap`], with the event packed into the low bits of the key ([`numbered_key`]), so
/// that the heap holds 16-byte integers.
///
/// At most `2^32` events can be scheduled between two [`IdQueue::clear`]s (a sequence number
/// has 32 bits here).
#[derive(Debug, Default)]
pub struct IdQueue {
    /// Min-heap of keys (reversed for `std`'s max-heap).
    heap: BinaryHeap<std::cmp::Reverse<u128>>,
    clock: NumberedClock,
}

impl IdQueue {
    /// An empty queue with the clock at 0 ms.
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the queue and sets the clock back to 0 ms, keeping the allocation.
    pub fn clear(&mut self) {
        self.heap.clear();
        self.clock = NumberedClock::default();
    }

    /// The key of `event` at `time_ms` with the next sequence number.
    ///
    /// # Panics
    /// As [`NumberedClock::stamp`].
    #[inline(always)]
    fn next_key(&mut self, time_ms: f64, event: u32) -> u128 {
        let sequence = self.clock.stamp(time_ms);
        // `+ 0.0` turns -0.0 into +0.0, whose bits are 0.
        numbered_key((time_ms + 0.0).to_bits(), sequence, event)
    }

    /// The time and the event of `key`.
    #[inline(always)]
    fn unpack(key: u128) -> (f64, u32) {
        (f64::from_bits((key >> 64) as u64), key as u32)
    }

    /// Schedules `event` at `time_ms` (ms of simulated time).
    ///
    /// # Panics
    /// If `time_ms` is before the clock (time never runs backwards) or is not a number.
    #[inline(always)]
    pub fn schedule(&mut self, time_ms: f64, event: u32) {
        let key = self.next_key(time_ms, event);
        self.heap.push(std::cmp::Reverse(key));
    }

    /// The earliest event and its time, the clock moved to that time; `None` when empty.
    #[inline(always)]
    pub fn pop(&mut self) -> Option<(f64, u32)> {
        let (now_ms, event) = Self::unpack(self.heap.pop()?.0);
        self.clock.advance(now_ms);
        Some((now_ms, event))
    }

    /// The earliest event and its time, left in the queue (the clock does not move).
    #[inline(always)]
    pub fn peek(&self) -> Option<(f64, u32)> {
        self.heap.peek().map(|key| Self::unpack(key.0))
    }

    /// Pops the earliest event and schedules `event` at `time_ms` in one step: the same as
    /// [`IdQueue::pop`] then [`IdQueue::schedule`]. Returns the earliest event and its time,
    /// the clock moved to that time.
    ///
    /// # Panics
    /// If the queue is empty, or `time_ms` is before the earliest event's time.
    #[inline(always)]
    pub fn replace_earliest(&mut self, time_ms: f64, event: u32) -> (f64, u32) {
        let key = self.next_key(time_ms, event);
        let mut earliest = self
            .heap
            .peek_mut()
            .expect("replace_earliest needs an event in the queue");
        let (now_ms, replaced) = Self::unpack(earliest.0);
        assert!(
            time_ms >= now_ms,
            "an event at {time_ms} ms is before the clock ({now_ms} ms)"
        );
        self.clock.advance(now_ms);
        earliest.0 = key;
        (now_ms, replaced)
    }

    /// The clock: the time of the last event popped (ms; 0 before the first).
    pub fn now_ms(&self) -> f64 {
        self.clock.now_ms()
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether no event is waiting.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_come_out_by_time_then_by_scheduling_order() {
        let mut queue = Heap::new();
        queue.schedule(5.0, "late");
        queue.schedule(1.0, "first at 1");
        queue.schedule(3.0, "middle");
        queue.schedule(1.0, "second at 1");
        queue.schedule(1.0, "third at 1");
        let order: Vec<(f64, &str)> = std::iter::from_fn(|| queue.pop()).collect();
        assert_eq!(
            order,
            vec![
                (1.0, "first at 1"),
                (1.0, "second at 1"),
                (1.0, "third at 1"),
                (3.0, "middle"),
                (5.0, "late"),
            ]
        );
        assert_eq!(queue.now_ms(), 5.0);
        assert!(queue.is_empty());
    }

    #[test]
    fn events_scheduled_while_running_keep_the_order() {
        let mut queue = Heap::new();
        queue.schedule(2.0, 'a');
        queue.schedule(4.0, 'c');
        let (now, _) = queue.pop().unwrap();
        queue.schedule(now, 'b');
        queue.schedule(now + 2.0, 'd');
        assert_eq!(queue.len(), 3);
        let rest: Vec<char> = std::iter::from_fn(|| queue.pop().map(|(_, e)| e)).collect();
        // 'b' at 2 ms; 'c' and 'd' both at 4 ms, 'c' scheduled first.
        assert_eq!(rest, vec!['b', 'c', 'd']);
    }

    /// Replacing the earliest event pops in the same order as popping and scheduling.
    #[test]
    fn replacing_the_earliest_is_pop_then_schedule() {
        let times = [3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0];
        let mut popping = Heap::new();
        let mut replacing = Heap::new();
        for (index, &time) in times.iter().enumerate() {
            popping.schedule(time, index);
            replacing.schedule(time, index);
        }
        let mut order_popping = Vec::new();
        let mut order_replacing = Vec::new();
        for step in 0..20 {
            // Every third event schedules nothing; the others one event 0 to 3 ms later.
            let later = |now: f64| (step % 3 != 0).then(|| now + f64::from(step % 4));
            let (now, event) = popping.pop().unwrap();
            order_popping.push((now, event));
            if let Some(time) = later(now) {
                popping.schedule(time, 100 + step as usize);
            }
            let (now, &event) = replacing.peek().unwrap();
            order_replacing.push((now, event));
            match later(now) {
                Some(time) => assert_eq!(
                    replacing.replace_earliest(time, 100 + step as usize),
                    (now, event)
                ),
                None => assert_eq!(replacing.pop(), Some((now, event))),
            }
            assert_eq!(replacing.now_ms(), popping.now_ms());
            if popping.is_empty() {
                break;
            }
        }
        assert_eq!(order_popping, order_replacing);
        assert_eq!(popping.len(), replacing.len());
    }

    #[test]
    fn both_heaps_keep_the_queue_contract() {
        crate::queue::conformance::check(Heap::new, 1.0);
        crate::queue::conformance::check(IdQueue::new, 1.0);
    }

    #[test]
    fn the_id_queue_peeks_and_clears_like_the_event_queue() {
        let mut queue = IdQueue::new();
        assert_eq!(queue.peek(), None);
        queue.schedule(2.0, 7);
        queue.schedule(1.0, 8);
        assert_eq!(queue.peek(), Some((1.0, 8)));
        assert_eq!(queue.now_ms(), 0.0);
        assert_eq!(queue.pop(), Some((1.0, 8)));
        assert!(!queue.is_empty());
        queue.clear();
        assert!(queue.is_empty());
        queue.schedule(0.0, 9);
        assert_eq!(queue.pop(), Some((0.0, 9)));
    }

    #[test]
    #[should_panic(expected = "before the clock")]
    fn the_id_queue_never_runs_backwards() {
        let mut queue = IdQueue::new();
        queue.schedule(3.0, 1);
        queue.replace_earliest(2.0, 2);
    }

    #[test]
    #[should_panic(expected = "before the clock")]
    fn time_never_runs_backwards() {
        let mut queue = Heap::new();
        queue.schedule(3.0, ());
        queue.pop();
        queue.schedule(2.0, ());
    }

    #[test]
    fn clear_resets_the_clock_and_the_sequence() {
        let mut queue = Heap::new();
        queue.schedule(7.0, 1);
        queue.pop();
        queue.clear();
        queue.schedule(0.0, 2);
        assert_eq!(queue.pop(), Some((0.0, 2)));
    }
}
