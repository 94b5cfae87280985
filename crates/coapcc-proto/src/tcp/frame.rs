//! RFC 8323 §3.2: one CoAP message on a reliable byte stream, and its frame.
//!
//! ```text
//!  Len (4 bits) | TKL (4 bits) | Extended Length (0, 1, 2 or 4 bytes) | Code | Token | Options | 0xFF Payload
//! ```
//!
//! Len counts the options, the payload marker and the payload (not the code or the token):
//! 0–12 as it is; 13: one extension byte holding the length minus 13; 14: two bytes (network
//! order) holding the length minus 269; 15: four bytes holding the length minus 65 805. There
//! is no version, type or Message ID. The options and payload are encoded as in RFC 7252 §3.1
//! through [`crate::codec`] (coap-lite); the framing around them is this module's.

use crate::codec::{self, DecodeError};
use crate::message::{Code, Message, MessageType, Options, Payload, Token};

/// The first length that takes a one-byte extension (RFC 8323 §3.2, Len = 13).
pub const LEN_EXT8_BASE: u64 = 13;
/// The first length that takes a two-byte extension (Len = 14).
pub const LEN_EXT16_BASE: u64 = 269;
/// The first length that takes a four-byte extension (Len = 15).
pub const LEN_EXT32_BASE: u64 = 65_805;
/// The largest length the four-byte extension can carry.
pub const MAX_BODY_BYTES: u64 = LEN_EXT32_BASE + u32::MAX as u64;

/// A CoAP message as CoAP over TCP carries it: a code, a token, options and a payload (RFC
/// 8323 §3.2; no type, no Message ID).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TcpMessage {
    /// Code: a request, a response, 0.00 Empty, or a 7.xx signal (RFC 8323 §5.1).
    pub code: Code,
    /// Token (0–8 bytes; RFC 8974's longer tokens are not supported).
    pub token: Token,
    /// Options in ascending number.
    pub options: Options,
    /// Payload (without the 0xFF marker).
    pub payload: Payload,
}

impl TcpMessage {
    /// A message with `code` and nothing else.
    pub fn new(code: Code) -> TcpMessage {
        TcpMessage { code, token: Token::EMPTY, options: Options::new(), payload: Payload::new() }
    }

    /// The code, token, options and payload of a datagram message (its type and Message ID
    /// are dropped).
    pub fn from_message(m: &Message) -> TcpMessage {
        TcpMessage { code: m.code, token: m.token, options: m.options.clone(), payload: m.payload.clone() }
    }

    /// The same content as a datagram [`Message`] (confirmable, Message ID 0), for code that
    /// handles requests whatever their transport.
    pub fn to_message(&self) -> Message {
        Message {
            mtype: MessageType::Con,
            code: self.code,
            mid: 0,
            token: self.token,
            options: self.options.clone(),
            payload: self.payload.clone(),
        }
    }

    /// Adds an option, keeping options ordered by number.
    pub fn add_option(&mut self, number: u16, value: impl AsRef<[u8]>) {
        let at = self.options.partition_point(|o| o.number <= number);
        self.options.insert(
            at,
            crate::message::CoapOption { number, value: crate::message::OptionValue::from_slice(value.as_ref()) },
        );
    }

    /// The first value of option `number`.
    pub fn option(&self, number: u16) -> Option<&[u8]> {
        self.options.iter().find(|o| o.number == number).map(|o| o.value.as_slice())
    }

    /// The bytes Len counts: options, payload marker and payload.
    pub fn body_len(&self) -> usize {
        // `Message::wire_len` is header (4) + token + options + marker + payload for any
        // non-empty code; the options' encoding does not depend on the code.
        let m = Message { code: Code::GET, ..self.to_message() };
        m.wire_len() - 4 - self.token.len()
    }

    /// The whole frame's length, bytes: what Max-Message-Size bounds (RFC 8323 §5.3.1: from the
    /// first byte of the header to the end of the payload).
    pub fn wire_len(&self) -> usize {
        let body = self.body_len();
        frame_len(self.token.len(), body as u64).map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX))
    }
}

/// The bytes of the Extended Length field for a body of `body` bytes (0, 1, 2 or 4).
pub fn ext_len_bytes(body: u64) -> usize {
    match body {
        0..LEN_EXT8_BASE => 0,
        LEN_EXT8_BASE..LEN_EXT16_BASE => 1,
        LEN_EXT16_BASE..LEN_EXT32_BASE => 2,
        _ => 4,
    }
}

