//! The event loop for the network models (testbeds §1–2): clients (`coapcc-proto` endpoints)
//! and one server that answers every request at once ([`AutoResponse::answer`], what a server
//! endpoint with its duplicate cache sends), joined by one link pipeline per direction.
//!
//! Events are ordered by `(time, sequence number)`; time never goes backwards. A packet's
//! whole journey through a pipeline is computed when it is offered (every stage sees arrivals
//! in time order), so each packet costs one delivery event. Each client has one re-armable
//! wake-up timer ([`TimerHeap`]): re-arming moves it, so no stale wake-ups are ever queued.
//!
//! The flows are driven by `coapcc-driver`'s flow loop ([`FlowLoop`]: workload → endpoint →
//! recorder, the same loop the real-time testbed runs), with the endpoint set-up from
//! [`Endpoints`]; this engine is its [`Host`]: event time, the uplink, a new client per
//! incarnation, one wake-up timer per flow. What only a simulator can know stays here: every
//! packet carries the flow, the exchange and the copy it belongs to (never on the wire), so a
//! retransmission can be called unnecessary when an earlier copy of the same request completed
//! the round trip.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::convert::Infallible;
use std::sync::Arc;

use coapcc_core::{AnyConfig, ConfigError, Instant};
use coapcc_driver::Endpoints;
use coapcc_driver::flow::{Datagram, FlowLoop, Host, RequestCopy, Sent};
use coapcc_driver::{BlockPlan, Workload};
use coapcc_driver::{Recorder, RunEnd, SeriesSink};
use coapcc_proto::block::size_of_szx;
use coapcc_proto::{AutoResponse, Endpoint, Message};

use crate::timers::TimerHeap;
use coapcc_driver::link::Pipeline;
use coapcc_driver::metrics::{RunResult, TransferResult};
use coapcc_driver::rng::{SimRng, Stream, stream_rng, sub_stream};
use coapcc_driver::scenario::{BlockwiseError, CoapConfig, NetworkConfig, WorkloadConfig};

/// A node address: the client slot (flow) and which short-lived client of that slot
/// (random flows start a new client, as a new process with a new port would be).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Addr {
    /// Flow index, or `u32::MAX` for the server.
    pub node: u32,
    /// Client incarnation within the flow.
    pub incarnation: u32,
}

/// The server's address.
pub const SERVER: Addr = Addr { node: u32::MAX, incarnation: 0 };

type Ep = Endpoint<Addr, SimRng>;

impl Addr {
    /// The address this node has in a pcap of the run ([`capture_network`]): the server is
    /// `10.0.0.1:5683`; client flow `i` is host `i + 2` of `10.0.0.0/8` (`10.0.0.2`, …,
    /// `10.0.1.1` for flow 255), its port `49152 + incarnation mod 16384` (each short-lived
    /// client of a random flow its own port).
    pub fn socket_addr(self) -> std::net::SocketAddr {
        if self == SERVER {
            return std::net::SocketAddr::from(([10, 0, 0, 1], 5683));
        }
        let host = (10_u32 << 24) | (self.node.wrapping_add(2) & 0x00ff_ffff);
        let port = 49_152 + (self.incarnation % 16_384) as u16;
        std::net::SocketAddr::from((std::net::Ipv4Addr::from(host), port))
    }
}

/// Where a captured datagram was seen ([`Captured::seen`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CapturePoint {
    /// At its sender, as the sender offered it to the link.
    Sender,
    /// At its destination node, as the link delivered it.
    Receiver,
}

/// A datagram seen on a node's interface in a captured run: when a node sent it (before the
/// link) and when it arrived at its destination node (after the link), like `tcpdump` on
/// every node's interface. A datagram the link dropped appears once, at its sender.
#[derive(Clone, Debug)]
pub struct Captured {
    /// Simulated time.
    pub at: Instant,
    /// At the sender (offered to the link) or at the receiver (delivered by it).
    pub seen: CapturePoint,
    /// Sender.
    pub from: Addr,
    /// Receiver.
    pub to: Addr,
    /// The message.
    pub msg: Arc<Message>,
}

