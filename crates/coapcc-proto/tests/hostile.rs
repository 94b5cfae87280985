//! The endpoint against hostile input: copies that are not copies, caches bounded in bytes,
//! responses with foreign tokens, separate responses that overtake their empty ACK, and
//! datagrams with format errors.

use std::sync::Arc;

use coapcc_core::Instant;
use coapcc_proto::codec::{DecodeError, decode, encode};
use coapcc_proto::{Code, EchoMode, EndpointConfig, Event, Message, MessageType, Origin, Token, Transmit};
use coapcc_proto::{Payload, encode_uint, option};

mod common;
use common::{CLIENT, Ep, SERVER, at, config, endpoint, events, transmits};

/// Feeds `bytes` to the server as a datagram from `from`, answers every new request with its
/// own payload (as `/echo` does) and returns what the server sends back.
fn echo_server(s: &mut Ep, now: Instant, from: u32, bytes: &[u8]) -> Vec<Transmit<u32>> {
    s.handle_datagram(now, from, bytes);
    for e in events(s) {
        if let Event::Request { handle, request } = e {
            s.respond(now, handle, Code::CHANGED, request.payload.clone());
        }
    }
    transmits(s)
}

/// A CON PUT `/echo` with a 2-byte token and `payload`.
fn put_echo(mid: u16, payload: Vec<u8>) -> Message {
    let mut m = Message::con_request(Code::PUT, "echo");
    m.mid = mid;
    m.token = Token::new(&[0xab, 0xcd]).unwrap();
    m.payload = Payload::from(payload);
    m
}

#[test]
fn a_payload_marker_followed_by_no_payload_is_a_format_error() {
    // RFC 7252 §3: "The presence of a marker followed by a zero-length payload MUST be
    // processed as a message format error."
    let mut bytes = encode(&put_echo(7, Vec::new()));
    assert!(decode(&bytes).is_ok());
    bytes.push(0xff);
    assert_eq!(decode(&bytes), Err(DecodeError::EmptyPayload));
    // An option value ending in 0xff is not a marker.
    let mut m = put_echo(7, Vec::new());
    m.add_option(option::URI_QUERY, [0xff]);
    assert_eq!(decode(&encode(&m)), Ok(m));
}

#[test]
fn a_format_error_in_a_confirmable_message_is_answered_with_a_reset_of_its_message_id() {
    // RFC 7252 §4.2: a CON with a message format error is rejected with a matching Reset.
    let mut s = endpoint(config("default", EchoMode::None));
    let mut bytes = encode(&put_echo(0x0abc, Vec::new()));
    bytes.push(0xff);
    let out = echo_server(&mut s, at(0), CLIENT, &bytes);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!((out[0].msg.mtype, out[0].msg.code, out[0].msg.mid), (MessageType::Rst, Code::EMPTY, 0x0abc));
    assert_eq!(s.stats().malformed, 1);
    // A NON with the same error, and bytes without a CoAP header, are only counted.
    bytes[0] = (bytes[0] & 0xcf) | 0x10;
    assert!(echo_server(&mut s, at(0), CLIENT, &bytes).is_empty());
    assert!(echo_server(&mut s, at(0), CLIENT, &[0x40, 0x01]).is_empty());
    assert_eq!(s.stats().malformed, 3);
}

#[test]
fn a_bare_header_reusing_the_message_id_of_a_large_put_is_a_new_message_and_draws_no_cached_reply() {
    // The reproduction: PUT /echo with 60 kB, then `40 01 <mid>` (CON GET, no token, no
    // options) from the same source. It is not a copy of the PUT, so it must not get the
    // 60 005-byte cached reply: it is a new request (a GET of the root).
    let mut s = endpoint(config("default", EchoMode::None));
    let put = put_echo(0x1234, vec![b'x'; 60_000]);
    let first = echo_server(&mut s, at(0), CLIENT, &encode(&put));
    assert_eq!(first[0].msg.payload.len(), 60_000);
    let header = [0x40, 0x01, 0x12, 0x34];
    s.handle_datagram(at(1), CLIENT, &header);
    let new = events(&mut s);
    assert!(
        matches!(&new[..], [Event::Request { request, .. }] if request.code == Code::GET && request.payload.is_empty()),
        "{new:?}"
    );
    assert!(transmits(&mut s).is_empty(), "nothing is sent from the cache");
    assert_eq!(s.stats().duplicates_answered, 0);
    assert_eq!(s.stats().message_id_reuses, 1);
}

#[test]
fn a_non_reusing_the_message_id_of_a_con_is_a_new_message_answered_with_a_non() {
    let mut s = endpoint(config("default", EchoMode::None));
    let put = put_echo(0x0101, b"hello".to_vec());
    echo_server(&mut s, at(0), CLIENT, &encode(&put));
    let non = Message { mtype: MessageType::Non, ..put.clone() };
    let out = echo_server(&mut s, at(1), CLIENT, &encode(&non));
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].msg.mtype, out[0].origin), (MessageType::Non, Origin::Response { duplicate: false }));
}

