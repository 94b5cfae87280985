//! Scenario → endpoint configuration: the request every client sends, the server's fixed
//! response, the echo mode and the MTU check (testbeds §1 sizes). Everything a driver needs to
//! build its `coapcc-proto` endpoints, whatever carries the datagrams.

use std::sync::Arc;

use coapcc_core::{AnyConfig, ConfigError};
use coapcc_proto::echo::echo_mode_for;
use coapcc_proto::message::{Payload, option};
use coapcc_proto::{AutoResponse, Code, EchoMode, EndpointConfig, Message, MessageType, Token};

use crate::scenario::{CoapConfig, EchoChoice, WorkloadConfig};

/// The request every client sends: a CON GET with one Uri-Path option per path segment.
pub fn request_template(coap: &CoapConfig) -> Message {
    Message::con_request(Code::GET, &coap.request_path)
}

/// A payload of `len` zero bytes. Up to 2 KiB (any payload that fits a usual MTU) it borrows a
/// static buffer, so the server's copies of it share nothing that needs counting.
pub fn zero_payload(len: usize) -> Payload {
    static ZEROS: [u8; 2048] = [0; 2048];
    match ZEROS.get(..len) {
        Some(z) => Payload::from_static(z),
        None => Payload::from(vec![0u8; len]),
    }
}

/// The echo mode for an algorithm under the scenario's choice.
pub fn echo_for(choice: EchoChoice, algorithm: &AnyConfig) -> EchoMode {
    match choice {
        EchoChoice::Auto => echo_mode_for(algorithm),
        EchoChoice::None => EchoMode::None,
        EchoChoice::Token => EchoMode::Token,
        EchoChoice::Option => EchoMode::Option,
    }
}

/// The largest request and the largest response this configuration can put on the wire,
/// whatever the algorithm's echo mode: the longest token (`token_bytes` plus the echo byte)
/// and a one-byte transmission-count option (a copy number is at most 255).
pub fn worst_case_messages(coap: &CoapConfig) -> (Message, Message) {
    let token = Token::new(&[0xff; 8][..usize::from(coap.token_bytes).min(7) + 1]).unwrap_or(Token::EMPTY);
    let mut request = request_template(coap);
    request.token = token;
    request.add_option(option::TRANSMISSION_COUNT, [0xff]);
    let mut response = Message {
        mtype: MessageType::Ack,
        code: Code::CONTENT,
        mid: 0,
        token,
        options: Default::default(),
        // Only the length counts; no need to allocate a payload larger than 2 KiB.
        payload: Default::default(),
    };
    response.add_option(option::TRANSMISSION_COUNT, [0xff]);
    (request, response)
}

/// The largest datagram (IP/UDP headers included) this configuration sends, from the
/// messages' own [`Message::wire_len`]; `Err` when it does not fit the MTU. Checked once, when
/// the scenario is loaded.
pub fn check_sizes(coap: &CoapConfig) -> Result<u64, String> {
    let (request, response) = worst_case_messages(coap);
    let payload = u64::from(coap.response_payload_bytes);
    let response_len = response.wire_len() as u64 + if payload > 0 { 1 + payload } else { 0 };
    let worst = (request.wire_len() as u64).max(response_len) + u64::from(coap.ip_udp_header_bytes);
    if worst > u64::from(coap.mtu_bytes) {
        return Err(format!("a {worst}-byte datagram does not fit the {}-byte MTU", coap.mtu_bytes));
    }
    Ok(worst)
}

/// The endpoint set-up of one algorithm under a scenario: what every client and the server are
/// built from.
#[derive(Clone, Debug)]
pub struct Endpoints {
    /// Every client's configuration (a short-lived client gets a fresh endpoint from it).
    pub client: EndpointConfig,
    /// The server's: the client's plus the fixed response (`coap.response_payload_bytes` zero
    /// bytes, 2.05 Content) it gives every request.
    pub server: EndpointConfig,
    /// The request each exchange sends ([`request_template`]).
    pub request: Message,
}

impl Endpoints {
    /// The set-up for `algorithm` under the scenario's CoAP sizes and the workload's NSTART.
    ///
    /// The algorithm is built (checked) here, once; every endpoint made from these
    /// configurations shares the built value. Fails only if `algorithm` was not checked when
    /// the scenario loaded.
    pub fn new(coap: &CoapConfig, workload: &WorkloadConfig, algorithm: &AnyConfig) -> Result<Self, ConfigError> {
        let built = Arc::new(algorithm.build()?);
        let client = EndpointConfig {
            echo: echo_for(coap.echo, algorithm),
            nstart: workload.nstart,
            token_len: coap.token_bytes,
            // Drivers count copies from `Transmit::origin`.
            transmitted_events: false,
            ..EndpointConfig::new(built)
        };
        let server = EndpointConfig {
            auto_response: Some(AutoResponse {
                code: Code::CONTENT,
                payload: zero_payload(coap.response_payload_bytes as usize),
            }),
            ..client.clone()
        };
        Ok(Endpoints { client, server, request: request_template(coap) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_testbed_sizes_give_a_60_byte_worst_datagram() {
        // Request: 4 header + 3 token + 4 Uri-Path "res" + 4 TC option = 15; response: 4 + 3
        // + 4 + 1 marker + 20 payload = 32; plus 28 IPv4/UDP.
        assert_eq!(check_sizes(&CoapConfig::default()), Ok(60));
    }

    #[test]
    fn a_response_larger_than_the_mtu_is_refused_with_its_size() {
        let coap = CoapConfig { response_payload_bytes: 400, ..CoapConfig::default() };
        assert_eq!(check_sizes(&coap), Err("a 440-byte datagram does not fit the 296-byte MTU".into()));
    }

    #[test]
    fn a_long_request_path_counts_every_segment() {
        let coap = CoapConfig { request_path: "a/bb/ccc".into(), response_payload_bytes: 0, ..CoapConfig::default() };
        // 4 + 3 token + (1+1) + (1+2) + (1+3) + 4 TC option = 20; response 4 + 3 + 4 = 11.
        assert_eq!(check_sizes(&coap), Ok(48));
    }
}
