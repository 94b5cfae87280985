//! [`TokenBucket`]: the residual-bandwidth model of testbeds §2 (Makarem et al., §6.2).
//!
//! The path accepts at most `ResBW(t)` packets per second from the sender: a token bucket
//! filled at rate `ResBW(t)` tokens/s, holding at most `depth_packets` tokens (1 in the
//! testbed). A packet takes one token and passes at once; a packet that finds less than a
//! whole token is lost ([`DropReason::NoToken`]). Packet sizes do not matter.
//!
//! * `ResBW` is piecewise constant on periods `[k·P, (k+1)·P)` aligned to time zero
//!   (`P = period_ms`, 5 s in the testbed), each period's rate drawn uniformly from
//!   `[min_rate_pps, max_rate_pps]` on a grid of 10⁻⁹ packet/s. The rates are drawn in period
//!   order from the stage's **own** generator (a pipeline sub-stream), lazily, so the rate
//!   trajectory does not depend on the traffic. `min_rate_pps = max_rate_pps` is the
//!   fixed-rate option: no draws at all.
//! * The bucket is full at time zero.
//! * Token arithmetic is exact integer arithmetic: rates in nano-packets per second times
//!   nanoseconds, so one token is 10¹⁸ units and no rounding ever happens.

use coapcc_core::ConfigError;
use coapcc_core::duration::{from_nanos, nanos};
use coapcc_core::{Duration, Instant, Ratio};

use super::DropReason;
use crate::rng::{SimRng, below};

/// One token in the bucket's internal unit (nano-packets/s × ns).
const TOKEN: u128 = 1_000_000_000_000_000_000;

/// A gap of more than this many rate periods is jumped over (see [`TokenBucket::offer`]).
pub const SKIP_PERIODS: u64 = 1 << 20;

/// The ResBW redraw period of testbeds §2 (stated by the source).
pub const TESTBED_PERIOD: Duration = Duration::from_secs(5);

fn default_period() -> Duration {
    TESTBED_PERIOD
}

fn default_depth() -> u32 {
    1
}

/// Configuration of a [`TokenBucket`]. `period_ms` defaults to 5 000 and `depth_packets`
/// to 1 (testbeds §2); the rates are always stated.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenBucketConfig {
    /// Lower end `a` of the ResBW range, packets per second (≤ `max_rate_pps`).
    pub min_rate_pps: Ratio,
    /// Upper end `b` of the ResBW range, packets per second.
    pub max_rate_pps: Ratio,
    /// How often ResBW is redrawn (> 0; ignored for a fixed rate).
    #[serde(rename = "period_ms", with = "coapcc_core::serde_ms", default = "default_period")]
    pub period: Duration,
    /// Bucket depth in packets (≥ 1).
    #[serde(default = "default_depth")]
    pub depth_packets: u32,
}

impl TokenBucketConfig {
    /// ResBW redrawn every 5 s from U(`min`, `max`) packets/s, depth one packet (testbeds §2).
    pub const fn uniform(min_rate_pps: Ratio, max_rate_pps: Ratio) -> Self {
        TokenBucketConfig { min_rate_pps, max_rate_pps, period: TESTBED_PERIOD, depth_packets: 1 }
    }

    /// A fixed rate, depth one packet.
    pub const fn fixed(rate_pps: Ratio) -> Self {
        Self::uniform(rate_pps, rate_pps)
    }

    /// Checks the ranges: `min_rate_pps ≤ max_rate_pps`, `period_ms > 0`, `depth_packets ≥ 1`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.min_rate_pps > self.max_rate_pps {
            return Err(ConfigError::new("min_rate_pps", "must not exceed max_rate_pps"));
        }
        if self.period.is_zero() {
            return Err(ConfigError::new("period_ms", "must be greater than 0"));
        }
        if self.depth_packets == 0 {
            return Err(ConfigError::new("depth_packets", "must be at least 1"));
        }
        Ok(())
    }

    /// Whether the rate never changes.
    pub fn is_fixed(&self) -> bool {
        self.min_rate_pps == self.max_rate_pps
    }
}

/// A rate in nano-packets per second (rounded half up).
fn nano_pps(r: Ratio) -> u64 {
    let n = r.numer() as u128 * 1_000_000_000;
    ((n + r.denom() as u128 / 2) / r.denom() as u128) as u64
}

/// Statistics of a [`TokenBucket`] stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TokenBucketStats {
    /// Rate periods completed (rates drawn after the first).
    pub periods: u64,
}

