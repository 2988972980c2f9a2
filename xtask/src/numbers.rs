//! How the docs write numbers, and the few statistics the tables compute from the outputs.

/// A whole number with thousands separators: `6442` gives `6,442`.
pub fn grouped(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `value` with `decimals` decimals and thousands separators: `6442.04, 1` gives `6,442.0`.
pub fn decimal(value: f64, decimals: usize) -> String {
    let text = format!("{:.*}", decimals, value.abs());
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let sign = if value < 0.0 && text.chars().any(|c| c.is_ascii_digit() && c != '0') {
        "-"
    } else {
        ""
    };
    let whole = grouped(whole.parse().expect("digits"));
    if fraction.is_empty() {
        format!("{sign}{whole}")
    } else {
        format!("{sign}{whole}.{fraction}")
    }
}

/// A share as a percentage with `decimals` decimals: `0.05028, 2` gives `5.03%`.
pub fn percent(share: f64, decimals: usize) -> String {
    format!("{:.*}%", decimals, 100.0 * share)
}

/// A probability or TTL as the shortest decimal (`0.05`, `100`).
pub fn short(value: f64) -> String {
    let text = format!("{value}");
    text.strip_suffix(".0").map_or(text.clone(), str::to_string)
}

/// Mean and standard error of the mean (sample standard deviation / √n) of `values`; the
/// standard error is NaN for fewer than two values.
pub fn mean_and_standard_error(values: &[f64]) -> (f64, f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() < 2 {
        return (mean, f64::NAN);
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (variance / n).sqrt())
}

/// A mean and its standard error as the validation tables write them: `mean ± se`.
pub fn plus_minus((mean, se): (f64, f64), scale: f64, decimals: usize) -> String {
    format!(
        "{} ± {}",
        decimal(scale * mean, decimals),
        decimal(scale * se, decimals)
    )
}

/// `P(|T| > |t|)` for Student's t with `df` degrees of freedom (a whole number ≥ 1), by the
/// finite series of Abramowitz and Stegun 26.7.3 and 26.7.4, as `benches/brooker_compare.py`
/// computes it.
pub fn student_two_sided(t: f64, df: u64) -> f64 {
    if t.is_infinite() {
        return 0.0;
    }
    let theta = (t.abs() / (df as f64).sqrt()).atan();
    let cos2 = theta.cos().powi(2);
    let inside = if df.is_multiple_of(2) {
        let (mut term, mut total) = (1.0, 1.0);
        for k in 1..df / 2 {
            let k = k as f64;
            term *= cos2 * (2.0 * k - 1.0) / (2.0 * k);
            total += term;
        }
        theta.sin() * total
    } else {
        let mut total = 0.0;
        if df > 1 {
            let mut term = 1.0;
            total = 1.0;
            for k in 1..(df - 1) / 2 {
                let k = k as f64;
                term *= cos2 * (2.0 * k) / (2.0 * k + 1.0);
                total += term;
            }
            total *= theta.sin() * theta.cos();
        }
        2.0 / std::f64::consts::PI * (theta + total)
    };
    (1.0 - inside).max(0.0)
}

/// A mean with its standard error and the runs it came from.
pub type Estimate = (f64, f64, usize);

/// Welch's t of `ours − original` and its two-sided p-value (Welch–Satterthwaite degrees of
/// freedom, rounded down), as `benches/brooker_compare.py` computes them.
pub fn welch(ours: Estimate, original: Estimate) -> (f64, f64) {
    let ((a, sa, na), (b, sb, nb)) = (original, ours);
    let se = sa.hypot(sb);
    if se == 0.0 {
        return if a == b {
            (0.0, 1.0)
        } else {
            (f64::INFINITY, 0.0)
        };
    }
    let t = (b - a) / se;
    let part = |s: f64, n: usize| {
        if s > 0.0 {
            s.powi(4) / (n as f64 - 1.0)
        } else {
            0.0
        }
    };
    let df = (se.powi(4) / (part(sa, na) + part(sb, nb)))
        .floor()
        .max(1.0) as u64;
    (t, student_two_sided(t, df))
}

/// The |t| at which the two-sided p-value of Student's t with `df` degrees of freedom falls
/// to `p` (bisection, as `benches/brooker_compare.py`).
pub fn student_critical(p: f64, df: u64) -> f64 {
    let (mut low, mut high) = (0.0, 50.0);
    for _ in 0..100 {
        let middle = (low + high) / 2.0;
        if student_two_sided(middle, df) > p {
            low = middle;
        } else {
            high = middle;
        }
    }
    high
}

/// The standard normal quantile (Acklam's rational approximation, relative error below
/// 1.2e-9; the docs print two decimals).
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969683028665376e1,
        2.209460984245205e2,
        -2.759285104469687e2,
        1.383_577_518_672_69e2,
        -3.066479806614716e1,
        2.506628277459239,
    ];
    const B: [f64; 5] = [
        -5.447609879822406e1,
        1.615858368580409e2,
        -1.556989798598866e2,
        6.680131188771972e1,
        -1.328068155288572e1,
    ];
    const C: [f64; 6] = [
        -7.784894002430293e-3,
        -3.223964580411365e-1,
        -2.400758277161838,
        -2.549732539343734,
        4.374664141464968,
        2.938163982698783,
    ];
    const D: [f64; 4] = [
        7.784695709041462e-3,
        3.224671290700398e-1,
        2.445134137142996,
        3.754408661907416,
    ];
    let tail = |q: f64| {
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    };
    if p < 0.02425 {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - 0.02425 {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    }
}

