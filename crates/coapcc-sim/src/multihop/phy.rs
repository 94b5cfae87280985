//! IEEE 802.15.4 2.4 GHz O-QPSK PHY timing and exact 6LoWPAN frame sizes (multihop.md §1.2).
//!
//! [`PhyConfig`] holds the radio timing (250 kbit/s: 32 µs per byte, 6 B of PHY overhead,
//! 192 µs RX→TX turnaround, the 5-B hardware ACK); [`FrameRules`] holds the frame-length
//! rules 1–4 of §1.2 (MAC header and FCS, uncompressed 6LoWPAN below the compression
//! threshold, IPHC with its context-identifier byte, the RPL hop-by-hop option, UDP/TCP
//! headers) and computes the PSDU length of every hop of a path ([`FrameRules::path_lengths`]).
//! [`TableFlow`] is the §1.2 table of default frame sizes (`frame_len_mode = table`).
//! Every constant is a field whose `Default` is the spec's value; the Contiki 2.7 / 3.0
//! differences are presets ([`FrameRules::for_version`]).

pub use coapcc_driver::scenario::multihop::{FrameLenMode, PhyConfig};
use serde::Deserialize;

use super::ContikiVersion;
use super::workload::CoapFrames;

/// How an IPv6 address appears in the IPHC header of one hop (§1.2 rule 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AddressForm {
    /// 0 B: the prefix is context 0 and the interface ID equals this hop's MAC address.
    Elided,
    /// 8 B: the prefix is in a context, the interface ID is inline.
    ContextPrefix,
    /// 16 B: no context covers the prefix.
    Inline,
}

/// One end of an end-to-end packet, as far as header compression is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endpoint {
    /// A mote of the mesh: its interface ID is its MAC address and its prefix is context 0.
    Mote,
    /// A host outside the mesh whose prefix is in a 6LoWPAN context (e.g. the TCP server
    /// behind the border router, S004).
    HostInContext,
    /// A host whose prefix is in no context (e.g. the cloud client of S003, OQ-M22).
    HostOutsideContext,
}

/// The transport header and payload of a packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Transport {
    /// UDP carrying `payload_bytes` bytes (e.g. a CoAP message).
    Udp {
        /// UDP payload, bytes.
        payload_bytes: u32,
    },
    /// TCP carrying `payload_bytes` bytes after a 20-B header without options.
    Tcp {
        /// TCP segment payload, bytes.
        payload_bytes: u32,
    },
}

/// The packet as sent over one hop: what decides its PSDU length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct HopPacket {
    /// Transport header and payload.
    pub transport: Transport,
    /// The RPL hop-by-hop option is present on this hop (rule 4).
    pub hbh: bool,
    /// The hop limit is still 64 (the origin's own hop), so IPHC elides it.
    pub hop_limit_default: bool,
    /// Source address form on this hop.
    pub src: AddressForm,
    /// Destination address form on this hop.
    pub dst: AddressForm,
    /// The frame is a link-layer broadcast (short MAC header).
    pub broadcast: bool,
}

/// A frame that does not fit in one PSDU (§1.2 rule 1): an error unless 6LoWPAN fragmentation
/// is on (`multihop.fragmentation`, OQ-M9, [`super::sixlowpan`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg(test)]
pub struct NeedsFragmentation {
    /// The PSDU length the frame would have, bytes.
    pub psdu_bytes: u32,
    /// The largest PSDU, bytes.
    pub max_psdu_bytes: u32,
}

#[cfg(test)]
impl core::fmt::Display for NeedsFragmentation {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "a {}-B frame exceeds the {}-B PSDU and would need 6LoWPAN fragmentation",
            self.psdu_bytes, self.max_psdu_bytes
        )
    }
}

#[cfg(test)]
impl std::error::Error for NeedsFragmentation {}

