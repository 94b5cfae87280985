//! CoCoA 4-state-strong (Bhalerao, Subramanian, Pasquale, CCNC 2016): a **RECONSTRUCTION**;
//! spec §6, OQ-19, OQ-20.
//!
//! **The paper was not available and no public code exists.** This controller is rebuilt from
//! secondary descriptions (the paper's abstract, Lim \[S4\] §2.2, Makarem \[S1\] §3.1 and §6.2.1).
//! **Every number in its VBF and weight tables is a PLACEHOLDER (spec OQ-19)**: only the pair
//! 1.7 / 2.5 for RTO_init < 1 s is grounded (Makarem observed 4-state using a factor of 1.7
//! about half of the time and 2.5 most of the rest at RTT ≈ 0.5 s); all other entries are
//! guesses. Results obtained with it describe this reconstruction, not the published
//! algorithm, and must be reported as such.
//!
//! What is known and implemented:
//!
//! * **Strong**: every ACK yields a sample, measured from the echoed copy when the ACK names
//!   one, else from the **latest** transmission; all samples feed one RFC 6298 estimator
//!   (K = 4), whose estimate E is folded into the RTO: `RTO ← w[s]·E + (1 − w[s])·RTO`.
//! * **4-state**: a state `s ∈ 1..=4`, kept per destination endpoint and starting at 1
//!   (spec OQ-20); each retransmission moves it up (at most 4), each ACK down (at least 1).
//!   The state selects the backoff factor, `T ← T × VBF[s][range(RTO_init)]` with RTO_init
//!   the undithered RTO the exchange started with (ranges < 1 s, 1–3 s, > 3 s), and the
//!   weight `w[s]` of an ACK's estimate.
//!
//! Choices (each also listed in `docs/deviations.md`):
//!
//! * **Which s selects** ([`StateOrder`]): by default the endpoint's current s at the event
//!   selects the factor (at each timeout) or the weight (at the ACK), and then the event moves
//!   s. The spec's template lists the move first; read literally, `VBF[1]` and `w[4]` could never
//!   be used (s ≥ 2 after any increment, ≤ 3 after any decrement), which contradicts the one
//!   grounded observation (1.7 = `VBF[1]` used half of the time). `move-then-select` is the
//!   literal order.
//! * **What moves s**: retransmissions only (spec OQ-20 template); the original transmission
//!   and a give-up (the final timeout, after which nothing is sent) leave it unchanged.
//! * **Timers**: initial RTO 2 s; the initial timer is dithered in `[RTO, 1.5·RTO)`;
//!   retransmission timers multiply the previous armed timer (CoCoA pattern, spec OQ-5);
//!   every armed timer and the RTO estimate are capped at 32 s (spec OQ-4);
//!   MAX_RETRANSMIT 4; no aging, no blind RTO (not described).
//! * The estimator has no granularity term by default (`granularity_ms = 0`).
//!
//! [`FourState`] is the algorithm (the checked configuration), shared by every destination;
//! [`FourStateState`] is what one destination keeps; per exchange ([`FourStateExchange`]):
//! `aux` = the undithered RTO at the original transmission (selects the VBF range),
//! `factor` = the factor chosen at the latest timeout, `base` = the timer armed for the
//! latest copy.

use core::time::Duration;

use crate::config::ConfigError;
use crate::controller::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
use crate::estimators::rfc6298::{Rfc6298, Rfc6298Params};
use crate::params::{ACK_RANDOM_FACTOR, MAX_RETRANSMIT};
use crate::random::{Rng, dither_factor};
use crate::ratio::Ratio;
use crate::time::Instant;

