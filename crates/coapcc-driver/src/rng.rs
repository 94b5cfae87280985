//! Random streams and draws (determinism: `docs/architecture.md`, "Rules that keep it this way").
//!
//! One scenario seed; every consumer (each link direction, each node, each workload) gets
//! its own generator derived from `(seed, replication, stream id)` by [`stream_rng`]. The
//! derivation hashes the triple, so adding a consumer (a new stream id) never shifts the
//! draws of the others, and replication `r` of a scenario is the same whichever thread runs
//! it. Stream ids follow the conventions of [`Stream`]; a consumer that needs several
//! independent sub-streams (a link stage with its own trajectory) derives them with
//! [`sub_stream`].
//!
//! The draws are generic over [`rand_core::Rng`] (static dispatch). Integer draws are exact;
//! the continuous ones ([`exponential`], [`standard_normal`]) use `f64` and the platform's
//! `ln`/`cos`/`sqrt`, so they are reproducible on one platform (the rule for this crate), not
//! necessarily bit-identical across platforms.

use core::time::Duration;

use coapcc_core::Ratio;
use coapcc_core::duration::{from_nanos, nanos};
use rand_core::Rng;
use rand_pcg::Pcg64Mcg;

/// The simulator's generator: PCG-XSL-RR 128/64 (MCG), also known as `pcg64_fast`. Fast
/// (one 128-bit multiply per `u64`), 2¹²⁶ period, passes the usual statistical batteries.
pub type SimRng = Pcg64Mcg;

/// The SplitMix64 finaliser (Stafford's "Mix13"): a bijection on `u64` with full avalanche.
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The SplitMix64 increment (2⁶⁴/φ), used to separate the inputs of [`mix64`].
const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// The generator of stream `stream` (see [`Stream`]) in replication `replication` of the
/// scenario seeded with `seed`.
///
/// The 128-bit state is `mix64` chained over the three inputs (each input is offset by a
/// distinct multiple of the SplitMix64 increment 2⁶⁴/φ and mixed before it is combined), so every input bit
/// affects every state bit; for fixed `(seed, replication)` distinct stream ids give distinct
/// states (the chain is a bijection in `stream`).
pub fn stream_rng(seed: u64, replication: u32, stream: u64) -> SimRng {
    let h = mix64(seed.wrapping_add(GOLDEN));
    let h = mix64(h ^ mix64((replication as u64).wrapping_add(GOLDEN.wrapping_mul(2))));
    let lo = mix64(h ^ mix64(stream.wrapping_add(GOLDEN.wrapping_mul(3))));
    let hi = mix64(lo ^ GOLDEN.wrapping_mul(4));
    SimRng::new(((hi as u128) << 64) | lo as u128)
}

/// The id of the `k`-th sub-stream of `stream` (for `k ≥ 1`; `k = 0` is `stream` itself).
///
/// [`Pipeline`](crate::link::Pipeline) gives stage `i` of a direction whose stream is `s`
/// the sub-stream `sub_stream(s, i + 1)` for its own trajectory (Gilbert–Elliott states,
/// token-bucket rates), so the trajectory does not depend on the traffic.
pub const fn sub_stream(stream: u64, k: u64) -> u64 {
    if k == 0 { stream } else { mix64(stream ^ mix64(k.wrapping_mul(GOLDEN) ^ 0x5EED_5EED_5EED_5EED)) }
}

/// Stream-id conventions. An id is `tag << 32 | index`; tags are never reused, so ids stay
/// stable as consumers are added. Convert with [`Stream::id`] or `u64::from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stream {
    /// Link number `i` (topology order), direction towards the server / border router.
    LinkUp(u32),
    /// Link number `i` (topology order), direction towards the client / device.
    LinkDown(u32),
    /// Client node `i` (its endpoint and controller draws).
    Client(u32),
    /// Server node `i`.
    Server(u32),
    /// Workload generator `i` (start offsets, flow lengths).
    Workload(u32),
}

impl Stream {
    /// The numeric stream id.
    pub const fn id(self) -> u64 {
        let (tag, index) = match self {
            Stream::LinkUp(i) => (1u64, i),
            Stream::LinkDown(i) => (2, i),
            Stream::Client(i) => (3, i),
            Stream::Server(i) => (4, i),
            Stream::Workload(i) => (5, i),
        };
        (tag << 32) | index as u64
    }
}

