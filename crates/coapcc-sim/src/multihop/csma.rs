//! Contiki CSMA (`core/net/mac/csma.c`, multihop.md §1.4) as a sans-IO state machine.
//!
//! One FIFO per next-hop neighbour, at most `max_neighbor_queues` of them at once, all
//! sharing a pool of `queuebuf_num` packets; a packet that finds no queue, no buffer or a
//! full queue is dropped at once (tail drop, nobody above retries it). A packet entering an
//! empty (new) neighbour queue is transmitted now; later ones wait for the queue's next
//! service. A service hands the whole queue to the RDC as a burst; the RDC reports one
//! [`TxStatus`] per packet in order and stops at the first failure. `OK` frees the packet;
//! `NOACK` counts a transmission and retries after a backoff until `max_transmissions`;
//! `COLLISION` retries after a backoff without counting. Backoffs are drawn in clock ticks
//! (1/128 s): 3.0 `T_b + rand() % (2^min(k,3) · T_b)`, 2.7 `T_b + rand() % (min(k+1,3) · T_b)`
//! with `k` the NOACKs so far. Receivers drop a frame whose (sender, sequence number) is
//! among the last 16 received ([`DuplicateFilter`]).
//!
//! Driving it: [`Csma::send`] enqueues (and may ask for a transmission at `now`); at every
//! [`CsmaOutput::TransmitAt`] instant the caller calls [`Csma::service`], which returns the
//! [`Burst`] for the RDC (or `None` for a stale timer); each RDC result goes to
//! [`Csma::on_result`], which returns what happened (sent, dropped, next service).

use std::collections::VecDeque;

use coapcc_core::{ConfigError, Instant};
use coapcc_driver::scenario::multihop::CsmaConfig;
use rand_core::Rng;

use super::NodeId;

/// Probability that a packet is dropped after `max_transmissions` attempts that each fail
/// independently with probability `q` (§6 check 6): `q^N`.
#[cfg(test)]
pub fn drop_probability(q: f64, max_transmissions: u32) -> f64 {
    q.powi(i32::try_from(max_transmissions).unwrap_or(i32::MAX))
}

/// Mean number of attempts per packet under the same model: `(1 − q^N)/(1 − q)` (`N` if
/// `q = 1`).
#[cfg(test)]
pub fn mean_attempts(q: f64, max_transmissions: u32) -> f64 {
    if q >= 1.0 { f64::from(max_transmissions) } else { (1.0 - drop_probability(q, max_transmissions)) / (1.0 - q) }
}

/// The RDC's verdict on one packet of a burst (`mac_tx_status`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TxStatus {
    /// Sent (acknowledged, or sent without ACK wait).
    Ok,
    /// No ACK: counts towards `max_transmissions`.
    NoAck,
    /// Busy channel or a foreign frame in the ACK window: retried without counting.
    Collision,
}

/// Why a packet left CSMA without being sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// `max_neighbor_queues` queues exist and none is for this next hop.
    NoNeighborQueue,
    /// The shared pool of `queuebuf_num` packets is exhausted.
    NoBuffer,
    /// The neighbour queue is at `max_packets_per_neighbor`.
    QueueFull,
    /// `max_transmissions` NOACKs.
    RetryLimit,
}

/// What [`Csma::send`] did with a packet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendOutcome<P> {
    /// Queued with MAC sequence number `seq`; if the neighbour queue was empty, the caller
    /// must call [`Csma::service`] at `transmit_at` (= now).
    Queued {
        /// The MAC sequence number, kept across retransmissions.
        seq: u8,
        /// When to serve the queue, if a new service was scheduled.
        transmit_at: Option<Instant>,
    },
    /// Tail drop.
    Dropped {
        /// The packet, handed back.
        packet: P,
        /// Why.
        cause: DropCause,
    },
}

