//! The sending half of a connection after the handshake: Linux's congestion states (Open,
//! Disorder, Recovery, Loss), SACK loss recovery (RFC 6675) or NewReno without SACK
//! (RFC 6582, Linux's `tcp_add_reno_sack` emulation), PRR in recovery (RFC 6937), the
//! RACK loss detection with SACK (RFC 8985 §6, Linux's default), the
//! retransmission timer (RFC 6298 §5) with F-RTO (RFC 5682 §3 SACK-enhanced, Linux
//! `tcp_process_loss`), slow start after idle (RFC 5681 §4.1, Linux `tcp_cwnd_restart`), and
//! the peer's receive window. Counters are Linux's (`TcpOutSegs`, `TcpRetransSegs`,
//! `TCPTimeouts`, `TCPSpuriousRTOs`).

use coapcc_driver::scenario::{CongestionControl, LinuxTcpConfig};

use super::cc::{Cc, Window};
use super::prr::Prr;
use super::rack::Rack;
use super::rto::RttEstimator;
use super::scoreboard::{DUP_THRESH, Delivered, Scoreboard};

/// Linux's congestion-avoidance states (`TCP_CA_*`; CWR is not reached without ECN).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum CaState {
    Open,
    Disorder,
    Recovery,
    Loss,
}

/// One connection end's counters, as Linux's `/proc/net/snmp` and `netstat` name them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Counters {
    /// `TcpOutSegs`: segments sent, retransmissions excluded.
    pub(crate) out_segs: u64,
    /// `TcpRetransSegs`: segments retransmitted (SYN and SYN-ACK included).
    pub(crate) retrans_segs: u64,
    /// `TCPTimeouts`: retransmission timer expiries (SYN and SYN-ACK timers included).
    pub(crate) timeouts: u64,
    /// `TCPSpuriousRTOs`: timeouts F-RTO found spurious.
    pub(crate) spurious_rtos: u64,
    /// Ground truth: retransmissions of a segment some earlier copy of which reached the peer.
    pub(crate) unnecessary: u64,
    /// Data segments sent, retransmissions included.
    pub(crate) data_segs: u64,
}

/// The `[tcp]` options that give ns-3's behaviour instead of Linux's (each off is Linux).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ns3Options {
    rearm_on_retransmit: bool,
    rearm_every_partial_ack: bool,
    backoff_until_sample: bool,
    partial_ack_retransmit: bool,
    nextseg_rule3: bool,
    cubic_srtt: bool,
    /// Reno grows in slow start whether or not the window limits the sender.
    reno_slow_start_unlimited: bool,
    /// Every timeout sets ssthresh again (ns-3 `ReTxTimeout`).
    ssthresh_every_timeout: bool,
    /// Three ACKs with new SACK information start fast recovery (ns-3 `DupAck`).
    sack_dupacks_start_recovery: bool,
}

/// A segment to send: bytes `[start, end)`, a retransmission or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tx {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) retrans: bool,
}

/// What an ACK carries for the sender.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AckIn<'a> {
    pub(crate) ack: u64,
    pub(crate) sack: &'a [(u64, u64)],
    pub(crate) rwnd: u32,
    /// The segment carried data (then it is no duplicate ACK).
    pub(crate) has_data: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct Sender {
    mss: u32,
    sack: bool,
    /// RACK marks losses (SACK on and `rack`), else RFC 6675's DupThresh rule.
    rack_enabled: bool,
    pub(crate) rack: Rack,
    frto_enabled: bool,
    slow_start_after_idle: bool,
    /// The ns-3 options of `[tcp]` (`docs/tcp.md`, "Cross-check against ns-3").
    opts: Ns3Options,
    /// A partial ACK of this fast recovery restarted the timer already.
    partial_ack_seen: bool,
    /// One segment to send beyond the window (`partial_ack_retransmit`).
    force_one: bool,
    iw: u32,
    /// End of what the application wrote (sequence numbers; data start at 1).
    app_end: u64,
    pub(crate) snd_una: u64,
    pub(crate) snd_nxt: u64,
    pub(crate) sb: Scoreboard,
    pub(crate) win: Window,
    cc: Cc,
    pub(crate) rtt: RttEstimator,
    pub(crate) state: CaState,
    high_seq: u64,
    prr: Prr,
    prior_cwnd: u32,
    prior_ssthresh: u32,
    frto: bool,
    rexmit_new: bool,
    /// Duplicate ACKs counted as SACKed segments when SACK is off.
    dupacks: u32,
    /// With SACK and `sack_dupacks_start_recovery`: ACKs with new SACK information since the
    /// last cumulative ACK without any (ns-3 `m_dupAckCount`).
    sack_dupacks: u32,
    rwnd: u64,
    lsndtime_ns: u64,
    /// Consecutive timeouts (Linux `icsk_retransmits`).
    retransmits: u32,
    pub(crate) rto_deadline: Option<u64>,
    cwnd_limited: bool,
    last_pipe: u32,
    pub(crate) counters: Counters,
    /// RTT samples, s.
    pub(crate) rtt_samples_s: Vec<f64>,
    /// Values of expired retransmission timers, s.
    pub(crate) expired_rto_s: Vec<f64>,
}

