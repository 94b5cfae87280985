//! A classic libpcap writer of UDP datagrams, so Wireshark and `tshark` show the CoAP of the
//! emulator, the testbed and the simulator.
//!
//! The file is the classic format (magic `a1b2c3d4`, microsecond timestamps, version 2.4,
//! written little-endian) with link type `LINKTYPE_RAW` (101): every record is a bare IP
//! packet, IPv4 or IPv6 after the version nibble. Around each datagram the writer builds an
//! IPv4 header (no options, TTL 64, DF set, a per-file identification counter, correct header
//! checksum) or an IPv6 header (hop limit 64), and a UDP header with the correct length and
//! checksum (RFC 768; the pseudo-header of RFC 791 or RFC 8200 §8.1). Port 5683 makes
//! Wireshark decode the payload as CoAP; for other ports use `-d udp.port==P,coap`.
//!
//! A datagram whose addresses are of different families is written with the IPv4-mapped form
//! of the IPv4 one in an IPv6 header. Datagrams longer than fit one IP packet
//! (65 507 B for IPv4) are truncated in the record (`incl_len < orig_len`), never refused.

use std::io::{self, Write};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};

use coapcc_core::Duration;

/// `LINKTYPE_RAW`: raw IPv4 or IPv6 packets.
pub const LINKTYPE_RAW: u32 = 101;
/// IPv4 header length (no options), bytes.
pub const IPV4_HEADER_BYTES: usize = 20;
/// IPv6 header length, bytes.
pub const IPV6_HEADER_BYTES: usize = 40;
/// UDP header length, bytes.
pub const UDP_HEADER_BYTES: usize = 8;
/// The snapshot length written in the file header, bytes.
pub const SNAPLEN: u32 = 65_535;

/// Writes a pcap file of UDP datagrams.
#[derive(Debug)]
pub struct PcapWriter<W: Write> {
    out: W,
    next_id: u16,
    buf: Vec<u8>,
    records: u64,
}

