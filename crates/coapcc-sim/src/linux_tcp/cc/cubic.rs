//! CUBIC (RFC 9438) as Linux's `tcp_cubic.c` applies it, in segments: the window follows
//! W_cubic(t) = C·(t − K)³ + W_max (§4.2, eq. 1) with K = ∛((W_max − cwnd_epoch)/C) (§4.2,
//! eq. 2), aiming each ACK at W_cubic(t + RTT) where Linux adds its minimum RTT (§4.4); the
//! Reno-friendly estimate W_est grows by α_cubic = 3(1 − β)/(1 + β) per window (§4.3, Linux
//! `tcp_friendliness`); on a loss ssthresh = β·cwnd with β = 717/1024 (§4.6, Linux
//! `beta`) and W_max shrinks further when the window is below the previous W_max (fast
//! convergence, §4.7). C = 0.4 (Linux `bic_scale` 41 = 0.4·1024/10). HyStart ends slow start
//! when the RTT of a round's first eight ACKs rises by clamp(minRTT/8, 4 ms, 16 ms) above the
//! minimum (Linux `hystart_update`, delay detection; the ACK-train detector is not modelled).

use super::Window;

/// RFC 9438 §5: C = 0.4.
pub(crate) const C: f64 = 0.4;
/// β_cubic as Linux holds it: 717/1024 ≈ 0.7 (RFC 9438 §4.6).
pub(crate) const BETA_SCALED: u64 = 717;
/// Linux `BICTCP_BETA_SCALE`.
pub(crate) const BETA_SCALE: u64 = 1024;
/// Linux `HYSTART_MIN_SAMPLES`.
const HYSTART_MIN_SAMPLES: u32 = 8;
/// Linux `hystart_low_window`: HyStart acts from 16 segments on.
const HYSTART_LOW_WINDOW: u32 = 16;
/// Linux `HYSTART_DELAY_MIN` and `HYSTART_DELAY_MAX`.
const HYSTART_DELAY_NS: (u64, u64) = (4_000_000, 16_000_000);

const NS: f64 = 1e9;
/// Linux `cubictcp_acked`: RTT samples within `HZ` (one second) of an epoch's start are ignored.
const RTT_DISCARD_LINUX_NS: u64 = 1_000_000_000;

/// CUBIC's state (Linux `struct bictcp`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Cubic {
    hystart: bool,
    /// A timeout clears W_max (Linux); off, it survives (ns-3 `TcpCubic::CubicReset`).
    pub(crate) wmax_reset_on_timeout: bool,
    /// RTT samples this soon after an epoch's start are ignored, ns (Linux one second; ns-3
    /// `CubicDelta`, 10 ms).
    pub(crate) rtt_discard_ns: u64,
    /// ns-3's `TcpCubic::IncreaseWindow` instead of Linux's growth (`Cc::cong_avoid`).
    pub(crate) one_increase_per_ack: bool,
    /// ns-3's `m_cWndCnt`: segments acknowledged towards the next one-segment increase, with
    /// `one_increase_per_ack` (never cleared).
    cwnd_cnt: u32,
    /// W_max, segments (0: none yet).
    last_max_cwnd: u32,
    /// Start of the current epoch, ns (None: no epoch).
    epoch_start: Option<u64>,
    /// The plateau W_cubic is centred on, segments.
    origin: f64,
    /// K, seconds.
    k_s: f64,
    /// Segments acknowledged in this epoch not yet turned into W_est growth.
    ack_cnt: u32,
    /// W_est, segments.
    w_est: u32,
    /// Minimum RTT seen, ns (0: none).
    delay_min_ns: u64,
    /// HyStart: found the exit point.
    found: bool,
    /// HyStart round: ends when `snd_una` passes this.
    end_seq: u64,
    curr_rtt_ns: u64,
    sample_cnt: u32,
}

impl Cubic {
    pub(crate) fn new(hystart: bool) -> Self {
        Cubic {
            hystart,
            wmax_reset_on_timeout: true,
            rtt_discard_ns: RTT_DISCARD_LINUX_NS,
            one_increase_per_ack: false,
            cwnd_cnt: 0,
            last_max_cwnd: 0,
            epoch_start: None,
            origin: 0.0,
            k_s: 0.0,
            ack_cnt: 0,
            w_est: 0,
            delay_min_ns: 0,
            found: false,
            end_seq: 0,
            curr_rtt_ns: u64::MAX,
            sample_cnt: 0,
        }
    }

