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

/// The most characters of a rejected value an error message repeats; longer values are cut
/// there and end in `…`.
pub const ECHO_CHARACTERS: usize = 40;

/// A list of ACK-loss probabilities, each in `[0, 1]`, in the order given (at least one, at
/// most [`MAX_ACK_LOSS_VALUES`], none repeated).
#[derive(Debug, Clone, PartialEq)]
pub struct AckLossList(pub Vec<f64>);

/// `text` as an error message repeats it: at most [`ECHO_CHARACTERS`] characters, then `…`.
pub fn echo(text: &str) -> String {
    match text.char_indices().nth(ECHO_CHARACTERS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

/// A number as an error message shows it: the shortest form that reads back as the same
/// `f64`, in scientific notation when it is very small or very large (`1e308`, not 309
/// digits).
pub fn shown(value: f64) -> String {
    if value != 0.0 && !(1e-4..1e16).contains(&value.abs()) {
        format!("{value:e}")
    } else {
        format!("{value}")
    }
}

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
                format!(
                    "'{}' has an empty item: separate probabilities with single commas",
                    echo(text)
                )
            });
        }
        if item.contains(':') {
            decimal_range(item, &mut values)?;
        } else {
            values.push(ack_loss(item)?);
        }
        check_value_count(values.len())?;
    }
    check_ack_loss_values(values).map(AckLossList)
}

/// Accepts at most [`MAX_ACK_LOSS_VALUES`] probabilities.
pub fn check_value_count(count: usize) -> Result<(), String> {
    if count > MAX_ACK_LOSS_VALUES {
        Err(format!(
            "more than {MAX_ACK_LOSS_VALUES} probabilities: give fewer values or a coarser step"
        ))
    } else {
        Ok(())
    }
}

/// Accepts a list of probabilities (each already checked) that has at least one, at most
/// [`MAX_ACK_LOSS_VALUES`] and no value twice: a repeated p would be simulated twice and
/// counted twice in `attempts.csv`.
pub fn check_ack_loss_values(values: Vec<f64>) -> Result<Vec<f64>, String> {
    if values.is_empty() {
        return Err("the list is empty: give at least one probability, e.g. 0.05".to_string());
    }
    check_value_count(values.len())?;
    let mut seen = std::collections::HashMap::with_capacity(values.len());
    for (position, &value) in (1..).zip(&values) {
        if let Some(first) = seen.insert(value.to_bits(), position) {
            return Err(format!(
                "p = {} is given twice (values {first} and {position}): give each p once",
                shown(value)
            ));
        }
    }
    Ok(values)
}

/// Parses one probability, refusing a decimal that no `f64` holds exactly enough to print it
/// back (`1.0000000000000000001` would silently become 1, `1e-400` would become 0).
pub fn ack_loss(text: &str) -> Result<f64, String> {
    let typed = text.trim();
    let value: f64 = typed.parse().map_err(|_| {
        format!(
            "'{}' is not a number (expected a probability such as 0.05)",
            echo(text)
        )
    })?;
    let value = check_ack_loss(value)?;
    check_round_trip(typed, value)
}

/// Accepts `value`, read from `typed`, when it reads back as the same number: its shortest
/// form has the same decimal digits as `typed`.
fn check_round_trip(typed: &str, value: f64) -> Result<f64, String> {
    if decimal_digits(typed) == decimal_digits(&format!("{value:e}")) {
        Ok(value)
    } else {
        Err(format!(
            "'{}' cannot be held exactly enough: the nearest number this tool can compute \
             with is {}; give that (or fewer digits)",
            echo(typed),
            shown(value)
        ))
    }
}

