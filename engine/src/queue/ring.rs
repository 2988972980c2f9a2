//! The ring machinery the calendar queues share (the contention model's
//! [`CalendarQueue`](crate::queue::calendar::CalendarQueue) and the load model's
//! [`Agenda`](crate::queue::agenda::Agenda)): days of a fixed width and weeks of 64
//! days, a ring of [`SLOTS`] buckets whose lists are threaded through the queue's own nodes,
//! and the occupancy bits that find the next occupied bucket with two trailing-zero counts.
//!
//! A queue keeps a near ring (a bucket per day, for the 64 weeks from the current one on), a
//! far ring (a bucket per week, for the [`SLOTS`] weeks after those) and an overflow heap for
//! what is later, as in a hierarchical timing wheel; this file holds what does not depend on
//! what a node holds.

/// Buckets in each ring: 64 words of occupancy bits, so that one `u64` says which words have
/// any.
pub const SLOTS: usize = 4096;

/// `SLOTS - 1`: a day's bucket in the near ring is `day & MASK`, a week's in the far ring
/// `week & MASK`.
pub const MASK: usize = SLOTS - 1;

/// Days in a week, as a shift: 64 days, the days of one word of the near ring's occupancy
/// bits.
pub const WEEK_DAYS: u32 = 6;

/// Weeks the near ring holds, the current one included.
pub const NEAR_WEEKS: u64 = (SLOTS >> WEEK_DAYS) as u64;

/// Weeks the two rings hold, the current one included.
pub const RING_WEEKS: u64 = NEAR_WEEKS + SLOTS as u64;

/// The end of a bucket's list.
pub const NONE: u32 = u32::MAX;

/// No week: the far ring or the overflow is empty.
pub const NO_WEEK: u64 = u64::MAX;

/// The latest day a time maps to (`2^62`): later times share it, which keeps the order.
const LAST_DAY: f64 = 4_611_686_018_427_387_904.0;

/// The day of a time given by its bits (ms, at least `+0.0`, not NaN), with `days_per_ms`
/// days per millisecond (positive and finite): monotone in the time (a multiplication by a
/// positive constant, a clamp and a truncation, each monotone), so that a day's events all
/// come before the next day's.
#[inline(always)]
pub fn day_of(time_bits: u64, days_per_ms: f64) -> u64 {
    let day = (f64::from_bits(time_bits) * days_per_ms).min(LAST_DAY);
    // SAFETY: `day` is in `0..=2^62` (a time at least -0.0 times a positive finite number,
    // capped; `min` with a NaN gives `LAST_DAY`), so it converts exactly, without the
    // saturating conversion's checks.
    unsafe { day.to_int_unchecked::<i64>() as u64 }
}

/// Where an event waits, by how many weeks ahead of the current one its day is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Within the near ring's 64 weeks: the day's bucket there.
    Near { slot: usize },
    /// Within the far ring's weeks: the week's bucket there, and the week.
    Far { slot: usize, week: u64 },
    /// Beyond both rings: the overflow, and the week.
    Overflow { week: u64 },
}

/// Where an event of day `day` waits while the current week is `current_week` (never after
/// the event's week).
#[inline(always)]
pub fn place(day: u64, current_week: u64) -> Place {
    let week = day >> WEEK_DAYS;
    let ahead = week - current_week;
    if ahead < NEAR_WEEKS {
        Place::Near {
            slot: day as usize & MASK,
        }
    } else if ahead < RING_WEEKS {
        Place::Far {
            slot: week as usize & MASK,
            week,
        }
    } else {
        Place::Overflow { week }
    }
}

/// Days per millisecond for buckets `width_ms` wide.
///
/// # Panics
/// If `width_ms` is not positive and finite.
pub fn days_per_ms(width_ms: f64) -> f64 {
    assert!(
        width_ms > 0.0 && width_ms.is_finite(),
        "a calendar queue's buckets need a positive finite width, not {width_ms} ms"
    );
    1.0 / width_ms
}

/// [`SLOTS`] buckets, each a list of nodes (numbers into the queue's own array, linked by
/// the queue), with bits saying which are occupied.
#[derive(Debug)]
pub struct Ring {
    /// The first node of each bucket's list, or [`NONE`].
    pub heads: Box<[u32; SLOTS]>,
    /// A bit per bucket: whether its list has a node.
    occupied: [u64; SLOTS / 64],
    /// A bit per word of `occupied`: whether it has a bit set.
    occupied_words: u64,
}

impl Default for Ring {
    fn default() -> Self {
        Self::new()
    }
}

