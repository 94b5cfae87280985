//! The CoAP applications (multihop.md §2.4, §3.3; OQ-M5, OQ-M6, OQ-M19): the project's CoAP
//! endpoints ([`coapcc_proto::Endpoint`], any `coapcc_core` algorithm) as mote servers,
//! mote clients (Makarem's saturated senders) and cloud clients on the host side (Betzler's
//! 1-to-1, many-to-many and cross-traffic workloads), how each workload sets them up, and
//! what they measure ([`CoapFlowResult`] per client).
//!
//! The boundary with the engine: an application sends through [`MultihopSim::send`]
//! (`net.rs`), arms its endpoint's timer and its clients' starts by pushing
//! [`Ev::EpTimer`] / [`Ev::ClientStart`] events, and ends the run early with [`Ev::End`]
//! when the last counted client is done; everything else it owns is in [`CoapApps`]: the
//! endpoints, the measurement window and the per-flow results that `finish.rs` hands on.
//!
//! t_app delays a CoAP request at a mote server before the endpoint sees it (so the response
//! leaves t_app after the request arrived, check 2) \[D\]; responses reaching a client and the
//! host side have no application delay. Every endpoint keeps [`EndpointConfig`]'s default
//! `echo = None`, whatever the algorithm, where the network model and the testbed choose the
//! echo per algorithm (`coapcc_driver::endpoints::echo_for`): IDC and MBC run here without
//! the transmission-count echo. That choice is to be made explicit when this application
//! moves onto the driver's shared flow loop.

use std::collections::BTreeMap;
use std::sync::Arc;

use coapcc_core::{AnyConfig, AnyController, ConfigError, Duration, Instant};
use coapcc_driver::rng::{SimRng, below, stream_rng, uniform_duration};
use coapcc_proto::endpoint::AutoResponse;
use coapcc_proto::message::Payload;
use coapcc_proto::{Code, Endpoint, EndpointConfig, Event, Message, MessageType};

use super::event::Ev;
use super::net::{Addr, Body};
use super::{MultihopSim, streams};
use crate::multihop::NodeId;
use crate::multihop::metrics::CoapFlowResult;
use crate::multihop::phy::{TableFlow, TableFlows};
use crate::multihop::topology::{Role, Topology};
use crate::multihop::workload::{
    ClientMode, CoapCrossTraffic, CoapFrames, CoapManyToMany, CoapOneToOne, CoapSaturated,
};

// ---- endpoint construction -------------------------------------------------------------------

/// The CoAP endpoint type of the engine: addresses are [`Addr`].
pub type Ep = Endpoint<Addr, SimRng>;

/// The algorithm named `name` in the registry, built (checked) once for every endpoint of a run.
pub fn build_algorithm(name: &str) -> Result<Arc<AnyController>, ConfigError> {
    let config =
        AnyConfig::from_name(name).ok_or_else(|| ConfigError::new("workload.algorithm", "unknown algorithm"))?;
    Ok(Arc::new(config.build()?))
}

/// THE one place the multihop engine builds a CoAP endpoint: the shared `algorithm`, NSTART,
/// and for a server an automatic empty-payload 2.05 response to every request.
pub fn build_endpoint(
    algorithm: &Arc<AnyController>,
    nstart: u16,
    server: bool,
    rng: SimRng,
) -> Result<Ep, ConfigError> {
    let mut cfg = EndpointConfig { nstart, transmitted_events: false, ..EndpointConfig::new(Arc::clone(algorithm)) };
    if server {
        cfg.auto_response = Some(AutoResponse { code: Code::CONTENT, payload: Payload::new() });
    }
    Endpoint::new(cfg, rng)
}

// ---- state -----------------------------------------------------------------------------------

/// One CoAP endpoint of the run: a server, or a client with its server and what it still
/// has to issue.
struct CoapApp {
    addr: Addr,
    ep: Ep,
    timer_gen: u64,
    timer_at: Option<Instant>,
    /// Client: its server.
    peer: Option<Addr>,
    /// Client: exchanges still to issue (`None`: continuous).
    to_issue: Option<u64>,
    /// Client: its result in [`CoapApps::flows`].
    flow: Option<usize>,
}

