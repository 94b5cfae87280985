//! The files of network and RTT-trace runs (`flows.csv`, `runs.csv`, `series.csv`,
//! `samples.csv`, `transfers.csv`), as CSV text and as typed columns. Numbers are written with fixed precision
//! (6 decimals for seconds and ratios, [`fixed`]); a missing value (NaN) is an empty field.

use std::fmt::Write;

use super::columns::{Builder, Columns};
use crate::runner::{AlgorithmRuns, RunOutput};
use coapcc_driver::metrics::{FlowResult, RunMetrics, SeriesPoint, TransferResult};

/// A measurement with 6 decimals, empty when not finite.
pub(super) fn fixed(x: f64) -> String {
    if x.is_finite() { format!("{x:.6}") } else { String::new() }
}

/// The header of `flows.csv` for network runs (without its newline).
pub(super) const FLOWS_NETWORK_HEADER: &str = "algorithm,replication,flow,fct_s,exchanges_completed,exchanges_failed,transmissions,retransmissions,unnecessary_retransmissions,median_rtt_s";

/// `flows.csv`: one row per algorithm × replication × flow.
pub(super) fn flows_csv(all: &[AlgorithmRuns]) -> String {
    let mut s = format!("{FLOWS_NETWORK_HEADER}\n");
    for a in all {
        for (r, out) in a.runs.iter().enumerate() {
            if let RunOutput::Network(run) = out {
                for f in &run.flows {
                    let _ = writeln!(s, "{},{r},{}", a.algorithm, flow_fields(f));
                }
            }
        }
    }
    s
}

/// The fields of a `flows.csv` row after `algorithm,replication` (the flow's own columns).
pub(super) fn flow_fields(f: &FlowResult) -> String {
    format!(
        "{},{},{},{},{},{},{},{}",
        f.flow,
        fixed(f.fct_s),
        f.exchanges_completed,
        f.exchanges_failed,
        f.transmissions,
        f.retransmissions,
        f.unnecessary_retransmissions,
        fixed(f.median_rtt_s)
    )
}

/// A flow's own columns (see [`flow_fields`]) onto a row of `b`.
pub(super) fn push_flow(b: &mut Builder, f: &FlowResult) {
    b.u(u64::from(f.flow))
        .f(f.fct_s)
        .u(u64::from(f.exchanges_completed))
        .u(u64::from(f.exchanges_failed))
        .u(u64::from(f.transmissions))
        .u(u64::from(f.retransmissions))
        .u(u64::from(f.unnecessary_retransmissions))
        .f(f.median_rtt_s);
}

/// The fields of a network `runs.csv` row after `algorithm,replication`.
pub(super) fn run_fields(m: &RunMetrics) -> String {
    format!(
        "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
        fixed(m.duration_s),
        m.exchanges_completed,
        m.exchanges_failed,
        fixed(m.goodput_per_s),
        fixed(m.loss_ratio),
        fixed(m.overhead),
        fixed(m.utilisation_up),
        fixed(m.utilisation_down),
        m.packets_up,
        m.packets_down,
        m.drops_buffer,
        m.drops_error,
        m.drops_no_token,
        fixed(m.jain_fct),
        m.events,
        fixed(m.sim_time_s),
        fixed(m.queue_delay_up_s),
        fixed(m.queue_delay_down_s),
        m.max_queue_up_bytes,
        m.max_queue_down_bytes,
        m.flows_unfinished
    )
}

/// A run's own columns (see [`run_fields`]) onto a row of `b`.
pub(super) fn push_run(b: &mut Builder, m: &RunMetrics) {
    b.f(m.duration_s)
        .u(m.exchanges_completed)
        .u(m.exchanges_failed)
        .f(m.goodput_per_s)
        .f(m.loss_ratio)
        .f(m.overhead)
        .f(m.utilisation_up)
        .f(m.utilisation_down)
        .u(m.packets_up)
        .u(m.packets_down)
        .u(m.drops_buffer)
        .u(m.drops_error)
        .u(m.drops_no_token)
        .f(m.jain_fct)
        .u(m.events)
        .f(m.sim_time_s)
        .f(m.queue_delay_up_s)
        .f(m.queue_delay_down_s)
        .u(m.max_queue_up_bytes)
        .u(m.max_queue_down_bytes)
        .u(m.flows_unfinished);
}

