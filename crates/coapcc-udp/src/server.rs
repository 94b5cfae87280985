//! The resources of `coapcc server`: a stateless [`Handler`] for the runtime's server task.
//!
//! | path | methods | what |
//! |---|---|---|
//! | `/echo` | GET, PUT, POST | the request's payload back (2.05 for GET/POST, 2.04 for PUT) |
//! | `/data?size=N` | GET | N bytes (`0123456789` repeated), piggybacked when it fits, Block2 beyond |
//! | `/data` | PUT, POST | accepts a body (Block1 too): 2.31 Continue per block, 2.04 at the end |
//! | `/.well-known/core` | GET | the RFC 6690 link format of the above |
//! | `/obs[?size=N]` | GET | a counter, observable (RFC 7641; [`ObservableResources`], notified by the server task); with `size=N` a body of N bytes, notified block-wise beyond one block (RFC 7959 §3.4) |
//!
//! Block-wise (RFC 7959): a GET answered with more than [`AMPLIFICATION_FACTOR`] times the
//! request's size is sent in Block2 blocks small enough to stay within that factor unless
//! the request asked for a block size itself (early negotiation, RFC 7959 §2.4); then blocks
//! of that size (at most 1 024 bytes). This is RFC 7252 §11.3's amplification rule: a spoofed
//! request cannot draw a response many times its size. A body never exceeds
//! [`MAX_BODY_BYTES`]. Block1 uploads are acknowledged block by block without being kept
//! (the server keeps no per-client state beyond the endpoint's duplicate cache), so the
//! final response does not echo a block-wise body; a whole body in a single block (Block1
//! NUM 0 without M, as libcoap's `coap-client -b` sends every body that fits) is echoed by
//! `/echo` like a plain one.
//!
//! Unknown path → 4.04; a method the resource does not serve → 4.05; a malformed query or
//! Block option → 4.00; an unrecognised critical option → 4.02, and so is a second
//! occurrence of a critical option that does not repeat (RFC 7252 §5.4.5) or a critical
//! option whose length is out of its range (§5.4.3); Proxy-Uri/Proxy-Scheme → 5.05. An error
//! response carries its diagnostic payload only when that keeps it within the amplification
//! bound; otherwise it is the code alone.

use std::net::SocketAddr;

use coapcc_proto::{CoapOption, Options, Payload, encode_uint, option};
use coapcc_proto::{Code, Message};

use crate::block::{self, Block};
use crate::runtime::{Handler, Reply};

mod observe;
mod reliable;

pub use observe::{
    MAX_NOTIFICATIONS, MAX_OBSERVED_BODY_BYTES, MAX_OBSERVERS, ObservableResources, Observers, observed_body,
};
pub use reliable::{MAX_BERT_PAYLOAD_BYTES, ReliableLimits, reply_reliable};

/// RFC 7252 §11.3: no response is more than this many times larger than its request unless
/// block-wise transfer was asked for.
pub const AMPLIFICATION_FACTOR: usize = 3;

/// The largest body `/data?size=N` serves, bytes (16 MiB).
pub const MAX_BODY_BYTES: usize = 16 << 20;

/// The largest payload carried in one message without block-wise transfer (RFC 7252 §4.6:
/// 1 024 bytes of payload keeps a message within 1 152 bytes).
pub const MAX_PLAIN_PAYLOAD_BYTES: usize = 1024;

/// The critical options the server understands (Uri-Host, Uri-Port, Uri-Path, Uri-Query,
/// Accept, Block2, Block1) with the value lengths they allow and whether they repeat
/// (RFC 7252 §5.10 table 4, RFC 7959 §2.1).
const CRITICAL_UNDERSTOOD: [(u16, usize, usize, bool); 7] = [
    (option::URI_HOST, 1, 255, false),
    (option::URI_PORT, 0, 2, false),
    (option::URI_PATH, 0, 255, true),
    (option::URI_QUERY, 0, 255, true),
    (17, 0, 2, false),
    (option::BLOCK2, 0, 3, false),
    (option::BLOCK1, 0, 3, false),
];
/// Proxy-Uri (RFC 7252 §5.10.2).
const PROXY_URI: u16 = 35;
/// Proxy-Scheme (RFC 7252 §5.10.2).
const PROXY_SCHEME: u16 = 39;

