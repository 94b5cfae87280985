//! 6LoWPAN fragmentation and reassembly (RFC 4944 §5.3, as Contiki 3.0's
//! `core/net/ipv6/sicslowpan.c` does it; multihop.md §1.2 rule 1, OQ-M9 option
//! `makarem_coap_len = 80` with `fragmentation = true`).
//!
//! **Sender** ([`fragment`]): a packet whose frame would exceed the PSDU (payload per frame
//! `max_payload` = 127 − 2 (FCS) − 21 (MAC header) = 104 B) leaves as a FRAG1 (4-B header:
//! dispatch `11000` + 11-bit `datagram_size` = the IPv6 length, 16-bit `datagram_tag`)
//! carrying the compressed header and `(max_payload − header − 4)` rounded down to a
//! multiple of 8 bytes of the rest, then FRAGNs (5-B header: the same + `datagram_offset`
//! in 8-octet units of the uncompressed packet) carrying `(max_payload − 5)` rounded down
//! to 8 bytes each, the last one what is left. Contiki refuses the packet unless the shared
//! buffer pool has `uip_len / (125 − 5) + 1` free buffers plus one, then hands the fragments
//! to CSMA one by one (each takes a queue buffer; the first enqueue failure drops the rest),
//! so they wait in one neighbour queue and leave as one CSMA burst (ContikiMAC: pending bit).
//!
//! **Receiver** ([`Reassembly`]): one reassembly at a time. A FRAG1 starts it (a FRAGN
//! with none ongoing is dropped); fragments of another packet from the same sender are
//! dropped while it lasts; a non-fragmented packet, or a FRAG1 from another sender, discards
//! it (Contiki's `PRIORITIZE_NEW_PACKETS`); it expires `SICSLOWPAN_REASS_MAXAGE` after it
//! started (3.0: 20 s; 2.7: 20/16 s), checked when the next frame arrives. The packet is
//! delivered when the received bytes reach `datagram_size`: **a lost fragment loses the
//! packet**. Route-over: every forwarder reassembles and fragments again for the next hop,
//! with that hop's header compression.
//!
//! Not modelled: the stale `last_tx_status` check after each fragment (Contiki reads the
//! callback status of an earlier packet, since CSMA reports later); `UIP_BUFSIZE` limits
//! (an 80-B CoAP message, 136 B of IPv6, fits Z1's 140-B buffer).

use core::time::Duration;

use coapcc_core::{ConfigError, Instant};

use super::NodeId;
use super::phy::Compressed;

/// FRAG1 header: dispatch + datagram_size (2 B) and datagram_tag (2 B), RFC 4944 §5.3.
pub const FRAG1_HEADER_BYTES: u32 = 4;
/// FRAGN header: FRAG1's + datagram_offset (1 B), RFC 4944 §5.3.
pub const FRAGN_HEADER_BYTES: u32 = 5;
/// Largest datagram_size (11 bits), RFC 4944 §5.3.
pub const MAX_DATAGRAM_SIZE: u32 = 2047;

/// One fragment of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Fragment {
    /// FRAG1 (true) or FRAGN.
    pub first: bool,
    /// `datagram_size`: the IPv6 packet length (`uip_len`).
    pub datagram_size: u32,
    /// `datagram_offset` in 8-octet units of the uncompressed packet (0 for FRAG1).
    pub offset_units: u32,
    /// Bytes of the uncompressed packet this fragment stands for (FRAG1: the compressed
    /// headers' uncompressed length + its payload; FRAGN: its payload).
    pub datagram_bytes: u32,
}

/// A frame of one hop: its PSDU length and, when the packet is fragmented, which fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LowpanFrame {
    /// PSDU length, bytes.
    pub psdu_bytes: u32,
    /// The fragment, or `None` for a packet sent whole.
    pub fragment: Option<Fragment>,
}

