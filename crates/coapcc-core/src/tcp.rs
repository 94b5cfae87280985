//! The configuration shared by the window-of-one TCP timers, uIP ([`crate::algorithms::uip`])
//! and Lim's scheme ([`crate::algorithms::lim`]): the same keys, different defaults
//! ([`TcpDefaults`]).

use core::marker::PhantomData;
use core::time::Duration;

use crate::estimators::vj::{MdevInit, RTT_UNIT, TICK};

/// Lim \[S4\] §4.2.3, §6: retransmissions before the connection is deemed broken (also uIP
/// with dithering, as in Lim's evaluation).
pub const LIM_MAX_RETRANSMIT: u8 = 15;

/// What differs between the defaults of uIP and Lim.
pub trait TcpDefaults: Clone + Copy + core::fmt::Debug + Default + PartialEq + Eq {
    /// Retransmissions before giving up.
    const MAX_RETRANSMIT: u8;
    /// Whether timers are dithered.
    const DITHER: bool;
}

/// Configuration of a window-of-one TCP timer (uIP or Lim). `Default` takes `D`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(deny_unknown_fields, default, bound(serialize = "", deserialize = "D: TcpDefaults"))
)]
pub struct TcpConfig<D> {
    /// Unit of RTT samples, `sa`, `sv`, `rto` and `UIP_RTO` (spec OQ-37: 1 s). 500 ms gives
    /// the unfixed uIP whose timers expire twice too early (Lim §4.1).
    #[cfg_attr(feature = "serde", serde(rename = "rtt_unit_ms", with = "crate::config::serde_ms"))]
    pub rtt_unit: Duration,
    /// Countdown resolution and dither quantum (spec OQ-37: 0.5 s); divides `rtt_unit`.
    #[cfg_attr(feature = "serde", serde(rename = "tick_ms", with = "crate::config::serde_ms"))]
    pub tick: Duration,
    /// Initial `sv` (spec OQ-34: uIP's 16; `literal` = Lim's Table 2 "MDEV = 16 s").
    pub mdev_init: MdevInit,
    /// Retransmissions before giving up (uIP's `UIP_MAXRTX` = 8; Lim: 15).
    pub max_retransmit: u8,
    /// Start afresh (`rto = 3`, `sa = 0`, `sv` initial) after a give-up, as uIP's new
    /// connection does.
    pub reset_on_give_up: bool,
    /// Lim's dithering of every timer (spec §9.2–9.3). uIP itself does not dither.
    pub dither: bool,
    /// Which defaults (no key of its own).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub defaults: PhantomData<D>,
}

impl<D: TcpDefaults> Default for TcpConfig<D> {
    fn default() -> Self {
        TcpConfig {
            rtt_unit: RTT_UNIT,
            tick: TICK,
            mdev_init: MdevInit::Uip,
            max_retransmit: D::MAX_RETRANSMIT,
            reset_on_give_up: true,
            dither: D::DITHER,
            defaults: PhantomData,
        }
    }
}
