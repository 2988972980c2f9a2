//! Parsing and checking of single setting values, shared by the flags and the config file, so
//! both accept exactly the same values and explain a rejection in the same words.
//!
//! Each function returns the reason a value is rejected; the caller adds where it came from.

/// The largest `--requests`: with at most [`MAX_RETRIES`] retries, every count
/// (`requests * (max_retries + 1)` deliveries) still fits in 64 bits with room to spare.
pub const MAX_REQUESTS: u64 = 1_000_000_000_000_000;
/// The largest `--max-retries`.
pub const MAX_RETRIES: u32 = 1_000;
/// The largest `--runs`.
pub const MAX_RUNS: u32 = 100_000;
/// The most p values one run may have.
pub const MAX_ACK_LOSS_VALUES: usize = 10_000;
/// The most worker threads.
pub const MAX_THREADS: usize = 1_024;
/// The largest `--payments` of a timeline scenario.
pub const MAX_PAYMENTS: u64 = 1_000_000_000_000;
/// The most copies of one payment in a timeline scenario.
pub const MAX_COPIES: u32 = 1_000;

/// A list of ACK-loss probabilities, each in `[0, 1]`, in the order given (at least one).
#[derive(Debug, Clone, PartialEq)]
pub struct AckLossList(pub Vec<f64>);

/// Parses `0.01,0.05,0.10` and ranges `START:STOP:STEP` (STOP included), mixed.
///
/// Ranges are stepped in exact decimal arithmetic: `0:0.3:0.01` yields exactly the numbers
/// `0`, `0.01`, ..., `0.3` as if each were typed, with no accumulated floating-point drift.
pub fn ack_loss_list(text: &str) -> Result<AckLossList, String> {
    let mut values = Vec::new();
    for item in text.split(',') {
        let item = item.trim();
        if item.is_empty() {
            return Err(if text.trim().is_empty() {
                "the list is empty: give at least one probability, e.g. 0.05".to_string()
            } else {
                format!("'{text}' has an empty item: separate probabilities with single commas")
            });
        }
        if item.contains(':') {
            decimal_range(item, &mut values)?;
        } else {
            values.push(ack_loss(item)?);
        }
        if values.len() > MAX_ACK_LOSS_VALUES {
            return Err(format!(
                "more than {MAX_ACK_LOSS_VALUES} probabilities: use a coarser step"
            ));
        }
    }
    Ok(AckLossList(values))
}

/// Parses one probability.
pub fn ack_loss(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number (expected a probability such as 0.05)"))?;
    check_ack_loss(value)
}

/// Accepts a probability in `[0, 1]`.
pub fn check_ack_loss(value: f64) -> Result<f64, String> {
    if value.is_nan() {
        Err("NaN is not a probability: p must be between 0 and 1".to_string())
    } else if !(0.0..=1.0).contains(&value) {
        Err(format!(
            "{value} is not a probability: p must be between 0 and 1"
        ))
    } else {
        Ok(value)
    }
}

/// A non-negative decimal number held exactly: `units / 10^scale`.
#[derive(Debug, Clone, Copy)]
struct Decimal {
    units: u128,
    scale: u32,
}

impl Decimal {
    const MAX_SCALE: u32 = 18;

    fn parse(text: &str) -> Option<Decimal> {
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits_only = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if (whole.is_empty() && fraction.is_empty())
            || !digits_only(whole)
            || !digits_only(fraction)
            || fraction.len() > Self::MAX_SCALE as usize
            || whole.len() > 20
        {
            return None;
        }
        let units = format!("{whole}{fraction}").parse().ok()?;
        Some(Decimal {
            units,
            scale: fraction.len() as u32,
        })
    }

    fn rescaled(self, scale: u32) -> u128 {
        self.units * 10u128.pow(scale - self.scale)
    }

    /// `units / 10^scale` as the f64 a user would get by typing it.
    fn to_f64(units: u128, scale: u32) -> f64 {
        let digits = format!("{units:0>width$}", width = scale as usize + 1);
        let (whole, fraction) = digits.split_at(digits.len() - scale as usize);
        format!("{whole}.{fraction}")
            .parse()
            .expect("a plain decimal parses")
    }
}

