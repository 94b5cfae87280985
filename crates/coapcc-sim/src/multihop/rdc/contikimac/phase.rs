//! ContikiMAC phase lock (multihop.md §1.5 R4; `phase.c`): the wake-up phase θ learnt per
//! neighbour from the acknowledged copy of a train, when the next train to that neighbour
//! starts (`GUARD_TIME` before its next wake-up), and when a phase is forgotten (16 NOACKs, or
//! 30 s after the first of them).

use coapcc_core::Instant;

use super::ContikiMacConfig;
use super::train::TrainKind;
use crate::multihop::NodeId;
use crate::multihop::csma::TxStatus;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PhaseEntry {
    neighbor: NodeId,
    theta: Instant,
    noacks: u32,
    first_noack: Option<Instant>,
}

/// R4 phase lock (`phase.c`): the wake-up phase θ learnt per neighbour.
#[derive(Clone, Debug, Default)]
pub struct PhaseTable {
    entries: Vec<PhaseEntry>,
}

/// When and how to start a unicast train to a neighbour (R3 or R4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrainSchedule {
    /// When to start the train (its pre-train CCAs).
    pub start: Instant,
    /// [`TrainKind::PhaseLocked`] if the phase is known, else [`TrainKind::Unicast`].
    pub kind: TrainKind,
}

impl PhaseTable {
    /// An empty table.
    pub fn new() -> Self {
        PhaseTable::default()
    }

    /// The stored θ of `neighbor`.
    pub fn phase(&self, neighbor: NodeId) -> Option<Instant> {
        self.entries.iter().find(|e| e.neighbor == neighbor).map(|e| e.theta)
    }

    /// When a unicast to `neighbor` asked for at `now` starts: at once with unknown phase;
    /// with θ known, `wait = (θ − now) mod T_w` (+ `T_w` if below `GUARD_TIME`) and the train
    /// starts at `now + wait − GUARD_TIME`.
    pub fn schedule(&self, cfg: &ContikiMacConfig, neighbor: NodeId, now: Instant) -> TrainSchedule {
        let theta = if cfg.phase_optimization { self.phase(neighbor) } else { None };
        let Some(theta) = theta else {
            return TrainSchedule { start: now, kind: TrainKind::Unicast };
        };
        let w = cfg.cycle_time.as_nanos() as i128;
        let diff = theta.as_nanos() as i128 - now.as_nanos() as i128;
        let mut wait = diff.rem_euclid(w);
        let guard = cfg.guard_time.as_nanos() as i128;
        if wait < guard {
            wait += w;
        }
        let start = now.as_nanos() as i128 + wait - guard;
        TrainSchedule {
            start: Instant::from_nanos(u64::try_from(start).unwrap_or(u64::MAX)),
            kind: TrainKind::PhaseLocked,
        }
    }

    /// Records the outcome of a unicast train to `neighbor` at `now`: `OK` stores θ = the
    /// acknowledged copy's start and resets the NOACK count; `NOACK` counts, and the phase is
    /// forgotten after `max_noacks` of them or `max_noacks_time` since the first.
    pub fn on_result(
        &mut self,
        cfg: &ContikiMacConfig,
        neighbor: NodeId,
        now: Instant,
        status: TxStatus,
        acked_copy: Option<Instant>,
    ) {
        let k = self.entries.iter().position(|e| e.neighbor == neighbor);
        match (status, acked_copy) {
            (TxStatus::Ok, Some(theta)) => {
                let entry = PhaseEntry { neighbor, theta, noacks: 0, first_noack: None };
                match k {
                    Some(k) => self.entries[k] = entry,
                    None => self.entries.push(entry),
                }
            }
            (TxStatus::NoAck, _) => {
                if let Some(k) = k {
                    let e = &mut self.entries[k];
                    e.noacks += 1;
                    let first = *e.first_noack.get_or_insert(now);
                    if e.noacks >= cfg.max_noacks || now.saturating_duration_since(first) >= cfg.max_noacks_time {
                        self.entries.remove(k);
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::testutil::{at_ms, ms_of};
    use super::*;

    #[test]
    fn the_phase_table_leads_the_stored_phase_by_the_guard_time_and_forgets_after_16_noacks() {
        let c = ContikiMacConfig::default();
        let mut table = PhaseTable::new();
        let j = NodeId(3);
        assert_eq!(table.schedule(&c, j, at_ms(7.0)), TrainSchedule { start: at_ms(7.0), kind: TrainKind::Unicast });
        table.on_result(&c, j, at_ms(100.0), TxStatus::Ok, Some(at_ms(90.0)));
        // θ = 90 ms: from now = 200 ms the next θ + n·T_w is 215 ms (wait 15 < 15.87 → +T_w).
        let s = table.schedule(&c, j, at_ms(200.0));
        assert_eq!(s.kind, TrainKind::PhaseLocked);
        assert!((ms_of(s.start - at_ms(200.0)) - (140.0 - 15.869)).abs() < 0.001, "{:?}", s.start);
        let s = table.schedule(&c, j, at_ms(150.0));
        assert!((ms_of(s.start - at_ms(150.0)) - (65.0 - 15.869)).abs() < 0.001);
        for k in 0..15 {
            table.on_result(&c, j, at_ms(1000.0 + f64::from(k)), TxStatus::NoAck, None);
        }
        assert!(table.phase(j).is_some());
        table.on_result(&c, j, at_ms(2000.0), TxStatus::NoAck, None);
        assert!(table.phase(j).is_none());
        // … or 30 s after the first NOACK.
        table.on_result(&c, j, at_ms(100.0), TxStatus::Ok, Some(at_ms(90.0)));
        table.on_result(&c, j, at_ms(1000.0), TxStatus::NoAck, None);
        table.on_result(&c, j, at_ms(31_000.0), TxStatus::NoAck, None);
        assert!(table.phase(j).is_none());
    }
}
