//! `[multihop.null_rdc]` and `[multihop.contikimac]`: the radio duty cycling constants
//! (multihop.md §1.5; `nullrdc.c`, `contikimac.c`, `phase.c`), with `Default` = the spec's
//! values. The RDC pieces that run on them are the simulator's (`crates/coapcc-sim/src/multihop/rdc/`).

use core::time::Duration;

use coapcc_core::{ConfigError, Instant};
use serde::Deserialize;

use super::phy::PhyConfig;

/// `ticks` rtimer ticks (32 768 Hz) rounded to the nanosecond.
pub const fn rtimer_ticks(ticks: u64) -> Duration {
    Duration::from_nanos((ticks * 1_000_000_000 + 16_384) / 32_768)
}

/// NullRDC parameters (§1.4 "Link-layer ACK wait with NullRDC", §1.5).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NullRdcConfig {
    /// `nullrdc_ack_wait`: wait for a link-layer ACK (false on Sky/Z1, true on Wismote, OQ-M1).
    pub ack_wait: bool,
    /// `ACK_WAIT_TIME` = 13 rtimer ticks = 0.397 ms.
    #[serde(rename = "ack_wait_time_ms", with = "coapcc_core::serde_ms")]
    pub ack_wait_time: Duration,
    /// `AFTER_ACK_DETECTED_WAIT_TIME` = 21 rtimer ticks = 0.641 ms.
    #[serde(rename = "after_ack_detected_wait_ms", with = "coapcc_core::serde_ms")]
    pub after_ack_detected_wait: Duration,
}

impl Default for NullRdcConfig {
    /// Sky / Z1: no ACK wait.
    fn default() -> Self {
        NullRdcConfig { ack_wait: false, ack_wait_time: rtimer_ticks(13), after_ack_detected_wait: rtimer_ticks(21) }
    }
}

/// ContikiMAC constants (§1.5 table; `contikimac.c`, `phase.c`), 8 Hz.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContikiMacConfig {
    /// `CYCLE_TIME` `T_w`: 4096 ticks = 125 ms.
    #[serde(rename = "cycle_time_ms", with = "coapcc_core::serde_ms")]
    pub cycle_time: Duration,
    /// `CCA_COUNT_MAX`: CCAs per channel check (2).
    pub cca_count_max: u32,
    /// CCA spacing `CCA_CHECK_TIME + CCA_SLEEP_TIME` = 20 ticks = 0.610 ms.
    #[serde(rename = "cca_spacing_ms", with = "coapcc_core::serde_ms")]
    pub cca_spacing: Duration,
    /// `CCA_COUNT_MAX_TX`: CCAs before a train (6, over `CHECK_TIME_TX` = 3.662 ms).
    pub cca_count_max_tx: u32,
    /// `LISTEN_TIME_AFTER_PACKET_DETECTED`: 409 ticks = 12.48 ms after the check.
    #[serde(rename = "listen_time_after_packet_detected_ms", with = "coapcc_core::serde_ms")]
    pub listen_time_after_packet_detected: Duration,
    /// `MAX_NONACTIVITY_PERIODS`: periods of `cca_spacing` without a frame start before the
    /// radio goes off (10 → 6.1 ms).
    pub max_nonactivity_periods: u32,
    /// `INTER_PACKET_INTERVAL`: 13 ticks = 0.397 ms after each copy (the ACK window).
    #[serde(rename = "inter_packet_interval_ms", with = "coapcc_core::serde_ms")]
    pub inter_packet_interval: Duration,
    /// `AFTER_ACK_DETECTECT_WAIT_TIME`: 21 ticks = 0.641 ms.
    #[serde(rename = "after_ack_detected_wait_ms", with = "coapcc_core::serde_ms")]
    pub after_ack_detected_wait: Duration,
    /// `STROBE_TIME`: 4176 ticks = 127.4 ms, longest train.
    #[serde(rename = "strobe_time_ms", with = "coapcc_core::serde_ms")]
    pub strobe_time: Duration,
    /// `GUARD_TIME`: 520 ticks = 15.87 ms, phase-lock lead.
    #[serde(rename = "guard_time_ms", with = "coapcc_core::serde_ms")]
    pub guard_time: Duration,
    /// `MAX_PHASE_STROBE_TIME`: 546 ticks = 16.66 ms, longest train with a known phase or in
    /// a burst.
    #[serde(rename = "max_phase_strobe_time_ms", with = "coapcc_core::serde_ms")]
    pub max_phase_strobe_time: Duration,
    /// `INTER_PACKET_DEADLINE`: 4 clock ticks = 31.25 ms, wait for the next burst frame.
    #[serde(rename = "inter_packet_deadline_ms", with = "coapcc_core::serde_ms")]
    pub inter_packet_deadline: Duration,
    /// `phase.c` `MAX_NOACKS`: forget a phase after this many NOACKs (16).
    pub max_noacks: u32,
    /// `phase.c` `MAX_NOACKS_TIME`: … or this long after the first of them (30 s).
    #[serde(rename = "max_noacks_time_ms", with = "coapcc_core::serde_ms")]
    pub max_noacks_time: Duration,
    /// `WITH_PHASE_OPTIMIZATION` (on).
    pub phase_optimization: bool,
}

