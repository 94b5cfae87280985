//! The endpoint runtime: one tokio task drives one sans-IO [`Endpoint`] over one
//! [`UdpSocket`], with the process's shared [`Clock`].
//!
//! Nothing of CoAP is re-implemented here: the task only feeds the endpoint what happens
//! (datagrams, `handle_datagram`; deadlines, `poll_timeout` → `sleep_until` →
//! `handle_timeout`; application requests and responses) and drains it (`poll_transmit`,
//! encoded with [`coapcc_proto::codec`] and sent; `poll_event`, to the application). A
//! controller therefore behaves on a socket exactly as in `coapcc sim`.
//!
//! # API
//!
//! ```text
//! let clock = Clock::start();                          // one per process, shared by every task
//! let socket = runtime::bind("127.0.0.1:0".parse()?)?;   // or any tokio UdpSocket (bind: 4 MiB receive buffer)
//! let endpoint = Endpoint::new(config, coapcc_driver::rng::stream_rng(seed, 0, Stream::Client(i).id()))?;
//! let (handle, mut reports) = spawn(socket, endpoint, clock, TaskOptions::client());
//! let outcome = handle.request(server_addr, template)?.await?;   // an ExchangeOutcome per CON exchange
//! while let Ok(report) = reports.try_recv() { ... }     // TaskReport::Event / TaskReport::Sent, timed
//! let stats = handle.stop().await;                       // EndpointStats when the task ended
//! ```
//!
//! - **Clients** call [`Handle::request`] per confirmable exchange and await its [`ExchangeOutcome`]:
//!   the CoAP RTT, the copies sent (counted from the datagrams) with the timer armed for each
//!   (from `Event::Transmitted`, when the endpoint raises it), and the response
//!   (piggybacked, or separate after an empty ACK) or the failure (give-up, Reset). Requests
//!   may be issued concurrently; the endpoint queues them (NSTART) as in the simulator.
//! - **Servers** pass a [`Handler`] in [`TaskOptions::handler`]; every new request (not a duplicate:
//!   the endpoint answers those from its cache) is handed to it and its [`Reply`] is sent with
//!   [`Endpoint::respond_with`]. A server built with an `auto_response` (a scenario's fixed
//!   resource) needs no handler.
//! - **Observers** (the testbed's recorder) set [`TaskOptions::reports`]: every endpoint event and
//!   every datagram sent arrives on the report channel with the [`Instant`] of the shared clock
//!   at which it happened ([`TaskReport`]). Many client tasks and one server task can share one
//!   clock in one process, so their instants are comparable.
//!
//! Each task owns its socket (a flow = an endpoint + a socket + a controller). Send errors
//! (e.g. ICMP port unreachable surfacing on loopback) are counted in [`RuntimeStats`], never
//! fatal; a datagram that does not decode is counted by the endpoint.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use coapcc_core::Instant;
use coapcc_driver::rng::SimRng;
use coapcc_proto::Options as MessageOptions;
use coapcc_proto::codec;
use coapcc_proto::{
    Code, Endpoint, EndpointStats, Event, Message, MessageType, Origin, RequestHandle, RequestId, Token,
};
use tokio::net::UdpSocket;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use crate::clock::Clock;

/// The endpoint type the runtime drives: socket addresses, the simulator's generator.
pub type UdpEndpoint = Endpoint<SocketAddr, SimRng>;

/// The largest datagram the runtime receives (larger ones are truncated by the OS and then
/// fail to decode).
pub const MAX_DATAGRAM_BYTES: usize = 65_535;

/// A server application's answer to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// Response code.
    pub code: Code,
    /// TaskOptions (Block2, Content-Format, …); the transmission-count echo is added by the
    /// endpoint.
    pub options: MessageOptions,
    /// Payload.
    pub payload: coapcc_proto::Payload,
}

