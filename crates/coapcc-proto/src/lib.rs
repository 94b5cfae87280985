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
//! | module | what is there |
//! |---|---|
//! | [`endpoint`] | **start here**: [`Endpoint`] (`request`, `handle_message`, `handle_timeout`, `poll_*`), generic over any [`coapcc_core::Controller`] |
//! | [`message`] | [`Message`] with its exact [`wire_len`](Message::wire_len); tokens, codes, options |
//! | [`codec`] | bytes ⇄ [`Message`] through `coap-lite`, at the socket edge only; [`DecodeError`] |
//! | `duplicates` (private) | the server's duplicate cache: what makes a copy a copy, and its entry and byte bounds |
//! | [`echo`] | which echo mode each registered algorithm uses (each algorithm states it: [`coapcc_core::Controller::echo_mode`]) |

pub mod codec;
mod duplicates;
pub mod echo;
pub mod endpoint;
pub mod message;

pub use codec::DecodeError;
pub use endpoint::{
    AutoResponse, DEFAULT_DUPLICATE_CACHE_BYTES, DEFAULT_DUPLICATE_CACHE_ENTRIES, EchoMode, Endpoint, EndpointConfig,
    EndpointStats, Event, Origin, RequestHandle, RequestId, Transmit,
};
pub use message::{CoapOption, Code, Message, MessageType, OptionValue, Options, Payload, Token};
