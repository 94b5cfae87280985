//! Tick dithering (Lim, Sensors 20(17) 4774, 2020 \[S4\], Table 2; spec §9.2–9.3, OQ-36):
//! a timer of `T` whole ticks gets `+ U_int[0, T >> s)` ticks, `s` = 0, 1 or 2 by the
//! timer's size (see [`crate::algorithms::lim`]). Used by Lim's scheme and by uIP with
//! dithering.

use core::time::Duration;

use crate::random::{Rng, below};
use crate::time::{add, mul, nanos};

/// Lim \[S4\] Table 2: above this a timer is dithered by at most half of itself (else by at
/// most all of itself).
pub const DITHER_HALF_ABOVE: Duration = Duration::from_secs(4);
/// Lim \[S4\] Table 2: above this a retransmission timer is dithered by at most a quarter.
pub const DITHER_QUARTER_ABOVE: Duration = Duration::from_secs(12);

/// Whole ticks in `t`.
fn ticks(t: Duration, tick: Duration) -> u64 {
    nanos(t).checked_div(nanos(tick)).unwrap_or(0)
}

/// `t + U_int[0, ticks(t) >> shift)` ticks (module docs: half-open, shift-floored).
fn add_ticks(rng: &mut dyn Rng, t: Duration, tick: Duration, shift: u32) -> Duration {
    add(t, mul(tick, below(rng, ticks(t, tick) >> shift)))
}

/// The largest value of [`add_ticks`] for this `t`.
fn add_ticks_max(t: Duration, tick: Duration, shift: u32) -> Duration {
    add(t, mul(tick, (ticks(t, tick) >> shift).saturating_sub(1)))
}

fn first_shift(t: Duration) -> u32 {
    u32::from(t > DITHER_HALF_ABOVE)
}

fn retransmission_shift(t: Duration) -> u32 {
    if t > DITHER_QUARTER_ABOVE { 2 } else { u32::from(t > DITHER_HALF_ABOVE) }
}

/// Lim Table 2, first transmission: `t > 4 s`: `t + U_int[0, t/2)`, else `t + U_int[0, t)`,
/// in whole ticks.
pub fn dither_first(rng: &mut dyn Rng, t: Duration, tick: Duration) -> Duration {
    add_ticks(rng, t, tick, first_shift(t))
}

/// Lim Table 2, retransmission: `t > 12 s`: `+ U_int[0, t/4)`; `t > 4 s`: `+ U_int[0, t/2)`;
/// else `+ U_int[0, t)` (spec OQ-36: half-open), in whole ticks.
pub fn dither_retransmission(rng: &mut dyn Rng, t: Duration, tick: Duration) -> Duration {
    add_ticks(rng, t, tick, retransmission_shift(t))
}

/// An upper bound on [`dither_first`] for every undithered `t ≤ t_max` (each branch is
/// monotone in `t`, so its largest `t` gives its largest value).
pub fn first_dither_bound(t_max: Duration, tick: Duration) -> Duration {
    let low = add_ticks_max(t_max.min(DITHER_HALF_ABOVE), tick, 0);
    if t_max > DITHER_HALF_ABOVE { low.max(add_ticks_max(t_max, tick, 1)) } else { low }
}

/// An upper bound on [`dither_retransmission`] for every undithered `t ≤ t_max`.
pub fn retransmission_dither_bound(t_max: Duration, tick: Duration) -> Duration {
    let mut m = add_ticks_max(t_max.min(DITHER_HALF_ABOVE), tick, 0);
    if t_max > DITHER_HALF_ABOVE {
        m = m.max(add_ticks_max(t_max.min(DITHER_QUARTER_ABOVE), tick, 1));
    }
    if t_max > DITHER_QUARTER_ABOVE {
        m = m.max(add_ticks_max(t_max, tick, 2));
    }
    m
}
