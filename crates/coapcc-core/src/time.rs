//! Time as the controllers see it: an [`Instant`] chosen by the driver and
//! [`core::time::Duration`]s. All arithmetic saturates; nothing here panics.
//!
//! Internally every duration a controller computes is held in whole nanoseconds in a `u64`
//! (about 584 years), which is also the range of an [`Instant`]. Longer durations saturate.
//!
//! # Code size on bare-metal targets
//!
//! The conversions between [`Duration`] and nanoseconds ([`nanos`], [`from_nanos`]: a 64-bit
//! multiply-add and a 64-bit division by 10⁹ on a 32-bit core), [`crate::Ratio::mul_duration`]
//! and [`crate::Ratio::blend`] (a 128-bit division, about 800 bytes of Thumb code) and
//! [`crate::random::uniform`] are called from every algorithm. On hosts they are `#[inline]`
//! (speed); built for a target without an operating system (`target_os = "none"`, the
//! Cortex-M firmware) they are `#[inline(never)]`, so each exists once instead of once per
//! call site (`tools/size-probe/measure` shows the difference). The results are the same
//! either way; only where the code lives changes.

use core::fmt;
use core::ops::{Add, Sub};
use core::time::Duration;

/// A duration kept in 8 bytes: whole nanoseconds in a `u64` (about 584 years), for the
/// per-destination state of the controllers ([`core::time::Duration`] takes 16 bytes).
/// Conversions from a longer [`Duration`] saturate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nanos(u64);

impl Nanos {
    /// Zero.
    pub const ZERO: Nanos = Nanos(0);

    /// `d` in whole nanoseconds, saturating at `u64::MAX` ns.
    pub fn new(d: Duration) -> Self {
        Nanos(nanos(d))
    }

    /// The duration.
    pub const fn get(self) -> Duration {
        from_nanos(self.0)
    }

    /// Whole nanoseconds.
    pub const fn as_u64(self) -> u64 {
        self.0
    }
}

impl From<Duration> for Nanos {
    fn from(d: Duration) -> Self {
        Nanos::new(d)
    }
}

impl From<Nanos> for Duration {
    fn from(n: Nanos) -> Self {
        n.get()
    }
}

impl PartialEq<Duration> for Nanos {
    fn eq(&self, other: &Duration) -> bool {
        self.get() == *other
    }
}

/// An optional duration kept in 8 bytes (`Option<Duration>` takes 16): whole nanoseconds, with
/// `u64::MAX` standing for `None`. A present duration saturates at `u64::MAX − 1` ns (about
/// 584 years), so it never reads back as `None`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OptNanos(u64);

impl OptNanos {
    /// Nothing.
    pub const NONE: OptNanos = OptNanos(u64::MAX);

    /// `d` in whole nanoseconds (saturating at `u64::MAX − 1`), or nothing.
    pub fn new(d: Option<Duration>) -> Self {
        match d {
            Some(d) => OptNanos(nanos(d).min(u64::MAX - 1)),
            None => OptNanos::NONE,
        }
    }

    /// The duration, if any.
    pub const fn get(self) -> Option<Duration> {
        if self.0 == u64::MAX { None } else { Some(from_nanos(self.0)) }
    }

    /// Whether there is nothing.
    pub const fn is_none(self) -> bool {
        self.0 == u64::MAX
    }

    /// Whether there is a duration.
    pub const fn is_some(self) -> bool {
        self.0 != u64::MAX
    }
}

impl Default for OptNanos {
    fn default() -> Self {
        OptNanos::NONE
    }
}

impl fmt::Debug for OptNanos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.get().fmt(f)
    }
}

impl From<Option<Duration>> for OptNanos {
    fn from(d: Option<Duration>) -> Self {
        OptNanos::new(d)
    }
}

impl From<Duration> for OptNanos {
    fn from(d: Duration) -> Self {
        OptNanos::new(Some(d))
    }
}

impl PartialEq<Option<Duration>> for OptNanos {
    fn eq(&self, other: &Option<Duration>) -> bool {
        self.get() == *other
    }
}

/// A point in time, in nanoseconds since an epoch the driver chooses (the simulator uses the
/// start of the run; the UDP driver the moment its endpoint was created).
///
/// `Instant` never reads a clock: drivers construct it and pass it into every call.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Instant {
    nanos: u64,
}

impl Instant {
    /// The driver's epoch.
    pub const ZERO: Instant = Instant { nanos: 0 };
    /// The latest representable instant.
    pub const MAX: Instant = Instant { nanos: u64::MAX };

    /// The instant `nanos` nanoseconds after the epoch.
    pub const fn from_nanos(nanos: u64) -> Self {
        Instant { nanos }
    }

    /// The instant `millis` milliseconds after the epoch (saturating).
    pub const fn from_millis(millis: u64) -> Self {
        Instant { nanos: millis.saturating_mul(1_000_000) }
    }

    /// Nanoseconds since the epoch.
    pub const fn as_nanos(self) -> u64 {
        self.nanos
    }

