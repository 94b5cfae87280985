//! The seam between an algorithm and the endpoint that drives it.
//!
//! A [`Controller`] is an algorithm: an immutable, validated value (configuration and derived
//! parameters) shared by every destination. The congestion-control state for one destination
//! endpoint (the scope CoCoA and FASOR keep state for) is a separate, small
//! [`Controller::State`] the driver keeps and passes in (`st`), and each exchange carries a
//! typed [`Controller::ExchangeState`] on its [`Exchange`]. The algorithm owns no timer,
//! socket, clock or generator: every call carries `now`, random draws come from the caller's
//! generator, and it answers with durations and decisions. The endpoint arms its own timers.
//!
//! # Call order (one exchange)
//!
//! ```text
//! st = alg.new_state()                         // once per destination
//! at = alg.earliest_send(&st, now)             // rate-based algorithms may ask to wait
//! ex = alg.start(&mut st, at, in_flight, rng)  // original leaves at `at`; ex.timer() is armed
//! loop on expiry at ex.last_sent() + ex.timer():
//!     match alg.on_timeout(&mut st, now, &mut ex) {
//!         Retry::GiveUp => break,              // the state has already been updated
//!         Retry::Retransmit => {
//!             at = alg.earliest_send(&st, now);
//!             alg.retransmit(&mut st, at, &mut ex, rng);   // copy leaves at `at`
//!         }
//!     }
//! on acknowledgement: alg.on_ack(&mut st, now, &ex, &ack)
//! ```
//!
//! `now` never goes backwards across calls to one controller. Every method is total: any
//! state and any `now` (a clock ten days ahead, a zero RTT) gives a result, never a panic.
//! [`crate::retransmission::Outstanding`] is the hold / retransmit / give-up machine of
//! every driver; [`crate::harness::StopAndWait`] is a complete driver for one destination with NSTART = 1.

use core::time::Duration;

use crate::random::Rng;
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

/// How acknowledgements tell which copy of a request they answer, as an algorithm needs it
/// from the endpoint that drives it (spec §0 "Disambiguated sample", §7.7, OQ-17, OQ-28).
/// An algorithm states its own ([`Controller::echo_mode`]); the endpoint marks every copy
/// accordingly and passes what the peer echoed back in [`Ack::echo`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum EchoMode {
    /// No echo: acknowledgements after retransmissions are ambiguous.
    #[default]
    None,
    /// One extra token byte carries the transmission number; the server echoes the token
    /// (the FASOR paper's FASOR+token, spec §7.7). Piggybacked responses only.
    Token,
    /// A transmission-count option carries it and a cooperating server echoes it (pCoCoA's
    /// Transmission Count option, FASOR-02's Rexmit-Cnt).
    Option,
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

/// What the endpoint remembers about one exchange: when its copies left, how many were
/// retransmissions, and the timer armed for the latest one.
///
/// `X` is the controller's per-exchange scratch ([`Controller::ExchangeState`]), so that
/// several exchanges may be outstanding at once (NSTART > 1); each algorithm documents what
/// it keeps there and the endpoint never reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exchange<X> {
    first_sent: Instant,
    last_sent: Instant,
    retransmissions: u8,
    timer: Duration,
    /// The controller's scratch for this exchange.
    pub cc: X,
}

impl<X: Default> Exchange<X> {
    /// An exchange whose original copy leaves at `now`, before any timer is armed.
    pub fn new(now: Instant) -> Self {
        Exchange { first_sent: now, last_sent: now, retransmissions: 0, timer: Duration::ZERO, cc: X::default() }
    }
}