    /// Linux `bictcp_reset` (entering the Loss state): the epoch, W_max and the minimum RTT
    /// are forgotten and HyStart may act again. Without `wmax_reset_on_timeout` W_max is kept
    /// (ns-3 `TcpCubic::CubicReset` clears the rest but not `m_lastMaxCwnd`). The options and
    /// ns-3's increase count (`m_cWndCnt`, which `CubicReset` leaves alone) are kept.
    pub(crate) fn reset(&mut self) {
        let last_max_cwnd = if self.wmax_reset_on_timeout { 0 } else { self.last_max_cwnd };
        *self = Cubic {
            end_seq: self.end_seq,
            last_max_cwnd,
            wmax_reset_on_timeout: self.wmax_reset_on_timeout,
            rtt_discard_ns: self.rtt_discard_ns,
            one_increase_per_ack: self.one_increase_per_ack,
            cwnd_cnt: self.cwnd_cnt,
            ..Cubic::new(self.hystart)
        };
    }

    /// RFC 9438 §4.6 and §4.7 (Linux `cubictcp_recalc_ssthresh`).
    pub(crate) fn ssthresh(&mut self, cwnd: u32) -> u32 {
        self.epoch_start = None;
        let c = u64::from(cwnd);
        self.last_max_cwnd = if cwnd < self.last_max_cwnd {
            // Fast convergence: W_max = cwnd·(1 + β)/2.
            (c * (BETA_SCALE + BETA_SCALED) / (2 * BETA_SCALE)) as u32
        } else {
            cwnd
        };
        ((c * BETA_SCALED / BETA_SCALE) as u32).max(2)
    }

    /// W_cubic(t) of the current epoch, segments (RFC 9438 eq. 1), `t_s` seconds into it.
    pub(crate) fn w_cubic(&self, t_s: f64) -> f64 {
        let d = t_s - self.k_s;
        C * d * d * d + self.origin
    }

    /// K of the current epoch, seconds.
    #[cfg(test)]
    pub(crate) fn k_s(&self) -> f64 {
        self.k_s
    }

    /// ACKs per one-segment increase for the next `acked` segments (Linux `bictcp_update`):
    /// the cubic target at t + minRTT, bounded by the Reno-friendly W_est.
    pub(crate) fn update(&mut self, cwnd: u32, acked: u32, now_ns: u64) -> u32 {
        self.ack_cnt = self.ack_cnt.saturating_add(acked);
        let start = match self.epoch_start {
            Some(s) => s,
            None => {
                self.epoch_start = Some(now_ns);
                self.ack_cnt = acked;
                self.w_est = cwnd;
                if self.last_max_cwnd <= cwnd {
                    self.k_s = 0.0;
                    self.origin = f64::from(cwnd);
                } else {
                    self.k_s = (f64::from(self.last_max_cwnd - cwnd) / C).cbrt();
                    self.origin = f64::from(self.last_max_cwnd);
                }
                now_ns
            }
        };
        let t_s = (now_ns.saturating_sub(start) + self.delay_min_ns) as f64 / NS;
        let target = self.w_cubic(t_s);
        let cw = f64::from(cwnd);
        let mut cnt = if target > cw { (cw / (target - cw)).floor().max(1.0) as u32 } else { 100 * cwnd.max(1) };
        // Linux: the first growth without any W_max is at least one segment per 20 ACKs.
        if self.last_max_cwnd == 0 && cnt > 20 {
            cnt = 20;
        }
        // Reno-friendly region (RFC 9438 §4.3): W_est gains one segment per cwnd·8/15 ACKs,
        // Linux's integer form of 1/α_cubic with β = 717/1024 (`beta_scale` = 15).
        let delta = (u64::from(cwnd) * 15 / 8).max(1) as u32;
        while self.ack_cnt > delta {
            self.ack_cnt -= delta;
            self.w_est = self.w_est.saturating_add(1);
        }
        if self.w_est > cwnd {
            let max_cnt = cwnd / (self.w_est - cwnd);
            cnt = cnt.min(max_cnt);
        }
        cnt.max(2)
    }

