//! The multihop discrete-event engine (multihop.md §1–4): every mote's CSMA + RDC (NullRDC or
//! ContikiMAC) on the UDGM medium, hop-by-hop forwarding along the static RPL tree with
//! per-hop frame sizes, forwarding and application delays (t_fwd, t_app, §1.6, OQ-M18), the
//! border router's SLIP line and the host / cloud delay (§1.7), and the applications on top:
//! CoAP endpoints ([`coapcc_proto::Endpoint`], any `coapcc_core` algorithm) and Lim's
//! window-of-one uIP TCP ([`crate::multihop::tcp`]).
//!
//! One struct, [`MultihopSim`], holds a run; its `impl` is split by layer, one file each, as
//! smoltcp splits its interface per protocol. Start here (set-up, the event loop and its
//! dispatch), then follow an event into its layer:
//!
//! | file | layer | what is there |
//! |---|---|---|
//! | `mod.rs` | the run | [`MultihopSim`]: its state, [`MultihopSim::new`] (checks, topology, DODAG, motes, workload), [`MultihopSim::run`], the dispatch of every event to its layer, the random stream ids |
//! | `event.rs` | the event queue | the event kinds, their order (time, frame ends first, insertion), the trace digest, [`EventTrace`] |
//! | `mac.rs` | MAC / RDC glue (§1.3–1.5) | the motes' CSMA and RDC on the medium: channel checks and listening, strobe trains and NullRDC attempts, hardware ACKs, frame ends |
//! | `net.rs` | network and 6LoWPAN (§1.2, §1.6) | [`Addr`], packets, forwarding on the DODAG with t_fwd, per-hop frame lengths, fragmentation and reassembly, the load-time frame-size check, delivery to the applications |
//! | `host.rs` | SLIP and host (§1.7) | the border router's serial line both ways, the host / cloud delay |
//! | `coap_app.rs` | CoAP application (§2.4, §3.3) | the CoAP workloads' set-up, the servers, the clients as flows of the driver's flow loop (the engine is its host), per-flow results |
//! | `tcp_app.rs` | TCP application (§4.3) | [`build_tcp_controller`], Lim's clients and reports, the server and its delayed ACK |
//! | `finish.rs` | results (§2.5, §3.4, §4.4) | the run's [`MultihopResult`] |
//!
//! The schema a run is built from ([`MultihopConfig`], [`MultihopWorkload`], …) is in the parent
//! module's `config.rs` and `workload.rs`; it is re-exported here too, at the paths callers
//! used before the engine was split.
//!
//! All randomness comes from per-consumer streams of [`coapcc_driver::rng::stream_rng`]: the
//! medium's draws, each mote's CSMA backoffs and wake-up phase, each endpoint, the workload,
//! each TCP connection (check 14).

mod coap_app;
mod event;
mod finish;
mod host;
mod mac;
mod net;
mod tcp_app;
#[cfg(test)]
mod testkit;

use coapcc_core::{ConfigError, Instant};
use coapcc_driver::rng::{SimRng, stream_rng};

pub use self::event::EventTrace;
pub use self::net::Addr;
use super::config::MultihopConfig;
use super::workload::MultihopWorkload;
// The schema types the engine's tests name (at `super::super::…` from each layer's tests).
#[cfg(test)]
use coapcc_driver::scenario::multihop::{
    ClientMode, CoapCrossTraffic, CoapManyToMany, CoapOneToOne, CoapSaturated, LimTcp, RdcKind, TopologyChoice,
};

use self::coap_app::CoapApps;
use self::event::{Ev, EventQueue, FNV_BASIS, fnv};
use self::mac::{FramesOnAir, Mote};
use self::net::Packet;
use self::tcp_app::TcpApps;
use super::NodeId;
use super::medium::{Geometry, Medium};
use super::metrics::MultihopResult;
use super::phy::FrameRules;
use super::rpl::Dodag;
use super::tcp::TcpClient;
use super::topology::Topology;