/// A token bucket with a piecewise-constant random rate. See the module docs.
#[derive(Clone, Debug)]
pub struct TokenBucket {
    config: TokenBucketConfig,
    /// The rate trajectory's own generator.
    trajectory: SimRng,
    /// `[min, max]` rate in nano-packets per second.
    lo: u64,
    hi: u64,
    /// Current rate, nano-packets per second.
    rate: u64,
    /// End of the current rate period (`Instant::MAX` for a fixed rate).
    period_end: Instant,
    /// Tokens, in units of [`TOKEN`]`⁻¹`.
    tokens: u128,
    /// Bucket capacity in the same unit.
    capacity: u128,
    /// Time up to which tokens have been credited (the latest arrival).
    credited_to: Instant,
    /// Tokens credited since time zero, uncapped (for tests and reports).
    supplied: u128,
    stats: TokenBucketStats,
}

impl TokenBucket {
    /// Checks the configuration; draws the first period's rate from `trajectory`, which the
    /// stage keeps for later periods. The bucket starts full.
    pub fn new(config: TokenBucketConfig, trajectory: SimRng) -> Result<Self, ConfigError> {
        config.validate()?;
        let capacity = config.depth_packets as u128 * TOKEN;
        let (lo, hi) = (nano_pps(config.min_rate_pps), nano_pps(config.max_rate_pps));
        let mut tb = TokenBucket {
            config,
            trajectory,
            lo,
            hi,
            rate: lo,
            period_end: if config.is_fixed() { Instant::MAX } else { Instant::ZERO + config.period },
            tokens: capacity,
            capacity,
            credited_to: Instant::ZERO,
            supplied: 0,
            stats: TokenBucketStats::default(),
        };
        tb.rate = tb.draw_rate();
        Ok(tb)
    }

    /// The configuration.
    pub fn config(&self) -> &TokenBucketConfig {
        &self.config
    }

    /// Statistics so far.
    pub fn stats(&self) -> &TokenBucketStats {
        &self.stats
    }

    /// The current ResBW in packets per second (as of the latest arrival).
    pub fn rate_pps(&self) -> f64 {
        self.rate as f64 / 1e9
    }

    /// Tokens credited from time zero to the latest arrival, ignoring the depth limit
    /// (∫ ResBW dt).
    pub fn tokens_supplied(&self) -> f64 {
        self.supplied as f64 / TOKEN as f64
    }

    fn draw_rate(&mut self) -> u64 {
        if self.hi <= self.lo { self.lo } else { self.lo + below(&mut self.trajectory, self.hi - self.lo + 1) }
    }

    fn credit(&mut self, to: Instant) {
        let units = self.rate as u128 * nanos(to - self.credited_to) as u128;
        self.supplied = self.supplied.saturating_add(units);
        self.tokens = self.tokens.saturating_add(units).min(self.capacity);
        self.credited_to = to;
    }

    /// Let `k` be the number of whole periods between the end of the current period and
    /// `t`. When `k > SKIP_PERIODS`, the walk over those `k` period boundaries happens in one
    /// step: the rest of the current period is credited exactly; the generator is advanced
    /// past the draws of the first `k − 1` new periods (one `u64` each), so the rate drawn
    /// for period `k` (and every later one) is exactly the one a full walk would draw; those
    /// `k − 1` periods are credited at the mean rate `(min + max) / 2`, an approximation that
    /// only matters for a bucket deeper than a million periods' worth of tokens.
    fn skip_far_ahead(&mut self, t: Instant) {
        if self.period_end == Instant::MAX || t < self.period_end {
            return;
        }
        let period = nanos(self.config.period);
        let k = nanos(t - self.period_end) / period;
        if k <= SKIP_PERIODS {
            return;
        }
        let start = self.period_end;
        self.credit(start);
        if self.hi > self.lo {
            self.trajectory.advance((k - 1) as u128);
        }
        let whole = from_nanos(period.saturating_mul(k - 1));
        let mean = (self.lo as u128 + self.hi as u128) / 2;
        let units = mean.saturating_mul(nanos(whole) as u128);
        self.supplied = self.supplied.saturating_add(units);
        self.tokens = self.tokens.saturating_add(units).min(self.capacity);
        self.credited_to = start + whole;
        self.period_end = self.credited_to + self.config.period;
        self.rate = self.draw_rate();
        self.stats.periods += k;
    }