#[test]
fn a_copy_with_another_payload_token_code_or_option_is_a_new_message() {
    let put = put_echo(0x0202, b"hello".to_vec());
    let mut other_option = put.clone();
    other_option.add_option(option::URI_QUERY, b"x");
    let variants = [
        Message { payload: Payload::from_static(b"hellO"), ..put.clone() },
        Message { payload: Payload::new(), ..put.clone() },
        Message { token: Token::new(&[0xab, 0xcd, 0x00]).unwrap(), ..put.clone() },
        Message { token: Token::new(&[0xac, 0xcd]).unwrap(), ..put.clone() },
        Message { code: Code::POST, ..put.clone() },
        other_option,
    ];
    for v in variants {
        let mut s = endpoint(config("default", EchoMode::None));
        echo_server(&mut s, at(0), CLIENT, &encode(&put));
        let out = echo_server(&mut s, at(1), CLIENT, &encode(&v));
        assert_eq!(out.len(), 1, "{v:?}");
        assert_eq!(out[0].origin, Origin::Response { duplicate: false }, "{v:?}");
        assert_eq!(out[0].msg.payload, v.payload, "{v:?} is answered for itself");
    }
}

#[test]
fn copies_differing_only_by_the_transmission_count_echo_are_duplicates_answered_with_their_own_echo() {
    // FASOR's token byte (the token's last byte) and the Transmission-Count option are what
    // distinguish copies of one request; a copy differing only there is a duplicate.
    let put = put_echo(0x0303, b"hello".to_vec());
    let mut with_count = put.clone();
    with_count.add_option(option::TRANSMISSION_COUNT, encode_uint(0));
    let mut copy_count = put.clone();
    copy_count.add_option(option::TRANSMISSION_COUNT, encode_uint(2));
    let token_copy = Message { token: Token::new(&[0xab, 0x01]).unwrap(), ..put.clone() };
    for (original, copy) in [(put.clone(), token_copy), (with_count, copy_count)] {
        let mut s = endpoint(config("default", EchoMode::None));
        let first = echo_server(&mut s, at(0), CLIENT, &encode(&original));
        let out = echo_server(&mut s, at(1), CLIENT, &encode(&copy));
        assert_eq!(out[0].origin, Origin::Response { duplicate: true }, "{copy:?}");
        assert_eq!(out[0].msg.token, copy.token);
        assert_eq!(out[0].msg.option(option::TRANSMISSION_COUNT), copy.option(option::TRANSMISSION_COUNT));
        // RFC 7252 §11.3: the duplicate's answer grows exactly as the copy grew.
        let grown = out[0].msg.wire_len() as i64 - first[0].msg.wire_len() as i64;
        assert_eq!(grown, copy.wire_len() as i64 - original.wire_len() as i64);
    }
}

#[test]
fn the_duplicate_cache_is_bounded_in_bytes_and_forgets_the_oldest_answers_first() {
    let budget = 1 << 20;
    let mut s = endpoint(EndpointConfig { duplicate_cache_bytes: budget, ..config("default", EchoMode::None) });
    for i in 0..200u16 {
        echo_server(&mut s, at(u64::from(i)), CLIENT, &encode(&put_echo(i, vec![b'x'; 60_000])));
        assert!(s.duplicate_cache_bytes() <= budget, "{} bytes after {i}", s.duplicate_cache_bytes());
    }
    // 1 MiB holds 17 answers of 60 kB (and their bookkeeping), not 18.
    assert!((15..=17).contains(&s.duplicate_cache_len()), "{}", s.duplicate_cache_len());
    assert_eq!(s.stats().duplicate_evictions, 200 - s.duplicate_cache_len() as u64);
    // The newest answer is still there; the oldest was forgotten (its copy is a new request).
    let newest = echo_server(&mut s, at(300), CLIENT, &encode(&put_echo(199, vec![b'x'; 60_000])));
    assert_eq!(newest[0].origin, Origin::Response { duplicate: true });
    let oldest = echo_server(&mut s, at(300), CLIENT, &encode(&put_echo(0, vec![b'x'; 60_000])));
    assert_eq!(oldest[0].origin, Origin::Response { duplicate: false });
}