impl Sender {
    pub(crate) fn new(c: &LinuxTcpConfig, kind: CongestionControl) -> Self {
        Sender {
            mss: c.mss(),
            sack: c.sack,
            rack_enabled: c.sack && c.rack,
            rack: Rack::default(),
            frto_enabled: c.frto,
            slow_start_after_idle: c.slow_start_after_idle,
            opts: Ns3Options {
                rearm_on_retransmit: c.rto_rearm_on_retransmit,
                rearm_every_partial_ack: c.rto_rearm_every_partial_ack,
                backoff_until_sample: c.rto_backoff_until_sample,
                partial_ack_retransmit: c.sack && c.partial_ack_retransmit,
                nextseg_rule3: c.sack && c.nextseg_rule3,
                cubic_srtt: c.cubic_srtt,
                reno_slow_start_unlimited: kind == CongestionControl::Reno && !c.reno_slow_start_cwnd_limited,
                ssthresh_every_timeout: c.rto_ssthresh_every_timeout,
                sack_dupacks_start_recovery: c.sack && c.sack_dupacks_start_recovery,
            },
            partial_ack_seen: false,
            force_one: false,
            iw: c.initial_window,
            app_end: 1,
            snd_una: 1,
            snd_nxt: 1,
            sb: Scoreboard::default(),
            win: Window::initial(c.initial_window),
            cc: Cc::new(kind, c),
            rtt: RttEstimator::new(c),
            state: CaState::Open,
            high_seq: 1,
            prr: Prr::default(),
            prior_cwnd: 0,
            prior_ssthresh: 0,
            frto: false,
            rexmit_new: false,
            dupacks: 0,
            sack_dupacks: 0,
            rwnd: u64::from(c.receive_window_bytes),
            lsndtime_ns: 0,
            retransmits: 0,
            rto_deadline: None,
            cwnd_limited: false,
            last_pipe: 0,
            counters: Counters::default(),
            rtt_samples_s: Vec::new(),
            expired_rto_s: Vec::new(),
        }
    }

    /// The connection is established at `now_ns` (Linux `tcp_init_transfer`: the last send
    /// time is now, so the first write does not count as a restart after idle). More than
    /// one retransmitted SYN or SYN-ACK starts from a window of one segment (RFC 5681 §3.1,
    /// as Linux applies it).
    pub(crate) fn established(&mut self, now_ns: u64, handshake_retransmissions: u32) {
        self.lsndtime_ns = now_ns;
        if handshake_retransmissions > 1 {
            self.win.cwnd = 1;
        }
    }

    /// The application writes `bytes` (Linux `tcp_sendmsg` with
    /// `tcp_slow_start_after_idle_check`).
    pub(crate) fn write(&mut self, now_ns: u64, bytes: u64) {
        if self.slow_start_after_idle && self.sb.is_empty() {
            let idle = now_ns.saturating_sub(self.lsndtime_ns);
            let rto = self.rtt.rto_ns();
            if idle > rto {
                // Linux `tcp_cwnd_restart`: halve per RTO idle, not below the restart window.
                self.win.ssthresh = self.current_ssthresh();
                let restart = self.iw.min(self.win.cwnd);
                let mut cwnd = self.win.cwnd;
                let mut left = idle - rto;
                while left > 0 && cwnd > restart {
                    cwnd >>= 1;
                    left = left.saturating_sub(rto);
                }
                self.win.cwnd = cwnd.max(restart);
            }
        }
        self.app_end += bytes;
    }

    /// Linux `tcp_current_ssthresh`.
    fn current_ssthresh(&self) -> u32 {
        if self.state == CaState::Recovery {
            self.win.ssthresh
        } else {
            self.win.ssthresh.max((self.win.cwnd >> 1) + (self.win.cwnd >> 2))
        }
    }

    fn pipe(&self) -> u32 {
        self.sb.pipe(if self.sack { 0 } else { self.dupacks })
    }

    fn arm_rto(&mut self, now_ns: u64) {
        self.rto_deadline = Some(now_ns + self.rtt.rto_ns());
    }

    /// Sends what the window allows (Linux `tcp_xmit_recovery`, `tcp_xmit_retransmit_queue`,
    /// `tcp_write_xmit`): lost segments first (RFC 6675 `NextSeg` rule 1), then new data
    /// within the peer's window; after F-RTO's step 2b new data only.
    pub(crate) fn transmit(&mut self, now_ns: u64, out: &mut Vec<Tx>) {
        if self.force_one {
            self.force_one = false;
            self.send_forced(now_ns, out);
        }
        if self.rexmit_new {
            self.rexmit_new = false;
            self.send_new(now_ns, out);
            if self.snd_nxt > self.high_seq {
                return;
            }
            self.frto = false;
        }
        self.send_lost(now_ns, out);
        self.send_new(now_ns, out);
        if self.opts.nextseg_rule3 && self.state == CaState::Recovery && self.snd_nxt >= self.app_end {
            self.send_rule3(now_ns, out);
        }
    }

