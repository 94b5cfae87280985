//! CoCoA, draft-ietf-core-cocoa-03 (spec §2), and its variants as one controller: CoCoA-strong,
//! CoCoA+ (spec §3) and CoCoA with Full Backoff 1 or 2 (spec §4.4–4.6).
//!
//! # The algorithm
//!
//! * **Estimator** ([`CocoaRto`], reused): a strong RFC 6298 copy (K = 4) fed by exchanges
//!   without retransmission, a weak copy (K = 1) fed by exchanges with one or two
//!   retransmissions, both measured from the *original* transmission (CoCoA-03 §4.2, spec
//!   §2.4); the overall RTO ← 0.5·E_strong + 0.5·RTO or 0.25·E_weak + 0.75·RTO, clamped to the
//!   cap; aging of the overall RTO after idle periods (§2.7), applied lazily when an original
//!   is sent.
//! * **Original transmission** (§2.3): the aged overall RTO; before any measurement, with
//!   other exchanges outstanding (NSTART > 1), the blind RTO `initial × (in_flight + 1)`
//!   (OQ-2); dithered to U[RTO, RTO × ACK_RANDOM_FACTOR) (§2.6, OQ-5); capped (OQ-4).
//! * **Retransmission** (§2.5): `T ← min(T × VBF, cap)`, with the Variable Backoff Factor
//!   chosen once per exchange from the undithered RTO that armed the original (OQ-3), and
//!   no further dithering (OQ-5). Give up after MAX_RETRANSMIT retransmissions.
//! * **Full Backoff** (§4.4–4.5): an exchange that needed retransmissions (or failed, OQ-9)
//!   carries the timer armed for its last transmission (OQ-8) into the next exchange, used
//!   as is (no re-dithering, OQ-11) until a clean exchange: FB1 arms it instead of the overall
//!   RTO (ignoring weak updates), FB2 arms `max(carried, updated overall RTO)`. The VBF of
//!   such an exchange is chosen from the value that armed its original (OQ-12).
//!
//! # Presets (CLI names)
//!
//! | constructor | name | what |
//! |---|---|---|
//! | [`CocoaConfig::default`] | `cocoa` | CoCoA-03: VBF {3, 2, 1.5}, weak estimator, aging, 32 s cap |
//! | [`CocoaConfig::strong`] | `cocoa-strong` | strong estimator only (Californium `COCOA_STRONG`, Makarem's CoCoA-S) |
//! | [`CocoaConfig::full_backoff`] | `cocoa-fb1`, `cocoa-fb2` | CoCoA-03 + Full Backoff 1 / 2 (ANRW'18) |
//! | [`CocoaConfig::plus`] | `cocoa-plus` | CoCoA+ with the `paper` VBF {3, 2, 1.3} |
//!
//! **CoCoA+** (Betzler et al., Ad Hoc Networks 33, 2015; spec §3, OQ-7) is, by everything that
//! could be read about it, the set of mechanisms that went into the CoCoA draft: strong and
//! weak estimators with K_weak = 1, weights 0.5 / 0.25, weak samples up to the second
//! retransmission, the VBF, aging and the blind RTO. It differs from CoCoA-03 only in the VBF
//! values, which the sources give differently; so CoCoA+ here is "CoCoA-03 mechanics with a
//! VBF preset": `paper` = {3, 2, 1.3} (the 2014–2016 publications, the `cocoa-plus`
//! default) or `makarem` = {2.5, 2, 1.5} (the authors' 2015 Contiki code as used by Makarem
//! et al.; `--set vbf=makarem`). The Contiki code's inverted weak weighting is available only
//! as the explicit `contiki_weights` flag, its "set to 1 s" aging as `aging = "contiki"`.
//!
//! # State
//!
//! [`Cocoa`] is the algorithm (configuration and estimator parameters), shared by every
//! destination; [`CocoaState`] is what one destination keeps (estimators, carried timer);
//! [`CocoaExchange`] is what one exchange keeps:
//!
//! * `base`: the backoff register, the value the next VBF step multiplies: the armed
//!   (dithered) timer of the latest copy, or its undithered value when `redither` is on.
//! * `aux`: the undithered RTO that armed the original (T_init).
//! * `factor`: the VBF chosen for the exchange from `aux` (unused by the per-step rule).
//! * `origin`: where the original's timer came from, an [`Origin`].

use core::time::Duration;

use crate::backoff::full_backoff::{Carry, FullBackoff};
use crate::backoff::vbf::Vbf;
use crate::config::ConfigError;
use crate::controller::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
use crate::estimators::cocoa::{CocoaRto, CocoaRtoParams, K_STRONG, K_WEAK, MAX_RTO, W_STRONG, W_WEAK};
use crate::estimators::rfc6298::Rfc6298Params;
use crate::params::{ACK_RANDOM_FACTOR, MAX_RETRANSMIT};
use crate::random::{Rng, dither_factor};
use crate::ratio::Ratio;
use crate::time::{Instant, mul, shl};

pub use crate::estimators::cocoa::{Aging, INITIAL_RTO};

/// Spec §2.8: clock granularity G of the simulator, 1 ms (effectively off; CoCoA-03 gives no
/// value, Californium uses 100 ms, Contiki none).
pub const G: Duration = Duration::from_millis(1);

/// CoCoA-03 §4.2: weak samples only for exchanges with at most this many retransmissions.
pub const WEAK_MAX_RETRANSMISSIONS: u8 = 2;

/// Which RTO selects the Variable Backoff Factor (spec §2.5, OQ-3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum VbfSelection {
    /// Once per exchange, from the undithered RTO that armed the original (earlier draft
    /// text, 2014 slides, Makarem, Californium, Contiki; spec OQ-3 default).
    #[default]
    PerExchange,
    /// At every retransmission, from the current backed-off timer (CoCoA-03 pseudocode
    /// `backOffRTO()`).
    PerStep,
}

/// The blind RTO for an original sent before any measurement while other exchanges are
/// outstanding (NSTART > 1; spec §2.3, OQ-2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum BlindRto {
    /// CoCoA-03: initial RTO × (ongoing + 1): with two exchanges running a third gets 6 s.
    #[default]
    Linear,
    /// 2014 slides \[S3\] and Contiki: initial RTO × 2^ongoing: two running → 8 s.
    Exponential,
}

/// Where the timer of an exchange's original transmission came from (stored in
/// [`CocoaExchange::origin`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Origin {
    /// The (aged) overall RTO.
    #[default]
    Overall = 0,
    /// The blind RTO (no measurement yet, other exchanges outstanding).
    Blind = 1,
    /// A Full Backoff carried timer.
    Carried = 2,
}

impl Origin {
    /// The origin recorded on `ex`.
    pub fn of(ex: &Exchange<CocoaExchange>) -> Origin {
        ex.cc.origin
    }
}

/// What CoCoA keeps per exchange (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CocoaExchange {
    /// The backoff register: the value the next VBF step multiplies.
    pub base: Duration,
    /// The undithered RTO that armed the original (T_init).
    pub aux: Duration,
    /// The VBF chosen for the exchange (spec OQ-3).
    pub factor: Ratio,
    /// Where the original's timer came from.
    pub origin: Origin,
}

