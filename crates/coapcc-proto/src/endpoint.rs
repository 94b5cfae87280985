//! The sans-IO CoAP endpoint: client exchanges with congestion control, and a server with
//! duplicate detection. Drivers (the simulator, `coapcc-udp`) own sockets and clocks.
//!
//! # Driving an endpoint
//!
//! ```text
//! loop {
//!     // feed it
//!     ep.request(now, to, template)            // application: a new CON request (queued)
//!     ep.handle_message(now, from, msg)        // a datagram arrived (decoded; or handle_datagram for bytes)
//!     ep.handle_timeout(now)                   // when `now >= ep.poll_timeout()`
//!     ep.respond(now, handle, code, payload)   // server application answers an Event::Request
//!     // drain it
//!     while let Some(t) = ep.poll_transmit() { send t.msg to t.to }
//!     while let Some(e) = ep.poll_event() { ... }
//!     next wake-up: ep.poll_timeout()
//! }
//! ```
//!
//! `now` must never go backwards between calls. Every call is total: malformed or unexpected
//! input is counted in [`EndpointStats`] and dropped, never a panic.
//!
//! The congestion-control algorithm ([`EndpointConfig::algorithm`]: any
//! [`Controller`], by default a [`coapcc_core::AnyController`]; built and checked once,
//! shared behind an `Arc` by every endpoint of a run) keeps one small
//! [`Controller::State`] per destination; at most NSTART exchanges
//! per destination are outstanding, the rest wait in a FIFO queue. Rate-based controllers may
//! hold a copy until their `earliest_send` instant. Holds, retransmissions and give-ups are
//! decided by [`coapcc_core::Outstanding`], the machine the replay harness uses.

use std::collections::VecDeque;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;
use std::time::Duration;

use coapcc_core::Fired;
use coapcc_core::random::Rng;
use coapcc_core::{Ack, AnyController, Controller, Echo, Instant};

use crate::block::{self, Block};
use crate::codec;
use crate::duplicates::{Asked, Bounds, DuplicateCache, Fingerprint, Seen};
use crate::message::{Code, Message, MessageType, Options, Payload, Token, decode_uint, encode_uint, option};

/// How acknowledgements say which copy of a request they answer; the transmission-count
/// option is [`option::TRANSMISSION_COUNT`]. Defined in `coapcc-core`, where each algorithm
/// states the one it needs ([`Controller::echo_mode`]).
pub use coapcc_core::EchoMode;

/// Endpoint configuration, generic over the congestion-control algorithm `C` (by default any
/// of the registered ones, [`AnyController`]).
#[derive(Debug, PartialEq, Eq)]
pub struct EndpointConfig<C = AnyController> {
    /// The congestion-control algorithm (built and checked once, shared); each destination
    /// gets its own state from it.
    pub algorithm: Arc<C>,
    /// NSTART: outstanding exchanges per destination (≥ 1).
    pub nstart: u16,
    /// How copies are told apart in acknowledgements.
    pub echo: EchoMode,
    /// Length of the tokens this client generates, in bytes (0–7; `Token` echo adds one).
    pub token_len: u8,
    /// How long the server remembers a request for duplicate detection (EXCHANGE_LIFETIME).
    pub exchange_lifetime: Duration,
    /// The most requests the server remembers for duplicate detection at once. When a new
    /// request finds the cache full, the oldest entry is forgotten early (counted in
    /// [`EndpointStats::duplicate_evictions`]), so a flood of distinct (spoofed) requests
    /// cannot grow memory past this bound (RFC 7252 §4.5 leaves the cache's size to the
    /// implementation). Default [`DEFAULT_DUPLICATE_CACHE_ENTRIES`].
    pub duplicate_cache_entries: usize,
    /// The most bytes the duplicate cache holds: every remembered request counts its cached
    /// response's encoded length (less an automatic answer's payload, which all responses
    /// share) plus a fixed bookkeeping size; the oldest requests are forgotten first to stay
    /// within it (counted in [`EndpointStats::duplicate_evictions`]), so large responses
    /// cannot grow memory past it either. Default [`DEFAULT_DUPLICATE_CACHE_BYTES`].
    pub duplicate_cache_bytes: usize,
    /// Server: answer every new request at once with this response (a fixed resource), instead
    /// of raising [`Event::Request`] for the application.
    pub auto_response: Option<AutoResponse>,
    /// Raise [`Event::Transmitted`] for every copy sent (on by default). A driver that learns
    /// the same from [`Transmit::origin`] turns it off and saves an event per copy.
    pub transmitted_events: bool,
}

/// The default entry bound of the server's duplicate cache
/// ([`EndpointConfig::duplicate_cache_entries`]): far above what any simulated server
/// remembers within EXCHANGE_LIFETIME, so the bound never changes a simulation. Servers on
/// real sockets set smaller bounds (`docs/real-networks.md`, "Bounds").
pub const DEFAULT_DUPLICATE_CACHE_ENTRIES: usize = 1 << 20;

/// The default byte bound of the server's duplicate cache
/// ([`EndpointConfig::duplicate_cache_bytes`]): large enough that the entry bound
/// ([`DEFAULT_DUPLICATE_CACHE_ENTRIES`]) of automatic answers is reached first, so it never
/// changes a simulation either.
pub const DEFAULT_DUPLICATE_CACHE_BYTES: usize = 1 << 30;

