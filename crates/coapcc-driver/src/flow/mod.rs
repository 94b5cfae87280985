//! [`FlowLoop`]: the one flow loop every driver runs — workload → endpoint → recorder — sans
//! IO, behind a small [`Host`] trait for what differs between drivers.
//!
//! A flow is a client slot: a chain of client endpoints (incarnations; a random flow starts a
//! fresh short-lived client after each short run) that exchange with one peer. The loop owns
//! the [`Workload`] (what each flow's application does next), the recorder (what is seen of
//! each flow, [`Record`]) and each flow's current client endpoint with its wake-up instant.
//! The host owns everything else: its clock, its sockets or event queue, its links and
//! whatever ground truth it keeps. The simulator's engine (`coapcc_sim::run_network`) and the
//! real-time testbed (`coapcc_udp::testbed`) are hosts; neither keeps a loop of its own.
//!
//! # Entry points and call order
//!
//! The host calls the loop when something happens to a flow, and only then:
//!
//! | the host calls | when | the loop then |
//! |---|---|---|
//! | [`FlowLoop::start`] | at the flow's start instant (the host picks it, e.g. from [`Workload::each_start`]) | makes client incarnation 0 ([`Host::new_client`]), starts the flow in the workload, [pumps](#pump), [drains](#drain) |
//! | [`FlowLoop::handle_message`] / [`FlowLoop::handle_datagram`] | a datagram reached a flow's client (the host names the incarnation it was sent to) | drops it if that incarnation was replaced, else hands it to the endpoint and [drains](#drain) |
//! | [`FlowLoop::handle_timeout`] | the flow's wake-up instant ([`Host::set_wake`]) has come | hands the endpoint its timeout, [drains](#drain) |
//!
//! <a id="pump"></a>**Pump.** The loop asks [`Workload::next`] until it answers wait or done:
//! each request (the template, plus its Block2 option from [`Workload::block`] when the flows
//! do a block-wise transfer) is handed to the endpoint ([`Endpoint::request`] to
//! [`Host::peer`]) and told to the host ([`Host::issued`]); a replacement makes a fresh client
//! ([`Host::new_client`]; the old one is dropped, its wake-up disarmed with
//! [`Host::set_wake`]`(flow, None)`); the first "done" is told once ([`Host::finished`]).
//!
//! <a id="drain"></a>**Drain.** Until neither yields anything, in rounds:
//! 1. every transmit, in order: a request copy is recorded first ([`Record::transmitted`], its
//!    flow-wide exchange index from [`Workload::exchange_of`] and the copy number from
//!    [`coapcc_proto::Transmit::origin`]), then handed to [`Host::send`]; what the host
//!    learned is recorded ([`Record::sent`]);
//! 2. every event, in order: an expired timer is recorded; a completed or failed exchange is
//!    told to the host ([`Host::ended`]), to the recorder, to the workload
//!    ([`Workload::block_ended`], then its completion or failure), and the flow is
//!    [pumped](#pump) at once — so the next request is queued before the next event is looked
//!    at, and its copy leaves in the next round.
//!
//! Then the flow's wake-up is the endpoint's [`Endpoint::poll_timeout`], never before now; the
//! host hears of it ([`Host::set_wake`]) only when it changed.
//!
//! # Time
//!
//! The loop reads no clock: every instant comes from [`Host::now`], read at each step (a
//! simulator answers its event time, a real-time driver its monotonic clock). `now` must never
//! go backwards, across calls and within one; the endpoints rely on it.
//!
//! # Cost
//!
//! Everything is static dispatch (the host and the recorder are type parameters) and the loop
//! allocates nothing per event: the request template is shared (`Arc` payloads), transmits are
//! moved to the host.
//!
//! # The multihop CoAP application on this loop
//!
//! The multihop model's CoAP clients (`coapcc_sim::multihop`) are flows of this loop too; the
//! multihop engine is their host, like the network engine (its event queue, its 6LoWPAN stack
//! as [`Host::send`]):
//! * a client's exchange budget (`Some(n)`, or until the run ends) and its concurrency (NSTART,
//!   or one for a sequential client) are its [`Workload`] entry ([`FlowSpec`], added with
//!   [`FlowLoop::add_flow`]); its workload counts attempts (`count = "attempts"`), so a failed
//!   exchange counts;
//! * a client opens its exchanges one start event at a time: each calls [`FlowLoop::open`]
//!   (one request, one drain), the order that application had before it moved onto this loop;
//! * clients added during the run (Betzler 1-to-1: a new cloud client per server in turn) are
//!   [`FlowLoop::add_flow`] then [`FlowLoop::open`]; [`Host::finished`] tells the host a flow
//!   is done, so it can schedule the next one (an event of its own: the hook cannot call back);
//! * its records are the driver's [`Recorder`] with a measurement window, the first expired
//!   timers and the completion series of the clients without a budget, for which the recorder
//!   asks the controller's RTO after each acknowledgement ([`Record::rto_after`]).
//!
//! Servers are not flows: a host answers them itself, as every host here does.
//!
//! Where this loop's order differs from the one the multihop application kept before it moved
//! here, and why no output changes, is written down with that application (its `coap_app`
//! module): the next request's copy leaves after the drain's remaining events (no event of a
//! drain can tell), the wake-up is compared clamped to now (a drain never ends with an
//! endpoint timer before now), and the series and timer lists keep the recorder's caps
//! ([`crate::recorder::TIMERS_KEPT`], [`crate::recorder::COMPLETIONS_KEPT`]).

