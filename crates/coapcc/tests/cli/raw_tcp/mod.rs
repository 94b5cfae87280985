//! A scripted CoAP-over-TCP peer for the tests (RFC 8323): a std `TcpStream` that writes the
//! frames a test builds and splits what arrives with our stream decoder, frame by frame, with
//! no session logic in between (so a peer's missing CSM, a Pong that does not come, or an
//! Abort are seen as they are). Loopback only; every wait is bounded.

#![allow(dead_code, reason = "each test file uses part of it")]

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

use coapcc_proto::tcp::{Csm, Signal, StreamDecoder, TcpMessage, encode};
use coapcc_proto::{Code, Payload, Token, option};
use coapcc_udp::clock::Clock;

/// The largest frame the scripted peer takes (libcoap announces 8 MiB + 256).
const MAX_FRAME_BYTES: u32 = 16 << 20;

/// What the next read gave.
#[derive(Debug)]
pub enum Next {
    /// A whole frame.
    Frame(TcpMessage),
    /// The peer closed the connection (or reset it).
    Closed,
    /// Nothing within the wait.
    Silent,
}

/// One connection.
pub struct RawTcp {
    stream: TcpStream,
    decoder: StreamDecoder,
    /// Frame lengths of everything received so far, bytes, in order.
    pub frame_bytes: Vec<usize>,
}

impl RawTcp {
    /// Connects to `127.0.0.1:port`.
    pub fn connect(port: u16) -> RawTcp {
        let stream = TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("connect to {port}: {e}"));
        RawTcp::of(stream)
    }

    /// Accepts one connection on `listener` (within 60 s).
    pub fn accept(listener: &TcpListener) -> RawTcp {
        listener.set_nonblocking(true).unwrap();
        let clock = Clock::start();
        loop {
            match listener.accept() {
                Ok((stream, _)) => {
                    stream.set_nonblocking(false).unwrap();
                    return RawTcp::of(stream);
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => {
                    assert!(clock.now().since_epoch() < Duration::from_secs(60), "nobody connected within 60 s");
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => panic!("accept: {e}"),
            }
        }
    }

    fn of(stream: TcpStream) -> RawTcp {
        let _ = stream.set_nodelay(true);
        RawTcp { stream, decoder: StreamDecoder::new(MAX_FRAME_BYTES), frame_bytes: Vec::new() }
    }

    /// Writes `messages` in one write.
    pub fn send(&mut self, messages: &[TcpMessage]) {
        let bytes: Vec<u8> = messages.iter().flat_map(|m| encode(m).expect("a test frame encodes")).collect();
        self.send_bytes(&bytes);
    }

    /// Writes raw bytes.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap_or_else(|e| panic!("write: {e}"));
    }

    /// The next frame, or the close, within `limit`.
    pub fn next(&mut self, limit: Duration) -> Next {
        let clock = Clock::start();
        let mut buf = vec![0u8; 64 << 10];
        loop {
            match self.decoder.next_message() {
                Ok(Some(m)) => {
                    self.frame_bytes.push(m.wire_len());
                    return Next::Frame(m);
                }
                Ok(None) => {}
                Err(e) => panic!("the peer sent a frame that does not decode: {e}"),
            }
            let left = limit.saturating_sub(clock.now().since_epoch());
            if left.is_zero() {
                return Next::Silent;
            }
            self.stream.set_read_timeout(Some(left.max(Duration::from_millis(1)))).unwrap();
            match self.stream.read(&mut buf) {
                Ok(0) => return Next::Closed,
                Ok(n) => self.decoder.push(&buf[..n]),
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => return Next::Silent,
                Err(_) => return Next::Closed,
            }
        }
    }

    /// The next frame within `limit`; panics on a close or silence.
    pub fn frame(&mut self, limit: Duration) -> TcpMessage {
        match self.next(limit) {
            Next::Frame(m) => m,
            other => panic!("expected a frame within {limit:?}, got {other:?}"),
        }
    }

    /// Every frame up to and including the first with `token` and a code other than a
    /// signal's (a request's or a response's), within `limit`.
    pub fn until_token(&mut self, token: Token, limit: Duration) -> Vec<TcpMessage> {
        let clock = Clock::start();
        let mut frames = Vec::new();
        loop {
            let left = limit.saturating_sub(clock.now().since_epoch());
            let m = match self.next(left) {
                Next::Frame(m) => m,
                other => panic!("no frame with token {token:?} within {limit:?} ({other:?}); before it: {frames:?}"),
            };
            let done = m.token == token && m.code.class() != 7;
            frames.push(m);
            if done {
                return frames;
            }
        }
    }
}

/// A CSM (RFC 8323 §5.3) announcing `max_message_bytes` (none: the option is left out) and
/// Block-Wise-Transfer.
pub fn csm(max_message_bytes: Option<u32>, block_wise_transfer: bool) -> TcpMessage {
    Signal::Csm(Csm { max_message_size: max_message_bytes, block_wise_transfer }).to_message(Token::EMPTY)
}

/// The signal a frame carries (panics when it is none).
pub fn signal(m: &TcpMessage) -> Signal {
    Signal::parse(m).unwrap_or_else(|e| panic!("not a signal ({e}): {m:?}"))
}

/// A request: `code`, a one-byte token, the Uri-Path segments of `path` (`/`-separated), the
/// Uri-Query `query` (when not empty) and `payload`.
pub fn request(code: Code, token: u8, path: &str, query: &str, payload: &[u8]) -> TcpMessage {
    let mut m = TcpMessage::new(code);
    m.token = Token::new(&[token]).unwrap_or(Token::EMPTY);
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        m.add_option(option::URI_PATH, segment.as_bytes());
    }
    if !query.is_empty() {
        m.add_option(option::URI_QUERY, query.as_bytes());
    }
    m.payload = Payload::from(payload.to_vec());
    m
}

/// The body of `/data?size=N`: the digits 0–9 repeated.
pub fn digits(size: usize) -> Vec<u8> {
    (0..size).map(|i| b'0' + (i % 10) as u8).collect()
}
