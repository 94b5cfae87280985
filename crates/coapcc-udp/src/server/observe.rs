//! `/obs` of `coapcc server`: an observable counter (RFC 7641).
//!
//! A GET with Observe 0 registers its client and token (§4.1) and is answered with the
//! counter and the current sequence number in Observe; the server task then calls
//! [`Observers::notify`] every interval, which advances the counter and makes one NON 2.05
//! notification per observer (§4.2, §4.4: sequence numbers rise by one per notification). A
//! GET with Observe 1 and the same token deregisters (§3.6) and is answered without Observe;
//! a plain GET reads the counter. At most [`MAX_OBSERVERS`] observations are kept (the oldest
//! is dropped); a client that disappears without deregistering is dropped after
//! [`MAX_NOTIFICATIONS`] notifications.
//!
//! `/obs?size=N` (N at most [`MAX_OBSERVED_BODY_BYTES`]) is the same counter as a body of N
//! bytes: the line `<counter>\n` repeated, cut at N ([`observed_body`]). Its responses and
//! notifications carry the counter as ETag. A notification whose body exceeds one block
//! carries block 0 with Block2 (M set) and Size2, and the client fetches the rest with GETs
//! carrying Block2 and no Observe (RFC 7959 §3.4), answered from the current counter; the
//! blocks are those the registration asked for (Block2 in the GET with Observe 0), else 1 024
//! bytes. The registration's own response follows the server's block-wise rules like `/data`.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use coapcc_proto::{Code, Message, MessageType, Payload, Token, decode_uint, encode_uint, option};

use coapcc_proto::option::OBSERVE;

use super::{Content, body, option_value};
use crate::block::{Block, MAX_SZX};
use crate::runtime::{Handler, Reply};

/// The most observations `/obs` keeps at once.
pub const MAX_OBSERVERS: usize = 64;

/// The most notifications one observation gets (a day at the default interval of 1 s).
pub const MAX_NOTIFICATIONS: u64 = 86_400;

/// The ETag option (RFC 7252 §5.10.6).
const ETAG: u16 = 4;

/// The largest body `/obs?size=N` serves, bytes.
pub const MAX_OBSERVED_BODY_BYTES: usize = 64 << 10;

/// The body of `/obs?size=n` at `counter`: `<counter>\n` repeated and cut at `n` bytes; the
/// counter's digits alone when `n` is 0 (plain `/obs`).
pub fn observed_body(counter: u64, n: usize) -> Vec<u8> {
    let line = format!("{counter}\n");
    if n == 0 {
        return counter.to_string().into_bytes();
    }
    line.bytes().cycle().take(n).collect()
}

/// The ETag of the counter's representation (RFC 7252 §5.10.6: 1–8 bytes).
fn etag(counter: u64) -> Vec<u8> {
    let b = counter.to_be_bytes();
    let first = b.iter().position(|&x| x != 0).unwrap_or(7);
    b[first..].to_vec()
}

/// An observation: where its notifications go, its token, the counter when it registered,
/// the body size it asked for (`size=N`) and the size exponent of its blocks.
#[derive(Debug)]
struct Observer {
    to: SocketAddr,
    token: Token,
    since: u64,
    size: usize,
    szx: u8,
}

#[derive(Debug, Default)]
struct State {
    counter: u64,
    /// Sequence numbers are 24 bits (RFC 7641 §4.4).
    sequence: u32,
    next_mid: u16,
    /// Each observation.
    observers: Vec<Observer>,
}

/// The observers of `/obs` and its counter, shared by the handler and the server task.
#[derive(Clone, Debug, Default)]
pub struct Observers(Arc<Mutex<State>>);