/// Ground truth carried with a packet, never on the wire.
#[derive(Clone, Copy, Debug)]
struct Meta {
    flow: u32,
    /// Flow-wide exchange index, `u32::MAX` when the packet belongs to none.
    exchange: u32,
    copy: u8,
}

/// How many of the server's answers [`Net::shared`] keeps for reuse: more than the downlink
/// usually holds, few enough to stay small (8 bytes each) when nothing is ever freed (a
/// captured run keeps every message).
const LENT_KEPT: usize = 1 << 16;

const UNTRACKED: Meta = Meta { flow: u32::MAX, exchange: u32::MAX, copy: 0 };

#[derive(Debug)]
struct Packet {
    from: Addr,
    to: Addr,
    msg: Arc<Message>,
    meta: Meta,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Ev {
    /// A packet held in the slab arrives (pipelines that may reorder).
    Deliver(u32),
    Start(u32),
}

/// An event in the queue, ordered by `(time, sequence number)` packed into one integer.
#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u128,
    ev: Ev,
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// Packets of one direction in arrival order, each with its event key. FIFO pipelines deliver
/// in offer order, so these queues are already sorted: the event loop takes the earliest of the
/// heap's top and the two queue heads, and packets never enter the heap (a bottleneck buffer
/// can hold tens of thousands of them).
#[derive(Debug, Default)]
struct InOrder {
    q: std::collections::VecDeque<(u128, Packet)>,
    last: Instant,
}

/// Per exchange: copies sent and the earliest copy whose response reached the client.
#[derive(Clone, Copy, Debug, Default)]
struct Truth {
    copies: u8,
    first_answered: Option<u8>,
    /// Packets of this exchange (request copies, responses) scheduled and not yet delivered.
    in_flight: u32,
    /// The client finished the exchange (acknowledged or abandoned): no more copies.
    done: bool,
}

impl Truth {
    /// Copies sent after the first copy that completed the round trip.
    fn unnecessary(&self) -> u32 {
        match self.first_answered {
            Some(j) if self.copies > j + 1 => u32::from(self.copies - j - 1),
            _ => 0,
        }
    }
}

/// The ground truth of a flow's exchanges that can still change: from the oldest exchange that
/// is unfinished or has a packet in flight onwards. Older exchanges are final and folded into
/// `unnecessary`, so a long-lived flow keeps a handful of entries, not one per exchange.
#[derive(Debug, Default)]
struct Ledger {
    /// Flow-wide index of `open[0]`.
    base: u32,
    open: VecDeque<Truth>,
    /// Unnecessary retransmissions of the folded exchanges.
    unnecessary: u32,
}

impl Ledger {
    fn push(&mut self) {
        self.open.push_back(Truth::default());
    }

    fn get_mut(&mut self, exchange: u32) -> Option<&mut Truth> {
        self.open.get_mut(exchange.checked_sub(self.base)? as usize)
    }

    /// Folds the final exchanges at the front.
    fn retire(&mut self) {
        while let Some(t) = self.open.front().filter(|t| t.done && t.in_flight == 0) {
            self.unnecessary += t.unnecessary();
            self.open.pop_front();
            self.base += 1;
        }
    }

    /// Unnecessary retransmissions of every exchange, at the end of the run.
    fn total_unnecessary(&self) -> u32 {
        self.unnecessary + self.open.iter().map(Truth::unnecessary).sum::<u32>()
    }
}

/// The simulation of one algorithm, one replication: the flows ([`FlowLoop`]) and the host
/// that carries their datagrams (the engine is the loop's [`Host`]).
pub struct Sim<'a> {
    flows: FlowLoop<Net<'a>>,
    net: Net<'a>,
}