/// One run of the multihop engine.
pub struct MultihopSim {
    cfg: MultihopConfig,
    seed: u64,
    now: Instant,
    queue: EventQueue,
    /// The workload's stream (start offsets, report phases).
    wl_rng: SimRng,
    /// Events processed, and their digest (check 14).
    events: u64,
    digest: u64,
    end: Instant,
    stopped: bool,
    trace: Option<EventTrace>,
    // MAC / RDC (`mac.rs`).
    medium: Medium,
    medium_rng: SimRng,
    motes: Vec<Mote>,
    frames: FramesOnAir,
    // Network and 6LoWPAN (`net.rs`).
    dodag: Dodag,
    packets: Vec<Packet>,
    rules: FrameRules,
    delivered: u64,
    dropped: u64,
    // SLIP (`host.rs`): when each direction's line is free again.
    slip_up_free: Instant,
    slip_down_free: Instant,
    // Applications (`coap_app.rs`, `tcp_app.rs`).
    coap: CoapApps,
    tcp: TcpApps,
}

/// Stream ids of the engine's random streams (disjoint from the single-link engine's).
mod streams {
    pub const BASE: u64 = 0x4d48 << 48;
    pub const MEDIUM: u64 = BASE | 1;
    pub const DODAG: u64 = BASE | 2;
    pub const WORKLOAD: u64 = BASE | 3;
    pub const MOTE: u64 = BASE | (1 << 32);
    pub const ENDPOINT: u64 = BASE | (2 << 32);
    pub const TCP: u64 = BASE | (3 << 32);
    /// The CoAP clients' flow loop's workload (it draws nothing).
    pub const FLOWS: u64 = BASE | 4;
    /// The prototype CoAP client (never used: every client renews it with its own stream).
    pub const PROTOTYPE: u64 = ENDPOINT | (1 << 31);
}

impl MultihopSim {
    /// Sets up a run; every configuration error names its key.
    pub fn new(cfg: MultihopConfig, seed: u64) -> Result<Self, ConfigError> {
        cfg.phy.validate()?;
        cfg.contikimac.validate()?;
        cfg.csma.validate()?;
        cfg.udgm.validate()?;
        if cfg.slip_bit_rate == 0 || cfg.slip_bits_per_byte == 0 {
            return Err(ConfigError::new("slip_bit_rate", "must be positive"));
        }
        let topo = cfg.topology.build()?;
        let geometry = Geometry::new(&topo.positions(), &cfg.udgm)?;
        let root = topo.border_router().unwrap_or(NodeId(0));
        let mut dodag_rng = stream_rng(seed, 0, streams::DODAG);
        let dodag = Dodag::build(&geometry, cfg.udgm.success_ratio_tx, root, &mut dodag_rng);
        for i in 0..topo.len() {
            if dodag.hops(NodeId::from_index(i)).is_none() {
                return Err(ConfigError::new("topology", "a node has no route to the border router"));
            }
        }
        let medium = Medium::new(geometry, &cfg.udgm)?;
        let motes = mac::build_motes(&cfg, topo.len(), root, seed)?;
        let end = Instant::ZERO + cfg.duration;
        let mut sim = MultihopSim {
            rules: FrameRules::for_version(cfg.version),
            seed,
            now: Instant::ZERO,
            queue: EventQueue::default(),
            medium_rng: stream_rng(seed, 0, streams::MEDIUM),
            dodag,
            frames: FramesOnAir::default(),
            packets: Vec::new(),
            slip_up_free: Instant::ZERO,
            slip_down_free: Instant::ZERO,
            coap: CoapApps::new(),
            tcp: TcpApps::new(end),
            wl_rng: stream_rng(seed, 0, streams::WORKLOAD),
            events: 0,
            digest: FNV_BASIS,
            delivered: 0,
            dropped: 0,
            end,
            stopped: false,
            trace: None,
            motes,
            medium,
            cfg,
        };
        sim.start_radios();
        sim.setup_workload(&topo, root)?;
        sim.check_frame_sizes(&topo)?;
        let end = sim.end;
        sim.push(end, Ev::End);
        Ok(sim)
    }