/// Content-Format 40: application/link-format (RFC 6690).
const LINK_FORMAT: u32 = 40;

/// `/.well-known/core` (RFC 6690 link format).
pub const WELL_KNOWN_CORE: &str = "</echo>;title=\"echo the payload\";rt=\"echo\",</data>;title=\"size=N bytes; PUT accepts any body\";rt=\"data\";sz=0,</obs>;title=\"a counter\";obs";

/// The resources of `coapcc server` (stateless: every reply depends on the request only).
#[derive(Clone, Copy, Debug, Default)]
pub struct Resources;

impl Handler for Resources {
    fn handle(&self, _from: SocketAddr, request: &Message) -> Reply {
        reply(request)
    }
}

/// The reply to one request (see the module documentation).
pub fn reply(request: &Message) -> Reply {
    let mut r = resource_reply(request, Sizing::Datagram);
    if r.code.class() >= 4 && !r.payload.is_empty() && len_without_echo(request, &r) > bound_bytes(request) {
        // RFC 7252 §11.3: the diagnostic is optional (§5.5.2), the bound is not.
        r.payload = Payload::new();
    }
    r
}

/// The most bytes a response to `request` may take, its transmission-count echo aside
/// (unless block-wise transfer was asked for): [`AMPLIFICATION_FACTOR`] times the request
/// without its echo, less what an echo may add to the response beyond three times what it
/// adds to the request. The endpoint echoes the request's (or a duplicate's, `coapcc_proto`
/// answering copies with their own echo) transmission count after the response's options,
/// all below 29, so with a three-byte header; in a request, an echo of `n` value bytes adds
/// its header and `n` bytes, and may save a byte on the header of the option after it: an
/// empty one between an option from 65008 to 65019 and one above 65020 adds no byte at all.
/// The echo's value and length bytes are in both; so the cheapest (empty) echo the request's
/// options allow is the worst case, and every response, to a request or to any of its
/// copies, is within [`AMPLIFICATION_FACTOR`] times what drew it.
fn bound_bytes(request: &Message) -> usize {
    let mut m = request.clone();
    m.options.retain(|o| o.number != option::TRANSMISSION_COUNT);
    let without = m.wire_len();
    m.add_option(option::TRANSMISSION_COUNT, []);
    let cheapest_echo_in_request = m.wire_len() - without;
    let reserve = EMPTY_ECHO_IN_RESPONSE_BYTES.saturating_sub(AMPLIFICATION_FACTOR * cheapest_echo_in_request);
    AMPLIFICATION_FACTOR * without - reserve
}

/// The bytes an empty transmission-count option takes in a response (after options below
/// 269: a header with a two-byte delta extension, RFC 7252 §3.1).
const EMPTY_ECHO_IN_RESPONSE_BYTES: usize = 3;

/// The encoded length of the response the endpoint sends for `reply` to `request`, without
/// the transmission-count echo: header, token, options, payload.
fn len_without_echo(request: &Message, reply: &Reply) -> usize {
    Message { code: reply.code, options: reply.options.clone(), payload: reply.payload.clone(), ..request.clone() }
        .wire_len()
}

/// The first critical option of `request` the server must treat as unrecognised (RFC 7252
/// §5.4.1): one it does not know, a second occurrence of one that does not repeat
/// (§5.4.5), or one whose value length is outside its range (§5.4.3).
fn unrecognised_critical(request: &Message) -> Option<u16> {
    let mut previous = None;
    for o in request.options.iter().filter(|o| o.number & 1 == 1) {
        let known = CRITICAL_UNDERSTOOD.iter().find(|(n, ..)| *n == o.number);
        let Some(&(_, min, max, repeats)) = known else { return Some(o.number) };
        if !(min..=max).contains(&o.value.len()) || (!repeats && previous == Some(o.number)) {
            return Some(o.number);
        }
        previous = Some(o.number);
    }
    None
}

