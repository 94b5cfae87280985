//! Cooja's UDGM radio medium ("Unit Disk Graph Medium: Distance Loss", multihop.md §1.3) as
//! a sans-IO state: which frames are on air, which radios receive them, which are corrupted,
//! and what a CCA sees.
//!
//! [`UdgmConfig`] holds the ranges and success ratios; [`Geometry`] classifies every ordered
//! pair of nodes once (connected within `R_tx`, interferer within `R_int`, carrier-sensed
//! within the CCA range derived from UDGM's RSSI model and the CC2420 threshold); [`Medium`]
//! is driven by the caller with [`Medium::start_tx`], [`Medium::end_tx`],
//! [`Medium::set_radio`] and [`Medium::cca`]. Hidden terminals are a consequence of the
//! geometry (a node in `(R_cs, R_int]` corrupts receptions but never defers), not a
//! probability. Randomness (the `SR_tx` and `p_rx(d)` draws) comes from the caller's
//! generator, in a fixed order: the sender's `SR_tx` draw, then one `p_rx` draw per eligible
//! receiver in id order (no draw when a probability is 1).

use coapcc_core::{ConfigError, Instant};
use coapcc_driver::rng::bernoulli_f64;
pub use coapcc_driver::scenario::multihop::UdgmConfig;
use rand_core::Rng;

use super::NodeId;
use super::topology::Position;

/// How one node's radio relates to another node's transmissions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LinkClass {
    /// Within `R_tx`: may receive, with probability `p_rx`.
    Connected {
        /// `p_rx(d)` of §1.3.
        p_rx: f64,
    },
    /// Within `R_int` but beyond `R_tx`: interfered, never receives.
    Interferer,
    /// Beyond `R_int`: no effect.
    Out,
}

/// Every ordered pair of nodes classified once (§1.3); symmetric since UDGM is.
#[derive(Clone, Debug)]
pub struct Geometry {
    n: usize,
    distance_m: Vec<f64>,
    class: Vec<LinkClass>,
    senses: Vec<bool>,
}

impl Geometry {
    /// Classifies the pairs of `positions` under `cfg` (validated first).
    pub fn new(positions: &[Position], cfg: &UdgmConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let n = positions.len();
        let (mut distance_m, mut class, mut senses) =
            (Vec::with_capacity(n * n), Vec::with_capacity(n * n), Vec::with_capacity(n * n));
        let r_int = cfg.effective_interference_range_m();
        for a in positions {
            for b in positions {
                let d = a.distance_m(b);
                distance_m.push(d);
                class.push(if d <= cfg.tx_range_m {
                    LinkClass::Connected { p_rx: cfg.p_rx(d) }
                } else if d <= r_int {
                    LinkClass::Interferer
                } else {
                    LinkClass::Out
                });
                senses.push(cfg.senses(d));
            }
        }
        Ok(Geometry { n, distance_m, class, senses })
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.n
    }

    /// `true` if there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    fn at(&self, a: NodeId, b: NodeId) -> Option<usize> {
        let (a, b) = (a.index(), b.index());
        (a < self.n && b < self.n).then_some(a * self.n + b)
    }

    /// Distance between two nodes, m (`None` for an unknown id).
    pub fn distance_m(&self, a: NodeId, b: NodeId) -> Option<f64> {
        self.at(a, b).map(|i| self.distance_m[i])
    }

    /// How `receiver` relates to `sender`'s frames ([`LinkClass::Out`] for itself or an
    /// unknown id).
    pub fn class(&self, sender: NodeId, receiver: NodeId) -> LinkClass {
        match self.at(sender, receiver) {
            Some(_) if sender == receiver => LinkClass::Out,
            Some(i) => self.class[i],
            None => LinkClass::Out,
        }
    }

    /// Whether `listener`'s CCA is busy while `sender` transmits.
    pub fn senses(&self, listener: NodeId, sender: NodeId) -> bool {
        listener != sender && self.at(listener, sender).is_some_and(|i| self.senses[i])
    }

    /// Whether `receiver` lies within `R_int` of `sender` (connected or interferer).
    pub fn interferes(&self, sender: NodeId, receiver: NodeId) -> bool {
        !matches!(self.class(sender, receiver), LinkClass::Out)
    }

    /// The nodes within `R_tx` of `node`, in id order.
    pub fn neighbours(&self, node: NodeId) -> Vec<NodeId> {
        (0..self.n)
            .map(NodeId::from_index)
            .filter(|&o| matches!(self.class(node, o), LinkClass::Connected { .. }))
            .collect()
    }
}

