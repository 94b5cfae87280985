//! The sender's retransmission queue and SACK scoreboard (RFC 6675 §3–4): one entry per
//! segment sent and not yet cumulatively acknowledged, with Linux's per-segment marks
//! (`TCPCB_SACKED_ACKED`, `TCPCB_LOST`, `TCPCB_SACKED_RETRANS`, `TCPCB_EVER_RETRANS`). The
//! pipe is Linux's `tcp_packets_in_flight`: packets out − (SACKed + lost) + retransmitted,
//! which equals RFC 6675's `pipe` when the lost marks follow `IsLost`.

use std::collections::VecDeque;

/// RFC 6675 §2: DupThresh.
pub(crate) const DUP_THRESH: u32 = 3;

/// One segment in flight or SACKed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Seg {
    /// First sequence number.
    pub(crate) start: u64,
    /// One past the last.
    pub(crate) end: u64,
    pub(crate) sacked: bool,
    pub(crate) lost: bool,
    /// A retransmission of it is in flight.
    pub(crate) retrans_out: bool,
    /// It was retransmitted at least once.
    pub(crate) ever_retrans: bool,
    /// When its latest copy was sent, ns.
    pub(crate) sent_ns: u64,
    /// Ground truth, never used for a decision: some copy sent so far reaches the receiver.
    pub(crate) copy_arrives: bool,
}

/// What a cumulative ACK or SACK blocks did to the queue.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Delivered {
    /// Segments newly cumulatively acknowledged (SACKed ones excluded) or newly SACKed.
    pub(crate) segments: u32,
    /// The earliest send time among newly acknowledged never-retransmitted segments, ns.
    pub(crate) first_sent_ns: Option<u64>,
    /// A retransmitted segment was among them (Karn: no RTT sample from it).
    pub(crate) retrans: bool,
    /// A never-retransmitted segment was newly acknowledged or SACKed (Linux
    /// `FLAG_ORIG_SACK_ACKED`).
    pub(crate) original: bool,
}

impl Delivered {
    fn add(&mut self, s: &Seg) {
        self.segments += 1;
        if s.ever_retrans {
            self.retrans = true;
        } else {
            self.original = true;
            self.first_sent_ns = Some(self.first_sent_ns.map_or(s.sent_ns, |t| t.min(s.sent_ns)));
        }
    }
}

/// The queue, oldest first.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scoreboard {
    segs: VecDeque<Seg>,
}

impl Scoreboard {
    pub(crate) fn push(&mut self, start: u64, end: u64, now_ns: u64) {
        self.segs.push_back(Seg {
            start,
            end,
            sacked: false,
            lost: false,
            retrans_out: false,
            ever_retrans: false,
            sent_ns: now_ns,
            copy_arrives: false,
        });
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    pub(crate) fn len(&self) -> u32 {
        self.segs.len() as u32
    }

    pub(crate) fn get_mut(&mut self, i: usize) -> Option<&mut Seg> {
        self.segs.get_mut(i)
    }

    /// The entry starting at `start`.
    pub(crate) fn find_mut(&mut self, start: u64) -> Option<&mut Seg> {
        let i = self.segs.partition_point(|s| s.start < start);
        self.segs.get_mut(i).filter(|s| s.start == start)
    }

    /// The segments, oldest first.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Seg> {
        self.segs.iter_mut()
    }

    /// How many segments are SACKed (Linux `sacked_out`).
    pub(crate) fn sacked(&self) -> u32 {
        self.segs.iter().filter(|s| s.sacked).count() as u32
    }

    /// Removes every segment ending at or below `ack` (a cumulative ACK), telling
    /// `on_delivered` each one not SACKed before.
    pub(crate) fn ack(&mut self, ack: u64, on_delivered: &mut impl FnMut(&Seg)) -> Delivered {
        let mut d = Delivered::default();
        while let Some(s) = self.segs.front() {
            if s.end > ack {
                break;
            }
            let s = *s;
            self.segs.pop_front();
            if !s.sacked {
                d.add(&s);
                on_delivered(&s);
            }
        }
        d
    }

    /// Marks the segments wholly inside the SACK blocks (RFC 2018 §4), telling `on_delivered`
    /// each one newly SACKed.
    pub(crate) fn sack(&mut self, blocks: &[(u64, u64)], on_delivered: &mut impl FnMut(&Seg)) -> Delivered {
        let mut d = Delivered::default();
        for &(lo, hi) in blocks {
            let from = self.segs.partition_point(|s| s.start < lo);
            for s in self.segs.range_mut(from..) {
                if s.end > hi {
                    break;
                }
                if !s.sacked {
                    s.sacked = true;
                    s.lost = false;
                    s.retrans_out = false;
                    d.add(s);
                    on_delivered(s);
                }
            }
        }
        d
    }

    /// RFC 6675 §4 `IsLost`: marks lost every unSACKed segment with at least DupThresh
    /// SACKed segments above it (not one whose retransmission is in flight: only the
    /// timer finds a lost retransmission without RACK); returns how many it newly marked.
    pub(crate) fn mark_lost(&mut self) -> u32 {
        let mut above = 0;
        let mut newly = 0;
        for s in self.segs.iter_mut().rev() {
            if s.sacked {
                above += 1;
            } else if above >= DUP_THRESH && !s.lost && !s.retrans_out {
                s.lost = true;
                newly += 1;
            }
        }
        newly
    }

