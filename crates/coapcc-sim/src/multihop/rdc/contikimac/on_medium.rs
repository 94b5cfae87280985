//! ContikiMAC on the UDGM medium: the pieces run together through a small event loop
//! (senders' [`StrobeTrain`]s, receivers' channel checks and [`Listener`]s, hardware ACKs),
//! for the §6 checks that need the medium: one-hop delivery without (3) and with (4) phase
//! lock, the cost of a failed train and of a CSMA drop (5), hidden-terminal trains (9), and
//! determinism (14). A prototype of what the engine's `mac.rs` does for every mote.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use coapcc_core::Instant;
use coapcc_driver::rng::{SimRng, below, stream_rng};
use core::time::Duration;

use super::super::testutil::{at_ms, ms, ms_of};
use super::{ContikiMacConfig, FrameEnd, ListenStep, Listener, PhaseTable, StrobeTrain, TrainKind};
use crate::multihop::NodeId;
use crate::multihop::csma::{Csma, CsmaOutput, SendOutcome, TxStatus};
use crate::multihop::medium::{FrameId, Geometry, Medium, UdgmConfig};
use crate::multihop::phy::PhyConfig;
use crate::multihop::rdc::{AckActivity, RdcStep};
use crate::multihop::topology::Position;
use coapcc_driver::scenario::multihop::CsmaConfig;

#[derive(Clone, Copy, Debug)]
enum Pending {
    Step(RdcStep),
    AckCheck(Instant),
}

struct Sender {
    node: NodeId,
    dst: NodeId,
    train: Option<StrobeTrain>,
    pending: Option<Pending>,
    ack_ok: bool,
    result: Option<(Instant, TxStatus)>,
}

struct Receiver {
    node: NodeId,
    phase: Duration,
    listener: Option<Listener>,
    generation: u64,
    answers: bool,
    deliveries: Vec<(Instant, NodeId)>,
    busy_until_ack_end: bool,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Sender(usize),
    FrameEnd(FrameId),
    RxCca(usize, u32),
    RxTimeout(usize, u64),
    AckStart(usize, NodeId),
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    from: NodeId,
    to: NodeId,
    ack: bool,
}

struct World {
    medium: Medium,
    cfg: ContikiMacConfig,
    phy: PhyConfig,
    queue: BinaryHeap<Reverse<(Instant, u64)>>,
    events: HashMap<u64, Ev>,
    next_event: u64,
    frames: HashMap<FrameId, Frame>,
    senders: Vec<Sender>,
    receivers: Vec<Receiver>,
    rng: SimRng,
    /// Every data copy put on air: (sender, start, end).
    copies: Vec<(NodeId, Instant, Instant)>,
}

impl World {
    fn new(positions: &[Position], rng: SimRng) -> Self {
        let cfg = UdgmConfig::default();
        let medium = Medium::new(Geometry::new(positions, &cfg).unwrap(), &cfg).unwrap();
        World {
            medium,
            cfg: ContikiMacConfig::default(),
            phy: PhyConfig::default(),
            queue: BinaryHeap::new(),
            events: HashMap::new(),
            next_event: 0,
            frames: HashMap::new(),
            senders: Vec::new(),
            receivers: Vec::new(),
            rng,
            copies: Vec::new(),
        }
    }

    fn at(&mut self, t: Instant, ev: Ev) {
        self.events.insert(self.next_event, ev);
        self.queue.push(Reverse((t, self.next_event)));
        self.next_event += 1;
    }

    fn add_receiver(&mut self, node: NodeId, phase: Duration, answers: bool) {
        let r = self.receivers.len();
        self.receivers.push(Receiver {
            node,
            phase,
            listener: None,
            generation: 0,
            answers,
            deliveries: Vec::new(),
            busy_until_ack_end: false,
        });
        let first = self.cfg.next_check(phase, Instant::ZERO);
        self.at(first, Ev::RxCca(r, 0));
    }