/// Initial RTO, 2 s (CoCoA's; spec §6).
pub const INITIAL_RTO: Duration = Duration::from_secs(2);
/// Ceiling on every armed timer and on the RTO, 32 s (CoCoA's; spec OQ-4).
pub const MAX_RTO: Duration = Duration::from_secs(32);
/// Number of states.
pub const STATES: u8 = 4;
/// PLACEHOLDER (spec OQ-19) `VBF[s]` for RTO_init < 1 s, s = 1..4. Only 1.7 and 2.5 are
/// grounded (Makarem \[S1\] §6.2.1); 3 and 3 are guesses.
pub const VBF_BELOW: [Ratio; 4] = [Ratio::new(17, 10), Ratio::new(5, 2), Ratio::integer(3), Ratio::integer(3)];
/// PLACEHOLDER (spec OQ-19) `VBF[s]` for 1 s ≤ RTO_init ≤ 3 s: guesses.
pub const VBF_BETWEEN: [Ratio; 4] = [Ratio::new(3, 2), Ratio::integer(2), Ratio::integer(2), Ratio::integer(2)];
/// PLACEHOLDER (spec OQ-19) `VBF[s]` for RTO_init > 3 s: guesses.
pub const VBF_ABOVE: [Ratio; 4] = [Ratio::new(13, 10), Ratio::new(3, 2), Ratio::new(3, 2), Ratio::new(3, 2)];
/// PLACEHOLDER (spec OQ-19) weight `w[s]` of the estimate in the RTO update: guesses.
pub const WEIGHTS: [Ratio; 4] = [Ratio::new(1, 2), Ratio::new(3, 8), Ratio::new(1, 4), Ratio::new(1, 8)];

/// Which value of s selects the factor at a timeout and the weight at an ACK.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum StateOrder {
    /// The current s selects, then the event moves s (every table entry is reachable).
    #[default]
    SelectThenMove,
    /// The event moves s, then the new s selects (the spec template's literal order; `VBF[1]`
    /// and `w[4]` are then never used).
    MoveThenSelect,
}

/// Configuration of CoCoA 4-state-strong, a RECONSTRUCTION (spec §6). **The VBF rows and the
/// weights are PLACEHOLDERS (spec OQ-19)**: only 1.7 and 2.5 (RTO_init < 1 s, states 1–2)
/// rest on an observation; every other entry is a guess awaiting the paper.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct FourStateConfig {
    /// The RTO before any sample (2 s).
    #[cfg_attr(feature = "serde", serde(rename = "initial_rto_ms", with = "crate::config::serde_ms"))]
    pub initial_rto: Duration,
    /// PLACEHOLDER `VBF[s]`, s = 1..4, for RTO_init < `vbf_lower` ({1.7, 2.5, 3, 3}; only 1.7
    /// and 2.5 grounded).
    pub vbf_below: [Ratio; 4],
    /// PLACEHOLDER `VBF[s]` for `vbf_lower` ≤ RTO_init ≤ `vbf_upper` ({1.5, 2, 2, 2}; guesses).
    pub vbf_between: [Ratio; 4],
    /// PLACEHOLDER `VBF[s]` for RTO_init > `vbf_upper` ({1.3, 1.5, 1.5, 1.5}; guesses).
    pub vbf_above: [Ratio; 4],
    /// Lower VBF threshold (1 s).
    #[cfg_attr(feature = "serde", serde(rename = "vbf_lower_ms", with = "crate::config::serde_ms"))]
    pub vbf_lower: Duration,
    /// Upper VBF threshold (3 s).
    #[cfg_attr(feature = "serde", serde(rename = "vbf_upper_ms", with = "crate::config::serde_ms"))]
    pub vbf_upper: Duration,
    /// PLACEHOLDER weights `w[s]` of the estimate in `RTO ← w·E + (1 − w)·RTO`
    /// ({0.5, 0.375, 0.25, 0.125}; guesses).
    pub weights: [Ratio; 4],
    /// Which s selects factor and weight (`select-then-move`).
    pub state_order: StateOrder,
    /// Clock granularity G of the estimator: E = SRTT + max(G, 4·RTTVAR) (0).
    #[cfg_attr(feature = "serde", serde(rename = "granularity_ms", with = "crate::config::serde_ms"))]
    pub granularity: Duration,
    /// Dithering factor: the initial timer is drawn from [RTO, RTO × this) (1.5).
    pub ack_random_factor: Ratio,
    /// Ceiling on every armed timer and on the RTO (32 s).
    #[cfg_attr(feature = "serde", serde(rename = "cap_ms", with = "crate::config::serde_ms"))]
    pub cap: Duration,
    /// MAX_RETRANSMIT (4).
    pub max_retransmit: u8,
    /// Dither the initial timer. Off: the timer is the RTO.
    pub dither: bool,
}

