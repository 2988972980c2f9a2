//! Client latencies to the final outcome in an HDR histogram (the `hdrhistogram` crate) of
//! whole microseconds at 3 significant digits, so that histograms from any number of threads
//! merge exactly and percentiles come from the merged counts, within 0.1% over the whole range
//! the model can produce.

use hdrhistogram::Histogram;

/// Significant decimal digits the histogram keeps: every recorded latency lies within 1 part
/// in 1,000 of its bucket's bounds.
pub const SIGNIFICANT_DIGITS: u8 = 3;

/// The longest latency the histogram holds (µs): `i64::MAX / 2`, about 146,000 years. The
/// configuration bounds every duration so that no payment comes near it.
pub const LONGEST_US: u64 = (i64::MAX / 2) as u64;

/// Payments counted by latency.
#[derive(Debug, Clone)]
pub struct LatencyHistogram {
    histogram: Histogram<u64>,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        Self {
            histogram: Histogram::new(SIGNIFICANT_DIGITS).expect("3 significant digits are valid"),
        }
    }
}

impl PartialEq for LatencyHistogram {
    /// Equal when every latency was counted in the same bucket as often.
    fn eq(&self, other: &Self) -> bool {
        self.histogram.len() == other.histogram.len()
            && self
                .histogram
                .iter_recorded()
                .map(|bucket| (bucket.value_iterated_to(), bucket.count_at_value()))
                .eq(other
                    .histogram
                    .iter_recorded()
                    .map(|bucket| (bucket.value_iterated_to(), bucket.count_at_value())))
    }
}

/// Serialised as its non-empty buckets, `[highest value of the bucket (µs), payments]` shortest
/// first: counting each bucket's highest value that often puts every payment back in its
/// bucket, so the histogram that reads back equals the one written (and gives the same
/// quantiles to the bit).
impl serde::Serialize for LatencyHistogram {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.histogram
                .iter_recorded()
                .map(|bucket| (bucket.value_iterated_to(), bucket.count_at_value())),
        )
    }
}

impl<'de> serde::Deserialize<'de> for LatencyHistogram {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let buckets = Vec::<(u64, u64)>::deserialize(deserializer)?;
        let mut histogram = Self::default();
        for (us, payments) in buckets {
            if us > LONGEST_US {
                return Err(serde::de::Error::custom(format!(
                    "a latency of {us} µs is beyond the longest the histogram holds"
                )));
            }
            histogram
                .histogram
                .record_n(us, payments)
                .expect("an auto-resizing histogram holds values up to LONGEST_US");
        }
        Ok(histogram)
    }
}

impl LatencyHistogram {
    /// Counts one latency (ms), rounded to whole microseconds (at most [`LONGEST_US`]).
    pub fn record(&mut self, ms: f64) {
        let us = ms * 1000.0;
        let us = if us >= LONGEST_US as f64 {
            LONGEST_US
        } else {
            round_to_u64(us)
        };
        self.histogram
            .record(us)
            .expect("an auto-resizing histogram holds values up to LONGEST_US");
    }

    /// Adds another histogram.
    pub fn merge(&mut self, other: &Self) {
        self.histogram
            .add(&other.histogram)
            .expect("latencies within LONGEST_US always add");
    }

    /// Latencies counted.
    pub fn count(&self) -> u64 {
        self.histogram.len()
    }

    /// The `q`-quantile (0 < q <= 1) in ms: the highest value of the bucket that holds the
    /// `ceil(q × count)`-th shortest latency, so at most 0.1% (and 1 µs) above it. `None` when
    /// empty.
    pub fn quantile_ms(&self, q: f64) -> Option<f64> {
        (self.count() > 0).then(|| self.histogram.value_at_quantile(q) as f64 / 1000.0)
    }

    /// `(highest value of the bucket in ms, payments)` for every non-empty bucket, shortest
    /// first.
    pub fn buckets(&self) -> impl Iterator<Item = (f64, u64)> + '_ {
        self.histogram.iter_recorded().map(|bucket| {
            (
                bucket.value_iterated_to() as f64 / 1000.0,
                bucket.count_at_value(),
            )
        })
    }
}

/// A duration in whole microseconds: `ms × 1000` rounded half away from zero, as
/// `(ms * 1000.0).round() as u64` (negatives and NaN give 0, too large `u64::MAX`).
#[inline]
pub fn whole_microseconds(ms: f64) -> u64 {
    round_to_u64(ms * 1000.0)
}

