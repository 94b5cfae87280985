//! The cross-check's statistics: per-replication values of one metric from the simulator and
//! from the testbed, compared as distributions.
//!
//! * **PairedDifference by replication.** Testbed replication `r` draws from the same random streams
//!   as simulated replication `r` (link trajectories, start offsets, dithering), so the
//!   difference `d_r = testbed_r − sim_r` removes the run-to-run variation those draws cause
//!   (with link errors, most of it). Under "the testbed behaves as the simulator", `d_r` is
//!   symmetric about 0 (the two runs of a pair differ only by when real time lets things
//!   happen, in either direction). [`PairedDifference`] gives the median of the `d_r`, its
//!   distribution-free 95 % interval by order statistics (the sign-test interval,
//!   [`median_ci95`]; 6 pairs at least) and the exact two-sided sign test of a zero median.
//! * **Unpaired.** [`mann_whitney`]: the two-sided Mann–Whitney U test of the testbed's
//!   values against the simulation's replications that no testbed replication shares streams
//!   with (independent samples), by the normal approximation with the tie and continuity
//!   corrections (Hollander, Wolfe & Chicken, *Nonparametric Statistical Methods*, §4.1).
//! * **Verdict** ([`verdict`]): an equivalence rule on the paired interval and a tolerance
//!   band `±tolerance` around zero: inside it the sides agree; wholly outside it they differ;
//!   otherwise (or with too few pairs for an interval) the data cannot tell.

use coapcc_sim::results::{MedianInterval, median_ci95};

/// The finite values' median (mean of the two middle values for an even count); NaN when
/// there is none.
pub fn median(values: &[f64]) -> f64 {
    let mut v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    coapcc_driver::metrics::median(&mut v)
}

/// `P(B ≤ k)` for `B ~ Binomial(n, 1/2)`, summed in log space (no underflow for large `n`).
fn binomial_half_cdf(n: usize, k: usize) -> f64 {
    let ln_half_n = n as f64 * 0.5f64.ln();
    let mut ln_choose = 0.0f64;
    let mut cdf = 0.0f64;
    for j in 0..=k.min(n) {
        if j > 0 {
            ln_choose += ((n - j + 1) as f64 / j as f64).ln();
        }
        cdf += (ln_choose + ln_half_n).exp();
    }
    cdf.min(1.0)
}

/// The exact two-sided sign test of "the median difference is 0": with `m` non-zero finite
/// differences of which `k` are of the rarer sign, `p = min(1, 2·P(B ≤ k))`,
/// `B ~ Binomial(m, 1/2)`. Zeros are left out (the usual convention); no non-zero difference
/// gives 1.
pub fn sign_test_p(differences: &[f64]) -> f64 {
    let pos = differences.iter().filter(|d| d.is_finite() && **d > 0.0).count();
    let neg = differences.iter().filter(|d| d.is_finite() && **d < 0.0).count();
    let m = pos + neg;
    if m == 0 {
        return 1.0;
    }
    (2.0 * binomial_half_cdf(m, pos.min(neg))).min(1.0)
}

/// The paired comparison of one metric (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairedDifference {
    /// Pairs with a finite value on both sides.
    pub pairs: usize,
    /// Median of `testbed_r − sim_r`.
    pub median: f64,
    /// Its 95 % interval (order statistics; [`MedianInterval::NONE`] under 6 pairs).
    pub interval: MedianInterval,
    /// The exact two-sided sign test of a zero median difference.
    pub sign_test_p: f64,
}

/// Pairs `testbed[r]` with `sim[r]` (the same replication) for every `r` both have, keeping
/// the pairs finite on both sides.
pub fn paired(sim: &[f64], testbed: &[f64]) -> PairedDifference {
    let d: Vec<f64> =
        sim.iter().zip(testbed).filter(|(s, t)| s.is_finite() && t.is_finite()).map(|(s, t)| t - s).collect();
    PairedDifference { pairs: d.len(), median: median(&d), interval: median_ci95(&d), sign_test_p: sign_test_p(&d) }
}