impl Default for FourStateConfig {
    fn default() -> Self {
        FourStateConfig {
            initial_rto: INITIAL_RTO,
            vbf_below: VBF_BELOW,
            vbf_between: VBF_BETWEEN,
            vbf_above: VBF_ABOVE,
            vbf_lower: Duration::from_secs(1),
            vbf_upper: Duration::from_secs(3),
            weights: WEIGHTS,
            state_order: StateOrder::SelectThenMove,
            granularity: Duration::ZERO,
            ack_random_factor: ACK_RANDOM_FACTOR,
            cap: MAX_RTO,
            max_retransmit: MAX_RETRANSMIT,
            dither: true,
        }
    }
}

/// The state of one 4-state-strong endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FourStateState {
    /// The state s, 1 ..= 4 (1: no recent loss).
    pub s: u8,
    /// The RFC 6298 estimator (SRTT, RTTVAR) fed by every sample.
    pub estimator: Rfc6298,
    /// The RTO that arms original transmissions (undithered).
    pub rto: Duration,
}

/// The entry of a 4-entry row for state `s` (clamped to 1..=4).
fn entry(row: &[Ratio; 4], s: u8) -> Ratio {
    let [a, b, c, d] = *row;
    match s {
        0 | 1 => a,
        2 => b,
        3 => c,
        _ => d,
    }
}

/// CoCoA 4-state-strong (reconstructed), the algorithm: the checked configuration, shared
/// by every destination ([`FourStateState`] is per destination).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FourState {
    config: FourStateConfig,
}

/// What CoCoA 4-state-strong keeps per exchange (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FourStateExchange {
    /// The timer armed for the latest copy.
    pub base: Duration,
    /// The undithered RTO at the original transmission.
    pub aux: Duration,
    /// The factor chosen at the latest timeout.
    pub factor: Ratio,
}

impl FourState {
    /// Checks every key of the configuration and builds the controller.
    pub fn new(config: FourStateConfig) -> Result<Self, ConfigError> {
        if config.cap.is_zero() {
            return Err(ConfigError::new("cap_ms", "must be greater than 0"));
        }
        if config.initial_rto.is_zero() {
            return Err(ConfigError::new("initial_rto_ms", "must be greater than 0"));
        }
        if config.initial_rto > config.cap {
            return Err(ConfigError::new("initial_rto_ms", "must not exceed cap_ms"));
        }
        let at_least_one = |row: &[Ratio; 4]| row.iter().all(|f| *f >= Ratio::ONE);
        if !at_least_one(&config.vbf_below) {
            return Err(ConfigError::new("vbf_below", "every backoff factor must be at least 1"));
        }
        if !at_least_one(&config.vbf_between) {
            return Err(ConfigError::new("vbf_between", "every backoff factor must be at least 1"));
        }
        if !at_least_one(&config.vbf_above) {
            return Err(ConfigError::new("vbf_above", "every backoff factor must be at least 1"));
        }
        if config.vbf_lower > config.vbf_upper {
            return Err(ConfigError::new("vbf_lower_ms", "must not exceed vbf_upper_ms"));
        }
        if config.weights.iter().any(|w| *w > Ratio::ONE) {
            return Err(ConfigError::new("weights", "every weight must be between 0 and 1"));
        }
        if config.ack_random_factor < Ratio::ONE {
            return Err(ConfigError::new("ack_random_factor", "must be at least 1"));
        }
        Ok(FourState { config })
    }

    /// The configuration.
    pub fn config(&self) -> &FourStateConfig {
        &self.config
    }

    fn params(&self) -> Rfc6298Params {
        // Spec §6: one RFC 6298 estimator with K = 4.
        Rfc6298Params::new(crate::estimators::rfc6298::K, self.config.granularity)
    }

    /// `VBF[s][range(rto_init)]` (spec §6, OQ-19 placeholder tables).
    pub fn factor(&self, s: u8, rto_init: Duration) -> Ratio {
        let c = &self.config;
        let row = if rto_init < c.vbf_lower {
            &c.vbf_below
        } else if rto_init <= c.vbf_upper {
            &c.vbf_between
        } else {
            &c.vbf_above
        };
        entry(row, s)
    }

    /// The weight `w[s]` (spec §6, OQ-19 placeholder table).
    pub fn weight(&self, s: u8) -> Ratio {
        entry(&self.config.weights, s)
    }