/// Betzler 1-to-1 (§2.4): the servers in turn, the next one's index, the algorithm every
/// cloud client shares and the workload's per-client settings.
struct OneToOne {
    servers: Vec<NodeId>,
    next: usize,
    algorithm: Arc<AnyController>,
    nstart: u16,
    client_mode: ClientMode,
    exchanges: u64,
    pause: Duration,
}

/// The CoAP applications of a run and what they measured.
pub(super) struct CoapApps {
    apps: Vec<CoapApp>,
    app_of: BTreeMap<Addr, usize>,
    /// One result per client, in set-up order.
    pub(super) flows: Vec<CoapFlowResult>,
    /// The measurement window `[start, end)` (OQ-M19).
    window: (Instant, Instant),
    /// The table flows of requests and responses (§1.2).
    pub(super) frames: (TableFlow, TableFlow),
    one_to_one: Option<OneToOne>,
    /// Many-to-many and cross traffic: clients (burst clients) not yet done.
    clients_left: Option<usize>,
    /// Simulated time after the last client is done.
    tail: Duration,
    /// When the last counted client was done.
    pub(super) clients_done_at: Option<Instant>,
}

impl CoapApps {
    /// No application yet; the window is the whole run, up to `end`.
    pub(super) fn new(end: Instant) -> Self {
        CoapApps {
            apps: Vec::new(),
            app_of: BTreeMap::new(),
            flows: Vec::new(),
            window: (Instant::ZERO, end),
            frames: CoapFrames::Makarem.flows(),
            one_to_one: None,
            clients_left: None,
            tail: Duration::ZERO,
            clients_done_at: None,
        }
    }

    /// The (client mote, server mote) pairs of mote-to-mote flows.
    pub(super) fn mote_pairs(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.apps.iter().filter_map(|a| match (a.addr, a.peer) {
            (Addr::Node(s), Some(Addr::Node(r))) => Some((s, r)),
            _ => None,
        })
    }
}

// ---- set-up ----------------------------------------------------------------------------------

/// Checks that every node id of a workload list is inside the topology.
fn check_ids(ids: &[u16], topo: &Topology) -> Result<(), ConfigError> {
    let n = topo.len() as u16;
    if ids.iter().any(|&i| i >= n) {
        Err(ConfigError::new("workload", "a node id is outside the topology"))
    } else {
        Ok(())
    }
}

/// The servers a workload names, else every end node by id.
fn servers_or_end_nodes(servers: &Option<Vec<u16>>, topo: &Topology) -> Vec<u16> {
    match servers {
        Some(s) => s.clone(),
        None => topo.with_role(Role::EndNode).into_iter().map(|x| x.0).collect(),
    }
}

impl MultihopSim {
    /// The workload's CoAP algorithm, built and checked once and shared by every endpoint of
    /// the run: the scenario's checked configuration, else the preset of `name`. Then the
    /// workload's `nstart` is checked.
    fn coap_algorithm(&self, name: &str, nstart: u16) -> Result<Arc<AnyController>, ConfigError> {
        let algorithm = match self.cfg.algorithm_config {
            Some(c) => Arc::new(c.build()?),
            None => build_algorithm(name)?,
        };
        if nstart == 0 {
            return Err(ConfigError::new("workload.nstart", "must be at least 1"));
        }
        Ok(algorithm)
    }

    fn add_app(&mut self, addr: Addr, ep: Ep, peer: Option<Addr>, to_issue: Option<u64>, flow: Option<usize>) -> usize {
        let k = self.coap.apps.len();
        self.coap.apps.push(CoapApp { addr, ep, timer_gen: 0, timer_at: None, peer, to_issue, flow });
        self.coap.app_of.insert(addr, k);
        k
    }

