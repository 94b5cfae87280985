//! NullRDC (multihop.md §1.4 "Link-layer ACK wait with NullRDC", §1.5; `nullrdc.c`): the
//! radio is always on and a frame goes out after one CCA and the turnaround; with
//! `ack_wait` (Wismote, OQ-M1) the sender waits for the hardware ACK, without it (Sky, Z1)
//! every attempt is `OK` at the frame end and no frame is ever repaired by the MAC.

use core::time::Duration;

use coapcc_core::Instant;
pub use coapcc_driver::scenario::multihop::NullRdcConfig;

use super::{AckActivity, RdcStep};
use crate::multihop::csma::TxStatus;
use crate::multihop::phy::PhyConfig;

/// One NullRDC frame attempt (`nullrdc.c` `send_packet`).
#[derive(Clone, Debug)]
pub struct NullRdcTx {
    cfg: NullRdcConfig,
    airtime: Duration,
    turnaround: Duration,
}

impl NullRdcTx {
    /// An attempt to send a PSDU of `psdu_bytes`; the first step is a CCA at `now`.
    pub fn new(cfg: &NullRdcConfig, phy: &PhyConfig, psdu_bytes: u32, now: Instant) -> (Self, RdcStep) {
        let tx = NullRdcTx { cfg: cfg.clone(), airtime: phy.airtime(psdu_bytes), turnaround: phy.turnaround };
        (tx, RdcStep::Cca { at: now })
    }

    /// The CCA at `now` was `busy`: `COLLISION`, or the frame after the turnaround.
    pub fn on_cca(&self, now: Instant, busy: bool) -> RdcStep {
        if busy {
            return RdcStep::Done { at: now, status: TxStatus::Collision };
        }
        let at = now + self.turnaround;
        let end = at + self.airtime;
        let check_at = if self.cfg.ack_wait { end + self.cfg.ack_wait_time } else { end };
        RdcStep::SendFrame { at, airtime: self.airtime, check_at }
    }

    /// The ACK window at `now`: without ACK wait the attempt is `OK` now; with it, activity
    /// leads to a read-out 0.641 ms later, silence to `NOACK`.
    pub fn on_ack_check(&self, now: Instant, activity: AckActivity) -> RdcStep {
        if !self.cfg.ack_wait {
            return RdcStep::Done { at: now, status: TxStatus::Ok };
        }
        match activity {
            AckActivity::None => RdcStep::Done { at: now, status: TxStatus::NoAck },
            AckActivity::AckFromAddressee | AckActivity::Other => {
                RdcStep::Readout { at: now + self.cfg.after_ack_detected_wait }
            }
        }
    }

    /// The read-out at `now`: `OK` if the right ACK was decoded, else `COLLISION`.
    pub fn on_readout(&self, now: Instant, ack_ok: bool) -> RdcStep {
        RdcStep::Done { at: now, status: if ack_ok { TxStatus::Ok } else { TxStatus::Collision } }
    }
}

#[cfg(test)]
mod tests {
    use coapcc_driver::rng::{SimRng, stream_rng};

    use super::super::testutil::{at_ms, ms, ms_of};
    use super::*;
    use crate::multihop::NodeId;
    use crate::multihop::medium::{Geometry, Medium, UdgmConfig};
    use crate::multihop::topology::Position;

