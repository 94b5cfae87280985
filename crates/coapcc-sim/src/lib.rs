//! # coapcc-sim
//!
//! The deterministic discrete-event simulator of coapcc (`docs/architecture.md`): the papers'
//! testbeds (`docs/testbeds.md` §1–3) driven by the same `coapcc-proto` endpoints and
//! `coapcc-core` controllers as the real client. Time is an argument, randomness comes from
//! seeded per-consumer streams, and floating point is allowed here (never in `coapcc-core`)
//! as long as results are reproducible on one platform.
//!
//! ## Map
//!
//! Scenario files, link stages, workloads, the recorder and metrics are `coapcc-driver`'s
//! (both drivers share them; start at `coapcc_driver::scenario`); import them from there.
//!
//! | module | what is there |
//! |---|---|
//! | [`engine`] | the event loop of the network models: clients, server, one pipeline per direction, ground-truth metrics |
//! | [`multihop`] | the multihop 802.15.4 link-layer world of `multihop.md` §1: PHY, UDGM medium, CSMA, RDC, static RPL, topologies, the engine (its `[multihop]` schema is `coapcc-driver`'s) |
//! | [`trace`] | the RTT-trace model (RMSE and spurious counts of RTO estimators) |
//! | [`bench`](mod@bench) | measuring the simulator (`coapcc bench`): events per second on one core, the FASOR matrix, a long run |
//! | [`budget`] | what a scenario will cost (memory, events, wall time), estimated before it runs |
//! | [`runner`] | **the one runner** of every model: every (algorithm, replication) in parallel, results in a fixed order ([`runner::RunOutput`], [`runner::AlgorithmRuns`]); one job alone ([`runner::run_job`]) |
//! | [`results`] | the one summary type ([`results::Summary`]) and every file of a run (`flows.csv`, `runs.csv`, `summary.csv`, `series.csv`, `samples.csv`, `nodes.csv`), as text and typed columns; the printed summary table |
//! | [`sweep`] | sweep points (`--sweep KEY=V1,V2`) and their `sweep.csv` rows from the typed summaries, shared by the CLI and the Python package |
//! | [`wire`] | one job's output as bytes and back, exactly (serde, `postcard`, a version tag; jobs run in other processes) |
//! | [`error`] | [`SimError`] and its parts: bad scenario, refused by the memory budget, bad job outputs, a failed run, interrupted |

#![forbid(unsafe_code)]

pub mod bench;
pub mod budget;
pub mod engine;
pub mod error;
pub mod multihop;
pub mod results;
pub mod runner;
pub mod sweep;
pub mod timers;
pub mod trace;
pub mod wire;

pub use crate::error::SimError;
