//! The files of CoAP-over-TCP runs: the network model's `flows.csv` and `runs.csv` columns,
//! unchanged, with TCP's own columns appended (per flow: set-up time, packets, data segments,
//! timeouts, spurious RTOs, goodput; per run: Linux's `TcpOutSegs`, `TcpRetransSegs`,
//! `TCPTimeouts`, `TCPSpuriousRTOs` summed over every host).

use std::fmt::Write;

use super::columns::{Builder, Columns};
use super::network::{FLOWS_NETWORK_HEADER, RUNS_NETWORK_HEADER, fixed, flow_fields, push_flow, push_run, run_fields};
use crate::linux_tcp::TcpRunResult;
use crate::runner::{AlgorithmRuns, RunOutput};

/// TCP's columns of `flows.csv`, after the network model's.
const FLOWS_TCP: &str = "setup_s,packets,data_segments,timeouts,spurious_rtos,goodput_bps";
/// TCP's columns of `runs.csv`, after the network model's.
const RUNS_TCP: &str = "tcp_out_segs,tcp_retrans_segs,tcp_timeouts,tcp_spurious_rtos";

/// Whether `all` are TCP runs.
pub(super) fn is_tcp(all: &[AlgorithmRuns]) -> bool {
    all.iter().flat_map(|a| &a.runs).any(|r| matches!(r, RunOutput::Tcp(_)))
}

fn tcp_runs(all: &[AlgorithmRuns]) -> impl Iterator<Item = (&str, usize, &TcpRunResult)> {
    all.iter().flat_map(|a| {
        a.runs.iter().enumerate().filter_map(move |(r, out)| match out {
            RunOutput::Tcp(t) => Some((a.algorithm.as_str(), r, t.as_ref())),
            _ => None,
        })
    })
}

fn flows_header() -> String {
    format!("{FLOWS_NETWORK_HEADER},{FLOWS_TCP}")
}

fn runs_header() -> String {
    format!("{},{RUNS_TCP}", RUNS_NETWORK_HEADER.trim_end())
}

/// `flows.csv` of TCP runs.
pub(super) fn flows_csv(all: &[AlgorithmRuns]) -> String {
    let mut s = flows_header();
    s.push('\n');
    for (algorithm, r, t) in tcp_runs(all) {
        for (f, x) in t.network.flows.iter().zip(&t.flows) {
            let _ = writeln!(
                s,
                "{algorithm},{r},{},{},{},{},{},{},{}",
                flow_fields(f),
                fixed(x.setup_s),
                x.packets,
                x.data_segments,
                x.timeouts,
                x.spurious_rtos,
                fixed(x.goodput_bps)
            );
        }
    }
    s
}

/// The columns of `flows.csv` of TCP runs.
pub(super) fn flows_columns(all: &[AlgorithmRuns]) -> Columns {
    let mut b = Builder::new(&flows_header(), "suufuuuuuffuuuuf");
    for (algorithm, r, t) in tcp_runs(all) {
        for (f, x) in t.network.flows.iter().zip(&t.flows) {
            b.s(algorithm).u(r as u64);
            push_flow(&mut b, f);
            b.f(x.setup_s).u(x.packets).u(x.data_segments).u(x.timeouts).u(x.spurious_rtos).f(x.goodput_bps);
        }
    }
    b.finish()
}

/// `runs.csv` of TCP runs.
pub(super) fn runs_csv(all: &[AlgorithmRuns]) -> String {
    let mut s = runs_header();
    s.push('\n');
    for (algorithm, r, t) in tcp_runs(all) {
        let c = &t.counters;
        let _ = writeln!(
            s,
            "{algorithm},{r},{},{},{},{},{}",
            run_fields(&t.network.run),
            c.out_segs,
            c.retrans_segs,
            c.timeouts,
            c.spurious_rtos
        );
    }
    s
}

/// The columns of `runs.csv` of TCP runs.
pub(super) fn runs_columns(all: &[AlgorithmRuns]) -> Columns {
    let mut b = Builder::new(&runs_header(), "sufuufffffuuuuufufffuuuuuuu");
    for (algorithm, r, t) in tcp_runs(all) {
        let c = &t.counters;
        b.s(algorithm).u(r as u64);
        push_run(&mut b, &t.network.run);
        b.u(c.out_segs).u(c.retrans_segs).u(c.timeouts).u(c.spurious_rtos);
    }
    b.finish()
}