mod record;
#[cfg(test)]
mod tests;

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

use coapcc_core::Instant;
use coapcc_core::random::Rng;
use coapcc_proto::{Endpoint, Event, Message, Origin, Transmit, option};

use crate::recorder::Recorder;
use crate::recorder::{Completion, Failure};
use crate::workload::{FlowSpec, Next, Workload};

pub use record::{Record, Sent};

/// What differs between the drivers of the flow loop: time, how datagrams leave, how a client
/// comes to be, and what the host wants to know about each exchange.
///
/// Every method is called from inside a [`FlowLoop`] call; none may call back into the loop.
pub trait Host {
    /// The endpoints' address type.
    type Addr: Copy + Ord + Hash + Debug;
    /// The generator each client endpoint draws from.
    type Rng: Rng;
    /// What the host keeps per client besides its endpoint (its address, socket, reader task);
    /// dropped when the client is replaced or the loop is dropped.
    type Client;
    /// Why a client could not be made ([`std::convert::Infallible`] when it cannot fail).
    type Error;

    /// The current instant; never earlier than any instant returned before.
    fn now(&self) -> Instant;

    /// Where flow `flow`'s requests go.
    fn peer(&self, flow: u32) -> Self::Addr;

    /// A fresh client for flow `flow`'s incarnation `incarnation` (0 for the first): its
    /// endpoint (new congestion-control state) and the host's side of it.
    fn new_client(&mut self, flow: u32, incarnation: u32) -> Result<(ClientEndpoint<Self>, Self::Client), Self::Error>;

    /// Sends a datagram of a client; returns what the host learned at once (nothing, on a real
    /// network: [`Sent::default`]).
    fn send(&mut self, client: &mut Self::Client, datagram: Datagram<Self::Addr>) -> Sent;

    /// Flow `flow` wants [`FlowLoop::handle_timeout`] at `at` (`None`: disarm). Called only when
    /// the instant changed; an instant that fired is forgotten by the loop.
    fn set_wake(&mut self, flow: u32, at: Option<Instant>);

    /// Flow `flow` handed its client the request of flow-wide exchange `exchange`.
    fn issued(&mut self, flow: u32, exchange: u32) {
        let _ = (flow, exchange);
    }

    /// Flow `flow`'s client ended exchange `exchange` (acknowledged or abandoned): it sends no
    /// more copies of it.
    fn ended(&mut self, flow: u32, exchange: u32) {
        let _ = (flow, exchange);
    }