    /// Sets up the workload's applications (`coap_app.rs`, `tcp_app.rs`).
    fn setup_workload(&mut self, topo: &Topology, root: NodeId) -> Result<(), ConfigError> {
        match self.cfg.workload.clone() {
            MultihopWorkload::CoapSaturated(w) => self.setup_coap_saturated(&w, topo, root),
            MultihopWorkload::CoapOneToOne(w) => self.setup_coap_one_to_one(&w, topo),
            MultihopWorkload::CoapManyToMany(w) => self.setup_coap_many_to_many(&w, topo),
            MultihopWorkload::CoapCrossTraffic(w) => self.setup_coap_cross_traffic(&w, topo),
            MultihopWorkload::LimTcp(w) => self.setup_lim_tcp(&w, topo, root),
        }
    }

    /// Records every processed event's (time, kind, subject) for tests (check 14).
    pub fn record_trace(&mut self) {
        self.trace = Some(Vec::new());
    }

    /// Records every TCP client's per-node trace (RTT samples and armed timers, Lim 2020
    /// Figs. 2–3, spec multihop.md §4.4) into `TcpNodeResult::trace`. Draws no random number:
    /// every other result stays the same.
    pub fn record_tcp_traces(&mut self) {
        self.tcp.nodes.iter_mut().flatten().for_each(|t| t.client.record_trace());
    }

    /// Queues `ev` at `at`.
    fn push(&mut self, at: Instant, ev: Ev) {
        self.queue.push(at, ev);
    }

    /// Runs to the end and returns the results (and the event trace, if recorded).
    pub fn run(mut self) -> (MultihopResult, Option<EventTrace>) {
        self.run_events();
        let trace = self.trace.take();
        (self.finish(), trace)
    }

    /// Handles the events in time order until the run ends.
    fn run_events(&mut self) {
        while let Some(e) = self.queue.pop() {
            let at = e.at();
            if at > self.end || self.stopped {
                break;
            }
            self.now = at;
            self.events += 1;
            let (kind, subject) = e.ev.tag();
            self.digest = fnv(fnv(fnv(self.digest, at.as_nanos()), kind), subject);
            if let Some(t) = self.trace.as_mut() {
                t.push((at.as_nanos(), kind, subject));
            }
            self.handle(e.ev);
        }
    }

    /// Hands `ev` to its layer.
    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Check { node, cca } => self.on_check(node, cca),
            Ev::ListenTimeout { node, generation } => self.on_listen_timeout(node, generation),
            Ev::Service { node, next_hop } => self.on_service(node, next_hop),
            Ev::Rdc { node, generation } => self.on_rdc_event(node, generation),
            Ev::FrameEnd(id) => self.on_frame_end(id),
            Ev::AckStart { node, to, seq } => self.on_ack_start(node, to, seq),
            Ev::NetIn { node, pkt } => self.route_out(node, pkt),
            Ev::HostIn { pkt } => self.on_host_in(pkt),
            Ev::RemoteIn { pkt } => self.deliver_host(pkt),
            Ev::AppIn { node, pkt } => self.deliver_coap(Addr::Node(NodeId(node)), pkt),
            Ev::EpTimer { app, generation } => self.on_ep_timer(app, generation),
            Ev::ClientStart { app } => self.on_client_start(app),
            Ev::TcpConnect { node } => self.on_tcp_connect(node),
            Ev::TcpReport { node } => self.on_report(node),
            Ev::TcpTimer { node, generation } => self.on_tcp_timer(node, generation),
            Ev::End => self.stopped = true,
            Ev::TcpDelack { node, generation } => self.on_tcp_delack(node, generation),
        }
    }

    /// The DODAG in use.
    pub fn dodag(&self) -> &Dodag {
        &self.dodag
    }

    /// The TCP client of `node`, if the workload is Lim's.
    pub fn tcp_client(&self, node: NodeId) -> Option<&TcpClient> {
        self.tcp.nodes.get(node.index()).and_then(|t| t.as_ref().map(|t| &t.client))
    }
}

#[cfg(test)]
mod tests {
    use coapcc_core::Duration;

    use super::testkit::{lim, line_coap, run};
    use super::*;
    use crate::multihop::ContikiVersion;
    use crate::multihop::medium::UdgmConfig;
    use coapcc_driver::scenario::multihop::CsmaConfig;

