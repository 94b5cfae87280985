//! Datagram fuzzing of the client and server endpoints, sans-IO (no socket): arbitrary bytes
//! and mutations of a corpus of valid messages of every kind are fed to a server endpoint
//! answering with [`crate::server::reply`] and to a client endpoint with exchanges
//! outstanding, with time advancing and timers firing. Used by the test suite (10⁶ datagrams)
//! and the benchmark (10⁷). The caller checks the returned [`FuzzStats`]: no panic happened
//! (else it would not return), the duplicate cache stayed within its bound, and no response
//! was larger than [`AMPLIFICATION_FACTOR`] times the datagram it answered unless that asked
//! for block-wise transfer.

use std::sync::Arc;
use std::time::Duration;

use coapcc_core::Instant;
use coapcc_driver::rng::{SimRng, below, stream_rng};
use coapcc_proto::{Code, EchoMode, Endpoint, EndpointConfig, Event, Message, MessageType, Token, codec};
use coapcc_proto::{Payload, encode_uint, option};
use rand_core::Rng;

use crate::block::Block;
use crate::server::AMPLIFICATION_FACTOR;

/// What a fuzzing run did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FuzzStats {
    /// Datagrams fed (each to both endpoints).
    pub datagrams: u64,
    /// Datagrams the codec accepted.
    pub decoded: u64,
    /// Requests the server application answered.
    pub requests_answered: u64,
    /// Client exchanges that ended (completed or failed).
    pub exchanges_ended: u64,
    /// The largest duplicate-cache size seen.
    pub max_cache_entries: usize,
    /// The server's cache evictions.
    pub evictions: u64,
    /// The largest number of exchanges the client had outstanding or queued.
    pub max_client_pending: usize,
    /// Server responses larger than [`AMPLIFICATION_FACTOR`] times the datagram that drew them,
    /// which did not ask for block-wise transfer (RFC 7252 §11.3: must stay 0).
    pub amplified: u64,
    /// Duplicates the server answered from its cache.
    pub duplicates_answered: u64,
}

/// A corpus of valid encoded messages of every kind: CON/NON requests of every method with
/// paths, queries, Block1/Block2, the transmission-count option and payloads; piggybacked,
/// separate (CON/NON) and error responses; empty ACK, RST and CON (ping).
pub fn corpus() -> Vec<Vec<u8>> {
    let token = Token::new(&[0xa1, 0xb2]).unwrap_or_default();
    let mut out = Vec::new();
    let base = |mtype, code, mid: u16| Message {
        mtype,
        code,
        mid,
        token,
        options: Default::default(),
        payload: Payload::new(),
    };
    for (i, code) in [Code::GET, Code::POST, Code::PUT, Code(0x04)].into_iter().enumerate() {
        for mtype in [MessageType::Con, MessageType::Non] {
            let mut m = base(mtype, code, 100 + i as u16);
            m.add_option(option::URI_PATH, b"echo");
            m.payload = Payload::from_static(b"hello");
            out.push(codec::encode(&m));
            let mut m = base(mtype, code, 200 + i as u16);
            m.add_option(option::URI_PATH, b"data");
            m.add_option(option::URI_QUERY, b"size=5000");
            m.add_option(option::BLOCK2, Block { num: 3, more: false, szx: 4 }.encode());
            out.push(codec::encode(&m));
            let mut m = base(mtype, code, 300 + i as u16);
            m.add_option(option::URI_PATH, b"data");
            m.add_option(option::BLOCK1, Block { num: 0, more: true, szx: 0 }.encode());
            m.add_option(option::SIZE1, encode_uint(100));
            m.add_option(option::TRANSMISSION_COUNT, encode_uint(1));
            m.payload = Payload::from(vec![b'x'; 16]);
            out.push(codec::encode(&m));
        }
    }
    let mut wk = base(MessageType::Con, Code::GET, 400);
    wk.add_option(option::URI_PATH, b".well-known");
    wk.add_option(option::URI_PATH, b"core");
    out.push(codec::encode(&wk));
    for (mtype, code) in [
        (MessageType::Ack, Code::CONTENT),
        (MessageType::Ack, Code::NOT_FOUND),
        (MessageType::Ack, Code::CONTINUE),
        (MessageType::Con, Code::CONTENT),
        (MessageType::Non, Code::CHANGED),
    ] {
        let mut m = base(mtype, code, 500);
        m.add_option(option::BLOCK2, Block { num: 1, more: true, szx: 6 }.encode());
        m.add_option(option::TRANSMISSION_COUNT, encode_uint(0));
        m.payload = Payload::from_static(b"response body");
        out.push(codec::encode(&m));
    }
    for mtype in [MessageType::Ack, MessageType::Rst, MessageType::Con, MessageType::Non] {
        out.push(codec::encode(&Message::empty(mtype, 600)));
    }
    out
}

fn mutate(rng: &mut SimRng, corpus: &[Vec<u8>], bytes: &mut Vec<u8>) {
    for _ in 0..=below(rng, 4) {
        let len = bytes.len() as u64;
        match below(rng, 8) {
            0 if len > 0 => {
                let i = below(rng, len) as usize;
                bytes[i] ^= 1 << below(rng, 8);
            }
            1 if len > 0 => {
                let i = below(rng, len) as usize;
                bytes[i] = rng.next_u32() as u8;
            }
            2 => {
                let i = below(rng, len + 1) as usize;
                bytes.insert(i, rng.next_u32() as u8);
            }
            3 if len > 0 => {
                let i = below(rng, len) as usize;
                bytes.remove(i);
            }
            4 => bytes.truncate(below(rng, len + 1) as usize),
            5 if !corpus.is_empty() => {
                // Splice: the head of this message with the tail of another.
                let other = &corpus[below(rng, corpus.len() as u64) as usize];
                let cut = below(rng, len + 1) as usize;
                let from = below(rng, other.len() as u64 + 1) as usize;
                bytes.truncate(cut);
                bytes.extend_from_slice(&other[from..]);
            }
            6 if len > 4 => {
                // An "interesting" byte: option deltas/lengths 13/14/15, the payload marker.
                let i = 4 + below(rng, len - 4) as usize;
                bytes[i] = [0x0d, 0x0e, 0x0f, 0xd0, 0xe0, 0xf0, 0xff, 0x00][below(rng, 8) as usize];
            }
            _ => bytes.extend((0..below(rng, 8)).map(|_| rng.next_u32() as u8)),
        }
    }
}

