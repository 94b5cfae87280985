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
//! | where | what is there |
//! |---|---|
//! | root, from `engine` | the event loop of the network models ([`run_network`], [`capture_network`]; a long run's time series and a capture streamed to the caller: [`run_network_with`]): clients, server, one pipeline per direction, ground-truth metrics |
//! | [`linux_tcp`] | CoAP over TCP on a Linux-like TCP (`docs/tcp.md`): handshake, RFC 6298 timers, delayed ACKs, Reno and CUBIC, SACK with PRR, F-RTO, over the same link pipelines ([`linux_tcp::run_tcp`]) |
//! | [`multihop`] | the multihop 802.15.4 link-layer world of `multihop.md` §1: PHY, UDGM medium, CSMA, RDC, static RPL, topologies, the engine (its `[multihop]` schema is `coapcc-driver`'s) |
//! | root, from `trace` | the RTT-trace model ([`run_trace`]: RMSE and spurious counts of RTO estimators) |
//! | [`bench`](mod@bench) | measuring the simulator (`coapcc bench`): events per second on one core, the FASOR matrix, a long run |
//! | [`budget`] | what a scenario will cost (memory, events, wall time), estimated before it runs |
//! | root, from `runner` | **the one runner** of every model ([`run_scenario`]): every (algorithm, replication) in parallel, results in a fixed order ([`RunOutput`], [`AlgorithmRuns`]); one job alone ([`run_job`]); time series streamed to sinks the caller gives ([`run_scenario_streaming`]) |
//! | [`results`] | the one summary type ([`results::Summary`]) and every file of a run (`flows.csv`, `runs.csv`, `summary.csv`, `series.csv`, `samples.csv`, `transfers.csv`, `nodes.csv`), as text and typed columns; the printed summary table |
//! | [`sweep`] | sweep points (`--sweep KEY=V1,V2`) and their `sweep.csv` rows from the typed summaries, shared by the CLI and the Python package |
//! | [`wire`] | one job's output as bytes and back, exactly (serde, `postcard`, a version tag; jobs run in other processes) |
//! | root, from `error` | [`SimError`] and its parts: bad scenario, refused by the memory budget, bad job outputs, a failed run, interrupted |

#![forbid(unsafe_code)]

// Namespaces (public because the module path is part of the name: `bench::measure`,
// `budget::estimate`, `results::flows_csv`, `sweep::combinations`, `wire::encode`, the
// multihop world's many types); nothing in them is re-exported at the root.
pub mod bench;
pub mod budget;
pub mod linux_tcp;
pub mod multihop;
pub mod results;
pub mod sweep;
pub mod wire;

// Internals: reached through the `pub use` list below.
mod engine;
mod error;
mod runner;
mod timers;
mod trace;

pub use engine::{CapturePoint, Captured, EngineError, Streams, capture_network, run_network, run_network_with};
pub use error::{BudgetError, JobError, RunError, SimError, TraceError, WireError};
pub use runner::{
    AlgorithmRuns, RunOutput, SeriesSinks, assemble, check, job_count, run_job, run_job_streaming, run_scenario,
    run_scenario_streaming, run_scenario_until,
};
pub use trace::{TraceResult, run_trace};
