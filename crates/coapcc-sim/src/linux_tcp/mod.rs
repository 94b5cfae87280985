//! A Linux-like TCP carrying CoAP over TCP (RFC 8323) across the network model's link
//! pipelines (`docs/tcp.md`): the three-way handshake, RFC 6298 timers with Linux's floor and
//! cap, delayed and quick ACKs, Reno and CUBIC, SACK recovery with RACK and PRR, F-RTO, slow start
//! after idle and the receive window. Not the window-of-one uIP/Lim TCP of the multihop world
//! (`multihop::tcp`).
//!
//! | file | what is there |
//! |---|---|
//! | `engine` | the event loop, the CoAP-over-TCP application (CSMs, GET, response) and the run's metrics ([`run_tcp`]) |
//! | `conn` | one end: handshake, timers, which segments leave |
//! | `sender` | congestion states, SACK/NewReno recovery, PRR, RTO and F-RTO, Linux's counters |
//! | `receiver` | reassembly, SACK blocks, delayed and quick ACKs |
//! | `scoreboard` | the retransmission queue and RFC 6675's `IsLost` and `pipe` |
//! | `rack` | RACK's time-based loss marking and reordering timer (RFC 8985 §6) |
//! | `prr` | RFC 6937 as Linux's `tcp_cwnd_reduction` |
//! | `rto` | RFC 6298 with Linux's 200 ms floor and 120 s cap |
//! | `cc` | Reno and CUBIC (RFC 9438, HyStart) in segments |
//! | `segment` | a segment and its bytes on the link |
//! | `result` | [`TcpRunResult`] and its parts |

mod cc;
mod conn;
mod engine;
mod prr;
mod rack;
mod receiver;
mod result;
mod rto;
mod scoreboard;
mod segment;
mod sender;

pub use engine::run_tcp;
pub use result::{TcpCounters, TcpFlowResult, TcpRunResult};
