//! Lim's TCP application (multihop.md §4.3, §4.4; OQ-M14): one window-of-one uIP TCP
//! client per mote ([`crate::multihop::tcp::TcpClient`]) with the `uip`, `uip-dither` or `lim`
//! retransmission controller, connecting one after the other (farthest first) and then
//! handing over a report every U[report_min, report_max), and the Linux server on the host
//! side ([`crate::multihop::tcp::TcpServer`], optionally with delayed ACKs).
//!
//! The uIP periodic timer (0.5 s, per-mote phase U[0, 0.5 s)) quantises TCP timer expiries up
//! to its next tick (`periodic_timer`, §4.3) \[D\]. Segments have no application delay. Like
//! the CoAP application, it sends through [`MultihopSim::send_packet`] and arms its timers with
//! events; its state is [`TcpApps`].

use std::sync::Arc;

use coapcc_core::{AnyConfig, AnyController, ConfigError, Duration, Family, Instant};
use coapcc_driver::rng::{SimRng, below, stream_rng, uniform_duration};

use super::event::Ev;
use super::net::{Addr, Body};
use super::{MultihopSim, streams};
use crate::multihop::NodeId;
use crate::multihop::phy::TableFlow;
use crate::multihop::tcp::{Segment, TcpClient, TcpServer};
use crate::multihop::topology::Topology;
use crate::multihop::workload::{LimTcp, MultihopWorkload};

/// A fresh TCP retransmission controller of `scheme` (`uip`, `uip-dither`, `lim`) with the
/// retransmission limit `max_retransmissions`.
pub fn build_tcp_controller(scheme: &str, max_retransmissions: u8) -> Result<Arc<AnyController>, ConfigError> {
    build_tcp_controller_from(AnyConfig::from_name(scheme), max_retransmissions)
}

/// A fresh TCP retransmission controller from a checked `uip` / `lim` configuration, with the
/// workload's retransmission limit `max_retransmissions` (which wins over the configuration's).
pub fn build_tcp_controller_from(
    config: Option<AnyConfig>,
    max_retransmissions: u8,
) -> Result<Arc<AnyController>, ConfigError> {
    match config {
        Some(c) if c.family() == Family::Tcp => Ok(Arc::new(c.with_max_retransmit(max_retransmissions).build()?)),
        _ => Err(ConfigError::new("workload.scheme", "must be uip, uip-dither or lim")),
    }
}

/// One mote's TCP client and its application.
pub(super) struct TcpNode {
    pub(super) client: TcpClient,
    /// The controller's stream (dithering).
    rng: SimRng,
    /// The application's stream (report intervals).
    report_rng: SimRng,
    /// The phase of the mote's 0.5-s uIP periodic timer.
    tick_phase: Duration,
    timer_gen: u64,
    /// The mote's hop count to the border router.
    pub(super) hops: u32,
    /// Reports handed over during the data phase.
    pub(super) data_phase_reports: u64,
}

/// The TCP clients (by node id; `None` for the border router and without Lim's workload),
/// the server, and the data phase `[start, end)` the results are measured over.
pub(super) struct TcpApps {
    pub(super) nodes: Vec<Option<TcpNode>>,
    pub(super) server: TcpServer,
    pub(super) data_phase: (Instant, Instant),
}

impl TcpApps {
    /// No client yet; the data phase is the whole run, up to `end`.
    pub(super) fn new(end: Instant) -> Self {
        TcpApps { nodes: Vec::new(), server: TcpServer::new(), data_phase: (Instant::ZERO, end) }
    }
}

