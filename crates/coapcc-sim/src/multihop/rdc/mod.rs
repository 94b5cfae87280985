//! Radio duty cycling (multihop.md §1.5): NullRDC and ContikiMAC as sans-IO pieces.
//!
//! | file | what is there |
//! |---|---|
//! | `mod.rs` | what the pieces share: [`RdcStep`] (what to do next and when), [`AckActivity`], [`rtimer_ticks`] |
//! | `nullrdc.rs` | [`NullRdcTx`]: one NullRDC frame attempt (CCA, 192 µs turnaround, airtime, and with `nullrdc_ack_wait` the 0.397 ms ACK window and 0.641 ms read-out); [`NullRdcConfig`] |
//! | `contikimac/mod.rs` | [`ContikiMacConfig`]: the constants and R1's channel-check instants ([`ContikiMacConfig::next_check`]) |
//! | `contikimac/train.rs` | [`StrobeTrain`]: one ContikiMAC transmission (R3 unicast train with unknown phase, R4 phase-locked train, R5 burst follower, R6 broadcast train): pre-train CCAs, copies back to back with a CCA before each, the ACK window after each, the `STROBE_TIME` / `MAX_PHASE_STROBE_TIME` limits |
//! | `contikimac/phase.rs` | [`PhaseTable`]: R4 phase lock (θ per neighbour, the `GUARD_TIME` lead, forgetting after 16 NOACKs or 30 s) |
//! | `contikimac/listener.rs` | [`Listener`]: R1 channel checks every `T_w` at the node's phase (two CCAs 0.610 ms apart) and R2 listening (6.1 ms without a frame start or 12.48 ms after the check → radio off; a frame being received is always finished; pending bit → stay on for 31.25 ms) |
//! | `contikimac/on_medium.rs` | the ContikiMAC checks of §6 (3, 4, 5, 9, 14) on a [`super::medium::Medium`] through a small event loop |
//!
//! Each piece takes the time and what the radio observed (CCA results, activity in the ACK
//! window, frame starts and ends) as arguments and returns what to do next and when; the
//! caller owns the [`super::medium::Medium`] and the event queue (the engine's `mac.rs`).
//! Durations given in rtimer ticks (1/32 768 s) in the Contiki sources are stored rounded to
//! the nanosecond.

mod contikimac;
mod nullrdc;

use core::time::Duration;

use coapcc_core::Instant;

pub use self::contikimac::{FrameEnd, ListenStep, Listener, PhaseTable, StrobeTrain, TrainKind};
pub use self::nullrdc::NullRdcTx;
use super::csma::TxStatus;

/// What an RDC piece asks the caller to do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RdcStep {
    /// Sample the channel (CCA) at `at` and report it.
    Cca {
        /// When.
        at: Instant,
    },
    /// Put a frame of `airtime` on the medium at `at`; then report the ACK window at `check_at`.
    SendFrame {
        /// Start of the frame (after the turnaround).
        at: Instant,
        /// Its airtime.
        airtime: Duration,
        /// When to look for an ACK (report with `on_ack_check`); equal to the frame end when
        /// no ACK is awaited.
        check_at: Instant,
    },
    /// Activity was seen in the ACK window: report at `at` whether the addressee's ACK was
    /// decoded.
    Readout {
        /// When.
        at: Instant,
    },
    /// The attempt is over.
    Done {
        /// When the result is known.
        at: Instant,
        /// The result for CSMA.
        status: TxStatus,
    },
}

/// What the sender observed at the ACK check instant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AckActivity {
    /// Nothing on air.
    None,
    /// The addressee's ACK is arriving.
    AckFromAddressee,
    /// Some other frame is on air within carrier-sense range.
    Other,
}

/// Time helpers of the RDC tests, in milliseconds.
#[cfg(test)]
mod testutil {
    use core::time::Duration;

    use coapcc_core::Instant;

    pub(super) fn ms(x: f64) -> Duration {
        Duration::from_nanos((x * 1e6).round() as u64)
    }

    pub(super) fn at_ms(x: f64) -> Instant {
        Instant::from_nanos((x * 1e6).round() as u64)
    }

    pub(super) fn ms_of(d: Duration) -> f64 {
        d.as_nanos() as f64 / 1e6
    }
}
