//! BERT, the Block-wise Extension for Reliable Transport (RFC 8323 §6): Block1/Block2 with
//! SZX 7.
//!
//! A BERT option counts its block number in 1 024-byte units, as SZX 6 does, but its payload
//! may hold several 1 024-byte blocks: every BERT block but the last is a non-zero multiple
//! of 1 024 bytes, and the next block number is this one's plus the payload's length over
//! 1 024 (§6). It is used only when both CSMs offered it (Block-Wise-Transfer with a
//! Max-Message-Size above 1152, §5.3.2; [`super::Session::bert_allowed`]).

use super::frame::{TcpMessage, frame_len};

/// The unit of BERT block numbers and payloads, bytes: the block size of SZX 6 (§6; the BERT
/// SZX itself is [`crate::block::BERT_SZX`]).
pub const BERT_UNIT_BYTES: usize = 16 << crate::block::MAX_SZX;

/// The largest BERT payload (a multiple of [`BERT_UNIT_BYTES`], at most `cap_bytes`) that
/// `msg` (its code, token and options; its payload is ignored) can carry within
/// `max_message_bytes`; 0 when not even one unit fits.
pub fn bert_payload_bytes(msg: &TcpMessage, max_message_bytes: u32, cap_bytes: usize) -> usize {
    let bare = TcpMessage { payload: Default::default(), ..msg.clone() };
    // Options alone (no payload marker).
    let options = bare.body_len() as u64;
    let fits = |payload: u64| {
        frame_len(bare.token.len(), options + 1 + payload).is_some_and(|n| n <= u64::from(max_message_bytes))
    };
    let mut units = cap_bytes / BERT_UNIT_BYTES;
    while units > 0 && !fits((units * BERT_UNIT_BYTES) as u64) {
        units -= 1;
    }
    units * BERT_UNIT_BYTES
}

/// Whether a BERT block's payload of `len` bytes is well formed (§6): a non-zero multiple of
/// 1 024 bytes when more blocks follow; any length for the last.
pub fn bert_payload_ok(len: usize, more: bool) -> bool {
    !more || (len > 0 && len % BERT_UNIT_BYTES == 0)
}

/// The block number after a BERT block numbered `num` with a payload of `len` bytes (§6).
pub fn bert_next_num(num: u32, len: usize) -> u32 {
    num.saturating_add(u32::try_from(len / BERT_UNIT_BYTES).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Code, Token, option};

    #[test]
    fn rfc_8323_figure_13_block_numbers_advance_by_the_payload_over_1024() {
        // GET with BERT blocks: 2:0/1/BERT(3072), then 2:3/1/BERT(5120), then 2:8/0/BERT(4711).
        assert_eq!(bert_next_num(0, 3072), 3);
        assert_eq!(bert_next_num(3, 5120), 8);
        assert!(bert_payload_ok(3072, true) && bert_payload_ok(5120, true) && bert_payload_ok(4711, false));
        // Figure 14 (PUT): 1:0/1/BERT(8192), 1:8/1/BERT(16384), 1:24/0/BERT(5683).
        assert_eq!(bert_next_num(0, 8192), 8);
        assert_eq!(bert_next_num(8, 16384), 24);
        assert!(!bert_payload_ok(1000, true) && !bert_payload_ok(0, true));
    }

    #[test]
    fn the_bert_payload_is_the_largest_multiple_of_1024_that_fits_the_peers_maximum() {
        // A 2.05 with token 0x0102 and Block2 (option 23, 1 byte: header byte 0xd1 + delta
        // extension 10 + value = 3 bytes of options). With 4096 bytes of payload the body is
        // 3 + 1 + 4096 = 4100 (two-byte length extension): the frame is 1 + 2 + 1 + 2 + 4100
        // = 4106 bytes. So a maximum of 4106 takes 4096; 4105 takes only 3072.
        let mut m = TcpMessage { token: Token::new(&[1, 2]).unwrap(), ..TcpMessage::new(Code::CONTENT) };
        m.add_option(option::BLOCK2, [0x0f]);
        assert_eq!(bert_payload_bytes(&m, 4106, 64 << 10), 4096);
        assert_eq!(bert_payload_bytes(&m, 4105, 64 << 10), 3072);
        assert_eq!(bert_payload_bytes(&m, 8 << 20, 8192), 8192, "capped");
        assert_eq!(bert_payload_bytes(&m, 1000, 64 << 10), 0, "not even one unit fits");
    }
}