impl Ring {
    /// A ring of empty buckets.
    pub fn new() -> Self {
        Self {
            heads: Box::new([NONE; SLOTS]),
            occupied: [0; SLOTS / 64],
            occupied_words: 0,
        }
    }

    /// Empties every bucket.
    pub fn clear(&mut self) {
        self.heads.fill(NONE);
        self.occupied = [0; SLOTS / 64];
        self.occupied_words = 0;
    }

    /// Whether every bucket is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.occupied_words == 0
    }

    /// Makes `node` the first of bucket `slot`; returns the bucket's former first node (or
    /// [`NONE`]), which the caller links after it.
    #[inline(always)]
    pub fn push(&mut self, slot: usize, node: u32) -> u32 {
        let next = self.heads[slot];
        self.heads[slot] = node;
        self.occupied[slot / 64] |= 1 << (slot % 64);
        self.occupied_words |= 1 << (slot / 64);
        next
    }

    /// Marks bucket `slot` empty (its list is, or has been taken).
    #[inline(always)]
    pub fn vacate(&mut self, slot: usize) {
        self.heads[slot] = NONE;
        let word = &mut self.occupied[slot / 64];
        *word &= !(1 << (slot % 64));
        if *word == 0 {
            self.occupied_words &= !(1 << (slot / 64));
        }
    }

    /// The first occupied bucket in ring order from bucket `current` on, if any.
    #[inline(always)]
    pub fn first_occupied(&self, current: usize) -> Option<usize> {
        let word = current / 64;
        let here = self.occupied[word] & (u64::MAX << (current % 64));
        if here != 0 {
            return Some(word * 64 + here.trailing_zeros() as usize);
        }
        // The words after this one, then (the ring wrapping round) those up to it.
        let after = self.occupied_words & (u64::MAX << word << 1);
        let from = if after != 0 {
            after
        } else {
            self.occupied_words & (2u64 << word).wrapping_sub(1)
        };
        if from == 0 {
            return None;
        }
        let word = from.trailing_zeros() as usize % 64;
        Some(word * 64 + self.occupied[word].trailing_zeros() as usize)
    }

    /// The week of the first occupied bucket after week `week`'s, for a ring with a bucket
    /// per week whose buckets hold consecutive weeks in ring order (the far ring, just after
    /// emptying `week`'s bucket); [`NO_WEEK`] when every bucket is empty.
    #[inline(always)]
    pub fn next_occupied_week(&self, week: u64) -> u64 {
        let next = (week as usize + 1) & MASK;
        match self.first_occupied(next) {
            Some(found) => week + 1 + (found.wrapping_sub(next) & MASK) as u64,
            None => NO_WEEK,
        }
    }

    /// How many nodes its lists hold, `next` giving the node after each (for checks, not for
    /// a simulation loop).
    pub fn len(&self, next: impl Fn(u32) -> u32) -> usize {
        self.heads
            .iter()
            .map(|&head| {
                std::iter::successors((head != NONE).then_some(head), |&node| {
                    let following = next(node);
                    (following != NONE).then_some(following)
                })
                .count()
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next occupied bucket: in the current word, in a later word, wrapping round, none.
    #[test]
    fn finds_the_next_occupied_bucket_in_ring_order() {
        let mut ring = Ring::new();
        assert_eq!(ring.first_occupied(0), None);
        assert_eq!(ring.push(5, 0), NONE);
        assert_eq!(ring.push(5, 1), 0);
        ring.push(200, 2);
        assert_eq!(ring.first_occupied(0), Some(5));
        assert_eq!(ring.first_occupied(5), Some(5));
        assert_eq!(ring.first_occupied(6), Some(200));
        assert_eq!(ring.first_occupied(201), Some(5), "wraps round");
        ring.vacate(5);
        assert_eq!(ring.first_occupied(201), Some(200), "wraps to its own word");
        ring.vacate(200);
        assert!(ring.is_empty());
        ring.push(SLOTS - 1, 3);
        assert_eq!(ring.first_occupied(SLOTS - 1), Some(SLOTS - 1));
        assert_eq!(ring.first_occupied(0), Some(SLOTS - 1));
    }

    /// Days: monotone, bucket boundaries exact, huge times and -0.0's bits on the ends.
    #[test]
    fn days_of_times() {
        let per_ms = days_per_ms(0.5);
        assert_eq!(day_of(0.0f64.to_bits(), per_ms), 0);
        assert_eq!(day_of(0.499f64.to_bits(), per_ms), 0);
        assert_eq!(day_of(0.5f64.to_bits(), per_ms), 1);
        assert_eq!(day_of(f64::MAX.to_bits(), per_ms), 1 << 62);
        assert_eq!(day_of(f64::INFINITY.to_bits(), per_ms), 1 << 62);
    }
}