/// Feeds `datagrams` datagrams (arbitrary, mutated corpus messages, mutated responses to the
/// client's own requests, and copies of the previous datagram) to a server endpoint whose duplicate cache holds at most
/// `cache_entries` and to a client endpoint, from 8 source addresses, with time advancing.
pub fn run(datagrams: u64, seed: u64, cache_entries: usize) -> FuzzStats {
    let mut rng = stream_rng(seed, 0, 0xf022);
    let corpus = corpus();
    let mut stats = FuzzStats::default();
    let server_config = crate::config::server_config(Duration::from_secs(247))
        .map(|c| EndpointConfig { duplicate_cache_entries: cache_entries, ..c });
    let Ok(server_config) = server_config else { return stats };
    let mut server: Endpoint<u32, SimRng> = match Endpoint::new(server_config.clone(), stream_rng(seed, 0, 1)) {
        Ok(e) => e,
        Err(_) => return stats,
    };
    // The client echoes the transmission count in the option so the echo paths run too.
    let client_config = EndpointConfig { echo: EchoMode::Option, nstart: 2, ..server_config };
    let Ok(mut client) = Endpoint::<u32, SimRng>::new(client_config, stream_rng(seed, 0, 2)) else { return stats };
    let mut now = Instant::ZERO;
    let mut bytes = Vec::with_capacity(256);
    let mut last_request: Option<Arc<Message>> = None;
    let request = |client: &mut Endpoint<u32, SimRng>, now, to: u32| {
        let mut m = Message::con_request(Code::GET, "data");
        m.add_option(option::BLOCK2, Block { num: 0, more: false, szx: 6 }.encode());
        client.request(now, to, m);
    };
    for to in 1..4 {
        request(&mut client, now, to);
    }
    let mut from = 0;
    for i in 0..datagrams {
        // One datagram in eight is a copy of the previous one (from the same source): a
        // duplicate when the server took the first for a request.
        let copy = below(&mut rng, 8) == 0;
        if !copy {
            bytes.clear();
        }
        match if copy { 4 } else { below(&mut rng, 4) } {
            4 => {}
            0 => bytes.extend((0..below(&mut rng, 48)).map(|_| rng.next_u32() as u8)),
            1 if last_request.is_some() => {
                // A response to the client's latest request, then mutated half of the time.
                if let Some(req) = &last_request {
                    let mut resp = Message { mtype: MessageType::Ack, code: Code::CONTENT, ..Message::clone(req) };
                    resp.payload = Payload::from_static(b"0123456789");
                    bytes.extend(codec::encode(&resp));
                    if below(&mut rng, 2) == 0 {
                        mutate(&mut rng, &corpus, &mut bytes);
                    }
                }
            }
            _ => {
                bytes.extend_from_slice(&corpus[below(&mut rng, corpus.len() as u64) as usize]);
                mutate(&mut rng, &corpus, &mut bytes);
            }
        }
        if !copy {
            from = below(&mut rng, 8) as u32;
        }
        stats.datagrams += 1;
        if codec::decode(&bytes).is_ok() {
            stats.decoded += 1;
        }
        server.handle_datagram(now, from, &bytes);
        let asked = codec::decode(&bytes).ok();
        let mut answered_datagram = Vec::new();
        while let Some(t) = server.poll_transmit() {
            answered_datagram.push(t.msg);
        }
        client.handle_datagram(now, from, &bytes);
        now = now + Duration::from_micros(below(&mut rng, 20_000));
        if i % 32 == 0 {
            server.handle_timeout(now);
            client.handle_timeout(now);
        }
        while let Some(e) = server.poll_event() {
            if let Event::Request { handle, request } = e {
                let r = crate::server::reply(&request);
                server.respond_with(now, handle, r.code, r.options, r.payload);
                stats.requests_answered += 1;
            }
        }
        let blockwise = asked.as_ref().is_some_and(|m| m.option(option::BLOCK2).is_some());
        answered_datagram.extend(std::iter::from_fn(|| server.poll_transmit()).map(|t| t.msg));
        for r in &answered_datagram {
            if !blockwise && r.wire_len() > AMPLIFICATION_FACTOR * bytes.len() {
                stats.amplified += 1;
            }
        }
        while let Some(e) = client.poll_event() {
            if let Event::Completed { to, .. } | Event::Failed { to, .. } = e {
                stats.exchanges_ended += 1;
                request(&mut client, now, to);
            }
        }
        while let Some(t) = client.poll_transmit() {
            if t.msg.mtype == MessageType::Con {
                last_request = Some(t.msg);
            }
        }
        stats.max_cache_entries = stats.max_cache_entries.max(server.duplicate_cache_len());
        let pending = (0..8).map(|a| client.pending(&a)).sum();
        stats.max_client_pending = stats.max_client_pending.max(pending);
    }
    stats.evictions = server.stats().duplicate_evictions;
    stats.duplicates_answered = server.stats().duplicates_answered;
    stats
}
