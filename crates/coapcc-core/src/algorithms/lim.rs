//! Lim's retransmission-timer scheme for uIP TCP (Lim, "Improving Congestion Control of TCP
//! for Constrained IoT Networks", Sensors 20(17) 4774, 2020 \[S4\], Table 2; spec §9.3), and
//! the dithering rules that [`super::uip`] borrows for uIP + dithering (spec §9.2).
//!
//! On top of uIP's estimator ([`VjState`], same integers, same quanta, see [`super::uip`]):
//!
//! * **RTT sample from the latest (re)transmission, for every ACK** (no Karn, no weak/strong
//!   distinction; an echoed copy number is ignored).
//! * First transmission: `timer = RTO`, dithered: `timer > 4 s`: `+ U_int[0, timer/2)`,
//!   else `+ U_int[0, timer)`.
//! * Retransmission after `n` earlier retransmissions (spec OQ-35: counted before the
//!   increment, uIP's `nrtx`, so the first retransmission waits `RTO << 0`):
//!   `timer = min(RTO << min(n, limit(RTO)), 48 s)` with `limit` = 4 / 3 / 2 / 1 for RTO ≤ 3 /
//!   ≤ 6 / ≤ 12 / > 12 s. Table 2 prints `max` in both places; the spec corrects both to
//!   `min` (with `max` every timer would be ≥ 48 s, contradicting Lim §5.2).
//!   Dithered: `timer > 12 s`: `+ U_int[0, timer/4)`; `> 4 s`: `+ U_int[0, timer/2)`; else
//!   `+ U_int[0, timer)` (Table 2 has a closed `[0, timer]` here; spec OQ-36: half-open).
//! * 15 retransmissions (Lim §4.2.3, §6: Linux's `tcp_retries2`).
//!
//! **Dither integers.** Lim counts the timer in 0.5 s ticks and chose the multipliers 1, ½, ¼
//! "so that the multiplication can be implemented using the shift operation". So with the
//! timer `T` in ticks the dither is a whole number of ticks drawn uniformly from
//! `[0, T >> s)`, `s` = 0, 1, 2: the shift floors an odd quarter or half (a 13 s timer, 26
//! ticks, gets `+ U_int[0, 6)` ticks, not `[0, 6.5)`). An empty range adds nothing.
//! The thresholds 4 s and 12 s, the limits' 3 / 6 / 12 s and the 48 s cap are durations,
//! whatever `rtt_unit` and `tick` are.
//!
//! [`Lim`] is the algorithm (the checked configuration), shared by every destination;
//! [`LimState`] (the Van Jacobson estimator) is what one destination keeps; per exchange
//! ([`LimExchange`]): `base` = the undithered timer of the latest copy.

use core::time::Duration;

pub use crate::backoff::tick_dither::{
    DITHER_HALF_ABOVE, DITHER_QUARTER_ABOVE, dither_first, dither_retransmission, first_dither_bound,
    retransmission_dither_bound,
};
use crate::config::ConfigError;
use crate::controller::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
pub use crate::estimators::vj::{MdevInit, RTT_UNIT, TICK};
use crate::estimators::vj::{SV_FLOOR, UIP_RTO, VjState, check_quanta, sample_units};
use crate::random::Rng;
pub use crate::tcp::{LIM_MAX_RETRANSMIT, TcpConfig, TcpDefaults};
use crate::time::{Instant, mul, shl};

/// Lim \[S4\] §5.2, Table 2: no backed-off timer exceeds 48 s (uIP's 3 s << 4).
pub const MAX_TIMER: Duration = Duration::from_secs(48);
/// Lim \[S4\] Table 2: `limit(RTO)`, the largest backoff exponent, for RTO up to each bound.
pub const BACKOFF_LIMITS: [(Duration, u32); 3] =
    [(Duration::from_secs(3), 4), (Duration::from_secs(6), 3), (Duration::from_secs(12), 2)];