/// How many separate CON responses a client remembers per destination to acknowledge their
/// duplicates again.
const RECENT_SEPARATE: usize = 16;

/// A fixed response the server sends to every request (see [`EndpointConfig::auto_response`]);
/// a request with a Block2 option gets the block of the payload it asks for (RFC 7959 §2.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutoResponse {
    /// Response code.
    pub code: Code,
    /// Payload (shared, never copied).
    pub payload: Payload,
}

impl AutoResponse {
    /// The answer an endpoint with this automatic response sends `request` (`None` for a
    /// message that is not a request): piggybacked on an ACK for a CON, a NON for a NON, with
    /// the request's Message ID, token and transmission-count option, and the block a Block2
    /// option asks for. It is the same whether or not `request` is a duplicate: RFC 7252 §4.5's
    /// cache answers a copy with the cached response carrying the copy's own token and
    /// transmission count, which is this answer. So a driver whose server does nothing but
    /// answer (the network simulator) sends the same messages without a duplicate cache.
    pub fn answer(&self, request: &Message) -> Option<Message> {
        let mut out = Message::empty(MessageType::Ack, request.mid);
        self.answer_into(request, &mut out).then_some(out)
    }

    /// [`AutoResponse::answer`] written over `out` (a message whose allocation a driver
    /// reuses): its option storage is reused and its payload kept when it is already the one
    /// the answer carries. Returns `false`, leaving `out` as it was, for a message that is not
    /// a request.
    pub fn answer_into(&self, request: &Message, out: &mut Message) -> bool {
        let is_request = matches!(request.mtype, MessageType::Con | MessageType::Non) && request.code.is_request();
        if is_request {
            let echo = request.option(option::TRANSMISSION_COUNT);
            fill_auto_answer(request.mtype, request.token, echo, request, self, out);
        }
        is_request
    }
}

impl<C> Clone for EndpointConfig<C> {
    /// Shares the algorithm (`C` need not be `Clone`).
    fn clone(&self) -> Self {
        EndpointConfig {
            algorithm: Arc::clone(&self.algorithm),
            nstart: self.nstart,
            echo: self.echo,
            token_len: self.token_len,
            exchange_lifetime: self.exchange_lifetime,
            duplicate_cache_entries: self.duplicate_cache_entries,
            duplicate_cache_bytes: self.duplicate_cache_bytes,
            auto_response: self.auto_response.clone(),
            transmitted_events: self.transmitted_events,
        }
    }
}

impl<C: Controller> EndpointConfig<C> {
    /// The defaults around `algorithm` with the echo mode it states
    /// ([`Controller::echo_mode`]), so that it gets the RTT samples it is specified with.
    pub fn echoing(algorithm: Arc<C>) -> Self {
        let echo = algorithm.echo_mode();
        EndpointConfig { echo, ..EndpointConfig::new(algorithm) }
    }
}

impl<C> EndpointConfig<C> {
    /// RFC 7252 defaults around `algorithm`: NSTART 1, no echo, 2-byte tokens, 247 s.
    pub fn new(algorithm: Arc<C>) -> Self {
        EndpointConfig {
            algorithm,
            nstart: 1,
            echo: EchoMode::None,
            token_len: 2,
            exchange_lifetime: coapcc_core::params::TransmissionParams::default().exchange_lifetime(),
            duplicate_cache_entries: DEFAULT_DUPLICATE_CACHE_ENTRIES,
            duplicate_cache_bytes: DEFAULT_DUPLICATE_CACHE_BYTES,
            auto_response: None,
            transmitted_events: true,
        }
    }
}

/// Identifies a client request of one endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestId(pub u64);

/// Identifies a received request the server application must answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RequestHandle<A> {
    /// The client.
    pub from: A,
    /// The request's Message ID.
    pub mid: u16,
    /// Which request with this source and Message ID (a new message may reuse the Message
    /// ID; the handle of the one it replaced answers nothing).
    seq: u64,
}

/// Why a datagram is on its way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Copy `copy` of client request `id` (0 is the original).
    Request {
        /// The request.
        id: RequestId,
        /// The copy.
        copy: u8,
    },
    /// A server response (fresh, or repeated for a duplicate).
    Response {
        /// Whether it answers a duplicate from the cache.
        duplicate: bool,
    },
    /// An empty ACK or RST.
    Empty,
}

/// A datagram to send.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit<A> {
    /// Destination.
    pub to: A,
    /// The message (shared: the endpoint keeps requests for retransmission and responses for
    /// duplicates without copying them).
    pub msg: Arc<Message>,
    /// Why.
    pub origin: Origin,
}