/// `samples.csv` (`coapcc sim --samples`): every CoAP RTT sample and every expired
/// retransmission timer, one row each, per algorithm × replication × flow in the order they
/// occurred: `kind` is `rtt` or `expired_rto`, `count` is 1. A flow with more than
/// [`Distribution::EXACT_LIMIT`] values of a kind has them binned: one row per bin, its mean
/// and `count` values (see `docs/deviations.md`).
pub(super) fn samples_csv(all: &[AlgorithmRuns]) -> String {
    let mut s = String::from("algorithm,replication,flow,kind,value_s,count\n");
    for (algorithm, r, flow, kind, x, n) in sample_rows(all) {
        let _ = writeln!(s, "{algorithm},{r},{flow},{kind},{},{n}", fixed(x));
    }
    s
}

/// The rows of `samples.csv`, in order: (algorithm, replication, flow, kind, value in
/// seconds, count).
fn sample_rows(all: &[AlgorithmRuns]) -> impl Iterator<Item = (&str, usize, u32, &'static str, f64, u64)> {
    all.iter().flat_map(|a| {
        a.runs.iter().enumerate().flat_map(move |(r, out)| {
            let flows = match out {
                RunOutput::Network(run) => run.flows.as_slice(),
                RunOutput::Tcp(t) => t.network.flows.as_slice(),
                _ => &[],
            };
            flows.iter().flat_map(move |f| {
                [("rtt", &f.rtts), ("expired_rto", &f.expired_rto)].into_iter().flat_map(move |(kind, d)| {
                    d.weighted().into_iter().map(move |(x, n)| (a.algorithm.as_str(), r, f.flow, kind, x, n))
                })
            })
        })
    })
}

/// The header of `runs.csv` for RTT-trace runs.
const RUNS_TRACE_HEADER: &str = "algorithm,replication,samples,rmse_ms,spurious,mean_rtt_ms,mean_rto_ms\n";

/// The header of `runs.csv` for network runs.
pub(super) const RUNS_NETWORK_HEADER: &str = "algorithm,replication,duration_s,exchanges_completed,exchanges_failed,goodput_per_s,loss_ratio,overhead,utilisation_up,utilisation_down,packets_up,packets_down,drops_buffer,drops_error,drops_no_token,jain_fct,events,sim_time_s,queue_delay_up_s,queue_delay_down_s,max_queue_up_bytes,max_queue_down_bytes,flows_unfinished\n";

/// `runs.csv`: one row per algorithm × replication.
pub(super) fn runs_csv(all: &[AlgorithmRuns]) -> String {
    let mut s = String::new();
    let trace = all.iter().flat_map(|a| &a.runs).any(|r| matches!(r, RunOutput::Trace(_)));
    if trace {
        s.push_str(RUNS_TRACE_HEADER);
    } else {
        s.push_str(RUNS_NETWORK_HEADER);
    }
    for a in all {
        for (r, out) in a.runs.iter().enumerate() {
            match out {
                RunOutput::Network(run) => {
                    let _ = writeln!(s, "{},{r},{}", a.algorithm, run_fields(&run.run));
                }
                RunOutput::Trace(t) => {
                    let _ = writeln!(
                        s,
                        "{},{r},{},{},{},{},{}",
                        a.algorithm,
                        t.samples,
                        fixed(t.rmse_ms),
                        t.spurious,
                        fixed(t.mean_rtt_ms),
                        fixed(t.mean_rto_ms)
                    );
                }
                RunOutput::Multihop(_) | RunOutput::Tcp(_) => {}
            }
        }
    }
    s
}