    fn add_sender(&mut self, node: NodeId, dst: NodeId) -> usize {
        self.senders.push(Sender { node, dst, train: None, pending: None, ack_ok: false, result: None });
        self.senders.len() - 1
    }

    fn start_train(&mut self, s: usize, kind: TrainKind, psdu: u32, now: Instant) {
        self.medium.set_radio(now, self.senders[s].node, true).unwrap();
        let receiving = self.medium.is_receiving(self.senders[s].node);
        let (train, step) = StrobeTrain::start(&self.cfg, &self.phy, kind, psdu, now, receiving);
        let sender = &mut self.senders[s];
        (sender.train, sender.ack_ok, sender.result) = (Some(train), false, None);
        self.set_step(s, step);
    }

    fn set_step(&mut self, s: usize, step: RdcStep) {
        let t = match step {
            RdcStep::Cca { at }
            | RdcStep::SendFrame { at, .. }
            | RdcStep::Readout { at }
            | RdcStep::Done { at, .. } => at,
        };
        self.senders[s].pending = Some(Pending::Step(step));
        self.at(t, Ev::Sender(s));
    }

    fn next_check(&mut self, r: usize, after: Instant) {
        let t = self.cfg.next_check(self.receivers[r].phase, after + Duration::from_nanos(1));
        self.at(t, Ev::RxCca(r, 0));
    }

    fn receiver_of(&self, node: NodeId) -> Option<usize> {
        self.receivers.iter().position(|r| r.node == node)
    }

    fn radio_off(&mut self, r: usize, now: Instant) {
        let node = self.receivers[r].node;
        self.medium.set_radio(now, node, false).unwrap();
        self.receivers[r].listener = None;
        self.receivers[r].generation += 1;
        self.next_check(r, now);
    }

    fn listen(&mut self, r: usize, step: ListenStep, now: Instant) {
        match step {
            ListenStep::Off => self.radio_off(r, now),
            ListenStep::Listen { deadline } => {
                self.receivers[r].generation += 1;
                if deadline < Instant::MAX {
                    let g = self.receivers[r].generation;
                    self.at(deadline, Ev::RxTimeout(r, g));
                }
            }
        }
    }

    /// Runs events until sender `s` has a result; returns it.
    fn run_until_result(&mut self, s: usize) -> (Instant, TxStatus) {
        while self.senders[s].result.is_none() {
            let Reverse((t, id)) = self.queue.pop().expect("events");
            let ev = self.events.remove(&id).unwrap();
            self.handle(t, ev);
        }
        self.senders[s].result.unwrap()
    }

    fn handle(&mut self, t: Instant, ev: Ev) {
        match ev {
            Ev::Sender(s) => self.sender_event(s),
            Ev::FrameEnd(id) => self.frame_end(id, t),
            Ev::AckStart(r, to) => {
                let node = self.receivers[r].node;
                let tx = self.medium.start_tx(t, node, self.phy.ack_airtime(), &mut self.rng).unwrap();
                self.frames.insert(tx.id, Frame { from: node, to, ack: true });
                self.at(t + self.phy.ack_airtime(), Ev::FrameEnd(tx.id));
            }
            Ev::RxCca(r, i) => {
                let rx = &self.receivers[r];
                if rx.listener.is_some() || rx.busy_until_ack_end || self.medium.radio_on(rx.node) {
                    self.next_check(r, t);
                    return;
                }
                if self.medium.cca(t, rx.node) {
                    let check = t.saturating_sub(self.cfg.cca_spacing * i);
                    let mut busy = vec![false; i as usize];
                    busy.push(true);
                    let (listener, on_at) = Listener::after_check(&self.cfg, check, &busy).unwrap();
                    self.medium.set_radio(on_at, rx.node, true).unwrap();
                    let step = listener.step();
                    self.receivers[r].listener = Some(listener);
                    self.listen(r, step, t);
                } else if i + 1 < self.cfg.cca_count_max {
                    self.at(t + self.cfg.cca_spacing, Ev::RxCca(r, i + 1));
                } else {
                    self.next_check(r, t.saturating_sub(self.cfg.cca_spacing * i));
                }
            }
            Ev::RxTimeout(r, g) => {
                if self.receivers[r].generation != g {
                    return;
                }
                if let Some(l) = self.receivers[r].listener.as_mut() {
                    let step = l.on_timeout(t);
                    self.listen(r, step, t);
                }
            }
        }
    }

