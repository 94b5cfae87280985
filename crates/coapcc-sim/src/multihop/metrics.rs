//! What a multihop run reports (spec multihop.md §2.5, §3.4, §4.4) and the per-frame
//! counters of the link layer.

use serde::{Deserialize, Serialize};

/// Jain's fairness index (Σx)² / (n·Σx²) of `xs` (§4.4); 1 for an empty or all-zero list.
pub fn jain_index(xs: &[f64]) -> f64 {
    let n = xs.len() as f64;
    let sum: f64 = xs.iter().sum();
    let sq: f64 = xs.iter().map(|x| x * x).sum();
    if n == 0.0 || sq == 0.0 { 1.0 } else { sum * sum / (n * sq) }
}

/// Link-layer counters of one node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MacCounters {
    /// Data frames (ContikiMAC: strobe copies) put on air.
    pub data_frames: u64,
    /// Hardware ACKs put on air.
    pub acks_sent: u64,
    /// Unicast trains that ended `OK` (ContikiMAC) or attempts that ended `OK` (NullRDC).
    pub tx_ok: u64,
    /// Attempts that ended `NOACK`.
    pub tx_noack: u64,
    /// Attempts that ended `COLLISION` (busy CCA, foreign frame in the ACK window, busy
    /// receiving).
    pub tx_collision: u64,
    /// Busy CCAs met by transmission attempts.
    pub cca_busy: u64,
    /// Data frames this node started receiving that were corrupted.
    pub rx_corrupted: u64,
    /// Data frames delivered up to this node (duplicates excluded).
    pub rx_delivered: u64,
    /// Duplicates discarded by the MAC sequence filter.
    pub rx_duplicates: u64,
    /// CSMA drops: no free neighbour queue.
    pub drop_no_neighbor_queue: u64,
    /// CSMA drops: buffer pool exhausted.
    pub drop_no_buffer: u64,
    /// CSMA drops: neighbour queue full.
    pub drop_queue_full: u64,
    /// CSMA drops: retry limit (`max_transmissions` NOACKs).
    pub drop_retry_limit: u64,
    /// Copies of trains that ended `OK` (ContikiMAC), summed: mean copies per train =
    /// this / `tx_ok`.
    pub copies_in_ok_trains: u64,
    /// Burst follower trains (R5, pending bit) that ended `OK`.
    pub burst_followers_ok: u64,
    /// Radio-on time, ns.
    pub radio_on_ns: u64,
}

impl MacCounters {
    /// Radio duty cycle over `elapsed_ns`.
    pub fn duty_cycle(&self, elapsed_ns: u64) -> f64 {
        if elapsed_ns == 0 { 0.0 } else { self.radio_on_ns as f64 / elapsed_ns as f64 }
    }

    /// Adds `other` into `self`.
    pub fn add(&mut self, o: &MacCounters) {
        self.data_frames += o.data_frames;
        self.acks_sent += o.acks_sent;
        self.tx_ok += o.tx_ok;
        self.tx_noack += o.tx_noack;
        self.tx_collision += o.tx_collision;
        self.cca_busy += o.cca_busy;
        self.rx_corrupted += o.rx_corrupted;
        self.rx_delivered += o.rx_delivered;
        self.rx_duplicates += o.rx_duplicates;
        self.drop_no_neighbor_queue += o.drop_no_neighbor_queue;
        self.drop_no_buffer += o.drop_no_buffer;
        self.drop_queue_full += o.drop_queue_full;
        self.drop_retry_limit += o.drop_retry_limit;
        self.copies_in_ok_trains += o.copies_in_ok_trains;
        self.burst_followers_ok += o.burst_followers_ok;
        self.radio_on_ns += o.radio_on_ns;
    }
}

/// CoAP results of one client (a sender mote, or a cloud client): its set-up, its workload's
/// counts and what the driver's recorder kept of it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoapFlowResult {
    /// The client's node id (`None` for a host-side client).
    pub node: Option<u16>,
    /// The server's node id (`None` for a host-side server).
    pub peer: Option<u16>,
    /// Hops of the route from the client to the server, when both are motes (the DODAG's
    /// storing-mode route; spec multihop.md §3.5 M6).
    pub route_hops: Option<u32>,
    /// Exchanges completed.
    pub completed: u64,
    /// Exchanges abandoned.
    pub failed: u64,
    /// Exchanges that ended (completed or failed) inside the measurement window.
    pub ended_in_window: u64,
    /// Completed inside the window.
    pub completed_in_window: u64,
    /// Failed inside the window.
    pub failed_in_window: u64,
    /// Copies sent (CON transmissions) of exchanges ended in the window.
    pub transmissions_in_window: u64,
    /// Retransmissions, all exchanges.
    pub retransmissions: u64,
    /// Sum of exchange durations (first send → acknowledgement) of completed exchanges, ns.
    pub duration_sum_ns: u128,
    /// Original send of the first acknowledged exchange, ns.
    pub first_send_ns: Option<u64>,
    /// Last acknowledgement, ns.
    pub last_ack_ns: Option<u64>,
    /// Distinct requests received by the server inside the window (Makarem goodput).
    pub distinct_received_in_window: u64,
    /// The first retransmission timers that expired, as armed, ns (timer traces; at most
    /// [`coapcc_driver::TIMERS_KEPT`]).
    pub expired_timers_ns: Vec<u64>,
    /// Continuous flows: (completion time, exchange duration, controller RTO after it, 0 if it
    /// has none), ns, the first [`coapcc_driver::COMPLETIONS_KEPT`] (Betzler's
    /// cross-traffic plots).
    pub series: Vec<(u64, u64, u64)>,
}

