//! Finishing a run into its results (multihop.md §2.5, §3.4, §4.4): the radios' last
//! on-time for the duty cycle, every TCP client's counters and the run's goodput, offered
//! load and Jain fairness over the data phase, the CoAP flows' records, the MAC counters,
//! and the event count and trace digest (check 14), as one [`MultihopResult`].

use coapcc_core::Instant;
use coapcc_driver::TIMERS_KEPT;

use super::MultihopSim;
use crate::multihop::NodeId;
use crate::multihop::metrics::{MultihopResult, TcpNodeResult, TcpResult, jain_index};
use crate::multihop::tcp::TcpState;
use crate::multihop::workload::MultihopWorkload;

impl MultihopSim {
    /// The results, once the run has ended.
    pub(super) fn finish(mut self) -> MultihopResult {
        let end = self.now.max(self.end.min(self.now));
        for i in 0..self.motes.len() {
            let m = &mut self.motes[i];
            if let Some(s) = m.radio_since.take() {
                m.mac.radio_on_ns += end.saturating_duration_since(s).as_nanos() as u64;
            }
        }
        let tcp = if self.tcp.nodes.iter().any(Option::is_some) {
            let (t0, t1) = self.tcp.data_phase;
            let secs = t1.saturating_duration_since(t0).as_secs_f64().max(1e-9);
            let mut nodes = Vec::new();
            for (i, t) in self.tcp.nodes.iter().enumerate() {
                let Some(t) = t else { continue };
                let s = t.client.stats();
                let state = t.client.state();
                nodes.push(TcpNodeResult {
                    node: i as u16,
                    hops: t.hops,
                    reports: t.data_phase_reports,
                    delivered_bytes: self.tcp.server.delivered_bytes(NodeId(i as u16)),
                    retransmitted_segments: s.retransmitted_segments,
                    syn_retransmissions: s.syn_retransmissions,
                    rtt_samples: s.rtt_samples,
                    max_retransmissions_delivered: s.max_retransmissions_delivered,
                    rtt_samples_below_1s: s.rtt_samples_below_1s,
                    rtt_samples_truncated: s.rtt_samples_truncated,
                    rtt_samples_above_3s: s.rtt_samples_above_3s,
                    max_rto_after_10_samples_ns: s
                        .max_rto_after_10_samples
                        .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)),
                    setup_failed: state == TcpState::SetupFailed,
                    broken: state == TcpState::Broken,
                    timers_ns: t.client.timers().iter().take(TIMERS_KEPT).map(|d| d.as_nanos() as u64).collect(),
                    trace: t.client.trace().to_vec(),
                });
            }
            let payload = match &self.cfg.workload {
                MultihopWorkload::LimTcp(w) => u64::from(w.payload_bytes),
                _ => 0,
            };
            let goodputs: Vec<f64> = nodes.iter().map(|n| n.delivered_bytes as f64 * 8.0 / secs).collect();
            Some(TcpResult {
                goodput_bps: goodputs.iter().sum(),
                offered_bps: nodes.iter().map(|n| (n.reports * payload) as f64 * 8.0).sum::<f64>() / secs,
                retransmitted_segments: nodes.iter().map(|n| n.retransmitted_segments).sum(),
                fairness: jain_index(&goodputs),
                setup_failures: nodes.iter().filter(|n| n.setup_failed).count() as u64,
                broken: nodes.iter().filter(|n| n.broken).count() as u64,
                nodes,
            })
        } else {
            None
        };
        MultihopResult {
            clients_done_ns: self.coap.clients_done_at.map(Instant::as_nanos),
            end_ns: self.now.as_nanos(),
            events: self.events,
            trace_digest: self.digest,
            coap: self.coap.results(),
            tcp,
            mac: self.motes.iter().map(|m| m.mac).collect(),
            packets_delivered: self.delivered,
            packets_dropped: self.dropped,
        }
    }
}
