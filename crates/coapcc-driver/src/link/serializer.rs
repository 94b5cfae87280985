//! [`Serializer`]: a link of `rate_bps` fed by a byte-limited drop-tail FIFO buffer
//! (testbeds §1 "Bottleneck buffer" and "Serialisation at the link rate").
//!
//! Semantics, exactly:
//!
//! * A packet of `b` bytes occupies the link for `⌈b · 8 · 10⁹ / rate_bps⌉` nanoseconds
//!   ([`serialization_time`]).
//! * Service is FIFO and work-conserving: packet `i` starts at
//!   `sᵢ = max(arrivalᵢ, finishᵢ₋₁)` and leaves the stage at `finishᵢ = sᵢ + tx(bᵢ)` (the
//!   instant its last bit is on the wire; propagation is a separate stage).
//! * The buffer holds the packets **waiting** for the link at a given instant: admitted
//!   packets with `sⱼ > t`. The packet being serialised has left the buffer, and a packet
//!   starting exactly at its arrival (`sᵢ = arrivalᵢ`) never occupies it. So a packet that
//!   finds the link idle always passes, and `buffer_bytes = 0` is a bufferless link.
//! * Drop-tail: a packet that must wait is admitted iff (bytes waiting at its arrival) + its
//!   size ≤ `buffer_bytes`; otherwise it is dropped ([`DropReason::Buffer`]) and leaves no
//!   trace in the queue. Later, smaller packets may still fit.
//! * With `count_in_service = true` (default `false`), the packet being serialised at the
//!   arrival also counts: a packet that must wait is admitted iff (bytes waiting) + (bytes of
//!   the packet on the link) + its size ≤ `buffer_bytes` — a buffer that holds the packet in
//!   service until its last bit is sent (testbeds §1, "Bottleneck buffer"; the drop-tail
//!   investigation sweeps it). A packet finding the link idle still always passes.
//!
//! Cost: O(1) amortised per offer. The queue is a `VecDeque` of `(start, size)` for the
//! waiting packets with a running byte sum; an offer first pops the packets that have started
//! by its arrival time. The deque's storage grows to the largest backlog and is then reused,
//! so there is no allocation per packet in steady state.

use std::collections::VecDeque;

use coapcc_core::ConfigError;
use coapcc_core::duration::{from_nanos, nanos};
use coapcc_core::{Duration, Instant};

use super::DropReason;

/// Configuration of a [`Serializer`]. No `Default`: the rate and buffer are always stated
/// (see [`presets`](super::presets) for the testbed values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SerializerConfig {
    /// Link rate in bits per second (≥ 1).
    pub rate_bps: u64,
    /// Capacity of the drop-tail buffer in bytes, counting only packets waiting for the link
    /// (0 = no buffer).
    pub buffer_bytes: u64,
    /// Whether the packet being serialised counts against `buffer_bytes` too (default
    /// `false`: only waiting packets count). Not written when `false`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub count_in_service: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl SerializerConfig {
    /// Checks the ranges: `rate_bps ≥ 1`.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.rate_bps == 0 {
            return Err(ConfigError::new("rate_bps", "must be at least 1 (bits per second)"));
        }
        Ok(())
    }
}

/// The time a packet of `bytes` occupies a link of `rate_bps`: `⌈bytes·8·10⁹ / rate_bps⌉`
/// nanoseconds, saturating (a zero rate gives the saturated value).
#[inline]
pub fn serialization_time(bytes: u32, rate_bps: u64) -> Duration {
    if rate_bps == 0 {
        return from_nanos(u64::MAX);
    }
    let bits_ns = bytes as u128 * 8 * 1_000_000_000;
    let ns = bits_ns.div_ceil(rate_bps as u128);
    from_nanos(if ns > u64::MAX as u128 { u64::MAX } else { ns as u64 })
}

/// Statistics of a [`Serializer`] (counts of packets in, out and dropped are kept per stage
/// by the [`Pipeline`](super::Pipeline)).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SerializerStats {
    /// Serialisation time of every admitted packet (including work still scheduled after
    /// the latest arrival; see [`SerializerStats::busy_by`]).
    pub busy: Duration,
    /// When the link finishes the last admitted packet.
    pub busy_until: Instant,
    /// The latest arrival seen.
    pub last_arrival: Instant,
    /// Largest number of bytes waiting in the buffer (right after an admission).
    pub max_occupancy_bytes: u64,
    /// Largest number of packets waiting in the buffer.
    pub max_occupancy_packets: u64,
    /// Admitted packets that had to wait (did not find the link idle).
    pub queued_packets: u64,
    /// Sum over admitted packets of (start of serialisation − arrival).
    pub queueing_delay: Duration,
}

