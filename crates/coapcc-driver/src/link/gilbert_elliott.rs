//! [`GilbertElliott`]: a two-state Markov packet-error model with time-driven state changes
//! (testbeds §1 "Link errors").
//!
//! The channel alternates between a good (low-error) and a bad (burst) state. Each sojourn
//! lasts an exponentially distributed time with the state's mean (`mean_good_ms`,
//! `mean_bad_ms`), so the state process is a continuous-time Markov chain that changes
//! whether or not packets are sent. A packet passing the stage at instant `t` is dropped
//! ([`DropReason::Error`]) with the loss probability of the state at `t`.
//!
//! * The state at time zero is drawn from the stationary distribution
//!   (`P(bad) = mean_bad / (mean_bad + mean_good)`), and its first sojourn is a fresh
//!   exponential draw (by memorylessness this is the stationary residual sojourn), so the
//!   process is stationary from the start.
//! * The trajectory is generated lazily, forward in time, up to the latest query, from the
//!   stage's **own** generator (the pipeline gives it a sub-stream, see
//!   [`sub_stream`](crate::rng::sub_stream)). It therefore does not depend on the traffic:
//!   two algorithms run with the same seed see the same error bursts.
//! * The per-packet loss decision is an exact Bernoulli draw ([`bernoulli`]) from the
//!   pipeline's generator, skipped when the probability is 0 or 1.
//! * After an idle gap of over [`RESTART_CYCLES`] mean cycles the chain restarts from its
//!   stationary distribution (bounded work; see [`GilbertElliott::state_at`]).
//! * A sojourn ending exactly at `t` has ended: a packet at a transition instant sees the
//!   new state.
//! * When both loss probabilities are zero (error-free) the stage draws nothing and its
//!   trajectory statistics stay at zero.
//!
//! Stationary loss rate: `π_bad·loss_bad + π_good·loss_good` with
//! `π_bad = mean_bad / (mean_bad + mean_good)`; see
//! [`GilbertElliottConfig::stationary_loss`].

use coapcc_core::config::ConfigError;
use coapcc_core::time::nanos;
use coapcc_core::{Duration, Instant, Ratio};
use rand_core::Rng;

use super::DropReason;
use crate::rng::{SimRng, below, bernoulli, exponential};

/// A query more than this many mean cycles (good + bad) after the end of the current
/// sojourn restarts the chain from its stationary distribution (see [`GilbertElliott::state_at`]).
pub const RESTART_CYCLES: u64 = 1 << 20;

/// Mean sojourn in the burst state, testbeds §1 \[D\].
pub const TESTBED_MEAN_BAD: Duration = Duration::from_secs(1);
/// Mean sojourn in the low-error state, testbeds §1 \[D\].
pub const TESTBED_MEAN_GOOD: Duration = Duration::from_secs(4);

/// Configuration of a [`GilbertElliott`] stage. `Default` is [`error_free`](Self::error_free);
/// every key may be omitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GilbertElliottConfig {
    /// Mean sojourn in the good (low-error) state (> 0).
    #[serde(rename = "mean_good_ms", with = "coapcc_core::config::serde_ms")]
    pub mean_good: Duration,
    /// Mean sojourn in the bad (burst) state (> 0).
    #[serde(rename = "mean_bad_ms", with = "coapcc_core::config::serde_ms")]
    pub mean_bad: Duration,
    /// Loss probability of a packet in the good state, in [0, 1].
    pub loss_good: Ratio,
    /// Loss probability of a packet in the bad state, in [0, 1].
    pub loss_bad: Ratio,
}

impl Default for GilbertElliottConfig {
    fn default() -> Self {
        Self::error_free()
    }
}

impl GilbertElliottConfig {
    /// Testbeds §1 error-free runs: no link errors (the testbed sojourns are kept).
    pub const fn error_free() -> Self {
        GilbertElliottConfig {
            mean_good: TESTBED_MEAN_GOOD,
            mean_bad: TESTBED_MEAN_BAD,
            loss_good: Ratio::ZERO,
            loss_bad: Ratio::ZERO,
        }
    }

    /// Testbeds §1 "medium": 50 % loss in the burst state, 0 % in the low-error state
    /// (stationary loss 10 %).
    pub const fn medium() -> Self {
        GilbertElliottConfig { loss_bad: Ratio::new(1, 2), ..Self::error_free() }
    }

    /// Testbeds §1 "high": 80 % loss in the burst state, 2 % in the low-error state
    /// (stationary loss 17.6 %).
    pub const fn high() -> Self {
        GilbertElliottConfig { loss_bad: Ratio::new(4, 5), loss_good: Ratio::new(1, 50), ..Self::error_free() }
    }