/// The header of a long-lived network run's `series.csv` (with its newline).
pub const NETWORK_SERIES_HEADER: &str = "algorithm,t_s,resbw_per_s,send_rate_per_s,success_rate_per_s\n";

/// One row of a long-lived network run's `series.csv` (with its newline): `algorithm`'s
/// window `p`. The one formatting of these rows, whether the file is written from a kept
/// series or row by row while the run goes.
pub fn network_series_row(algorithm: &str, p: &SeriesPoint) -> String {
    format!(
        "{algorithm},{},{},{},{}\n",
        fixed(p.t_s),
        fixed(p.resbw_per_s),
        fixed(p.send_rate_per_s),
        fixed(p.success_rate_per_s)
    )
}

/// `series.csv`: time series for figures — (RTT, RTO) pairs of replication 0 for trace runs,
/// per-window rates for long-lived runs.
pub(super) fn series_csv(all: &[AlgorithmRuns]) -> Option<String> {
    let first = all.iter().find_map(|a| a.runs.first())?;
    let mut s = String::new();
    match first {
        RunOutput::Trace(_) => {
            s.push_str("algorithm,sample,rtt_ms,rto_ms\n");
            for a in all {
                if let Some(RunOutput::Trace(t)) = a.runs.first() {
                    for (i, (rtt, rto)) in t.series.iter().enumerate() {
                        let _ = writeln!(s, "{},{i},{},{}", a.algorithm, fixed(*rtt), fixed(*rto));
                    }
                }
            }
        }
        RunOutput::Network(r) => {
            if r.series.is_empty() {
                return None;
            }
            s.push_str(NETWORK_SERIES_HEADER);
            for a in all {
                if let Some(RunOutput::Network(r)) = a.runs.first() {
                    for p in &r.series {
                        s.push_str(&network_series_row(&a.algorithm, p));
                    }
                }
            }
        }
        RunOutput::Multihop(_) | RunOutput::Tcp(_) => return None,
    }
    Some(s)
}

/// The header of `transfers.csv`.
const TRANSFERS_HEADER: &str = "algorithm,replication,flow,object_bytes,block_bytes,blocks,fct_s,setup_s,packets_up,packets_down,retransmissions,unnecessary_retransmissions,goodput_bit_s\n";

/// `transfers.csv`, when the runs did block-wise transfers (`[coap.blockwise]`): one row per
/// algorithm × replication × flow.
pub(super) fn transfers_csv(all: &[AlgorithmRuns]) -> Option<String> {
    if !has_transfers(all) {
        return None;
    }
    let mut s = String::from(TRANSFERS_HEADER);
    for (algorithm, r, t) in transfer_rows(all) {
        let _ = writeln!(
            s,
            "{algorithm},{r},{},{},{},{},{},{},{},{},{},{},{}",
            t.flow,
            t.object_bytes,
            t.block_bytes,
            t.blocks,
            fixed(t.fct_s),
            fixed(t.setup_s),
            t.packets_up,
            t.packets_down,
            t.retransmissions,
            t.unnecessary_retransmissions,
            fixed(t.goodput_bit_s)
        );
    }
    Some(s)
}

/// Whether any network run of `all` did block-wise transfers.
fn has_transfers(all: &[AlgorithmRuns]) -> bool {
    all.iter().flat_map(|a| &a.runs).any(|r| matches!(r, RunOutput::Network(n) if !n.transfers.is_empty()))
}

/// The rows of `transfers.csv`, in order: (algorithm, replication, transfer).
fn transfer_rows(all: &[AlgorithmRuns]) -> impl Iterator<Item = (&str, usize, &TransferResult)> {
    all.iter().flat_map(|a| {
        a.runs.iter().enumerate().flat_map(move |(r, out)| {
            let transfers = match out {
                RunOutput::Network(run) => run.transfers.as_slice(),
                _ => &[],
            };
            transfers.iter().map(move |t| (a.algorithm.as_str(), r, t))
        })
    })
}

