//! `AutoResponse::answer`: the answer of a server that only answers, without a duplicate
//! cache, is the one a server endpoint with the cache sends, for fresh requests, duplicates,
//! copies with another token byte or transmission count, Block2 requests and reused Message
//! IDs alike.

use coapcc_proto::block::Block;
use coapcc_proto::{AutoResponse, Code, EchoMode, Endpoint, Message, MessageType, Payload, Token, option};
use proptest::prelude::*;
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

mod common;
use common::{at, config, transmits};

/// A 20-byte resource: with SZX 0 (16-byte blocks) block 0 is full, block 1 holds 4 bytes and
/// block 2 is beyond the end.
fn resource() -> AutoResponse {
    AutoResponse { code: Code::CONTENT, payload: Payload::from_static(&[0; 20]) }
}

/// What a request varies in.
#[derive(Clone, Copy, Debug)]
struct Req {
    con: bool,
    put: bool,
    mid: u16,
    head: u8,
    /// Token suffix (the transmission number in the token).
    copy: Option<u8>,
    /// Transmission-count option.
    count: Option<u8>,
    path: bool,
    /// Block2 number, SZX 0.
    block: Option<u32>,
}

fn request(r: Req) -> Message {
    let mut m = Message::con_request(if r.put { Code::PUT } else { Code::GET }, if r.path { "res" } else { "" });
    m.mtype = if r.con { MessageType::Con } else { MessageType::Non };
    m.mid = r.mid;
    let token = Token::new(&[r.head]).unwrap_or_default();
    m.token = r.copy.map_or(token, |c| token.with_suffix(c));
    if let Some(c) = r.count {
        m.set_option(option::TRANSMISSION_COUNT, [c]);
    }
    if let Some(num) = r.block {
        m.add_option(option::BLOCK2, Block { num, more: false, szx: 0 }.encode());
    }
    m
}

const PLAIN: Req =
    Req { con: true, put: false, mid: 7, head: 0xab, copy: Some(2), count: Some(2), path: true, block: None };

#[test]
fn a_confirmable_request_is_answered_on_an_ack_with_its_message_id_token_and_transmission_count() {
    // RFC 7252 §5.2.1: piggybacked on the ACK, same Message ID and token; FASOR-02 §4: the
    // transmission count echoed unmodified.
    let req = request(PLAIN);
    let answer = resource().answer(&req).unwrap_or_else(|| panic!("a request is answered"));
    assert_eq!((answer.mtype, answer.code, answer.mid, answer.token), (MessageType::Ack, Code::CONTENT, 7, req.token));
    assert_eq!(answer.option(option::TRANSMISSION_COUNT), Some(&[2u8][..]));
    assert_eq!(answer.options.len(), 1, "the request's Uri-Path is not echoed");
    assert_eq!(answer.payload.len(), 20);
    // RFC 7252 §5.2.3: a NON request gets a NON response.
    let non = resource().answer(&request(Req { con: false, copy: None, count: None, ..PLAIN })).map(|m| m.mtype);
    assert_eq!(non, Some(MessageType::Non));
    // An ACK, an empty message or a response is not a request: no answer.
    let mut ack = Message::empty(MessageType::Ack, 7);
    assert!(resource().answer(&ack).is_none());
    ack.code = Code::CONTENT;
    assert!(resource().answer(&ack).is_none());
}

#[test]
fn a_block2_request_gets_its_block_and_one_beyond_the_end_a_bad_request() {
    // RFC 7959 §2.4: 20 bytes in 16-byte blocks are block 0 (16 B, more) and block 1 (4 B, last).
    let block = |num| resource().answer(&request(Req { block: Some(num), ..PLAIN }));
    let b2 = |m: &Message| m.option(option::BLOCK2).and_then(Block::decode);
    let first = block(0).unwrap_or_else(|| panic!("answered"));
    assert_eq!((first.payload.len(), b2(&first)), (16, Some(Block { num: 0, more: true, szx: 0 })));
    let last = block(1).unwrap_or_else(|| panic!("answered"));
    assert_eq!((last.payload.len(), b2(&last)), (4, Some(Block { num: 1, more: false, szx: 0 })));
    let beyond = block(2).unwrap_or_else(|| panic!("answered"));
    assert_eq!((beyond.code, beyond.payload.len()), (Code::BAD_REQUEST, 0));
}

proptest! {
    #[test]
    fn every_answer_is_the_one_a_server_with_a_duplicate_cache_sends(
        steps in prop::collection::vec(
            ((0u32..3, any::<bool>(), any::<bool>(), 0u16..4, 0u8..3),
             (prop::option::of(0u8..3), prop::option::of(0u8..3), any::<bool>(), prop::option::of(0u32..3)),
             0u64..120_000),
            1..60,
        ),
        token_echo in any::<bool>(),
    ) {
        let echo = if token_echo { EchoMode::Token } else { EchoMode::Option };
        let mut cfg = config("default", echo);
        cfg.auto_response = Some(resource());
        let mut server: Endpoint<u32, Pcg64Mcg> = Endpoint::new(cfg, Pcg64Mcg::seed_from_u64(1)).unwrap();
        let mut now_ms = 0;
        for ((from, con, put, mid, head), (copy, count, path, block), gap_ms) in steps {
            // Gaps up to 120 s: entries expire after EXCHANGE_LIFETIME (247 s) now and then.
            now_ms += gap_ms;
            let req = request(Req { con, put, mid, head, copy, count, path, block });
            server.handle_message(at(now_ms), from, std::sync::Arc::new(req.clone()));
            let sent = transmits(&mut server);
            prop_assert_eq!(sent.len(), 1);
            prop_assert_eq!(sent[0].to, from);
            let answer = resource().answer(&req);
            prop_assert_eq!(Some(&*sent[0].msg), answer.as_ref());
        }
    }
}

#[test]
fn copies_answered_from_the_cache_and_a_reused_message_id_get_the_answer_too() {
    let mut cfg = config("default", EchoMode::Token);
    cfg.auto_response = Some(resource());
    let mut server: Endpoint<u32, Pcg64Mcg> = Endpoint::new(cfg, Pcg64Mcg::seed_from_u64(1)).unwrap();
    let fresh = Req { mid: 5, head: 9, copy: Some(0), count: Some(0), ..PLAIN };
    let requests = [
        fresh,                                          // fresh
        fresh,                                          // its exact copy: the cached answer
        Req { copy: Some(1), count: Some(1), ..fresh }, // copy 1: cached answer, new echo
        Req { put: true, count: None, ..fresh },        // another request on the same Message ID
    ];
    for (i, r) in requests.into_iter().enumerate() {
        let req = request(r);
        server.handle_message(at(i as u64 * 1000), 3, std::sync::Arc::new(req.clone()));
        let sent = transmits(&mut server);
        assert_eq!(sent.len(), 1);
        assert_eq!(Some(&*sent[0].msg), resource().answer(&req).as_ref(), "request {i}");
    }
    let stats = server.stats();
    assert_eq!((stats.duplicates_answered, stats.message_id_reuses), (2, 1));
}