/// Something the application (or the simulator's metrics) should know.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event<A> {
    /// A copy of a request left, with the timer armed for it.
    Transmitted {
        /// The request.
        id: RequestId,
        /// Destination.
        to: A,
        /// Copy number (0 = original).
        copy: u8,
        /// Timer armed for this copy.
        timer: Duration,
    },
    /// The retransmission timer of a copy expired.
    TimerExpired {
        /// The request.
        id: RequestId,
        /// Destination.
        to: A,
        /// The copy whose timer expired.
        copy: u8,
        /// The value of the timer that expired.
        timer: Duration,
    },
    /// The CON exchange was acknowledged (piggybacked response or empty ACK).
    Completed {
        /// The request.
        id: RequestId,
        /// Destination.
        to: A,
        /// When the original copy was sent.
        first_sent: Instant,
        /// CoAP RTT: original transmission to first acknowledgement.
        rtt: Duration,
        /// Retransmissions made.
        retransmissions: u8,
        /// The copy the acknowledgement named, if it echoed one.
        echoed_copy: Option<u8>,
        /// The piggybacked response (`None` after an empty ACK: see [`Event::Response`]).
        /// Boxed so that every event stays small.
        response: Option<Arc<Message>>,
    },
    /// A separate response arrived for a request whose CON was acknowledged empty.
    Response {
        /// The request.
        id: RequestId,
        /// Destination.
        to: A,
        /// The response.
        response: Arc<Message>,
    },
    /// The exchange was abandoned (MAX_RETRANSMIT exhausted, or a Reset).
    Failed {
        /// The request.
        id: RequestId,
        /// Destination.
        to: A,
        /// Retransmissions made.
        retransmissions: u8,
        /// Whether a Reset ended it.
        reset: bool,
    },
    /// Server: a new request (not a duplicate) the application must answer with
    /// [`Endpoint::respond`].
    Request {
        /// Who asked, and which message to answer.
        handle: RequestHandle<A>,
        /// The request.
        request: Arc<Message>,
    },
}

/// Counters of everything the endpoint dropped or repeated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EndpointStats {
    /// Client: copies of requests sent (originals and retransmissions).
    pub transmissions: u64,
    /// Client: retransmissions sent.
    pub retransmissions: u64,
    /// Client: acknowledgements that matched no outstanding exchange (late duplicates).
    pub unmatched: u64,
    /// Server: duplicate requests answered from the cache.
    pub duplicates_answered: u64,
    /// Server: duplicates received before the application answered (ignored).
    pub duplicates_pending: u64,
    /// Datagrams that did not decode.
    pub malformed: u64,
    /// Messages of a kind this endpoint does not handle (e.g. NON responses to nothing).
    pub ignored: u64,
    /// Server: requests forgotten before EXCHANGE_LIFETIME because the duplicate cache was
    /// full ([`EndpointConfig::duplicate_cache_entries`], [`EndpointConfig::duplicate_cache_bytes`]).
    pub duplicate_evictions: u64,
    /// Server: messages that reused the Message ID of a remembered request without being a
    /// copy of it, handled as new messages.
    pub message_id_reuses: u64,
    /// Confirmable messages this endpoint could not match (an empty CON "ping", a separate
    /// response to nothing awaited, a reserved code), answered with a Reset (RFC 7252 §4.2, §4.3).
    pub resets_sent: u64,
}

#[derive(Clone, Debug)]
struct Outstanding<X> {
    id: RequestId,
    token: Token,
    msg: Arc<Message>,
    /// The exchange and its hold / retransmit / give-up state (shared with the harness).
    rt: coapcc_core::Outstanding<X>,
    sent: smallvec::SmallVec<[Instant; 4]>,
}

impl<X: Copy + Default + Debug> Outstanding<X> {
    fn wake_at(&self) -> Instant {
        self.rt.wake_at()
    }
}

#[derive(Clone, Debug)]
struct Peer<C: Controller> {
    /// The algorithm's state for this destination.
    state: C::State,
    outstanding: Vec<Outstanding<C::ExchangeState>>,
    queue: VecDeque<(RequestId, Message)>,
    /// A rate-based controller holds the next original until this instant.
    release_at: Option<Instant>,
    /// Requests acknowledged with an empty ACK, waiting for a separate response (forgotten
    /// EXCHANGE_LIFETIME after their first copy).
    awaiting: Vec<Awaiting>,
    /// Message IDs of the latest separate CON responses acknowledged (at most
    /// [`RECENT_SEPARATE`]): a copy of one (our ACK was lost) is acknowledged again
    /// (RFC 7252 §4.5), not reset.
    acked_separate: VecDeque<u16>,
    next_mid: u16,
}

/// A request acknowledged with an empty ACK whose separate response has not come yet.
#[derive(Clone, Copy, Debug)]
struct Awaiting {
    id: RequestId,
    /// The request's token (without the copy byte of the token echo).
    token: Token,
    /// Copies sent: the token echo names one of them.
    copies: usize,
    first_sent: Instant,
}

/// The destinations, sorted by address: a client talks to one or a few, so a sorted vector
/// beats a tree (one comparison for the usual single destination); peers are never removed.
#[derive(Clone, Debug)]
struct PeerMap<A, C: Controller> {
    entries: Vec<(A, Peer<C>)>,
}

impl<A, C: Controller> Default for PeerMap<A, C> {
    fn default() -> Self {
        PeerMap { entries: Vec::new() }
    }
}

impl<A: Ord + Copy, C: Controller> PeerMap<A, C> {
    fn find(&self, a: &A) -> Result<usize, usize> {
        match self.entries.as_slice() {
            [(only, _)] if only == a => Ok(0),
            entries => entries.binary_search_by(|(k, _)| k.cmp(a)),
        }
    }

    fn get(&self, a: &A) -> Option<&Peer<C>> {
        self.find(a).ok().map(|i| &self.entries[i].1)
    }

    fn get_mut(&mut self, a: &A) -> Option<&mut Peer<C>> {
        self.find(a).ok().map(|i| &mut self.entries[i].1)
    }

    fn contains_key(&self, a: &A) -> bool {
        self.find(a).is_ok()
    }

