//! Random draws from an RNG the caller owns ([`rand_core::Rng`]). Controllers never create
//! or seed generators; the driver passes one into every call that may need it, so the same
//! seed gives the same timers in the simulator, in the replay tool and on a real socket.
//!
//! Draws use integer arithmetic only (`next_u64` scaled into a range of nanoseconds), so a
//! given generator state yields the same duration on every target.

use core::time::Duration;

pub use rand_core::Rng;

use crate::ratio::Ratio;
use crate::time::{from_nanos, nanos};

/// An integer uniform in `[0, n)` (zero when `n` is zero), by multiply-shift.
#[inline]
pub fn below(rng: &mut dyn Rng, n: u64) -> u64 {
    ((rng.next_u64() as u128 * n as u128) >> 64) as u64
}

/// A duration uniform in `[lo, hi)` with nanosecond resolution; `lo` when `hi ≤ lo`.
#[cfg_attr(not(target_os = "none"), inline)]
#[cfg_attr(target_os = "none", inline(never))] // code size: see crate::time
pub fn uniform(rng: &mut dyn Rng, lo: Duration, hi: Duration) -> Duration {
    let (l, h) = (nanos(lo), nanos(hi));
    if h <= l {
        return lo;
    }
    from_nanos(l + below(rng, h - l))
}

/// RFC 7252 §4.2 dithering: a duration uniform in `[base, base × factor)`.
#[inline]
pub fn dither_factor(rng: &mut dyn Rng, base: Duration, factor: Ratio) -> Duration {
    uniform(rng, base, factor.mul_duration(base))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand_core::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    #[test]
    fn uniform_draws_stay_in_the_half_open_range() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let (lo, hi) = (Duration::from_secs(2), Duration::from_secs(3));
        for _ in 0..10_000 {
            let d = uniform(&mut rng, lo, hi);
            assert!(d >= lo && d < hi, "{d:?}");
        }
    }

    #[test]
    fn an_empty_range_returns_its_lower_end() {
        let mut rng = Pcg64Mcg::seed_from_u64(7);
        let d = Duration::from_secs(2);
        assert_eq!(uniform(&mut rng, d, d), d);
        assert_eq!(uniform(&mut rng, d, Duration::ZERO), d);
        assert_eq!(below(&mut rng, 0), 0);
    }

    #[test]
    fn dithering_by_one_is_no_dithering() {
        let mut rng = Pcg64Mcg::seed_from_u64(1);
        let d = Duration::from_millis(1234);
        assert_eq!(dither_factor(&mut rng, d, Ratio::ONE), d);
    }
}