/// What happened after an RDC result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CsmaOutput<P> {
    /// Serve `next_hop`'s queue at `at` (call [`Csma::service`] then).
    TransmitAt {
        /// The neighbour queue.
        next_hop: NodeId,
        /// The service instant.
        at: Instant,
    },
    /// The packet was sent (`MAC_TX_OK`).
    Sent {
        /// The packet.
        packet: P,
        /// Its next hop.
        next_hop: NodeId,
        /// NOACKs before the success.
        noacks: u32,
        /// Collisions before the success.
        collisions: u32,
    },
    /// The packet was dropped.
    Dropped {
        /// The packet.
        packet: P,
        /// Its next hop.
        next_hop: NodeId,
        /// Why ([`DropCause::RetryLimit`] here).
        cause: DropCause,
        /// Collisions it met.
        collisions: u32,
    },
}

/// One packet of a burst handed to the RDC.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BurstFrame<P> {
    /// The packet (a cheap handle: it is cloned into the burst).
    pub packet: P,
    /// Its MAC sequence number.
    pub seq: u8,
}

/// A service: the packets of one neighbour queue, to be sent back to back (§1.4, §1.5 R5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Burst<P> {
    /// The next hop.
    pub next_hop: NodeId,
    /// The packets in queue order; frames after the first carry the pending bit except the last.
    pub frames: Vec<BurstFrame<P>>,
}

/// A caller error; the state is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CsmaError {
    /// A result arrived for a neighbour queue that is not in service.
    NotInService(NodeId),
}

impl core::fmt::Display for CsmaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CsmaError::NotInService(n) => write!(f, "no burst to node {} is in service", n.0),
        }
    }
}

impl std::error::Error for CsmaError {}

#[derive(Clone, Debug)]
struct Queued<P> {
    packet: P,
    seq: u8,
    noacks: u32,
    collisions: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum QueueState {
    /// Waiting for its service instant.
    Scheduled(Instant),
    /// Handed to the RDC; this many results are still due.
    InService { remaining: usize },
}

#[derive(Clone, Debug)]
struct NeighborQueue<P> {
    next_hop: NodeId,
    packets: VecDeque<Queued<P>>,
    state: QueueState,
}

/// The last received (sender, sequence number) pairs (`mac-sequence.c`).
#[derive(Clone, Debug, Default)]
pub struct DuplicateFilter {
    history: VecDeque<(NodeId, u8)>,
    capacity: usize,
}

impl DuplicateFilter {
    /// A filter remembering `capacity` pairs.
    pub fn new(capacity: usize) -> Self {
        DuplicateFilter { history: VecDeque::with_capacity(capacity), capacity }
    }

    /// `true` (deliver up, and remember) unless the pair is among the remembered ones.
    pub fn accept(&mut self, sender: NodeId, seq: u8) -> bool {
        if self.history.contains(&(sender, seq)) {
            return false;
        }
        if self.capacity > 0 {
            if self.history.len() == self.capacity {
                self.history.pop_front();
            }
            self.history.push_back((sender, seq));
        }
        true
    }
}

/// The CSMA layer of one node. `P` is the caller's packet handle.
#[derive(Clone, Debug)]
pub struct Csma<P> {
    cfg: CsmaConfig,
    queues: Vec<NeighborQueue<P>>,
    pool_used: u32,
    next_seq: u8,
    duplicates: DuplicateFilter,
}

impl<P: Clone> Csma<P> {
    /// A CSMA layer; `initial_seq` is the first MAC sequence number (Contiki starts from a
    /// random value; 0 is skipped).
    pub fn new(cfg: CsmaConfig, initial_seq: u8) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let duplicates = DuplicateFilter::new(cfg.duplicate_history as usize);
        Ok(Csma { cfg, queues: Vec::new(), pool_used: 0, next_seq: initial_seq, duplicates })
    }

    /// The configuration.
    pub fn config(&self) -> &CsmaConfig {
        &self.cfg
    }

    /// Packets held (all queues).
    pub fn queued(&self) -> u32 {
        self.pool_used
    }

    /// Neighbour queues in use.
    #[cfg(test)]
    pub fn neighbor_queues(&self) -> usize {
        self.queues.len()
    }

    fn take_seq(&mut self) -> u8 {
        if self.next_seq == 0 {
            self.next_seq = 1;
        }
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        seq
    }

