//! The retransmission timer's value: RFC 6298 §2 smoothing (α = 1/8, β = 1/4) with Linux's
//! floor and cap (`TCP_RTO_MIN` 200 ms, `TCP_RTO_MAX` 120 s), the initial RTO of §2.1 (1 s,
//! Linux `TCP_TIMEOUT_INIT`) and the 3 s of §5.7 after a handshake without an RTT sample
//! (Linux `TCP_TIMEOUT_FALLBACK`, `tcp_init_transfer`). Exponential backoff (§5.5) doubles
//! the current value up to the cap; a valid sample recomputes it (Linux `tcp_set_rto`, which
//! resets the backoff only on a valid RTT measurement).

use coapcc_core::Duration;
use coapcc_driver::scenario::{LinuxTcpConfig, RtoFloor};

/// SRTT, RTTVAR and the current RTO of one sender, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RttEstimator {
    srtt_ns: Option<u64>,
    rttvar_ns: u64,
    rto_ns: u64,
    min_ns: u64,
    max_ns: u64,
    floor: RtoFloor,
}

fn ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl RttEstimator {
    /// Before any sample: RTO = the initial RTO (RFC 6298 §2.1).
    pub(crate) fn new(c: &LinuxTcpConfig) -> Self {
        RttEstimator {
            srtt_ns: None,
            rttvar_ns: 0,
            rto_ns: ns(c.rto_initial),
            min_ns: ns(c.rto_min),
            max_ns: ns(c.rto_max),
            floor: c.rto_floor,
        }
    }

    /// The current RTO (with any backoff applied).
    pub(crate) fn rto_ns(&self) -> u64 {
        self.rto_ns
    }

    /// The smoothed RTT, once there is a sample.
    pub(crate) fn srtt_ns(&self) -> Option<u64> {
        self.srtt_ns
    }

    /// Takes one RTT sample `r_ns` (RFC 6298 §2.2–2.3) and recomputes the RTO (§2.4 with
    /// the configured floor, then the cap of §2.5).
    pub(crate) fn sample(&mut self, r_ns: u64) {
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(r_ns);
                self.rttvar_ns = r_ns / 2;
            }
            Some(srtt) => {
                // RTTVAR ← (1 − β)·RTTVAR + β·|SRTT − R'|, then SRTT ← (1 − α)·SRTT + α·R'.
                self.rttvar_ns = (3 * self.rttvar_ns + srtt.abs_diff(r_ns)) / 4;
                self.srtt_ns = Some((7 * srtt + r_ns) / 8);
            }
        }
        self.set_rto();
    }

    /// RTO from SRTT and RTTVAR (RFC 6298 §2.4 with the configured floor, then the cap of
    /// §2.5); nothing before the first sample.
    fn set_rto(&mut self) {
        let Some(srtt) = self.srtt_ns else { return };
        let var4 = self.rttvar_ns.saturating_mul(4);
        let rto = match self.floor {
            // Linux `tcp_set_rto`: srtt + rttvar with rttvar ≥ TCP_RTO_MIN (`tcp_rtt_estimator`).
            RtoFloor::Linux => srtt.saturating_add(var4.max(self.min_ns)),
            // RFC 6298 §2.4: max(SRTT + 4·RTTVAR, floor).
            RtoFloor::Rfc6298 => srtt.saturating_add(var4).max(self.min_ns),
        };
        self.rto_ns = rto.min(self.max_ns);
    }

    /// An ACK of new data without a sample drops the backoff: RTO from SRTT and RTTVAR again
    /// (ns-3 `TcpSocketBase::NewAck`; Linux and Karn's algorithm keep the backed-off RTO until
    /// a valid sample, RFC 6298 §5.7).
    pub(crate) fn restore(&mut self) {
        self.set_rto();
    }

    /// Backs the timer off after an expiry (RFC 6298 §5.5): RTO ← min(2·RTO, cap).
    pub(crate) fn back_off(&mut self) {
        self.rto_ns = self.rto_ns.saturating_mul(2).min(self.max_ns);
    }

    /// No valid sample came from the handshake although it was retransmitted: RTO ← 3 s
    /// (RFC 6298 §5.7; Linux sets RTTVAR to the same 3 s in `tcp_init_transfer`).
    pub(crate) fn fall_back(&mut self, fallback: Duration) {
        if self.srtt_ns.is_none() {
            self.rto_ns = ns(fallback).clamp(self.min_ns, self.max_ns);
            self.rttvar_ns = self.rto_ns / 4;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn est(floor: RtoFloor) -> RttEstimator {
        RttEstimator::new(&LinuxTcpConfig { rto_floor: floor, ..LinuxTcpConfig::default() })
    }

    #[test]
    fn before_a_sample_the_rto_is_one_second() {
        assert_eq!(est(RtoFloor::Linux).rto_ns(), 1_000 * MS);
    }

    #[test]
    fn two_samples_give_the_rto_worked_out_by_hand() {
        // R1 = 600 ms: SRTT 600, RTTVAR 300, RTO = 600 + max(1 200, 200) = 1 800 ms.
        let mut e = est(RtoFloor::Linux);
        e.sample(600 * MS);
        assert_eq!(e.rto_ns(), 1_800 * MS);
        // R2 = 800 ms: RTTVAR = 3/4·300 + 1/4·200 = 275; SRTT = 7/8·600 + 1/8·800 = 625;
        // RTO = 625 + 4·275 = 1 725 ms.
        e.sample(800 * MS);
        assert_eq!(e.srtt_ns(), Some(625 * MS));
        assert_eq!(e.rto_ns(), 1_725 * MS);
    }

    #[test]
    fn linux_keeps_two_hundred_ms_above_srtt_where_rfc_6298_floors_the_sum() {
        // Twenty equal samples of 650 ms: RTTVAR = 325·(3/4)^19 ≈ 1.4 ms, so 4·RTTVAR < 200 ms.
        let (mut l, mut r) = (est(RtoFloor::Linux), est(RtoFloor::Rfc6298));
        for _ in 0..20 {
            l.sample(650 * MS);
            r.sample(650 * MS);
        }
        assert_eq!(l.rto_ns(), 850 * MS, "Linux: SRTT + TCP_RTO_MIN");
        let var = r.rttvar_ns;
        assert!(var < 2 * MS);
        assert_eq!(r.rto_ns(), 650 * MS + 4 * var, "RFC 6298: SRTT + 4·RTTVAR above the floor");
        // A tiny RTT: both are floored at 200 ms.
        let mut r = est(RtoFloor::Rfc6298);
        r.sample(MS);
        assert_eq!(r.rto_ns(), 200 * MS);
    }

    #[test]
    fn backoff_doubles_up_to_the_two_minute_cap() {
        let mut e = est(RtoFloor::Linux);
        let mut seen = Vec::new();
        for _ in 0..9 {
            e.back_off();
            seen.push(e.rto_ns() / MS);
        }
        assert_eq!(seen, [2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 120_000, 120_000, 120_000]);
    }

    #[test]
    fn a_handshake_without_a_sample_falls_back_to_three_seconds_and_a_sampled_one_does_not() {
        let mut e = est(RtoFloor::Linux);
        e.fall_back(Duration::from_secs(3));
        assert_eq!(e.rto_ns(), 3_000 * MS);
        let mut e = est(RtoFloor::Linux);
        e.sample(600 * MS);
        e.fall_back(Duration::from_secs(3));
        assert_eq!(e.rto_ns(), 1_800 * MS);
    }
}