/// The significant digits and power of ten of a decimal number (`0.0100` and `1e-2` are both
/// `("1", -2)`; zero is `("0", 0)`); `None` for text that is not a plain decimal.
fn decimal_digits(text: &str) -> Option<(String, i64)> {
    let unsigned = text.trim_start_matches(['+', '-']);
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i64>().ok()?),
        None => (unsigned, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let significant = digits.trim_start_matches('0');
    let trimmed = significant.trim_end_matches('0');
    if trimmed.is_empty() {
        return Some(("0".to_string(), 0));
    }
    let trailing_zeros = (significant.len() - trimmed.len()) as i64;
    let power = exponent - fraction.len() as i64 + trailing_zeros;
    Some((trimmed.to_string(), power))
}

/// Accepts a probability in `[0, 1]`; `-0` becomes `0`.
pub fn check_ack_loss(value: f64) -> Result<f64, String> {
    if value.is_nan() {
        Err("NaN is not a probability: p must be between 0 and 1".to_string())
    } else if !(0.0..=1.0).contains(&value) {
        Err(format!(
            "{} is not a probability: p must be between 0 and 1",
            shown(value)
        ))
    } else if value == 0.0 {
        Ok(0.0)
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

    /// 1 in this number's scale.
    fn rescaled_one(self) -> u128 {
        10u128.pow(self.scale)
    }

    /// Whether this number is above `other`.
    fn exceeds(self, other: Decimal) -> bool {
        let scale = self.scale.max(other.scale);
        self.rescaled(scale) > other.rescaled(scale)
    }

    /// The exact product, trailing zeros of the fraction dropped; `None` when it needs more
    /// than [`Self::MAX_SCALE`] decimals or 38 digits.
    fn times(self, other: Decimal) -> Option<Decimal> {
        let mut units = self.units.checked_mul(other.units)?;
        let mut scale = self.scale + other.scale;
        while scale > 0 && units % 10 == 0 {
            units /= 10;
            scale -= 1;
        }
        (scale <= Self::MAX_SCALE && units < 10u128.pow(30)).then_some(Decimal { units, scale })
    }

    /// `units / 10^scale` as a user would type it (`0.05`), which parses to the f64 they would
    /// get by typing it.
    fn text(units: u128, scale: u32) -> String {
        let digits = format!("{units:0>width$}", width = scale as usize + 1);
        let (whole, fraction) = digits.split_at(digits.len() - scale as usize);
        if fraction.is_empty() {
            whole.to_string()
        } else {
            format!("{whole}.{fraction}")
        }
    }
}

fn decimal_range(item: &str, values: &mut Vec<f64>) -> Result<(), String> {
    let shown = echo(item);
    for typed in decimal_steps(item, MAX_ACK_LOSS_VALUES)? {
        let value = typed.parse().expect("a plain decimal parses");
        let value = check_ack_loss(value)
            .and_then(|value| check_round_trip(&typed, value))
            .map_err(|reason| format!("range '{shown}': {reason}"))?;
        values.push(value);
    }
    Ok(())
}

/// The values of a range `START:STOP:STEP` of plain decimals (STOP included when a whole
/// number of steps away), as a user would type each (`0.05`, `3`), at most `max` of them; or,
/// with a fourth part `log`, `START:STOP:FACTOR:log`: START, START × FACTOR, ... up to STOP.
/// Every value is exact: the steps are taken in decimal, not in floating point.
pub fn decimal_steps(item: &str, max: usize) -> Result<Vec<String>, String> {
    let parts: Vec<&str> = item.split(':').map(str::trim).collect();
    let shown = echo(item);
    let (start, stop, step, log) = match parts[..] {
        [start, stop, step] => (start, stop, step, false),
        [start, stop, factor, "log"] => (start, stop, factor, true),
        _ => {
            return Err(format!(
                "range '{shown}' must have the form START:STOP:STEP, e.g. 0:0.3:0.01 (or \
                 START:STOP:FACTOR:log, e.g. 1:1000:10:log)"
            ));
        }
    };
    let decimal = |part: &str, name: &str| {
        Decimal::parse(part).ok_or_else(|| {
            format!(
                "range '{shown}': {name} '{}' is not a plain decimal such as 0.05",
                echo(part)
            )
        })
    };
    let step_name = if log { "FACTOR" } else { "STEP" };
    let (start, stop, step) = (
        decimal(start, "START")?,
        decimal(stop, "STOP")?,
        decimal(step, step_name)?,
    );
    if log {
        return log_steps(&shown, start, stop, step, max);
    }
    let scale = start.scale.max(stop.scale).max(step.scale);
    let (first, last, increment) = (
        start.rescaled(scale),
        stop.rescaled(scale),
        step.rescaled(scale),
    );
    if increment == 0 {
        return Err(format!("range '{shown}' has a zero STEP"));
    }
    if first > last {
        return Err(format!(
            "range '{shown}' is reversed: START is above STOP (write it in increasing order)"
        ));
    }
    if (last - first) / increment >= max as u128 {
        return Err(format!(
            "range '{shown}' has more than {max} values: use a coarser step"
        ));
    }
    let mut texts = Vec::new();
    let mut units = first;
    while units <= last {
        texts.push(Decimal::text(units, scale));
        units += increment;
    }
    Ok(texts)
}

/// The values START, START × FACTOR, ... up to STOP of a log range, exact in decimal.
fn log_steps(
    shown: &str,
    start: Decimal,
    stop: Decimal,
    factor: Decimal,
    max: usize,
) -> Result<Vec<String>, String> {
    if start.units == 0 {
        return Err(format!(
            "range '{shown}': a log range cannot start at 0 (start at the smallest value wanted)"
        ));
    }
    if factor.units <= factor.rescaled_one() {
        return Err(format!(
            "range '{shown}' needs a FACTOR above 1, e.g. 10 or 2"
        ));
    }
    if start.exceeds(stop) {
        return Err(format!(
            "range '{shown}' is reversed: START is above STOP (write it in increasing order)"
        ));
    }
    let mut texts = Vec::new();
    let mut value = start;
    while !value.exceeds(stop) {
        if texts.len() == max {
            return Err(format!(
                "range '{shown}' has more than {max} values: use a larger factor"
            ));
        }
        texts.push(Decimal::text(value.units, value.scale));
        value = value.times(factor).ok_or_else(|| {
            format!("range '{shown}': the values need too many digits; use a simpler FACTOR")
        })?;
    }
    Ok(texts)
}

/// Parses a whole number, saying what it is for when it is not one, and that it is too large
/// (with the largest) when it is all digits but does not fit `T`.
fn whole_number<T: std::str::FromStr>(text: &str, what: &str, range: &str) -> Result<T, String> {
    let trimmed = text.trim();
    trimmed.parse().map_err(|_| {
        let digits = trimmed.strip_prefix('+').unwrap_or(trimmed);
        if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
            format!(
                "'{}' is too large for {what}: expected a whole number {range}",
                echo(text)
            )
        } else {
            format!(
                "'{}' is not {what}: expected a whole number {range}",
                echo(text)
            )
        }
    })
}