/// How a body is cut into messages: by the amplification bound on datagrams, by the peer's
/// Max-Message-Size (and BERT when both CSMs offer it) on a reliable transport.
#[derive(Clone, Copy, Debug)]
enum Sizing {
    Datagram,
    Reliable(ReliableLimits),
}

fn resource_reply(request: &Message, sizing: Sizing) -> Reply {
    // RFC 7252 §5.4.1/§5.7.2: an unrecognised critical (odd) option is a 4.02; proxying is
    // not offered (5.05).
    if let Some(n) = unrecognised_critical(request) {
        return if matches!(n, PROXY_URI | PROXY_SCHEME) { Reply::code(Code(0xa5)) } else { Reply::code(Code(0x82)) };
    }
    let path = request.uri_path();
    let method = request.code;
    match (path.as_str(), method) {
        ("echo", Code::GET | Code::POST | Code::PUT) | ("data", Code::PUT | Code::POST) => {
            upload(request, matches!(sizing, Sizing::Reliable(_)))
        }
        ("data", Code::GET) => match data_size(request) {
            Ok(n) => sized_body(request, Content::Digits(n), None, sizing),
            Err(()) => text(Code::BAD_REQUEST, "size=N with N at most 16777216"),
        },
        (".well-known/core", Code::GET) => {
            sized_body(request, Content::Static(WELL_KNOWN_CORE.as_bytes()), Some(LINK_FORMAT), sizing)
        }
        ("echo" | "data" | ".well-known/core", _) => Reply::code(Code::METHOD_NOT_ALLOWED),
        _ => Reply::code(Code::NOT_FOUND),
    }
}

/// The body of `/data?size=n`: the digits `0`–`9` repeated.
pub fn data_body(n: usize) -> Vec<u8> {
    digits(0, n)
}

fn digits(from: usize, to: usize) -> Vec<u8> {
    (from..to).map(|i| b'0' + (i % 10) as u8).collect()
}

/// A body served by GET, made only as far as the block asked for needs.
#[derive(Clone, Copy)]
enum Content<'a> {
    Static(&'static [u8]),
    Digits(usize),
    /// A body made for this reply (`/obs?size=N`).
    Owned(&'a [u8]),
}

impl Content<'_> {
    fn len(self) -> usize {
        match self {
            Content::Static(b) | Content::Owned(b) => b.len(),
            Content::Digits(n) => n,
        }
    }

    fn range(self, from: usize, to: usize) -> Payload {
        match self {
            Content::Static(b) => Payload::from_static(&b[from..to]),
            Content::Owned(b) => Payload::from(b[from..to].to_vec()),
            Content::Digits(_) => Payload::from(digits(from, to)),
        }
    }
}

fn text(code: Code, s: &'static str) -> Reply {
    Reply { payload: Payload::from_static(s.as_bytes()), ..Reply::code(code) }
}

fn data_size(request: &Message) -> Result<usize, ()> {
    let mut size = 0;
    for o in request.options.iter().filter(|o| o.number == option::URI_QUERY) {
        let q = std::str::from_utf8(&o.value).map_err(|_| ())?;
        if let Some(v) = q.strip_prefix("size=") {
            size = v.parse::<usize>().map_err(|_| ())?;
        }
    }
    if size > MAX_BODY_BYTES { Err(()) } else { Ok(size) }
}

fn option_value(number: u16, value: impl AsRef<[u8]>) -> CoapOption {
    CoapOption { number, value: coapcc_proto::OptionValue::from_slice(value.as_ref()) }
}

fn sized_body(request: &Message, content: Content, format: Option<u32>, sizing: Sizing) -> Reply {
    match sizing {
        Sizing::Datagram => body(request, content, format),
        Sizing::Reliable(limits) => reliable::body(request, content, format, limits),
    }
}

