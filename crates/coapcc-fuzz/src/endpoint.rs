//! Fuzz target `endpoint`: a client and a server [`Endpoint`] fed arbitrary datagrams, new
//! requests, answers (arbitrary codes, or `coapcc server`'s resources), losses, copies and
//! near-copies of requests, and timer firings in an order the input chooses, with the
//! messages they send each other carried (or lost) on a list in between.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use coapcc_core::{ALGORITHMS, Instant};
use coapcc_proto::codec::{decode, encode};
use coapcc_proto::{
    AutoResponse, Code, EchoMode, Endpoint, EndpointConfig, Event, Message, MessageType, Origin, Payload,
    RequestHandle, RequestId, Transmit,
};
use coapcc_proto::{decode_uint, option};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::input::Input;

/// How many bytes more the transmission-count echo may take in an answer than in the copy
/// that drew it (see where it is checked).
const ECHO_ENCODING_SLACK_BYTES: i64 = 4;

/// The server's address.
const SERVER: u8 = 0;
/// The client's address; 2 and 3 are destinations nobody answers.
const CLIENT: u8 = 1;
/// Peers the client sends to, and addresses arbitrary datagrams come from.
const PEERS: u8 = 4;
/// The server's duplicate cache is this small, so that evictions happen.
const CACHE_ENTRIES: usize = 8;
/// The server's duplicate cache holds this many bytes, so that the byte bound evicts too.
const CACHE_BYTES: usize = 4_096;
/// At most this many operations per input.
const MAX_STEPS: usize = 2_000;

type Ep = Endpoint<u8, Pcg64Mcg>;

/// RFC 7252 §11.3.
const AMPLIFICATION_FACTOR: usize = 3;

/// What the client was asked, and how far each request got.
#[derive(Default)]
struct Ledger {
    /// Requests by id: their destination and whether their exchange ended.
    requests: BTreeMap<RequestId, (u8, bool)>,
    /// Exchanges acknowledged with an empty ACK: a separate response may still come.
    awaiting_separate: Vec<RequestId>,
    /// `Transmitted` events: all copies, and retransmissions.
    copies: u64,
    retransmissions: u64,
}

/// A request the server took for a new one, and its answer once sent.
type Original = (Arc<Message>, Option<Arc<Message>>);

/// The world around the two endpoints.
struct World {
    client: Ep,
    server: Ep,
    now: Instant,
    /// Messages on their way: (to the server?, message).
    wire: VecDeque<(bool, Arc<Message>)>,
    /// Requests the server application has yet to answer, with the request.
    unanswered: Vec<(RequestHandle<u8>, Arc<Message>)>,
    /// The latest request the server took for a new one, per source and Message ID, and its
    /// answer once sent: what a duplicate must be a copy of, and be answered like.
    originals: HashMap<(u8, u16), Original>,
    /// The latest request that reached the server (a model for copies and near-copies).
    last_request: Option<(u8, Arc<Message>)>,
    ledger: Ledger,
    max_retransmit: u8,
}

/// Runs one input: two set-up bytes (algorithm, dithering, echo, NSTART, token length,
/// automatic answers), then operations, one byte each with their arguments after them.
/// After every operation:
/// * every transmit encodes to `wire_len` bytes that decode to it again;
/// * every copy of a request belongs to a request the client made, is at most copy
///   MAX_RETRANSMIT, and goes where the request was sent;
/// * an exchange ends (completes or fails) once, a separate response answers an exchange
///   acknowledged empty, and a completion's RTT is measured from its first copy;
/// * the client's counters equal what its events told, and `pending` equals the requests
///   not yet ended; the server's duplicate cache stays within its bounds;
/// * the server answers from its cache only a copy of the request it remembers (same type,
///   code, options and payload, a token equal up to its last byte, crate::duplicates of
///   `coapcc-proto`), with the original answer carrying the copy's token and transmission
///   count, grown by exactly what the copy grew;
/// * no datagram either endpoint sends in answer to one (responses, ACKs, Resets) is more than
///   three times its size unless it asked for block-wise transfer (RFC 7252 §11.3), and no
///   answer of the application is either.
///
/// After every firing of timers at `now`, neither endpoint has a timer due at or before `now`.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let Some(mut world) = World::new(input.byte(), input.byte()) else { return };
    for _ in 0..MAX_STEPS {
        if input.is_empty() {
            break;
        }
        world.step(&mut input);
        world.drain();
    }
}

