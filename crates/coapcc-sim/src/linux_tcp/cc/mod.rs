//! Congestion controls, counted in segments as Linux counts them (`snd_cwnd`,
//! `snd_ssthresh`, `snd_cwnd_cnt`): Reno (RFC 5681 §3.1, Linux `tcp_reno_*`) and CUBIC
//! (RFC 9438, Linux `tcp_cubic.c`, in `cubic`). Slow start grows the window by the segments
//! acknowledged (RFC 3465 with L = ∞, Linux `tcp_slow_start`); additive increase adds one
//! segment per `w` acknowledged (`tcp_cong_avoid_ai`). A window grows only while the sender
//! is limited by it (RFC 7661 §4.1 in spirit; Linux `tcp_is_cwnd_limited`).

mod cubic;

pub(crate) use cubic::Cubic;

use coapcc_driver::scenario::{CongestionControl, LinuxTcpConfig};

/// The window a congestion control moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Window {
    /// Congestion window, segments (≥ 1).
    pub(crate) cwnd: u32,
    /// Slow-start threshold, segments (`u32::MAX` until the first loss).
    pub(crate) ssthresh: u32,
    /// Segments acknowledged towards the next additive increase.
    pub(crate) cwnd_cnt: u32,
}

/// Linux's `TCP_INFINITE_SSTHRESH`: the threshold before any loss.
pub(crate) const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

impl Window {
    /// A window of `iw` segments before any loss.
    pub(crate) fn initial(iw: u32) -> Self {
        Window { cwnd: iw.max(1), ssthresh: INFINITE_SSTHRESH, cwnd_cnt: 0 }
    }

    /// Whether the window is below the threshold (Linux `tcp_in_slow_start`).
    pub(crate) fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Slow start by `acked` segments, not beyond ssthresh; returns the acknowledged segments
    /// left over for congestion avoidance (Linux `tcp_slow_start`).
    pub(crate) fn slow_start(&mut self, acked: u32) -> u32 {
        let cwnd = self.cwnd.saturating_add(acked).min(self.ssthresh);
        let used = cwnd - self.cwnd;
        self.cwnd = cwnd;
        acked - used
    }

    /// Additive increase: one segment per `w` acknowledged (Linux `tcp_cong_avoid_ai`).
    pub(crate) fn additive_increase(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd = self.cwnd.saturating_add(1);
        }
        self.cwnd_cnt = self.cwnd_cnt.saturating_add(acked);
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd = self.cwnd.saturating_add(delta);
        }
    }
}

/// One sender's congestion control and its state.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cc {
    /// Reno: halve on loss (RFC 5681 §3.1 (4)), one segment per window per RTT.
    Reno,
    /// CUBIC (RFC 9438) with its state.
    Cubic(Box<Cubic>),
}

impl Cc {
    /// A fresh congestion control of kind `kind`; `[tcp]`'s `hystart` and CUBIC options
    /// (`cubic_wmax_reset_on_timeout`, `cubic_rtt_discard_ms`, `cubic_one_increase_per_ack`)
    /// apply to CUBIC.
    pub(crate) fn new(kind: CongestionControl, c: &LinuxTcpConfig) -> Self {
        match kind {
            CongestionControl::Reno => Cc::Reno,
            CongestionControl::Cubic => {
                let mut cubic = Cubic::new(c.hystart);
                cubic.wmax_reset_on_timeout = c.cubic_wmax_reset_on_timeout;
                cubic.rtt_discard_ns = u64::try_from(c.cubic_rtt_discard.as_nanos()).unwrap_or(u64::MAX);
                cubic.one_increase_per_ack = c.cubic_one_increase_per_ack;
                Cc::Cubic(Box::new(cubic))
            }
        }
    }

    /// The slow-start threshold after a loss (Reno: max(cwnd/2, 2), RFC 5681 eq. (4) and
    /// Linux `tcp_reno_ssthresh`; CUBIC: RFC 9438 §4.6).
    pub(crate) fn ssthresh(&mut self, w: &Window) -> u32 {
        match self {
            Cc::Reno => (w.cwnd / 2).max(2),
            Cc::Cubic(c) => c.ssthresh(w.cwnd),
        }
    }

    /// Grows the window for `acked` newly delivered segments at `now_ns` (only when the
    /// sender is window-limited).
    pub(crate) fn cong_avoid(&mut self, w: &mut Window, acked: u32, now_ns: u64, cwnd_limited: bool) {
        if !cwnd_limited || acked == 0 {
            return;
        }
        match self {
            Cc::Cubic(c) if c.one_increase_per_ack => return c.one_increase_per_ack(w, acked, now_ns),
            _ => {}
        }
        let mut acked = acked;
        if w.in_slow_start() {
            acked = w.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        match self {
            Cc::Reno => {
                let cwnd = w.cwnd;
                w.additive_increase(cwnd, acked);
            }
            Cc::Cubic(c) => {
                let cnt = c.update(w.cwnd, acked, now_ns);
                w.additive_increase(cnt, acked);
            }
        }
    }

    /// An RTT sample of an ACK (CUBIC's `delay_min` and HyStart); `snd_una` and `snd_nxt`
    /// delimit HyStart's rounds.
    pub(crate) fn on_rtt(&mut self, w: &mut Window, rtt_ns: u64, now_ns: u64, snd_una: u64, snd_nxt: u64) {
        if let Cc::Cubic(c) = self {
            c.on_rtt(w, rtt_ns, now_ns, snd_una, snd_nxt);
        }
    }

    /// The sender entered the Loss state (an RTO): CUBIC forgets its epoch and W_max (Linux
    /// `cubictcp_state` → `bictcp_reset`; W_max kept without `cubic_wmax_reset_on_timeout`).
    pub(crate) fn on_loss_state(&mut self) {
        if let Cc::Cubic(c) = self {
            c.reset();
        }
    }

    /// Transmission resumed after `idle_ns` with nothing in flight (Linux `CA_EVENT_TX_START`):
    /// CUBIC shifts its epoch so the idle time does not count as growth time.
    pub(crate) fn on_tx_start(&mut self, idle_ns: u64, now_ns: u64) {
        if let Cc::Cubic(c) = self {
            c.shift_epoch(idle_ns, now_ns);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_stops_at_ssthresh_and_hands_back_the_rest() {
        let mut w = Window { cwnd: 10, ssthresh: 12, cwnd_cnt: 0 };
        assert_eq!(w.slow_start(5), 3);
        assert_eq!(w.cwnd, 12);
    }

    #[test]
    fn reno_halves_and_then_adds_one_segment_per_window() {
        let mut cc = Cc::new(CongestionControl::Reno, &LinuxTcpConfig::default());
        let mut w = Window { cwnd: 20, ssthresh: INFINITE_SSTHRESH, cwnd_cnt: 0 };
        w.ssthresh = cc.ssthresh(&w);
        w.cwnd = w.ssthresh;
        assert_eq!(w.cwnd, 10);
        // Ten ACKs of one segment each: exactly one more segment (RFC 5681 eq. (3)).
        for _ in 0..10 {
            cc.cong_avoid(&mut w, 1, 0, true);
        }
        assert_eq!(w.cwnd, 11);
        // Not window-limited: no growth.
        for _ in 0..50 {
            cc.cong_avoid(&mut w, 1, 0, false);
        }
        assert_eq!(w.cwnd, 11);
        // ssthresh is at least two segments.
        assert_eq!(cc.ssthresh(&Window { cwnd: 3, ssthresh: 0, cwnd_cnt: 0 }), 2);
    }
}