/// The frames of one hop's packet `c` with PSDUs of at most `max_psdu_bytes` (one whole
/// frame if it fits), by sicslowpan.c's arithmetic. Errors (key `fragmentation`) when the
/// packet cannot be fragmented: a `datagram_size` above 2047 B, or a PSDU too small for a
/// fragment to carry 8 bytes.
pub fn fragment(c: &Compressed, max_psdu_bytes: u32) -> Result<Vec<LowpanFrame>, ConfigError> {
    let whole = c.psdu_bytes();
    if whole <= max_psdu_bytes {
        return Ok(vec![LowpanFrame { psdu_bytes: whole, fragment: None }]);
    }
    let size = c.ipv6_len;
    if size > MAX_DATAGRAM_SIZE {
        return Err(ConfigError::new("fragmentation", "the IPv6 packet exceeds RFC 4944's 2047-B datagram_size"));
    }
    let max_payload = max_psdu_bytes.saturating_sub(c.mac_bytes);
    let first_payload = max_payload.saturating_sub(c.header_bytes + FRAG1_HEADER_BYTES) & !7;
    let next_payload = max_payload.saturating_sub(FRAGN_HEADER_BYTES) & !7;
    if next_payload == 0 {
        return Err(ConfigError::new("fragmentation", "the PSDU is too small for a 6LoWPAN fragment"));
    }
    let first_bytes = c.uncompressed_header_bytes + first_payload;
    let mut frames = vec![LowpanFrame {
        psdu_bytes: c.mac_bytes + c.header_bytes + FRAG1_HEADER_BYTES + first_payload,
        fragment: Some(Fragment { first: true, datagram_size: size, offset_units: 0, datagram_bytes: first_bytes }),
    }];
    let mut done = first_bytes;
    while done < size {
        let payload = next_payload.min(size - done);
        frames.push(LowpanFrame {
            psdu_bytes: c.mac_bytes + FRAGN_HEADER_BYTES + payload,
            fragment: Some(Fragment {
                first: false,
                datagram_size: size,
                offset_units: done / 8,
                datagram_bytes: payload,
            }),
        });
        done += payload;
    }
    Ok(frames)
}

/// Free queue buffers Contiki requires before fragmenting a packet of `ipv6_len` bytes:
/// `uip_len / (MAC_MAX_PAYLOAD − FRAGN header) + 1` estimated fragments, plus the one it
/// borrows while building each (`freebuf = queuebuf_numfree() − 1`); `mac_max_payload` =
/// 127 − 2 = 125 B.
pub fn buffers_needed(ipv6_len: u32, mac_max_payload: u32) -> u32 {
    ipv6_len / mac_max_payload.saturating_sub(FRAGN_HEADER_BYTES).max(1) + 2
}

/// What the receiver does with a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The packet is complete: hand it to the network layer.
    Deliver,
    /// A fragment was stored; the packet is not complete yet.
    Hold,
    /// The frame was discarded (a fragment of no reassembly in progress or of another one).
    Drop,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ongoing {
    sender: NodeId,
    tag: u32,
    size: u32,
    received: u32,
    expires: Instant,
}

/// A mote's 6LoWPAN reassembly buffer (one packet at a time, as in Contiki).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reassembly {
    timeout: Duration,
    ongoing: Option<Ongoing>,
    abandoned: u64,
}

impl Reassembly {
    /// An idle buffer whose reassemblies expire `timeout` after their FRAG1
    /// (`SICSLOWPAN_REASS_MAXAGE`).
    pub fn new(timeout: Duration) -> Self {
        Reassembly { timeout, ongoing: None, abandoned: 0 }
    }

    /// Reassemblies given up incomplete so far (expired, or discarded for a newer packet).
    pub fn abandoned(&self) -> u64 {
        self.abandoned
    }

    /// A reassembly is in progress.
    #[cfg(test)]
    pub fn busy(&self) -> bool {
        self.ongoing.is_some()
    }

    fn abandon(&mut self) {
        if self.ongoing.take().is_some() {
            self.abandoned += 1;
        }
    }