    #[test]
    fn the_same_seed_gives_an_identical_event_trace_and_another_seed_a_different_one() {
        // §6 check 14 for the whole engine: ContikiMAC, TCP, 4 × 4, 2 minutes of data.
        let cfg = lim(TopologyChoice::Lim4x4, RdcKind::Contikimac, "uip-dither", 2);
        let go = |seed| {
            let mut sim = MultihopSim::new(cfg.clone(), seed).unwrap();
            sim.record_trace();
            let (r, t) = sim.run();
            (format!("{r:?}"), t.unwrap())
        };
        let (a, ta) = go(21);
        let (b, tb) = go(21);
        let (c, tc) = go(22);
        assert_eq!(a, b);
        assert_eq!(ta, tb);
        assert!(ta.len() > 10_000);
        assert_ne!(a, c);
        assert_ne!(ta, tc);
    }

    #[test]
    fn configuration_errors_name_their_key() {
        let bad = |cfg: MultihopConfig| MultihopSim::new(cfg, 0).err().map(|e| e.key);
        let cfg = MultihopConfig {
            workload: MultihopWorkload::LimTcp(LimTcp { scheme: "cocoa".into(), ..LimTcp::default() }),
            ..Default::default()
        };
        assert_eq!(bad(cfg), Some("workload.scheme"));
        let cfg = MultihopConfig { topology: TopologyChoice::MakaremDumbbell { nodes: 99 }, ..Default::default() };
        assert_eq!(bad(cfg), Some("topology.nodes"));
        let mut cfg = line_coap(RdcKind::NullRdc, 1, 1, "nope");
        cfg.duration = Duration::from_secs(1);
        assert_eq!(bad(cfg), Some("workload.algorithm"));
        assert!(
            toml::from_str::<MultihopConfig>("rdc = \"null_rdc\"\n[workload]\nkind = \"lim_tcp\"\nscheme = \"uip\"")
                .is_ok()
        );
        assert!(toml::from_str::<MultihopConfig>("rdcs = \"null_rdc\"").is_err());
        let cfg = MultihopConfig {
            workload: MultihopWorkload::LimTcp(LimTcp {
                server_delayed_ack: Duration::from_millis(500),
                ..LimTcp::default()
            }),
            ..Default::default()
        };
        assert_eq!(bad(cfg), Some("workload.server_delayed_ack_ms"));
        let cfg = MultihopConfig { slip_bit_rate: 0, ..Default::default() };
        assert_eq!(bad(cfg), Some("slip_bit_rate"));
        let cfg = MultihopConfig { topology: TopologyChoice::Line { nodes: 3, spacing_m: 60.0 }, ..Default::default() };
        assert_eq!(bad(cfg), Some("topology"), "60 m is beyond R_tx: no route");
        // Extreme but valid values run without overflow.
        let extreme = toml::from_str::<MultihopConfig>(
            "duration_ms = 1e12\nslip_bits_per_byte = 4000000000\n[topology]\nkind = \"line\"\nnodes = 3\n\
             spacing_m = 40.0\n[workload]\nkind = \"lim_tcp\"\nconnect_interval_ms = 1e12\n",
        )
        .unwrap();
        let mut sim = MultihopSim::new(extreme, 1).unwrap();
        sim.end = Instant::from_nanos(60_000_000_000);
        let (r, _) = sim.run();
        // It stops within the minute it was given, at its last event: uIP's periodic timer fires
        // every 0.5 s (Lim 2020 §3.1), so that event is at most 0.5 s before the end. A byte takes
        // 4·10⁹ bits on the 115 200 bit/s SLIP line (about 9.6 hours), so no SYN reaches the
        // server: nothing is delivered or counted as a data segment, and the two motes' clients
        // are still setting up.
        assert!((59_500_000_000..=60_000_000_000).contains(&r.end_ns), "{}", r.end_ns);
        let t = r.tcp.as_ref().expect("a TCP workload");
        assert_eq!(t.nodes.len(), 2);
        assert!(t.nodes.iter().all(|n| n.delivered_bytes == 0 && n.retransmitted_segments == 0 && n.rtt_samples == 0));
        assert_eq!((t.goodput_bps, t.setup_failures, t.broken), (0.0, 0, 0));
        assert!(r.events > 0);
        assert!(toml::from_str::<MultihopConfig>("[topology]\nkind = \"line\"\nnodes = 3\nspacing_m = 40.0").is_ok());
    }

