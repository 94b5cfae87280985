//! `[multihop.phy]`: the radio timing of the IEEE 802.15.4 2.4 GHz O-QPSK PHY (multihop.md
//! §1.2), with `Default` = the spec's values, and the airtimes that follow from it. The frame
//! lengths of §1.2 (rules 1–4, the table) are the simulator's (`crates/coapcc-sim/src/multihop/phy.rs`).

use core::time::Duration;

use coapcc_core::ConfigError;
use coapcc_core::duration::{from_nanos, nanos};
use serde::Deserialize;

/// Radio timing of the 2.4 GHz O-QPSK PHY (multihop.md §1.2).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PhyConfig {
    /// Time to send one byte (2 symbols of 16 µs): 0.032 ms.
    #[serde(rename = "byte_time_ms", with = "coapcc_core::serde_ms")]
    pub byte_time: Duration,
    /// Synchronisation header and length byte sent before every PSDU: 4 B preamble + 1 B SFD
    /// + 1 B length = 6 B.
    pub phy_overhead_bytes: u32,
    /// Largest PSDU (aMaxPHYPacketSize): 127 B.
    pub max_psdu_bytes: u32,
    /// RX→TX turnaround before every frame (CC2420 STXONCCA, 12 symbols): 0.192 ms.
    #[serde(rename = "turnaround_ms", with = "coapcc_core::serde_ms")]
    pub turnaround: Duration,
    /// Duration of one CCA (RSSI averaged over 8 symbols): 0.128 ms; the model samples the
    /// channel at one instant.
    #[serde(rename = "cca_ms", with = "coapcc_core::serde_ms")]
    pub cca: Duration,
    /// PSDU of the hardware link-layer ACK (FCF 2 + seq 1 + FCS 2): 5 B.
    pub ack_psdu_bytes: u32,
    /// Delay from the end of a unicast frame that requests an ACK to the start of the
    /// hardware ACK: 0.192 ms.
    #[serde(rename = "ack_delay_ms", with = "coapcc_core::serde_ms")]
    pub ack_delay: Duration,
}

impl Default for PhyConfig {
    fn default() -> Self {
        PhyConfig {
            byte_time: Duration::from_micros(32),
            phy_overhead_bytes: 6,
            max_psdu_bytes: 127,
            turnaround: Duration::from_micros(192),
            cca: Duration::from_micros(128),
            ack_psdu_bytes: 5,
            ack_delay: Duration::from_micros(192),
        }
    }
}

impl PhyConfig {
    /// Checks the configuration once; the error names the key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.byte_time.is_zero() {
            return Err(ConfigError::new("byte_time_ms", "must be positive"));
        }
        if self.max_psdu_bytes == 0 || self.max_psdu_bytes > 65_535 {
            return Err(ConfigError::new("max_psdu_bytes", "must be in 1..=65535"));
        }
        if self.ack_psdu_bytes == 0 || self.ack_psdu_bytes > self.max_psdu_bytes {
            return Err(ConfigError::new("ack_psdu_bytes", "must be in 1..=max_psdu_bytes"));
        }
        Ok(())
    }

    /// Airtime of a PSDU of `psdu_bytes` bytes: `T(L) = (L + 6) · 32 µs` (§1.2), exact
    /// integer nanoseconds, saturating.
    pub fn airtime(&self, psdu_bytes: u32) -> Duration {
        let bytes = u64::from(psdu_bytes) + u64::from(self.phy_overhead_bytes);
        from_nanos(bytes.saturating_mul(nanos(self.byte_time)))
    }

    /// Airtime of the hardware ACK (0.352 ms by default).
    pub fn ack_airtime(&self) -> Duration {
        self.airtime(self.ack_psdu_bytes)
    }

    /// Time from the start of a frame attempt (after an idle CCA) to the end of the frame:
    /// turnaround + airtime (§6 check 2: `0.192 ms + T(L)`).
    pub fn attempt_to_end(&self, psdu_bytes: u32) -> Duration {
        self.turnaround + self.airtime(psdu_bytes)
    }
}

/// How frame lengths are obtained (`frame_len_mode`, §1.2): the default table or rules 1–4.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameLenMode {
    /// The §1.2 table of default frame sizes (`TableFlow` in `crates/coapcc-sim/src/multihop/phy.rs`).
    #[default]
    Table,
    /// Rules 1–4 per hop (`FrameRules` in `crates/coapcc-sim/src/multihop/phy.rs`).
    Rules,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn airtimes_match_the_spec_exactly() {
        // §6 check 1 and the §1.2 examples.
        let phy = PhyConfig::default();
        assert_eq!(phy.airtime(80), Duration::from_micros(2_752));
        assert_eq!(phy.airtime(127), Duration::from_micros(4_256));
        assert_eq!(phy.ack_airtime(), Duration::from_micros(352));
        for (l, us) in [(64, 2_240), (84, 2_880), (103, 3_488), (120, 4_032)] {
            assert_eq!(phy.airtime(l), Duration::from_micros(us), "L = {l}");
        }
    }

    #[test]
    fn a_nullrdc_attempt_ends_turnaround_plus_airtime_after_it_starts() {
        // §6 check 2: 0.192 ms + T(L).
        assert_eq!(PhyConfig::default().attempt_to_end(80), Duration::from_micros(192 + 2_752));
    }

    #[test]
    fn the_phy_config_reads_partial_tables_and_rejects_unknown_keys() {
        let cfg: PhyConfig = toml::from_str("byte_time_ms = 0.032\nturnaround_ms = 0.2").unwrap();
        assert_eq!(cfg.byte_time, Duration::from_micros(32));
        assert_eq!(cfg.turnaround, Duration::from_micros(200));
        assert_eq!(cfg.max_psdu_bytes, 127);
        assert!(toml::from_str::<PhyConfig>("bogus = 1").is_err());
        let zero: PhyConfig = toml::from_str("byte_time_ms = 0").unwrap();
        assert_eq!(zero.validate().unwrap_err().key, "byte_time_ms");
    }
}
