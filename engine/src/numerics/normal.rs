//! The standard normal quantile (AS241), the one piece of the log-normal's inverse transform
//! that [`crate::distribution`], [`crate::measured`] and the vector lanes
//! ([`super::quantile_simd`]) share; it imports none of them.

/// The standard normal quantile at 0.99: `scipy.stats.norm.ppf(0.99)`.
pub const Z_99: f64 = 2.326_347_874_040_841;

/// The standard normal quantile (inverse cumulative distribution) at `u` in `[0, 1]`: `z`
/// with `P(Z <= z) = u`, `-inf` at 0 and `inf` at 1.
///
/// Wichura's algorithm AS241 (PPND16, Applied Statistics 37(3), 1988), also behind Python's
/// `statistics.NormalDist.inv_cdf` and R's `qnorm`: a rational function of degree 7 in
/// `(u - 0.5)^2` for `0.075 <= u <= 0.925` (85% of draws: no logarithm), elsewhere one of two
/// rational functions of `sqrt(-ln(tail))`. Against mpmath (`tests/normal_quantile/`, 2,422
/// points from 1e-300 to 1 - 1e-15) its largest relative error is 7.5e-16. Unlike
/// `erf_inv(2u - 1)`, it takes `u` itself, so the lower tail keeps its full precision.
#[inline]
pub fn normal_quantile(u: f64) -> f64 {
    let q = u - 0.5;
    if q.abs() <= CENTRAL_HALF_WIDTH {
        let r = 0.180_625 - q * q;
        return q * horner(r, &CENTRAL_NUMERATOR) / horner(r, &CENTRAL_DENOMINATOR);
    }
    normal_tail_quantile(u, q)
}

/// The half width of [`normal_quantile`]'s central region: `|u - 0.5| <= 0.425`.
pub(super) const CENTRAL_HALF_WIDTH: f64 = 0.425;