    /// Retransmits the segment at index `i` of the queue.
    fn retransmit(&mut self, i: usize, now_ns: u64, out: &mut Vec<Tx>) {
        let Some(s) = self.sb.get_mut(i) else { return };
        s.retrans_out = true;
        s.ever_retrans = true;
        s.sent_ns = now_ns;
        let (start, end, arrived) = (s.start, s.end, s.copy_arrives);
        self.counters.retrans_segs += 1;
        self.counters.data_segs += 1;
        self.counters.unnecessary += u64::from(arrived);
        if self.state == CaState::Recovery {
            self.prr.out += 1;
        }
        if i == 0 && self.opts.rearm_on_retransmit {
            // Linux re-arms the timer when it retransmits the head.
            self.arm_rto(now_ns);
        } else if !self.opts.rearm_on_retransmit && self.rto_deadline.is_none() {
            // ns-3 `SendDataPacket`: only a timer that is not running is started.
            self.arm_rto(now_ns);
        }
        out.push(Tx { start, end, retrans: true });
    }

    /// RFC 6675 §4 `NextSeg` rule (3), as ns-3's `TcpTxBuffer::NextSeg` applies it in
    /// recovery: while the window allows, the first unSACKed segment below the highest SACKed
    /// one that is not being retransmitted is sent again.
    fn send_rule3(&mut self, now_ns: u64, out: &mut Vec<Tx>) {
        while self.pipe() < self.win.cwnd {
            let Some(i) = self.sb.rule3_candidate() else { break };
            self.retransmit(i, now_ns, out);
        }
        self.last_pipe = self.pipe();
    }

    /// The one segment a partial ACK sends beyond the window (ns-3 `DoRetransmit`): `NextSeg`
    /// rule (1) (the first lost segment not being retransmitted), else rule (2) (new data
    /// within the peer's window), else the oldest segment.
    fn send_forced(&mut self, now_ns: u64, out: &mut Vec<Tx>) {
        if let Some(i) = self.sb.next_lost() {
            self.retransmit(i, now_ns, out);
        } else if self.snd_nxt < self.app_end && self.snd_nxt < self.snd_una + self.rwnd {
            // As much as the peer's window still takes, at most one segment.
            let len = u64::from(self.mss).min(self.app_end - self.snd_nxt).min(self.snd_una + self.rwnd - self.snd_nxt);
            self.push_new(now_ns, len, out);
        } else if !self.sb.is_empty() {
            self.retransmit(0, now_ns, out);
        }
        self.last_pipe = self.pipe();
    }

    fn send_lost(&mut self, now_ns: u64, out: &mut Vec<Tx>) {
        loop {
            if self.pipe() >= self.win.cwnd {
                self.cwnd_limited = true;
                break;
            }
            let Some(i) = self.sb.next_lost() else { break };
            self.retransmit(i, now_ns, out);
        }
        self.last_pipe = self.pipe();
    }

    fn send_new(&mut self, now_ns: u64, out: &mut Vec<Tx>) {
        while self.snd_nxt < self.app_end {
            let pipe = self.pipe();
            if pipe >= self.win.cwnd {
                self.cwnd_limited = true;
                break;
            }
            let len = u64::from(self.mss).min(self.app_end - self.snd_nxt);
            if self.snd_nxt + len > self.snd_una + self.rwnd {
                self.cwnd_limited = false;
                break;
            }
            self.push_new(now_ns, len, out);
        }
        if self.snd_nxt >= self.app_end {
            self.cwnd_limited = self.pipe() >= self.win.cwnd;
        }
        self.last_pipe = self.pipe();
    }

    /// Sends `len` bytes of new data.
    fn push_new(&mut self, now_ns: u64, len: u64, out: &mut Vec<Tx>) {
        if self.pipe() == 0 {
            // Linux `CA_EVENT_TX_START`.
            self.cc.on_tx_start(now_ns.saturating_sub(self.lsndtime_ns), now_ns);
        }
        let start = self.snd_nxt;
        self.sb.push(start, start + len, now_ns);
        self.snd_nxt += len;
        self.lsndtime_ns = now_ns;
        self.counters.out_segs += 1;
        self.counters.data_segs += 1;
        if self.state == CaState::Recovery {
            self.prr.out += 1;
        }
        if self.rto_deadline.is_none() {
            self.arm_rto(now_ns);
        }
        out.push(Tx { start, end: start + len, retrans: false });
    }

    /// Ground truth from the link: the copy of the segment starting at `start` just sent
    /// reaches the peer (`arrives`). Never used for a decision, only for the count of
    /// unnecessary retransmissions.
    pub(crate) fn note_fate(&mut self, start: u64, arrives: bool) {
        if let Some(s) = self.sb.find_mut(start) {
            s.copy_arrives |= arrives;
        }
    }

