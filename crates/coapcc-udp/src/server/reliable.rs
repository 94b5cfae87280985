//! The same resources on CoAP over TCP (RFC 8323): bodies cut by the peer's Max-Message-Size
//! instead of the amplification bound (a TCP handshake proves the client's address, so RFC
//! 7252 §11.3's bound has nothing to guard), in BERT blocks when both CSMs offer BERT.
//!
//! A GET without Block2 gets its body whole when it is at most 1 024 bytes and fits the peer's
//! Max-Message-Size; a larger one comes block-wise from block 0: BERT blocks (SZX 7, RFC 8323
//! §6) of the largest multiple of 1 024 bytes that fits the peer's Max-Message-Size, at most
//! [`MAX_BERT_PAYLOAD_BYTES`], when BERT is allowed; else 1 024-byte blocks (SZX 6), smaller
//! when the peer's Max-Message-Size asks for it. A Block2 the client asks for is honoured; a
//! BERT one without BERT allowed is answered with SZX 6 (the same 1 024-byte numbering, §6).

use coapcc_proto::tcp::{BERT_UNIT_BYTES, TcpMessage, bert_payload_bytes};
use coapcc_proto::{Code, Message, Options, option};

use super::{Content, MAX_PLAIN_PAYLOAD_BYTES, Sizing, option_value, resource_reply, size2, text};
use crate::block::{self, BERT_SZX, Block, MAX_SZX, size_of_szx};
use crate::runtime::Reply;

/// The largest BERT payload the server puts in one response, bytes (64 blocks of 1 024).
pub const MAX_BERT_PAYLOAD_BYTES: usize = 64 << 10;

/// What the connection allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReliableLimits {
    /// The peer's Max-Message-Size, bytes.
    pub peer_max_message_bytes: u32,
    /// Both CSMs offered BERT.
    pub bert: bool,
}

/// The reply to one request received on a reliable transport.
pub fn reply_reliable(request: &Message, limits: ReliableLimits) -> Reply {
    resource_reply(request, Sizing::Reliable(limits))
}

/// The frame length of `reply` to `request`.
fn frame_len(request: &Message, code: Code, options: &Options, payload_bytes: usize) -> usize {
    let m = TcpMessage {
        code,
        token: request.token,
        options: options.clone(),
        payload: coapcc_proto::Payload::from(vec![0; payload_bytes]),
    };
    m.wire_len()
}

