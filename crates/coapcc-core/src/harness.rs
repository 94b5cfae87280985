//! [`StopAndWait`]: a minimal driver for one controller and one destination with NSTART = 1.
//!
//! It is the engine of `coapcc replay`, of the property tests and of the unit tests: the
//! application asks to [`send`](StopAndWait::send), time [`advances`](StopAndWait::advance_to)
//! (expiring timers retransmit or give up, paced copies leave), and acknowledgements
//! [`arrive`](StopAndWait::ack). Every observable step is reported to a callback as an
//! [`Event`], in time order. The full CoAP endpoint (Message IDs, tokens, NSTART queues,
//! duplicate detection) lives in `coapcc-proto`; this harness only exercises the controller.

use core::time::Duration;

pub mod script;

use crate::controller::{Ack, Controller, Echo};
use crate::random::Rng;
use crate::retransmission::{Fired, Outstanding};
use crate::time::Instant;

/// Something the harness did, in time order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// A copy of an exchange left, with the timer armed for it.
    Transmit {
        /// When.
        at: Instant,
        /// Exchange number (1 for the first `send`).
        exchange: u32,
        /// Copy number: 0 is the original.
        copy: u8,
        /// The timer armed for this copy.
        timer: Duration,
    },
    /// The exchange was abandoned after its last timer expired.
    GiveUp {
        /// When.
        at: Instant,
        /// Exchange number.
        exchange: u32,
    },
    /// The exchange was acknowledged.
    Ack {
        /// When.
        at: Instant,
        /// Exchange number.
        exchange: u32,
        /// The copy the acknowledgement named, if it named one.
        copy: Option<u8>,
        /// The undithered timer for the next original transmission, where that applies.
        rto: Option<Duration>,
    },
}

/// A request the harness cannot carry out in its current state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum HarnessError {
    /// `send` while an exchange is outstanding (one exchange at a time).
    #[error("an exchange is already outstanding (one exchange at a time)")]
    Busy,
    /// `ack` with no copy of an exchange in flight.
    #[error("no exchange has a copy in flight to acknowledge")]
    NothingToAck,
    /// `ack copy K` for a copy that was not sent.
    #[error("copy {copy} was not sent (copies sent so far: {sent}, numbered from 0)")]
    CopyNotSent {
        /// The copy named.
        copy: u16,
        /// Copies sent so far.
        sent: u16,
    },
}

#[derive(Clone, Copy, Debug)]
enum State<X> {
    Idle,
    /// The application asked to send; the rate-based controller holds the original until `at`.
    Held {
        exchange: u32,
        at: Instant,
    },
    /// A copy is in flight, or a retransmission is held ([`Outstanding`]).
    InFlight {
        exchange: u32,
        out: Outstanding<X>,
    },
}

/// Drives one controller through stop-and-wait exchanges (NSTART = 1). `C` is the algorithm,
/// owned or by reference (`&AnyController`: [`Controller`] is implemented for references);
/// the harness keeps the destination's state.
#[derive(Clone, Debug)]
pub struct StopAndWait<C: Controller> {
    ctrl: C,
    st: C::State,
    now: Instant,
    next_exchange: u32,
    state: State<C::ExchangeState>,
    /// Send instant of every copy of the current exchange (copy numbers are `u8`).
    sent: [Instant; 256],
}

impl<C: Controller> StopAndWait<C> {
    /// A harness at time zero, for a fresh destination.
    pub fn new(ctrl: C) -> Self {
        let st = ctrl.new_state();
        Self::with_state(ctrl, st)
    }

    /// A harness at time zero whose destination starts in state `st`.
    pub fn with_state(ctrl: C, st: C::State) -> Self {
        StopAndWait { ctrl, st, now: Instant::ZERO, next_exchange: 1, state: State::Idle, sent: [Instant::ZERO; 256] }
    }

    /// The controller.
    pub fn controller(&self) -> &C {
        &self.ctrl
    }

    /// The destination's state.
    pub fn state(&self) -> &C::State {
        &self.st
    }

    /// The destination's state, for setting it in tests.
    pub fn state_mut(&mut self) -> &mut C::State {
        &mut self.st
    }

    /// The undithered timer for the next original transmission, where that applies.
    pub fn rto(&self) -> Option<Duration> {
        self.ctrl.rto(&self.st, self.now)
    }

    /// The harness clock.
    pub fn now(&self) -> Instant {
        self.now
    }

    /// Whether an exchange is outstanding (held or in flight).
    pub fn is_busy(&self) -> bool {
        !matches!(self.state, State::Idle)
    }

    /// The application starts a new exchange at `now` (after advancing the clock to it).
    pub fn send(&mut self, now: Instant, rng: &mut dyn Rng, emit: &mut dyn FnMut(Event)) -> Result<(), HarnessError> {
        self.advance_to(now, rng, emit);
        if self.is_busy() {
            return Err(HarnessError::Busy);
        }
        let exchange = self.next_exchange;
        self.next_exchange = self.next_exchange.wrapping_add(1);
        let at = self.ctrl.earliest_send(&self.st, self.now);
        if at <= self.now {
            self.transmit_original(exchange, rng, emit);
        } else {
            self.state = State::Held { exchange, at };
        }
        Ok(())
    }

