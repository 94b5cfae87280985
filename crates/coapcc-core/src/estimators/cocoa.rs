//! The CoCoA RTO estimator (draft-ietf-core-cocoa-03 §4.2, spec §2.2, §2.4, §2.7): a strong
//! RFC 6298 copy (K = 4) fed by unambiguous samples, a weak copy (K = 1) fed by samples of
//! exchanges with one or two retransmissions, both measured from the original transmission,
//! folded into one overall RTO; plus aging of the overall RTO after idle periods.
//!
//! Shared by [`super::cocoa`] (all CoCoA variants) and `super::bdp` (BDP-CoAP keeps CoCoA+'s
//! estimator for loss detection).

use core::time::Duration;

use crate::estimators::rfc6298::{Rfc6298, Rfc6298Params};
use crate::ratio::Ratio;
use crate::time::{Instant, Nanos, add, mul};

/// CoCoA-03: initial RTO (E_s, E_w and overall), 2 s.
pub const INITIAL_RTO: Duration = Duration::from_secs(2);
/// CoCoA-03 §4.2: weight of the strong estimate in the overall RTO.
pub const W_STRONG: Ratio = Ratio::new(1, 2);
/// CoCoA-03 §4.2: weight of the weak estimate in the overall RTO.
pub const W_WEAK: Ratio = Ratio::new(1, 4);
/// CoCoA-03 §4.2: variance multiplier of the strong estimator.
pub const K_STRONG: u32 = 4;
/// CoCoA-03 §4.2: variance multiplier of the weak estimator.
pub const K_WEAK: u32 = 1;
/// CoCoA-03 §4.2 and spec OQ-4: the 32 s ceiling.
pub const MAX_RTO: Duration = Duration::from_secs(32);

/// How the overall RTO ages when it is not updated (spec §2.7, OQ-6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Aging {
    /// No aging (the FASOR study's setting: no idle periods).
    Off,
    /// CoCoA-03: RTO < 1 s idle > 16·RTO → ×2; RTO > 3 s idle > 4·RTO → 1 s + RTO/2;
    /// applied lazily and cumulatively (Californium's loop).
    #[default]
    Draft,
    /// Betzler's Contiki code: one step per use, and a small RTO is set to 1 s, not doubled.
    Contiki,
}

/// Which samples feed the weak estimator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CocoaRtoParams {
    /// The strong estimator (K = 4).
    pub strong: Rfc6298Params,
    /// The weak estimator (K = 1).
    pub weak: Rfc6298Params,
    /// Weight of a strong estimate in the overall RTO (0.5).
    pub w_strong: Ratio,
    /// Weight of a weak estimate in the overall RTO (0.25).
    pub w_weak: Ratio,
    /// Use weak samples at all (`false`: CoCoA-strong, Californium's COCOA_STRONG).
    pub use_weak: bool,
    /// Weak samples only for exchanges with at most this many retransmissions (CoCoA-03: 2;
    /// Contiki: no cut-off, i.e. 255).
    pub weak_max_retransmissions: u8,
    /// Contiki compatibility (spec OQ-7): `overall = (1 − w)·E + w·overall`, which weights a
    /// weak estimate 0.75 instead of 0.25.
    pub contiki_weights: bool,
    /// Ceiling on the overall RTO (spec OQ-4).
    pub max_rto: Duration,
    /// Aging rule.
    pub aging: Aging,
}

impl CocoaRtoParams {
    /// CoCoA-03 with clock granularity `g` (spec §2.8).
    pub const fn draft(g: Duration) -> Self {
        CocoaRtoParams {
            strong: Rfc6298Params::new(K_STRONG, g),
            weak: Rfc6298Params::new(K_WEAK, g),
            w_strong: W_STRONG,
            w_weak: W_WEAK,
            use_weak: true,
            weak_max_retransmissions: 2,
            contiki_weights: false,
            max_rto: MAX_RTO,
            aging: Aging::Draft,
        }
    }
}

/// Which estimator a sample fed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleKind {
    /// Unambiguous: no retransmission.
    Strong,
    /// After one or two retransmissions.
    Weak,
    /// Discarded (too many retransmissions, or weak samples disabled).
    None,
}

/// State of the CoCoA estimator for one destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CocoaRto {
    /// Strong estimator (SRTT_s, RTTVAR_s).
    pub strong: Rfc6298,
    /// Weak estimator (SRTT_w, RTTVAR_w).
    pub weak: Rfc6298,
    /// The overall RTO that arms original transmissions.
    pub overall: Nanos,
    /// When the overall RTO was last updated or aged, if `updated` (see
    /// [`CocoaRto::last_update`]); kept apart from the flag so the estimator fits 56 bytes.
    last_update: Instant,
    updated: bool,
    /// Whether any sample has been taken (the blind RTO applies until then).
    pub measured: bool,
}

impl CocoaRto {
    /// A fresh estimator with overall RTO `initial`.
    pub fn new(initial: Duration) -> Self {
        CocoaRto {
            strong: Rfc6298::new(),
            weak: Rfc6298::new(),
            overall: Nanos::new(initial),
            last_update: Instant::ZERO,
            updated: false,
            measured: false,
        }
    }