impl MultihopSim {
    /// Lim's periodic TCP reports (§4.3): a client on every mote but the border router,
    /// connecting `connect_interval` apart in decreasing hop count, then the data phase of
    /// `duration` after `setup_grace`, which is also where the run ends.
    pub(super) fn setup_lim_tcp(&mut self, w: &LimTcp, topo: &Topology, root: NodeId) -> Result<(), ConfigError> {
        let n = topo.len() as u16;
        if w.report_min > w.report_max || w.report_max.is_zero() {
            return Err(ConfigError::new("workload.report_max_ms", "must be positive and ≥ report_min_ms"));
        }
        if w.payload_bytes == 0 {
            return Err(ConfigError::new("workload.payload_bytes", "must be positive"));
        }
        if w.server_delayed_ack >= Duration::from_millis(500) {
            return Err(ConfigError::new(
                "workload.server_delayed_ack_ms",
                "must be below 500 ms (RFC 1122 §4.2.3.2; Linux: 40 or 200 ms)",
            ));
        }
        self.tcp.server = TcpServer::with_delayed_ack(w.server_delayed_ack);
        // Built and checked once, shared by every connection of the run.
        let ctrl = match self.cfg.algorithm_config {
            Some(c) => build_tcp_controller_from(Some(c), w.max_retransmissions)?,
            None => build_tcp_controller(&w.scheme, w.max_retransmissions)?,
        };
        let mut clients: Vec<(u32, u16)> =
            (0..n).filter(|&i| NodeId(i) != root).map(|i| (self.dodag.hops(NodeId(i)).unwrap_or(0), i)).collect();
        // §4.3: decreasing hop count, then id.
        clients.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.tcp.nodes = (0..n).map(|_| None).collect();
        for (k, &(hops, i)) in clients.iter().enumerate() {
            let mut rng = stream_rng(self.seed, 0, streams::TCP | u64::from(i));
            let tick_phase = Duration::from_nanos(below(&mut rng, 500_000_000));
            self.tcp.nodes[i as usize] = Some(TcpNode {
                client: TcpClient::new(Arc::clone(&ctrl), w.payload_bytes),
                rng,
                report_rng: stream_rng(self.seed, 0, streams::TCP | (1 << 16) | u64::from(i)),
                tick_phase,
                timer_gen: 0,
                hops,
                data_phase_reports: 0,
            });
            let at = if w.simultaneous_setup { Duration::ZERO } else { w.connect_interval.saturating_mul(k as u32) };
            self.push(Instant::ZERO + at, Ev::TcpConnect { node: i });
        }
        let last = if w.simultaneous_setup {
            Duration::ZERO
        } else {
            w.connect_interval.saturating_mul(clients.len().saturating_sub(1) as u32)
        };
        let t0 = Instant::ZERO + last + w.setup_grace;
        self.tcp.data_phase = (t0, t0 + self.cfg.duration);
        self.end = t0 + self.cfg.duration;
        for &(_, i) in &clients {
            let off = Duration::from_nanos(below(&mut self.wl_rng, 500_000_000));
            self.push(t0 + off, Ev::TcpReport { node: i });
        }
        Ok(())
    }

    /// A TCP client connects (sends its SYN).
    pub(super) fn on_tcp_connect(&mut self, node: u16) {
        if let Some(t) = self.tcp.nodes[node as usize].as_mut() {
            let seg = t.client.connect(self.now, &mut t.rng);
            self.tcp_sent(node, seg);
        }
    }

    /// A TCP client's retransmission timer fired, unless it was re-armed since (`generation`).
    pub(super) fn on_tcp_timer(&mut self, node: u16, generation: u64) {
        if let Some(t) = self.tcp.nodes[node as usize].as_mut()
            && t.timer_gen == generation
        {
            let seg = t.client.on_timeout(self.now, &mut t.rng);
            self.tcp_sent(node, seg);
        }
    }

    /// The server's delayed-ACK timer for `node` fired: the ACK goes out if still due.
    pub(super) fn on_tcp_delack(&mut self, node: u16, generation: u64) {
        if let Some(ack) = self.tcp.server.on_delack_timer(NodeId(node), generation) {
            self.send_packet(Addr::Host(0), Addr::Node(NodeId(node)), TableFlow::LimAck, Body::Tcp(ack));
        }
    }

    /// A segment reached mote `node`'s client.
    pub(super) fn tcp_at_mote(&mut self, node: u16, seg: Segment) {
        if let Some(t) = self.tcp.nodes[node as usize].as_mut() {
            let out = t.client.on_segment(self.now, seg, &mut t.rng);
            self.tcp_sent(node, out);
        }
    }

    /// A segment from `src` reached the server at `dst`: its ACK now or after the delayed-ACK
    /// timeout.
    pub(super) fn tcp_at_host(&mut self, src: Addr, dst: Addr, seg: Segment) {
        let Addr::Node(from) = src else { return };
        let reply = self.tcp.server.on_segment(from, seg);
        if let Some(a) = reply.answer {
            self.send_packet(dst, src, TableFlow::LimAck, Body::Tcp(a));
        }
        if let Some(generation) = reply.delack {
            let at = self.now + self.tcp.server.delayed_ack();
            self.push(at, Ev::TcpDelack { node: from.0, generation });
        }
    }

    /// Mote `node`'s application hands over a report and draws the next one's interval.
    pub(super) fn on_report(&mut self, node: u16) {
        let now = self.now;
        let MultihopWorkload::LimTcp(w) = &self.cfg.workload else { return };
        let (lo, hi) = (w.report_min, w.report_max);
        let Some(t) = self.tcp.nodes[node as usize].as_mut() else { return };
        if now < self.tcp.data_phase.1 {
            t.data_phase_reports += 1;
        }
        let seg = t.client.report(now, &mut t.rng);
        let gap = if hi > lo { uniform_duration(&mut t.report_rng, lo, hi - Duration::from_nanos(1)) } else { lo };
        self.push(now + gap, Ev::TcpReport { node });
        self.tcp_sent(node, seg);
    }