/// One hop's packet as 6LoWPAN encodes it (§1.2 rules 1–4): MAC overhead, the compressed
/// header, and the part of the IPv6 packet sent as is. The PSDU of an unfragmented frame is
/// `mac_bytes + header_bytes + ipv6_len − uncompressed_header_bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Compressed {
    /// MAC header + FCS (rule 1).
    pub mac_bytes: u32,
    /// The 6LoWPAN header: IPHC with its inline fields (and the NHC UDP header), or the
    /// dispatch byte and the full IPv6 header (rule 2); Contiki's `packetbuf_hdr_len`.
    pub header_bytes: u32,
    /// Bytes of the IPv6 packet that `header_bytes` stands for: the IPv6 header (+ the UDP
    /// header when NHC compresses it); Contiki's `uncomp_hdr_len`.
    pub uncompressed_header_bytes: u32,
    /// The IPv6 packet length (`uip_len`).
    pub ipv6_len: u32,
}

impl Compressed {
    /// The PSDU length of the frame carrying the whole packet.
    pub fn psdu_bytes(&self) -> u32 {
        self.mac_bytes
            .saturating_add(self.header_bytes)
            .saturating_add(self.ipv6_len.saturating_sub(self.uncompressed_header_bytes))
    }
}

/// Frame-length rules 1–4 of multihop.md §1.2 (Contiki 2.7/3.0, 6LoWPAN IPHC "HC06").
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FrameRules {
    /// Rule 1: MAC header of a unicast frame (FCF 2, seq 1, dst PAN 2, two 8-B addresses,
    /// PAN-ID compression): 21 B.
    pub mac_header_unicast_bytes: u32,
    /// Rule 1: MAC header of a broadcast frame: 15 B.
    pub mac_header_broadcast_bytes: u32,
    /// Rule 1: frame check sequence: 2 B.
    pub fcs_bytes: u32,
    /// Rule 2: IPv6 packets shorter than this (uip_len, IPv6 header included) are sent
    /// uncompressed (`SICSLOWPAN_CONF_COMPRESSION_THRESHOLD`): 63 B.
    pub compression_threshold_bytes: u32,
    /// Rule 2: dispatch byte of an uncompressed IPv6 packet: 1 B.
    pub ipv6_dispatch_bytes: u32,
    /// IPv6 header: 40 B.
    pub ipv6_header_bytes: u32,
    /// Rule 3: IPHC base encoding: 2 B.
    pub iphc_base_bytes: u32,
    /// Rule 3: context-identifier byte (emitted whenever a prefix is in a context): 1 B.
    pub iphc_context_id_bytes: u32,
    /// Rule 3: inline next-header byte (elided only when UDP directly follows): 1 B.
    pub iphc_next_header_bytes: u32,
    /// Rule 3: inline hop-limit byte when the hop limit is not 64: 1 B.
    pub iphc_hop_limit_bytes: u32,
    /// Rule 4: the RPL hop-by-hop option header: 8 B.
    pub rpl_hbh_bytes: u32,
    /// UDP header, uncompressed: 8 B.
    pub udp_header_bytes: u32,
    /// UDP header compressed by NHC (NHC 1 + ports 4 + checksum 2): 7 B.
    pub udp_nhc_bytes: u32,
    /// TCP header without options: 20 B.
    pub tcp_header_bytes: u32,
    /// Rule 4: an RPL node adds the hop-by-hop option to every unicast UDP datagram it
    /// originates (3.0 `RPL_INSERT_HBH_OPTION 1`: true; 2.7: false).
    pub hbh_at_udp_origin: bool,
}

impl Default for FrameRules {
    /// Contiki 3.0 (the stack of S001 and S004).
    fn default() -> Self {
        FrameRules::for_version(ContikiVersion::V3_0)
    }
}