/// The columns of `transfers.csv`, when there is one (see [`transfers_csv`]).
pub(super) fn transfers_columns(all: &[AlgorithmRuns]) -> Option<Columns> {
    if !has_transfers(all) {
        return None;
    }
    let mut b = Builder::new(header(TRANSFERS_HEADER), "suuuuuffuuuuf");
    for (algorithm, r, t) in transfer_rows(all) {
        b.s(algorithm)
            .u(r as u64)
            .u(u64::from(t.flow))
            .u(t.object_bytes)
            .u(u64::from(t.block_bytes))
            .u(u64::from(t.blocks))
            .f(t.fct_s)
            .f(t.setup_s)
            .u(t.packets_up)
            .u(t.packets_down)
            .u(u64::from(t.retransmissions))
            .u(u64::from(t.unnecessary_retransmissions))
            .f(t.goodput_bit_s);
    }
    Some(b.finish())
}

/// The header line of a CSV text.
fn header(csv: &str) -> &str {
    csv.lines().next().unwrap_or_default()
}

/// The columns of `flows.csv`.
pub(super) fn flows_columns(all: &[AlgorithmRuns]) -> Columns {
    let mut b = Builder::new(header(&flows_csv(&[])), "suufuuuuuf");
    for a in all {
        for (r, out) in a.runs.iter().enumerate() {
            if let RunOutput::Network(run) = out {
                for f in &run.flows {
                    b.s(&a.algorithm).u(r as u64);
                    push_flow(&mut b, f);
                }
            }
        }
    }
    b.finish()
}

/// The columns of `samples.csv`.
pub(super) fn samples_columns(all: &[AlgorithmRuns]) -> Columns {
    let mut b = Builder::new(header(&samples_csv(&[])), "suusfu");
    for (algorithm, r, flow, kind, x, n) in sample_rows(all) {
        b.s(algorithm).u(r as u64).u(u64::from(flow)).s(kind).f(x).u(n);
    }
    b.finish()
}

/// The columns of `runs.csv`.
pub(super) fn runs_columns(all: &[AlgorithmRuns]) -> Columns {
    let trace = all.iter().flat_map(|a| &a.runs).any(|r| matches!(r, RunOutput::Trace(_)));
    let mut b = if trace {
        Builder::new(header(RUNS_TRACE_HEADER), "suufuff")
    } else {
        Builder::new(header(RUNS_NETWORK_HEADER), "sufuufffffuuuuufufffuuu")
    };
    for a in all {
        for (r, out) in a.runs.iter().enumerate() {
            match out {
                RunOutput::Network(run) if !trace => {
                    b.s(&a.algorithm).u(r as u64);
                    push_run(&mut b, &run.run);
                }
                RunOutput::Trace(t) if trace => {
                    b.s(&a.algorithm)
                        .u(r as u64)
                        .u(u64::from(t.samples))
                        .f(t.rmse_ms)
                        .u(t.spurious)
                        .f(t.mean_rtt_ms)
                        .f(t.mean_rto_ms);
                }
                _ => {}
            }
        }
    }
    b.finish()
}

/// The columns of `series.csv`, when there is one (see [`series_csv`]).
pub(super) fn series_columns(all: &[AlgorithmRuns]) -> Option<Columns> {
    let csv = series_csv(all)?;
    let trace = matches!(all.iter().find_map(|a| a.runs.first()), Some(RunOutput::Trace(_)));
    let mut b = Builder::new(header(&csv), if trace { "suff" } else { "sffff" });
    for a in all {
        match a.runs.first() {
            Some(RunOutput::Trace(t)) if trace => {
                for (i, (rtt, rto)) in t.series.iter().enumerate() {
                    b.s(&a.algorithm).u(i as u64).f(*rtt).f(*rto);
                }
            }
            Some(RunOutput::Network(r)) if !trace => {
                for p in &r.series {
                    b.s(&a.algorithm).f(p.t_s).f(p.resbw_per_s).f(p.send_rate_per_s).f(p.success_rate_per_s);
                }
            }
            _ => {}
        }
    }
    Some(b.finish())
}
