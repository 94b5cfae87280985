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
//! | module | what is there |
//! |---|---|
//! | [`scenario`] | **start here**: scenario files (TOML) checked once into a [`scenario::Scenario`]; `--set` overrides (from `coapcc-driver`) |
//! | [`engine`] | the event loop of the network models: clients, server, one pipeline per direction, ground-truth metrics |
//! | [`multihop`] | the multihop 802.15.4 link-layer world of `multihop.md` §1 (issue 12): PHY, UDGM medium, CSMA, RDC, static RPL, topologies, the engine; `[multihop]` scenario files (`multihop::scenario`) and their CSV outputs (`multihop::output`) |
//! | [`trace`] | the RTT-trace model (RMSE and spurious counts of RTO estimators) |
//! | [`bench`](mod@bench) | measuring the simulator (`coapcc bench`): events per second on one core, the FASOR matrix, a long run |
//! | [`budget`] | what a scenario will cost (memory, events, wall time), estimated before it runs |
//! | [`runner`] | every (algorithm, replication) in parallel, results in a fixed order; one job alone ([`runner::run_job`]) |
//! | [`sweep`] | sweep points (`--sweep KEY=V1,V2`) and their `sweep.csv` rows, shared by the CLI and the Python package |
//! | [`wire`] | one job's output as bytes and back, exactly (jobs run in other processes) |
//! | [`results`] | `flows.csv`, `runs.csv`, `summary.csv`, `series.csv` and the printed summary table |
//! | [`metrics`], [`link`], [`rng`], [`workload`], [`recorder`], [`endpoints`] | re-exported from `coapcc-driver`, which both drivers share: metrics, the sans-IO link stages, the seeded random streams, the workload state machine, the flow recorder, the endpoint set-up |

#![forbid(unsafe_code)]

pub mod bench;
pub mod budget;
pub mod engine;
pub mod multihop;
pub mod results;
pub mod runner;
pub mod sweep;
pub mod timers;
pub mod trace;
pub mod wire;

// What every driver shares lives in `coapcc-driver`; re-exported so `coapcc_sim::scenario`
// and friends keep working.
pub use coapcc_driver::{endpoints, link, metrics, recorder, rng, scenario, workload};
