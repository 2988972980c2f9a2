//! Client latencies to the final outcome in fixed log-spaced buckets, so that histograms from
//! any number of threads merge exactly and percentiles come from the merged counts.

/// Buckets per factor of ten: edges `10^(k/50)` apart, each bucket about 4.7% wide.
pub const BUCKETS_PER_DECADE: u32 = 50;
/// The upper edge of bucket 0, which holds every latency up to it (ms).
pub const SMALLEST_MS: f64 = 1e-3;
/// Decades covered above [`SMALLEST_MS`]: up to 10^8 ms (about 28 hours); longer latencies
/// fall into the last bucket.
pub const DECADES: u32 = 11;

const BUCKETS: usize = (BUCKETS_PER_DECADE * DECADES) as usize + 1;

/// Payments counted by latency bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatencyHistogram {
    /// `counts[0]`: up to [`SMALLEST_MS`]; `counts[k]`: above `edge(k - 1)`, up to `edge(k)`.
    counts: Vec<u64>,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self {
            counts: vec![0; BUCKETS],
        }
    }
}

impl LatencyHistogram {
    /// The upper edge of bucket `index` (ms).
    pub fn upper_edge_ms(index: usize) -> f64 {
        SMALLEST_MS * 10f64.powf(index as f64 / f64::from(BUCKETS_PER_DECADE))
    }

    /// The bucket of a latency.
    fn bucket(ms: f64) -> usize {
        if ms.is_nan() || ms <= SMALLEST_MS {
            return 0;
        }
        let position = (ms / SMALLEST_MS).log10() * f64::from(BUCKETS_PER_DECADE);
        let mut index = position.ceil().max(1.0) as usize;
        // Guard the edges against rounding of log10: the bucket must contain `ms`.
        while index > 1 && Self::upper_edge_ms(index - 1) >= ms {
            index -= 1;
        }
        while index < BUCKETS - 1 && Self::upper_edge_ms(index) < ms {
            index += 1;
        }
        index.min(BUCKETS - 1)
    }

    /// Counts one latency (ms).
    pub fn record(&mut self, ms: f64) {
        self.counts[Self::bucket(ms)] += 1;
    }

    /// Adds another histogram.
    pub fn merge(&mut self, other: &Self) {
        for (mine, theirs) in self.counts.iter_mut().zip(&other.counts) {
            *mine += theirs;
        }
    }

    /// Latencies counted.
    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The `q`-quantile (0 < q <= 1), rounded up to its bucket's upper edge (ms): the smallest
    /// edge at or below which at least `ceil(q * count)` latencies lie. `None` when empty.
    pub fn quantile_ms(&self, q: f64) -> Option<f64> {
        let count = self.count();
        if count == 0 {
            return None;
        }
        let rank = ((q * count as f64).ceil() as u64).clamp(1, count);
        let mut seen = 0;
        for (index, &n) in self.counts.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return Some(Self::upper_edge_ms(index));
            }
        }
        None
    }

    /// `(upper edge in ms, payments)` for every non-empty bucket, shortest first.
    pub fn buckets(&self) -> impl Iterator<Item = (f64, u64)> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(|&(_, &n)| n > 0)
            .map(|(index, &n)| (Self::upper_edge_ms(index), n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_latency_lies_in_its_bucket() {
        for ms in [0.0011, 1.0, 10.0, 12.3, 999.9, 1e5] {
            let index = LatencyHistogram::bucket(ms);
            assert!(LatencyHistogram::upper_edge_ms(index) >= ms, "{ms}");
            assert!(LatencyHistogram::upper_edge_ms(index - 1) < ms, "{ms}");
        }
        assert_eq!(LatencyHistogram::bucket(0.0), 0);
        assert_eq!(LatencyHistogram::bucket(SMALLEST_MS), 0);
    }

    #[test]
    fn quantiles_are_bucket_edges_of_the_rank() {
        let mut histogram = LatencyHistogram::default();
        // 90 payments at exactly 10 ms, 10 at exactly 1000 ms: both are bucket edges
        // (10 = 10^-3 * 10^(200/50), 1000 = 10^-3 * 10^(300/50)).
        for _ in 0..90 {
            histogram.record(10.0);
        }
        for _ in 0..10 {
            histogram.record(1000.0);
        }
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b;
        assert!(close(histogram.quantile_ms(0.5).unwrap(), 10.0));
        assert!(close(histogram.quantile_ms(0.9).unwrap(), 10.0));
        assert!(close(histogram.quantile_ms(0.91).unwrap(), 1000.0));
        assert!(LatencyHistogram::default().quantile_ms(0.5).is_none());
    }
}
