//! Results of every model as files a researcher loads into pandas (`flows.csv`, `runs.csv`,
//! `summary.csv`, `series.csv`, `samples.csv`, `transfers.csv`, `nodes.csv`), as typed columns (what the
//! Python package hands to Arrow) and as the summary table the CLI prints. Everything here is
//! a pure function of the scenario and its runs ([`AlgorithmRuns`], whatever the model), so
//! the bytes depend only on the scenario and its seed.
//!
//! | file | what is there |
//! |---|---|
//! | `summary.rs` | **the one summary type** [`Summary`] (typed per model: [`SummaryOf`]), `summary.csv` and the printed table |
//! | `network.rs` | the files of network and RTT-trace runs (fixed precision) |
//! | `metric.rs` | the typed run metrics of multihop runs ([`MultihopMetric`]) |
//! | `tcp.rs` | CoAP-over-TCP runs: the network files' columns with TCP's appended (`flows.csv`, `runs.csv`) |
//! | `multihop.rs` | multihop runs' metrics ([`run_metrics`]), `runs.csv`, `flows.csv`, `nodes.csv`, and the TCP traces |
//! | `columns.rs` | [`Columns`], one [`Column`] per CSV column, and [`csv_of`] |
//!
//! The functions below take the runs of any model and write the files that model has: a
//! network run has flows, samples and maybe a series; an RTT-trace run a series; a multihop
//! run flows and nodes.

mod columns;
mod median_ci;
mod metric;
mod multihop;
mod network;
mod summary;
mod tcp;

pub use self::columns::{Column, Columns, csv_of};
pub use self::median_ci::{LEVEL as MEDIAN_CI_LEVEL, MedianInterval, median_ci95, ranks as median_ci_ranks};
pub use self::metric::{MultihopMetric, UnknownMetric};
pub use self::multihop::{role_word, rto_series_csv, run_metrics, trace_nodes};
pub use self::network::{NETWORK_SERIES_HEADER, network_series_row};
pub use self::summary::{
    MetricSummary, MultihopSummary, NetworkSummary, Summary, SummaryOf, TraceSummary, mean_ci, summary_columns,
    summary_csv, summary_csv_header, summary_csv_rows, summary_table, t95,
};

use crate::runner::{AlgorithmRuns, RunOutput};
use coapcc_driver::metrics::{Distribution, Quantiles, mean};
use coapcc_driver::scenario::{Model, Scenario};

/// Whether `all` are multihop runs.
fn is_multihop(all: &[AlgorithmRuns]) -> bool {
    all.iter().flat_map(|a| &a.runs).any(|r| matches!(r, RunOutput::Multihop(_)))
}

/// `flows.csv`: one row per algorithm × replication × flow (network: FCT, exchanges,
/// transmissions; multihop: CoAP per flow or TCP per mote).
pub fn flows_csv(all: &[AlgorithmRuns]) -> String {
    if is_multihop(all) {
        csv_of(&multihop::flows_columns(all))
    } else if tcp::is_tcp(all) {
        tcp::flows_csv(all)
    } else {
        network::flows_csv(all)
    }
}

/// The columns of `flows.csv`.
pub fn flows_columns(all: &[AlgorithmRuns]) -> Columns {
    if is_multihop(all) {
        multihop::flows_columns(all)
    } else if tcp::is_tcp(all) {
        tcp::flows_columns(all)
    } else {
        network::flows_columns(all)
    }
}

/// `samples.csv` (`coapcc sim --samples`, network runs): every CoAP RTT sample and every
/// expired retransmission timer, one row each, per algorithm × replication × flow in the order
/// they occurred: `kind` is `rtt` or `expired_rto`, `count` is 1. A flow with more than
/// [`Distribution::EXACT_LIMIT`] values of a kind has them binned: one row per bin, its mean
/// and `count` values (see `docs/deviations.md`).
pub fn samples_csv(all: &[AlgorithmRuns]) -> String {
    network::samples_csv(all)
}

/// The columns of `samples.csv`.
pub fn samples_columns(all: &[AlgorithmRuns]) -> Columns {
    network::samples_columns(all)
}