#[test]
fn the_answer_to_a_request_replaced_by_a_new_message_with_its_message_id_is_refused() {
    // The application still holds the handle of the first request when a different message
    // with the same Message ID arrives: that handle no longer answers anything.
    let mut s = endpoint(config("default", EchoMode::None));
    s.handle_datagram(at(0), CLIENT, &encode(&put_echo(9, b"one".to_vec())));
    let Some(Event::Request { handle: first, .. }) = s.poll_event() else { panic!("no request") };
    s.handle_datagram(at(1), CLIENT, &encode(&put_echo(9, b"two".to_vec())));
    let Some(Event::Request { handle: second, request }) = s.poll_event() else { panic!("no second request") };
    assert_eq!(&request.payload[..], b"two");
    s.respond(at(2), first, Code::CHANGED, Payload::from_static(b"one"));
    assert!(transmits(&mut s).is_empty());
    s.respond(at(2), second, Code::CHANGED, Payload::from_static(b"two"));
    assert_eq!(&transmits(&mut s)[0].msg.payload[..], b"two");
}

/// A client with one request outstanding towards the server, and that request as sent.
fn client_with_request(name: &str, echo: EchoMode) -> (Ep, Arc<Message>) {
    let mut c = endpoint(config(name, echo));
    c.request(at(0), SERVER, Message::con_request(Code::GET, "res"));
    let req = transmits(&mut c).remove(0).msg;
    (c, req)
}

fn piggybacked(req: &Message, token: Token) -> Arc<Message> {
    let mut r =
        Message { mtype: MessageType::Ack, code: Code::CONTENT, token, ..Message::empty(MessageType::Ack, req.mid) };
    if let Some(v) = req.option(option::TRANSMISSION_COUNT) {
        r.add_option(option::TRANSMISSION_COUNT, v);
    }
    Arc::new(r)
}

#[test]
fn a_response_whose_token_merely_starts_with_the_request_token_is_not_taken_for_any_echo_mode() {
    // RFC 7252 §5.3.2: the response's token is the request's. `eedd` appended is another token.
    for echo in [EchoMode::None, EchoMode::Token, EchoMode::Option] {
        let (mut c, req) = client_with_request("default", echo);
        let mut longer = req.token.as_bytes().to_vec();
        longer.extend([0xee, 0xdd]);
        c.handle_message(at(10), SERVER, piggybacked(&req, Token::new(&longer).unwrap()));
        assert_eq!(c.stats().unmatched, 1, "{echo:?}");
        assert!(events(&mut c).iter().all(|e| !matches!(e, Event::Completed { .. })), "{echo:?}");
        // The exact token completes it.
        c.handle_message(at(20), SERVER, piggybacked(&req, req.token));
        assert!(events(&mut c).iter().any(|e| matches!(e, Event::Completed { .. })), "{echo:?}");
    }
}

#[test]
fn a_token_echo_naming_a_copy_that_was_never_sent_is_not_taken() {
    // FASOR's token: the request token plus the copy byte of a copy actually sent.
    let (mut c, req) = client_with_request("default", EchoMode::Token);
    let base = &req.token.as_bytes()[..req.token.len() - 1];
    let unsent = Token::new(&[base, &[3]].concat()).unwrap();
    c.handle_message(at(10), SERVER, piggybacked(&req, unsent));
    assert_eq!(c.stats().unmatched, 1);
    c.handle_timeout(at(2_000));
    let copy1 = transmits(&mut c).remove(0).msg;
    c.handle_message(at(2_010), SERVER, piggybacked(&copy1, copy1.token));
    assert!(events(&mut c).iter().any(|e| matches!(e, Event::Completed { echoed_copy: Some(1), .. })));
}

#[test]
fn a_separate_con_response_arriving_before_the_lost_empty_ack_acknowledges_the_exchange() {
    // RFC 7252 §5.2.2: the client takes it as the acknowledgement, acknowledges it and ends
    // the exchange (no Reset, no retransmission).
    for (name, echo) in [("default", EchoMode::None), ("fasor-token", EchoMode::Token), ("pcocoa", EchoMode::Option)] {
        let (mut c, req) = client_with_request(name, echo);
        events(&mut c);
        let mut sep = Message::clone(&piggybacked(&req, req.token));
        sep.mtype = MessageType::Con;
        sep.mid = 0x7001;
        sep.payload = Payload::from_static(b"late");
        c.handle_message(at(300), SERVER, Arc::new(sep));
        let out = transmits(&mut c);
        assert_eq!(out.len(), 1, "{name}: {out:?}");
        assert_eq!((out[0].msg.mtype, out[0].msg.code, out[0].msg.mid), (MessageType::Ack, Code::EMPTY, 0x7001));
        let ev = events(&mut c);
        assert!(ev.iter().any(|e| matches!(e, Event::Completed { response: None, .. })), "{name}: {ev:?}");
        assert!(
            ev.iter().any(|e| matches!(e, Event::Response { response, .. } if &response.payload[..] == b"late")),
            "{name}: {ev:?}"
        );
        assert_eq!(c.pending(&SERVER), 0);
        assert_eq!(c.poll_timeout(), None, "{name}: nothing left to retransmit");
        assert_eq!(c.stats().resets_sent, 0);
    }
}
