//! Link models: sans-IO stages composed per direction (`docs/testbeds.md` §1–§2).
//!
//! A **stage** takes a packet (its arrival instant and size in bytes) and answers at once
//! with the instant the packet leaves it, or why it was dropped ([`DropReason`]). A
//! [`Pipeline`] chains stages for one direction of a link, owns that direction's generator
//! and counts everything. Nothing here reads a clock or schedules events: the simulator
//! calls [`Pipeline::offer`] from an event and schedules the delivery itself; the real-time
//! emulator of `coapcc-udp` calls it with wall-clock instants.
//!
//! | stage | file | drops | order |
//! |---|---|---|---|
//! | [`Serializer`]: link rate + byte-limited drop-tail buffer | `serializer` | [`DropReason::Buffer`] | FIFO |
//! | [`Propagation`]: fixed delay | `propagation` | — | FIFO |
//! | [`FifoJitter`]: uniform delay, no overtaking | `fifo_jitter` | — | FIFO |
//! | [`GilbertElliott`]: bursty packet errors | `gilbert_elliott` | [`DropReason::Error`] | FIFO |
//! | [`TokenBucket`]: residual bandwidth | `token_bucket` | [`DropReason::NoToken`] | FIFO |
//! | [`NormalDelay`]: N(mean, sd) delay | `normal_delay` | — | **may reorder** |
//!
//! Testbed values live in [`presets`] as configuration data; the stages hard-code none.
//!
//! ## The ordering contract
//!
//! A packet's whole journey through a pipeline is computed when it is offered: stage `k`
//! sees it at the instant stage `k − 1` released it, possibly later than the simulator's
//! current time. This is exact as long as **every stage sees arrivals in non-decreasing time
//! order**, because then a stage's state at a packet's arrival depends only on packets that
//! arrived before it, all of which it has already seen. The caller keeps its part by offering
//! packets to a pipeline in non-decreasing `now` (the simulator's event order does). FIFO
//! stages keep the order for the stages after them; [`NormalDelay`] does not, so
//! [`PipelineConfig::validate`] accepts after it only stages that do not depend on arrival
//! order.
//!
//! If an arrival is nevertheless earlier than the previous one, an order-dependent stage
//! treats it as arriving at the previous arrival time (it never panics), and the pipeline
//! counts the offer in [`PipelineTotals::out_of_order`].
//!
//! ## Cost
//!
//! `offer` is O(1) amortised per stage, allocates nothing per packet (the serializer's queue
//! reuses its storage), and dispatches statically over the [`Stage`] enum.

mod fifo_jitter;
mod gilbert_elliott;
mod normal_delay;
mod pipeline;
// A namespace: the testbeds' link set-ups, `presets::nbiot_uplink_path` and friends.
pub mod presets;
mod propagation;
mod serializer;
mod token_bucket;

use core::fmt;

use coapcc_core::ConfigError;
use coapcc_core::Instant;
use rand_core::Rng;

use crate::rng::SimRng;

pub use fifo_jitter::{FifoJitter, FifoJitterConfig, FifoJitterStats};
pub use gilbert_elliott::{GeMode, GeState, GilbertElliott, GilbertElliottConfig, GilbertElliottStats};
pub use normal_delay::{NormalDelay, NormalDelayConfig};
pub use pipeline::{DropCounts, LinkSummary, Pipeline, PipelineConfig, PipelineStats, PipelineTotals};
pub use propagation::{Propagation, PropagationConfig};
pub use serializer::{Serializer, SerializerConfig, SerializerStats, serialization_time};
pub use token_bucket::{TokenBucket, TokenBucketConfig, TokenBucketStats};

/// Why a stage dropped a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DropReason {
    /// The drop-tail buffer had no room ([`Serializer`]): congestion loss.
    Buffer,
    /// A link error ([`GilbertElliott`]).
    Error,
    /// No token in the residual-bandwidth bucket ([`TokenBucket`]).
    NoToken,
}

impl DropReason {
    /// Every reason, in report order.
    pub const ALL: [DropReason; 3] = [DropReason::Buffer, DropReason::Error, DropReason::NoToken];