    fn sender_event(&mut self, s: usize) {
        let node = self.senders[s].node;
        let Some(pending) = self.senders[s].pending.take() else { return };
        let mut train = self.senders[s].train.take().unwrap();
        let next = match pending {
            Pending::Step(RdcStep::Cca { at }) => Some(train.on_cca(at, self.medium.cca(at, node))),
            Pending::Step(RdcStep::SendFrame { at, airtime, check_at }) => {
                let tx = self.medium.start_tx(at, node, airtime, &mut self.rng).unwrap();
                self.frames.insert(tx.id, Frame { from: node, to: self.senders[s].dst, ack: false });
                self.copies.push((node, at, at + airtime));
                self.at(at + airtime, Ev::FrameEnd(tx.id));
                for rnode in tx.receivers {
                    if let Some(r) = self.receiver_of(rnode)
                        && let Some(l) = self.receivers[r].listener.as_mut()
                    {
                        let step = l.on_frame_start(at);
                        self.listen(r, step, at);
                    }
                }
                self.senders[s].pending = Some(Pending::AckCheck(check_at));
                self.at(check_at, Ev::Sender(s));
                None
            }
            Pending::AckCheck(at) => {
                let dst = self.senders[s].dst;
                let activity = match self.medium.receiving_frame(node).and_then(|f| self.frames.get(&f)) {
                    Some(f) if f.ack && f.from == dst => AckActivity::AckFromAddressee,
                    _ if self.medium.cca(at, node) => AckActivity::Other,
                    _ => AckActivity::None,
                };
                Some(train.on_ack_check(at, activity))
            }
            Pending::Step(RdcStep::Readout { at }) => Some(train.on_readout(at, self.senders[s].ack_ok)),
            Pending::Step(RdcStep::Done { at, status }) => {
                self.medium.set_radio(at, node, false).unwrap();
                self.senders[s].result = Some((at, status));
                None
            }
        };
        self.senders[s].train = Some(train);
        if let Some(step) = next {
            self.set_step(s, step);
        }
    }

    fn frame_end(&mut self, id: FrameId, t: Instant) {
        let frame = self.frames.remove(&id).unwrap();
        let ends = self.medium.end_tx(t, id).unwrap();
        if frame.ack
            && let Some(r) = self.receiver_of(frame.from)
        {
            self.receivers[r].busy_until_ack_end = false;
            self.radio_off(r, t);
        }
        for e in ends {
            if frame.ack {
                if let Some(s) = self.senders.iter().position(|s| s.node == e.node)
                    && e.ok
                    && frame.to == e.node
                {
                    self.senders[s].ack_ok = true;
                }
                continue;
            }
            let Some(r) = self.receiver_of(e.node) else { continue };
            if self.receivers[r].listener.is_none() {
                continue;
            }
            if e.ok && frame.to == e.node {
                self.receivers[r].deliveries.push((t, frame.from));
                self.receivers[r].listener = None;
                self.receivers[r].generation += 1;
                if self.receivers[r].answers {
                    self.receivers[r].busy_until_ack_end = true;
                    self.at(t + self.phy.ack_delay, Ev::AckStart(r, frame.from));
                } else {
                    self.radio_off(r, t);
                }
            } else {
                let end = if e.ok { FrameEnd::ForOther } else { FrameEnd::Corrupted };
                let step = self.receivers[r].listener.as_mut().unwrap().on_frame_end(t, end);
                self.listen(r, step, t);
            }
        }
    }
}