    fn insert(&mut self, a: A, peer: Peer<C>) {
        match self.find(&a) {
            Ok(i) => self.entries[i].1 = peer,
            Err(i) => self.entries.insert(i, (a, peer)),
        }
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn key(&self, i: usize) -> A {
        self.entries[i].0
    }

    fn values(&self) -> impl Iterator<Item = &Peer<C>> {
        self.entries.iter().map(|(_, p)| p)
    }
}

/// A CoAP endpoint (client and server roles), generic over the address type `A`, the
/// generator `R` it draws from (dithering, initial Message IDs and tokens) and the
/// congestion-control algorithm `C` (by default any registered one, [`AnyController`]).
#[derive(Debug)]
pub struct Endpoint<A, R, C: Controller = AnyController> {
    config: EndpointConfig<C>,
    rng: R,
    peers: PeerMap<A, C>,
    next_id: u64,
    next_token: u64,
    transmits: VecDeque<Transmit<A>>,
    events: VecDeque<Event<A>>,
    server: DuplicateCache<A>,
    stats: EndpointStats,
}

impl<A: Copy + Ord + Hash + Debug, R: Rng, C: Controller> Endpoint<A, R, C> {
    /// A new endpoint; `nstart` and `token_len` are checked (the algorithm was checked when
    /// it was built).
    pub fn new(config: EndpointConfig<C>, rng: R) -> Result<Self, coapcc_core::ConfigError> {
        if config.nstart == 0 {
            return Err(coapcc_core::ConfigError::new("nstart", "must be at least 1"));
        }
        if config.token_len > 7 {
            return Err(coapcc_core::ConfigError::new("token_len", "must be at most 7 bytes"));
        }
        if config.auto_response.as_ref().is_some_and(|r| !r.code.is_response()) {
            return Err(coapcc_core::ConfigError::new("auto_response", "must have a response code (2.00–5.31)"));
        }
        Ok(Self::unchecked(config, rng))
    }

    /// A new endpoint with this endpoint's configuration (already checked, so this cannot
    /// fail), drawing from `rng`: no destinations, no history, fresh counters. A driver that
    /// starts endpoints during a run (a client restarting) keeps one as a prototype.
    pub fn renewed(&self, rng: R) -> Self {
        Self::unchecked(self.config.clone(), rng)
    }

    fn unchecked(config: EndpointConfig<C>, mut rng: R) -> Self {
        let next_token = rng.next_u64();
        Endpoint {
            config,
            rng,
            peers: PeerMap::default(),
            next_id: 1,
            next_token,
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            server: DuplicateCache::default(),
            stats: EndpointStats::default(),
        }
    }

    /// The configuration.
    pub fn config(&self) -> &EndpointConfig<C> {
        &self.config
    }

    /// Counters.
    pub fn stats(&self) -> EndpointStats {
        self.stats
    }

    /// The congestion-control algorithm.
    pub fn algorithm(&self) -> &C {
        &self.config.algorithm
    }

    /// The algorithm's state for `to`, if this endpoint has talked to it.
    pub fn state(&self, to: &A) -> Option<&C::State> {
        self.peers.get(to).map(|p| &p.state)
    }

    /// The undithered timer the algorithm would arm for the next original transmission to
    /// `to` at `now`, where that notion applies and this endpoint has talked to `to`.
    pub fn rto(&self, to: &A, now: Instant) -> Option<Duration> {
        self.peers.get(to).and_then(|p| self.config.algorithm.rto(&p.state, now))
    }

    /// Requests the server currently remembers for duplicate detection (at most
    /// [`EndpointConfig::duplicate_cache_entries`]).
    pub fn duplicate_cache_len(&self) -> usize {
        self.server.len()
    }

    /// The bytes the duplicate cache counts against [`EndpointConfig::duplicate_cache_bytes`]
    /// (never more than that bound, except for one answer larger than the bound alone while
    /// it is being sent).
    pub fn duplicate_cache_bytes(&self) -> usize {
        self.server.bytes()
    }

    /// Exchanges outstanding or queued towards `to`.
    pub fn pending(&self, to: &A) -> usize {
        self.peers.get(to).map_or(0, |p| p.outstanding.len() + p.queue.len())
    }

    /// Queues a confirmable request to `to`. `template` supplies code, options and payload
    /// (and its token, when it has one); type, Message ID and otherwise the token are set by
    /// the endpoint. It leaves as soon as NSTART and the
    /// controller allow (possibly within this call).
    pub fn request(&mut self, now: Instant, to: A, template: Message) -> RequestId {
        let id = RequestId(self.next_id);
        self.next_id += 1;
        if !self.peers.contains_key(&to) {
            // RFC 7252 §4.4: start Message IDs at a random value.
            let next_mid = (self.rng.next_u32() & 0xffff) as u16;
            let peer = Peer {
                state: self.config.algorithm.new_state(),
                outstanding: Vec::new(),
                queue: VecDeque::new(),
                release_at: None,
                awaiting: Vec::new(),
                acked_separate: VecDeque::new(),
                next_mid,
            };
            self.peers.insert(to, peer);
        }
        if let Some(peer) = self.peers.get_mut(&to) {
            peer.queue.push_back((id, template));
        }
        self.start_queued(now, to);
        id
    }

