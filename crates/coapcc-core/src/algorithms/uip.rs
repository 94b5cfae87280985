//! uIP TCP retransmission timers (Contiki `uip.c` / `uip6.c`, spec §9.1) and uIP with Lim's
//! dithering (spec §9.2, the second baseline of Lim, Sensors 20(17) 4774, 2020 \[S4\]).
//!
//! uIP keeps one unacknowledged segment per connection, like CoAP with NSTART = 1, so an
//! exchange here is one TCP segment and its ACK.
//!
//! * Estimator: Van Jacobson's scaled-integer algorithm exactly as uIP codes it ([`VjState`]):
//!   `sa` = 8 × SRTT, `sv` = 4 × MDEV, in integer RTT units; initial `rto = UIP_RTO = 3`,
//!   `sa = 0`, `sv = 16` (`uip_connect`, active open).
//! * Karn: a sample only when the segment was never retransmitted (`nrtx == 0`).
//! * The estimated `rto` arms the first transmission only; retransmission `n` (counting from
//!   0, before `++nrtx`) waits `UIP_RTO << min(n, 4)`: 3, 6, 12, 24, 48, 48, … RTT units,
//!   whatever the estimate. After `UIP_MAXRTX` (8) retransmissions the connection aborts.
//! * [`UipConfig::dithered`] adds Lim's dithering rules (spec §9.3, [`super::lim`]) to both
//!   the first timer and the retransmission timers, and runs 15 retransmissions as in Lim's
//!   evaluation.
//!
//! # Time quanta (spec OQ-37)
//!
//! uIP has no clock of its own for TCP: a periodic timer (every 0.5 s) decrements the
//! countdown of each connection with outstanding data, and the RTT sample is the number of
//! periodic ticks the countdown ran between the send and the ACK (`m = rto − timer`). Lim
//! found the countdown was loaded with values meant in 1 s units but decremented every 0.5 s,
//! so every timer expired twice too early, and fixed it by loading the countdown in 0.5 s
//! ticks while keeping RTT and RTO in 1 s units. This module models the fixed stack with two
//! configurable quanta:
//!
//! * `rtt_unit` (1 s): the unit of `sa`, `sv`, `rto`, `UIP_RTO` and of RTT samples. A sample is
//!   **⌊R / rtt_unit⌋** (floor), R = ACK time − send time. Reason: a tick counter only counts
//!   ticks that have elapsed. With the periodic timer's phase aligned to the send, the tick
//!   count is ⌊R / tick⌋, and Lim's 1 s units are ⌊⌊R / 0.5 s⌋ / 2⌋ = ⌊R / 1 s⌋. This is what
//!   makes Lim's remark true that "a small RTT value is reduced to 0" (an RTT below 1 s gives
//!   a sample of 0). The real stack's free-running tick phase adds up to one tick of jitter to
//!   each sample (⌊R/tick⌋ or ⌈R/tick⌉); a sans-IO controller has no such phase and this
//!   jitter is not modelled.
//! * `tick` (0.5 s): the countdown resolution. Every timer armed is a whole number of ticks
//!   (`rtt_unit` must be a multiple of `tick`), and the random dither integers are ticks. The
//!   timer expires exactly that many ticks after the send; uIP's `timer-- == 0` test fires one
//!   tick after the count reaches zero and the periodic phase shifts expiries by up to one
//!   tick: neither is modelled (spec §13 vector 7 lists 3, 6, 12, … s exactly).
//!
//! The unfixed uIP of Lim §4.1 (timers twice too early) is `rtt_unit_ms = 500`: every uIP
//! integer is then a 0.5 s tick, so `UIP_RTO` is 1.5 s.
//!
//! # Integer widths
//!
//! uIP stores `sa`, `sv`, `rto`, `timer` and `nrtx` as `u8` and the error `m` as `signed char`,
//! so its arithmetic wraps once SRTT ≥ 32 units (`sa` ≥ 256) or |Err| ≥ 128. This module
//! **widens** them: `sa`, `sv`, `rto` are `u32`, the error is computed in `i64` and stored
//! values are clamped to `0..=u32::MAX`; RTT samples are clamped to [`MAX_SAMPLE`] units, so
//! `sa` never saturates and the recurrence is exact for any sample (clock jumps of days or
//! years). Wherever uIP's 8-bit arithmetic does not wrap, the results are identical.
//!
//! # Connection failure
//!
//! When the last retransmission times out uIP closes the connection (`UIP_TIMEDOUT`, RST);
//! the next segment goes over a new connection that `uip_connect` initialises to `rto = 3`,
//! `sa = 0`, `sv = 16`. `reset_on_give_up` (default on) reproduces this; off keeps the
//! estimate across a give-up.
//!
//! [`Uip`] is the algorithm (the checked configuration), shared by every destination;
//! [`UipState`] (the Van Jacobson estimator) is what one destination keeps; per exchange
//! ([`UipExchange`]): `base` = the undithered timer of the latest copy.