fn decimal_range(item: &str, values: &mut Vec<f64>) -> Result<(), String> {
    let parts: Vec<&str> = item.split(':').map(str::trim).collect();
    let [start, stop, step] = parts[..] else {
        return Err(format!(
            "range '{item}' must have the form START:STOP:STEP, e.g. 0:0.3:0.01"
        ));
    };
    let decimal = |part: &str, name: &str| {
        Decimal::parse(part).ok_or_else(|| {
            format!("range '{item}': {name} '{part}' is not a plain decimal such as 0.05")
        })
    };
    let (start, stop, step) = (
        decimal(start, "START")?,
        decimal(stop, "STOP")?,
        decimal(step, "STEP")?,
    );
    let scale = start.scale.max(stop.scale).max(step.scale);
    let (first, last, increment) = (
        start.rescaled(scale),
        stop.rescaled(scale),
        step.rescaled(scale),
    );
    if increment == 0 {
        return Err(format!("range '{item}' has a zero STEP"));
    }
    if first > last {
        return Err(format!(
            "range '{item}' is reversed: START is above STOP (write it in increasing order)"
        ));
    }
    if (last - first) / increment >= MAX_ACK_LOSS_VALUES as u128 {
        return Err(format!(
            "range '{item}' has more than {MAX_ACK_LOSS_VALUES} values: use a coarser step"
        ));
    }
    let mut units = first;
    while units <= last {
        let value = Decimal::to_f64(units, scale);
        values.push(check_ack_loss(value).map_err(|reason| format!("range '{item}': {reason}"))?);
        units += increment;
    }
    Ok(())
}

/// Parses a whole number, saying what it is for when it is not one.
fn whole_number<T: std::str::FromStr>(text: &str, what: &str, range: &str) -> Result<T, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("'{text}' is not {what}: expected a whole number {range}"))
}

/// Parses a seed: any whole number from 0 to 2^64 - 1.
pub fn seed(text: &str) -> Result<u64, String> {
    whole_number(text, "a seed", "from 0 to 18446744073709551615")
}

/// Parses and checks a number of requests.
pub fn requests(text: &str) -> Result<u64, String> {
    check_requests(whole_number(text, "a number of requests", "from 1")?)
}

/// Accepts 1 to [`MAX_REQUESTS`] requests.
pub fn check_requests(value: u64) -> Result<u64, String> {
    check_range(value, 1, MAX_REQUESTS, "requests")
}

/// Parses and checks a retry limit.
pub fn max_retries(text: &str) -> Result<u32, String> {
    check_max_retries(whole_number(text, "a retry limit", "from 0")?)
}

/// Accepts 0 to [`MAX_RETRIES`] retries.
pub fn check_max_retries(value: u32) -> Result<u32, String> {
    check_range(value, 0, MAX_RETRIES, "max retries")
}

/// Parses and checks a number of runs.
pub fn runs(text: &str) -> Result<u32, String> {
    check_runs(whole_number(text, "a number of runs", "from 1")?)
}

/// Accepts 1 to [`MAX_RUNS`] runs.
pub fn check_runs(value: u32) -> Result<u32, String> {
    check_range(value, 1, MAX_RUNS, "runs")
}

/// Parses and checks a thread count.
pub fn threads(text: &str) -> Result<usize, String> {
    check_threads(whole_number(text, "a thread count", "from 1")?)
}

/// Accepts 1 to [`MAX_THREADS`] threads.
pub fn check_threads(value: usize) -> Result<usize, String> {
    check_range(value, 1, MAX_THREADS, "threads")
}

/// Accepts a run whose deliveries at most, `requests * (max_retries + 1) * runs`, fit in 64
/// bits, so that no count of the run can overflow; returns that bound.
pub fn check_total_deliveries(requests: u64, max_retries: u32, runs: u32) -> Result<u64, String> {
    requests
        .checked_mul(u64::from(max_retries) + 1)
        .and_then(|per_run| per_run.checked_mul(u64::from(runs)))
        .ok_or_else(|| {
            format!(
                "requests x (max_retries + 1) x runs = {requests} x {} x {runs} deliveries does \
                 not fit in 64 bits (at most {}): lower the requests, retries or runs",
                u64::from(max_retries) + 1,
                u64::MAX
            )
        })
}

/// Parses and checks a number of payments (timeline scenarios).
pub fn payments(text: &str) -> Result<u64, String> {
    check_payments(whole_number(text, "a number of payments", "from 1")?)
}

