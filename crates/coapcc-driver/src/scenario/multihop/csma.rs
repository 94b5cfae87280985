//! `[multihop.csma]`: the parameters of Contiki CSMA (`core/net/mac/csma.c`, multihop.md
//! §1.4) with the Contiki 2.7 / 3.0 and mote presets ([`CsmaConfig::for_mote`]), the backoff
//! they define. The CSMA state machine is the
//! simulator's (`crates/coapcc-sim/src/multihop/csma.rs`).

use core::time::Duration;

use coapcc_core::ConfigError;
use rand_core::Rng;
use serde::Deserialize;

use super::presets::{ContikiVersion, Mote};
use crate::rng::below;

/// How the backoff window grows with the NOACK count `k` (§1.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BackoffKind {
    /// Contiki 3.0: window `2^min(k, max_backoff_exponent) · T_b`.
    Exponential,
    /// Contiki 2.7: window `min(k + 1, 3) · T_b`.
    Linear,
}

/// CSMA parameters (§1.4); `Default` is a Contiki 3.0 Sky.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CsmaConfig {
    /// `CSMA_MAX_NEIGHBOR_QUEUES`: neighbour queues that may exist at once (2).
    pub max_neighbor_queues: u32,
    /// `QUEUEBUF_NUM`: packets in the shared pool (Sky 8, Z1 4, Wismote 8, border router 4).
    pub queuebuf_num: u32,
    /// Separate cap on one neighbour queue, packets (3.0 caps it at `QUEUEBUF_NUM`, which the
    /// pool already enforces; unset = no separate cap).
    pub max_packets_per_neighbor: Option<u32>,
    /// `SICSLOWPAN_MAX_MAC_TRANSMISSIONS`: transmissions (NOACKs) per packet before it is
    /// dropped (Sky 5, Wismote 5, Z1 4).
    pub max_transmissions: u32,
    /// Backoff growth (3.0 exponential, 2.7 linear).
    pub backoff: BackoffKind,
    /// `T_b` in clock ticks: the RDC's channel-check interval, 16 ticks = 125 ms.
    pub time_base_ticks: u32,
    /// The clock rate, Hz (`CLOCK_SECOND` = 128).
    pub clock_hz: u32,
    /// Exponential backoff: largest exponent (3).
    pub max_backoff_exponent: u32,
    /// Linear backoff: largest window multiple (3).
    pub linear_backoff_cap: u32,
    /// Received (sender, sequence number) pairs remembered for duplicate detection (16).
    pub duplicate_history: u32,
}

impl Default for CsmaConfig {
    fn default() -> Self {
        CsmaConfig::for_mote(ContikiVersion::V3_0, Mote::Sky)
    }
}

impl CsmaConfig {
    /// The configuration of a Contiki version (backoff kind) on a Sky.
    pub fn for_version(version: ContikiVersion) -> Self {
        CsmaConfig::for_mote(version, Mote::Sky)
    }

    /// The configuration of a Contiki version on a mote platform.
    pub fn for_mote(version: ContikiVersion, mote: Mote) -> Self {
        let (queuebuf_num, max_transmissions) = match mote {
            Mote::Sky | Mote::Wismote => (8, 5),
            Mote::Z1 => (4, 4),
            Mote::SkyBorderRouter => (4, 5),
        };
        CsmaConfig {
            max_neighbor_queues: 2,
            queuebuf_num,
            max_packets_per_neighbor: None,
            max_transmissions,
            backoff: match version {
                ContikiVersion::V3_0 => BackoffKind::Exponential,
                ContikiVersion::V2_7 => BackoffKind::Linear,
            },
            time_base_ticks: 16,
            clock_hz: 128,
            max_backoff_exponent: 3,
            linear_backoff_cap: 3,
            duplicate_history: 16,
        }
    }

    /// Checks the configuration once; the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.max_neighbor_queues == 0 {
            return Err(ConfigError::new("max_neighbor_queues", "must be at least 1"));
        }
        if self.queuebuf_num == 0 {
            return Err(ConfigError::new("queuebuf_num", "must be at least 1"));
        }
        if self.max_packets_per_neighbor == Some(0) {
            return Err(ConfigError::new("max_packets_per_neighbor", "must be at least 1"));
        }
        if self.max_transmissions == 0 {
            return Err(ConfigError::new("max_transmissions", "must be at least 1"));
        }
        if self.time_base_ticks == 0 || self.time_base_ticks > 1 << 20 {
            return Err(ConfigError::new("time_base_ticks", "must be in 1..=1048576"));
        }
        if self.clock_hz == 0 {
            return Err(ConfigError::new("clock_hz", "must be at least 1"));
        }
        if self.max_backoff_exponent > 16 {
            return Err(ConfigError::new("max_backoff_exponent", "must be at most 16"));
        }
        if self.linear_backoff_cap == 0 || self.linear_backoff_cap > 1 << 16 {
            return Err(ConfigError::new("linear_backoff_cap", "must be in 1..=65536"));
        }
        Ok(())
    }

    /// Duration of `ticks` clock ticks (exact for 128 Hz: 7.8125 ms each).
    pub fn ticks(&self, ticks: u64) -> Duration {
        let hz = u64::from(self.clock_hz.max(1));
        let ns = u128::from(ticks) * 1_000_000_000 / u128::from(hz);
        Duration::from_nanos(u64::try_from(ns).unwrap_or(u64::MAX))
    }

    /// `T_b` (125 ms by default).
    pub fn time_base(&self) -> Duration {
        self.ticks(u64::from(self.time_base_ticks))
    }

    /// The backoff window after `k` NOACKs, in multiples of `T_b`.
    pub fn backoff_multiple(&self, k: u32) -> u64 {
        match self.backoff {
            BackoffKind::Exponential => 1u64 << k.min(self.max_backoff_exponent),
            BackoffKind::Linear => u64::from((k.saturating_add(1)).min(self.linear_backoff_cap)),
        }
    }

    /// A backoff draw after `k` NOACKs: `T_b + rand() % (m · T_b)` ticks, `m` =
    /// [`CsmaConfig::backoff_multiple`].
    pub fn backoff<R: Rng + ?Sized>(&self, k: u32, rng: &mut R) -> Duration {
        let tb = u64::from(self.time_base_ticks);
        self.ticks(tb + below(rng, self.backoff_multiple(k) * tb))
    }

    /// The mean backoff after `k` NOACKs: `T_b + (m · T_b − 1)/2` ticks, in nanoseconds.
    pub fn mean_backoff_nanos(&self, k: u32) -> f64 {
        let tb = u64::from(self.time_base_ticks);
        let mean_ticks = tb as f64 + (self.backoff_multiple(k) * tb - 1) as f64 / 2.0;
        mean_ticks * 1e9 / f64::from(self.clock_hz)
    }
}
