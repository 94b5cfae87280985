//! # coapcc-sim
//!
//! The deterministic discrete-event simulator of coapcc (design.md §1–§3). Time is an
//! argument, randomness comes from seeded per-consumer streams, and floating point is
//! allowed here (never in `coapcc-core`) as long as results are reproducible on one platform.
//!
//! ## Map
//!
//! | module | what is there |
//! |---|---|
//! | [`link`] | **start here**: sans-IO link stages (serialisation with a byte-limited drop-tail buffer, propagation, FIFO jitter, Gilbert–Elliott errors, token bucket, normal delay), composed per direction by a [`link::Pipeline`]; testbed presets in [`link::presets`] |
//! | [`rng`] | the generator type [`rng::SimRng`], [`rng::stream_rng`] (one independent stream per consumer) and the draws the models use |

#![forbid(unsafe_code)]

pub mod link;
pub mod rng;