/// A frame on the medium, numbered by [`Medium::start_tx`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FrameId(pub u64);

/// What [`Medium::start_tx`] decided at the frame's start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TxStart {
    /// The frame's number (pass it to [`Medium::end_tx`] at its end).
    pub id: FrameId,
    /// The `1 − SR_tx` draw made the frame void: nobody receives it, senses it or is
    /// interfered by it.
    pub void: bool,
    /// The radios that started receiving it, in id order (each may still be corrupted).
    pub receivers: Vec<NodeId>,
}

/// The fate of one reception, reported by [`Medium::end_tx`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RxEnd {
    /// The receiving node.
    pub node: NodeId,
    /// `true` if the frame was decoded; `false` if it was corrupted (overlap, radio off,
    /// own transmission).
    pub ok: bool,
}

/// A caller error: the medium is left unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MediumError {
    /// The node id is not in the geometry.
    UnknownNode(NodeId),
    /// The node is already transmitting another frame.
    AlreadyTransmitting(NodeId),
    /// The frame is not on air.
    UnknownFrame(FrameId),
}

impl core::fmt::Display for MediumError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            MediumError::UnknownNode(n) => write!(f, "unknown node {}", n.0),
            MediumError::AlreadyTransmitting(n) => write!(f, "node {} is already transmitting", n.0),
            MediumError::UnknownFrame(id) => write!(f, "frame {} is not on air", id.0),
        }
    }
}

impl std::error::Error for MediumError {}

#[derive(Clone, Copy, Debug)]
struct OnAir {
    id: FrameId,
    sender: NodeId,
    start: Instant,
    end: Instant,
    void: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Radio {
    on: bool,
    transmitting: Option<FrameId>,
    /// The frame being received and whether it is already corrupted.
    receiving: Option<(FrameId, bool)>,
}

/// The shared medium: frames on air and every radio's state (§1.3 rules 1–4).
///
/// Frames occupy the half-open interval `[start, start + airtime)`. At equal instants the
/// caller reports frame ends ([`Medium::end_tx`]) before it starts new frames, so that a
/// radio whose reception ends at `t` can receive a frame starting at `t`.
#[derive(Clone, Debug)]
pub struct Medium {
    geometry: Geometry,
    success_ratio_tx: f64,
    radios: Vec<Radio>,
    on_air: Vec<OnAir>,
    next_id: u64,
    /// Per sender: the nodes within its `R_int` ([`Geometry::interferes`]) with their class,
    /// in id order — the only radios a frame start can change, so it visits no other.
    reach: Vec<Vec<(usize, LinkClass)>>,
}

impl Medium {
    /// A medium over `geometry` with every radio off; `cfg` gives `SR_tx` (the rest is in
    /// the geometry).
    pub fn new(geometry: Geometry, cfg: &UdgmConfig) -> Result<Self, ConfigError> {
        cfg.validate()?;
        let radios = vec![Radio::default(); geometry.len()];
        let reach = (0..geometry.len())
            .map(|s| {
                (0..geometry.len())
                    .map(|r| (r, geometry.class(NodeId::from_index(s), NodeId::from_index(r))))
                    .filter(|(_, class)| !matches!(class, LinkClass::Out))
                    .collect()
            })
            .collect();
        Ok(Medium { geometry, success_ratio_tx: cfg.success_ratio_tx, radios, on_air: Vec::new(), next_id: 0, reach })
    }

