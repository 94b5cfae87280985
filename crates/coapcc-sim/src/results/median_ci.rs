//! A distribution-free 95 % confidence interval of a median, by order statistics: for n
//! values sorted x(1) ≤ … ≤ x(n), the interval (x(k), x(n+1−k)) covers the population median
//! with probability 1 − 2·P(B ≤ k−1), B ~ Binomial(n, 1/2) (the sign-test interval; Hollander,
//! Wolfe & Chicken, *Nonparametric Statistical Methods*, §3.6). The widest-coverage-first
//! search takes the largest k whose coverage is still at least 95 %; with n ≤ 5 not even
//! (x(1), x(n)) reaches 95 % (n = 5: 93.75 %), and there is no interval.

/// The lowest coverage accepted.
pub const LEVEL: f64 = 0.95;

/// A confidence interval of a median by order statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MedianInterval {
    /// The lower order statistic's rank k (1-based) and the upper one's, n + 1 − k.
    pub ranks: (usize, usize),
    /// x(k) and x(n+1−k).
    pub lo: f64,
    /// See [`MedianInterval::lo`].
    pub hi: f64,
    /// Its exact coverage, 1 − 2·P(Binomial(n, 1/2) ≤ k−1) (≥ [`LEVEL`]).
    pub level: f64,
}

impl MedianInterval {
    /// No interval (too few values): every field NaN or 0.
    pub const NONE: MedianInterval = MedianInterval { ranks: (0, 0), lo: f64::NAN, hi: f64::NAN, level: f64::NAN };
}

/// The ranks (k, n+1−k) and coverage of the 95 % interval for `n` values, or None when
/// `n` is too small (n ≤ 5).
pub fn ranks(n: usize) -> Option<((usize, usize), f64)> {
    // P(B ≤ j) for j = 0, 1, …, in log space so that a large n does not underflow 2^−n.
    let ln_half_n = n as f64 * 0.5f64.ln();
    let (mut ln_choose, mut cdf) = (0.0f64, 0.0f64);
    let mut best = None;
    for k in 1..=n.div_ceil(2) {
        let j = k - 1;
        if j > 0 {
            ln_choose += ((n - j + 1) as f64 / j as f64).ln();
        }
        cdf += (ln_choose + ln_half_n).exp();
        let level = 1.0 - 2.0 * cdf;
        if level < LEVEL {
            break;
        }
        best = Some(((k, n + 1 - k), level));
    }
    best
}

/// The 95 % interval of the median of the finite `values` (NaNs are left out), or
/// [`MedianInterval::NONE`] when fewer than 6 remain.
pub fn median_ci95(values: &[f64]) -> MedianInterval {
    let mut xs: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
    xs.sort_by(f64::total_cmp);
    match ranks(xs.len()) {
        Some(((k, m), level)) => MedianInterval { ranks: (k, m), lo: xs[k - 1], hi: xs[m - 1], level },
        None => MedianInterval::NONE,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// P(Binomial(n, 1/2) ≤ j) from exact integer binomial coefficients (n ≤ 60).
    fn binomial_cdf(n: u32, j: u32) -> f64 {
        let mut c: u128 = 1;
        let mut sum: u128 = 0;
        for i in 0..=j {
            if i > 0 {
                c = c * u128::from(n - i + 1) / u128::from(i);
            }
            sum += c;
        }
        sum as f64 / 2f64.powi(n as i32)
    }

    #[test]
    fn ten_values_give_the_second_and_ninth_at_97_9_percent() {
        // 1 − 2·(1 + 10)/1024 = 0.978515625; k = 3 would give 1 − 2·56/1024 = 0.890625.
        let ((k, m), level) = ranks(10).unwrap();
        assert_eq!((k, m), (2, 9));
        assert!((level - 0.978_515_625).abs() < 1e-12, "{level}");
        let xs: Vec<f64> = (1..=10).rev().map(f64::from).collect();
        let i = median_ci95(&xs);
        assert_eq!((i.lo, i.hi), (2.0, 9.0));
    }

    #[test]
    fn the_ranks_are_the_widest_that_still_cover_95_percent_by_the_exact_binomial() {
        for n in 6..=60u32 {
            let ((k, m), level) = ranks(n as usize).unwrap();
            assert_eq!(m, n as usize + 1 - k);
            let cover = |k: u32| 1.0 - 2.0 * binomial_cdf(n, k - 1);
            assert!((level - cover(k as u32)).abs() < 1e-9, "n = {n}");
            assert!(cover(k as u32) >= LEVEL, "n = {n}");
            assert!(cover(k as u32 + 1) < LEVEL, "n = {n}: k + 1 also covers 95 %");
        }
    }

    #[test]
    fn five_values_or_fewer_have_no_95_percent_interval() {
        // (x(1), x(5)) covers 1 − 2/32 = 93.75 %.
        for n in 0..=5 {
            assert!(ranks(n).is_none(), "n = {n}");
        }
        assert!(median_ci95(&[1.0, 2.0, 3.0, 4.0, 5.0, f64::NAN]).lo.is_nan());
        assert_eq!(ranks(6).unwrap().0, (1, 6));
    }

    #[test]
    fn a_large_n_does_not_underflow() {
        let ((k, _), level) = ranks(2000).unwrap();
        // Normal approximation: k ≈ n/2 − 1.96·√n/2 ≈ 956.
        assert!((950..=960).contains(&k), "{k}");
        assert!((LEVEL..0.96).contains(&level), "{level}");
    }
}