    /// Flow `flow` has done all its exchanges (told once).
    fn finished(&mut self, flow: u32) {
        let _ = flow;
    }
}

/// The endpoint type of a host's clients.
pub type ClientEndpoint<H> = Endpoint<<H as Host>::Addr, <H as Host>::Rng>;

/// A datagram a flow's client sends, handed to [`Host::send`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Datagram<A> {
    /// The flow.
    pub flow: u32,
    /// The endpoint's transmit (destination, message, origin).
    pub transmit: Transmit<A>,
    /// The exchange and copy, when it is a copy of a request.
    pub request: Option<RequestCopy>,
}

/// Which copy of which exchange a request datagram is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestCopy {
    /// Flow-wide exchange index (0, 1, …).
    pub exchange: u32,
    /// Copy number (0 is the original).
    pub copy: u8,
}

/// A flow's current client.
struct Client<H: Host> {
    endpoint: ClientEndpoint<H>,
    incarnation: u32,
    host: H::Client,
}

/// A flow: its current client (none before it starts) and its wake-up.
struct Slot<H: Host> {
    client: Option<Client<H>>,
    wake_at: Option<Instant>,
    finished: bool,
}

impl<H: Host> Slot<H> {
    fn new() -> Self {
        Slot { client: None, wake_at: None, finished: false }
    }
}

/// The flows of one run: workload, recorder and each flow's client (see the
/// [module documentation](self) for the call order).
pub struct FlowLoop<H: Host, K = Recorder> {
    workload: Workload,
    recorder: K,
    request: Message,
    slots: Vec<Slot<H>>,
    finished: u32,
}

impl<H: Host, K: Record> FlowLoop<H, K> {
    /// The loop of `workload`'s flows, recording into `recorder`; every request is a copy of
    /// `request` (its payload is shared, not copied).
    pub fn new(workload: Workload, recorder: K, request: Message) -> Self {
        let slots = (0..workload.flows().len()).map(|_| Slot::new()).collect();
        FlowLoop { workload, recorder, request, slots, finished: 0 }
    }

    /// Adds a flow (budget, concurrency) to the workload, the recorder and the loop; returns
    /// its index. Start it with [`FlowLoop::start`].
    pub fn add_flow(&mut self, spec: FlowSpec) -> u32 {
        let f = self.workload.add_flow(spec);
        self.recorder.flow_added(f, &spec);
        self.slots.push(Slot::new());
        f
    }

    /// Starts flow `flow` now: client incarnation 0, the workload's first requests.
    pub fn start(&mut self, host: &mut H, flow: u32) -> Result<(), H::Error> {
        let Some(slot) = self.slots.get_mut(flow as usize) else { return Ok(()) };
        let (endpoint, client) = host.new_client(flow, 0)?;
        slot.client = Some(Client { endpoint, incarnation: 0, host: client });
        self.workload.start(flow, host.now());
        self.pump(host, flow)?;
        self.drain(host, flow)
    }

    /// Flow `flow`'s application hands its client one more request now, if its workload has
    /// one for it (then a [drain](#drain)); the flow starts first (client incarnation 0) if it
    /// has not. For a host whose clients open their exchanges one event at a time (the multihop
    /// model: one start event per request of the NSTART a client opens with, OQ-M5), where
    /// [`FlowLoop::start`] opens them all before one drain.
    pub fn open(&mut self, host: &mut H, flow: u32) -> Result<(), H::Error> {
        let Some(slot) = self.slots.get_mut(flow as usize) else { return Ok(()) };
        if slot.client.is_none() {
            let (endpoint, client) = host.new_client(flow, 0)?;
            slot.client = Some(Client { endpoint, incarnation: 0, host: client });
            self.workload.start(flow, host.now());
        }
        while let Next::Replace { .. } = self.step(host, flow)? {}
        self.drain(host, flow)
    }

