//! `[multihop.udgm]`: Cooja's UDGM radio medium ("Unit Disk Graph Medium: Distance Loss",
//! multihop.md §1.3) as configured: ranges, success ratios, the CCA threshold and the RSSI
//! model they imply. The medium itself (frames on air, receptions) is the simulator's
//! (`crates/coapcc-sim/src/multihop/medium.rs`).

use coapcc_core::ConfigError;
use serde::Deserialize;

use super::presets::ContikiVersion;

/// UDGM parameters (§1.3) and the CCA threshold of the radio.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UdgmConfig {
    /// Transmission range `R_tx`, m (Cooja default 50).
    pub tx_range_m: f64,
    /// Interference range `R_int`, m (Cooja default 100; `R_tx` is used if smaller).
    pub interference_range_m: f64,
    /// Success ratio TX `SR_tx`: probability that a frame is not void (1.0).
    pub success_ratio_tx: f64,
    /// Success ratio RX `SR_rx` at distance `R_tx`; `p_rx(d) = 1 − (d²/R_tx²)(1 − SR_rx)` (1.0).
    pub success_ratio_rx: f64,
    /// CCA threshold, dBm: busy iff the reported RSSI ≥ this (3.0: −90, 2.7: −77).
    pub cca_threshold_dbm: i32,
    /// Cooja hands MSPSim the RSSI truncated toward zero (`(int) avg`): true in Cooja, false
    /// on real hardware (the FlockLab surrogate).
    pub rssi_truncation: bool,
    /// `cca_range`: if set, CCA is busy iff a sender is within this many metres (and within
    /// `R_int`), overriding the RSSI model.
    pub cca_range_m: Option<f64>,
}

impl Default for UdgmConfig {
    /// Contiki 3.0 in Cooja.
    fn default() -> Self {
        UdgmConfig::for_version(ContikiVersion::V3_0)
    }
}

impl UdgmConfig {
    /// The medium as the given Contiki version sees it: 3.0 in Cooja (−90 dBm, truncated RSSI,
    /// `R_cs = 0.953·R_tx`), 2.7 on hardware (−77 dBm, no truncation, `R_cs = 0.788·R_tx`).
    pub fn for_version(version: ContikiVersion) -> Self {
        let (cca_threshold_dbm, rssi_truncation) = match version {
            ContikiVersion::V3_0 => (-90, true),
            ContikiVersion::V2_7 => (-77, false),
        };
        UdgmConfig {
            tx_range_m: 50.0,
            interference_range_m: 100.0,
            success_ratio_tx: 1.0,
            success_ratio_rx: 1.0,
            cca_threshold_dbm,
            rssi_truncation,
            cca_range_m: None,
        }
    }

    /// Checks the configuration once; the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.tx_range_m.is_finite() && self.tx_range_m > 0.0) {
            return Err(ConfigError::new("tx_range_m", "must be a positive number of metres"));
        }
        if !(self.interference_range_m.is_finite() && self.interference_range_m >= 0.0) {
            return Err(ConfigError::new("interference_range_m", "must be a non-negative number of metres"));
        }
        if !(0.0..=1.0).contains(&self.success_ratio_tx) {
            return Err(ConfigError::new("success_ratio_tx", "must be in [0, 1]"));
        }
        if !(0.0..=1.0).contains(&self.success_ratio_rx) {
            return Err(ConfigError::new("success_ratio_rx", "must be in [0, 1]"));
        }
        if let Some(r) = self.cca_range_m
            && !(r.is_finite() && r >= 0.0)
        {
            return Err(ConfigError::new("cca_range_m", "must be a non-negative number of metres"));
        }
        Ok(())
    }

    /// The effective interference range: `R_int`, or `R_tx` if that is larger (§1.3).
    pub fn effective_interference_range_m(&self) -> f64 {
        self.interference_range_m.max(self.tx_range_m)
    }

    /// Probability that a receiver at `distance_m ≤ R_tx` decodes a frame:
    /// `1 − (d²/R_tx²)(1 − SR_rx)`.
    pub fn p_rx(&self, distance_m: f64) -> f64 {
        let q = distance_m / self.tx_range_m;
        1.0 - q * q * (1.0 - self.success_ratio_rx)
    }

    /// The RSSI UDGM reports at `distance_m` from a sender, dBm: `−10 − 85·d/R_tx` within
    /// `R_tx`, −95 for interferers up to `R_int`, `None` beyond.
    pub fn rssi_dbm(&self, distance_m: f64) -> Option<f64> {
        if distance_m <= self.tx_range_m {
            Some(-10.0 - 85.0 * distance_m / self.tx_range_m)
        } else if distance_m <= self.effective_interference_range_m() {
            Some(-95.0)
        } else {
            None
        }
    }

    /// Whether a CCA at `distance_m` from a sender reports a busy channel (§1.3 carrier-sense
    /// range).
    pub fn senses(&self, distance_m: f64) -> bool {
        if let Some(r) = self.cca_range_m {
            return distance_m <= r && distance_m <= self.effective_interference_range_m();
        }
        match self.rssi_dbm(distance_m) {
            Some(rssi) => {
                let reported = if self.rssi_truncation { rssi.trunc() } else { rssi };
                reported >= f64::from(self.cca_threshold_dbm)
            }
            None => false,
        }
    }
}