    /// When the overall RTO was last updated or aged (`None`: not used yet; the first use
    /// stands for the creation time).
    pub fn last_update(&self) -> Option<Instant> {
        self.updated.then_some(self.last_update)
    }

    /// This estimator with overall RTO `overall`, last updated at `last_update`, `measured`
    /// or not (tests and what-if analyses).
    pub fn with_overall(mut self, overall: Duration, last_update: Option<Instant>, measured: bool) -> Self {
        self.overall = Nanos::new(overall);
        self.set_last_update(last_update);
        self.measured = measured;
        self
    }

    /// Sets when the overall RTO was last updated or aged.
    pub fn set_last_update(&mut self, at: Option<Instant>) {
        self.updated = at.is_some();
        self.last_update = at.unwrap_or(Instant::ZERO);
    }

    /// Classifies an exchange that was acknowledged after `retransmissions` retransmissions.
    pub fn classify(retransmissions: u8, p: &CocoaRtoParams) -> SampleKind {
        match retransmissions {
            0 => SampleKind::Strong,
            n if p.use_weak && n <= p.weak_max_retransmissions => SampleKind::Weak,
            _ => SampleKind::None,
        }
    }

    /// Folds in the RTT `r` of an exchange acknowledged at `now` after `retransmissions`
    /// retransmissions (CoCoA-03 §4.2; `r` is measured from the original transmission).
    pub fn on_sample(&mut self, now: Instant, retransmissions: u8, r: Duration, p: &CocoaRtoParams) -> SampleKind {
        let kind = Self::classify(retransmissions, p);
        let (est, params, w) = match kind {
            SampleKind::Strong => (&mut self.strong, &p.strong, p.w_strong),
            SampleKind::Weak => (&mut self.weak, &p.weak, p.w_weak),
            SampleKind::None => return kind,
        };
        est.sample(r, params);
        let e = est.rto(params).unwrap_or(r);
        // CoCoA-03 §4.2: RTO ← w·E + (1 − w)·RTO; Contiki: RTO ← (1 − w)·E + w·RTO (OQ-7).
        let w = if p.contiki_weights { w.one_minus() } else { w };
        self.overall = Nanos::new(w.blend(e, self.overall.get()).min(p.max_rto));
        self.set_last_update(Some(now));
        self.measured = true;
        kind
    }

    /// The overall RTO at `now` after aging, without changing the state.
    pub fn aged(&self, now: Instant, p: &CocoaRtoParams) -> Duration {
        let mut copy = *self;
        copy.age(now, p);
        copy.overall.get()
    }

