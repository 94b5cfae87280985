//! The wire format at the edge: [`Message`] ⇄ bytes, through `coap-lite`.
//!
//! Only real sockets need this; the simulator never encodes. Malformed input is an error,
//! never a panic.

use std::collections::LinkedList;

use coap_lite::error::MessageError;
use coap_lite::{CoapOption as LiteOption, MessageClass, MessageType as LiteType, Packet};

use crate::message::{CoapOption, Code, Message, MessageType, OptionValue, Payload, Token};

/// Why bytes are not a CoAP message (RFC 7252 §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Shorter than the 4-byte header, or a header that cannot be read.
    #[error("malformed CoAP message: invalid header")]
    Header,
    /// A token length above 8 or beyond the datagram's end.
    #[error("malformed CoAP message: invalid token length")]
    TokenLength,
    /// An option delta with the reserved value 15, or options past number 65 535.
    #[error("malformed CoAP message: invalid option delta")]
    OptionDelta,
    /// An option length with the reserved value 15, or one beyond the datagram's end.
    #[error("malformed CoAP message: invalid option length")]
    OptionLength,
    /// A length the decoder cannot carry.
    #[error("malformed CoAP message: invalid packet length")]
    PacketLength,
    /// A version other than 1.
    #[error("malformed CoAP message: version {0}")]
    Version(u8),
    /// An Empty message (code 0.00) with bytes after its Message ID.
    #[error("malformed CoAP message: an Empty message with a token, options or payload")]
    EmptyWithContent,
    /// A payload marker followed by no payload.
    #[error("malformed CoAP message: a payload marker followed by no payload")]
    EmptyPayload,
}

impl From<MessageError> for DecodeError {
    fn from(e: MessageError) -> Self {
        match e {
            MessageError::InvalidHeader => DecodeError::Header,
            MessageError::InvalidTokenLength => DecodeError::TokenLength,
            MessageError::InvalidOptionDelta => DecodeError::OptionDelta,
            MessageError::InvalidOptionLength => DecodeError::OptionLength,
            MessageError::InvalidPacketLength => DecodeError::PacketLength,
        }
    }
}

/// Encodes a message (RFC 7252 §3). An Empty message (code 0.00) is encoded as its 4-byte
/// header: RFC 7252 §4.1 forbids a token, options or payload in it.
pub fn encode(msg: &Message) -> Vec<u8> {
    if msg.code == Code::EMPTY {
        let t = match msg.mtype {
            MessageType::Con => 0,
            MessageType::Non => 1,
            MessageType::Ack => 2,
            MessageType::Rst => 3,
        };
        let [hi, lo] = msg.mid.to_be_bytes();
        return vec![0x40 | (t << 4), 0, hi, lo];
    }
    let mut p = Packet::new();
    p.header.set_version(1);
    p.header.set_type(match msg.mtype {
        MessageType::Con => LiteType::Confirmable,
        MessageType::Non => LiteType::NonConfirmable,
        MessageType::Ack => LiteType::Acknowledgement,
        MessageType::Rst => LiteType::Reset,
    });
    p.header.code = MessageClass::from(msg.code.0);
    p.header.message_id = msg.mid;
    p.set_token(msg.token.as_bytes().to_vec());
    let mut i = 0;
    while i < msg.options.len() {
        let number = msg.options[i].number;
        let mut values = LinkedList::new();
        while i < msg.options.len() && msg.options[i].number == number {
            values.push_back(msg.options[i].value.to_vec());
            i += 1;
        }
        p.set_option(LiteOption::from(number), values);
    }
    p.payload = msg.payload.to_vec();
    // Token ≤ 8 bytes and option values bounded by Vec sizes keep this infallible in practice;
    // fall back to the unlimited encoder rather than panicking.
    p.to_bytes().or_else(|_| p.to_bytes_unlimited()).unwrap_or_default()
}

