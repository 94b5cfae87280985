//! Default CoAP: RFC 7252 §4.2 binary exponential backoff, the "aggressive" CoAP_B variant
//! (\[S3\]) and the Full Backoff variants CoAP-FB1 / CoAP-FB2 (spec §1, §4.2–4.3).
//!
//! No state survives an exchange, except the carried timer of Full Backoff: the
//! per-destination state is a [`Carry`].
//!
//! Per-exchange state ([`DefaultCoapExchange`]): `base` = the timer armed for the latest copy
//! before dithering (Default CoAP dithers only the first timer, so it equals the armed value).

use core::time::Duration;

use crate::backoff::full_backoff::{Carry, FullBackoff};
use crate::config::ConfigError;
use crate::controller::{Ack, Controller, EchoMode, Exchange, Retry, TimerBounds};
use crate::params::{ACK_RANDOM_FACTOR, ACK_TIMEOUT, MAX_RETRANSMIT, TransmissionParams};
use crate::random::{Rng, dither_factor};
use crate::ratio::Ratio;
use crate::time::{Instant, from_nanos, shl};

/// Configuration of Default CoAP. `Default` is RFC 7252 §4.8.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct DefaultCoapConfig {
    /// ACK_TIMEOUT: the initial timer is drawn from [ACK_TIMEOUT, ACK_TIMEOUT × ACK_RANDOM_FACTOR).
    #[cfg_attr(feature = "serde", serde(rename = "ack_timeout_ms", with = "crate::config::serde_ms"))]
    pub ack_timeout: Duration,
    /// ACK_RANDOM_FACTOR (≥ 1).
    pub ack_random_factor: Ratio,
    /// MAX_RETRANSMIT.
    pub max_retransmit: u8,
    /// Upper bound on every armed timer; `None` (RFC 7252) doubles without bound. The FASOR
    /// study used 60 s with MAX_RETRANSMIT = 20 (spec §1.2).
    #[cfg_attr(feature = "serde", serde(rename = "cap_ms", with = "crate::config::serde_opt_ms"))]
    pub cap: Option<Duration>,
    /// Full Backoff variant (spec §4).
    pub full_backoff: FullBackoff,
    /// Draw the initial timer at random (spec OQ-1: continuous uniform). Off: ACK_TIMEOUT.
    pub dither: bool,
}

impl Default for DefaultCoapConfig {
    fn default() -> Self {
        DefaultCoapConfig {
            ack_timeout: ACK_TIMEOUT,
            ack_random_factor: ACK_RANDOM_FACTOR,
            max_retransmit: MAX_RETRANSMIT,
            cap: None,
            full_backoff: FullBackoff::Off,
            dither: true,
        }
    }
}

impl DefaultCoapConfig {
    /// CoAP_B of \[S3\] (spec §1.3): ACK_TIMEOUT = 1 s.
    pub fn aggressive() -> Self {
        DefaultCoapConfig { ack_timeout: Duration::from_secs(1), ..Default::default() }
    }

    /// CoAP-FB1 or CoAP-FB2 (spec §4.2–4.3), with the 60 s cap that keeps a carried timer
    /// bounded (spec OQ-11).
    pub fn full_backoff(variant: FullBackoff) -> Self {
        DefaultCoapConfig { full_backoff: variant, cap: Some(Duration::from_secs(60)), ..Default::default() }
    }
}

/// Default CoAP, the algorithm (shared by every destination). Per destination it keeps a
/// [`Carry`] (Full Backoff: the timer carried into the next exchange).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DefaultCoap {
    config: DefaultCoapConfig,
}

/// Per-exchange state of Default CoAP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DefaultCoapExchange {
    /// The timer armed for the latest copy (the next doubling starts from it).
    pub base: Duration,
}

impl DefaultCoap {
    /// Checks the configuration (RFC 7252 §4.8 constraints) and builds the controller.
    pub fn new(config: DefaultCoapConfig) -> Result<Self, ConfigError> {
        let params = TransmissionParams {
            ack_timeout: config.ack_timeout,
            ack_random_factor: config.ack_random_factor,
            max_retransmit: config.max_retransmit,
            ..Default::default()
        };
        params.check()?;
        if config.cap.is_some_and(|c| c.is_zero()) {
            return Err(ConfigError::new("cap_ms", "must be greater than 0 (or \"none\")"));
        }
        Ok(DefaultCoap { config })
    }

