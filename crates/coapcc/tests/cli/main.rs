//! The tests of the `coapcc` binary, one module per subject, in one test binary (one link
//! instead of one per file). Each module runs the binary (`CARGO_BIN_EXE_coapcc`) as a user
//! does; the shared harnesses are the modules below the subjects.
//!
//! `scripts/test` runs the module `probe_cli` beside everything else (its probes wait minutes
//! on real clients' timers with the CPU idle) and skips it in the main run by its path.

// Shared harnesses.
#[path = "../../../coapcc-ffi/tests/cc/mod.rs"]
mod cc;
mod coapcc_process;
mod interop_peers;
mod raw_tcp;
#[path = "../../../../tests/support/replay_vectors.rs"]
mod replay_support;

// Subjects.
mod anywhere;
mod c_client;
mod cli_errors;
mod client_cli;
mod completions_man;
mod crosscheck_tcp;
mod emulate_cli;
mod hostile;
mod interop;
mod interop_tcp;
mod interop_tcp_californium;
mod link_parity;
mod pcap_tshark;
mod probe_cli;
mod readme_first_part;
mod replay_vectors;
mod report;
mod reproduce_firmware;
mod sim_cli;
mod tcp_cli;
mod testbed_cli;
mod udp_cli;