impl FrameRules {
    /// The rules of a Contiki version (they differ only in rule 4's origin insertion).
    pub fn for_version(version: ContikiVersion) -> Self {
        FrameRules {
            mac_header_unicast_bytes: 21,
            mac_header_broadcast_bytes: 15,
            fcs_bytes: 2,
            compression_threshold_bytes: 63,
            ipv6_dispatch_bytes: 1,
            ipv6_header_bytes: 40,
            iphc_base_bytes: 2,
            iphc_context_id_bytes: 1,
            iphc_next_header_bytes: 1,
            iphc_hop_limit_bytes: 1,
            rpl_hbh_bytes: 8,
            udp_header_bytes: 8,
            udp_nhc_bytes: 7,
            tcp_header_bytes: 20,
            hbh_at_udp_origin: matches!(version, ContikiVersion::V3_0),
        }
    }

    /// MAC header + FCS of a frame (23 B unicast, 17 B broadcast).
    pub fn mac_overhead_bytes(&self, broadcast: bool) -> u32 {
        let header = if broadcast { self.mac_header_broadcast_bytes } else { self.mac_header_unicast_bytes };
        header + self.fcs_bytes
    }

    /// The IPv6 packet length `uip_len` of a hop (IPv6 header, hop-by-hop option if present,
    /// transport header, payload).
    pub fn ipv6_len(&self, p: &HopPacket) -> u32 {
        let hbh = if p.hbh { self.rpl_hbh_bytes } else { 0 };
        let transport = match p.transport {
            Transport::Udp { payload_bytes } => self.udp_header_bytes.saturating_add(payload_bytes),
            Transport::Tcp { payload_bytes } => self.tcp_header_bytes.saturating_add(payload_bytes),
        };
        self.ipv6_header_bytes.saturating_add(hbh).saturating_add(transport)
    }

    /// The PSDU length of one hop's frame (rules 1–4), without the fragmentation check.
    pub fn psdu_len(&self, p: &HopPacket) -> u32 {
        self.compressed(p).psdu_bytes()
    }

    /// How 6LoWPAN encodes one hop's packet (rules 1–4): the split that Contiki's
    /// `sicslowpan.c` fragments by (multihop.md §1.2 rule 1, OQ-M9).
    pub fn compressed(&self, p: &HopPacket) -> Compressed {
        let mac_bytes = self.mac_overhead_bytes(p.broadcast);
        let uip_len = self.ipv6_len(p);
        if uip_len < self.compression_threshold_bytes {
            // Rule 2: dispatch + the full, uncompressed packet.
            return Compressed {
                mac_bytes,
                header_bytes: self.ipv6_dispatch_bytes.saturating_add(self.ipv6_header_bytes),
                uncompressed_header_bytes: self.ipv6_header_bytes,
                ipv6_len: uip_len,
            };
        }
        // Rule 3: IPHC. Every flow has a prefix in context 0, so the CID byte is present.
        let addr = |a: AddressForm| match a {
            AddressForm::Elided => 0,
            AddressForm::ContextPrefix => 8,
            AddressForm::Inline => 16,
        };
        let hop_limit = if p.hop_limit_default { 0 } else { self.iphc_hop_limit_bytes };
        // Rule 4: with the option, the next header is inline and the transport header is not
        // compressed; without it a UDP header becomes the 7-B NHC header (and its 8 B count
        // as compressed header bytes, `uncomp_hdr_len` in Contiki).
        let (next_header, nhc, udp_compressed) = match (p.transport, p.hbh) {
            (Transport::Udp { .. }, false) => (0, self.udp_nhc_bytes, true),
            _ => (self.iphc_next_header_bytes, 0, false),
        };
        let iphc =
            self.iphc_base_bytes + self.iphc_context_id_bytes + next_header + hop_limit + addr(p.src) + addr(p.dst);
        let uncompressed_header_bytes = self.ipv6_header_bytes + if udp_compressed { self.udp_header_bytes } else { 0 };
        Compressed {
            mac_bytes,
            header_bytes: iphc.saturating_add(nhc),
            uncompressed_header_bytes: uncompressed_header_bytes.min(uip_len),
            ipv6_len: uip_len,
        }
    }

