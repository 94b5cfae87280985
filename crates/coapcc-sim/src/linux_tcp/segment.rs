//! A TCP segment as the model sends it, and its size on the link: IPv4 + TCP headers (40 B),
//! the timestamps option when on (12 B, RFC 7323), a SYN's options as Linux sends them (MSS
//! 4 B, SACK-permitted 2 B and window scale 3 B, padded; timestamps 10 B), SACK blocks
//! (RFC 2018 §3: 2 + 8 B per block, padded to 4 + 8 B as Linux writes them) and the payload.
//! Sequence numbers are 64-bit offsets from the sender's SYN (0): wrap-around is not modelled.

use coapcc_driver::scenario::{LinuxTcpConfig, TIMESTAMPS_OPTION_BYTES};

/// Most SACK blocks a segment can carry.
pub(crate) const MAX_BLOCKS: usize = 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    pub(crate) syn: bool,
    /// The ACK flag (every segment but the first SYN).
    pub(crate) ack: bool,
    pub(crate) seq: u64,
    pub(crate) len: u32,
    pub(crate) ack_no: u64,
    pub(crate) sack: [(u64, u64); MAX_BLOCKS],
    pub(crate) sack_n: u8,
    pub(crate) rwnd: u32,
    /// A retransmission (for the ground truth; never on the wire).
    pub(crate) retrans: bool,
}

impl Segment {
    pub(crate) fn blocks(&self) -> &[(u64, u64)] {
        &self.sack[..usize::from(self.sack_n)]
    }

    /// Bytes on the link.
    pub(crate) fn wire_bytes(&self, c: &LinuxTcpConfig) -> u32 {
        let options = if self.syn {
            // Linux `tcp_syn_options`: MSS (4), SACK-permitted with timestamps (12) or with
            // two NOPs (4), NOP + window scale (4).
            let mut o = 4 + 4;
            if c.timestamps {
                o += 12;
            } else if c.sack {
                o += 4;
            }
            o
        } else {
            let ts = if c.timestamps { TIMESTAMPS_OPTION_BYTES } else { 0 };
            let sack = if self.sack_n > 0 { 4 + 8 * u32::from(self.sack_n) } else { 0 };
            ts + sack
        };
        c.ip_tcp_header_bytes + options + self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(len: u32, sack_n: u8, syn: bool) -> Segment {
        Segment { syn, ack: true, seq: 1, len, ack_no: 1, sack: [(0, 0); MAX_BLOCKS], sack_n, rwnd: 0, retrans: false }
    }

    #[test]
    fn a_full_segment_fills_the_296_byte_mtu_and_sack_blocks_grow_an_ack() {
        let c = LinuxTcpConfig::default();
        assert_eq!(seg(256, 0, false).wire_bytes(&c), 296);
        assert_eq!(seg(0, 0, false).wire_bytes(&c), 40);
        assert_eq!(seg(0, 1, false).wire_bytes(&c), 52);
        assert_eq!(seg(0, 3, false).wire_bytes(&c), 68);
        // A SYN without timestamps: MSS, SACK-permitted, window scale = 12 bytes of options.
        assert_eq!(seg(0, 0, true).wire_bytes(&c), 52);
        let ts = LinuxTcpConfig { timestamps: true, ..c };
        assert_eq!(seg(0, 0, true).wire_bytes(&ts), 60);
        assert_eq!(seg(244, 0, false).wire_bytes(&ts), 296);
    }
}
