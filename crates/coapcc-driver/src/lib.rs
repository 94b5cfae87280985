//! # coapcc-driver
//!
//! What the simulator (`coapcc-sim`) and the real-network driver (`coapcc-udp`) share, so that
//! both run the same scenario with the same endpoint code: scenario files checked once into
//! typed values, the sans-IO link stages (the simulator runs them from its event queue, the
//! emulator against a real clock), the one flow loop (workload → endpoint → recorder) every
//! driver runs, the seeded per-consumer random streams, and per-flow metrics. Nothing here owns
//! an event queue, a socket or a clock: time is an argument.
//!
//! ## Map
//!
//! The API is the root's `pub use` list plus a few namespace modules whose items are reached
//! only through them.
//!
//! | where | what is there |
//! |---|---|
//! | [`scenario`] | **start here**: scenario files (TOML) checked once into a [`scenario::Scenario`]; typed overrides of its keys ([`scenario::Setting`]: a key and a typed value), the API behind `--set`, `--algorithm`, `--sweep`; the `[multihop]` schema in [`scenario::multihop`] |
//! | [`link`] | sans-IO link stages (serialisation with a byte-limited drop-tail buffer, propagation, FIFO jitter, Gilbert–Elliott errors, token bucket, normal delay), composed per direction by a [`link::Pipeline`]; testbed presets in [`link::presets`] |
//! | [`flow`] | **the flow loop**: [`flow::FlowLoop`] drives each flow's client endpoint from the workload and into the recorder, behind a [`flow::Host`] (now, send, new client) |
//! | root, from `workload` | what each flow's application does ([`Workload`]), as a sans-IO state machine fed by endpoint events |
//! | root, from `recorder` | per-flow and per-run numbers from endpoint events and transmit records ([`Recorder`]), into a [`metrics::RunResult`] |
//! | root, from `endpoints` | scenario → endpoint configuration ([`Endpoints`]): request template, server response, echo mode, MTU check |
//! | root, from `pcap` | [`PcapWriter`]: a classic libpcap writer (raw IPv4/IPv6 + UDP headers with checksums) so Wireshark shows the CoAP of the emulator, testbed and simulator |
//! | root, from `rtt_trace` | the RTT traces of the RTT-trace model (Makarem Table 1): [`TraceConfig`], [`RttDist`] |
//! | [`metrics`] | per-flow and per-run metrics, quantiles, Jain's index |
//! | [`probe`] | `coapcc probe` without sockets: the probe server's script, what a run showed, the inference of a client's transmission parameters, its RFC 7252 checks and the closest algorithm (by the replays) |
//! | [`replay`] | replay scripts (`send`, `wait MS`, `ack`) run on one controller, events as JSON lines (`coapcc replay`, the Python package) |
//! | [`rng`] | the generator type [`rng::SimRng`], [`rng::stream_rng`] (one independent stream per consumer) and the draws the models use |

#![forbid(unsafe_code)]

// Namespaces (public because the module path is part of the name: `flow::Host`,
// `flow::Record`, `scenario::parse`, `replay::run`, `rng::below`, `metrics::mean`, each link
// stage's `*Config` beside it); nothing in them is re-exported at the root.
pub mod flow;
pub mod link;
pub mod metrics;
pub mod probe;
pub mod replay;
pub mod rng;
pub mod scenario;

// Internals: reached through the `pub use` list below.
mod endpoints;
mod pcap;
mod recorder;
mod rtt_trace;
mod workload;

pub use endpoints::{Endpoints, echo_for, zero_payload};
pub use pcap::{IPV4_HEADER_BYTES, IPV6_HEADER_BYTES, LINKTYPE_RAW, PcapWriter, SNAPLEN, UDP_HEADER_BYTES};
pub use recorder::{
    COMPLETIONS_KEPT, Completion, CompletionPoint, Failure, FirstN, FlowRecord, MeasurementWindow, Recorder,
    RecorderOptions, RunEnd, RunTally, SERIES_WINDOW, SeriesSink, TIMERS_KEPT, WindowCounts, run_metrics,
};
pub use rtt_trace::{RttDist, TraceConfig};
pub use workload::{BlockPlan, FlowProgress, FlowSpec, Next, Workload};
