//! Window-of-one uIP TCP for Lim's set-up (spec multihop.md §4.3), sans-IO.
//!
//! A [`TcpClient`] is one mote's connection: a SYN (retried up to `UIP_MAXSYNRTX` = 5 times),
//! then at most one unacknowledged 48-B data segment; reports produced meanwhile wait in an
//! unbounded FIFO (OQ-M13). Every retransmission timer — SYN and data — comes from a
//! `coapcc_core` controller (`uip`, `uip-dither`, `lim`, algorithms.md §9.1–9.3) driven
//! through the same [`Controller`] calls the CoAP endpoint makes: `start` for a fresh
//! segment, `on_timeout` + `retransmit` for a copy, `on_ack` for an acknowledgement (always
//! ambiguous: TCP does not say which copy an ACK answers; the controllers apply Karn).
//! A connection whose controller gives up is broken and never reopened (OQ-M15).
//!
//! [`TcpServer`] is the Linux host side: it ACKs every segment, immediately by default
//! (OQ-M14; a delayed ACK of 40 / 200 ms is an option), and delivers payload in order.

use std::collections::VecDeque;
use std::sync::Arc;

use coapcc_core::algorithms::uip::sample_units;
use coapcc_core::random::Rng;
use coapcc_core::{Ack, AnyController, AnyState, Controller, Exchange, Instant, Retry};

use super::NodeId;

/// `UIP_MAXSYNRTX`: SYN retransmissions before the connection attempt fails [S-code
/// `core/net/ip/uipopt.h`].
pub const UIP_MAXSYNRTX: u8 = 5;

/// A TCP segment between a mote and the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Segment {
    /// Connection request (mote → host).
    Syn,
    /// Connection accepted (host → mote).
    SynAck,
    /// Data segment `seq` (counted in segments) carrying `payload_bytes` (mote → host).
    Data {
        /// Segment number, from 0.
        seq: u32,
        /// Payload bytes (48 on Sky).
        payload_bytes: u32,
    },
    /// Cumulative acknowledgement: every segment below `next` was received (host → mote).
    Ack {
        /// The next expected segment number.
        next: u32,
    },
}

/// Where a connection stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TcpState {
    /// Not yet connecting.
    Closed,
    /// SYN sent, waiting for the SYN-ACK.
    SynSent,
    /// Connected.
    Established,
    /// The SYN was never answered within `UIP_MAXSYNRTX` retransmissions.
    SetupFailed,
    /// The retransmission limit of a data segment was hit; not reopened (OQ-M15).
    Broken,
}

/// Per-connection counters (spec §4.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpClientStats {
    /// Reports produced by the application.
    pub reports: u64,
    /// Data segments acknowledged.
    pub acked_segments: u64,
    /// Data segments retransmitted (SYN retransmissions excluded, OQ-M16).
    pub retransmitted_segments: u64,
    /// SYN retransmissions.
    pub syn_retransmissions: u64,
    /// Karn-valid RTT samples (ACK of a segment never retransmitted).
    pub rtt_samples: u64,
    /// Largest retransmission count of a delivered (acknowledged) segment.
    pub max_retransmissions_delivered: u8,
    /// Karn-valid RTT samples below 1 s (Lim 2020 §4.2.1, spec multihop.md §4.5 L3).
    pub rtt_samples_below_1s: u64,
    /// Karn-valid RTT samples that the controller's integer arithmetic truncates to 0
    /// (`⌊R / rtt_unit⌋ = 0`, spec multihop.md §4.5 L5; algorithms.md OQ-37); 0 for a
    /// controller without an RTT unit.
    pub rtt_samples_truncated: u64,
    /// Acknowledged segments whose RTT measured from their latest (re)transmission, as Lim's
    /// scheme samples it, exceeds 3 s (spec multihop.md §4.5 L8), whatever the scheme.
    pub rtt_samples_above_3s: u64,
    /// The largest timer armed for a fresh data segment (the estimator's RTO, dithered where
    /// the scheme dithers) after the connection's first 10 Karn-valid RTT samples (spec
    /// multihop.md §4.5 L3); `None` before the 10th sample.
    pub max_rto_after_10_samples: Option<core::time::Duration>,
}

/// RTT samples after which [`TcpClientStats::max_rto_after_10_samples`] starts counting
/// (Lim 2020 Fig. 2a: the RTO is ≤ 3 s "except at the start"; spec multihop.md §4.5 L3).
pub const RTO_SETTLED_AFTER_SAMPLES: u64 = 10;