    /// Checks the ranges: both means > 0, both probabilities in [0, 1].
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.mean_good.is_zero() {
            return Err(ConfigError::new("mean_good_ms", "must be greater than 0"));
        }
        if self.mean_bad.is_zero() {
            return Err(ConfigError::new("mean_bad_ms", "must be greater than 0"));
        }
        if self.loss_good > Ratio::ONE {
            return Err(ConfigError::new("loss_good", "must be a probability in [0, 1]"));
        }
        if self.loss_bad > Ratio::ONE {
            return Err(ConfigError::new("loss_bad", "must be a probability in [0, 1]"));
        }
        Ok(())
    }

    /// Whether no packet can ever be lost.
    pub fn is_error_free(&self) -> bool {
        self.loss_good.is_zero() && self.loss_bad.is_zero()
    }

    /// Long-run fraction of time in the bad state: `mean_bad / (mean_bad + mean_good)`.
    pub fn stationary_bad(&self) -> f64 {
        let (b, g) = (self.mean_bad.as_secs_f64(), self.mean_good.as_secs_f64());
        if b + g == 0.0 { 0.0 } else { b / (b + g) }
    }

    /// Long-run packet loss rate (for packets sent independently of the state):
    /// `π_bad·loss_bad + (1 − π_bad)·loss_good`.
    pub fn stationary_loss(&self) -> f64 {
        let pi_bad = self.stationary_bad();
        pi_bad * self.loss_bad.to_f64() + (1.0 - pi_bad) * self.loss_good.to_f64()
    }
}

/// The channel state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GeState {
    /// Low-error state.
    Good,
    /// Burst state.
    Bad,
}

/// Statistics of a [`GilbertElliott`] stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GilbertElliottStats {
    /// Completed sojourns in the good state.
    pub good_sojourns: u64,
    /// Completed sojourns in the bad state.
    pub bad_sojourns: u64,
    /// Total length of the completed good sojourns.
    pub good_time: Duration,
    /// Total length of the completed bad sojourns.
    pub bad_time: Duration,
    /// Packets that passed the stage while it was in the bad state (dropped or not).
    pub packets_in_bad: u64,
}

impl GilbertElliottStats {
    /// Mean of the completed sojourns in `state` (zero when none).
    pub fn mean_sojourn(&self, state: GeState) -> Duration {
        let (time, n) = match state {
            GeState::Good => (self.good_time, self.good_sojourns),
            GeState::Bad => (self.bad_time, self.bad_sojourns),
        };
        coapcc_core::time::div(time, n.max(1))
    }
}

/// A Gilbert–Elliott error model with time-driven, exponential sojourns. See the module
/// docs.
#[derive(Clone, Debug)]
pub struct GilbertElliott {
    config: GilbertElliottConfig,
    /// The trajectory's own generator.
    trajectory: SimRng,
    /// The current state.
    state: GeState,
    /// When the current sojourn began.
    since: Instant,
    /// When the current sojourn ends.
    until: Instant,
    /// The latest query (earlier queries are clamped to it).
    last_query: Instant,
    stats: GilbertElliottStats,
}

impl GilbertElliott {
    /// Checks the configuration and draws the state at time zero (and its sojourn) from
    /// `trajectory`, which the stage keeps for the rest of its trajectory.
    pub fn new(config: GilbertElliottConfig, trajectory: SimRng) -> Result<Self, ConfigError> {
        config.validate()?;
        let mut ge = GilbertElliott {
            config,
            trajectory,
            state: GeState::Good,
            since: Instant::ZERO,
            until: Instant::ZERO,
            last_query: Instant::ZERO,
            stats: GilbertElliottStats::default(),
        };
        ge.state = ge.stationary_state();
        ge.until = Instant::ZERO + ge.draw_sojourn(ge.state);
        Ok(ge)
    }

    /// A state drawn from the stationary distribution (exact: `below(bad + good) < bad`).
    fn stationary_state(&mut self) -> GeState {
        let (b, g) = (nanos(self.config.mean_bad), nanos(self.config.mean_good));
        if below(&mut self.trajectory, b.saturating_add(g)) < b { GeState::Bad } else { GeState::Good }
    }

    /// The configuration.
    pub fn config(&self) -> &GilbertElliottConfig {
        &self.config
    }

    /// Statistics so far (the trajectory is known up to the latest query).
    pub fn stats(&self) -> &GilbertElliottStats {
        &self.stats
    }

    fn draw_sojourn(&mut self, state: GeState) -> Duration {
        let mean = match state {
            GeState::Good => self.config.mean_good,
            GeState::Bad => self.config.mean_bad,
        };
        exponential(&mut self.trajectory, mean)
    }