impl Observers {
    /// No observers; notifications' Message IDs start at `first_mid` (RFC 7252 §4.4: a
    /// random value).
    pub fn new(first_mid: u16) -> Self {
        Observers(Arc::new(Mutex::new(State { next_mid: first_mid, ..State::default() })))
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Observers registered now.
    pub fn len(&self) -> usize {
        self.state().observers.len()
    }

    /// Whether nobody observes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Advances the counter and returns one NON notification per observer, with where it goes.
    pub fn notify(&self) -> Vec<(SocketAddr, Message)> {
        let mut s = self.state();
        s.counter += 1;
        s.sequence = (s.sequence + 1) & 0xff_ffff;
        let counter = s.counter;
        s.observers.retain(|o| counter - o.since <= MAX_NOTIFICATIONS);
        let (counter, sequence) = (s.counter, s.sequence);
        let targets: Vec<(SocketAddr, Token, usize, u8)> =
            s.observers.iter().map(|o| (o.to, o.token, o.size, o.szx)).collect();
        targets
            .into_iter()
            .map(|(to, token, size, szx)| {
                let mid = s.next_mid;
                s.next_mid = s.next_mid.wrapping_add(1);
                let mut m = Message {
                    mtype: MessageType::Non,
                    code: Code::CONTENT,
                    mid,
                    token,
                    ..Message::empty(MessageType::Non, mid)
                };
                m.add_option(OBSERVE, encode_uint(sequence));
                m.add_option(option::CONTENT_FORMAT, encode_uint(0));
                let body = observed_body(counter, size);
                if size > 0 {
                    m.add_option(ETAG, etag(counter));
                }
                match crate::block::range(body.len(), 0, szx) {
                    // RFC 7959 §3.4: block 0, the client asks for the rest.
                    Some((from, to, true)) => {
                        m.add_option(option::BLOCK2, Block { num: 0, more: true, szx }.encode());
                        m.add_option(option::SIZE2, encode_uint(u32::try_from(body.len()).unwrap_or(u32::MAX)));
                        m.payload = Payload::from(body[from..to].to_vec());
                    }
                    _ => m.payload = Payload::from(body),
                }
                (to, m)
            })
            .collect()
    }

    /// The reply to a GET of `/obs` from `from`, registering or deregistering it.
    fn reply(&self, from: SocketAddr, request: &Message) -> Reply {
        let Some(size) = super::data_size(request).ok().filter(|n| *n <= MAX_OBSERVED_BODY_BYTES) else {
            return super::text(Code::BAD_REQUEST, "size=N with N at most 65536");
        };
        let asked = request.option(option::BLOCK2).map(Block::decode);
        let mut s = self.state();
        s.observers.retain(|o| !(o.to == from && o.token == request.token));
        let observe = request.option(OBSERVE).map(|v| decode_uint(v).unwrap_or(u32::MAX));
        let counter = s.counter;
        let body_bytes = observed_body(counter, size);
        let mut reply = body(request, Content::Owned(&body_bytes), Some(0));
        if observe == Some(0) && reply.code == Code::CONTENT {
            if s.observers.len() >= MAX_OBSERVERS {
                s.observers.remove(0);
            }
            let szx = asked.flatten().map_or(MAX_SZX, |b| b.szx);
            s.observers.push(Observer { to: from, token: request.token, since: counter, size, szx });
            insert(&mut reply, OBSERVE, &encode_uint(s.sequence));
        }
        if size > 0 && reply.code == Code::CONTENT {
            insert(&mut reply, ETAG, &etag(counter));
        }
        reply
    }
}

/// Adds option `number` to `reply`, keeping the options ordered by number.
fn insert(reply: &mut Reply, number: u16, value: &[u8]) {
    let at = reply.options.partition_point(|o| o.number <= number);
    reply.options.insert(at, option_value(number, value));
}

/// The resources of `coapcc server` ([`super::Resources`]) with the observable `/obs`.
#[derive(Clone, Debug)]
pub struct ObservableResources {
    /// The observers of `/obs`.
    pub observers: Observers,
}

impl Handler for ObservableResources {
    fn handle(&self, from: SocketAddr, request: &Message) -> Reply {
        match (request.uri_path().as_str(), request.code) {
            ("obs", Code::GET) => self.observers.reply(from, request),
            ("obs", _) => Reply::code(Code::METHOD_NOT_ALLOWED),
            _ => super::reply(request),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(token: u8, observe: Option<u32>) -> Message {
        let mut m = crate::config::request(Code::GET, "obs", "");
        m.token = Token::new(&[token]).unwrap();
        if let Some(o) = observe {
            m.add_option(OBSERVE, encode_uint(o));
        }
        m
    }

    #[test]
    fn a_registered_observer_gets_one_notification_per_tick_until_it_deregisters() {
        let obs = ObservableResources { observers: Observers::new(100) };
        let client: SocketAddr = "127.0.0.1:4000".parse().unwrap();
        let first = obs.handle(client, &get(7, Some(0)));
        assert_eq!(first.code, Code::CONTENT);
        assert!(first.options.iter().any(|o| o.number == OBSERVE), "RFC 7641 §4.1: the reply carries Observe");
        let n = obs.observers.notify();
        assert_eq!(n.len(), 1);
        let (to, m) = &n[0];
        assert_eq!((*to, m.mtype, m.code, m.token.as_bytes()), (client, MessageType::Non, Code::CONTENT, &[7u8][..]));
        assert_eq!(m.option(OBSERVE).and_then(decode_uint), Some(1));
        assert_eq!(&m.payload[..], b"1");
        let seq2 = obs.observers.notify()[0].1.option(OBSERVE).and_then(decode_uint);
        assert_eq!(seq2, Some(2), "RFC 7641 §4.4: the sequence number rises");
        let bye = obs.handle(client, &get(7, Some(1)));
        assert!(bye.options.iter().all(|o| o.number != OBSERVE), "RFC 7641 §3.6: no Observe after deregistration");
        assert!(obs.observers.notify().is_empty());
        let plain = obs.handle(client, &get(8, None));
        assert_eq!(&plain.payload[..], b"3", "three ticks so far");
        assert!(obs.observers.is_empty());
    }
}
