//! [`SmallQueue`]: the queue of one short simulation (one payment's events): an unordered
//! buffer scanned for the earliest when few events wait at a time, a heap otherwise, both
//! kept from simulation to simulation so that nothing is allocated per payment.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An event waiting, with its time and the count of events scheduled before it.
#[derive(Debug, Clone, Copy)]
struct Scheduled<E> {
    time_ms: f64,
    sequence: u64,
    event: E,
}

impl<E> PartialEq for Scheduled<E> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl<E> Eq for Scheduled<E> {}
impl<E> PartialOrd for Scheduled<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Scheduled<E> {
    /// Reversed, so that the max-heap pops the earliest event (ties: first scheduled).
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time_ms
            .total_cmp(&self.time_ms)
            .then(other.sequence.cmp(&self.sequence))
    }
}

/// Pending events, earliest first, ties in the order scheduled: scanned for the earliest
/// (after [`SmallQueue::clear`] with `scan = true`) or kept in a heap.
#[derive(Debug)]
pub struct SmallQueue<E> {
    scanned: bool,
    pending: Vec<Scheduled<E>>,
    heap: BinaryHeap<Scheduled<E>>,
    sequence: u64,
}

impl<E> Default for SmallQueue<E> {
    fn default() -> Self {
        Self {
            scanned: false,
            pending: Vec::new(),
            heap: BinaryHeap::new(),
            sequence: 0,
        }
    }
}

impl<E: Copy> SmallQueue<E> {
    /// Empties the queue for the next simulation: `scan` when at most a handful of events
    /// will wait at once (a scan of a few beats a heap's sifts), else a heap.
    pub fn clear(&mut self, scan: bool) {
        self.scanned = scan;
        self.pending.clear();
        self.heap.clear();
        self.sequence = 0;
    }

    /// Schedules `event` at `time_ms`.
    #[inline]
    pub fn schedule(&mut self, time_ms: f64, event: E) {
        self.sequence += 1;
        let scheduled = Scheduled {
            time_ms,
            sequence: self.sequence,
            event,
        };
        if self.scanned {
            self.pending.push(scheduled);
        } else {
            self.heap.push(scheduled);
        }
    }

    /// The earliest event and its time; `None` when empty.
    #[inline]
    pub fn pop(&mut self) -> Option<(f64, E)> {
        let scheduled = if self.scanned {
            // The order is reversed: the earliest is the greatest.
            let mut earliest = 0;
            for (index, scheduled) in self.pending.iter().enumerate().skip(1) {
                if *scheduled > self.pending[earliest] {
                    earliest = index;
                }
            }
            (earliest < self.pending.len()).then(|| self.pending.swap_remove(earliest))
        } else {
            self.heap.pop()
        };
        scheduled.map(|scheduled| (scheduled.time_ms, scheduled.event))
    }

    /// Events waiting.
    pub fn len(&self) -> usize {
        self.pending.len() + self.heap.len()
    }

    /// Whether no event is waiting.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scanned_and_heaped_keep_the_queue_contract() {
        for scan in [true, false] {
            let make = move || {
                let mut queue = SmallQueue::default();
                queue.clear(scan);
                queue
            };
            crate::queue::conformance::check(make, 1.0);
        }
    }
}
