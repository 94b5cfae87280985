//! [`Pipeline`]: the stages of one link direction, its generator and its statistics.

use coapcc_core::ConfigError;
use coapcc_core::{Duration, Instant};

use super::{Counter, DropReason, Stage, StageConfig, StageDetail, StageStats};
use crate::rng::{SimRng, stream_rng, sub_stream};

/// The stages of one direction, in the order a packet meets them.
///
/// ```toml
/// [[stages]]
/// kind = "serializer"
/// rate_bps = 60000
/// buffer_bytes = 2500
///
/// [[stages]]
/// kind = "propagation"
/// delay_ms = 200
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfig {
    /// The stages; an empty list delivers every packet at once.
    pub stages: Vec<StageConfig>,
}

impl PipelineConfig {
    /// A pipeline of `stages`.
    pub fn new(stages: impl Into<Vec<StageConfig>>) -> Self {
        PipelineConfig { stages: stages.into() }
    }

    /// This pipeline followed by `next` (for composing presets).
    pub fn then(mut self, next: PipelineConfig) -> Self {
        self.stages.extend(next.stages);
        self
    }

    /// Checks every stage, and that no order-dependent stage follows a reordering one
    /// (see the [ordering contract](super#the-ordering-contract)).
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut reordered = false;
        for stage in &self.stages {
            stage.validate()?;
            if reordered && stage.kind().needs_ordered_arrivals() {
                return Err(ConfigError::new(
                    "stages",
                    "after a normal_delay stage (which reorders packets) only propagation or normal_delay stages may follow",
                ));
            }
            reordered |= !stage.kind().preserves_order();
        }
        Ok(())
    }
}

/// Drops of a pipeline, by reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DropCounts {
    /// [`DropReason::Buffer`].
    pub buffer: Counter,
    /// [`DropReason::Error`].
    pub error: Counter,
    /// [`DropReason::NoToken`].
    pub no_token: Counter,
}

impl DropCounts {
    /// The drops for `reason`.
    pub fn get(&self, reason: DropReason) -> Counter {
        match reason {
            DropReason::Buffer => self.buffer,
            DropReason::Error => self.error,
            DropReason::NoToken => self.no_token,
        }
    }

    fn get_mut(&mut self, reason: DropReason) -> &mut Counter {
        match reason {
            DropReason::Buffer => &mut self.buffer,
            DropReason::Error => &mut self.error,
            DropReason::NoToken => &mut self.no_token,
        }
    }

    /// All drops.
    pub fn total(&self) -> Counter {
        let mut t = Counter::default();
        for r in DropReason::ALL {
            let c = self.get(r);
            t.packets += c.packets;
            t.bytes += c.bytes;
        }
        t
    }
}

/// Whole-pipeline counters (cheap to read at any time).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PipelineTotals {
    /// Packets offered.
    pub offered: Counter,
    /// Packets delivered (left the last stage).
    pub delivered: Counter,
    /// Packets dropped, by reason.
    pub dropped: DropCounts,
    /// Sum over delivered packets of (leave − offer).
    pub transit: Duration,
    /// Offers earlier than the previous offer (a broken caller; see the ordering contract).
    pub out_of_order: u64,
    /// The latest offer.
    pub last_offer: Instant,
}

impl PipelineTotals {
    /// Mean transit time of the delivered packets (zero when none).
    pub fn mean_transit(&self) -> Duration {
        coapcc_core::duration::div(self.transit, self.delivered.packets.max(1))
    }

    /// Fraction of offered packets dropped, in [0, 1] (zero when none offered).
    pub fn loss_rate(&self) -> f64 {
        self.dropped.total().packets as f64 / self.offered.packets.max(1) as f64
    }
}

/// A pipeline's statistics: the totals and one entry per stage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PipelineStats {
    /// Whole-pipeline counters.
    pub totals: PipelineTotals,
    /// Per stage, in pipeline order.
    pub stages: Vec<StageStats>,
}

/// A direction's bottleneck figures for run reports, from its first serializer stage (NaN and
/// zero when it has none).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkSummary {
    /// Fraction of the time until the run's end the serializer was busy, in [0, 1].
    pub utilisation: f64,
    /// Mean wait in the drop-tail buffer over the packets the serializer admitted (those that
    /// found the link idle waited zero), seconds.
    pub mean_queueing_delay_s: f64,
    /// The largest backlog, bytes.
    pub max_queue_bytes: u64,
}

/// A stage with its drop counter (what passed is derived: what reached it minus what it dropped).
#[derive(Clone, Debug)]
struct Slot {
    stage: Stage,
    dropped: Counter,
}

/// The stages of one link direction, the direction's generator and its statistics.
///
/// Per-packet draws (jitter, normal delays, error decisions) come from the direction's
/// generator; stage `i` keeps a generator of its own for its trajectory (Gilbert–Elliott
/// states, token-bucket rates), seeded from sub-stream `i + 1` of the direction's stream
/// ([`sub_stream`]), so trajectories do not depend on the traffic.
#[derive(Clone, Debug)]
pub struct Pipeline {
    /// The stages a packet has to visit, in order, then the transparent ones
    /// ([`Stage::is_transparent`]), which pass every packet unchanged: the offer walks
    /// `slots[..active]` with no indirection.
    slots: Vec<Slot>,
    /// How many stages a packet visits (the first of `slots`).
    active: usize,
    /// Per stage in pipeline order: its index in `slots`.
    order: Vec<usize>,
    rng: SimRng,
    totals: PipelineTotals,
    /// `totals.transit` in nanoseconds (kept as an integer on the hot path).
    transit_ns: u64,
}

