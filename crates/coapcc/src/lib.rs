//! # coapcc (the command-line tool's library)
//!
//! The `coapcc` binary parses arguments and calls into these modules; no algorithm or
//! protocol logic lives here (that is `coapcc-core`).
//!
//! | module | what is there |
//! |---|---|
//! | [`overrides`] | `--set KEY=VALUE` applied to any algorithm configuration through serde |
//! | [`replay`] | the replay script language: parser, runner (on `coapcc_core::harness`) and JSON-lines output |
//! | [`sim_pcap`] | `coapcc sim --pcap`: replication 0 of each algorithm as pcap files |
//! | [`table`] | the `coapcc algorithms` table |
//! | [`reproduce`] | `coapcc reproduce`: the papers' experiments, claims checked, HTML/Markdown report |
//! | [`sim_cmd`] | `coapcc sim`: scenarios in, summary table and CSV files out |
//! | [`bench`](mod@bench) | `coapcc bench`: events per second, simulated seconds per wall second, peak RSS |
//! | [`crosscheck`] | `coapcc reproduce crosscheck`: simulation against the loopback testbed |
//! | [`emulate_cmd`] | `coapcc emulate`: the real-time link emulator (`coapcc_udp::emulator`) |
//! | [`files`] | atomic file writes |
//! | [`progress`] | the worker pool and progress bar of `sim` and `reproduce` |
//! | [`figures`] | SVG figures for `coapcc reproduce`: box plots, line plots, grouped bars (plotters, SVG only) |
//! | [`testbed_cmd`] | `coapcc testbed`: a scenario in real time on loopback, same CSV files as `sim` |
//! | [`error`] | [`error::CliError`]: user errors (exit 2) vs failures (exit 1) |
//! | [`udp_bench`] | `coapcc bench --case udp`: fuzzing throughput and loopback exchanges per second, ours and libcoap's |
//! | [`udp_cmd`] | `coapcc client` and `coapcc server`: real CoAP over UDP through `coapcc-udp` |

pub mod bench;
pub mod crosscheck;
pub mod emulate_cmd;
pub mod error;
pub mod figures;
pub mod files;
pub mod multihop_cmd;
pub mod overrides;
pub mod progress;
pub mod replay;
pub mod reproduce;
pub mod sim_cmd;
pub mod sim_pcap;
pub mod table;
pub mod testbed_cmd;
pub mod udp_bench;
pub mod udp_cmd;