    /// A frame from `sender` arrived at `now`: `fragment` is `None` for a whole packet;
    /// `tag` identifies the sender's packet (`datagram_tag`).
    pub fn on_frame(&mut self, now: Instant, sender: NodeId, tag: u32, fragment: Option<Fragment>) -> Verdict {
        if self.ongoing.is_some_and(|o| now >= o.expires) {
            self.abandon();
        }
        let Some(f) = fragment else {
            // PRIORITIZE_NEW_PACKETS: a whole packet discards the reassembly.
            self.abandon();
            return Verdict::Deliver;
        };
        if f.first && self.ongoing.is_some_and(|o| o.sender != sender) {
            self.abandon();
        }
        let o = match self.ongoing.as_mut() {
            Some(o) => {
                if f.datagram_size != o.size || o.tag != tag || o.sender != sender {
                    return Verdict::Drop;
                }
                o
            }
            None => {
                if !f.first {
                    return Verdict::Drop;
                }
                self.ongoing.insert(Ongoing {
                    sender,
                    tag,
                    size: f.datagram_size,
                    received: 0,
                    expires: now + self.timeout,
                })
            }
        };
        // As sicslowpan.c: a FRAGN that reaches the size completes the packet.
        o.received =
            if !f.first && o.received + f.datagram_bytes >= o.size { o.size } else { o.received + f.datagram_bytes };
        if o.received >= o.size {
            self.ongoing = None;
            Verdict::Deliver
        } else {
            Verdict::Hold
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multihop::ContikiVersion;
    use crate::multihop::phy::{Endpoint, FrameRules, Transport};

    const COAP_80: Transport = Transport::Udp { payload_bytes: 80 };

    fn frames(hop: u32, hops: u32) -> Vec<LowpanFrame> {
        let rules = FrameRules::for_version(ContikiVersion::V3_0);
        let p = rules.hop_packet(COAP_80, Endpoint::Mote, Endpoint::Mote, hop, hops);
        fragment(&rules.compressed(&p), 127).unwrap()
    }

    fn sizes(f: &[LowpanFrame]) -> Vec<u32> {
        f.iter().map(|f| f.psdu_bytes).collect()
    }

    #[test]
    fn an_80_byte_coap_message_fits_one_frame_over_a_single_hop() {
        // Contiki 3.0, mote → mote, one hop: uip_len = 40 (IPv6) + 8 (HBH) + 8 (UDP) + 80 =
        // 136; IPHC 2 + CID 1 + next header 1 (HBH follows) + hop limit 0 (64) + addresses
        // 0 + 0 (both elided) = 4; the rest goes as is: 136 − 40 = 96; 23 + 4 + 96 = 123 ≤ 127.
        assert_eq!(sizes(&frames(0, 1)), vec![123]);
        assert_eq!(frames(0, 1)[0].fragment, None);
    }

    #[test]
    fn an_80_byte_coap_message_leaves_its_first_hop_as_a_127_byte_frag1_and_a_36_byte_fragn() {
        // First hop of a longer path: the destination is not elided (8 B): IPHC = 4 + 8 = 12,
        // whole frame 23 + 12 + 96 = 131 > 127. max_payload = 127 − 2 − 21 = 104.
        // FRAG1: (104 − 12 − 4) & !7 = 88 B of the rest → 21 + 4 + 12 + 88 + 2 = 127 B;
        // it covers 40 + 88 = 128 B of the packet. FRAGN: offset 128 / 8 = 16, the last
        // 136 − 128 = 8 B → 21 + 5 + 8 + 2 = 36 B.
        let f = frames(0, 2);
        assert_eq!(sizes(&f), vec![127, 36]);
        assert_eq!(
            f[0].fragment,
            Some(Fragment { first: true, datagram_size: 136, offset_units: 0, datagram_bytes: 128 })
        );
        assert_eq!(
            f[1].fragment,
            Some(Fragment { first: false, datagram_size: 136, offset_units: 16, datagram_bytes: 8 })
        );
    }

    #[test]
    fn middle_and_last_hops_fragment_with_their_own_header_compression() {
        // Middle hop: hop limit 1 B, source and destination 8 B each: IPHC 4 + 1 + 16 = 21;
        // FRAG1 payload (104 − 21 − 4) & !7 = 72 → 21 + 4 + 21 + 72 + 2 = 120 B, covering
        // 112 B; FRAGN 136 − 112 = 24 B → 21 + 5 + 24 + 2 = 52 B (offset 14).
        let m = frames(1, 3);
        assert_eq!(sizes(&m), vec![120, 52]);
        assert_eq!(m[1].fragment.unwrap().offset_units, 14);
        // Last hop: destination elided: IPHC 4 + 1 + 8 = 13; FRAG1 payload (104 − 13 − 4) &
        // !7 = 80 → 120 B covering 120 B; FRAGN 16 B → 44 B (offset 15).
        let l = frames(2, 3);
        assert_eq!(sizes(&l), vec![120, 44]);
        assert_eq!(l[1].fragment.unwrap().offset_units, 15);
    }

    #[test]
    fn a_long_packet_takes_several_fragns_of_96_bytes() {
        // 300-B CoAP message over one hop: uip_len 356, IPHC 4: FRAG1 (104 − 8) & !7 = 96 →
        // 127 B covering 136 B; FRAGNs of (104 − 5) & !7 = 96 B (23 + 5 + 96 = 124-B frames) at
        // 136, 232 and 328 B,
        // the last with 28 B (56 B).
        let rules = FrameRules::for_version(ContikiVersion::V3_0);
        let p = rules.hop_packet(Transport::Udp { payload_bytes: 300 }, Endpoint::Mote, Endpoint::Mote, 0, 1);
        let f = fragment(&rules.compressed(&p), 127).unwrap();
        assert_eq!(sizes(&f), vec![127, 124, 124, 56]);
        let offsets: Vec<u32> = f.iter().map(|f| f.fragment.unwrap().offset_units).collect();
        assert_eq!(offsets, vec![0, 17, 29, 41]);
        assert_eq!(f.iter().map(|f| f.fragment.unwrap().datagram_bytes).sum::<u32>(), 356);
        let huge = rules.hop_packet(Transport::Udp { payload_bytes: 2000 }, Endpoint::Mote, Endpoint::Mote, 0, 1);
        assert_eq!(fragment(&rules.compressed(&huge), 127).unwrap_err().key, "fragmentation");
        assert_eq!(fragment(&rules.compressed(&p), 30).unwrap_err().key, "fragmentation");
    }

    #[test]
    fn contiki_wants_the_estimated_fragments_plus_one_free_buffers() {
        // 136 / 120 + 1 = 2 fragments, + 1 borrowed buffer.
        assert_eq!(buffers_needed(136, 125), 3);
        assert_eq!(buffers_needed(356, 125), 4);
    }

    fn t(ms: u64) -> Instant {
        Instant::from_millis(ms)
    }

    const A: NodeId = NodeId(1);
    const B: NodeId = NodeId(2);

    /// FRAG1 and FRAGN of an 80-B CoAP message on a first hop.
    fn two() -> (Option<Fragment>, Option<Fragment>) {
        let f = frames(0, 2);
        (f[0].fragment, f[1].fragment)
    }

    #[test]
    fn the_packet_is_delivered_only_when_its_last_fragment_arrives() {
        let (f1, fnn) = two();
        let mut r = Reassembly::new(Duration::from_secs(20));
        assert_eq!(r.on_frame(t(0), A, 7, f1), Verdict::Hold);
        assert!(r.busy());
        assert_eq!(r.on_frame(t(5), A, 7, fnn), Verdict::Deliver);
        assert!(!r.busy());
        assert_eq!(r.abandoned(), 0);
    }

    #[test]
    fn a_lost_fragn_loses_the_packet_and_the_next_packet_of_that_sender_waits_for_the_timeout() {
        let (f1, fnn) = two();
        let mut r = Reassembly::new(Duration::from_secs(20));
        assert_eq!(r.on_frame(t(0), A, 7, f1), Verdict::Hold);
        // FRAGN of tag 7 lost. The sender's next packet (tag 8) is dropped while the
        // reassembly of tag 7 lasts …
        assert_eq!(r.on_frame(t(3_000), A, 8, f1), Verdict::Drop);
        assert_eq!(r.on_frame(t(3_005), A, 8, fnn), Verdict::Drop);
        // … and accepted once it expired (20 s after tag 7's FRAG1).
        assert_eq!(r.on_frame(t(20_000), A, 9, f1), Verdict::Hold);
        assert_eq!(r.abandoned(), 1);
        assert_eq!(r.on_frame(t(20_004), A, 9, fnn), Verdict::Deliver);
    }

    #[test]
    fn a_whole_packet_or_another_senders_frag1_discards_a_reassembly_and_a_lone_fragn_is_dropped() {
        let (f1, fnn) = two();
        let mut r = Reassembly::new(Duration::from_secs(20));
        assert_eq!(r.on_frame(t(0), A, 1, fnn), Verdict::Drop, "no FRAG1 seen");
        assert_eq!(r.on_frame(t(1), A, 1, f1), Verdict::Hold);
        assert_eq!(r.on_frame(t(2), B, 1, None), Verdict::Deliver, "PRIORITIZE_NEW_PACKETS");
        assert_eq!(r.on_frame(t(3), A, 1, fnn), Verdict::Drop, "its reassembly is gone");
        assert_eq!(r.on_frame(t(4), A, 2, f1), Verdict::Hold);
        assert_eq!(r.on_frame(t(5), B, 5, f1), Verdict::Hold, "another sender's FRAG1 wins");
        assert_eq!(r.on_frame(t(6), A, 2, fnn), Verdict::Drop);
        assert_eq!(r.on_frame(t(7), B, 5, fnn), Verdict::Deliver);
        assert_eq!(r.abandoned(), 2);
    }
}
