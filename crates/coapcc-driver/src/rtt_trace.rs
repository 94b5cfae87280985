//! The RTT traces of Makarem et al. §6.1 (testbeds §3): the workload of the RTT-trace model
//! (`coapcc_sim::run_trace`), which feeds one sample per transmission to an RTO estimator.
//!
//! Traces follow Table 1: periods of `period` samples alternate between a first and a second
//! distribution (uniform, normal, constant; Pareto for row 1), optionally with "spikes" of
//! 10 s, five per 1 000 samples. Rows 2–3 used unpublished real traces; their scenario files
//! substitute a documented synthetic WAN trace (`dist = "wan"`) and say so.

use coapcc_core::{ConfigError, Duration};
use serde::{Deserialize, Serialize};

use crate::rng::{
    SimRng, Stream, below, normal_duration, open_unit_f64, standard_normal, stream_rng, uniform_duration,
};

/// An RTT distribution (milliseconds).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "dist", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RttDist {
    /// U(lo, hi).
    Uniform {
        /// Lower end, ms.
        lo_ms: f64,
        /// Upper end, ms.
        hi_ms: f64,
    },
    /// N(mean, sd), truncated at zero (negative draws are redrawn).
    Normal {
        /// Mean, ms.
        mean_ms: f64,
        /// Standard deviation, ms.
        sd_ms: f64,
    },
    /// D(ms): always the same value.
    Constant {
        /// The value, ms.
        ms: f64,
    },
    /// Pareto(shape, scale): scale / U^(1/shape).
    Pareto {
        /// Shape α.
        shape: f64,
        /// Scale (minimum), ms.
        scale_ms: f64,
    },
    /// A synthetic wide-area path: base + LogNormal jitter with the given median and σ, plus
    /// congestion episodes: with probability `episode_prob` per sample an episode of
    /// `episode_len` samples adds `episode_extra_ms`. Substitute for Table 1 rows 2–3.
    Wan {
        /// Propagation base, ms.
        base_ms: f64,
        /// Median of the log-normal jitter, ms.
        jitter_median_ms: f64,
        /// σ of the log-normal jitter (of ln).
        jitter_sigma: f64,
        /// Probability per sample that a congestion episode starts.
        episode_prob: f64,
        /// Samples per episode.
        episode_len: u32,
        /// Extra delay during an episode, ms.
        episode_extra_ms: f64,
    },
}

impl RttDist {
    fn validate(&self) -> Result<(), ConfigError> {
        let bad = |k: &'static str, p: &'static str| Err(ConfigError::new(k, p));
        let ok = |x: f64| x.is_finite() && x >= 0.0;
        match *self {
            RttDist::Uniform { lo_ms, hi_ms } if !(ok(lo_ms) && ok(hi_ms) && lo_ms <= hi_ms) => {
                bad("lo_ms", "must satisfy 0 ≤ lo_ms ≤ hi_ms")
            }
            RttDist::Normal { mean_ms, sd_ms } if !(ok(mean_ms) && ok(sd_ms)) => {
                bad("mean_ms", "mean and sd must be finite and non-negative")
            }
            RttDist::Constant { ms } if !ok(ms) => bad("ms", "must be finite and non-negative"),
            RttDist::Pareto { shape, scale_ms } if !(shape > 0.0 && shape.is_finite() && ok(scale_ms)) => {
                bad("shape", "shape must be positive and scale_ms non-negative")
            }
            RttDist::Wan { base_ms, jitter_median_ms, jitter_sigma, episode_prob, episode_extra_ms, .. }
                if !(ok(base_ms)
                    && ok(jitter_median_ms)
                    && ok(jitter_sigma)
                    && ok(episode_extra_ms)
                    && (0.0..=1.0).contains(&episode_prob)) =>
            {
                bad("base_ms", "WAN parameters must be finite and non-negative, episode_prob in [0, 1]")
            }
            _ => Ok(()),
        }
    }