impl Reply {
    /// A reply with a code and no options or payload.
    pub fn code(code: Code) -> Self {
        Reply { code, options: MessageOptions::new(), payload: Default::default() }
    }
}

/// A server application: answers each new request (called on the endpoint's task; keep it
/// quick and non-blocking).
pub trait Handler: Send + Sync + 'static {
    /// The reply to `request` from `from`.
    fn handle(&self, from: SocketAddr, request: &Message) -> Reply;
}

impl<F: Fn(SocketAddr, &Message) -> Reply + Send + Sync + 'static> Handler for F {
    fn handle(&self, from: SocketAddr, request: &Message) -> Reply {
        self(from, request)
    }
}

/// What a task does besides driving its endpoint.
#[derive(Clone, Default)]
pub struct TaskOptions {
    /// Server: the application answering requests (none: requests raised as events are
    /// left unanswered unless the endpoint has an `auto_response`).
    pub handler: Option<Arc<dyn Handler>>,
    /// Send every endpoint event and every datagram sent on the report channel.
    pub reports: bool,
}

impl TaskOptions {
    /// A client: no handler, no reports (outcomes arrive per request).
    pub fn client() -> Self {
        TaskOptions::default()
    }

    /// A server answering with `handler`.
    pub fn server(handler: impl Handler) -> Self {
        TaskOptions { handler: Some(Arc::new(handler)), reports: false }
    }

    /// The same options with every event and datagram reported.
    pub fn with_reports(mut self) -> Self {
        self.reports = true;
        self
    }
}

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions").field("handler", &self.handler.is_some()).field("reports", &self.reports).finish()
    }
}

/// Something that happened in a task, at an instant of the shared [`Clock`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TaskReport {
    /// An endpoint event.
    Event {
        /// When.
        at: Instant,
        /// What.
        event: Event<SocketAddr>,
    },
    /// A datagram was handed to the socket.
    Sent {
        /// When.
        at: Instant,
        /// Destination.
        to: SocketAddr,
        /// Why (request copy, response, empty).
        origin: Origin,
        /// Encoded length, bytes (CoAP message only, no IP/UDP header).
        len_bytes: usize,
        /// Message ID.
        mid: u16,
    },
    /// A datagram arrived (before the endpoint saw it).
    Received {
        /// When.
        at: Instant,
        /// Source.
        from: SocketAddr,
        /// Length, bytes.
        len_bytes: usize,
    },
}

/// Why an exchange failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExchangeFailure {
    /// MAX_RETRANSMIT (or the algorithm's give-up rule) was exhausted.
    GaveUp,
    /// The server answered with a Reset.
    Reset,
    /// The runtime stopped before the exchange ended.
    Stopped,
    /// Acknowledged with an empty ACK, but the separate response did not come within
    /// EXCHANGE_LIFETIME (the endpoint's `exchange_lifetime`) of the first copy.
    NoResponse,
}

/// The end of one confirmable exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExchangeOutcome {
    /// The endpoint's id of the request.
    pub id: RequestId,
    /// When the original copy was sent (`None` if it never left).
    pub first_sent: Option<Instant>,
    /// When the exchange ended (acknowledged, separate response received, or failed).
    pub ended: Instant,
    /// CoAP RTT: original transmission to the first acknowledgement (`None` on failure).
    pub rtt: Option<Duration>,
    /// Copies sent (original and retransmissions), counted from the datagrams themselves.
    pub copies: u8,
    /// The timer armed for each copy sent, in order (from [`Event::Transmitted`]: empty when the
    /// endpoint's `transmitted_events` is off, as in the driver layer's scenario endpoints).
    pub timers: Vec<Duration>,
    /// The copy the acknowledgement echoed, when the echo mode names one.
    pub echoed_copy: Option<u8>,
    /// Whether the response came separately (empty ACK first).
    pub separate: bool,
    /// The response, or why there is none.
    pub result: Result<Arc<Message>, ExchangeFailure>,
}