    /// Runs one NullRDC attempt over an idle medium from `from` to `to`; returns (delivery
    /// time at `to`, result time, status).
    fn nullrdc_hop(
        medium: &mut Medium,
        cfg: &NullRdcConfig,
        from: NodeId,
        to: NodeId,
        psdu: u32,
        now: Instant,
        rng: &mut SimRng,
    ) -> (Option<Instant>, Instant, TxStatus) {
        let phy = PhyConfig::default();
        let (tx, step) = NullRdcTx::new(cfg, &phy, psdu, now);
        let RdcStep::Cca { at } = step else { panic!("{step:?}") };
        let RdcStep::SendFrame { at, airtime, check_at } = tx.on_cca(at, medium.cca(at, from)) else { panic!() };
        let frame = medium.start_tx(at, from, airtime, rng).unwrap();
        let end = at + airtime;
        let delivered = medium.end_tx(end, frame.id).unwrap().iter().any(|e| e.node == to && e.ok).then_some(end);
        let mut step = if cfg.ack_wait && delivered.is_some() {
            // The hardware ACK 0.192 ms after the frame: on air at the check.
            let ack = medium.start_tx(end + phy.ack_delay, to, phy.ack_airtime(), rng).unwrap();
            let activity = if medium.receiving_frame(from) == Some(ack.id) {
                AckActivity::AckFromAddressee
            } else {
                AckActivity::None
            };
            let step = tx.on_ack_check(check_at, activity);
            let ok = medium
                .end_tx(end + phy.ack_delay + phy.ack_airtime(), ack.id)
                .unwrap()
                .iter()
                .any(|e| e.node == from && e.ok);
            if let RdcStep::Readout { at } = step { tx.on_readout(at, ok) } else { step }
        } else {
            tx.on_ack_check(check_at, AckActivity::None)
        };
        if let RdcStep::Readout { at } = step {
            step = tx.on_readout(at, false);
        }
        let RdcStep::Done { at, status } = step else { panic!("{step:?}") };
        (delivered, at, status)
    }

    fn chain_medium(n: usize, spacing_m: f64) -> Medium {
        let pos: Vec<Position> = (0..n).map(|i| Position::xy(spacing_m * i as f64, 0.0)).collect();
        let cfg = UdgmConfig::default();
        let mut m = Medium::new(Geometry::new(&pos, &cfg).unwrap(), &cfg).unwrap();
        for i in 0..n {
            m.set_radio(Instant::ZERO, NodeId::from_index(i), true).unwrap();
        }
        m
    }

    #[test]
    fn a_nullrdc_unicast_is_delivered_turnaround_plus_airtime_after_the_mac_starts_it() {
        // §6 check 2, without ACK wait (Sky/Z1): OK at the frame end.
        let mut m = chain_medium(2, 40.0);
        let mut rng = stream_rng(1, 0, 0);
        let t0 = at_ms(10.0);
        let (delivered, done, status) =
            nullrdc_hop(&mut m, &NullRdcConfig::default(), NodeId(0), NodeId(1), 80, t0, &mut rng);
        assert_eq!(delivered, Some(t0 + Duration::from_micros(192 + 2_752)));
        assert_eq!((done, status), (t0 + Duration::from_micros(192 + 2_752), TxStatus::Ok));
    }

    #[test]
    fn with_ack_wait_the_nullrdc_sender_gets_ok_1_038_ms_after_delivery() {
        let mut m = chain_medium(2, 40.0);
        let mut rng = stream_rng(2, 0, 0);
        let cfg = NullRdcConfig { ack_wait: true, ..NullRdcConfig::default() };
        let t0 = at_ms(10.0);
        let (delivered, done, status) = nullrdc_hop(&mut m, &cfg, NodeId(0), NodeId(1), 80, t0, &mut rng);
        assert_eq!(status, TxStatus::Ok);
        let gap = done - delivered.unwrap();
        assert!((ms_of(gap) - 1.038).abs() < 0.001, "{gap:?}");
    }

    #[test]
    fn with_ack_wait_silence_is_a_noack_after_the_0_397_ms_window() {
        let mut m = chain_medium(2, 40.0);
        m.set_radio(Instant::ZERO, NodeId(1), false).unwrap();
        let mut rng = stream_rng(3, 0, 0);
        let cfg = NullRdcConfig { ack_wait: true, ..NullRdcConfig::default() };
        let t0 = at_ms(10.0);
        let (delivered, done, status) = nullrdc_hop(&mut m, &cfg, NodeId(0), NodeId(1), 80, t0, &mut rng);
        assert_eq!((delivered, status), (None, TxStatus::NoAck));
        assert!((ms_of(done - t0) - (0.192 + 2.752 + 0.397)).abs() < 0.001);
    }

