//! Real CoAP over UDP (and over TCP, RFC 8323), on the very code the simulator runs.
//!
//! `coapcc-udp` is a driver: it owns sockets, the wall clock and operating-system entropy,
//! and feeds them to the sans-IO [`coapcc_proto::Endpoint`] and the link stages of
//! [`coapcc_driver::link`]. It is the only crate of the workspace that reads a clock or the
//! operating system's random source (see [`clock`]); everything it drives takes `now` and an
//! RNG as arguments, so a controller behaves on a socket exactly as in `coapcc sim`.
//!
//! ## Map
//!
//! | module | what is there |
//! |---|---|
//! | [`runtime`] | **start here**: [`runtime::spawn`] drives one endpoint over one socket (clients, servers, observers) |
//! | [`config`] | algorithm presets with `--set` keys, client and server endpoint configurations, `coap://` URIs |
//! | [`request`] | one request as `coap-client` makes it: the response printed, NON, Observe (RFC 7641), block-wise |
//! | [`server`] | the resources of `coapcc server` (`/echo`, `/data?size=N`, `/.well-known/core`) |
//! | [`bench`](mod@bench) | measuring real CoAP on loopback (`coapcc bench --case udp`): fuzzing throughput, exchanges per second, CPU per exchange |
//! | [`fuzz`] | datagram fuzzing of client and server endpoints (corpus, mutations), for tests and benchmarks |
//! | [`block`] | RFC 7959 Block1/Block2 option values and block slicing |
//! | [`clock`] | the wall clock ([`clock::Clock`]) and the OS seed |
//! | [`emulator`] | the link emulator: a UDP relay applying the simulator's link pipelines in real time (`coapcc emulate`) |
//! | [`tcp`] | real CoAP over TCP (RFC 8323): the `coap+tcp://` listener of `coapcc server`, the `coap+tcp://` client, on [`coapcc_proto::tcp::Session`] |
//! | [`testbed`] | a scenario file in real time on loopback: server, emulator and flows (`coapcc testbed`) |

// Public namespaces, one per component (`client::run`, `testbed::run_replication`); type names
// say their component (`client::ClientSummary`, `emulator::EmulatorReport`,
// `runtime::TaskReport`) so that no two public types share a name. Nothing is re-exported at
// the root.
pub mod bench;
pub mod block;
pub mod client;
pub mod clock;
pub mod config;
pub mod emulator;
pub mod fuzz;
pub mod request;
pub mod runtime;
pub mod server;
pub mod tcp;
pub mod testbed;
