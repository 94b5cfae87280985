//! One end of a connection: the three-way handshake (RFC 9293 §3.5) with Linux's SYN and
//! SYN-ACK timers (1 s, doubled per expiry, `tcp_syn_retries` / `tcp_synack_retries`; a
//! repeated SYN makes the server send its SYN-ACK again, Linux `inet_rtx_syn_ack`), the RTT
//! sample of the handshake (Karn: none from a retransmitted SYN or SYN-ACK, then the 3 s of
//! RFC 6298 §5.7), then the [`Sender`] and [`Receiver`] of the established connection, and
//! which segments leave: data carry the current ACK, a due ACK without data goes alone.

use coapcc_driver::scenario::{CongestionControl, LinuxTcpConfig};

use super::receiver::Receiver;
use super::segment::{MAX_BLOCKS, Segment};
use super::sender::{AckIn, Sender, Tx};

/// Linux `tcp_synack_retries`.
const SYNACK_RETRIES: u32 = 5;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Nothing sent or received yet.
    Closed,
    SynSent,
    SynReceived,
    Established,
    /// The SYN or SYN-ACK was retransmitted the allowed number of times in vain.
    Failed,
}

/// What a call changed for the application.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outcome {
    /// The connection became established.
    pub(crate) established: bool,
    /// In-order bytes newly delivered to the application.
    pub(crate) delivered: u64,
    /// The handshake gave up.
    pub(crate) failed: bool,
}

/// Which timer of an end.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum TimerKind {
    /// SYN or SYN-ACK retransmission.
    Syn,
    /// Retransmission timeout of data.
    Rto,
    /// Delayed ACK.
    DelAck,
    /// RACK's reordering timer.
    Reo,
}

impl TimerKind {
    pub(crate) const ALL: [TimerKind; 4] = [TimerKind::Syn, TimerKind::Rto, TimerKind::DelAck, TimerKind::Reo];
}

#[derive(Clone, Debug)]
pub(crate) struct Side {
    pub(crate) phase: Phase,
    pub(crate) snd: Sender,
    pub(crate) rcv: Receiver,
    syn_deadline: Option<u64>,
    syn_rto_ns: u64,
    syn_sent_ns: u64,
    /// SYN (or SYN-ACK) retransmissions so far.
    pub(crate) syn_retrans: u32,
    syn_retries: u32,
    fallback: coapcc_core::Duration,
    /// Ground truth: some SYN (or SYN-ACK) copy reached the peer.
    syn_arrived: bool,
    blocks: Vec<(u64, u64)>,
    /// Segments sent (all kinds).
    pub(crate) packets: u64,
}

impl Side {
    pub(crate) fn new(c: &LinuxTcpConfig, kind: CongestionControl, client: bool) -> Self {
        Side {
            phase: Phase::Closed,
            snd: Sender::new(c, kind),
            rcv: Receiver::new(c),
            syn_deadline: None,
            syn_rto_ns: u64::try_from(c.rto_initial.as_nanos()).unwrap_or(u64::MAX),
            syn_sent_ns: 0,
            syn_retrans: 0,
            syn_retries: if client { c.syn_retries } else { SYNACK_RETRIES },
            fallback: c.rto_fallback,
            syn_arrived: false,
            blocks: Vec::new(),
            packets: 0,
        }
    }

    /// When timer `kind` is due, if armed.
    pub(crate) fn deadline(&self, kind: TimerKind) -> Option<u64> {
        match kind {
            TimerKind::Syn => self.syn_deadline,
            TimerKind::Rto => self.snd.rto_deadline.filter(|_| self.phase == Phase::Established),
            TimerKind::DelAck => self.rcv.delack_deadline.filter(|_| self.phase == Phase::Established),
            TimerKind::Reo => self.snd.rack.reo_deadline.filter(|_| self.phase == Phase::Established),
        }
    }

    fn syn(&self, ack: bool) -> Segment {
        Segment {
            syn: true,
            ack,
            seq: 0,
            len: 0,
            ack_no: if ack { 1 } else { 0 },
            sack: [(0, 0); MAX_BLOCKS],
            sack_n: 0,
            rwnd: self.rcv.window(),
            retrans: self.syn_retrans > 0,
        }
    }