    /// A server at mote `node` whose endpoint draws from endpoint stream `stream`.
    fn add_server(
        &mut self,
        algorithm: &Arc<AnyController>,
        nstart: u16,
        node: u16,
        stream: u64,
    ) -> Result<(), ConfigError> {
        let rng = stream_rng(self.seed, 0, streams::ENDPOINT | stream);
        let ep = build_endpoint(algorithm, nstart, true, rng)?;
        self.add_app(Addr::Node(NodeId(node)), ep, None, None, None);
        Ok(())
    }

    /// A client at `addr` of `server` with `to_issue` exchanges (`None`: continuous) and the
    /// result record `flow`; returns the application index. A mote client's endpoint draws
    /// from the mote's endpoint stream, cloud client k's from stream 2¹⁶ + k.
    fn add_client(
        &mut self,
        algorithm: &Arc<AnyController>,
        nstart: u16,
        addr: Addr,
        server: Addr,
        to_issue: Option<u64>,
        flow: CoapFlowResult,
    ) -> Result<usize, ConfigError> {
        let stream = match addr {
            Addr::Node(n) => u64::from(n.0),
            Addr::Host(k) => (1 << 16) | u64::from(k),
        };
        let rng = stream_rng(self.seed, 0, streams::ENDPOINT | stream);
        let ep = build_endpoint(algorithm, nstart, false, rng)?;
        let k = self.coap.flows.len();
        self.coap.flows.push(flow);
        Ok(self.add_app(addr, ep, Some(server), to_issue, Some(k)))
    }

    /// Cloud client `host` on the host side of the border router, for the server at mote
    /// `server`.
    fn add_cloud_client(
        &mut self,
        algorithm: &Arc<AnyController>,
        nstart: u16,
        host: u16,
        server: u16,
        to_issue: Option<u64>,
    ) -> Result<usize, ConfigError> {
        let flow = CoapFlowResult { node: None, peer: Some(server), ..Default::default() };
        self.add_client(algorithm, nstart, Addr::Host(host), Addr::Node(NodeId(server)), to_issue, flow)
    }

    /// Client `app` starts its first exchanges at `at`: NSTART of them, or one (OQ-M5).
    fn start_client(&mut self, app: usize, at: Instant, mode: ClientMode, nstart: u16) {
        for _ in 0..mode.initial_requests(nstart) {
            self.push(at, Ev::ClientStart { app: app as u32 });
        }
    }

    /// A client's start offset, U[0, start_window) from the workload stream (§1.1).
    fn start_offset(&mut self, start_window: Duration) -> Duration {
        if start_window.is_zero() {
            Duration::ZERO
        } else {
            uniform_duration(&mut self.wl_rng, Duration::ZERO, start_window - Duration::from_nanos(1))
        }
    }

    /// Makarem's continuous senders (§3.3): one server at the receiver, one client per
    /// sender mote, each starting at U[0, start_window).
    pub(super) fn setup_coap_saturated(
        &mut self,
        w: &CoapSaturated,
        topo: &Topology,
        root: NodeId,
    ) -> Result<(), ConfigError> {
        let alg = self.coap_algorithm(&w.algorithm, w.nstart)?;
        self.coap.frames = w.frames.flows();
        let receiver = match w.receiver {
            Some(r) => r,
            None => topo.first_with(Role::Receiver).unwrap_or(root).0,
        };
        let senders: Vec<u16> = match &w.senders {
            Some(s) => s.clone(),
            None => {
                let s = topo.with_role(Role::Sender);
                let s = if s.is_empty() { topo.with_role(Role::EndNode) } else { s };
                s.into_iter().map(|x| x.0).filter(|&x| x != receiver).collect()
            }
        };
        check_ids(&senders, topo)?;
        check_ids(&[receiver], topo)?;
        if senders.contains(&receiver) {
            return Err(ConfigError::new("workload.senders", "must not contain the receiver"));
        }
        self.coap.window = (Instant::ZERO + w.window_start, self.end);
        self.add_server(&alg, w.nstart, receiver, 0xffff)?;
        let server = Addr::Node(NodeId(receiver));
        for s in senders {
            let flow = CoapFlowResult {
                node: Some(s),
                peer: Some(receiver),
                route_hops: self.dodag.route_hops(NodeId(s), NodeId(receiver)),
                ..Default::default()
            };
            let app = self.add_client(&alg, w.nstart, Addr::Node(NodeId(s)), server, w.max_exchanges, flow)?;
            let offset = self.start_offset(w.start_window);
            self.start_client(app, Instant::ZERO + offset, w.client_mode, w.nstart);
        }
        Ok(())
    }