/// `runs.csv` of scenario `s`: one row per algorithm × replication (multihop: `seed` and every
/// run metric; CoAP over TCP: the network columns and Linux's TCP counters).
pub fn runs_csv(s: &Scenario, all: &[AlgorithmRuns]) -> String {
    if is_multihop(all) {
        csv_of(&multihop::runs_columns(s, all))
    } else if tcp::is_tcp(all) {
        tcp::runs_csv(all)
    } else {
        network::runs_csv(all)
    }
}

/// The columns of `runs.csv`.
pub fn runs_columns(s: &Scenario, all: &[AlgorithmRuns]) -> Columns {
    if is_multihop(all) {
        multihop::runs_columns(s, all)
    } else if tcp::is_tcp(all) {
        tcp::runs_columns(all)
    } else {
        network::runs_columns(all)
    }
}

/// `series.csv`, when there is one: (RTT, RTO) pairs of replication 0 for RTT-trace runs,
/// per-window rates of replication 0 for long-lived network runs (a caller that streamed the
/// network series while the runs went writes the same bytes from [`NETWORK_SERIES_HEADER`]
/// and [`network_series_row`]).
pub fn series_csv(all: &[AlgorithmRuns]) -> Option<String> {
    network::series_csv(all)
}

/// The columns of `series.csv`, when there is one.
pub fn series_columns(all: &[AlgorithmRuns]) -> Option<Columns> {
    network::series_columns(all)
}

/// `transfers.csv`, when the network runs did block-wise transfers (`[coap.blockwise]`): per
/// algorithm × replication × flow, the object, block size and count, FCT, set-up time (zero
/// over UDP), datagrams each way, retransmissions, unnecessary ones and goodput.
pub fn transfers_csv(all: &[AlgorithmRuns]) -> Option<String> {
    network::transfers_csv(all)
}

/// The columns of `transfers.csv`, when there is one.
pub fn transfers_columns(all: &[AlgorithmRuns]) -> Option<Columns> {
    network::transfers_columns(all)
}

/// `nodes.csv` of multihop scenario `s`: per run and mote, role, position, parent and hop
/// count in that run's DODAG, every MAC counter (collisions, CCA busy, drops by cause, copies
/// per ContikiMAC train) and the radio duty cycle; `None` for other runs.
pub fn nodes_csv(s: &Scenario, all: &[AlgorithmRuns]) -> Option<String> {
    nodes_columns(s, all).map(|c| csv_of(&c))
}

/// The columns of `nodes.csv` (`parent` and `hops` absent for a mote outside the DODAG).
pub fn nodes_columns(s: &Scenario, all: &[AlgorithmRuns]) -> Option<Columns> {
    is_multihop(all).then(|| multihop::nodes_columns(s, all))
}

/// Summaries per algorithm of scenario `s`'s runs `all`, in scenario order, typed by the
/// scenario's model.
pub fn summarise(s: &Scenario, all: &[AlgorithmRuns]) -> Vec<Summary> {
    if let Model::Multihop(_) = s.model {
        return multihop::summaries(s, all)
            .map(|(a, m)| Summary { algorithm: a.algorithm.clone(), runs: a.runs.len(), of: SummaryOf::Multihop(m) })
            .collect();
    }
    let trace = matches!(s.model, Model::Trace(_));
    all.iter()
        .map(|a| {
            let of = if trace {
                SummaryOf::Trace(summarise_trace(a))
            } else {
                SummaryOf::Network(Box::new(summarise_network(a)))
            };
            Summary { algorithm: a.algorithm.clone(), runs: a.runs.len(), of }
        })
        .collect()
}

