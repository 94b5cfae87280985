//! The event loop for the network models (testbeds §1–2): clients and one server, each a
//! `coapcc-proto` endpoint, joined by one link pipeline per direction.
//!
//! Events are ordered by `(time, sequence number)`; time never goes backwards. A packet's
//! whole journey through a pipeline is computed when it is offered (every stage sees arrivals
//! in time order), so each packet costs one delivery event. Each client has one re-armable
//! wake-up timer ([`TimerHeap`]): re-arming moves it, so no stale wake-ups are ever queued.
//!
//! Metrics come from ground truth the simulator knows: every packet carries the flow, the
//! exchange and the copy it belongs to (never on the wire), so a retransmission can be called
//! unnecessary when an earlier copy of the same request completed the round trip.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::Arc;

use coapcc_core::{AnyConfig, Duration, Instant};
use coapcc_proto::echo::echo_mode_for;
use coapcc_proto::message::{Payload, option};
use coapcc_proto::{
    AutoResponse, Code, EchoMode, Endpoint, EndpointConfig, Event, Message, MessageType, Origin, RequestId, Token,
};

use crate::link::{DropReason, Pipeline, Stage, StageDetail};
use crate::metrics::{Distribution, FlowResult, RunMetrics, RunResult, SeriesPoint, jain};
use crate::rng::{SimRng, Stream, stream_rng, sub_stream, uniform_duration};
use crate::scenario::{CoapConfig, Count, EchoChoice, FlowType, NetworkConfig, WorkloadConfig};
use crate::timers::TimerHeap;

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

#[derive(Debug)]
struct Flow {
    ep: Option<Ep>,
    addr: Addr,
    started: Option<Instant>,
    ended: Option<Instant>,
    wake_at: Option<Instant>,
    issued: u32,
    finished: u32,
    completed: u32,
    failed: u32,
    /// Requests handed to the current client and not finished.
    outstanding: u32,
    /// Random flows: exchanges the current short-lived client still has to issue.
    client_left: u32,
    /// Flow-wide index of the current client's first exchange: its request `RequestId(n)` is
    /// exchange `client_base + n − 1` (a client numbers its requests 1, 2, … in issue order).
    client_base: u32,
    transmissions: u32,
    retransmissions: u32,
    rtts: Distribution,
    expired_rto: Distribution,
    truth: Ledger,
}

impl Flow {
    /// The flow-wide exchange index of the current client's request `id`.
    fn exchange_of(&self, id: RequestId) -> u32 {
        self.client_base.saturating_add(u32::try_from(id.0.saturating_sub(1)).unwrap_or(u32::MAX))
    }

    /// The current client finished request `id`: it sends no more copies of it.
    fn finish_exchange(&mut self, id: RequestId) {
        if let Some(t) = self.truth.get_mut(self.exchange_of(id)) {
            t.done = true;
            if t.in_flight == 0 {
                self.truth.retire();
            }
        }
    }
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
    workload: WorkloadConfig,
    coap: &'a CoapConfig,
    /// A client endpoint never used, renewed for every client incarnation.
    client_prototype: Ep,
    template: Message,
    seed: u64,
    replication: u32,
    wl_rng: SimRng,
    end: Option<Instant>,
    long_lived: bool,
    events: u64,
    request_copies_delivered: u64,
    request_copies_lost: u64,
    /// Long-lived runs: per window (sends, successes, ResBW).
    windows: Vec<(u32, u32, f64)>,
    series_window: Duration,
}

/// The request every client sends: a CON GET with one Uri-Path option.
fn request_template(coap: &CoapConfig) -> Message {
    let mut m = Message {
        mtype: MessageType::Con,
        code: Code::GET,
        mid: 0,
        token: Token::EMPTY,
        options: Default::default(),
        payload: Default::default(),
    };
    for seg in coap.request_path.split('/').filter(|s| !s.is_empty()) {
        m.add_option(option::URI_PATH, seg.as_bytes());
    }
    m
}

/// A payload of `len` zero bytes. Up to 2 KiB (any payload that fits a usual MTU) it borrows a
/// static buffer, so the server's copies of it share nothing that needs counting.
fn zero_payload(len: usize) -> Payload {
    static ZEROS: [u8; 2048] = [0; 2048];
    match ZEROS.get(..len) {
        Some(z) => Payload::from_static(z),
        None => Payload::from(vec![0u8; len]),
    }
}

/// The echo mode for an algorithm under the scenario's choice.
pub fn echo_for(choice: EchoChoice, algorithm: &AnyConfig) -> EchoMode {
    match choice {
        EchoChoice::Auto => echo_mode_for(algorithm),
        EchoChoice::None => EchoMode::None,
        EchoChoice::Token => EchoMode::Token,
        EchoChoice::Option => EchoMode::Option,
    }
}