    fn emit(&mut self, s: Segment, out: &mut Vec<Segment>) {
        self.packets += 1;
        out.push(s);
    }

    /// The client opens the connection at `now_ns`.
    pub(crate) fn connect(&mut self, now_ns: u64, out: &mut Vec<Segment>) {
        self.phase = Phase::SynSent;
        self.syn_sent_ns = now_ns;
        self.syn_deadline = Some(now_ns + self.syn_rto_ns);
        self.snd.counters.out_segs += 1;
        let s = self.syn(false);
        self.emit(s, out);
    }

    /// Ground truth for the segment just sent (the last one `out` received): whether it
    /// reaches the peer.
    pub(crate) fn note_fate(&mut self, s: &Segment, arrives: bool) {
        if s.syn {
            self.syn_arrived |= arrives;
        } else if s.len > 0 {
            self.snd.note_fate(s.seq, arrives);
        }
    }

    /// A segment from the peer arrives at `now_ns`.
    pub(crate) fn on_segment(&mut self, now_ns: u64, seg: &Segment, out: &mut Vec<Segment>) -> Outcome {
        let mut o = Outcome::default();
        match self.phase {
            Phase::Failed => return o,
            Phase::Closed if seg.syn && !seg.ack => {
                // Server: SYN → SYN-ACK (the SYN's RTT is not the server's to take).
                self.rcv.syn_received();
                self.phase = Phase::SynReceived;
                self.syn_sent_ns = now_ns;
                self.syn_deadline = Some(now_ns + self.syn_rto_ns);
                self.snd.counters.out_segs += 1;
                let s = self.syn(true);
                self.emit(s, out);
                return o;
            }
            Phase::Closed => return o,
            Phase::SynReceived if seg.syn && !seg.ack => {
                // A repeated SYN: the SYN-ACK again (Linux `inet_rtx_syn_ack`).
                self.retransmit_syn(now_ns, false, out);
                return o;
            }
            Phase::SynSent if seg.syn && seg.ack && seg.ack_no == 1 => {
                self.rcv.syn_received();
                self.establish(now_ns);
                o.established = true;
                // The third segment of the handshake, at once.
                self.send_ack(out);
                return o;
            }
            Phase::SynSent => return o,
            Phase::SynReceived if seg.ack && seg.ack_no >= 1 && !seg.syn => {
                self.establish(now_ns);
                o.established = true;
            }
            Phase::SynReceived => return o,
            Phase::Established if seg.syn => {
                // A repeated SYN-ACK (our ACK was lost): acknowledge it again.
                self.send_ack(out);
                return o;
            }
            Phase::Established => {}
        }
        if seg.len > 0 {
            o.delivered = self.rcv.on_data(now_ns, seg.seq, seg.len);
        }
        if seg.ack {
            let a = AckIn { ack: seg.ack_no, sack: seg.blocks(), rwnd: seg.rwnd, has_data: seg.len > 0 };
            self.snd.on_ack(now_ns, a);
        }
        self.flush(now_ns, out);
        o
    }

    fn establish(&mut self, now_ns: u64) {
        self.phase = Phase::Established;
        self.syn_deadline = None;
        if self.syn_retrans == 0 {
            let r = now_ns.saturating_sub(self.syn_sent_ns);
            self.snd.rtt.sample(r);
            self.snd.rtt_samples_s.push(r as f64 / 1e9);
        } else {
            self.snd.rtt.fall_back(self.fallback);
        }
        self.snd.established(now_ns, self.syn_retrans);
    }

    fn retransmit_syn(&mut self, now_ns: u64, timeout: bool, out: &mut Vec<Segment>) {
        self.syn_retrans += 1;
        self.snd.counters.retrans_segs += 1;
        self.snd.counters.unnecessary += u64::from(self.syn_arrived);
        if timeout {
            self.snd.counters.timeouts += 1;
            self.snd.expired_rto_s.push(self.syn_rto_ns as f64 / 1e9);
            self.syn_rto_ns = self.syn_rto_ns.saturating_mul(2);
            self.syn_deadline = Some(now_ns + self.syn_rto_ns);
        }
        let s = self.syn(self.phase == Phase::SynReceived);
        self.emit(s, out);
    }

