//! # coapcc-core
//!
//! Every congestion controller of the coapcc source papers as a `no_std`, sans-IO library
//! that needs no allocator: RFC 7252 Default CoAP and its Full Backoff variants, CoCoA
//! (draft-ietf-core-cocoa-03) and its variants, pCoCoA, CoCoA 4-state-strong, FASOR
//! (draft-ietf-core-fasor-02), BDP-CoAP, IDC-CoAP, MBC-CoAP, and the window-of-one TCP
//! timers of uIP and Lim (2020). The behaviour is described in `docs/algorithms.md`; every
//! open question (OQ-n) is resolved as the spec recommends unless a named option says
//! otherwise (see `docs/deviations.md`).
//!
//! ## Map
//!
//! | module | what is there |
//! |---|---|
//! | [`controller`] | **start here**: the [`Controller`] trait (the seam: implement it in your own crate, `docs/adding-an-algorithm.md`), the [`Exchange`] record, [`Ack`], [`Retry`], [`EchoMode`] |
//! | [`registry`] | algorithm names (`cocoa-plus`, …), [`AnyConfig`] and [`AnyController`] (static dispatch) |
//! | [`algorithms`] | one file per algorithm, each with its config (`Default` = the source's values) |
//! | [`retransmission`] | [`Outstanding`](retransmission::Outstanding): the one hold / retransmit / give-up state machine every driver uses |
//! | [`harness`] | [`StopAndWait`](harness::StopAndWait): a tiny driver for one destination (replay, tests) |
//! | [`estimators`] | RTO estimators shared by the controllers (RFC 6298, CoCoA, Makarem, Van Jacobson) |
//! | [`backoff`] | backoff mechanisms shared by the controllers (VBF, Full Backoff, tick dithering) |
//! | [`time`], [`Ratio`] | [`Instant`], saturating duration helpers; exact rational factors |
//! | `pacing` | the sample window and gain division shared by MBC and BDP |
//! | `tcp` | the configuration shared by the uIP and Lim timers (re-exported by both) |
//! | [`params`] | RFC 7252 transmission parameters and their derived values |
//! | [`random`] | uniform draws from a caller-owned [`rand_core::Rng`] |
//! | [`config`] | [`ConfigError`] and serde helpers for `*_ms` keys |
//!
//! ## Rules every controller keeps
//!
//! * Time and randomness are arguments: `now: Instant` and `rng: &mut dyn Rng`.
//! * No floating point: durations are integer nanoseconds, factors are exact [`Ratio`]s.
//! * Configuration is checked once (`Algorithm::new(config)`); after that every method is
//!   total: it saturates and clamps, never panics or overflows.
//! * An algorithm states its own facts: which echo of the transmission count it needs
//!   ([`Controller::echo_mode`], with the rule and its spec citation in the algorithm's file).
//!
//! ## Features
//!
//! * `serde`: derive (de)serialisation for every configuration type.
//! * One feature per algorithm, all on by default: `default-coap`, `cocoa`, `pcocoa`,
//!   `four-state`, `fasor`, `idc`, `mbc`, `bdp`, `uip`, `lim`. Firmware enables only the
//!   ones it runs; [`registry`] and [`AnyController`] then hold only those, and the shared
//!   mechanisms ([`estimators`], [`backoff`]) come in with the algorithms that need them.

#![no_std]
#![forbid(unsafe_code)]

pub mod algorithms;
pub mod backoff;
pub mod config;
pub mod controller;
pub mod estimators;
pub mod harness;
#[cfg(feature = "_pacing")]
pub mod pacing;
pub mod params;
pub mod random;
mod ratio;
pub mod registry;
pub mod retransmission;
#[cfg(feature = "_vj")]
mod tcp;
pub mod time;

pub use config::ConfigError;
pub use controller::{Ack, Controller, Echo, EchoMode, Retry, TimerBounds};
pub use core::time::Duration;
pub use ratio::{Ratio, RatioError};
pub use registry::{
    ALGORITHMS, AlgorithmInfo, AnyConfig, AnyController, AnyExchangeState, AnyState, Exactness, Family,
};
pub use time::Instant;

/// The record of one exchange ([`controller::Exchange`]); without a parameter, the scratch
/// of [`AnyController`], as the drivers that hold any algorithm use it.
pub type Exchange<X = AnyExchangeState> = controller::Exchange<X>;
