//! [`GilbertElliott`]: a two-state Markov packet-error model with time-driven (default) or
//! per-packet state changes (testbeds §1 "Link errors").
//!
//! # Time mode (`mode = "time"`, the default)
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
//!
//! # Packet mode (`mode = "packet"`, netem's `loss gemodel`)
//!
//! Linux netem's Gilbert–Elliott loss model (`tc qdisc … netem loss gemodel p r 1-h 1-k`)
//! changes state once per packet offered, not with time: a packet is lost with the loss
//! probability of the state it finds (`1-k` good, `1-h` bad), then the chain takes one
//! Markov step (good → bad with probability `p`, bad → good with `r`) for the next packet.
//! Here the steps are given as mean sojourns in packets: `p = 1 / mean_good_packets`,
//! `r = 1 / mean_bad_packets` (each ≥ 1), so a burst lasts `mean_bad_packets` packets on
//! average (geometric) whatever the time between packets, and an idle link keeps its state.
//!
//! * The state before the first packet is drawn from the stationary distribution
//!   (`P(bad) = mean_bad_packets / (mean_bad_packets + mean_good_packets)`); netem starts in
//!   the good state, which differs only during the first few bursts.
//! * The loss decision is the same [`bernoulli`] draw from the pipeline's generator as in time
//!   mode; the Markov step is drawn from the stage's own generator, so the trajectory depends
//!   on the number of packets offered (as in netem), not on when they pass.
//! * Statistics count sojourns (in [`GilbertElliottStats::good_sojourns`] /
//!   [`bad_sojourns`](GilbertElliottStats::bad_sojourns)) and packets in the bad state; the
//!   sojourn times stay zero.
//! * Stationary loss: as in time mode with the means in packets.

use coapcc_core::ConfigError;
use coapcc_core::duration::nanos;
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

/// Default mean burst length in packets of [`GeMode::Packet`].
pub const DEFAULT_MEAN_BAD_PACKETS: Ratio = Ratio::integer(2);
/// Default mean good run in packets of [`GeMode::Packet`]: four times the burst, the ratio of
/// the testbed sojourns ([`TESTBED_MEAN_GOOD`] / [`TESTBED_MEAN_BAD`]), so the stationary
/// loss equals time mode's.
pub const DEFAULT_MEAN_GOOD_PACKETS: Ratio = Ratio::integer(8);

/// When a [`GilbertElliott`] stage changes state (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GeMode {
    /// A continuous-time chain with exponential sojourns (`mean_good_ms`, `mean_bad_ms`).
    #[default]
    Time,
    /// One Markov step per packet offered, as Linux netem's `loss gemodel`
    /// (`mean_good_packets`, `mean_bad_packets`).
    Packet,
}

impl GeMode {
    /// The configuration name.
    pub const fn name(self) -> &'static str {
        match self {
            GeMode::Time => "time",
            GeMode::Packet => "packet",
        }
    }

    fn is_time(&self) -> bool {
        *self == GeMode::Time
    }
}

fn is_default_bad_packets(r: &Ratio) -> bool {
    *r == DEFAULT_MEAN_BAD_PACKETS
}

fn is_default_good_packets(r: &Ratio) -> bool {
    *r == DEFAULT_MEAN_GOOD_PACKETS
}