impl Default for ContikiMacConfig {
    fn default() -> Self {
        ContikiMacConfig {
            cycle_time: rtimer_ticks(4096),
            cca_count_max: 2,
            cca_spacing: rtimer_ticks(20),
            cca_count_max_tx: 6,
            listen_time_after_packet_detected: rtimer_ticks(409),
            max_nonactivity_periods: 10,
            inter_packet_interval: rtimer_ticks(13),
            after_ack_detected_wait: rtimer_ticks(21),
            strobe_time: rtimer_ticks(4176),
            guard_time: rtimer_ticks(520),
            max_phase_strobe_time: rtimer_ticks(546),
            inter_packet_deadline: Duration::from_micros(31_250),
            max_noacks: 16,
            max_noacks_time: Duration::from_secs(30),
            phase_optimization: true,
        }
    }
}

impl ContikiMacConfig {
    /// Checks the configuration once; the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.cycle_time.is_zero() {
            return Err(ConfigError::new("cycle_time_ms", "must be positive"));
        }
        if self.cca_count_max == 0 {
            return Err(ConfigError::new("cca_count_max", "must be at least 1"));
        }
        if self.cca_spacing.is_zero() {
            return Err(ConfigError::new("cca_spacing_ms", "must be positive"));
        }
        if self.guard_time >= self.cycle_time {
            return Err(ConfigError::new("guard_time_ms", "must be shorter than cycle_time_ms"));
        }
        Ok(())
    }

    /// The pre-train CCA span `CHECK_TIME_TX` (6 × 0.610 = 3.662 ms).
    pub fn check_time_tx(&self) -> Duration {
        self.cca_spacing * self.cca_count_max_tx
    }

    /// The copy period of a train of PSDUs of `psdu_bytes`: turnaround + T(L) + the ACK
    /// window (`0.589 ms + T(L)`, 3.341 ms for 80 B).
    pub fn copy_period(&self, phy: &PhyConfig, psdu_bytes: u32) -> Duration {
        phy.turnaround + phy.airtime(psdu_bytes) + self.inter_packet_interval
    }

    /// The first channel check (R1) of a node with wake-up phase `phase` (in `[0, T_w)`) at
    /// or after `now`: `phase + n·T_w`.
    pub fn next_check(&self, phase: Duration, now: Instant) -> Instant {
        let (w, p, t) = (self.cycle_time.as_nanos() as u64, phase.as_nanos() as u64, now.as_nanos());
        if t <= p {
            return Instant::from_nanos(p);
        }
        let n = (t - p).div_ceil(w);
        Instant::from_nanos(p.saturating_add(n.saturating_mul(w)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: f64) -> Duration {
        Duration::from_nanos((x * 1e6).round() as u64)
    }

    fn at_ms(x: f64) -> Instant {
        Instant::ZERO + ms(x)
    }

    fn ms_of(d: Duration) -> f64 {
        d.as_secs_f64() * 1e3
    }

    #[test]
    fn contikimac_constants_match_the_spec_table() {
        let c = ContikiMacConfig::default();
        let close = |d: Duration, x: f64| (ms_of(d) - x).abs() < 0.001;
        assert_eq!(c.cycle_time, Duration::from_millis(125));
        assert!(close(c.cca_spacing, 0.610));
        assert!(close(c.check_time_tx(), 3.662));
        assert!(close(c.listen_time_after_packet_detected, 12.482));
        assert!(close(c.inter_packet_interval, 0.397));
        assert!(close(c.after_ack_detected_wait, 0.641));
        assert!(close(c.strobe_time, 127.441));
        assert!(close(c.guard_time, 15.869));
        assert!(close(c.max_phase_strobe_time, 16.663));
        assert!(close(c.copy_period(&PhyConfig::default(), 80), 3.341));
        assert!(toml::from_str::<ContikiMacConfig>("cycle_time_ms = 62.5").is_ok());
        assert!(toml::from_str::<ContikiMacConfig>("cycle = 62.5").is_err());
        let bad = ContikiMacConfig { guard_time: Duration::from_millis(200), ..c };
        assert_eq!(bad.validate().unwrap_err().key, "guard_time_ms");
    }

    #[test]
    fn the_next_check_is_the_first_phase_multiple_at_or_after_now() {
        let c = ContikiMacConfig::default();
        let phase = ms(40.0);
        assert_eq!(c.next_check(phase, Instant::ZERO), at_ms(40.0));
        assert_eq!(c.next_check(phase, at_ms(40.0)), at_ms(40.0));
        assert_eq!(c.next_check(phase, at_ms(40.001)), at_ms(165.0));
        assert_eq!(c.next_check(phase, at_ms(1000.0)), at_ms(1040.0));
    }
}
