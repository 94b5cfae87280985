//! `coapcc probe`, the part without sockets or clocks: the probe server's [`Script`], what a
//! run showed ([`Run`]), and the inference ([`infer`]): the client's ACK_TIMEOUT,
//! ACK_RANDOM_FACTOR (with confidence intervals), backoff factor, MAX_RETRANSMIT, NSTART,
//! whether its timeout adapts to the RTT, how it handles separate and duplicate responses,
//! checked against RFC 7252 §4.2, §4.5, §4.7, §4.8; and which registered algorithm it behaves
//! like ([`rank`]: each algorithm's replay of the same script, compared by [`DISTANCE`]).
//!
//! Runs come from `coapcc-udp`'s probe server (real clients on loopback) or are built by
//! hand (the tests here: synthetic stacks with known answers). Python can call the same
//! functions: nothing here needs tokio.

mod infer;
mod matching;
mod script;
mod server;
mod stats;
mod timeline;

#[cfg(test)]
mod tests;

pub use infer::{
    ACK_RANDOM_FACTOR, ACK_TIMEOUT_S, AfterSamples, DISTANCE, DUPLICATE_AFTER, Findings, Kind, MAX_RETRANSMIT,
    MAX_TRANSMIT_WAIT_S, NSTART, Options, SeparateHandling, Violation, infer,
};
pub use matching::{Match, SEEDS, Windows, fitted, rank, windows};
pub use script::{Action, Script, ScriptError};
pub use server::{AMPLIFICATION_BOUND, Answer, Duplicate, ServerFindings, ServerObservation, check_server};
pub use stats::{Estimate, UniformFit, median, uniform_fit};
pub use timeline::{ClientReply, Copy, End, Exchange, ReplyKind, Run, Sent, SentKind};

/// Serialises a duration as seconds (a JSON number).
fn secs<S: serde::Serializer>(d: &std::time::Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}