    /// The configuration.
    pub fn config(&self) -> &DefaultCoapConfig {
        &self.config
    }

    fn cap(&self, d: Duration) -> Duration {
        match self.config.cap {
            Some(c) => d.min(c),
            None => d,
        }
    }

    /// Upper end of the random initial range: ACK_TIMEOUT × ACK_RANDOM_FACTOR.
    fn initial_max(&self) -> Duration {
        self.config.ack_random_factor.mul_duration(self.config.ack_timeout)
    }
}

impl DefaultCoapConfig {
    /// The echo this algorithm needs: none. RFC 7252 §4.2's timers take no RTT sample, so
    /// acknowledgements need not name the copy they answer.
    pub fn echo_mode(&self) -> EchoMode {
        EchoMode::None
    }
}

impl Controller for DefaultCoap {
    type State = Carry;
    type ExchangeState = DefaultCoapExchange;

    fn new_state(&self) -> Carry {
        Carry::default()
    }

    fn on_transmit(
        &self,
        st: &mut Carry,
        _now: Instant,
        ex: &mut Exchange<DefaultCoapExchange>,
        _in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Duration {
        let timer = if ex.retransmissions() == 0 {
            match st.carried.get() {
                // Spec §4.2 and OQ-11: a carried timer is used as is, not re-dithered.
                Some(carried) => carried,
                // RFC 7252 §4.2, spec OQ-1: uniform in [ACK_TIMEOUT, ACK_TIMEOUT × ACK_RANDOM_FACTOR).
                None if self.config.dither => {
                    dither_factor(rng, self.config.ack_timeout, self.config.ack_random_factor)
                }
                None => self.config.ack_timeout,
            }
        } else {
            // RFC 7252 §4.2: the timeout is doubled for each retransmission.
            shl(ex.cc.base, 1)
        };
        let timer = self.cap(timer);
        ex.cc.base = timer;
        timer
    }

    fn on_timeout(&self, st: &mut Carry, _now: Instant, ex: &mut Exchange<DefaultCoapExchange>) -> Retry {
        if ex.retransmissions() < self.config.max_retransmit {
            return Retry::Retransmit;
        }
        // Spec OQ-9: a failed exchange carries its last (capped) timer.
        if self.config.full_backoff != FullBackoff::Off {
            st.keep(ex.timer());
        }
        Retry::GiveUp
    }

    fn on_ack(&self, st: &mut Carry, _now: Instant, ex: &Exchange<DefaultCoapExchange>, _ack: &Ack) {
        match (self.config.full_backoff, ex.retransmissions()) {
            (FullBackoff::Off, _) => {}
            // Spec §4.2, OQ-8: carry the timer armed for the last transmission.
            (_, n) if n > 0 => st.keep(ex.timer()),
            (FullBackoff::Fb1, _) => st.clear(),
            // Spec §4.3, OQ-10: halve per clean exchange until back in the initial range.
            (FullBackoff::Fb2, _) => st.halve(self.initial_max()),
        }
    }

    fn rto(&self, st: &Carry, _now: Instant) -> Option<Duration> {
        Some(self.cap(st.carried.get().unwrap_or(self.config.ack_timeout)))
    }

    fn timer_bounds(&self) -> TimerBounds {
        let min = self.cap(self.config.ack_timeout);
        let max = match (self.config.cap, self.config.full_backoff) {
            (Some(c), _) => c,
            // Without a cap a carried timer keeps doubling across exchanges.
            (None, FullBackoff::Fb1 | FullBackoff::Fb2) => from_nanos(u64::MAX),
            (None, FullBackoff::Off) => shl(self.initial_max(), self.config.max_retransmit.into()),
        };
        TimerBounds { min, max }
    }

    fn echo_mode(&self) -> EchoMode {
        self.config.echo_mode()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[allow(unused_imports)]
    use crate::harness::testing::Bound;
    use crate::harness::testing::Script;

    fn undithered(config: DefaultCoapConfig) -> Bound<DefaultCoap> {
        Bound::new(DefaultCoap::new(DefaultCoapConfig { dither: false, ..config }).unwrap())
    }

    #[test]
    fn an_unanswered_exchange_retransmits_at_0_2_6_14_30_s_and_gives_up_at_62_s() {
        // Spec §13 vector 1.
        let mut s = Script::new(undithered(DefaultCoapConfig::default()));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.transmit_times_ms(), [0, 2000, 6000, 14000, 30000]);
        assert_eq!(s.timers_ms(), [2000, 4000, 8000, 16000, 32000]);
        assert_eq!(s.give_up_ms(), Some(62_000));
    }

    #[test]
    fn with_a_3_s_first_timer_the_schedule_is_0_3_9_21_45_and_give_up_at_93_s() {
        // Spec §13 vector 1, upper end of the initial range.
        let mut s =
            Script::new(undithered(DefaultCoapConfig { ack_timeout: Duration::from_secs(3), ..Default::default() }));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.transmit_times_ms(), [0, 3000, 9000, 21000, 45000]);
        assert_eq!(s.give_up_ms(), Some(93_000));
    }