/// Parses a seed: any whole number from 0 to 2^64 - 1.
pub fn seed(text: &str) -> Result<u64, String> {
    whole_number(text, "a seed", "from 0 to 18446744073709551615")
}

/// Parses and checks a number of requests.
pub fn requests(text: &str) -> Result<u64, String> {
    check_requests(whole_number(
        text,
        "a number of requests",
        &format!("from 1 to {MAX_REQUESTS}"),
    )?)
}

/// Accepts 1 to [`MAX_REQUESTS`] requests.
pub fn check_requests(value: u64) -> Result<u64, String> {
    check_range(value, 1, MAX_REQUESTS, "requests")
}

/// Parses and checks a retry limit.
pub fn max_retries(text: &str) -> Result<u32, String> {
    check_max_retries(whole_number(
        text,
        "a retry limit",
        &format!("from 0 to {MAX_RETRIES}"),
    )?)
}

/// Accepts 0 to [`MAX_RETRIES`] retries.
pub fn check_max_retries(value: u32) -> Result<u32, String> {
    check_range(value, 0, MAX_RETRIES, "max retries")
}

/// Parses and checks a number of runs.
pub fn runs(text: &str) -> Result<u32, String> {
    check_runs(whole_number(
        text,
        "a number of runs",
        &format!("from 1 to {MAX_RUNS}"),
    )?)
}