impl World {
    fn new(pick: u8, flags: u8) -> Option<World> {
        let mut algorithm = (ALGORITHMS[usize::from(pick) % ALGORITHMS.len()].preset)();
        algorithm.set_dither(flags & 1 == 0);
        let max_retransmit = algorithm.max_retransmit();
        let base = EndpointConfig {
            echo: [EchoMode::None, EchoMode::Token, EchoMode::Option][usize::from(flags >> 1) % 3],
            nstart: u16::from(1 + (flags >> 3) % 4),
            token_len: 2 * ((flags >> 5) % 4),
            duplicate_cache_entries: CACHE_ENTRIES,
            duplicate_cache_bytes: CACHE_BYTES,
            ..EndpointConfig::new(Arc::new(algorithm.build().ok()?))
        };
        let auto_response =
            (flags & 0x80 != 0).then(|| AutoResponse { code: Code::CONTENT, payload: Payload::from(b"fuzz".to_vec()) });
        let server = EndpointConfig { auto_response, ..base.clone() };
        Some(World {
            client: Endpoint::new(base, Pcg64Mcg::seed_from_u64(u64::from(pick))).ok()?,
            server: Endpoint::new(server, Pcg64Mcg::seed_from_u64(u64::from(flags))).ok()?,
            now: Instant::ZERO,
            wire: VecDeque::new(),
            unanswered: Vec::new(),
            originals: HashMap::new(),
            last_request: None,
            ledger: Ledger::default(),
            max_retransmit,
        })
    }

    fn step(&mut self, input: &mut Input) {
        let now = self.now;
        let op = input.byte();
        match if op >= 240 { 10 } else { op % 10 } {
            0 => {
                let to = input.byte() % PEERS;
                let to = if to == CLIENT { SERVER } else { to };
                let code = if input.byte() & 1 == 0 { Code::GET } else { Code::POST };
                let mut msg = Message::con_request(code, "res");
                let len = usize::from(input.byte() % 32);
                msg.payload = Payload::from(input.take(len).to_vec());
                let id = self.client.request(now, to, msg);
                assert!(self.ledger.requests.insert(id, (to, false)).is_none(), "request id {id:?} reused");
            }
            1 => {
                let (from, len) = (input.byte() % PEERS, input.byte() % 48);
                self.datagram_to_client(from, input.take(usize::from(len)));
            }
            2 => {
                let (from, len) = (input.byte() % PEERS, input.byte() % 48);
                self.datagram_to_server(from, input.take(usize::from(len)));
            }
            3 => {
                let ms = u64::from(input.u16()) * u64::from(1 + input.byte() % 16);
                self.advance(now + Duration::from_millis(ms));
            }
            4 => {
                for _ in 0..=input.byte() % 8 {
                    self.deliver_next();
                }
            }
            5 => {
                self.wire.pop_front();
            }
            6 => {
                if let Some(m) = self.wire.front().cloned() {
                    self.wire.push_back(m);
                }
            }
            7 => {
                let code = Code(input.byte());
                for (handle, request) in std::mem::take(&mut self.unanswered) {
                    let size = request.wire_len();
                    let blockwise = request.option(option::BLOCK2).is_some();
                    if code.0 == 0xff {
                        let r = coapcc_udp::server::reply(&request);
                        self.server.respond_with(now, handle, r.code, r.options, r.payload);
                    } else {
                        self.server.respond(now, handle, code, b"answer".to_vec());
                    }
                    while let Some(t) = self.server.poll_transmit() {
                        check_wire(&t);
                        assert!(
                            blockwise || t.msg.wire_len() <= AMPLIFICATION_FACTOR * size,
                            "the answer {:?} to {request:?} is more than 3 times its size",
                            t.msg
                        );
                        if let Some(original) = self.originals.get_mut(&(handle.from, handle.mid))
                            && Arc::ptr_eq(&original.0, &request)
                        {
                            original.1 = Some(Arc::clone(&t.msg));
                        }
                        if t.to == CLIENT {
                            self.wire.push_back((false, t.msg));
                        }
                    }
                }
            }
            8 => {
                if let Some(t) = self.client.poll_timeout() {
                    self.advance(t);
                }
            }
            9 => {
                // A corrupted copy of the next message on the wire.
                let (at, flip) = (usize::from(input.byte()), input.byte());
                if let Some((to_server, msg)) = self.wire.pop_front() {
                    let mut bytes = encode(&msg);
                    if !bytes.is_empty() {
                        let i = at % bytes.len();
                        bytes[i] ^= flip;
                    }
                    if to_server {
                        self.datagram_to_server(CLIENT, &bytes);
                    } else {
                        self.datagram_to_client(SERVER, &bytes);
                    }
                }
            }
            _ => {
                // A copy or a near-copy of the latest request the server saw, from its source.
                let (how, byte) = (input.byte(), input.byte());
                if let Some((from, request)) = self.last_request.clone() {
                    let bytes = encode(&near_copy(&request, how, byte));
                    self.datagram_to_server(from, &bytes);
                }
            }
        }
    }