impl SerializerStats {
    /// Busy time in `[ZERO, end]`. Exact when `end ≥ last_arrival` (after the latest arrival
    /// the link works without gaps until `busy_until`); for an earlier `end` it counts the
    /// work of packets admitted after `end` too.
    pub fn busy_by(&self, end: Instant) -> Duration {
        self.busy.saturating_sub(self.busy_until - end)
    }

    /// Utilisation of the link over `[ZERO, end]`: [`busy_by`](Self::busy_by)`(end) / end`,
    /// in `[0, 1]` (zero for `end = ZERO`).
    pub fn utilisation(&self, end: Instant) -> f64 {
        let elapsed = end.as_nanos();
        if elapsed == 0 { 0.0 } else { (nanos(self.busy_by(end)) as f64 / elapsed as f64).min(1.0) }
    }

    /// Mean queueing delay of the admitted packets (`admitted` from the pipeline's
    /// counters); zero when none.
    pub fn mean_queueing_delay(&self, admitted: u64) -> Duration {
        coapcc_core::duration::div(self.queueing_delay, admitted.max(1))
    }
}

/// A packet waiting for the link.
#[derive(Clone, Copy, Debug)]
struct Waiting {
    /// When its serialisation starts (nanoseconds since the epoch).
    start: u64,
    /// Its size in bytes.
    bytes: u32,
}

/// A link of fixed rate behind a byte-limited drop-tail FIFO buffer. See the module docs
/// for the exact semantics.
#[derive(Clone, Debug)]
pub struct Serializer {
    config: SerializerConfig,
    /// Admitted packets that had not started at the latest arrival, in FIFO order.
    waiting: VecDeque<Waiting>,
    /// Sum of `waiting[..].bytes`.
    waiting_bytes: u64,
    /// The latest packet to start serialisation: (start, bytes) — the packet on the link
    /// whenever the link is busy (for `count_in_service`).
    started: Waiting,
    /// The hot state in nanoseconds; [`Serializer::stats`] presents it with units.
    hot: Hot,
    /// Serialisation times of packet sizes seen so far, in nanoseconds (0 = not computed):
    /// packets come in a few sizes, and the division is the costliest step of an offer.
    tx_ns: Vec<u64>,
    /// The latest packet size and its serialisation time, nanoseconds: a direction mostly
    /// carries one size (requests up, responses down), so most offers stop here.
    last_tx: (u32, u64),
}

/// The per-offer state, in integer nanoseconds (no `Duration` arithmetic on the hot path).
#[derive(Clone, Copy, Debug, Default)]
struct Hot {
    busy_ns: u64,
    busy_until_ns: u64,
    last_arrival_ns: u64,
    max_occupancy_bytes: u64,
    max_occupancy_packets: u64,
    queued_packets: u64,
    queueing_delay_ns: u64,
}

/// Packet sizes up to this many bytes have their serialisation time cached.
const TX_CACHE_BYTES: usize = 2048;

impl Serializer {
    /// Checks the configuration and builds an idle link with an empty buffer.
    pub fn new(config: SerializerConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        // Room for a modest backlog of small packets up front; larger backlogs grow once.
        let reserve = (config.buffer_bytes / 64).min(1024) as usize;
        Ok(Serializer {
            config,
            waiting: VecDeque::with_capacity(reserve),
            waiting_bytes: 0,
            started: Waiting { start: 0, bytes: 0 },
            hot: Hot::default(),
            tx_ns: Vec::new(),
            last_tx: (0, 0),
        })
    }

    /// The serialisation time of `bytes`, nanoseconds (a zero-byte packet takes none).
    #[inline]
    fn tx_ns(&mut self, bytes: u32) -> u64 {
        if bytes == self.last_tx.0 {
            return self.last_tx.1;
        }
        let ns = self.tx_ns_cached(bytes);
        self.last_tx = (bytes, ns);
        ns
    }

    fn tx_ns_cached(&mut self, bytes: u32) -> u64 {
        let i = bytes as usize;
        if i >= TX_CACHE_BYTES || bytes == 0 {
            return nanos(serialization_time(bytes, self.config.rate_bps));
        }
        if self.tx_ns.len() <= i {
            self.tx_ns.resize(i + 1, 0);
        }
        if self.tx_ns[i] == 0 {
            self.tx_ns[i] = nanos(serialization_time(bytes, self.config.rate_bps));
        }
        self.tx_ns[i]
    }

    /// The configuration.
    pub fn config(&self) -> &SerializerConfig {
        &self.config
    }