/// The largest datagram (with IP/UDP headers) this configuration sends; `Err` when it does not
/// fit the MTU.
pub fn check_sizes(coap: &CoapConfig) -> Result<(), String> {
    let req = request_template(coap).wire_len() + usize::from(coap.token_bytes) + 1 + 4;
    let resp = 4 + usize::from(coap.token_bytes) + 1 + 4 + 1 + coap.response_payload_bytes as usize;
    let worst = req.max(resp) + coap.ip_udp_header_bytes as usize;
    if worst > coap.mtu_bytes as usize {
        return Err(format!("a {worst}-byte datagram does not fit the {}-byte MTU", coap.mtu_bytes));
    }
    Ok(())
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
        let endpoint_config = EndpointConfig {
            echo: echo_for(coap.echo, algorithm),
            nstart: workload.nstart,
            token_len: coap.token_bytes,
            // Copies are counted from `Transmit::origin`.
            transmitted_events: false,
            // Built and checked once per run, shared by the server and every client.
            ..EndpointConfig::new(Arc::new(algorithm.build().map_err(|e| e.to_string())?))
        };
        let server_config = EndpointConfig {
            auto_response: Some(AutoResponse {
                code: Code::CONTENT,
                payload: zero_payload(coap.response_payload_bytes as usize),
            }),
            ..endpoint_config.clone()
        };
        let server = Endpoint::new(server_config, stream_rng(seed, replication, Stream::Server(0).id()))
            .map_err(|e| e.to_string())?;
        let client_prototype = Endpoint::new(endpoint_config, stream_rng(seed, replication, Stream::Client(0).id()))
            .map_err(|e| e.to_string())?;
        let flows = (0..workload.flows)
            .map(|i| Flow {
                ep: None,
                addr: Addr { node: i, incarnation: 0 },
                started: None,
                ended: None,
                wake_at: None,
                issued: 0,
                finished: 0,
                completed: 0,
                failed: 0,
                outstanding: 0,
                client_left: 0,
                client_base: 0,
                transmissions: 0,
                retransmissions: 0,
                rtts: Distribution::new(),
                expired_rto: Distribution::new(),
                truth: Ledger::default(),
            })
            .collect();
        let end = match workload.flow_type {
            FlowType::LongLived => workload.duration.map(|d| Instant::ZERO + d),
            _ => Some(Instant::ZERO + workload.time_limit),
        };
        let mut sim = Sim {
            now: Instant::ZERO,
            seq: 0,
            queue: BinaryHeap::new(),
            timers: TimerHeap::new(workload.flows as usize),
            packets: Vec::new(),
            free: Vec::new(),
            in_order: [InOrder::default(), InOrder::default()],
            server,
            flows,
            up,
            down,
            workload,
            coap,
            client_prototype,
            template: request_template(coap),
            seed,
            replication,
            wl_rng: stream_rng(seed, replication, Stream::Workload(0).id()),
            end,
            long_lived: workload.flow_type == FlowType::LongLived,
            events: 0,
            request_copies_delivered: 0,
            request_copies_lost: 0,
            windows: Vec::new(),
            series_window: Duration::from_secs(5),
        };
        for i in 0..sim.workload.flows {
            // testbeds §1: flows start at uniform random offsets within the start window.
            let offset = if sim.workload.start_window.is_zero() {
                Duration::ZERO
            } else {
                uniform_duration(&mut sim.wl_rng, Duration::ZERO, sim.workload.start_window - Duration::from_nanos(1))
            };
            sim.push(Instant::ZERO + offset, Ev::Start(i));
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
        let fl = &mut self.flows[f as usize];
        fl.started = Some(self.now);
        let ep = self.new_client(f, 0);
        let client_left = self.first_client_len();
        let fl = &mut self.flows[f as usize];
        fl.ep = Some(ep);
        fl.client_left = client_left;
        self.pump(f);
        self.after_client(f);
    }

    fn first_client_len(&mut self) -> u32 {
        match self.workload.flow_type {
            FlowType::Random => self.random_client_len(),
            _ => u32::MAX,
        }
    }

    fn random_client_len(&mut self) -> u32 {
        // testbeds §1: each short-lived client does U{random_min..random_max} exchanges.
        let (lo, hi) = (self.workload.random_min, self.workload.random_max);
        lo + crate::rng::below(&mut self.wl_rng, u64::from(hi - lo + 1)) as u32
    }

    fn total(&self) -> u32 {
        match self.workload.flow_type {
            FlowType::LongLived => u32::MAX,
            _ => self.workload.exchanges_per_flow,
        }
    }

    /// Issues requests while the workload and NSTART allow.
    fn pump(&mut self, f: u32) {
        let total = self.total();
        let nstart = u32::from(self.workload.nstart);
        let count_successes = self.workload.count == Count::Successes;
        loop {
            let fl = &mut self.flows[f as usize];
            // testbeds §1: a flow goes on until `exchanges_per_flow` exchanges succeeded (the
            // FASOR paper's "until 50 pairs have been successfully exchanged"); with
            // `count = "attempts"` a failed exchange counts too.
            let done = if count_successes { fl.completed } else { fl.completed + fl.failed };
            if done + fl.outstanding >= total {
                return;
            }
            if fl.client_left == 0 {
                if fl.outstanding > 0 {
                    return;
                }
                // Random flows: the next short-lived client starts at once, with fresh state.
                let incarnation = fl.addr.incarnation + 1;
                let len = self.random_client_len();
                let ep = self.new_client(f, incarnation);
                let fl = &mut self.flows[f as usize];
                fl.addr.incarnation = incarnation;
                fl.ep = Some(ep);
                fl.client_base = fl.issued;
                fl.client_left = len;
                fl.wake_at = None;
                self.timers.clear(f);
                continue;
            }
            if fl.outstanding >= nstart {
                return;
            }
            let Some(ep) = fl.ep.as_mut() else { return };
            ep.request(self.now, SERVER, self.template.clone());
            fl.truth.push();
            fl.issued += 1;
            fl.outstanding += 1;
            fl.client_left -= 1;
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
                        let fl = &mut self.flows[f as usize];
                        let exchange = fl.exchange_of(id);
                        if let Some(tr) = fl.truth.get_mut(exchange) {
                            tr.copies = tr.copies.max(copy.saturating_add(1));
                        }
                        fl.transmissions += 1;
                        if copy > 0 {
                            fl.retransmissions += 1;
                        }
                        if self.long_lived {
                            self.window_mut().0 += 1;
                        }
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
            Event::TimerExpired { timer, .. } => self.flows[f as usize].expired_rto.push(timer.as_secs_f64()),
            Event::Completed { id, rtt, .. } => {
                let fl = &mut self.flows[f as usize];
                fl.rtts.push(rtt.as_secs_f64());
                fl.finish_exchange(id);
                fl.completed += 1;
                if self.long_lived {
                    self.window_mut().1 += 1;
                }
                self.exchange_done(f, now);
            }
            Event::Failed { id, .. } => {
                let fl = &mut self.flows[f as usize];
                fl.finish_exchange(id);
                fl.failed += 1;
                if self.workload.count == Count::Successes {
                    // The (short-lived) client still owes this exchange.
                    fl.client_left = fl.client_left.saturating_add(1);
                }
                self.exchange_done(f, now);
            }
            _ => {}
        }
    }

    fn window_mut(&mut self) -> &mut (u32, u32, f64) {
        let w = (self.now.as_nanos() / self.series_window.as_nanos().max(1) as u64) as usize;
        if self.windows.len() <= w {
            self.windows.resize(w + 1, (0, 0, f64::NAN));
        }
        &mut self.windows[w]
    }

    fn exchange_done(&mut self, f: u32, now: Instant) {
        let total = self.total();
        let fl = &mut self.flows[f as usize];
        fl.finished += 1;
        fl.outstanding = fl.outstanding.saturating_sub(1);
        let done = match self.workload.count {
            Count::Successes => fl.completed,
            Count::Attempts => fl.completed + fl.failed,
        };
        if done >= total && fl.ended.is_none() {
            fl.ended = Some(now);
        }
        self.pump(f);
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

    fn send_up(&mut self, from: Addr, to: Addr, msg: Arc<Message>, meta: Meta) {
        let bytes = self.wire(&msg);
        let is_request = meta.exchange != u32::MAX;
        let offered = self.up.offer(self.now, bytes);
        if self.long_lived {
            let rate = self.up.stages().find_map(|s| match s {
                Stage::TokenBucket(tb) => Some(tb.rate_pps()),
                _ => None,
            });
            if let Some(rate) = rate {
                self.window_mut().2 = rate;
            }
        }
        match offered {
            Ok(at) => {
                if is_request {
                    self.request_copies_delivered += 1;
                }
                self.schedule(0, at, Packet { from, to, msg, meta });
            }
            Err(_) => {
                if is_request {
                    self.request_copies_lost += 1;
                }
            }
        }
    }

    fn send_down(&mut self, to: Addr, msg: Arc<Message>, meta: Meta) {
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
        let first_start = self.flows.iter().filter_map(|f| f.started).min().unwrap_or(Instant::ZERO);
        let duration = match (self.long_lived, self.end) {
            (true, Some(end)) => end - Instant::ZERO,
            _ => self.flows.iter().filter_map(|f| f.ended).max().unwrap_or(self.now) - first_start,
        };
        let mut flows = Vec::with_capacity(self.flows.len());
        let (mut completed, mut failed) = (0u64, 0u64);
        let mut fcts = Vec::new();
        for (i, mut f) in self.flows.into_iter().enumerate() {
            f.rtts.shrink_to_fit();
            f.expired_rto.shrink_to_fit();
            let fct_s = match (f.started, f.ended) {
                (Some(s), Some(e)) => (e - s).as_secs_f64(),
                _ => f64::NAN,
            };
            if fct_s.is_finite() {
                fcts.push(fct_s);
            }
            completed += u64::from(f.completed);
            failed += u64::from(f.failed);
            flows.push(FlowResult {
                flow: i as u32,
                fct_s,
                exchanges_completed: f.completed,
                exchanges_failed: f.failed,
                transmissions: f.transmissions,
                retransmissions: f.retransmissions,
                unnecessary_retransmissions: f.truth.total_unnecessary(),
                median_rtt_s: f.rtts.quantile(0.5),
                rtts: f.rtts,
                expired_rto: f.expired_rto,
            });
        }
        let secs = duration.as_secs_f64();
        let end_instant = if self.long_lived { self.end.unwrap_or(self.now) } else { self.now };
        let util = |p: &Pipeline| {
            p.stats()
                .stages
                .iter()
                .find_map(|s| match s.detail {
                    StageDetail::Serializer(st) => Some(st.utilisation(end_instant)),
                    _ => None,
                })
                .unwrap_or(f64::NAN)
        };
        // Mean wait in the drop-tail buffer over the packets the serializer admitted (those that
        // found the link idle waited zero), and the largest backlog, per direction.
        let queue = |p: &Pipeline| {
            let stats = p.stats();
            stats
                .stages
                .iter()
                .find_map(|s| match s.detail {
                    StageDetail::Serializer(st) => Some((
                        if s.passed.packets > 0 {
                            st.queueing_delay.as_secs_f64() / s.passed.packets as f64
                        } else {
                            f64::NAN
                        },
                        st.max_occupancy_bytes,
                    )),
                    _ => None,
                })
                .unwrap_or((f64::NAN, 0))
        };
        let ((queue_delay_up_s, max_queue_up_bytes), (queue_delay_down_s, max_queue_down_bytes)) =
            (queue(&self.up), queue(&self.down));
        let (ut, dt) = (self.up.totals(), self.down.totals());
        let drops = |r: DropReason| ut.dropped.get(r).packets + dt.dropped.get(r).packets;
        let run = RunMetrics {
            duration_s: secs,
            exchanges_completed: completed,
            exchanges_failed: failed,
            goodput_per_s: if secs > 0.0 { completed as f64 / secs } else { f64::NAN },
            loss_ratio: if completed + failed > 0 { failed as f64 / (completed + failed) as f64 } else { f64::NAN },
            overhead: if self.request_copies_delivered > 0 {
                self.request_copies_lost as f64 / self.request_copies_delivered as f64
            } else {
                f64::NAN
            },
            utilisation_up: util(&self.up),
            utilisation_down: util(&self.down),
            queue_delay_up_s,
            queue_delay_down_s,
            max_queue_up_bytes,
            max_queue_down_bytes,
            packets_up: ut.offered.packets,
            packets_down: dt.offered.packets,
            drops_buffer: drops(DropReason::Buffer),
            drops_error: drops(DropReason::Error),
            drops_no_token: drops(DropReason::NoToken),
            jain_fct: jain(&fcts),
            events: self.events,
            sim_time_s: self.now.since_epoch().as_secs_f64(),
        };
        let w = self.series_window.as_secs_f64();
        let series = self
            .windows
            .iter()
            .enumerate()
            .map(|(i, &(sends, ok, rate))| SeriesPoint {
                t_s: i as f64 * w,
                resbw_per_s: rate,
                send_rate_per_s: f64::from(sends) / w,
                success_rate_per_s: f64::from(ok) / w,
            })
            .collect();
        RunResult { flows, run, series }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::CoapConfig;
    use coapcc_core::Ratio;

    #[test]
    fn a_long_lived_flow_keeps_only_its_open_exchanges_and_a_bounded_rtt_record() {
        // Residual bandwidth, 16 simulated hours: over 65 536 exchanges, retransmissions
        // whose responses arrive after the exchange ended, losses.
        let net = NetworkConfig::Residual { min_rate_pps: Ratio::new(1, 1), max_rate_pps: Ratio::new(4, 1) };
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
        assert!(
            fl.finished > 70_000 && fl.retransmissions > 1_000,
            "{} exchanges, {} retransmissions",
            fl.finished,
            fl.retransmissions
        );
        assert!(fl.truth.open.len() <= 2, "{} exchanges still held", fl.truth.open.len());
        assert_eq!(fl.truth.base as usize + fl.truth.open.len(), fl.issued as usize);
        assert_eq!(fl.rtts.len(), u64::from(fl.completed));
        assert!(!fl.rtts.is_exact(), "more RTTs than the exact limit are binned");
    }
}