    /// After the client acted: send `seg` (if any) and re-arm its timer.
    fn tcp_sent(&mut self, node: u16, seg: Option<Segment>) {
        if let Some(s) = seg {
            let flow = match s {
                Segment::Data { .. } => TableFlow::LimData,
                _ => TableFlow::LimAck,
            };
            self.send_packet(Addr::Node(NodeId(node)), Addr::Host(0), flow, Body::Tcp(s));
        }
        let periodic = matches!(&self.cfg.workload, MultihopWorkload::LimTcp(w) if w.periodic_timer);
        let Some(t) = self.tcp.nodes[node as usize].as_mut() else { return };
        t.timer_gen += 1;
        if let Some(d) = t.client.deadline() {
            let at = if periodic {
                // The next tick of the 0.5-s periodic timer at or after the deadline.
                let tick = 500_000_000u64;
                let p = t.tick_phase.as_nanos() as u64;
                let x = d.as_nanos();
                let k = x.saturating_sub(p).div_ceil(tick);
                Instant::from_nanos(p.saturating_add(k.saturating_mul(tick)))
            } else {
                d
            };
            let generation = t.timer_gen;
            self.push(at.max(self.now), Ev::TcpTimer { node, generation });
        }
    }
}

#[cfg(test)]
mod tests {
    use coapcc_core::{Duration, Instant};
    use coapcc_driver::rng::{below, stream_rng};

    use super::super::testkit::{lim, run};
    use super::super::{MultihopSim, MultihopWorkload, RdcKind, TopologyChoice, streams};
    use super::build_tcp_controller;

    /// Karn-valid RTT samples (ns) of the one TCP mote of a one-hop NullRDC line, with the
    /// server's delayed ACK `delack`.
    fn one_hop_tcp_rtts(delack: Duration) -> Vec<u64> {
        let mut cfg = lim(TopologyChoice::Line { nodes: 2, spacing_m: 40.0 }, RdcKind::NullRdc, "uip", 2);
        if let MultihopWorkload::LimTcp(w) = &mut cfg.workload {
            w.server_delayed_ack = delack;
        }
        let mut sim = MultihopSim::new(cfg, 15).unwrap();
        sim.record_tcp_traces();
        let r = sim.run().0;
        let n = &r.tcp.unwrap().nodes[0];
        assert_eq!(n.retransmitted_segments, 0);
        n.trace.iter().filter(|p| p.kind == crate::multihop::tcp::TracePointKind::Rtt).map(|p| p.value_ns).collect()
    }

    #[test]
    fn a_200_ms_delayed_ack_makes_every_idle_one_hop_tcp_round_trip_exactly_200_ms_longer() {
        // OQ-M14: with one segment outstanding no second segment can trigger an early ACK, so
        // the ACK leaves the host exactly when the delayed-ACK timer fires.
        let immediate = one_hop_tcp_rtts(Duration::ZERO);
        assert!(immediate.len() > 15, "{} samples", immediate.len());
        // Idle round trip: data 103 B and ACK 64 B over one NullRDC hop, SLIP both ways.
        assert!(immediate.iter().all(|&r| r == immediate[0] && r < 50_000_000), "{immediate:?}");
        for ms in [40u64, 200] {
            let delayed = one_hop_tcp_rtts(Duration::from_millis(ms));
            assert_eq!(delayed.len(), immediate.len());
            for (d, i) in delayed.iter().zip(&immediate) {
                assert_eq!(d - i, ms * 1_000_000, "{ms} ms");
            }
        }
    }

    #[test]
    fn lim_motes_offer_one_48_byte_report_per_6_s_about_100_in_10_minutes() {
        // §6 check 11: 100 reports per node on average; 960 bit/s offered by 4 × 4 (15
        // clients); goodput never above the offered load plus the initial backlog.
        let r = run(lim(TopologyChoice::Lim4x4, RdcKind::NullRdc, "lim", 10), 11);
        let t = r.tcp.unwrap();
        assert_eq!(t.nodes.len(), 15);
        let mean = t.nodes.iter().map(|n| n.reports as f64).sum::<f64>() / 15.0;
        // Per node the count has sd ≈ 2.9; the mean of 15 has sd ≈ 0.75.
        assert!((mean - 100.0).abs() < 3.0, "{mean}");
        assert!((t.offered_bps - 960.0).abs() < 0.03 * 960.0, "{}", t.offered_bps);
        let backlog_bps = 15.0 * 48.0 * 8.0 / 600.0;
        assert!(t.goodput_bps <= t.offered_bps + backlog_bps, "{} > {}", t.goodput_bps, t.offered_bps);
        assert!(t.goodput_bps > 0.9 * t.offered_bps, "NullRDC delivers most reports: {}", t.goodput_bps);
    }

