//! The CoAP message as the endpoint handles it (RFC 7252 §3), with its exact wire length.
//!
//! The endpoint and the simulator pass [`Message`] values; only real sockets need bytes, and
//! [`crate::codec`] converts at that edge. [`Message::wire_len`] is the length the encoded
//! message has on the wire, so the simulator charges links with exact sizes without encoding.

use std::fmt;

use smallvec::SmallVec;

/// A message payload: cheap to clone (reference counted), `Bytes::from_static` for constants.
pub type Payload = bytes::Bytes;
/// An option value, inline up to 8 bytes (longer values spill to the heap). Cloning an inline
/// value is a plain copy.
#[derive(Default, PartialEq, Eq, Hash)]
pub struct OptionValue(SmallVec<[u8; 8]>);

impl OptionValue {
    /// A value holding `bytes`.
    pub fn from_slice(bytes: &[u8]) -> Self {
        OptionValue(SmallVec::from_slice(bytes))
    }

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.0
    }
}

impl Clone for OptionValue {
    fn clone(&self) -> Self {
        // `SmallVec::clone` goes through an iterator; copying the slice is much cheaper.
        OptionValue::from_slice(&self.0)
    }
}

impl std::ops::Deref for OptionValue {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for OptionValue {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl fmt::Debug for OptionValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}
/// A message's options, inline up to two.
pub type Options = SmallVec<[CoapOption; 2]>;

/// RFC 7252 §3: message type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageType {
    /// Confirmable.
    Con,
    /// Non-confirmable.
    Non,
    /// Acknowledgement.
    Ack,
    /// Reset.
    Rst,
}

/// RFC 7252 §3: a code `c.dd` stored as one byte (class in the top 3 bits).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Code(pub u8);

impl Code {
    /// 0.00 Empty.
    pub const EMPTY: Code = Code(0x00);
    /// 0.01 GET.
    pub const GET: Code = Code(0x01);
    /// 0.02 POST.
    pub const POST: Code = Code(0x02);
    /// 0.03 PUT.
    pub const PUT: Code = Code(0x03);
    /// 2.04 Changed.
    pub const CHANGED: Code = Code(0x44);
    /// 2.05 Content.
    pub const CONTENT: Code = Code(0x45);
    /// 4.04 Not Found.
    pub const NOT_FOUND: Code = Code(0x84);
    /// 2.31 Continue (RFC 7959 §2.9.1).
    pub const CONTINUE: Code = Code(0x5f);
    /// 4.00 Bad Request.
    pub const BAD_REQUEST: Code = Code(0x80);
    /// 4.05 Method Not Allowed.
    pub const METHOD_NOT_ALLOWED: Code = Code(0x85);
    /// 4.08 Request Entity Incomplete (RFC 7959 §2.9.2).
    pub const REQUEST_ENTITY_INCOMPLETE: Code = Code(0x88);
    /// 4.13 Request Entity Too Large.
    pub const REQUEST_ENTITY_TOO_LARGE: Code = Code(0x8d);

    /// The class (0 = request/empty, 2 = success, 4 = client error, 5 = server error).
    pub fn class(self) -> u8 {
        self.0 >> 5
    }

    /// Whether this is a request code (0.01–0.31).
    pub fn is_request(self) -> bool {
        self.class() == 0 && self.0 != 0
    }

    /// Whether this is a response code (2.00–5.31).
    pub fn is_response(self) -> bool {
        (2..=5).contains(&self.class())
    }
}

impl fmt::Debug for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{:02}", self.0 >> 5, self.0 & 0x1f)
    }
}

/// RFC 7252 §5.3.1: a token of 0 to 8 bytes, stored inline.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Token {
    bytes: [u8; 8],
    len: u8,
}

impl Token {
    /// The empty token.
    pub const EMPTY: Token = Token { bytes: [0; 8], len: 0 };

    /// A token from up to 8 bytes (`None` if longer).
    pub fn new(bytes: &[u8]) -> Option<Token> {
        if bytes.len() > 8 {
            return None;
        }
        let mut t = Token { bytes: [0; 8], len: bytes.len() as u8 };
        t.bytes[..bytes.len()].copy_from_slice(bytes);
        Some(t)
    }

