//! RACK, time-based loss detection (RFC 8985 §6, Linux `tcp_recovery.c`, on by default since
//! Linux 4.18 through `tcp_recovery` = 1): the sender remembers the most recently sent segment
//! that was delivered (`RACK.xmit_ts`, `RACK.end_seq`) and the RTT of the latest delivery
//! (`RACK.rtt`); a segment sent before it and still undelivered is lost once `RACK.rtt` plus
//! the reordering window has passed since it was sent, a retransmission included (a lost
//! retransmission is found without the timer). With SACK, Linux marks losses this way only
//! (`tcp_identify_packet_loss`), not by DupThresh.
//!
//! The reordering window (Linux `tcp_rack_reo_wnd`, RFC 8985 §6.2 step 4): zero in recovery
//! or once DupThresh segments are SACKed, else min(min_RTT / 4, SRTT), waited out by the
//! reordering timer. The links deliver in order, so no reordering is ever observed and the
//! window never grows with DSACKs (which the model does not send).

use super::scoreboard::{DUP_THRESH, Scoreboard, Seg};

/// Linux `TCP_TIMEOUT_MIN_US`: added to the reordering timer.
pub(crate) const TCP_TIMEOUT_MIN_NS: u64 = 2_000_000;

/// One sender's RACK state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Rack {
    /// `RACK.xmit_ts`: when the most recently sent delivered segment was sent, ns.
    xmit_ns: u64,
    /// `RACK.end_seq`: the end of that segment.
    end_seq: u64,
    /// `RACK.rtt`: the RTT of the latest delivery that counted, ns.
    rtt_ns: u64,
    /// A delivery moved the state since the last scan (Linux `rack.advanced`).
    advanced: bool,
    /// The smallest RTT sample (Linux `tcp_min_rtt`, whose 300 s window outlasts a transfer).
    min_rtt_ns: Option<u64>,
    /// When the reordering timer fires, if armed (Linux `ICSK_TIME_REO_TIMEOUT`).
    pub(crate) reo_deadline: Option<u64>,
}

/// What one scan found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RackLoss {
    /// Segments newly marked lost.
    pub(crate) newly: u32,
    /// Of them, retransmissions that were in flight (Linux `FLAG_LOST_RETRANS`).
    pub(crate) retransmissions: u32,
}

impl Rack {
    /// An RTT sample of the estimator (for min_RTT).
    pub(crate) fn note_rtt(&mut self, rtt_ns: u64) {
        self.min_rtt_ns = Some(self.min_rtt_ns.map_or(rtt_ns, |m| m.min(rtt_ns)));
    }

    /// `seg` was newly SACKed or cumulatively acknowledged at `now_ns` (RFC 8985 §6.2 step 2,
    /// Linux `tcp_rack_advance`): a retransmission acknowledged sooner than min_RTT after it
    /// was sent may be the original's delivery and does not count.
    pub(crate) fn delivered(&mut self, now_ns: u64, seg: &Seg) {
        let rtt = now_ns.saturating_sub(seg.sent_ns);
        if seg.ever_retrans && self.min_rtt_ns.is_some_and(|m| rtt < m) {
            return;
        }
        self.advanced = true;
        self.rtt_ns = rtt;
        if sent_after(seg.sent_ns, seg.end, self.xmit_ns, self.end_seq) {
            self.xmit_ns = seg.sent_ns;
            self.end_seq = seg.end;
        }
    }

    /// The reordering window (Linux `tcp_rack_reo_wnd`).
    fn reo_wnd_ns(&self, recovering: bool, sacked: u32, srtt_ns: u64) -> u64 {
        if recovering || sacked >= DUP_THRESH { 0 } else { (self.min_rtt_ns.unwrap_or(0) / 4).min(srtt_ns) }
    }

    /// After an ACK (Linux `tcp_rack_mark_lost`): scans when a delivery advanced the state,
    /// marks what is lost and arms the reordering timer for the rest (or disarms it).
    pub(crate) fn on_ack(&mut self, sb: &mut Scoreboard, now_ns: u64, recovering: bool, srtt_ns: u64) -> RackLoss {
        if !std::mem::take(&mut self.advanced) {
            return RackLoss::default();
        }
        self.scan(sb, now_ns, recovering, srtt_ns)
    }

    /// The reordering timer fired (Linux `tcp_rack_reo_timeout`): scans again.
    pub(crate) fn on_timer(&mut self, sb: &mut Scoreboard, now_ns: u64, recovering: bool, srtt_ns: u64) -> RackLoss {
        self.scan(sb, now_ns, recovering, srtt_ns)
    }

