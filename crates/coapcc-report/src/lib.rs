//! # coapcc-report
//!
//! What the `coapcc` tool and the Python package make of simulation runs: the source papers'
//! experiments run and their published claims checked, written as a report (self-contained
//! HTML, Markdown, CSV, SVG figures); and the result folders of `coapcc sim` and
//! `coapcc testbed`. Options come in as plain structs, errors go out as [`ReportError`] (bad
//! input or a failed run), progress goes to a [`Progress`] the caller passes; nothing here
//! parses a command line, draws a progress bar or opens a socket (the cross-check's testbed
//! is a [`realtime::Testbed`] the caller supplies).
//!
//! ## Map
//!
//! The API is the root's `pub use` list plus two namespaces: [`figures`] and [`realtime`].
//!
//! | where | what is there |
//! |---|---|
//! | root, from `reproduce` | **start here**: `coapcc reproduce` ([`run_reproduce`], [`ReproduceOptions`], [`list_experiments`]): the experiments, their published data ([`published_results`]), evaluation, investigations ([`Findings`], [`causes_md`]), rendering ([`status_md`], [`printed_scoreboard`]) |
//! | [`figures`] | SVG figures (plotters): box plots, line plots, grouped bars; the fixed palette |
//! | root, from `crosscheck` | `coapcc reproduce crosscheck` ([`run_crosscheck`]): simulation against the real-time testbed |
//! | root, from `crosscheck_tcp` | `coapcc reproduce crosscheck-tcp` ([`run_crosscheck_tcp`]): the TCP model against ns-3 ([`Ns3Program`]) |
//! | root, from `sim` | `coapcc sim` ([`run_sim`], [`SimOptions`]): scenarios (and sweep points) into result folders and summary tables |
//! | root, from `describe` | `coapcc sim --describe` ([`describe()`]): what a scenario simulates, and a multihop scenario's `map.svg` |
//! | [`realtime`] | `coapcc testbed`: which scenarios run in real time, for how long, and their result files |
//! | root, from `pcap` | `coapcc sim --pcap`: replication 0 of each algorithm as pcap files ([`pcap_file_stem`]) |
//! | root, from `algorithms` | the algorithm registry as a table ([`algorithms_table`]), as CSV ([`algorithms_csv`]), and one algorithm's keys ([`algorithm_keys_text`]) |
//! | root, from `scenarios` | the built-in scenarios as a list ([`scenarios_table`], [`scenarios_csv`], [`scenarios_json`]) and one scenario's file ([`scenario_text`]) |
//! | root, from `probe` | `coapcc probe`: the human summaries ([`probe_summary`], [`server_summary`]) and the HTML page with the timeline figure ([`probe_html`], [`timeline_svg`]) |
//! | root, from `run_record` | `run.json` in every output folder ([`RunRecord`], [`write_run_json`]): version, commit, date, command, seed, cores |
//! | root, from `progress` | [`Progress`] (what a run reports while it works) and the worker pool |
//! | root, from `files` | the output-folder check before a run ([`check_writable`], [`CreatedFolders`]); atomic file writes ([`write_atomic`]) |
//! | root, from `error` | [`ReportError`] |

#![forbid(unsafe_code)]

// Namespaces (public because the module path is part of the name: `realtime::load`,
// `realtime::admit`, `realtime::report`; the figure kinds and palette under `figures::`);
// nothing in them is re-exported at the root.
pub mod figures;
pub mod realtime;

// Internals: reached through the `pub use` list below.
mod algorithms;
mod crosscheck;
mod crosscheck_tcp;
mod describe;
mod error;
mod files;
mod pcap;
mod probe;
mod progress;
mod reproduce;
mod run_record;
mod scenarios;
mod series;
mod sim;

pub use algorithms::{algorithm_keys_text, algorithms_csv, algorithms_table};
pub use crosscheck::{
    CrosscheckMetric, MannWhitney, MetricComparison, PairedDifference, TOLERANCE as CROSSCHECK_TOLERANCE,
    Verdict as CrosscheckVerdict, run_crosscheck,
};
pub use crosscheck_tcp::{
    DUPTHRESH as CROSSCHECK_TCP_DUPTHRESH, FctComparison, FctOutputError, MATCHED as CROSSCHECK_TCP_MATCHED,
    NS3_ALIKE as CROSSCHECK_TCP_NS3_ALIKE, Ns3Program, REFERENCE_HEADER, ReferenceCase, ReferenceFlow, SideSummary,
    TOLERANCE as CROSSCHECK_TCP_TOLERANCE, TcpReference, parse_flows, run_crosscheck_tcp,
};
pub use describe::describe;
pub use error::ReportError;
pub use files::{AtomicFile, CreatedFolders, check_writable, write_atomic};
pub use pcap::file_stem as pcap_file_stem;
pub use probe::{probe_html, probe_summary, server_summary, timeline_svg};
pub use progress::{Progress, thread_pool};
pub use reproduce::investigate::Findings;
pub use reproduce::investigate::causes::causes_md;
pub use reproduce::published::all as published_results;
pub use reproduce::render::status_md;
pub use reproduce::scoreboard::printed_scoreboard;
pub use reproduce::{ReproduceOptions, list as list_experiments, run_reproduce};
pub use run_record::{RunRecord, command_line, write_run_json};
pub use scenarios::{scenario_text, scenarios_csv, scenarios_json, scenarios_table};
pub use sim::{SimOptions, run_sim};