    /// Linux `tcp_ack`: SACK tagging, the cumulative ACK, the RTT sample, the timer, the
    /// congestion state (`tcp_fastretrans_alert`) and the window (`tcp_cong_control`).
    pub(crate) fn on_ack(&mut self, now_ns: u64, a: AckIn<'_>) {
        if a.ack > self.snd_nxt || a.ack < self.snd_una {
            return;
        }
        self.rwnd = u64::from(a.rwnd);
        let (rack, sack) = (&mut self.rack, self.sack);
        let mut on_delivered = |s: &_| {
            // Linux calls `tcp_rack_advance` for SACK connections only.
            if sack {
                rack.delivered(now_ns, s);
            }
        };
        let sacked = if self.sack { self.sb.sack(a.sack, &mut on_delivered) } else { Delivered::default() };
        let acked = self.sb.ack(a.ack, &mut on_delivered);
        let una_advanced = a.ack > self.snd_una;
        self.snd_una = a.ack;
        let is_dupack = !una_advanced && !a.has_data && !self.sb.is_empty();
        let mut delivered = acked.segments + sacked.segments;
        if !self.sack {
            // Linux `tcp_add_reno_sack` / `tcp_remove_reno_sacks`.
            if is_dupack {
                self.dupacks = (self.dupacks + 1).min(self.sb.len().saturating_sub(1));
                delivered += 1;
            } else if una_advanced && acked.segments > 0 {
                delivered = acked.segments.saturating_sub(self.dupacks).max(1);
                self.dupacks = self.dupacks.saturating_sub(acked.segments - 1);
            }
        }
        // RTT (Karn's rule; a SACKed original when the cumulative ACK gives none).
        let first = if acked.retrans { None } else { acked.first_sent_ns }.or(sacked.first_sent_ns);
        let mut cc_rtt = None;
        if let Some(sent) = first {
            let r = now_ns.saturating_sub(sent);
            self.rtt.sample(r);
            self.rack.note_rtt(r);
            self.rtt_samples_s.push(r as f64 / 1e9);
            cc_rtt = Some(r);
        }
        if self.opts.cubic_srtt && (una_advanced || !self.sb.is_empty()) {
            // ns-3 `ProcessAck` calls `PktsAcked` with `m_srtt` on every ACK of new data and
            // every duplicate ACK, with a sample or without.
            cc_rtt = self.rtt.srtt_ns();
        }
        if let Some(r) = cc_rtt {
            self.cc.on_rtt(&mut self.win, r, now_ns, self.snd_una, self.snd_nxt);
        }
        if self.opts.sack_dupacks_start_recovery {
            // ns-3 `ProcessAck`: with SACK an ACK is a duplicate when it SACKs new data; it is
            // counted outside Recovery and Loss (`DupAck`), and a cumulative ACK without new
            // SACK information resets the count.
            if sacked.segments > 0 {
                if self.state <= CaState::Disorder {
                    self.sack_dupacks += 1;
                }
            } else if una_advanced {
                self.sack_dupacks = 0;
            }
        }
        if una_advanced {
            // RFC 6298 §5.2–5.3.
            self.retransmits = 0;
            let partial = self.state == CaState::Recovery && self.snd_una < self.high_seq;
            if self.sb.is_empty() {
                self.rto_deadline = None;
                self.rack.reo_deadline = None;
            } else if !partial || self.opts.rearm_every_partial_ack || !self.partial_ack_seen {
                if !self.opts.backoff_until_sample {
                    self.rtt.restore();
                }
                self.arm_rto(now_ns)
            }
            if partial {
                self.partial_ack_seen = true;
                // ns-3 `ProcessAck`: unless the new head is being retransmitted already.
                let head_retransmitted = self.sb.get_mut(0).is_some_and(|s| s.retrans_out);
                self.force_one |= self.opts.partial_ack_retransmit && !head_retransmitted;
            }
        }
        let original = acked.original || sacked.original;
        let mut newly_lost = 0;
        match self.state {
            CaState::Loss => {
                if self.process_loss(una_advanced, original, sacked.segments > 0 || is_dupack) {
                    return;
                }
                if self.rack_enabled {
                    // Lost retransmissions (Linux `tcp_identify_packet_loss` in Loss).
                    self.mark_lost(now_ns);
                }
            }
            CaState::Recovery => {
                if self.snd_una >= self.high_seq {
                    // Linux `tcp_end_cwnd_reduction`.
                    self.win.cwnd = self.win.ssthresh;
                    self.state = CaState::Open;
                    self.dupacks = 0;
                    self.sack_dupacks = 0;
                } else if self.sack {
                    newly_lost = self.mark_lost(now_ns);
                } else if una_advanced {
                    // NewReno partial ACK (RFC 6582 §3.2 step 5).
                    newly_lost = self.sb.mark_head_lost();
                }
            }
            CaState::Open | CaState::Disorder => {
                if self.sack {
                    newly_lost = self.mark_lost(now_ns);
                }
                let recover = if self.sack { self.sb.next_lost().is_some() } else { self.dupacks >= DUP_THRESH };
                // ns-3 `DupAck`: the third duplicate ACK starts recovery once the last one is
                // over (RFC 6675 §5 step (1)), and `EnterRecovery` marks the oldest segment lost.
                let third_dupack = self.opts.sack_dupacks_start_recovery
                    && self.sack_dupacks == DUP_THRESH
                    && sacked.segments > 0
                    && self.snd_una >= self.high_seq;
                if recover || third_dupack {
                    self.enter_recovery();
                    if !self.sack || !recover {
                        newly_lost += self.sb.mark_head_lost();
                    }
                } else {
                    self.state =
                        if self.sb.any_sacked() || self.dupacks > 0 { CaState::Disorder } else { CaState::Open };
                }
            }
        }
        if self.state == CaState::Recovery {
            let in_flight = self.pipe();
            if let Some(cwnd) = self.prr.on_ack(self.win.ssthresh, in_flight, delivered, una_advanced, newly_lost > 0) {
                self.win.cwnd = cwnd;
            }
        } else if una_advanced {
            let limited = self.cwnd_limited
                || (self.win.in_slow_start()
                    && (self.opts.reno_slow_start_unlimited || self.win.cwnd < 2 * self.last_pipe.max(1)));
            self.cc.cong_avoid(&mut self.win, delivered, now_ns, limited);
        }
    }

