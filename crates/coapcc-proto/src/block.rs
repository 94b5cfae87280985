//! RFC 7959 block-wise transfer: the Block1/Block2 option value (§2.2) and slicing a body
//! into blocks. Shared by the endpoint's automatic answer (a fixed resource served block by
//! block), the simulator's block-wise workload and the real server and client, over UDP and
//! over TCP, where SZX 7 is BERT (RFC 8323 §6).

use crate::message::{Code, OptionValue, decode_uint, encode_uint};

/// The largest block size exponent (SZX 6 = 1024 bytes; 7 is reserved, RFC 7959 §2.2).
pub const MAX_SZX: u8 = 6;

/// The SZX value of a BERT option (RFC 8323 §6): on a reliable transport the reserved SZX 7
/// means block numbers in 1 024-byte units and payloads of several such blocks.
pub const BERT_SZX: u8 = 7;

/// A Block1 or Block2 option value: block number, more flag, size exponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    /// Block number (NUM), at most 2²⁰ − 1.
    pub num: u32,
    /// More blocks follow (M).
    pub more: bool,
    /// Size exponent (SZX, 0–6): the block size is 2^(SZX+4) bytes.
    pub szx: u8,
}

impl Block {
    /// The largest block number the option can carry (20 bits).
    pub const MAX_NUM: u32 = (1 << 20) - 1;

    /// Decodes an option value; `None` for more than 3 bytes or the reserved SZX 7.
    pub fn decode(value: &[u8]) -> Option<Block> {
        Block::decode_reliable(value).filter(|b| b.szx <= MAX_SZX)
    }

    /// Decodes an option value on a reliable transport, where SZX 7 is BERT (RFC 8323 §6: block
    /// numbers in 1 024-byte units, payloads of several such blocks); `None` for more than 3
    /// bytes.
    pub fn decode_reliable(value: &[u8]) -> Option<Block> {
        if value.len() > 3 {
            return None;
        }
        let v = decode_uint(value)?;
        Some(Block { num: v >> 4, more: v & 8 != 0, szx: (v & 7) as u8 })
    }

    /// Whether this is a BERT option (SZX 7, RFC 8323 §6).
    pub fn is_bert(self) -> bool {
        self.szx == BERT_SZX
    }

    /// The option value (minimal uint encoding; SZX above 7 counts as 7, and 7 is sent only
    /// over a reliable transport whose peer offered BERT).
    pub fn encode(self) -> OptionValue {
        encode_uint(((self.num & Self::MAX_NUM) << 4) | (u32::from(self.more) << 3) | u32::from(self.szx.min(BERT_SZX)))
    }

    /// The block size in bytes (BERT: the 1 024-byte unit of its numbers).
    pub fn size_bytes(self) -> usize {
        size_of_szx(self.szx)
    }

    /// The byte offset of this block in the body.
    pub fn offset_bytes(self) -> usize {
        self.num as usize * self.size_bytes()
    }
}

/// Whether a response with `code` and the Block2 option `block2`, answering the last block of
/// a block-wise upload, starts a block-wise response body: RFC 7959 §2.7 has the response to
/// the last Block1 block carry block 0 of the Block2 transfer (here a success with More set),
/// and the client ask for the other blocks.
pub fn block2_follows(code: Code, block2: Option<Block>) -> bool {
    code.class() == 2 && block2.is_some_and(|b| b.num == 0 && b.more)
}

/// The block size of a size exponent, bytes (SZX above 6 counts as 6).
pub fn size_of_szx(szx: u8) -> usize {
    16 << szx.min(MAX_SZX)
}

/// The largest SZX whose block size is at most `bytes` (0, 16-byte blocks, below 32).
pub fn szx_at_most(bytes: usize) -> u8 {
    (0..=MAX_SZX).rev().find(|s| size_of_szx(*s) <= bytes).unwrap_or(0)
}

/// Block `num` of size `2^(szx+4)` of `body`: its bytes and whether more follow; `None` when
/// the block starts beyond the body (an empty body has one empty block 0).
pub fn slice(body: &[u8], num: u32, szx: u8) -> Option<(&[u8], bool)> {
    range(body.len(), num, szx).map(|(from, to, more)| (&body[from..to], more))
}