    /// The state at `t` (clamped to the latest query), generating the trajectory up to it.
    ///
    /// A query more than [`RESTART_CYCLES`] mean cycles past the end of the current sojourn
    /// (≈ 61 days with the testbed means) restarts the chain at `t` from its stationary
    /// distribution instead of generating every sojourn in between: exact in distribution,
    /// bounded in work, but the trajectory after such a gap depends on when the gap ended.
    pub fn state_at(&mut self, t: Instant) -> GeState {
        let t = t.max(self.last_query);
        self.last_query = t;
        let cycle = nanos(self.config.mean_good).saturating_add(nanos(self.config.mean_bad));
        if nanos(t - self.until) > cycle.saturating_mul(RESTART_CYCLES) {
            // A gap of over 2²⁰ mean cycles: the chain has long forgotten its state, so
            // restart it from the stationary distribution at `t` instead of generating
            // every sojourn (the skipped time is not counted in the statistics).
            self.state = self.stationary_state();
            self.since = t;
            self.until = t + self.draw_sojourn(self.state);
        }
        while self.until <= t && self.until != Instant::MAX {
            let length = self.until - self.since;
            match self.state {
                GeState::Good => {
                    self.stats.good_sojourns += 1;
                    self.stats.good_time = self.stats.good_time.saturating_add(length);
                    self.state = GeState::Bad;
                }
                GeState::Bad => {
                    self.stats.bad_sojourns += 1;
                    self.stats.bad_time = self.stats.bad_time.saturating_add(length);
                    self.state = GeState::Good;
                }
            }
            self.since = self.until;
            self.until = self.since + self.draw_sojourn(self.state);
        }
        self.state
    }

    /// A packet passes the stage at `now` (clamped to the latest arrival, see
    /// [`link`](super)): dropped with the loss probability of the state at that instant,
    /// else it leaves at once.
    #[inline]
    pub fn offer<R: Rng + ?Sized>(&mut self, now: Instant, rng: &mut R) -> Result<Instant, DropReason> {
        if self.config.is_error_free() {
            return Ok(now.max(self.last_query));
        }
        let t = now.max(self.last_query);
        let p = match self.state_at(t) {
            GeState::Good => self.config.loss_good,
            GeState::Bad => {
                self.stats.packets_in_bad += 1;
                self.config.loss_bad
            }
        };
        if bernoulli(rng, p) { Err(DropReason::Error) } else { Ok(t) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream_rng;

    #[test]
    fn the_presets_have_the_published_average_losses() {
        assert_eq!(GilbertElliottConfig::error_free().stationary_loss(), 0.0);
        assert!((GilbertElliottConfig::medium().stationary_loss() - 0.10).abs() < 1e-12);
        assert!((GilbertElliottConfig::high().stationary_loss() - 0.176).abs() < 1e-12);
        assert!((GilbertElliottConfig::high().stationary_bad() - 0.2).abs() < 1e-12);
    }

    #[test]
    fn out_of_range_values_name_their_keys() {
        let c = GilbertElliottConfig { loss_bad: Ratio::new(3, 2), ..GilbertElliottConfig::medium() };
        assert_eq!(c.validate().unwrap_err().key, "loss_bad");
        let c = GilbertElliottConfig { mean_good: Duration::ZERO, ..GilbertElliottConfig::medium() };
        assert_eq!(c.validate().unwrap_err().key, "mean_good_ms");
    }

    #[test]
    fn certain_loss_in_both_states_drops_everything_and_none_passes() {
        let c = GilbertElliottConfig { loss_good: Ratio::ONE, loss_bad: Ratio::ONE, ..Default::default() };
        let mut ge = GilbertElliott::new(c, stream_rng(1, 0, 1)).unwrap();
        let mut rng = stream_rng(1, 0, 0);
        for k in 0..100 {
            assert_eq!(ge.offer(Instant::from_millis(k * 100), &mut rng), Err(DropReason::Error));
        }
    }

    #[test]
    fn the_trajectory_does_not_depend_on_when_it_is_queried() {
        let c = GilbertElliottConfig::medium();
        let mut dense = GilbertElliott::new(c, stream_rng(5, 0, 7)).unwrap();
        let mut sparse = GilbertElliott::new(c, stream_rng(5, 0, 7)).unwrap();
        for k in 0..10_000u64 {
            let s = dense.state_at(Instant::from_millis(k * 10));
            if k % 997 == 0 {
                assert_eq!(sparse.state_at(Instant::from_millis(k * 10)), s);
            }
        }
    }

    #[test]
    fn an_error_free_model_draws_nothing() {
        let mut ge = GilbertElliott::new(GilbertElliottConfig::error_free(), stream_rng(1, 0, 1)).unwrap();
        let mut rng = stream_rng(1, 0, 0);
        let before = rng.clone();
        assert_eq!(ge.offer(Instant::from_millis(3_000), &mut rng), Ok(Instant::from_millis(3_000)));
        assert_eq!(rng, before);
    }
}