impl ExchangeOutcome {
    /// Copies sent (original and retransmissions).
    pub fn transmissions(&self) -> usize {
        usize::from(self.copies)
    }
}

/// Counters of the task itself (the endpoint keeps its own in [`EndpointStats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RuntimeStats {
    /// Datagrams received.
    pub datagrams_received: u64,
    /// Datagrams sent.
    pub datagrams_sent: u64,
    /// Sends the socket refused (counted, not fatal).
    pub send_errors: u64,
    /// Receive errors (e.g. ICMP port unreachable reported on the socket).
    pub receive_errors: u64,
}

/// What the task returns when it stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Finished {
    /// The endpoint's counters.
    pub endpoint: EndpointStats,
    /// The task's counters.
    pub runtime: RuntimeStats,
}

enum Command {
    Request { to: SocketAddr, template: Message, done: oneshot::Sender<ExchangeOutcome> },
    Send { to: SocketAddr, msg: Message },
    Watch { token: Token, responses: mpsc::UnboundedSender<Arc<Message>> },
    Unwatch { token: Token },
    Stop,
}

/// The error of [`Handle::request`] on a task that has stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the endpoint task has stopped")]
pub struct Stopped;

/// The application's side of a running endpoint task.
#[derive(Debug)]
pub struct Handle {
    commands: mpsc::UnboundedSender<Command>,
    task: JoinHandle<Finished>,
    local: SocketAddr,
}

impl Handle {
    /// Queues a confirmable request to `to` (`template` gives code, options, payload; the
    /// endpoint sets type, Message ID and token). The receiver yields its [`ExchangeOutcome`]; a
    /// request the task never finished (it was stopped) yields [`ExchangeFailure::Stopped`].
    pub fn request(&self, to: SocketAddr, template: Message) -> Result<oneshot::Receiver<ExchangeOutcome>, Stopped> {
        let (done, rx) = oneshot::channel();
        self.commands.send(Command::Request { to, template, done }).map_err(|_| Stopped)?;
        Ok(rx)
    }

    /// Sends `msg` as it is (type, Message ID and token included), outside the endpoint: a
    /// non-confirmable request, which the endpoint does not make (RFC 7252 §4.3).
    pub fn send(&self, to: SocketAddr, msg: Message) -> Result<(), Stopped> {
        self.commands.send(Command::Send { to, msg }).map_err(|_| Stopped)
    }

    /// From now on, every CON or NON response carrying `token` goes to the returned channel
    /// instead of the endpoint, a CON one acknowledged with an empty ACK (RFC 7252 §4.2): the
    /// response to a non-confirmable request, and the notifications of an observation
    /// (RFC 7641 §3.3), which the endpoint would reject once their exchange has ended.
    /// Piggybacked responses (in an ACK) still complete their exchange.
    pub fn watch(&self, token: Token) -> Result<mpsc::UnboundedReceiver<Arc<Message>>, Stopped> {
        self.watch_all([token])
    }

    /// [`Handle::watch`] of every token of `tokens`, into one channel (an observation
    /// registered with FASOR's token echo: the server knows whichever copy's token it got).
    pub fn watch_all(
        &self,
        tokens: impl IntoIterator<Item = Token>,
    ) -> Result<mpsc::UnboundedReceiver<Arc<Message>>, Stopped> {
        let (responses, rx) = mpsc::unbounded_channel();
        for token in tokens {
            self.commands.send(Command::Watch { token, responses: responses.clone() }).map_err(|_| Stopped)?;
        }
        Ok(rx)
    }

    /// Ends [`Handle::watch`] of `token`: later responses carrying it go to the endpoint again
    /// (which rejects a CON one with a Reset, ending an observation, RFC 7641 §3.6).
    pub fn unwatch(&self, token: Token) -> Result<(), Stopped> {
        self.commands.send(Command::Unwatch { token }).map_err(|_| Stopped)
    }