    fn draw(&self, rng: &mut SimRng, episode_left: &mut u32) -> Duration {
        let ms = |x: f64| Duration::from_nanos((x.max(0.0) * 1e6).round() as u64);
        match *self {
            RttDist::Uniform { lo_ms, hi_ms } => uniform_duration(rng, ms(lo_ms), ms(hi_ms)),
            RttDist::Normal { mean_ms, sd_ms } => normal_duration(rng, ms(mean_ms), ms(sd_ms)),
            RttDist::Constant { ms: v } => ms(v),
            RttDist::Pareto { shape, scale_ms } => ms(scale_ms / open_unit_f64(rng).powf(1.0 / shape)),
            RttDist::Wan { base_ms, jitter_median_ms, jitter_sigma, episode_prob, episode_len, episode_extra_ms } => {
                if *episode_left == 0 && open_unit_f64(rng) < episode_prob {
                    *episode_left = episode_len;
                }
                let extra = if *episode_left > 0 {
                    *episode_left -= 1;
                    episode_extra_ms
                } else {
                    0.0
                };
                let jitter = jitter_median_ms * (jitter_sigma * standard_normal(rng)).exp();
                ms(base_ms + jitter + extra)
            }
        }
    }
}

fn default_samples() -> u32 {
    100_000
}
fn default_period() -> u32 {
    100
}
fn default_spike_ms() -> f64 {
    10_000.0
}
fn default_spikes_per_block() -> u32 {
    5
}
fn default_spike_block() -> u32 {
    1000
}
fn default_series() -> u32 {
    2000
}

/// The `[trace]` table of a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// Row of Makarem's Table 1 this reproduces.
    pub row: u32,
    /// Samples (transmissions) per run.
    #[serde(default = "default_samples")]
    pub samples: u32,
    /// Samples per period before switching distribution.
    #[serde(default = "default_period")]
    pub period: u32,
    /// Period 1 distribution (the only one when `second` is absent).
    pub first: RttDist,
    /// Period 2 distribution.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub second: Option<RttDist>,
    /// Add spikes: `spikes_per_block` samples of `spike_ms` at random positions in each block
    /// of `spike_block` samples ("5 times every 1 000 transmissions").
    pub spikes: bool,
    /// Spike RTT, ms.
    #[serde(default = "default_spike_ms")]
    pub spike_ms: f64,
    /// Spikes per block.
    #[serde(default = "default_spikes_per_block")]
    pub spikes_per_block: u32,
    /// Block length, samples.
    #[serde(default = "default_spike_block")]
    pub spike_block: u32,
    /// How many leading (RTT, RTO) pairs to keep for time-series figures.
    #[serde(default = "default_series")]
    pub series_samples: u32,
    /// Set when the row's published trace was replaced by a synthetic one: says what and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub substituted: Option<String>,
}

impl TraceConfig {
    /// Checks ranges; keys are relative to `[trace]`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.samples == 0 {
            return Err(ConfigError::new("samples", "must be at least 1"));
        }
        if self.period == 0 {
            return Err(ConfigError::new("period", "must be at least 1"));
        }
        if self.spikes && (self.spike_block == 0 || self.spikes_per_block > self.spike_block) {
            return Err(ConfigError::new("spikes_per_block", "must be at most spike_block (≥ 1)"));
        }
        if !(self.spike_ms.is_finite() && self.spike_ms >= 0.0) {
            return Err(ConfigError::new("spike_ms", "must be finite and non-negative"));
        }
        self.first.validate().map_err(|e| ConfigError::new("first", e.problem))?;
        if let Some(s) = &self.second {
            s.validate().map_err(|e| ConfigError::new("second", e.problem))?;
        }
        Ok(())
    }

    /// Generates the trace for a replication (the same for every estimator).
    pub fn generate(&self, seed: u64, replication: u32) -> Vec<Duration> {
        let mut rng = stream_rng(seed, replication, Stream::Workload(0).id());
        let mut episode = 0u32;
        let mut out = Vec::with_capacity(self.samples as usize);
        for i in 0..self.samples {
            let in_second = (i / self.period) % 2 == 1;
            let dist = match (&self.second, in_second) {
                (Some(s), true) => s,
                _ => &self.first,
            };
            out.push(dist.draw(&mut rng, &mut episode));
        }
        if self.spikes {
            let spike = Duration::from_nanos((self.spike_ms * 1e6).round() as u64);
            let block = self.spike_block as usize;
            for start in (0..out.len()).step_by(block) {
                let len = block.min(out.len() - start);
                for _ in 0..self.spikes_per_block.min(len as u32) {
                    let at = start + below(&mut rng, len as u64) as usize;
                    out[at] = spike;
                }
            }
        }
        out
    }
}