/// `x.round() as u64`, bit for bit, without the library call that `f64::round` is on x86-64
/// processors without SSE4.1 (the baseline): the truncation, plus one when what it dropped
/// is at least a half (exact: below 2^52 the dropped part is representable, above it is 0).
#[inline]
pub fn round_to_u64(x: f64) -> u64 {
    let truncated = x as u64;
    let dropped = x - truncated as f64;
    truncated.saturating_add(u64::from(dropped >= 0.5))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_to_u64_is_the_standard_rounding() {
        let edges = [
            0.0,
            -0.0,
            0.5,
            1.5,
            2.5,
            -0.5,
            -0.4,
            -1.5,
            0.499_999_999_999_999_94,
            4_503_599_627_370_495.5,
            4_503_599_627_370_497.0,
            9_007_199_254_740_993.0,
            9.223_372_036_854_776e18,
            1.844_674_407_370_955_2e19,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
        ];
        // Random bit patterns over every exponent, and random durations in the model's range.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let random: Vec<f64> = (0..200_000)
            .map(|index| {
                let bits = next();
                if index % 2 == 0 {
                    f64::from_bits(bits)
                } else {
                    (bits >> 11) as f64 / (1u64 << 53) as f64 * 1e7
                }
            })
            .collect();
        for x in edges.into_iter().chain(random) {
            assert_eq!(round_to_u64(x), x.round() as u64, "{x:e}");
        }
        assert_eq!(whole_microseconds(1.0005), 1001);
        assert_eq!(round_to_u64(2.5), 3);
    }

    #[test]
    fn quantiles_are_within_a_thousandth_of_the_rank() {
        let mut histogram = LatencyHistogram::default();
        // 90 payments at 436.2 ms, 10 at 3.7e8 ms (a payment retried for days): p50 and p90
        // are 436.2 ms, p91 is 3.7e8 ms, each to 3 significant digits.
        for _ in 0..90 {
            histogram.record(436.2);
        }
        for _ in 0..10 {
            histogram.record(3.7e8);
        }
        let within = |actual: f64, expected: f64| {
            assert!(
                actual >= expected && actual <= expected * 1.001 + 0.001,
                "{actual} vs {expected}"
            );
        };
        within(histogram.quantile_ms(0.5).unwrap(), 436.2);
        within(histogram.quantile_ms(0.9).unwrap(), 436.2);
        within(histogram.quantile_ms(0.91).unwrap(), 3.7e8);
        within(histogram.quantile_ms(1.0).unwrap(), 3.7e8);
        assert!(LatencyHistogram::default().quantile_ms(0.5).is_none());
    }

    #[test]
    fn merging_in_any_order_gives_the_same_histogram() {
        let (mut a, mut b, mut c): (LatencyHistogram, LatencyHistogram, LatencyHistogram) =
            Default::default();
        for (index, ms) in [0.5, 12.0, 999.9, 1e6, 3e9].into_iter().enumerate() {
            [&mut a, &mut b, &mut c][index % 3].record(ms);
        }
        let mut left: LatencyHistogram = a.clone();
        left.merge(&b);
        left.merge(&c);
        let mut right = c.clone();
        right.merge(&a);
        right.merge(&b);
        assert_eq!(left, right);
        assert_eq!(left.count(), 5);
        let mut other = left.clone();
        other.record(1.0);
        assert_ne!(left, other);
    }

    #[test]
    fn the_longest_latencies_are_held() {
        let mut histogram = LatencyHistogram::default();
        histogram.record(f64::INFINITY);
        histogram.record(-1.0);
        assert_eq!(histogram.count(), 2);
        assert!(histogram.quantile_ms(1.0).unwrap() >= LONGEST_US as f64 / 1000.0 * 0.999);
        assert_eq!(histogram.quantile_ms(0.5), Some(0.0));
    }

    #[test]
    fn a_histogram_reads_back_as_it_was_written() {
        // Latencies over nine decades, three in one bucket: at 3 digits the buckets within
        // [2^19, 2^20) µs are 512 µs wide, so 1,000,000 and 1,000,200 µs both lie in
        // [1953 x 512, 1954 x 512) = [999,936, 1,000,448) µs.
        let mut histogram = LatencyHistogram::default();
        for ms in [0.001, 0.5, 12.25, 1000.0, 1000.2, 1000.2, 7.5e4, 3.3e6, 9e8] {
            histogram.record(ms);
        }
        let json = serde_json::to_string(&histogram).unwrap();
        let back: LatencyHistogram = serde_json::from_str(&json).unwrap();
        assert_eq!(back, histogram);
        assert_eq!(back.count(), 9);
        for q in [0.1, 0.5, 0.6, 0.9, 0.99, 1.0] {
            assert_eq!(back.quantile_ms(q), histogram.quantile_ms(q), "{q}");
        }
        // The three latencies in one bucket are one entry: seven entries in all.
        assert_eq!(json.matches('[').count(), 1 + 7, "{json}");
        let empty: LatencyHistogram = serde_json::from_str("[]").unwrap();
        assert_eq!(empty.count(), 0);
        assert!(serde_json::from_str::<LatencyHistogram>("[[9223372036854775807,1]]").is_err());
    }
}