    /// The name used in reports and CSV columns.
    pub const fn name(self) -> &'static str {
        match self {
            DropReason::Buffer => "buffer",
            DropReason::Error => "error",
            DropReason::NoToken => "no_token",
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A count of packets and of their bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counter {
    /// Packets.
    pub packets: u64,
    /// Bytes.
    pub bytes: u64,
}

impl Counter {
    /// Counts one packet of `bytes`.
    #[inline]
    pub fn add(&mut self, bytes: u32) {
        self.packets += 1;
        self.bytes += bytes as u64;
    }
}

/// The kinds of stage, as named in configuration files (`kind = "serializer"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StageKind {
    /// [`Serializer`].
    Serializer,
    /// [`Propagation`].
    Propagation,
    /// [`FifoJitter`].
    FifoJitter,
    /// [`GilbertElliott`].
    GilbertElliott,
    /// [`TokenBucket`].
    TokenBucket,
    /// [`NormalDelay`].
    NormalDelay,
}

impl StageKind {
    /// The configuration name.
    pub const fn name(self) -> &'static str {
        match self {
            StageKind::Serializer => "serializer",
            StageKind::Propagation => "propagation",
            StageKind::FifoJitter => "fifo_jitter",
            StageKind::GilbertElliott => "gilbert_elliott",
            StageKind::TokenBucket => "token_bucket",
            StageKind::NormalDelay => "normal_delay",
        }
    }

    /// Whether the stage's behaviour depends on seeing arrivals in time order.
    pub const fn needs_ordered_arrivals(self) -> bool {
        !matches!(self, StageKind::Propagation | StageKind::NormalDelay)
    }

    /// Whether the stage releases packets in the order they arrived.
    pub const fn preserves_order(self) -> bool {
        !matches!(self, StageKind::NormalDelay)
    }
}

impl fmt::Display for StageKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The configuration of one stage, tagged by `kind` in files:
///
/// ```toml
/// [[stages]]
/// kind = "serializer"
/// rate_bps = 30000
/// buffer_bytes = 2500
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum StageConfig {
    /// `kind = "serializer"`: `rate_bps`, `buffer_bytes`.
    Serializer(SerializerConfig),
    /// `kind = "propagation"`: `delay_ms`.
    Propagation(PropagationConfig),
    /// `kind = "fifo_jitter"`: `lo_ms`, `hi_ms`.
    FifoJitter(FifoJitterConfig),
    /// `kind = "gilbert_elliott"`: `mean_good_ms`, `mean_bad_ms`, `loss_good`, `loss_bad`,
    /// `mode` (`"time"` or `"packet"`), `mean_good_packets`, `mean_bad_packets`.
    GilbertElliott(GilbertElliottConfig),
    /// `kind = "token_bucket"`: `min_rate_pps`, `max_rate_pps`, `period_ms`, `depth_packets`.
    TokenBucket(TokenBucketConfig),
    /// `kind = "normal_delay"`: `mean_ms`, `sd_ms`.
    NormalDelay(NormalDelayConfig),
}

impl StageConfig {
    /// The stage kind.
    pub const fn kind(&self) -> StageKind {
        match self {
            StageConfig::Serializer(_) => StageKind::Serializer,
            StageConfig::Propagation(_) => StageKind::Propagation,
            StageConfig::FifoJitter(_) => StageKind::FifoJitter,
            StageConfig::GilbertElliott(_) => StageKind::GilbertElliott,
            StageConfig::TokenBucket(_) => StageKind::TokenBucket,
            StageConfig::NormalDelay(_) => StageKind::NormalDelay,
        }
    }

    /// Checks the stage's own ranges.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            StageConfig::Serializer(c) => c.validate(),
            StageConfig::Propagation(c) => c.validate(),
            StageConfig::FifoJitter(c) => c.validate(),
            StageConfig::GilbertElliott(c) => c.validate(),
            StageConfig::TokenBucket(c) => c.validate(),
            StageConfig::NormalDelay(c) => c.validate(),
        }
    }

    /// Checks the configuration and builds the stage. `trajectory` seeds the stages that
    /// keep their own random trajectory ([`GilbertElliott`], [`TokenBucket`]); the others
    /// ignore it.
    pub fn build(&self, trajectory: SimRng) -> Result<Stage, ConfigError> {
        Ok(match *self {
            StageConfig::Serializer(c) => Stage::Serializer(Serializer::new(c)?),
            StageConfig::Propagation(c) => Stage::Propagation(Propagation::new(c)?),
            StageConfig::FifoJitter(c) => Stage::FifoJitter(FifoJitter::new(c)?),
            StageConfig::GilbertElliott(c) => Stage::GilbertElliott(GilbertElliott::new(c, trajectory)?),
            StageConfig::TokenBucket(c) => Stage::TokenBucket(TokenBucket::new(c, trajectory)?),
            StageConfig::NormalDelay(c) => Stage::NormalDelay(NormalDelay::new(c)?),
        })
    }
}

