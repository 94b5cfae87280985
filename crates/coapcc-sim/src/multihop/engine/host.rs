//! The border router's SLIP line and the host side (multihop.md §1.7; OQ-M4): packets for
//! the host leave the DODAG root over SLIP (the IPv6 packet of the last radio hop by rules
//! 1–4, + 2 B framing, at `slip_bit_rate` with `slip_bits_per_byte`; one FIFO per direction),
//! reach the remote endpoints (Betzler's cloud clients, Lim's TCP server) after the one-way
//! `host_delay`, and come back the same way to the root's network layer after its t_fwd.

use coapcc_core::Duration;

use super::MultihopSim;
use super::event::Ev;
use super::net::{Body, Packet};

impl MultihopSim {
    /// The IPv6 length of `p` on its last radio hop (rules 1–4): what SLIP carries.
    fn ipv6_bytes(&self, p: &Packet) -> u32 {
        let (_, transport, src, dst) = self.rule_inputs(p.flow);
        let last = p.hops.saturating_sub(1);
        self.rules.ipv6_len(&self.rules.hop_packet(transport, src, dst, last, p.hops.max(1)))
    }

    /// The serial-line time of `p`: its IPv6 bytes + 2 B framing.
    fn slip_time(&self, p: &Packet) -> Duration {
        let bits = u64::from(self.ipv6_bytes(p) + 2).saturating_mul(u64::from(self.cfg.slip_bits_per_byte));
        Duration::from_nanos(bits.saturating_mul(1_000_000_000) / u64::from(self.cfg.slip_bit_rate))
    }

    /// Packet `pkt` leaves the DODAG root up the SLIP line to the host.
    pub(super) fn slip_up(&mut self, pkt: u32) {
        let d = self.slip_time(&self.packets[pkt as usize]);
        let done = self.now.max(self.slip_up_free) + d;
        self.slip_up_free = done;
        self.push(done, Ev::HostIn { pkt });
    }

    /// A host-side endpoint sends: host delay, then SLIP down to the border router, then its
    /// forwarding delay.
    pub(super) fn send_from_host(&mut self, p: Packet) {
        let d = self.slip_time(&p);
        let pkt = self.new_packet(p);
        let at_host = self.now + self.cfg.host_delay;
        let done = at_host.max(self.slip_down_free) + d;
        self.slip_down_free = done;
        let root = self.dodag.root().0;
        self.push(done + self.cfg.t_fwd, Ev::NetIn { node: root, pkt });
    }

    /// A packet reached the host over SLIP: on to the remote endpoint after the host delay,
    /// unless the diagnostics make the host discard everything.
    pub(super) fn on_host_in(&mut self, pkt: u32) {
        if !self.cfg.blackhole_host {
            let d = self.cfg.host_delay;
            self.push(self.now + d, Ev::RemoteIn { pkt });
        }
    }

    /// A packet reached its remote endpoint.
    pub(super) fn deliver_host(&mut self, pkt: u32) {
        self.delivered += 1;
        let p = self.packets[pkt as usize].clone();
        match p.body {
            Body::Coap(_) => self.deliver_coap(p.dst, pkt),
            Body::Tcp(seg) => self.tcp_at_host(p.src, p.dst, seg),
        }
    }
}
