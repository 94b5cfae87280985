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
}

impl TimerKind {
    pub(crate) const ALL: [TimerKind; 3] = [TimerKind::Syn, TimerKind::Rto, TimerKind::DelAck];
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