pub(super) fn body(request: &Message, content: Content, format: Option<u32>, limits: ReliableLimits) -> Reply {
    let max = limits.peer_max_message_bytes as usize;
    let mut options = Options::new();
    if let Some(f) = format {
        options.push(option_value(option::CONTENT_FORMAT, coapcc_proto::encode_uint(f)));
    }
    let asked = match request.option(option::BLOCK2).map(Block::decode_reliable) {
        None => None,
        Some(Some(b)) => Some(b),
        Some(None) => return text(Code::BAD_REQUEST, "bad Block2 option"),
    };
    let len = content.len();
    if asked.is_none() && len <= MAX_PLAIN_PAYLOAD_BYTES && frame_len(request, Code::CONTENT, &options, len) <= max {
        return Reply { code: Code::CONTENT, options, payload: content.range(0, len) };
    }
    let (num, mut szx) = match asked {
        None if limits.bert => (0, BERT_SZX),
        None => (0, MAX_SZX),
        Some(b) if b.is_bert() && !limits.bert => (b.num, MAX_SZX),
        Some(b) => (b.num, b.szx),
    };
    // The options of the block response, with the longest Block2 value (3 bytes) so that the
    // sizing below holds whatever the block number.
    let mut sized = options.clone();
    sized.push(option_value(option::BLOCK2, Block { num: Block::MAX_NUM, more: true, szx }.encode()));
    if num == 0 {
        sized.push(option_value(option::SIZE2, size2(len)));
    }
    let mut bert_bytes = 0;
    if szx == BERT_SZX {
        let skeleton = TcpMessage {
            code: Code::CONTENT,
            token: request.token,
            options: sized.clone(),
            payload: Default::default(),
        };
        bert_bytes = bert_payload_bytes(&skeleton, limits.peer_max_message_bytes, MAX_BERT_PAYLOAD_BYTES);
        if bert_bytes == 0 {
            szx = MAX_SZX;
        }
    }
    if szx != BERT_SZX {
        // Smaller blocks while a full one does not fit the peer's Max-Message-Size.
        while szx > 0 && frame_len(request, Code::CONTENT, &sized, size_of_szx(szx)) > max {
            szx -= 1;
        }
    }
    let range = if szx == BERT_SZX {
        block::range_at(len, (num as usize).saturating_mul(BERT_UNIT_BYTES), bert_bytes)
    } else {
        block::range(len, num, szx)
    };
    let Some((from, to, more)) = range else {
        return text(Code::BAD_REQUEST, "Block2 beyond the end of the body");
    };
    options.push(option_value(option::BLOCK2, Block { num, more, szx }.encode()));
    if num == 0 {
        options.push(option_value(option::SIZE2, size2(len)));
    }
    Reply { code: Code::CONTENT, options, payload: content.range(from, to) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coapcc_proto::tcp::BERT_UNIT_BYTES;

    fn get(query: &str, block2: Option<Block>) -> Message {
        let mut m = crate::config::request(Code::GET, "data", query);
        m.token = coapcc_proto::Token::new(&[1]).unwrap_or_default();
        if let Some(b) = block2 {
            m.add_option(option::BLOCK2, b.encode());
        }
        m
    }

    fn block2(r: &Reply) -> Option<Block> {
        r.options.iter().find(|o| o.number == option::BLOCK2).and_then(|o| Block::decode_reliable(&o.value))
    }

    const BERT: ReliableLimits = ReliableLimits { peer_max_message_bytes: 66_048, bert: true };
    const PLAIN: ReliableLimits = ReliableLimits { peer_max_message_bytes: 1152, bert: false };

    #[test]
    fn a_large_body_comes_in_bert_blocks_when_both_csms_allow_it_and_1024_byte_blocks_otherwise() {
        // 100 000 bytes, peer maximum 66 048: the largest multiple of 1 024 with the header and
        // options (a few bytes) within 66 048 is 64 KiB = 65 536 (capped there anyway).
        let r = reply_reliable(&get("size=100000", None), BERT);
        assert_eq!((block2(&r), r.payload.len()), (Some(Block { num: 0, more: true, szx: 7 }), 65_536));
        // The next block is number 64 (65 536 / 1 024) and holds the rest, 34 464 bytes.
        let r = reply_reliable(&get("size=100000", Some(Block { num: 64, more: false, szx: 7 })), BERT);
        assert_eq!((block2(&r), r.payload.len()), (Some(Block { num: 64, more: false, szx: 7 }), 34_464));
        assert_eq!(&r.payload[..3], b"678", "byte 65 536 is digit 65 536 mod 10 = 6");
        let r = reply_reliable(&get("size=100000", None), PLAIN);
        assert_eq!((block2(&r), r.payload.len()), (Some(Block { num: 0, more: true, szx: 6 }), BERT_UNIT_BYTES));
    }

    #[test]
    fn a_bert_request_without_bert_allowed_gets_1024_byte_blocks_of_the_same_number() {
        let r = reply_reliable(&get("size=5000", Some(Block { num: 2, more: false, szx: 7 })), PLAIN);
        assert_eq!((block2(&r), r.payload.len()), (Some(Block { num: 2, more: true, szx: 6 }), 1024));
    }

    #[test]
    fn a_small_body_is_sent_whole_and_blocks_shrink_to_a_small_peer_maximum() {
        let r = reply_reliable(&get("size=1000", None), PLAIN);
        assert_eq!((block2(&r), r.payload.len()), (None, 1000));
        // A peer maximum of 600 bytes: 512-byte blocks (1024 would not fit).
        let small = ReliableLimits { peer_max_message_bytes: 600, bert: false };
        let r = reply_reliable(&get("size=1000", None), small);
        assert_eq!((block2(&r), r.payload.len()), (Some(Block { num: 0, more: true, szx: 5 }), 512));
    }
}