/// What one point of a per-node trace (Lim 2020 Figs. 2–3, spec multihop.md §4.4) records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TracePointKind {
    /// A Karn-valid RTT sample (the ACK of a segment never retransmitted): `value` = RTT.
    Rtt,
    /// A retransmission timer was armed (SYN or data, fresh or backed off): `value` = the
    /// timer (RTO) as armed, before periodic-timer quantisation.
    Rto,
}

/// One point of a per-node trace, recorded only when asked for (`TcpClient::record_trace`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct TracePoint {
    /// When, ns of simulated time.
    pub at_ns: u64,
    /// What.
    pub kind: TracePointKind,
    /// The RTT sample or the armed timer, ns.
    pub value_ns: u64,
    /// Retransmissions of the segment so far (0 for a fresh segment and for RTT samples).
    pub retransmissions: u8,
    /// The segment is the SYN (set-up phase).
    pub syn: bool,
}

/// One mote's window-of-one uIP connection.
#[derive(Clone, Debug)]
pub struct TcpClient {
    /// The algorithm, built once and shared by every connection.
    ctrl: Arc<AnyController>,
    /// This connection's per-destination state of `ctrl`.
    st: AnyState,
    ex: Option<Exchange>,
    state: TcpState,
    in_flight: Option<u32>,
    next_seq: u32,
    backlog: VecDeque<Instant>,
    payload_bytes: u32,
    stats: TcpClientStats,
    timers: Vec<core::time::Duration>,
    trace: Option<Vec<TracePoint>>,
    /// The controller's RTT unit (uIP and Lim: 1 s), if it has one.
    rtt_unit: Option<core::time::Duration>,
}

impl TcpClient {
    /// A closed connection whose timers come from `ctrl` (with a fresh state), sending
    /// segments of `payload_bytes`.
    pub fn new(ctrl: Arc<AnyController>, payload_bytes: u32) -> Self {
        TcpClient {
            st: ctrl.new_state(),
            ex: None,
            state: TcpState::Closed,
            in_flight: None,
            next_seq: 0,
            backlog: VecDeque::new(),
            payload_bytes,
            stats: TcpClientStats::default(),
            timers: Vec::new(),
            trace: None,
            rtt_unit: ctrl.tcp_rtt_unit(),
            ctrl,
        }
    }

    /// Records the per-node trace from now on (RTT samples and armed timers, Figs. 2–3).
    /// Recording draws no random number and changes nothing else.
    pub fn record_trace(&mut self) {
        self.trace.get_or_insert_with(Vec::new);
    }

    /// The recorded trace (empty unless [`TcpClient::record_trace`] was called).
    pub fn trace(&self) -> &[TracePoint] {
        self.trace.as_deref().unwrap_or_default()
    }

    fn note(&mut self, now: Instant, kind: TracePointKind, value: core::time::Duration, retransmissions: u8) {
        let syn = self.state == TcpState::SynSent;
        if let Some(t) = self.trace.as_mut() {
            t.push(TracePoint {
                at_ns: now.as_nanos(),
                kind,
                value_ns: u64::try_from(value.as_nanos()).unwrap_or(u64::MAX),
                retransmissions,
                syn,
            });
        }
    }

    /// The state.
    pub fn state(&self) -> TcpState {
        self.state
    }

    /// Counters.
    pub fn stats(&self) -> TcpClientStats {
        self.stats
    }

    /// Reports waiting for the window (not counting the one in flight).
    pub fn backlog(&self) -> usize {
        self.backlog.len()
    }

    /// Every timer armed so far, in order (SYN and data copies): the per-node trace of §4.4.
    pub fn timers(&self) -> &[core::time::Duration] {
        &self.timers
    }

    /// The algorithm.
    pub fn controller(&self) -> &AnyController {
        &self.ctrl
    }

    /// This connection's state of the algorithm.
    pub fn controller_state(&self) -> &AnyState {
        &self.st
    }

    /// When the armed retransmission timer expires (before periodic-timer quantisation).
    pub fn deadline(&self) -> Option<Instant> {
        match self.state {
            TcpState::SynSent | TcpState::Established => self.ex.map(|e| e.deadline()),
            _ => None,
        }
    }