    /// Prints the numbers behind the checks (for reports; asserts only that runs finish).
    /// `cargo test --profile ci -p coapcc-sim -- --ignored multihop_measurements --nocapture`.
    #[test]
    #[ignore]
    fn multihop_measurements_print_the_numbers_behind_the_checks() {
        let r = run(line_coap(RdcKind::NullRdc, 1, 20, "default"), 1);
        println!("check 2: NullRDC 1-hop CoAP RTT {:.4} ms", r.coap[0].mean_duration_s() * 1e3);
        for hops in [2u32, 3, 5] {
            let r = run(line_coap(RdcKind::NullRdc, hops, 10, "default"), 2);
            println!("check 2: NullRDC {hops}-hop CoAP RTT {:.4} ms", r.coap[0].mean_duration_s() * 1e3);
        }
        for hops in [1u32, 2, 3] {
            let n = 300u64;
            let mean = (0..n)
                .map(|s| run(line_coap(RdcKind::Contikimac, hops, 1, "default"), 9000 + s).coap[0].mean_duration_s())
                .sum::<f64>()
                / n as f64;
            println!("check 3: ContikiMAC {hops}-hop CoAP exchange, phase unknown, mean of {n}: {:.2} ms", mean * 1e3);
        }
        for (rdc, hops) in [(RdcKind::NullRdc, 3), (RdcKind::Contikimac, 2)] {
            let r = run(line_coap(rdc, hops, 200, "cocoa"), 7);
            let f = &r.coap[0];
            println!(
                "check 13: {rdc:?} {hops} hops: throughput × duration = {:.5}",
                f.throughput_per_s() * f.mean_duration_s()
            );
        }
        for rdc in [RdcKind::NullRdc, RdcKind::Contikimac] {
            for (alg, nstart) in [("default", 1), ("default-aggressive", 1), ("cocoa", 1), ("cocoa", 4)] {
                let cfg = MultihopConfig {
                    topology: TopologyChoice::Betzler,
                    version: ContikiVersion::V2_7,
                    rdc,
                    csma: CsmaConfig::for_version(ContikiVersion::V2_7),
                    border_router_queuebuf: Some(4),
                    udgm: UdgmConfig { success_ratio_tx: 0.94, ..UdgmConfig::for_version(ContikiVersion::V2_7) },
                    host_delay: Duration::from_millis(75),
                    duration: Duration::from_secs(36_000),
                    workload: MultihopWorkload::CoapOneToOne(CoapOneToOne {
                        algorithm: alg.into(),
                        nstart,
                        ..CoapOneToOne::default()
                    }),
                    ..MultihopConfig::default()
                };
                let r = run(cfg, 5);
                let completed: u64 = r.coap.iter().map(|f| f.completed).sum();
                let failed: u64 = r.coap.iter().map(|f| f.failed).sum();
                let active: f64 = r
                    .coap
                    .iter()
                    .map(|f| match (f.first_send_ns, f.last_ack_ns) {
                        (Some(a), Some(b)) => (b - a) as f64 / 1e9,
                        _ => 0.0,
                    })
                    .sum();
                let dur: f64 = r.coap.iter().map(|f| f.duration_sum_ns as f64 / 1e9).sum::<f64>() / completed as f64;
                let retx: u64 = r.coap.iter().map(|f| f.retransmissions).sum();
                println!(
                    "betzler 1-to-1 {rdc:?} {alg} nstart {nstart}: throughput {:.2} req/s, duration {dur:.2} s, \
                     retries {:.2}, failed {failed}",
                    completed as f64 / active,
                    retx as f64 / (completed + failed) as f64
                );
            }
        }
        for alg in ["idc", "cocoa-plus", "default"] {
            let cfg = MultihopConfig {
                topology: TopologyChoice::MakaremChain { nodes: 8 },
                csma: CsmaConfig::for_mote(ContikiVersion::V3_0, coapcc_driver::scenario::multihop::Mote::Z1),
                duration: Duration::from_secs(900),
                workload: MultihopWorkload::CoapSaturated(CoapSaturated {
                    algorithm: alg.into(),
                    ..CoapSaturated::default()
                }),
                ..MultihopConfig::default()
            };
            let r = run(cfg, 6);
            let got: u64 = r.coap.iter().map(|f| f.distinct_received_in_window).sum();
            let ended: u64 = r.coap.iter().map(|f| f.ended_in_window).sum();
            let failed: u64 = r.coap.iter().map(|f| f.failed_in_window).sum();
            let acked: u64 = r.coap.iter().map(|f| f.completed_in_window).sum();
            let tx: u64 = r.coap.iter().map(|f| f.transmissions_in_window).sum();
            println!(
                "makarem chain 8 contikimac {alg}: goodput {:.3} msg/s, app loss {:.3}, overhead {:.3}",
                got as f64 / 800.0,
                failed as f64 / ended.max(1) as f64,
                (tx as f64 - acked as f64) / acked.max(1) as f64
            );
        }
        for (topo, rdc) in [
            (TopologyChoice::Lim4x4, RdcKind::NullRdc),
            (TopologyChoice::Lim4x4, RdcKind::Contikimac),
            (TopologyChoice::Lim5x5, RdcKind::NullRdc),
            (TopologyChoice::Lim5x5, RdcKind::Contikimac),
        ] {
            for scheme in ["uip", "uip-dither", "lim"] {
                let r = run(lim(topo.clone(), rdc, scheme, 10), 3);
                let t = r.tcp.as_ref().unwrap();
                let mean_reports = t.nodes.iter().map(|n| n.reports as f64).sum::<f64>() / t.nodes.len() as f64;
                let mac = r.mac_total();
                let dc = r.mac.iter().map(|m| m.duty_cycle(r.end_ns)).sum::<f64>() / r.mac.len() as f64;
                println!(
                    "lim {topo:?} {rdc:?} {scheme}: reports/node {mean_reports:.1}, offered {:.0} bit/s, goodput {:.0} \
                     bit/s, retx segments {}, fairness {:.3}, set-up failures {}, broken {}, collisions {}, \
                     noacks {}, MAC drops {}, mean duty cycle {:.3}",
                    t.offered_bps,
                    t.goodput_bps,
                    t.retransmitted_segments,
                    t.fairness,
                    t.setup_failures,
                    t.broken,
                    mac.tx_collision,
                    mac.tx_noack,
                    mac.drop_no_neighbor_queue + mac.drop_no_buffer + mac.drop_queue_full + mac.drop_retry_limit,
                    dc
                );
            }
        }
    }

