//! Proportional Rate Reduction (RFC 6937) as Linux applies it in fast recovery
//! (`tcp_cwnd_reduction`): while the pipe is above ssthresh, send ⌈ssthresh·prr_delivered /
//! RecoverFS⌉ − prr_out (RecoverFS = the window when recovery began, Linux `prior_cwnd`);
//! at or below ssthresh, the slow-start reduction bound (PRR-SSRB, one extra segment only
//! when the cumulative ACK advanced and nothing was newly lost, as Linux 6.x does); the
//! first ACK of recovery always allows the fast retransmit.

/// PRR's counters for one recovery episode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Prr {
    /// Segments delivered (cumulatively acknowledged or SACKed) since recovery began.
    pub(crate) delivered: u32,
    /// Segments sent since recovery began.
    pub(crate) out: u32,
    /// The window when recovery began (RecoverFS).
    pub(crate) prior_cwnd: u32,
}

impl Prr {
    /// Recovery begins with window `cwnd` (Linux `tcp_init_cwnd_reduction`).
    pub(crate) fn start(cwnd: u32) -> Self {
        Prr { delivered: 0, out: 0, prior_cwnd: cwnd.max(1) }
    }

    /// The window after an ACK that delivered `newly` segments with `in_flight` segments in
    /// the pipe (RFC 6937 §3, Linux `tcp_cwnd_reduction`); `una_advanced` when the
    /// cumulative ACK moved, `newly_lost` when the ACK marked segments lost. `None` when the
    /// ACK delivered nothing (the window stays).
    pub(crate) fn on_ack(
        &mut self,
        ssthresh: u32,
        in_flight: u32,
        newly: u32,
        una_advanced: bool,
        newly_lost: bool,
    ) -> Option<u32> {
        if newly == 0 {
            return None;
        }
        self.delivered = self.delivered.saturating_add(newly);
        let delta = i64::from(ssthresh) - i64::from(in_flight);
        let mut sndcnt = if delta < 0 {
            // Proportional part: ⌈ssthresh·prr_delivered / RecoverFS⌉ − prr_out.
            let dividend = u64::from(ssthresh) * u64::from(self.delivered) + u64::from(self.prior_cwnd) - 1;
            (dividend / u64::from(self.prior_cwnd)) as i64 - i64::from(self.out)
        } else {
            // Slow-start reduction bound.
            let mut s = (i64::from(self.delivered) - i64::from(self.out)).max(i64::from(newly));
            if una_advanced && !newly_lost {
                s += 1;
            }
            s.min(delta)
        };
        // Force the fast retransmit on entering recovery.
        sndcnt = sndcnt.max(if self.out > 0 { 0 } else { 1 });
        Some((i64::from(in_flight) + sndcnt.max(0)).clamp(1, i64::from(u32::MAX)) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_loss_in_a_window_of_twenty_sends_every_other_ack_then_holds_ssthresh() {
        // Textbook pattern (RFC 6937 §5 style): cwnd 20, segments 1–20 in flight, segment 1
        // lost, Reno ssthresh 10. ACKs 2, 3, 4, … each SACK one more segment; recovery
        // begins at the third (segment 4, RFC 6675 IsLost). Worked by hand: before sending
        // at ACK k the pipe is 20 − k + prr_out; while it exceeds 10 PRR allows
        // ⌈10·(k − 3)/20⌉ − prr_out = 1, 0, 1, 0, … (one segment per two ACKs); at ACK 16
        // the pipe is 10 (nothing); from ACK 17 it is 9 and SSRB sends one per ACK.
        let mut prr = Prr::start(20);
        let mut sent = Vec::new();
        for k in 4..=20u32 {
            let pipe = 20 - k + prr.out;
            let cwnd = prr.on_ack(10, pipe, 1, false, false).unwrap();
            let sndcnt = cwnd.saturating_sub(pipe);
            prr.out += sndcnt;
            sent.push(sndcnt);
        }
        assert_eq!(sent, [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1]);
        assert_eq!(prr.out, 10, "ten segments sent over the episode");
    }

    #[test]
    fn below_ssthresh_a_cumulative_ack_catches_up_by_one_more_segment() {
        // Pipe 4 of ssthresh 10 after heavy loss: prr_delivered 3, prr_out 1; an ACK that
        // delivers 2 and moves snd.una: max(3 + 2 − 1, 2) + 1 = 5, within ssthresh − pipe = 6.
        let mut prr = Prr { delivered: 3, out: 1, prior_cwnd: 20 };
        assert_eq!(prr.on_ack(10, 4, 2, true, false), Some(4 + 5));
        // Without the cumulative advance: 4.
        let mut prr = Prr { delivered: 3, out: 1, prior_cwnd: 20 };
        assert_eq!(prr.on_ack(10, 4, 2, false, false), Some(4 + 4));
        // An ACK that delivers nothing changes nothing.
        assert_eq!(prr.on_ack(10, 4, 0, false, false), None);
    }
}
