//! # coapcc-sim
//!
//! The deterministic discrete-event simulator of coapcc (design.md §1–§3): the testbeds of
//! `shared/spec/testbeds.md` §1–3 driven by the same `coapcc-proto` endpoints and
//! `coapcc-core` controllers as the real client. Time is an argument, randomness comes from
//! seeded per-consumer streams, and floating point is allowed here (never in `coapcc-core`)
//! as long as results are reproducible on one platform.
//!
//! ## Map
//!
//! | module | what is there |
//! |---|---|
//! | [`scenario`] | **start here**: scenario files (TOML) checked once into a [`scenario::Scenario`]; `--set` overrides |
//! | [`engine`] | the event loop of the network models: clients, server, one pipeline per direction, ground-truth metrics |
//! | [`trace`] | the RTT-trace model (RMSE and spurious counts of RTO estimators) |
//! | [`runner`] | every (algorithm, replication) in parallel, results in a fixed order |
//! | [`results`] | `flows.csv`, `runs.csv`, `summary.csv`, `series.csv` and the printed summary table |
//! | [`metrics`] | per-flow and per-run metrics, quantiles, Jain's index |
//! | [`link`] | sans-IO link stages (serialisation with a byte-limited drop-tail buffer, propagation, FIFO jitter, Gilbert–Elliott errors, token bucket, normal delay), composed per direction by a [`link::Pipeline`]; testbed presets in [`link::presets`] |
//! | [`rng`] | the generator type [`rng::SimRng`], [`rng::stream_rng`] (one independent stream per consumer) and the draws the models use |

#![forbid(unsafe_code)]

pub mod engine;
pub mod link;
pub mod metrics;
pub mod results;
pub mod rng;
pub mod runner;
pub mod scenario;
pub mod timers;
pub mod trace;