    #[test]
    fn a_busy_channel_makes_a_nullrdc_attempt_a_collision() {
        let tx = NullRdcTx::new(&NullRdcConfig::default(), &PhyConfig::default(), 80, Instant::ZERO).0;
        assert_eq!(tx.on_cca(Instant::ZERO, true), RdcStep::Done { at: Instant::ZERO, status: TxStatus::Collision });
    }

    #[test]
    fn the_idle_one_hop_coap_rtt_over_nullrdc_is_8_016_ms() {
        // §6 check 2: 2 × 0.192 + T(80) + T(84) + t_app 2 ms = 8.016 ms (±0.1 ms).
        let mut m = chain_medium(2, 40.0);
        let mut rng = stream_rng(4, 0, 0);
        let cfg = NullRdcConfig::default();
        let t0 = at_ms(5.0);
        let (req, _, _) = nullrdc_hop(&mut m, &cfg, NodeId(0), NodeId(1), 80, t0, &mut rng);
        let (resp, _, _) = nullrdc_hop(&mut m, &cfg, NodeId(1), NodeId(0), 84, req.unwrap() + ms(2.0), &mut rng);
        assert!((ms_of(resp.unwrap() - t0) - 8.016).abs() < 0.1);
    }

    #[test]
    fn each_idle_nullrdc_hop_adds_turnaround_airtime_and_forwarding_delay() {
        // §6 check 2: h hops, idle: 0.192 + T(L) + t_fwd per hop (t_fwd = 1 ms).
        let mut m = chain_medium(5, 40.0);
        let mut rng = stream_rng(5, 0, 0);
        let cfg = NullRdcConfig::default();
        let t0 = at_ms(5.0);
        let mut t = t0;
        for hop in 0..4u16 {
            let (got, _, _) = nullrdc_hop(&mut m, &cfg, NodeId(hop), NodeId(hop + 1), 80, t, &mut rng);
            t = got.unwrap() + ms(1.0);
        }
        assert!((ms_of(t - t0) - 4.0 * (0.192 + 2.752 + 1.0)).abs() < 0.01);
    }

    #[test]
    fn without_ack_wait_an_exchange_over_h_hops_each_way_succeeds_with_sr_tx_to_the_2h() {
        // §6 check 6: NullRDC on Sky/Z1 has no retries, per-hop loss 1 − SR_tx; h = 2 hops
        // each way with SR_tx 0.9 → 0.9⁴ = 0.656 (4000 exchanges, binomial sd 0.0075).
        let pos: Vec<Position> = (0..3).map(|i| Position::xy(40.0 * f64::from(i), 0.0)).collect();
        let cfg = UdgmConfig { success_ratio_tx: 0.9, ..UdgmConfig::default() };
        let mut m = Medium::new(Geometry::new(&pos, &cfg).unwrap(), &cfg).unwrap();
        for i in 0..3 {
            m.set_radio(Instant::ZERO, NodeId(i), true).unwrap();
        }
        let mut rng = stream_rng(6, 0, 0);
        let rdc = NullRdcConfig::default();
        let (n, mut ok) = (4000, 0);
        for k in 0..n {
            let mut t = at_ms(10.0 * f64::from(k));
            let path = [0u16, 1, 2, 1, 0];
            let mut alive = true;
            for hop in path.windows(2) {
                let (got, done, status) = nullrdc_hop(&mut m, &rdc, NodeId(hop[0]), NodeId(hop[1]), 80, t, &mut rng);
                assert_eq!(status, TxStatus::Ok, "no ACK wait: always OK");
                t = done;
                if got.is_none() {
                    alive = false;
                    break;
                }
            }
            ok += u32::from(alive);
        }
        let rate = f64::from(ok) / f64::from(n);
        assert!((rate - 0.9f64.powi(4)).abs() < 0.04, "{rate}");
    }
}