impl From<Stream> for u64 {
    fn from(s: Stream) -> u64 {
        s.id()
    }
}

/// An integer uniform in `[0, n)` (zero when `n` is zero), by multiply-shift (Lemire; the
/// bias is below `n / 2⁶⁴`).
#[inline]
pub fn below<R: Rng + ?Sized>(rng: &mut R, n: u64) -> u64 {
    ((rng.next_u64() as u128 * n as u128) >> 64) as u64
}

/// A float uniform in `[0, 1)` with 53 random bits.
#[inline]
pub fn unit_f64<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A float uniform in `(0, 1]` with 53 random bits (safe to take the logarithm of).
#[inline]
pub fn open_unit_f64<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    ((rng.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A duration uniform in the closed range `[lo, hi]` with nanosecond resolution; `lo`
/// when `hi ≤ lo` (no draw is consumed then).
#[inline]
pub fn uniform_duration<R: Rng + ?Sized>(rng: &mut R, lo: Duration, hi: Duration) -> Duration {
    let (l, h) = (nanos(lo), nanos(hi));
    if h <= l {
        return lo;
    }
    let span = h - l;
    let offset = if span == u64::MAX { rng.next_u64() } else { below(rng, span + 1) };
    from_nanos(l + offset)
}

/// A duration drawn from the exponential distribution with the given mean: `−mean·ln U`,
/// `U` uniform in `(0, 1]`, rounded to the nanosecond and saturating.
#[inline]
pub fn exponential<R: Rng + ?Sized>(rng: &mut R, mean: Duration) -> Duration {
    let x = -(nanos(mean) as f64) * open_unit_f64(rng).ln();
    float_nanos(x)
}

/// A standard normal variate by the Box–Muller transform (two `u64` draws per call; the
/// second variate of the pair is discarded so the function is stateless).
#[inline]
pub fn standard_normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    let r = (-2.0 * open_unit_f64(rng).ln()).sqrt();
    let theta = core::f64::consts::TAU * unit_f64(rng);
    r * theta.cos()
}

/// A duration drawn from N(`mean`, `sd`²) truncated at zero: negative variates are
/// redrawn (a true truncation, not a clamp). Since `mean ≥ 0`, each draw is accepted with
/// probability at least ½; after 64 rejections (probability ≤ 2⁻⁶⁴) it returns zero so the
/// function stays total.
#[inline]
pub fn normal_duration<R: Rng + ?Sized>(rng: &mut R, mean: Duration, sd: Duration) -> Duration {
    if sd.is_zero() {
        return mean;
    }
    let (m, s) = (nanos(mean) as f64, nanos(sd) as f64);
    for _ in 0..64 {
        let x = m + s * standard_normal(rng);
        if x >= 0.0 {
            return float_nanos(x);
        }
    }
    Duration::ZERO
}

/// `true` with probability `p` (`p ≤ 0`: never, `p ≥ 1`: always; neither consumes a draw).
#[inline]
pub fn bernoulli_f64<R: Rng + ?Sized>(rng: &mut R, p: f64) -> bool {
    if p <= 0.0 || p.is_nan() {
        false
    } else if p >= 1.0 {
        true
    } else {
        unit_f64(rng) < p
    }
}

/// `true` with probability `p`, exactly (`below(den) < num`). Zero never, one or more
/// always; neither consumes a draw.
#[inline]
pub fn bernoulli<R: Rng + ?Sized>(rng: &mut R, p: Ratio) -> bool {
    if p.is_zero() {
        false
    } else if p.numer() >= p.denom() {
        true
    } else {
        below(rng, p.denom() as u64) < p.numer() as u64
    }
}

/// Rounds a non-negative number of nanoseconds to a duration, saturating (NaN → zero).
#[inline]
fn float_nanos(x: f64) -> Duration {
    if x.is_nan() || x <= 0.0 {
        Duration::ZERO
    } else if x >= u64::MAX as f64 {
        from_nanos(u64::MAX)
    } else {
        from_nanos((x + 0.5) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first_draws(mut rng: SimRng) -> [u64; 4] {
        [rng.next_u64(), rng.next_u64(), rng.next_u64(), rng.next_u64()]
    }

    #[test]
    fn the_same_triple_gives_the_same_stream() {
        assert_eq!(first_draws(stream_rng(7, 3, Stream::LinkUp(0).id())), first_draws(stream_rng(7, 3, 1 << 32)));
    }

    #[test]
    fn changing_any_input_gives_a_different_stream() {
        let base = first_draws(stream_rng(7, 3, Stream::LinkUp(0).id()));
        assert_ne!(base, first_draws(stream_rng(8, 3, Stream::LinkUp(0).id())));
        assert_ne!(base, first_draws(stream_rng(7, 4, Stream::LinkUp(0).id())));
        assert_ne!(base, first_draws(stream_rng(7, 3, Stream::LinkDown(0).id())));
        assert_ne!(base, first_draws(stream_rng(7, 3, Stream::LinkUp(1).id())));
        assert_ne!(base, first_draws(stream_rng(7, 3, sub_stream(Stream::LinkUp(0).id(), 1))));
    }

    #[test]
    fn stream_ids_are_distinct_across_kinds() {
        let ids = [
            Stream::LinkUp(0).id(),
            Stream::LinkDown(0).id(),
            Stream::Client(0).id(),
            Stream::Server(0).id(),
            Stream::Workload(0).id(),
            Stream::Client(1).id(),
        ];
        for (i, a) in ids.iter().enumerate() {
            for b in &ids[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(sub_stream(42, 0), 42);
        assert_ne!(sub_stream(42, 1), sub_stream(42, 2));
    }

    #[test]
    fn closed_uniform_reaches_both_ends_of_a_tiny_range() {
        let mut rng = stream_rng(1, 0, 0);
        let (lo, hi) = (Duration::from_nanos(10), Duration::from_nanos(12));
        let mut seen = [false; 3];
        for _ in 0..1000 {
            let d = uniform_duration(&mut rng, lo, hi);
            assert!(d >= lo && d <= hi);
            seen[(nanos(d) - 10) as usize] = true;
        }
        assert_eq!(seen, [true; 3]);
        assert_eq!(uniform_duration(&mut rng, hi, lo), hi);
    }

    #[test]
    fn exponential_draws_have_the_requested_mean() {
        let mut rng = stream_rng(2, 0, 0);
        let n = 200_000u32;
        let mean = Duration::from_secs(1);
        let sum: f64 = (0..n).map(|_| exponential(&mut rng, mean).as_secs_f64()).sum();
        // Standard error of the mean of an exponential is mean / √n ≈ 2.2 ms; allow 5 of them.
        assert!((sum / n as f64 - 1.0).abs() < 5.0 / (n as f64).sqrt(), "{}", sum / n as f64);
    }

    #[test]
    fn exact_bernoulli_honours_zero_and_one_without_drawing() {
        let mut a = stream_rng(3, 0, 0);
        let b = a.clone();
        assert!(!bernoulli(&mut a, Ratio::ZERO));
        assert!(bernoulli(&mut a, Ratio::ONE));
        assert!(!bernoulli_f64(&mut a, 0.0));
        assert!(bernoulli_f64(&mut a, 1.0));
        assert_eq!(a, b);
    }

    #[test]
    fn exact_bernoulli_hits_its_probability() {
        let mut rng = stream_rng(4, 0, 0);
        let n = 100_000u32;
        let hits = (0..n).filter(|_| bernoulli(&mut rng, Ratio::new(1, 5))).count() as f64;
        // Binomial standard deviation √(n·0.2·0.8) ≈ 126; allow 5 of them.
        assert!((hits - 20_000.0).abs() < 5.0 * 126.5, "{hits}");
    }

    #[test]
    fn a_zero_spread_normal_is_its_mean() {
        let mut rng = stream_rng(5, 0, 0);
        assert_eq!(normal_duration(&mut rng, Duration::from_millis(3), Duration::ZERO), Duration::from_millis(3));
        for _ in 0..1000 {
            // Mean zero: half the variates are redrawn; none may come out negative.
            let _ = normal_duration(&mut rng, Duration::ZERO, Duration::from_millis(1));
        }
    }
}