    /// A datagram reaches the client from `from`; what the client sends in answer (ACKs,
    /// Resets) is at most three times its size.
    fn datagram_to_client(&mut self, from: u8, bytes: &[u8]) {
        self.client.handle_datagram(self.now, from, bytes);
        let mut requests = Vec::new();
        while let Some(t) = self.client.poll_transmit() {
            if t.origin == Origin::Empty {
                assert!(t.msg.wire_len() <= AMPLIFICATION_FACTOR * bytes.len(), "{:?} answers {bytes:02x?}", t.msg);
            }
            requests.push(t);
        }
        // Requests released by the acknowledgement go on as drained ones do.
        for t in requests {
            self.client_transmit(t);
        }
    }

    /// A datagram reaches the server from `from`: checks what the server answers at once
    /// (see [`run`]) and keeps what it remembers.
    fn datagram_to_server(&mut self, from: u8, bytes: &[u8]) {
        self.server.handle_datagram(self.now, from, bytes);
        self.after_server_input(from, bytes.len(), decode(bytes).ok().map(Arc::new));
    }

    fn after_server_input(&mut self, from: u8, size: usize, msg: Option<Arc<Message>>) {
        let blockwise = msg.as_ref().is_some_and(|m| m.option(option::BLOCK2).is_some());
        if let Some(m) = &msg
            && m.code.is_request()
        {
            self.last_request = Some((from, Arc::clone(m)));
        }
        while let Some(t) = self.server.poll_transmit() {
            check_wire(&t);
            assert!(
                blockwise || t.msg.wire_len() <= AMPLIFICATION_FACTOR * size,
                "{:?} answers a datagram of {size} bytes",
                t.msg
            );
            if let (Origin::Response { duplicate }, Some(m)) = (t.origin, &msg) {
                let key = (from, m.mid);
                if duplicate {
                    let original = self.originals.get(&key);
                    let Some((request, Some(answer))) = original else {
                        panic!("{m:?} answered from the cache, but no answered request with its Message ID")
                    };
                    assert!(is_copy(request, m), "{m:?} answered as a copy of {request:?}");
                    let mut expected = Message { token: m.token, ..Message::clone(answer) };
                    expected.options.retain(|o| o.number != option::TRANSMISSION_COUNT);
                    if let Some(v) = m.option(option::TRANSMISSION_COUNT) {
                        expected.add_option(option::TRANSMISSION_COUNT, v);
                    }
                    assert_eq!(*t.msg, expected, "the answer to a copy is the original answer with the copy's echo");
                    // The echo grows the answer at most as it grows the copy, give or take how
                    // its option is encoded: RFC 7252 §3.1 encodes an option's number as a
                    // delta from the previous one, so the Transmission-Count option costs 0–2
                    // extended-delta bytes in a request (after an option numbered near it)
                    // and may shorten the delta of an option numbered above it by as much,
                    // but 2 in an answer, whose other options are all numbered far below it.
                    // The answers echo the first occurrence of the option only, so the copy
                    // and its original are compared with their further occurrences removed.
                    let grown = t.msg.wire_len() as i64 - answer.wire_len() as i64;
                    let copy_grown = first_echo_len(m) as i64 - first_echo_len(request) as i64;
                    assert!(
                        grown - copy_grown <= ECHO_ENCODING_SLACK_BYTES,
                        "the answer to a copy grew by {grown} bytes, the copy by {copy_grown}: {m:?} copies {request:?}"
                    );
                } else {
                    self.originals.insert(key, (Arc::clone(m), Some(Arc::clone(&t.msg))));
                }
            }
            if t.to == CLIENT {
                self.wire.push_back((false, t.msg));
            }
        }
        while let Some(e) = self.server.poll_event() {
            if let Event::Request { handle, request } = e {
                self.originals.insert((handle.from, handle.mid), (Arc::clone(&request), None));
                self.unanswered.push((handle, request));
            }
        }
    }

    fn client_transmit(&mut self, t: Transmit<u8>) {
        check_wire(&t);
        if let Origin::Request { id, copy } = t.origin {
            let to = self.ledger.requests.get(&id).map(|r| r.0);
            assert_eq!(to, Some(t.to), "copy {copy} of {id:?} goes to {} but was asked for {to:?}", t.to);
            assert!(copy <= self.max_retransmit, "copy {copy} beyond MAX_RETRANSMIT {}", self.max_retransmit);
        }
        if t.to == SERVER {
            self.wire.push_back((true, t.msg));
        }
    }