/// Accepts 1 to [`MAX_PAYMENTS`] payments.
pub fn check_payments(value: u64) -> Result<u64, String> {
    check_range(value, 1, MAX_PAYMENTS, "payments")
}

/// Accepts 1 to [`MAX_COPIES`] copies of a payment.
pub fn check_copies(value: u32) -> Result<u32, String> {
    check_range(value, 1, MAX_COPIES, "copies")
}

fn check_range<T>(value: T, low: T, high: T, what: &str) -> Result<T, String>
where
    T: PartialOrd + std::fmt::Display,
{
    if value < low || value > high {
        Err(format!("{what} must be from {low} to {high}, got {value}"))
    } else {
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(text: &str) -> Vec<f64> {
        ack_loss_list(text).unwrap().0
    }

    #[test]
    fn plain_lists_keep_order_and_values() {
        assert_eq!(list("0.01,0.05,0.10"), vec![0.01, 0.05, 0.1]);
        assert_eq!(list(" 1 , 0 "), vec![1.0, 0.0]);
    }

    #[test]
    fn ranges_are_exact_decimals_with_stop_included() {
        let values = list("0:0.3:0.01");
        assert_eq!(values.len(), 31);
        for (index, value) in values.iter().enumerate() {
            let typed: f64 = format!("0.{index:02}").parse().unwrap();
            let typed = if index == 30 { 0.3 } else { typed };
            assert_eq!(value.to_bits(), typed.to_bits(), "value {index}");
        }
        assert_eq!(list("0.05:0.2:0.05,0.5"), vec![0.05, 0.1, 0.15, 0.2, 0.5]);
        // STOP not on the grid: the last value is the last one below it.
        assert_eq!(list("0.1:0.35:0.1"), vec![0.1, 0.2, 0.3]);
        assert_eq!(list("0.5:0.5:1"), vec![0.5]);
    }

    #[test]
    fn bad_lists_are_rejected_with_the_reason() {
        for (text, reason) in [
            ("", "empty"),
            ("0.1,,0.2", "empty item"),
            ("abc", "not a number"),
            ("nan", "NaN"),
            ("-0.1", "not a probability"),
            ("1.5", "not a probability"),
            ("inf", "not a probability"),
            ("0.3:0:0.1", "reversed"),
            ("0:0.3:0", "zero STEP"),
            ("0:0.3", "START:STOP:STEP"),
            ("0:1e-1:0.1", "plain decimal"),
            ("-0.1:0.3:0.1", "plain decimal"),
            ("0:2:0.5", "not a probability"),
            ("0:1:0.00001", "more than"),
        ] {
            let error = ack_loss_list(text).unwrap_err();
            assert!(error.contains(reason), "{text:?} gave {error:?}");
        }
    }

    #[test]
    fn numbers_are_checked() {
        assert_eq!(seed("18446744073709551615"), Ok(u64::MAX));
        assert!(seed("-1").unwrap_err().contains("'-1' is not a seed"));
        assert!(requests("0").unwrap_err().contains("got 0"));
        assert!(requests("1000000000000001").is_err());
        assert_eq!(requests("10000"), Ok(10_000));
        assert_eq!(max_retries("0"), Ok(0));
        assert!(max_retries("1001").is_err());
        assert!(threads("0").is_err());
        assert!(runs("0").is_err());
    }

    #[test]
    fn total_deliveries_must_fit_in_64_bits() {
        // 2^64 - 1 = 18,446,744,073,709,551,615. At the largest requests (10^15) and retries
        // (1000 + 1 deliveries): 18 runs make 18,018 x 10^15 deliveries, which fits; 19 runs
        // make 19,019 x 10^15, which does not.
        assert_eq!(
            check_total_deliveries(MAX_REQUESTS, MAX_RETRIES, 18),
            Ok(18_018_000_000_000_000_000)
        );
        let error = check_total_deliveries(MAX_REQUESTS, MAX_RETRIES, 19).unwrap_err();
        assert!(error.contains("does not fit in 64 bits"), "{error}");
        assert!(check_total_deliveries(MAX_REQUESTS, MAX_RETRIES, MAX_RUNS).is_err());
        assert_eq!(check_total_deliveries(1, 0, 1), Ok(1));
        assert_eq!(check_total_deliveries(10_000, 20, 1), Ok(210_000));
    }
}
