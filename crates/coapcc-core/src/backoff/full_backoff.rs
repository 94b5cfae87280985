//! Full Backoff 1 and 2 ("Is CoAP congestion safe?", ANRW'18; thesis chapter \[S2\]); spec §4.
//!
//! Karn's rule says a backed-off timer is kept for the next message until a valid sample
//! arrives. Default CoAP and CoCoA forget it; Full Backoff carries it into the next exchange.
//! This module holds the carried value; [`crate::algorithms::default_coap`] and [`crate::algorithms::cocoa`] decide
//! how it is used (spec §4.6 table).

use core::time::Duration;

use crate::time::OptNanos;

/// Which Full Backoff variant, if any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum FullBackoff {
    /// No carrying: every exchange starts afresh (RFC 7252, CoCoA-03).
    #[default]
    Off,
    /// FB1: start the next exchange with the backed-off timer until a clean exchange.
    Fb1,
    /// FB2: like FB1, but Default CoAP halves the carried value per clean exchange (§4.3)
    /// and CoCoA starts from max(carried, updated overall RTO) (§4.5).
    Fb2,
}

/// The backed-off timer carried into the next exchange (8 bytes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Carry {
    /// The carried timer, none when nothing is carried.
    pub carried: OptNanos,
}

impl Carry {
    /// An exchange ended after retransmissions (ACK or give-up): carry the timer that was
    /// armed for its last transmission (spec OQ-8, OQ-9), already capped by the caller.
    pub fn keep(&mut self, last_timer: Duration) {
        self.carried = Some(last_timer).into();
    }

    /// A clean exchange ends the carrying.
    pub fn clear(&mut self) {
        self.carried = OptNanos::NONE;
    }

    /// CoAP-FB2 after a clean exchange: halve the carried value, dropping it once half of it
    /// is at or below `initial_max` (ACK_TIMEOUT × ACK_RANDOM_FACTOR, spec OQ-10).
    pub fn halve(&mut self, initial_max: Duration) {
        if let Some(c) = self.carried.get() {
            let half = c / 2;
            self.carried = if half <= initial_max { None } else { Some(half) }.into();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_drops_the_carry_once_it_reaches_the_initial_range() {
        let mut c = Carry { carried: Some(Duration::from_secs(8)).into() };
        c.halve(Duration::from_secs(3));
        assert_eq!(c.carried, Some(Duration::from_secs(4)));
        c.halve(Duration::from_secs(3));
        assert_eq!(c.carried, None);
    }
}