    /// Marks lost segments after an ACK with SACK (Linux `tcp_identify_packet_loss`): RACK
    /// when enabled, else RFC 6675's `IsLost`. Returns how many it newly marked.
    fn mark_lost(&mut self, now_ns: u64) -> u32 {
        if self.rack_enabled {
            let srtt = self.rtt.srtt_ns().unwrap_or(0);
            self.rack.on_ack(&mut self.sb, now_ns, self.state >= CaState::Recovery, srtt).newly
        } else {
            self.sb.mark_lost()
        }
    }

    /// RACK's reordering timer fired (Linux `tcp_rack_reo_timeout`): what it finds lost starts
    /// fast recovery, with one PRR step for the losses.
    pub(crate) fn on_reo_timeout(&mut self, now_ns: u64) {
        self.rack.reo_deadline = None;
        if self.sb.is_empty() {
            return;
        }
        let srtt = self.rtt.srtt_ns().unwrap_or(0);
        let found = self.rack.on_timer(&mut self.sb, now_ns, self.state >= CaState::Recovery, srtt);
        if found.newly > 0 && self.state < CaState::Recovery {
            self.enter_recovery();
            let in_flight = self.pipe();
            if let Some(cwnd) = self.prr.on_ack(self.win.ssthresh, in_flight, 1, false, true) {
                self.win.cwnd = cwnd;
            }
        }
    }

    /// RFC 6675 §5 step 4 / Linux `tcp_enter_recovery`.
    fn enter_recovery(&mut self) {
        self.high_seq = self.snd_nxt;
        self.prior_ssthresh = self.current_ssthresh();
        self.prior_cwnd = self.win.cwnd;
        self.win.ssthresh = self.cc.ssthresh(&self.win);
        self.prr = Prr::start(self.win.cwnd);
        self.state = CaState::Recovery;
        self.partial_ack_seen = false;
    }

    /// Linux `tcp_process_loss` with F-RTO (RFC 5682 §3, SACK-enhanced as Linux applies it).
    /// Returns whether the ACK was fully handled (a spurious timeout undone).
    fn process_loss(&mut self, una_advanced: bool, original: bool, loss_signal: bool) -> bool {
        let recovered = self.snd_una >= self.high_seq;
        if self.frto {
            if original {
                // Step 3b: never-retransmitted data were (S)ACKed: the timeout was spurious.
                self.counters.spurious_rtos += 1;
                self.win.cwnd = self.win.cwnd.max(self.prior_cwnd);
                self.win.ssthresh = self.win.ssthresh.max(self.prior_ssthresh);
                self.sb.unmark_lost();
                self.state = CaState::Open;
                self.frto = false;
                return true;
            }
            if self.snd_nxt > self.high_seq {
                if loss_signal {
                    // Step 3a: the loss was real.
                    self.frto = false;
                }
            } else if una_advanced && !recovered {
                // Step 2b: send new data instead of retransmitting, if there are any.
                self.high_seq = self.snd_nxt;
                if self.app_end > self.snd_nxt && self.snd_nxt < self.snd_una + self.rwnd {
                    self.rexmit_new = true;
                    return false;
                }
                self.frto = false;
            }
        }
        if recovered {
            self.state = CaState::Open;
            self.dupacks = 0;
        }
        false
    }

    /// The retransmission timer expired (Linux `tcp_retransmit_timer` and `tcp_enter_loss`).
    pub(crate) fn on_rto(&mut self, now_ns: u64) {
        if self.sb.is_empty() {
            self.rto_deadline = None;
            return;
        }
        self.counters.timeouts += 1;
        self.expired_rto_s.push(self.rtt.rto_ns() as f64 / 1e9);
        let new_recovery = self.state < CaState::Recovery;
        if self.opts.ssthresh_every_timeout
            || new_recovery
            || self.high_seq <= self.snd_una
            || (self.state == CaState::Loss && self.retransmits == 0)
        {
            self.prior_ssthresh = self.current_ssthresh();
            self.prior_cwnd = self.win.cwnd;
            self.win.ssthresh = self.cc.ssthresh(&self.win);
        }
        self.sb.mark_all_lost();
        self.rack.reo_deadline = None;
        self.dupacks = 0;
        self.sack_dupacks = 0;
        self.win.cwnd = self.pipe() + 1;
        self.win.cwnd_cnt = 0;
        self.high_seq = self.snd_nxt;
        self.state = CaState::Loss;
        self.cc.on_loss_state();
        self.frto = self.frto_enabled && (new_recovery || self.retransmits > 0);
        self.rexmit_new = false;
        self.retransmits += 1;
        self.rtt.back_off();
        self.arm_rto(now_ns);
    }
}

#[cfg(test)]
mod tests {
    //! The ns-3 options against the arithmetic of RFC 6298 §2 (SRTT, RTTVAR, RTO) on a path
    //! where every segment of the initial window is sent at 0 and ACKs arrive when the test says.
    use super::*;