    /// Hands a packet for `next_hop` to CSMA at `now` (`csma.c` `send_packet`).
    pub fn send(&mut self, now: Instant, next_hop: NodeId, packet: P) -> SendOutcome<P> {
        let existing = self.queues.iter().position(|q| q.next_hop == next_hop);
        if existing.is_none() && self.queues.len() >= self.cfg.max_neighbor_queues as usize {
            return SendOutcome::Dropped { packet, cause: DropCause::NoNeighborQueue };
        }
        if let (Some(k), Some(cap)) = (existing, self.cfg.max_packets_per_neighbor)
            && self.queues[k].packets.len() >= cap as usize
        {
            return SendOutcome::Dropped { packet, cause: DropCause::QueueFull };
        }
        if self.pool_used >= self.cfg.queuebuf_num {
            return SendOutcome::Dropped { packet, cause: DropCause::NoBuffer };
        }
        let seq = self.take_seq();
        self.pool_used += 1;
        let queued = Queued { packet, seq, noacks: 0, collisions: 0 };
        match existing {
            Some(k) => {
                self.queues[k].packets.push_back(queued);
                SendOutcome::Queued { seq, transmit_at: None }
            }
            None => {
                self.queues.push(NeighborQueue {
                    next_hop,
                    packets: VecDeque::from([queued]),
                    state: QueueState::Scheduled(now),
                });
                SendOutcome::Queued { seq, transmit_at: Some(now) }
            }
        }
    }

    /// The service of `next_hop`'s queue at `now` (`transmit_packet_list`): the burst to hand
    /// to the RDC, or `None` if no service is due then (a stale timer).
    pub fn service(&mut self, now: Instant, next_hop: NodeId) -> Option<Burst<P>> {
        let q = self.queues.iter_mut().find(|q| q.next_hop == next_hop)?;
        match q.state {
            QueueState::Scheduled(at) if at <= now && !q.packets.is_empty() => {
                q.state = QueueState::InService { remaining: q.packets.len() };
                let frames = q.packets.iter().map(|p| BurstFrame { packet: p.packet.clone(), seq: p.seq }).collect();
                Some(Burst { next_hop, frames })
            }
            _ => None,
        }
    }

    /// The RDC's result at `now` for the next packet of the burst in service for `next_hop`
    /// (`packet_sent`). A non-`Ok` result ends the burst.
    pub fn on_result<R: Rng + ?Sized>(
        &mut self,
        now: Instant,
        next_hop: NodeId,
        status: TxStatus,
        rng: &mut R,
    ) -> Result<Vec<CsmaOutput<P>>, CsmaError> {
        let k = self
            .queues
            .iter()
            .position(|q| q.next_hop == next_hop && matches!(q.state, QueueState::InService { .. }))
            .ok_or(CsmaError::NotInService(next_hop))?;
        let QueueState::InService { remaining } = self.queues[k].state else {
            return Err(CsmaError::NotInService(next_hop));
        };
        let mut out = Vec::new();
        let head = self.queues[k].packets.front_mut().ok_or(CsmaError::NotInService(next_hop))?;
        // What follows the burst: `None` = keep serving, `Some(delay)` = next service.
        let next = match status {
            TxStatus::Ok => {
                let p = self.queues[k].packets.pop_front().ok_or(CsmaError::NotInService(next_hop))?;
                self.pool_used -= 1;
                out.push(CsmaOutput::Sent { packet: p.packet, next_hop, noacks: p.noacks, collisions: p.collisions });
                if remaining > 1 {
                    self.queues[k].state = QueueState::InService { remaining: remaining - 1 };
                    None
                } else {
                    Some(self.cfg.time_base())
                }
            }
            TxStatus::NoAck => {
                head.noacks += 1;
                if head.noacks >= self.cfg.max_transmissions {
                    let p = self.queues[k].packets.pop_front().ok_or(CsmaError::NotInService(next_hop))?;
                    self.pool_used -= 1;
                    out.push(CsmaOutput::Dropped {
                        packet: p.packet,
                        next_hop,
                        cause: DropCause::RetryLimit,
                        collisions: p.collisions,
                    });
                    Some(self.cfg.time_base())
                } else {
                    let k_noacks = head.noacks;
                    Some(self.cfg.backoff(k_noacks, rng))
                }
            }
            TxStatus::Collision => {
                head.collisions += 1;
                let k_noacks = head.noacks;
                Some(self.cfg.backoff(k_noacks, rng))
            }
        };
        if let Some(delay) = next {
            if self.queues[k].packets.is_empty() {
                self.queues.remove(k);
            } else {
                let at = now + delay;
                self.queues[k].state = QueueState::Scheduled(at);
                out.push(CsmaOutput::TransmitAt { next_hop, at });
            }
        }
        Ok(out)
    }

