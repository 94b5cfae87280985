//! The CoAP applications (multihop.md §2.4, §3.3; OQ-M5, OQ-M6, OQ-M19): the project's CoAP
//! endpoints ([`coapcc_proto::Endpoint`], any `coapcc_core` algorithm) as mote servers,
//! mote clients (Makarem's saturated senders) and cloud clients on the host side (Betzler's
//! 1-to-1, many-to-many and cross-traffic workloads), how each workload sets them up, and
//! what they measure ([`CoapFlowResult`] per client).
//!
//! The clients are flows of the driver's flow loop ([`FlowLoop`], the one every driver runs):
//! each client's budget and concurrency are its [`FlowSpec`] in the driver's [`Workload`]
//! (`count = "attempts"`: a failed exchange counts), what is seen of it goes to the driver's
//! [`Recorder`] (with a measurement window, the first expired timers and, for a client without
//! a budget, the completion series), and the engine is the loop's [`Host`]: its event time,
//! its 6LoWPAN stack as `send` ([`MultihopSim::send_packet`]), each client's wake-up as an
//! [`Ev::EpTimer`], and what happens when a counted client is done (the end of the run, or
//! Betzler's next 1-to-1 server). A client opens its exchanges one [`Ev::ClientStart`] event
//! at a time ([`FlowLoop::open`]: NSTART events, or one for a sequential client, OQ-M5).
//! Servers are not flows: the engine answers them itself, as the network engine does.
//!
//! Endpoint configurations come from the driver ([`Endpoints::multihop`], the one place every
//! driver's endpoints are configured). The transmission-count echo is `[multihop] echo`:
//! `none` (default) keeps every endpoint without an echo whatever the algorithm — the papers'
//! Contiki implementations and the frame-size tables (§1.2) have no transmission-count option,
//! and IDC's and MBC's OQ-28 reading ("exact" samples) is the simulator's exact matching, not
//! an option on the air — while `algorithm` gives each algorithm the echo it states (IDC, MBC
//! and pCoCoA the option, FASOR+token the token byte), as the network model and the testbed
//! do. Frame lengths come from the tables or rules 1–4 either way, not from the messages.
//!
//! t_app delays a CoAP request at a mote server before the endpoint sees it (so the response
//! leaves t_app after the request arrived, check 2) \[D\]; responses reaching a client and the
//! host side have no application delay.
//!
//! The flow loop's call order is the one this application had before it moved onto the loop,
//! so every output stays the same: a client's start events each hand over one request and
//! drain ([`FlowLoop::open`]); the next request after an exchange ends is queued while the
//! endpoint's events are read and its copy leaves after them, where this application sent it
//! at once — no event of the same drain can tell (the events only record, and a client that
//! has a request in flight cannot be done, so the run's end and the next 1-to-1 server are
//! never scheduled after such a copy), and the copies leave in the same order; the loop
//! compares the clamped wake-up where this application compared the endpoint's own, which is
//! never before now when a drain ends (every timer due at an earlier instant fired then); and
//! the series and timer lists keep the recorder's caps
//! ([`coapcc_driver::TIMERS_KEPT`], [`coapcc_driver::COMPLETIONS_KEPT`]),
//! the numbers this application used.

use std::collections::BTreeMap;
use std::sync::Arc;

use coapcc_core::{AnyConfig, ConfigError, Duration, Instant};
use coapcc_driver::Endpoints;
use coapcc_driver::FlowSpec;
use coapcc_driver::flow::{Datagram, FlowLoop, Host, Sent};
use coapcc_driver::rng::{SimRng, below, stream_rng, uniform_duration};
use coapcc_driver::scenario::{Count, FlowType, WorkloadConfig};
use coapcc_driver::{FlowProgress, Workload};
use coapcc_driver::{FlowRecord, MeasurementWindow, Recorder, RecorderOptions};
use coapcc_proto::{Endpoint, EndpointConfig, Message, MessageType};

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

/// The CoAP endpoint type of the engine: addresses are [`Addr`].
pub type Ep = Endpoint<Addr, SimRng>;

