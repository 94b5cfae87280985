//! Endpoint behaviour through its public API: a client and a server wired by hand.

use std::time::Duration;

use coapcc_core::Instant;
use coapcc_proto::{Code, EchoMode, Endpoint, EndpointConfig, Event, Message, MessageType, Origin, Token, Transmit};
use coapcc_proto::{Payload, encode_uint, option};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

mod common;
use common::{CLIENT, Ep, SERVER, at, config, endpoint, events, transmits};

fn get() -> Message {
    // testbeds §1: "one Uri-Path option of 4 B": a 1-byte option header and a 3-byte path.
    Message::con_request(Code::GET, "res")
}

/// Delivers `t` to the server, answers new requests with a 20-byte payload, returns what the
/// server sends back.
fn serve(server: &mut Ep, now: Instant, t: Transmit<u32>) -> Vec<Transmit<u32>> {
    server.handle_message(now, CLIENT, std::sync::Arc::clone(&t.msg));
    for e in events(server) {
        if let Event::Request { handle, .. } = e {
            server.respond(now, handle, Code::CONTENT, vec![0; 20]);
        }
    }
    transmits(server)
}

#[test]
fn a_request_answered_by_a_piggybacked_response_completes_with_its_rtt() {
    let (mut c, mut s) = (endpoint(config("default", EchoMode::None)), endpoint(config("default", EchoMode::None)));
    let id = c.request(at(0), SERVER, get());
    let out = transmits(&mut c);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].msg.wire_len(), 10, "testbeds §1 request size");
    assert_eq!(out[0].origin, Origin::Request { id, copy: 0 });
    let back = serve(&mut s, at(300), out[0].clone());
    assert_eq!(back.len(), 1);
    assert_eq!(back[0].msg.mtype, MessageType::Ack);
    assert_eq!(back[0].msg.mid, out[0].msg.mid);
    assert_eq!(back[0].msg.token, out[0].msg.token);
    assert_eq!(back[0].msg.wire_len(), 27, "testbeds §1 response size");
    c.handle_message(at(600), SERVER, std::sync::Arc::clone(&back[0].msg));
    let ev = events(&mut c);
    assert!(matches!(
        ev.last(),
        Some(Event::Completed { id: i, rtt, retransmissions: 0, response: Some(_), .. })
            if *i == id && *rtt == Duration::from_millis(600)
    ));
    assert_eq!(c.poll_timeout(), None);
}

#[test]
fn a_lost_request_is_retransmitted_with_the_same_message_id_and_the_duplicate_answered_from_the_cache() {
    let (mut c, mut s) = (endpoint(config("default", EchoMode::None)), endpoint(config("default", EchoMode::None)));
    c.request(at(0), SERVER, get());
    let first = transmits(&mut c).remove(0);
    assert_eq!(c.poll_timeout(), Some(at(2000)));
    c.handle_timeout(at(2000));
    let second = transmits(&mut c).remove(0);
    assert_eq!(second.msg, first.msg);
    assert!(matches!(second.origin, Origin::Request { copy: 1, .. }));
    // Both copies reach the server: the second is a duplicate, answered with the same response.
    let r1 = serve(&mut s, at(2100), first);
    let r2 = serve(&mut s, at(2200), second);
    assert_eq!(r1[0].msg, r2[0].msg);
    assert_eq!(r2[0].origin, Origin::Response { duplicate: true });
    assert_eq!(s.stats().duplicates_answered, 1);
    c.handle_message(at(2400), SERVER, std::sync::Arc::clone(&r1[0].msg));
    c.handle_message(at(2500), SERVER, std::sync::Arc::clone(&r2[0].msg));
    assert_eq!(c.stats().unmatched, 1, "the late duplicate ACK matches nothing");
    assert_eq!(c.stats().retransmissions, 1);
}

#[test]
fn nstart_one_queues_the_second_request_until_the_first_completes() {
    let (mut c, mut s) = (endpoint(config("default", EchoMode::None)), endpoint(config("default", EchoMode::None)));
    c.request(at(0), SERVER, get());
    c.request(at(0), SERVER, get());
    let out = transmits(&mut c);
    assert_eq!(out.len(), 1);
    assert_eq!(c.pending(&SERVER), 2);
    let back = serve(&mut s, at(100), out[0].clone());
    c.handle_message(at(200), SERVER, std::sync::Arc::clone(&back[0].msg));
    let next = transmits(&mut c);
    assert_eq!(next.len(), 1);
    assert_eq!(next[0].msg.mid, out[0].msg.mid.wrapping_add(1));
    assert_ne!(next[0].msg.token, out[0].msg.token);
}