    /// The token's bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// The token's length in bytes.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the token is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// This token with one more byte appended (saturating at 8 bytes: the last byte is replaced).
    pub fn with_suffix(&self, byte: u8) -> Token {
        let mut t = *self;
        if t.len < 8 {
            t.len += 1;
        }
        t.bytes[t.len as usize - 1] = byte;
        t
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("0x")?;
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Option numbers used here (RFC 7252 §5.10 and this project's experimental number).
pub mod option {
    /// Uri-Host (RFC 7252 §5.10.1).
    pub const URI_HOST: u16 = 3;
    /// Uri-Port (RFC 7252 §5.10.1).
    pub const URI_PORT: u16 = 7;
    /// Uri-Path (RFC 7252 §5.10.1).
    pub const URI_PATH: u16 = 11;
    /// Uri-Query (RFC 7252 §5.10.1).
    pub const URI_QUERY: u16 = 15;
    /// Block2 (RFC 7959 §2.1).
    pub const BLOCK2: u16 = 23;
    /// Block1 (RFC 7959 §2.1).
    pub const BLOCK1: u16 = 27;
    /// Size2 (RFC 7959 §4).
    pub const SIZE2: u16 = 28;
    /// Size1 (RFC 7252 §5.10.9, RFC 7959 §4).
    pub const SIZE1: u16 = 60;
    /// Content-Format (RFC 7252 §5.10.3).
    pub const CONTENT_FORMAT: u16 = 12;
    /// Observe (RFC 7641 §2).
    pub const OBSERVE: u16 = 6;
    /// The transmission-count echo: FASOR-02's Rexmit-Cnt and pCoCoA's Transmission Count.
    /// Both drafts leave the number to be assigned; this is an Experimental Use number
    /// (RFC 7252 §12.2: 65000–65535) chosen with the properties FASOR-02 asks for: elective
    /// (even), safe-to-forward, NoCacheKey (`n & 0x1e == 0x1c`).
    pub const TRANSMISSION_COUNT: u16 = 65020;
}

/// One option: its number and raw value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CoapOption {
    /// Option number.
    pub number: u16,
    /// Raw value.
    pub value: OptionValue,
}

/// RFC 7252 §3.2: the minimal big-endian encoding of an unsigned integer (0 is empty).
pub fn encode_uint(v: u32) -> OptionValue {
    let bytes = v.to_be_bytes();
    let skip = bytes.iter().take_while(|b| **b == 0).count();
    OptionValue::from_slice(&bytes[skip..])
}

/// Decodes an RFC 7252 §3.2 unsigned integer of up to 4 bytes (`None` if longer).
pub fn decode_uint(value: &[u8]) -> Option<u32> {
    if value.len() > 4 {
        return None;
    }
    Some(value.iter().fold(0u32, |acc, b| (acc << 8) | u32::from(*b)))
}

/// A CoAP message.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Message {
    /// Type.
    pub mtype: MessageType,
    /// Code.
    pub code: Code,
    /// Message ID.
    pub mid: u16,
    /// Token.
    pub token: Token,
    /// Options, in ascending option number (stable for equal numbers).
    pub options: Options,
    /// Payload (without the 0xFF marker).
    pub payload: Payload,
}

impl Message {
    /// An empty message (Empty ACK or RST) for `mid`.
    pub fn empty(mtype: MessageType, mid: u16) -> Message {
        Message { mtype, code: Code::EMPTY, mid, token: Token::EMPTY, options: Options::new(), payload: Payload::new() }
    }

    /// A confirmable request `code` with no Message ID or token yet (the endpoint assigns
    /// them) and one Uri-Path option per non-empty `/`-separated segment of `path`.
    pub fn con_request(code: Code, path: &str) -> Message {
        let mut m = Message {
            mtype: MessageType::Con,
            code,
            mid: 0,
            token: Token::EMPTY,
            options: Options::new(),
            payload: Payload::new(),
        };
        for seg in path.split('/').filter(|s| !s.is_empty()) {
            m.add_option(option::URI_PATH, seg.as_bytes());
        }
        m
    }

    /// Adds an option, keeping options ordered by number.
    pub fn add_option(&mut self, number: u16, value: impl AsRef<[u8]>) {
        let at = self.options.partition_point(|o| o.number <= number);
        self.options.insert(at, CoapOption { number, value: OptionValue::from_slice(value.as_ref()) });
    }

