//! [`Propagation`]: a fixed delay (testbeds §1: 200 ms one way on the uplink, 400 ms on the
//! downlink). Stateless, so it accepts arrivals in any order and never reorders packets.

use coapcc_core::ConfigError;
use coapcc_core::{Duration, Instant};

/// Configuration of a [`Propagation`] stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropagationConfig {
    /// One-way delay added to every packet (any value ≥ 0).
    #[serde(rename = "delay_ms", with = "coapcc_core::serde_ms")]
    pub delay: Duration,
}

impl PropagationConfig {
    /// A delay of `delay`.
    pub const fn new(delay: Duration) -> Self {
        PropagationConfig { delay }
    }

    /// Every value is valid (kept for symmetry with the other stages).
    pub fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}

/// A fixed propagation delay.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Propagation {
    delay: Duration,
}

impl Propagation {
    /// Builds the stage.
    pub fn new(config: PropagationConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Propagation { delay: config.delay })
    }

    /// The delay.
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// The packet leaves at `now + delay` (saturating).
    #[inline]
    pub fn offer(&mut self, now: Instant) -> Instant {
        now + self.delay
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_packet_is_delayed_by_exactly_the_configured_delay() {
        let mut p = Propagation::new(PropagationConfig::new(Duration::from_millis(400))).unwrap();
        assert_eq!(p.offer(Instant::from_millis(14)), Instant::from_millis(414));
        assert_eq!(p.offer(Instant::from_millis(3)), Instant::from_millis(403));
        assert_eq!(p.offer(Instant::MAX), Instant::MAX);
    }
}