    /// The PSDU length of one hop's frame, or the fragmentation error if it exceeds
    /// `max_psdu_bytes`.
    #[cfg(test)]
    pub fn frame_len(&self, p: &HopPacket, max_psdu_bytes: u32) -> Result<u32, NeedsFragmentation> {
        let psdu_bytes = self.psdu_len(p);
        if psdu_bytes > max_psdu_bytes {
            Err(NeedsFragmentation { psdu_bytes, max_psdu_bytes })
        } else {
            Ok(psdu_bytes)
        }
    }

    /// The packet as sent over hop `hop` (0-based) of a mesh path of `hops` ≥ 1 unicast hops
    /// from `src` to `dst` (§1.2 rules 3–4).
    ///
    /// The mesh path starts at the source mote, or at the border router when the source is a
    /// host (then the border router is the first forwarder, the hop limit is already below
    /// 64 and the option is inserted there); it ends at the destination mote, or at the border
    /// router when the destination is a host. A mote's address is elided on the hop it sends
    /// (source) or receives (destination) and 8 B elsewhere.
    pub fn hop_packet(&self, transport: Transport, src: Endpoint, dst: Endpoint, hop: u32, hops: u32) -> HopPacket {
        let origin_hop = src == Endpoint::Mote && hop == 0;
        let form = |e: Endpoint, elided: bool| match e {
            Endpoint::Mote if elided => AddressForm::Elided,
            Endpoint::Mote | Endpoint::HostInContext => AddressForm::ContextPrefix,
            Endpoint::HostOutsideContext => AddressForm::Inline,
        };
        let hbh = if origin_hop {
            matches!(transport, Transport::Udp { .. }) && self.hbh_at_udp_origin
        } else {
            // Inserted by the first forwarder into any packet lacking it.
            true
        };
        HopPacket {
            transport,
            hbh,
            hop_limit_default: origin_hop,
            src: form(src, origin_hop),
            dst: form(dst, dst == Endpoint::Mote && hop + 1 == hops),
            broadcast: false,
        }
    }

    /// The PSDU lengths of the `hops` hops of a mesh path (see [`FrameRules::hop_packet`]).
    #[cfg(test)]
    pub fn path_lengths(
        &self,
        transport: Transport,
        src: Endpoint,
        dst: Endpoint,
        hops: u32,
        max_psdu_bytes: u32,
    ) -> Result<Vec<u32>, NeedsFragmentation> {
        (0..hops).map(|h| self.frame_len(&self.hop_packet(transport, src, dst, h, hops), max_psdu_bytes)).collect()
    }
}

/// The flows of the §1.2 table of default frame sizes (PSDU bytes per hop position).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TableFlow {
    /// Makarem CoAP CON (S001 "CoAP frame size 80 bytes", OQ-M9): 80 on every hop.
    MakaremCon,
    /// Makarem empty CoAP ACK (uip_len 60 < 63, uncompressed): 84 on every hop.
    MakaremAck,
    /// Betzler GET request, cloud → server: 79 first and middle hops, 71 last.
    BetzlerRequest,
    /// Betzler piggybacked response, server → cloud: 69 first hop, 88 after.
    BetzlerResponse,
    /// Lim TCP data segment of 48 B: 103 first hop, 120 after.
    LimData,
    /// Lim TCP pure ACK from the host: 72 first and middle hops, 64 last.
    LimAck,
}

/// The §1.2 table flows a CoAP workload's frames use (its `frames` key).
pub trait TableFlows {
    /// The table flows of (requests, responses).
    fn flows(self) -> (TableFlow, TableFlow);
}