    const MS: u64 = 1_000_000;
    const MSS: u64 = 256;

    /// Segment `k` of the stream (data start at sequence number 1).
    fn seg(k: u64) -> (u64, u64) {
        (1 + k * MSS, 1 + (k + 1) * MSS)
    }

    /// A sender without RACK and F-RTO (loss marking by RFC 6675's DupThresh alone) with
    /// `segments` full segments to send, its initial window sent at 0.
    fn sender(kind: CongestionControl, segments: u64, set: impl FnOnce(&mut LinuxTcpConfig)) -> (Sender, Vec<Tx>) {
        let mut c = LinuxTcpConfig { rack: false, frto: false, ..LinuxTcpConfig::default() };
        set(&mut c);
        let mut s = Sender::new(&c, kind);
        s.established(0, 0);
        s.write(0, segments * MSS);
        let mut out = Vec::new();
        s.transmit(0, &mut out);
        (s, out)
    }

    /// An ACK at `now_ms` of everything below segment `next`, SACKing the segment ranges
    /// `[a, b)` of `sacked`; returns what the sender sends then.
    fn ack(s: &mut Sender, now_ms: u64, next: u64, sacked: &[(u64, u64)]) -> Vec<Tx> {
        let blocks: Vec<(u64, u64)> = sacked.iter().map(|&(a, b)| (seg(a).0, seg(b).0)).collect();
        s.on_ack(now_ms * MS, AckIn { ack: seg(next).0, sack: &blocks, rwnd: 65_535, has_data: false });
        let mut out = Vec::new();
        s.transmit(now_ms * MS, &mut out);
        out
    }

    fn starts(out: &[Tx]) -> Vec<u64> {
        out.iter().map(|t| t.start).collect()
    }

    /// Segment 1 lost: its ACK at 700 ms (RTT 700: SRTT 700, RTTVAR 350, RTO 700 + 4·350 =
    /// 2 100 ms, timer to 2 800 ms), then one ACK at 900 ms SACKing segments 2–4 (sent at 0:
    /// a 900-ms sample, RTTVAR (3·350 + |700 − 900|)/4 = 312.5, SRTT (7·700 + 900)/8 = 725,
    /// RTO 725 + 4·312.5 = 1 975 ms): three SACKed above segment 1, fast retransmit at 900.
    fn fast_retransmit(set: impl FnOnce(&mut LinuxTcpConfig)) -> Sender {
        let (mut s, _) = sender(CongestionControl::Reno, 12, set);
        ack(&mut s, 700, 1, &[]);
        assert_eq!((s.rtt.rto_ns(), s.rto_deadline), (2_100 * MS, Some(2_800 * MS)));
        let out = ack(&mut s, 900, 1, &[(2, 5)]);
        assert_eq!(s.rtt.rto_ns(), 1_975 * MS);
        assert_eq!(out.first(), Some(&Tx { start: seg(1).0, end: seg(1).1, retrans: true }));
        s
    }

    #[test]
    fn a_fast_retransmission_restarts_the_timer_only_as_linux_does() {
        // Linux: the head's retransmission at 900 ms re-arms: 900 + 1 975.
        assert_eq!(fast_retransmit(|_| {}).rto_deadline, Some(2_875 * MS));
        // ns-3: the timer of the 700-ms ACK keeps running: 700 + 2 100.
        let s = fast_retransmit(|c| c.rto_rearm_on_retransmit = false);
        assert_eq!(s.rto_deadline, Some(2_800 * MS));
    }

    /// Segments 1 and 5 lost, both retransmitted at 900 ms (SACK of 2–4 and 6–8, a 900-ms
    /// sample as above: RTO 1 975 ms); partial ACKs at 1 600 ms (of 1–4) and 1 700 ms (of 5–8),
    /// each covering only retransmitted or SACKed segments (Karn: no sample, RTO stays).
    fn two_partial_acks(set: impl FnOnce(&mut LinuxTcpConfig)) -> (Option<u64>, Option<u64>) {
        let (mut s, _) = sender(CongestionControl::Reno, 12, set);
        ack(&mut s, 700, 1, &[]);
        let out = ack(&mut s, 900, 1, &[(2, 5), (6, 9)]);
        assert_eq!(starts(&out), [seg(1).0, seg(5).0], "both holes retransmitted at 900 ms");
        assert_eq!(s.rtt.rto_ns(), 1_975 * MS);
        ack(&mut s, 1_600, 5, &[]);
        let first = s.rto_deadline;
        ack(&mut s, 1_700, 9, &[]);
        assert_eq!(s.state, CaState::Recovery, "segments 9–11 are still below the recovery point");
        (first, s.rto_deadline)
    }

    #[test]
    fn only_the_first_partial_ack_restarts_the_timer_in_rfc_6582s_impatient_variant() {
        // Every partial ACK (Linux): 1 600 + 1 975, then 1 700 + 1 975.
        assert_eq!(two_partial_acks(|_| {}), (Some(3_575 * MS), Some(3_675 * MS)));
        // The first only: the second leaves the 3 575-ms deadline.
        let ns3 = two_partial_acks(|c| c.rto_rearm_every_partial_ack = false);
        assert_eq!(ns3, (Some(3_575 * MS), Some(3_575 * MS)));
    }