    /// Folds in the RTT sample `r` with weight `w`: estimator update, then
    /// `RTO ← w·E + (1 − w)·RTO`, capped.
    fn fold(&self, st: &mut FourStateState, r: Duration, w: Ratio) {
        let p = self.params();
        st.estimator.sample(r, &p);
        let e = st.estimator.rto(&p).unwrap_or(r);
        st.rto = w.blend(e, st.rto).min(self.config.cap);
    }
}

impl FourStateConfig {
    /// The echo this algorithm needs: none. Without one, 4-state-strong measures RTTs from the
    /// latest transmission (spec §6); an echo is used when a driver supplies one.
    pub fn echo_mode(&self) -> EchoMode {
        EchoMode::None
    }
}

impl Controller for FourState {
    type State = FourStateState;
    type ExchangeState = FourStateExchange;

    fn new_state(&self) -> FourStateState {
        FourStateState { s: 1, estimator: Rfc6298::new(), rto: self.config.initial_rto }
    }

    fn on_transmit(
        &self,
        st: &mut FourStateState,
        _now: Instant,
        ex: &mut Exchange<FourStateExchange>,
        _in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Duration {
        let timer = if ex.retransmissions() == 0 {
            let rto = st.rto.min(self.config.cap);
            // Spec §6: the VBF range is chosen from the RTO the exchange started with.
            ex.cc.aux = rto;
            if self.config.dither { dither_factor(rng, rto, self.config.ack_random_factor) } else { rto }
        } else {
            // Spec §6: T ← T × VBF[s][range(RTO_init)], the factor chosen at the timeout.
            ex.cc.factor.mul_duration(ex.cc.base)
        };
        // Spec OQ-4: every armed timer is capped.
        let timer = timer.min(self.config.cap);
        ex.cc.base = timer;
        timer
    }

    fn on_timeout(&self, st: &mut FourStateState, _now: Instant, ex: &mut Exchange<FourStateExchange>) -> Retry {
        if ex.retransmissions() >= self.config.max_retransmit {
            // No copy follows: s is not moved (retransmissions move it, spec OQ-20 template).
            return Retry::GiveUp;
        }
        let before = st.s.clamp(1, STATES);
        // Spec §6, OQ-20: each retransmission moves s up, at most 4.
        let after = before.saturating_add(1).min(STATES);
        let s = match self.config.state_order {
            StateOrder::SelectThenMove => before,
            StateOrder::MoveThenSelect => after,
        };
        ex.cc.factor = self.factor(s, ex.cc.aux);
        st.s = after;
        Retry::Retransmit
    }

    fn on_ack(&self, st: &mut FourStateState, now: Instant, ex: &Exchange<FourStateExchange>, ack: &Ack) {
        let before = st.s.clamp(1, STATES);
        // Spec §6: each ACK moves s down, at least 1.
        let after = before.saturating_sub(1).max(1);
        let s = match self.config.state_order {
            StateOrder::SelectThenMove => before,
            StateOrder::MoveThenSelect => after,
        };
        st.s = after;
        // Spec §6 "strong": from the echoed copy if named, else from the latest transmission.
        let sent = ack.echo.map_or(ex.last_sent(), |e| e.sent);
        self.fold(st, now.saturating_duration_since(sent), self.weight(s));
    }

    fn rto(&self, st: &FourStateState, _now: Instant) -> Option<Duration> {
        Some(st.rto.min(self.config.cap))
    }

    fn timer_bounds(&self) -> TimerBounds {
        // E ≥ G and the RTO starts at initial_rto, so every blend stays ≥ min(G, initial_rto).
        let min = self.config.granularity.min(self.config.initial_rto).min(self.config.cap);
        TimerBounds { min, max: self.config.cap }
    }

    fn echo_mode(&self) -> EchoMode {
        self.config.echo_mode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::Echo;
    #[allow(unused_imports)]
    use crate::harness::testing::Bound;
    use crate::harness::testing::Script;
    use crate::harness::testing::{at, ms};
    use rand_core::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    fn undithered(config: FourStateConfig) -> Bound<FourState> {
        Bound::new(FourState::new(FourStateConfig { dither: false, ..config }).unwrap())
    }

    fn script(config: FourStateConfig) -> Script<FourState> {
        Script::new(undithered(config))
    }

    fn fresh() -> Script<FourState> {
        script(FourStateConfig::default())
    }

    fn s_of(s: &Script<FourState>) -> u8 {
        s.state().s
    }

    #[test]
    fn a_fresh_endpoint_is_in_state_1_with_an_rto_of_2_s() {
        let s = fresh();
        assert_eq!(s_of(&s), 1);
        assert_eq!(s.rto_ms(), Some(2000));
    }

    #[test]
    fn a_clean_first_sample_of_400_ms_in_state_1_gives_1_6_s() {
        // E = 400 + 4·200 = 1200; RTO = 0.5·1200 + 0.5·2000 = 1600; s stays 1.
        let mut s = fresh();
        s.send();
        s.wait_ms(400);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1600));
        assert_eq!(s_of(&s), 1);
    }