    /// Timer `kind` fired at `now_ns`.
    pub(crate) fn on_timer(&mut self, now_ns: u64, kind: TimerKind, out: &mut Vec<Segment>) -> Outcome {
        let mut o = Outcome::default();
        match kind {
            TimerKind::Syn => {
                self.syn_deadline = None;
                if !matches!(self.phase, Phase::SynSent | Phase::SynReceived) {
                    return o;
                }
                if self.syn_retrans >= self.syn_retries {
                    self.phase = Phase::Failed;
                    o.failed = true;
                    return o;
                }
                self.retransmit_syn(now_ns, true, out);
            }
            TimerKind::Rto => {
                self.snd.on_rto(now_ns);
                self.flush(now_ns, out);
            }
            TimerKind::DelAck => {
                if self.rcv.delack_fired() {
                    self.send_ack(out);
                }
            }
            TimerKind::Reo => {
                self.snd.on_reo_timeout(now_ns);
                self.flush(now_ns, out);
            }
        }
        o
    }

    /// The application writes `bytes` at `now_ns`; what can be sent leaves.
    pub(crate) fn write(&mut self, now_ns: u64, bytes: u64, out: &mut Vec<Segment>) {
        self.snd.write(now_ns, bytes);
        self.flush(now_ns, out);
    }

    /// Sends what the sender allows, each segment with the current ACK; a due ACK alone when
    /// no data left.
    fn flush(&mut self, now_ns: u64, out: &mut Vec<Segment>) {
        let mut txs: Vec<Tx> = Vec::new();
        self.snd.transmit(now_ns, &mut txs);
        for t in txs {
            let s = self.data_segment(t);
            self.rcv.ack_sent();
            self.emit(s, out);
        }
        if self.rcv.wants_ack_now() {
            self.send_ack(out);
        }
    }

    fn ack_fields(&mut self, s: &mut Segment) {
        self.rcv.sack_blocks(&mut self.blocks);
        s.sack_n = self.blocks.len().min(MAX_BLOCKS) as u8;
        for (i, b) in self.blocks.iter().take(MAX_BLOCKS).enumerate() {
            s.sack[i] = *b;
        }
    }

    fn data_segment(&mut self, t: Tx) -> Segment {
        let mut s = Segment {
            syn: false,
            ack: true,
            seq: t.start,
            len: (t.end - t.start) as u32,
            ack_no: self.rcv.rcv_nxt,
            sack: [(0, 0); MAX_BLOCKS],
            sack_n: 0,
            rwnd: self.rcv.window(),
            retrans: t.retrans,
        };
        self.ack_fields(&mut s);
        s
    }