/// The simulator's side of the flow loop ([`Host`]): the event queue and the client wake-ups,
/// the server, the link pipelines and the ground truth of every flow's exchanges.
struct Net<'a> {
    now: Instant,
    seq: u64,
    queue: BinaryHeap<Reverse<Entry>>,
    /// Client wake-ups, one re-armable timer per flow.
    timers: TimerHeap,
    packets: Vec<Option<Packet>>,
    free: Vec<u32>,
    in_order: [InOrder; 2],
    /// The server: it answers every request at once with this fixed response, duplicates
    /// included ([`AutoResponse::answer`]: the messages a server endpoint's duplicate cache
    /// sends, so the run keeps no cache).
    server: AutoResponse,
    /// The server's answers, oldest first, kept to reuse each one's allocation once the
    /// client has dropped it (at most [`LENT_KEPT`]).
    lent: VecDeque<Arc<Message>>,
    /// Per flow: the ground truth of its exchanges.
    truth: Vec<Ledger>,
    /// Per flow: datagrams the server sent it (offered to the downlink).
    packets_down: Vec<u64>,
    /// The block-wise transfer every flow does, if any.
    plan: Option<BlockPlan>,
    up: Pipeline,
    down: Pipeline,
    coap: &'a CoapConfig,
    /// A client endpoint never used, renewed for every client incarnation.
    client_prototype: Ep,
    seed: u64,
    replication: u32,
    end: Option<Instant>,
    long_lived: bool,
    events: u64,
    /// Where every datagram at every node goes, when capturing ([`Streams::capture`]);
    /// never read by the simulation itself.
    capture: Option<&'a mut dyn FnMut(Captured)>,
}

/// Why a network run could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// A link, the algorithm or an endpoint configuration is out of range (names the key).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The block-wise transfer's block size cannot be used (a configuration not checked as a
    /// scenario is).
    #[error("`coap.blockwise.block_bytes`: {0}")]
    Blockwise(#[from] BlockwiseError),
}