    #[test]
    fn an_unanswered_exchange_from_2_s_walks_the_states_and_gives_up_at_47_s() {
        // Row 1–3 s {1.5, 2, 2, 2}, factor of the state at each timeout: 2000, 3000 (s 1→2),
        // 6000 (2→3), 12000 (3→4), 24000 (4→4); copies at 0, 2, 5, 11, 23 s; give up at 47 s.
        let mut s = fresh();
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [2000, 3000, 6000, 12000, 24000]);
        assert_eq!(s.transmit_times_ms(), [0, 2000, 5000, 11000, 23000]);
        assert_eq!(s.give_up_ms(), Some(47_000));
        assert_eq!(s_of(&s), 4);
    }

    #[test]
    fn below_1_s_the_grounded_factors_1_7_and_2_5_come_first() {
        // Row < 1 s {1.7, 2.5, 3, 3}: 500, 850, 2125, 6375, 19125; give up at 28975 ms.
        let mut s = script(FourStateConfig { initial_rto: ms(500), ..Default::default() });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [500, 850, 2125, 6375, 19125]);
        assert_eq!(s.transmit_times_ms(), [0, 500, 1350, 3475, 9850]);
        assert_eq!(s.give_up_ms(), Some(28_975));
    }

    #[test]
    fn above_3_s_the_factors_are_1_3_then_1_5() {
        // Row > 3 s {1.3, 1.5, 1.5, 1.5}: 4000, 5200, 7800, 11700, 17550; give up at 46250 ms.
        let mut s = script(FourStateConfig { initial_rto: ms(4000), ..Default::default() });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [4000, 5200, 7800, 11700, 17550]);
        assert_eq!(s.give_up_ms(), Some(46_250));
    }

    #[test]
    fn the_range_is_chosen_from_the_rto_at_the_original_transmission() {
        // From 0.9 s the backed-off timers pass 1 s and 3 s but the < 1 s row is kept.
        let mut s = script(FourStateConfig { initial_rto: ms(900), ..Default::default() });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [900, 1530, 3825, 11475, 32000]);
    }

    #[test]
    fn the_state_persists_across_exchanges_and_each_ack_moves_it_down_once() {
        let mut s = fresh();
        s.send();
        s.wait_ms(100_000); // gives up in state 4
        s.send();
        // State 4 at every timeout: factor 2 each time; 2000, 4000, 8000, 16000, 32000.
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms()[5..], [2000, 4000, 8000, 16000, 32000]);
        assert_eq!(s_of(&s), 4);
        for expected in [3, 2, 1, 1] {
            s.send();
            s.wait_ms(100);
            s.ack();
            assert_eq!(s_of(&s), expected);
        }
    }

    #[test]
    fn an_ack_in_state_4_uses_the_weight_of_state_4() {
        // After a give-up (s = 4), a clean ACK of 500 ms: E = 500 + 4·250 = 1500;
        // RTO = 0.125·1500 + 0.875·2000 = 1937.5; s → 3.
        let mut s = fresh();
        s.send();
        s.wait_ms(100_000);
        s.send();
        s.wait_ms(500);
        s.ack();
        assert_eq!(s.rto_ns(), Some(1_937_500_000));
        assert_eq!(s_of(&s), 3);
    }

    #[test]
    fn clean_acks_walk_the_state_down_from_4_with_weights_0_125_to_0_5() {
        // Replay four-state-state-walk: after a give-up (s = 4), clean 500 ms samples.
        let mut s = fresh();
        s.send();
        s.wait_ms(100_000);
        let mut rtos = [0u64; 4];
        for r in rtos.iter_mut() {
            s.send();
            s.wait_ms(500);
            s.ack();
            *r = s.rto_ns().unwrap();
        }
        // w[4]: 0.125·1500 + 0.875·2000; w[3]: 0.25·1250 + 0.75·1937.5;
        // w[2]: 0.375·1062.5 + 0.625·1765.625; w[1]: 0.5·921.875 + 0.5·1501.953125 (half up).
        assert_eq!(rtos, [1_937_500_000, 1_765_625_000, 1_501_953_125, 1_211_914_063]);
        assert_eq!(s_of(&s), 1);
    }

    #[test]
    fn an_ack_after_one_retransmission_samples_the_latest_copy_with_the_weight_of_state_2() {
        // Copies at 0 and 2000 (timer 3000, s = 2); ACK at 2400 without echo: R = 400,
        // E = 1200; RTO = 0.375·1200 + 0.625·2000 = 1700; s → 1.
        let mut s = fresh();
        s.send();
        s.wait_ms(2400);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1700));
        assert_eq!(s_of(&s), 1);
    }

    #[test]
    fn an_echo_of_the_original_is_measured_from_the_original() {
        // ACK at 2400 echoing copy 0: R = 2400, E = 2400 + 4·1200 = 7200;
        // RTO = 0.375·7200 + 0.625·2000 = 3950.
        let mut s = fresh();
        s.send();
        s.wait_ms(2400);
        s.ack_copy(0);
        assert_eq!(s.rto_ms(), Some(3950));
    }

    #[test]
    fn an_echo_of_the_latest_copy_equals_the_fallback() {
        let mut s = fresh();
        s.send();
        s.wait_ms(2400);
        s.ack_copy(1);
        assert_eq!(s.rto_ms(), Some(1700));
    }

    #[test]
    fn move_then_select_uses_the_moved_state() {
        // Timeout: s 1→2, factor VBF[2] = 2 → 4000. ACK at 2400 (R = 400): s 2→1, w[1] = 0.5 →
        // RTO = 0.5·1200 + 0.5·2000 = 1600.
        let mut s = script(FourStateConfig { state_order: StateOrder::MoveThenSelect, ..Default::default() });
        s.send();
        s.wait_ms(2400);
        assert_eq!(s.timers_ms(), [2000, 4000]);
        s.ack();
        assert_eq!(s.rto_ms(), Some(1600));
    }

    #[test]
    fn a_second_sample_updates_the_rfc_6298_estimator_then_blends() {
        // Estimator SRTT 1000, RTTVAR 100, RTO 2000, s = 1; clean ACK after 1800 ms:
        // RTTVAR = 75 + 200 = 275, SRTT = 1100, E = 2200; RTO = 0.5·2200 + 0.5·2000 = 2100.
        let mut s = fresh();
        s.set_state(FourStateState { s: 1, estimator: Rfc6298::with(ms(1000), ms(100)), rto: ms(2000) });
        s.send();
        s.wait_ms(1800);
        s.ack();
        assert_eq!(s.rto_ms(), Some(2100));
    }

    #[test]
    fn the_cap_bounds_timers_and_the_rto() {
        let mut s = script(FourStateConfig { cap: ms(10_000), ..Default::default() });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.timers_ms(), [2000, 3000, 6000, 10000, 10000]);
        let mut p = undithered(FourStateConfig::default());
        let mut rng = <rand_pcg::Pcg64Mcg as rand_core::SeedableRng>::seed_from_u64(3);
        let ex = p.start(at(0), 0, &mut rng);
        p.on_ack(at(100_000), &ex, &Ack::AMBIGUOUS);
        assert_eq!(p.rto(at(100_000)), Some(MAX_RTO));
    }

    #[test]
    fn it_gives_up_after_max_retransmit_retransmissions() {
        let mut s = script(FourStateConfig { max_retransmit: 1, ..Default::default() });
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.transmit_times_ms(), [0, 2000]);
        assert_eq!(s.give_up_ms(), Some(5000));
        assert_eq!(s_of(&s), 2);
    }

    #[test]
    fn the_dithered_first_timer_lies_in_1_to_1_5_rto_and_backs_off_from_it() {
        let mut s = Script::new(Bound::new(FourState::new(FourStateConfig::default()).unwrap()));
        for _ in 0..100 {
            s.set_state(FourStateState { s: 1, estimator: Rfc6298::new(), rto: INITIAL_RTO });
            s.events.clear();
            s.send();
            s.wait_ms(3000); // the first timer (< 3 s) fires once; the second (≥ 3 s) does not
            let t = s.timers_ns();
            assert_eq!(t.len(), 2);
            assert!((2_000_000_000..3_000_000_000).contains(&t[0]), "{}", t[0]);
            assert_eq!(t[1], (t[0] * 3).div_ceil(2)); // × 1.5, rounded half up to the nanosecond
            s.ack_copy(0);
        }
    }

    #[test]
    fn tables_are_indexed_by_state_and_range() {
        let p = undithered(FourStateConfig::default());
        assert_eq!(p.factor(1, ms(999)), Ratio::new(17, 10));
        assert_eq!(p.factor(2, ms(999)), Ratio::new(5, 2));
        assert_eq!(p.factor(4, ms(1000)), Ratio::integer(2));
        assert_eq!(p.factor(1, ms(3000)), Ratio::new(3, 2));
        assert_eq!(p.factor(1, ms(3001)), Ratio::new(13, 10));
        assert_eq!(p.weight(3), Ratio::new(1, 4));
        assert_eq!(p.weight(9), Ratio::new(1, 8));
    }

    #[test]
    fn an_out_of_range_s_acts_as_its_clamped_value_and_is_stored_clamped() {
        // The state is plain data (anyone may write it): s is clamped to 1..=4 where it is used.
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let mut p = undithered(FourStateConfig::default());
        p.set_state(FourStateState { s: 0, estimator: Rfc6298::new(), rto: ms(1) });
        let ex = p.start(at(0), 0, &mut rng);
        p.on_ack(at(1), &ex, &Ack::AMBIGUOUS);
        assert_eq!(p.state().s, 1);
        p.set_state(FourStateState { s: 9, ..p.state() });
        let mut ex = p.start(at(2), 0, &mut rng);
        assert_eq!(p.on_timeout(at(3), &mut ex), Retry::Retransmit);
        assert_eq!(p.state().s, 4);
    }

    #[test]
    fn every_key_is_validated() {
        let bad = |c: FourStateConfig| FourState::new(c).unwrap_err().key;
        let d = FourStateConfig::default();
        let half = Ratio::new(1, 2);
        assert_eq!(bad(FourStateConfig { cap: Duration::ZERO, ..d }), "cap_ms");
        assert_eq!(bad(FourStateConfig { initial_rto: Duration::ZERO, ..d }), "initial_rto_ms");
        assert_eq!(bad(FourStateConfig { initial_rto: ms(40_000), ..d }), "initial_rto_ms");
        assert_eq!(bad(FourStateConfig { vbf_below: [half; 4], ..d }), "vbf_below");
        assert_eq!(bad(FourStateConfig { vbf_between: [half; 4], ..d }), "vbf_between");
        assert_eq!(bad(FourStateConfig { vbf_above: [half; 4], ..d }), "vbf_above");
        assert_eq!(bad(FourStateConfig { vbf_lower: ms(4000), ..d }), "vbf_lower_ms");
        assert_eq!(bad(FourStateConfig { weights: [Ratio::integer(2); 4], ..d }), "weights");
        assert_eq!(bad(FourStateConfig { ack_random_factor: half, ..d }), "ack_random_factor");
    }

    #[test]
    fn a_clock_ten_days_ahead_and_odd_echoes_do_not_panic() {
        let mut p = Bound::new(FourState::new(FourStateConfig::default()).unwrap());
        let mut rng = <rand_pcg::Pcg64Mcg as rand_core::SeedableRng>::seed_from_u64(9);
        let far = Instant::from_millis(10 * 86_400_000);
        let mut ex = p.start(far, 0, &mut rng);
        assert_eq!(p.on_timeout(far, &mut ex), Retry::Retransmit);
        p.on_ack(Instant::MAX, &ex, &Ack { echo: Some(Echo { copy: 200, sent: Instant::MAX }) });
        p.on_ack(Instant::ZERO, &ex, &Ack::AMBIGUOUS);
        let b = p.timer_bounds();
        let r = p.rto(Instant::MAX).unwrap();
        assert!(r >= b.min && r <= b.max);
    }

    #[test]
    fn cocoa_4_states_state_estimator_rto_s_fits_40_bytes() {
        // The per-destination footprint (README algorithm table); the configuration is not in it.
        let bytes = core::mem::size_of::<<FourState as Controller>::State>();
        assert!(bytes <= 40, "{bytes} bytes");
    }
}
