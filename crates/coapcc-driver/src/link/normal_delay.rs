//! [`NormalDelay`]: an independent delay per packet drawn from N(mean, sd²) truncated at
//! zero (negative draws are redrawn, see [`normal_duration`]). Packets **may overtake**
//! each other.
//!
//! Testbeds §2 states that the RTT of every successful transmission is N(500 ms, 10 ms).
//! Splitting it over the two directions as independent N(250 ms, (10/√2 ms)²) delays gives
//! exactly that RTT distribution (the sum of independent normals is normal, means and
//! variances add) up to the truncation at zero, which at 35 standard deviations never
//! happens. [`NormalDelayConfig::split_rtt`] does this split;
//! [`presets::residual_bandwidth_forward`](super::presets::residual_bandwidth_forward) uses it.
//!
//! Because it reorders, a pipeline accepts after this stage only stages that do not depend
//! on arrival order ([`Propagation`](super::Propagation), another `NormalDelay`).

use coapcc_core::ConfigError;
use coapcc_core::duration::{from_nanos, nanos};
use coapcc_core::{Duration, Instant};
use rand_core::Rng;

use crate::rng::normal_duration;

/// Configuration of a [`NormalDelay`] stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NormalDelayConfig {
    /// Mean of the (untruncated) normal distribution.
    #[serde(rename = "mean_ms", with = "coapcc_core::serde_ms")]
    pub mean: Duration,
    /// Standard deviation (0 = a fixed delay).
    #[serde(rename = "sd_ms", with = "coapcc_core::serde_ms")]
    pub sd: Duration,
}

impl NormalDelayConfig {
    /// Delays from N(`mean`, `sd`²).
    pub const fn new(mean: Duration, sd: Duration) -> Self {
        NormalDelayConfig { mean, sd }
    }

    /// One direction of a round trip whose time is N(`rtt_mean`, `rtt_sd`²) when both
    /// directions use this configuration: mean `rtt_mean / 2`, sd `rtt_sd / √2` (both
    /// rounded to the nanosecond).
    pub fn split_rtt(rtt_mean: Duration, rtt_sd: Duration) -> Self {
        let sd = (nanos(rtt_sd) as f64 / core::f64::consts::SQRT_2).round() as u64;
        NormalDelayConfig { mean: from_nanos(nanos(rtt_mean) / 2), sd: from_nanos(sd) }
    }

    /// Every value is valid (a `Duration` is never negative).
    pub fn validate(&self) -> Result<(), ConfigError> {
        Ok(())
    }
}

/// Independent normal delays (overtaking allowed). See the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NormalDelay {
    config: NormalDelayConfig,
}

impl NormalDelay {
    /// Builds the stage.
    pub fn new(config: NormalDelayConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(NormalDelay { config })
    }

    /// The configuration.
    pub fn config(&self) -> &NormalDelayConfig {
        &self.config
    }

    /// The packet leaves at `now + D`, `D` drawn afresh (two `u64` draws per try; none when
    /// `sd = 0`).
    #[inline]
    pub fn offer<R: Rng + ?Sized>(&mut self, now: Instant, rng: &mut R) -> Instant {
        now + normal_duration(rng, self.config.mean, self.config.sd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;

    #[test]
    fn splitting_a_500_ms_rtt_gives_250_ms_and_10_over_root_2_ms_each_way() {
        let c = NormalDelayConfig::split_rtt(Duration::from_millis(500), Duration::from_millis(10));
        assert_eq!(c.mean, Duration::from_millis(250));
        assert_eq!(c.sd, Duration::from_nanos(7_071_068));
    }

    #[test]
    fn normal_delays_have_the_configured_mean_and_sd_within_sampling_error() {
        let c = NormalDelayConfig::new(Duration::from_millis(250), Duration::from_nanos(7_071_068));
        let mut stage = NormalDelay::new(c).unwrap();
        let mut rng = stream_rng(21, 0, 0);
        let n = 200_000usize;
        let xs: Vec<f64> = (0..n).map(|_| stage.offer(Instant::ZERO, &mut rng).as_nanos() as f64 / 1e6).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
        let (mu, sigma) = (250.0, 7.071068);
        // Standard errors: of the mean σ/√n ≈ 0.016 ms, of the sd σ/√(2n) ≈ 0.011 ms.
        // Allow 5 of each.
        assert!((mean - mu).abs() < 5.0 * sigma / (n as f64).sqrt(), "mean {mean}");
        assert!((var.sqrt() - sigma).abs() < 5.0 * sigma / (2.0 * n as f64).sqrt(), "sd {}", var.sqrt());
    }

    #[test]
    fn a_zero_sd_is_a_fixed_delay() {
        let mut stage = NormalDelay::new(NormalDelayConfig::new(Duration::from_millis(5), Duration::ZERO)).unwrap();
        let mut rng = stream_rng(0, 0, 0);
        assert_eq!(stage.offer(Instant::from_millis(1), &mut rng), Instant::from_millis(6));
    }
}