    /// A datagram arrived as bytes; malformed ones are counted and dropped, and a malformed
    /// confirmable one whose header reads is rejected with a Reset (RFC 7252 §4.2: a message
    /// format error is rejected).
    pub fn handle_datagram(&mut self, now: Instant, from: A, bytes: &[u8]) {
        match codec::decode(bytes) {
            Ok(msg) => self.handle_message(now, from, Arc::new(msg)),
            Err(_) => {
                self.stats.malformed += 1;
                // Version 1, type CON (RFC 7252 §3); the Message ID is bytes 2–3.
                if let [first, _, hi, lo, ..] = *bytes
                    && first >> 4 == 0b0100
                {
                    self.reset(from, u16::from_be_bytes([hi, lo]));
                }
            }
        }
    }

    /// A decoded message arrived from `from`.
    /// Takes the message shared (`Arc`), so that responses reach [`Event::Completed`] without a copy.
    pub fn handle_message(&mut self, now: Instant, from: A, msg: Arc<Message>) {
        match (msg.mtype, msg.code) {
            (MessageType::Con | MessageType::Non, c) if c.is_request() => self.server_request(now, from, msg),
            (MessageType::Ack, _) => self.client_ack(now, from, msg),
            (MessageType::Rst, _) => self.client_reset(from, msg.mid),
            (MessageType::Con | MessageType::Non, c) if c.is_response() => {
                self.client_separate_response(now, from, msg)
            }
            // RFC 7252 §4.2/§4.3: an empty CON (a "ping") or a CON with a reserved code is
            // rejected with a Reset.
            (MessageType::Con, _) => self.reset(from, msg.mid),
            _ => self.stats.ignored += 1,
        }
    }

    /// Server: answers a request announced by [`Event::Request`] with a piggybacked response
    /// (CON) or a NON response; the answer is cached for duplicates. `code` must be a
    /// response code (2.00–5.31); another is refused (counted in
    /// [`EndpointStats::ignored`]) and the request stays unanswered.
    pub fn respond(&mut self, now: Instant, handle: RequestHandle<A>, code: Code, payload: impl Into<Payload>) {
        self.respond_with(now, handle, code, Options::new(), payload);
    }

    /// As [`Endpoint::respond`], with options (Block2, Content-Format…) on the response; the
    /// transmission-count echo is added to them when the request carried one.
    pub fn respond_with(
        &mut self,
        now: Instant,
        handle: RequestHandle<A>,
        code: Code,
        options: Options,
        payload: impl Into<Payload>,
    ) {
        if !code.is_response() {
            // RFC 7252 §5.2: a response carries a response code (an ACK with 0.00 would be an
            // Empty message, which has no token or payload).
            self.stats.ignored += 1;
            return;
        }
        self.expire_seen(now);
        let make = |asked: &Asked| {
            let mut resp = response_to(asked, handle.mid, code, payload.into());
            for o in options {
                resp.add_option(o.number, o.value);
            }
            Arc::new(resp)
        };
        let bounds = self.cache_bounds();
        let Some((resp, evicted)) = self.server.answer(handle.from, handle.mid, handle.seq, make, bounds) else {
            self.stats.ignored += 1;
            return;
        };
        self.stats.duplicate_evictions += evicted;
        self.transmits.push_back(Transmit {
            to: handle.from,
            msg: resp,
            origin: Origin::Response { duplicate: false },
        });
    }

    /// Fires every timer due at `now`: retransmissions, give-ups, held copies.
    pub fn handle_timeout(&mut self, now: Instant) {
        // Destinations in address order; timers never add one, so the indices stay valid.
        for i in 0..self.peers.len() {
            let to = self.peers.key(i);
            self.peer_timeout(now, to);
        }
    }