/// Lim \[S4\] Table 2: `limit(RTO)` for RTO > 12 s.
pub const BACKOFF_LIMIT_ABOVE: u32 = 1;
/// Lim Table 2: the largest backoff exponent for an estimated RTO.
pub fn backoff_limit(rto: Duration) -> u32 {
    BACKOFF_LIMITS.iter().find(|(bound, _)| rto <= *bound).map_or(BACKOFF_LIMIT_ABOVE, |(_, limit)| *limit)
}

/// The state of [`Lim`]: uIP's scaled-integer estimator.
pub type LimState = VjState;

/// Configuration of Lim's scheme. `Default` is Lim's evaluation setting: 15 retransmissions,
/// dithering on. The keys are those of [`TcpConfig`], shared with uIP.
pub type LimConfig = TcpConfig<LimDefaults>;

/// The defaults of [`LimConfig`]: 15 retransmissions (Lim §4.2.3), dithering on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LimDefaults;

impl TcpDefaults for LimDefaults {
    const MAX_RETRANSMIT: u8 = LIM_MAX_RETRANSMIT;
    const DITHER: bool = true;
}

/// Lim's scheme, the algorithm: the checked configuration, shared by every connection
/// (destination); [`LimState`] is per connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Lim {
    config: LimConfig,
}

/// What Lim keeps per exchange.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LimExchange {
    /// The undithered timer of the latest copy.
    pub base: Duration,
}

impl Lim {
    /// Checks the configuration and builds the algorithm.
    pub fn new(config: LimConfig) -> Result<Self, ConfigError> {
        check_quanta(config.rtt_unit, config.tick)?;
        Ok(Lim { config })
    }

    /// The configuration.
    pub fn config(&self) -> &LimConfig {
        &self.config
    }

    /// The state of a fresh connection under this configuration.
    pub fn initial_state(&self) -> LimState {
        VjState::initial(self.config.mdev_init.initial_sv(self.config.rtt_unit))
    }

    fn units(&self, n: u32) -> Duration {
        mul(self.config.rtt_unit, u64::from(n))
    }

    /// The undithered timer of a retransmission after `n` earlier ones, for estimate `rto`.
    fn backoff(rto: Duration, n: u8) -> Duration {
        // Lim Table 2 (max → min corrected): n_backoff = min(#retransmissions, limit(RTO));
        // timer = min(RTO << n_backoff, 48 s).
        shl(rto, u32::from(n).min(backoff_limit(rto))).min(MAX_TIMER)
    }
}

impl LimConfig {
    /// The echo this algorithm needs: none. Lim's scheme measures every RTT from the latest
    /// transmission (spec §9.3).
    pub fn echo_mode(&self) -> EchoMode {
        EchoMode::None
    }
}

impl Controller for Lim {
    type State = LimState;
    type ExchangeState = LimExchange;

    fn new_state(&self) -> LimState {
        self.initial_state()
    }