    /// Betzler's 1-to-1 baseline (§2.4): every server now, their cloud clients one after
    /// the other, the first at 1 s.
    pub(super) fn setup_coap_one_to_one(&mut self, w: &CoapOneToOne, topo: &Topology) -> Result<(), ConfigError> {
        let alg = self.coap_algorithm(&w.algorithm, w.nstart)?;
        self.coap.frames = CoapFrames::Betzler.flows();
        let servers = servers_or_end_nodes(&w.servers, topo);
        check_ids(&servers, topo)?;
        for &s in &servers {
            self.add_server(&alg, w.nstart, s, u64::from(s))?;
        }
        self.coap.one_to_one = Some(OneToOne {
            servers: servers.into_iter().map(NodeId).collect(),
            next: 0,
            algorithm: alg,
            nstart: w.nstart,
            client_mode: w.client_mode,
            exchanges: w.exchanges,
            pause: w.pause,
        });
        self.start_next_server(Instant::ZERO + Duration::from_secs(1))
    }

    /// Betzler's many-to-many (§2.4, OQ-M6): cloud client k ↔ server k, all at once, each
    /// starting at U[0, start_window); the run ends when every client is done.
    pub(super) fn setup_coap_many_to_many(&mut self, w: &CoapManyToMany, topo: &Topology) -> Result<(), ConfigError> {
        let alg = self.coap_algorithm(&w.algorithm, w.nstart)?;
        self.coap.frames = CoapFrames::Betzler.flows();
        let servers = servers_or_end_nodes(&w.servers, topo);
        check_ids(&servers, topo)?;
        for (k, &s) in servers.iter().enumerate() {
            self.add_server(&alg, w.nstart, s, u64::from(s))?;
            let app = self.add_cloud_client(&alg, w.nstart, k as u16, s, Some(w.exchanges))?;
            let offset = self.start_offset(w.start_window);
            self.start_client(app, Instant::ZERO + offset, w.client_mode, w.nstart);
        }
        self.coap.clients_left = Some(servers.len());
        Ok(())
    }

    /// Betzler's cross-traffic burst (§2.4, OQ-M6): continuous cloud clients of one server at
    /// each listed depth, starting in the first second, and at `burst_at` one client of
    /// `exchanges` per other server; the run ends `tail` after the burst completed.
    pub(super) fn setup_coap_cross_traffic(
        &mut self,
        w: &CoapCrossTraffic,
        topo: &Topology,
    ) -> Result<(), ConfigError> {
        let alg = self.coap_algorithm(&w.algorithm, w.nstart)?;
        self.coap.frames = CoapFrames::Betzler.flows();
        let servers: Vec<u16> = topo.with_role(Role::EndNode).into_iter().map(|x| x.0).collect();
        let mut continuous = Vec::new();
        for &d in &w.continuous_depths {
            let s = servers
                .iter()
                .copied()
                .find(|&s| self.dodag.hops(NodeId(s)) == Some(d) && !continuous.contains(&s))
                .ok_or_else(|| ConfigError::new("workload.continuous_depths", "no server at that depth"))?;
            continuous.push(s);
        }
        let mut bursts = 0;
        for (k, &s) in servers.iter().enumerate() {
            self.add_server(&alg, w.nstart, s, u64::from(s))?;
            let is_continuous = continuous.contains(&s);
            let to_issue = if is_continuous { None } else { Some(w.exchanges) };
            let app = self.add_cloud_client(&alg, w.nstart, k as u16, s, to_issue)?;
            let at = if is_continuous {
                Instant::ZERO + Duration::from_nanos(below(&mut self.wl_rng, 1_000_000_000))
            } else {
                bursts += 1;
                Instant::ZERO + w.burst_at
            };
            self.start_client(app, at, w.client_mode, w.nstart);
        }
        self.coap.clients_left = Some(bursts);
        self.coap.tail = w.tail;
        Ok(())
    }