/// Configuration of CoCoA. `Default` is draft-ietf-core-cocoa-03 with the spec's resolutions
/// of its open questions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct CocoaConfig {
    /// Initial RTO of the strong, weak and overall estimates (CoCoA-03: 2 s); also the unit
    /// of the blind RTO.
    #[cfg_attr(feature = "serde", serde(rename = "initial_rto_ms", with = "crate::config::serde_ms"))]
    pub initial_rto: Duration,
    /// ACK_RANDOM_FACTOR: the original's timer is drawn from [RTO, RTO × this) (≥ 1).
    pub ack_random_factor: Ratio,
    /// MAX_RETRANSMIT: retransmissions before giving up.
    pub max_retransmit: u8,
    /// Ceiling on every armed timer and on the overall RTO (CoCoA-03: 32 s; spec OQ-4).
    #[cfg_attr(feature = "serde", serde(rename = "cap_ms", with = "crate::config::serde_ms"))]
    pub cap: Duration,
    /// Clock granularity G in RTO = SRTT + max(G, K·RTTVAR) (spec §2.8: 1 ms; Californium
    /// 100 ms; 0 disables the floor).
    #[cfg_attr(feature = "serde", serde(rename = "granularity_ms", with = "crate::config::serde_ms"))]
    pub granularity: Duration,
    /// The VBF table: a preset (`"draft"`, `"paper"`, `"makarem"`) or a table.
    pub vbf: Vbf,
    /// Which RTO selects the VBF (spec OQ-3).
    pub vbf_selection: VbfSelection,
    /// Use the weak estimator (`false`: strong only, as Californium `COCOA_STRONG`).
    pub weak: bool,
    /// Weak samples only for exchanges with at most this many retransmissions (CoCoA-03: 2;
    /// Contiki: no cut-off, i.e. 255).
    pub weak_max_retransmissions: u8,
    /// Weight of a strong estimate in the overall RTO (0.5), in [0, 1].
    pub w_strong: Ratio,
    /// Weight of a weak estimate in the overall RTO (0.25), in [0, 1].
    pub w_weak: Ratio,
    /// Aging of the overall RTO (spec §2.7, OQ-6).
    pub aging: Aging,
    /// Blind RTO rule for NSTART > 1 (spec OQ-2).
    pub blind_rto: BlindRto,
    /// Full Backoff variant (spec §4.4–4.5).
    pub full_backoff: FullBackoff,
    /// Re-dither every retransmission timer to U[T, T × ACK_RANDOM_FACTOR) (the draft's
    /// prose) instead of dithering the original only (spec OQ-5 default). Needs `dither`.
    pub redither: bool,
    /// Contiki compatibility: overall = (1 − w)·E + w·overall (a weak estimate weighs 0.75;
    /// spec §3, OQ-7).
    pub contiki_weights: bool,
    /// Dither the original's timer (and, with `redither`, every timer). Off: every timer is
    /// its undithered value.
    pub dither: bool,
}

impl Default for CocoaConfig {
    fn default() -> Self {
        CocoaConfig {
            initial_rto: INITIAL_RTO,
            ack_random_factor: ACK_RANDOM_FACTOR,
            max_retransmit: MAX_RETRANSMIT,
            cap: MAX_RTO,
            granularity: G,
            vbf: Vbf::DRAFT,
            vbf_selection: VbfSelection::PerExchange,
            weak: true,
            weak_max_retransmissions: WEAK_MAX_RETRANSMISSIONS,
            w_strong: W_STRONG,
            w_weak: W_WEAK,
            aging: Aging::Draft,
            blind_rto: BlindRto::Linear,
            full_backoff: FullBackoff::Off,
            redither: false,
            contiki_weights: false,
            dither: true,
        }
    }
}

impl CocoaConfig {
    /// CoCoA with the strong estimator only (Californium `COCOA_STRONG`, Makarem's CoCoA-S).
    pub fn strong() -> Self {
        CocoaConfig { weak: false, ..Default::default() }
    }

    /// CoCoA-FB1 or CoCoA-FB2 (spec §4.4–4.5), with CoCoA's 32 s cap.
    pub fn full_backoff(variant: FullBackoff) -> Self {
        CocoaConfig { full_backoff: variant, ..Default::default() }
    }

    /// CoCoA+ (spec §3, OQ-7): CoCoA-03 mechanics with a VBF preset, [`Vbf::PAPER`] for the
    /// published values or [`Vbf::MAKAREM`] for the authors' code.
    pub fn plus(vbf: Vbf) -> Self {
        CocoaConfig { vbf, ..Default::default() }
    }

    /// The estimator parameters this configuration implies.
    pub fn rto_params(&self) -> CocoaRtoParams {
        CocoaRtoParams {
            strong: Rfc6298Params::new(K_STRONG, self.granularity),
            weak: Rfc6298Params::new(K_WEAK, self.granularity),
            w_strong: self.w_strong,
            w_weak: self.w_weak,
            use_weak: self.weak,
            weak_max_retransmissions: self.weak_max_retransmissions,
            contiki_weights: self.contiki_weights,
            max_rto: self.cap,
            aging: self.aging,
        }
    }
}

/// CoCoA's state for one destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CocoaState {
    /// The strong and weak estimators (SRTT, RTTVAR), the overall RTO that arms originals,
    /// the time of its last update or aging step, and whether any sample was taken.
    pub estimator: CocoaRto,
    /// Full Backoff: the timer carried into the next exchange (always empty when
    /// `full_backoff` is off).
    pub carry: Carry,
}

/// CoCoA (any variant), the algorithm: the checked configuration and the estimator
/// parameters it implies, shared by every destination ([`CocoaState`] is per destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cocoa {
    config: CocoaConfig,
    params: CocoaRtoParams,
}

impl Cocoa {
    /// Checks the configuration and builds the controller for a fresh destination.
    pub fn new(config: CocoaConfig) -> Result<Self, ConfigError> {
        if config.initial_rto.is_zero() {
            return Err(ConfigError::new("initial_rto_ms", "must be greater than 0"));
        }
        if config.ack_random_factor < Ratio::ONE {
            return Err(ConfigError::new("ack_random_factor", "must be at least 1 (RFC 7252 §4.8)"));
        }
        if config.cap.is_zero() {
            return Err(ConfigError::new("cap_ms", "must be greater than 0"));
        }
        let v = config.vbf;
        if v.below < Ratio::ONE || v.between < Ratio::ONE || v.above < Ratio::ONE {
            return Err(ConfigError::new("vbf", "every factor must be at least 1"));
        }
        if v.lower > v.upper {
            return Err(ConfigError::new("vbf", "lower_ms must not exceed upper_ms"));
        }
        if config.w_strong > Ratio::ONE {
            return Err(ConfigError::new("w_strong", "must be in [0, 1]"));
        }
        if config.w_weak > Ratio::ONE {
            return Err(ConfigError::new("w_weak", "must be in [0, 1]"));
        }
        Ok(Cocoa { config, params: config.rto_params() })
    }

