//! The distribution of attempts (deliveries) per request, and the server counts it implies.

use crate::model::article::server::{ServerKind, ServerTally};

/// Requests counted by their number of attempts: `1` (the ACK of the first send arrived) up to
/// `max_retries + 1` (every retry was used). Only the counts up to the largest attempt count
/// any request made are stored, so memory is `O(largest attempts)` (at most `O(max_retries)`),
/// whatever the requests: a run that keeps one histogram per p does not hold 1,001 counters per
/// p when `--max-retries 1000` but requests stop after a few attempts.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AttemptHistogram {
    /// The retry limit: attempts range over `1..=max_retries + 1`.
    max_retries: u32,
    /// `requests_by_attempts[a - 1]` = requests that made `a` attempts, up to the largest `a`
    /// with a request (no trailing zeros, so equal counts compare equal).
    requests_by_attempts: Vec<u64>,
}

impl AttemptHistogram {
    /// An empty histogram for clients that retry at most `max_retries` times.
    pub fn new(max_retries: u32) -> Self {
        Self {
            max_retries,
            requests_by_attempts: Vec::new(),
        }
    }

    /// Counts `requests` more requests that made `attempts` attempts.
    ///
    /// # Panics
    /// If `attempts` is 0 or more than `max_retries + 1`.
    #[inline]
    pub fn record(&mut self, attempts: u32, requests: u64) {
        assert!(
            (1..=self.max_retries as u64 + 1).contains(&u64::from(attempts)),
            "{attempts} attempts with at most {} retries",
            self.max_retries
        );
        if requests == 0 {
            return;
        }
        let index = attempts as usize - 1;
        if index >= self.requests_by_attempts.len() {
            self.requests_by_attempts.resize(index + 1, 0);
        }
        self.requests_by_attempts[index] += requests;
    }

    /// Adds another histogram of the same retry limit.
    pub fn merge(&mut self, other: &Self) {
        assert_eq!(self.max_retries, other.max_retries);
        if other.requests_by_attempts.len() > self.requests_by_attempts.len() {
            self.requests_by_attempts
                .resize(other.requests_by_attempts.len(), 0);
        }
        for (mine, theirs) in self
            .requests_by_attempts
            .iter_mut()
            .zip(&other.requests_by_attempts)
        {
            *mine += theirs;
        }
    }

    /// The retry limit the histogram was made for.
    pub fn max_retries(&self) -> u32 {
        self.max_retries
    }

    /// `(attempts, requests)` for every attempt count from 1 to the largest any request made
    /// (zeros included between; nothing for an empty histogram).
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        (1u32..).zip(self.requests_by_attempts.iter().copied())
    }

    /// Requests that made exactly `attempts` attempts.
    pub fn requests_with(&self, attempts: u32) -> u64 {
        attempts
            .checked_sub(1)
            .and_then(|index| self.requests_by_attempts.get(index as usize))
            .copied()
            .unwrap_or(0)
    }

    /// Requests in all.
    pub fn requests(&self) -> u64 {
        self.requests_by_attempts.iter().sum()
    }

    /// Deliveries in all (sum of attempts).
    pub fn deliveries(&self) -> u64 {
        self.iter().map(|(a, n)| u64::from(a) * n).sum()
    }

    /// Deliveries beyond the first of each request (retries sent).
    pub fn retries(&self) -> u64 {
        self.iter().map(|(a, n)| u64::from(a - 1) * n).sum()
    }

    /// Requests delivered two or more times.
    pub fn retried_requests(&self) -> u64 {
        self.requests() - self.requests_with(1)
    }

    /// Requests that used every retry (`max_retries + 1` attempts).
    ///
    /// With `max_retries = 0` every request trivially "used every retry"; this counts them.
    pub fn retries_exhausted(&self) -> u64 {
        self.requests_with(self.max_retries() + 1)
    }

    /// The largest attempt count any request made (0 for an empty histogram).
    pub fn max_attempts(&self) -> u32 {
        self.requests_by_attempts.len() as u32
    }

    /// What a server of `kind` does with these deliveries, aggregated: the same counts the
    /// servers of [`crate::model::article::server`] produce delivery by delivery (tests check it for many
    /// seeds, sizes and probabilities), computed in `O(max_retries)`.
    ///
    /// The non-idempotent server charges each of a request's `a` deliveries, so a request is
    /// double charged when `a >= 2` and adds `a - 1` extra charges. The key server charges the
    /// first delivery of each key and replays the other `a - 1`.
    pub fn server_tally(&self, kind: ServerKind) -> ServerTally {
        let deliveries = self.deliveries();
        match kind {
            ServerKind::NonIdempotent => ServerTally {
                deliveries,
                charges: deliveries,
                double_charged_requests: self.retried_requests(),
                extra_charges: self.retries(),
                prevented_duplicates: 0,
            },
            ServerKind::IdempotencyKey => ServerTally {
                deliveries,
                charges: self.requests(),
                double_charged_requests: 0,
                extra_charges: 0,
                prevented_duplicates: self.retries(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A histogram for `max_retries` with `requests` requests recorded at each `attempts`, in
    /// the order given.
    fn histogram(max_retries: u32, recorded: &[(u32, u64)]) -> AttemptHistogram {
        let mut histogram = AttemptHistogram::new(max_retries);
        for &(attempts, requests) in recorded {
            histogram.record(attempts, requests);
        }
        histogram
    }

    #[test]
    fn counts_follow_from_the_attempts() {
        let histogram = histogram(3, &[(1, 90), (2, 7), (4, 3)]);
        assert_eq!(histogram.requests(), 100);
        assert_eq!(histogram.deliveries(), 90 + 14 + 12);
        assert_eq!(histogram.retries(), 7 + 9);
        assert_eq!(histogram.retried_requests(), 10);
        assert_eq!(histogram.retries_exhausted(), 3);
        assert_eq!(histogram.max_attempts(), 4);
        assert_eq!(histogram.requests_with(0), 0);
        assert_eq!(histogram.requests_with(5), 0);
    }

    #[test]
    fn merge_adds_bucket_by_bucket() {
        let mut left = histogram(1, &[(1, 5)]);
        left.merge(&histogram(1, &[(1, 2), (2, 1)]));
        assert_eq!(left.iter().collect::<Vec<_>>(), vec![(1, 7), (2, 1)]);
    }

    /// Only the counts up to the largest attempts are kept, and counts of zero add nothing,
    /// so a histogram of a run with `--max-retries 1000` whose requests all stopped after two
    /// attempts holds two counters, and equal counts compare equal however they were built.
    #[test]
    fn only_counts_up_to_the_largest_attempts_are_stored() {
        let two = histogram(1_000, &[(1, 5), (2, 1), (900, 0)]);
        assert_eq!(two.requests_by_attempts.len(), 2);
        assert_eq!(two.max_attempts(), 2);
        assert_eq!(two.retries_exhausted(), 0);
        let mut other = histogram(1_000, &[(2, 1), (1, 5)]);
        assert_eq!(two, other);
        other.record(1_001, 3);
        assert_eq!(other.retries_exhausted(), 3);
        assert_eq!(other.max_attempts(), 1_001);
    }

    #[test]
    #[should_panic(expected = "1002 attempts")]
    fn attempts_beyond_the_limit_are_a_bug() {
        AttemptHistogram::new(1_000).record(1_002, 1);
    }
}