    /// Betzler 1-to-1: a fresh cloud client for the next server, starting at `at`; the run
    /// ends when every server had its turn.
    fn start_next_server(&mut self, at: Instant) -> Result<(), ConfigError> {
        let Some(one) = self.coap.one_to_one.as_mut() else { return Ok(()) };
        let Some(&server) = one.servers.get(one.next) else {
            self.push(self.now, Ev::End);
            return Ok(());
        };
        let host = one.next as u16;
        one.next += 1;
        let (alg, nstart, mode, exchanges) = (Arc::clone(&one.algorithm), one.nstart, one.client_mode, one.exchanges);
        let app = self.add_cloud_client(&alg, nstart, host, server.0, Some(exchanges))?;
        self.start_client(app, at, mode, nstart);
        Ok(())
    }

    // ---- running ---------------------------------------------------------------------------------

    /// A CoAP message reached mote `node`: a request waits t_app before the endpoint sees it.
    pub(super) fn coap_at_mote(&mut self, node: u16, pkt: u32, msg: &Message) {
        let request = msg.mtype == MessageType::Con && msg.code.is_request();
        if request && !self.cfg.t_app.is_zero() {
            self.push(self.now + self.cfg.t_app, Ev::AppIn { node, pkt });
        } else {
            self.deliver_coap(Addr::Node(NodeId(node)), pkt);
        }
    }

    /// Application `app`'s endpoint timer fired, unless it was re-armed since (`generation`).
    pub(super) fn on_ep_timer(&mut self, app: u32, generation: u64) {
        let a = &mut self.coap.apps[app as usize];
        if a.timer_gen == generation {
            a.timer_at = None;
            a.ep.handle_timeout(self.now);
            self.drain_app(app as usize);
        }
    }

    /// A CoAP message reached the endpoint at `at`; a fresh request inside the window counts
    /// for its client's flow.
    pub(super) fn deliver_coap(&mut self, at: Addr, pkt: u32) {
        let Some(&app) = self.coap.app_of.get(&at) else { return };
        let p = &self.packets[pkt as usize];
        let Body::Coap(msg) = &p.body else { return };
        let (from, msg) = (p.src, Arc::clone(msg));
        let request = msg.code.is_request();
        let before = self.coap.apps[app].ep.stats();
        self.coap.apps[app].ep.handle_message(self.now, from, msg);
        if request {
            let after = self.coap.apps[app].ep.stats();
            let fresh = after.duplicates_answered == before.duplicates_answered
                && after.duplicates_pending == before.duplicates_pending;
            if fresh
                && self.now >= self.coap.window.0
                && self.now < self.coap.window.1
                && let Some(&capp) = self.coap.app_of.get(&from)
                && let Some(f) = self.coap.apps[capp].flow
            {
                self.coap.flows[f].distinct_received_in_window += 1;
            }
        }
        self.drain_app(app);
    }

    /// Client `app` issues its next request, if it has one left.
    pub(super) fn issue(&mut self, app: usize) {
        let a = &mut self.coap.apps[app];
        let Some(peer) = a.peer else { return };
        if let Some(left) = a.to_issue.as_mut() {
            if *left == 0 {
                return;
            }
            *left -= 1;
        }
        a.ep.request(self.now, peer, Message::con_request(Code::GET, ""));
        self.drain_app(app);
    }

