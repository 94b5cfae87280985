//! The ContikiMAC strobe train (multihop.md §1.5 R3–R6; `contikimac.c` `send_packet`): one
//! transmission of one frame as copies back to back, each after an idle CCA and followed by
//! the ACK window, until the addressee acknowledges one or the train reaches its limit
//! (`STROBE_TIME`, or `MAX_PHASE_STROBE_TIME` with a known phase or in a burst).

use core::time::Duration;

use coapcc_core::Instant;

use super::ContikiMacConfig;
use crate::multihop::csma::TxStatus;
use crate::multihop::phy::PhyConfig;
use crate::multihop::rdc::{AckActivity, RdcStep};

/// How a [`StrobeTrain`] is run (§1.5 R3–R6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrainKind {
    /// R3: unicast, phase unknown: pre-train CCAs, copies until `STROBE_TIME`.
    Unicast,
    /// R4: unicast to a neighbour with a known phase: as R3 but copies only until
    /// `MAX_PHASE_STROBE_TIME` (a shortfall is a "miss").
    PhaseLocked,
    /// R5: a frame after the first of a burst: no CCAs, `MAX_PHASE_STROBE_TIME`.
    BurstFollower,
    /// R6: broadcast: copies for the full `STROBE_TIME`, no ACK window abort; ends `OK`.
    Broadcast,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TrainState {
    PreCca { done: u32 },
    CopyCca,
    AckWindow { copy_start: Instant },
    Readout { copy_start: Instant },
    Finished,
}

/// One ContikiMAC transmission of one frame (`contikimac.c` `send_packet`), R3–R6.
#[derive(Clone, Debug)]
pub struct StrobeTrain {
    kind: TrainKind,
    airtime: Duration,
    turnaround: Duration,
    cca_spacing: Duration,
    pre_ccas: u32,
    inter_packet_interval: Duration,
    after_ack_detected_wait: Duration,
    limit: Duration,
    first_copy: Option<Instant>,
    copies: u32,
    state: TrainState,
    acked_copy: Option<Instant>,
}

impl StrobeTrain {
    /// Starts a train of `kind` for a PSDU of `psdu_bytes` at `now`. `receiving`: the node's
    /// radio is receiving a frame now (R3: → `COLLISION` at once).
    pub fn start(
        cfg: &ContikiMacConfig,
        phy: &PhyConfig,
        kind: TrainKind,
        psdu_bytes: u32,
        now: Instant,
        receiving: bool,
    ) -> (Self, RdcStep) {
        let (pre_ccas, limit) = match kind {
            TrainKind::Unicast => (cfg.cca_count_max_tx, cfg.strobe_time),
            TrainKind::PhaseLocked => (cfg.cca_count_max_tx, cfg.max_phase_strobe_time),
            TrainKind::BurstFollower => (0, cfg.max_phase_strobe_time),
            TrainKind::Broadcast => (cfg.cca_count_max_tx, cfg.strobe_time),
        };
        let mut train = StrobeTrain {
            kind,
            airtime: phy.airtime(psdu_bytes),
            turnaround: phy.turnaround,
            cca_spacing: cfg.cca_spacing,
            pre_ccas,
            inter_packet_interval: cfg.inter_packet_interval,
            after_ack_detected_wait: cfg.after_ack_detected_wait,
            limit,
            first_copy: None,
            copies: 0,
            state: TrainState::PreCca { done: 0 },
            acked_copy: None,
        };
        let step = if receiving && kind != TrainKind::BurstFollower {
            train.state = TrainState::Finished;
            RdcStep::Done { at: now, status: TxStatus::Collision }
        } else if pre_ccas > 0 {
            RdcStep::Cca { at: now }
        } else {
            // R5: no CCA before the copies of a burst follower.
            train.state = TrainState::CopyCca;
            train.send_copy(now)
        };
        (train, step)
    }

    /// The kind of train.
    pub fn kind(&self) -> TrainKind {
        self.kind
    }

    /// Copies sent so far.
    pub fn copies(&self) -> u32 {
        self.copies
    }

    /// The first copy's start (its CCA instant), once sent.
    #[cfg(test)]
    pub fn first_copy(&self) -> Option<Instant> {
        self.first_copy
    }

    /// The start (CCA instant) of the acknowledged copy, after an `OK` (R4's θ).
    pub fn acked_copy(&self) -> Option<Instant> {
        self.acked_copy
    }

