//! Transfer cases, whose flows each fetch one object (CoAP over TCP, `[tcp]`; CoAP over UDP
//! block-wise, `[coap.blockwise]`): what the report keeps of them beyond the summaries
//! ([`Transfer`]: the object's size, and over TCP each algorithm's data segments, which the
//! firmware claims read).

use coapcc_driver::metrics::median;
use coapcc_driver::scenario::{Model, Scenario};
use coapcc_sim::{AlgorithmRuns, RunOutput};

/// What a transfer case measures beyond its summaries.
#[derive(Clone, Debug, PartialEq)]
pub struct Transfer {
    /// The object each flow fetches, bytes (102 400 for the firmware image).
    pub object_bytes: u64,
    /// Over CoAP over TCP, per algorithm (congestion control): its data segments; empty over UDP.
    pub tcp: Vec<(String, TcpTransfer)>,
}

/// One congestion control's segments in a CoAP-over-TCP case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpTransfer {
    /// Median over every flow of every replication of the response's distinct data segments
    /// (first transmissions).
    pub data_segments_median: f64,
    /// IPv4 and TCP header bytes of each segment (40; 52 with timestamps).
    pub header_bytes_per_segment: u32,
}

impl TcpTransfer {
    /// The header bytes of the median flow's data segments.
    pub fn header_bytes_median(&self) -> f64 {
        self.data_segments_median * f64::from(self.header_bytes_per_segment)
    }
}

impl Transfer {
    /// What a case of scenario `s` with runs `runs` transfers; none unless its flows each fetch
    /// one object.
    pub fn of_runs(s: &Scenario, runs: &[AlgorithmRuns]) -> Option<Transfer> {
        match &s.model {
            Model::Tcp(m) => {
                let tcp = runs
                    .iter()
                    .map(|a| {
                        let mut segments: Vec<f64> = a
                            .runs
                            .iter()
                            .filter_map(|r| match r {
                                RunOutput::Tcp(t) => Some(t.flows.iter().map(|f| f.data_segments as f64)),
                                _ => None,
                            })
                            .flatten()
                            .collect();
                        let t = TcpTransfer {
                            data_segments_median: median(&mut segments),
                            header_bytes_per_segment: m.tcp.header_bytes(),
                        };
                        (a.algorithm.clone(), t)
                    })
                    .collect();
                Some(Transfer { object_bytes: m.tcp.object_bytes, tcp })
            }
            Model::Network { .. } => s
                .file
                .coap
                .blockwise
                .as_ref()
                .map(|b| Transfer { object_bytes: u64::from(b.object_bytes), tcp: Vec::new() }),
            _ => None,
        }
    }

    /// Algorithm `algorithm`'s segments, over CoAP over TCP.
    pub fn tcp_of(&self, algorithm: &str) -> Option<&TcpTransfer> {
        self.tcp.iter().find(|(a, _)| a == algorithm).map(|(_, t)| t)
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use coapcc_driver::scenario::{Catalogue, Model};

    use super::super::published::{Check, load};

    #[test]
    fn the_firmware_claims_are_the_theses_arithmetic_and_our_tcp_scenario_segments_the_object_so() {
        let p = load("firmware").unwrap();
        let claim = |id: &str| p.claims.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no claim {id}"));
        // The thesis: 102 400 B and the 8-byte CoAP-over-TCP header; 40 B of minimal IPv4 (20)
        // and TCP (20) headers in each segment of a 296-byte MTU.
        let (response_bytes, header_bytes, mtu_bytes) = (102_400_u64 + 8, 20_u64 + 20, 296_u64);
        let segments = response_bytes.div_ceil(mtu_bytes - header_bytes);
        assert_eq!(segments, 401);
        assert_eq!(claim("fw-segments-cubic").published, segments as f64);
        assert_eq!(claim("fw-segments-reno").published, segments as f64);
        assert_eq!(claim("fw-header-bytes-cubic").published, (segments * header_bytes) as f64);
        // "MSS of 296" read as the MSS would give 346 segments: why the reading is fitted to 401.
        assert_eq!(response_bytes.div_ceil(mtu_bytes), 346);
        // 32.2 s is the downlink's serialisation of data and headers at 30 kbit/s, plus the
        // request's 200 ms up, the last segment's 400 ms down and 10–20 ms of the rest of the
        // path each way (docs/testbeds.md §1).
        let serialisation_s = ((response_bytes + segments * header_bytes) * 8) as f64 / 30_000.0;
        for rest_s in [0.02, 0.04] {
            let ideal_s = serialisation_s + 0.2 + 0.4 + rest_s;
            assert!((ideal_s - claim("fw-ideal-fct-cubic").published).abs() < 0.05, "{ideal_s}");
        }
        for id in ["fw-ideal-fct-cubic", "fw-ideal-fct-reno"] {
            let Check::Within { tolerance } = claim(id).check else { panic!("{id}: not a `within` check") };
            assert!((tolerance - 0.05 * 32.2).abs() < 1e-9, "{id}: 5 % of 32.2 s is 1.61 s, not {tolerance}");
        }
        // The scenario the claims are measured in segments the response so.
        let s = Catalogue::BuiltIn.load(Path::new("firmware/tcp-1-client.toml"), &[]).unwrap();
        let Model::Tcp(m) = &s.model else { panic!("firmware/tcp-1-client is not a TCP scenario") };
        assert_eq!(u64::from(m.tcp.mss()), mtu_bytes - header_bytes);
        assert_eq!(u64::from(m.tcp.header_bytes()), header_bytes);
        assert_eq!(m.tcp.sizes().response, response_bytes);
    }
}