/// [`normal_quantile`] outside the central region (`|u - 0.5| > 0.425`).
pub(super) fn normal_tail_quantile(u: f64, q: f64) -> f64 {
    let tail = if q < 0.0 { u } else { 1.0 - u };
    if tail <= 0.0 {
        return if q < 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let r = (-tail.ln()).sqrt();
    let z = if r <= 5.0 {
        let r = r - 1.6;
        horner(r, &NEAR_TAIL_NUMERATOR) / horner(r, &NEAR_TAIL_DENOMINATOR)
    } else {
        let r = r - 5.0;
        horner(r, &FAR_TAIL_NUMERATOR) / horner(r, &FAR_TAIL_DENOMINATOR)
    };
    if q < 0.0 { -z } else { z }
}

/// `c[0] + c[1] x + ... + c[7] x^7` by Horner's rule.
#[inline(always)]
fn horner(x: f64, coefficients: &[f64; 8]) -> f64 {
    coefficients
        .iter()
        .rev()
        .fold(0.0, |sum, &coefficient| sum * x + coefficient)
}

// AS241's coefficients, lowest degree first, with the published digits (more than an f64
// holds; each literal rounds to the nearest f64).
#[allow(clippy::excessive_precision)]
pub(super) const CENTRAL_NUMERATOR: [f64; 8] = [
    3.387_132_872_796_366_608,
    1.331_416_678_917_843_774_5e2,
    1.971_590_950_306_551_442_7e3,
    1.373_169_376_550_946_112_5e4,
    4.592_195_393_154_987_145_7e4,
    6.726_577_092_700_870_085_3e4,
    3.343_057_558_358_812_810_5e4,
    2.509_080_928_730_122_672_7e3,
];
#[allow(clippy::excessive_precision)]
pub(super) const CENTRAL_DENOMINATOR: [f64; 8] = [
    1.0,
    4.231_333_070_160_091_125_2e1,
    6.871_870_074_920_579_083e2,
    5.394_196_021_424_751_107_7e3,
    2.121_379_430_158_659_586_7e4,
    3.930_789_580_009_271_061e4,
    2.872_908_573_572_194_267_4e4,
    5.226_495_278_852_854_561e3,
];
#[allow(clippy::excessive_precision)]
pub(super) const NEAR_TAIL_NUMERATOR: [f64; 8] = [
    1.423_437_110_749_683_577_34,
    4.630_337_846_156_545_295_9,
    5.769_497_221_460_691_405_5,
    3.647_848_324_763_204_605_04,
    1.270_458_252_452_368_382_58,
    2.417_807_251_774_506_117_7e-1,
    2.272_384_498_926_918_458_33e-2,
    7.745_450_142_783_414_076_4e-4,
];
#[allow(clippy::excessive_precision)]
pub(super) const NEAR_TAIL_DENOMINATOR: [f64; 8] = [
    1.0,
    2.053_191_626_637_758_821_87,
    1.676_384_830_183_803_849_4,
    6.897_673_349_851_000_045_5e-1,
    1.481_039_764_274_800_745_9e-1,
    1.519_866_656_361_645_719_66e-2,
    5.475_938_084_995_344_946e-4,
    1.050_750_071_644_416_843_24e-9,
];
#[allow(clippy::excessive_precision)]
pub(super) const FAR_TAIL_NUMERATOR: [f64; 8] = [
    6.657_904_643_501_103_777_2,
    5.463_784_911_164_114_369_9,
    1.784_826_539_917_291_335_8,
    2.965_605_718_285_048_912_3e-1,
    2.653_218_952_657_612_309_3e-2,
    1.242_660_947_388_078_438_6e-3,
    2.711_555_568_743_487_578_15e-5,
    2.010_334_399_292_288_132_65e-7,
];
#[allow(clippy::excessive_precision)]
pub(super) const FAR_TAIL_DENOMINATOR: [f64; 8] = [
    1.0,
    5.998_322_065_558_879_376_9e-1,
    1.369_298_809_227_358_053_1e-1,
    1.487_536_129_085_061_485_25e-2,
    7.868_691_311_456_132_591e-4,
    1.846_318_317_510_054_681_8e-5,
    1.421_511_758_316_445_888_7e-7,
    2.044_263_103_389_939_785_64e-15,
];

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance * expected.abs().max(1.0),
            "{actual} vs {expected}"
        );
    }

    /// `(u, z)` from `tests/normal_quantile/normal_quantile.csv` (mpmath).
    fn reference_quantiles() -> Vec<(f64, f64)> {
        include_str!("../../../tests/normal_quantile/normal_quantile.csv")
            .lines()
            .skip(1)
            .map(|line| {
                let (u, z) = line.split_once(',').expect("two columns");
                (u.parse().expect("u"), z.parse().expect("z"))
            })
            .collect()
    }

    /// The largest relative error of `quantile` against mpmath's over the reference points.
    fn largest_relative_error(quantile: impl Fn(f64) -> f64) -> f64 {
        reference_quantiles()
            .into_iter()
            .map(|(u, z)| ((quantile(u) - z) / z).abs())
            .fold(0.0, f64::max)
    }

    #[test]
    fn the_normal_quantile_is_within_1e_15_of_mpmath() {
        let points = reference_quantiles();
        assert_eq!(points.len(), 2_422);
        assert!(points.iter().any(|&(u, _)| u == 1e-300));
        let error = largest_relative_error(normal_quantile);
        assert!(error < 1e-15, "largest relative error {error:e}");
        // What it replaced, erf_inv(2u - 1), loses the lower tail: 2u - 1 rounds away most of
        // a small u's digits (so the check can fail).
        let erf_inv = largest_relative_error(|u| {
            std::f64::consts::SQRT_2 * statrs::function::erf::erf_inv(2.0 * u - 1.0)
        });
        assert!(
            erf_inv > 1e-3,
            "erf_inv's largest relative error {erf_inv:e}"
        );
    }

    #[test]
    fn the_normal_quantile_is_exact_at_the_ends_and_the_middle() {
        assert_eq!(normal_quantile(0.5), 0.0);
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        close(normal_quantile(0.99), Z_99, 1e-15);
        // Symmetric: z(1 - u) = -z(u) where 1 - u is exact (dyadic u), in both regions.
        for u in [
            0.25,
            0.125,
            0.0625,
            0.5f64.powi(10),
            0.5f64.powi(30),
            0.5f64.powi(52),
        ] {
            assert_eq!(normal_quantile(1.0 - u), -normal_quantile(u), "{u}");
        }
    }
}