fn summarise_network(a: &AlgorithmRuns) -> NetworkSummary {
    let (mut fct, mut rexmit, mut unnec, mut rtts, mut rtos) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut goodput, mut loss, mut overhead) = (Vec::new(), Vec::new(), Vec::new());
    let (mut unnecessary_total, mut completed_total, mut drops_buffer_total) = (0u64, 0u64, 0u64);
    let (mut flows_unfinished, mut flows_total) = (0u64, 0u64);
    let mut run_medians = Vec::new();
    for run in a.runs.iter().filter_map(|r| match r {
        RunOutput::Network(run) => Some(run.as_ref()),
        RunOutput::Tcp(t) => Some(&t.network),
        _ => None,
    }) {
        completed_total += run.run.exchanges_completed;
        drops_buffer_total += run.run.drops_buffer;
        flows_unfinished += run.run.flows_unfinished;
        flows_total += run.flows.len() as u64;
        for f in &run.flows {
            unnecessary_total += u64::from(f.unnecessary_retransmissions);
            fct.push(f.fct_s);
            rexmit.push(f64::from(f.retransmissions));
            unnec.push(f64::from(f.unnecessary_retransmissions));
        }
        let mut fcts: Vec<f64> = run.flows.iter().map(|f| f.fct_s).collect();
        run_medians.push(Quantiles::of(&mut fcts).p50);
        rtts.extend(run.flows.iter().map(|f| &f.rtts));
        rtos.extend(run.flows.iter().map(|f| &f.expired_rto));
        goodput.push(run.run.goodput_per_s);
        loss.push(run.run.loss_ratio);
        overhead.push(run.run.overhead);
    }
    let (rtts, rtos) = (Distribution::union(rtts), Distribution::union(rtos));
    NetworkSummary {
        fct: Quantiles::of(&mut fct),
        retransmissions: Quantiles::of(&mut rexmit),
        unnecessary: Quantiles::of(&mut unnec),
        goodput_per_s: mean(&goodput),
        loss_ratio: mean(&loss),
        overhead: mean(&overhead),
        rtt: rtts.quantiles(),
        expired_rto: rtos.quantiles(),
        rtt_samples: rtts.len(),
        expired_rto_count: rtos.len(),
        unnecessary_total,
        completed_total,
        drops_buffer_total,
        flows_unfinished,
        flows_total,
        fct_run_median_ci: median_ci::median_ci95(&run_medians),
    }
}

fn summarise_trace(a: &AlgorithmRuns) -> TraceSummary {
    let (rmse, spurious): (Vec<f64>, Vec<f64>) = a
        .runs
        .iter()
        .filter_map(|r| match r {
            RunOutput::Trace(t) => Some((t.rmse_ms, t.spurious as f64)),
            _ => None,
        })
        .unzip();
    TraceSummary { rmse_ms: mean(&rmse), spurious: mean(&spurious) }
}

/// The files of one run of `s`, as `coapcc sim` writes them into its output folder, in the
/// order it writes them (`summaries` are [`summarise`]'s of `all`): network runs `flows.csv`,
/// `samples.csv` (when asked for), `runs.csv`, `summary.csv`, `series.csv` (when there is a
/// series), `transfers.csv` (block-wise transfers); RTT-trace runs `runs.csv`, `summary.csv`, `series.csv`; multihop runs `runs.csv`,
/// `flows.csv`, `nodes.csv`, `summary.csv`; then the resolved `scenario.toml`. One list for
/// the CLI, `coapcc reproduce` and the Python package's `save`. CoAP-over-TCP runs write the
/// files of network runs (with TCP's columns appended).
pub fn result_files(
    s: &Scenario,
    all: &[AlgorithmRuns],
    summaries: &[Summary],
    samples: bool,
) -> Vec<(&'static str, String)> {
    let mut files = Vec::new();
    match s.model {
        Model::Multihop(_) => {
            files.push(("runs.csv", runs_csv(s, all)));
            files.push(("flows.csv", flows_csv(all)));
            files.push(("nodes.csv", nodes_csv(s, all).unwrap_or_default()));
            files.push(("summary.csv", summary_csv(summaries)));
        }
        Model::Network { .. } | Model::Trace(_) | Model::Tcp(_) => {
            if let Model::Network { .. } | Model::Tcp(_) = s.model {
                files.push(("flows.csv", flows_csv(all)));
                if samples {
                    files.push(("samples.csv", samples_csv(all)));
                }
            }
            files.push(("runs.csv", runs_csv(s, all)));
            files.push(("summary.csv", summary_csv(summaries)));
            if let Some(series) = series_csv(all) {
                files.push(("series.csv", series));
            }
            if let Some(transfers) = transfers_csv(all) {
                files.push(("transfers.csv", transfers));
            }
        }
    }
    files.push(("scenario.toml", s.to_toml()));
    files
}