    /// The socket's local address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// Stops the task (outstanding exchanges end as [`ExchangeFailure::Stopped`]) and returns its
    /// counters.
    pub async fn stop(self) -> Finished {
        let _ = self.commands.send(Command::Stop);
        self.task.await.unwrap_or_default()
    }
}

/// Starts a task driving `endpoint` over `socket`. Returns the handle and the report channel
/// (it carries [`TaskReport`]s only when [`TaskOptions::reports`] is set).
///
/// Must be called within a tokio runtime.
pub fn spawn(
    socket: UdpSocket,
    endpoint: UdpEndpoint,
    clock: Clock,
    options: TaskOptions,
) -> (Handle, mpsc::UnboundedReceiver<TaskReport>) {
    let (commands, command_rx) = mpsc::unbounded_channel();
    let (report_tx, report_rx) = mpsc::unbounded_channel();
    let local = socket.local_addr().unwrap_or_else(|_| SocketAddr::from(([0, 0, 0, 0], 0)));
    let task = Task {
        socket,
        endpoint,
        clock,
        handler: options.handler,
        reports: options.reports.then_some(report_tx),
        pending: HashMap::new(),
        watched: HashMap::new(),
        separate_deadlines: BinaryHeap::new(),
        stats: RuntimeStats::default(),
    };
    let task = tokio::spawn(task.run(command_rx));
    (Handle { commands, task, local }, report_rx)
}

/// An exchange in progress: where its outcome goes and what is known so far.
struct Pending {
    done: oneshot::Sender<ExchangeOutcome>,
    first_sent: Option<Instant>,
    copies: u8,
    timers: Vec<Duration>,
    /// Acknowledged empty; waiting for the separate response.
    acked: Option<(Duration, Option<u8>)>,
}

struct Task {
    socket: UdpSocket,
    endpoint: UdpEndpoint,
    clock: Clock,
    handler: Option<Arc<dyn Handler>>,
    reports: Option<mpsc::UnboundedSender<TaskReport>>,
    pending: HashMap<RequestId, Pending>,
    /// Tokens whose CON/NON responses go to the application ([`Handle::watch`]).
    watched: HashMap<Token, mpsc::UnboundedSender<Arc<Message>>>,
    /// When each exchange acknowledged empty stops waiting for its separate response
    /// (entries of exchanges that ended since are skipped).
    separate_deadlines: BinaryHeap<Reverse<(Instant, RequestId)>>,
    stats: RuntimeStats,
}