    /// Sends what endpoint `app` wants sent, records its ended exchanges and re-arms its timer.
    fn drain_app(&mut self, app: usize) {
        let now = self.now;
        let (req_flow, resp_flow) = self.coap.frames;
        while let Some(t) = self.coap.apps[app].ep.poll_transmit() {
            let flow = if t.msg.code.is_request() { req_flow } else { resp_flow };
            let src = self.coap.apps[app].addr;
            self.send(src, t.to, flow, Body::Coap(t.msg));
        }
        while let Some(e) = self.coap.apps[app].ep.poll_event() {
            let in_window = now >= self.coap.window.0 && now < self.coap.window.1;
            match e {
                Event::Completed { first_sent, rtt, retransmissions, to, .. } => {
                    if let Some(f) = self.coap.apps[app].flow {
                        let continuous = self.coap.apps[app].to_issue.is_none();
                        let rto = self.coap.apps[app].ep.rto(&to, now);
                        let r = &mut self.coap.flows[f];
                        if continuous && r.series.len() < 20_000 {
                            r.series.push((
                                now.as_nanos(),
                                rtt.as_nanos() as u64,
                                rto.map_or(0, |d| d.as_nanos() as u64),
                            ));
                        }
                        r.completed += 1;
                        r.retransmissions += u64::from(retransmissions);
                        r.duration_sum_ns += rtt.as_nanos();
                        r.first_send_ns.get_or_insert(first_sent.as_nanos());
                        r.last_ack_ns = Some(now.as_nanos());
                        if in_window {
                            r.ended_in_window += 1;
                            r.completed_in_window += 1;
                            r.transmissions_in_window += 1 + u64::from(retransmissions);
                        }
                    }
                    self.next_request(app);
                }
                Event::Failed { retransmissions, .. } => {
                    if let Some(f) = self.coap.apps[app].flow {
                        let r = &mut self.coap.flows[f];
                        r.failed += 1;
                        r.retransmissions += u64::from(retransmissions);
                        if in_window {
                            r.ended_in_window += 1;
                            r.failed_in_window += 1;
                            r.transmissions_in_window += 1 + u64::from(retransmissions);
                        }
                    }
                    self.next_request(app);
                }
                Event::TimerExpired { timer, .. } => {
                    if let Some(f) = self.coap.apps[app].flow
                        && self.coap.flows[f].expired_timers_ns.len() < 64
                    {
                        self.coap.flows[f].expired_timers_ns.push(timer.as_nanos() as u64);
                    }
                }
                _ => {}
            }
        }
        let want = self.coap.apps[app].ep.poll_timeout();
        let a = &mut self.coap.apps[app];
        if want != a.timer_at {
            a.timer_at = want;
            a.timer_gen += 1;
            if let Some(t) = want {
                let generation = a.timer_gen;
                self.push(t.max(now), Ev::EpTimer { app: app as u32, generation });
            }
        }
    }

    /// An exchange of client `app` ended: the next request, the next 1-to-1 server, or the end
    /// of the run when the last counted client is done.
    fn next_request(&mut self, app: usize) {
        let a = &self.coap.apps[app];
        let done = a.to_issue == Some(0) && a.peer.is_some_and(|p| a.ep.pending(&p) == 0);
        if done && let Some(left) = self.coap.clients_left.as_mut() {
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.coap.clients_done_at = Some(self.now);
                let at = self.now + self.coap.tail;
                self.end = self.end.min(at);
                self.push(at, Ev::End);
            }
            return;
        }
        if let Some(one) = &self.coap.one_to_one
            && done
        {
            let at = self.now + one.pause;
            if self.start_next_server(at).is_err() {
                self.stopped = true;
            }
            return;
        }
        self.issue(app);
    }
}

#[cfg(test)]
mod tests {
    use coapcc_core::Duration;