/// A GET response of `content`: whole when within the amplification bound, else Block2.
fn body(request: &Message, content: Content, format: Option<u32>) -> Reply {
    let mut options = Options::new();
    if let Some(f) = format {
        options.push(option_value(option::CONTENT_FORMAT, encode_uint(f)));
    }
    let asked = match request.option(option::BLOCK2).map(Block::decode) {
        None => None,
        Some(Some(b)) => Some(b),
        Some(None) => return text(Code::BAD_REQUEST, "bad Block2 option"),
    };
    let bound = bound_bytes(request);
    let whole = Reply {
        code: Code::CONTENT,
        options: options.clone(),
        payload: content.range(0, content.len().min(MAX_PLAIN_PAYLOAD_BYTES + 1)),
    };
    let (num, szx) = match asked {
        None if content.len() <= MAX_PLAIN_PAYLOAD_BYTES && len_without_echo(request, &whole) <= bound => return whole,
        None => {
            // Block 0 with the largest size that keeps the response within the bound (the
            // size of the Block2 and Size2 values of block 0 does not depend on it).
            let mut first = Reply { options: options.clone(), ..Reply::code(Code::CONTENT) };
            first.options.push(option_value(option::BLOCK2, Block { num: 0, more: true, szx: 0 }.encode()));
            first.options.push(option_value(option::SIZE2, size2(content.len())));
            let room = bound.saturating_sub(len_without_echo(request, &first) + 1);
            (0, block::szx_at_most(room.min(MAX_PLAIN_PAYLOAD_BYTES)))
        }
        Some(b) => (b.num, b.szx),
    };
    let Some((from, to, more)) = block::range(content.len(), num, szx) else {
        return text(Code::BAD_REQUEST, "Block2 beyond the end of the body");
    };
    options.push(option_value(option::BLOCK2, Block { num, more, szx }.encode()));
    if num == 0 {
        options.push(option_value(option::SIZE2, size2(content.len())));
    }
    Reply { code: Code::CONTENT, options, payload: content.range(from, to) }
}

fn size2(len: usize) -> coapcc_proto::OptionValue {
    encode_uint(u32::try_from(len).unwrap_or(u32::MAX))
}