/// The result of a two-sided Mann–Whitney U test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MannWhitney {
    /// `U` of the second sample: pairs `(x, y)` with `y > x`, ties counting ½.
    pub u: f64,
    /// Two-sided p-value (normal approximation, tie and continuity corrections); 1 when every
    /// value ties; NaN when a sample is empty.
    pub p: f64,
}

/// The two-sided Mann–Whitney U test of `y` against `x` (finite values only): `U` is compared
/// with its null mean `n·m/2` and variance `n·m/12·((N+1) − Σ(t³−t)/(N(N−1)))` (`t`: the sizes
/// of the groups of tied values, `N = n + m`); `z = (|U − n·m/2| − ½)/σ` (at least 0),
/// `p = erfc(z/√2)`.
pub fn mann_whitney(x: &[f64], y: &[f64]) -> MannWhitney {
    let x: Vec<f64> = x.iter().copied().filter(|v| v.is_finite()).collect();
    let y: Vec<f64> = y.iter().copied().filter(|v| v.is_finite()).collect();
    let (n, m) = (x.len() as f64, y.len() as f64);
    if x.is_empty() || y.is_empty() {
        return MannWhitney { u: f64::NAN, p: f64::NAN };
    }
    let u: f64 = y
        .iter()
        .map(|&b| {
            x.iter()
                .map(|&a| {
                    if b > a {
                        1.0
                    } else if b == a {
                        0.5
                    } else {
                        0.0
                    }
                })
                .sum::<f64>()
        })
        .sum();
    let mut all: Vec<f64> = x.iter().chain(&y).copied().collect();
    all.sort_by(f64::total_cmp);
    let mut ties = 0.0;
    let mut i = 0;
    while i < all.len() {
        let j = all[i..].iter().take_while(|v| **v == all[i]).count();
        let t = j as f64;
        ties += t * t * t - t;
        i += j;
    }
    let total = n + m;
    let variance = n * m / 12.0 * ((total + 1.0) - ties / (total * (total - 1.0)));
    if variance <= 0.0 {
        return MannWhitney { u, p: 1.0 };
    }
    let z = (((u - n * m / 2.0).abs() - 0.5) / variance.sqrt()).max(0.0);
    MannWhitney { u, p: libm::erfc(z / std::f64::consts::SQRT_2).min(1.0) }
}

/// What the paired interval says against the tolerance band.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The 95 % interval of the median paired difference lies inside `±tolerance`.
    Agrees,
    /// The interval lies wholly outside `±tolerance`: the difference exceeds it.
    Differs,
    /// The interval straddles a bound of the band, or there are too few pairs for one.
    Inconclusive,
}