#[test]
fn nstart_four_sends_four_at_once() {
    let mut c = endpoint(EndpointConfig { nstart: 4, ..config("default", EchoMode::None) });
    for _ in 0..6 {
        c.request(at(0), SERVER, get());
    }
    assert_eq!(transmits(&mut c).len(), 4);
}

#[test]
fn an_unanswered_request_fails_after_max_retransmit_retransmissions() {
    let mut c = endpoint(config("default", EchoMode::None));
    let id = c.request(at(0), SERVER, get());
    let mut expired = Vec::new();
    while let Some(t) = c.poll_timeout() {
        c.handle_timeout(t);
        for e in events(&mut c) {
            match e {
                Event::TimerExpired { timer, .. } => expired.push(timer.as_millis()),
                Event::Failed { id: i, retransmissions, reset, .. } => {
                    assert_eq!((i, retransmissions, reset), (id, 4, false));
                    assert_eq!(t, at(62_000));
                }
                _ => {}
            }
        }
    }
    assert_eq!(expired, [2000, 4000, 8000, 16000, 32000]);
    assert_eq!(transmits(&mut c).len(), 5);
}

#[test]
fn the_token_echo_adds_a_byte_numbering_each_copy_and_the_ack_names_the_copy() {
    let cfg = config("default", EchoMode::Token);
    let (mut c, mut s) = (endpoint(cfg.clone()), endpoint(cfg));
    c.request(at(0), SERVER, get());
    let first = transmits(&mut c).remove(0);
    assert_eq!(first.msg.wire_len(), 11, "testbeds §1: one more token byte");
    assert_eq!(*first.msg.token.as_bytes().last().unwrap(), 0);
    c.handle_timeout(at(2000));
    let second = transmits(&mut c).remove(0);
    assert_eq!(*second.msg.token.as_bytes().last().unwrap(), 1);
    let r1 = serve(&mut s, at(2100), first);
    let r2 = serve(&mut s, at(2200), second);
    assert_eq!(*r2[0].msg.token.as_bytes().last().unwrap(), 1, "the duplicate's own token is echoed");
    events(&mut c);
    c.handle_message(at(2300), SERVER, std::sync::Arc::clone(&r1[0].msg));
    assert!(
        events(&mut c).iter().any(|e| matches!(e, Event::Completed { echoed_copy: Some(0), retransmissions: 1, .. }))
    );
}

#[test]
fn the_option_echo_carries_the_copy_number_and_the_server_echoes_it() {
    let cfg = config("default", EchoMode::Option);
    let (mut c, mut s) = (endpoint(cfg.clone()), endpoint(cfg));
    c.request(at(0), SERVER, get());
    let first = transmits(&mut c).remove(0);
    assert_eq!(first.msg.option(option::TRANSMISSION_COUNT), Some(&[][..]));
    c.handle_timeout(at(2000));
    let second = transmits(&mut c).remove(0);
    assert_eq!(second.msg.option(option::TRANSMISSION_COUNT), Some(&encode_uint(1)[..]));
    serve(&mut s, at(2100), first);
    let r2 = serve(&mut s, at(2200), second);
    assert_eq!(r2[0].msg.option(option::TRANSMISSION_COUNT), Some(&encode_uint(1)[..]));
    events(&mut c);
    c.handle_message(at(2300), SERVER, std::sync::Arc::clone(&r2[0].msg));
    assert!(events(&mut c).iter().any(|e| matches!(e, Event::Completed { echoed_copy: Some(1), .. })));
}

