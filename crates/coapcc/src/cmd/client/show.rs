//! CoAP messages as text, as `coap-client` and `aiocoap-client` users read them: the code
//! with its name (RFC 7252 §12.1.2), each option by name with its value in the option's
//! format (RFC 7252 §5.10, RFC 7641, RFC 7959), and the payload as text or hex.

use std::fmt::Write as _;

use coapcc_proto::{Code, Message, decode_uint, option};
use coapcc_udp::block::Block;

/// The name of a response code (RFC 7252 §12.1.2, RFC 7959 §2.9, RFC 8132 §6), if it has one.
pub fn code_name(code: Code) -> Option<&'static str> {
    Some(match (code.class(), code.0 & 0x1f) {
        (0, 1) => "GET",
        (0, 2) => "POST",
        (0, 3) => "PUT",
        (0, 4) => "DELETE",
        (0, 5) => "FETCH",
        (0, 6) => "PATCH",
        (0, 7) => "iPATCH",
        (2, 1) => "Created",
        (2, 2) => "Deleted",
        (2, 3) => "Valid",
        (2, 4) => "Changed",
        (2, 5) => "Content",
        (2, 31) => "Continue",
        (4, 0) => "Bad Request",
        (4, 1) => "Unauthorized",
        (4, 2) => "Bad Option",
        (4, 3) => "Forbidden",
        (4, 4) => "Not Found",
        (4, 5) => "Method Not Allowed",
        (4, 6) => "Not Acceptable",
        (4, 8) => "Request Entity Incomplete",
        (4, 9) => "Conflict",
        (4, 12) => "Precondition Failed",
        (4, 13) => "Request Entity Too Large",
        (4, 15) => "Unsupported Content-Format",
        (4, 22) => "Unprocessable Entity",
        (4, 29) => "Too Many Requests",
        (5, 0) => "Internal Server Error",
        (5, 1) => "Not Implemented",
        (5, 2) => "Bad Gateway",
        (5, 3) => "Service Unavailable",
        (5, 4) => "Gateway Timeout",
        (5, 5) => "Proxying Not Supported",
        _ => return None,
    })
}

/// `c.dd Name` (or `c.dd` alone for a code without a name).
pub fn code_text(code: Code) -> String {
    let number = format!("{}.{:02}", code.class(), code.0 & 0x1f);
    code_name(code).map_or(number.clone(), |n| format!("{number} {n}"))
}

/// The value format of an option (RFC 7252 §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// No value, or a non-negative integer in network byte order.
    Uint,
    /// UTF-8 text.
    Text,
    /// Bytes.
    Opaque,
    /// An empty value.
    Empty,
    /// A Block1/Block2 value (RFC 7959 §2.2).
    Block,
}

/// The registered options (RFC 7252 §12.2, RFC 7641, RFC 7959, RFC 7967, RFC 9175): number,
/// name, format.
pub const OPTIONS: [(u16, &str, Format); 24] = [
    (1, "If-Match", Format::Opaque),
    (3, "Uri-Host", Format::Text),
    (4, "ETag", Format::Opaque),
    (5, "If-None-Match", Format::Empty),
    (6, "Observe", Format::Uint),
    (7, "Uri-Port", Format::Uint),
    (8, "Location-Path", Format::Text),
    (9, "OSCORE", Format::Opaque),
    (11, "Uri-Path", Format::Text),
    (12, "Content-Format", Format::Uint),
    (14, "Max-Age", Format::Uint),
    (15, "Uri-Query", Format::Text),
    (17, "Accept", Format::Uint),
    (20, "Location-Query", Format::Text),
    (23, "Block2", Format::Block),
    (27, "Block1", Format::Block),
    (28, "Size2", Format::Uint),
    (35, "Proxy-Uri", Format::Text),
    (39, "Proxy-Scheme", Format::Text),
    (60, "Size1", Format::Uint),
    (252, "Echo", Format::Opaque),
    (258, "No-Response", Format::Uint),
    (292, "Request-Tag", Format::Opaque),
    (option::TRANSMISSION_COUNT, "Transmission-Count", Format::Uint),
];

/// The registered Content-Formats (RFC 7252 §12.3 and the IANA registry's common entries):
/// number, media type, whether it is text.
pub const CONTENT_FORMATS: [(u32, &str, bool); 14] = [
    (0, "text/plain;charset=utf-8", true),
    (16, "application/cose;cose-type=\"cose-encrypt0\"", false),
    (40, "application/link-format", true),
    (41, "application/xml", true),
    (42, "application/octet-stream", false),
    (47, "application/exi", false),
    (50, "application/json", true),
    (51, "application/json-patch+json", true),
    (60, "application/cbor", false),
    (61, "application/cwt", false),
    (110, "application/senml+json", true),
    (112, "application/senml+cbor", false),
    (310, "application/senml+xml", true),
    (11542, "application/vnd.oma.lwm2m+tlv", false),
];

/// A Content-Format from its number or media type (`text/plain` and the short names
/// `text`, `link`, `xml`, `binary`, `octet`, `json`, `cbor` as libcoap's `coap-client -t`).
pub fn content_format(s: &str) -> Option<u32> {
    if let Ok(n) = s.parse::<u16>() {
        return Some(u32::from(n));
    }
    let short = match s {
        "text" | "text/plain" => Some(0),
        "link" => Some(40),
        "xml" => Some(41),
        "binary" | "octet" | "octet-stream" => Some(42),
        "exi" => Some(47),
        "json" => Some(50),
        "cbor" => Some(60),
        _ => None,
    };
    short.or_else(|| CONTENT_FORMATS.iter().find(|(_, name, _)| name.eq_ignore_ascii_case(s)).map(|(n, ..)| *n))
}

