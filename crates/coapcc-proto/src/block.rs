//! RFC 7959 block-wise transfer: the Block1/Block2 option value (§2.2) and slicing a body
//! into blocks. Shared by the endpoint's automatic answer (a fixed resource served block by
//! block), the simulator's block-wise workload and the real server and client.

use crate::message::{OptionValue, decode_uint, encode_uint};

/// The largest block size exponent (SZX 6 = 1024 bytes; 7 is reserved, RFC 7959 §2.2).
pub const MAX_SZX: u8 = 6;

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
        if value.len() > 3 {
            return None;
        }
        let v = decode_uint(value)?;
        let szx = (v & 7) as u8;
        (szx <= MAX_SZX).then_some(Block { num: v >> 4, more: v & 8 != 0, szx })
    }

    /// The option value (minimal uint encoding).
    pub fn encode(self) -> OptionValue {
        encode_uint(((self.num & Self::MAX_NUM) << 4) | (u32::from(self.more) << 3) | u32::from(self.szx.min(MAX_SZX)))
    }

    /// The block size in bytes.
    pub fn size_bytes(self) -> usize {
        size_of_szx(self.szx)
    }

    /// The byte offset of this block in the body.
    pub fn offset_bytes(self) -> usize {
        self.num as usize * self.size_bytes()
    }
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
    let start = (num as usize).checked_mul(size)?;
    if start > len || (start == len && num > 0) {
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
        assert_eq!(Block::decode(&[1, 2, 3, 4]), None);
    }

    #[test]
    fn a_body_is_sliced_into_blocks_with_the_more_flag_on_all_but_the_last() {
        let body = [1u8; 40];
        assert_eq!(slice(&body, 0, 0).map(|(b, m)| (b.len(), m)), Some((16, true)));
        assert_eq!(slice(&body, 2, 0).map(|(b, m)| (b.len(), m)), Some((8, false)));
        assert_eq!(slice(&body, 3, 0), None);
        assert_eq!(slice(&[], 0, 6).map(|(b, m)| (b.len(), m)), Some((0, false)));
        assert_eq!(slice(&[0; 32], 2, 0), None);
        assert_eq!(szx_at_most(100), 2);
        assert_eq!(szx_at_most(5), 0);
        assert_eq!(szx_at_most(5000), 6);
    }
}
