//! CoAP over TCP (RFC 8323), sans-IO: framing, the stream decoder, signalling, BERT and a
//! session over any byte stream.
//!
//! | module | what is there |
//! |---|---|
//! | `frame` | [`TcpMessage`] and its frame (§3.2: Len/TKL nibbles, 8/16/32-bit extended lengths): [`encode`], [`decode`], [`header`] |
//! | `decoder` | [`StreamDecoder`]: bytes in any chunks → whole messages, frames over the maximum refused from their length field |
//! | `signal` | [`Signal`] (7.01 CSM, 7.02 Ping, 7.03 Pong, 7.04 Release, 7.05 Abort, §5) with their options |
//! | `bert` | SZX 7 blocks (§6): payload sizing within the peer's Max-Message-Size, block numbering (the option value itself: [`crate::block::Block`]) |
//! | `session` | **start here**: [`Session`] (CSM first, requests and responses by token, Ping/Pong, Release, Abort on the peer's protocol errors, the peer's Max-Message-Size respected) |
//!
//! Nothing here reads a clock or a socket: the driver (`coapcc-udp`'s TCP server and client)
//! feeds bytes in and writes the transmits out.

mod bert;
mod decoder;
mod frame;
mod session;
mod signal;

pub use bert::{BERT_UNIT_BYTES, bert_next_num, bert_payload_bytes, bert_payload_ok};
pub use decoder::StreamDecoder;
pub use frame::{
    EncodeError, FrameError, FrameHeader, LEN_EXT8_BASE, LEN_EXT16_BASE, LEN_EXT32_BASE, MAX_BODY_BYTES, TcpMessage,
    decode, encode, ext_len_bytes, frame_len, header,
};
pub use session::{
    MAX_DIAGNOSTIC_BYTES, PeerSettings, ProtocolError, Role, Session, SessionConfig, SessionError, SessionEvent,
    SessionStats, Transmit,
};
pub use signal::{
    ABORT, ALTERNATIVE_ADDRESS, BAD_CSM_OPTION, BASE_MAX_MESSAGE_SIZE, BLOCK_WISE_TRANSFER, CSM, CUSTODY, Csm,
    HOLD_OFF, MAX_MESSAGE_SIZE, PING, PONG, RELEASE, Signal, SignalError, is_signal, signal_name,
};

#[cfg(test)]
mod tests;
