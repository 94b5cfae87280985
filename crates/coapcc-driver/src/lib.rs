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
//! | module | what is there |
//! |---|---|
//! | [`scenario`] | **start here**: scenario files (TOML) checked once into a [`scenario::Scenario`]; `--set` overrides |
//! | [`overrides`] | typed overrides of scenario keys ([`overrides::Setting`]: a key and a typed value), the API behind `--set`, `--algorithm`, `--sweep` |
//! | [`link`] | sans-IO link stages (serialisation with a byte-limited drop-tail buffer, propagation, FIFO jitter, Gilbert–Elliott errors, token bucket, normal delay), composed per direction by a [`link::Pipeline`]; testbed presets in [`link::presets`] |
//! | [`flow`] | **the flow loop**: [`flow::FlowLoop`] drives each flow's client endpoint from the workload and into the recorder, behind a [`flow::Host`] (now, send, new client) |
//! | [`workload`] | what each flow's application does, as a sans-IO state machine fed by endpoint events |
//! | [`recorder`] | per-flow and per-run numbers from endpoint events and transmit records, into a [`metrics::RunResult`] |
//! | [`endpoints`] | scenario → endpoint configuration: request template, server response, echo mode, MTU check |
//! | [`pcap`] | a classic libpcap writer (raw IPv4/IPv6 + UDP headers with checksums) so Wireshark shows the CoAP of the emulator, testbed and simulator |
//! | [`metrics`] | per-flow and per-run metrics, quantiles, Jain's index |
//! | [`trace`] | the RTT traces of the RTT-trace model (Makarem Table 1) |
//! | [`replay`] | replay scripts (`send`, `wait MS`, `ack`) run on one controller, events as JSON lines (`coapcc replay`, the Python package) |
//! | [`rng`] | the generator type [`rng::SimRng`], [`rng::stream_rng`] (one independent stream per consumer) and the draws the models use |

#![forbid(unsafe_code)]

pub mod endpoints;
pub mod flow;
pub mod link;
pub mod metrics;
pub mod overrides;
pub mod pcap;
pub mod recorder;
pub mod replay;
pub mod rng;
pub mod scenario;
pub mod trace;
pub mod workload;