    /// Benchmark (not an assertion on time): one Lim run, 5 × 5, ContikiMAC, 10 minutes.
    /// `cargo test --profile ci -p coapcc-sim -- --ignored lim_benchmark --nocapture`.
    #[test]
    #[ignore]
    #[allow(clippy::disallowed_methods)]
    fn lim_benchmark_5x5_contikimac_ten_minutes_reports_wall_time_and_events_per_second() {
        let cfg = lim(TopologyChoice::Lim5x5, RdcKind::Contikimac, "lim", 10);
        let t = std::time::Instant::now();
        let (r, _) = MultihopSim::new(cfg, 1).unwrap().run();
        let wall = t.elapsed().as_secs_f64();
        let tcp = r.tcp.as_ref().unwrap();
        println!(
            "lim 5x5 contikimac 10 min: {} events in {wall:.3} s = {:.0} events/s; goodput {:.0} bit/s of {:.0} \
             offered, {} retransmitted segments, fairness {:.3}, {} set-up failures, {} broken",
            r.events,
            r.events as f64 / wall,
            tcp.goodput_bps,
            tcp.offered_bps,
            tcp.retransmitted_segments,
            tcp.fairness,
            tcp.setup_failures,
            tcp.broken
        );
        assert!(r.events > 0);
    }
}
