//! The event loop for the network models (testbeds §1–2): clients and one server, each a
//! `coapcc-proto` endpoint, joined by one link pipeline per direction.
//!
//! Events are ordered by `(time, sequence number)`; time never goes backwards. A packet's
//! whole journey through a pipeline is computed when it is offered (every stage sees arrivals
//! in time order), so each packet costs one delivery event. Each client has one re-armable
//! wake-up timer ([`TimerHeap`]): re-arming moves it, so no stale wake-ups are ever queued.
//!
//! The workload (what each flow's application does), the per-flow records and the endpoint
//! set-up come from `coapcc-driver` ([`Workload`], [`Recorder`], [`Endpoints`]), shared with the
//! socket driver. What only a simulator can know stays here: every packet carries the flow,
//! the exchange and the copy it belongs to (never on the wire), so a retransmission can be
//! called unnecessary when an earlier copy of the same request completed the round trip.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use coapcc_core::{AnyConfig, Instant};
use coapcc_driver::endpoints::Endpoints;
use coapcc_driver::recorder::{Recorder, RunEnd};
use coapcc_driver::workload::{Next, Workload};
use coapcc_proto::{Endpoint, Event, Message, Origin};

use crate::link::Pipeline;
use crate::metrics::RunResult;
use crate::rng::{SimRng, Stream, stream_rng, sub_stream};
use crate::scenario::{CoapConfig, NetworkConfig, WorkloadConfig};
use crate::timers::TimerHeap;

pub use coapcc_driver::endpoints::echo_for;

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