    /// The outstanding exchange is acknowledged at `now`; `copy` names the acknowledged
    /// copy when the acknowledgement echoes it.
    pub fn ack(
        &mut self,
        now: Instant,
        copy: Option<u16>,
        rng: &mut dyn Rng,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(), HarnessError> {
        self.advance_to(now, rng, emit);
        let State::InFlight { exchange, out } = self.state else {
            return Err(HarnessError::NothingToAck);
        };
        let ex = out.exchange();
        let sent = u16::from(ex.retransmissions()) + 1;
        let echo = match copy {
            None => None,
            Some(k) if k < sent => Some(Echo { copy: k as u8, sent: self.sent[k as usize] }),
            Some(k) => return Err(HarnessError::CopyNotSent { copy: k, sent }),
        };
        self.ctrl.on_ack(&mut self.st, self.now, ex, &Ack { echo });
        self.state = State::Idle;
        emit(Event::Ack { at: self.now, exchange, copy: echo.map(|e| e.copy), rto: self.ctrl.rto(&self.st, self.now) });
        Ok(())
    }

    /// The instant of the next timer expiry or held transmission, if any.
    pub fn next_deadline(&self) -> Option<Instant> {
        match self.state {
            State::Idle => None,
            State::Held { at, .. } => Some(at),
            State::InFlight { out, .. } => Some(out.wake_at()),
        }
    }

    /// Advances the clock to `to`, firing every expiry and held transmission due up to and
    /// including `to`, in order. A `to` in the past leaves the clock where it is.
    pub fn advance_to(&mut self, to: Instant, rng: &mut dyn Rng, emit: &mut dyn FnMut(Event)) {
        while let Some(at) = self.next_deadline() {
            if at > to {
                break;
            }
            self.now = self.now.max(at);
            self.fire(rng, emit);
        }
        self.now = self.now.max(to);
    }

    fn fire(&mut self, rng: &mut dyn Rng, emit: &mut dyn FnMut(Event)) {
        match self.state {
            State::Idle => {}
            State::Held { exchange, .. } => self.transmit_original(exchange, rng, emit),
            State::InFlight { exchange, mut out } => match out.fire(&self.ctrl, &mut self.st, self.now, rng) {
                Fired::GaveUp => {
                    self.state = State::Idle;
                    emit(Event::GiveUp { at: self.now, exchange });
                }
                Fired::Held { .. } => self.state = State::InFlight { exchange, out },
                Fired::Sent { copy, timer } => {
                    self.sent[copy as usize] = self.now;
                    self.state = State::InFlight { exchange, out };
                    emit(Event::Transmit { at: self.now, exchange, copy, timer });
                }
            },
        }
    }

    fn transmit_original(&mut self, exchange: u32, rng: &mut dyn Rng, emit: &mut dyn FnMut(Event)) {
        let out = Outstanding::start(&self.ctrl, &mut self.st, self.now, 0, rng);
        self.sent[0] = self.now;
        self.state = State::InFlight { exchange, out };
        emit(Event::Transmit { at: self.now, exchange, copy: 0, timer: out.exchange().timer() });
    }
}

/// Helpers for unit tests of the algorithms: a [`StopAndWait`] with a fixed-seed generator
/// that records its events, with times in whole milliseconds or nanoseconds.
#[cfg(test)]
pub(crate) mod testing {
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use crate::controller::Exchange;
    use rand_core::SeedableRng;
    use rand_pcg::Pcg64Mcg;

    /// `n` milliseconds.
    pub(crate) fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// The instant `n` milliseconds after the epoch.
    pub(crate) fn at(n: u64) -> Instant {
        Instant::from_millis(n)
    }

    /// An algorithm with one destination's state beside it, for tests that call the
    /// [`Controller`] methods one by one (`c.start(now, 0, rng)`, `c.state()`).
    #[derive(Clone, Debug)]
    pub(crate) struct Bound<C: Controller> {
        pub alg: C,
        pub st: C::State,
    }

    impl<C: Controller> core::ops::Deref for Bound<C> {
        type Target = C;
        fn deref(&self) -> &C {
            &self.alg
        }
    }

