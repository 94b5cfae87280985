//! # coapcc-report
//!
//! What the `coapcc` tool and the Python package make of simulation runs: the source papers'
//! experiments run and their published claims checked, written as a report (self-contained
//! HTML, Markdown, CSV, SVG figures); and the result folders of `coapcc sim` and
//! `coapcc testbed`. Options come in as plain structs, errors go out as [`ReportError`] (bad
//! input or a failed run), progress goes to a [`Progress`] the caller passes; nothing here
//! parses a command line, draws a progress bar or opens a socket (the cross-check's testbed
//! is a [`testbed::Testbed`] the caller supplies).
//!
//! ## Map
//!
//! | module | what is there |
//! |---|---|
//! | [`reproduce`] | **start here**: `coapcc reproduce` ([`run_reproduce`]): the experiments, their published data, evaluation, investigations, rendering |
//! | [`figures`] | SVG figures (plotters): box plots, line plots, grouped bars; the fixed palette |
//! | [`crosscheck`] | `coapcc reproduce crosscheck`: simulation against the real-time testbed |
//! | [`sim`] | `coapcc sim`: scenarios (and sweep points) into result folders and summary tables |
//! | [`describe`](mod@describe) | `coapcc sim --describe`: what a scenario simulates, and a multihop scenario's `map.svg` |
//! | [`testbed`] | `coapcc testbed`: which scenarios run in real time, for how long, and their result files |
//! | [`pcap`] | `coapcc sim --pcap`: replication 0 of each algorithm as pcap files |
//! | [`algorithms`] | the algorithm registry as a table, as CSV, and one algorithm's keys |
//! | [`progress`] | [`Progress`] (what a run reports while it works) and the worker pool |
//! | [`files`] | atomic file writes |
//! | [`error`] | [`ReportError`] |

pub mod algorithms;
pub mod crosscheck;
pub mod describe;
pub mod error;
pub mod figures;
pub mod files;
pub mod pcap;
pub mod progress;
pub mod reproduce;
pub mod sim;
pub mod testbed;

pub use crate::crosscheck::run_crosscheck;
pub use crate::describe::describe;
pub use crate::error::ReportError;
pub use crate::progress::Progress;
pub use crate::reproduce::{ReproduceOptions, run_reproduce};
pub use crate::sim::{SimOptions, run_sim};