/// Configuration of a [`GilbertElliott`] stage. `Default` is [`error_free`](Self::error_free);
/// every key may be omitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GilbertElliottConfig {
    /// Mean sojourn in the good (low-error) state (> 0).
    #[serde(rename = "mean_good_ms", with = "coapcc_core::serde_ms")]
    pub mean_good: Duration,
    /// Mean sojourn in the bad (burst) state (> 0).
    #[serde(rename = "mean_bad_ms", with = "coapcc_core::serde_ms")]
    pub mean_bad: Duration,
    /// Loss probability of a packet in the good state, in [0, 1].
    pub loss_good: Ratio,
    /// Loss probability of a packet in the bad state, in [0, 1].
    pub loss_bad: Ratio,
    /// When the state changes: with time (default) or per packet (netem).
    #[serde(skip_serializing_if = "GeMode::is_time")]
    pub mode: GeMode,
    /// [`GeMode::Packet`]: mean good run in packets (≥ 1; netem's `p` = 1 / this).
    #[serde(skip_serializing_if = "is_default_good_packets")]
    pub mean_good_packets: Ratio,
    /// [`GeMode::Packet`]: mean burst length in packets (≥ 1; netem's `r` = 1 / this).
    #[serde(skip_serializing_if = "is_default_bad_packets")]
    pub mean_bad_packets: Ratio,
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
            mode: GeMode::Time,
            mean_good_packets: DEFAULT_MEAN_GOOD_PACKETS,
            mean_bad_packets: DEFAULT_MEAN_BAD_PACKETS,
        }
    }

    /// This configuration with per-packet state changes: mean burst `mean_bad_packets`, mean
    /// good run `mean_good_packets` (netem `p = 1 / mean_good_packets`,
    /// `r = 1 / mean_bad_packets`).
    pub const fn per_packet(self, mean_good_packets: Ratio, mean_bad_packets: Ratio) -> Self {
        GilbertElliottConfig { mode: GeMode::Packet, mean_good_packets, mean_bad_packets, ..self }
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

    /// Checks the ranges: both means > 0, both probabilities in [0, 1], both packet means ≥ 1.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.mean_good_packets < Ratio::ONE {
            return Err(ConfigError::new("mean_good_packets", "must be at least 1 packet"));
        }
        if self.mean_bad_packets < Ratio::ONE {
            return Err(ConfigError::new("mean_bad_packets", "must be at least 1 packet"));
        }
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

    /// Long-run fraction of time (time mode) or of packets (packet mode) in the bad state:
    /// `mean_bad / (mean_bad + mean_good)`.
    pub fn stationary_bad(&self) -> f64 {
        let (b, g) = match self.mode {
            GeMode::Time => (self.mean_bad.as_secs_f64(), self.mean_good.as_secs_f64()),
            GeMode::Packet => (self.mean_bad_packets.to_f64(), self.mean_good_packets.to_f64()),
        };
        if b + g == 0.0 { 0.0 } else { b / (b + g) }
    }

    /// Long-run packet loss rate (for packets sent independently of the state):
    /// `π_bad·loss_bad + (1 − π_bad)·loss_good`.
    pub fn stationary_loss(&self) -> f64 {
        let pi_bad = self.stationary_bad();
        pi_bad * self.loss_bad.to_f64() + (1.0 - pi_bad) * self.loss_good.to_f64()
    }

    /// Standard error of a loss rate measured on `packets` packets offered independently of
    /// the state, evenly spaced over `duration` (time mode; packet mode ignores it): how far
    /// one run's error-drop ratio strays from [`stationary_loss`](Self::stationary_loss).
    ///
    /// The state seen by packet `k` is a two-state Markov chain with stationary
    /// `π_bad`, `π_good = 1 − π_bad` and lag-one correlation `a` — `exp(−Δ/τ)` in time mode
    /// (spacing `Δ = duration / packets`, correlation time `τ = 1 / (1/mean_bad +
    /// 1/mean_good)`), `1 − 1/mean_good_packets − 1/mean_bad_packets` in packet mode — so the
    /// mean of its bad-state indicator over `n` packets has variance
    /// `π_bad·π_good/n · ((1 + a)/(1 − a) − 2a·(1 − aⁿ)/(n·(1 − a)²))` (the sum of the
    /// autocovariances `π_bad·π_good·a^|j−k|`; in time mode, for `Δ ≪ τ ≪ duration`, about
    /// `2·π_bad·π_good·τ / duration`). It enters the loss rate scaled by
    /// `(loss_bad − loss_good)²`; the Bernoulli decisions, given the states, add
    /// `(π_bad·loss_bad·(1 − loss_bad) + π_good·loss_good·(1 − loss_good))/n` (the law of total
    /// variance). Infinite for no packet, or a zero `duration` in time mode.
    pub fn loss_rate_standard_error(&self, duration: Duration, packets: u64) -> f64 {
        let n = packets as f64;
        let a = match self.mode {
            GeMode::Time => {
                let (b, g) = (self.mean_bad.as_secs_f64(), self.mean_good.as_secs_f64());
                let tau = 1.0 / (1.0 / b + 1.0 / g);
                (-(duration.as_secs_f64() / n) / tau).exp()
            }
            GeMode::Packet => 1.0 - 1.0 / self.mean_good_packets.to_f64() - 1.0 / self.mean_bad_packets.to_f64(),
        };
        if packets == 0 || a >= 1.0 {
            return f64::INFINITY;
        }
        let pi_bad = self.stationary_bad();
        let (lb, lg) = (self.loss_bad.to_f64(), self.loss_good.to_f64());
        let decisions = pi_bad * lb * (1.0 - lb) + (1.0 - pi_bad) * lg * (1.0 - lg);
        let finite = 2.0 * a * (1.0 - a.powf(n)) / (n * (1.0 - a) * (1.0 - a));
        let state = pi_bad * (1.0 - pi_bad) / n * ((1.0 + a) / (1.0 - a) - finite);
        (state * (lb - lg) * (lb - lg) + decisions / n).sqrt()
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
        coapcc_core::duration::div(time, n.max(1))
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
        match config.mode {
            GeMode::Time => {
                ge.state = ge.stationary_state();
                ge.until = Instant::ZERO + ge.draw_sojourn(ge.state);
            }
            GeMode::Packet => {
                // Exact: P(bad) = (bn/bd) / (bn/bd + gn/gd) = bn·gd / (bn·gd + gn·bd).
                let (b, g) = (config.mean_bad_packets, config.mean_good_packets);
                let bad = u64::from(b.numer()) * u64::from(g.denom());
                let good = u64::from(g.numer()) * u64::from(b.denom());
                ge.state = if below(&mut ge.trajectory, bad + good) < bad { GeState::Bad } else { GeState::Good };
                ge.until = Instant::MAX;
            }
        }
        Ok(ge)
    }

    /// A state drawn from the stationary distribution of time mode (exact:
    /// `below(bad + good) < bad`).
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
    /// In packet mode the state changes only when packets are offered, so this is the state
    /// the next packet will find.
    ///
    /// A query more than `RESTART_CYCLES` mean cycles past the end of the current sojourn
    /// (≈ 61 days with the testbed means) restarts the chain at `t` from its stationary
    /// distribution instead of generating every sojourn in between: exact in distribution,
    /// bounded in work, but the trajectory after such a gap depends on when the gap ended.
    pub fn state_at(&mut self, t: Instant) -> GeState {
        let t = t.max(self.last_query);
        self.last_query = t;
        if self.config.mode == GeMode::Packet {
            return self.state;
        }
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
    /// [`link`](super)): dropped with the loss probability of the state at that instant
    /// (packet mode: the state it finds, after which the chain takes one step), else it
    /// leaves at once.
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
        let lost = bernoulli(rng, p);
        if self.config.mode == GeMode::Packet {
            self.packet_step();
        }
        if lost { Err(DropReason::Error) } else { Ok(t) }
    }

    /// Packet mode: one Markov step of the chain (netem `p` good → bad, `r` bad → good),
    /// drawn from the trajectory's generator; a state left ends a counted sojourn.
    fn packet_step(&mut self) {
        let mean = match self.state {
            GeState::Good => self.config.mean_good_packets,
            GeState::Bad => self.config.mean_bad_packets,
        };
        // Leave with probability 1 / mean (validated ≥ 1, so a probability).
        let leave = Ratio::new(mean.denom(), mean.numer());
        if bernoulli(&mut self.trajectory, leave) {
            match self.state {
                GeState::Good => {
                    self.stats.good_sojourns += 1;
                    self.state = GeState::Bad;
                }
                GeState::Bad => {
                    self.stats.bad_sojourns += 1;
                    self.state = GeState::Good;
                }
            }
        }
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

    /// Offers `n` packets 10 ms apart; returns (lost, the stage).
    fn run_packets(config: GilbertElliottConfig, n: u64, seed: u64) -> (u64, GilbertElliott) {
        let mut ge = GilbertElliott::new(config, stream_rng(seed, 0, 1)).unwrap();
        let mut rng = stream_rng(seed, 0, 0);
        let lost = (0..n).filter(|k| ge.offer(Instant::from_millis(k * 10), &mut rng).is_err()).count();
        (lost as u64, ge)
    }

    #[test]
    fn packet_mode_long_run_loss_rate_matches_its_stationary_value_within_sampling_error() {
        let n = 400_000;
        for (level, seed) in [(GilbertElliottConfig::medium(), 3), (GilbertElliottConfig::high(), 4)] {
            let c = level.per_packet(Ratio::integer(20), Ratio::integer(5));
            let expected = c.stationary_loss();
            assert!((expected - level.stationary_loss()).abs() < 1e-12, "π_bad = 5 / 25 = 0.2 as in time mode");
            let (lost, _) = run_packets(c, n, seed);
            let rate = lost as f64 / n as f64;
            // Bursts of ~25 packets per cycle: n / 25 independent cycles; the loss count's
            // standard error is at most sqrt(cycles)·25·Δloss / n ≲ 0.004; allow 4 of them.
            assert!((rate - expected).abs() < 0.016, "rate {rate} vs stationary {expected}");
        }
    }

    /// The loss rates of `runs` independent runs of `n` packets `spacing_ms` apart: their
    /// mean and standard deviation.
    fn spread_of_runs(config: GilbertElliottConfig, runs: u64, n: u64, spacing_ms: u64) -> (f64, f64) {
        let rates: Vec<f64> = (0..runs)
            .map(|r| {
                let mut ge = GilbertElliott::new(config, stream_rng(r, 0, 1)).unwrap();
                let mut rng = stream_rng(r, 0, 0);
                let lost = (0..n).filter(|k| ge.offer(Instant::from_millis(k * spacing_ms), &mut rng).is_err()).count();
                lost as f64 / n as f64
            })
            .collect();
        let mean = rates.iter().sum::<f64>() / runs as f64;
        let var = rates.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (runs - 1) as f64;
        (mean, var.sqrt())
    }

    #[test]
    fn the_spread_of_short_runs_loss_rates_is_the_two_state_chains() {
        // 4 000 runs of 20 s with a packet every 100 ms (200 packets), the medium preset: the
        // formula gives ≈ 0.058; a sample standard deviation of 4 000 runs is within ≈ 1.1 %
        // of the truth (1/√(2·4000), more for the loss rate's slightly skewed distribution):
        // 6 % is over four of those.
        let c = GilbertElliottConfig::medium();
        let (mean, sd) = spread_of_runs(c, 4_000, 200, 100);
        let expected = c.loss_rate_standard_error(Duration::from_secs(20), 200);
        assert!((0.05..0.065).contains(&expected), "{expected}");
        assert!((sd / expected - 1.0).abs() < 0.06, "sd {sd} against {expected}");
        assert!((mean - c.stationary_loss()).abs() < 4.0 * expected / 4_000f64.sqrt(), "mean {mean}");
        // Packet mode: the chain steps per packet (mean burst 4, good run 16 packets).
        let c = GilbertElliottConfig::medium().per_packet(Ratio::integer(16), Ratio::integer(4));
        let (_, sd) = spread_of_runs(c, 4_000, 200, 100);
        let expected = c.loss_rate_standard_error(Duration::ZERO, 200);
        assert!((sd / expected - 1.0).abs() < 0.06, "packet mode: sd {sd} against {expected}");
        assert_eq!(c.loss_rate_standard_error(Duration::from_secs(1), 0), f64::INFINITY);
    }

    #[test]
    fn packet_mode_bursts_last_their_mean_length_in_packets() {
        let c = GilbertElliottConfig::high().per_packet(Ratio::integer(16), Ratio::integer(4));
        let (_, ge) = run_packets(c, 400_000, 9);
        let stats = ge.stats();
        let mean_burst = stats.packets_in_bad as f64 / stats.bad_sojourns as f64;
        // ~16 000 geometric bursts with mean 4 and sd ≈ 3.5: standard error ≈ 0.03.
        assert!((mean_burst - 4.0).abs() < 0.15, "mean burst {mean_burst} packets");
        assert!(stats.good_time.is_zero() && stats.bad_time.is_zero(), "no sojourn times in packet mode");
    }

    #[test]
    fn packet_mode_is_deterministic_and_does_not_depend_on_the_packet_times() {
        let c = GilbertElliottConfig::medium().per_packet(Ratio::integer(8), Ratio::integer(2));
        let run = |spacing_ms: u64| {
            let mut ge = GilbertElliott::new(c, stream_rng(11, 0, 1)).unwrap();
            let mut rng = stream_rng(11, 0, 0);
            (0..5_000u64).map(|k| ge.offer(Instant::from_millis(k * spacing_ms), &mut rng).is_err()).collect::<Vec<_>>()
        };
        let a = run(10);
        assert_eq!(a, run(10));
        assert_eq!(a, run(10_000), "an idle link keeps its state");
        assert!(a.iter().any(|&lost| lost) && a.iter().any(|&lost| !lost));
    }

    #[test]
    fn a_packet_mean_below_one_packet_names_its_key() {
        let c = GilbertElliottConfig::medium().per_packet(Ratio::integer(8), Ratio::new(1, 2));
        assert_eq!(c.validate().unwrap_err().key, "mean_bad_packets");
        let c = GilbertElliottConfig::medium().per_packet(Ratio::ZERO, Ratio::integer(2));
        assert_eq!(c.validate().unwrap_err().key, "mean_good_packets");
    }

    #[test]
    fn the_packet_mode_keys_parse_and_time_mode_serializes_as_before() {
        let c: GilbertElliottConfig =
            toml::from_str("mode = \"packet\"\nmean_bad_packets = 3\nloss_bad = 0.5\n").unwrap();
        assert_eq!(c, GilbertElliottConfig::medium().per_packet(DEFAULT_MEAN_GOOD_PACKETS, Ratio::integer(3)));
        let written = toml::to_string(&GilbertElliottConfig::medium()).unwrap();
        assert!(!written.contains("mode") && !written.contains("packets"), "{written}");
    }
}