#[test]
fn an_empty_ack_completes_the_exchange_and_the_separate_response_is_acknowledged() {
    let mut c = endpoint(config("default", EchoMode::None));
    let id = c.request(at(0), SERVER, get());
    let req = transmits(&mut c).remove(0);
    c.handle_message(at(100), SERVER, std::sync::Arc::new(Message::empty(MessageType::Ack, req.msg.mid)));
    assert!(events(&mut c).iter().any(|e| matches!(e, Event::Completed { response: None, .. })));
    let resp = Message {
        mtype: MessageType::Con,
        code: Code::CONTENT,
        mid: 77,
        token: req.msg.token,
        options: Default::default(),
        payload: Payload::from_static(b"x"),
    };
    c.handle_message(at(900), SERVER, std::sync::Arc::new(resp.clone()));
    assert!(events(&mut c).iter().any(|e| matches!(e, Event::Response { id: i, .. } if *i == id)));
    let ack = transmits(&mut c).remove(0);
    assert_eq!((ack.msg.mtype, ack.msg.mid, ack.msg.code), (MessageType::Ack, 77, Code::EMPTY));
}

#[test]
fn a_reset_fails_the_exchange() {
    let mut c = endpoint(config("default", EchoMode::None));
    c.request(at(0), SERVER, get());
    let req = transmits(&mut c).remove(0);
    c.handle_message(at(100), SERVER, std::sync::Arc::new(Message::empty(MessageType::Rst, req.msg.mid)));
    assert!(events(&mut c).iter().any(|e| matches!(e, Event::Failed { reset: true, .. })));
    assert_eq!(c.poll_timeout(), None);
}

#[test]
fn a_response_with_a_foreign_token_is_not_taken() {
    let mut c = endpoint(config("default", EchoMode::None));
    c.request(at(0), SERVER, get());
    let req = transmits(&mut c).remove(0);
    let bogus = Message {
        mtype: MessageType::Ack,
        code: Code::CONTENT,
        mid: req.msg.mid,
        token: Token::new(&[9, 9, 9]).unwrap(),
        options: Default::default(),
        payload: Default::default(),
    };
    c.handle_message(at(100), SERVER, std::sync::Arc::new(bogus.clone()));
    assert_eq!(c.stats().unmatched, 1);
    assert!(c.poll_timeout().is_some());
}

#[test]
fn malformed_datagrams_are_counted_and_dropped() {
    let mut c = endpoint(config("default", EchoMode::None));
    c.handle_datagram(at(0), SERVER, &[0xff, 0x00]);
    c.handle_datagram(at(0), SERVER, &[]);
    assert_eq!(c.stats().malformed, 2);
}

#[test]
fn the_server_forgets_requests_after_the_exchange_lifetime() {
    let mut s = endpoint(config("default", EchoMode::None));
    let mut req = get();
    req.mid = 5;
    req.token = Token::new(&[1, 2]).unwrap();
    let t = Transmit { to: SERVER, msg: std::sync::Arc::new(req.clone()), origin: Origin::Empty };
    serve(&mut s, at(0), t.clone());
    serve(&mut s, at(1000), t.clone());
    assert_eq!(s.stats().duplicates_answered, 1);
    let back = serve(&mut s, at(248_000), t);
    assert_eq!(back[0].origin, Origin::Response { duplicate: false });
}

#[test]
fn an_auto_responding_server_answers_at_once_without_an_application_event() {
    let mut cfg = config("default", EchoMode::None);
    cfg.auto_response = Some(coapcc_proto::AutoResponse { code: Code::CONTENT, payload: Payload::from_static(b"hi") });
    let mut s = endpoint(cfg);
    let mut c = endpoint(config("default", EchoMode::None));
    c.request(at(0), SERVER, get());
    let req = transmits(&mut c).remove(0);
    s.handle_message(at(10), CLIENT, std::sync::Arc::clone(&req.msg));
    assert!(events(&mut s).is_empty());
    let back = transmits(&mut s);
    assert_eq!(back.len(), 1);
    assert_eq!((back[0].msg.code, back[0].msg.payload.as_ref()), (Code::CONTENT, &b"hi"[..]));
    s.handle_message(at(20), CLIENT, std::sync::Arc::clone(&req.msg));
    assert_eq!(transmits(&mut s)[0].origin, Origin::Response { duplicate: true });
}