fn option_info(number: u16) -> Option<(&'static str, Format)> {
    OPTIONS.iter().find(|(n, ..)| *n == number).map(|(_, name, f)| (*name, *f))
}

/// The format of option `number` (unregistered ones are opaque).
pub fn option_format(number: u16) -> Format {
    option_info(number).map_or(Format::Opaque, |(_, f)| f)
}

/// `Name: value` of one option.
pub fn option_text(number: u16, value: &[u8]) -> String {
    let (name, format) = option_info(number).unwrap_or(("", Format::Opaque));
    let name = if name.is_empty() { format!("Option {number}") } else { name.to_string() };
    let value = match format {
        Format::Uint if number == option::CONTENT_FORMAT || number == 17 => match decode_uint(value) {
            Some(n) => match CONTENT_FORMATS.iter().find(|(c, ..)| *c == n) {
                Some((_, media, _)) => format!("{media} ({n})"),
                None => n.to_string(),
            },
            None => hex(value),
        },
        Format::Uint => decode_uint(value).map_or_else(|| hex(value), |n| n.to_string()),
        Format::Block => match Block::decode_reliable(value) {
            // BERT (SZX 7, CoAP over TCP): NUM/M/BERT, as RFC 8323 §6 writes it.
            Some(b) if b.is_bert() => format!("{}/{}/BERT", b.num, u8::from(b.more)),
            // NUM/M/size, as libcoap prints it.
            Some(b) => format!("{}/{}/{}", b.num, u8::from(b.more), b.size_bytes()),
            None => hex(value),
        },
        Format::Text => match std::str::from_utf8(value) {
            Ok(t) => format!("{t:?}"),
            Err(_) => hex(value),
        },
        Format::Empty if value.is_empty() => String::new(),
        Format::Empty | Format::Opaque => hex(value),
    };
    if value.is_empty() { name } else { format!("{name}: {value}") }
}

/// Bytes as `0x…` (`0x` alone for none).
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::from("0x");
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Whether `payload` of a message with Content-Format `format` is shown as text: the format
/// is a text one, or there is none and the bytes are UTF-8 without control characters other
/// than tab and line ends.
pub fn is_text(format: Option<u32>, payload: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(payload) else { return false };
    match format.and_then(|f| CONTENT_FORMATS.iter().find(|(c, ..)| *c == f)) {
        Some((.., text_format)) => *text_format,
        None if format.is_some() => false,
        None => text.chars().all(|c| !c.is_control() || matches!(c, '\n' | '\r' | '\t')),
    }
}

/// The payload as text, or as hex: 16 bytes a line after their offset.
pub fn payload_text(format: Option<u32>, payload: &[u8]) -> String {
    if is_text(format, payload) {
        let mut s = String::from_utf8_lossy(payload).into_owned();
        if !s.ends_with('\n') {
            s.push('\n');
        }
        return s;
    }
    let mut s = format!("({} bytes, hex)\n", payload.len());
    for (i, line) in payload.chunks(16).enumerate() {
        let _ = write!(s, "{:08x} ", i * 16);
        for b in line {
            let _ = write!(s, " {b:02x}");
        }
        s.push('\n');
    }
    s
}

/// A message's code line and option lines (without its payload).
pub fn head(msg: &Message) -> String {
    let mut s = code_text(msg.code);
    s.push('\n');
    for o in &msg.options {
        s.push_str(&option_text(o.number, &o.value));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_options_and_formats_are_named_as_in_the_rfcs() {
        assert_eq!(code_text(Code::CONTENT), "2.05 Content");
        assert_eq!(code_text(Code::NOT_FOUND), "4.04 Not Found");
        assert_eq!(code_text(Code(0xa0)), "5.00 Internal Server Error");
        assert_eq!(code_text(Code(0x5e)), "2.30");
        assert_eq!(option_text(12, &[]), "Content-Format: text/plain;charset=utf-8 (0)");
        assert_eq!(option_text(12, &[60]), "Content-Format: application/cbor (60)");
        assert_eq!(option_text(6, &[1, 0]), "Observe: 256");
        assert_eq!(option_text(11, b"a/b"), "Uri-Path: \"a/b\"");
        assert_eq!(option_text(4, &[0xbe, 0xef]), "ETag: 0xbeef");
        // RFC 7959 §2.2: NUM 2, M set, SZX 2 (64 bytes) is 0x2a.
        assert_eq!(option_text(23, &[0x2a]), "Block2: 2/1/64");
        // RFC 8323 §6, Figure 13: 2:3/0/BERT is 0x37.
        assert_eq!(option_text(23, &[0x37]), "Block2: 3/0/BERT");
        assert_eq!(option_text(2048, &[1]), "Option 2048: 0x01");
        assert_eq!(content_format("application/cbor"), Some(60));
        assert_eq!(content_format("text/plain"), Some(0));
        assert_eq!(content_format("50"), Some(50));
        assert_eq!(content_format("nope"), None);
    }

    #[test]
    fn a_payload_is_text_when_its_format_says_so_or_it_reads_as_text() {
        assert!(is_text(None, b"hello\n"));
        assert!(!is_text(None, &[0xff, 0x00]));
        assert!(!is_text(None, b"a\x01b"));
        assert!(!is_text(Some(60), b"abc"), "CBOR is binary even when it is valid UTF-8");
        assert!(is_text(Some(50), b"{}"));
        assert_eq!(payload_text(Some(42), &[1, 2]), "(2 bytes, hex)\n00000000  01 02\n");
    }
}