/// Decodes bytes into a message.
pub fn decode(bytes: &[u8]) -> Result<Message, DecodeError> {
    // RFC 7252 §4.1: an Empty message (version 1, code 0.00) has no token, options or
    // payload; any byte after its Message ID is a message format error.
    if let [first, 0, _, _, _, ..] = bytes
        && first >> 6 == 1
    {
        return Err(DecodeError::EmptyWithContent);
    }
    let p = Packet::from_bytes(bytes)?;
    if p.header.get_version() != 1 {
        return Err(DecodeError::Version(p.header.get_version()));
    }
    let token = Token::new(p.get_token()).ok_or(DecodeError::TokenLength)?;
    let mut options = Vec::new();
    for (number, values) in p.options() {
        for v in values {
            options.push(CoapOption { number: *number, value: OptionValue::from_slice(v) });
        }
    }
    options.sort_by_key(|o| o.number);
    let msg = Message {
        mtype: match p.header.get_type() {
            LiteType::Confirmable => MessageType::Con,
            LiteType::NonConfirmable => MessageType::Non,
            LiteType::Acknowledgement => MessageType::Ack,
            LiteType::Reset => MessageType::Rst,
        },
        code: Code(u8::from(p.header.code)),
        mid: p.header.message_id,
        token,
        options: options.into_iter().collect(),
        payload: Payload::from(p.payload),
    };
    // RFC 7252 §3: "The presence of a marker followed by a zero-length payload MUST be
    // processed as a message format error." Options are encoded in one way only (ascending
    // numbers, the shortest delta and length forms), so every byte is accounted for by
    // `wire_len` except such a marker.
    if msg.payload.is_empty() && bytes.len() != msg.wire_len() {
        return Err(DecodeError::EmptyPayload);
    }
    Ok(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Payload, option};
    use proptest::prelude::*;

    fn message() -> impl Strategy<Value = Message> {
        (
            prop_oneof![Just(MessageType::Con), Just(MessageType::Non), Just(MessageType::Ack), Just(MessageType::Rst)],
            prop_oneof![Just(Code::GET), Just(Code::CONTENT), Just(Code::EMPTY), Just(Code::NOT_FOUND)],
            any::<u16>(),
            prop::collection::vec(any::<u8>(), 0..=8),
            prop::collection::vec(
                (
                    prop_oneof![
                        Just(option::URI_PATH),
                        Just(option::CONTENT_FORMAT),
                        Just(option::TRANSMISSION_COUNT),
                        1u16..3000
                    ],
                    prop::collection::vec(any::<u8>(), 0..300),
                ),
                0..5,
            ),
            prop::collection::vec(any::<u8>(), 0..64),
        )
            .prop_map(|(mtype, code, mid, token, opts, payload)| {
                let mut m = Message {
                    mtype,
                    code,
                    mid,
                    token: Token::new(&token).unwrap(),
                    options: Default::default(),
                    payload: Payload::from(payload),
                };
                for (n, v) in opts {
                    m.add_option(n, v);
                }
                if code == Code::EMPTY {
                    m = Message::empty(mtype, mid);
                }
                m
            })
    }

    proptest! {
        #[test]
        fn wire_len_is_the_length_of_the_encoding_and_decoding_round_trips(m in message()) {
            let bytes = encode(&m);
            prop_assert_eq!(bytes.len(), m.wire_len());
            prop_assert_eq!(decode(&bytes).unwrap(), m);
        }

        #[test]
        fn an_empty_message_with_a_token_options_or_payload_is_a_format_error(tail in prop::collection::vec(any::<u8>(), 1..16)) {
            let bytes = [&[0x40, 0x00, 0x12, 0x34][..], &tail].concat();
            prop_assert_eq!(decode(&bytes), Err(DecodeError::EmptyWithContent));
            prop_assert_eq!(decode(&bytes[..4]), Ok(Message::empty(MessageType::Con, 0x1234)));
        }

        #[test]
        fn arbitrary_bytes_never_panic_the_decoder(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode(&bytes);
        }
    }
}