    /// The configuration.
    pub fn config(&self) -> &CocoaConfig {
        &self.config
    }

    /// Lower bound of every armed timer: an estimate is at least G (E ≥ SRTT + G) or the
    /// initial RTO, blended and aged values never fall below the smaller of the two.
    fn floor(&self) -> Duration {
        self.config.granularity.min(self.config.initial_rto).min(self.config.cap)
    }

    /// Clamps a timer into [floor, cap] (spec OQ-4: the cap applies to every armed timer).
    fn clamp(&self, d: Duration) -> Duration {
        d.max(self.floor()).min(self.config.cap)
    }

    /// CoCoA-03 §4.2 "blind RTO" for an original sent while `in_flight` other exchanges are
    /// outstanding and nothing has been measured (spec OQ-2).
    fn blind(&self, in_flight: usize) -> Duration {
        let initial = self.config.initial_rto;
        match self.config.blind_rto {
            BlindRto::Linear => mul(initial, u64::try_from(in_flight).unwrap_or(u64::MAX).saturating_add(1)),
            BlindRto::Exponential => shl(initial, u32::try_from(in_flight).unwrap_or(u32::MAX)),
        }
    }

    /// The undithered timer for an original, given the (already aged) overall RTO.
    fn original_base(&self, st: &CocoaState, overall: Duration, in_flight: usize) -> (Duration, Origin) {
        let fresh = if !st.estimator.measured && in_flight > 0 {
            // CoCoA-03 §4.2, spec §2.3: no measurement yet and NSTART > 1.
            (self.blind(in_flight), Origin::Blind)
        } else {
            (overall, Origin::Overall)
        };
        let (base, origin) = match (self.config.full_backoff, st.carry.carried.get()) {
            (FullBackoff::Off, _) | (_, None) => fresh,
            // Spec §4.4: the carried backed-off timer replaces the overall RTO.
            (FullBackoff::Fb1, Some(c)) => (c, Origin::Carried),
            // Spec §4.5: max(carried, freshly updated overall RTO).
            (FullBackoff::Fb2, Some(c)) if c >= fresh.0 => (c, Origin::Carried),
            (FullBackoff::Fb2, Some(_)) => fresh,
        };
        (self.clamp(base), origin)
    }

    /// The VBF step from the register `t` (spec §2.5, OQ-3).
    fn backoff(&self, t: Duration, per_exchange: Ratio) -> Duration {
        let factor = match self.config.vbf_selection {
            VbfSelection::PerExchange => per_exchange,
            // CoCoA-03 pseudocode backOffRTO(): thresholds on the current backed-off value.
            VbfSelection::PerStep => self.config.vbf.factor(t),
        };
        // CoCoA-03 §4.2: T ← min(T × VBF, 32 s); it acts on the exchange's timer only.
        self.clamp(factor.mul_duration(t))
    }

    fn dither(&self, rng: &mut dyn Rng, t: Duration) -> Duration {
        // RFC 7252 §4.2 pattern, spec §2.6: U[T, T × ACK_RANDOM_FACTOR), then capped (OQ-4).
        self.clamp(dither_factor(rng, t, self.config.ack_random_factor))
    }
}

impl CocoaConfig {
    /// The echo this algorithm needs: none. CoCoA-03 §4.2 (spec §2) tells strong from weak
    /// samples by the retransmission count alone, so it reads only ambiguous acknowledgements.
    pub fn echo_mode(&self) -> EchoMode {
        EchoMode::None
    }
}

impl Controller for Cocoa {
    type State = CocoaState;
    type ExchangeState = CocoaExchange;

    fn new_state(&self) -> CocoaState {
        // Spec OQ-4: the estimate is clamped to the same ceiling as the timers.
        CocoaState { estimator: CocoaRto::new(self.config.initial_rto.min(self.config.cap)), carry: Carry::default() }
    }

