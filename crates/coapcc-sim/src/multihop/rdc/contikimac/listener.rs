//! The ContikiMAC receiver (multihop.md §1.5 R1–R2; `contikimac.c`): a channel check of two
//! CCAs every `T_w` at the node's phase, and the listening that follows a busy one: radio off
//! after 6.1 ms without a frame start or 12.48 ms after the check, a frame being received is
//! always finished, and a unicast with the pending bit keeps the radio on 31.25 ms for the next
//! frame of the burst.

use core::time::Duration;

use coapcc_core::Instant;

use super::ContikiMacConfig;

/// What the listener wants after an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListenStep {
    /// Keep the radio on; call [`Listener::on_timeout`] at `deadline` unless a frame event
    /// comes first.
    Listen {
        /// The next timeout.
        deadline: Instant,
    },
    /// Turn the radio off.
    Off,
}

/// How a received frame ended, for [`Listener::on_frame_end`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameEnd {
    /// A unicast to this node (delivered; the hardware ACK goes out), with its pending bit.
    UnicastToMe {
        /// More frames of a burst follow.
        pending: bool,
    },
    /// A broadcast (delivered). The multihop engine sends no broadcast data frame yet.
    #[allow(dead_code)]
    Broadcast,
    /// A frame for another node (discarded).
    ForOther,
    /// A corrupted frame (discarded).
    Corrupted,
}

/// R1/R2: a channel check and the listening that follows a busy one.
#[derive(Clone, Debug)]
pub struct Listener {
    hard_deadline: Instant,
    silence: Duration,
    inter_packet_deadline: Duration,
    in_burst: bool,
    frame_on: bool,
    seen_frame: bool,
    last_activity: Instant,
}

impl Listener {
    /// A channel check whose CCAs (at `check + i · cca_spacing`, R1) gave `busy`: `None` if
    /// all were idle (radio stays off), else the listener, radio on from the first busy CCA.
    pub fn after_check(cfg: &ContikiMacConfig, check: Instant, busy: &[bool]) -> Option<(Listener, Instant)> {
        let first_busy = busy.iter().position(|&b| b)?;
        let on_at = check + cfg.cca_spacing * first_busy as u32;
        let listener = Listener {
            hard_deadline: check + cfg.listen_time_after_packet_detected,
            silence: cfg.cca_spacing * cfg.max_nonactivity_periods,
            inter_packet_deadline: cfg.inter_packet_deadline,
            in_burst: false,
            frame_on: false,
            seen_frame: false,
            last_activity: on_at,
        };
        Some((listener, on_at))
    }

    /// The current timeout ([`Instant::MAX`] while a frame is arriving: its end decides).
    pub fn deadline(&self) -> Instant {
        if self.frame_on {
            Instant::MAX
        } else if self.in_burst {
            self.last_activity + self.inter_packet_deadline
        } else if self.seen_frame {
            self.hard_deadline
        } else {
            (self.last_activity + self.silence).min(self.hard_deadline)
        }
    }

    /// The first step after [`Listener::after_check`].
    pub fn step(&self) -> ListenStep {
        ListenStep::Listen { deadline: self.deadline() }
    }

    /// A frame started arriving at `now` (the radio is receiving it).
    pub fn on_frame_start(&mut self, now: Instant) -> ListenStep {
        self.frame_on = true;
        self.seen_frame = true;
        self.last_activity = now;
        self.step()
    }

    /// A frame ended at `now` as `end` (R2).
    pub fn on_frame_end(&mut self, now: Instant, end: FrameEnd) -> ListenStep {
        self.frame_on = false;
        self.last_activity = now;
        match end {
            FrameEnd::UnicastToMe { pending: true } => {
                self.in_burst = true;
                self.step()
            }
            FrameEnd::UnicastToMe { pending: false } | FrameEnd::Broadcast | FrameEnd::ForOther => ListenStep::Off,
            FrameEnd::Corrupted => {
                if now >= self.deadline() {
                    ListenStep::Off
                } else {
                    self.step()
                }
            }
        }
    }

    /// The timeout at `now`: radio off if it is due (a stale timeout keeps listening).
    pub fn on_timeout(&mut self, now: Instant) -> ListenStep {
        if now >= self.deadline() { ListenStep::Off } else { self.step() }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testutil::{at_ms, ms, ms_of};
    use super::*;

    #[test]
    fn a_listener_sleeps_after_6_1_ms_of_silence_and_stays_on_for_a_pending_burst() {
        let c = ContikiMacConfig::default();
        let t = at_ms(10.0);
        assert!(Listener::after_check(&c, t, &[false, false]).is_none());
        let (mut l, on_at) = Listener::after_check(&c, t, &[false, true]).unwrap();
        assert_eq!(on_at, t + c.cca_spacing);
        let ListenStep::Listen { deadline } = l.step() else { panic!() };
        assert!((ms_of(deadline - t) - (0.610 + 6.104)).abs() < 0.01);
        assert_eq!(l.on_timeout(deadline), ListenStep::Off);
        let (mut l, _) = Listener::after_check(&c, t, &[true, false]).unwrap();
        l.on_frame_start(t + ms(1.0));
        assert_eq!(l.on_timeout(t + ms(20.0)), l.step(), "a frame being received is finished");
        let ListenStep::Listen { deadline } = l.on_frame_end(t + ms(4.0), FrameEnd::UnicastToMe { pending: true })
        else {
            panic!()
        };
        assert_eq!(deadline, t + ms(4.0) + ms(31.25));
        assert_eq!(l.on_frame_end(t + ms(8.0), FrameEnd::UnicastToMe { pending: false }), ListenStep::Off);
        let (mut l, _) = Listener::after_check(&c, t, &[true, true]).unwrap();
        l.on_frame_start(t + ms(1.0));
        let ListenStep::Listen { deadline } = l.on_frame_end(t + ms(4.0), FrameEnd::Corrupted) else { panic!() };
        assert!((ms_of(deadline - t) - 12.482).abs() < 0.01, "listening continues until 12.48 ms");
    }
}