    /// Replaces every option `number` by one with `value`.
    pub fn set_option(&mut self, number: u16, value: impl AsRef<[u8]>) {
        self.options.retain(|o| o.number != number);
        self.add_option(number, value);
    }

    /// The first value of option `number`.
    pub fn option(&self, number: u16) -> Option<&[u8]> {
        self.options.iter().find(|o| o.number == number).map(|o| o.value.as_slice())
    }

    /// The Uri-Path segments joined with `/`.
    pub fn uri_path(&self) -> String {
        let segs: Vec<String> = self
            .options
            .iter()
            .filter(|o| o.number == option::URI_PATH)
            .map(|o| String::from_utf8_lossy(&o.value).into_owned())
            .collect();
        segs.join("/")
    }

    /// The exact length of the encoded message in bytes (RFC 7252 §3): header, token,
    /// options with their delta/length extensions, payload marker and payload.
    /// An Empty message (code 0.00) is the 4-byte header alone (RFC 7252 §4.1).
    pub fn wire_len(&self) -> usize {
        if self.code == Code::EMPTY {
            return 4;
        }
        let ext = |v: usize| match v {
            0..=12 => 0,
            13..=268 => 1,
            _ => 2,
        };
        let mut len = 4 + self.token.len();
        let mut prev = 0u16;
        for o in &self.options {
            let delta = usize::from(o.number.saturating_sub(prev));
            len += 1 + ext(delta) + ext(o.value.len()) + o.value.len();
            prev = o.number;
        }
        if !self.payload.is_empty() {
            len += 1 + self.payload.len();
        }
        len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_testbed_request_is_13_bytes_and_its_response_27() {
        // docs/testbeds.md §1: 4 B header, 2 B token, one Uri-Path option of 4 B, no payload.
        let mut req = Message {
            mtype: MessageType::Con,
            code: Code::GET,
            mid: 1,
            token: Token::new(&[1, 2]).unwrap(),
            options: Options::new(),
            payload: Payload::new(),
        };
        req.add_option(option::URI_PATH, b"test");
        assert_eq!(req.wire_len(), 4 + 2 + 1 + 4);
        let resp = Message {
            mtype: MessageType::Ack,
            code: Code::CONTENT,
            mid: 1,
            token: req.token,
            options: Options::new(),
            payload: Payload::from(vec![0; 20]),
        };
        assert_eq!(resp.wire_len(), 4 + 2 + 1 + 20);
    }

    #[test]
    fn a_transmission_count_option_costs_three_bytes_plus_its_value() {
        let mut m = Message::empty(MessageType::Con, 0);
        m.code = Code::GET;
        m.add_option(option::URI_PATH, b"test");
        let base = m.wire_len();
        m.add_option(option::TRANSMISSION_COUNT, encode_uint(0));
        assert_eq!(m.wire_len(), base + 3);
        m.set_option(option::TRANSMISSION_COUNT, encode_uint(3));
        assert_eq!(m.wire_len(), base + 4);
    }

    #[test]
    fn uints_use_the_minimal_encoding() {
        assert_eq!(encode_uint(0).as_slice(), &[] as &[u8]);
        assert_eq!(encode_uint(255).as_slice(), &[255]);
        assert_eq!(encode_uint(256).as_slice(), &[1, 0]);
        assert_eq!(decode_uint(&[1, 0]), Some(256));
        assert_eq!(decode_uint(&[]), Some(0));
        assert_eq!(decode_uint(&[1, 2, 3, 4, 5]), None);
    }

    #[test]
    fn options_stay_sorted_by_number() {
        let mut m = Message::empty(MessageType::Con, 0);
        m.add_option(option::TRANSMISSION_COUNT, []);
        m.add_option(option::URI_PATH, b"a");
        m.add_option(option::URI_PATH, b"b");
        let numbers: Vec<u16> = m.options.iter().map(|o| o.number).collect();
        assert_eq!(numbers, [11, 11, 65020]);
        assert_eq!(m.uri_path(), "a/b");
    }

    #[test]
    fn a_token_suffix_appends_one_byte() {
        let t = Token::new(&[7, 8]).unwrap().with_suffix(3);
        assert_eq!(t.as_bytes(), [7, 8, 3]);
        assert_eq!(Token::new(&[0; 9]), None);
    }
}