impl<W: Write> PcapWriter<W> {
    /// Writes the file header to `out`.
    pub fn new(mut out: W) -> io::Result<Self> {
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&0xa1b2_c3d4_u32.to_le_bytes());
        h.extend_from_slice(&2_u16.to_le_bytes());
        h.extend_from_slice(&4_u16.to_le_bytes());
        h.extend_from_slice(&0_i32.to_le_bytes()); // thiszone
        h.extend_from_slice(&0_u32.to_le_bytes()); // sigfigs
        h.extend_from_slice(&SNAPLEN.to_le_bytes());
        h.extend_from_slice(&LINKTYPE_RAW.to_le_bytes());
        out.write_all(&h)?;
        Ok(PcapWriter { out, next_id: 0, buf: Vec::with_capacity(2048), records: 0 })
    }

    /// Records written so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Writes one record: the datagram `payload` from `src` to `dst`, seen at `at` since the
    /// Unix epoch (the simulator passes simulated time since its start).
    pub fn write_udp(&mut self, at: Duration, src: SocketAddr, dst: SocketAddr, payload: &[u8]) -> io::Result<()> {
        self.buf.clear();
        let id = self.next_id;
        self.next_id = self.next_id.wrapping_add(1);
        build_packet(&mut self.buf, id, src, dst, payload);
        let incl = self.buf.len().min(SNAPLEN as usize);
        let nanos = at.as_nanos();
        let secs = u32::try_from(nanos / 1_000_000_000).unwrap_or(u32::MAX);
        let micros = ((nanos % 1_000_000_000) / 1_000) as u32;
        let mut rec = [0_u8; 16];
        rec[0..4].copy_from_slice(&secs.to_le_bytes());
        rec[4..8].copy_from_slice(&micros.to_le_bytes());
        rec[8..12].copy_from_slice(&(incl as u32).to_le_bytes());
        rec[12..16].copy_from_slice(&u32::try_from(self.buf.len()).unwrap_or(u32::MAX).to_le_bytes());
        self.out.write_all(&rec)?;
        self.out.write_all(&self.buf[..incl])?;
        self.records += 1;
        Ok(())
    }

    /// Flushes the output.
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// Flushes and returns the output.
    pub fn into_inner(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The IPv6 form of an address (IPv4-mapped for IPv4).
fn v6(ip: IpAddr) -> Ipv6Addr {
    match ip {
        IpAddr::V4(a) => a.to_ipv6_mapped(),
        IpAddr::V6(a) => a,
    }
}

/// One's-complement sum of `data` (odd length padded with a zero byte) added to `acc`.
fn sum16(mut acc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(2);
    for c in &mut chunks {
        acc += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        acc += u32::from(*last) << 8;
    }
    acc
}

/// Folds a one's-complement sum into 16 bits and complements it.
fn finish(mut acc: u32) -> u16 {
    while acc > 0xffff {
        acc = (acc & 0xffff) + (acc >> 16);
    }
    !(acc as u16)
}

/// Appends the IP packet of a UDP datagram to `buf`.
fn build_packet(buf: &mut Vec<u8>, id: u16, src: SocketAddr, dst: SocketAddr, payload: &[u8]) {
    // The UDP length field is 16 bits: a longer payload is cut (the record says so).
    let max_payload = usize::from(u16::MAX) - UDP_HEADER_BYTES - IPV4_HEADER_BYTES;
    let payload = &payload[..payload.len().min(max_payload)];
    let udp_len = (UDP_HEADER_BYTES + payload.len()) as u16;
    let mut udp = [0_u8; UDP_HEADER_BYTES];
    udp[0..2].copy_from_slice(&src.port().to_be_bytes());
    udp[2..4].copy_from_slice(&dst.port().to_be_bytes());
    udp[4..6].copy_from_slice(&udp_len.to_be_bytes());
    match (src.ip(), dst.ip()) {
        (IpAddr::V4(s), IpAddr::V4(d)) => {
            let total = (IPV4_HEADER_BYTES as u16) + udp_len;
            let mut ip = [0_u8; IPV4_HEADER_BYTES];
            ip[0] = 0x45;
            ip[2..4].copy_from_slice(&total.to_be_bytes());
            ip[4..6].copy_from_slice(&id.to_be_bytes());
            ip[6] = 0x40; // don't fragment
            ip[8] = 64;
            ip[9] = 17;
            ip[12..16].copy_from_slice(&s.octets());
            ip[16..20].copy_from_slice(&d.octets());
            let c = finish(sum16(0, &ip));
            ip[10..12].copy_from_slice(&c.to_be_bytes());
            // Pseudo-header: source, destination, zero, protocol, UDP length (RFC 768).
            let c = udp_checksum(&s.octets(), &d.octets(), udp_len, &udp, payload);
            udp[6..8].copy_from_slice(&c.to_be_bytes());
            buf.extend_from_slice(&ip);
        }
        (s, d) => {
            let (s, d) = (v6(s), v6(d));
            let mut ip = [0_u8; IPV6_HEADER_BYTES];
            ip[0] = 0x60;
            ip[4..6].copy_from_slice(&udp_len.to_be_bytes());
            ip[6] = 17;
            ip[7] = 64;
            ip[8..24].copy_from_slice(&s.octets());
            ip[24..40].copy_from_slice(&d.octets());
            // Pseudo-header of RFC 8200 §8.1.
            let c = udp_checksum(&s.octets(), &d.octets(), udp_len, &udp, payload);
            udp[6..8].copy_from_slice(&c.to_be_bytes());
            buf.extend_from_slice(&ip);
        }
    }
    buf.extend_from_slice(&udp);
    buf.extend_from_slice(payload);
}

/// The UDP checksum over the pseudo-header (source and destination addresses, protocol 17, UDP
/// length: RFC 768 for IPv4, RFC 8200 §8.1 for IPv6), the UDP header and the payload; a sum
/// of zero is sent as 0xFFFF.
fn udp_checksum(src: &[u8], dst: &[u8], udp_len: u16, udp: &[u8], payload: &[u8]) -> u16 {
    let mut acc = sum16(0, src);
    acc = sum16(acc, dst);
    acc += 17 + u32::from(udp_len);
    acc = sum16(acc, udp);
    acc = sum16(acc, payload);
    match finish(acc) {
        0 => 0xffff,
        c => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record_of(src: &str, dst: &str, payload: &[u8]) -> Vec<u8> {
        let mut w = PcapWriter::new(Vec::new()).unwrap();
        w.write_udp(Duration::from_millis(1_500), src.parse().unwrap(), dst.parse().unwrap(), payload).unwrap();
        w.into_inner().unwrap()
    }

    #[test]
    fn the_file_header_is_classic_pcap_with_raw_ip_link_type() {
        let f = PcapWriter::new(Vec::new()).unwrap().into_inner().unwrap();
        assert_eq!(f.len(), 24);
        assert_eq!(&f[0..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes(f[20..24].try_into().unwrap()), LINKTYPE_RAW);
    }

    #[test]
    fn an_ipv4_record_has_valid_lengths_and_checksums() {
        let payload = [0x40, 0x01, 0x12, 0x34, 0xff];
        let f = record_of("10.0.0.1:40000", "10.0.0.2:5683", &payload);
        let rec = &f[24..];
        assert_eq!(u32::from_le_bytes(rec[0..4].try_into().unwrap()), 1);
        assert_eq!(u32::from_le_bytes(rec[4..8].try_into().unwrap()), 500_000);
        let pkt = &rec[16..];
        assert_eq!(pkt.len(), 20 + 8 + payload.len());
        assert_eq!(u16::from_be_bytes([pkt[2], pkt[3]]) as usize, pkt.len());
        // A correct checksum makes the one's-complement sum of the header all ones.
        assert_eq!(finish(sum16(0, &pkt[..20])), 0);
        let udp = &pkt[20..];
        assert_eq!(u16::from_be_bytes([udp[4], udp[5]]) as usize, udp.len());
        let mut acc = sum16(0, &pkt[12..20]);
        acc += 17 + udp.len() as u32;
        assert_eq!(finish(sum16(acc, udp)), 0);
        assert_eq!(&udp[8..], &payload);
    }

    #[test]
    fn an_ipv6_record_has_a_valid_udp_checksum() {
        let f = record_of("[::1]:40000", "[::1]:5683", b"abc");
        let pkt = &f[24 + 16..];
        assert_eq!(pkt[0] >> 4, 6);
        let udp = &pkt[40..];
        let mut acc = sum16(0, &pkt[8..40]);
        acc += 17 + udp.len() as u32;
        assert_eq!(finish(sum16(acc, udp)), 0);
    }
}