    /// Time elapsed since the epoch.
    pub const fn since_epoch(self) -> Duration {
        from_nanos(self.nanos)
    }

    /// `self − earlier`, or zero if `earlier` is later than `self`.
    pub fn saturating_duration_since(self, earlier: Instant) -> Duration {
        from_nanos(self.nanos.saturating_sub(earlier.nanos))
    }

    /// `self + d`, clamped to [`Instant::MAX`].
    pub fn saturating_add(self, d: Duration) -> Instant {
        Instant { nanos: self.nanos.saturating_add(nanos(d)) }
    }

    /// `self − d`, clamped to [`Instant::ZERO`].
    pub fn saturating_sub(self, d: Duration) -> Instant {
        Instant { nanos: self.nanos.saturating_sub(nanos(d)) }
    }
}

impl Add<Duration> for Instant {
    type Output = Instant;
    /// Saturating: see [`Instant::saturating_add`].
    fn add(self, d: Duration) -> Instant {
        self.saturating_add(d)
    }
}

impl Sub<Instant> for Instant {
    type Output = Duration;
    /// Saturating: see [`Instant::saturating_duration_since`].
    fn sub(self, earlier: Instant) -> Duration {
        self.saturating_duration_since(earlier)
    }
}

impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "t={}", Millis(self.since_epoch()))
    }
}

/// A duration's length in nanoseconds, saturated to `u64`.
#[cfg_attr(not(target_os = "none"), inline)]
#[cfg_attr(target_os = "none", inline(never))] // code size: see crate::time
pub fn nanos(d: Duration) -> u64 {
    let n = d.as_nanos();
    if n > u64::MAX as u128 { u64::MAX } else { n as u64 }
}

/// A duration of `n` nanoseconds.
#[cfg_attr(not(target_os = "none"), inline)]
#[cfg_attr(target_os = "none", inline(never))] // code size: see crate::time
pub const fn from_nanos(n: u64) -> Duration {
    Duration::from_nanos(n)
}

/// `a + b`, saturating at `u64::MAX` nanoseconds.
#[inline]
pub fn add(a: Duration, b: Duration) -> Duration {
    from_nanos(nanos(a).saturating_add(nanos(b)))
}

/// `|a − b|`.
#[inline]
pub fn abs_diff(a: Duration, b: Duration) -> Duration {
    from_nanos(nanos(a).abs_diff(nanos(b)))
}

/// `d × k`, saturating.
#[inline]
pub fn mul(d: Duration, k: u64) -> Duration {
    from_nanos(nanos(d).saturating_mul(k))
}

/// `d / k` (truncating); `d` itself when `k` is zero.
#[inline]
pub fn div(d: Duration, k: u64) -> Duration {
    nanos(d).checked_div(k).map_or(d, from_nanos)
}

/// `d << shift`, saturating (`shift` ≥ 64 saturates any non-zero `d`).
#[inline]
pub fn shl(d: Duration, shift: u32) -> Duration {
    let n = nanos(d);
    if n == 0 {
        return d;
    }
    if shift >= 64 || n.leading_zeros() < shift {
        return from_nanos(u64::MAX);
    }
    from_nanos(n << shift)
}

/// Displays a duration in milliseconds with up to six decimals (exact to the nanosecond,
/// trailing zeros trimmed, at least one decimal): `2000.0`, `1431.25`, `2166.666666`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Millis(pub Duration);

impl fmt::Display for Millis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = nanos(self.0);
        let whole = n / 1_000_000;
        let mut frac = n % 1_000_000;
        if frac == 0 {
            return write!(f, "{whole}.0");
        }
        let mut width = 6;
        while frac % 10 == 0 {
            frac /= 10;
            width -= 1;
        }
        write!(f, "{whole}.{frac:0width$}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instant_arithmetic_saturates_at_both_ends() {
        assert_eq!(Instant::MAX + Duration::from_secs(1), Instant::MAX);
        assert_eq!(Instant::ZERO - Instant::from_millis(5), Duration::ZERO);
        assert_eq!(Instant::ZERO.saturating_sub(Duration::from_secs(1)), Instant::ZERO);
    }

    #[test]
    fn durations_beyond_u64_nanoseconds_saturate() {
        assert_eq!(nanos(Duration::MAX), u64::MAX);
        assert_eq!(shl(Duration::from_secs(1), 63), from_nanos(u64::MAX));
        assert_eq!(shl(Duration::from_secs(3), 4), Duration::from_secs(48));
        assert_eq!(shl(Duration::ZERO, 200), Duration::ZERO);
    }

    #[test]
    fn millis_display_is_exact_and_trimmed() {
        extern crate std;
        use std::string::ToString;
        assert_eq!(Millis(Duration::from_secs(2)).to_string(), "2000.0");
        assert_eq!(Millis(Duration::from_nanos(1_431_250_000)).to_string(), "1431.25");
        assert_eq!(Millis(Duration::from_nanos(2_166_666_666)).to_string(), "2166.666666");
        assert_eq!(Millis(Duration::from_nanos(1)).to_string(), "0.000001");
    }
}