impl<'a> Sim<'a> {
    /// Sets up a run. `seed` and `replication` derive every random stream.
    pub fn new(
        network: &NetworkConfig,
        workload: WorkloadConfig,
        coap: &'a CoapConfig,
        algorithm: &AnyConfig,
        seed: u64,
        replication: u32,
    ) -> Result<Self, EngineError> {
        let (upc, downc) = network.pipelines();
        let up = Pipeline::new(&upc, seed, replication, Stream::LinkUp(0).id())?;
        let down = Pipeline::new(&downc, seed, replication, Stream::LinkDown(0).id())?;
        // Built and checked once per run, shared by the server and every client.
        let Endpoints { client: endpoint_config, server: server_config, request: template } =
            Endpoints::new(coap, &workload, algorithm)?;
        // Checked as an endpoint checks it; the server then needs nothing but its answer.
        let server = Ep::new(server_config, stream_rng(seed, replication, Stream::Server(0).id()))?
            .config()
            .auto_response
            .clone()
            .ok_or_else(|| ConfigError::new("auto_response", "the simulated server answers every request"))?;
        let client_prototype = Endpoint::new(endpoint_config, stream_rng(seed, replication, Stream::Client(0).id()))?;
        let plan = BlockPlan::of(coap)?;
        let mut workload =
            Workload::new(workload, stream_rng(seed, replication, Stream::Workload(0).id())).with_blocks(plan);
        let flows = workload.config().flows;
        let long_lived = workload.long_lived();
        let mut net = Net {
            now: Instant::ZERO,
            seq: 0,
            queue: BinaryHeap::new(),
            timers: TimerHeap::new(flows as usize),
            packets: Vec::new(),
            free: Vec::new(),
            in_order: [InOrder::default(), InOrder::default()],
            server,
            lent: VecDeque::new(),
            truth: (0..flows).map(|_| Ledger::default()).collect(),
            packets_down: vec![0; flows as usize],
            plan,
            up,
            down,
            end: workload.end(),
            coap,
            client_prototype,
            seed,
            replication,
            long_lived,
            events: 0,
            capture: None,
        };
        let mut starts = Vec::with_capacity(flows as usize);
        workload.each_start(|f, at| starts.push((f, at)));
        for (f, at) in starts {
            net.push(at, Ev::Start(f));
        }
        let flows = FlowLoop::new(workload, Recorder::new(flows, long_lived), template);
        Ok(Sim { flows, net })
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> RunResult {
        self.run_events();
        self.finish()
    }

    /// Processes events until none is left or the end is reached.
    fn run_events(&mut self) {
        loop {
            let net = &mut self.net;
            // The earliest of the event heap's top, the earliest client timer and the heads of
            // the two in-order link queues (keys are unique: they end in the sequence number).
            const HEAP: usize = 2;
            const TIMER: usize = 3;
            let mut best = net.queue.peek().map(|Reverse(e)| (e.key, HEAP));
            if let Some((k, _)) = net.timers.peek()
                && best.is_none_or(|(b, _)| k < b)
            {
                best = Some((k, TIMER));
            }
            for d in 0..2 {
                if let Some(&(k, _)) = net.in_order[d].q.front()
                    && best.is_none_or(|(b, _)| k < b)
                {
                    best = Some((k, d));
                }
            }
            let Some((key, source)) = best else { break };
            let at = Instant::from_nanos((key >> 64) as u64);
            if net.end.is_some_and(|end| at > end) {
                break;
            }
            net.now = at;
            net.events += 1;
            match source {
                HEAP => {
                    let Some(Reverse(entry)) = net.queue.pop() else { break };
                    match entry.ev {
                        Ev::Start(f) => {
                            let Ok(()) = self.flows.start(net, f);
                        }
                        Ev::Deliver(p) => {
                            if let Some(pkt) = net.packets.get_mut(p as usize).and_then(Option::take) {
                                net.free.push(p);
                                self.deliver(pkt);
                            }
                        }
                    }
                }
                TIMER => {
                    // The fired timer stays at the top while the flow handles it: a re-arm
                    // (the usual outcome: the next retransmission's timer) then moves it down
                    // once, instead of a pop and a push. One not re-armed goes afterwards.
                    // No other timer moves meanwhile, so the order of events is unchanged.
                    if let Some((key, f)) = net.timers.peek() {
                        let Ok(()) = self.flows.handle_timeout(net, f);
                        net.timers.clear_if_at(f, key);
                    }
                }
                d => {
                    if let Some((_, pkt)) = net.in_order[d].q.pop_front() {
                        self.deliver(pkt);
                    }
                }
            }
        }
    }

    /// Delivers a packet at its node: the server answers it; a client's goes to the flow loop.
    fn deliver(&mut self, p: Packet) {
        if let Some((to, from, msg)) = self.net.deliver(p) {
            let Ok(()) = self.flows.handle_message(&mut self.net, to.node, to.incarnation, from, msg);
        }
    }

    fn finish(self) -> RunResult {
        let Sim { flows, net } = self;
        let (workload, recorder) = flows.into_parts();
        let unnecessary = |f: u32| net.truth.get(f as usize).map_or(0, Ledger::total_unnecessary);
        let end = RunEnd { now: net.now, end: net.end, events: net.events };
        let mut result = recorder.finish(&workload, unnecessary, Some((&net.up, &net.down)), end);
        if let (Some(plan), Some(transfer)) = (net.plan, net.coap.blockwise) {
            let block_bytes = size_of_szx(plan.szx) as u32;
            result.transfers = result
                .flows
                .iter()
                .map(|f| {
                    let down = net.packets_down.get(f.flow as usize).copied().unwrap_or(0);
                    TransferResult::of(f, u64::from(transfer.object_bytes), block_bytes, plan.blocks, down)
                })
                .collect();
        }
        result
    }
}

impl Host for Net<'_> {
    type Addr = Addr;
    type Rng = SimRng;
    /// The client's address.
    type Client = Addr;
    type Error = Infallible;

    #[inline]
    fn now(&self) -> Instant {
        self.now
    }

    #[inline]
    fn peer(&self, _flow: u32) -> Addr {
        SERVER
    }

    fn new_client(&mut self, flow: u32, incarnation: u32) -> Result<(Ep, Addr), Infallible> {
        let stream = sub_stream(Stream::Client(flow).id(), u64::from(incarnation));
        // The configuration was checked once, when the prototype was built.
        let ep = self.client_prototype.renewed(stream_rng(self.seed, self.replication, stream));
        Ok((ep, Addr { node: flow, incarnation }))
    }