    /// Linux `tcp_rack_detect_loss` (RFC 8985 §6.2 step 5).
    fn scan(&mut self, sb: &mut Scoreboard, now_ns: u64, recovering: bool, srtt_ns: u64) -> RackLoss {
        let reo_wnd = self.reo_wnd_ns(recovering, sb.sacked(), srtt_ns);
        let (xmit, end, rtt) = (self.xmit_ns, self.end_seq, self.rtt_ns);
        let mut found = RackLoss::default();
        let mut wait_ns = 0u64;
        for s in sb.iter_mut() {
            // Delivered, or marked lost and not yet retransmitted: nothing to find.
            if s.sacked || (s.lost && !s.retrans_out) || !sent_after(xmit, end, s.sent_ns, s.end) {
                continue;
            }
            let deadline = s.sent_ns.saturating_add(rtt).saturating_add(reo_wnd);
            if deadline <= now_ns {
                s.lost = true;
                found.newly += 1;
                if std::mem::take(&mut s.retrans_out) {
                    found.retransmissions += 1;
                }
            } else {
                wait_ns = wait_ns.max(deadline - now_ns);
            }
        }
        self.reo_deadline = (wait_ns > 0).then(|| now_ns + wait_ns + TCP_TIMEOUT_MIN_NS);
        found
    }
}

/// RFC 8985 `RACK_sent_after`: the copy sent at `t1` ending at `seq1` left after the one sent
/// at `t2` ending at `seq2` (the sequence breaks ties of equal times).
fn sent_after(t1: u64, seq1: u64, t2: u64, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// Four segments of 100 bytes sent 10 ms apart from t = 0.
    fn board() -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..4u64 {
            b.push(1 + i * 100, 101 + i * 100, i * 10 * MS);
        }
        b
    }

    fn deliver(rack: &mut Rack, b: &mut Scoreboard, blocks: &[(u64, u64)], now_ns: u64) {
        b.sack(blocks, &mut |s| rack.delivered(now_ns, s));
    }

    #[test]
    fn in_recovery_a_hole_below_a_later_sacked_segment_is_lost_at_once_without_dupthresh() {
        // Only ONE segment above the hole is SACKed: RFC 6675's IsLost needs three.
        let (mut rack, mut b) = (Rack::default(), board());
        rack.note_rtt(600 * MS);
        deliver(&mut rack, &mut b, &[(301, 401)], 630 * MS);
        let found = rack.on_ack(&mut b, 630 * MS, true, 600 * MS);
        // Segments 0..2 were sent before segment 3 (at 30 ms): RACK.rtt = 600 ms and
        // reo_wnd = 0, so each is lost at its send time + 600 ms ≤ 630 ms.
        assert_eq!(found, RackLoss { newly: 3, retransmissions: 0 });
        assert_eq!(b.next_lost(), Some(0));
        assert_eq!(rack.reo_deadline, None);
    }

    #[test]
    fn outside_recovery_a_quarter_of_min_rtt_is_waited_out_by_the_reordering_timer() {
        let (mut rack, mut b) = (Rack::default(), board());
        rack.note_rtt(400 * MS);
        deliver(&mut rack, &mut b, &[(301, 401)], 430 * MS);
        // One SACKed segment (< DupThresh), not recovering: reo_wnd = min(400/4, SRTT) = 100 ms.
        // Segment 0 is due at 0 + 400 + 100 = 500 ms, segment 2 at 20 + 400 + 100 = 520 ms.
        let found = rack.on_ack(&mut b, 430 * MS, false, 450 * MS);
        assert_eq!(found.newly, 0);
        assert_eq!(rack.reo_deadline, Some(430 * MS + 90 * MS + TCP_TIMEOUT_MIN_NS));
        let found = rack.on_timer(&mut b, 522 * MS, false, 450 * MS);
        assert_eq!(found.newly, 3);
    }

    #[test]
    fn a_retransmission_sent_before_a_delivered_segment_is_found_lost() {
        let (mut rack, mut b) = (Rack::default(), board());
        rack.note_rtt(400 * MS);
        // Segment 0 retransmitted at 50 ms; segment 3 re-sent (say, after a timeout) at 60 ms.
        for (i, t) in [(0, 50 * MS), (3, 60 * MS)] {
            let s = b.get_mut(i).unwrap();
            (s.retrans_out, s.ever_retrans, s.sent_ns) = (true, true, t);
        }
        deliver(&mut rack, &mut b, &[(301, 401)], 470 * MS);
        let found = rack.on_ack(&mut b, 470 * MS, true, 400 * MS);
        assert_eq!(found.retransmissions, 1);
        assert!(b.get_mut(0).is_some_and(|s| s.lost && !s.retrans_out));
    }

    #[test]
    fn a_retransmission_acknowledged_sooner_than_min_rtt_does_not_move_rack() {
        let (mut rack, mut b) = (Rack::default(), board());
        rack.note_rtt(400 * MS);
        let s = b.get_mut(3).unwrap();
        (s.ever_retrans, s.sent_ns) = (true, 500 * MS);
        // Delivered 100 ms after the retransmission: the original's delivery, ambiguous.
        deliver(&mut rack, &mut b, &[(301, 401)], 600 * MS);
        assert_eq!(rack.on_ack(&mut b, 600 * MS, true, 400 * MS), RackLoss::default());
    }
}