    /// The geometry.
    #[cfg(test)]
    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    fn check(&self, node: NodeId) -> Result<usize, MediumError> {
        let i = node.index();
        if i < self.radios.len() { Ok(i) } else { Err(MediumError::UnknownNode(node)) }
    }

    /// Turns `node`'s radio on or off at `now`. Turning it off corrupts the frame it is
    /// receiving (rule 3); a radio turned on cannot receive a frame already on air (rule 4).
    pub fn set_radio(&mut self, _now: Instant, node: NodeId, on: bool) -> Result<(), MediumError> {
        let i = self.check(node)?;
        let radio = &mut self.radios[i];
        radio.on = on || radio.transmitting.is_some();
        if !radio.on
            && let Some((_, corrupted)) = radio.receiving.as_mut()
        {
            *corrupted = true;
        }
        Ok(())
    }

    /// Whether `node`'s radio is on.
    pub fn radio_on(&self, node: NodeId) -> bool {
        self.radios.get(node.index()).is_some_and(|r| r.on)
    }

    /// Whether `node` is receiving a frame that is not yet known to be corrupted.
    pub fn is_receiving(&self, node: NodeId) -> bool {
        self.radios.get(node.index()).is_some_and(|r| matches!(r.receiving, Some((_, false))))
    }

    /// The frame `node` is receiving (possibly already corrupted).
    pub fn receiving_frame(&self, node: NodeId) -> Option<FrameId> {
        self.radios.get(node.index()).and_then(|r| r.receiving.map(|(id, _)| id))
    }

    /// Whether `node` is transmitting.
    pub fn is_transmitting(&self, node: NodeId) -> bool {
        self.radios.get(node.index()).is_some_and(|r| r.transmitting.is_some())
    }

    fn active(&self, now: Instant) -> impl Iterator<Item = &OnAir> {
        self.on_air.iter().filter(move |f| !f.void && f.start <= now && now < f.end)
    }

    /// A CCA by `node` at `now` (instantaneous sample, §1.2): busy iff a non-void frame from
    /// another node within the carrier-sense range is on air.
    pub fn cca(&self, now: Instant, node: NodeId) -> bool {
        self.active(now).any(|f| self.geometry.senses(node, f.sender))
    }

    /// Whether any non-void frame from another node within `R_int` of `node` is on air
    /// (energy that would interfere with a reception at `node`).
    pub fn interfered(&self, now: Instant, node: NodeId) -> bool {
        self.active(now).any(|f| f.sender != node && self.geometry.interferes(f.sender, node))
    }

    /// `sender` starts a frame of duration `airtime` at `now` (rules 1–3). Its own reception,
    /// if any, is corrupted; every radio within `R_int` that is receiving another frame has
    /// that frame corrupted; every eligible radio within `R_tx` (on, not transmitting, no
    /// other frame within `R_int` on air) starts receiving after its `p_rx` draw.
    pub fn start_tx<R: Rng + ?Sized>(
        &mut self,
        now: Instant,
        sender: NodeId,
        airtime: core::time::Duration,
        rng: &mut R,
    ) -> Result<TxStart, MediumError> {
        let s = self.check(sender)?;
        if self.radios[s].transmitting.is_some() {
            return Err(MediumError::AlreadyTransmitting(sender));
        }
        let id = FrameId(self.next_id);
        self.next_id += 1;
        {
            let radio = &mut self.radios[s];
            radio.on = true;
            radio.transmitting = Some(id);
            if let Some((_, corrupted)) = radio.receiving.as_mut() {
                *corrupted = true;
            }
        }
        let void = !bernoulli_f64(rng, self.success_ratio_tx);
        let mut receivers = Vec::new();
        if !void {
            for k in 0..self.reach[s].len() {
                let (r, class) = self.reach[s][k];
                let node = NodeId::from_index(r);
                let eligible = matches!(class, LinkClass::Connected { .. }) && {
                    let radio = &self.radios[r];
                    radio.on && radio.transmitting.is_none() && radio.receiving.is_none() && !self.interfered(now, node)
                };
                let received = eligible
                    && match class {
                        LinkClass::Connected { p_rx } => bernoulli_f64(rng, p_rx),
                        _ => false,
                    };
                // A reception whose frame has already ended (its end not yet reported at this
                // same instant) is not overlapped by the new frame.
                let still_on_air = |g: FrameId| self.on_air.iter().any(|f| f.id == g && now < f.end);
                let overlapped = self.radios[r].receiving.is_some_and(|(g, _)| still_on_air(g));
                let radio = &mut self.radios[r];
                if received {
                    radio.receiving = Some((id, false));
                    receivers.push(node);
                } else if overlapped && let Some((_, corrupted)) = radio.receiving.as_mut() {
                    *corrupted = true;
                }
            }
        }
        self.on_air.push(OnAir { id, sender, start: now, end: now + airtime, void });
        Ok(TxStart { id, void, receivers })
    }