/// A datagram seen on a node's interface in a captured run: when a node sent it (before the
/// link) and when it arrived at its destination node (after the link), like `tcpdump` on
/// every node's interface. A datagram the link dropped appears once, at its sender.
#[derive(Clone, Debug)]
pub struct Captured {
    /// Simulated time.
    pub at: Instant,
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

/// The simulator's side of a flow: its current client endpoint and address, its wake-up,
/// and the ground truth of its exchanges. Progress and records live in the [`Workload`] and
/// the [`Recorder`].
#[derive(Debug)]
struct Flow {
    ep: Option<Ep>,
    addr: Addr,
    wake_at: Option<Instant>,
    truth: Ledger,
}

/// The simulation of one algorithm, one replication.
pub struct Sim<'a> {
    now: Instant,
    seq: u64,
    queue: BinaryHeap<Reverse<Entry>>,
    /// Client wake-ups, one re-armable timer per flow.
    timers: TimerHeap,
    packets: Vec<Option<Packet>>,
    free: Vec<u32>,
    in_order: [InOrder; 2],
    server: Ep,
    flows: Vec<Flow>,
    up: Pipeline,
    down: Pipeline,
    workload: Workload,
    recorder: Recorder,
    coap: &'a CoapConfig,
    /// A client endpoint never used, renewed for every client incarnation.
    client_prototype: Ep,
    template: Message,
    seed: u64,
    replication: u32,
    end: Option<Instant>,
    long_lived: bool,
    events: u64,
    /// Every datagram at every node, when capturing ([`capture_network`]); never read by the
    /// simulation itself.
    capture: Option<Vec<Captured>>,
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
    ) -> Result<Self, String> {
        let (upc, downc) = network.pipelines();
        let up = Pipeline::new(&upc, seed, replication, Stream::LinkUp(0).id()).map_err(|e| e.to_string())?;
        let down = Pipeline::new(&downc, seed, replication, Stream::LinkDown(0).id()).map_err(|e| e.to_string())?;
        // Built and checked once per run, shared by the server and every client.
        let Endpoints { client: endpoint_config, server: server_config, request: template } =
            Endpoints::new(coap, &workload, algorithm).map_err(|e| e.to_string())?;
        let server = Endpoint::new(server_config, stream_rng(seed, replication, Stream::Server(0).id()))
            .map_err(|e| e.to_string())?;
        let client_prototype = Endpoint::new(endpoint_config, stream_rng(seed, replication, Stream::Client(0).id()))
            .map_err(|e| e.to_string())?;
        let flows = (0..workload.flows)
            .map(|i| Flow { ep: None, addr: Addr { node: i, incarnation: 0 }, wake_at: None, truth: Ledger::default() })
            .collect();
        let workload = Workload::new(workload, stream_rng(seed, replication, Stream::Workload(0).id()));
        let long_lived = workload.long_lived();
        let mut sim = Sim {
            now: Instant::ZERO,
            seq: 0,
            queue: BinaryHeap::new(),
            timers: TimerHeap::new(workload.config().flows as usize),
            packets: Vec::new(),
            free: Vec::new(),
            in_order: [InOrder::default(), InOrder::default()],
            server,
            flows,
            up,
            down,
            end: workload.end(),
            recorder: Recorder::new(workload.config().flows, long_lived),
            workload,
            coap,
            client_prototype,
            template,
            seed,
            replication,
            long_lived,
            events: 0,
            capture: None,
        };
        let mut starts = Vec::with_capacity(sim.flows.len());
        sim.workload.each_start(|f, at| starts.push((f, at)));
        for (f, at) in starts {
            sim.push(at, Ev::Start(f));
        }
        Ok(sim)
    }

    /// The next event key at `at`: events are ordered by (time, sequence number).
    fn key(&mut self, at: Instant) -> u128 {
        self.seq += 1;
        (u128::from(at.as_nanos()) << 64) | u128::from(self.seq)
    }

    fn push(&mut self, at: Instant, ev: Ev) {
        let key = self.key(at);
        self.queue.push(Reverse(Entry { key, ev }));
    }

    fn new_client(&self, flow: u32, incarnation: u32) -> Ep {
        let stream = sub_stream(Stream::Client(flow).id(), u64::from(incarnation));
        // The configuration was checked once, when the prototype was built.
        self.client_prototype.renewed(stream_rng(self.seed, self.replication, stream))
    }

    /// Runs to the end and returns the results.
    pub fn run(mut self) -> RunResult {
        self.run_events();
        self.finish()
    }

    /// Processes events until none is left or the end is reached.
    fn run_events(&mut self) {
        loop {
            // The earliest of the event heap's top, the earliest client timer and the heads of
            // the two in-order link queues (keys are unique: they end in the sequence number).
            const HEAP: usize = 2;
            const TIMER: usize = 3;
            let mut best = self.queue.peek().map(|Reverse(e)| (e.key, HEAP));
            if let Some((k, _)) = self.timers.peek()
                && best.is_none_or(|(b, _)| k < b)
            {
                best = Some((k, TIMER));
            }
            for d in 0..2 {
                if let Some(&(k, _)) = self.in_order[d].q.front()
                    && best.is_none_or(|(b, _)| k < b)
                {
                    best = Some((k, d));
                }
            }
            let Some((key, source)) = best else { break };
            let at = Instant::from_nanos((key >> 64) as u64);
            if self.end.is_some_and(|end| at > end) {
                break;
            }
            self.now = at;
            self.events += 1;
            match source {
                HEAP => {
                    let Some(Reverse(entry)) = self.queue.pop() else { break };
                    match entry.ev {
                        Ev::Start(f) => self.start_flow(f),
                        Ev::Deliver(p) => {
                            if let Some(pkt) = self.packets.get_mut(p as usize).and_then(Option::take) {
                                self.free.push(p);
                                self.deliver(pkt);
                            }
                        }
                    }
                }
                TIMER => {
                    if let Some((_, f)) = self.timers.pop() {
                        self.wake(f);
                    }
                }
                d => {
                    if let Some((_, pkt)) = self.in_order[d].q.pop_front() {
                        self.deliver(pkt);
                    }
                }
            }
        }
    }

    fn start_flow(&mut self, f: u32) {
        let ep = self.new_client(f, 0);
        self.flows[f as usize].ep = Some(ep);
        self.workload.start(f, self.now);
        self.pump(f);
        self.after_client(f);
    }

    /// Does what the workload asks while it asks for something: issue requests (while the
    /// workload and NSTART allow), replace a finished short-lived client.
    fn pump(&mut self, f: u32) {
        loop {
            match self.workload.next(f) {
                Next::Request { .. } => {
                    let fl = &mut self.flows[f as usize];
                    let Some(ep) = fl.ep.as_mut() else { return };
                    ep.request(self.now, SERVER, self.template.clone());
                    fl.truth.push();
                }
                Next::Replace { incarnation } => {
                    // Random flows: the next short-lived client starts at once, with fresh state.
                    let ep = self.new_client(f, incarnation);
                    let fl = &mut self.flows[f as usize];
                    fl.addr.incarnation = incarnation;
                    fl.ep = Some(ep);
                    fl.wake_at = None;
                    self.timers.clear(f);
                }
                Next::Wait | Next::Done => return,
            }
        }
    }

    /// Drains a client's transmits and events, acts on them, reschedules its wake-up.
    fn after_client(&mut self, f: u32) {
        loop {
            let mut progressed = false;
            while let Some(t) = self.flows[f as usize].ep.as_mut().and_then(|e| e.poll_transmit()) {
                progressed = true;
                let meta = match t.origin {
                    Origin::Request { id, copy } => {
                        let exchange = self.workload.exchange_of(f, id);
                        if let Some(tr) = self.flows[f as usize].truth.get_mut(exchange) {
                            tr.copies = tr.copies.max(copy.saturating_add(1));
                        }
                        self.recorder.transmitted(f, copy, self.now);
                        Meta { flow: f, exchange, copy }
                    }
                    _ => UNTRACKED,
                };
                let from = self.flows[f as usize].addr;
                self.send_up(from, t.to, t.msg, meta);
            }
            while let Some(e) = self.flows[f as usize].ep.as_mut().and_then(|e| e.poll_event()) {
                progressed = true;
                self.client_event(f, e);
            }
            if !progressed {
                break;
            }
        }
        let fl = &mut self.flows[f as usize];
        let next = fl.ep.as_ref().and_then(|e| e.poll_timeout()).map(|t| t.max(self.now));
        if next != fl.wake_at {
            fl.wake_at = next;
            match next {
                Some(t) => {
                    let key = self.key(t);
                    self.timers.set(f, key);
                }
                None => self.timers.clear(f),
            }
        }
    }

    fn client_event(&mut self, f: u32, e: Event<Addr>) {
        let now = self.now;
        match e {
            Event::TimerExpired { timer, .. } => self.recorder.timer_expired(f, timer),
            Event::Completed { id, rtt, .. } => {
                self.finish_exchange(f, id);
                self.recorder.completed(f, rtt, now);
                self.workload.completed(f, now);
                self.pump(f);
            }
            Event::Failed { id, .. } => {
                self.finish_exchange(f, id);
                self.workload.failed(f, now);
                self.pump(f);
            }
            _ => {}
        }
    }

    /// The current client of flow `f` finished request `id`: it sends no more copies of it.
    fn finish_exchange(&mut self, f: u32, id: coapcc_proto::RequestId) {
        let exchange = self.workload.exchange_of(f, id);
        let truth = &mut self.flows[f as usize].truth;
        if let Some(t) = truth.get_mut(exchange) {
            t.done = true;
            if t.in_flight == 0 {
                truth.retire();
            }
        }
    }

    fn wake(&mut self, f: u32) {
        let fl = &mut self.flows[f as usize];
        fl.wake_at = None;
        if let Some(ep) = fl.ep.as_mut() {
            ep.handle_timeout(self.now);
        }
        self.after_client(f);
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
    fn capture(&mut self, from: Addr, to: Addr, msg: &Arc<Message>) {
        if let Some(c) = self.capture.as_mut() {
            c.push(Captured { at: self.now, from, to, msg: Arc::clone(msg) });
        }
    }

    fn send_up(&mut self, from: Addr, to: Addr, msg: Arc<Message>, meta: Meta) {
        self.capture(from, to, &msg);
        let bytes = self.wire(&msg);
        let is_request = meta.exchange != u32::MAX;
        let offered = self.up.offer(self.now, bytes);
        if self.long_lived
            && let Some(rate) = self.up.token_rate_pps()
        {
            self.recorder.link_rate(self.now, rate);
        }
        if is_request {
            self.recorder.offered(offered.is_ok());
        }
        if let Ok(at) = offered {
            self.schedule(0, at, Packet { from, to, msg, meta });
        }
    }

    fn send_down(&mut self, to: Addr, msg: Arc<Message>, meta: Meta) {
        self.capture(SERVER, to, &msg);
        let bytes = self.wire(&msg);
        if let Ok(at) = self.down.offer(self.now, bytes) {
            self.schedule(1, at, Packet { from: SERVER, to, msg, meta });
        }
    }

    /// The ground truth of the exchange a packet belongs to, if it belongs to one still open.
    fn truth_mut(&mut self, meta: Meta) -> Option<&mut Truth> {
        self.flows.get_mut(meta.flow as usize)?.truth.get_mut(meta.exchange)
    }

    fn deliver(&mut self, p: Packet) {
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
        self.capture(from, to, &msg);
        if to == SERVER {
            // The server answers every new request at once (`auto_response`) and every
            // duplicate from its cache.
            self.server.handle_message(self.now, from, msg);
            while let Some(t) = self.server.poll_transmit() {
                self.send_down(t.to, t.msg, meta);
            }
            if last_of_done {
                self.retire(meta);
            }
            return;
        }
        if last_of_done {
            self.retire(meta);
        }
        let f = to.node;
        let Some(fl) = self.flows.get_mut(f as usize) else { return };
        if fl.addr != to {
            return; // the short-lived client it was for is gone
        }
        if let Some(ep) = fl.ep.as_mut() {
            ep.handle_message(self.now, from, msg);
        }
        self.after_client(f);
    }

    /// Folds the final exchanges of the flow a packet belonged to.
    fn retire(&mut self, meta: Meta) {
        if let Some(fl) = self.flows.get_mut(meta.flow as usize) {
            fl.truth.retire();
        }
    }

    fn finish(self) -> RunResult {
        let flows = &self.flows;
        let unnecessary = |f: u32| flows.get(f as usize).map_or(0, |fl| fl.truth.total_unnecessary());
        let end = RunEnd { now: self.now, end: self.end, events: self.events };
        self.recorder.finish(&self.workload, unnecessary, Some((&self.up, &self.down)), end)
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
) -> Result<RunResult, String> {
    Ok(Sim::new(network, workload, coap, algorithm, seed, replication)?.run())
}

/// Runs one algorithm, one replication, of a network scenario, recording every datagram at
/// every node ([`Captured`], in time order) for `coapcc sim --pcap`. The results are those of
/// [`run_network`] with the same arguments: capturing draws nothing and changes nothing.
pub fn capture_network(
    network: &NetworkConfig,
    workload: WorkloadConfig,
    coap: &CoapConfig,
    algorithm: &AnyConfig,
    seed: u64,
    replication: u32,
) -> Result<(RunResult, Vec<Captured>), String> {
    let mut sim = Sim::new(network, workload, coap, algorithm, seed, replication)?;
    sim.capture = Some(Vec::new());
    sim.run_events();
    let captured = sim.capture.take().unwrap_or_default();
    Ok((sim.finish(), captured))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{CoapConfig, Count, FlowType};
    use coapcc_core::{Duration, Ratio};

    #[test]
    fn a_long_lived_flow_keeps_only_its_open_exchanges_and_a_bounded_rtt_record() {
        // Residual bandwidth, 16 simulated hours: over 65 536 exchanges, retransmissions
        // whose responses arrive after the exchange ended, losses.
        let net = NetworkConfig::Residual {
            min_rate_pps: Ratio::new(1, 1),
            max_rate_pps: Ratio::new(4, 1),
            depth_packets: 1,
        };
        let workload = WorkloadConfig {
            flows: 1,
            flow_type: FlowType::LongLived,
            exchanges_per_flow: 0,
            start_window: Duration::ZERO,
            random_min: 1,
            random_max: 1,
            duration: Some(Duration::from_secs(16 * 3600)),
            nstart: 1,
            count: Count::Successes,
            time_limit: Duration::from_secs(86_400),
        };
        let coap = CoapConfig::default();
        let alg = AnyConfig::from_name("default").unwrap_or_else(|| unreachable!());
        let mut sim = Sim::new(&net, workload, &coap, &alg, 3, 0).unwrap_or_else(|e| panic!("{e}"));
        sim.run_events();
        let fl = &sim.flows[0];
        let progress = sim.workload.flow(0).copied().unwrap_or_default();
        let record = sim.recorder.flow(0).cloned().unwrap_or_default();
        let finished = progress.completed + progress.failed;
        assert!(
            finished > 70_000 && record.retransmissions > 1_000,
            "{finished} exchanges, {} retransmissions",
            record.retransmissions
        );
        assert!(fl.truth.open.len() <= 2, "{} exchanges still held", fl.truth.open.len());
        assert_eq!(fl.truth.base as usize + fl.truth.open.len(), progress.issued as usize);
        assert_eq!(record.rtts.len(), u64::from(progress.completed));
        assert!(!record.rtts.is_exact(), "more RTTs than the exact limit are binned");
    }
}