impl<X> Exchange<X> {
    /// The same exchange with its scratch mapped through `f` (dispatch between the typed
    /// scratch of one algorithm and the scratch of an enum over several).
    pub fn map_cc<Y>(self, f: impl FnOnce(X) -> Y) -> Exchange<Y> {
        Exchange {
            first_sent: self.first_sent,
            last_sent: self.last_sent,
            retransmissions: self.retransmissions,
            timer: self.timer,
            cc: f(self.cc),
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

/// A congestion-control algorithm: an immutable value built once from a checked
/// configuration (`Algorithm::new(config)`), shared by every destination (behind an `Arc` in
/// an endpoint, by reference in the harness), and driving the small per-destination
/// [`Controller::State`] and per-exchange [`Controller::ExchangeState`] it is given. See the
/// module docs for the call order.
pub trait Controller {
    /// What is kept per destination endpoint (estimators, carried timers, pacing): never the
    /// configuration. Made by [`Controller::new_state`].
    type State: Clone + core::fmt::Debug;
    /// What is kept per exchange on its [`Exchange`](crate::Exchange) record.
    type ExchangeState: Copy + Default + core::fmt::Debug;

    /// The state of a destination nothing has been exchanged with yet.
    fn new_state(&self) -> Self::State;

    /// The timer for the copy of `ex` that leaves at `now`: copy number
    /// `ex.retransmissions()` (0 is the original, for which lazy aging and the blind RTO apply).
    /// `in_flight` is the number of *other* exchanges outstanding to this destination.
    /// May update `ex.cc`, and nothing else of `ex` (the record is the driver's; here and in
    /// [`Controller::on_timeout`]). Called through [`Controller::start`] and
    /// [`Controller::retransmit`].
    fn on_transmit(
        &self,
        st: &mut Self::State,
        now: Instant,
        ex: &mut Exchange<Self::ExchangeState>,
        in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Duration;

    /// The timer of the latest copy of `ex` expired at `now`. On [`Retry::GiveUp`] the
    /// controller has applied whatever a failed exchange teaches it.
    fn on_timeout(&self, st: &mut Self::State, now: Instant, ex: &mut Exchange<Self::ExchangeState>) -> Retry;

    /// `ex` was acknowledged at `now` (the first acknowledgement; duplicates are not passed).
    fn on_ack(&self, st: &mut Self::State, now: Instant, ex: &Exchange<Self::ExchangeState>, ack: &Ack);

    /// The earliest instant the next copy (new exchange or retransmission) may leave. Only
    /// rate-based algorithms (IDC, MBC, BDP) answer anything but `now`.
    fn earliest_send(&self, st: &Self::State, now: Instant) -> Instant {
        let _ = st;
        now
    }

    /// The undithered timer this controller would arm for an original transmission at `now`,
    /// where that notion applies (after lazy aging, without blind-RTO scaling).
    fn rto(&self, st: &Self::State, now: Instant) -> Option<Duration>;

    /// Bounds on every timer this algorithm can arm, whatever the state.
    fn timer_bounds(&self) -> TimerBounds;

    /// How acknowledgements must name the copy they answer for this algorithm to get the
    /// RTT samples it is specified with; the endpoint marks copies accordingly. The default,
    /// [`EchoMode::None`], suits algorithms that only see ambiguous acknowledgements.
    fn echo_mode(&self) -> EchoMode {
        EchoMode::None
    }

    /// For a window-of-one TCP retransmission timer (uIP, Lim), the unit its RTT samples are
    /// counted in: a sample is ⌊R / unit⌋ (spec OQ-37), so a driver that models the TCP
    /// sender knows an acknowledgement under one unit gives a zero sample. `None` (the
    /// default) for CoAP controllers; a driver also takes `Some` to mean "this controller
    /// times TCP segments".
    fn tcp_rtt_unit(&self) -> Option<Duration> {
        None
    }

    /// Starts an exchange whose original copy leaves at `now`, with its timer armed.
    fn start(
        &self,
        st: &mut Self::State,
        now: Instant,
        in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Exchange<Self::ExchangeState> {
        let mut ex = Exchange::new(now);
        ex.timer = self.on_transmit(st, now, &mut ex, in_flight, rng);
        ex
    }

    /// Records a retransmission of `ex` leaving at `now` and arms its timer, which is returned.
    /// Call only after [`Controller::on_timeout`] answered [`Retry::Retransmit`].
    fn retransmit(
        &self,
        st: &mut Self::State,
        now: Instant,
        ex: &mut Exchange<Self::ExchangeState>,
        rng: &mut dyn Rng,
    ) -> Duration {
        ex.last_sent = now;
        ex.retransmissions = ex.retransmissions.saturating_add(1);
        ex.timer = self.on_transmit(st, now, ex, 0, rng);
        ex.timer
    }
}

/// An algorithm by reference is an algorithm (a harness or driver may borrow a shared one).
impl<C: Controller + ?Sized> Controller for &C {
    type State = C::State;
    type ExchangeState = C::ExchangeState;
    fn new_state(&self) -> C::State {
        (**self).new_state()
    }
    fn on_transmit(
        &self,
        st: &mut C::State,
        now: Instant,
        ex: &mut Exchange<C::ExchangeState>,
        in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Duration {
        (**self).on_transmit(st, now, ex, in_flight, rng)
    }
    fn on_timeout(&self, st: &mut C::State, now: Instant, ex: &mut Exchange<C::ExchangeState>) -> Retry {
        (**self).on_timeout(st, now, ex)
    }
    fn on_ack(&self, st: &mut C::State, now: Instant, ex: &Exchange<C::ExchangeState>, ack: &Ack) {
        (**self).on_ack(st, now, ex, ack)
    }
    fn earliest_send(&self, st: &C::State, now: Instant) -> Instant {
        (**self).earliest_send(st, now)
    }
    fn rto(&self, st: &C::State, now: Instant) -> Option<Duration> {
        (**self).rto(st, now)
    }
    fn timer_bounds(&self) -> TimerBounds {
        (**self).timer_bounds()
    }
    fn echo_mode(&self) -> EchoMode {
        (**self).echo_mode()
    }
    fn tcp_rtt_unit(&self) -> Option<Duration> {
        (**self).tcp_rtt_unit()
    }
}