    use super::super::testkit::{betzler_null_rdc, line_coap, run};
    use super::super::{
        ClientMode, CoapCrossTraffic, CoapManyToMany, CoapOneToOne, CoapSaturated, MultihopConfig, RdcKind,
        TopologyChoice, Workload,
    };
    use crate::multihop::ContikiVersion;
    use crate::multihop::csma::CsmaConfig;

    #[test]
    fn a_strictly_sequential_client_has_throughput_times_mean_duration_equal_to_one() {
        // §6 check 13, over NullRDC (3 hops) and ContikiMAC (2 hops).
        for (rdc, hops) in [(RdcKind::NullRdc, 3), (RdcKind::Contikimac, 2)] {
            let r = run(line_coap(rdc, hops, 200, "cocoa"), 7);
            let f = &r.coap[0];
            assert_eq!(f.completed, 200, "{rdc:?}");
            let x = f.throughput_per_s() * f.mean_duration_s();
            assert!((x - 1.0).abs() < 0.01, "{rdc:?}: {x}");
        }
    }

    #[test]
    fn a_sequential_client_keeps_throughput_times_duration_at_one_even_with_nstart_4() {
        // §6 check 13 with OQ-M5's option: `client_mode = sequential` issues one exchange at a
        // time whatever NSTART; the default (`parallel`) keeps up to NSTART = 4 in flight, so
        // by Little's law throughput × duration is the mean number in flight there.
        for (rdc, hops) in [(RdcKind::NullRdc, 3), (RdcKind::Contikimac, 2)] {
            let with = |mode: ClientMode| {
                let mut cfg = line_coap(rdc, hops, 200, "cocoa");
                if let Workload::CoapSaturated(w) = &mut cfg.workload {
                    w.nstart = 4;
                    w.client_mode = mode;
                }
                let r = run(cfg, 7);
                let f = r.coap[0].clone();
                assert_eq!(f.completed + f.failed, 200, "{rdc:?} {mode:?}");
                if mode == ClientMode::Sequential {
                    assert_eq!(f.completed, 200, "{rdc:?}: an idle line loses nothing one at a time");
                }
                f.throughput_per_s() * f.mean_duration_s()
            };
            let sequential = with(ClientMode::Sequential);
            assert!((sequential - 1.0).abs() < 0.01, "{rdc:?}: {sequential}");
            let parallel = with(ClientMode::Parallel);
            // Measured 3.31 (NullRDC) and 2.77 (ContikiMAC, where exchanges also fail).
            assert!(parallel > 2.5, "{rdc:?}: {parallel} exchanges in flight on average");
        }
    }

    #[test]
    fn a_sequential_betzler_cloud_client_with_nstart_4_has_one_exchange_in_flight() {
        // OQ-M5 on the 1-to-1 workload (CoCoA4 = CoCoA with NSTART 4), lossless NullRDC.
        let cfg = betzler_null_rdc(Workload::CoapOneToOne(CoapOneToOne {
            algorithm: "cocoa".into(),
            nstart: 4,
            client_mode: ClientMode::Sequential,
            exchanges: 20,
            servers: Some(vec![0, 5, 9]),
            ..CoapOneToOne::default()
        }));
        let r = run(cfg, 44);
        assert_eq!(r.coap.len(), 3);
        for f in &r.coap {
            assert_eq!(f.completed, 20, "{f:?}");
            let x = f.throughput_per_s() * f.mean_duration_s();
            assert!((x - 1.0).abs() < 0.01, "{x}");
        }
    }

    #[test]
    fn default_coap_timers_through_the_stack_double_from_a_2_to_3_s_start() {
        // §6 check 12 for CoAP (algorithms.md §13 vector of default CoAP): BEB from U[2, 3] s,
        // 4 retransmissions, over one lossless hop to a server whose application discards
        // every request.
        let mut cfg = line_coap(RdcKind::NullRdc, 1, 1, "default");
        cfg.blackhole_nodes = vec![0];
        let r = run(cfg, 14);
        let f = &r.coap[0];
        assert_eq!((f.failed, f.retransmissions), (1, 4));
        let t = &f.expired_timers_ns;
        assert_eq!(t.len(), 5);
        assert!(t[0] >= 2_000_000_000 && t[0] <= 3_000_000_000, "{t:?}");
        for k in 1..5 {
            assert_eq!(t[k], t[0] << k, "{t:?}");
        }
    }