    /// Moves the clock to `to` (never backwards) and fires both endpoints' timers; after
    /// that, neither has a timer due at or before `to`.
    fn advance(&mut self, to: Instant) {
        self.now = self.now.max(to);
        self.client.handle_timeout(self.now);
        self.server.handle_timeout(self.now);
        for ep in [&self.client, &self.server] {
            if let Some(t) = ep.poll_timeout() {
                assert!(t > self.now, "a timer due at {t:?} was not fired at {:?}", self.now);
            }
        }
    }

    fn deliver_next(&mut self) {
        let Some((to_server, msg)) = self.wire.pop_front() else { return };
        if to_server {
            self.server.handle_message(self.now, CLIENT, Arc::clone(&msg));
            self.after_server_input(CLIENT, msg.wire_len(), Some(msg));
        } else {
            self.client.handle_message(self.now, SERVER, msg);
        }
    }

    /// Takes what both endpoints sent and raised, and checks the invariants listed on [`run`].
    fn drain(&mut self) {
        while let Some(t) = self.client.poll_transmit() {
            self.client_transmit(t);
        }
        // The server sends only in answer to a datagram or to the application, both checked
        // where they happen.
        assert!(self.server.poll_transmit().is_none() && self.server.poll_event().is_none());
        while let Some(e) = self.client.poll_event() {
            self.client_event(e);
        }
        let stats = self.client.stats();
        assert_eq!(stats.transmissions, self.ledger.copies, "copies counted and announced differ");
        assert_eq!(stats.retransmissions, self.ledger.retransmissions, "retransmissions counted and announced differ");
        for peer in 0..PEERS {
            let open = self.ledger.requests.values().filter(|(to, ended)| *to == peer && !ended).count();
            assert_eq!(self.client.pending(&peer), open, "pending exchanges towards {peer}");
        }
        assert!(self.server.duplicate_cache_len() <= CACHE_ENTRIES, "the duplicate cache outgrew its bound");
        assert!(self.server.duplicate_cache_bytes() <= CACHE_BYTES, "the duplicate cache outgrew its byte bound");
    }

    fn client_event(&mut self, e: Event<u8>) {
        match e {
            Event::Transmitted { id, copy, .. } => {
                assert!(self.ledger.requests.contains_key(&id), "a copy of unknown request {id:?}");
                self.ledger.copies += 1;
                self.ledger.retransmissions += u64::from(copy > 0);
            }
            Event::TimerExpired { id, .. } => assert!(self.ledger.requests.contains_key(&id)),
            Event::Completed { id, first_sent, rtt, retransmissions, response, .. } => {
                self.end(id);
                assert!(retransmissions <= self.max_retransmit);
                assert_eq!(first_sent + rtt, self.now, "the RTT of {id:?} is not measured from its first copy");
                if response.is_none() {
                    self.ledger.awaiting_separate.push(id);
                }
            }
            Event::Failed { id, retransmissions, .. } => {
                self.end(id);
                assert!(retransmissions <= self.max_retransmit);
            }
            Event::Response { id, .. } => {
                let i = self.ledger.awaiting_separate.iter().position(|a| *a == id);
                let i = i.unwrap_or_else(|| panic!("a separate response for {id:?}, which awaits none"));
                self.ledger.awaiting_separate.remove(i);
            }
            Event::Request { .. } => {}
        }
    }

    fn end(&mut self, id: RequestId) {
        let r = self.ledger.requests.get_mut(&id).unwrap_or_else(|| panic!("unknown request {id:?} ended"));
        assert!(!r.1, "{id:?} ended twice");
        r.1 = true;
    }
}

/// Whether `m` is a copy of `request` (what may differ between copies: the transmission-count
/// echo, in the token's last byte or the option).
/// The encoded length of `m` without the occurrences of the Transmission-Count option after
/// its first.
fn first_echo_len(m: &Message) -> usize {
    let mut first = m.clone();
    let mut seen = false;
    first.options.retain(|o| o.number != option::TRANSMISSION_COUNT || !std::mem::replace(&mut seen, true));
    first.wire_len()
}

fn is_copy(request: &Message, m: &Message) -> bool {
    let without_count =
        |x: &Message| x.options.iter().filter(|o| o.number != option::TRANSMISSION_COUNT).cloned().collect::<Vec<_>>();
    let (a, b) = (request.token.as_bytes(), m.token.as_bytes());
    request.mtype == m.mtype
        && request.code == m.code
        && request.payload == m.payload
        && a.len() == b.len()
        && a[..a.len().saturating_sub(1)] == b[..b.len().saturating_sub(1)]
        && without_count(request) == without_count(m)
}

