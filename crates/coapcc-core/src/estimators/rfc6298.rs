//! The RFC 6298 RTT estimator shared by CoCoA (strong and weak copies), FASOR's FastRTO,
//! pCoCoA's first-sample rule and the 4-state scheme (spec §0 "RFC 6298 estimator").

use core::time::Duration;

use crate::ratio::Ratio;
use crate::time::{Nanos, OptNanos, abs_diff, add, nanos};

/// RFC 6298 §2: α = 1/8.
pub const ALPHA: Ratio = Ratio::new(1, 8);
/// RFC 6298 §2: β = 1/4.
pub const BETA: Ratio = Ratio::new(1, 4);
/// RFC 6298 §2: K = 4.
pub const K: u32 = 4;

/// Constants of one RFC 6298 estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rfc6298Params {
    /// SRTT gain α.
    pub alpha: Ratio,
    /// RTTVAR gain β.
    pub beta: Ratio,
    /// Variance multiplier K.
    pub k: u32,
    /// Clock granularity G: RTO = SRTT + max(G, K·RTTVAR).
    pub granularity: Duration,
    /// On the first sample R, RTTVAR = R / this (2 in RFC 6298; 2K = 8 in FASOR, OQ-21).
    pub first_rttvar_divisor: u32,
}

impl Rfc6298Params {
    /// RFC 6298 with variance multiplier `k` and granularity `g`.
    pub const fn new(k: u32, granularity: Duration) -> Self {
        Rfc6298Params { alpha: ALPHA, beta: BETA, k, granularity, first_rttvar_divisor: 2 }
    }
}

/// The state of one RFC 6298 estimator: SRTT and RTTVAR, unset until the first sample.
/// Kept in 16 bytes (compact nanoseconds; an SRTT saturates at `u64::MAX − 1` ns).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rfc6298 {
    srtt: OptNanos,
    rttvar: Nanos,
}

impl Rfc6298 {
    /// An estimator that has seen no sample.
    pub const fn new() -> Self {
        Rfc6298 { srtt: OptNanos::NONE, rttvar: Nanos::ZERO }
    }

    /// An estimator in a given state (tests and what-if analyses).
    pub fn with(srtt: Duration, rttvar: Duration) -> Self {
        Rfc6298 { srtt: OptNanos::new(Some(srtt)), rttvar: Nanos::new(rttvar) }
    }

    /// Smoothed RTT, `None` before the first sample.
    pub fn srtt(&self) -> Option<Duration> {
        self.srtt.get()
    }

    /// RTT variation (meaningless before the first sample).
    pub fn rttvar(&self) -> Duration {
        self.rttvar.get()
    }

    /// Folds in the RTT sample `r` (RFC 6298 §2.2–2.3).
    pub fn sample(&mut self, r: Duration, p: &Rfc6298Params) {
        match self.srtt() {
            None => {
                // RFC 6298 §2.2: SRTT ← R, RTTVAR ← R/2 (R/(2K) for FASOR, OQ-21).
                self.srtt = OptNanos::new(Some(r));
                self.rttvar = Nanos::new(Duration::from_nanos(nanos(r) / u64::from(p.first_rttvar_divisor.max(1))));
            }
            Some(srtt) => {
                // RFC 6298 §2.3: RTTVAR uses the old SRTT, then SRTT is updated.
                self.rttvar = Nanos::new(p.beta.blend(abs_diff(srtt, r), self.rttvar()));
                self.srtt = OptNanos::new(Some(p.alpha.blend(r, srtt)));
            }
        }
    }

    /// RTO = SRTT + max(G, K·RTTVAR), `None` before the first sample.
    pub fn rto(&self, p: &Rfc6298Params) -> Option<Duration> {
        let srtt = self.srtt()?;
        let var = Ratio::integer(p.k).mul_duration(self.rttvar());
        Some(add(srtt, var.max(p.granularity)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Rfc6298Params = Rfc6298Params::new(4, Duration::ZERO);

    #[test]
    fn the_first_sample_sets_srtt_to_r_and_rttvar_to_half_r() {
        let mut e = Rfc6298::new();
        e.sample(Duration::from_millis(400), &P);
        assert_eq!(e, Rfc6298::with(Duration::from_millis(400), Duration::from_millis(200)));
        assert_eq!(e.rto(&P), Some(Duration::from_millis(1200)));
    }

    #[test]
    fn later_samples_update_rttvar_with_the_old_srtt() {
        let mut e = Rfc6298::with(Duration::from_millis(1000), Duration::from_millis(100));
        e.sample(Duration::from_millis(1800), &P);
        // RTTVAR = 3/4·100 + 1/4·|1000 − 1800| = 275; SRTT = 7/8·1000 + 1/8·1800 = 1100.
        assert_eq!(e, Rfc6298::with(Duration::from_millis(1100), Duration::from_millis(275)));
    }

    #[test]
    fn granularity_is_a_floor_on_the_variance_term() {
        let p = Rfc6298Params::new(4, Duration::from_millis(100));
        let e = Rfc6298::with(Duration::from_millis(500), Duration::ZERO);
        assert_eq!(e.rto(&p), Some(Duration::from_millis(600)));
    }

    #[test]
    fn an_unset_estimator_has_no_rto() {
        assert_eq!(Rfc6298::new().rto(&P), None);
    }
}
