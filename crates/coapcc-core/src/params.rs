//! RFC 7252 §4.8 transmission parameters and the values §4.8.2 derives from them.

use core::time::Duration;

use crate::config::ConfigError;
use crate::ratio::Ratio;
use crate::time::{add, mul};

/// RFC 7252 §4.8: ACK_TIMEOUT, 2 s.
pub const ACK_TIMEOUT: Duration = Duration::from_secs(2);
/// RFC 7252 §4.8: ACK_RANDOM_FACTOR, 1.5.
pub const ACK_RANDOM_FACTOR: Ratio = Ratio::new(3, 2);
/// RFC 7252 §4.8: MAX_RETRANSMIT, 4.
pub const MAX_RETRANSMIT: u8 = 4;
/// RFC 7252 §4.8: NSTART, 1.
pub const NSTART: u16 = 1;
/// RFC 7252 §4.8: DEFAULT_LEISURE, 5 s.
pub const DEFAULT_LEISURE: Duration = Duration::from_secs(5);
/// RFC 7252 §4.8: PROBING_RATE, 1 byte/s.
pub const PROBING_RATE_BYTES_PER_S: u32 = 1;
/// RFC 7252 §4.8.2: MAX_LATENCY, 100 s.
pub const MAX_LATENCY: Duration = Duration::from_secs(100);

/// The RFC 7252 §4.8 transmission parameters. `Default` is the RFC's values.
///
/// [`TransmissionParams::check`] enforces the RFC's constraints (ACK_RANDOM_FACTOR ≥ 1, a
/// non-zero ACK_TIMEOUT and NSTART); the derived values (§4.8.2) are methods and saturate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(deny_unknown_fields, default))]
pub struct TransmissionParams {
    /// ACK_TIMEOUT: base of the initial retransmission timer.
    #[cfg_attr(feature = "serde", serde(rename = "ack_timeout_ms", with = "crate::config::serde_ms"))]
    pub ack_timeout: Duration,
    /// ACK_RANDOM_FACTOR: the initial timer is drawn from [ACK_TIMEOUT, ACK_TIMEOUT × this).
    pub ack_random_factor: Ratio,
    /// MAX_RETRANSMIT: retransmissions before giving up.
    pub max_retransmit: u8,
    /// NSTART: outstanding interactions per destination.
    pub nstart: u16,
    /// DEFAULT_LEISURE (multicast only; carried for completeness).
    #[cfg_attr(feature = "serde", serde(rename = "default_leisure_ms", with = "crate::config::serde_ms"))]
    pub default_leisure: Duration,
    /// PROBING_RATE in bytes per second.
    pub probing_rate_bytes_per_s: u32,
    /// MAX_LATENCY: assumed maximum one-way latency.
    #[cfg_attr(feature = "serde", serde(rename = "max_latency_ms", with = "crate::config::serde_ms"))]
    pub max_latency: Duration,
}

impl Default for TransmissionParams {
    fn default() -> Self {
        TransmissionParams {
            ack_timeout: ACK_TIMEOUT,
            ack_random_factor: ACK_RANDOM_FACTOR,
            max_retransmit: MAX_RETRANSMIT,
            nstart: NSTART,
            default_leisure: DEFAULT_LEISURE,
            probing_rate_bytes_per_s: PROBING_RATE_BYTES_PER_S,
            max_latency: MAX_LATENCY,
        }
    }
}

impl TransmissionParams {
    /// Checks the RFC 7252 §4.8 constraints.
    pub fn check(&self) -> Result<(), ConfigError> {
        if self.ack_timeout.is_zero() {
            return Err(ConfigError::new("ack_timeout_ms", "must be greater than 0"));
        }
        if self.ack_random_factor < Ratio::ONE {
            return Err(ConfigError::new("ack_random_factor", "must be at least 1 (RFC 7252 §4.8)"));
        }
        if self.nstart == 0 {
            return Err(ConfigError::new("nstart", "must be at least 1"));
        }
        Ok(())
    }

    /// PROCESSING_DELAY = ACK_TIMEOUT (§4.8.2).
    pub fn processing_delay(&self) -> Duration {
        self.ack_timeout
    }

    fn backoff_sum(&self, exponent: u32) -> Duration {
        // ACK_TIMEOUT × (2^exponent − 1) × ACK_RANDOM_FACTOR, saturating.
        let factor = if exponent >= 64 { u64::MAX } else { (1u64 << exponent) - 1 };
        self.ack_random_factor.mul_duration(mul(self.ack_timeout, factor))
    }

    /// MAX_TRANSMIT_SPAN = ACK_TIMEOUT × (2^MAX_RETRANSMIT − 1) × ACK_RANDOM_FACTOR (45 s).
    pub fn max_transmit_span(&self) -> Duration {
        self.backoff_sum(self.max_retransmit as u32)
    }

    /// MAX_TRANSMIT_WAIT = ACK_TIMEOUT × (2^(MAX_RETRANSMIT+1) − 1) × ACK_RANDOM_FACTOR (93 s).
    pub fn max_transmit_wait(&self) -> Duration {
        self.backoff_sum(self.max_retransmit as u32 + 1)
    }

    /// MAX_RTT = 2 × MAX_LATENCY + PROCESSING_DELAY (202 s).
    pub fn max_rtt(&self) -> Duration {
        add(mul(self.max_latency, 2), self.processing_delay())
    }

    /// EXCHANGE_LIFETIME = MAX_TRANSMIT_SPAN + 2 × MAX_LATENCY + PROCESSING_DELAY (247 s).
    pub fn exchange_lifetime(&self) -> Duration {
        add(self.max_transmit_span(), self.max_rtt())
    }

    /// NON_LIFETIME = MAX_TRANSMIT_SPAN + MAX_LATENCY (145 s).
    pub fn non_lifetime(&self) -> Duration {
        add(self.max_transmit_span(), self.max_latency)
    }

    /// The largest first timer RFC 7252 draws: ACK_TIMEOUT × ACK_RANDOM_FACTOR.
    pub fn max_initial_timer(&self) -> Duration {
        self.ack_random_factor.mul_duration(self.ack_timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_parameters_derive_the_rfc_7252_values() {
        let p = TransmissionParams::default();
        assert_eq!(p.max_transmit_span(), Duration::from_secs(45));
        assert_eq!(p.max_transmit_wait(), Duration::from_secs(93));
        assert_eq!(p.max_rtt(), Duration::from_secs(202));
        assert_eq!(p.exchange_lifetime(), Duration::from_secs(247));
        assert_eq!(p.non_lifetime(), Duration::from_secs(145));
        assert_eq!(p.processing_delay(), Duration::from_secs(2));
    }

    #[test]
    fn an_ack_random_factor_below_one_is_rejected_by_name() {
        let p = TransmissionParams { ack_random_factor: Ratio::new(1, 2), ..Default::default() };
        assert_eq!(p.check().unwrap_err().key, "ack_random_factor");
        let p = TransmissionParams { ack_timeout: Duration::ZERO, ..Default::default() };
        assert_eq!(p.check().unwrap_err().key, "ack_timeout_ms");
    }

    #[test]
    fn derived_values_saturate_for_huge_max_retransmit() {
        let p = TransmissionParams { max_retransmit: 255, ..Default::default() };
        assert_eq!(p.max_transmit_wait(), Duration::from_nanos(u64::MAX));
        assert_eq!(p.exchange_lifetime(), Duration::from_nanos(u64::MAX));
    }
}