    #[inline]
    fn send(&mut self, from: &mut Addr, d: Datagram<Addr>) -> Sent {
        let meta = match d.request {
            Some(RequestCopy { exchange, copy }) => {
                if let Some(tr) = self.truth.get_mut(d.flow as usize).and_then(|l| l.get_mut(exchange)) {
                    tr.copies = tr.copies.max(copy.saturating_add(1));
                }
                Meta { flow: d.flow, exchange, copy }
            }
            None => UNTRACKED,
        };
        self.send_up(*from, d.transmit.to, d.transmit.msg, meta)
    }

    #[inline]
    fn set_wake(&mut self, flow: u32, at: Option<Instant>) {
        match at {
            Some(t) => {
                let key = self.key(t);
                self.timers.set(flow, key);
            }
            None => self.timers.clear(flow),
        }
    }

    #[inline]
    fn issued(&mut self, flow: u32, _exchange: u32) {
        if let Some(l) = self.truth.get_mut(flow as usize) {
            l.push();
        }
    }

    /// The client finished the exchange: it sends no more copies of it.
    #[inline]
    fn ended(&mut self, flow: u32, exchange: u32) {
        let Some(truth) = self.truth.get_mut(flow as usize) else { return };
        if let Some(t) = truth.get_mut(exchange) {
            t.done = true;
            if t.in_flight == 0 {
                truth.retire();
            }
        }
    }
}

impl Net<'_> {
    /// The next event key at `at`: events are ordered by (time, sequence number).
    fn key(&mut self, at: Instant) -> u128 {
        self.seq += 1;
        (u128::from(at.as_nanos()) << 64) | u128::from(self.seq)
    }

    fn push(&mut self, at: Instant, ev: Ev) {
        let key = self.key(at);
        self.queue.push(Reverse(Entry { key, ev }));
    }

    /// Schedules the arrival of `p` at `at` on direction `d` (0 up, 1 down).
    fn schedule(&mut self, d: u8, at: Instant, p: Packet) {
        if let Some(t) = self.truth_mut(p.meta) {
            t.in_flight += 1;
        }
        if at >= self.in_order[usize::from(d)].last {
            let key = self.key(at);
            let dir = &mut self.in_order[usize::from(d)];
            dir.last = at;
            dir.q.push_back((key, p));
        } else {
            let i = self.alloc(p);
            self.push(at, Ev::Deliver(i));
        }
    }

    fn alloc(&mut self, p: Packet) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.packets[i as usize] = Some(p);
                i
            }
            None => {
                self.packets.push(Some(p));
                (self.packets.len() - 1) as u32
            }
        }
    }

    fn wire(&self, msg: &Message) -> u32 {
        (msg.wire_len() as u32).saturating_add(self.coap.ip_udp_header_bytes)
    }

    /// Records a datagram at a node's interface, when capturing.
    #[inline]
    fn capture(&mut self, seen: CapturePoint, from: Addr, to: Addr, msg: &Arc<Message>) {
        if let Some(c) = self.capture.as_mut() {
            c(Captured { at: self.now, seen, from, to, msg: Arc::clone(msg) });
        }
    }

    /// Offers a client's datagram to the uplink; returns what the link did with it.
    fn send_up(&mut self, from: Addr, to: Addr, msg: Arc<Message>, meta: Meta) -> Sent {
        self.capture(CapturePoint::Sender, from, to, &msg);
        let bytes = self.wire(&msg);
        let offered = self.up.offer(self.now, bytes);
        let link_rate_pps = if self.long_lived { self.up.token_rate_pps() } else { None };
        let accepted = Some(offered.is_ok());
        if let Ok(at) = offered {
            self.schedule(0, at, Packet { from, to, msg, meta });
        }
        Sent { accepted, link_rate_pps }
    }

    fn send_down(&mut self, to: Addr, msg: Arc<Message>, meta: Meta) {
        self.capture(CapturePoint::Sender, SERVER, to, &msg);
        if let Some(n) = self.packets_down.get_mut(to.node as usize) {
            *n += 1;
        }
        let bytes = self.wire(&msg);
        if let Ok(at) = self.down.offer(self.now, bytes) {
            self.schedule(1, at, Packet { from: SERVER, to, msg, meta });
        }
    }

    /// The ground truth of the exchange a packet belongs to, if it belongs to one still open.
    fn truth_mut(&mut self, meta: Meta) -> Option<&mut Truth> {
        self.truth.get_mut(meta.flow as usize)?.get_mut(meta.exchange)
    }

    /// A packet reaches its node: the ground truth learns of it and the server answers it;
    /// a packet for a client is returned, as (its address, the sender, the message).
    fn deliver(&mut self, p: Packet) -> Option<(Addr, Addr, Arc<Message>)> {
        let mut last_of_done = false;
        if let Some(t) = self.truth_mut(p.meta) {
            t.in_flight = t.in_flight.saturating_sub(1);
            last_of_done = t.done && t.in_flight == 0;
            if p.to != SERVER {
                // A response reached the client's node: the copy it answers completed the
                // round trip, whether or not the (possibly replaced) client still wants it.
                t.first_answered = Some(t.first_answered.map_or(p.meta.copy, |c| c.min(p.meta.copy)));
            }
        }
        let Packet { from, to, msg, meta } = p;
        self.capture(CapturePoint::Receiver, from, to, &msg);
        if to == SERVER {
            // The server answers every request at once, a duplicate as its cache would; the
            // clients send it nothing else.
            if let Some(answer) = self.answer(&msg) {
                self.send_down(from, answer, meta);
            }
            if last_of_done {
                self.retire(meta);
            }
            return None;
        }
        if last_of_done {
            self.retire(meta);
        }
        Some((to, from, msg))
    }

    /// The server's answer to `request` ([`AutoResponse::answer`]; `None` for a message that
    /// is not a request), shared: written over the oldest answer still kept when nothing else
    /// holds that one any more (its client has handled it, or the link dropped it), else in a
    /// new allocation. Answers mostly arrive in the order they were sent, so the oldest is the
    /// one most likely free.
    fn answer(&mut self, request: &Message) -> Option<Arc<Message>> {
        let shared = if let Some(free) = self.lent.front_mut().and_then(Arc::get_mut) {
            if !self.server.answer_into(request, free) {
                return None;
            }
            self.lent.pop_front().unwrap_or_else(|| unreachable!("the front was just written"))
        } else {
            let answer = self.server.answer(request)?;
            if self.lent.len() >= LENT_KEPT {
                self.lent.pop_front();
            }
            Arc::new(answer)
        };
        self.lent.push_back(Arc::clone(&shared));
        Some(shared)
    }

    /// Folds the final exchanges of the flow a packet belonged to.
    fn retire(&mut self, meta: Meta) {
        if let Some(l) = self.truth.get_mut(meta.flow as usize) {
            l.retire();
        }
    }
}

