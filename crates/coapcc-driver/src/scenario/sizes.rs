//! The `[coap]` table on the wire: the request every client sends, the largest messages a
//! configuration can produce and the MTU check (testbeds §1 sizes), done once when a scenario
//! is checked.

use coapcc_proto::block::Block;
use coapcc_proto::option;
use coapcc_proto::{Code, Message, MessageType, Token};

use super::schema::{CoapConfig, EchoChoice};

/// The request every client sends: a CON GET with one Uri-Path option per path segment (a
/// block-wise transfer adds each request's Block2 option, `crate::workload`).
pub fn request_template(coap: &CoapConfig) -> Message {
    Message::con_request(Code::GET, &coap.request_path)
}

/// The largest request and the largest response this configuration can put on the wire:
/// the longest token (`token_bytes`, plus the echo byte unless the echo choice rules the token
/// echo out) and a one-byte transmission-count option (a copy number is at most 255) unless
/// the echo choice rules the option out; with `echo = "auto"` both, whatever the algorithm.
pub fn worst_case_messages(coap: &CoapConfig) -> (Message, Message) {
    let (token_echo, option_echo) = match coap.echo {
        EchoChoice::Auto => (true, true),
        EchoChoice::None => (false, false),
        EchoChoice::Token | EchoChoice::AutoToken => (true, false),
        EchoChoice::Option => (false, true),
    };
    let len = usize::from(coap.token_bytes).min(7) + usize::from(token_echo);
    let token = Token::new(&[0xff; 8][..len]).unwrap_or(Token::EMPTY);
    let mut request = request_template(coap);
    request.token = token;
    let mut response = Message {
        mtype: MessageType::Ack,
        code: Code::CONTENT,
        mid: 0,
        token,
        options: Default::default(),
        // Only the length counts; no need to allocate a payload larger than 2 KiB.
        payload: Default::default(),
    };
    if option_echo {
        request.add_option(option::TRANSMISSION_COUNT, [0xff]);
        response.add_option(option::TRANSMISSION_COUNT, [0xff]);
    }
    (request, response)
}

/// A datagram that does not fit the MTU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("a {worst_bytes}-byte datagram does not fit the {mtu_bytes}-byte MTU")]
pub struct SizeError {
    /// The largest datagram, IP/UDP headers included, bytes.
    pub worst_bytes: u64,
    /// The MTU, bytes.
    pub mtu_bytes: u32,
}

/// The largest datagram (IP/UDP headers included) of [`worst_case_messages`], from the
/// messages' own [`Message::wire_len`]: responses carry `response_payload_bytes`, or with
/// `block2` = (Block2 value, payload bytes) both messages a Block2 option of that value and
/// responses that payload (a block-wise transfer's largest block, RFC 7959 §2.2).
pub fn largest_datagram(coap: &CoapConfig, block2: Option<(Block, u64)>) -> u64 {
    let (mut request, mut response) = worst_case_messages(coap);
    let payload = match block2 {
        Some((block, payload_bytes)) => {
            request.add_option(option::BLOCK2, block.encode());
            response.add_option(option::BLOCK2, block.encode());
            payload_bytes
        }
        None => u64::from(coap.response_payload_bytes),
    };
    let response_len = response.wire_len() as u64 + if payload > 0 { 1 + payload } else { 0 };
    (request.wire_len() as u64).max(response_len) + u64::from(coap.ip_udp_header_bytes)
}

/// The largest datagram (IP/UDP headers included) this configuration sends
/// ([`largest_datagram`]); an error when it does not fit the MTU. Checked once, when the
/// scenario is loaded (a block-wise transfer's block size is checked by `transfer::block_szx`).
pub fn check_sizes(coap: &CoapConfig) -> Result<u64, SizeError> {
    let worst = largest_datagram(coap, None);
    if worst > u64::from(coap.mtu_bytes) {
        return Err(SizeError { worst_bytes: worst, mtu_bytes: coap.mtu_bytes });
    }
    Ok(worst)
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
        let e = check_sizes(&coap).unwrap_err();
        assert_eq!(e, SizeError { worst_bytes: 440, mtu_bytes: 296 });
        assert_eq!(e.to_string(), "a 440-byte datagram does not fit the 296-byte MTU");
    }

    #[test]
    fn a_long_request_path_counts_every_segment() {
        let coap = CoapConfig { request_path: "a/bb/ccc".into(), response_payload_bytes: 0, ..CoapConfig::default() };
        // 4 + 3 token + (1+1) + (1+2) + (1+3) + 4 TC option = 20; response 4 + 3 + 4 = 11.
        assert_eq!(check_sizes(&coap), Ok(48));
    }
}
