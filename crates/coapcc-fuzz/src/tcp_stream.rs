//! Fuzz target `tcp_stream`: arbitrary bytes as a CoAP-over-TCP stream (RFC 8323), to the
//! stream decoder and to a server session.
//!
//! The first byte picks a chunk size (1–64); the rest is the stream. Invariants: the decoder
//! gives the same messages whatever the chunking (each re-encodes to a frame of its
//! `wire_len` that decodes to itself); the session never panics, answers every request
//! event it raises (a response fits the peer's Max-Message-Size or is refused with a typed
//! error), buffers at most one maximum-sized frame, and once closed it stays closed and
//! raises nothing more (a request raised before the frame that closed it may find it closed
//! when answered).

use coapcc_proto::tcp::{
    Role, Session, SessionConfig, SessionError, SessionEvent, StreamDecoder, TcpMessage, decode, encode,
};
use coapcc_proto::{Code, Payload};

/// The maximum message size of the decoder and the session under test, bytes.
const MAX_BYTES: u32 = 2048;

fn messages(stream: &[u8], chunk: usize) -> (Vec<TcpMessage>, bool) {
    let mut d = StreamDecoder::new(MAX_BYTES);
    let mut out = Vec::new();
    for c in stream.chunks(chunk.max(1)) {
        d.push(c);
        loop {
            match d.next_message() {
                Ok(Some(m)) => out.push(m),
                Ok(None) => break,
                Err(_) => return (out, true),
            }
        }
        assert!(d.buffered_bytes() <= MAX_BYTES as usize + chunk, "the decoder holds at most one frame and a chunk");
    }
    (out, false)
}

/// Runs one input (see the module documentation).
pub fn run(data: &[u8]) {
    let Some((&first, stream)) = data.split_first() else { return };
    let chunk = usize::from(first % 64) + 1;
    let (a, failed_a) = messages(stream, chunk);
    let (b, failed_b) = messages(stream, stream.len().max(1));
    assert_eq!((&a, failed_a), (&b, failed_b), "the messages do not depend on the chunking");
    for m in &a {
        let bytes = encode(m).unwrap_or_else(|e| panic!("{m:?} does not encode: {e}"));
        assert_eq!(bytes.len(), m.wire_len());
        assert_eq!(decode(&bytes).as_ref(), Ok(m), "re-encoded as {bytes:02x?}");
    }

    let config = SessionConfig { max_message_bytes: MAX_BYTES, block_wise_transfer: true, max_pending_requests: 4 };
    let mut s = Session::new(Role::Acceptor, config);
    while s.poll_transmit().is_some() {}
    for c in stream.chunks(chunk) {
        let was_closed = s.is_closed();
        s.receive(c);
        while let Some(e) = s.poll_event() {
            assert!(!was_closed, "a closed session raised {e:?}");
            if let SessionEvent::Request(r) = e {
                let resp = TcpMessage {
                    payload: Payload::from(vec![b'x'; r.payload.len()]),
                    ..TcpMessage::new(Code::CONTENT)
                };
                // A request that arrived before a fatal frame of the same chunk is raised, but
                // the session is closed by the time it is answered.
                match s.respond(r.token, resp) {
                    Ok(()) | Err(SessionError::TooLarge { .. }) => {}
                    Err(SessionError::Closed) if s.is_closed() => {}
                    Err(err) => panic!("answering a raised request failed: {err}"),
                }
            }
        }
        while let Some(t) = s.poll_transmit() {
            assert!(
                t.bytes.len() <= s.peer().max_message_bytes.max(1152) as usize || t.code == coapcc_proto::tcp::ABORT
            );
        }
    }
}