fn pair(seed: u64, phase: Duration, answers: bool) -> World {
    let mut w = World::new(&[Position::xy(0.0, 0.0), Position::xy(40.0, 0.0)], stream_rng(seed, 0, 0));
    w.add_receiver(NodeId(1), phase, answers);
    w.add_sender(NodeId(0), NodeId(1));
    w
}

fn random_phase(rng: &mut SimRng) -> Duration {
    Duration::from_nanos(below(rng, 125_000_000))
}

#[test]
fn contikimac_one_hop_delivery_without_phase_lock_averages_70_6_ms() {
    // §6 check 3: ≈ 3.662 + U[0, T_w) + U[0, T_copy) + T(L); mean 70.6 ms ± 2 ms for
    // L = 80; every sample in [3.662 + T(L), 3.662 + T_w + 2·T_copy + T(L)]; OK 1.038 ms
    // after delivery. 1000 trials with independent receiver phases.
    let mut phases = stream_rng(100, 0, 0);
    let (n, mut sum) = (1000, 0.0);
    let t0 = at_ms(1000.0);
    for trial in 0..n {
        let mut w = pair(trial, random_phase(&mut phases), true);
        w.start_train(0, TrainKind::Unicast, 80, t0);
        let (done, status) = w.run_until_result(0);
        assert_eq!(status, TxStatus::Ok, "trial {trial}");
        let (delivered, from) = w.receivers[0].deliveries[0];
        assert_eq!(from, NodeId(0));
        let latency = ms_of(delivered - t0);
        assert!((3.662 + 2.752..=3.662 + 125.0 + 2.0 * 3.341 + 2.752).contains(&latency), "{latency}");
        assert!((ms_of(done - delivered) - 1.038).abs() < 0.001);
        sum += latency;
    }
    let mean = sum / f64::from(n as u32);
    assert!((mean - 70.6).abs() < 2.0, "mean {mean}");
}