    /// The frame `id` ends at `now`: the sender stops transmitting (its radio stays on) and
    /// every radio that was receiving it learns whether it decoded it, in id order.
    pub fn end_tx(&mut self, _now: Instant, id: FrameId) -> Result<Vec<RxEnd>, MediumError> {
        let k = self.on_air.iter().position(|f| f.id == id).ok_or(MediumError::UnknownFrame(id))?;
        let frame = self.on_air.remove(k);
        let sender = &mut self.radios[frame.sender.index()];
        if sender.transmitting == Some(id) {
            sender.transmitting = None;
        }
        let mut ends = Vec::new();
        for (r, radio) in self.radios.iter_mut().enumerate() {
            if let Some((rid, corrupted)) = radio.receiving
                && rid == id
            {
                radio.receiving = None;
                ends.push(RxEnd { node: NodeId::from_index(r), ok: !corrupted });
            }
        }
        Ok(ends)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::multihop::ContikiVersion;
    use coapcc_driver::rng::stream_rng;
    use core::time::Duration;

    fn line(xs: &[f64]) -> Vec<Position> {
        xs.iter().map(|&x| Position::xy(x, 0.0)).collect()
    }

    fn medium(positions: &[Position], cfg: &UdgmConfig) -> Medium {
        let mut m = Medium::new(Geometry::new(positions, cfg).unwrap(), cfg).unwrap();
        for i in 0..positions.len() {
            m.set_radio(Instant::ZERO, NodeId::from_index(i), true).unwrap();
        }
        m
    }

    const T80: Duration = Duration::from_micros(2_752);

    #[test]
    fn cca_is_busy_at_47_6_m_and_idle_at_47_7_m_with_contiki_3_in_cooja() {
        // §6 check 8: R_cs = 47.65 m (RSSI −90.92 reads −90; −91.09 reads −91).
        let cfg = UdgmConfig::for_version(ContikiVersion::V3_0);
        assert!(cfg.senses(47.6));
        assert!(!cfg.senses(47.7));
        let m = medium(&line(&[0.0, 47.6, 47.6 + 47.7]), &cfg);
        let g = m.geometry();
        assert!(g.senses(NodeId(1), NodeId(0)));
        assert!(g.senses(NodeId(2), NodeId(1)) == cfg.senses(47.7));
    }

    #[test]
    fn cca_range_is_39_4_m_with_contiki_2_7_on_hardware() {
        let cfg = UdgmConfig::for_version(ContikiVersion::V2_7);
        assert!(cfg.senses(39.4));
        assert!(!cfg.senses(39.5));
        // The FlockLab surrogate's 38-m lattice links are all sensed.
        assert!(cfg.senses(38.0));
    }

    #[test]
    fn interferers_beyond_the_transmission_range_are_never_sensed() {
        let cfg = UdgmConfig::default();
        for d in [50.1, 56.6, 80.0, 100.0] {
            assert!(!cfg.senses(d), "{d} m");
        }
        let overridden = UdgmConfig { cca_range_m: Some(60.0), ..UdgmConfig::default() };
        assert!(overridden.senses(56.6));
        assert!(!overridden.senses(60.1));
    }

    #[test]
    fn the_geometry_classifies_lattice_neighbours_diagonals_and_far_nodes() {
        // Lim's 40 m lattice: neighbours linked and sensed, diagonals (56.6 m) and two-away
        // nodes (80 m) hidden interferers, 120 m out of range.
        let pos = vec![
            Position::xy(0.0, 0.0),
            Position::xy(40.0, 0.0),
            Position::xy(40.0, 40.0),
            Position::xy(80.0, 0.0),
            Position::xy(120.0, 0.0),
        ];
        let g = Geometry::new(&pos, &UdgmConfig::default()).unwrap();
        assert_eq!(g.class(NodeId(0), NodeId(1)), LinkClass::Connected { p_rx: 1.0 });
        assert!(g.senses(NodeId(0), NodeId(1)));
        for far in [NodeId(2), NodeId(3)] {
            assert_eq!(g.class(NodeId(0), far), LinkClass::Interferer);
            assert!(!g.senses(NodeId(0), far));
        }
        assert_eq!(g.class(NodeId(0), NodeId(4)), LinkClass::Out);
        assert_eq!(g.neighbours(NodeId(1)), vec![NodeId(0), NodeId(2), NodeId(3)]);
        assert_eq!(g.class(NodeId(0), NodeId(0)), LinkClass::Out);
        assert_eq!(g.class(NodeId(0), NodeId(9)), LinkClass::Out);
    }

    #[test]
    fn an_isolated_frame_is_received_by_every_radio_in_range_that_is_on() {
        let cfg = UdgmConfig::default();
        let mut m = medium(&line(&[0.0, 40.0, 80.0, 30.0]), &cfg);
        m.set_radio(Instant::ZERO, NodeId(3), false).unwrap();
        let mut rng = stream_rng(1, 0, 0);
        let tx = m.start_tx(Instant::ZERO, NodeId(1), T80, &mut rng).unwrap();
        assert!(!tx.void);
        assert_eq!(tx.receivers, vec![NodeId(0), NodeId(2)]);
        assert!(m.is_receiving(NodeId(0)));
        let ends = m.end_tx(Instant::ZERO + T80, tx.id).unwrap();
        assert_eq!(ends, vec![RxEnd { node: NodeId(0), ok: true }, RxEnd { node: NodeId(2), ok: true }]);
        assert!(!m.is_transmitting(NodeId(1)));
    }

    #[test]
    fn two_hidden_senders_80_m_apart_lose_both_frames_at_the_middle_receiver() {
        // §6 check 8: the senders do not sense each other (80 m > R_cs); simultaneous frames
        // are both lost at the receiver 40 m from each.
        let cfg = UdgmConfig::default();
        let mut m = medium(&line(&[0.0, 40.0, 80.0]), &cfg);
        let mut rng = stream_rng(2, 0, 0);
        let t0 = Instant::ZERO;
        let a = m.start_tx(t0, NodeId(0), T80, &mut rng).unwrap();
        assert_eq!(a.receivers, vec![NodeId(1)]);
        let t1 = t0 + Duration::from_millis(1);
        assert!(!m.cca(t1, NodeId(2)), "the other sender is hidden");
        let b = m.start_tx(t1, NodeId(2), T80, &mut rng).unwrap();
        assert!(b.receivers.is_empty(), "the receiver is interfered");
        assert!(!m.is_receiving(NodeId(1)));
        assert_eq!(m.end_tx(t0 + T80, a.id).unwrap(), vec![RxEnd { node: NodeId(1), ok: false }]);
        assert!(m.end_tx(t1 + T80, b.id).unwrap().is_empty());
    }

    #[test]
    fn two_senders_45_m_apart_sense_each_other_so_the_second_defers() {
        // §6 check 8: at 45 m (3.0) the second sender's CCA is busy (COLLISION upstream).
        let cfg = UdgmConfig::default();
        let mut m = medium(&line(&[0.0, 22.5, 45.0]), &cfg);
        let mut rng = stream_rng(3, 0, 0);
        m.start_tx(Instant::ZERO, NodeId(0), T80, &mut rng).unwrap();
        assert!(m.cca(Instant::from_nanos(1_000_000), NodeId(2)));
        assert!(!m.cca(Instant::ZERO + T80, NodeId(2)), "the channel is idle once the frame ends");
    }

    #[test]
    fn an_interferer_beyond_transmission_range_corrupts_a_reception() {
        // Receiver at 40 m from the sender, interferer 60 m from the receiver (inside R_int).
        let cfg = UdgmConfig::default();
        let mut m = medium(&line(&[0.0, 40.0, 100.0]), &cfg);
        let mut rng = stream_rng(4, 0, 0);
        let a = m.start_tx(Instant::ZERO, NodeId(0), T80, &mut rng).unwrap();
        let b = m.start_tx(Instant::from_nanos(500_000), NodeId(2), T80, &mut rng).unwrap();
        assert!(b.receivers.is_empty());
        assert_eq!(m.end_tx(Instant::ZERO + T80, a.id).unwrap(), vec![RxEnd { node: NodeId(1), ok: false }]);
    }

    #[test]
    fn a_radio_turned_on_during_a_frame_is_interfered_until_that_frame_ends() {
        // Rule 4: node 1 wakes up while node 0's frame is on air, so it misses that frame and
        // also node 2's frame that starts before node 0's ends.
        let cfg = UdgmConfig::default();
        let mut m = medium(&line(&[0.0, 40.0, 80.0]), &cfg);
        m.set_radio(Instant::ZERO, NodeId(1), false).unwrap();
        let mut rng = stream_rng(5, 0, 0);
        let a = m.start_tx(Instant::ZERO, NodeId(0), T80, &mut rng).unwrap();
        assert!(a.receivers.is_empty());
        m.set_radio(Instant::from_nanos(100_000), NodeId(1), true).unwrap();
        let b = m.start_tx(Instant::from_nanos(200_000), NodeId(2), T80, &mut rng).unwrap();
        assert!(b.receivers.is_empty());
        m.end_tx(Instant::ZERO + T80, a.id).unwrap();
        m.end_tx(Instant::from_nanos(200_000) + T80, b.id).unwrap();
        // Once both have ended, the next frame is received.
        let c = m.start_tx(Instant::from_millis(10), NodeId(0), T80, &mut rng).unwrap();
        assert_eq!(c.receivers, vec![NodeId(1)]);
    }

    #[test]
    fn a_frame_starting_when_another_ends_does_not_corrupt_it() {
        let cfg = UdgmConfig::default();
        let mut m = medium(&line(&[0.0, 40.0, 80.0]), &cfg);
        let mut rng = stream_rng(10, 0, 0);
        let a = m.start_tx(Instant::ZERO, NodeId(0), T80, &mut rng).unwrap();
        // Node 2 starts exactly when node 0's frame ends, before that end is reported.
        let b = m.start_tx(Instant::ZERO + T80, NodeId(2), T80, &mut rng).unwrap();
        assert_eq!(m.end_tx(Instant::ZERO + T80, a.id).unwrap(), vec![RxEnd { node: NodeId(1), ok: true }]);
        assert!(b.receivers.is_empty(), "node 1 was still busy with the unreported end");
    }

    #[test]
    fn turning_the_radio_off_corrupts_the_frame_being_received() {
        let cfg = UdgmConfig::default();
        let mut m = medium(&line(&[0.0, 40.0]), &cfg);
        let mut rng = stream_rng(6, 0, 0);
        let a = m.start_tx(Instant::ZERO, NodeId(0), T80, &mut rng).unwrap();
        m.set_radio(Instant::from_nanos(1_000), NodeId(1), false).unwrap();
        assert_eq!(m.end_tx(Instant::ZERO + T80, a.id).unwrap(), vec![RxEnd { node: NodeId(1), ok: false }]);
    }

    #[test]
    fn a_void_frame_is_neither_received_nor_sensed_nor_interfering() {
        let cfg = UdgmConfig { success_ratio_tx: 0.0, ..UdgmConfig::default() };
        let mut m = medium(&line(&[0.0, 40.0, 20.0]), &cfg);
        let mut rng = stream_rng(7, 0, 0);
        let a = m.start_tx(Instant::ZERO, NodeId(0), T80, &mut rng).unwrap();
        assert!(a.void && a.receivers.is_empty());
        assert!(!m.cca(Instant::from_nanos(1_000), NodeId(2)));
        assert!(!m.interfered(Instant::from_nanos(1_000), NodeId(1)));
    }

    #[test]
    fn the_tx_success_ratio_voids_the_expected_share_of_frames() {
        // 1 − SR_tx per frame, SR_tx = 0.9: 10 000 frames, binomial sd 30.
        let cfg = UdgmConfig { success_ratio_tx: 0.9, ..UdgmConfig::default() };
        let mut m = medium(&line(&[0.0, 40.0]), &cfg);
        let mut rng = stream_rng(8, 0, 0);
        let mut received = 0;
        for k in 0..10_000u64 {
            let t = Instant::from_millis(10 * k);
            let tx = m.start_tx(t, NodeId(0), T80, &mut rng).unwrap();
            received += m.end_tx(t + T80, tx.id).unwrap().iter().filter(|e| e.ok).count();
        }
        assert!((received as f64 - 9_000.0).abs() < 150.0, "{received}");
    }

    #[test]
    fn the_rx_success_ratio_falls_with_the_square_of_the_distance() {
        let cfg = UdgmConfig { success_ratio_rx: 0.5, ..UdgmConfig::default() };
        assert_eq!(cfg.p_rx(0.0), 1.0);
        assert!((cfg.p_rx(25.0) - 0.875).abs() < 1e-12);
        assert!((cfg.p_rx(50.0) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn configuration_errors_name_the_key() {
        let bad = UdgmConfig { success_ratio_tx: 1.5, ..UdgmConfig::default() };
        assert_eq!(bad.validate().unwrap_err().key, "success_ratio_tx");
        let bad = UdgmConfig { tx_range_m: 0.0, ..UdgmConfig::default() };
        assert_eq!(Geometry::new(&[], &bad).unwrap_err().key, "tx_range_m");
        let parsed: UdgmConfig = toml::from_str("success_ratio_tx = 0.94\ncca_range_m = 39.4").unwrap();
        assert_eq!(parsed.cca_range_m, Some(39.4));
        assert!(toml::from_str::<UdgmConfig>("r_tx = 50").is_err());
    }

    #[test]
    fn bad_calls_are_errors_not_panics() {
        let cfg = UdgmConfig::default();
        let mut m = medium(&line(&[0.0, 40.0]), &cfg);
        let mut rng = stream_rng(9, 0, 0);
        assert_eq!(m.start_tx(Instant::ZERO, NodeId(5), T80, &mut rng), Err(MediumError::UnknownNode(NodeId(5))));
        m.start_tx(Instant::ZERO, NodeId(0), T80, &mut rng).unwrap();
        assert_eq!(
            m.start_tx(Instant::ZERO, NodeId(0), T80, &mut rng),
            Err(MediumError::AlreadyTransmitting(NodeId(0)))
        );
        assert_eq!(m.end_tx(Instant::ZERO, FrameId(42)), Err(MediumError::UnknownFrame(FrameId(42))));
    }
}