    /// The 700-ms ACK (RTO 2 100 ms, timer to 2 800 ms), no further ACK: the timer expires at
    /// 2 800 ms and backs off to 4 200 ms; the ACK of the retransmitted segment 1 at 3 500 ms
    /// gives no sample (Karn). Returns the RTO and the deadline after it.
    fn timeout_then_ack(set: impl FnOnce(&mut LinuxTcpConfig)) -> (u64, Option<u64>) {
        let (mut s, _) = sender(CongestionControl::Reno, 12, set);
        ack(&mut s, 700, 1, &[]);
        s.on_rto(2_800 * MS);
        let mut out = Vec::new();
        s.transmit(2_800 * MS, &mut out);
        assert_eq!(starts(&out), [seg(1).0]);
        assert_eq!(s.rtt.rto_ns(), 4_200 * MS);
        ack(&mut s, 3_500, 2, &[]);
        (s.rtt.rto_ns(), s.rto_deadline)
    }

    #[test]
    fn the_backed_off_rto_stays_until_a_sample_unless_ns3s_new_ack_resets_it() {
        // Linux (Karn, RFC 6298 §5.7): 4 200 ms kept, timer to 3 500 + 4 200.
        assert_eq!(timeout_then_ack(|_| {}), (4_200 * MS, Some(7_700 * MS)));
        // ns-3: SRTT + 4·RTTVAR = 2 100 ms again, timer to 3 500 + 2 100.
        let ns3 = timeout_then_ack(|c| c.rto_backoff_until_sample = false);
        assert_eq!(ns3, (2_100 * MS, Some(5_600 * MS)));
    }

    /// Segments 1 and 5 lost, all 12 segments sent (10 at 0, 2 at 700 ms); at 900 ms a SACK
    /// of 2–4 and 6: segment 1 has four SACKed above it (lost), segment 5 one (not lost).
    fn one_marked_one_unmarked(set: impl FnOnce(&mut LinuxTcpConfig)) -> (Sender, Vec<Tx>) {
        let (mut s, _) = sender(CongestionControl::Reno, 12, set);
        ack(&mut s, 700, 1, &[]);
        let out = ack(&mut s, 900, 1, &[(2, 5), (6, 7)]);
        (s, out)
    }

    #[test]
    fn nextseg_rule_three_resends_the_unsacked_segment_below_the_highest_sack() {
        // PRR (RFC 6937): pipe = 11 out − 4 SACKed − 1 lost = 6 > ssthresh = 11/2 = 5, so
        // sndcnt = ⌈4 delivered · 5 / 11⌉ − 0 = 2 and cwnd = 6 + 2 = 8: room for two.
        let (_, linux) = one_marked_one_unmarked(|_| {});
        assert_eq!(starts(&linux), [seg(1).0], "rule 1 only: segment 5 is not lost");
        let (s, ns3) = one_marked_one_unmarked(|c| c.nextseg_rule3 = true);
        // Rule 1 gives segment 1, rule 3 segment 5 (unSACKed, below segment 6, not in flight
        // again); then pipe = 8 = cwnd.
        assert_eq!(starts(&ns3), [seg(1).0, seg(5).0]);
        assert_eq!((s.pipe(), s.win.cwnd), (8, 8));
    }

    #[test]
    fn a_partial_ack_with_sack_resends_the_new_head_when_the_option_keeps_newrenos_rule() {
        // The partial ACK at 1 600 ms covers segments 1–4: the first unacknowledged segment is
        // 5 (RFC 6582 §3.2 step 5), never marked lost (one SACKed segment above it).
        let (mut s, _) = one_marked_one_unmarked(|_| {});
        let linux = ack(&mut s, 1_600, 5, &[]);
        assert!(!starts(&linux).contains(&seg(5).0), "Linux waits: {linux:?}");
        let (mut s, _) = one_marked_one_unmarked(|c| c.partial_ack_retransmit = true);
        let ns3 = ack(&mut s, 1_600, 5, &[]);
        assert_eq!(ns3.first(), Some(&Tx { start: seg(5).0, end: seg(5).1, retrans: true }));
        // Once it is being retransmitted, the next partial ACK sends nothing for it again.
        assert!(s.sb.get_mut(0).is_some_and(|h| h.retrans_out));
    }

    #[test]
    fn renos_slow_start_grows_an_application_limited_window_only_without_the_cwnd_limited_check() {
        // Four segments written, cwnd 10: not cwnd-limited (Linux `tcp_is_cwnd_limited`:
        // 10 ≥ 2 · 4 in flight). Their ACK leaves cwnd at 10 on Linux; RFC 5681 §3.1 slow
        // start without the check adds the 4 acknowledged segments: 14.
        let grow = |kind, limited| {
            let (mut s, out) = sender(kind, 4, |c| c.reno_slow_start_cwnd_limited = limited);
            assert_eq!(out.len(), 4);
            ack(&mut s, 700, 4, &[]);
            s.win.cwnd
        };
        assert_eq!(grow(CongestionControl::Reno, true), 10);
        assert_eq!(grow(CongestionControl::Reno, false), 14);
        assert_eq!(grow(CongestionControl::Cubic, false), 10, "a Reno option: CUBIC keeps the check");
    }