    /// A frame from `sender` with sequence number `seq` was received: `true` to deliver it
    /// up, `false` for a duplicate (a retransmission after a lost ACK).
    pub fn on_receive(&mut self, sender: NodeId, seq: u8) -> bool {
        self.duplicates.accept(sender, seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multihop::ContikiVersion;
    use crate::multihop::medium::{Geometry, Medium, UdgmConfig};
    use crate::multihop::topology::Position;
    use coapcc_driver::rng::stream_rng;
    use coapcc_driver::scenario::multihop::{BackoffKind, Mote};
    use core::time::Duration;

    const T0: Instant = Instant::ZERO;

    fn z1() -> Csma<u32> {
        Csma::new(CsmaConfig::for_mote(ContikiVersion::V3_0, Mote::Z1), 1).unwrap()
    }

    #[test]
    fn the_fifth_packet_is_dropped_with_queuebuf_4() {
        // §6 check 7.
        let mut csma = z1();
        assert!(matches!(csma.send(T0, NodeId(1), 0), SendOutcome::Queued { transmit_at: Some(T0), .. }));
        for p in 1..4 {
            assert!(matches!(csma.send(T0, NodeId(1), p), SendOutcome::Queued { transmit_at: None, .. }));
        }
        assert_eq!(csma.send(T0, NodeId(1), 4), SendOutcome::Dropped { packet: 4, cause: DropCause::NoBuffer });
        assert_eq!(csma.queued(), 4);
    }

    #[test]
    fn a_third_next_hop_is_dropped_while_two_neighbour_queues_are_busy_even_with_free_buffers() {
        // §6 check 7.
        let mut csma: Csma<u32> = Csma::new(CsmaConfig::default(), 1).unwrap();
        csma.send(T0, NodeId(1), 0);
        csma.send(T0, NodeId(2), 1);
        assert_eq!(csma.send(T0, NodeId(3), 2), SendOutcome::Dropped { packet: 2, cause: DropCause::NoNeighborQueue });
        assert_eq!(csma.queued(), 2);
        assert_eq!(csma.neighbor_queues(), 2);
    }

    #[test]
    fn a_neighbour_queue_is_freed_when_it_empties() {
        let mut csma = z1();
        let mut rng = stream_rng(1, 0, 0);
        csma.send(T0, NodeId(1), 0);
        csma.send(T0, NodeId(2), 1);
        let burst = csma.service(T0, NodeId(1)).unwrap();
        assert_eq!(burst.frames.len(), 1);
        let out = csma.on_result(T0, NodeId(1), TxStatus::Ok, &mut rng).unwrap();
        assert_eq!(out, vec![CsmaOutput::Sent { packet: 0, next_hop: NodeId(1), noacks: 0, collisions: 0 }]);
        assert_eq!(csma.neighbor_queues(), 1);
        assert!(matches!(csma.send(T0, NodeId(3), 2), SendOutcome::Queued { transmit_at: Some(_), .. }));
    }

    #[test]
    fn the_per_neighbour_cap_drops_before_the_pool_is_full() {
        let cfg = CsmaConfig { max_packets_per_neighbor: Some(2), ..CsmaConfig::default() };
        let mut csma: Csma<u32> = Csma::new(cfg, 1).unwrap();
        csma.send(T0, NodeId(1), 0);
        csma.send(T0, NodeId(1), 1);
        assert_eq!(csma.send(T0, NodeId(1), 2), SendOutcome::Dropped { packet: 2, cause: DropCause::QueueFull });
    }

    #[test]
    fn a_burst_carries_the_queue_and_later_arrivals_wait_t_b_after_the_last_completion() {
        let mut csma = z1();
        let mut rng = stream_rng(2, 0, 0);
        csma.send(T0, NodeId(1), 0);
        let burst = csma.service(T0, NodeId(1)).unwrap();
        assert_eq!(burst.frames.iter().map(|f| f.packet).collect::<Vec<_>>(), vec![0]);
        // Two packets arrive during the service: they wait.
        csma.send(T0, NodeId(1), 1);
        csma.send(T0, NodeId(1), 2);
        let t1 = Instant::from_millis(70);
        let out = csma.on_result(t1, NodeId(1), TxStatus::Ok, &mut rng).unwrap();
        let t2 = t1 + Duration::from_millis(125);
        assert_eq!(out[1], CsmaOutput::TransmitAt { next_hop: NodeId(1), at: t2 });
        assert!(csma.service(t1, NodeId(1)).is_none(), "stale timer");
        let burst = csma.service(t2, NodeId(1)).unwrap();
        assert_eq!(burst.frames.iter().map(|f| f.packet).collect::<Vec<_>>(), vec![1, 2]);
        assert_ne!(burst.frames[0].seq, burst.frames[1].seq);
        let out = csma.on_result(t2, NodeId(1), TxStatus::Ok, &mut rng).unwrap();
        assert_eq!(out.len(), 1, "the burst goes on: {out:?}");
        let out = csma.on_result(t2, NodeId(1), TxStatus::Ok, &mut rng).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(csma.neighbor_queues(), 0);
        assert_eq!(csma.on_result(t2, NodeId(1), TxStatus::Ok, &mut rng), Err(CsmaError::NotInService(NodeId(1))));
    }

    #[test]
    fn a_failure_ends_the_burst_and_keeps_the_sequence_number_for_the_retry() {
        let mut csma = z1();
        let mut rng = stream_rng(3, 0, 0);
        csma.send(T0, NodeId(1), 0);
        csma.send(T0, NodeId(1), 1);
        let burst = csma.service(T0, NodeId(1)).unwrap();
        assert_eq!(burst.frames.len(), 2);
        let seq = burst.frames[1].seq;
        let out = csma.on_result(T0, NodeId(1), TxStatus::Ok, &mut rng).unwrap();
        assert!(matches!(out[..], [CsmaOutput::Sent { packet: 0, .. }]), "{out:?}");
        let t = Instant::from_millis(5);
        let out = csma.on_result(t, NodeId(1), TxStatus::NoAck, &mut rng).unwrap();
        let [CsmaOutput::TransmitAt { at, .. }] = out[..] else { panic!("{out:?}") };
        // After the first NOACK (3.0): 16 + U{0 … 31} ticks.
        let d = at - t;
        assert!(d >= Duration::from_millis(125) && d <= Duration::from_nanos(47 * 7_812_500), "{d:?}");
        let retry = csma.service(at, NodeId(1)).unwrap();
        assert_eq!(retry.frames.len(), 1);
        assert_eq!((retry.frames[0].packet, retry.frames[0].seq), (1, seq));
    }

    #[test]
    fn collisions_do_not_count_towards_the_retry_limit() {
        let mut csma = z1();
        let mut rng = stream_rng(4, 0, 0);
        csma.send(T0, NodeId(1), 7);
        let mut now = T0;
        for _ in 0..50 {
            csma.service(now, NodeId(1)).unwrap();
            let out = csma.on_result(now, NodeId(1), TxStatus::Collision, &mut rng).unwrap();
            let [CsmaOutput::TransmitAt { at, .. }] = out[..] else { panic!("{out:?}") };
            // k = 0 after collisions only: 16 + U{0 … 15} ticks.
            assert!(at - now >= Duration::from_millis(125) && at - now < Duration::from_millis(250));
            now = at;
        }
        csma.service(now, NodeId(1)).unwrap();
        let out = csma.on_result(now, NodeId(1), TxStatus::Ok, &mut rng).unwrap();
        assert_eq!(out, vec![CsmaOutput::Sent { packet: 7, next_hop: NodeId(1), noacks: 0, collisions: 50 }]);
    }

    #[test]
    fn a_packet_is_dropped_after_max_transmissions_noacks() {
        let mut csma = z1();
        let mut rng = stream_rng(5, 0, 0);
        csma.send(T0, NodeId(1), 9);
        let mut now = T0;
        for k in 1..=4 {
            csma.service(now, NodeId(1)).unwrap();
            let out = csma.on_result(now, NodeId(1), TxStatus::NoAck, &mut rng).unwrap();
            if k < 4 {
                let [CsmaOutput::TransmitAt { at, .. }] = out[..] else { panic!("{out:?}") };
                now = at;
            } else {
                assert_eq!(
                    out,
                    vec![CsmaOutput::Dropped {
                        packet: 9,
                        next_hop: NodeId(1),
                        cause: DropCause::RetryLimit,
                        collisions: 0
                    }]
                );
            }
        }
        assert_eq!(csma.queued(), 0);
    }

    #[test]
    fn the_3_0_backoff_means_after_each_noack_match_the_spec() {
        // §6 check 5: 246.1, 371.1, 621.1, 621.1 ms for k = 1…4 (analytic and 20 000 draws).
        let cfg = CsmaConfig::for_version(ContikiVersion::V3_0);
        let mut rng = stream_rng(6, 0, 0);
        for (k, mean_ms) in [(1, 246.1), (2, 371.1), (3, 621.1), (4, 621.1)] {
            assert!((cfg.mean_backoff_nanos(k) / 1e6 - mean_ms).abs() < 0.05, "k = {k}");
            let n = 20_000;
            let sum: f64 = (0..n).map(|_| cfg.backoff(k, &mut rng).as_secs_f64() * 1e3).sum();
            // The window is at most 128 ticks = 1 s wide: sd ≤ 289 ms, of the mean ≤ 2.1 ms.
            assert!((sum / f64::from(n) - mean_ms).abs() < 8.0, "k = {k}: {}", sum / f64::from(n));
        }
        let sum: f64 = [1, 2, 3, 4].iter().map(|&k| cfg.mean_backoff_nanos(k) / 1e6).sum();
        assert!((sum - 1859.4).abs() < 0.1, "{sum}");
    }

    #[test]
    fn every_backoff_draw_lies_on_the_tick_grid_inside_its_window() {
        for version in [ContikiVersion::V3_0, ContikiVersion::V2_7] {
            let cfg = CsmaConfig::for_version(version);
            let mut rng = stream_rng(7, 0, 0);
            for k in 0..6 {
                let hi = 16 + cfg.backoff_multiple(k) * 16 - 1;
                let mut seen_hi = false;
                for _ in 0..4000 {
                    let ns = cfg.backoff(k, &mut rng).as_nanos() as u64;
                    assert_eq!(ns % 7_812_500, 0);
                    let ticks = ns / 7_812_500;
                    assert!((16..=hi).contains(&ticks), "{version:?} k = {k}: {ticks}");
                    seen_hi |= ticks == hi;
                }
                assert!(seen_hi, "{version:?} k = {k}");
            }
        }
    }

    #[test]
    fn the_2_7_backoff_grows_linearly_and_caps_at_three_windows() {
        let cfg = CsmaConfig::for_version(ContikiVersion::V2_7);
        assert_eq!((0..5).map(|k| cfg.backoff_multiple(k)).collect::<Vec<_>>(), vec![1, 2, 3, 3, 3]);
        let v3 = CsmaConfig::for_version(ContikiVersion::V3_0);
        assert_eq!((0..5).map(|k| v3.backoff_multiple(k)).collect::<Vec<_>>(), vec![1, 2, 4, 8, 8]);
    }

    #[test]
    fn csma_loss_over_a_lossy_link_matches_q_to_the_n() {
        // §6 check 6: per-attempt failure q = 1 − SR_tx² (data and ACK both through UDGM).
        assert!((drop_probability(0.19, 5) - 2.476e-4).abs() < 1e-7);
        let sr = 0.7_f64;
        let q = 1.0 - sr * sr;
        let cfg = UdgmConfig { success_ratio_tx: sr, ..UdgmConfig::default() };
        let pos = [Position::xy(0.0, 0.0), Position::xy(40.0, 0.0)];
        let mut medium = Medium::new(Geometry::new(&pos, &cfg).unwrap(), &cfg).unwrap();
        medium.set_radio(T0, NodeId(0), true).unwrap();
        medium.set_radio(T0, NodeId(1), true).unwrap();
        let mut csma: Csma<u32> = Csma::new(CsmaConfig::default(), 1).unwrap();
        let mut rng = stream_rng(8, 0, 0);
        let (packets, mut drops, mut attempts) = (20_000u32, 0u32, 0u32);
        let airtime = Duration::from_millis(3);
        let mut now = T0;
        for p in 0..packets {
            let SendOutcome::Queued { transmit_at: Some(mut at), .. } = csma.send(now, NodeId(1), p) else { panic!() };
            loop {
                now = at;
                csma.service(now, NodeId(1)).unwrap();
                attempts += 1;
                let data = medium.start_tx(now, NodeId(0), airtime, &mut rng).unwrap();
                now = now + airtime;
                let got = medium.end_tx(now, data.id).unwrap().iter().any(|e| e.ok);
                let acked = got && {
                    let ack = medium.start_tx(now, NodeId(1), airtime, &mut rng).unwrap();
                    now = now + airtime;
                    medium.end_tx(now, ack.id).unwrap().iter().any(|e| e.ok)
                };
                let status = if acked { TxStatus::Ok } else { TxStatus::NoAck };
                match csma.on_result(now, NodeId(1), status, &mut rng).unwrap().as_slice() {
                    [CsmaOutput::TransmitAt { at: next, .. }] => at = *next,
                    [CsmaOutput::Dropped { .. }] => {
                        drops += 1;
                        break;
                    }
                    [CsmaOutput::Sent { .. }] => break,
                    other => panic!("{other:?}"),
                }
            }
        }
        let p_drop = drop_probability(q, 5);
        let sd = (f64::from(packets) * p_drop * (1.0 - p_drop)).sqrt();
        assert!((f64::from(drops) - f64::from(packets) * p_drop).abs() < 5.0 * sd, "{drops} drops");
        let mean = f64::from(attempts) / f64::from(packets);
        assert!((mean - mean_attempts(q, 5)).abs() < 0.03, "{mean} vs {}", mean_attempts(q, 5));
    }

    #[test]
    fn duplicates_among_the_last_16_are_filtered() {
        let mut csma = z1();
        assert!(csma.on_receive(NodeId(3), 10));
        assert!(!csma.on_receive(NodeId(3), 10), "a retransmission after a lost ACK");
        assert!(csma.on_receive(NodeId(4), 10), "another sender");
        for s in 11..27 {
            assert!(csma.on_receive(NodeId(3), s));
        }
        assert!(csma.on_receive(NodeId(3), 10), "forgotten after 16 newer pairs");
    }

    #[test]
    fn sequence_numbers_skip_zero() {
        let mut csma: Csma<u32> = Csma::new(CsmaConfig { queuebuf_num: 4, ..CsmaConfig::default() }, 255).unwrap();
        let seqs: Vec<u8> = (0..3)
            .map(|p| match csma.send(T0, NodeId(1), p) {
                SendOutcome::Queued { seq, .. } => seq,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(seqs, vec![255, 1, 2]);
    }

    #[test]
    fn configuration_errors_name_the_key() {
        let bad = CsmaConfig { queuebuf_num: 0, ..CsmaConfig::default() };
        assert_eq!(Csma::<u32>::new(bad, 0).unwrap_err().key, "queuebuf_num");
        let parsed: CsmaConfig = toml::from_str("queuebuf_num = 4\nbackoff = \"linear\"").unwrap();
        assert_eq!(parsed.backoff, BackoffKind::Linear);
        assert!(toml::from_str::<CsmaConfig>("queue = 4").is_err());
        assert_eq!(CsmaConfig::default().time_base(), Duration::from_millis(125));
    }
}
