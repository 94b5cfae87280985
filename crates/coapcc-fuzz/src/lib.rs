//! # coapcc-fuzz
//!
//! The bodies of the coverage-guided fuzz targets in `fuzz/` (cargo-fuzz layout), kept in an
//! ordinary library so that `cargo test` replays every committed corpus file and crash
//! artifact through them on stable Rust (`tests/corpus.rs`); `scripts/fuzz` runs them under
//! libFuzzer (nightly).
//!
//! Each target takes arbitrary bytes, must never panic on them, and asserts invariants that
//! hold for any input (a failed assertion is a finding, as a panic is):
//!
//! | target | what it feeds | invariants |
//! |---|---|---|
//! | [`codec`] | bytes to [`coapcc_proto::codec::decode`] | a decoded message re-encodes to the very bytes it came from (`wire_len` of them) |
//! | [`endpoint`] | datagrams, requests, copies and near-copies, responses (`coapcc server`'s resources too) and timer firings to a client and a server [`coapcc_proto::Endpoint`] | counters match events, timers are in the future, every transmit round-trips the codec, exchanges end once, the cache stays within its bounds, only copies are answered from it and never amplify, no answer is more than 3 times what drew it |
//! | [`emulator`] | datagrams from many client addresses, server replies, refused sockets and time jumps to [`coapcc_udp::emulator::Relay`] | the client table matches a model (bounded, least recently used evicted, idle ones expired), released datagrams were offered and leave in departure order, every datagram is accounted for |
//! | [`scenario`] | text to [`coapcc_driver::scenario::parse`] | a parsed scenario's resolved TOML parses to the same scenario |
//! | [`tcp_stream`] | bytes in chunks to [`coapcc_proto::tcp::StreamDecoder`] and a server [`coapcc_proto::tcp::Session`] | the same messages whatever the chunking, each re-encoding to itself; the decoder holds at most one frame and a chunk; every request answered or refused with a typed error; a closed session stays silent |
//! | [`replay_script`] | a replay script run through [`coapcc_core::harness::StopAndWait`] | events in time order, timers within the algorithm's bounds, no copy beyond MAX_RETRANSMIT |

// One public module per target: each exports the same `run` body under its target's
// name (`codec::…`, `endpoint::…`), so the module path is part of the name.
pub mod codec;
pub mod emulator;
pub mod endpoint;
mod input;
pub mod replay_script;
pub mod scenario;
pub mod tcp_stream;

/// A fuzz target: its name (the directory of its corpus) and its body.
#[derive(Clone, Copy, Debug)]
pub struct Target {
    /// The name of the target in `fuzz/fuzz_targets/` and of its corpus directory.
    pub name: &'static str,
    /// Runs one input; panics on a finding.
    pub run: fn(&[u8]),
}

/// Every target, in the order of the table above.
pub const TARGETS: &[Target] = &[
    Target { name: "codec", run: codec::run },
    Target { name: "endpoint", run: endpoint::run },
    Target { name: "emulator", run: emulator::run },
    Target { name: "scenario", run: scenario::run },
    Target { name: "replay_script", run: replay_script::run },
    Target { name: "tcp_stream", run: tcp_stream::run },
];