    #[test]
    fn a_repeated_timeout_sets_ssthresh_again_only_with_ns3s_rule() {
        // Reno. The 700-ms ACK of segment 0 grows cwnd to 11 (slow start); the timer expires at
        // 2 800 ms: ssthresh = max(11/2, 2) = 5 (RFC 5681 eq. (4)), cwnd 1. It expires again at
        // 2 800 + 4 200 = 7 000 ms with no ACK between: Linux (`tcp_enter_loss`) keeps 5; ns-3
        // (`ReTxTimeout`) takes max(1/2, 2) = 2 from the one-segment window.
        let twice = |every| {
            let (mut s, _) = sender(CongestionControl::Reno, 12, |c| c.rto_ssthresh_every_timeout = every);
            ack(&mut s, 700, 1, &[]);
            assert_eq!(s.win.cwnd, 11);
            s.on_rto(2_800 * MS);
            assert_eq!((s.win.ssthresh, s.win.cwnd), (5, 1));
            let mut out = Vec::new();
            s.transmit(2_800 * MS, &mut out);
            assert_eq!(s.rto_deadline, Some(7_000 * MS));
            s.on_rto(7_000 * MS);
            s.win.ssthresh
        };
        assert_eq!(twice(false), 5);
        assert_eq!(twice(true), 2);
    }

    #[test]
    fn three_acks_with_new_sack_blocks_start_recovery_across_a_cumulative_ack_in_ns3s_count() {
        // Segment 0 ACKed at 700 ms (segments 10 and 11 go out). At 800 ms a SACK of segment 2
        // (duplicate 1); at 850 ms an ACK of 1–2 that also SACKs segment 4 (duplicate 2 for
        // ns-3: new SACK information, so the count is not reset); at 900 ms a SACK of 4–5
        // (duplicate 3). Only segments 4 and 5 are SACKed above segment 3, fewer than
        // DupThresh, so RFC 6675's IsLost does not mark it; ns-3's third duplicate ACK starts
        // recovery and retransmits it.
        let third = |ns3, advance_sacks: &[(u64, u64)]| {
            let (mut s, _) = sender(CongestionControl::Reno, 12, |c| c.sack_dupacks_start_recovery = ns3);
            ack(&mut s, 700, 1, &[]);
            ack(&mut s, 800, 1, &[(2, 3)]);
            ack(&mut s, 850, 3, advance_sacks);
            let out = ack(&mut s, 900, 3, &[(4, 6)]);
            (s.state, out.first().copied())
        };
        let (state, first) = third(true, &[(4, 5)]);
        assert_eq!(state, CaState::Recovery);
        assert_eq!(first, Some(Tx { start: seg(3).0, end: seg(3).1, retrans: true }));
        assert_eq!(third(false, &[(4, 5)]), (CaState::Disorder, None), "Linux without RACK waits");
        // A cumulative ACK without new SACK information resets the count: at 900 ms it is 1.
        assert_eq!(third(true, &[]).0, CaState::Disorder);
    }

    #[test]
    fn cubic_with_the_smoothed_rtt_takes_it_on_an_ack_without_a_sample_as_ns3_does() {
        // The 700-ms ACK gives SRTT 700 ms; the timeout at 2 800 ms clears CUBIC's minimum
        // delay (`bictcp_reset`, `CubicReset`); the ACK of the retransmitted segment 1 at
        // 3 500 ms has no sample (Karn). ns-3 passes `m_srtt` to `PktsAcked` on it: 700 ms.
        let delay_min = |srtt| {
            let (mut s, _) = sender(CongestionControl::Cubic, 12, |c| c.cubic_srtt = srtt);
            ack(&mut s, 700, 1, &[]);
            s.on_rto(2_800 * MS);
            let mut out = Vec::new();
            s.transmit(2_800 * MS, &mut out);
            ack(&mut s, 3_500, 2, &[]);
            match &s.cc {
                Cc::Cubic(c) => c.delay_min_ns(),
                Cc::Reno => unreachable!("a CUBIC sender"),
            }
        };
        assert_eq!(delay_min(false), 0);
        assert_eq!(delay_min(true), 700 * MS);
    }

    #[test]
    fn cubic_takes_the_smoothed_rtt_for_its_minimum_delay_when_asked() {
        // Samples 900 ms (segment 0), 1 000 ms (segments 1–9, sent at 0) and 700 ms (segments
        // 10–11, sent at 900 ms). SRTT: 900, (7·900 + 1 000)/8 = 912.5, (7·912.5 + 700)/8 =
        // 885.9375 ms. Linux's minimum is the smallest sample, 700 ms.
        let delay_min = |srtt| {
            let (mut s, _) = sender(CongestionControl::Cubic, 20, |c| c.cubic_srtt = srtt);
            let out = ack(&mut s, 900, 1, &[]);
            assert_eq!(starts(&out), [seg(10).0, seg(11).0]);
            ack(&mut s, 1_000, 10, &[]);
            ack(&mut s, 1_600, 12, &[]);
            match &s.cc {
                Cc::Cubic(c) => c.delay_min_ns(),
                Cc::Reno => unreachable!("a CUBIC sender"),
            }
        };
        assert_eq!(delay_min(false), 700 * MS);
        assert_eq!(delay_min(true), 885_937_500);
    }
}
