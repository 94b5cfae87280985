//! The one retransmission state machine: hold, retransmit or give up.
//!
//! Every driver keeps, per outstanding exchange, an [`Outstanding`]: the [`Exchange`] record
//! and, when a rate-based controller holds the next copy, the instant it is held until. When
//! [`Outstanding::wake_at`] is reached the driver calls [`Outstanding::fire`], which asks the
//! controller what to do (a timer expiry: [`Controller::on_timeout`] then
//! [`Controller::earliest_send`]; a hold ending: send the held copy) and answers with a
//! [`Fired`] step. The driver only does the I/O (sending the copy, reporting the give-up).
//!
//! [`crate::harness::StopAndWait`] and `coapcc-proto`'s `Endpoint` both use it, so the
//! replay harness and the CoAP endpoint cannot disagree on a retransmission.

use core::time::Duration;

use crate::controller::{Controller, Exchange, Retry};
use crate::random::Rng;
use crate::time::Instant;

/// What [`Outstanding::fire`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fired {
    /// A copy leaves now, with this timer armed for it.
    Sent {
        /// Copy number (1 is the first retransmission).
        copy: u8,
        /// The timer armed for the copy.
        timer: Duration,
    },
    /// A retransmission is due but the controller holds it until this instant
    /// ([`Outstanding::wake_at`] answers it).
    Held {
        /// When the copy may leave.
        until: Instant,
    },
    /// The exchange is abandoned; the controller has already applied what a failure teaches.
    GaveUp,
}

/// One exchange in flight: its record and whether its next copy is held.
/// `X` is the algorithm's per-exchange scratch ([`Controller::ExchangeState`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outstanding<X> {
    ex: Exchange<X>,
    held: Option<Instant>,
}

impl<X: Copy + Default + core::fmt::Debug> Outstanding<X> {
    /// Starts an exchange whose original copy leaves at `now` (see [`Controller::start`]).
    pub fn start<C: Controller<ExchangeState = X> + ?Sized>(
        ctrl: &C,
        st: &mut C::State,
        now: Instant,
        in_flight: usize,
        rng: &mut dyn Rng,
    ) -> Self {
        Outstanding { ex: ctrl.start(st, now, in_flight, rng), held: None }
    }

    /// The exchange record.
    pub fn exchange(&self) -> &Exchange<X> {
        &self.ex
    }

    /// When [`Outstanding::fire`] must next be called: the end of the hold, or else the
    /// expiry of the latest copy's timer.
    pub fn wake_at(&self) -> Instant {
        self.held.unwrap_or_else(|| self.ex.deadline())
    }

    /// Whether a retransmission is held (the next wake-up sends it rather than expiring a timer).
    pub fn is_held(&self) -> bool {
        self.held.is_some()
    }

    /// Handles the wake-up at `now` (at or after [`Outstanding::wake_at`]): a held copy leaves;
    /// an expired timer retransmits at once, holds the copy, or gives up.
    pub fn fire<C: Controller<ExchangeState = X> + ?Sized>(
        &mut self,
        ctrl: &C,
        st: &mut C::State,
        now: Instant,
        rng: &mut dyn Rng,
    ) -> Fired {
        if self.held.is_none() {
            match ctrl.on_timeout(st, now, &mut self.ex) {
                Retry::GiveUp => return Fired::GaveUp,
                Retry::Retransmit => {
                    // Rate-based controllers may ask the copy to wait (spec §8).
                    let at = ctrl.earliest_send(st, now);
                    if at > now {
                        self.held = Some(at);
                        return Fired::Held { until: at };
                    }
                }
            }
        }
        self.held = None;
        let timer = ctrl.retransmit(st, now, &mut self.ex, rng);
        Fired::Sent { copy: self.ex.retransmissions(), timer }
    }
}