/// The 95% Wilson score interval of `successes` out of `trials`.
pub fn wilson(successes: u64, trials: u64) -> (f64, f64) {
    let z = 1.959_963_984_540_054;
    let n = trials as f64;
    let share = successes as f64 / n;
    let centre = share + z * z / (2.0 * n);
    let spread = z * (share * (1.0 - share) / n + z * z / (4.0 * n * n)).sqrt();
    let scale = 1.0 + z * z / n;
    (
        ((centre - spread) / scale).max(0.0),
        ((centre + spread) / scale).min(1.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_as_the_docs_write_them() {
        assert_eq!(grouped(6442), "6,442");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000_000), "1,000,000");
        assert_eq!(decimal(6442.04, 1), "6,442.0");
        assert_eq!(decimal(-1.25, 1), "-1.2");
        assert_eq!(decimal(-0.04, 1), "0.0");
        assert_eq!(percent(0.05028, 2), "5.03%");
        assert_eq!(short(0.05), "0.05");
        assert_eq!(short(100.0), "100");
    }

    #[test]
    fn the_statistics_match_their_reference_values() {
        // Student's t: P(|T| > 2.228) = 0.05 at 10 degrees of freedom; 12.706 at 1.
        assert!((student_two_sided(2.228_138_85, 10) - 0.05).abs() < 1e-6);
        assert!((student_two_sided(12.706_204_7, 1) - 0.05).abs() < 1e-6);
        assert!((student_critical(0.05, 10) - 2.228_138_85).abs() < 1e-6);
        // Φ⁻¹(0.975) and the AWS comparison's Bonferroni bound Φ⁻¹(1 − 0.05 / 380).
        assert!((normal_quantile(0.975) - 1.959_963_985).abs() < 1e-8);
        assert!((normal_quantile(1.0 - 0.05 / 380.0) - 3.649_102_696).abs() < 1e-6);
        let (mean, se) = mean_and_standard_error(&[1.0, 2.0, 3.0, 4.0]);
        assert_eq!(mean, 2.5);
        assert!((se - (5.0_f64 / 12.0).sqrt()).abs() < 1e-15);
        let (low, high) = wilson(101, 10_000);
        assert!((low - 0.008_319_720_104).abs() < 1e-9, "{low}");
        assert!((high - 0.012_256_521_499).abs() < 1e-9, "{high}");
    }
}