    /// The next datagram to send.
    pub fn poll_transmit(&mut self) -> Option<Transmit<A>> {
        self.transmits.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<Event<A>> {
        self.events.pop_front()
    }

    /// When [`Endpoint::handle_timeout`] must next be called.
    pub fn poll_timeout(&self) -> Option<Instant> {
        let mut next: Option<Instant> = None;
        let mut consider = |t: Instant| next = Some(next.map_or(t, |n| n.min(t)));
        for p in self.peers.values() {
            p.outstanding.iter().for_each(|o| consider(o.wake_at()));
            p.release_at.into_iter().for_each(&mut consider);
        }
        next
    }

    fn peer_timeout(&mut self, now: Instant, to: A) {
        // Each pass handles one due item; zero-length timers end at give-up, so this terminates.
        loop {
            let Some(peer) = self.peers.get_mut(&to) else { return };
            let due = peer
                .outstanding
                .iter()
                .enumerate()
                .filter(|(_, o)| o.wake_at() <= now)
                .min_by_key(|(_, o)| o.wake_at());
            if let Some((i, _)) = due {
                self.fire(now, to, i);
                continue;
            }
            if peer.release_at.is_some_and(|t| t <= now) {
                peer.release_at = None;
                self.start_queued(now, to);
                continue;
            }
            return;
        }
    }

    /// The wake-up of outstanding exchange `i`: a timer expired or a held copy may leave
    /// ([`coapcc_core::Outstanding::fire`] decides).
    fn fire(&mut self, now: Instant, to: A, i: usize) {
        let Some(peer) = self.peers.get_mut(&to) else { return };
        let o = &mut peer.outstanding[i];
        let id = o.id;
        if !o.rt.is_held() {
            let ex = o.rt.exchange();
            self.events.push_back(Event::TimerExpired { id, to, copy: ex.retransmissions(), timer: ex.timer() });
        }
        match o.rt.fire(&*self.config.algorithm, &mut peer.state, now, &mut self.rng) {
            Fired::GaveUp => {
                let o = peer.outstanding.remove(i);
                let retransmissions = o.rt.exchange().retransmissions();
                self.events.push_back(Event::Failed { id, to, retransmissions, reset: false });
                self.start_queued(now, to);
            }
            Fired::Held { .. } => {}
            Fired::Sent { copy, timer } => {
                let echo = self.config.echo;
                o.sent.push(now);
                if echo != EchoMode::None {
                    // Copies differ only in their transmission number; without an echo they are identical.
                    mark_copy(Arc::make_mut(&mut o.msg), o.token, copy, echo);
                }
                self.stats.transmissions += 1;
                self.stats.retransmissions += 1;
                if self.config.transmitted_events {
                    self.events.push_back(Event::Transmitted { id, to, copy, timer });
                }
                self.transmits.push_back(Transmit { to, msg: o.msg.clone(), origin: Origin::Request { id, copy } });
            }
        }
    }

    fn start_queued(&mut self, now: Instant, to: A) {
        let nstart = usize::from(self.config.nstart);
        let Some(peer) = self.peers.get_mut(&to) else { return };
        while peer.outstanding.len() < nstart && !peer.queue.is_empty() {
            let at = self.config.algorithm.earliest_send(&peer.state, now);
            if at > now {
                peer.release_at = Some(at);
                return;
            }
            let Some((id, mut msg)) = peer.queue.pop_front() else { return };
            // A template that brings its own token keeps it (an Observe deregistration repeats
            // the registration's token, RFC 7641 §3.6); otherwise the endpoint draws the next.
            let token = if msg.token.is_empty() {
                let token_len = usize::from(self.config.token_len);
                let token = Token::new(&self.next_token.to_be_bytes()[8 - token_len..]).unwrap_or(Token::EMPTY);
                self.next_token = self.next_token.wrapping_add(1);
                token
            } else {
                msg.token
            };
            msg.mtype = MessageType::Con;
            msg.mid = peer.next_mid;
            peer.next_mid = peer.next_mid.wrapping_add(1);
            mark_copy(&mut msg, token, 0, self.config.echo);
            let in_flight = peer.outstanding.len();
            let rt = coapcc_core::Outstanding::start(
                &*self.config.algorithm,
                &mut peer.state,
                now,
                in_flight,
                &mut self.rng,
            );
            self.stats.transmissions += 1;
            if self.config.transmitted_events {
                self.events.push_back(Event::Transmitted { id, to, copy: 0, timer: rt.exchange().timer() });
            }
            let msg = Arc::new(msg);
            self.transmits.push_back(Transmit { to, msg: Arc::clone(&msg), origin: Origin::Request { id, copy: 0 } });
            peer.outstanding.push(Outstanding { id, token, msg, rt, sent: smallvec::smallvec![now] });
        }
        peer.release_at = None;
    }

    fn client_ack(&mut self, now: Instant, from: A, msg: Arc<Message>) {
        let echo = self.config.echo;
        let Some(peer) = self.peers.get_mut(&from) else {
            self.stats.unmatched += 1;
            return;
        };
        let Some(i) = peer.outstanding.iter().position(|o| o.msg.mid == msg.mid) else {
            self.stats.unmatched += 1;
            return;
        };
        let o = &peer.outstanding[i];
        if msg.code == Code::EMPTY {
            self.acknowledge(now, from, i, None, None);
        } else if names_copy(echo, o.token, o.sent.len(), msg.token).is_some() {
            self.acknowledge(now, from, i, Some(&msg), Some(Arc::clone(&msg)));
        } else {
            // RFC 7252 §5.3.2: a response must echo the request's token exactly.
            self.stats.unmatched += 1;
        }
    }

    /// Outstanding exchange `i` towards `from` was acknowledged at `now`: by an empty ACK
    /// (`echoed` and `response` `None`), a piggybacked `response`, or a separate response
    /// that overtook its empty ACK (`echoed` names the copy, `response` `None`: it follows as
    /// [`Event::Response`]).
    fn acknowledge(
        &mut self,
        now: Instant,
        from: A,
        i: usize,
        echoed: Option<&Message>,
        response: Option<Arc<Message>>,
    ) {
        let echo_mode = self.config.echo;
        let lifetime = self.config.exchange_lifetime;
        let Some(peer) = self.peers.get_mut(&from) else { return };
        let o = peer.outstanding.remove(i);
        let ex = o.rt.exchange();
        let echo = echoed
            .and_then(|m| read_copy(m, o.token, echo_mode))
            .filter(|c| *c <= ex.retransmissions())
            .and_then(|c| o.sent.get(usize::from(c)).map(|sent| Echo { copy: c, sent: *sent }));
        self.config.algorithm.on_ack(&mut peer.state, now, ex, &Ack { echo });
        if response.is_none() {
            // Requests whose separate response never came are forgotten after EXCHANGE_LIFETIME.
            peer.awaiting.retain(|a| now.saturating_duration_since(a.first_sent) <= lifetime);
            peer.awaiting.push(Awaiting {
                id: o.id,
                token: o.token,
                copies: o.sent.len(),
                first_sent: ex.first_sent(),
            });
        }
        self.events.push_back(Event::Completed {
            id: o.id,
            to: from,
            first_sent: ex.first_sent(),
            rtt: now - ex.first_sent(),
            retransmissions: ex.retransmissions(),
            echoed_copy: echo.map(|e| e.copy),
            response,
        });
        self.start_queued(now, from);
    }

    fn client_reset(&mut self, from: A, mid: u16) {
        let Some(peer) = self.peers.get_mut(&from) else {
            self.stats.unmatched += 1;
            return;
        };
        let Some(i) = peer.outstanding.iter().position(|o| o.msg.mid == mid) else {
            self.stats.unmatched += 1;
            return;
        };
        let o = peer.outstanding.remove(i);
        self.events.push_back(Event::Failed {
            id: o.id,
            to: from,
            retransmissions: o.rt.exchange().retransmissions(),
            reset: true,
        });
    }

    fn reset(&mut self, to: A, mid: u16) {
        self.stats.resets_sent += 1;
        self.transmits.push_back(Transmit {
            to,
            msg: Arc::new(Message::empty(MessageType::Rst, mid)),
            origin: Origin::Empty,
        });
    }

    fn client_separate_response(&mut self, now: Instant, from: A, msg: Arc<Message>) {
        let echo = self.config.echo;
        let Some(peer) = self.peers.get_mut(&from) else {
            if msg.mtype == MessageType::Con {
                self.reset(from, msg.mid);
            } else {
                self.stats.ignored += 1;
            }
            return;
        };
        if !peer.awaiting.iter().any(|a| names_copy(echo, a.token, a.copies, msg.token).is_some())
            && let Some(i) =
                peer.outstanding.iter().position(|o| names_copy(echo, o.token, o.sent.len(), msg.token).is_some())
        {
            // RFC 7252 §5.2.2: a separate response that arrives before the (lost) empty ACK
            // is taken as the acknowledgement; it then answers the request.
            self.acknowledge(now, from, i, Some(&msg), None);
        }
        let Some(peer) = self.peers.get_mut(&from) else { return };
        let lifetime = self.config.exchange_lifetime;
        peer.awaiting.retain(|a| now.saturating_duration_since(a.first_sent) <= lifetime);
        let i = peer.awaiting.iter().position(|a| names_copy(echo, a.token, a.copies, msg.token).is_some());
        let ack =
            Transmit { to: from, msg: Arc::new(Message::empty(MessageType::Ack, msg.mid)), origin: Origin::Empty };
        let Some(i) = i else {
            if msg.mtype == MessageType::Con && peer.acked_separate.contains(&msg.mid) {
                self.stats.ignored += 1;
                self.transmits.push_back(ack);
            } else if msg.mtype == MessageType::Con {
                // RFC 7252 §4.2: a CON the endpoint cannot process is rejected.
                self.reset(from, msg.mid);
            } else {
                self.stats.ignored += 1;
            }
            return;
        };
        let Awaiting { id, .. } = peer.awaiting.remove(i);
        if msg.mtype == MessageType::Con {
            if peer.acked_separate.len() >= RECENT_SEPARATE {
                peer.acked_separate.pop_front();
            }
            peer.acked_separate.push_back(msg.mid);
            self.transmits.push_back(ack);
        }
        self.events.push_back(Event::Response { id, to: from, response: msg });
    }

    fn expire_seen(&mut self, now: Instant) {
        self.server.expire(now, self.config.exchange_lifetime);
    }

    fn cache_bounds(&self) -> Bounds {
        Bounds { entries: self.config.duplicate_cache_entries, bytes: self.config.duplicate_cache_bytes }
    }

    fn server_request(&mut self, now: Instant, from: A, msg: Arc<Message>) {
        self.expire_seen(now);
        let fingerprint = Fingerprint::of(&msg);
        if let Some(entry) = self.server.get(from, msg.mid) {
            if entry.fingerprint != fingerprint {
                // Not a copy of the remembered request (crate::duplicates): a new message
                // that reuses its Message ID.
                self.stats.message_id_reuses += 1;
                self.server.remove(from, msg.mid);
            } else {
                // RFC 7252 §4.5: a duplicate gets the same response again; its token and
                // transmission-count option are those of the copy it answers.
                match &entry.seen {
                    Seen::Pending => self.stats.duplicates_pending += 1,
                    Seen::Answered(resp) => {
                        // The duplicate's own token and transmission count are echoed; when
                        // they are those of the cached answer, it is sent again as it is.
                        let echo = msg.option(option::TRANSMISSION_COUNT);
                        let same = resp.token == msg.token && resp.option(option::TRANSMISSION_COUNT) == echo;
                        let resp = if same {
                            Arc::clone(resp)
                        } else {
                            let mut r = Message::clone(resp);
                            r.token = msg.token;
                            r.options.retain(|o| o.number != option::TRANSMISSION_COUNT);
                            if let Some(v) = echo {
                                r.add_option(option::TRANSMISSION_COUNT, v);
                            }
                            Arc::new(r)
                        };
                        self.stats.duplicates_answered += 1;
                        self.transmits.push_back(Transmit {
                            to: from,
                            msg: resp,
                            origin: Origin::Response { duplicate: true },
                        });
                    }
                }
                return;
            }
        }
        let asked = Asked::of(&msg);
        let bounds = self.cache_bounds();
        match &self.config.auto_response {
            Some(r) => {
                // Answered at once: the response is cached with the request in one insertion;
                // its payload is the one every automatic answer shares.
                let resp = Arc::new(auto_answer(&asked, &msg, r));
                let answer = Some((Arc::clone(&resp), true));
                let (_, evicted) = self.server.insert(now, (from, msg.mid), fingerprint, asked, answer, bounds);
                self.stats.duplicate_evictions += evicted;
                self.transmits.push_back(Transmit {
                    to: from,
                    msg: resp,
                    origin: Origin::Response { duplicate: false },
                });
            }
            None => {
                let (seq, evicted) = self.server.insert(now, (from, msg.mid), fingerprint, asked, None, bounds);
                self.stats.duplicate_evictions += evicted;
                let handle = RequestHandle { from, mid: msg.mid, seq };
                self.events.push_back(Event::Request { handle, request: msg });
            }
        }
    }
}

/// The response to `request` (Message ID `mid`): piggybacked on an ACK for a CON, a NON for a
/// NON, with the request's token and, if it carried one, its transmission-count option.
fn response_to(request: &Asked, mid: u16, code: Code, payload: Payload) -> Message {
    let mtype = if request.mtype == MessageType::Con { MessageType::Ack } else { MessageType::Non };
    let mut resp = Message { mtype, code, mid, token: request.token, options: Options::new(), payload };
    if let Some(v) = &request.echo {
        // FASOR-02 §4: a server implementing the option echoes it unmodified.
        resp.add_option(option::TRANSMISSION_COUNT, v);
    }
    resp
}

/// The automatic answer `r` to `request`: the whole payload, or, when the request carries a
/// Block2 option, the block it asks for with a Block2 option giving its number, whether more
/// follow and its size (RFC 7959 §2.4: the payload is the representation, served block by
/// block at the size the client asks for). A malformed Block2 option or a block beyond the
/// end gets 4.00 Bad Request without payload, as the real server answers them.
fn auto_answer(asked: &Asked, request: &Message, r: &AutoResponse) -> Message {
    let mut out = Message::empty(MessageType::Ack, request.mid);
    fill_auto_answer(asked.mtype, asked.token, asked.echo.as_deref(), request, r, &mut out);
    out
}

/// [`auto_answer`] written over `out`, for a request of type `mtype` with `token` and the
/// transmission-count value `echo`: every field is set (the same message as
/// [`response_to`] with the block option), the option storage reused, and the payload left
/// in place when it already is the one to send (same bytes, same place).
fn fill_auto_answer(
    mtype: MessageType,
    token: Token,
    echo: Option<&[u8]>,
    request: &Message,
    r: &AutoResponse,
    out: &mut Message,
) {
    out.mtype = if mtype == MessageType::Con { MessageType::Ack } else { MessageType::Non };
    out.mid = request.mid;
    out.token = token;
    out.options.clear();
    if let Some(v) = echo {
        // FASOR-02 §4: a server implementing the option echoes it unmodified.
        out.add_option(option::TRANSMISSION_COUNT, v);
    }
    let (code, from, to) = match request.option(option::BLOCK2) {
        None => (r.code, 0, r.payload.len()),
        Some(value) => {
            match Block::decode(value).and_then(|b| block::range(r.payload.len(), b.num, b.szx).map(|at| (b, at))) {
                Some((b, (from, to, more))) => {
                    out.add_option(option::BLOCK2, Block { more, ..b }.encode());
                    (r.code, from, to)
                }
                None => (Code::BAD_REQUEST, 0, 0),
            }
        }
    };
    out.code = code;
    let wanted = &r.payload[from..to];
    if out.payload.as_ptr() != wanted.as_ptr() || out.payload.len() != wanted.len() {
        // A slice of the shared payload: nothing is copied.
        out.payload = if to > from { r.payload.slice(from..to) } else { Payload::new() };
    }
}

/// Sets the transmission number of copy `copy` on a request (spec §7.7, OQ-17).
fn mark_copy(msg: &mut Message, token: Token, copy: u8, echo: EchoMode) {
    match echo {
        EchoMode::None => msg.token = token,
        EchoMode::Token => msg.token = token.with_suffix(copy),
        EchoMode::Option => {
            msg.token = token;
            msg.set_option(option::TRANSMISSION_COUNT, encode_uint(u32::from(copy)));
        }
    }
}

/// Whether a response's `token` is exactly that of one of the `copies` sent of a request with
/// `token` (RFC 7252 §5.3.2), and which copy it names: the request token itself without the
/// token echo (`Some(None)`), the request token plus the copy byte of a copy sent with it.
fn names_copy(echo: EchoMode, token: Token, copies: usize, got: Token) -> Option<Option<u8>> {
    match echo {
        EchoMode::None | EchoMode::Option => (got == token).then_some(None),
        EchoMode::Token => {
            let (&copy, head) = got.as_bytes().split_last()?;
            (head == token.as_bytes() && usize::from(copy) < copies).then_some(Some(copy))
        }
    }
}

/// Reads the echoed transmission number from a piggybacked response.
fn read_copy(msg: &Message, token: Token, echo: EchoMode) -> Option<u8> {
    match echo {
        EchoMode::None => None,
        EchoMode::Token => {
            let b = msg.token.as_bytes();
            (b.len() == token.len() + 1).then(|| b[token.len()])
        }
        EchoMode::Option => {
            msg.option(option::TRANSMISSION_COUNT).and_then(decode_uint).and_then(|v| u8::try_from(v).ok())
        }
    }
}