    /// Opens the connection at `now`: the SYN to send.
    pub fn connect(&mut self, now: Instant, rng: &mut dyn Rng) -> Option<Segment> {
        if self.state != TcpState::Closed {
            return None;
        }
        self.state = TcpState::SynSent;
        let ex = self.ctrl.start(&mut self.st, now, 0, rng);
        self.timers.push(ex.timer());
        self.note(now, TracePointKind::Rto, ex.timer(), 0);
        self.ex = Some(ex);
        Some(Segment::Syn)
    }

    /// The application produced a report at `now`: the segment to send, if the window is free.
    pub fn report(&mut self, now: Instant, rng: &mut dyn Rng) -> Option<Segment> {
        self.stats.reports += 1;
        self.backlog.push_back(now);
        self.try_send(now, rng)
    }

    fn try_send(&mut self, now: Instant, rng: &mut dyn Rng) -> Option<Segment> {
        if self.state != TcpState::Established || self.in_flight.is_some() || self.backlog.pop_front().is_none() {
            return None;
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.in_flight = Some(seq);
        let ex = self.ctrl.start(&mut self.st, now, 0, rng);
        self.timers.push(ex.timer());
        self.note(now, TracePointKind::Rto, ex.timer(), 0);
        if self.stats.rtt_samples >= RTO_SETTLED_AFTER_SAMPLES {
            let max = &mut self.stats.max_rto_after_10_samples;
            *max = Some(max.map_or(ex.timer(), |m| m.max(ex.timer())));
        }
        self.ex = Some(ex);
        Some(Segment::Data { seq, payload_bytes: self.payload_bytes })
    }

    /// A segment from the host arrived at `now`: the segment to send next, if any.
    pub fn on_segment(&mut self, now: Instant, seg: Segment, rng: &mut dyn Rng) -> Option<Segment> {
        match (self.state, seg) {
            (TcpState::SynSent, Segment::SynAck) => {
                if let Some(ex) = self.ex.take() {
                    self.ctrl.on_ack(&mut self.st, now, &ex, &Ack::AMBIGUOUS);
                }
                self.state = TcpState::Established;
                self.try_send(now, rng)
            }
            (TcpState::Established, Segment::Ack { next }) => {
                let seq = self.in_flight?;
                if next <= seq {
                    return None;
                }
                let ex = self.ex.take()?;
                self.ctrl.on_ack(&mut self.st, now, &ex, &Ack::AMBIGUOUS);
                self.in_flight = None;
                self.stats.acked_segments += 1;
                if now.saturating_duration_since(ex.last_sent()) > core::time::Duration::from_secs(3) {
                    self.stats.rtt_samples_above_3s += 1;
                }
                if ex.retransmissions() == 0 {
                    let rtt = now.saturating_duration_since(ex.first_sent());
                    self.stats.rtt_samples += 1;
                    if rtt < core::time::Duration::from_secs(1) {
                        self.stats.rtt_samples_below_1s += 1;
                    }
                    if self.rtt_unit.is_some_and(|u| sample_units(rtt, u) == 0) {
                        self.stats.rtt_samples_truncated += 1;
                    }
                    self.note(now, TracePointKind::Rtt, rtt, 0);
                }
                self.stats.max_retransmissions_delivered =
                    self.stats.max_retransmissions_delivered.max(ex.retransmissions());
                self.try_send(now, rng)
            }
            _ => None,
        }
    }

    /// The retransmission timer expired at `now`: the copy to resend, or `None` (the
    /// connection then is [`TcpState::SetupFailed`] or [`TcpState::Broken`]).
    pub fn on_timeout(&mut self, now: Instant, rng: &mut dyn Rng) -> Option<Segment> {
        let mut ex = self.ex?;
        let syn = self.state == TcpState::SynSent;
        if syn && ex.retransmissions() >= UIP_MAXSYNRTX {
            self.state = TcpState::SetupFailed;
            self.ex = None;
            return None;
        }
        match self.ctrl.on_timeout(&mut self.st, now, &mut ex) {
            Retry::GiveUp => {
                self.state = if syn { TcpState::SetupFailed } else { TcpState::Broken };
                self.ex = None;
                None
            }
            Retry::Retransmit => {
                let timer = self.ctrl.retransmit(&mut self.st, now, &mut ex, rng);
                self.timers.push(timer);
                self.note(now, TracePointKind::Rto, timer, ex.retransmissions());
                self.ex = Some(ex);
                if syn {
                    self.stats.syn_retransmissions += 1;
                    Some(Segment::Syn)
                } else {
                    self.stats.retransmitted_segments += 1;
                    self.in_flight.map(|seq| Segment::Data { seq, payload_bytes: self.payload_bytes })
                }
            }
        }
    }
}

/// What the server does with one segment ([`TcpServer::on_segment`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServerReply {
    /// The segment to send now (SYN-ACK or ACK), if any.
    pub answer: Option<Segment>,
    /// Payload bytes newly delivered in order.
    pub delivered: u32,
    /// A delayed ACK was armed (OQ-M14): call [`TcpServer::on_delack_timer`] with this
    /// generation after [`TcpServer::delayed_ack`].
    pub delack: Option<u64>,
}

