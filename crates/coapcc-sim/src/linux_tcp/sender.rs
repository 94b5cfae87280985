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
            iw: c.initial_window,
            app_end: 1,
            snd_una: 1,
            snd_nxt: 1,
            sb: Scoreboard::default(),
            win: Window::initial(c.initial_window),
            cc: Cc::new(kind, c.hystart),
            rtt: RttEstimator::new(c),
            state: CaState::Open,
            high_seq: 1,
            prr: Prr::default(),
            prior_cwnd: 0,
            prior_ssthresh: 0,
            frto: false,
            rexmit_new: false,
            dupacks: 0,
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
    }

    fn send_lost(&mut self, now_ns: u64, out: &mut Vec<Tx>) {
        loop {
            if self.pipe() >= self.win.cwnd {
                self.cwnd_limited = true;
                break;
            }
            let Some(i) = self.sb.next_lost() else { break };
            let Some(s) = self.sb.get_mut(i) else { break };
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
            if i == 0 {
                // Linux re-arms the timer when it retransmits the head.
                self.arm_rto(now_ns);
            }
            out.push(Tx { start, end, retrans: true });
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
            if pipe == 0 {
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
        if self.snd_nxt >= self.app_end {
            self.cwnd_limited = self.pipe() >= self.win.cwnd;
        }
        self.last_pipe = self.pipe();
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
        if let Some(sent) = first {
            let r = now_ns.saturating_sub(sent);
            self.rtt.sample(r);
            self.rack.note_rtt(r);
            self.rtt_samples_s.push(r as f64 / 1e9);
            self.cc.on_rtt(&mut self.win, r, now_ns, self.snd_una, self.snd_nxt);
        }
        if una_advanced {
            // RFC 6298 §5.2–5.3.
            self.retransmits = 0;
            if self.sb.is_empty() {
                self.rto_deadline = None;
                self.rack.reo_deadline = None;
            } else {
                self.arm_rto(now_ns)
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
                if recover {
                    self.enter_recovery();
                    if !self.sack {
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
            let limited = self.cwnd_limited || (self.win.in_slow_start() && self.win.cwnd < 2 * self.last_pipe.max(1));
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
        if new_recovery || self.high_seq <= self.snd_una || (self.state == CaState::Loss && self.retransmits == 0) {
            self.prior_ssthresh = self.current_ssthresh();
            self.prior_cwnd = self.win.cwnd;
            self.win.ssthresh = self.cc.ssthresh(&self.win);
        }
        self.sb.mark_all_lost();
        self.rack.reo_deadline = None;
        self.dupacks = 0;
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