    /// Statistics so far.
    pub fn stats(&self) -> SerializerStats {
        let h = &self.hot;
        SerializerStats {
            busy: from_nanos(h.busy_ns),
            busy_until: Instant::from_nanos(h.busy_until_ns),
            last_arrival: Instant::from_nanos(h.last_arrival_ns),
            max_occupancy_bytes: h.max_occupancy_bytes,
            max_occupancy_packets: h.max_occupancy_packets,
            queued_packets: h.queued_packets,
            queueing_delay: from_nanos(h.queueing_delay_ns),
        }
    }

    /// Bytes waiting in the buffer as of the latest arrival.
    pub fn occupancy_bytes(&self) -> u64 {
        self.waiting_bytes
    }

    /// Packets waiting in the buffer as of the latest arrival.
    pub fn occupancy_packets(&self) -> usize {
        self.waiting.len()
    }

    /// A packet of `bytes` arrives at `now` (clamped to the latest arrival, see
    /// [`link`](super)). Returns when its serialisation ends, or [`DropReason::Buffer`].
    #[inline]
    pub fn offer(&mut self, now: Instant, bytes: u32) -> Result<Instant, DropReason> {
        let t = now.as_nanos().max(self.hot.last_arrival_ns);
        self.hot.last_arrival_ns = t;
        while let Some(front) = self.waiting.front() {
            if front.start > t {
                break;
            }
            self.waiting_bytes -= front.bytes as u64;
            self.started = *front;
            self.waiting.pop_front();
        }
        let start = t.max(self.hot.busy_until_ns);
        if start > t {
            let occupancy = self.waiting_bytes.saturating_add(bytes as u64);
            // The link is busy, so the latest packet to start is on it (FIFO, work-conserving).
            let in_service = if self.config.count_in_service { self.started.bytes as u64 } else { 0 };
            if occupancy.saturating_add(in_service) > self.config.buffer_bytes {
                return Err(DropReason::Buffer);
            }
            self.waiting.push_back(Waiting { start, bytes });
            self.waiting_bytes = occupancy;
            let h = &mut self.hot;
            h.max_occupancy_bytes = h.max_occupancy_bytes.max(occupancy);
            h.max_occupancy_packets = h.max_occupancy_packets.max(self.waiting.len() as u64);
            h.queued_packets += 1;
            h.queueing_delay_ns = h.queueing_delay_ns.saturating_add(start - t);
        } else {
            self.started = Waiting { start, bytes };
        }
        let tx = self.tx_ns(bytes);
        self.hot.busy_until_ns = start.saturating_add(tx);
        self.hot.busy_ns = self.hot.busy_ns.saturating_add(tx);
        Ok(Instant::from_nanos(self.hot.busy_until_ns))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(rate_bps: u64, buffer_bytes: u64) -> Serializer {
        Serializer::new(SerializerConfig { rate_bps, buffer_bytes, count_in_service: false }).unwrap()
    }

    #[test]
    fn counting_the_packet_in_service_drops_what_would_fit_beside_it_only() {
        // 8 000 bit/s = one byte per millisecond; 300 B of buffer.
        let mut l =
            Serializer::new(SerializerConfig { rate_bps: 8_000, buffer_bytes: 300, count_in_service: true }).unwrap();
        assert_eq!(l.offer(ms(0), 100), Ok(ms(100)), "an idle link takes it, whatever the accounting");
        assert_eq!(l.offer(ms(0), 150), Ok(ms(250)), "100 on the link + 150 waiting = 250 ≤ 300");
        assert_eq!(l.offer(ms(0), 100), Err(DropReason::Buffer), "100 + 150 + 100 = 350 > 300");
        assert_eq!(l.offer(ms(0), 50), Ok(ms(300)), "100 + 150 + 50 = 300 fits");
        // At 100 ms the first has left; the 150-byte packet is on the link, 50 B wait.
        assert_eq!(l.offer(ms(100), 100), Ok(ms(400)), "150 + 50 + 100 = 300 fits");
        assert_eq!(l.offer(ms(100), 1), Err(DropReason::Buffer));
        // Without the in-service packet counted, the third offer above is admitted.
        let mut plain = link(8_000, 300);
        plain.offer(ms(0), 100).unwrap();
        plain.offer(ms(0), 150).unwrap();
        assert_eq!(plain.offer(ms(0), 100), Ok(ms(350)));
    }

    fn ms(m: u64) -> Instant {
        Instant::from_millis(m)
    }

    #[test]
    fn a_54_byte_packet_takes_14_4_ms_at_30_kbit_per_s() {
        assert_eq!(serialization_time(54, 30_000), Duration::from_micros(14_400));
        let mut l = link(30_000, 2_500);
        assert_eq!(l.offer(ms(100), 54), Ok(Instant::from_nanos(114_400_000)));
    }

    #[test]
    fn serialization_time_rounds_up_to_the_nanosecond() {
        // 55 B = 440 bit at 30 kbit/s = 14.666… ms.
        assert_eq!(serialization_time(55, 30_000), Duration::from_nanos(14_666_667));
        assert_eq!(serialization_time(0, 30_000), Duration::ZERO);
        assert_eq!(serialization_time(1, 0), Duration::from_nanos(u64::MAX));
    }

    #[test]
    fn back_to_back_packets_queue_and_leave_spaced_by_their_serialization_times() {
        let mut l = link(30_000, 2_500);
        let t0 = ms(0);
        assert_eq!(l.offer(t0, 54), Ok(Instant::from_nanos(14_400_000)));
        assert_eq!(l.offer(t0, 54), Ok(Instant::from_nanos(28_800_000)));
        assert_eq!(l.offer(t0, 54), Ok(Instant::from_nanos(43_200_000)));
        // Two waited: 14.4 ms and 28.8 ms.
        assert_eq!(l.stats().queued_packets, 2);
        assert_eq!(l.stats().queueing_delay, Duration::from_micros(43_200));
        assert_eq!(l.stats().max_occupancy_bytes, 108);
        assert_eq!(l.occupancy_bytes(), 108);
        // At 14.4 ms the second packet starts, leaving one waiting packet.
        assert_eq!(l.offer(Instant::from_nanos(14_400_000), 54), Ok(Instant::from_nanos(57_600_000)));
        assert_eq!(l.occupancy_bytes(), 108);
        assert_eq!(l.occupancy_packets(), 2);
    }

    #[test]
    fn drop_tail_drops_exactly_the_packet_that_does_not_fit() {
        // 8 000 bit/s = one byte per millisecond; 300 B of buffer.
        let mut l = link(8_000, 300);
        assert_eq!(l.offer(ms(0), 100), Ok(ms(100))); // on the link at once: not buffered
        assert_eq!(l.offer(ms(0), 100), Ok(ms(200))); // 100 B waiting
        assert_eq!(l.offer(ms(0), 150), Ok(ms(350))); // 250 B waiting
        assert_eq!(l.offer(ms(0), 100), Err(DropReason::Buffer)); // 350 > 300
        assert_eq!(l.offer(ms(0), 50), Ok(ms(400))); // exactly 300: fits
        assert_eq!(l.offer(ms(0), 1), Err(DropReason::Buffer));
        assert_eq!(l.occupancy_bytes(), 300);
        // At 100 ms the second packet has started: 200 B wait, so 100 B fit again.
        assert_eq!(l.offer(ms(100), 100), Ok(ms(500)));
        assert_eq!(l.stats().max_occupancy_bytes, 300);
    }

    #[test]
    fn a_packet_finding_the_link_idle_needs_no_buffer_space() {
        let mut l = link(8_000, 0);
        assert_eq!(l.offer(ms(0), 1_000), Ok(ms(1_000)));
        assert_eq!(l.offer(ms(999), 1), Err(DropReason::Buffer));
        // Arriving exactly when the link frees: starts at once.
        assert_eq!(l.offer(ms(1_000), 1), Ok(ms(1_001)));
    }

    #[test]
    fn an_arrival_earlier_than_the_previous_one_is_treated_as_simultaneous() {
        let mut l = link(8_000, 1_000);
        assert_eq!(l.offer(ms(50), 10), Ok(ms(60)));
        assert_eq!(l.offer(ms(10), 10), Ok(ms(70)));
        assert_eq!(l.stats().queueing_delay, Duration::from_millis(10));
    }

    #[test]
    fn utilisation_counts_busy_time_up_to_the_end() {
        let mut l = link(8_000, 1_000);
        l.offer(ms(0), 100).unwrap();
        l.offer(ms(0), 100).unwrap();
        assert_eq!(l.stats().busy_by(ms(150)), Duration::from_millis(150));
        assert_eq!(l.stats().utilisation(ms(400)), 0.5);
        assert_eq!(l.stats().utilisation(Instant::ZERO), 0.0);
        assert_eq!(l.stats().mean_queueing_delay(2), Duration::from_millis(50));
    }

    #[test]
    fn a_zero_rate_names_its_key() {
        let err =
            Serializer::new(SerializerConfig { rate_bps: 0, buffer_bytes: 10, count_in_service: false }).unwrap_err();
        assert_eq!(err.key, "rate_bps");
    }
}
