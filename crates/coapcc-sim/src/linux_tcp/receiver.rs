//! The receiving half of a connection: in-order reassembly, SACK blocks (RFC 2018 §4: the
//! block holding the latest segment first, then the most recently changed others), the
//! advertised window, and when to acknowledge (RFC 5681 §4.2, Linux `__tcp_ack_snd_check`):
//! at once for out-of-order data, for a segment that fills a hole, for a duplicate, during
//! the quick-ACK phase at the start (Linux `tcp_incr_quickack`: up to 16 segments from the
//! first data on), and when more than one full segment is unacknowledged; otherwise after the
//! delayed-ACK timer (40 ms, Linux `TCP_DELACK_MIN`).

use coapcc_driver::scenario::LinuxTcpConfig;

/// Most SACK blocks in an ACK: 4 without timestamps, 3 with (40 bytes of options).
pub(crate) fn max_sack_blocks(timestamps: bool) -> usize {
    if timestamps { 3 } else { 4 }
}

#[derive(Clone, Debug)]
pub(crate) struct Receiver {
    /// Next sequence number expected.
    pub(crate) rcv_nxt: u64,
    /// `rcv_nxt` when the last ACK was sent (Linux `rcv_wup`).
    rcv_wup: u64,
    /// Out-of-order ranges, sorted and disjoint, each with the order it last changed in.
    ooo: Vec<(u64, u64, u64)>,
    touch: u64,
    quick: u32,
    quickacks: u32,
    started: bool,
    ack_now: bool,
    pub(crate) delack_deadline: Option<u64>,
    delack_ns: u64,
    mss: u32,
    window: u32,
    sack: bool,
    max_blocks: usize,
}

impl Receiver {
    pub(crate) fn new(c: &LinuxTcpConfig) -> Self {
        Receiver {
            rcv_nxt: 0,
            rcv_wup: 0,
            ooo: Vec::new(),
            touch: 0,
            quick: 0,
            quickacks: c.quickacks,
            started: false,
            ack_now: false,
            delack_deadline: None,
            delack_ns: u64::try_from(c.delayed_ack.as_nanos()).unwrap_or(u64::MAX),
            mss: c.mss(),
            window: c.receive_window_bytes,
            sack: c.sack,
            max_blocks: max_sack_blocks(c.timestamps),
        }
    }

    /// The peer's SYN (sequence number 0) was received: data begin at 1.
    pub(crate) fn syn_received(&mut self) {
        self.rcv_nxt = 1;
        self.rcv_wup = 1;
    }

    /// Bytes `[seq, seq + len)` arrived at `now_ns`; returns the in-order bytes delivered to
    /// the application. Whether to acknowledge now is [`Self::wants_ack_now`].
    pub(crate) fn on_data(&mut self, now_ns: u64, seq: u64, len: u32) -> u64 {
        let end = seq + u64::from(len);
        if !self.started {
            // Linux `tcp_event_data_recv` on the first data: quick ACKs, rcv_wnd/(2·MSS) of
            // them at most `quickacks`, at least 2.
            self.started = true;
            self.quick = (self.window / (2 * self.mss.max(1))).max(2).min(self.quickacks);
        }
        let before = self.rcv_nxt;
        if end <= self.rcv_nxt {
            // A duplicate: ACK at once (Linux `tcp_send_dupack`).
            self.ack_now = true;
            return 0;
        }
        self.touch += 1;
        if seq <= self.rcv_nxt {
            self.rcv_nxt = end;
            let had_holes = !self.ooo.is_empty();
            while let Some(&(s, e, _)) = self.ooo.first() {
                if s > self.rcv_nxt {
                    break;
                }
                self.rcv_nxt = self.rcv_nxt.max(e);
                self.ooo.remove(0);
            }
            if had_holes {
                // Filled (part of) a hole: ACK at once (RFC 5681 §4.2).
                self.ack_now = true;
            }
        } else {
            self.insert(seq, end);
            self.ack_now = true;
        }
        if !self.ack_now && self.quick == 0 && self.rcv_nxt - self.rcv_wup <= u64::from(self.mss) {
            if self.delack_deadline.is_none() {
                self.delack_deadline = Some(now_ns + self.delack_ns);
            }
        } else {
            self.ack_now = true;
        }
        self.rcv_nxt - before
    }

    fn insert(&mut self, seq: u64, end: u64) {
        let (mut lo, mut hi) = (seq, end);
        self.ooo.retain(|&(s, e, _)| {
            if e < lo || s > hi {
                true
            } else {
                lo = lo.min(s);
                hi = hi.max(e);
                false
            }
        });
        let at = self.ooo.partition_point(|r| r.0 < lo);
        self.ooo.insert(at, (lo, hi, self.touch));
    }

    /// Whether an ACK must go out now.
    pub(crate) fn wants_ack_now(&self) -> bool {
        self.ack_now
    }

    /// The delayed-ACK timer fired: an ACK is due if anything is unacknowledged.
    pub(crate) fn delack_fired(&mut self) -> bool {
        self.delack_deadline = None;
        self.rcv_nxt > self.rcv_wup
    }

    /// An ACK (pure or on data) was sent: the delayed ACK is cancelled and a quick ACK used
    /// (Linux `tcp_event_ack_sent`).
    pub(crate) fn ack_sent(&mut self) {
        self.rcv_wup = self.rcv_nxt;
        self.ack_now = false;
        self.delack_deadline = None;
        self.quick = self.quick.saturating_sub(1);
    }

    /// The advertised window, bytes.
    pub(crate) fn window(&self) -> u32 {
        self.window
    }

    /// The SACK blocks of the next ACK, most recent first (RFC 2018 §4).
    pub(crate) fn sack_blocks(&self, into: &mut Vec<(u64, u64)>) {
        into.clear();
        if !self.sack {
            return;
        }
        let mut ranges: Vec<&(u64, u64, u64)> = self.ooo.iter().collect();
        ranges.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
        into.extend(ranges.into_iter().take(self.max_blocks).map(|r| (r.0, r.1)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx(quickacks: u32) -> Receiver {
        let mut r = Receiver::new(&LinuxTcpConfig { quickacks, ..LinuxTcpConfig::default() });
        r.syn_received();
        r
    }

    #[test]
    fn after_the_quick_acks_every_second_full_segment_is_acknowledged_at_once() {
        let mut r = rx(2);
        // Two quick ACKs.
        for i in 0..2u64 {
            r.on_data(0, 1 + i * 256, 256);
            assert!(r.wants_ack_now());
            r.ack_sent();
        }
        // Third segment: delayed 40 ms; the fourth makes two unacknowledged: ACK now.
        r.on_data(1_000, 513, 256);
        assert!(!r.wants_ack_now());
        assert_eq!(r.delack_deadline, Some(1_000 + 40_000_000));
        r.on_data(2_000, 769, 256);
        assert!(r.wants_ack_now());
    }

    #[test]
    fn a_hole_is_acknowledged_at_once_with_the_newest_block_first() {
        let mut r = rx(0);
        r.on_data(0, 1, 256);
        r.ack_sent();
        r.on_data(0, 513, 256); // hole at 257..513
        assert!(r.wants_ack_now());
        r.ack_sent();
        r.on_data(0, 1025, 256); // a second hole
        let mut b = Vec::new();
        r.sack_blocks(&mut b);
        assert_eq!(b, [(1025, 1281), (513, 769)]);
        // Filling the first hole delivers up to 769 and is acknowledged at once.
        r.ack_sent();
        assert_eq!(r.on_data(0, 257, 256), 512);
        assert!(r.wants_ack_now());
        assert_eq!(r.rcv_nxt, 769);
    }
}