    #[test]
    fn the_dithered_first_timer_lies_in_2_to_3_s() {
        let mut s = Script::new(Bound::new(DefaultCoap::new(DefaultCoapConfig::default()).unwrap()));
        for _ in 0..200 {
            s.send();
            let t = *s.timers_ns().last().unwrap();
            assert!((2_000_000_000..3_000_000_000).contains(&t), "{t}");
            s.ack();
        }
    }

    #[test]
    fn the_aggressive_variant_starts_at_1_s_and_gives_up_at_31_s() {
        let mut s = Script::new(undithered(DefaultCoapConfig::aggressive()));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.give_up_ms(), Some(31_000));
    }

    #[test]
    fn the_cap_bounds_every_backed_off_timer() {
        let cfg = DefaultCoapConfig { max_retransmit: 20, cap: Some(Duration::from_secs(60)), ..Default::default() };
        let mut s = Script::new(undithered(cfg));
        s.send();
        s.wait_ms(2_000_000);
        assert_eq!(s.timers_ms()[..7], [2000, 4000, 8000, 16000, 32000, 60000, 60000]);
        assert_eq!(s.timers_ms().len(), 21);
    }

    #[test]
    fn fb1_carries_the_backed_off_timer_into_the_next_exchange_until_a_clean_one() {
        // Spec §13 vector 8 (FB1).
        let mut s = Script::new(undithered(DefaultCoapConfig::full_backoff(FullBackoff::Fb1)));
        s.send();
        s.wait_ms(6500); // copies at 0, 2, 6 s; the timer armed at 6 s is 8 s
        s.ack();
        assert_eq!(s.rto_ms(), Some(8000));
        s.send();
        assert_eq!(*s.timers_ms().last().unwrap(), 8000);
        s.ack(); // clean
        assert_eq!(s.rto_ms(), Some(2000));
    }

    #[test]
    fn fb2_halves_the_carried_timer_per_clean_exchange_until_the_initial_range() {
        // Spec §13 vector 8 (FB2): 8 s, then 4 s, then a fresh random initial timer.
        let mut s = Script::new(undithered(DefaultCoapConfig::full_backoff(FullBackoff::Fb2)));
        s.send();
        s.wait_ms(6500);
        s.ack();
        s.send();
        assert_eq!(*s.timers_ms().last().unwrap(), 8000);
        s.ack();
        s.send();
        assert_eq!(*s.timers_ms().last().unwrap(), 4000);
        s.ack();
        s.send();
        assert_eq!(*s.timers_ms().last().unwrap(), 2000);
    }

    #[test]
    fn a_failed_exchange_under_full_backoff_carries_its_last_timer() {
        // Spec OQ-9.
        let mut s = Script::new(undithered(DefaultCoapConfig::full_backoff(FullBackoff::Fb1)));
        s.send();
        s.wait_ms(100_000);
        assert_eq!(s.give_up_ms(), Some(62_000));
        assert_eq!(s.rto_ms(), Some(32_000));
    }

    #[test]
    fn an_ack_random_factor_below_one_is_rejected() {
        let err = DefaultCoap::new(DefaultCoapConfig { ack_random_factor: Ratio::new(9, 10), ..Default::default() })
            .unwrap_err();
        assert_eq!(err.key, "ack_random_factor");
    }

    #[test]
    fn default_coap_keeps_only_the_full_backoff_carry_8_bytes() {
        // The per-destination footprint (README algorithm table); the configuration is not in it.
        let bytes = core::mem::size_of::<<DefaultCoap as Controller>::State>();
        assert!(bytes <= 8, "{bytes} bytes");
    }
}