    #[test]
    fn recording_tcp_traces_changes_no_result_and_no_event_and_logs_every_sample_and_timer() {
        for (rdc, scheme) in [(RdcKind::NullRdc, "uip"), (RdcKind::Contikimac, "lim")] {
            let cfg = lim(TopologyChoice::Lim4x4, rdc, scheme, 2);
            let plain = run(cfg.clone(), 21);
            let mut sim = MultihopSim::new(cfg, 21).unwrap();
            sim.record_tcp_traces();
            let mut traced = sim.run().0;
            let tcp = traced.tcp.as_mut().unwrap();
            for n in &mut tcp.nodes {
                let rtts = n.trace.iter().filter(|p| p.kind == crate::multihop::tcp::TracePointKind::Rtt).count();
                assert_eq!(rtts as u64, n.rtt_samples, "{scheme}: one point per Karn-valid sample");
                let rtos: Vec<u64> = n
                    .trace
                    .iter()
                    .filter(|p| p.kind == crate::multihop::tcp::TracePointKind::Rto)
                    .map(|p| p.value_ns)
                    .take(coapcc_driver::TIMERS_KEPT)
                    .collect();
                assert_eq!(rtos, n.timers_ns, "{scheme}: one point per armed timer");
                assert!(n.trace.windows(2).all(|w| w[0].at_ns <= w[1].at_ns), "{scheme}: in time order");
                n.trace.clear();
            }
            assert!(plain.tcp.as_ref().unwrap().nodes.iter().all(|n| n.trace.is_empty()));
            assert_eq!(traced, plain, "{scheme}: identical with and without recording");
        }
    }

    #[test]
    fn the_5x5_grid_offers_1536_bit_per_s() {
        let r = run(lim(TopologyChoice::Lim5x5, RdcKind::NullRdc, "uip", 10), 12);
        let t = r.tcp.unwrap();
        assert_eq!(t.nodes.len(), 24);
        assert!((t.offered_bps - 1536.0).abs() < 0.03 * 1536.0, "{}", t.offered_bps);
    }

    #[test]
    fn uip_syn_timers_through_the_stack_equal_the_controllers_own_3_then_3_6_12_24_48_s() {
        // §6 check 12: the stack passes the controller's timers through unchanged. The host
        // never answers, so the SYN is retried UIP_MAXSYNRTX = 5 times and the set-up fails.
        // algorithms.md §13 vector 7: the original's estimate (UIP_RTO 3 s), then
        // retransmission n waits UIP_RTO << min(n, 4) = 3, 6, 12, 24, 48 s.
        for scheme in ["uip", "uip-dither", "lim"] {
            let mut cfg = lim(TopologyChoice::Line { nodes: 2, spacing_m: 40.0 }, RdcKind::NullRdc, scheme, 3);
            cfg.blackhole_host = true;
            if let MultihopWorkload::LimTcp(w) = &mut cfg.workload {
                w.periodic_timer = false;
            }
            let r = run(cfg, 13);
            let n = &r.tcp.unwrap().nodes[0];
            assert_eq!((n.syn_retransmissions, n.setup_failed), (5, true), "{scheme}");
            // The same controller driven directly with the same stream gives the same timers.
            let mut rng = stream_rng(13, 0, streams::TCP | 1);
            let _tick_phase = below(&mut rng, 500_000_000);
            let ctrl = build_tcp_controller(scheme, 15).unwrap();
            use coapcc_core::Controller;
            let mut st = ctrl.new_state();
            let mut ex = ctrl.start(&mut st, Instant::ZERO, 0, &mut rng);
            let mut direct = vec![ex.timer().as_nanos() as u64];
            for _ in 0..5 {
                let at = ex.deadline();
                assert_eq!(ctrl.on_timeout(&mut st, at, &mut ex), coapcc_core::Retry::Retransmit);
                direct.push(ctrl.retransmit(&mut st, at, &mut ex, &mut rng).as_nanos() as u64);
            }
            assert_eq!(n.timers_ns, direct, "{scheme}");
            if scheme == "uip" {
                let secs: Vec<u64> = n.timers_ns.iter().map(|t| t / 1_000_000_000).collect();
                assert_eq!(secs, [3, 3, 6, 12, 24, 48]);
            }
        }
    }
}
