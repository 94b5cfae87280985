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
//! The API is the root (a curated `pub use` list) plus a few namespace modules whose items
//! are reached only through them.
//!
//! | where | what is there |
//! |---|---|
//! | root | **start here**: the [`Controller`] trait (the seam: implement it in your own crate, `docs/adding-an-algorithm.md`), the [`Exchange`] record, [`Ack`], [`Retry`], [`EchoMode`]; algorithm names (`cocoa-plus`, …) in [`ALGORITHMS`], [`AnyConfig`] and [`AnyController`] (static dispatch); [`Outstanding`]: the one hold / retransmit / give-up state machine every driver uses; [`Instant`], [`Ratio`] (exact rational factors), [`ConfigError`] |
//! | [`algorithms`] | one module per algorithm, each with its config (`Default` = the source's values) |
//! | [`harness`] | [`StopAndWait`](harness::StopAndWait): a tiny driver for one destination (replay, tests), and its replay language |
//! | [`estimators`] | RTO estimators shared by the controllers (RFC 6298, CoCoA, Makarem, Van Jacobson) |
//! | [`backoff`] | backoff mechanisms shared by the controllers (VBF, Full Backoff, tick dithering) |
//! | [`duration`] | saturating duration helpers and compact duration types |
//! | [`params`] | RFC 7252 transmission parameters and their derived values |
//! | [`random`] | uniform draws from a caller-owned [`rand_core::Rng`] |
//! | [`serde_ms`], [`serde_opt_ms`] | serde helpers for `*_ms` keys |
//! | `pacing` (private) | the sample window and gain division shared by MBC and BDP |
//! | `tcp` (private) | the configuration shared by the uIP and Lim timers (re-exported by both) |
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
//!   ones it runs; [`ALGORITHMS`] and [`AnyController`] then hold only those, and the shared
//!   mechanisms ([`estimators`], [`backoff`]) come in with the algorithms that need them.

#![no_std]
#![forbid(unsafe_code)]

// Namespaces (public because the module path is part of the name: an algorithm's `Config`
// lives at `algorithms::<name>`, a shared estimator at `estimators::<name>`, an RFC 7252
// constant at `params::ACK_TIMEOUT`); nothing in them is re-exported at the root.
pub mod algorithms;
pub mod backoff;
pub mod estimators;
pub mod harness;
pub mod params;
pub mod random;

// Internals: reached through the `pub use` list below.
mod config;
mod controller;
#[cfg(feature = "_pacing")]
mod pacing;
mod ratio;
mod registry;
mod retransmission;
#[cfg(feature = "_vj")]
mod tcp;
mod time;

pub use config::ConfigError;
#[cfg(feature = "serde")]
pub use config::{serde_ms, serde_opt_ms};
pub use controller::{Ack, Controller, Echo, EchoMode, Retry, TimerBounds};
pub use core::time::Duration;
pub use ratio::{Ratio, RatioError};
#[cfg(feature = "serde")]
pub use registry::ConfigMapper;
pub use registry::{
    ALGORITHMS, AlgorithmInfo, AnyConfig, AnyController, AnyExchangeState, AnyState, Exactness, Family,
};
pub use retransmission::{Fired, Outstanding};
pub use time::Instant;

/// Saturating arithmetic on [`Duration`]s in whole nanoseconds, and the compact duration
/// types the controllers keep in their state (a namespace: `duration::nanos(d)`).
pub mod duration {
    pub use crate::time::{Millis, Nanos, OptNanos, abs_diff, add, div, from_nanos, mul, nanos, shl};
}

/// The record of one exchange; without a parameter, the scratch of [`AnyController`], as
/// the drivers that hold any algorithm use it.
pub type Exchange<X = AnyExchangeState> = controller::Exchange<X>;