/// The host's TCP server: in-order delivery, one ACK per segment, immediately by default.
///
/// With a delayed ACK (OQ-M14, spec §4.3: options 40 / 200 ms; Linux `TCP_DELACK_MIN` /
/// `TCP_DELACK_MAX`) a segment of new in-order data is acknowledged when the delayed-ACK
/// timer fires, or at once when a second new segment arrives while that ACK is pending
/// (Linux's "more than one full-sized segment" rule; a window-of-one client never does
/// that). A duplicate or out-of-order segment is answered at once (Linux's immediate
/// duplicate ACK) and cancels a pending delayed ACK, as every ACK sent does. The SYN-ACK is
/// never delayed. With a window of one, an idle round trip therefore grows by the delay.
#[derive(Clone, Debug, Default)]
pub struct TcpServer {
    /// Per client node: next expected segment, payload bytes delivered in order, and the
    /// generation of the pending delayed ACK.
    conns: Vec<(NodeId, u32, u64, Option<u64>)>,
    /// Delayed-ACK timeout (zero: immediate ACKs).
    delayed_ack: core::time::Duration,
    /// Generations handed out for delayed-ACK timers.
    generation: u64,
}

impl TcpServer {
    /// An empty server that ACKs at once (the default of OQ-M14).
    pub fn new() -> Self {
        TcpServer::default()
    }

    /// An empty server with a delayed-ACK timeout of `delay` (zero: immediate ACKs).
    pub fn with_delayed_ack(delay: core::time::Duration) -> Self {
        TcpServer { delayed_ack: delay, ..TcpServer::default() }
    }

    /// The delayed-ACK timeout (zero: immediate ACKs).
    pub fn delayed_ack(&self) -> core::time::Duration {
        self.delayed_ack
    }

    /// A segment from `from` arrived: the answer to send now, the payload bytes newly
    /// delivered in order, and the delayed ACK armed, if any.
    pub fn on_segment(&mut self, from: NodeId, seg: Segment) -> ServerReply {
        let none = ServerReply { answer: None, delivered: 0, delack: None };
        match seg {
            Segment::Syn => {
                if !self.conns.iter().any(|c| c.0 == from) {
                    self.conns.push((from, 0, 0, None));
                }
                ServerReply { answer: Some(Segment::SynAck), ..none }
            }
            Segment::Data { seq, payload_bytes } => {
                let delay = !self.delayed_ack.is_zero();
                let Some(c) = self.conns.iter_mut().find(|c| c.0 == from) else { return none };
                if seq != c.1 {
                    // Duplicate or out of order: an immediate ACK, which also clears a
                    // pending delayed one.
                    c.3 = None;
                    return ServerReply { answer: Some(Segment::Ack { next: c.1 }), ..none };
                }
                c.1 += 1;
                c.2 += u64::from(payload_bytes);
                let delivered = payload_bytes;
                if !delay || c.3.is_some() {
                    // Immediate mode, or a second new segment while an ACK is pending.
                    c.3 = None;
                    return ServerReply { answer: Some(Segment::Ack { next: c.1 }), delivered, delack: None };
                }
                self.generation += 1;
                c.3 = Some(self.generation);
                ServerReply { answer: None, delivered, delack: Some(self.generation) }
            }
            Segment::SynAck | Segment::Ack { .. } => none,
        }
    }

    /// The delayed-ACK timer armed with `generation` for `from` fired: the ACK to send, unless
    /// an ACK left since (then `None`).
    pub fn on_delack_timer(&mut self, from: NodeId, generation: u64) -> Option<Segment> {
        let c = self.conns.iter_mut().find(|c| c.0 == from)?;
        if c.3 != Some(generation) {
            return None;
        }
        c.3 = None;
        Some(Segment::Ack { next: c.1 })
    }