/// The engine's clients: the driver's flow loop with the engine as its host.
type Flows = FlowLoop<MultihopSim, Recorder>;

// ---- state -----------------------------------------------------------------------------------

/// One CoAP endpoint of the run. Its index in [`CoapApps::apps`] (servers and clients in
/// set-up order) is the subject of its timer and start events in the event trace.
struct App {
    /// Its timer's generation: a timer event of an older one is stale.
    timer_gen: u64,
    kind: AppKind,
}

enum AppKind {
    /// A server, answered by the engine: its address, endpoint and armed timer.
    Server { addr: Addr, ep: Box<Ep>, timer_at: Option<Instant> },
    /// A client: its flow in the flow loop (and in [`CoapApps::clients`]).
    Client(u32),
}

/// What the engine knows of a client (a flow of the loop).
struct Client {
    addr: Addr,
    /// Its server.
    peer: Addr,
    /// Its application index.
    app: u32,
    /// Its budget and concurrency.
    spec: FlowSpec,
    /// Its result's fields known at set-up (node, peer, route hops).
    result: CoapFlowResult,
}

/// Betzler 1-to-1 (§2.4): the servers in turn, the next one's index and the workload's
/// per-client settings.
struct OneToOne {
    servers: Vec<NodeId>,
    next: usize,
    nstart: u16,
    client_mode: ClientMode,
    exchanges: u64,
    pause: Duration,
}

/// The CoAP applications of a run and what they measure.
pub(super) struct CoapApps {
    apps: Vec<App>,
    app_of: BTreeMap<Addr, usize>,
    /// One per flow of the loop, in set-up order.
    clients: Vec<Client>,
    /// The clients' flow loop, once a CoAP workload set it up; lent out while one of its calls
    /// runs ([`MultihopSim::with_flows`]).
    flows: Option<Box<Flows>>,
    /// A client endpoint never used: every client is renewed from it.
    prototype: Option<Ep>,
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
    /// No application yet.
    pub(super) fn new() -> Self {
        CoapApps {
            apps: Vec::new(),
            app_of: BTreeMap::new(),
            clients: Vec::new(),
            flows: None,
            prototype: None,
            frames: CoapFrames::Makarem.flows(),
            one_to_one: None,
            clients_left: None,
            tail: Duration::ZERO,
            clients_done_at: None,
        }
    }

    /// The (client mote, server mote) pairs of mote-to-mote flows.
    pub(super) fn mote_pairs(&self) -> impl Iterator<Item = (NodeId, NodeId)> + '_ {
        self.clients.iter().filter_map(|c| match (c.addr, c.peer) {
            (Addr::Node(s), Addr::Node(r)) => Some((s, r)),
            _ => None,
        })
    }

    /// Every client's result, in set-up order, at the end of the run.
    pub(super) fn results(&mut self) -> Vec<CoapFlowResult> {
        let Some(flows) = self.flows.take() else { return Vec::new() };
        let (workload, recorder) = flows.into_parts();
        let records = recorder.into_flows();
        self.clients.iter().zip(records).zip(workload.flows()).map(|((c, r), p)| flow_result(c, r, p)).collect()
    }
}