    #[allow(dead_code)]
    impl<C: Controller> Bound<C> {
        pub fn new(alg: C) -> Self {
            let st = alg.new_state();
            Bound { alg, st }
        }
        pub fn state(&self) -> C::State {
            self.st.clone()
        }
        pub fn set_state(&mut self, st: C::State) {
            self.st = st;
        }
        pub fn start(&mut self, now: Instant, in_flight: usize, rng: &mut dyn Rng) -> Exchange<C::ExchangeState> {
            self.alg.start(&mut self.st, now, in_flight, rng)
        }
        pub fn retransmit(&mut self, now: Instant, ex: &mut Exchange<C::ExchangeState>, rng: &mut dyn Rng) -> Duration {
            self.alg.retransmit(&mut self.st, now, ex, rng)
        }
        pub fn on_timeout(&mut self, now: Instant, ex: &mut Exchange<C::ExchangeState>) -> crate::controller::Retry {
            self.alg.on_timeout(&mut self.st, now, ex)
        }
        pub fn on_ack(&mut self, now: Instant, ex: &Exchange<C::ExchangeState>, ack: &Ack) {
            self.alg.on_ack(&mut self.st, now, ex, ack)
        }
        pub fn rto(&self, now: Instant) -> Option<Duration> {
            self.alg.rto(&self.st, now)
        }
        pub fn earliest_send(&self, now: Instant) -> Instant {
            self.alg.earliest_send(&self.st, now)
        }
    }

    /// An algorithm (with a fresh state) or a [`Bound`]: what [`Script::new`] takes.
    pub(crate) trait IntoBound {
        type C: Controller;
        fn into_bound(self) -> Bound<Self::C>;
    }

    impl<C: Controller> IntoBound for C {
        type C = C;
        fn into_bound(self) -> Bound<C> {
            Bound::new(self)
        }
    }

    impl<C: Controller> IntoBound for Bound<C> {
        type C = C;
        fn into_bound(self) -> Bound<C> {
            self
        }
    }

    pub(crate) struct Script<C: Controller> {
        pub h: StopAndWait<C>,
        pub rng: Pcg64Mcg,
        pub events: Vec<Event>,
    }

    fn whole_ms(d: Duration) -> u64 {
        let n = d.as_nanos();
        assert_eq!(n % 1_000_000, 0, "{d:?} is not a whole number of milliseconds");
        (n / 1_000_000) as u64
    }

    #[allow(dead_code)]
    impl<C: Controller> Script<C> {
        pub fn new<B: IntoBound<C = C>>(b: B) -> Self {
            let b = b.into_bound();
            Script { h: StopAndWait::with_state(b.alg, b.st), rng: Pcg64Mcg::seed_from_u64(0x5eed), events: Vec::new() }
        }
        pub fn alg(&self) -> &C {
            self.h.controller()
        }
        pub fn state(&self) -> C::State {
            self.h.state().clone()
        }
        pub fn set_state(&mut self, st: C::State) {
            *self.h.state_mut() = st;
        }
        pub fn st(&mut self) -> &mut C::State {
            self.h.state_mut()
        }
        pub fn earliest_send(&self, now: Instant) -> Instant {
            self.h.controller().earliest_send(self.h.state(), now)
        }
        pub fn now(&self) -> Instant {
            self.h.now()
        }
        pub fn send(&mut self) {
            let now = self.h.now();
            let ev = &mut self.events;
            self.h.send(now, &mut self.rng, &mut |e| ev.push(e)).unwrap();
        }
        pub fn wait_ms(&mut self, ms: u64) {
            self.wait_ns(ms * 1_000_000);
        }
        pub fn wait_ns(&mut self, ns: u64) {
            let to = self.h.now() + Duration::from_nanos(ns);
            let ev = &mut self.events;
            self.h.advance_to(to, &mut self.rng, &mut |e| ev.push(e));
        }
        pub fn ack(&mut self) {
            let now = self.h.now();
            let ev = &mut self.events;
            self.h.ack(now, None, &mut self.rng, &mut |e| ev.push(e)).unwrap();
        }
        pub fn ack_copy(&mut self, copy: u16) {
            let now = self.h.now();
            let ev = &mut self.events;
            self.h.ack(now, Some(copy), &mut self.rng, &mut |e| ev.push(e)).unwrap();
        }
        pub fn timers_ns(&self) -> Vec<u64> {
            self.events
                .iter()
                .filter_map(|e| match e {
                    Event::Transmit { timer, .. } => Some(timer.as_nanos() as u64),
                    _ => None,
                })
                .collect()
        }
        pub fn timers_ms(&self) -> Vec<u64> {
            self.timers_ns().into_iter().map(|n| whole_ms(Duration::from_nanos(n))).collect()
        }
        pub fn transmit_times_ms(&self) -> Vec<u64> {
            self.events
                .iter()
                .filter_map(|e| match e {
                    Event::Transmit { at, .. } => Some(whole_ms(at.since_epoch())),
                    _ => None,
                })
                .collect()
        }
        pub fn give_up_ms(&self) -> Option<u64> {
            self.events.iter().rev().find_map(|e| match e {
                Event::GiveUp { at, .. } => Some(whole_ms(at.since_epoch())),
                _ => None,
            })
        }
        pub fn rto_ns(&self) -> Option<u64> {
            self.h.rto().map(|d| d.as_nanos() as u64)
        }
        pub fn rto_ms(&self) -> Option<u64> {
            self.h.rto().map(whole_ms)
        }
    }
}