    #[test]
    fn makarem_continuous_senders_on_a_contikimac_chain_deliver_requests_to_the_receiver() {
        let cfg = MultihopConfig {
            topology: TopologyChoice::MakaremChain { nodes: 6 },
            csma: CsmaConfig::for_mote(ContikiVersion::V3_0, crate::multihop::csma::Mote::Z1),
            duration: Duration::from_secs(300),
            workload: Workload::CoapSaturated(CoapSaturated::default()),
            ..MultihopConfig::default()
        };
        let r = run(cfg, 31);
        assert_eq!(r.coap.len(), 4);
        let total: u64 = r.coap.iter().map(|f| f.distinct_received_in_window).sum();
        assert!(total > 100, "{total}");
        assert!(r.coap.iter().all(|f| f.completed > 0), "{:?}", r.coap);
        let mac = r.mac_total();
        assert!(mac.tx_ok > 0 && mac.copies_in_ok_trains > mac.tx_ok);
        // Duty cycling: every mote's radio is off most of the time, but not always.
        let end = r.end_ns;
        assert!(r.mac.iter().all(|m| m.duty_cycle(end) > 0.0 && m.duty_cycle(end) < 0.9), "{:?}", r.mac);
    }

    #[test]
    fn betzler_one_to_one_runs_the_servers_in_turn_through_slip_and_the_cloud_delay() {
        let cfg = betzler_null_rdc(Workload::CoapOneToOne(CoapOneToOne {
            algorithm: "cocoa".into(),
            exchanges: 10,
            servers: Some(vec![0, 1, 2]),
            ..CoapOneToOne::default()
        }));
        let r = run(cfg, 41);
        assert_eq!(r.coap.len(), 3);
        for f in &r.coap {
            assert_eq!(f.completed, 10, "{f:?}");
            // Two cloud crossings of 75 ms plus SLIP both ways and the radio hops.
            assert!(f.mean_duration_s() > 0.150 && f.mean_duration_s() < 0.5, "{}", f.mean_duration_s());
        }
    }

    #[test]
    fn betzler_many_to_many_runs_all_clients_at_once_and_ends_when_all_are_done() {
        let cfg =
            betzler_null_rdc(Workload::CoapManyToMany(CoapManyToMany { exchanges: 5, ..CoapManyToMany::default() }));
        let r = run(cfg, 42);
        assert_eq!(r.coap.len(), 29);
        assert!(r.coap.iter().all(|f| f.completed + f.failed == 5), "{:?}", r.coap);
        assert!(r.end_ns < 3_600_000_000_000, "ended when the clients were done");
    }

    #[test]
    fn betzler_cross_traffic_runs_four_continuous_flows_and_a_burst_over_the_other_25_servers() {
        let cfg = betzler_null_rdc(Workload::CoapCrossTraffic(CoapCrossTraffic {
            algorithm: "cocoa".into(),
            exchanges: 5,
            burst_at: Duration::from_secs(20),
            tail: Duration::from_secs(10),
            ..CoapCrossTraffic::default()
        }));
        let r = run(cfg, 43);
        assert_eq!(r.coap.len(), 29);
        let continuous: Vec<_> = r.coap.iter().filter(|f| !f.series.is_empty()).collect();
        assert_eq!(continuous.len(), 4);
        assert_eq!(r.coap.iter().filter(|f| f.completed + f.failed == 5).count(), 25);
        let done = r.clients_done_ns.unwrap();
        assert!(done > 20_000_000_000);
        assert_eq!(r.end_ns, done + 10_000_000_000);
        assert!(continuous.iter().all(|f| f.series.iter().all(|&(_, d, rto)| d > 0 && rto > 0)));
    }
}