/// Any stage (static dispatch).
#[derive(Clone, Debug)]
pub enum Stage {
    /// See [`Serializer`].
    Serializer(Serializer),
    /// See [`Propagation`].
    Propagation(Propagation),
    /// See [`FifoJitter`].
    FifoJitter(FifoJitter),
    /// See [`GilbertElliott`].
    GilbertElliott(GilbertElliott),
    /// See [`TokenBucket`].
    TokenBucket(TokenBucket),
    /// See [`NormalDelay`].
    NormalDelay(NormalDelay),
}

impl Stage {
    /// The stage kind.
    pub const fn kind(&self) -> StageKind {
        match self {
            Stage::Serializer(_) => StageKind::Serializer,
            Stage::Propagation(_) => StageKind::Propagation,
            Stage::FifoJitter(_) => StageKind::FifoJitter,
            Stage::GilbertElliott(_) => StageKind::GilbertElliott,
            Stage::TokenBucket(_) => StageKind::TokenBucket,
            Stage::NormalDelay(_) => StageKind::NormalDelay,
        }
    }

    /// A packet of `bytes` arrives at `now`: when it leaves the stage, or why it was
    /// dropped. Per-packet draws come from `rng` (the pipeline's generator).
    #[inline]
    pub fn offer<R: Rng + ?Sized>(&mut self, now: Instant, bytes: u32, rng: &mut R) -> Result<Instant, DropReason> {
        match self {
            Stage::Serializer(s) => s.offer(now, bytes),
            Stage::Propagation(s) => Ok(s.offer(now)),
            Stage::FifoJitter(s) => Ok(s.offer(now, rng)),
            Stage::GilbertElliott(s) => s.offer(now, rng),
            Stage::TokenBucket(s) => s.offer(now),
            Stage::NormalDelay(s) => Ok(s.offer(now, rng)),
        }
    }

    /// Whether the stage passes every packet at the instant it arrives, whatever the traffic
    /// (an error-free Gilbert–Elliott stage, a zero propagation delay): the pipeline skips it.
    pub fn is_transparent(&self) -> bool {
        match self {
            Stage::GilbertElliott(s) => s.config().is_error_free(),
            Stage::Propagation(s) => s.delay().is_zero(),
            _ => false,
        }
    }

    /// The stage's own statistics.
    pub fn detail(&self) -> StageDetail {
        match self {
            Stage::Serializer(s) => StageDetail::Serializer(s.stats()),
            Stage::Propagation(_) => StageDetail::Propagation,
            Stage::FifoJitter(s) => StageDetail::FifoJitter(*s.stats()),
            Stage::GilbertElliott(s) => StageDetail::GilbertElliott(*s.stats()),
            Stage::TokenBucket(s) => StageDetail::TokenBucket(*s.stats()),
            Stage::NormalDelay(_) => StageDetail::NormalDelay,
        }
    }
}

/// Statistics specific to a kind of stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageDetail {
    /// Busy time, occupancy, queueing delay.
    Serializer(SerializerStats),
    /// Nothing beyond the counters.
    Propagation,
    /// Packets held back.
    FifoJitter(FifoJitterStats),
    /// Sojourns and time per state.
    GilbertElliott(GilbertElliottStats),
    /// Rate periods.
    TokenBucket(TokenBucketStats),
    /// Nothing beyond the counters.
    NormalDelay,
}

/// One stage's statistics within a pipeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StageStats {
    /// The stage kind.
    pub kind: StageKind,
    /// Packets (and bytes) that passed the stage.
    pub passed: Counter,
    /// Packets (and bytes) the stage dropped.
    pub dropped: Counter,
    /// Kind-specific statistics.
    pub detail: StageDetail,
}

impl StageStats {
    /// Packets (and bytes) that reached the stage.
    pub fn offered(&self) -> Counter {
        Counter { packets: self.passed.packets + self.dropped.packets, bytes: self.passed.bytes + self.dropped.bytes }
    }
}