use core::time::Duration;

use crate::backoff::tick_dither;
use crate::config::ConfigError;
use crate::controller::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
pub use crate::estimators::vj::{
    LITERAL_MDEV, MAX_SAMPLE, MdevInit, RTT_UNIT, SV_FLOOR, TICK, UIP_INITIAL_SV, UIP_RTO, VjState, check_quanta,
    sample_units,
};
use crate::random::Rng;
pub use crate::tcp::{TcpConfig, TcpDefaults};
use crate::time::{Instant, mul};

/// uIP `UIP_MAXRTX`: retransmissions before the connection is aborted.
pub const UIP_MAXRTX: u8 = 8;
/// uIP: the backoff exponent is capped at 4 (`nrtx > 4 ? 4 : nrtx`), so timers stop at 48.
pub const UIP_MAX_BACKOFF: u32 = 4;

/// The state of [`Uip`].
pub type UipState = VjState;

/// Configuration of uIP TCP. `Default` is uIP itself (Contiki, after Lim's timer-unit fix):
/// 8 retransmissions, no dithering. The keys are those of [`TcpConfig`], shared with Lim.
pub type UipConfig = TcpConfig<UipDefaults>;

/// The defaults of [`UipConfig`]: uIP's `UIP_MAXRTX`, no dithering.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UipDefaults;

impl TcpDefaults for UipDefaults {
    const MAX_RETRANSMIT: u8 = UIP_MAXRTX;
    const DITHER: bool = false;
}

impl UipConfig {
    /// uIP + dithering (spec §9.2): Lim's dithering rules, and 15 retransmissions as in all
    /// of Lim's evaluation runs (\[S4\] §6; spec §9 table).
    pub fn dithered() -> Self {
        UipConfig { dither: true, max_retransmit: crate::tcp::LIM_MAX_RETRANSMIT, ..Default::default() }
    }

    /// Original uIP as Lim evaluated it: no dithering, limit raised to 15 (\[S4\] §4.2.3, §6).
    pub fn study() -> Self {
        UipConfig { max_retransmit: crate::tcp::LIM_MAX_RETRANSMIT, ..Default::default() }
    }
}

/// uIP TCP's retransmission timer, the algorithm: the checked configuration, shared by every
/// connection (destination); [`UipState`] is per connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Uip {
    config: UipConfig,
}

/// What Uip keeps per exchange.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UipExchange {
    /// The undithered timer of the latest copy.
    pub base: Duration,
}

impl Uip {
    /// Checks the configuration and builds the algorithm.
    pub fn new(config: UipConfig) -> Result<Self, ConfigError> {
        check_quanta(config.rtt_unit, config.tick)?;
        Ok(Uip { config })
    }

    /// The configuration.
    pub fn config(&self) -> &UipConfig {
        &self.config
    }