    /// Flow `flow`'s wake-up instant has come: the endpoint handles its timers.
    pub fn handle_timeout(&mut self, host: &mut H, flow: u32) -> Result<(), H::Error> {
        let Some(slot) = self.slots.get_mut(flow as usize) else { return Ok(()) };
        slot.wake_at = None;
        if let Some(c) = slot.client.as_mut() {
            c.endpoint.handle_timeout(host.now());
        }
        self.drain(host, flow)
    }

    /// A decoded message from `from` reached client incarnation `incarnation` of flow `flow`;
    /// dropped if that client was replaced.
    pub fn handle_message(
        &mut self,
        host: &mut H,
        flow: u32,
        incarnation: u32,
        from: H::Addr,
        msg: Arc<Message>,
    ) -> Result<(), H::Error> {
        let Some(c) = self.current(flow, incarnation) else { return Ok(()) };
        c.endpoint.handle_message(host.now(), from, msg);
        self.drain(host, flow)
    }

    /// A datagram from `from` reached client incarnation `incarnation` of flow `flow`;
    /// dropped if that client was replaced (a malformed one is counted by the endpoint).
    pub fn handle_datagram(
        &mut self,
        host: &mut H,
        flow: u32,
        incarnation: u32,
        from: H::Addr,
        bytes: &[u8],
    ) -> Result<(), H::Error> {
        let Some(c) = self.current(flow, incarnation) else { return Ok(()) };
        c.endpoint.handle_datagram(host.now(), from, bytes);
        self.drain(host, flow)
    }

    /// Flow `flow`'s client if it is incarnation `incarnation`.
    fn current(&mut self, flow: u32, incarnation: u32) -> Option<&mut Client<H>> {
        self.slots.get_mut(flow as usize)?.client.as_mut().filter(|c| c.incarnation == incarnation)
    }

    /// Asks the workload what flow `flow` does next until it waits (see the module docs).
    fn pump(&mut self, host: &mut H, flow: u32) -> Result<(), H::Error> {
        loop {
            match self.step(host, flow)? {
                Next::Request { .. } | Next::Replace { .. } => {}
                Next::Wait | Next::Done => return Ok(()),
            }
        }
    }

    /// Asks the workload once what flow `flow` does next and does it; returns the answer.
    fn step(&mut self, host: &mut H, flow: u32) -> Result<Next, H::Error> {
        let next = self.workload.next(flow);
        match next {
            Next::Request { exchange } => {
                let (now, peer) = (host.now(), host.peer(flow));
                if let Some(c) = self.slots[flow as usize].client.as_mut() {
                    let mut request = self.request.clone();
                    if let Some(block) = self.workload.block(flow, exchange) {
                        // A block-wise transfer: this exchange asks for its block.
                        request.add_option(option::BLOCK2, block.encode());
                    }
                    c.endpoint.request(now, peer, request);
                    host.issued(flow, exchange);
                }
            }
            Next::Replace { incarnation } => {
                // A fresh short-lived client (new state, new address) starts at once.
                let (endpoint, client) = host.new_client(flow, incarnation)?;
                let slot = &mut self.slots[flow as usize];
                slot.client = Some(Client { endpoint, incarnation, host: client });
                if slot.wake_at.take().is_some() {
                    host.set_wake(flow, None);
                }
            }
            Next::Wait => {}
            Next::Done => {
                let slot = &mut self.slots[flow as usize];
                if !slot.finished {
                    slot.finished = true;
                    self.finished += 1;
                    host.finished(flow);
                }
            }
        }
        Ok(next)
    }

    /// Drains flow `flow`'s client (transmits, then events, until neither yields), then
    /// re-arms its wake-up.
    fn drain(&mut self, host: &mut H, flow: u32) -> Result<(), H::Error> {
        let f = flow as usize;
        loop {
            let mut progressed = false;
            while let Some(t) = self.slots[f].client.as_mut().and_then(|c| c.endpoint.poll_transmit()) {
                progressed = true;
                self.transmit(host, flow, t);
            }
            while let Some(e) = self.slots[f].client.as_mut().and_then(|c| c.endpoint.poll_event()) {
                progressed = true;
                self.event(host, flow, e)?;
            }
            if !progressed {
                break;
            }
        }
        let now = host.now();
        let slot = &mut self.slots[f];
        let next = slot.client.as_ref().and_then(|c| c.endpoint.poll_timeout()).map(|t| t.max(now));
        if next != slot.wake_at {
            slot.wake_at = next;
            host.set_wake(flow, next);
        }
        Ok(())
    }