    /// A packet arrives at `now` (clamped to the latest arrival, see [`link`](super)): it
    /// passes at once if a whole token is available, else it is lost.
    #[inline]
    pub fn offer(&mut self, now: Instant) -> Result<Instant, DropReason> {
        let t = now.max(self.credited_to);
        self.skip_far_ahead(t);
        while self.period_end <= t && self.period_end != Instant::MAX {
            self.credit(self.period_end);
            self.period_end = self.period_end + self.config.period;
            self.rate = self.draw_rate();
            self.stats.periods += 1;
        }
        self.credit(t);
        if self.tokens >= TOKEN {
            self.tokens -= TOKEN;
            Ok(t)
        } else {
            Err(DropReason::NoToken)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;

    fn bucket(config: TokenBucketConfig) -> TokenBucket {
        TokenBucket::new(config, stream_rng(11, 0, 3)).unwrap()
    }

    #[test]
    fn a_fixed_rate_bucket_passes_one_packet_per_token_and_drops_the_rest() {
        // 1 packet/s, offered 10 packets/s for 100 s: the full bucket at t = 0 and one new
        // token each whole second.
        let mut tb = bucket(TokenBucketConfig::fixed(Ratio::ONE));
        let mut passed = Vec::new();
        for k in 0..1000u64 {
            if tb.offer(Instant::from_millis(k * 100)).is_ok() {
                passed.push(k);
            }
        }
        assert_eq!(passed.len(), 100);
        assert!(passed.iter().all(|k| k % 10 == 0));
        assert_eq!(tb.stats().periods, 0);
    }

    #[test]
    fn an_idle_bucket_holds_at_most_its_depth() {
        let mut tb = bucket(TokenBucketConfig::fixed(Ratio::integer(2)));
        let t = Instant::from_millis(60_000);
        assert!(tb.offer(t).is_ok());
        assert_eq!(tb.offer(t), Err(DropReason::NoToken));
        // 0.5 s later exactly one token has accrued.
        assert!(tb.offer(Instant::from_millis(60_500)).is_ok());
    }

    #[test]
    fn a_random_rate_bucket_never_passes_more_than_the_tokens_supplied() {
        let mut tb = bucket(TokenBucketConfig::uniform(Ratio::ZERO, Ratio::integer(2)));
        let mut rng = stream_rng(1, 0, 0);
        let (mut t, mut passed, mut dropped) = (Instant::ZERO, 0u128, 0u64);
        for _ in 0..100_000 {
            t = t + crate::rng::exponential(&mut rng, Duration::from_millis(20));
            match tb.offer(t) {
                Ok(_) => passed += 1,
                Err(_) => dropped += 1,
            }
            // One token to start with, plus everything credited since.
            assert!(passed * TOKEN <= TOKEN + tb.supplied);
        }
        assert!(dropped > 0);
        // Offered 50 packets/s ≫ mean rate 1: nearly every supplied token is used.
        assert!(passed as f64 > 0.9 * tb.tokens_supplied(), "{passed} {}", tb.tokens_supplied());
        assert_eq!(tb.stats().periods, (nanos(t - Instant::ZERO) / nanos(TESTBED_PERIOD)));
    }

    #[test]
    fn rates_are_drawn_within_their_range_and_per_period() {
        let c = TokenBucketConfig::uniform(Ratio::new(6, 10), Ratio::ONE);
        let mut tb = bucket(c);
        for k in 0..200u64 {
            let _ = tb.offer(Instant::from_millis(k * 5_000 + 1));
            assert!((0.6..=1.0).contains(&tb.rate_pps()), "{}", tb.rate_pps());
        }
        assert_eq!(tb.stats().periods, 199);
    }

    #[test]
    fn jumping_over_a_long_idle_gap_draws_the_same_rates_as_walking() {
        let c = TokenBucketConfig::uniform(Ratio::ZERO, Ratio::integer(2));
        let (mut walked, mut jumped) = (bucket(c), bucket(c));
        let far = SKIP_PERIODS + 10;
        for k in 0..far {
            let _ = walked.offer(Instant::ZERO + TESTBED_PERIOD * k as u32);
        }
        let t = Instant::ZERO + TESTBED_PERIOD * (far - 1) as u32;
        let _ = jumped.offer(t);
        assert_eq!(jumped.stats().periods, walked.stats().periods);
        assert_eq!(jumped.rate, walked.rate);
        let t = t + TESTBED_PERIOD * 3;
        let (_, _) = (walked.offer(t), jumped.offer(t));
        assert_eq!(jumped.rate, walked.rate);
        // Tokens supplied: ≈ 1 packet/s × 5 s × 2²⁰ periods, within 0.1 %.
        let (a, b) = (walked.tokens_supplied(), jumped.tokens_supplied());
        assert!((a - b).abs() < 1e-3 * a, "{a} {b}");
        // And an offer at the end of time terminates.
        let _ = jumped.offer(Instant::MAX);
    }

    #[test]
    fn out_of_range_values_name_their_keys() {
        let c = TokenBucketConfig::uniform(Ratio::integer(2), Ratio::ONE);
        assert_eq!(TokenBucket::new(c, stream_rng(0, 0, 0)).unwrap_err().key, "min_rate_pps");
        let c = TokenBucketConfig { period: Duration::ZERO, ..TokenBucketConfig::fixed(Ratio::ONE) };
        assert_eq!(c.validate().unwrap_err().key, "period_ms");
        let c = TokenBucketConfig { depth_packets: 0, ..TokenBucketConfig::fixed(Ratio::ONE) };
        assert_eq!(c.validate().unwrap_err().key, "depth_packets");
    }
}
