//! Van Jacobson's scaled-integer RTT estimator as uIP codes it (spec §9.1), shared by the uIP
//! and Lim controllers ([`crate::algorithms::uip`], [`crate::algorithms::lim`]): `sa` = 8 ×
//! SRTT, `sv` = 4 × MDEV, `rto`, in integer RTT units, widened from uIP's `u8` (see the uIP
//! module docs for the time quanta, spec OQ-37, and the integer widths).

use core::time::Duration;

use crate::config::ConfigError;
use crate::time::{mul, nanos};

/// uIP `UIP_RTO`: the initial RTO and the base of every retransmission timer, in RTT units.
pub const UIP_RTO: u32 = 3;
/// uIP `uip_connect`: initial `sv` (= 4 × MDEV, so MDEV = 4 RTT units), spec OQ-34.
pub const UIP_INITIAL_SV: u32 = 16;
/// Lim \[S4\] §3.1: "the basic time unit for RTT and RTO is 1 s".
pub const RTT_UNIT: Duration = Duration::from_secs(1);
/// uIP's periodic timer (Contiki: `CLOCK_SECOND / 2`), which drives the countdown.
pub const TICK: Duration = Duration::from_millis(500);
/// Lim \[S4\] Table 2 read literally (spec OQ-34 option): "MDEV = 16 s".
pub const LITERAL_MDEV: Duration = Duration::from_secs(16);
/// Largest RTT sample, in RTT units, folded into the estimator (larger ones are clamped):
/// with it `sa` (8 × SRTT) always fits a `u32`.
pub const MAX_SAMPLE: u32 = u32::MAX >> 3;
/// `sv` never falls below min(initial `sv`, 3): `sv − ⌊sv/4⌋ ≥ 3` for `sv ≥ 3` and
/// `sv − ⌊sv/4⌋ = sv` below. Hence every estimated `rto` is at least that many units.
pub const SV_FLOOR: u32 = 3;

/// The initial mean deviation (spec OQ-34).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum MdevInit {
    /// uIP's `sv = 16`, which in uIP's scaling is 4 × MDEV (MDEV = 4 RTT units). Spec OQ-34.
    #[default]
    Uip,
    /// Lim's Table 2 literally: MDEV = 16 s, i.e. `sv` = ⌊4 × 16 s / rtt_unit⌋ (64 with 1 s units).
    Literal,
}

impl MdevInit {
    /// The initial `sv` in units of `rtt_unit` (> 0).
    pub fn initial_sv(self, rtt_unit: Duration) -> u32 {
        match self {
            MdevInit::Uip => UIP_INITIAL_SV,
            MdevInit::Literal => {
                let sv = nanos(mul(LITERAL_MDEV, 4)).checked_div(nanos(rtt_unit)).unwrap_or(0);
                u32::try_from(sv).unwrap_or(u32::MAX)
            }
        }
    }
}

/// Van Jacobson's scaled-integer RTT estimator as uIP keeps it per connection (`struct
/// uip_conn`), widened from `u8` to `u32` (see the module docs). All values are in RTT units.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VjState {
    /// `sa`: 8 × SRTT, in RTT units (SRTT = `sa` / 8).
    pub sa: u32,
    /// `sv`: 4 × MDEV, in RTT units (MDEV = `sv` / 4).
    pub sv: u32,
    /// `rto`: the estimated retransmission timeout, in RTT units; arms first transmissions
    /// (and, in Lim's scheme, is the base of the backoff).
    pub rto: u32,
}

impl VjState {
    /// uIP's fresh connection: `rto = UIP_RTO`, `sa = 0`, `sv = sv`.
    pub const fn initial(sv: u32) -> Self {
        VjState { sa: 0, sv, rto: UIP_RTO }
    }

    /// Folds in an RTT sample of `m` RTT units, exactly as uIP does ("taken directly from
    /// VJs original code in his paper"), with widened, clamped integers.
    pub fn sample(&mut self, m: u32) {
        let m = m.min(MAX_SAMPLE);
        // uip.c: m = m - (sa >> 3); sa += m;   (Err = R − SRTT; SRTT += Err/8)
        let mut m = i64::from(m) - i64::from(self.sa >> 3);
        self.sa = clamp_u32(i64::from(self.sa) + m);
        // uip.c: if(m < 0) m = -m;   (|m| ≤ 2^32: no overflow in i64)
        m = m.abs();
        // uip.c: m = m - (sv >> 2); sv += m;   (MDEV += (|Err| − MDEV)/4)
        m -= i64::from(self.sv >> 2);
        self.sv = clamp_u32(i64::from(self.sv) + m);
        // uip.c: rto = (sa >> 3) + sv;   (RTO = SRTT + 4·MDEV)
        self.rto = (self.sa >> 3).saturating_add(self.sv);
    }
}

fn clamp_u32(x: i64) -> u32 {
    u32::try_from(x.clamp(0, i64::from(u32::MAX))).unwrap_or(u32::MAX)
}

/// An RTT of `r` in whole RTT units: ⌊r / rtt_unit⌋ (module docs, spec OQ-37), clamped to
/// [`MAX_SAMPLE`].
pub fn sample_units(r: Duration, rtt_unit: Duration) -> u32 {
    let q = nanos(r).checked_div(nanos(rtt_unit)).unwrap_or(0);
    u32::try_from(q.min(u64::from(MAX_SAMPLE))).unwrap_or(MAX_SAMPLE)
}

/// Checks the two quanta shared by uIP and Lim (spec OQ-37).
pub fn check_quanta(rtt_unit: Duration, tick: Duration) -> Result<(), ConfigError> {
    if tick.is_zero() {
        return Err(ConfigError::new("tick_ms", "must be greater than 0"));
    }
    if rtt_unit.is_zero() {
        return Err(ConfigError::new("rtt_unit_ms", "must be greater than 0"));
    }
    if nanos(rtt_unit) % nanos(tick) != 0 {
        return Err(ConfigError::new(
            "rtt_unit_ms",
            "must be a whole multiple of tick_ms (RTOs are counted down in ticks)",
        ));
    }
    Ok(())
}
