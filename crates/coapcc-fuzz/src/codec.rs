//! Fuzz target `codec`: arbitrary bytes to the decoder; whatever decodes must re-encode.

use coapcc_proto::codec::{decode, encode};

/// Decodes `data`; a message that decodes must encode to [`wire_len`] bytes that decode to
/// the same message, and those bytes are `data` itself: RFC 7252 §3 has one encoding of a
/// message (options in ascending order, the shortest delta and length forms, no payload
/// marker without a payload), so whatever the decoder accepts it accounts for byte by byte.
///
/// [`wire_len`]: coapcc_proto::Message::wire_len
pub fn run(data: &[u8]) {
    let Ok(msg) = decode(data) else { return };
    let bytes = encode(&msg);
    assert_eq!(bytes.len(), msg.wire_len(), "wire_len of {msg:?}");
    let again =
        decode(&bytes).unwrap_or_else(|e| panic!("{msg:?} re-encoded to {bytes:02x?}, which does not decode: {e}"));
    assert_eq!(again, msg, "re-encoded as {bytes:02x?}");
    assert_eq!(bytes, data, "{msg:?} decoded from {data:02x?} re-encodes differently");
}