    /// Marks the oldest segment lost (NewReno without SACK: after three duplicate ACKs or
    /// a partial ACK, RFC 6582 §3.2).
    pub(crate) fn mark_head_lost(&mut self) -> u32 {
        match self.segs.front_mut() {
            Some(s) if !s.lost && !s.retrans_out && !s.sacked => {
                s.lost = true;
                1
            }
            _ => 0,
        }
    }

    /// A retransmission timeout: every unSACKed segment is lost and no retransmission is in
    /// flight any more (Linux `tcp_timeout_mark_lost`).
    pub(crate) fn mark_all_lost(&mut self) {
        for s in self.segs.iter_mut().filter(|s| !s.sacked) {
            s.lost = true;
            s.retrans_out = false;
        }
    }

    /// A spurious timeout undone: no segment is lost (Linux `tcp_undo_cwnd_reduction`).
    pub(crate) fn unmark_lost(&mut self) {
        for s in self.segs.iter_mut() {
            s.lost = false;
        }
    }

    /// Linux `tcp_packets_in_flight` (RFC 6675 `pipe`), with `virtual_sacked` duplicate ACKs
    /// counted as SACKed segments when SACK is off (Linux `tcp_add_reno_sack`).
    pub(crate) fn pipe(&self, virtual_sacked: u32) -> u32 {
        let (mut out, mut left, mut retrans) = (0u32, 0u32, 0u32);
        for s in &self.segs {
            out += 1;
            if s.sacked || s.lost {
                left += 1;
            }
            if s.retrans_out {
                retrans += 1;
            }
        }
        (out + retrans).saturating_sub(left + virtual_sacked.min(out.saturating_sub(left)))
    }

    /// Whether any segment is SACKed.
    pub(crate) fn any_sacked(&self) -> bool {
        self.segs.iter().any(|s| s.sacked)
    }

    /// RFC 6675 §4 `NextSeg` rule (3): the index of the first unSACKed segment below the
    /// highest SACKed one that is not being retransmitted (lost or not).
    pub(crate) fn rule3_candidate(&self) -> Option<usize> {
        let highest = self.segs.iter().rposition(|s| s.sacked)?;
        self.segs.iter().take(highest).position(|s| !s.sacked && !s.retrans_out)
    }

    /// The index of the first lost segment not being retransmitted (RFC 6675 `NextSeg` rule 1).
    pub(crate) fn next_lost(&self) -> Option<usize> {
        self.segs.iter().position(|s| s.lost && !s.retrans_out && !s.sacked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(n: u64) -> Scoreboard {
        let mut b = Scoreboard::default();
        for i in 0..n {
            b.push(1 + i * 100, 1 + (i + 1) * 100, i);
        }
        b
    }

    #[test]
    fn three_sacked_segments_above_a_hole_make_it_lost() {
        let mut b = board(6);
        // SACK of segments 2 and 3 (0-based 1, 2): two above segment 0, not yet lost.
        let d = b.sack(&[(101, 301)], &mut |_| {});
        assert_eq!(d.segments, 2);
        assert_eq!(b.mark_lost(), 0);
        assert_eq!(b.pipe(0), 4);
        // A third SACKed segment (0-based 3): segment 0 has three above it.
        b.sack(&[(301, 401)], &mut |_| {});
        assert_eq!(b.mark_lost(), 1);
        // pipe = 6 out − (3 SACKed + 1 lost) = 2.
        assert_eq!(b.pipe(0), 2);
        assert_eq!(b.next_lost(), Some(0));
    }

    #[test]
    fn a_cumulative_ack_removes_segments_and_reports_karns_rule() {
        let mut b = board(3);
        b.get_mut(1).unwrap().ever_retrans = true;
        let d = b.ack(201, &mut |_| {});
        assert_eq!(d.segments, 2);
        assert!(d.retrans && d.original);
        assert_eq!(d.first_sent_ns, Some(0));
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn rule_three_picks_the_first_unsacked_segment_below_the_highest_sack_not_in_flight_again() {
        let mut b = board(6);
        assert_eq!(b.rule3_candidate(), None, "no SACK, no rule (3)");
        // Segments 2 and 4 SACKed: 0, 1 and 3 lie below the highest SACK, 5 above it.
        b.sack(&[(201, 301), (401, 501)], &mut |_| {});
        let mut picked = Vec::new();
        while let Some(i) = b.rule3_candidate() {
            picked.push(i);
            b.get_mut(i).unwrap().retrans_out = true;
        }
        assert_eq!(picked, [0, 1, 3]);
    }

    #[test]
    fn a_timeout_marks_every_unsacked_segment_lost() {
        let mut b = board(4);
        b.sack(&[(201, 301)], &mut |_| {});
        b.mark_all_lost();
        assert_eq!(b.pipe(0), 0);
        assert_eq!(b.next_lost(), Some(0));
    }
}