impl Task {
    async fn run(mut self, mut commands: mpsc::UnboundedReceiver<Command>) -> Finished {
        let mut buf = vec![0u8; MAX_DATAGRAM_BYTES];
        let mut commands_open = true;
        loop {
            // Timers that are due go first, so a stream of datagrams never starves them.
            let now = self.clock.now();
            if self.endpoint.poll_timeout().is_some_and(|t| t <= now) {
                self.endpoint.handle_timeout(now);
                self.drain(now).await;
            }
            self.give_up_separate(now);
            let separate = self.separate_deadlines.peek().map(|Reverse((t, _))| *t);
            let wake = match (self.endpoint.poll_timeout(), separate) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            let deadline = wake.map(|t| self.clock.deadline(t));
            let sleep = async {
                match deadline {
                    Some(d) => tokio::time::sleep_until(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                // Datagrams first: a response that is due is never overtaken by its own timeout.
                biased;
                r = self.socket.recv_from(&mut buf) => match r {
                    Ok((n, from)) => {
                        let now = self.clock.now();
                        self.stats.datagrams_received += 1;
                        self.report(TaskReport::Received { at: now, from, len_bytes: n });
                        if !self.deliver_watched(now, from, &buf[..n]).await {
                            self.endpoint.handle_datagram(now, from, &buf[..n]);
                        }
                        self.drain(now).await;
                    }
                    Err(_) => self.stats.receive_errors += 1,
                },
                c = commands.recv(), if commands_open => match c {
                    Some(Command::Request { to, template, done }) => {
                        let now = self.clock.now();
                        let id = self.endpoint.request(now, to, template);
                        self.pending.insert(id, Pending { done, first_sent: None, copies: 0, timers: Vec::new(), acked: None });
                        self.drain(now).await;
                    }
                    Some(Command::Send { to, msg }) => self.send(self.clock.now(), to, &msg, Origin::Empty).await,
                    Some(Command::Watch { token, responses }) => {
                        self.watched.insert(token, responses);
                    }
                    Some(Command::Unwatch { token }) => {
                        self.watched.remove(&token);
                    }
                    Some(Command::Stop) => break,
                    // Every handle is gone: nobody can ask for more, but a server keeps serving.
                    None if self.handler.is_some() || self.endpoint.config().auto_response.is_some() => {
                        commands_open = false;
                    }
                    None => break,
                },
                () = sleep => {
                    let now = self.clock.now();
                    self.endpoint.handle_timeout(now);
                    self.drain(now).await;
                }
            }
        }
        let now = self.clock.now();
        for (id, p) in self.pending.drain() {
            let _ = p.done.send(ExchangeOutcome {
                id,
                first_sent: p.first_sent,
                ended: now,
                rtt: None,
                copies: p.copies,
                timers: p.timers,
                echoed_copy: None,
                separate: false,
                result: Err(ExchangeFailure::Stopped),
            });
        }
        Finished { endpoint: self.endpoint.stats(), runtime: self.stats }
    }

    /// Ends every exchange whose separate response is overdue ([`ExchangeFailure::NoResponse`]).
    fn give_up_separate(&mut self, now: Instant) {
        while let Some(&Reverse((at, id))) = self.separate_deadlines.peek() {
            if at > now {
                return;
            }
            self.separate_deadlines.pop();
            let acked = self.pending.get(&id).and_then(|p| p.acked);
            if let Some((rtt, echoed)) = acked {
                self.finish(id, now, Some(rtt), echoed, true, Err(ExchangeFailure::NoResponse));
            }
        }
    }

    fn report(&self, r: TaskReport) {
        if let Some(tx) = &self.reports {
            let _ = tx.send(r);
        }
    }

    /// Drains events (answering server requests, which may add datagrams) then datagrams.
    async fn drain(&mut self, now: Instant) {
        while let Some(e) = self.endpoint.poll_event() {
            self.report(TaskReport::Event { at: now, event: e.clone() });
            self.on_event(now, e);
        }
        while let Some(t) = self.endpoint.poll_transmit() {
            if let Origin::Request { id, copy } = t.origin {
                if let Some(p) = self.pending.get_mut(&id) {
                    p.first_sent.get_or_insert(now);
                    p.copies = p.copies.max(copy.saturating_add(1));
                }
            }
            self.send(now, t.to, &t.msg, t.origin).await;
        }
    }

    /// Encodes, reports and sends one message.
    async fn send(&mut self, now: Instant, to: SocketAddr, msg: &Message, origin: Origin) {
        let bytes = codec::encode(msg);
        self.report(TaskReport::Sent { at: now, to, origin, len_bytes: bytes.len(), mid: msg.mid });
        match self.socket.send_to(&bytes, to).await {
            Ok(_) => self.stats.datagrams_sent += 1,
            Err(_) => self.stats.send_errors += 1,
        }
    }

    /// Hands a CON or NON response with a watched token to its channel (acknowledging a CON
    /// one); whether it did.
    async fn deliver_watched(&mut self, now: Instant, from: SocketAddr, bytes: &[u8]) -> bool {
        if self.watched.is_empty() {
            return false;
        }
        let Ok(msg) = codec::decode(bytes) else { return false };
        if !matches!(msg.mtype, MessageType::Con | MessageType::Non) || !msg.code.is_response() {
            return false;
        }
        let Some(tx) = self.watched.get(&msg.token) else { return false };
        let (mtype, mid) = (msg.mtype, msg.mid);
        if tx.send(Arc::new(msg)).is_err() {
            return false;
        }
        if mtype == MessageType::Con {
            self.send(now, from, &Message::empty(MessageType::Ack, mid), Origin::Empty).await;
        }
        true
    }

    fn finish(
        &mut self,
        id: RequestId,
        now: Instant,
        rtt: Option<Duration>,
        echoed: Option<u8>,
        separate: bool,
        result: Result<Arc<Message>, ExchangeFailure>,
    ) {
        if let Some(p) = self.pending.remove(&id) {
            let _ = p.done.send(ExchangeOutcome {
                id,
                first_sent: p.first_sent,
                ended: now,
                rtt,
                copies: p.copies,
                timers: p.timers,
                echoed_copy: echoed,
                separate,
                result,
            });
        }
    }

    fn on_event(&mut self, now: Instant, e: Event<SocketAddr>) {
        match e {
            Event::Transmitted { id, timer, .. } => {
                if let Some(p) = self.pending.get_mut(&id) {
                    p.timers.push(timer);
                }
            }
            Event::TimerExpired { .. } => {}
            Event::Completed { id, rtt, echoed_copy, response, first_sent, .. } => {
                if let Some(p) = self.pending.get_mut(&id) {
                    p.first_sent = Some(first_sent);
                }
                match response {
                    Some(r) => self.finish(id, now, Some(rtt), echoed_copy, false, Ok(r)),
                    None => {
                        if let Some(p) = self.pending.get_mut(&id) {
                            p.acked = Some((rtt, echoed_copy));
                            let at = first_sent.saturating_add(self.endpoint.config().exchange_lifetime);
                            self.separate_deadlines.push(Reverse((at, id)));
                        }
                    }
                }
            }
            Event::Response { id, response, .. } => {
                let (rtt, echoed) =
                    self.pending.get(&id).and_then(|p| p.acked).map_or((None, None), |(r, e)| (Some(r), e));
                self.finish(id, now, rtt, echoed, true, Ok(response));
            }
            Event::Failed { id, reset, .. } => {
                let why = if reset { ExchangeFailure::Reset } else { ExchangeFailure::GaveUp };
                self.finish(id, now, None, None, false, Err(why));
            }
            Event::Request { handle, request } => self.answer(now, handle, &request),
        }
    }

    fn answer(&mut self, now: Instant, handle: RequestHandle<SocketAddr>, request: &Message) {
        if let Some(h) = &self.handler {
            let reply = h.handle(handle.from, request);
            self.endpoint.respond_with(now, handle, reply.code, reply.options, reply.payload);
        }
    }
}

/// The receive buffer asked for on sockets made by [`bind`]: 4 MiB (Linux caps it at
/// `net.core.rmem_max`). The default (about 200 kB) holds only a few hundred small datagrams
/// with their kernel overhead, so a server answering hundreds of concurrent clients would drop
/// requests at bursts.
pub const RECEIVE_BUFFER_BYTES: usize = 4 << 20;

/// A UDP socket bound to `addr` with a [`RECEIVE_BUFFER_BYTES`] receive buffer (best effort:
/// a refused size keeps the default). Must be called within a tokio runtime.
pub fn bind(addr: SocketAddr) -> std::io::Result<UdpSocket> {
    let domain = if addr.is_ipv4() { socket2::Domain::IPV4 } else { socket2::Domain::IPV6 };
    let socket = socket2::Socket::new(domain, socket2::Type::DGRAM, Some(socket2::Protocol::UDP))?;
    let _ = socket.set_recv_buffer_size(RECEIVE_BUFFER_BYTES);
    socket.set_nonblocking(true)?;
    socket.bind(&addr.into())?;
    UdpSocket::from_std(socket.into())
}