#[test]
fn an_auto_responding_server_serves_the_block_a_block2_request_asks_for_with_its_more_flag() {
    use coapcc_proto::block::Block;
    // A 1 000-byte resource in 256-byte blocks (SZX 4, RFC 7959 §2.2: 2^(4+4)): blocks 0–2
    // full with M set, block 3 the last 1000 − 3·256 = 232 bytes with M clear; block 4 is
    // beyond the end.
    let body: Vec<u8> = (0..1000u32).map(|i| i as u8).collect();
    let mut cfg = config("default", EchoMode::None);
    cfg.auto_response = Some(coapcc_proto::AutoResponse { code: Code::CONTENT, payload: Payload::from(body.clone()) });
    let mut s = endpoint(cfg);
    let mut c = endpoint(config("default", EchoMode::None));
    for (num, len, more) in [(0u32, 256usize, true), (1, 256, true), (3, 232, false)] {
        let mut req = get();
        req.add_option(option::BLOCK2, Block { num, more: false, szx: 4 }.encode());
        c.request(at(0), SERVER, req);
        let back = serve(&mut s, at(0), transmits(&mut c).remove(0));
        c.handle_message(at(0), SERVER, std::sync::Arc::clone(&back[0].msg));
        let msg = &back[0].msg;
        assert_eq!(msg.code, Code::CONTENT);
        let from = num as usize * 256;
        assert_eq!(msg.payload.as_ref(), &body[from..from + len], "block {num}");
        assert_eq!(msg.option(option::BLOCK2).and_then(Block::decode), Some(Block { num, more, szx: 4 }));
        // RFC 7252 §3 and RFC 7959 §2.2 by hand: 4 header + 2 token + Block2 (delta 23: one
        // extended-delta byte; the value NUM·16 + M·8 + SZX in one byte) + marker + payload.
        assert_eq!(msg.wire_len(), 4 + 2 + (1 + 1 + 1) + 1 + len, "block {num}");
    }
    let mut beyond = get();
    beyond.add_option(option::BLOCK2, Block { num: 4, more: false, szx: 4 }.encode());
    c.request(at(0), SERVER, beyond);
    let back = serve(&mut s, at(0), transmits(&mut c).remove(0));
    c.handle_message(at(0), SERVER, std::sync::Arc::clone(&back[0].msg));
    assert_eq!((back[0].msg.code, back[0].msg.payload.len()), (Code::BAD_REQUEST, 0));
    // Without Block2 the whole payload, as before.
    c.request(at(0), SERVER, get());
    let back = serve(&mut s, at(0), transmits(&mut c).remove(0));
    assert_eq!((back[0].msg.payload.len(), back[0].msg.option(option::BLOCK2)), (1000, None));
}

fn con(mid: u16, code: Code) -> std::sync::Arc<Message> {
    let mut m = Message::empty(MessageType::Con, mid);
    m.code = code;
    std::sync::Arc::new(m)
}

#[test]
fn a_flood_of_distinct_requests_never_grows_the_duplicate_cache_past_its_bound() {
    let mut s = endpoint(EndpointConfig { duplicate_cache_entries: 100, ..config("default", EchoMode::None) });
    for i in 0..10_000u32 {
        s.handle_message(at(u64::from(i)), i, con(i as u16, Code::GET));
        for e in events(&mut s) {
            if let Event::Request { handle, .. } = e {
                s.respond(at(u64::from(i)), handle, Code::CONTENT, Payload::new());
            }
        }
        transmits(&mut s);
        assert!(s.duplicate_cache_len() <= 100);
    }
    assert_eq!(s.duplicate_cache_len(), 100);
    assert_eq!(s.stats().duplicate_evictions, 9_900);
    // The newest requests are still remembered: a duplicate of the last one is answered again.
    s.handle_message(at(10_000), 9_999, con(9_999u32 as u16, Code::GET));
    assert_eq!(s.stats().duplicates_answered, 1);
}

#[test]
fn an_empty_con_is_answered_with_a_reset_of_the_same_message_id() {
    let mut s = endpoint(config("default", EchoMode::None));
    s.handle_message(at(0), CLIENT, con(0x1234, Code::EMPTY));
    let out = transmits(&mut s);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].msg.mtype, out[0].msg.code, out[0].msg.mid), (MessageType::Rst, Code::EMPTY, 0x1234));
    assert_eq!(s.stats().resets_sent, 1);
    assert!(events(&mut s).is_empty());
}

