//! # coapcc-proto
//!
//! The sans-IO CoAP messaging layer that both the simulator and the real UDP driver run:
//! exchanges with Message IDs and tokens, one `coapcc-core` controller per destination,
//! NSTART queueing, retransmission and give-up, server-side duplicate detection answering
//! every copy with the same piggybacked response, exact message sizes, and the
//! transmission-count echo (token byte or option) used by `fasor-token` and `pcocoa`.
//!
//! ## Map
//!
//! The API is the `pub use` list below plus the [`codec`] and [`tcp`] namespaces (one path per item).
//!
//! | module | what is there |
//! |---|---|
//! | `endpoint` | **start here**: [`Endpoint`] (`request`, `handle_message`, `handle_timeout`, `poll_*`), generic over any [`coapcc_core::Controller`] (its echo mode: [`coapcc_core::Controller::echo_mode`]) |
//! | `message` | [`Message`] with its exact [`wire_len`](Message::wire_len); tokens, codes, options ([`option`] numbers) |
//! | [`codec`] | bytes ⇄ [`Message`] through `coap-lite` ([`codec::encode`], [`codec::decode`]), at the socket edge only |
//! | [`block`] | RFC 7959 Block1/Block2 option values ([`block::Block`]) and a body's blocks ([`block::range`]) |
//! | `duplicates` | the server's duplicate cache: what makes a copy a copy, and its entry and byte bounds |
//! | [`tcp`] | CoAP over TCP (RFC 8323), sans-IO: framing, the stream decoder, signalling (CSM, Ping/Pong, Release, Abort), BERT, and a [`tcp::Session`] over any byte stream |

// A namespace: `codec::encode` / `codec::decode` name the wire conversion at the socket
// edge; nothing in it is re-exported here.
pub mod codec;
// A namespace: `block::Block`, `block::range` name RFC 7959's pieces; nothing in it is
// re-exported here.
pub mod block;
mod duplicates;
mod endpoint;
mod message;
// A namespace: RFC 8323's framing, signals and session (`tcp::Session`, `tcp::encode`).
pub mod tcp;

pub use endpoint::{
    AutoResponse, DEFAULT_DUPLICATE_CACHE_BYTES, DEFAULT_DUPLICATE_CACHE_ENTRIES, EchoMode, Endpoint, EndpointConfig,
    EndpointStats, Event, Origin, RequestHandle, RequestId, Transmit,
};
pub use message::{
    CoapOption, Code, Message, MessageType, OptionValue, Options, Payload, Token, decode_uint, encode_uint, option,
};