/// `/echo` and PUT/POST `/data`: a Block1 block is acknowledged (2.31 Continue, or the final
/// code with the block echoed); a plain body is echoed by `/echo`. On a reliable transport a
/// BERT block (SZX 7, RFC 8323 §6) is accepted too.
fn upload(request: &Message, reliable: bool) -> Reply {
    let done = if request.code == Code::PUT || request.uri_path() == "data" { Code::CHANGED } else { Code::CONTENT };
    let echo = request.uri_path() == "echo";
    let decode = if reliable { Block::decode_reliable } else { Block::decode };
    match request.option(option::BLOCK1).map(decode) {
        None if echo => Reply { payload: request.payload.clone(), ..Reply::code(done) },
        None => Reply::code(done),
        Some(None) => text(Code::BAD_REQUEST, "bad Block1 option"),
        Some(Some(b)) => {
            // RFC 7959 §2.3: the payload of a block with M set fills the block exactly; a BERT
            // block with M set holds a non-zero multiple of 1 024 bytes (RFC 8323 §6).
            let full = if b.is_bert() {
                coapcc_proto::tcp::bert_payload_ok(request.payload.len(), b.more)
            } else {
                !b.more || request.payload.len() == b.size_bytes()
            };
            if !full {
                return text(Code::BAD_REQUEST, "a Block1 block with M set must be full");
            }
            let mut options = Options::new();
            options.push(option_value(option::BLOCK1, b.encode()));
            let whole = b.num == 0 && !b.more;
            let payload = if echo && whole { request.payload.clone() } else { Payload::new() };
            Reply { code: if b.more { Code::CONTINUE } else { done }, options, payload }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str, query: &str) -> Message {
        let mut m = crate::config::request(Code::GET, path, query);
        m.token = coapcc_proto::Token::new(&[1, 2]).unwrap_or_default();
        m
    }

    #[test]
    fn a_small_body_is_piggybacked_whole() {
        let r = reply(&get("data", "size=10"));
        assert_eq!((r.code, &r.payload[..]), (Code::CONTENT, &b"0123456789"[..]));
        assert!(r.options.is_empty());
    }

    #[test]
    fn an_unsolicited_large_body_comes_in_blocks_within_the_amplification_bound() {
        let req = get("data", "size=5000");
        let r = reply(&req);
        let b = Block::decode(
            r.options.iter().find(|o| o.number == option::BLOCK2).map(|o| o.value.as_slice()).unwrap_or(&[7]),
        );
        let b = b.unwrap_or(Block { num: 9, more: false, szx: 9 });
        assert_eq!((b.num, b.more), (0, true));
        let resp = Message { options: r.options.clone(), payload: r.payload.clone(), ..req.clone() };
        assert!(resp.wire_len() <= AMPLIFICATION_FACTOR * req.wire_len(), "{} vs {}", resp.wire_len(), req.wire_len());
    }

    #[test]
    fn a_requested_block_size_is_honoured_and_the_last_block_has_no_more_flag() {
        let mut req = get("data", "size=2500");
        req.add_option(option::BLOCK2, Block { num: 2, more: false, szx: 6 }.encode());
        let r = reply(&req);
        assert_eq!(r.payload.len(), 2500 - 2048);
        let b = r.options.iter().find(|o| o.number == option::BLOCK2).and_then(|o| Block::decode(&o.value));
        assert_eq!(b, Some(Block { num: 2, more: false, szx: 6 }));
    }

    #[test]
    fn unknown_paths_bad_methods_and_bad_queries_get_their_error_codes() {
        assert_eq!(reply(&get("nope", "")).code, Code::NOT_FOUND);
        assert_eq!(reply(&crate::config::request(Code(0x04), "echo", "")).code, Code::METHOD_NOT_ALLOWED);
        assert_eq!(reply(&get("data", "size=x")).code, Code::BAD_REQUEST);
        assert_eq!(reply(&get("data", "size=99999999999")).code, Code::BAD_REQUEST);
        let mut m = get("echo", "");
        m.add_option(1, b"etag");
        assert_eq!(reply(&m).code, Code(0x82), "If-Match is critical and not understood");
        let mut m = get("echo", "");
        m.add_option(35, b"coap://elsewhere/");
        assert_eq!(reply(&m).code, Code(0xa5));
        let mut m = get("echo", "");
        m.add_option(option::TRANSMISSION_COUNT, [1]);
        m.add_option(17, [0]);
        assert_eq!(reply(&m).code, Code::CONTENT, "elective and understood options are fine");
    }

    #[test]
    fn block1_blocks_are_continued_until_the_last() {
        let mut put = crate::config::request(Code::PUT, "data", "");
        put.add_option(option::BLOCK1, Block { num: 0, more: true, szx: 0 }.encode());
        put.payload = Payload::from(vec![0; 16]);
        assert_eq!(reply(&put).code, Code::CONTINUE);
        put.set_option(option::BLOCK1, Block { num: 1, more: false, szx: 0 }.encode());
        put.payload = Payload::from(vec![0; 3]);
        assert_eq!(reply(&put).code, Code::CHANGED);
    }

    #[test]
    fn a_whole_body_in_a_single_block1_block_is_echoed_and_a_multi_block_one_is_not() {
        let mut put = crate::config::request(Code::PUT, "echo", "");
        put.add_option(option::BLOCK1, Block { num: 0, more: false, szx: 6 }.encode());
        put.payload = Payload::from(b"hello".to_vec());
        let r = reply(&put);
        assert_eq!((r.code, &r.payload[..]), (Code::CHANGED, &b"hello"[..]));
        put.set_option(option::BLOCK1, Block { num: 1, more: false, szx: 0 }.encode());
        let r = reply(&put);
        assert_eq!((r.code, r.payload.len()), (Code::CHANGED, 0));
    }
}
