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

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

use coapcc_proto::{Code, Message, MessageType, Options, Payload, Token, decode_uint, encode_uint, option};

use coapcc_proto::option::OBSERVE;

use crate::runtime::{Handler, Reply};

/// The most observations `/obs` keeps at once.
pub const MAX_OBSERVERS: usize = 64;

/// The most notifications one observation gets (a day at the default interval of 1 s).
pub const MAX_NOTIFICATIONS: u64 = 86_400;

#[derive(Debug, Default)]
struct State {
    counter: u64,
    /// Sequence numbers are 24 bits (RFC 7641 §4.4).
    sequence: u32,
    next_mid: u16,
    /// Each observer with the counter value when it registered.
    observers: Vec<(SocketAddr, Token, u64)>,
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
        s.observers.retain(|(.., since)| counter - since <= MAX_NOTIFICATIONS);
        let (counter, sequence) = (s.counter, s.sequence);
        let targets: Vec<(SocketAddr, Token)> = s.observers.iter().map(|(a, t, _)| (*a, *t)).collect();
        targets
            .into_iter()
            .map(|(to, token)| {
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
                m.payload = Payload::from(counter.to_string().into_bytes());
                (to, m)
            })
            .collect()
    }

    /// The reply to a GET of `/obs` from `from`, registering or deregistering it.
    fn reply(&self, from: SocketAddr, request: &Message) -> Reply {
        let mut s = self.state();
        s.observers.retain(|(a, t, _)| !(*a == from && *t == request.token));
        let observe = request.option(OBSERVE).map(|v| decode_uint(v).unwrap_or(u32::MAX));
        let mut options = Options::new();
        if observe == Some(0) {
            if s.observers.len() >= MAX_OBSERVERS {
                s.observers.remove(0);
            }
            let counter = s.counter;
            s.observers.push((from, request.token, counter));
            options.push(coapcc_proto::CoapOption {
                number: OBSERVE,
                value: coapcc_proto::OptionValue::from_slice(&encode_uint(s.sequence)),
            });
        }
        options.push(coapcc_proto::CoapOption {
            number: option::CONTENT_FORMAT,
            value: coapcc_proto::OptionValue::from_slice(&encode_uint(0)),
        });
        Reply { code: Code::CONTENT, options, payload: Payload::from(s.counter.to_string().into_bytes()) }
    }
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
