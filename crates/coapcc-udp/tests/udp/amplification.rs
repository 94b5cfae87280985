//! RFC 7252 §11.3 against contrived requests: no reply of `coapcc server`'s endpoint (its
//! resources behind the duplicate cache and the transmission-count echo) is more than three
//! times the datagram that drew it, unless that datagram asked for a Block2 block.
//!
//! What a reply takes from its request: the token (as long in both), the payload of `/echo`
//! (in both), a Block1 option re-encoded (no longer than the request's), and the
//! transmission-count option (65020), echoed after the reply's own options, all below 29: its
//! header there is three bytes. In the request it may cost one byte, or none at all: between
//! an option from 65008 to 65019 (elective ones are ignored) and one above 65020, it shortens
//! the next option's header by one byte. The requests below try every such placement, every
//! resource and error, token lengths 0 to 8 and body sizes that put the reply at the bound,
//! and answer each one's copies too (a copy may carry another echo than its original).

use std::time::Duration;

use coapcc_core::Instant;
use coapcc_driver::rng::{SimRng, stream_rng};
use coapcc_proto::{Code, Endpoint, Event, Message, MessageType, Payload, Token, codec, option};
use coapcc_udp::block::Block;
use coapcc_udp::config::server_config;
use coapcc_udp::server::reply;

/// An elective option the server ignores, 12 below the transmission count.
const BEFORE: u16 = 65008;
/// An elective option the server ignores, 2 above the transmission count.
const AFTER: u16 = 65022;

/// The transmission-count placements a request (or a copy) may carry: (options, echo value).
fn echo_variants() -> Vec<(Vec<u16>, Option<&'static [u8]>)> {
    let mut out = vec![(vec![], None)];
    for value in [&[][..], &[1][..], &[0; 13][..]] {
        out.push((vec![], Some(value)));
        out.push((vec![BEFORE], Some(value)));
        out.push((vec![BEFORE, AFTER], Some(value)));
        out.push((vec![AFTER], Some(value)));
    }
    // The ignored options without an echo, so a copy may drop or add one.
    out.push((vec![BEFORE, AFTER], None));
    out
}

/// `base` with the options `extra` (empty values) and the echo `echo`.
fn with_echo(base: &Message, extra: &[u16], echo: Option<&[u8]>) -> Message {
    let mut m = base.clone();
    for n in extra {
        m.add_option(*n, []);
    }
    if let Some(v) = echo {
        m.add_option(option::TRANSMISSION_COUNT, v);
    }
    m
}

/// The requests without echo: every resource and error reply, with sizes around the bound.
fn requests() -> Vec<Message> {
    let req = |code: Code, options: &[(u16, &[u8])], payload: &[u8]| {
        let mut m = Message { code, ..Message::empty(MessageType::Con, 0x0101) };
        for (n, v) in options {
            m.add_option(*n, v);
        }
        m.payload = Payload::copy_from_slice(payload);
        m
    };
    let (data, echo) = ((option::URI_PATH, &b"data"[..]), (option::URI_PATH, &b"echo"[..]));
    let mut out = Vec::new();
    for n in (0..=300).chain([1024, 1025, 5000, 65535, 65536, 16 << 20]) {
        let q = format!("size={n}");
        out.push(req(Code::GET, &[data, (option::URI_QUERY, q.as_bytes())], b""));
    }
    let wk = [(option::URI_PATH, &b".well-known"[..]), (option::URI_PATH, &b"core"[..])];
    out.push(req(Code::GET, &wk, b""));
    for len in 0..=40 {
        let body = vec![b'x'; len];
        for code in [Code::GET, Code::POST, Code::PUT] {
            out.push(req(code, &[echo], &body));
            out.push(req(code, &[data], &body));
            let single = Block { num: 0, more: false, szx: 6 }.encode();
            out.push(req(code, &[echo, (option::BLOCK1, &single)], &body));
            let last = Block { num: 3, more: false, szx: 0 }.encode();
            out.push(req(code, &[echo, (option::BLOCK1, &last)], &body));
        }
    }
    let full = Block { num: 1, more: true, szx: 0 }.encode();
    out.push(req(Code::PUT, &[data, (option::BLOCK1, &full)], &[b'x'; 16]));
    // The errors with a diagnostic payload (4.00), and those without (4.02, 4.04, 4.05, 5.05).
    for q in [&b"size=x"[..], &[0xff], b"size=99999999999"] {
        out.push(req(Code::GET, &[data, (option::URI_QUERY, q)], b""));
    }
    out.push(req(Code::PUT, &[echo, (option::BLOCK1, &[0x0e])], b""));
    out.push(req(Code::PUT, &[echo, (option::BLOCK1, &[0, 0, 0, 0])], b""));
    out.push(req(Code::GET, &[echo, (1, b"e")], b""));
    out.push(req(Code::GET, &[(option::URI_PATH, b"x")], b""));
    out.push(req(Code(0x04), &[echo], b""));
    out.push(req(Code::GET, &[(35, b"coap://x/")], b""));
    out
}