    fn on_transmit(
        &self,
        st: &mut CocoaState,
        now: Instant,
        ex: &mut Exchange<CocoaExchange>,
        in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Duration {
        if ex.retransmissions() == 0 {
            // CoCoA-03 §4.3, spec §2.7: lazy, cumulative aging before the estimate is used.
            st.estimator.age(now, &self.params);
            let (base, origin) = self.original_base(st, st.estimator.overall.get(), in_flight);
            ex.cc.aux = base;
            // Spec OQ-3 / OQ-12: the VBF of the exchange, from the undithered value that arms
            // the original (the carried value under Full Backoff).
            ex.cc.factor = self.config.vbf.factor(base);
            ex.cc.origin = origin;
            // Spec OQ-5: dither the original; OQ-11: a carried timer is not re-dithered.
            let armed = if self.config.dither && origin != Origin::Carried { self.dither(rng, base) } else { base };
            // Spec OQ-5: retransmissions multiply the armed (dithered) timer, unless every
            // timer is re-dithered from the undithered chain.
            ex.cc.base = if self.config.redither { base } else { armed };
            armed
        } else {
            let next = self.backoff(ex.cc.base, ex.cc.factor);
            ex.cc.base = next;
            // Spec OQ-5 option: the draft's "retransmissions dithered like RFC 7252".
            if self.config.dither && self.config.redither { self.dither(rng, next) } else { next }
        }
    }

    fn on_timeout(&self, st: &mut CocoaState, _now: Instant, ex: &mut Exchange<CocoaExchange>) -> Retry {
        if ex.retransmissions() < self.config.max_retransmit {
            return Retry::Retransmit;
        }
        // Spec OQ-9: a failed exchange carries its last (capped) timer.
        if self.config.full_backoff != FullBackoff::Off {
            st.carry.keep(self.clamp(ex.timer()));
        }
        Retry::GiveUp
    }

    fn on_ack(&self, st: &mut CocoaState, now: Instant, ex: &Exchange<CocoaExchange>, _ack: &Ack) {
        let n = ex.retransmissions();
        // CoCoA-03 §4.2, spec §2.4: R is measured from the original transmission, for strong
        // and weak samples alike (an echoed copy number is not used).
        let r = now.saturating_duration_since(ex.first_sent());
        st.estimator.on_sample(now, n, r, &self.params);
        match self.config.full_backoff {
            FullBackoff::Off => {}
            // Spec §4.4, OQ-8: carry the timer armed for the last transmission.
            FullBackoff::Fb1 | FullBackoff::Fb2 if n > 0 => st.carry.keep(self.clamp(ex.timer())),
            // Spec §4.4–4.5: a clean exchange ends the carrying (FB1 and FB2 alike).
            FullBackoff::Fb1 | FullBackoff::Fb2 => st.carry.clear(),
        }
    }

    fn rto(&self, st: &CocoaState, now: Instant) -> Option<Duration> {
        let overall = st.estimator.aged(now, &self.params);
        Some(self.original_base(st, overall, 0).0)
    }

    fn timer_bounds(&self) -> TimerBounds {
        // Every armed timer passes through `clamp`: the blind RTO, dithered and re-dithered
        // values and carried timers included.
        TimerBounds { min: self.floor(), max: self.config.cap }
    }

    fn echo_mode(&self) -> EchoMode {
        self.config.echo_mode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::estimators::rfc6298::Rfc6298;
    #[allow(unused_imports)]
    use crate::harness::testing::Bound;
    use crate::harness::testing::Script;
    use crate::harness::testing::{at, ms};
    use rand_core::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn undithered(config: CocoaConfig) -> Bound<Cocoa> {
        Bound::new(Cocoa::new(CocoaConfig { dither: false, ..config }).unwrap())
    }
    fn script(config: CocoaConfig) -> Script<Cocoa> {
        Script::new(undithered(config))
    }
    fn with_initial(initial_ms: u64) -> CocoaConfig {
        CocoaConfig { initial_rto: ms(initial_ms), ..Default::default() }
    }
    fn last_timer_ms(s: &Script<Cocoa>) -> u64 {
        *s.timers_ms().last().unwrap()
    }

    // ---- §13 vector 2: the estimator through the controller ----

    #[test]
    fn a_first_strong_sample_of_400_ms_gives_an_rto_of_1_6_s() {
        // Spec §13 vector 2 / §2.9: E_s = 0.4 + 4·0.2 = 1.2 s; RTO = 0.5·1.2 + 0.5·2 = 1.6 s.
        let mut s = script(CocoaConfig::default());
        s.send();
        s.wait_ms(400);
        s.ack();
        assert_eq!(s.timers_ms(), [2000]);
        assert_eq!(s.rto_ms(), Some(1600));
        s.send();
        assert_eq!(last_timer_ms(&s), 1600);
    }

    #[test]
    fn a_first_weak_sample_of_3_s_gives_an_rto_of_2_625_s() {
        // Spec §13 vector 2: copies at 0 (2 s) and 2 s (4 s); ACK at 3 s, R from the original.
        let mut s = script(CocoaConfig::default());
        s.send();
        s.wait_ms(3000);
        s.ack();
        assert_eq!(s.transmit_times_ms(), [0, 2000]);
        assert_eq!(s.timers_ms(), [2000, 4000]);
        assert_eq!(s.rto_ms(), Some(2625));
        assert_eq!(s.state().estimator.weak, Rfc6298::with(ms(3000), ms(1500)));
    }

    #[test]
    fn two_weak_updates_with_an_estimate_of_3_s_take_1_5_s_to_1_875_then_2_15625_s() {
        // Draft Example A.1 (spec §2.9, §13 vector 2): RTO 1.5 s; weak samples with
        // SRTT_w = 2 s, RTTVAR_w = 1 s (E_w = 3 s) twice.
        let mut s = script(CocoaConfig::default());
        let mut st = s.state();
        st.estimator.overall = ms(1500).into();
        st.estimator.set_last_update(Some(at(0)));
        s.set_state(st);
        s.send();
        s.wait_ms(2000); // copies at 0 (1.5 s) and 1.5 s (3 s); R = 2 s
        s.ack();
        assert_eq!(s.timers_ms(), [1500, 3000]);
        assert_eq!(s.rto_ms(), Some(1875));
        // The draft's second update assumes the same E_w: start the weak copy afresh.
        let mut st = s.state();
        st.estimator.weak = Rfc6298::new();
        s.set_state(st);
        s.send();
        s.wait_ms(2000); // copies at 2 s (1.875 s) and 3.875 s; R = 2 s
        s.ack();
        assert_eq!(s.timers_ms()[2..], [1875, 3750]);
        assert_eq!(s.rto_ns(), Some(2_156_250_000));
    }

    #[test]
    fn a_second_weak_sample_updates_the_weak_copy_with_rfc_6298_gains() {
        // From RTO 1.5 s: first weak R = 2 s → 1.875 s (as above). Second exchange, R = 2 s
        // again: RTTVAR_w = 0.75·1 + 0.25·0 = 0.75, SRTT_w = 2, E_w = 2.75;
        // RTO = 0.25·2.75 + 0.75·1.875 = 2.09375 s (replay cocoa-weak-example-a1).
        let mut s = script(CocoaConfig { initial_rto: ms(1500), ..Default::default() });
        s.send();
        s.wait_ms(2000);
        s.ack();
        s.send();
        s.wait_ms(2000);
        s.ack();
        assert_eq!(s.rto_ns(), Some(2_093_750_000));
    }

    #[test]
    fn the_granularity_floors_the_variance_term() {
        // Californium's G = 100 ms: a 400 ms strong sample after a zero-variance history.
        let mut c = undithered(CocoaConfig { granularity: ms(100), ..Default::default() });
        let mut st = c.state();
        st.estimator.strong = Rfc6298::with(ms(400), Duration::ZERO);
        st.estimator.overall = ms(1000).into();
        st.estimator.set_last_update(Some(at(0)));
        c.set_state(st);
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let ex = c.start(at(0), 0, &mut rng);
        c.on_ack(at(400), &ex, &Ack::AMBIGUOUS);
        // E_s = 0.4 + max(0.1, 0) = 0.5; RTO = 0.5·0.5 + 0.5·1 = 0.75 s.
        assert_eq!(c.state().estimator.overall, ms(750));
    }

    // ---- §13 vector 3: VBF series ----

    #[test]
    fn an_initial_rto_of_0_5_s_backs_off_by_3_to_0_5_1_5_4_5_13_5_and_the_32_s_cap() {
        // Spec §13 vector 3, per-exchange rule: 40.5 s is truncated to 32 s.
        let mut s = script(with_initial(500));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [500, 1500, 4500, 13500, 32000]);
        assert_eq!(s.transmit_times_ms(), [0, 500, 2000, 6500, 20000]);
        assert_eq!(s.give_up_ms(), Some(52_000));
    }

    #[test]
    fn an_initial_rto_of_2_s_backs_off_to_2_4_8_16_32_and_gives_up_at_62_s() {
        // Spec §13 vector 3.
        let mut s = script(CocoaConfig::default());
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [2000, 4000, 8000, 16000, 32000]);
        assert_eq!(s.transmit_times_ms(), [0, 2000, 6000, 14000, 30000]);
        assert_eq!(s.give_up_ms(), Some(62_000));
    }