/// Runs one algorithm, one replication, of a network scenario.
pub fn run_network(
    network: &NetworkConfig,
    workload: WorkloadConfig,
    coap: &CoapConfig,
    algorithm: &AnyConfig,
    seed: u64,
    replication: u32,
) -> Result<RunResult, EngineError> {
    Ok(Sim::new(network, workload, coap, algorithm, seed, replication)?.run())
}

/// Where a network run sends, as it goes, what it would otherwise keep or not make
/// ([`run_network_with`]); the default keeps the series and captures nothing.
#[derive(Default)]
pub struct Streams<'s> {
    /// A long-lived run's time series, window by window as each is final
    /// ([`coapcc_driver::Recorder::stream_series`]): the result's `series` is then empty and
    /// the run holds one window of it whatever its length. `None`: kept in the result.
    pub series: Option<Box<dyn SeriesSink>>,
    /// Every datagram at every node as it is seen ([`Captured`], in time order), for
    /// `coapcc sim --pcap`: capturing draws nothing and changes nothing. `None`: no capture.
    pub capture: Option<&'s mut dyn FnMut(Captured)>,
}

impl std::fmt::Debug for Streams<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Streams")
            .field("series", &self.series.is_some())
            .field("capture", &self.capture.is_some())
            .finish()
    }
}