impl TableFlows for CoapFrames {
    fn flows(self) -> (TableFlow, TableFlow) {
        match self {
            CoapFrames::Makarem => (TableFlow::MakaremCon, TableFlow::MakaremAck),
            CoapFrames::Betzler => (TableFlow::BetzlerRequest, TableFlow::BetzlerResponse),
        }
    }
}

impl TableFlow {
    /// `(first hop, middle hops, last hop)` PSDU lengths of the table.
    pub const fn lengths(self) -> (u32, u32, u32) {
        match self {
            TableFlow::MakaremCon => (80, 80, 80),
            TableFlow::MakaremAck => (84, 84, 84),
            TableFlow::BetzlerRequest => (79, 79, 71),
            TableFlow::BetzlerResponse => (69, 88, 88),
            TableFlow::LimData => (103, 120, 120),
            TableFlow::LimAck => (72, 72, 64),
        }
    }

    /// The PSDU length on hop `hop` (0-based) of a path of `hops` hops. On a one-hop path the
    /// hop is both first and last; the first-hop column wins when it reflects the origin
    /// (no option yet), the last-hop column when it reflects the elided destination.
    pub fn len_at(self, hop: u32, hops: u32) -> u32 {
        let (first, middle, last) = self.lengths();
        let is_last = hop + 1 >= hops;
        match (hop == 0, is_last) {
            (true, true) => self.one_hop_len(),
            (true, false) => first,
            (false, true) => last,
            (false, false) => middle,
        }
    }

    /// The length over a single hop (origin and destination on the same hop), from rules 1–4
    /// with the flow's defaults.
    const fn one_hop_len(self) -> u32 {
        match self {
            TableFlow::MakaremCon => 80,
            TableFlow::MakaremAck => 84,
            // Border router → server directly: first-forwarder option, destination elided.
            TableFlow::BetzlerRequest => 71,
            // Server → border router: no option at the origin (2.7).
            TableFlow::BetzlerResponse => 69,
            // Node → border router: no option at the origin.
            TableFlow::LimData => 103,
            // Border router → node: option inserted, destination elided.
            TableFlow::LimAck => 64,
        }
    }

    /// What rules 1–4 need to compute this flow's lengths (`frame_len_mode = rules`): the
    /// Contiki version, the transport and the two ends (§1.2 table, OQ-M22 sizes).
    ///
    /// Makarem's CON is stated as an 80-B frame (OQ-M9), not derived; under the rules it is
    /// read as the 29-B CoAP message that gives 80 B on the first hop, which then grows to 89 B
    /// on middle hops (inline hop limit and source) and 81 B on the last hop.
    pub const fn rule_inputs(self) -> (ContikiVersion, Transport, Endpoint, Endpoint) {
        match self {
            TableFlow::MakaremCon => {
                (ContikiVersion::V3_0, Transport::Udp { payload_bytes: 29 }, Endpoint::Mote, Endpoint::Mote)
            }
            TableFlow::MakaremAck => {
                (ContikiVersion::V3_0, Transport::Udp { payload_bytes: 4 }, Endpoint::Mote, Endpoint::Mote)
            }
            TableFlow::BetzlerRequest => (
                ContikiVersion::V2_7,
                Transport::Udp { payload_bytes: 11 },
                Endpoint::HostOutsideContext,
                Endpoint::Mote,
            ),
            TableFlow::BetzlerResponse => (
                ContikiVersion::V2_7,
                Transport::Udp { payload_bytes: 20 },
                Endpoint::Mote,
                Endpoint::HostOutsideContext,
            ),
            TableFlow::LimData => {
                (ContikiVersion::V3_0, Transport::Tcp { payload_bytes: 48 }, Endpoint::Mote, Endpoint::HostInContext)
            }
            TableFlow::LimAck => {
                (ContikiVersion::V3_0, Transport::Tcp { payload_bytes: 0 }, Endpoint::HostInContext, Endpoint::Mote)
            }
        }
    }