/// A client's result: its set-up fields, its workload's counts and its records.
fn flow_result(c: &Client, r: FlowRecord, p: &FlowProgress) -> CoapFlowResult {
    let ns = |d: Duration| d.as_nanos() as u64;
    CoapFlowResult {
        completed: u64::from(p.completed),
        failed: u64::from(p.failed),
        ended_in_window: r.in_window.completed + r.in_window.failed,
        completed_in_window: r.in_window.completed,
        failed_in_window: r.in_window.failed,
        transmissions_in_window: r.in_window.transmissions,
        retransmissions: r.ended_retransmissions,
        duration_sum_ns: r.acked_duration_sum.as_nanos(),
        first_send_ns: r.first_acked_sent.map(Instant::as_nanos),
        last_ack_ns: r.last_ack.map(Instant::as_nanos),
        distinct_received_in_window: r.in_window.received,
        expired_timers_ns: r.first_expired.as_slice().iter().map(|&d| ns(d)).collect(),
        series: r
            .completions
            .as_slice()
            .iter()
            .map(|p| (p.at.as_nanos(), ns(p.duration), p.rto_after.map_or(0, ns)))
            .collect(),
        ..c.result.clone()
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
    /// The CoAP set-up of a workload of `algorithm` (the scenario's checked configuration,
    /// else the preset of that name) with `nstart`: the endpoints' configurations (built and
    /// checked once, shared by every endpoint), `nstart` checked, the clients' flow loop with
    /// its measurement window from `window_start` to the end of the run (OQ-M19). Returns the
    /// servers' configuration.
    fn setup_coap(
        &mut self,
        algorithm: &str,
        nstart: u16,
        window_start: Duration,
    ) -> Result<EndpointConfig, ConfigError> {
        let config = match self.cfg.algorithm_config {
            Some(c) => c,
            None => AnyConfig::from_name(algorithm)
                .ok_or_else(|| ConfigError::new("workload.algorithm", "unknown algorithm"))?,
        };
        let endpoints = Endpoints::multihop(&config, nstart, self.cfg.echo)?;
        if nstart == 0 {
            return Err(ConfigError::new("workload.nstart", "must be at least 1"));
        }
        let prototype = Endpoint::new(endpoints.client, stream_rng(self.seed, 0, streams::PROTOTYPE))?;
        let workload = WorkloadConfig {
            flows: 0,
            flow_type: FlowType::Continuous,
            exchanges_per_flow: 0,
            start_window: Duration::ZERO,
            random_min: 1,
            random_max: 1,
            duration: None,
            nstart,
            count: Count::Attempts,
            time_limit: self.cfg.duration,
        };
        let recorder = Recorder::with_options(RecorderOptions {
            window: Some(MeasurementWindow { start: Instant::ZERO + window_start, end: self.end }),
            first_expired: true,
            completions: true,
            ..RecorderOptions::default()
        });
        let workload = Workload::new(workload, stream_rng(self.seed, 0, streams::FLOWS));
        self.coap.flows = Some(Box::new(FlowLoop::new(workload, recorder, endpoints.request)));
        self.coap.prototype = Some(prototype);
        Ok(endpoints.server)
    }

    /// A server at mote `node` whose endpoint draws from endpoint stream `stream`.
    fn add_server(&mut self, config: &EndpointConfig, node: u16, stream: u64) -> Result<(), ConfigError> {
        let rng = stream_rng(self.seed, 0, streams::ENDPOINT | stream);
        let ep = Box::new(Endpoint::new(config.clone(), rng)?);
        let addr = Addr::Node(NodeId(node));
        self.coap.app_of.insert(addr, self.coap.apps.len());
        self.coap.apps.push(App { timer_gen: 0, kind: AppKind::Server { addr, ep, timer_at: None } });
        Ok(())
    }

    /// A client at `addr` of `server` with `exchanges` exchanges (`None`: continuous), opening
    /// its exchanges as `mode` says, and the set-up fields of its result; returns its
    /// application index. Its flow joins the loop now, or when the loop's current call
    /// returns.
    fn add_client(
        &mut self,
        addr: Addr,
        server: Addr,
        exchanges: Option<u64>,
        (mode, nstart): (ClientMode, u16),
        result: CoapFlowResult,
    ) -> usize {
        let app = self.coap.apps.len();
        let flow = self.coap.clients.len() as u32;
        // A budget beyond u32::MAX exchanges is never reached either.
        let exchanges = exchanges.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
        let spec = FlowSpec { exchanges, concurrency: mode.initial_requests(nstart) };
        self.coap.apps.push(App { timer_gen: 0, kind: AppKind::Client(flow) });
        self.coap.app_of.insert(addr, app);
        self.coap.clients.push(Client { addr, peer: server, app: app as u32, spec, result });
        if let Some(flows) = self.coap.flows.as_mut() {
            flows.add_flow(spec);
        }
        app
    }

    /// Cloud client `host` on the host side of the border router, for the server at mote
    /// `server`.
    fn add_cloud_client(
        &mut self,
        host: u16,
        server: u16,
        exchanges: Option<u64>,
        opening: (ClientMode, u16),
    ) -> usize {
        let result = CoapFlowResult { node: None, peer: Some(server), ..Default::default() };
        self.add_client(Addr::Host(host), Addr::Node(NodeId(server)), exchanges, opening, result)
    }

    /// Client `app` starts its first exchanges at `at`: one start event per exchange it opens
    /// with, NSTART or one (OQ-M5).
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
        let server_config = self.setup_coap(&w.algorithm, w.nstart, w.window_start)?;
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
        self.add_server(&server_config, receiver, 0xffff)?;
        let server = Addr::Node(NodeId(receiver));
        for s in senders {
            let result = CoapFlowResult {
                node: Some(s),
                peer: Some(receiver),
                route_hops: self.dodag.route_hops(NodeId(s), NodeId(receiver)),
                ..Default::default()
            };
            let opening = (w.client_mode, w.nstart);
            let app = self.add_client(Addr::Node(NodeId(s)), server, w.max_exchanges, opening, result);
            let offset = self.start_offset(w.start_window);
            self.start_client(app, Instant::ZERO + offset, w.client_mode, w.nstart);
        }
        Ok(())
    }

    /// Betzler's 1-to-1 baseline (§2.4): every server now, their cloud clients one after
    /// the other, the first at 1 s.
    pub(super) fn setup_coap_one_to_one(&mut self, w: &CoapOneToOne, topo: &Topology) -> Result<(), ConfigError> {
        let server_config = self.setup_coap(&w.algorithm, w.nstart, Duration::ZERO)?;
        self.coap.frames = CoapFrames::Betzler.flows();
        let servers = servers_or_end_nodes(&w.servers, topo);
        check_ids(&servers, topo)?;
        for &s in &servers {
            self.add_server(&server_config, s, u64::from(s))?;
        }
        self.coap.one_to_one = Some(OneToOne {
            servers: servers.into_iter().map(NodeId).collect(),
            next: 0,
            nstart: w.nstart,
            client_mode: w.client_mode,
            exchanges: w.exchanges,
            pause: w.pause,
        });
        self.start_next_server(Instant::ZERO + Duration::from_secs(1));
        Ok(())
    }

    /// Betzler's many-to-many (§2.4, OQ-M6): cloud client k ↔ server k, all at once, each
    /// starting at U[0, start_window); the run ends when every client is done.
    pub(super) fn setup_coap_many_to_many(&mut self, w: &CoapManyToMany, topo: &Topology) -> Result<(), ConfigError> {
        let server_config = self.setup_coap(&w.algorithm, w.nstart, Duration::ZERO)?;
        self.coap.frames = CoapFrames::Betzler.flows();
        let servers = servers_or_end_nodes(&w.servers, topo);
        check_ids(&servers, topo)?;
        for (k, &s) in servers.iter().enumerate() {
            self.add_server(&server_config, s, u64::from(s))?;
            let app = self.add_cloud_client(k as u16, s, Some(w.exchanges), (w.client_mode, w.nstart));
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
        let server_config = self.setup_coap(&w.algorithm, w.nstart, Duration::ZERO)?;
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
            self.add_server(&server_config, s, u64::from(s))?;
            let is_continuous = continuous.contains(&s);
            let exchanges = if is_continuous { None } else { Some(w.exchanges) };
            let app = self.add_cloud_client(k as u16, s, exchanges, (w.client_mode, w.nstart));
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
    fn start_next_server(&mut self, at: Instant) {
        let Some(one) = self.coap.one_to_one.as_mut() else { return };
        let Some(&server) = one.servers.get(one.next) else {
            self.push(self.now, Ev::End);
            return;
        };
        let host = one.next as u16;
        one.next += 1;
        let (nstart, mode, exchanges) = (one.nstart, one.client_mode, one.exchanges);
        let app = self.add_cloud_client(host, server.0, Some(exchanges), (mode, nstart));
        self.start_client(app, at, mode, nstart);
    }

    // ---- running ---------------------------------------------------------------------------------

    /// Runs `call` on the clients' flow loop with the engine as its host; clients set up
    /// meanwhile (the next 1-to-1 server) join the loop when it returns.
    fn with_flows(&mut self, call: impl FnOnce(&mut Flows, &mut Self) -> Result<(), ConfigError>) {
        let Some(mut flows) = self.coap.flows.take() else { return };
        if call(&mut flows, self).is_err() {
            // Only a client without a CoAP set-up fails, which a CoAP workload never has.
            self.stopped = true;
        }
        for c in self.coap.clients.iter().skip(flows.workload().flows().len()) {
            flows.add_flow(c.spec);
        }
        self.coap.flows = Some(flows);
    }

    /// A CoAP message reached mote `node`: a request waits t_app before the endpoint sees it.
    pub(super) fn coap_at_mote(&mut self, node: u16, pkt: u32, msg: &Message) {
        let request = msg.mtype == MessageType::Con && msg.code.is_request();
        if request && !self.cfg.t_app.is_zero() {
            self.push(self.now + self.cfg.t_app, Ev::AppIn { node, pkt });
        } else {
            self.deliver_coap(Addr::Node(NodeId(node)), pkt);
        }
    }

    /// Client application `app`'s start event: it hands its endpoint one request.
    pub(super) fn on_client_start(&mut self, app: u32) {
        if let Some(App { kind: AppKind::Client(flow), .. }) = self.coap.apps.get(app as usize) {
            let flow = *flow;
            self.with_flows(|flows, sim| flows.open(sim, flow));
        }
    }

    /// Application `app`'s endpoint timer fired, unless it was re-armed since (`generation`).
    pub(super) fn on_ep_timer(&mut self, app: u32, generation: u64) {
        let Some(a) = self.coap.apps.get_mut(app as usize) else { return };
        if a.timer_gen != generation {
            return;
        }
        match &mut a.kind {
            AppKind::Server { ep, timer_at, .. } => {
                *timer_at = None;
                ep.handle_timeout(self.now);
                self.drain_server(app as usize);
            }
            &mut AppKind::Client(flow) => self.with_flows(|flows, sim| flows.handle_timeout(sim, flow)),
        }
    }

    /// A CoAP message reached the endpoint at `at`: a server's is answered here, a client's
    /// goes to the flow loop.
    pub(super) fn deliver_coap(&mut self, at: Addr, pkt: u32) {
        let Some(&app) = self.coap.app_of.get(&at) else { return };
        let p = &self.packets[pkt as usize];
        let Body::Coap(msg) = &p.body else { return };
        let (from, msg) = (p.src, Arc::clone(msg));
        match self.coap.apps[app].kind {
            AppKind::Server { .. } => self.serve(app, from, msg),
            AppKind::Client(flow) => self.with_flows(|flows, sim| flows.handle_message(sim, flow, 0, from, msg)),
        }
    }

    /// Server `app` handles `msg` from `from`; a fresh request inside the measurement window
    /// counts for its client's flow.
    fn serve(&mut self, app: usize, from: Addr, msg: Arc<Message>) {
        let now = self.now;
        let AppKind::Server { ep, .. } = &mut self.coap.apps[app].kind else { return };
        let request = msg.code.is_request();
        let before = ep.stats();
        ep.handle_message(now, from, msg);
        let after = ep.stats();
        let fresh = after.duplicates_answered == before.duplicates_answered
            && after.duplicates_pending == before.duplicates_pending;
        if request
            && fresh
            && let Some(&capp) = self.coap.app_of.get(&from)
            && let AppKind::Client(flow) = self.coap.apps[capp].kind
            && let Some(flows) = self.coap.flows.as_mut()
        {
            flows.recorder_mut().received(flow, now);
        }
        self.drain_server(app);
    }

    /// Sends what server `app` wants sent and re-arms its timer (its endpoint answers every
    /// request itself: it raises nothing for an application).
    fn drain_server(&mut self, app: usize) {
        let now = self.now;
        let (req_flow, resp_flow) = self.coap.frames;
        loop {
            let AppKind::Server { addr, ep, .. } = &mut self.coap.apps[app].kind else { return };
            let Some(t) = ep.poll_transmit() else { break };
            let flow = if t.msg.code.is_request() { req_flow } else { resp_flow };
            let src = *addr;
            self.send_packet(src, t.to, flow, Body::Coap(t.msg));
        }
        let a = &mut self.coap.apps[app];
        let AppKind::Server { ep, timer_at, .. } = &mut a.kind else { return };
        while ep.poll_event().is_some() {}
        let want = ep.poll_timeout();
        if want != *timer_at {
            *timer_at = want;
            a.timer_gen += 1;
            if let Some(t) = want {
                let generation = a.timer_gen;
                self.push(t.max(now), Ev::EpTimer { app: app as u32, generation });
            }
        }
    }

    /// Client `flow` is done: the end of the run when it was the last counted client, or the
    /// next 1-to-1 server after the pause.
    fn client_done(&mut self, flow: u32) {
        // A client with no exchange to make never ends one, so it was never seen done.
        if self.coap.clients.get(flow as usize).is_none_or(|c| c.spec.exchanges == Some(0)) {
            return;
        }
        if let Some(left) = self.coap.clients_left.as_mut() {
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.coap.clients_done_at = Some(self.now);
                let at = self.now + self.coap.tail;
                self.end = self.end.min(at);
                self.push(at, Ev::End);
            }
            return;
        }
        if let Some(one) = &self.coap.one_to_one {
            let at = self.now + one.pause;
            self.start_next_server(at);
        }
    }
}

/// The engine as the clients' host: its event time, its 6LoWPAN stack, its timer events.
impl Host for MultihopSim {
    type Addr = Addr;
    type Rng = SimRng;
    /// The client's address.
    type Client = Addr;
    type Error = ConfigError;

    #[inline]
    fn now(&self) -> Instant {
        self.now
    }

    #[inline]
    fn peer(&self, flow: u32) -> Addr {
        self.coap.clients.get(flow as usize).map_or(Addr::Host(u16::MAX), |c| c.peer)
    }

    /// A mote client's endpoint draws from the mote's endpoint stream, cloud client k's from
    /// stream 2¹⁶ + k.
    fn new_client(&mut self, flow: u32, _incarnation: u32) -> Result<(Ep, Addr), ConfigError> {
        let (Some(prototype), Some(c)) = (&self.coap.prototype, self.coap.clients.get(flow as usize)) else {
            return Err(ConfigError::new("workload", "not a CoAP workload"));
        };
        let stream = match c.addr {
            Addr::Node(n) => u64::from(n.0),
            Addr::Host(k) => (1 << 16) | u64::from(k),
        };
        Ok((prototype.renewed(stream_rng(self.seed, 0, streams::ENDPOINT | stream)), c.addr))
    }

    #[inline]
    fn send(&mut self, from: &mut Addr, d: Datagram<Addr>) -> Sent {
        let (req_flow, resp_flow) = self.coap.frames;
        let flow = if d.transmit.msg.code.is_request() { req_flow } else { resp_flow };
        self.send_packet(*from, d.transmit.to, flow, Body::Coap(d.transmit.msg));
        Sent::default()
    }

    /// One timer event per arming; the loop's wake-up is never before now.
    fn set_wake(&mut self, flow: u32, at: Option<Instant>) {
        let Some(app) = self.coap.clients.get(flow as usize).map(|c| c.app as usize) else { return };
        let a = &mut self.coap.apps[app];
        a.timer_gen += 1;
        if let Some(t) = at {
            let generation = a.timer_gen;
            self.push(t, Ev::EpTimer { app: app as u32, generation });
        }
    }

    fn finished(&mut self, flow: u32) {
        self.client_done(flow);
    }
}

#[cfg(test)]
mod tests {
    use coapcc_core::Duration;
    use coapcc_core::{AnyConfig, EchoMode};
    use coapcc_driver::scenario::multihop::MultihopEcho;
    use coapcc_driver::scenario::{Setting, parse};
    use coapcc_proto::Message;
    use coapcc_proto::{decode_uint, option};

    use super::super::net::Body;
    use super::super::testkit::{betzler_null_rdc, line_coap, run};
    use super::super::{
        ClientMode, CoapCrossTraffic, CoapManyToMany, CoapOneToOne, CoapSaturated, MultihopConfig, MultihopSim,
        MultihopWorkload, RdcKind, TopologyChoice,
    };
    use crate::multihop::ContikiVersion;
    use coapcc_driver::scenario::multihop::CsmaConfig;

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
                if let MultihopWorkload::CoapSaturated(w) = &mut cfg.workload {
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
        let cfg = betzler_null_rdc(MultihopWorkload::CoapOneToOne(CoapOneToOne {
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
            csma: CsmaConfig::for_mote(ContikiVersion::V3_0, coapcc_driver::scenario::multihop::Mote::Z1),
            duration: Duration::from_secs(300),
            workload: MultihopWorkload::CoapSaturated(CoapSaturated::default()),
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
        let cfg = betzler_null_rdc(MultihopWorkload::CoapOneToOne(CoapOneToOne {
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
        let cfg = betzler_null_rdc(MultihopWorkload::CoapManyToMany(CoapManyToMany {
            exchanges: 5,
            ..CoapManyToMany::default()
        }));
        let r = run(cfg, 42);
        assert_eq!(r.coap.len(), 29);
        assert!(r.coap.iter().all(|f| f.completed + f.failed == 5), "{:?}", r.coap);
        // The run ends when the last client is done (no tail), not at the configured hour.
        let done = r.clients_done_ns.expect("the clients finish");
        assert_eq!(r.end_ns, done);
        let last_ack = r.coap.iter().filter_map(|f| f.last_ack_ns).max().unwrap();
        assert!(done >= last_ack, "{done} < {last_ack}");
        // Each client starts within the 1 s start window and makes its 5 exchanges one after
        // another, each over in at most RFC 7252's MAX_TRANSMIT_WAIT = 2 s × 1.5 × (2⁵ − 1) =
        // 93 s, and no faster than two crossings of the 75 ms cloud delay.
        assert!(done <= 1_000_000_000 + 5 * 93_000_000_000, "{done}");
        assert!(done >= 5 * 150_000_000, "{done}");
    }

    #[test]
    fn betzler_cross_traffic_runs_four_continuous_flows_and_a_burst_over_the_other_25_servers() {
        let cfg = betzler_null_rdc(MultihopWorkload::CoapCrossTraffic(CoapCrossTraffic {
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

    /// A continuous sender two lossy ContikiMAC hops from the receiver, `algorithm` with `echo`.
    fn lossy_continuous(algorithm: &str, echo: MultihopEcho) -> MultihopConfig {
        let mut cfg = line_coap(RdcKind::Contikimac, 2, 1, algorithm);
        cfg.udgm.success_ratio_tx = 0.85;
        cfg.duration = Duration::from_secs(300);
        cfg.echo = echo;
        if let MultihopWorkload::CoapSaturated(w) = &mut cfg.workload {
            w.max_exchanges = None;
        }
        cfg
    }

    #[test]
    fn the_algorithm_echo_gives_idc_and_mbc_other_rtt_samples_and_changes_nothing_for_the_others() {
        assert_eq!(MultihopConfig::default().echo, MultihopEcho::None, "no echo unless asked for");
        for algorithm in ["idc", "mbc"] {
            let series = |echo| run(lossy_continuous(algorithm, echo), 5).coap[0].series.clone();
            let (none, echoed) = (series(MultihopEcho::None), series(MultihopEcho::Algorithm));
            // The runs agree until an acknowledgement names an earlier copy than the latest: the
            // first difference is the RTO computed from that sample (OQ-27, OQ-28), at the same
            // completion instant and exchange duration.
            let k = none.iter().zip(&echoed).position(|(a, b)| a != b);
            let Some(k) = k else { panic!("{algorithm}: the echo changed nothing in {} completions", none.len()) };
            let ((t, d, rto), (t2, d2, rto2)) = (none[k], echoed[k]);
            assert_eq!((t, d), (t2, d2), "{algorithm}: completion {k}");
            assert_ne!(rto, rto2, "{algorithm}: completion {k}");
        }
        // CoCoA and Default CoAP state no echo: `algorithm` leaves their runs as they are.
        for algorithm in ["cocoa", "default"] {
            let result = |echo| format!("{:?}", run(lossy_continuous(algorithm, echo), 5));
            assert_eq!(result(MultihopEcho::Algorithm), result(MultihopEcho::None), "{algorithm}");
        }
    }

    #[test]
    fn requests_and_answers_carry_the_echo_the_algorithm_states_only_with_echo_algorithm() {
        // Spec §7.7 / OQ-28: IDC and MBC (exact samples) and pCoCoA state the transmission-count
        // option, FASOR+token the token byte, CoCoA and Default CoAP nothing.
        let stated = |name: &str| AnyConfig::from_name(name).map(|c| c.echo_mode());
        assert_eq!((stated("idc"), stated("mbc")), (Some(EchoMode::Option), Some(EchoMode::Option)));
        for algorithm in ["idc", "mbc", "pcocoa", "fasor-token", "cocoa", "default"] {
            for echo in [MultihopEcho::None, MultihopEcho::Algorithm] {
                let want = match echo {
                    MultihopEcho::None => EchoMode::None,
                    MultihopEcho::Algorithm => stated(algorithm).unwrap_or(EchoMode::None),
                };
                let mut cfg = lossy_continuous(algorithm, echo);
                cfg.duration = Duration::from_secs(60);
                let mut sim = MultihopSim::new(cfg, 5).unwrap();
                sim.run_events();
                let sent: Vec<&Message> = sim
                    .packets
                    .iter()
                    .filter_map(|p| match &p.body {
                        Body::Coap(m) => Some(&**m),
                        Body::Tcp(_) => None,
                    })
                    .collect();
                let count = |m: &Message| m.option(option::TRANSMISSION_COUNT).and_then(decode_uint);
                let (requests, answers): (Vec<&Message>, Vec<&Message>) =
                    sent.into_iter().partition(|m| m.code.is_request());
                let label = format!("{algorithm} {echo:?}");
                assert!(!answers.is_empty(), "{label}");
                // Copy k of an exchange carries k (0: the original); its answer echoes one of them.
                let option = want == EchoMode::Option;
                assert!(requests.iter().all(|m| count(m).is_some() == option), "{label}");
                assert!(answers.iter().all(|m| count(m).is_some() == option), "{label}");
                if option {
                    assert!(requests.iter().any(|m| count(m) == Some(0)), "{label}");
                    assert!(requests.iter().any(|m| count(m) >= Some(1)), "{label}: a lossy path retransmits");
                }
                // The 2-byte token (§2.4), one byte longer with the token echo.
                let token_bytes = if want == EchoMode::Token { 3 } else { 2 };
                assert!(requests.iter().all(|m| m.token.len() == token_bytes), "{label}");
            }
        }
    }

    #[test]
    fn the_echo_key_is_reachable_with_set_and_a_bad_value_names_the_key() {
        // Makarem's chain, where the echo matters most (IDC).
        const CHAIN: &str = include_str!("../../../../../scenarios/makarem-cooja/chain.toml");
        let echo = |sets: &[&str]| {
            let sets: Vec<Setting> = sets.iter().map(|s| s.parse().unwrap()).collect();
            let s = parse(CHAIN, "chain.toml", &sets).map_err(|e| e.key)?;
            crate::multihop::scenario::model(&s).map(|m| m.base.echo).map_err(|e| e.key)
        };
        assert_eq!(echo(&[]), Ok(MultihopEcho::None));
        assert_eq!(echo(&["multihop.echo=algorithm"]), Ok(MultihopEcho::Algorithm));
        assert_eq!(echo(&["multihop.echo=none"]), Ok(MultihopEcho::None));
        assert_eq!(echo(&["multihop.echo=option"]), Err(Some("multihop.echo".into())));
    }
}