/// [`run_network`], what the run makes sent to `streams` as it goes (a long run's time
/// series, a capture of its datagrams) instead of kept; every other result is
/// [`run_network`]'s, to the bit.
pub fn run_network_with<'a>(
    network: &NetworkConfig,
    workload: WorkloadConfig,
    coap: &'a CoapConfig,
    algorithm: &AnyConfig,
    seed: u64,
    replication: u32,
    streams: Streams<'a>,
) -> Result<RunResult, EngineError> {
    let mut sim = Sim::new(network, workload, coap, algorithm, seed, replication)?;
    if let Some(series) = streams.series {
        sim.flows.recorder_mut().stream_series(series);
    }
    sim.net.capture = streams.capture;
    sim.run_events();
    sim.net.capture = None;
    Ok(sim.finish())
}

/// Runs one algorithm, one replication, of a network scenario, recording every datagram at
/// every node ([`Captured`], in time order) for `coapcc sim --pcap`. The results are those of
/// [`run_network`] with the same arguments (capturing draws nothing and changes nothing),
/// except that a long-lived run's time series is not kept (a capture is of the datagrams).
/// Every datagram stays in memory: [`run_network_with`] hands each to the caller instead.
pub fn capture_network(
    network: &NetworkConfig,
    workload: WorkloadConfig,
    coap: &CoapConfig,
    algorithm: &AnyConfig,
    seed: u64,
    replication: u32,
) -> Result<(RunResult, Vec<Captured>), EngineError> {
    let mut captured = Vec::new();
    let streams = Streams { series: Some(Box::new(|_| {})), capture: Some(&mut |c| captured.push(c)) };
    let result = run_network_with(network, workload, coap, algorithm, seed, replication, streams)?;
    Ok((result, captured))
}

#[cfg(test)]
mod tests {
    use super::*;
    use coapcc_core::{Duration, Ratio};
    use coapcc_driver::metrics::SeriesPoint;
    use coapcc_driver::scenario::{CoapConfig, Count, FlowType};

    /// Residual bandwidth of 1–4 packets per second.
    const RESIDUAL: NetworkConfig =
        NetworkConfig::Residual { min_rate_pps: Ratio::new(1, 1), max_rate_pps: Ratio::new(4, 1), depth_packets: 1 };

    /// One long-lived flow with NSTART `nstart`, for `hours` simulated hours.
    fn one_long_lived_flow(nstart: u16, hours: u64) -> WorkloadConfig {
        WorkloadConfig {
            flows: 1,
            flow_type: FlowType::LongLived,
            exchanges_per_flow: 0,
            start_window: Duration::ZERO,
            random_min: 1,
            random_max: 1,
            duration: Some(Duration::from_secs(hours * 3600)),
            nstart,
            count: Count::Successes,
            time_limit: Duration::from_secs(86_400),
        }
    }

    #[test]
    fn a_workload_without_nstart_is_refused_with_a_typed_error_naming_the_key() {
        let alg = AnyConfig::from_name("default").unwrap_or_else(|| unreachable!());
        let e = run_network(&RESIDUAL, one_long_lived_flow(0, 1), &CoapConfig::default(), &alg, 1, 0).unwrap_err();
        assert_eq!(e, EngineError::Config(ConfigError::new("nstart", "must be at least 1")));
        assert_eq!(e.to_string(), "`nstart` must be at least 1");
    }

    #[test]
    fn an_answer_reuses_the_allocation_of_the_oldest_one_only_once_nothing_else_holds_it() {
        let alg = AnyConfig::from_name("default").unwrap_or_else(|| unreachable!());
        let coap = CoapConfig::default();
        let mut sim =
            Sim::new(&RESIDUAL, one_long_lived_flow(1, 1), &coap, &alg, 3, 0).unwrap_or_else(|e| panic!("{e}"));
        let net = &mut sim.net;
        fn request(mid: u16) -> Message {
            Message { mid, ..Message::con_request(coapcc_proto::Code::GET, "res") }
        }
        fn answer(net: &mut Net<'_>, mid: u16) -> Arc<Message> {
            net.answer(&request(mid)).unwrap_or_else(|| unreachable!("a request"))
        }
        let first = answer(net, 1);
        // The first answer is still held (in flight): the second gets an allocation of its own.
        let second = answer(net, 2);
        assert!(!Arc::ptr_eq(&first, &second));
        let first_at = Arc::as_ptr(&first);
        drop(first);
        // The oldest is free now: the third answer is written into it, as a fresh one would be.
        let third = answer(net, 3);
        assert_eq!(Arc::as_ptr(&third), first_at);
        assert_eq!(*third, net.server.answer(&request(3)).unwrap_or_else(|| unreachable!("a request")));
        assert_eq!(second.mid, 2, "an answer still held is never overwritten");
        // The second is still held, so the fourth is new again.
        let fourth = answer(net, 4);
        assert!(!Arc::ptr_eq(&fourth, &second) && !Arc::ptr_eq(&fourth, &third));
        // What is not a request gets no answer and leaves the free one as it was.
        drop((second, third));
        assert!(net.answer(&Message::empty(coapcc_proto::MessageType::Ack, 9)).is_none());
        assert_eq!(net.lent.front().map(|m| m.mid), Some(2));
    }