    fn on_transmit(
        &self,
        st: &mut LimState,
        _now: Instant,
        ex: &mut Exchange<LimExchange>,
        _in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Duration {
        let rto = self.units(st.rto);
        let dither = self.config.dither;
        let (base, timer) = match ex.retransmissions() {
            // Lim Table 2: retransmission_timer = RTO, then dithering.
            0 => (rto, if dither { dither_first(rng, rto, self.config.tick) } else { rto }),
            // Spec OQ-35: n = retransmissions before this one.
            k => {
                let t = Self::backoff(rto, k - 1);
                (t, if dither { dither_retransmission(rng, t, self.config.tick) } else { t })
            }
        };
        ex.cc.base = base;
        timer
    }

    fn on_timeout(&self, st: &mut LimState, _now: Instant, ex: &mut Exchange<LimExchange>) -> Retry {
        if ex.retransmissions() < self.config.max_retransmit {
            return Retry::Retransmit;
        }
        if self.config.reset_on_give_up {
            *st = self.initial_state();
        }
        Retry::GiveUp
    }

    fn on_ack(&self, st: &mut LimState, now: Instant, ex: &Exchange<LimExchange>, _ack: &Ack) {
        // Lim §5.1: "we always measure RTT between the latest (re)transmission and the ACK
        // regardless of how many retransmissions are performed".
        let r = now.saturating_duration_since(ex.last_sent());
        st.sample(sample_units(r, self.config.rtt_unit));
    }

    fn rto(&self, st: &LimState, _now: Instant) -> Option<Duration> {
        Some(self.units(st.rto))
    }

    fn timer_bounds(&self) -> TimerBounds {
        let tick = self.config.tick;
        // Estimated RTOs lie in [min(3, sv floor), u32::MAX] units (uip::SV_FLOOR).
        let sv_floor = self.initial_state().sv.min(SV_FLOOR);
        let rto_min = self.units(UIP_RTO.min(sv_floor));
        let rto_max = self.units(u32::MAX);
        let mut min = rto_min;
        let mut max = if self.config.dither { first_dither_bound(rto_max, tick) } else { rto_max };
        if self.config.max_retransmit > 0 {
            // min(RTO << n, 48 s) with n ≤ min(4, max_retransmit − 1).
            let n = u32::from(self.config.max_retransmit - 1).min(BACKOFF_LIMITS[0].1);
            let hi = shl(rto_max, n).min(MAX_TIMER);
            min = min.min(rto_min.min(MAX_TIMER));
            max = max.max(if self.config.dither { retransmission_dither_bound(hi, tick) } else { hi });
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
    use crate::controller::Echo;
    #[allow(unused_imports)]
    use crate::harness::testing::Bound;
    use crate::harness::testing::Script;

    const S: u64 = 1000;

    fn lim(config: LimConfig) -> Bound<Lim> {
        Bound::new(Lim::new(config).unwrap())
    }

    fn undithered() -> Bound<Lim> {
        lim(LimConfig { dither: false, ..Default::default() })
    }

    fn vj(sa: u32, sv: u32, rto: u32) -> VjState {
        VjState { sa, sv, rto }
    }

    /// Timers of one unanswered exchange with the estimate set to `rto_s` seconds.
    fn unanswered(rto_s: u32) -> Script<Lim> {
        let mut s = Script::new(undithered());
        s.set_state(vj(0, rto_s, rto_s));
        s.send();
        s.wait_ms(2000 * S);
        s
    }

    fn secs(v: &[u64]) -> Vec<u64> {
        v.iter().map(|t| t * S).collect()
    }

    #[test]
    fn with_an_rto_of_2_s_the_retransmission_timers_are_2_4_8_16_32_32() {
        // Spec §9.3 example and §13 vector 7 (Lim): the original is armed with RTO too.
        let s = unanswered(2);
        let mut expected = std::vec![2, 2, 4, 8, 16];
        expected.extend([32; 11]);
        assert_eq!(s.timers_ms(), secs(&expected));
        assert_eq!(s.give_up_ms(), Some((2 + 2 + 4 + 8 + 16 + 11 * 32) * S));
    }

    #[test]
    fn with_an_rto_of_5_s_the_retransmission_timers_are_5_10_20_40_40() {
        let s = unanswered(5);
        assert_eq!(s.timers_ms()[1..6], secs(&[5, 10, 20, 40, 40]));
        assert_eq!(s.timers_ms()[5..], secs(&[40; 11]));
    }

    #[test]
    fn with_an_rto_of_10_s_the_retransmission_timers_are_10_20_40_40() {
        let s = unanswered(10);
        assert_eq!(s.timers_ms()[1..5], secs(&[10, 20, 40, 40]));
        assert_eq!(s.timers_ms().len(), 16);
    }

    #[test]
    fn with_an_rto_of_30_s_the_retransmission_timers_are_30_48_48() {
        // 30 << 1 = 60, capped at 48.
        let s = unanswered(30);
        assert_eq!(s.timers_ms()[..4], secs(&[30, 30, 48, 48]));
        assert_eq!(s.timers_ms()[2..], secs(&[48; 14]));
    }

    #[test]
    fn the_backoff_limit_steps_at_3_6_and_12_s() {
        for (rto, retx) in [
            (3, [3, 6, 12, 24, 48, 48]),
            (4, [4, 8, 16, 32, 32, 32]),
            (6, [6, 12, 24, 48, 48, 48]),
            (7, [7, 14, 28, 28, 28, 28]),
            (12, [12, 24, 48, 48, 48, 48]),
            (13, [13, 26, 26, 26, 26, 26]),
            (50, [48, 48, 48, 48, 48, 48]),
        ] {
            let s = unanswered(rto);
            assert_eq!(s.timers_ms()[0], u64::from(rto) * S, "rto {rto}");
            assert_eq!(s.timers_ms()[1..7], secs(&retx), "rto {rto}");
        }
        assert_eq!(backoff_limit(Duration::from_millis(3001)), 3);
        assert_eq!(backoff_limit(Duration::from_millis(12001)), 1);
    }

    #[test]
    fn the_first_retransmission_waits_rto_shifted_by_zero() {
        // Spec OQ-35: the exponent counts retransmissions before this one.
        let s = unanswered(3);
        assert_eq!(s.timers_ms()[..3], secs(&[3, 3, 6]));
    }

    #[test]
    fn the_give_up_comes_after_exactly_15_retransmissions() {
        let s = unanswered(3);
        assert_eq!(s.timers_ms().len(), 16);
        assert_eq!(s.give_up_ms(), Some((3 + 3 + 6 + 12 + 24 + 11 * 48) * S));
        let mut s = Script::new(lim(LimConfig { max_retransmit: 2, dither: false, ..Default::default() }));
        s.send();
        s.wait_ms(100 * S);
        assert_eq!(s.timers_ms(), secs(&[3, 3, 6]));
        assert_eq!(s.give_up_ms(), Some(12 * S));
    }

    #[test]
    fn the_rtt_sample_is_taken_from_the_latest_retransmission() {
        // Original at 0 (timer 3 s), retransmission at 3 s, ACK at 4.5 s: R = 1.5 s → 1 unit.
        // sa = 1; sv = 16 + (1 − 4) = 13; rto = 0 + 13. uIP would take no sample (Karn).
        let mut s = Script::new(undithered());
        s.send();
        s.wait_ms(4500);
        s.ack();
        assert_eq!(s.state(), vj(1, 13, 13));
        assert_eq!(s.rto_ms(), Some(13 * S));
    }

    #[test]
    fn an_echo_of_an_earlier_copy_does_not_change_where_the_sample_is_measured_from() {
        let mut c = undithered();
        let mut rng: rand_pcg::Pcg64Mcg = rand_core::SeedableRng::seed_from_u64(1);
        let mut ex = c.start(Instant::ZERO, 0, &mut rng);
        assert_eq!(c.on_timeout(Instant::from_millis(3000), &mut ex), Retry::Retransmit);
        c.retransmit(Instant::from_millis(3000), &mut ex, &mut rng);
        let echo = Echo { copy: 0, sent: Instant::ZERO };
        c.on_ack(Instant::from_millis(5500), &ex, &Ack { echo: Some(echo) });
        // R = 2.5 s from the retransmission → 2: sa = 2; sv = 16 + (2 − 4) = 14; rto = 14.
        assert_eq!(c.state(), vj(2, 14, 14));
    }

    #[test]
    fn every_clean_ack_feeds_the_same_vj_estimator_as_uip() {
        // Samples 0, 10, 14 s: rto 12, 20, 30 (hand-computed in uip's estimator test).
        let mut s = Script::new(undithered());
        for (wait, rto) in [(500, 12), (10_500, 20), (14_500, 30)] {
            s.send();
            s.wait_ms(wait);
            s.ack();
            assert_eq!(s.rto_ms(), Some(rto * S));
        }
        assert_eq!(s.state(), vj(23, 28, 30));
        s.send();
        s.wait_ms(2000 * S);
        assert_eq!(s.timers_ms()[3..6], secs(&[30, 30, 48]));
    }

    #[test]
    fn the_literal_mdev_of_16_s_gives_an_rto_of_48_s_after_a_first_zero_sample() {
        // Spec OQ-34 option: sv = 64; m = 0; sv = 64 − 16 = 48; rto = 48.
        let mut s = Script::new(lim(LimConfig { mdev_init: MdevInit::Literal, dither: false, ..Default::default() }));
        s.send();
        s.wait_ms(500);
        s.ack();
        assert_eq!(s.state(), vj(0, 48, 48));
        assert_eq!(s.rto_ms(), Some(48 * S));
    }

    fn first_timers(rto_s: u32, n: usize) -> Vec<u64> {
        let mut s = Script::new(lim(LimConfig::default()));
        (0..n)
            .map(|_| {
                s.set_state(vj(0, rto_s, rto_s));
                s.send();
                let t = *s.timers_ms().last().unwrap();
                s.ack();
                t
            })
            .collect()
    }

    #[test]
    fn the_first_timer_is_dithered_by_whole_ticks_in_half_open_ranges() {
        // 2 s: + [0, 4 ticks); 4 s (not > 4): + [0, 8 ticks); 5 s: + [0, 10 >> 1 = 5 ticks).
        for (rto, lo, hi) in [(2, 2000, 3500), (4, 4000, 7500), (5, 5000, 7000)] {
            let draws = first_timers(rto, 500);
            assert!(draws.iter().all(|t| (lo..=hi).contains(t) && t % 500 == 0), "{rto}: {draws:?}");
            assert!(draws.contains(&lo) && draws.contains(&hi), "{rto}: both ends drawn");
        }
    }

    #[test]
    fn retransmission_timers_are_dithered_by_a_whole_fraction_of_their_ticks() {
        // 2 s: [2, 3.5]; 8 s (> 4): + [0, 8 ticks); 12 s (not > 12): + [0, 12 ticks);
        // 16 s (> 12): + [0, 32 >> 2 = 8 ticks); 48 s: + [0, 24 ticks); 13 s: 26 >> 2 = 6 ticks.
        let mut rng: rand_pcg::Pcg64Mcg = rand_core::SeedableRng::seed_from_u64(9);
        for (t, hi) in
            [(2000, 3500), (8000, 11_500), (12_000, 17_500), (16_000, 19_500), (48_000, 59_500), (13_000, 15_500)]
        {
            let d = Duration::from_millis(t);
            let draws: Vec<u64> =
                (0..2000).map(|_| dither_retransmission(&mut rng, d, TICK).as_millis() as u64).collect();
            assert!(draws.iter().all(|x| (t..=hi).contains(x) && x % 500 == 0), "{t}");
            assert!(draws.contains(&t) && draws.contains(&hi), "{t}: both ends drawn");
            assert!(retransmission_dither_bound(d, TICK) >= Duration::from_millis(hi));
        }
        assert_eq!(retransmission_dither_bound(MAX_TIMER, TICK), Duration::from_millis(59_500));
        assert_eq!(first_dither_bound(Duration::from_secs(4), TICK), Duration::from_millis(7500));
    }

    #[test]
    fn a_dithered_unanswered_exchange_stays_in_its_bounds() {
        for seed in 0..100 {
            let mut s = Script::new(lim(LimConfig::default()));
            s.rng = rand_core::SeedableRng::seed_from_u64(seed);
            s.send();
            s.wait_ms(2000 * S);
            let t = s.timers_ms();
            assert_eq!(t.len(), 16);
            // RTO 3 s: original [3, 6); 3 → [3, 6); 6 → [6, 9); 12 → [12, 18); 24 → [24, 30);
            // 48 → [48, 60).
            for (i, range) in
                [3000..=5500, 3000..=5500, 6000..=8500, 12_000..=17_500, 24_000..=29_500].iter().enumerate()
            {
                assert!(range.contains(&t[i]) && t[i] % 500 == 0, "{i}: {}", t[i]);
            }
            assert!(t[5..].iter().all(|&x| (48_000..=59_500).contains(&x)));
        }
    }

    #[test]
    fn timer_bounds_for_the_preset() {
        let b = lim(LimConfig::default()).timer_bounds();
        assert_eq!(b.min, Duration::from_secs(3));
        let b = undithered().timer_bounds();
        assert_eq!(b.max, Duration::from_secs(u64::from(u32::MAX)));
        // Units so large that 3 units exceed the 48 s cap: retransmissions are 48 s.
        let big = lim(LimConfig { rtt_unit: Duration::from_secs(20), ..Default::default() }).timer_bounds();
        assert_eq!(big.min, MAX_TIMER);
    }

    #[test]
    fn clock_jumps_of_days_and_extreme_states_neither_panic_nor_escape_the_bounds() {
        let day = 86_400_000_000_000u64;
        for cfg in [
            LimConfig::default(),
            LimConfig { dither: false, ..Default::default() },
            LimConfig { mdev_init: MdevInit::Literal, ..Default::default() },
        ] {
            let mut c = lim(cfg);
            let b = c.timer_bounds();
            let mut rng: rand_pcg::Pcg64Mcg = rand_core::SeedableRng::seed_from_u64(5);
            let mut now = Instant::ZERO;
            for i in 0..200u64 {
                let mut ex = c.start(now, 0, &mut rng);
                assert!(ex.timer() >= b.min && ex.timer() <= b.max, "{:?}", ex.timer());
                for _ in 0..(i % 5) {
                    if c.on_timeout(now, &mut ex) == Retry::GiveUp {
                        break;
                    }
                    now = now + Duration::from_nanos(day * (i % 3));
                    let t = c.retransmit(now, &mut ex, &mut rng);
                    assert!(t >= b.min && t <= b.max, "{t:?}");
                }
                now = now + Duration::from_nanos(day * (i % 7) + i * 123_456_789);
                c.on_ack(now, &ex, &Ack::AMBIGUOUS);
            }
            c.set_state(vj(u32::MAX, u32::MAX, u32::MAX));
            let mut ex = c.start(Instant::MAX, 0, &mut rng);
            assert!(ex.timer() <= b.max);
            c.on_ack(Instant::ZERO, &ex, &Ack::AMBIGUOUS);
            c.on_ack(Instant::MAX, &ex, &Ack::AMBIGUOUS);
            while c.on_timeout(Instant::MAX, &mut ex) == Retry::Retransmit {
                assert!(c.retransmit(Instant::MAX, &mut ex, &mut rng) <= b.max);
            }
        }
    }

    #[test]
    fn a_give_up_resets_the_estimate_like_a_new_uip_connection() {
        let mut s = Script::new(undithered());
        s.set_state(vj(40, 8, 13));
        s.send();
        s.wait_ms(2000 * S);
        assert!(s.give_up_ms().is_some());
        assert_eq!(s.state(), VjState::initial(16));
        let mut s = Script::new(lim(LimConfig { reset_on_give_up: false, dither: false, ..Default::default() }));
        s.set_state(vj(40, 8, 13));
        s.send();
        s.wait_ms(2000 * S);
        assert_eq!(s.state(), vj(40, 8, 13));
    }

    #[test]
    fn invalid_quanta_are_rejected_with_their_key() {
        let err = Lim::new(LimConfig { tick: Duration::ZERO, ..Default::default() }).unwrap_err();
        assert_eq!(err.key, "tick_ms");
        let err = Lim::new(LimConfig { tick: Duration::from_millis(300), ..Default::default() }).unwrap_err();
        assert_eq!(err.key, "rtt_unit_ms");
    }

    #[test]
    fn lims_state_the_scaled_sa_sv_rto_integers_fits_12_bytes() {
        // The per-destination footprint (README algorithm table); the configuration is not in it.
        let bytes = core::mem::size_of::<<Lim as Controller>::State>();
        assert!(bytes <= 12, "{bytes} bytes");
    }
}