impl CoapFlowResult {
    /// Mean exchange duration of completed exchanges, s.
    pub fn mean_duration_s(&self) -> f64 {
        if self.completed == 0 { 0.0 } else { self.duration_sum_ns as f64 / 1e9 / self.completed as f64 }
    }

    /// Completed exchanges per second of active time (first send → last acknowledgement).
    pub fn throughput_per_s(&self) -> f64 {
        match (self.first_send_ns, self.last_ack_ns) {
            (Some(a), Some(b)) if b > a => self.completed as f64 / ((b - a) as f64 / 1e9),
            _ => 0.0,
        }
    }

    /// Mean retransmissions per ended exchange.
    pub fn mean_retries(&self) -> f64 {
        let ended = self.completed + self.failed;
        if ended == 0 { 0.0 } else { self.retransmissions as f64 / ended as f64 }
    }
}

/// TCP results of one mote (§4.4).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TcpNodeResult {
    /// The mote.
    pub node: u16,
    /// Hop count to the border router.
    pub hops: u32,
    /// Reports produced in the data phase.
    pub reports: u64,
    /// Payload bytes delivered in order to the server during the data phase.
    pub delivered_bytes: u64,
    /// Retransmitted data segments.
    pub retransmitted_segments: u64,
    /// SYN retransmissions (set-up phase).
    pub syn_retransmissions: u64,
    /// Karn-valid RTT samples.
    pub rtt_samples: u64,
    /// Largest retransmission count of a delivered segment.
    pub max_retransmissions_delivered: u8,
    /// Karn-valid RTT samples below 1 s (L3).
    pub rtt_samples_below_1s: u64,
    /// Karn-valid RTT samples truncated to 0 by the controller's integer arithmetic (L5).
    pub rtt_samples_truncated: u64,
    /// Acknowledged segments more than 3 s after their latest (re)transmission (L8).
    pub rtt_samples_above_3s: u64,
    /// The largest timer armed for a fresh data segment after the first 10 Karn-valid RTT
    /// samples, ns (L3); `None` for a connection with fewer samples.
    pub max_rto_after_10_samples_ns: Option<u64>,
    /// The connection was never established.
    pub setup_failed: bool,
    /// The connection broke (retransmission limit).
    pub broken: bool,
    /// The first retransmission timers armed (SYN and data copies), ns (Figs. 2–3 traces; at
    /// most [`coapcc_driver::TIMERS_KEPT`]).
    pub timers_ns: Vec<u64>,
    /// The whole per-node trace (RTT samples, armed timers) when recording was asked for
    /// (`MultihopSim::record_tcp_traces`); empty otherwise.
    pub trace: Vec<super::tcp::TracePoint>,
}

/// TCP totals of a Lim run (§4.4).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TcpResult {
    /// Per mote, by id.
    pub nodes: Vec<TcpNodeResult>,
    /// Total goodput, bit/s over the data phase.
    pub goodput_bps: f64,
    /// Offered payload, bit/s over the data phase (reports × payload).
    pub offered_bps: f64,
    /// Retransmitted data segments, all nodes.
    pub retransmitted_segments: u64,
    /// Jain's index over per-node goodput (broken connections included).
    pub fairness: f64,
    /// Connections never established.
    pub setup_failures: u64,
    /// Connections broken in the data phase.
    pub broken: u64,
}

/// Everything a run reports. Serialises deterministically (check 14).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MultihopResult {
    /// Simulated time at the end, ns.
    pub end_ns: u64,
    /// When the last counted client (many-to-many, cross-traffic burst) was done, ns.
    pub clients_done_ns: Option<u64>,
    /// Events processed.
    pub events: u64,
    /// FNV-1a digest of the event trace (time, kind, node of every event processed).
    pub trace_digest: u64,
    /// CoAP flows (empty for a TCP workload).
    pub coap: Vec<CoapFlowResult>,
    /// TCP results (Lim workload).
    pub tcp: Option<TcpResult>,
    /// Link-layer counters per node, by id.
    pub mac: Vec<MacCounters>,
    /// Packets that reached their destination's network layer.
    pub packets_delivered: u64,
    /// Packets lost on the way (MAC drops and frames nobody received).
    pub packets_dropped: u64,
}

impl MultihopResult {
    /// Link-layer counters summed over all nodes.
    pub fn mac_total(&self) -> MacCounters {
        let mut t = MacCounters::default();
        self.mac.iter().for_each(|m| t.add(m));
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain_index_is_one_for_equal_shares_and_one_over_n_for_a_single_winner() {
        assert!((jain_index(&[2.0, 2.0, 2.0]) - 1.0).abs() < 1e-12);
        assert!((jain_index(&[5.0, 0.0, 0.0, 0.0]) - 0.25).abs() < 1e-12);
        assert_eq!(jain_index(&[]), 1.0);
    }
}