    /// The state of a fresh connection under this configuration.
    pub fn initial_state(&self) -> UipState {
        VjState::initial(self.config.mdev_init.initial_sv(self.config.rtt_unit))
    }

    fn units(&self, n: u32) -> Duration {
        mul(self.config.rtt_unit, u64::from(n))
    }

    /// The undithered retransmission timer `UIP_RTO << min(n, 4)`, `n` = retransmissions
    /// before this one.
    fn backoff(&self, n: u8) -> Duration {
        self.units(UIP_RTO << u32::from(n).min(UIP_MAX_BACKOFF))
    }
}

impl UipConfig {
    /// The echo this algorithm needs: none. uIP applies Karn's rule (spec §9.1): a
    /// retransmitted segment gives no RTT sample.
    pub fn echo_mode(&self) -> EchoMode {
        EchoMode::None
    }
}

impl Controller for Uip {
    type State = UipState;
    type ExchangeState = UipExchange;

    fn new_state(&self) -> UipState {
        self.initial_state()
    }

    fn on_transmit(
        &self,
        st: &mut UipState,
        _now: Instant,
        ex: &mut Exchange<UipExchange>,
        _in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Duration {
        let (base, timer) = match ex.retransmissions() {
            0 => {
                // uip.c: timer = rto (the estimate arms the first transmission).
                let base = self.units(st.rto);
                (base, if self.config.dither { tick_dither::dither_first(rng, base, self.config.tick) } else { base })
            }
            k => {
                // uip.c: timer = UIP_RTO << (nrtx > 4 ? 4 : nrtx); ++nrtx (spec OQ-35: before).
                let base = self.backoff(k - 1);
                (
                    base,
                    if self.config.dither {
                        tick_dither::dither_retransmission(rng, base, self.config.tick)
                    } else {
                        base
                    },
                )
            }
        };
        ex.cc.base = base;
        timer
    }

    fn on_timeout(&self, st: &mut UipState, _now: Instant, ex: &mut Exchange<UipExchange>) -> Retry {
        // uip.c: if(nrtx == UIP_MAXRTX) abort.
        if ex.retransmissions() < self.config.max_retransmit {
            return Retry::Retransmit;
        }
        // uip_connect: a new connection starts from the initial values.
        if self.config.reset_on_give_up {
            *st = self.initial_state();
        }
        Retry::GiveUp
    }

    fn on_ack(&self, st: &mut UipState, now: Instant, ex: &Exchange<UipExchange>, _ack: &Ack) {
        // uip.c, Karn: "Do RTT estimation, unless we have done retransmissions."
        if ex.retransmissions() == 0 {
            let r = now.saturating_duration_since(ex.first_sent());
            st.sample(sample_units(r, self.config.rtt_unit));
        }
    }

    fn rto(&self, st: &UipState, _now: Instant) -> Option<Duration> {
        Some(self.units(st.rto))
    }

    fn timer_bounds(&self) -> TimerBounds {
        let tick = self.config.tick;
        // First transmissions: rto ∈ [min(3, sv floor), u32::MAX] units (SV_FLOOR docs).
        let sv_floor = self.initial_state().sv.min(SV_FLOOR);
        let rto_min = self.units(UIP_RTO.min(sv_floor));
        let rto_max = self.units(u32::MAX);
        let mut max = if self.config.dither { tick_dither::first_dither_bound(rto_max, tick) } else { rto_max };
        let mut min = rto_min;
        // Retransmissions: UIP_RTO << min(n, 4) for n < max_retransmit.
        if self.config.max_retransmit > 0 {
            let hi = self.backoff(self.config.max_retransmit - 1);
            min = min.min(self.backoff(0));
            max = max.max(if self.config.dither { tick_dither::retransmission_dither_bound(hi, tick) } else { hi });
        }
        TimerBounds { min, max }
    }

    fn echo_mode(&self) -> EchoMode {
        self.config.echo_mode()
    }

    // OQ-37: samples are counted in `rtt_unit`.
    fn tcp_rtt_unit(&self) -> Option<Duration> {
        Some(self.config.rtt_unit)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;
    #[allow(unused_imports)]
    use crate::harness::testing::Bound;
    use crate::harness::testing::Script;

    const S: u64 = 1000;

    fn uip(config: UipConfig) -> Bound<Uip> {
        Bound::new(Uip::new(config).unwrap())
    }

    fn vj(sa: u32, sv: u32, rto: u32) -> VjState {
        VjState { sa, sv, rto }
    }

    #[test]
    fn an_unanswered_segment_waits_3_then_3_6_12_24_48_48_48_48_s_and_aborts_at_240_s() {
        // Spec §13 vector 7: first transmission armed with the initial rto (3), then
        // retransmission timers UIP_RTO << min(nrtx, 4), abort when nrtx == UIP_MAXRTX.
        let mut s = Script::new(uip(UipConfig::default()));
        s.send();
        s.wait_ms(1000 * S);
        assert_eq!(s.timers_ms(), [3, 3, 6, 12, 24, 48, 48, 48, 48].map(|t| t * S));
        assert_eq!(s.transmit_times_ms(), [0, 3, 6, 12, 24, 48, 96, 144, 192].map(|t| t * S));
        assert_eq!(s.give_up_ms(), Some(240 * S));
    }

    #[test]
    fn retransmission_timers_ignore_the_estimated_rto() {
        // Spec §9.1: "fixed 3 s base, not the estimate" (Lim §4.2.1).
        let mut s = Script::new(uip(UipConfig::default()));
        s.set_state(vj(80, 40, 50));
        s.send();
        s.wait_ms(2000 * S);
        assert_eq!(s.timers_ms(), [50, 3, 6, 12, 24, 48, 48, 48, 48].map(|t| t * S));
        assert_eq!(s.give_up_ms(), Some((50 + 3 + 6 + 12 + 24 + 4 * 48) * S));
    }

    #[test]
    fn the_first_transmission_is_armed_with_the_estimated_rto() {
        let mut s = Script::new(uip(UipConfig::default()));
        s.set_state(vj(16, 5, 7));
        s.send();
        assert_eq!(s.timers_ms(), [7 * S]);
        assert_eq!(s.rto_ms(), Some(7 * S));
    }

    #[test]
    fn the_vj_estimator_follows_hand_computed_scaled_integer_steps() {
        // uip.c: m -= sa>>3; sa += m; m = |m|; m -= sv>>2; sv += m; rto = (sa>>3) + sv.
        let mut e = VjState::initial(UIP_INITIAL_SV);
        assert_eq!(e, vj(0, 16, 3));
        e.sample(0); // m = 0; sa = 0; m = 0 − 4; sv = 12; rto = 0 + 12
        assert_eq!(e, vj(0, 12, 12));
        e.sample(10); // m = 10; sa = 10; m = 10 − 3 = 7; sv = 19; rto = 1 + 19
        assert_eq!(e, vj(10, 19, 20));
        e.sample(14); // m = 14 − 1 = 13; sa = 23; m = 13 − 4 = 9; sv = 28; rto = 2 + 28
        assert_eq!(e, vj(23, 28, 30));
        e.sample(0); // m = 0 − 2 = −2; sa = 21; m = 2 − 7 = −5; sv = 23; rto = 2 + 23
        assert_eq!(e, vj(21, 23, 25));
        e.sample(1); // m = 1 − 2 = −1; sa = 20; m = 1 − 5 = −4; sv = 19; rto = 2 + 19
        assert_eq!(e, vj(20, 19, 21));
    }

    #[test]
    fn repeated_zero_samples_bring_the_rto_down_to_3_and_no_further() {
        // Lim §4.2.1: small RTTs round to 0 and the RTO settles at 3 s once sv = 16 decays.
        let mut e = VjState::initial(UIP_INITIAL_SV);
        let rtos: Vec<u32> = (0..9)
            .map(|_| {
                e.sample(0);
                e.rto
            })
            .collect();
        assert_eq!(rtos, [12, 9, 7, 6, 5, 4, 3, 3, 3]);
    }

    #[test]
    fn samples_beyond_uips_8_bit_range_do_not_wrap() {
        // uIP's u8 sa would wrap at 256; the widened estimator does not.
        let mut e = VjState::initial(UIP_INITIAL_SV);
        e.sample(300); // m = 300; sa = 300; m = 300 − 4; sv = 312; rto = 37 + 312
        assert_eq!(e, vj(300, 312, 349));
    }

    #[test]
    fn the_estimator_saturates_instead_of_overflowing() {
        let mut e = VjState::initial(UIP_INITIAL_SV);
        e.sample(u32::MAX); // clamped to MAX_SAMPLE
        assert_eq!(e, vj(MAX_SAMPLE, 16 + MAX_SAMPLE - 4, (MAX_SAMPLE >> 3) + 16 + MAX_SAMPLE - 4));
        let mut e = vj(u32::MAX, u32::MAX, u32::MAX);
        e.sample(0);
        e.sample(u32::MAX);
        assert!(e.rto > 0);
        let mut e = vj(0, 0, 0);
        e.sample(0);
        assert_eq!(e, vj(0, 0, 0));
    }

    #[test]
    fn a_sample_is_the_floor_of_the_rtt_in_whole_seconds() {
        // Spec OQ-37 (module docs): 1999 ms → 1 unit, 999 ms → 0 units.
        assert_eq!(sample_units(Duration::from_millis(1999), RTT_UNIT), 1);
        assert_eq!(sample_units(Duration::from_millis(999), RTT_UNIT), 0);
        assert_eq!(sample_units(Duration::from_millis(2000), RTT_UNIT), 2);
        assert_eq!(sample_units(Duration::MAX, RTT_UNIT), MAX_SAMPLE);
        let mut s = Script::new(uip(UipConfig::default()));
        s.send();
        s.wait_ms(1999);
        s.ack(); // sample 1: sa = 1; sv = 16 + (1 − 4) = 13; rto = 0 + 13
        assert_eq!(s.state(), vj(1, 13, 13));
        assert_eq!(s.rto_ms(), Some(13 * S));
    }

    #[test]
    fn karn_an_ack_after_a_retransmission_gives_no_sample() {
        let mut s = Script::new(uip(UipConfig::default()));
        s.send();
        s.wait_ms(3500); // retransmission at 3 s
        s.ack_copy(1);
        assert_eq!(s.state(), VjState::initial(16));
        s.send();
        s.wait_ms(500);
        s.ack(); // clean: sample 0
        assert_eq!(s.state(), vj(0, 12, 12));
    }

    #[test]
    fn the_literal_mdev_of_16_s_starts_sv_at_64() {
        // Spec OQ-34 option: MDEV = 16 s → sv = 64 in 1 s units; a first sample of 0 gives
        // sv = 64 − 16 = 48 and rto = 48.
        let cfg = UipConfig { mdev_init: MdevInit::Literal, ..Default::default() };
        let mut s = Script::new(uip(cfg));
        assert_eq!(s.state(), vj(0, 64, 3));
        s.send();
        s.wait_ms(500);
        s.ack();
        assert_eq!(s.state(), vj(0, 48, 48));
        assert_eq!(MdevInit::Literal.initial_sv(Duration::from_millis(500)), 128);
        assert_eq!(MdevInit::Literal.initial_sv(Duration::from_secs(100)), 0);
        assert_eq!(MdevInit::Uip.initial_sv(Duration::from_millis(500)), 16);
    }

    #[test]
    fn a_500_ms_rtt_unit_reproduces_the_unfixed_uip_whose_timers_expire_twice_too_early() {
        // Lim §4.1: countdown loaded in 1 s units but decremented every 0.5 s.
        let cfg = UipConfig { rtt_unit: Duration::from_millis(500), ..Default::default() };
        let mut s = Script::new(uip(cfg));
        s.send();
        s.wait_ms(1000 * S);
        assert_eq!(s.timers_ms(), [1500, 1500, 3000, 6000, 12000, 24000, 24000, 24000, 24000]);
        assert_eq!(s.give_up_ms(), Some(120 * S));
    }

    #[test]
    fn the_give_up_comes_after_exactly_max_retransmit_retransmissions() {
        for (cfg, n) in [(UipConfig::default(), 8), (UipConfig::dithered(), 15), (UipConfig::study(), 15)] {
            let mut s = Script::new(uip(cfg));
            s.send();
            s.wait_ms(10_000 * S);
            assert_eq!(s.timers_ms().len(), n + 1);
            assert!(s.give_up_ms().is_some());
        }
        let mut s = Script::new(uip(UipConfig { max_retransmit: 0, ..Default::default() }));
        s.send();
        s.wait_ms(10 * S);
        assert_eq!(s.timers_ms().len(), 1);
        assert_eq!(s.give_up_ms(), Some(3 * S));
    }

    #[test]
    fn a_give_up_starts_a_new_connection_from_the_initial_state_unless_told_otherwise() {
        for (reset, after) in [(true, VjState::initial(16)), (false, vj(8, 10, 11))] {
            let mut s = Script::new(uip(UipConfig { reset_on_give_up: reset, ..Default::default() }));
            s.set_state(vj(8, 10, 11));
            s.send();
            s.wait_ms(1000 * S);
            assert!(s.give_up_ms().is_some());
            assert_eq!(s.state(), after);
        }
    }

    #[test]
    fn the_dithered_first_timer_adds_whole_ticks_in_the_half_open_ranges_of_lim() {
        // rto = 3 s (≤ 4 s): + U_int[0, 6 ticks) → {3.0, 3.5, …, 5.5} s.
        // rto = 9 s (> 4 s): + U_int[0, 18 >> 1 = 9 ticks) → {9.0, …, 13.0} s.
        for (rto, lo, hi) in [(3, 3000, 5500), (9, 9000, 13000)] {
            let mut s = Script::new(uip(UipConfig::dithered()));
            s.set_state(vj(0, rto, rto));
            let mut seen = Vec::new();
            for _ in 0..400 {
                s.send();
                let t = *s.timers_ms().last().unwrap();
                assert!((lo..=hi).contains(&t) && t % 500 == 0, "{t}");
                seen.push(t);
                s.ack();
                s.set_state(vj(0, rto, rto));
            }
            assert!(seen.contains(&lo) && seen.contains(&hi), "both ends drawn");
        }
    }

    #[test]
    fn the_dithered_retransmission_timers_add_whole_ticks_in_lims_ranges() {
        // 3 s: + [0, 6 ticks); 6 s: + [0, 12 >> 1 = 6 ticks); 12 s: + [0, 24 >> 1 = 12 ticks);
        // 24 s: + [0, 48 >> 2 = 12 ticks); 48 s: + [0, 96 >> 2 = 24 ticks).
        let ranges = [(3000, 5500), (6000, 8500), (12000, 17500), (24000, 29500), (48000, 59500)];
        let mut lows = [false; 5];
        let mut highs = [false; 5];
        for seed in 0..300 {
            let mut s = Script::new(uip(UipConfig::dithered()));
            s.rng = rand_core::SeedableRng::seed_from_u64(seed);
            s.send();
            s.wait_ms(2000 * S);
            let timers = s.timers_ms();
            assert_eq!(timers.len(), 16);
            for (i, &t) in timers[1..].iter().enumerate() {
                let (lo, hi) = ranges[i.min(4)];
                assert!((lo..=hi).contains(&t) && t % 500 == 0, "copy {} timer {t}", i + 1);
                lows[i.min(4)] |= t == lo;
                highs[i.min(4)] |= t == hi;
            }
        }
        assert_eq!((lows, highs), ([true; 5], [true; 5]));
    }

    #[test]
    fn timer_bounds_are_tight_for_the_presets() {
        let b = uip(UipConfig::default()).timer_bounds();
        assert_eq!(b.min, Duration::from_secs(3));
        assert_eq!(b.max, Duration::from_secs(u64::from(u32::MAX)));
        let b = uip(UipConfig { max_retransmit: 3, ..Default::default() }).timer_bounds();
        assert_eq!(b.min, Duration::from_secs(3));
        let b = uip(UipConfig {
            rtt_unit: Duration::from_nanos(500),
            tick: Duration::from_nanos(500),
            ..Default::default()
        })
        .timer_bounds();
        assert_eq!(b.min, Duration::from_nanos(1500));
    }

    #[test]
    fn clock_jumps_of_days_and_extreme_states_neither_panic_nor_escape_the_bounds() {
        let day = 86_400_000_000_000u64;
        for cfg in [
            UipConfig::default(),
            UipConfig::dithered(),
            UipConfig { mdev_init: MdevInit::Literal, ..UipConfig::dithered() },
        ] {
            let mut c = uip(cfg);
            let b = c.timer_bounds();
            let mut rng: rand_pcg::Pcg64Mcg = rand_core::SeedableRng::seed_from_u64(3);
            let mut now = Instant::ZERO;
            for i in 0..200u64 {
                let mut ex = c.start(now, 0, &mut rng);
                assert!(ex.timer() >= b.min && ex.timer() <= b.max, "{:?}", ex.timer());
                let k = i % 4;
                for _ in 0..k {
                    if c.on_timeout(now, &mut ex) == Retry::GiveUp {
                        break;
                    }
                    let t = c.retransmit(now, &mut ex, &mut rng);
                    assert!(t >= b.min && t <= b.max);
                }
                now = now + Duration::from_nanos(day * (i % 11) + i * 7_777_777);
                c.on_ack(now, &ex, &Ack::AMBIGUOUS);
                assert!(c.rto(now).unwrap() <= b.max);
            }
            c.set_state(vj(u32::MAX, u32::MAX, u32::MAX));
            let mut ex = c.start(Instant::MAX, 0, &mut rng);
            c.on_ack(Instant::MAX, &ex, &Ack::AMBIGUOUS);
            c.on_ack(Instant::ZERO, &ex, &Ack::AMBIGUOUS);
            while c.on_timeout(Instant::MAX, &mut ex) == Retry::Retransmit {
                c.retransmit(Instant::MAX, &mut ex, &mut rng);
            }
        }
    }

    #[test]
    fn invalid_quanta_are_rejected_with_their_key() {
        let err = Uip::new(UipConfig { tick: Duration::ZERO, ..Default::default() }).unwrap_err();
        assert_eq!(err.key, "tick_ms");
        let err = Uip::new(UipConfig { rtt_unit: Duration::ZERO, ..Default::default() }).unwrap_err();
        assert_eq!(err.key, "rtt_unit_ms");
        let err = Uip::new(UipConfig { rtt_unit: Duration::from_millis(1200), ..Default::default() }).unwrap_err();
        assert_eq!(err.key, "rtt_unit_ms");
        assert!(Uip::new(UipConfig { rtt_unit: Duration::from_millis(1500), ..Default::default() }).is_ok());
    }

    #[test]
    fn uips_state_the_scaled_sa_sv_rto_integers_fits_12_bytes() {
        // The per-destination footprint (README algorithm table); the configuration is not in it.
        let bytes = core::mem::size_of::<<Uip as Controller>::State>();
        assert!(bytes <= 12, "{bytes} bytes");
    }
}