impl Verdict {
    /// The name used in the report and the CSV file.
    pub const fn name(self) -> &'static str {
        match self {
            Verdict::Agrees => "agrees",
            Verdict::Differs => "differs",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// The verdict of an `interval` of a difference against the band `±tolerance` (≥ 0).
pub fn verdict(interval: &MedianInterval, tolerance: f64) -> Verdict {
    let (lo, hi) = (interval.lo, interval.hi);
    if !(lo.is_finite() && hi.is_finite()) {
        Verdict::Inconclusive
    } else if -tolerance <= lo && hi <= tolerance {
        Verdict::Agrees
    } else if lo > tolerance || hi < -tolerance {
        Verdict::Differs
    } else {
        Verdict::Inconclusive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sign_test_p_is_twice_the_binomial_tail_of_the_rarer_sign() {
        // 10 differences, all positive: 2 · 2⁻¹⁰.
        let all_up: Vec<f64> = (1..=10).map(f64::from).collect();
        assert!((sign_test_p(&all_up) - 2.0 / 1024.0).abs() < 1e-15);
        // 8 up, 2 down: 2 · (1 + 10 + 45) / 1024 = 0.109375.
        let mixed = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, -1.0, -2.0];
        assert!((sign_test_p(&mixed) - 0.109_375).abs() < 1e-12);
        // Zeros are left out: 5 up, 0 down → 2/32; balanced signs give 1 (capped).
        assert!((sign_test_p(&[0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]) - 0.0625).abs() < 1e-15);
        assert_eq!(sign_test_p(&[1.0, -1.0]), 1.0);
        assert_eq!(sign_test_p(&[0.0, 0.0]), 1.0);
    }

    #[test]
    fn paired_differences_take_the_same_replication_from_both_sides() {
        // Testbed = sim + 1 on six replications (one NaN pair left out): median 1, interval
        // (x(1), x(6)) = (1, 1) at 96.9 %, sign test 2/64.
        let sim = [10.0, 20.0, 30.0, 40.0, 50.0, 60.0, f64::NAN, 80.0];
        let tb = [11.0, 21.0, 31.0, 41.0, 51.0, 61.0, 71.0];
        let p = paired(&sim, &tb);
        assert_eq!(p.pairs, 6);
        assert_eq!((p.median, p.interval.lo, p.interval.hi), (1.0, 1.0, 1.0));
        assert!((p.sign_test_p - 2.0 / 64.0).abs() < 1e-15);
        assert!(paired(&sim[..5], &tb).interval.lo.is_nan(), "five pairs have no 95 % interval");
    }

    #[test]
    fn mann_whitney_matches_a_hand_computation() {
        // x = 1..5, y = 6..10: U = 25, mean 12.5, variance 5·5·11/12 = 22.9167;
        // z = (12.5 − 0.5)/4.7871 = 2.5067, p = erfc(z/√2) = 0.01219.
        let x = [1.0, 2.0, 3.0, 4.0, 5.0];
        let y = [6.0, 7.0, 8.0, 9.0, 10.0];
        let r = mann_whitney(&x, &y);
        assert_eq!(r.u, 25.0);
        assert!((r.p - 0.012_19).abs() < 5e-5, "{}", r.p);
        // Symmetric: U of x against y is 0, same p.
        assert_eq!(mann_whitney(&y, &x).u, 0.0);
        assert!((mann_whitney(&y, &x).p - r.p).abs() < 1e-15);
    }

    #[test]
    fn mann_whitney_corrects_for_ties_and_calls_identical_samples_alike() {
        // x = (1, 2, 2), y = (2, 3, 3), counted by hand: y = 2 beats 1 and ties both 2s
        // (1 + 0.5 + 0.5); each y = 3 beats all three: U = 2 + 3 + 3 = 8. Ties: {2 ×3, 3 ×2}: Σ(t³ − t) = 24 + 6 = 30; N = 6;
        // variance = 9/12·(7 − 30/30) = 4.5; z = (|8 − 4.5| − 0.5)/√4.5 = 1.4142; p = 0.1573.
        let r = mann_whitney(&[1.0, 2.0, 2.0], &[2.0, 3.0, 3.0]);
        assert_eq!(r.u, 8.0);
        assert!((r.p - 0.157_30).abs() < 5e-5, "{}", r.p);
        assert_eq!(mann_whitney(&[0.0; 4], &[0.0; 5]).p, 1.0, "all tied: no evidence of a difference");
        assert!(mann_whitney(&[], &[1.0]).p.is_nan());
    }

    #[test]
    fn the_verdict_compares_the_interval_with_the_tolerance_band() {
        let i = |lo, hi| MedianInterval { ranks: (1, 6), lo, hi, level: 0.97 };
        assert_eq!(verdict(&i(-0.1, 0.2), 0.3), Verdict::Agrees);
        assert_eq!(verdict(&i(0.0, 0.0), 0.0), Verdict::Agrees, "identical sides agree at zero tolerance");
        assert_eq!(verdict(&i(0.4, 0.9), 0.3), Verdict::Differs);
        assert_eq!(verdict(&i(-0.9, -0.31), 0.3), Verdict::Differs);
        assert_eq!(verdict(&i(0.1, 0.5), 0.3), Verdict::Inconclusive);
        assert_eq!(verdict(&MedianInterval::NONE, 0.3), Verdict::Inconclusive);
    }
}