    /// Starts a copy whose CCA was idle at `now` (or a burst follower's copy), unless the
    /// train has reached its limit.
    fn send_copy(&mut self, now: Instant) -> RdcStep {
        let first = *self.first_copy.get_or_insert(now);
        if self.copies > 0 && now.saturating_duration_since(first) >= self.limit {
            self.state = TrainState::Finished;
            let status = if self.kind == TrainKind::Broadcast { TxStatus::Ok } else { TxStatus::NoAck };
            return RdcStep::Done { at: now, status };
        }
        self.copies += 1;
        let at = now + self.turnaround;
        let check_at = at + self.airtime + self.inter_packet_interval;
        self.state = TrainState::AckWindow { copy_start: now };
        RdcStep::SendFrame { at, airtime: self.airtime, check_at }
    }

    /// The CCA requested by the last step happened at `now` and was `busy`: busy ends the
    /// train with `COLLISION` (R3). Called when no CCA was requested, it also ends the train
    /// with `COLLISION` (a caller error, never a panic).
    pub fn on_cca(&mut self, now: Instant, busy: bool) -> RdcStep {
        match self.state {
            TrainState::PreCca { done } => {
                if busy {
                    self.state = TrainState::Finished;
                    return RdcStep::Done { at: now, status: TxStatus::Collision };
                }
                let done = done + 1;
                if done < self.pre_ccas {
                    self.state = TrainState::PreCca { done };
                } else {
                    self.state = TrainState::CopyCca;
                }
                RdcStep::Cca { at: now + self.cca_spacing }
            }
            TrainState::CopyCca => {
                if busy {
                    self.state = TrainState::Finished;
                    RdcStep::Done { at: now, status: TxStatus::Collision }
                } else {
                    self.send_copy(now)
                }
            }
            _ => RdcStep::Done { at: now, status: TxStatus::Collision },
        }
    }

    /// The ACK window after the last copy, at `now` (R3): the addressee's ACK → read-out
    /// 0.641 ms later; other activity within carrier-sense range → `COLLISION` after the same
    /// read-out wait (`contikimac.c` reads the frame before it gives up); silence → the next
    /// copy, or `NOACK` at the train's limit. Broadcast trains ignore it (R6).
    pub fn on_ack_check(&mut self, now: Instant, activity: AckActivity) -> RdcStep {
        let TrainState::AckWindow { copy_start } = self.state else {
            return RdcStep::Done { at: now, status: TxStatus::Collision };
        };
        match (self.kind, activity) {
            (TrainKind::Broadcast, _) | (_, AckActivity::None) => {
                if self.kind == TrainKind::BurstFollower {
                    self.send_copy(now)
                } else {
                    self.state = TrainState::CopyCca;
                    self.on_cca_or_copy(now)
                }
            }
            (_, AckActivity::AckFromAddressee) => {
                self.state = TrainState::Readout { copy_start };
                RdcStep::Readout { at: now + self.after_ack_detected_wait }
            }
            (_, AckActivity::Other) => {
                self.state = TrainState::Finished;
                RdcStep::Done { at: now + self.after_ack_detected_wait, status: TxStatus::Collision }
            }
        }
    }

    /// The next copy starts with a CCA at `now` unless the train has reached its limit.
    fn on_cca_or_copy(&mut self, now: Instant) -> RdcStep {
        let first = self.first_copy.unwrap_or(now);
        if now.saturating_duration_since(first) >= self.limit {
            self.state = TrainState::Finished;
            let status = if self.kind == TrainKind::Broadcast { TxStatus::Ok } else { TxStatus::NoAck };
            return RdcStep::Done { at: now, status };
        }
        RdcStep::Cca { at: now }
    }