/// Sends one packet from sender `s` through CSMA (3.0 Sky) and phase-unknown trains until
/// it is sent or dropped; returns (the status of the last attempt, NOACKs).
fn csma_unicast(w: &mut World, s: usize, psdu: u32, now: Instant, rng: &mut SimRng) -> (TxStatus, u32) {
    let dst = w.senders[s].dst;
    let mut csma: Csma<u32> = Csma::new(CsmaConfig::default(), 1).unwrap();
    let SendOutcome::Queued { transmit_at: Some(mut at), .. } = csma.send(now, dst, 0) else { panic!() };
    let mut noacks = 0;
    loop {
        csma.service(at, dst).unwrap();
        w.start_train(s, TrainKind::Unicast, psdu, at);
        let (done, status) = w.run_until_result(s);
        noacks += u32::from(status == TxStatus::NoAck);
        match csma.on_result(done, dst, status, rng).unwrap().as_slice() {
            [CsmaOutput::TransmitAt { at: next, .. }] => at = *next,
            [CsmaOutput::Sent { .. } | CsmaOutput::Dropped { .. }] => return (status, noacks),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_coap_exchange_over_one_idle_contikimac_hop_costs_about_2_x_71_ms() {
    // §6 check 3, h = 1: request (80 B) train, t_app = 2 ms, response (84 B) train back,
    // both phases unknown and independent: ≈ 2 × 71 ms + 2 ms. 2000 exchanges; each leg
    // has sd ≈ 36 ms, so the mean's sd is ≈ 1.1 ms; tolerance 2 × 2 ms + 1 ms.
    let mut draws = stream_rng(400, 0, 0);
    let (n, mut sum, mut noacks) = (2000u32, 0.0, 0);
    let t0 = at_ms(1000.0);
    for trial in 0..n {
        let pos = [Position::xy(0.0, 0.0), Position::xy(40.0, 0.0)];
        let mut w = World::new(&pos, stream_rng(u64::from(trial), 2, 0));
        w.add_receiver(NodeId(1), random_phase(&mut draws), true);
        w.add_receiver(NodeId(0), random_phase(&mut draws), true);
        let (client, server) = (w.add_sender(NodeId(0), NodeId(1)), w.add_sender(NodeId(1), NodeId(0)));
        let (status, k) = csma_unicast(&mut w, client, 80, t0, &mut draws);
        assert_eq!((status, k), (TxStatus::Ok, 0), "80-B trains never miss on an idle hop");
        let request_at = w.receivers[0].deliveries[0].0;
        let (status, k) = csma_unicast(&mut w, server, 84, request_at + ms(2.0), &mut draws);
        assert_eq!(status, TxStatus::Ok);
        noacks += k;
        let (response_at, from) = w.receivers[1].deliveries[0];
        assert_eq!(from, NodeId(1));
        sum += ms_of(response_at - t0);
    }
    let mean = sum / f64::from(n);
    assert!((mean - (2.0 * 70.6 + 2.0)).abs() < 5.0, "mean {mean}");
    // 84-B trains miss ≈ 0.08 % of receiver phases (see
    // `an_84_byte_phase_unknown_train_rarely_misses_…`); CSMA retries them.
    assert!(noacks <= 10, "{noacks}");
}

#[test]
fn an_84_byte_phase_unknown_train_rarely_misses_a_receiver_that_checked_just_before_it() {
    // STROBE_TIME (127.44 ms) leaves copies starting at k · 3.469 ms ≤ 124.88 ms for 84 B.
    // A receiver whose first check ends just before the first frame (its CCAs at
    // c0 − 0.513 … c0 − 0.418 ms, c0 = first copy's CCA) checks again 125 ms later, in the
    // 0.589-ms gap before the last copy, and sees that copy only at its second CCA, after
    // it started (§1.3 rule 4): a NOACK. The window is 0.095 ms of the 125-ms cycle
    // (≈ 0.08 % of phase-unknown 84-B unicasts). For 80 B the last copy starts at
    // 126.96 ms and this cannot happen. Receiver phases are swept in 12-µs steps over 2.4 ms
    // around the first frame: ≈ 8 of 200 phases miss.
    let (cfg, phy) = (ContikiMacConfig::default(), PhyConfig::default());
    let t0 = at_ms(1000.0);
    let first_frame = t0 + cfg.check_time_tx() + phy.turnaround;
    let mut outcomes = Vec::new();
    for psdu in [80, 84] {
        let mut misses = 0;
        for k in 0..200u64 {
            // Receiver checks (two CCAs 0.610 ms apart) ending from 2 ms before to 0.5 ms after the first frame.
            let check = first_frame.saturating_sub(ms(0.610) + ms(2.0)) + Duration::from_micros(k * 12);
            let phase = Duration::from_nanos(check.as_nanos() % (cfg.cycle_time.as_nanos() as u64));
            let mut w = pair(k, phase, true);
            w.start_train(0, TrainKind::Unicast, psdu, t0);
            misses += u32::from(w.run_until_result(0).1 == TxStatus::NoAck);
        }
        outcomes.push(misses);
    }
    assert_eq!(outcomes[0], 0, "80 B");
    assert!((6..=10).contains(&outcomes[1]), "84 B: {}", outcomes[1]);
}

#[test]
fn contikimac_phase_lock_costs_about_81_ms_with_a_short_train_and_no_misses() {
    // §6 check 4: later unicasts to the same neighbour: mean ≈ T_w/2 + GUARD + T(L) ≈ 81 ms
    // (±3 ms); train ≈ 12.2 ms + one copy, ≤ 16.66 ms + one copy; no misses for L ≤ 100.
    let mut draws = stream_rng(200, 0, 0);
    let cfg = ContikiMacConfig::default();
    let (n, mut sum) = (1000, 0.0);
    for (trial, psdu) in (0..n).map(|k| (k, if k % 2 == 0 { 80 } else { 100 })) {
        let mut w = pair(1000 + trial, random_phase(&mut draws), true);
        let mut table = PhaseTable::new();
        w.start_train(0, TrainKind::Unicast, psdu, at_ms(1000.0));
        let (done, status) = w.run_until_result(0);
        table.on_result(&cfg, NodeId(1), done, status, w.senders[0].train.as_ref().unwrap().acked_copy());
        // The next unicast is asked for at a uniformly random instant.
        let now = done + ms(200.0) + random_phase(&mut draws);
        let schedule = table.schedule(&cfg, NodeId(1), now);
        assert_eq!(schedule.kind, TrainKind::PhaseLocked);
        w.start_train(0, schedule.kind, psdu, schedule.start);
        let (_, status) = w.run_until_result(0);
        assert_eq!(status, TxStatus::Ok, "a miss in trial {trial} (L = {psdu})");
        let delivered = w.receivers[0].deliveries[1].0;
        let first_copy = w.senders[0].train.as_ref().unwrap().first_copy().unwrap();
        let copy = ms_of(cfg.copy_period(&w.phy, psdu));
        let train = ms_of(delivered - first_copy);
        assert!(train <= 16.663 + copy, "train {train} ms");
        assert!(train >= 12.2 - copy, "train {train} ms");
        if psdu == 80 {
            sum += ms_of(delivered - now);
        }
    }
    let mean = sum / f64::from(n as u32 / 2);
    assert!((mean - 81.0).abs() < 3.0, "mean {mean}");
}

#[test]
fn the_same_seeds_give_the_same_trains_and_deliveries() {
    // §6 check 14 for these pieces: all randomness comes from the caller's streams.
    let run = |seed: u64| {
        let pos = [Position::xy(0.0, 0.0), Position::xy(40.0, 0.0), Position::xy(80.0, 0.0)];
        let cfg = UdgmConfig { success_ratio_tx: 0.8, ..UdgmConfig::default() };
        let mut w = World::new(&pos, stream_rng(seed, 0, 0));
        w.medium = Medium::new(Geometry::new(&pos, &cfg).unwrap(), &cfg).unwrap();
        w.add_receiver(NodeId(1), ms(33.0), true);
        let (a, b) = (w.add_sender(NodeId(0), NodeId(1)), w.add_sender(NodeId(2), NodeId(1)));
        w.start_train(a, TrainKind::Unicast, 80, at_ms(1000.0));
        w.start_train(b, TrainKind::Unicast, 80, at_ms(1060.0));
        let results = (w.run_until_result(a), w.run_until_result(b));
        (results, w.copies.clone(), w.receivers[0].deliveries.clone())
    };
    assert_eq!(run(5), run(5));
    let differs = (6..20).any(|seed| run(seed).1 != run(5).1);
    assert!(differs, "the seed matters when SR_tx < 1");
}

#[test]
fn a_unicast_to_a_silent_neighbour_ends_with_noack_after_134_ms() {
    // §6 check 5 on the medium: a receiver that never wakes up.
    let mut w = World::new(&[Position::xy(0.0, 0.0), Position::xy(40.0, 0.0)], stream_rng(7, 0, 0));
    w.add_sender(NodeId(0), NodeId(1));
    let t0 = at_ms(1000.0);
    w.start_train(0, TrainKind::Unicast, 80, t0);
    let (done, status) = w.run_until_result(0);
    assert_eq!(status, TxStatus::NoAck);
    assert!((ms_of(done - t0) - 134.0).abs() < 0.5, "{:?}", done - t0);
}

#[test]
fn with_csma_a_packet_to_a_silent_neighbour_is_dropped_after_about_2_53_s() {
    // §6 check 5: 5 × 134 ms + 1859 ms of 3.0 backoffs ≈ 2.53 s on average (1000 packets;
    // the sum of the four backoffs has sd ≈ 0.44 s, so the mean's sd is ≈ 14 ms).
    let mut w = World::new(&[Position::xy(0.0, 0.0), Position::xy(40.0, 0.0)], stream_rng(9, 0, 0));
    let s = w.add_sender(NodeId(0), NodeId(1));
    let mut csma: Csma<u32> = Csma::new(CsmaConfig::default(), 1).unwrap();
    let mut rng = stream_rng(10, 0, 0);
    let (n, mut total) = (1000u32, 0.0);
    let mut now = at_ms(1000.0);
    for p in 0..n {
        let start = now;
        let SendOutcome::Queued { transmit_at: Some(mut at), .. } = csma.send(now, NodeId(1), p) else { panic!() };
        loop {
            csma.service(at, NodeId(1)).unwrap();
            w.start_train(s, TrainKind::Unicast, 80, at);
            let (done, status) = w.run_until_result(s);
            match csma.on_result(done, NodeId(1), status, &mut rng).unwrap().as_slice() {
                [CsmaOutput::TransmitAt { at: next, .. }] => at = *next,
                [CsmaOutput::Dropped { .. }] => {
                    total += ms_of(done - start);
                    now = done + ms(1.0);
                    break;
                }
                other => panic!("{other:?}"),
            }
        }
    }
    let mean = total / f64::from(n);
    assert!((mean - 2530.0).abs() < 50.0, "mean {mean} ms");
}

#[test]
fn two_hidden_contikimac_trains_destroy_every_copy_while_they_overlap() {
    // §6 check 9: senders 80 m apart (hidden), receiver in the middle, trains starting
    // within 10 ms of each other. No copy is delivered while the other train is on air;
    // when the receiver checks the channel only while both trains overlap, both senders
    // end with NOACK after the full 127.4-ms train (≈ 134 ms with the pre-train CCAs).
    let mut draws = stream_rng(300, 0, 0);
    let t0 = at_ms(1000.0);
    let mut noack_runs = 0;
    for trial in 0..300u64 {
        let mut w = World::new(
            &[Position::xy(0.0, 0.0), Position::xy(40.0, 0.0), Position::xy(80.0, 0.0)],
            stream_rng(trial, 1, 0),
        );
        let phase = random_phase(&mut draws);
        w.add_receiver(NodeId(1), phase, true);
        let a = w.add_sender(NodeId(0), NodeId(1));
        let b = w.add_sender(NodeId(2), NodeId(1));
        let offset = Duration::from_nanos(below(&mut draws, 10_000_000));
        w.start_train(a, TrainKind::Unicast, 80, t0);
        w.start_train(b, TrainKind::Unicast, 80, t0 + offset);
        let (ra, rb) = (w.run_until_result(a), w.run_until_result(b));
        // Every delivered copy: no copy of the other sender overlapped it on air.
        for &(end, from) in &w.receivers[0].deliveries {
            let start = end.saturating_sub(w.phy.airtime(80));
            let overlapped = w.copies.iter().any(|&(n, s, e)| n != from && s < end && e > start);
            assert!(!overlapped, "trial {trial}: a copy survived an overlap");
        }
        // The receiver's first check during A's train and its 12.48-ms listening fall where
        // both trains are on air, and its next check after both trains have ended: nothing
        // can get through.
        let check = w.cfg.next_check(phase, t0 + w.cfg.check_time_tx());
        if check > t0 + offset + ms(10.0) && check + ms(12.5) < t0 + ms(3.662 + 126.9) {
            assert!(ra.1 == TxStatus::NoAck && rb.1 == TxStatus::NoAck, "trial {trial}: {ra:?} {rb:?}");
            for (done, start) in [(ra.0, t0), (rb.0, t0 + offset)] {
                assert!((ms_of(done - start) - 134.0).abs() < 0.5, "{:?}", done - start);
            }
            assert!(w.receivers[0].deliveries.is_empty());
            noack_runs += 1;
        }
    }
    assert!(noack_runs > 100, "{noack_runs}");
}