    /// The PSDU length on hop `hop` of `hops` under `mode`: the table, or rules 1–4 with
    /// [`TableFlow::rule_inputs`] and the version's [`FrameRules`] (no fragmentation check).
    pub fn psdu_len(self, mode: FrameLenMode, hop: u32, hops: u32) -> u32 {
        match mode {
            FrameLenMode::Table => self.len_at(hop, hops),
            FrameLenMode::Rules => {
                let (version, transport, src, dst) = self.rule_inputs();
                let rules = FrameRules::for_version(version);
                rules.psdu_len(&rules.hop_packet(transport, src, dst, hop, hops))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UDP_COAP_11: Transport = Transport::Udp { payload_bytes: 11 };
    const UDP_COAP_20: Transport = Transport::Udp { payload_bytes: 20 };
    const TCP_48: Transport = Transport::Tcp { payload_bytes: 48 };
    const TCP_ACK: Transport = Transport::Tcp { payload_bytes: 0 };

    #[test]
    fn the_frame_rules_read_partial_tables_and_reject_unknown_keys() {
        assert!(toml::from_str::<FrameRules>("hbh_at_udp_origin = false").is_ok());
        assert!(toml::from_str::<FrameRules>("hbh = false").is_err());
    }

    #[test]
    fn the_makarem_empty_ack_is_sent_uncompressed_as_84_bytes() {
        // uip_len = 40 + 8 (HBH) + 8 (UDP) + 4 (empty CoAP ACK) = 60 < 63.
        let rules = FrameRules::for_version(ContikiVersion::V3_0);
        let ack = Transport::Udp { payload_bytes: 4 };
        let p = rules.hop_packet(ack, Endpoint::Mote, Endpoint::Mote, 0, 3);
        assert_eq!(rules.ipv6_len(&p), 60);
        assert_eq!(rules.path_lengths(ack, Endpoint::Mote, Endpoint::Mote, 3, 127).unwrap(), vec![84, 84, 84]);
    }

    #[test]
    fn the_rules_reproduce_the_betzler_rows_of_the_table() {
        let rules = FrameRules::for_version(ContikiVersion::V2_7);
        let req = rules.path_lengths(UDP_COAP_11, Endpoint::HostOutsideContext, Endpoint::Mote, 4, 127).unwrap();
        assert_eq!(req, vec![79, 79, 79, 71]);
        let resp = rules.path_lengths(UDP_COAP_20, Endpoint::Mote, Endpoint::HostOutsideContext, 4, 127).unwrap();
        assert_eq!(resp, vec![69, 88, 88, 88]);
        for hops in 1..=5 {
            for hop in 0..hops {
                assert_eq!(TableFlow::BetzlerRequest.len_at(hop, hops), req_len(&rules, hop, hops), "{hop}/{hops}");
            }
        }
    }

    fn req_len(rules: &FrameRules, hop: u32, hops: u32) -> u32 {
        rules.psdu_len(&rules.hop_packet(UDP_COAP_11, Endpoint::HostOutsideContext, Endpoint::Mote, hop, hops))
    }

    #[test]
    fn the_rules_reproduce_the_lim_rows_of_the_table() {
        let rules = FrameRules::for_version(ContikiVersion::V3_0);
        let data = rules.path_lengths(TCP_48, Endpoint::Mote, Endpoint::HostInContext, 3, 127).unwrap();
        assert_eq!(data, vec![103, 120, 120]);
        let ack = rules.path_lengths(TCP_ACK, Endpoint::HostInContext, Endpoint::Mote, 3, 127).unwrap();
        assert_eq!(ack, vec![72, 72, 64]);
        for (flow, transport, src, dst) in [
            (TableFlow::LimData, TCP_48, Endpoint::Mote, Endpoint::HostInContext),
            (TableFlow::LimAck, TCP_ACK, Endpoint::HostInContext, Endpoint::Mote),
            (TableFlow::BetzlerResponse, UDP_COAP_20, Endpoint::Mote, Endpoint::HostOutsideContext),
        ] {
            let rules = if flow == TableFlow::BetzlerResponse {
                FrameRules::for_version(ContikiVersion::V2_7)
            } else {
                rules.clone()
            };
            for hops in 1..=6 {
                let computed = rules.path_lengths(transport, src, dst, hops, 127).unwrap();
                let table: Vec<u32> = (0..hops).map(|h| flow.len_at(h, hops)).collect();
                assert_eq!(computed, table, "{flow:?} over {hops} hops");
            }
        }
    }

    #[test]
    fn both_frame_length_modes_agree_on_every_derived_row_of_the_table() {
        let flows = [
            TableFlow::MakaremAck,
            TableFlow::BetzlerRequest,
            TableFlow::BetzlerResponse,
            TableFlow::LimData,
            TableFlow::LimAck,
        ];
        for flow in flows {
            for hops in 1..=6 {
                for hop in 0..hops {
                    let (table, rules) =
                        (flow.psdu_len(FrameLenMode::Table, hop, hops), flow.psdu_len(FrameLenMode::Rules, hop, hops));
                    assert_eq!(table, rules, "{flow:?} hop {hop} of {hops}");
                }
            }
        }
    }

    #[test]
    fn makarems_stated_80_byte_con_is_not_reproduced_by_the_rules_beyond_the_first_hop() {
        // OQ-M9: the table keeps S001's 80 B on every hop; the rules with one CoAP size cannot.
        let lens: Vec<u32> = (0..3).map(|h| TableFlow::MakaremCon.psdu_len(FrameLenMode::Rules, h, 3)).collect();
        assert_eq!(lens, vec![80, 89, 81]);
        assert!((0..3).all(|h| TableFlow::MakaremCon.psdu_len(FrameLenMode::Table, h, 3) == 80));
        assert_eq!(
            toml::from_str::<std::collections::BTreeMap<String, FrameLenMode>>("m = \"rules\"").unwrap()["m"],
            FrameLenMode::Rules
        );
    }

    #[test]
    fn contiki_3_adds_the_option_at_the_udp_origin_and_2_7_does_not() {
        let v3 = FrameRules::for_version(ContikiVersion::V3_0);
        let v2 = FrameRules::for_version(ContikiVersion::V2_7);
        let first = |r: &FrameRules| r.hop_packet(UDP_COAP_20, Endpoint::Mote, Endpoint::HostOutsideContext, 0, 2);
        assert!(first(&v3).hbh);
        assert!(!first(&v2).hbh);
        // Option present: next header inline (+1) and UDP uncompressed (+1), plus the 8-B option.
        assert_eq!(v3.psdu_len(&first(&v3)), v2.psdu_len(&first(&v2)) + 10);
    }

    #[test]
    fn a_broadcast_frame_has_the_short_mac_header() {
        let rules = FrameRules::default();
        assert_eq!(rules.mac_overhead_bytes(false), 23);
        assert_eq!(rules.mac_overhead_bytes(true), 17);
        let mut p = rules.hop_packet(UDP_COAP_11, Endpoint::Mote, Endpoint::Mote, 0, 1);
        let unicast = rules.psdu_len(&p);
        p.broadcast = true;
        assert_eq!(rules.psdu_len(&p), unicast - 6);
    }

    #[test]
    fn a_packet_longer_than_the_psdu_needs_fragmentation() {
        // Max 6LoWPAN payload per frame 127 − 23 = 104 B (rule 1).
        let rules = FrameRules::default();
        let big = Transport::Udp { payload_bytes: 200 };
        let err = rules.path_lengths(big, Endpoint::Mote, Endpoint::Mote, 2, 127).unwrap_err();
        assert_eq!(err.max_psdu_bytes, 127);
        assert!(err.psdu_bytes > 127);
        assert!(err.to_string().contains("fragmentation"));
    }
}