/// The encoded lengths of every reply `server` sends now, answering with `reply`.
fn replies(server: &mut Endpoint<u32, SimRng>, now: Instant) -> Vec<usize> {
    while let Some(e) = server.poll_event() {
        if let Event::Request { handle, request } = e {
            let r = reply(&request);
            server.respond_with(now, handle, r.code, r.options, r.payload);
        }
    }
    std::iter::from_fn(|| server.poll_transmit()).map(|t| codec::encode(&t.msg).len()).collect()
}

/// The largest reply/request byte ratio over `requests`, each sent with every echo
/// placement and then followed by a copy with every other one; the worst case described.
fn worst_ratio(requests: &[Message]) -> (f64, String) {
    let config = server_config(Duration::from_secs(247)).unwrap();
    let variants = echo_variants();
    let mut worst = (0.0, String::new());
    let now = Instant::ZERO;
    for base in requests {
        for tkl in 0..=8u8 {
            let token = Token::new(&[0xa5; 8][..usize::from(tkl)]).unwrap();
            let base = Message { token, ..base.clone() };
            for (extra, echo) in &variants {
                let mut server = Endpoint::<u32, SimRng>::new(config.clone(), stream_rng(1, 0, 1)).unwrap();
                let original = with_echo(&base, extra, *echo);
                let copies = variants.iter().map(|(x, e)| with_echo(&base, x, *e));
                for (i, sent) in std::iter::once(original.clone()).chain(copies).enumerate() {
                    let bytes = codec::encode(&sent);
                    server.handle_datagram(now, 1, &bytes);
                    for len in replies(&mut server, now) {
                        let ratio = len as f64 / bytes.len() as f64;
                        if ratio > worst.0 {
                            let what = if i == 0 { "request" } else { "copy" };
                            worst = (ratio, format!("{len} B for a {} B {what}: {sent:?}", bytes.len()));
                        }
                    }
                }
            }
        }
    }
    worst
}

#[test]
fn no_reply_to_any_contrived_option_set_or_its_copies_exceeds_three_times_the_datagram() {
    let all = requests();
    assert!(all.iter().all(|m| m.option(option::BLOCK2).is_none()), "none asks for block-wise transfer");
    let (ratio, case) = worst_ratio(&all);
    println!("largest reply/request byte ratio: {ratio:.3} ({case})");
    assert!(ratio <= 3.0, "{ratio:.3}: {case}");
}

#[test]
fn an_echo_that_costs_its_request_no_byte_does_not_push_a_block_past_three_times_the_request() {
    // GET /data?size=5000 with a 2-byte token: without the echo, 26 bytes, and block 0 of 64
    // bytes makes a 77-byte reply, within 78. With an empty transmission count between
    // options 65008 and 65022, the request is still 26 bytes (the echo's 1-byte header, and
    // 65022's header down from 2 bytes to 1), but the echo costs the reply 3: 80 > 78.
    let mut base = Message { token: Token::new(&[1, 2]).unwrap(), ..Message::empty(MessageType::Con, 7) };
    base.code = Code::GET;
    base.add_option(option::URI_PATH, b"data");
    base.add_option(option::URI_QUERY, b"size=5000");
    let plain = with_echo(&base, &[BEFORE, AFTER], None);
    let echoed = with_echo(&base, &[BEFORE, AFTER], Some(&[]));
    assert_eq!((codec::encode(&plain).len(), codec::encode(&echoed).len()), (26, 26));
    let config = server_config(Duration::from_secs(247)).unwrap();
    let mut server = Endpoint::<u32, SimRng>::new(config, stream_rng(1, 0, 1)).unwrap();
    server.handle_datagram(Instant::ZERO, 1, &codec::encode(&echoed));
    let lens = replies(&mut server, Instant::ZERO);
    assert_eq!(lens.len(), 1);
    assert!(lens[0] <= 3 * 26, "{} bytes", lens[0]);
}
