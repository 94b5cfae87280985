//! The seam between an algorithm and the endpoint that drives it.
//!
//! A [`Controller`] holds the congestion-control state for one destination endpoint (the
//! scope CoCoA and FASOR keep state for). It owns no timer, socket, clock or generator:
//! every call carries `now`, random draws come from the caller's generator, and it answers
//! with durations and decisions. The endpoint arms its own timers.
//!
//! # Call order (one exchange)
//!
//! ```text
//! at = ctrl.earliest_send(now)            // rate-based algorithms may ask to wait
//! ex = ctrl.start(at, in_flight, rng)      // original leaves at `at`; ex.timer() is armed
//! loop on expiry at ex.last_sent() + ex.timer():
//!     match ctrl.on_timeout(now, &mut ex) {
//!         Retry::GiveUp => break,          // the controller has already updated its state
//!         Retry::Retransmit => {
//!             at = ctrl.earliest_send(now);
//!             ctrl.retransmit(at, &mut ex, rng);   // copy leaves at `at`
//!         }
//!     }
//! on acknowledgement: ctrl.on_ack(now, &ex, &ack)
//! ```
//!
//! `now` never goes backwards across calls to one controller. Every method is total: any
//! state and any `now` (a clock ten days ahead, a zero RTT) gives a result, never a panic.
//! [`crate::harness::StopAndWait`] is a complete driver for one destination with NSTART = 1.

use core::time::Duration;

use crate::random::Rng;
use crate::ratio::Ratio;
use crate::time::Instant;

/// What the endpoint should do when the timer of the latest copy expires.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Retry {
    /// Send another copy (at [`Controller::earliest_send`] or later), then call
    /// [`Controller::retransmit`].
    Retransmit,
    /// Abandon the exchange (MAX_RETRANSMIT retransmissions were made).
    GiveUp,
}

/// The echo of a transmission count: which copy an acknowledgement answers, and when that
/// copy was sent (the endpoint keeps the send times). Comes from a FASOR token byte or
/// Rexmit-Cnt option, a pCoCoA Transmission Count option, or the simulator's ground truth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Echo {
    /// The acknowledged copy: 0 is the original transmission.
    pub copy: u8,
    /// When that copy was sent.
    pub sent: Instant,
}

/// An acknowledgement (empty ACK or piggybacked response) of the current exchange.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Ack {
    /// Which copy is acknowledged, when the peer said so; `None` for an ambiguous ACK.
    pub echo: Option<Echo>,
}

impl Ack {
    /// An ACK that does not say which copy it answers.
    pub const AMBIGUOUS: Ack = Ack { echo: None };
}

/// Per-exchange scratch a controller keeps on the endpoint's [`Exchange`] record, so that
/// several exchanges may be outstanding at once (NSTART > 1). Each algorithm documents what
/// it stores here; the endpoint never reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExchangeCc {
    /// The undithered backoff register: the value the next backoff step starts from.
    pub base: Duration,
    /// A second duration (FASOR: the SlowRTO of the series; 4-state: the initial RTO).
    pub aux: Duration,
    /// The backoff factor chosen for this exchange (CoCoA's VBF, OQ-3).
    pub factor: Ratio,
    /// An algorithm-defined selector (FASOR: the backoff series).
    pub series: u8,
}

/// What the endpoint remembers about one exchange: when its copies left, how many were
/// retransmissions, and the timer armed for the latest one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exchange {
    first_sent: Instant,
    last_sent: Instant,
    retransmissions: u8,
    timer: Duration,
    /// The controller's scratch for this exchange.
    pub cc: ExchangeCc,
}

impl Exchange {
    /// An exchange whose original copy leaves at `now`, before any timer is armed.
    pub fn new(now: Instant) -> Self {
        Exchange {
            first_sent: now,
            last_sent: now,
            retransmissions: 0,
            timer: Duration::ZERO,
            cc: ExchangeCc::default(),
        }
    }

    /// When the original copy left.
    pub fn first_sent(&self) -> Instant {
        self.first_sent
    }

    /// When the latest copy left.
    pub fn last_sent(&self) -> Instant {
        self.last_sent
    }

    /// Retransmissions so far (0: only the original was sent).
    pub fn retransmissions(&self) -> u8 {
        self.retransmissions
    }

    /// The timer armed for the latest copy, as armed (dithered).
    pub fn timer(&self) -> Duration {
        self.timer
    }

    /// When the timer of the latest copy expires.
    pub fn deadline(&self) -> Instant {
        self.last_sent + self.timer
    }
}

/// Inclusive bounds on every timer an algorithm arms with its configuration; property tests
/// check them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerBounds {
    /// No armed timer is shorter.
    pub min: Duration,
    /// No armed timer is longer.
    pub max: Duration,
}

/// A congestion controller for one destination endpoint. See the module docs for the call
/// order.
pub trait Controller {
    /// The timer for the copy of `ex` that leaves at `now`: copy number
    /// `ex.retransmissions()` (0 is the original, for which lazy aging and the blind RTO apply).
    /// `in_flight` is the number of *other* exchanges outstanding to this destination.
    /// May update `ex.cc`. Called through [`Controller::start`] and [`Controller::retransmit`].
    fn on_transmit(&mut self, now: Instant, ex: &mut Exchange, in_flight: usize, rng: &mut dyn Rng) -> Duration;

    /// The timer of the latest copy of `ex` expired at `now`. On [`Retry::GiveUp`] the
    /// controller has applied whatever a failed exchange teaches it.
    fn on_timeout(&mut self, now: Instant, ex: &mut Exchange) -> Retry;

    /// `ex` was acknowledged at `now` (the first acknowledgement; duplicates are not passed).
    fn on_ack(&mut self, now: Instant, ex: &Exchange, ack: &Ack);

    /// The earliest instant the next copy (new exchange or retransmission) may leave. Only
    /// rate-based algorithms (IDC, MBC, BDP) answer anything but `now`.
    fn earliest_send(&self, now: Instant) -> Instant {
        now
    }

    /// The undithered timer this controller would arm for an original transmission at `now`,
    /// where that notion applies (after lazy aging, without blind-RTO scaling).
    fn rto(&self, now: Instant) -> Option<Duration>;

    /// Bounds on every timer this controller can arm.
    fn timer_bounds(&self) -> TimerBounds;

    /// Starts an exchange whose original copy leaves at `now`, with its timer armed.
    fn start(&mut self, now: Instant, in_flight: usize, rng: &mut dyn Rng) -> Exchange {
        let mut ex = Exchange::new(now);
        ex.timer = self.on_transmit(now, &mut ex, in_flight, rng);
        ex
    }

    /// Records a retransmission of `ex` leaving at `now` and arms its timer, which is returned.
    /// Call only after [`Controller::on_timeout`] answered [`Retry::Retransmit`].
    fn retransmit(&mut self, now: Instant, ex: &mut Exchange, rng: &mut dyn Rng) -> Duration {
        ex.last_sent = now;
        ex.retransmissions = ex.retransmissions.saturating_add(1);
        ex.timer = self.on_transmit(now, ex, 0, rng);
        ex.timer
    }
}