/// The length of a whole frame with a token of `tkl` bytes and a body of `body` bytes: the
/// first byte, the extended length, the code, the token and the body; `None` beyond what the
/// four-byte extension can carry.
pub fn frame_len(tkl: usize, body: u64) -> Option<u64> {
    (body <= MAX_BODY_BYTES).then(|| 2 + ext_len_bytes(body) as u64 + tkl as u64 + body)
}

/// Why a message cannot be framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// Options and payload longer than the 32-bit extended length can carry.
    #[error("a message body of {bytes} bytes (at most {MAX_BODY_BYTES} in one frame, RFC 8323 §3.2)")]
    TooLong {
        /// Options, marker and payload, bytes.
        bytes: u64,
    },
}

/// Encodes `msg` as one frame (RFC 8323 §3.2).
pub fn encode(msg: &TcpMessage) -> Result<Vec<u8>, EncodeError> {
    let tkl = msg.token.len();
    // The options and payload as RFC 7252 §3.1 has them: a datagram encoding without its
    // 4-byte header and token.
    let datagram = codec::encode(&Message { code: Code::GET, ..msg.to_message() });
    let body = &datagram[4 + tkl..];
    let len = body.len() as u64;
    if len > MAX_BODY_BYTES {
        return Err(EncodeError::TooLong { bytes: len });
    }
    let mut out = Vec::with_capacity(2 + 4 + tkl + body.len());
    let (nibble, ext): (u8, Vec<u8>) = match ext_len_bytes(len) {
        0 => (len as u8, Vec::new()),
        1 => (13, vec![(len - LEN_EXT8_BASE) as u8]),
        2 => (14, ((len - LEN_EXT16_BASE) as u16).to_be_bytes().to_vec()),
        _ => (15, ((len - LEN_EXT32_BASE) as u32).to_be_bytes().to_vec()),
    };
    out.push((nibble << 4) | tkl as u8);
    out.extend_from_slice(&ext);
    out.push(msg.code.0);
    out.extend_from_slice(msg.token.as_bytes());
    out.extend_from_slice(body);
    Ok(out)
}

/// What the first bytes of a frame say: its token length and its whole length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameHeader {
    /// Token length (TKL).
    pub tkl: usize,
    /// Bytes of the first byte and the extended length.
    pub len_bytes: usize,
    /// Options, marker and payload, bytes (Len with its extension).
    pub body_bytes: u64,
}

impl FrameHeader {
    /// The whole frame, bytes.
    pub fn frame_bytes(&self) -> u64 {
        self.len_bytes as u64 + 1 + self.tkl as u64 + self.body_bytes
    }
}

/// Why bytes on a stream are not a CoAP-over-TCP message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// A token length of 9–15 (reserved: RFC 7252 §3, RFC 8323 §3.2).
    #[error("malformed CoAP-over-TCP message: token length {0} (at most 8)")]
    TokenLength(u8),
    /// A frame longer than the receiver's Max-Message-Size (RFC 8323 §5.3.1), known from its
    /// length field before its body arrives.
    #[error("a message of {bytes} bytes exceeds the Max-Message-Size of {max} bytes")]
    TooLarge {
        /// The frame's length, bytes.
        bytes: u64,
        /// The limit, bytes.
        max: u64,
    },
    /// Options or payload that are not RFC 7252 §3.1's.
    #[error(transparent)]
    Body(#[from] DecodeError),
}

/// Reads the header at the start of `bytes`: `Ok(None)` while more bytes are needed to know
/// the frame's length.
pub fn header(bytes: &[u8]) -> Result<Option<FrameHeader>, FrameError> {
    let Some(&first) = bytes.first() else { return Ok(None) };
    let (nibble, tkl) = (first >> 4, first & 0x0f);
    if tkl > 8 {
        return Err(FrameError::TokenLength(tkl));
    }
    let ext = match nibble {
        13 => 1,
        14 => 2,
        15 => 4,
        _ => 0,
    };
    let Some(ext_bytes) = bytes.get(1..1 + ext) else { return Ok(None) };
    let value = ext_bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
    let body_bytes = match nibble {
        13 => value + LEN_EXT8_BASE,
        14 => value + LEN_EXT16_BASE,
        15 => value + LEN_EXT32_BASE,
        n => u64::from(n),
    };
    Ok(Some(FrameHeader { tkl: usize::from(tkl), len_bytes: 1 + ext, body_bytes }))
}

