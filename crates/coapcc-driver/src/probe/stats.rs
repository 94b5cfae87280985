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

/// P(X ≤ q) for X ~ Beta(k, n + 1 − k): the law of the k-th smallest of n uniform draws on
/// [0, 1), `1 − Σ_{j<k} C(n, j) q^j (1 − q)^(n−j)`.
fn order_cdf(k: usize, n: usize, q: f64) -> f64 {
    let mut term = (1.0 - q).powi(n as i32);
    let mut below = 0.0;
    for j in 0..k {
        below += term;
        // C(n, j+1) q^(j+1) (1−q)^(n−j−1) from C(n, j) q^j (1−q)^(n−j).
        term = if q < 1.0 { term * (n - j) as f64 / (j + 1) as f64 * q / (1.0 - q) } else { 0.0 };
    }
    1.0 - below
}

/// The p-quantile of Beta(k, n + 1 − k), by bisection.
fn order_quantile(k: usize, n: usize, p: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if order_cdf(k, n, mid) < p { lo = mid } else { hi = mid }
    }
    (lo + hi) / 2.0
}

/// Fits U[a, b) to `samples_s` (at least two, each finite and positive); `resolution_s` is
/// the timestamps' uncertainty, added to each side of the intervals.
///
/// The fit rests on the k-th smallest and k-th largest samples, with `k = 1 + n/30` (the
/// extremes up to 29 samples, the second ones from 30, the third from 60): a copy delayed
/// by the machine moves one sample, not the fit, and the fit stays nearly as precise as the
/// extremes' (30 draws of U[a, 1.5a): the estimate of a is more than 5 % off 4 % of the time
/// with k = 2, 6 % with k = 3; the factor 7 % and 16 %; 60 draws with k = 3: 0.5 % and 0.9 %). With `x₍k₎` and `x₍n+1−k₎`, the unbiased
/// width is `w = (x₍n+1−k₎ − x₍k₎)(n+1)/(n+1−2k)` and `a = x₍k₎ − k w/(n+1)`,
/// `b = x₍n+1−k₎ + k w/(n+1)`. The intervals use the exact law of the order statistic,
/// `(x₍k₎ − a)/(b − a) ~ Beta(k, n+1−k)`: `a` lies in `[x₍k₎ − q₀.₉₇₅ w, x₍k₎ − q₀.₀₂₅ w]`
/// with `q_p` its p-quantile; `b` likewise from the top. The factor's interval is
/// `[b_low / a_high, b_high / a_low]`. With k = 1 these are the estimators of the extremes.
pub fn uniform_fit(samples_s: &[f64], resolution_s: f64) -> Option<UniformFit> {
    let n = samples_s.len();
    if n < 2 || samples_s.iter().any(|x| !x.is_finite() || *x <= 0.0) {
        return None;
    }
    let mut sorted = samples_s.to_vec();
    sorted.sort_by(f64::total_cmp);
    let k = (1 + n / 30).min(n / 2).max(1);
    let (lo_k, hi_k) = (sorted[k - 1], sorted[n - k]);
    let (min, max) = (sorted[0], sorted[n - 1]);
    let nf = n as f64;
    let kf = k as f64;
    let w = (hi_k - lo_k) * (nf + 1.0) / (nf + 1.0 - 2.0 * kf);
    let (q_lo, q_hi) = (order_quantile(k, n, 0.025), order_quantile(k, n, 0.975));
    let res = resolution_s.max(0.0);
    let shift = kf * w / (nf + 1.0);
    let a = Estimate { value: lo_k - shift, low: lo_k - q_hi * w - res, high: lo_k - q_lo * w + res };
    let b = Estimate { value: hi_k + shift, low: hi_k + q_lo * w - res, high: hi_k + q_hi * w + res };
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
    fn one_delayed_copy_does_not_move_the_fit_of_thirty_runs() {
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        let mut s: Vec<f64> = (0..30).map(|_| uniform(&mut rng, 2.0, 3.0)).collect();
        let clean = uniform_fit(&s, 0.0).unwrap();
        s[0] = 1.2; // the original was delayed 0.8 s, so its first timeout looks short
        let fit = uniform_fit(&s, 0.0).unwrap();
        assert!((fit.lower_s.value / clean.lower_s.value - 1.0).abs() < 0.02, "{fit:?} vs {clean:?}");
        assert_eq!(fit.min_s, 1.2);
    }

    #[test]
    fn the_law_of_the_kth_smallest_draw_matches_its_closed_forms() {
        // k = 1: 1 − (1 − q)^n; k = n: q^n.
        for q in [0.01, 0.2, 0.7] {
            assert!((order_cdf(1, 30, q) - (1.0 - (1.0 - q).powi(30))).abs() < 1e-12);
            assert!((order_cdf(5, 5, q) - q.powi(5)).abs() < 1e-12);
        }
        let m = order_quantile(2, 30, 0.5);
        assert!((order_cdf(2, 30, m) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn medians_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