/// The byte range `[from, to)` of block `num` of size `2^(szx+4)` in a body of `len` bytes,
/// and whether more follow; `None` when the block starts beyond the body.
pub fn range(len: usize, num: u32, szx: u8) -> Option<(usize, usize, bool)> {
    let size = size_of_szx(szx);
    range_at(len, (num as usize).checked_mul(size)?, size)
}

/// The byte range `[from, to)` of a block starting `start` bytes into a body of `len` bytes and
/// holding at most `size` bytes, and whether more follow; `None` when it starts beyond the body
/// (an empty body has one empty block at 0). A BERT block (RFC 8323 §6) starts at its number
/// times 1 024 and holds the payload size the sender chose.
pub fn range_at(len: usize, start: usize, size: usize) -> Option<(usize, usize, bool)> {
    if start > len || (start == len && start > 0) {
        return None;
    }
    let end = start.saturating_add(size).min(len);
    Some((start, end, end < len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_block_value_round_trips_through_its_minimal_encoding() {
        for b in [
            Block { num: 0, more: false, szx: 0 },
            Block { num: 5, more: true, szx: 6 },
            Block { num: Block::MAX_NUM, more: true, szx: 2 },
        ] {
            assert_eq!(Block::decode(&b.encode()), Some(b));
        }
        assert_eq!(Block { num: 0, more: false, szx: 0 }.encode().as_slice(), &[] as &[u8]);
        assert_eq!(Block::decode(&[0x07]), None, "SZX 7 is reserved");
        // RFC 8323 §6, Figure 13: 2:3/0/BERT is NUM 3, M 0, SZX 7 = 0x37.
        let bert = Block { num: 3, more: false, szx: 7 };
        assert_eq!(Block::decode_reliable(&[0x37]), Some(bert));
        assert_eq!(bert.encode().as_slice(), &[0x37]);
        assert_eq!((bert.size_bytes(), bert.offset_bytes()), (1024, 3072));
        assert_eq!(Block::decode(&[1, 2, 3, 4]), None);
    }

    #[test]
    fn only_a_successful_first_block_with_more_set_starts_a_block2_body_after_an_upload() {
        // RFC 7959 §2.7: the response to the last Block1 block carries Block2 block 0; the
        // body continues only when its M bit is set, and an error carries no body to fetch.
        let first = |more| Some(Block { num: 0, more, szx: 6 });
        assert!(block2_follows(Code::CHANGED, first(true)));
        assert!(!block2_follows(Code::CHANGED, first(false)), "the whole body is in block 0");
        assert!(!block2_follows(Code::CHANGED, Some(Block { num: 1, more: true, szx: 6 })), "not block 0");
        assert!(!block2_follows(Code::CHANGED, None));
        assert!(!block2_follows(Code::BAD_REQUEST, first(true)), "not a success");
    }

    #[test]
    fn a_body_is_sliced_into_blocks_with_the_more_flag_on_all_but_the_last() {
        let body = [1u8; 40];
        assert_eq!(slice(&body, 0, 0).map(|(b, m)| (b.len(), m)), Some((16, true)));
        assert_eq!(slice(&body, 2, 0).map(|(b, m)| (b.len(), m)), Some((8, false)));
        assert_eq!(slice(&body, 3, 0), None);
        assert_eq!(slice(&[], 0, 6).map(|(b, m)| (b.len(), m)), Some((0, false)));
        assert_eq!(slice(&[0; 32], 2, 0), None);
        // RFC 8323 §6, Figure 13: a 10 000-byte body in BERT blocks of 3 072 and 5 120 bytes;
        // the last starts at 8 × 1 024 and holds the remaining 1 808 bytes.
        assert_eq!(range_at(10_000, 0, 3072), Some((0, 3072, true)));
        assert_eq!(range_at(10_000, 3 * 1024, 5120), Some((3072, 8192, true)));
        assert_eq!(range_at(10_000, 8 * 1024, 5120), Some((8192, 10_000, false)));
        assert_eq!(range_at(10_000, 10_000, 1024), None, "starts at the end");
        assert_eq!(szx_at_most(100), 2);
        assert_eq!(szx_at_most(5), 0);
        assert_eq!(szx_at_most(5000), 6);
    }
}