/// Accepts 1 to [`MAX_RUNS`] runs.
pub fn check_runs(value: u32) -> Result<u32, String> {
    check_range(value, 1, MAX_RUNS, "runs")
}

/// Parses and checks a thread count.
pub fn threads(text: &str) -> Result<usize, String> {
    check_threads(whole_number(
        text,
        "a thread count",
        &format!("from 1 to {MAX_THREADS}"),
    )?)
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
    check_payments(whole_number(
        text,
        "a number of payments",
        &format!("from 1 to {MAX_PAYMENTS}"),
    )?)
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
    fn steps_are_typed_decimals_linear_or_logarithmic() {
        let steps = |text: &str| decimal_steps(text, 100).unwrap();
        assert_eq!(steps("0:0.3:0.1"), ["0.0", "0.1", "0.2", "0.3"]);
        assert_eq!(steps("500:2000:500"), ["500", "1000", "1500", "2000"]);
        assert_eq!(steps("1:1000:10:log"), ["1", "10", "100", "1000"]);
        assert_eq!(steps("0.001:1:10:log"), ["0.001", "0.01", "0.1", "1"]);
        assert_eq!(steps("1:10:2:log"), ["1", "2", "4", "8"]);
        assert_eq!(
            steps("0.5:3:1.5:log"),
            ["0.5", "0.75", "1.125", "1.6875", "2.53125"]
        );
        for (text, reason) in [
            ("0:10:10:log", "cannot start at 0"),
            ("1:10:1:log", "FACTOR above 1"),
            ("1:1e9:2:log", "not a plain decimal"),
            ("1:100:1.1:log", "too many digits"),
            ("1:2", "must have the form"),
        ] {
            let error = decimal_steps(text, 100).unwrap_err();
            assert!(error.contains(reason), "{text}: {error}");
        }
        let error = decimal_steps("1:1000000:2:log", 10).unwrap_err();
        assert!(error.contains("more than 10 values"), "{error}");
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
    fn decimals_compare_by_their_significant_digits() {
        for (text, digits, power) in [
            ("0.0100", "1", -2),
            ("1e-2", "1", -2),
            ("1.0000000000000000001", "10000000000000000001", -19),
            ("-0", "0", 0),
            ("250", "25", 1),
            ("5E-324", "5", -324),
        ] {
            assert_eq!(
                decimal_digits(text),
                Some((digits.to_string(), power)),
                "{text}"
            );
        }
        assert_eq!(decimal_digits("0x1p-3"), None);
        assert_eq!(ack_loss("0.30000000000000004"), Ok(0.30000000000000004));
        assert_eq!(ack_loss("-0").map(f64::to_bits), Ok(0));
        assert!(ack_loss("0.1000000000000000055511151231257827").is_err());
    }

    #[test]
    fn echoed_text_is_cut_after_forty_characters() {
        assert_eq!(echo("0.1"), "0.1");
        let long = "x".repeat(41);
        assert_eq!(echo(&long), format!("{}…", "x".repeat(40)));
        assert_eq!(echo(&"é".repeat(40)), "é".repeat(40));
        assert_eq!(shown(1e308), "1e308");
        assert_eq!(shown(0.25), "0.25");
    }

    #[test]
    fn numbers_are_checked() {
        assert_eq!(seed("18446744073709551615"), Ok(u64::MAX));
        assert!(seed("-1").unwrap_err().contains("'-1' is not a seed"));
        assert!(requests("0").unwrap_err().contains("got 0"));
        assert!(requests("1000000000000001").is_err());
        let too_large = requests("99999999999999999999999").unwrap_err();
        assert!(too_large.contains("too large"), "{too_large}");
        assert!(too_large.contains("to 1000000000000000"), "{too_large}");
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