    fn send_ack(&mut self, out: &mut Vec<Segment>) {
        let mut s = Segment {
            syn: false,
            ack: true,
            seq: self.snd.snd_nxt,
            len: 0,
            ack_no: self.rcv.rcv_nxt,
            sack: [(0, 0); MAX_BLOCKS],
            sack_n: 0,
            rwnd: self.rcv.window(),
            retrans: false,
        };
        self.ack_fields(&mut s);
        self.rcv.ack_sent();
        self.snd.counters.out_segs += 1;
        self.emit(s, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const UP: u64 = 250 * MS;
    const DOWN: u64 = 450 * MS;

    /// A client and a server joined by fixed one-way delays (250 ms up, 450 ms down, no
    /// queueing); `lose(k, from_server, seg)` drops the k-th segment of that direction.
    /// Returns the client when it is established (or after 200 s).
    fn handshake(lose: impl Fn(u32, bool, &Segment) -> bool) -> (Option<u64>, Side, Side) {
        let c = LinuxTcpConfig::default();
        let (mut client, mut server) =
            (Side::new(&c, CongestionControl::Cubic, true), Side::new(&c, CongestionControl::Cubic, false));
        let mut wire: Vec<(u64, bool, Segment)> = Vec::new();
        let mut counts = [0u32; 2];
        let mut out = Vec::new();
        // Offers what `side` just sent and tells it each segment's fate (the ground truth).
        let mut send = |side: &mut Side, out: &mut Vec<Segment>, now: u64, from_server: bool, wire: &mut Vec<_>| {
            for s in out.drain(..) {
                let k = &mut counts[usize::from(from_server)];
                let lost = lose(*k, from_server, &s);
                side.note_fate(&s, !lost);
                if !lost {
                    wire.push((now + if from_server { DOWN } else { UP }, !from_server, s));
                }
                *k += 1;
            }
        };
        client.connect(0, &mut out);
        send(&mut client, &mut out, 0, false, &mut wire);
        loop {
            // The earliest delivery or timer (deliveries first at equal times).
            let next_wire = wire.iter().enumerate().min_by_key(|(_, w)| w.0).map(|(i, w)| (w.0, i));
            let timer = |s: &Side| TimerKind::ALL.into_iter().filter_map(|k| s.deadline(k).map(|t| (t, k))).min();
            let (ct, st) = (timer(&client), timer(&server));
            let t_wire = next_wire.map_or(u64::MAX, |w| w.0);
            let t_c = ct.map_or(u64::MAX, |t| t.0);
            let t_s = st.map_or(u64::MAX, |t| t.0);
            let now = t_wire.min(t_c).min(t_s);
            if now > 200_000 * MS {
                return (None, client, server);
            }
            if t_wire == now {
                let (_, to_server, seg) = wire.remove(next_wire.unwrap().1);
                let side = if to_server { &mut server } else { &mut client };
                let o = side.on_segment(now, &seg, &mut out);
                send(side, &mut out, now, to_server, &mut wire);
                if o.established && !to_server {
                    return (Some(now), client, server);
                }
            } else if t_c == now {
                client.on_timer(now, ct.unwrap().1, &mut out);
                send(&mut client, &mut out, now, false, &mut wire);
            } else {
                server.on_timer(now, st.unwrap().1, &mut out);
                send(&mut server, &mut out, now, true, &mut wire);
            }
        }
    }

    #[test]
    fn a_clean_handshake_takes_one_round_trip_and_seeds_the_rto() {
        let (at, client, _) = handshake(|_, _, _| false);
        // 250 ms up + 450 ms down.
        assert_eq!(at, Some(700 * MS));
        // RTT 700 ms: RTO = 700 + max(4·350, 200) = 2 100 ms.
        assert_eq!(client.snd.rtt.rto_ns(), 2_100 * MS);
        assert_eq!(client.snd.win.cwnd, 10);
        assert_eq!(client.snd.counters.retrans_segs, 0);
    }

    #[test]
    fn a_lost_syn_costs_the_one_second_initial_rto_and_leaves_three_seconds() {
        let (at, client, _) = handshake(|k, from_server, _| !from_server && k == 0);
        // SYN at 0 lost; again at 1 s (RFC 6298 §2.1); established 1 s + 700 ms.
        assert_eq!(at, Some(1_700 * MS));
        // No valid sample (Karn): RTO 3 s (RFC 6298 §5.7); one retransmission keeps IW 10.
        assert_eq!(client.snd.rtt.rto_ns(), 3_000 * MS);
        assert_eq!(client.snd.win.cwnd, 10);
        let k = client.snd.counters;
        assert_eq!((k.retrans_segs, k.timeouts, k.unnecessary), (1, 1, 0));
    }

    #[test]
    fn two_lost_syns_back_off_to_two_seconds_and_start_from_one_segment() {
        let (at, client, _) = handshake(|k, from_server, _| !from_server && k < 2);
        // SYNs at 0, 1 s and 1 + 2 = 3 s; established 3.7 s.
        assert_eq!(at, Some(3_700 * MS));
        assert_eq!(client.snd.win.cwnd, 1, "more than one SYN retransmission: cwnd 1 (Linux)");
        assert_eq!(client.snd.counters.timeouts, 2);
    }

    #[test]
    fn a_lost_syn_ack_makes_the_clients_retransmission_unnecessary() {
        let (at, client, server) = handshake(|k, from_server, _| from_server && k == 0);
        // The SYN arrived at 250 ms; its SYN-ACK was lost. The client's SYN again at 1 s
        // reaches the server at 1.25 s, which answers with its SYN-ACK again (and its own
        // 1 s timer expires at 1.25 s too): the client is up at 1.25 + 0.45 = 1.7 s.
        assert_eq!(at, Some(1_700 * MS));
        assert_eq!(client.snd.counters.unnecessary, 1, "the first SYN had reached the server");
        assert_eq!(client.snd.rtt.rto_ns(), 3_000 * MS);
        assert!(server.snd.counters.retrans_segs >= 1);
    }
}
