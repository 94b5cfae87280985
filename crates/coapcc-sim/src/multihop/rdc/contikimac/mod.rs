//! ContikiMAC at 8 Hz (multihop.md §1.5 R1–R6; `contikimac.c`, `phase.c`): its constants
//! ([`ContikiMacConfig`], with R1's channel-check instants), and the three pieces the engine
//! combines, one file each: the sender's strobe train (`train.rs`, R3–R6), the phase table of
//! phase lock (`phase.rs`, R4), and the receiver's listener after a channel check
//! (`listener.rs`, R1–R2). `on_medium.rs` runs them together on the medium.

mod listener;
#[cfg(test)]
mod on_medium;
mod phase;
mod train;

pub use coapcc_driver::scenario::multihop::ContikiMacConfig;

pub use self::listener::{FrameEnd, ListenStep, Listener};
pub use self::phase::PhaseTable;
pub use self::train::{StrobeTrain, TrainKind};
