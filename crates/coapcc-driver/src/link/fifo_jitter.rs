//! [`FifoJitter`]: a uniform random delay in `[lo, hi]` per packet without overtaking
//! (testbeds §1 "rest of path": independent U[10, 20] ms one way, FIFO).
//!
//! Each packet draws `U` uniform in the closed range `[lo, hi]` (nanosecond resolution,
//! from the pipeline's RNG) and leaves at `max(now + U, previous leave)`: a packet whose
//! draw would let it overtake its predecessor leaves together with it instead. So the delay
//! is within `[lo, hi]` whenever the predecessor left before `now + lo`, which holds when
//! packets arrive at least `hi − lo` apart.

use coapcc_core::ConfigError;
use coapcc_core::duration::nanos;
use coapcc_core::{Duration, Instant};
use rand_core::Rng;

use crate::rng::below;

/// Configuration of a [`FifoJitter`] stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FifoJitterConfig {
    /// Smallest delay (≤ `hi_ms`).
    #[serde(rename = "lo_ms", with = "coapcc_core::serde_ms")]
    pub lo: Duration,
    /// Largest delay (≥ `lo_ms`).
    #[serde(rename = "hi_ms", with = "coapcc_core::serde_ms")]
    pub hi: Duration,
}

impl FifoJitterConfig {
    /// Delays uniform in `[lo, hi]`.
    pub const fn new(lo: Duration, hi: Duration) -> Self {
        FifoJitterConfig { lo, hi }
    }

    /// Checks `lo ≤ hi`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.lo > self.hi {
            return Err(ConfigError::new("lo_ms", "must not exceed hi_ms"));
        }
        Ok(())
    }
}

/// Statistics of a [`FifoJitter`] stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FifoJitterStats {
    /// Packets held back so as not to overtake their predecessor.
    pub held_back: u64,
}

/// Uniform FIFO jitter. See the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FifoJitter {
    config: FifoJitterConfig,
    /// The latest arrival (earlier arrivals are clamped to it).
    last_arrival: Instant,
    /// When the previous packet left.
    last_leave: Instant,
    stats: FifoJitterStats,
    /// `config.lo` and `hi − lo` in nanoseconds (the per-packet draw stays in integers).
    lo_ns: u64,
    span_ns: u64,
}

impl FifoJitter {
    /// Checks the configuration and builds the stage.
    pub fn new(config: FifoJitterConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        let (lo_ns, hi_ns) = (nanos(config.lo), nanos(config.hi));
        Ok(FifoJitter {
            config,
            last_arrival: Instant::ZERO,
            last_leave: Instant::ZERO,
            stats: FifoJitterStats::default(),
            lo_ns,
            span_ns: hi_ns.saturating_sub(lo_ns),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &FifoJitterConfig {
        &self.config
    }

    /// Statistics so far.
    pub fn stats(&self) -> &FifoJitterStats {
        &self.stats
    }

    /// Delays a packet arriving at `now` (clamped to the latest arrival, see
    /// [`link`](super)); never earlier than the previous packet leaves.
    /// One draw per packet (none when `lo = hi`).
    #[inline]
    pub fn offer<R: Rng + ?Sized>(&mut self, now: Instant, rng: &mut R) -> Instant {
        let now = now.max(self.last_arrival);
        self.last_arrival = now;
        // Uniform in [lo, hi] (the same draw as `rng::uniform_duration`, in integers).
        let offset = match self.span_ns {
            0 => 0,
            u64::MAX => rng.next_u64(),
            span => below(rng, span + 1),
        };
        let leave = Instant::from_nanos(now.as_nanos().saturating_add(self.lo_ns).saturating_add(offset));
        if leave < self.last_leave {
            self.stats.held_back += 1;
        } else {
            self.last_leave = leave;
        }
        self.last_leave
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;

    #[test]
    fn a_reversed_range_names_its_key() {
        let err = FifoJitter::new(FifoJitterConfig::new(Duration::from_millis(20), Duration::from_millis(10)));
        assert_eq!(err.unwrap_err().key, "lo_ms");
    }

    #[test]
    fn a_packet_that_would_overtake_leaves_with_its_predecessor() {
        let mut j = FifoJitter::new(FifoJitterConfig::new(Duration::ZERO, Duration::from_millis(10))).unwrap();
        let mut rng = stream_rng(9, 0, 0);
        let mut last = Instant::ZERO;
        for _ in 0..1000 {
            let leave = j.offer(Instant::from_millis(5), &mut rng);
            assert!(leave >= last && leave <= Instant::from_millis(15));
            last = leave;
        }
        assert!(j.stats().held_back > 900, "{}", j.stats().held_back);
    }
}