    #[test]
    fn a_streamed_run_holds_one_window_of_its_series_whatever_its_length_and_changes_nothing_else() {
        let coap = CoapConfig::default();
        let alg = AnyConfig::from_name("idc").unwrap_or_else(|| unreachable!());
        for hours in [1, 10] {
            let counted = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
            let sink = std::sync::Arc::clone(&counted);
            let mut sim =
                Sim::new(&RESIDUAL, one_long_lived_flow(1, hours), &coap, &alg, 5, 0).unwrap_or_else(|e| panic!("{e}"));
            sim.flows.recorder_mut().stream_series(Box::new(move |p: SeriesPoint| {
                sink.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(p.t_s);
            }));
            sim.run_events();
            // Every 5-s window but the current one has left the simulator; one is held.
            let windows = hours as usize * 720;
            let before_end = counted.lock().map_or(0, |v| v.len());
            assert_eq!((sim.flows.recorder().series_windows_held(), before_end), (1, windows - 1), "{hours} h");
            let streamed = sim.finish();
            let t_s = counted.lock().map(|v| v.clone()).unwrap_or_default();
            assert_eq!(t_s.len(), windows);
            assert!(t_s.iter().enumerate().all(|(i, &t)| t == i as f64 * 5.0), "windows in order, none skipped");
            // The same run kept: the same series, point for point, and the same everything else.
            let kept = run_network(&RESIDUAL, one_long_lived_flow(1, hours), &coap, &alg, 5, 0)
                .unwrap_or_else(|e| panic!("{e}"));
            assert!(streamed.series.is_empty() && kept.series.len() == windows);
            assert!(kept.series.iter().zip(&t_s).all(|(p, t)| p.t_s == *t));
            assert_eq!(format!("{:?}", streamed.run), format!("{:?}", kept.run));
            assert_eq!(format!("{:?}", streamed.flows), format!("{:?}", kept.flows));
        }
    }

    #[test]
    fn a_long_lived_flow_keeps_only_its_open_exchanges_and_a_bounded_rtt_record() {
        // Residual bandwidth, 16 simulated hours: over 65 536 exchanges, retransmissions
        // whose responses arrive after the exchange ended, losses.
        let coap = CoapConfig::default();
        let alg = AnyConfig::from_name("default").unwrap_or_else(|| unreachable!());
        let mut sim =
            Sim::new(&RESIDUAL, one_long_lived_flow(1, 16), &coap, &alg, 3, 0).unwrap_or_else(|e| panic!("{e}"));
        sim.run_events();
        let truth = &sim.net.truth[0];
        let progress = sim.flows.workload().flow(0).copied().unwrap_or_default();
        let record = sim.flows.recorder().flow(0).cloned().unwrap_or_default();
        let finished = progress.completed + progress.failed;
        assert!(
            finished > 70_000 && record.retransmissions > 1_000,
            "{finished} exchanges, {} retransmissions",
            record.retransmissions
        );
        assert!(truth.open.len() <= 2, "{} exchanges still held", truth.open.len());
        assert_eq!(truth.base as usize + truth.open.len(), progress.issued as usize);
        assert_eq!(record.rtts.len(), u64::from(progress.completed));
        assert!(!record.rtts.is_exact(), "more RTTs than the exact limit are binned");
    }
}