impl Pipeline {
    /// Checks `config` and builds the pipeline of stream `stream` (see
    /// [`Stream`](crate::rng::Stream)) in replication `replication` of the scenario seeded
    /// with `seed`.
    pub fn new(config: &PipelineConfig, seed: u64, replication: u32, stream: u64) -> Result<Self, ConfigError> {
        config.validate()?;
        let stages = config
            .stages
            .iter()
            .enumerate()
            .map(|(i, c)| c.build(stream_rng(seed, replication, sub_stream(stream, i as u64 + 1))))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self::from_stages(stages, stream_rng(seed, replication, stream)))
    }

    /// A pipeline of already-built stages with the per-packet generator `rng` (no ordering
    /// check: the caller keeps the ordering contract).
    pub fn from_stages(stages: Vec<Stage>, rng: SimRng) -> Self {
        let (visited, transparent): (Vec<_>, Vec<_>) =
            stages.into_iter().enumerate().partition(|(_, s)| !s.is_transparent());
        let active = visited.len();
        let mut order = vec![0; active + transparent.len()];
        let slots = visited
            .into_iter()
            .chain(transparent)
            .enumerate()
            .map(|(at, (i, stage))| {
                order[i] = at;
                Slot { stage, dropped: Counter::default() }
            })
            .collect();
        Pipeline { slots, active, order, rng, totals: PipelineTotals::default(), transit_ns: 0 }
    }

    /// A packet of `bytes` enters the direction at `now`: the instant it leaves the last
    /// stage, or why a stage dropped it. Offers must come in non-decreasing `now` (see the
    /// [ordering contract](super#the-ordering-contract)).
    #[inline]
    pub fn offer(&mut self, now: Instant, bytes: u32) -> Result<Instant, DropReason> {
        if now < self.totals.last_offer {
            self.totals.out_of_order += 1;
        } else {
            self.totals.last_offer = now;
        }
        self.totals.offered.add(bytes);
        let mut t = now;
        for slot in &mut self.slots[..self.active] {
            match slot.stage.offer(t, bytes, &mut self.rng) {
                Ok(leave) => t = leave,
                Err(reason) => {
                    slot.dropped.add(bytes);
                    self.totals.dropped.get_mut(reason).add(bytes);
                    return Err(reason);
                }
            }
        }
        self.transit_ns = self.transit_ns.saturating_add(t.as_nanos().saturating_sub(now.as_nanos()));
        Ok(t)
    }

    /// Whole-pipeline counters.
    pub fn totals(&self) -> PipelineTotals {
        let dropped = self.totals.dropped.total();
        let delivered = Counter {
            packets: self.totals.offered.packets - dropped.packets,
            bytes: self.totals.offered.bytes - dropped.bytes,
        };
        PipelineTotals { transit: coapcc_core::duration::from_nanos(self.transit_ns), delivered, ..self.totals }
    }

    /// The totals and every stage's statistics (allocates; for reports).
    pub fn stats(&self) -> PipelineStats {
        // What reached stage i is what passed stage i − 1; the first stage sees every offer.
        let mut reached = self.totals.offered;
        let stages = self
            .slots_in_order()
            .map(|s| {
                let passed =
                    Counter { packets: reached.packets - s.dropped.packets, bytes: reached.bytes - s.dropped.bytes };
                reached = passed;
                StageStats { kind: s.stage.kind(), passed, dropped: s.dropped, detail: s.stage.detail() }
            })
            .collect();
        PipelineStats { totals: self.totals(), stages }
    }

    /// The serializer figures of a run that ended at `end` (see [`LinkSummary`]).
    pub fn link_summary(&self, end: Instant) -> LinkSummary {
        let stats = self.stats();
        stats
            .stages
            .iter()
            .find_map(|s| match s.detail {
                StageDetail::Serializer(st) => Some(LinkSummary {
                    utilisation: st.utilisation(end),
                    mean_queueing_delay_s: if s.passed.packets > 0 {
                        st.queueing_delay.as_secs_f64() / s.passed.packets as f64
                    } else {
                        f64::NAN
                    },
                    max_queue_bytes: st.max_occupancy_bytes,
                }),
                _ => None,
            })
            .unwrap_or(LinkSummary { utilisation: f64::NAN, mean_queueing_delay_s: f64::NAN, max_queue_bytes: 0 })
    }

    /// The current rate of the first token-bucket stage, packets per second (the residual
    /// bandwidth of testbeds §2), if there is one.
    #[inline]
    pub fn token_rate_pps(&self) -> Option<f64> {
        self.slots_in_order().find_map(|s| match &s.stage {
            Stage::TokenBucket(tb) => Some(tb.rate_pps()),
            _ => None,
        })
    }

    /// The stages, in order.
    pub fn stages(&self) -> impl ExactSizeIterator<Item = &Stage> {
        self.slots_in_order().map(|s| &s.stage)
    }

    /// The stages with their counters, in pipeline order.
    fn slots_in_order(&self) -> impl ExactSizeIterator<Item = &Slot> {
        self.order.iter().map(|&i| &self.slots[i])
    }

    /// Number of stages.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the pipeline has no stage.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}
