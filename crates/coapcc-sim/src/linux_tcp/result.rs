//! What one TCP run produces: the network model's flows and run metrics (the shared columns of
//! `flows.csv` and `runs.csv`), and what only TCP has: per flow the set-up time, packets, data
//! segments, timeouts, spurious RTOs and goodput; per run Linux's counters summed over every
//! host (as `nstat` would show them on the clients and the server together).

use coapcc_driver::metrics::RunResult;
use serde::{Deserialize, Serialize};

/// Per flow (one client's connection), beyond the network model's [`coapcc_driver::metrics::FlowResult`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TcpFlowResult {
    /// Flow (client) index.
    pub flow: u32,
    /// Connection set-up: first SYN sent → the server's CSM received (RFC 8323 §5.3), s
    /// (NaN when the connection never came up).
    pub setup_s: f64,
    /// Segments both ends of the connection sent (SYNs, data, pure ACKs, retransmissions).
    pub packets: u64,
    /// Distinct data segments of the response (first transmissions; 401 for 102 408 B at
    /// 256 B per segment).
    pub data_segments: u64,
    /// Retransmission timer expiries of both ends (Linux `TCPTimeouts`).
    pub timeouts: u64,
    /// Timeouts F-RTO found spurious, both ends (Linux `TCPSpuriousRTOs`).
    pub spurious_rtos: u64,
    /// Object bytes × 8 / FCT, bit/s (NaN when the flow did not finish).
    pub goodput_bps: f64,
}

/// Linux's TCP counters summed over every host of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TcpCounters {
    /// `TcpOutSegs`: segments sent, retransmissions excluded.
    pub out_segs: u64,
    /// `TcpRetransSegs`: segments retransmitted.
    pub retrans_segs: u64,
    /// `TcpExtTCPTimeouts`: retransmission timer expiries.
    pub timeouts: u64,
    /// `TcpExtTCPSpuriousRTOs`: timeouts F-RTO found spurious.
    pub spurious_rtos: u64,
}

/// One replication of one congestion control of a TCP scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TcpRunResult {
    /// Flows and run metrics in the network model's terms: FCT from the GET to the last byte
    /// of the response, one exchange per flow, transmissions = data segments sent by both
    /// ends, retransmissions = `TcpRetransSegs` of both ends, unnecessary retransmissions
    /// from the ground truth, RTT samples of the server, expired timers of both ends.
    pub network: RunResult,
    /// What only TCP has, per flow (same order).
    pub flows: Vec<TcpFlowResult>,
    /// Linux's counters over the run.
    pub counters: TcpCounters,
}
