//! The endpoints of a uniform distribution from samples: ACK_TIMEOUT and
//! ACK_TIMEOUT × ACK_RANDOM_FACTOR from first timeouts (RFC 7252 §4.2 draws the first timeout
//! uniformly between them).

/// A value with its 95 % confidence interval.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// The point estimate.
    pub value: f64,
    /// Lower end of the 95 % confidence interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

impl Estimate {
    /// Whether `x` lies in the interval.
    pub fn covers(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}

/// U[a, b) fitted to samples.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct UniformFit {
    /// Samples.
    pub n: usize,
    /// Smallest sample (seconds).
    pub min_s: f64,
    /// Largest sample (seconds).
    pub max_s: f64,
    /// `a`, seconds: ACK_TIMEOUT.
    pub lower_s: Estimate,
    /// `b`, seconds: ACK_TIMEOUT × ACK_RANDOM_FACTOR.
    pub upper_s: Estimate,
    /// `b / a`: ACK_RANDOM_FACTOR.
    pub factor: Estimate,
}

/// Fits U[a, b) to `samples_s` (at least two, each finite and positive); `resolution_s` is
/// the timestamps' uncertainty, added to each side of the intervals.
///
/// Point estimates are the unbiased ones of the order statistics, `a = min − r/(n−1)` and
/// `b = max + r/(n−1)` with `r = max − min`. The intervals use the exact law of the extremes:
/// `(min − a)/(b − a)` follows Beta(1, n), so with `w = r (n+1)/(n−1)` (the unbiased width)
/// `a` lies in `[min − q₉₇.₅ w, min − q₂.₅ w]` where `q_p = 1 − (1 − p)^(1/n)`; `b` likewise
/// from the maximum. The factor's interval is `[b_low / a_high, b_high / a_low]`.
pub fn uniform_fit(samples_s: &[f64], resolution_s: f64) -> Option<UniformFit> {
    let n = samples_s.len();
    if n < 2 || samples_s.iter().any(|x| !x.is_finite() || *x <= 0.0) {
        return None;
    }
    let min = samples_s.iter().copied().fold(f64::INFINITY, f64::min);
    let max = samples_s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let nf = n as f64;
    let r = max - min;
    let w = r * (nf + 1.0) / (nf - 1.0);
    let q = |p: f64| 1.0 - (1.0 - p).powf(1.0 / nf);
    let (q_lo, q_hi) = (q(0.025), q(0.975));
    let res = resolution_s.max(0.0);
    let a = Estimate { value: min - r / (nf - 1.0), low: min - q_hi * w - res, high: min - q_lo * w + res };
    let b = Estimate { value: max + r / (nf - 1.0), low: max + q_lo * w - res, high: max + q_hi * w + res };
    let a = Estimate { low: a.low.max(f64::MIN_POSITIVE), ..a };
    let factor = Estimate { value: b.value / a.value, low: (b.low / a.high).max(1.0), high: b.high / a.low };
    Some(UniformFit { n, min_s: min, max_s: max, lower_s: a, upper_s: b, factor })
}

/// The median of `v` (the mean of the middle two for an even count); `None` when empty.
pub fn median(v: &[f64]) -> Option<f64> {
    let mut s: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
    if s.is_empty() {
        return None;
    }
    s.sort_by(f64::total_cmp);
    let m = s.len() / 2;
    Some(if s.len() % 2 == 1 { s[m] } else { (s[m - 1] + s[m]) / 2.0 })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::{Rng, SeedableRng};
    use rand_pcg::Pcg64Mcg;

    fn uniform(rng: &mut Pcg64Mcg, a: f64, b: f64) -> f64 {
        a + (b - a) * (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn the_intervals_cover_the_true_endpoints_about_95_times_in_100() {
        // 400 trials of 30 draws from U[2, 3): each interval should miss about 5 % of the time.
        let mut rng = Pcg64Mcg::seed_from_u64(11);
        let (mut a_in, mut b_in, mut f_in) = (0, 0, 0);
        for _ in 0..400 {
            let s: Vec<f64> = (0..30).map(|_| uniform(&mut rng, 2.0, 3.0)).collect();
            let fit = uniform_fit(&s, 0.0).unwrap();
            a_in += usize::from(fit.lower_s.covers(2.0));
            b_in += usize::from(fit.upper_s.covers(3.0));
            f_in += usize::from(fit.factor.covers(1.5));
        }
        for (name, k) in [("a", a_in), ("b", b_in)] {
            assert!((360..=396).contains(&k), "{name}: covered {k} times in 400");
        }
        // The factor's interval combines two: it is conservative.
        assert!(f_in >= 370, "factor covered {f_in} times in 400");
    }

    #[test]
    fn thirty_draws_put_the_point_estimates_within_five_percent() {
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        let s: Vec<f64> = (0..30).map(|_| uniform(&mut rng, 2.0, 3.0)).collect();
        let fit = uniform_fit(&s, 0.001).unwrap();
        assert!((fit.lower_s.value / 2.0 - 1.0).abs() < 0.05, "{fit:?}");
        assert!((fit.factor.value / 1.5 - 1.0).abs() < 0.05, "{fit:?}");
    }

    #[test]
    fn identical_samples_give_a_factor_of_one_within_the_resolution() {
        let fit = uniform_fit(&[2.0; 10], 0.002).unwrap();
        assert_eq!(fit.factor.value, 1.0);
        assert!(fit.factor.high < 1.003, "{fit:?}");
        assert!(uniform_fit(&[2.0], 0.0).is_none());
        assert!(uniform_fit(&[2.0, f64::NAN], 0.0).is_none());
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