/// Decodes one whole frame (`bytes` is exactly its length, as [`header`] gives it).
pub fn decode(bytes: &[u8]) -> Result<TcpMessage, FrameError> {
    let h = header(bytes)?.ok_or(FrameError::Body(DecodeError::Header))?;
    if h.frame_bytes() != bytes.len() as u64 {
        return Err(FrameError::Body(DecodeError::PacketLength));
    }
    let code = Code(bytes[h.len_bytes]);
    let token_at = h.len_bytes + 1;
    let token = Token::new(&bytes[token_at..token_at + h.tkl]).ok_or(FrameError::TokenLength(h.tkl as u8))?;
    let body = &bytes[token_at + h.tkl..];
    if body.is_empty() {
        return Ok(TcpMessage { code, token, options: Options::new(), payload: Payload::new() });
    }
    // A datagram with the same token, options and payload (version 1, CON, a request code
    // so that the body is read whatever the code), decoded by the RFC 7252 codec.
    let mut datagram = Vec::with_capacity(4 + h.tkl + body.len());
    datagram.extend_from_slice(&[0x40 | h.tkl as u8, Code::GET.0, 0, 0]);
    datagram.extend_from_slice(token.as_bytes());
    datagram.extend_from_slice(body);
    let m = codec::decode(&datagram)?;
    Ok(TcpMessage { code, token, options: m.options, payload: m.payload })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::option;

    #[test]
    fn rfc_8323_figure_5_a_2_03_with_token_7f_is_three_bytes() {
        // RFC 8323 §3.2, Figure 5: Len 0, TKL 1 → 0x01; Code 2.03 → 0x43; Token 0x7f.
        let m = TcpMessage { token: Token::new(&[0x7f]).unwrap(), ..TcpMessage::new(Code(0x43)) };
        assert_eq!(encode(&m).unwrap(), [0x01, 0x43, 0x7f]);
        assert_eq!(decode(&[0x01, 0x43, 0x7f]).unwrap(), m);
        assert_eq!(m.wire_len(), 3);
    }

    /// A GET with one Uri-Path option and a payload of `n` bytes.
    fn with_payload(n: usize) -> TcpMessage {
        let mut m = TcpMessage::new(Code::GET);
        m.add_option(option::URI_PATH, b"data");
        m.payload = Payload::from(vec![b'x'; n]);
        m
    }

    #[test]
    fn each_length_form_is_chosen_at_its_boundary_and_carries_the_length_minus_its_base() {
        // Body = 5 bytes of Uri-Path (1 + 4) + marker + payload.
        // 12 → Len 12 inline; 13 → Len 13 + (13 − 13); 268 → 13 + 255; 269 → 14 + 0x0000;
        // 65 804 → 14 + 0xffff; 65 805 → 15 + 0x00000000 (derived by hand from §3.2).
        let cases: [(usize, &[u8]); 6] = [
            (12, &[0xc0]),
            (13, &[0xd0, 0x00]),
            (268, &[0xd0, 0xff]),
            (269, &[0xe0, 0x00, 0x00]),
            (65_804, &[0xe0, 0xff, 0xff]),
            (65_805, &[0xf0, 0x00, 0x00, 0x00, 0x00]),
        ];
        for (body, head) in cases {
            let m = with_payload(body - 6);
            let bytes = encode(&m).unwrap();
            assert_eq!(&bytes[..head.len()], head, "body of {body} bytes");
            assert_eq!(bytes[head.len()], Code::GET.0);
            assert_eq!(&bytes[head.len() + 1..head.len() + 6], b"\xb4data");
            assert_eq!(bytes.len(), head.len() + 1 + body);
            assert_eq!(m.wire_len(), bytes.len());
            assert_eq!(decode(&bytes).unwrap(), m);
        }
    }

    #[test]
    fn a_token_length_above_8_is_refused_from_the_first_byte() {
        assert_eq!(header(&[0x09]), Err(FrameError::TokenLength(9)));
        assert_eq!(header(&[0x0f, 0x01]), Err(FrameError::TokenLength(15)));
        assert_eq!(header(&[0xe0, 0x00]), Ok(None), "a two-byte extension needs both bytes");
    }

    #[test]
    fn a_body_that_is_not_rfc_7252_options_and_payload_is_an_error() {
        // Len 1: one byte of body, the payload marker alone (RFC 7252 §3: a format error).
        assert_eq!(decode(&[0x10, 0x45, 0xff]), Err(FrameError::Body(DecodeError::EmptyPayload)));
        // An option delta of 15 (reserved).
        assert_eq!(decode(&[0x10, 0x45, 0xf0]), Err(FrameError::Body(DecodeError::OptionDelta)));
    }
}