    /// The read-out at `now`: `OK` if the addressee's ACK was decoded (θ is then the
    /// acknowledged copy's start), else `COLLISION`.
    pub fn on_readout(&mut self, now: Instant, ack_ok: bool) -> RdcStep {
        let TrainState::Readout { copy_start } = self.state else {
            return RdcStep::Done { at: now, status: TxStatus::Collision };
        };
        self.state = TrainState::Finished;
        if ack_ok {
            self.acked_copy = Some(copy_start);
            RdcStep::Done { at: now, status: TxStatus::Ok }
        } else {
            RdcStep::Done { at: now, status: TxStatus::Collision }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testutil::{at_ms, ms_of};
    use super::*;

    #[test]
    fn a_full_train_of_80_byte_copies_has_39_copies_and_ends_with_noack_after_134_ms() {
        // §1.5 R3 and §6 check 5: starts at k · T_copy < 127.4 ms, k = 0…38; NOACK after
        // 3.662 + 127.4 ms + the last copy ≈ 134 ms.
        let (cfg, phy) = (ContikiMacConfig::default(), PhyConfig::default());
        let t0 = at_ms(100.0);
        let (mut train, mut step) = StrobeTrain::start(&cfg, &phy, TrainKind::Unicast, 80, t0, false);
        let done = loop {
            step = match step {
                RdcStep::Cca { at } => train.on_cca(at, false),
                RdcStep::SendFrame { check_at, .. } => train.on_ack_check(check_at, AckActivity::None),
                RdcStep::Readout { .. } => panic!("no ACK on an idle channel"),
                RdcStep::Done { at, status } => break (at, status),
            };
        };
        assert_eq!(train.copies(), 39);
        assert_eq!(done.1, TxStatus::NoAck);
        assert!((ms_of(done.0 - t0) - 133.96).abs() < 0.05, "{:?}", done.0 - t0);
        assert!((ms_of(train.first_copy().unwrap() - t0) - 3.662).abs() < 0.001);
    }

    #[test]
    fn a_busy_pre_train_cca_or_an_ongoing_reception_is_a_collision() {
        let (cfg, phy) = (ContikiMacConfig::default(), PhyConfig::default());
        let (_, step) = StrobeTrain::start(&cfg, &phy, TrainKind::Unicast, 80, Instant::ZERO, true);
        assert_eq!(step, RdcStep::Done { at: Instant::ZERO, status: TxStatus::Collision });
        let (mut train, _) = StrobeTrain::start(&cfg, &phy, TrainKind::Unicast, 80, Instant::ZERO, false);
        let RdcStep::Cca { at } = train.on_cca(Instant::ZERO, false) else { panic!() };
        assert_eq!(train.on_cca(at, true), RdcStep::Done { at, status: TxStatus::Collision });
    }

    #[test]
    fn a_foreign_frame_in_the_ack_window_aborts_the_train_with_a_collision() {
        let (cfg, phy) = (ContikiMacConfig::default(), PhyConfig::default());
        let (mut train, mut step) = StrobeTrain::start(&cfg, &phy, TrainKind::BurstFollower, 80, Instant::ZERO, false);
        let RdcStep::SendFrame { check_at, .. } = step else { panic!("a burst follower sends at once: {step:?}") };
        step = train.on_ack_check(check_at, AckActivity::Other);
        assert!(matches!(step, RdcStep::Done { status: TxStatus::Collision, .. }));
    }

    #[test]
    fn a_burst_follower_sends_without_ccas_and_gives_up_after_16_66_ms() {
        // R5: no CCAs, no phase wait, MAX_PHASE_STROBE_TIME.
        let (cfg, phy) = (ContikiMacConfig::default(), PhyConfig::default());
        let t0 = at_ms(50.0);
        let (mut train, mut step) = StrobeTrain::start(&cfg, &phy, TrainKind::BurstFollower, 80, t0, true);
        let done = loop {
            step = match step {
                RdcStep::Cca { .. } => panic!("a burst follower does no CCA"),
                RdcStep::SendFrame { check_at, .. } => train.on_ack_check(check_at, AckActivity::None),
                RdcStep::Readout { .. } => panic!(),
                RdcStep::Done { at, status } => break (at, status),
            };
        };
        // Copies start at k · 3.341 ms < 16.663 ms: k = 0…4; NOACK one copy period after the last.
        assert_eq!((done.1, train.copies()), (TxStatus::NoAck, 5));
        assert!((ms_of(done.0 - t0) - 5.0 * 3.341).abs() < 0.01, "{:?}", done.0 - t0);
    }

    #[test]
    fn a_broadcast_train_ignores_the_ack_window_and_runs_its_full_length() {
        let (cfg, phy) = (ContikiMacConfig::default(), PhyConfig::default());
        let (mut train, mut step) = StrobeTrain::start(&cfg, &phy, TrainKind::Broadcast, 80, Instant::ZERO, false);
        let done = loop {
            step = match step {
                RdcStep::Cca { at } => train.on_cca(at, false),
                RdcStep::SendFrame { check_at, .. } => train.on_ack_check(check_at, AckActivity::AckFromAddressee),
                RdcStep::Readout { .. } => panic!(),
                RdcStep::Done { status, .. } => break status,
            };
        };
        assert_eq!((done, train.copies()), (TxStatus::Ok, 39));
    }
}