    /// ns-3's `TcpCubic::IncreaseWindow` for `acked` segments (with `one_increase_per_ack`): in
    /// slow start the window grows by every acknowledged segment, even beyond ssthresh, and
    /// nothing is left for congestion avoidance; in congestion avoidance the count of
    /// acknowledged segments grows by `acked` and, once it reaches `cnt` (`Update`), the window
    /// by one segment and the count loses `cnt`.
    pub(crate) fn one_increase_per_ack(&mut self, w: &mut Window, acked: u32, now_ns: u64) {
        if w.in_slow_start() {
            w.cwnd = w.cwnd.saturating_add(acked);
            return;
        }
        self.cwnd_cnt = self.cwnd_cnt.saturating_add(acked);
        let cnt = self.update(w.cwnd, acked, now_ns);
        if self.cwnd_cnt >= cnt {
            w.cwnd = w.cwnd.saturating_add(1);
            self.cwnd_cnt -= cnt;
        }
    }

    /// Linux `cubictcp_acked` and `hystart_update` (delay detection).
    pub(crate) fn on_rtt(&mut self, w: &mut Window, rtt_ns: u64, now_ns: u64, snd_una: u64, snd_nxt: u64) {
        // Discard samples right after the start of an epoch (after recovery): within a second
        // on Linux, `rtt_discard_ns`.
        if self.epoch_start.is_some_and(|s| now_ns.saturating_sub(s) < self.rtt_discard_ns) {
            return;
        }
        let delay = rtt_ns.max(1);
        if self.delay_min_ns == 0 || self.delay_min_ns > delay {
            self.delay_min_ns = delay;
        }
        if !(self.hystart && !self.found && w.in_slow_start() && w.cwnd >= HYSTART_LOW_WINDOW) {
            return;
        }
        if snd_una > self.end_seq {
            // A new round (Linux `bictcp_hystart_reset`).
            self.end_seq = snd_nxt;
            self.curr_rtt_ns = u64::MAX;
            self.sample_cnt = 0;
        }
        self.curr_rtt_ns = self.curr_rtt_ns.min(delay);
        if self.sample_cnt < HYSTART_MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = (self.delay_min_ns >> 3).clamp(HYSTART_DELAY_NS.0, HYSTART_DELAY_NS.1);
            if self.curr_rtt_ns > self.delay_min_ns + thresh {
                self.found = true;
                w.ssthresh = w.cwnd;
            }
        }
    }

    /// The minimum delay seen, ns (0: none).
    #[cfg(test)]
    pub(crate) fn delay_min_ns(&self) -> u64 {
        self.delay_min_ns
    }

    /// Linux `cubictcp_cwnd_event(CA_EVENT_TX_START)`: shift the epoch by the idle time.
    pub(crate) fn shift_epoch(&mut self, idle_ns: u64, now_ns: u64) {
        if let Some(s) = self.epoch_start {
            self.epoch_start = Some(s.saturating_add(idle_ns).min(now_ns));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Cc, INFINITE_SSTHRESH, Window};
    use super::*;

    #[test]
    fn a_loss_at_one_hundred_segments_gives_rfc_9438s_threshold_and_k() {
        let mut c = Cubic::new(false);
        // β·cwnd = 100·717/1024 = 70.02 → 70 (RFC 9438 §4.6: ssthresh = cwnd·β).
        assert_eq!(c.ssthresh(100), 70);
        // New epoch at cwnd 70 with W_max 100: K = ∛((100 − 70)/0.4) = ∛75 = 4.2172 s (eq. 2).
        c.update(70, 1, 0);
        assert!((c.k_s() - 75f64.cbrt()).abs() < 1e-12);
        assert!((c.k_s() - 4.217_163).abs() < 1e-6);
        // W_cubic(0) = 0.4·(−K)³ + 100 = 100 − 30 = 70; W_cubic(K) = W_max; W_cubic(K + 2) =
        // 100 + 0.4·8 = 103.2 (eq. 1).
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9);
        assert!((c.w_cubic(c.k_s()) - 100.0).abs() < 1e-12);
        assert!((c.w_cubic(c.k_s() + 2.0) - 103.2).abs() < 1e-9);
    }

    #[test]
    fn a_timeout_clears_w_max_on_linux_and_keeps_it_when_ns3s_option_is_set() {
        // A loss at 100 segments: W_max = 100 (RFC 9438 §4.6, no fast convergence the first
        // time). After the timeout's reset, the next epoch at cwnd 10 has K = 0 and its origin
        // at cwnd when W_max is gone (Linux), else K = ∛((100 − 10)/0.4) = ∛225 s, about
        // 6.082 s, centred on 100 (RFC 9438 §4.2).
        let k_after_timeout = |reset| {
            let mut c = Cubic::new(false);
            c.wmax_reset_on_timeout = reset;
            c.ssthresh(100);
            assert_eq!(c.last_max_cwnd, 100);
            c.reset();
            c.update(10, 1, 0);
            (c.last_max_cwnd, c.k_s, c.origin)
        };
        assert_eq!(k_after_timeout(true), (0, 0.0, 10.0));
        let (w_max, k_s, origin) = k_after_timeout(false);
        assert_eq!((w_max, origin), (100, 100.0));
        assert!((k_s - 225f64.cbrt()).abs() < 1e-9 && (k_s - 6.0822).abs() < 1e-4, "K = {k_s}");
    }

    #[test]
    fn samples_after_an_epochs_start_count_after_ten_ms_in_ns3_and_after_a_second_on_linux() {
        // An epoch starts at 0 (the first congestion-avoidance ACK after a loss); RTT samples
        // of 600 ms at 5 ms and 50 ms. Linux (`cubictcp_acked`) ignores both (within HZ = 1 s);
        // ns-3 (`TcpCubic::PktsAcked`, `CubicDelta` = 10 ms) ignores the first only.
        let delay_min = |discard_ns| {
            let mut c = Cubic::new(false);
            c.rtt_discard_ns = discard_ns;
            let mut w = Window { cwnd: 70, ssthresh: 70, cwnd_cnt: 0 };
            c.ssthresh(100);
            c.update(70, 1, 0);
            c.on_rtt(&mut w, 600_000_000, 5_000_000, 0, 0);
            let early = c.delay_min_ns();
            c.on_rtt(&mut w, 600_000_000, 50_000_000, 0, 0);
            (early, c.delay_min_ns())
        };
        assert_eq!(delay_min(RTT_DISCARD_LINUX_NS), (0, 0));
        assert_eq!(delay_min(10_000_000), (0, 600_000_000));
        // A sample a second after the epoch's start counts on Linux too.
        let mut c = Cubic::new(false);
        c.update(70, 1, 0);
        c.on_rtt(&mut Window { cwnd: 70, ssthresh: 70, cwnd_cnt: 0 }, 600_000_000, 1_000_000_000, 0, 0);
        assert_eq!(c.delay_min_ns(), 600_000_000);
    }

    #[test]
    fn ns3s_increase_adds_one_segment_per_ack_and_carries_the_remainder_of_its_count() {
        // After a loss at 100 segments (W_max 100, ssthresh 70) the epoch starts at 0 with one
        // ACK: W_cubic(0 + minRTT 0) = 70 ≤ cwnd, so cnt = 100·70 (Linux `bictcp_update`, ns-3
        // `Update`) and the count is 1. At 20 s, W_cubic = 100 + 0.4·(20 − ∛75)³ ≈ 1 673 ≫ 70:
        // cnt = max(⌊70/1 603⌋, 2) = 2. One ACK of 8 segments then.
        let grow = |ns3: bool| {
            let mut c = Cubic::new(false);
            c.one_increase_per_ack = ns3;
            let mut cc = Cc::Cubic(Box::new(c));
            let mut w = Window { cwnd: 100, ssthresh: INFINITE_SSTHRESH, cwnd_cnt: 0 };
            w.ssthresh = cc.ssthresh(&w);
            w.cwnd = w.ssthresh;
            cc.cong_avoid(&mut w, 1, 0, true);
            assert_eq!(w.cwnd, 70);
            cc.cong_avoid(&mut w, 8, 20_000_000_000, true);
            let after_eight = w.cwnd;
            cc.cong_avoid(&mut w, 1, 20_000_000_000, true);
            let Cc::Cubic(c) = &mut cc else { unreachable!() };
            let count = if ns3 { c.cwnd_cnt } else { w.cwnd_cnt };
            // ns-3's count survives a timeout (`CubicReset` leaves `m_cWndCnt` alone).
            c.reset();
            assert_eq!(c.cwnd_cnt, if ns3 { count } else { 0 });
            (after_eight, w.cwnd, count)
        };
        // Linux `tcp_cong_avoid_ai`: count 1 + 8 = 9 → ⌊9/2⌋ = 4 segments, 1 left; the next
        // ACK makes 2: one more, 0 left.
        assert_eq!(grow(false), (74, 75, 0));
        // ns-3: count 9 ≥ 2 → one segment, 9 − 2 = 7 left; the next ACK: 8 → one, 6 left.
        assert_eq!(grow(true), (71, 72, 6));
    }

    #[test]
    fn ns3s_slow_start_adds_every_acknowledged_segment_past_ssthresh() {
        // cwnd 9, ssthresh 10, an ACK of two segments. Linux `tcp_slow_start`: cwnd 10 and
        // the second segment goes to congestion avoidance (the epoch starts). ns-3
        // `TcpCubic::IncreaseWindow`: cwnd 9 + 2 = 11, nothing left, no epoch.
        for (ns3, cwnd, epoch) in [(false, 10, true), (true, 11, false)] {
            let mut c = Cubic::new(false);
            c.one_increase_per_ack = ns3;
            let mut cc = Cc::Cubic(Box::new(c));
            let mut w = Window { cwnd: 9, ssthresh: 10, cwnd_cnt: 0 };
            cc.cong_avoid(&mut w, 2, 0, true);
            let Cc::Cubic(c) = &cc else { unreachable!() };
            assert_eq!((w.cwnd, c.epoch_start.is_some()), (cwnd, epoch), "ns-3's rule: {ns3}");
        }
    }

    #[test]
    fn fast_convergence_lowers_w_max_below_the_previous_plateau() {
        let mut c = Cubic::new(false);
        c.ssthresh(100);
        // A second loss at 80 < W_max 100: W_max = 80·(1024 + 717)/2048 = 68 (RFC 9438 §4.7).
        assert_eq!(c.ssthresh(80), 56);
        assert_eq!(c.last_max_cwnd, 68);
    }

    #[test]
    fn the_window_follows_w_cubic_over_time() {
        // After a loss at 100 segments, one ACK per segment every 10 ms for 8 s with a
        // minimum RTT of 0: the window tracks W_cubic(t) (within a segment, since it moves
        // by whole segments) and passes the plateau after K.
        let mut cc = Cc::Cubic(Box::new(Cubic::new(false)));
        let mut w = Window { cwnd: 100, ssthresh: INFINITE_SSTHRESH, cwnd_cnt: 0 };
        w.ssthresh = cc.ssthresh(&w);
        w.cwnd = w.ssthresh;
        let mut t_ns = 0u64;
        let mut checked = 0;
        while t_ns < 8_000_000_000 {
            for _ in 0..w.cwnd {
                cc.cong_avoid(&mut w, 1, t_ns, true);
            }
            let Cc::Cubic(c) = &cc else { unreachable!() };
            let want = c.w_cubic(t_ns as f64 / 1e9).max(70.0);
            assert!((f64::from(w.cwnd) - want).abs() <= 2.5, "t {t_ns}: cwnd {} vs W_cubic {want:.2}", w.cwnd);
            checked += 1;
            t_ns += 1_000_000_000 / 4;
        }
        assert!(checked > 30);
        assert!(w.cwnd > 100, "beyond W_max after K ≈ 4.2 s");
    }

    #[test]
    fn hystart_ends_slow_start_when_the_round_rtt_rises_sixteen_ms_above_the_minimum() {
        let mut cc = Cc::Cubic(Box::new(Cubic::new(true)));
        let mut w = Window::initial(16);
        let (mut una, nxt) = (0u64, 100u64);
        // Minimum 600 ms; threshold = clamp(600/8 = 75, 4, 16) = 16 ms.
        cc.on_rtt(&mut w, 600_000_000, 2_000_000_000, una, nxt);
        // A new round whose samples are all 616 ms: not above 600 + 16.
        una += 1;
        for _ in 0..10 {
            cc.on_rtt(&mut w, 616_000_000, 3_000_000_000, una, nxt);
        }
        assert_eq!(w.ssthresh, INFINITE_SSTHRESH);
        // A further round at 617 ms: after eight samples the ninth finds 617 > 616.
        una = nxt + 1;
        for _ in 0..9 {
            cc.on_rtt(&mut w, 617_000_000, 4_000_000_000, una, 200);
        }
        assert_eq!(w.ssthresh, 16);
    }
}