    #[test]
    fn an_initial_rto_of_4_s_backs_off_by_1_5_to_4_6_9_13_5_20_25() {
        // Spec §13 vector 3.
        let mut s = script(with_initial(4000));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ns(), [4_000_000_000, 6_000_000_000, 9_000_000_000, 13_500_000_000, 20_250_000_000]);
        assert_eq!(s.give_up_ms(), Some(52_750));
    }

    #[test]
    fn the_per_step_rule_takes_0_5_s_to_0_5_1_5_3_6_9() {
        // Spec §13 vector 3, per-step rule (CoCoA-03 pseudocode): 3 s is still "≤ 3 s" (×2),
        // 6 s is above (×1.5).
        let mut s = script(CocoaConfig { vbf_selection: VbfSelection::PerStep, ..with_initial(500) });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [500, 1500, 3000, 6000, 9000]);
        assert_eq!(s.give_up_ms(), Some(20_000));
    }

    #[test]
    fn the_per_step_rule_takes_2_s_to_2_4_6_9_13_5() {
        let mut s = script(CocoaConfig { vbf_selection: VbfSelection::PerStep, ..Default::default() });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ns(), [2_000_000_000, 4_000_000_000, 6_000_000_000, 9_000_000_000, 13_500_000_000]);
    }

    #[test]
    fn the_per_exchange_factor_is_recorded_with_the_undithered_initial_rto() {
        let mut c = undithered(with_initial(500));
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let ex = c.start(at(0), 0, &mut rng);
        assert_eq!(
            (ex.cc.aux, ex.cc.factor, ex.cc.base, Origin::of(&ex)),
            (ms(500), Ratio::integer(3), ms(500), Origin::Overall)
        );
    }

    // ---- CoCoA+ presets (spec §3, OQ-7) ----

    #[test]
    fn cocoa_plus_backs_off_a_4_s_rto_by_1_3() {
        let mut s = script(CocoaConfig { initial_rto: ms(4000), ..CocoaConfig::plus(Vbf::PAPER) });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ns(), [4_000_000_000, 5_200_000_000, 6_760_000_000, 8_788_000_000, 11_424_400_000]);
        let give_up = s.events.iter().find_map(|e| match e {
            crate::harness::Event::GiveUp { at, .. } => Some(*at),
            _ => None,
        });
        assert_eq!(give_up, Some(Instant::from_nanos(36_172_400_000)));
    }

    #[test]
    fn cocoa_plus_with_makarem_values_backs_off_a_0_5_s_rto_by_2_5() {
        let mut s = script(CocoaConfig { initial_rto: ms(500), ..CocoaConfig::plus(Vbf::MAKAREM) });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ns(), [500_000_000, 1_250_000_000, 3_125_000_000, 7_812_500_000, 19_531_250_000]);
    }

    // ---- §13 vector 4: aging through the controller ----

    #[test]
    fn an_rto_of_4_s_idle_for_16_1_s_arms_the_next_original_with_3_s() {
        // Spec §13 vector 4: idle > 4·RTO with RTO > 3 s → 1 s + RTO/2.
        let cfg = CocoaConfig { max_retransmit: 0, ..with_initial(4000) };
        let mut s = script(cfg);
        s.send(); // first use: the idle clock starts at 0
        s.wait_ms(16_100); // gives up at 4 s, no update
        assert_eq!(s.rto_ms(), Some(3000));
        s.send();
        assert_eq!(s.timers_ms(), [4000, 3000]);
    }

    #[test]
    fn an_rto_of_4_s_idle_for_exactly_16_s_is_not_aged() {
        let cfg = CocoaConfig { max_retransmit: 0, ..with_initial(4000) };
        let mut s = script(cfg);
        s.send();
        s.wait_ms(16_000);
        s.send();
        assert_eq!(s.timers_ms(), [4000, 4000]);
    }

    #[test]
    fn an_rto_of_0_3_s_doubles_after_4_8_s_and_again_after_14_4_s() {
        // Spec §13 vector 4, cumulative (Californium's loop), the idle clock restarting at
        // each step's threshold.
        let cfg = CocoaConfig { max_retransmit: 0, ..with_initial(300) };
        let mut s = script(cfg);
        s.send();
        s.wait_ms(4810);
        s.send(); // 0.3 → 0.6 (step dated 4.8 s)
        s.wait_ms(20_000 - 4810);
        s.send(); // idle since 4.8 s: 15.2 s > 9.6 s → 1.2, dated 14.4 s; stop (≥ 1 s)
        assert_eq!(s.timers_ms(), [300, 600, 1200]);
        assert_eq!(s.state().estimator.last_update(), Some(at(14_400)));
    }

    #[test]
    fn aging_applies_cumulatively_over_one_long_idle_period() {
        let cfg = CocoaConfig { max_retransmit: 0, ..with_initial(300) };
        let mut s = script(cfg);
        s.send();
        s.wait_ms(20_000);
        assert_eq!(s.rto_ms(), Some(1200));
        s.send();
        assert_eq!(s.timers_ms(), [300, 1200]);
    }

    #[test]
    fn contiki_aging_sets_a_small_rto_to_1_s() {
        let cfg = CocoaConfig { max_retransmit: 0, aging: Aging::Contiki, ..with_initial(300) };
        let mut s = script(cfg);
        s.send();
        s.wait_ms(4810);
        s.send();
        assert_eq!(s.timers_ms(), [300, 1000]);
    }

    #[test]
    fn aging_off_keeps_the_rto() {
        let cfg = CocoaConfig { max_retransmit: 0, aging: Aging::Off, ..with_initial(4000) };
        let mut s = script(cfg);
        s.send();
        s.wait_ms(100_000);
        s.send();
        assert_eq!(s.timers_ms(), [4000, 4000]);
    }

    // ---- blind RTO (spec §2.3, OQ-2) ----

    #[test]
    fn with_two_exchanges_running_a_third_gets_a_blind_rto_of_6_s() {
        let mut c = undithered(CocoaConfig::default());
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let timers: [u64; 3] = core::array::from_fn(|n| c.start(at(0), n, &mut rng).timer().as_millis() as u64);
        assert_eq!(timers, [2000, 4000, 6000]);
        assert_eq!(c.rto(at(0)), Some(ms(2000)), "rto() leaves out the blind scaling");
    }

    #[test]
    fn the_exponential_blind_rto_gives_the_third_exchange_8_s() {
        let mut c = undithered(CocoaConfig { blind_rto: BlindRto::Exponential, ..Default::default() });
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let timers: [u64; 3] = core::array::from_fn(|n| c.start(at(0), n, &mut rng).timer().as_millis() as u64);
        assert_eq!(timers, [2000, 4000, 8000]);
    }

    #[test]
    fn the_blind_rto_is_capped_and_its_vbf_comes_from_the_blind_value() {
        let mut c = undithered(CocoaConfig::default());
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let ex = c.start(at(0), 2, &mut rng);
        assert_eq!((ex.cc.factor, Origin::of(&ex)), (Ratio::new(3, 2), Origin::Blind));
        assert_eq!(c.start(at(0), 100, &mut rng).timer(), ms(32_000));
        let mut c = undithered(CocoaConfig { blind_rto: BlindRto::Exponential, ..Default::default() });
        assert_eq!(c.start(at(0), usize::MAX, &mut rng).timer(), ms(32_000));
    }

    #[test]
    fn the_blind_rto_ends_with_the_first_measurement() {
        let mut c = undithered(CocoaConfig::default());
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let ex = c.start(at(0), 0, &mut rng);
        c.on_ack(at(400), &ex, &Ack::AMBIGUOUS);
        assert_eq!(c.start(at(400), 2, &mut rng).timer(), ms(1600));
    }

    #[test]
    fn a_dithered_blind_rto_lies_in_6_to_9_s() {
        let mut c = Bound::new(Cocoa::new(CocoaConfig::default()).unwrap());
        let mut rng = Pcg64Mcg::seed_from_u64(3);
        for _ in 0..200 {
            let t = c.start(at(0), 2, &mut rng).timer();
            assert!(t >= ms(6000) && t < ms(9000), "{t:?}");
        }
    }

    // ---- dithering (spec §2.6, OQ-5) ----

    #[test]
    fn the_original_is_dithered_in_2_to_3_s_and_retransmissions_multiply_the_armed_timer() {
        let mut s = Script::new(Bound::new(Cocoa::new(CocoaConfig::default()).unwrap()));
        for _ in 0..100 {
            s.events.clear();
            s.send();
            s.wait_ms(200_000);
            let t = s.timers_ns();
            assert!((2_000_000_000..3_000_000_000).contains(&t[0]), "{t:?}");
            for k in 1..5 {
                assert_eq!(t[k], (2 * t[k - 1]).min(32_000_000_000), "{t:?}");
            }
        }
    }

    #[test]
    fn the_vbf_comes_from_the_undithered_rto_even_when_the_dithered_timer_crosses_3_s() {
        // RTO 2.9 s dithers into [2.9, 4.35) s; the factor stays 2 (from 2.9 s).
        let mut c = Bound::new(Cocoa::new(with_initial(2900)).unwrap());
        let mut rng = Pcg64Mcg::seed_from_u64(9);
        let mut crossed = false;
        for _ in 0..100 {
            let mut ex = c.start(at(0), 0, &mut rng);
            crossed |= ex.timer() > ms(3000);
            assert_eq!(c.on_timeout(at(0), &mut ex), Retry::Retransmit);
            let first = ex.timer();
            assert_eq!(c.retransmit(at(0), &mut ex, &mut rng), 2 * first);
        }
        assert!(crossed);
    }

    #[test]
    fn redithering_draws_every_timer_around_the_undithered_chain() {
        let mut c = Bound::new(Cocoa::new(CocoaConfig { redither: true, ..Default::default() }).unwrap());
        let mut rng = Pcg64Mcg::seed_from_u64(5);
        for _ in 0..100 {
            let mut ex = c.start(at(0), 0, &mut rng);
            assert_eq!(ex.cc.base, ms(2000));
            let mut chain = ms(2000);
            while c.on_timeout(at(0), &mut ex) == Retry::Retransmit {
                let t = c.retransmit(at(0), &mut ex, &mut rng);
                chain = (2 * chain).min(ms(32_000));
                assert_eq!(ex.cc.base, chain);
                let hi = (chain * 3 / 2).min(ms(32_000));
                assert!(t >= chain && (t < hi || t == ms(32_000)), "{t:?} for {chain:?}");
            }
        }
    }

    #[test]
    fn without_dithering_redither_changes_nothing() {
        let mut s = script(CocoaConfig { redither: true, ..Default::default() });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [2000, 4000, 8000, 16000, 32000]);
    }

    // ---- weak cut-off, strong-only, Contiki weights ----

    #[test]
    fn an_ack_after_three_retransmissions_updates_nothing() {
        // Spec §2.4: n ≥ 3 → no estimator (copies at 0, 2, 6, 14 s; ACK at 14.5 s).
        let mut s = script(CocoaConfig::default());
        s.send();
        s.wait_ms(14_500);
        s.ack();
        assert_eq!(s.rto_ms(), Some(2000));
        assert!(!s.state().estimator.measured);
    }

    #[test]
    fn without_a_cut_off_an_ack_after_three_retransmissions_is_a_weak_sample() {
        // Contiki: R = 14.5 s, E_w = 14.5 + 7.25 = 21.75; RTO = 0.25·21.75 + 0.75·2 = 6.9375 s.
        let mut s = script(CocoaConfig { weak_max_retransmissions: 255, ..Default::default() });
        s.send();
        s.wait_ms(14_500);
        s.ack();
        assert_eq!(s.rto_ns(), Some(6_937_500_000));
    }

    #[test]
    fn the_strong_only_variant_ignores_an_ack_after_a_retransmission() {
        let mut s = script(CocoaConfig::strong());
        s.send();
        s.wait_ms(3000);
        s.ack();
        assert_eq!(s.rto_ms(), Some(2000));
        s.send();
        s.wait_ms(400);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1600));
    }

    #[test]
    fn contiki_weights_put_three_quarters_on_a_first_weak_estimate_of_4_5_s() {
        // 0.75·4.5 + 0.25·2 = 3.875 s; a strong sample keeps 0.5 / 0.5.
        let mut s = script(CocoaConfig { contiki_weights: true, ..Default::default() });
        s.send();
        s.wait_ms(3000);
        s.ack();
        assert_eq!(s.rto_ms(), Some(3875));
    }

    #[test]
    fn an_echoed_copy_does_not_change_where_the_sample_is_measured_from() {
        let mut s = script(CocoaConfig::default());
        s.send();
        s.wait_ms(3000);
        s.ack_copy(1);
        assert_eq!(s.rto_ms(), Some(2625));
    }

    // ---- Full Backoff (spec §4.4–4.6, OQ-8..OQ-12) ----

    #[test]
    fn fb1_carries_the_last_timer_and_ignores_the_weak_update_until_a_clean_exchange() {
        let mut s = script(CocoaConfig::full_backoff(FullBackoff::Fb1));
        s.send();
        s.wait_ms(6500); // copies at 0, 2, 6 s; the timer armed at 6 s is 8 s
        s.ack(); // weak R = 6.5 s: E_w = 9.75; overall = 0.25·9.75 + 0.75·2 = 3.9375 s
        assert_eq!(s.state().estimator.overall, ms(3937) + Duration::from_micros(500));
        assert_eq!(s.state().carry.carried, Some(ms(8000)));
        assert_eq!(s.rto_ms(), Some(8000));
        s.send();
        assert_eq!(last_timer_ms(&s), 8000);
        s.wait_ms(8500); // expires at 14.5 s: 8 s × VBF(8 s) = 12 s (OQ-12)
        s.ack(); // weak again (R = 8.5 s): overall 5.375 s; carry 12 s
        assert_eq!(s.timers_ms()[3..], [8000, 12000]);
        assert_eq!(s.state().estimator.overall, ms(5375));
        assert_eq!(s.rto_ms(), Some(12_000));
        s.send();
        assert_eq!(last_timer_ms(&s), 12_000);
        s.wait_ms(100);
        s.ack(); // clean: strong R = 0.1 s: E_s = 0.3; overall = 0.15 + 2.6875 = 2.8375 s
        assert_eq!(s.state().carry.carried, None);
        assert_eq!(s.rto_ns(), Some(2_837_500_000));
    }

    #[test]
    fn fb2_starts_from_the_updated_overall_rto_when_it_exceeds_the_carried_timer() {
        // RTO 4 s: copies at 0 (4 s) and 4 s (6 s); ACK at 9.9 s: weak R = 9.9 s, E_w = 14.85;
        // overall = 0.25·14.85 + 0.75·4 = 6.7125 s > carried 6 s.
        let cfg = CocoaConfig { initial_rto: ms(4000), ..CocoaConfig::full_backoff(FullBackoff::Fb2) };
        let mut s = script(cfg);
        s.send();
        s.wait_ms(9900);
        s.ack();
        assert_eq!(s.state().carry.carried, Some(ms(6000)));
        assert_eq!(s.rto_ns(), Some(6_712_500_000));
        s.send();
        assert_eq!(*s.timers_ns().last().unwrap(), 6_712_500_000);
        s.wait_ms(100);
        s.ack(); // clean: overall = 0.5·0.3 + 0.5·6.7125 = 3.50625 s; carry ends
        assert_eq!(s.state().carry.carried, None);
        assert_eq!(s.rto_ns(), Some(3_506_250_000));
    }

    #[test]
    fn fb1_uses_the_carried_timer_even_below_the_updated_overall_rto() {
        // Same exchange as above: FB1 ignores the weak update (spec §4.4 drawback).
        let cfg = CocoaConfig { initial_rto: ms(4000), ..CocoaConfig::full_backoff(FullBackoff::Fb1) };
        let mut s = script(cfg);
        s.send();
        s.wait_ms(9900);
        s.ack();
        assert_eq!(s.rto_ms(), Some(6000));
        s.send();
        assert_eq!(last_timer_ms(&s), 6000);
    }

    #[test]
    fn fb2_uses_the_carried_timer_when_it_exceeds_the_overall_rto() {
        let mut s = script(CocoaConfig::full_backoff(FullBackoff::Fb2));
        s.send();
        s.wait_ms(6500);
        s.ack(); // overall 3.9375 s < carried 8 s
        assert_eq!(s.rto_ms(), Some(8000));
        s.send();
        assert_eq!(last_timer_ms(&s), 8000);
    }

    #[test]
    fn a_failed_exchange_under_full_backoff_carries_its_last_capped_timer() {
        // Spec OQ-9: give-up at 62 s carries 32 s; the next exchange starts with it.
        for fb in [FullBackoff::Fb1, FullBackoff::Fb2] {
            let mut s = script(CocoaConfig::full_backoff(fb));
            s.send();
            s.wait_ms(62_000);
            assert_eq!(s.give_up_ms(), Some(62_000));
            assert_eq!(s.rto_ms(), Some(32_000));
            s.send();
            assert_eq!(last_timer_ms(&s), 32_000);
            s.wait_ms(1000);
            s.ack(); // clean: strong R = 1 s, E_s = 3 s; overall = 1.5 + 1 = 2.5 s
            assert_eq!(s.rto_ms(), Some(2500));
        }
    }

    #[test]
    fn a_carried_timer_is_not_redithered_and_its_vbf_comes_from_the_carried_value() {
        // Spec OQ-11, OQ-12.
        let mut c = Bound::new(Cocoa::new(CocoaConfig::full_backoff(FullBackoff::Fb1)).unwrap());
        c.set_state(CocoaState { carry: Carry { carried: Some(ms(2500)).into() }, ..c.state() });
        let mut rng = Pcg64Mcg::seed_from_u64(2);
        for i in 0..20 {
            let t0 = i * 10_000;
            let mut ex = c.start(at(t0), 0, &mut rng);
            assert_eq!((ex.timer(), ex.cc.factor, Origin::of(&ex)), (ms(2500), Ratio::integer(2), Origin::Carried));
            c.on_timeout(at(t0 + 2500), &mut ex);
            assert_eq!(c.retransmit(at(t0 + 2500), &mut ex, &mut rng), ms(5000));
            c.on_ack(at(t0 + 2600), &ex, &Ack::AMBIGUOUS);
            c.set_state(CocoaState { carry: Carry { carried: Some(ms(2500)).into() }, ..c.state() });
        }
    }

    #[test]
    fn without_full_backoff_nothing_is_carried() {
        let mut s = script(CocoaConfig::default());
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.state().carry.carried, None);
        s.send();
        assert_eq!(last_timer_ms(&s), 2000);
    }

    // ---- cap (spec OQ-4) ----

    #[test]
    fn a_smaller_cap_truncates_every_timer() {
        let mut s = script(CocoaConfig { cap: ms(10_000), ..Default::default() });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [2000, 4000, 8000, 10_000, 10_000]);
    }

    #[test]
    fn an_initial_rto_above_the_cap_arms_the_cap() {
        let mut s = script(with_initial(40_000));
        s.send();
        assert_eq!(s.timers_ms(), [32_000]);
        assert_eq!(s.state().estimator.overall, ms(32_000));
    }

    #[test]
    fn a_dithered_timer_near_the_cap_is_capped() {
        let mut c = Bound::new(Cocoa::new(with_initial(30_000)).unwrap());
        let mut rng = Pcg64Mcg::seed_from_u64(4);
        for _ in 0..100 {
            let t = c.start(at(0), 0, &mut rng).timer();
            assert!(t >= ms(30_000) && t <= ms(32_000), "{t:?}");
        }
    }

    // ---- give-up and bounds ----

    #[test]
    fn on_timeout_gives_up_exactly_after_max_retransmit_retransmissions() {
        for max in [0u8, 1, 4, 7] {
            let mut c = undithered(CocoaConfig { max_retransmit: max, ..Default::default() });
            let mut rng = Pcg64Mcg::seed_from_u64(1);
            let mut ex = c.start(at(0), 0, &mut rng);
            let mut n = 0;
            while c.on_timeout(at(0), &mut ex) == Retry::Retransmit {
                c.retransmit(at(0), &mut ex, &mut rng);
                n += 1;
            }
            assert_eq!((n, ex.retransmissions()), (max, max));
        }
    }

    #[test]
    fn timer_bounds_span_the_granularity_floor_to_the_cap() {
        let c = Bound::new(Cocoa::new(CocoaConfig::default()).unwrap());
        assert_eq!(c.timer_bounds(), TimerBounds { min: ms(1), max: ms(32_000) });
        let c = Bound::new(
            Cocoa::new(CocoaConfig { granularity: ms(100), cap: ms(60_000), ..Default::default() }).unwrap(),
        );
        assert_eq!(c.timer_bounds(), TimerBounds { min: ms(100), max: ms(60_000) });
    }

    #[test]
    fn zero_rtts_drive_the_rto_down_to_the_granularity_and_no_further() {
        let mut c = undithered(CocoaConfig::default());
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        for i in 0..200 {
            let ex = c.start(at(i), 0, &mut rng);
            assert!(ex.timer() >= c.timer_bounds().min);
            c.on_ack(at(i), &ex, &Ack::AMBIGUOUS);
        }
        // E_s = SRTT + max(G, 4·RTTVAR) → G; rounding half up leaves a nanosecond or two.
        let rto = c.rto(at(200)).unwrap();
        assert!(rto >= ms(1) && rto <= ms(1) + Duration::from_nanos(2), "{rto:?}");
    }

    #[test]
    fn a_state_outside_the_bounds_still_arms_timers_within_them() {
        let mut c = Bound::new(
            Cocoa::new(CocoaConfig { full_backoff: FullBackoff::Fb2, redither: true, ..Default::default() }).unwrap(),
        );
        let mut st = c.state();
        st.estimator.overall = Duration::ZERO.into();
        st.carry.carried = Some(Duration::MAX).into();
        c.set_state(st);
        let b = c.timer_bounds();
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut ex = c.start(at(0), 3, &mut rng);
        assert_eq!(ex.timer(), b.max);
        c.on_timeout(at(0), &mut ex);
        assert_eq!(c.retransmit(at(0), &mut ex, &mut rng), b.max);
        st.carry.carried = None.into();
        st.estimator.measured = true;
        c.set_state(st);
        let ex = c.start(at(0), 0, &mut rng);
        assert!(ex.timer() >= b.min && ex.timer() <= b.max);
    }

    #[test]
    fn a_clock_ten_days_ahead_and_a_huge_rtt_neither_panic_nor_leave_the_bounds() {
        for cfg in [
            CocoaConfig::default(),
            CocoaConfig::full_backoff(FullBackoff::Fb2),
            CocoaConfig { aging: Aging::Contiki, ..CocoaConfig::plus(Vbf::MAKAREM) },
        ] {
            let mut c = Bound::new(Cocoa::new(CocoaConfig { cap: ms(500), ..cfg }).unwrap());
            let b = c.timer_bounds();
            let mut rng = Pcg64Mcg::seed_from_u64(1);
            let far = at(10 * 86_400_000);
            let mut ex = c.start(at(0), 0, &mut rng);
            c.on_ack(far, &ex, &Ack::AMBIGUOUS);
            ex = c.start(Instant::MAX, usize::MAX, &mut rng);
            assert!(ex.timer() >= b.min && ex.timer() <= b.max);
            c.on_ack(Instant::MAX, &ex, &Ack::AMBIGUOUS);
            assert!(c.rto(Instant::MAX).is_some_and(|r| r >= b.min && r <= b.max));
        }
    }

    proptest::proptest! {
        #[test]
        fn random_configurations_and_events_keep_timers_in_bounds_and_give_up_on_time(
            dither in proptest::bool::ANY,
            redither in proptest::bool::ANY,
            per_step in proptest::bool::ANY,
            exponential in proptest::bool::ANY,
            fb in 0u8..3,
            aging in 0u8..3,
            vbf in 0u8..3,
            max_retransmit in 0u8..8,
            initial_ms in 1u64..40_000,
            cap_ms in 1u64..70_000,
            g_ms in 0u64..200,
            seed in proptest::num::u64::ANY,
            // (other exchanges in flight, ACK delay after the original in ms or none, idle gap in ms)
            exchanges in proptest::collection::vec((0usize..6, proptest::option::of(0u64..200_000), 0u64..(10 * 86_400_000)), 1..30),
        ) {
            let cfg = CocoaConfig {
                initial_rto: ms(initial_ms),
                cap: ms(cap_ms),
                granularity: ms(g_ms),
                max_retransmit,
                dither,
                redither,
                vbf_selection: if per_step { VbfSelection::PerStep } else { VbfSelection::PerExchange },
                blind_rto: if exponential { BlindRto::Exponential } else { BlindRto::Linear },
                full_backoff: [FullBackoff::Off, FullBackoff::Fb1, FullBackoff::Fb2][fb as usize],
                aging: [Aging::Off, Aging::Draft, Aging::Contiki][aging as usize],
                vbf: [Vbf::DRAFT, Vbf::PAPER, Vbf::MAKAREM][vbf as usize],
                ..Default::default()
            };
            let mut c = Bound::new(Cocoa::new(cfg).unwrap());
            let b = c.timer_bounds();
            let mut rng = Pcg64Mcg::seed_from_u64(seed);
            let mut now = Instant::ZERO;
            for (in_flight, ack, idle) in exchanges {
                let mut ex = c.start(now, in_flight, &mut rng);
                proptest::prop_assert!(ex.timer() >= b.min && ex.timer() <= b.max, "{:?} not in {:?}", ex.timer(), b);
                let ack_at = ack.map(|d| now + ms(d));
                loop {
                    if let Some(t) = ack_at.filter(|t| *t < ex.deadline()) {
                        now = t;
                        c.on_ack(now, &ex, &Ack::AMBIGUOUS);
                        break;
                    }
                    now = ex.deadline();
                    if c.on_timeout(now, &mut ex) == Retry::GiveUp {
                        proptest::prop_assert_eq!(ex.retransmissions(), max_retransmit);
                        break;
                    }
                    proptest::prop_assert!(ex.retransmissions() < max_retransmit);
                    let t = c.retransmit(now, &mut ex, &mut rng);
                    proptest::prop_assert!(t >= b.min && t <= b.max, "{:?} not in {:?}", t, b);
                }
                let rto = c.rto(now).unwrap();
                proptest::prop_assert!(rto >= b.min && rto <= b.max);
                now = now + ms(idle);
            }
        }
    }

    // ---- configuration ----

    #[test]
    fn presets_differ_from_the_default_only_where_named() {
        let d = CocoaConfig::default();
        assert_eq!(CocoaConfig::strong(), CocoaConfig { weak: false, ..d });
        assert_eq!(CocoaConfig::full_backoff(FullBackoff::Fb2), CocoaConfig { full_backoff: FullBackoff::Fb2, ..d });
        assert_eq!(CocoaConfig::plus(Vbf::PAPER), CocoaConfig { vbf: Vbf::PAPER, ..d });
        assert_eq!((d.initial_rto, d.cap, d.granularity, d.max_retransmit), (ms(2000), ms(32_000), ms(1), 4));
    }

    #[test]
    fn invalid_keys_are_rejected_by_name() {
        let bad = |c: CocoaConfig| Cocoa::new(c).unwrap_err().key;
        let d = CocoaConfig::default();
        assert_eq!(bad(CocoaConfig { initial_rto: Duration::ZERO, ..d }), "initial_rto_ms");
        assert_eq!(bad(CocoaConfig { ack_random_factor: Ratio::new(9, 10), ..d }), "ack_random_factor");
        assert_eq!(bad(CocoaConfig { cap: Duration::ZERO, ..d }), "cap_ms");
        assert_eq!(bad(CocoaConfig { vbf: Vbf { above: Ratio::new(1, 2), ..Vbf::DRAFT }, ..d }), "vbf");
        assert_eq!(bad(CocoaConfig { vbf: Vbf { lower: ms(4000), ..Vbf::DRAFT }, ..d }), "vbf");
        assert_eq!(bad(CocoaConfig { w_strong: Ratio::new(3, 2), ..d }), "w_strong");
        assert_eq!(bad(CocoaConfig { w_weak: Ratio::integer(2), ..d }), "w_weak");
    }

    #[test]
    fn cocoas_state_two_rfc_6298_estimators_overall_rto_aging_time_carry_fits_64_bytes() {
        // The per-destination footprint (README algorithm table); the configuration is not in it.
        let bytes = core::mem::size_of::<<Cocoa as Controller>::State>();
        assert!(bytes <= 64, "{bytes} bytes");
    }
}