    #[inline]
    fn transmit(&mut self, host: &mut H, flow: u32, transmit: Transmit<H::Addr>) {
        let now = host.now();
        let request = match transmit.origin {
            Origin::Request { id, copy } => {
                let exchange = self.workload.exchange_of(flow, id);
                self.recorder.transmitted(flow, copy, now);
                Some(RequestCopy { exchange, copy })
            }
            _ => None,
        };
        let Some(c) = self.slots[flow as usize].client.as_mut() else { return };
        let sent = host.send(&mut c.host, Datagram { flow, transmit, request });
        self.recorder.sent(now, sent, request.is_some());
    }

    #[inline]
    fn event(&mut self, host: &mut H, flow: u32, e: Event<H::Addr>) -> Result<(), H::Error> {
        match e {
            Event::TimerExpired { timer, .. } => self.recorder.timer_expired(flow, timer),
            Event::Completed { id, to, first_sent, rtt, retransmissions, .. } => {
                let now = host.now();
                let exchange = self.workload.exchange_of(flow, id);
                host.ended(flow, exchange);
                let rto_after = if self.recorder.rto_after(flow) {
                    self.slots[flow as usize].client.as_ref().and_then(|c| c.endpoint.rto(&to, now))
                } else {
                    None
                };
                let completion = Completion { exchange, first_sent, rtt, retransmissions, rto_after };
                self.recorder.completed(flow, now, &completion);
                self.workload.block_ended(flow, exchange, true);
                self.workload.completed(flow, now);
                self.pump(host, flow)?;
            }
            Event::Failed { id, retransmissions, reset, .. } => {
                let now = host.now();
                let exchange = self.workload.exchange_of(flow, id);
                host.ended(flow, exchange);
                self.recorder.failed(flow, now, &Failure { exchange, retransmissions, reset });
                self.workload.block_ended(flow, exchange, false);
                self.workload.failed(flow, now);
                self.pump(host, flow)?;
            }
            _ => {}
        }
        Ok(())
    }

    /// Flow `flow`'s wake-up instant, if it wants one.
    pub fn wake_at(&self, flow: u32) -> Option<Instant> {
        self.slots.get(flow as usize).and_then(|s| s.wake_at)
    }

    /// The earliest wake-up of any flow.
    pub fn next_wake(&self) -> Option<Instant> {
        self.slots.iter().filter_map(|s| s.wake_at).min()
    }

    /// Whether every flow has done all its exchanges.
    pub fn all_finished(&self) -> bool {
        self.finished as usize == self.slots.len()
    }

    /// Flow `flow`'s current client endpoint (none before the flow starts).
    pub fn endpoint(&self, flow: u32) -> Option<&ClientEndpoint<H>> {
        self.slots.get(flow as usize)?.client.as_ref().map(|c| &c.endpoint)
    }

    /// The host's side of flow `flow`'s current client.
    pub fn client(&self, flow: u32) -> Option<&H::Client> {
        self.slots.get(flow as usize)?.client.as_ref().map(|c| &c.host)
    }

    /// The workload (each flow's progress).
    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    /// The recorder.
    pub fn recorder(&self) -> &K {
        &self.recorder
    }

    /// The recorder, for what a host records itself (a server's view of a flow, e.g.
    /// [`Recorder::received`]).
    pub fn recorder_mut(&mut self) -> &mut K {
        &mut self.recorder
    }

    /// The workload and the recorder, at the end of a run (the clients are dropped).
    pub fn into_parts(self) -> (Workload, K) {
        (self.workload, self.recorder)
    }
}