/// A copy of `request` (`how` picks what changes, `byte` the new value): unchanged, another
/// copy byte or transmission count (still copies), or another type, code, token, option or
/// payload, or the bare header with its Message ID (new messages).
fn near_copy(request: &Message, how: u8, byte: u8) -> Message {
    let mut m = request.clone();
    match how % 9 {
        0 => {}
        1 => {
            let mut t = m.token.as_bytes().to_vec();
            if let Some(last) = t.last_mut() {
                *last = byte;
            }
            m.token = coapcc_proto::Token::new(&t).unwrap_or_default();
        }
        2 => m.set_option(option::TRANSMISSION_COUNT, vec![byte; usize::from(byte % 3)]),
        3 => m.mtype = if m.mtype == MessageType::Con { MessageType::Non } else { MessageType::Con },
        4 => m.code = Code(1 + byte % 4),
        5 => m.token = coapcc_proto::Token::new(&[byte]).unwrap_or_default(),
        6 => m.add_option(option::URI_QUERY, [byte]),
        7 => m.payload = Payload::from(vec![byte; usize::from(byte % 4)]),
        _ => m = Message { code: Code::GET, ..Message::empty(MessageType::Con, m.mid) },
    }
    m
}

/// A transmit encodes to `wire_len` bytes that decode to the same message, and a copy that
/// carries a transmission count carries a well-formed one.
fn check_wire(t: &Transmit<u8>) {
    let bytes = encode(&t.msg);
    assert_eq!(bytes.len(), t.msg.wire_len(), "wire_len of {:?}", t.msg);
    let back =
        decode(&bytes).unwrap_or_else(|e| panic!("{:?} encodes to {bytes:02x?}, which does not decode: {e}", t.msg));
    assert_eq!(&back, &*t.msg);
    if let Origin::Request { copy, .. } = t.origin
        && let Some(v) = t.msg.option(option::TRANSMISSION_COUNT)
    {
        assert_eq!(decode_uint(v), Some(u32::from(copy)), "the count option names another copy");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `ops` on a world set up by `pick` and `flags`, as [`run`] does.
    fn world_after(pick: u8, flags: u8, ops: &[u8]) -> World {
        let mut world = World::new(pick, flags).unwrap();
        let mut input = Input::new(ops);
        while !input.is_empty() {
            world.step(&mut input);
            world.drain();
        }
        world
    }

    fn ended(world: &World) -> usize {
        world.ledger.requests.values().filter(|(_, ended)| *ended).count()
    }

    #[test]
    fn a_request_carried_both_ways_completes_with_one_copy() {
        // Default CoAP, automatic answers: request, deliver it, deliver the response.
        let w = world_after(0, 0x81, &[0, 0, 0, 0, 4, 7, 4, 7]);
        assert_eq!(ended(&w), 1);
        assert_eq!((w.ledger.copies, w.ledger.retransmissions), (1, 0));
    }

    #[test]
    fn a_lost_original_is_retransmitted_when_its_timer_fires_and_then_completes() {
        // Request, lose it, fire the timer (RFC 7252: 2 s undithered), carry both ways.
        let w = world_after(0, 0x81, &[0, 0, 0, 0, 5, 8, 4, 7, 4, 7]);
        assert_eq!(w.now, Instant::from_millis(2_000));
        assert_eq!(ended(&w), 1);
        assert_eq!((w.ledger.copies, w.ledger.retransmissions), (2, 1));
    }

    #[test]
    fn a_copy_of_a_request_is_answered_from_the_cache_and_a_bare_header_reusing_its_message_id_is_new() {
        // Automatic answers: a request carried to the server, then an exact copy of it, then
        // the bare header `40 01 <mid>` from the same source.
        let w = world_after(0, 0x81, &[0, 0, 0, 0, 4, 0, 250, 0, 0, 250, 8, 0]);
        let s = w.server.stats();
        assert_eq!((s.duplicates_answered, s.message_id_reuses), (1, 1));
    }

    #[test]
    fn a_silent_peer_gets_max_retransmit_retransmissions_then_the_exchange_fails() {
        // Default CoAP (MAX_RETRANSMIT 4, undithered): 2 + 4 + 8 + 16 + 32 s = 62 s.
        let w = world_after(0, 0x01, &[0, 2, 0, 0, 8, 8, 8, 8, 8, 8]);
        assert_eq!(ended(&w), 1);
        assert_eq!(w.ledger.retransmissions, 4);
        assert_eq!(w.now, Instant::from_millis(62_000));
    }
}
