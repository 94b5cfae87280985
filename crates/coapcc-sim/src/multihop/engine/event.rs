//! The engine's events and their queue (multihop.md §1, check 14): [`Ev`], one variant per
//! thing that can happen at an instant, and [`EventQueue`], which orders them by (time,
//! class, sequence number). Frame ends come before everything else at the same instant
//! ([`crate::multihop::medium::Medium`]'s rule), then insertion order. Each processed event
//! is folded into the run's trace digest by its (time, kind, subject) ([`Ev::tag`], [`fnv`]),
//! and optionally recorded as an [`EventTrace`].

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use coapcc_core::Instant;

use crate::multihop::NodeId;
use crate::multihop::medium::FrameId;

/// Something that happens to a mote, a packet, an application or the run at an instant.
/// Handled by [`super::MultihopSim::handle`], which dispatches to the layer files.
#[derive(Clone, Copy, Debug)]
pub(super) enum Ev {
    /// A ContikiMAC channel check's CCA number `cca` (R1, `mac.rs`).
    Check { node: u16, cca: u32 },
    /// A listening mote's timeout (R2, `mac.rs`), valid while `generation` is current.
    ListenTimeout { node: u16, generation: u64 },
    /// CSMA asks the RDC to send to `next_hop` (`mac.rs`).
    Service { node: u16, next_hop: NodeId },
    /// The RDC's next step of the attempt in progress (`mac.rs`).
    Rdc { node: u16, generation: u64 },
    /// A frame leaves the air (`mac.rs`).
    FrameEnd(FrameId),
    /// A receiver's hardware ACK starts (`mac.rs`).
    AckStart { node: u16, to: NodeId, seq: u8 },
    /// A packet leaves `node`'s network layer after t_fwd (`net.rs`).
    NetIn { node: u16, pkt: u32 },
    /// A packet reached the border router's host over SLIP (`host.rs`).
    HostIn { pkt: u32 },
    /// A packet reached a remote endpoint after the host delay (`host.rs`).
    RemoteIn { pkt: u32 },
    /// A CoAP request reaches a mote's application after t_app (`coap_app.rs`).
    AppIn { node: u16, pkt: u32 },
    /// A CoAP endpoint's timer (`coap_app.rs`).
    EpTimer { app: u32, generation: u64 },
    /// A CoAP client issues a request (`coap_app.rs`).
    ClientStart { app: u32 },
    /// A TCP client connects (`tcp_app.rs`).
    TcpConnect { node: u16 },
    /// A TCP client's application hands over a report (`tcp_app.rs`).
    TcpReport { node: u16 },
    /// A TCP client's retransmission timer (`tcp_app.rs`).
    TcpTimer { node: u16, generation: u64 },
    /// The run ends.
    End,
    /// The TCP server's delayed-ACK timer for `node` (`tcp_app.rs`).
    TcpDelack { node: u16, generation: u64 },
}

impl Ev {
    /// The event's (kind, subject: node, frame, packet or application) for the trace.
    pub(super) fn tag(&self) -> (u64, u64) {
        match *self {
            Ev::Check { node, .. } => (1, u64::from(node)),
            Ev::ListenTimeout { node, .. } => (2, u64::from(node)),
            Ev::Service { node, .. } => (3, u64::from(node)),
            Ev::Rdc { node, .. } => (4, u64::from(node)),
            Ev::FrameEnd(id) => (5, id.0),
            Ev::AckStart { node, .. } => (6, u64::from(node)),
            Ev::NetIn { node, .. } => (7, u64::from(node)),
            Ev::HostIn { pkt } => (8, u64::from(pkt)),
            Ev::RemoteIn { pkt } => (9, u64::from(pkt)),
            Ev::AppIn { node, .. } => (10, u64::from(node)),
            Ev::EpTimer { app, .. } => (11, u64::from(app)),
            Ev::ClientStart { app } => (12, u64::from(app)),
            Ev::TcpConnect { node } => (13, u64::from(node)),
            Ev::TcpReport { node } => (14, u64::from(node)),
            Ev::TcpTimer { node, .. } => (15, u64::from(node)),
            Ev::End => (16, 0),
            Ev::TcpDelack { node, .. } => (17, u64::from(node)),
        }
    }
}

/// A queued event, ordered by its key: (time, class, sequence number) packed into one integer
/// (time in the upper 64 bits, then the class bit, then the sequence number, below 2⁶³), so
/// the heap compares one `u128` instead of three fields.
pub(super) struct Entry {
    key: u128,
    pub(super) ev: Ev,
}

impl Entry {
    /// When the event happens.
    #[inline]
    pub(super) fn at(&self) -> Instant {
        Instant::from_nanos((self.key >> 64) as u64)
    }
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        self.key.cmp(&o.key)
    }
}

/// The pending events, earliest first: by time, then frame ends before the rest, then the
/// order they were pushed in.
#[derive(Default)]
pub(super) struct EventQueue {
    seq: u64,
    heap: BinaryHeap<Reverse<Entry>>,
}

impl EventQueue {
    /// Queues `ev` at `at`.
    pub(super) fn push(&mut self, at: Instant, ev: Ev) {
        self.seq += 1;
        debug_assert!(self.seq < 1 << 63, "the sequence number fits below the class bit");
        let class = u128::from(!matches!(ev, Ev::FrameEnd(_)));
        let key = (u128::from(at.as_nanos()) << 64) | (class << 63) | u128::from(self.seq);
        self.heap.push(Reverse(Entry { key, ev }));
    }

    /// The earliest event, removed from the queue.
    pub(super) fn pop(&mut self) -> Option<Entry> {
        self.heap.pop().map(|Reverse(e)| e)
    }
}

/// A recorded event trace: (time ns, event kind, subject: node, frame or packet) per event
/// processed, in order.
pub type EventTrace = Vec<(u64, u64, u64)>;

/// One FNV-1a step per byte of `x` (little-endian) on the digest `h`.
pub(super) fn fnv(mut h: u64, x: u64) -> u64 {
    for b in x.to_le_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The FNV-1a offset basis: the digest of a run before its first event.
pub(super) const FNV_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