#[test]
fn a_separate_response_nobody_awaits_is_reset_but_a_copy_of_an_acknowledged_one_is_acknowledged_again() {
    let mut c = endpoint(config("default", EchoMode::None));
    c.request(at(0), SERVER, get());
    let req = transmits(&mut c).remove(0).msg;
    // The server acknowledges empty, then sends its response as a CON.
    c.handle_message(at(5), SERVER, std::sync::Arc::new(Message::empty(MessageType::Ack, req.mid)));
    let mut sep = Message {
        mtype: MessageType::Con,
        code: Code::CONTENT,
        mid: 0x4000,
        token: req.token,
        ..Message::empty(MessageType::Con, 0)
    };
    sep.payload = Payload::from_static(b"late");
    let sep = std::sync::Arc::new(sep);
    c.handle_message(at(9), SERVER, std::sync::Arc::clone(&sep));
    let acks = transmits(&mut c);
    assert_eq!((acks.len(), acks[0].msg.mtype, acks[0].msg.mid), (1, MessageType::Ack, 0x4000));
    assert!(
        events(&mut c)
            .iter()
            .any(|e| matches!(e, Event::Response { response, .. } if &response.payload[..] == b"late"))
    );
    // Our ACK was lost: the copy is acknowledged again.
    c.handle_message(at(20), SERVER, sep);
    let again = transmits(&mut c);
    assert_eq!((again.len(), again[0].msg.mtype), (1, MessageType::Ack));
    // A CON response to nothing gets a Reset.
    let mut other = Message::empty(MessageType::Con, 0x4002);
    other.code = Code::CONTENT;
    other.token = Token::new(&[9, 9, 9]).unwrap();
    c.handle_message(at(31), SERVER, std::sync::Arc::new(other));
    let rst = transmits(&mut c);
    assert_eq!(rst.len(), 1, "{rst:?}");
    assert_eq!((rst[0].msg.mtype, rst[0].msg.mid), (MessageType::Rst, 0x4002));
}

#[test]
fn a_response_with_options_keeps_them_sorted_with_the_echoed_transmission_count() {
    let mut s = endpoint(config("default", EchoMode::None));
    let mut req = Message::clone(&con(7, Code::GET));
    req.add_option(option::TRANSMISSION_COUNT, encode_uint(2));
    s.handle_message(at(0), CLIENT, std::sync::Arc::new(req));
    let Some(Event::Request { handle, .. }) = s.poll_event() else { panic!("no request event") };
    let mut opts = coapcc_proto::Options::new();
    opts.push(coapcc_proto::CoapOption { number: option::BLOCK2, value: encode_uint(0x0e) });
    s.respond_with(at(1), handle, Code::CONTENT, opts, Payload::from_static(b"x"));
    let out = transmits(&mut s);
    let numbers: Vec<u16> = out[0].msg.options.iter().map(|o| o.number).collect();
    assert_eq!(numbers, [option::BLOCK2, option::TRANSMISSION_COUNT]);
    assert_eq!(out[0].msg.option(option::TRANSMISSION_COUNT), Some(&[2u8][..]));
}

#[test]
fn an_answer_with_a_code_that_is_not_a_response_code_is_refused_and_the_request_stays_unanswered() {
    let (mut c, mut s) = (endpoint(config("default", EchoMode::None)), endpoint(config("default", EchoMode::None)));
    c.request(at(0), SERVER, get());
    let request = transmits(&mut c).remove(0);
    s.handle_message(at(10), CLIENT, request.msg);
    let Some(Event::Request { handle, .. }) = events(&mut s).into_iter().next() else { panic!("no request") };
    // RFC 7252 §5.2: 0.00 (Empty) and 0.01 (a request code) are not response codes.
    s.respond(at(20), handle, Code::EMPTY, vec![1]);
    s.respond(at(20), handle, Code::GET, vec![1]);
    assert!(transmits(&mut s).is_empty());
    assert_eq!(s.stats().ignored, 2);
    s.respond(at(30), handle, Code::CONTENT, vec![1]);
    assert_eq!(transmits(&mut s).len(), 1);
}

#[test]
fn an_automatic_answer_must_carry_a_response_code() {
    let auto_response = Some(coapcc_proto::AutoResponse { code: Code::EMPTY, payload: Payload::from(vec![]) });
    let e = Endpoint::<u32, Pcg64Mcg>::new(
        EndpointConfig { auto_response, ..config("default", EchoMode::None) },
        Pcg64Mcg::seed_from_u64(1),
    )
    .unwrap_err();
    assert_eq!(e.key, "auto_response");
}