    /// Applies aging due at `now` (CoCoA-03 §4.3 "Aging", spec §2.7, OQ-6).
    pub fn age(&mut self, now: Instant, p: &CocoaRtoParams) {
        let Some(mut last) = self.last_update() else {
            self.set_last_update(Some(now));
            return;
        };
        let one_s = Duration::from_secs(1);
        let three_s = Duration::from_secs(3);
        match p.aging {
            Aging::Off => {}
            Aging::Draft => {
                // Californium's loop: each step is dated when its idle threshold passed, so
                // steps apply cumulatively (0.3 → 0.6 after 4.8 s → 1.2 after 14.4 s).
                loop {
                    let rto = self.overall.get();
                    let (threshold, next) = if rto < one_s {
                        (mul(rto, 16), mul(rto, 2))
                    } else if rto > three_s {
                        (mul(rto, 4), add(one_s, rto / 2))
                    } else {
                        break;
                    };
                    // A step the ceiling cancels (max_rto < 1 s) changes nothing: stop, or the
                    // loop would walk through the whole idle period 16·RTO at a time.
                    let next = next.min(p.max_rto);
                    if rto.is_zero() || next == rto || now.saturating_duration_since(last) <= threshold {
                        break;
                    }
                    last = last + threshold;
                    self.overall = Nanos::new(next);
                }
                self.set_last_update(Some(last));
            }
            Aging::Contiki => {
                let rto = self.overall.get();
                let idle = now.saturating_duration_since(last);
                if rto < one_s && idle > mul(rto, 16) {
                    // Spec OQ-4: the estimate never exceeds the ceiling.
                    self.overall = Nanos::new(one_s.min(p.max_rto));
                    self.set_last_update(Some(now));
                } else if rto > three_s && idle > mul(rto, 4) {
                    self.overall = Nanos::new(add(one_s, rto / 2).min(p.max_rto));
                    self.set_last_update(Some(now));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::testing::{at, ms};

    const P: CocoaRtoParams = CocoaRtoParams::draft(Duration::ZERO);

    #[test]
    fn a_first_strong_sample_of_400_ms_gives_an_overall_rto_of_1_6_s() {
        // Spec §13 vector 2 / §2.9.
        let mut e = CocoaRto::new(INITIAL_RTO);
        assert_eq!(e.on_sample(at(400), 0, ms(400), &P), SampleKind::Strong);
        assert_eq!(e.overall, ms(1600));
    }

    #[test]
    fn a_first_weak_sample_of_3_s_gives_an_overall_rto_of_2_625_s() {
        // Spec §13 vector 2 / §2.9.
        let mut e = CocoaRto::new(INITIAL_RTO);
        assert_eq!(e.on_sample(at(3000), 1, ms(3000), &P), SampleKind::Weak);
        assert_eq!(e.overall, ms(2625));
    }

    #[test]
    fn weak_updates_with_an_estimate_of_3_s_take_1_5_to_1_875_then_2_15625_s() {
        // Draft Example A.1 (spec §2.9): E_w = 3 s each time.
        let mut e = CocoaRto::new(ms(1500));
        e.on_sample(at(0), 1, ms(2000), &P); // first weak sample R = 2 s: SRTT 2, RTTVAR 1, E_w 3
        assert_eq!(e.overall, ms(1875));
        e.weak = Rfc6298::new();
        e.on_sample(at(0), 2, ms(2000), &P);
        assert_eq!(e.overall, Duration::from_micros(2_156_250));
    }

    #[test]
    fn samples_after_three_retransmissions_are_discarded() {
        let mut e = CocoaRto::new(INITIAL_RTO);
        assert_eq!(e.on_sample(at(0), 3, ms(9000), &P), SampleKind::None);
        assert_eq!(e.overall, INITIAL_RTO);
        assert!(!e.measured);
    }

    #[test]
    fn the_strong_only_variant_ignores_weak_samples() {
        let p = CocoaRtoParams { use_weak: false, ..P };
        let mut e = CocoaRto::new(INITIAL_RTO);
        assert_eq!(e.on_sample(at(0), 1, ms(3000), &p), SampleKind::None);
        assert_eq!(e.overall, INITIAL_RTO);
    }

    #[test]
    fn contiki_weights_put_three_quarters_on_a_weak_estimate() {
        let p = CocoaRtoParams { contiki_weights: true, ..P };
        let mut e = CocoaRto::new(INITIAL_RTO);
        e.on_sample(at(0), 1, ms(3000), &p); // E_w = 4.5: 0.75·4.5 + 0.25·2 = 3.875
        assert_eq!(e.overall, ms(3875));
    }

    #[test]
    fn an_rto_of_4_s_idle_for_16_1_s_ages_to_3_s() {
        // Spec §13 vector 4.
        let mut e = CocoaRto::new(INITIAL_RTO).with_overall(ms(4000), Some(at(0)), false);
        assert_eq!(e.aged(at(16_000), &P), ms(4000));
        e.age(at(16_100), &P);
        assert_eq!(e.overall, ms(3000));
    }

    #[test]
    fn an_rto_of_0_3_s_doubles_after_4_8_s_and_again_after_14_4_s_then_stops() {
        // Spec §13 vector 4 (Californium's cumulative loop).
        let e = CocoaRto::new(INITIAL_RTO).with_overall(ms(300), Some(at(0)), false);
        assert_eq!(e.aged(at(4800), &P), ms(300));
        assert_eq!(e.aged(at(4810), &P), ms(600));
        assert_eq!(e.aged(at(14_400), &P), ms(600));
        assert_eq!(e.aged(at(14_401), &P), ms(1200));
        assert_eq!(e.aged(at(20_000), &P), ms(1200));
        assert_eq!(e.aged(at(10 * 86_400_000), &P), ms(1200));
    }

    #[test]
    fn contiki_aging_sets_a_small_rto_to_1_s() {
        let p = CocoaRtoParams { aging: Aging::Contiki, ..P };
        let e = CocoaRto::new(INITIAL_RTO).with_overall(ms(300), Some(at(0)), false);
        assert_eq!(e.aged(at(4810), &p), ms(1000));
    }

    #[test]
    fn aging_under_a_ceiling_below_1_s_stops_at_the_ceiling_without_walking_the_idle_time() {
        // A doubling step that the ceiling cancels must end the loop (a 1 ns ceiling and ten
        // idle days would otherwise take 5·10^13 iterations).
        let p = CocoaRtoParams { max_rto: Duration::from_nanos(1), ..P };
        let e = CocoaRto::new(INITIAL_RTO).with_overall(Duration::from_nanos(1), Some(at(0)), false);
        assert_eq!(e.aged(at(10 * 86_400_000), &p), Duration::from_nanos(1));
        let p = CocoaRtoParams { max_rto: ms(500), ..P };
        let e = CocoaRto::new(INITIAL_RTO).with_overall(ms(300), Some(at(0)), false);
        assert_eq!(e.aged(at(10 * 86_400_000), &p), ms(500));
        let p = CocoaRtoParams { aging: Aging::Contiki, ..p };
        assert_eq!(e.aged(at(4810), &p), ms(500));
    }

    #[test]
    fn the_overall_rto_never_exceeds_the_ceiling() {
        let mut e = CocoaRto::new(INITIAL_RTO);
        e.on_sample(at(0), 0, Duration::from_secs(100), &P);
        assert_eq!(e.overall, MAX_RTO);
    }
}
