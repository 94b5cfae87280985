//! The `[coap.blockwise]` table: every flow is one block-wise transfer (RFC 7959 §2.4) of an
//! object of `object_bytes`, one confirmable GET per block, each carrying a Block2 option with
//! the block's number; the server answers each with that block and a Block2 option (its
//! number, whether more follow, its size). The firmware-update workload of the thesis chapter
//! (102 400 bytes over the NB-IoT-like link, `docs/tcp.md`).
//!
//! ```toml
//! [coap]
//! echo = "auto-token"       # the transmission count in a token byte (docs/deviations.md)
//!
//! [coap.blockwise]
//! object_bytes = 102400
//! block_bytes = "mtu"       # or 16, 32, 64, 128, 256, 512, 1024
//! ```
//!
//! With `block_bytes = "mtu"` the block is the largest RFC 7959 size (2^(4+SZX) bytes, SZX
//! 0–6) whose largest response fits the MTU (`transfer::block_szx`, which also checks the
//! table). A flow does as many exchanges as the object has blocks
//! ([`BlockwiseConfig::blocks`]); its FCT runs from the request of the first block to the
//! arrival of the last block.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use coapcc_proto::block::size_of_szx;

/// The block size of a transfer: derived from the MTU, or a fixed RFC 7959 size.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BlockBytes {
    /// The largest RFC 7959 size whose largest response fits the MTU (`"mtu"`).
    #[default]
    Mtu,
    /// A fixed size: 16, 32, 64, 128, 256, 512 or 1024 bytes.
    Fixed(u16),
}

impl Serialize for BlockBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BlockBytes::Mtu => s.serialize_str("mtu"),
            BlockBytes::Fixed(n) => s.serialize_u16(*n),
        }
    }
}

impl<'de> Deserialize<'de> for BlockBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = BlockBytes;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("\"mtu\" or a block size in bytes (16, 32, 64, 128, 256, 512 or 1024)")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<BlockBytes, E> {
                match v {
                    "mtu" => Ok(BlockBytes::Mtu),
                    _ => Err(E::invalid_value(de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<BlockBytes, E> {
                u16::try_from(v).map(BlockBytes::Fixed).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<BlockBytes, E> {
                u16::try_from(v)
                    .map(BlockBytes::Fixed)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
        }
        d.deserialize_any(V)
    }
}

fn mtu() -> BlockBytes {
    BlockBytes::Mtu
}

/// A block-wise transfer per flow (`[coap.blockwise]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockwiseConfig {
    /// The object each flow fetches, bytes (the thesis's firmware image: 102 400).
    pub object_bytes: u32,
    /// The block size (`"mtu"` by default).
    #[serde(default = "mtu")]
    pub block_bytes: BlockBytes,
}

impl BlockwiseConfig {
    /// The blocks of the object at size exponent `szx`: ⌈object / 2^(4+SZX)⌉, at least one (an
    /// empty object is one empty block, RFC 7959 §2.2).
    pub fn blocks(&self, szx: u8) -> u32 {
        let size = size_of_szx(szx) as u64;
        u64::from(self.object_bytes).div_ceil(size).max(1) as u32
    }

    /// The bytes of block `num` at size exponent `szx` (the last block holds the rest).
    pub fn block_len(&self, num: u32, szx: u8) -> u32 {
        let size = size_of_szx(szx) as u64;
        let start = u64::from(num) * size;
        u64::from(self.object_bytes).saturating_sub(start).min(size) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIRMWARE: BlockwiseConfig = BlockwiseConfig { object_bytes: 102_400, block_bytes: BlockBytes::Mtu };

    #[test]
    fn the_block_size_is_written_as_mtu_or_a_number_and_read_back() {
        let text = toml::to_string(&FIRMWARE).unwrap();
        assert!(text.contains("block_bytes = \"mtu\""), "{text}");
        let fixed = BlockwiseConfig { block_bytes: BlockBytes::Fixed(256), ..FIRMWARE };
        let text = toml::to_string(&fixed).unwrap();
        assert_eq!(toml::from_str::<BlockwiseConfig>(&text).unwrap(), fixed);
        let e = toml::from_str::<BlockwiseConfig>("object_bytes = 1\nblock_bytes = \"big\"").unwrap_err();
        assert!(e.message().contains("\"mtu\" or a block size"), "{e}");
    }
}