    /// Payload bytes delivered in order from `node`.
    pub fn delivered_bytes(&self, node: NodeId) -> u64 {
        self.conns.iter().find(|c| c.0 == node).map_or(0, |c| c.2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coapcc_core::{AnyConfig, Duration};
    use coapcc_driver::rng::stream_rng;

    fn client() -> TcpClient {
        TcpClient::new(Arc::new(AnyConfig::from_name("uip").unwrap().build().unwrap()), 48)
    }

    #[test]
    fn reports_wait_for_the_connection_and_then_leave_one_at_a_time() {
        let mut rng = stream_rng(1, 0, 0);
        let mut c = client();
        let t = |s: u64| Instant::from_millis(s * 1000);
        assert_eq!(c.report(t(0), &mut rng), None, "not connected yet");
        assert_eq!(c.connect(t(0), &mut rng), Some(Segment::Syn));
        assert_eq!(c.on_segment(t(1), Segment::SynAck, &mut rng), Some(Segment::Data { seq: 0, payload_bytes: 48 }));
        assert_eq!(c.report(t(2), &mut rng), None, "window of one");
        assert_eq!(c.backlog(), 1);
        assert_eq!(c.on_segment(t(3), Segment::Ack { next: 0 }, &mut rng), None, "an old ACK");
        assert_eq!(
            c.on_segment(t(3), Segment::Ack { next: 1 }, &mut rng),
            Some(Segment::Data { seq: 1, payload_bytes: 48 })
        );
        assert_eq!((c.stats().acked_segments, c.stats().rtt_samples), (1, 1));
    }

    #[test]
    fn a_segment_is_retransmitted_on_timeout_until_the_connection_breaks() {
        let mut rng = stream_rng(2, 0, 0);
        let mut c = client();
        c.connect(Instant::ZERO, &mut rng);
        c.on_segment(Instant::ZERO, Segment::SynAck, &mut rng);
        c.report(Instant::ZERO, &mut rng);
        let mut n = 0;
        while let Some(d) = c.deadline() {
            match c.on_timeout(d, &mut rng) {
                Some(seg) => {
                    assert_eq!(seg, Segment::Data { seq: 0, payload_bytes: 48 });
                    n += 1;
                }
                None => break,
            }
        }
        assert_eq!(c.state(), TcpState::Broken);
        assert_eq!(c.stats().retransmitted_segments, n);
        assert_eq!(n, 8, "uIP's UIP_MAXRTX");
        assert!(c.timers().iter().all(|t| *t >= Duration::from_secs(3)));
    }

    #[test]
    fn acks_more_than_3_s_after_the_latest_transmission_count_as_samples_above_3_s() {
        let mut rng = stream_rng(3, 0, 0);
        let mut c = client();
        let t = Instant::from_millis;
        c.connect(t(0), &mut rng);
        assert_eq!(c.on_segment(t(0), Segment::SynAck, &mut rng), None);
        // ACKs exactly 3 s (not above), 3.001 s and 2.9 s after the only transmission.
        for (i, rtt) in [3000_u64, 3001, 2900].into_iter().enumerate() {
            let start = i as u64 * 10_000;
            assert!(c.report(t(start), &mut rng).is_some());
            c.on_segment(t(start + rtt), Segment::Ack { next: i as u32 + 1 }, &mut rng);
        }
        // Segment 3 is retransmitted when its timer fires and ACKed 1 s later: long after its
        // first transmission, but not after its latest one.
        assert!(c.report(t(40_000), &mut rng).is_some());
        let d = c.deadline().expect("the segment's timer");
        assert!(c.on_timeout(d, &mut rng).is_some(), "a retransmission");
        c.on_segment(d + Duration::from_secs(1), Segment::Ack { next: 4 }, &mut rng);
        let s = c.stats();
        assert_eq!((s.rtt_samples, s.rtt_samples_above_3s, s.retransmitted_segments), (3, 1, 1));
    }

    #[test]
    fn rtt_samples_below_1_s_are_truncated_to_0_and_the_rto_is_tracked_after_the_10th_sample() {
        let mut rng = stream_rng(3, 0, 0);
        let mut c = client();
        let t = Instant::from_millis;
        c.connect(t(0), &mut rng);
        assert_eq!(c.on_segment(t(0), Segment::SynAck, &mut rng), None, "nothing to send yet");
        for i in 0..12_u32 {
            let start = u64::from(i) * 2000;
            assert_eq!(c.report(t(start), &mut rng), Some(Segment::Data { seq: i, payload_bytes: 48 }));
            if i < 10 {
                assert_eq!(c.stats().max_rto_after_10_samples, None, "segment {i}: fewer than 10 samples");
            }
            // Eleven RTTs of 0.5 s (one unit: ⌊0.5 s / 1 s⌋ = 0), the last one 1.2 s (1 unit).
            let rtt = if i == 11 { 1200 } else { 500 };
            assert_eq!(c.on_segment(t(start + rtt), Segment::Ack { next: i + 1 }, &mut rng), None);
        }
        let s = c.stats();
        assert_eq!((s.rtt_samples, s.rtt_samples_below_1s, s.rtt_samples_truncated), (12, 11, 11));
        // timers(): the SYN's, then segments 0…11; segments 10 and 11 left after 10 samples.
        assert_eq!(c.timers().len(), 13);
        let settled = c.timers()[11..].iter().copied().max();
        assert_eq!(s.max_rto_after_10_samples, settled);
        // After eleven samples of 0 (the SYN-ACK's and ten data ones) uIP's sv has fallen from
        // 16 to 3 (sv − sv/4 each time): rto = sa/8 + sv = 3 units.
        assert_eq!(settled, Some(Duration::from_secs(3)));
    }

    #[test]
    fn the_server_delivers_in_order_and_acks_every_segment() {
        let mut s = TcpServer::new();
        let n = NodeId(4);
        let mut go = |seg| {
            let r = s.on_segment(n, seg);
            assert_eq!(r.delack, None, "immediate ACKs by default");
            (r.answer, r.delivered)
        };
        assert_eq!(go(Segment::Data { seq: 0, payload_bytes: 48 }), (None, 0), "no connection yet");
        assert_eq!(go(Segment::Syn), (Some(Segment::SynAck), 0));
        assert_eq!(go(Segment::Data { seq: 0, payload_bytes: 48 }), (Some(Segment::Ack { next: 1 }), 48));
        assert_eq!(go(Segment::Data { seq: 0, payload_bytes: 48 }), (Some(Segment::Ack { next: 1 }), 0));
        assert_eq!(go(Segment::Data { seq: 2, payload_bytes: 48 }), (Some(Segment::Ack { next: 1 }), 0));
        assert_eq!(s.delivered_bytes(n), 48);
    }

    #[test]
    fn a_delayed_ack_server_acks_new_data_when_its_timer_fires_and_anything_else_at_once() {
        // OQ-M14: Linux delayed ACK (200 ms); the SYN-ACK and duplicate ACKs are immediate.
        let mut s = TcpServer::with_delayed_ack(Duration::from_millis(200));
        assert_eq!(s.delayed_ack(), Duration::from_millis(200));
        let n = NodeId(2);
        assert_eq!(s.on_segment(n, Segment::Syn).answer, Some(Segment::SynAck));
        let r = s.on_segment(n, Segment::Data { seq: 0, payload_bytes: 48 });
        assert_eq!((r.answer, r.delivered), (None, 48));
        let g = r.delack.expect("a delayed ACK is armed");
        assert_eq!(s.on_delack_timer(n, g), Some(Segment::Ack { next: 1 }));
        assert_eq!(s.on_delack_timer(n, g), None, "sent once");
        // A duplicate while an ACK is pending: immediate ACK, the pending timer is void.
        let g = s.on_segment(n, Segment::Data { seq: 1, payload_bytes: 48 }).delack.unwrap();
        let dup = s.on_segment(n, Segment::Data { seq: 1, payload_bytes: 48 });
        assert_eq!((dup.answer, dup.delivered, dup.delack), (Some(Segment::Ack { next: 2 }), 0, None));
        assert_eq!(s.on_delack_timer(n, g), None);
        // A second new segment while an ACK is pending: ACK at once (both segments).
        let g = s.on_segment(n, Segment::Data { seq: 2, payload_bytes: 48 }).delack.unwrap();
        let second = s.on_segment(n, Segment::Data { seq: 3, payload_bytes: 48 });
        assert_eq!((second.answer, second.delivered, second.delack), (Some(Segment::Ack { next: 4 }), 48, None));
        assert_eq!(s.on_delack_timer(n, g), None);
        assert_eq!(s.delivered_bytes(n), 4 * 48);
    }
}
