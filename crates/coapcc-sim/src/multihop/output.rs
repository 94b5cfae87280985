//! What `coapcc sim` writes for a multihop scenario (spec multihop.md §2.5, §3.4, §4.4): one
//! row of named metrics per run (`runs.csv`), per-flow / per-node application results
//! (`flows.csv`), per-node link-layer counters with position, role, hop count and duty cycle
//! (`nodes.csv`), and per-algorithm means with 95 % confidence intervals (`summary.csv` and
//! the printed table). Every file is long-format CSV with a header row, loadable with
//! `pandas.read_csv`.

use super::NodeId;
use super::metrics::{MultihopResult, TcpResult};
use super::scenario::{MultihopRuns, run_seed};
use super::tcp::TracePointKind;
use super::topology::Role;
use super::{MultihopConfig, MultihopSim, Workload};
use crate::results::{Builder, Column, Columns};
use crate::scenario::Scenario;

/// Named metrics of one run, in a fixed order for a given workload kind. Units in the names.
///
/// * all: `events`, `simulated_s`, `packets_delivered`, `packets_dropped`, `mac_data_frames`,
///   `mac_noack`, `mac_collision`, `mac_cca_busy`, `mac_rx_corrupted`, `mac_drops`,
///   `copies_per_ok_train`, `duty_cycle_mean` (motes other than the border router);
/// * CoAP (§2.5, §3.4): `exchanges_completed`, `exchanges_failed`, `retries_per_exchange`,
///   `duration_mean_s`, `throughput_per_s` (1-to-1: completed / Σ per-server active time;
///   otherwise completed / (last ACK − first send)), `inverse_duration_per_s` (OQ-M5),
///   `in_flight_mean` (throughput × duration, Little's law), `goodput_per_s` (distinct
///   requests received in the window / window length), `app_loss_ratio`, `overhead`; for
///   Makarem's saturated senders also `senders`, `goodput_per_sender_per_s` (M7) and
///   `senders_one_hop_fraction` (senders whose route to the receiver is one hop, M6);
/// * TCP (§4.4): `goodput_bps`, `offered_bps`, `retransmitted_segments`, `fairness`,
///   `setup_failures`, `broken`, `connection_failures`, `rtt_samples`,
///   `max_retransmissions_delivered`, `min_rtt_samples_per_node`, then (§4.5)
///   `rtt_below_1s_fraction` (Karn-valid samples below 1 s, L3), `rtt_samples_truncated`
///   (samples the controller's 1-s integer arithmetic truncates to 0, L5),
///   `max_rto_after_10_samples_s` (the largest fresh-segment timer armed after a node's
///   first 10 samples, over all nodes, L3), `delivered_segments` and
///   `retransmissions_per_delivered_segment` (L13).
///
/// Values that are undefined in the run (0/0) of the metrics from `rtt_below_1s_fraction`
/// and `senders` on are NaN, written as an empty cell.
pub fn run_metrics(cfg: &MultihopConfig, r: &MultihopResult) -> Vec<(&'static str, f64)> {
    let mut m: Vec<(&'static str, f64)> = Vec::new();
    let sim_s = r.end_ns as f64 / 1e9;
    m.push(("events", r.events as f64));
    m.push(("simulated_s", sim_s));
    m.push(("packets_delivered", r.packets_delivered as f64));
    m.push(("packets_dropped", r.packets_dropped as f64));
    let t = r.mac_total();
    m.push(("mac_data_frames", t.data_frames as f64));
    m.push(("mac_noack", t.tx_noack as f64));
    m.push(("mac_collision", t.tx_collision as f64));
    m.push(("mac_cca_busy", t.cca_busy as f64));
    m.push(("mac_rx_corrupted", t.rx_corrupted as f64));
    m.push((
        "mac_drops",
        (t.drop_no_neighbor_queue + t.drop_no_buffer + t.drop_queue_full + t.drop_retry_limit) as f64,
    ));
    m.push(("copies_per_ok_train", ratio(t.copies_in_ok_trains as f64, t.tx_ok as f64)));
    let root = cfg.topology.build().ok().and_then(|t| t.border_router()).map(NodeId::index);
    let duty: Vec<f64> =
        r.mac.iter().enumerate().filter(|(i, _)| Some(*i) != root).map(|(_, c)| c.duty_cycle(r.end_ns)).collect();
    m.push(("duty_cycle_mean", ratio(duty.iter().sum(), duty.len() as f64)));
    if let Some(tcp) = &r.tcp {
        m.push(("goodput_bps", tcp.goodput_bps));
        m.push(("offered_bps", tcp.offered_bps));
        m.push(("retransmitted_segments", tcp.retransmitted_segments as f64));
        m.push(("fairness", tcp.fairness));
        m.push(("setup_failures", tcp.setup_failures as f64));
        m.push(("broken", tcp.broken as f64));
        m.push(("connection_failures", (tcp.setup_failures + tcp.broken) as f64));
        m.push(("rtt_samples", tcp.nodes.iter().map(|n| n.rtt_samples).sum::<u64>() as f64));
        m.push((
            "max_retransmissions_delivered",
            f64::from(tcp.nodes.iter().map(|n| n.max_retransmissions_delivered).max().unwrap_or(0)),
        ));
        m.push(("min_rtt_samples_per_node", tcp.nodes.iter().map(|n| n.rtt_samples).min().unwrap_or(0) as f64));
        // Spec multihop.md §4.5 L3, L5, L13 (undefined values are NaN: an empty cell).
        let samples: u64 = tcp.nodes.iter().map(|n| n.rtt_samples).sum();
        let below: u64 = tcp.nodes.iter().map(|n| n.rtt_samples_below_1s).sum();
        m.push(("rtt_below_1s_fraction", fraction(below as f64, samples as f64)));
        m.push(("rtt_samples_truncated", tcp.nodes.iter().map(|n| n.rtt_samples_truncated).sum::<u64>() as f64));
        // L8: samples longer than 3 s; L2: the mean first timer armed (each mote's first SYN).
        m.push(("rtt_samples_above_3s", tcp.nodes.iter().map(|n| n.rtt_samples_above_3s).sum::<u64>() as f64));
        let firsts: Vec<f64> =
            tcp.nodes.iter().filter_map(|n| n.timers_ns.first()).map(|&ns| ns as f64 / 1e9).collect();
        m.push(("first_timer_s", fraction(firsts.iter().sum(), firsts.len() as f64)));
        let settled = tcp.nodes.iter().filter_map(|n| n.max_rto_after_10_samples_ns).max();
        m.push(("max_rto_after_10_samples_s", settled.map_or(f64::NAN, |ns| ns as f64 / 1e9)));
        let payload = match &cfg.workload {
            Workload::LimTcp(w) => u64::from(w.payload_bytes),
            _ => 0,
        };
        let delivered: u64 = tcp.nodes.iter().map(|n| n.delivered_bytes.checked_div(payload).unwrap_or(0)).sum();
        m.push(("delivered_segments", delivered as f64));
        m.push((
            "retransmissions_per_delivered_segment",
            fraction(tcp.retransmitted_segments as f64, delivered as f64),
        ));
        return m;
    }
    let completed: u64 = r.coap.iter().map(|f| f.completed).sum();
    let failed: u64 = r.coap.iter().map(|f| f.failed).sum();
    let retrans: u64 = r.coap.iter().map(|f| f.retransmissions).sum();
    let dur_ns: u128 = r.coap.iter().map(|f| f.duration_sum_ns).sum();
    let duration = ratio(dur_ns as f64 / 1e9, completed as f64);
    let throughput = if matches!(cfg.workload, Workload::CoapOneToOne(_)) {
        let active: f64 = r
            .coap
            .iter()
            .filter_map(|f| match (f.first_send_ns, f.last_ack_ns) {
                (Some(a), Some(b)) if b > a => Some((b - a) as f64 / 1e9),
                _ => None,
            })
            .sum();
        ratio(completed as f64, active)
    } else {
        let first = r.coap.iter().filter_map(|f| f.first_send_ns).min();
        let last = r.coap.iter().filter_map(|f| f.last_ack_ns).max();
        match (first, last) {
            (Some(a), Some(b)) if b > a => completed as f64 / ((b - a) as f64 / 1e9),
            _ => 0.0,
        }
    };
    m.push(("exchanges_completed", completed as f64));
    m.push(("exchanges_failed", failed as f64));
    m.push(("retries_per_exchange", ratio(retrans as f64, (completed + failed) as f64)));
    m.push(("duration_mean_s", duration));
    m.push(("throughput_per_s", throughput));
    m.push(("inverse_duration_per_s", ratio(1.0, duration)));
    m.push(("in_flight_mean", throughput * duration));
    let window_s = match &cfg.workload {
        Workload::CoapSaturated(w) => (sim_s - w.window_start.as_secs_f64()).max(0.0),
        _ => sim_s,
    };
    let distinct: u64 = r.coap.iter().map(|f| f.distinct_received_in_window).sum();
    let ended: u64 = r.coap.iter().map(|f| f.ended_in_window).sum();
    let failed_w: u64 = r.coap.iter().map(|f| f.failed_in_window).sum();
    let tx_w: u64 = r.coap.iter().map(|f| f.transmissions_in_window).sum();
    let done_w: u64 = r.coap.iter().map(|f| f.completed_in_window).sum();
    m.push(("goodput_per_s", ratio(distinct as f64, window_s)));
    m.push(("app_loss_ratio", ratio(failed_w as f64, ended as f64)));
    m.push(("overhead", ratio(tx_w as f64 - done_w as f64, done_w as f64)));
    if matches!(cfg.workload, Workload::CoapSaturated(_)) {
        // Spec multihop.md §3.5 M6, M7 (Makarem's senders; undefined values are NaN).
        let senders = r.coap.len() as f64;
        let one_hop = r.coap.iter().filter(|f| f.route_hops == Some(1)).count() as f64;
        m.push(("senders", senders));
        m.push(("goodput_per_sender_per_s", fraction(distinct as f64 / window_s, senders)));
        m.push(("senders_one_hop_fraction", fraction(one_hop, senders)));
    }
    m
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

/// `a / b`, NaN (an empty cell, "not evaluated" in a claim) when `b` is 0: for the metrics
/// added in issue 12, whose 0/0 must not read as a measured 0.
fn fraction(a: f64, b: f64) -> f64 {
    if b > 0.0 && a.is_finite() { a / b } else { f64::NAN }
}

/// Two-sided 95 % Student-t quantile for `df` degrees of freedom (1.96 beyond 30).
pub fn t95(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
        2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
    ];
    if df == 0 { f64::NAN } else { T.get(df - 1).copied().unwrap_or(1.96) }
}

/// Mean and 95 % confidence half-width (Student t; 0 for one value).
pub fn mean_ci(xs: &[f64]) -> (f64, f64) {
    let n = xs.len();
    if n == 0 {
        return (0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    (mean, t95(n - 1) * (var / n as f64).sqrt())
}

/// Per algorithm: every metric's (name, mean, 95 % CI half-width) over the replications.
pub type Summary = Vec<(String, Vec<(&'static str, f64, f64)>)>;

/// The per-algorithm summary of `runs` (configurations in the same order).
pub fn summarise(cfgs: &[(String, MultihopConfig)], runs: &[MultihopRuns]) -> Summary {
    runs.iter()
        .zip(cfgs)
        .map(|(a, (_, cfg))| {
            let rows: Vec<Vec<(&'static str, f64)>> = a.runs.iter().map(|r| run_metrics(cfg, r)).collect();
            let names: Vec<&'static str> =
                rows.first().map(|r| r.iter().map(|(n, _)| *n).collect()).unwrap_or_default();
            let stats = names
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let xs: Vec<f64> = rows.iter().map(|r| r[i].1).collect();
                    let (m, ci) = mean_ci(&xs);
                    (*n, m, ci)
                })
                .collect();
            (a.algorithm.clone(), stats)
        })
        .collect()
}

fn num(x: f64) -> String {
    if x.is_finite() { format!("{x}") } else { String::new() }
}

fn q(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// The metrics of [`run_metrics`] that count things (events, frames, packets, exchanges,
/// segments, connections): integer columns in [`runs_columns`]. Any other metric is a
/// floating-point column, so a metric added to [`run_metrics`] appears in every table (as a
/// float until it is named here).
pub const COUNT_METRICS: &[&str] = &[
    "events",
    "packets_delivered",
    "packets_dropped",
    "mac_data_frames",
    "mac_noack",
    "mac_collision",
    "mac_cca_busy",
    "mac_rx_corrupted",
    "mac_drops",
    "exchanges_completed",
    "exchanges_failed",
    "retransmitted_segments",
    "setup_failures",
    "broken",
    "connection_failures",
    "rtt_samples",
    "max_retransmissions_delivered",
    "min_rtt_samples_per_node",
    "rtt_samples_truncated",
    "rtt_samples_above_3s",
    "delivered_segments",
    "senders",
];

/// The CSV text of multihop `columns`: the header row, then one row per value, text quoted
/// when it must be, counts as integers, measurements at full precision (empty when not
/// finite), flags as `true` / `false`, absent counts empty. No columns: no text.
pub fn csv_of(columns: &Columns) -> String {
    if columns.columns.is_empty() {
        return String::new();
    }
    let names: Vec<&str> = columns.columns.iter().map(|(n, _)| n.as_str()).collect();
    let mut out = format!("{}\n", names.join(","));
    let rows = columns.columns.iter().map(|(_, c)| c.len()).min().unwrap_or(0);
    for i in 0..rows {
        for (k, (_, c)) in columns.columns.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            match c {
                Column::Str(v) => out.push_str(&q(&v[i])),
                Column::U64(v) => out.push_str(&v[i].to_string()),
                Column::F64(v) => out.push_str(&num(v[i])),
                Column::Bool(v) => out.push_str(if v[i] { "true" } else { "false" }),
                Column::OptU64(v) => out.push_str(&v[i].map_or(String::new(), |x| x.to_string())),
            }
        }
        out.push('\n');
    }
    out
}

/// A count metric's value as an integer when it is one that prints as the same text (finite,
/// whole, not negative, exact in `f64`).
fn whole(x: f64) -> Option<u64> {
    (x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 9_007_199_254_740_992.0).then_some(x as u64)
}

/// The columns of `runs.csv`: `algorithm`, `replication`, `seed`, then every metric of
/// [`run_metrics`] in its order ([`COUNT_METRICS`] as integers). No runs: no columns.
pub fn runs_columns(cfgs: &[(String, MultihopConfig)], runs: &[MultihopRuns], seed: u64) -> Columns {
    let mut names: Vec<&'static str> = Vec::new();
    let (mut algorithm, mut replication, mut seeds) = (Vec::new(), Vec::new(), Vec::new());
    let mut values: Vec<Vec<f64>> = Vec::new();
    for (a, (_, cfg)) in runs.iter().zip(cfgs) {
        for (i, r) in a.runs.iter().enumerate() {
            let m = run_metrics(cfg, r);
            if algorithm.is_empty() {
                names = m.iter().map(|(n, _)| *n).collect();
                values = vec![Vec::new(); names.len()];
            }
            algorithm.push(a.algorithm.clone());
            replication.push(i as u64);
            seeds.push(run_seed(seed, i as u32));
            for (k, column) in values.iter_mut().enumerate() {
                column.push(m.get(k).map_or(f64::NAN, |(_, v)| *v));
            }
        }
    }
    if algorithm.is_empty() {
        return Columns::default();
    }
    let mut columns = vec![
        ("algorithm".to_string(), Column::Str(algorithm)),
        ("replication".to_string(), Column::U64(replication)),
        ("seed".to_string(), Column::U64(seeds)),
    ];
    for (name, xs) in names.iter().zip(values) {
        let counts: Option<Vec<u64>> =
            if COUNT_METRICS.contains(name) { xs.iter().map(|&x| whole(x)).collect() } else { None };
        let column = counts.map_or(Column::F64(xs), Column::U64);
        columns.push((name.to_string(), column));
    }
    Columns { columns }
}

/// `runs.csv`: algorithm, replication, seed, then every metric of [`run_metrics`].
pub fn runs_csv(cfgs: &[(String, MultihopConfig)], runs: &[MultihopRuns], seed: u64) -> String {
    csv_of(&runs_columns(cfgs, runs, seed))
}

/// The columns of `summary.csv`: `algorithm`, `metric`, `mean`, `ci95` (half-width),
/// `replications`.
pub fn summary_columns(summary: &Summary, replications: u32) -> Columns {
    let mut b = Builder::new("algorithm,metric,mean,ci95,replications", "ssffu");
    for (a, stats) in summary {
        for (n, m, ci) in stats {
            b.s(a).s(n).f(*m).f(*ci).u(u64::from(replications));
        }
    }
    b.finish()
}

/// `summary.csv`: algorithm, metric, mean, ci95 (half-width), replications.
pub fn summary_csv(summary: &Summary, replications: u32) -> String {
    csv_of(&summary_columns(summary, replications))
}

/// The columns of `flows.csv`: CoAP per flow (`client_node` / `server_node` are node ids or
/// `host`; `first_send_s` / `last_ack_s` NaN when there was none) or TCP per mote.
pub fn flows_columns(runs: &[MultihopRuns]) -> Columns {
    let tcp = runs.iter().flat_map(|a| &a.runs).any(|r| r.tcp.is_some());
    let mut b = if tcp {
        Builder::new(
            "algorithm,replication,node,hops,reports,delivered_bytes,retransmitted_segments,syn_retransmissions,\
rtt_samples,max_retransmissions_delivered,setup_failed,broken",
            "suuuuuuuuubb",
        )
    } else {
        Builder::new(
            "algorithm,replication,flow,client_node,server_node,completed,failed,retransmissions,duration_mean_s,\
throughput_per_s,first_send_s,last_ack_s,completed_in_window,failed_in_window,transmissions_in_window,\
distinct_received_in_window",
            "suussuuuffffuuuu",
        )
    };
    let opt = |x: Option<u16>| x.map_or("host".to_string(), |n| n.to_string());
    let opt_s = |x: Option<u64>| x.map_or(f64::NAN, |n| n as f64 / 1e9);
    for a in runs {
        for (i, r) in a.runs.iter().enumerate() {
            match &r.tcp {
                Some(t) if tcp => {
                    for n in &t.nodes {
                        b.s(&a.algorithm)
                            .u(i as u64)
                            .u(u64::from(n.node))
                            .u(u64::from(n.hops))
                            .u(n.reports)
                            .u(n.delivered_bytes)
                            .u(n.retransmitted_segments)
                            .u(n.syn_retransmissions)
                            .u(n.rtt_samples)
                            .u(u64::from(n.max_retransmissions_delivered))
                            .b(n.setup_failed)
                            .b(n.broken);
                    }
                }
                None if !tcp => {
                    for (k, f) in r.coap.iter().enumerate() {
                        b.s(&a.algorithm)
                            .u(i as u64)
                            .u(k as u64)
                            .s(&opt(f.node))
                            .s(&opt(f.peer))
                            .u(f.completed)
                            .u(f.failed)
                            .u(f.retransmissions)
                            .f(f.mean_duration_s())
                            .f(f.throughput_per_s())
                            .f(opt_s(f.first_send_ns))
                            .f(opt_s(f.last_ack_ns))
                            .u(f.completed_in_window)
                            .u(f.failed_in_window)
                            .u(f.transmissions_in_window)
                            .u(f.distinct_received_in_window);
                    }
                }
                _ => {}
            }
        }
    }
    b.finish()
}

/// `flows.csv`: CoAP per flow (client node, server node, counts, durations, throughput) or
/// TCP per mote (hops, reports, bytes, retransmissions, RTT samples, failures).
pub fn flows_csv(runs: &[MultihopRuns]) -> String {
    csv_of(&flows_columns(runs))
}

/// A role's word in the CSV files and `--describe`.
pub fn role_word(r: Role) -> &'static str {
    match r {
        Role::BorderRouter => "border_router",
        Role::EndNode => "end_node",
        Role::Sender => "sender",
        Role::Receiver => "receiver",
    }
}

/// The columns of `nodes.csv` (`parent` and `hops` absent for a mote outside the DODAG).
pub fn nodes_columns(cfgs: &[(String, MultihopConfig)], runs: &[MultihopRuns], seed: u64) -> Columns {
    let mut b = Builder::new(
        "algorithm,replication,node,role,x_m,y_m,parent,hops,data_frames,acks_sent,tx_ok,tx_noack,tx_collision,\
cca_busy,rx_corrupted,rx_delivered,rx_duplicates,drop_no_neighbor_queue,drop_no_buffer,drop_queue_full,\
drop_retry_limit,copies_in_ok_trains,copies_per_ok_train,burst_followers_ok,radio_on_s,duty_cycle",
        "suusffoouuuuuuuuuuuuuufuff",
    );
    for (a, (_, cfg)) in runs.iter().zip(cfgs) {
        let Ok(topo) = cfg.topology.build() else { continue };
        for (i, r) in a.runs.iter().enumerate() {
            let sim = MultihopSim::new(cfg.clone(), run_seed(seed, i as u32)).ok();
            let dodag = sim.as_ref().map(|s| s.dodag());
            for (k, c) in r.mac.iter().enumerate() {
                let id = NodeId::from_index(k);
                let node = topo.nodes.get(k);
                b.s(&a.algorithm)
                    .u(i as u64)
                    .u(k as u64)
                    .s(node.map_or("", |n| role_word(n.role)))
                    .f(node.map_or(f64::NAN, |n| n.pos.x_m))
                    .f(node.map_or(f64::NAN, |n| n.pos.y_m))
                    .o(dodag.and_then(|d| d.parent(id)).map(|p| u64::from(p.0)))
                    .o(dodag.and_then(|d| d.hops(id)).map(u64::from))
                    .u(c.data_frames)
                    .u(c.acks_sent)
                    .u(c.tx_ok)
                    .u(c.tx_noack)
                    .u(c.tx_collision)
                    .u(c.cca_busy)
                    .u(c.rx_corrupted)
                    .u(c.rx_delivered)
                    .u(c.rx_duplicates)
                    .u(c.drop_no_neighbor_queue)
                    .u(c.drop_no_buffer)
                    .u(c.drop_queue_full)
                    .u(c.drop_retry_limit)
                    .u(c.copies_in_ok_trains)
                    .f(ratio(c.copies_in_ok_trains as f64, c.tx_ok as f64))
                    .u(c.burst_followers_ok)
                    .f(c.radio_on_ns as f64 / 1e9)
                    .f(c.duty_cycle(r.end_ns));
            }
        }
    }
    b.finish()
}

/// `nodes.csv`: per run and mote: role, position, parent and hop count in that run's DODAG,
/// every MAC counter (collisions, CCA busy, drops by cause, copies per ContikiMAC train) and
/// the radio duty cycle.
pub fn nodes_csv(cfgs: &[(String, MultihopConfig)], runs: &[MultihopRuns], seed: u64) -> String {
    csv_of(&nodes_columns(cfgs, runs, seed))
}

/// The files `coapcc sim` writes for multihop scenario `s` (its configurations `cfgs`, runs
/// `runs` and their `summary`), `(name, text)` in the order it writes them: `runs.csv`,
/// `flows.csv`, `nodes.csv`, `summary.csv`, `scenario.toml`.
pub fn result_files(
    s: &Scenario,
    cfgs: &[(String, MultihopConfig)],
    runs: &[MultihopRuns],
    summary: &Summary,
) -> Vec<(&'static str, String)> {
    vec![
        ("runs.csv", runs_csv(cfgs, runs, s.file.seed)),
        ("flows.csv", flows_csv(runs)),
        ("nodes.csv", nodes_csv(cfgs, runs, s.file.seed)),
        ("summary.csv", summary_csv(summary, s.file.replications)),
        ("scenario.toml", s.to_toml()),
    ]
}

/// The metrics shown in the printed table, by workload kind.
fn table_metrics(tcp: bool) -> &'static [&'static str] {
    if tcp {
        &["goodput_bps", "retransmitted_segments", "fairness", "connection_failures", "duty_cycle_mean"]
    } else {
        &[
            "throughput_per_s",
            "duration_mean_s",
            "retries_per_exchange",
            "goodput_per_s",
            "app_loss_ratio",
            "overhead",
            "duty_cycle_mean",
        ]
    }
}

/// The printed summary: one row per algorithm, `mean ± ci95` per main metric.
pub fn summary_table(summary: &Summary, tcp: bool) -> String {
    let cols = table_metrics(tcp);
    let mut rows: Vec<Vec<String>> =
        vec![std::iter::once("algorithm".to_string()).chain(cols.iter().map(|c| c.to_string())).collect()];
    for (a, stats) in summary {
        let mut row = vec![a.clone()];
        for c in cols {
            let cell = stats
                .iter()
                .find(|(n, _, _)| n == c)
                .map_or(String::from("-"), |(_, m, ci)| format!("{} ± {}", sig(*m), sig(*ci)));
            row.push(cell);
        }
        rows.push(row);
    }
    let widths: Vec<usize> =
        (0..rows[0].len()).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in &rows {
        let cells: Vec<String> =
            r.iter().zip(&widths).map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count()))).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// `x` with 3 significant digits.
fn sig(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// The motes whose traces the figures of Lim 2020 Figs. 2–3 show (spec multihop.md §4.4):
/// the lowest-numbered 1-hop mote, the lowest-numbered mote at half the largest hop count
/// (rounded up) and the lowest-numbered farthest mote, without repeats, as indices into
/// `t.nodes`.
pub fn trace_nodes(t: &TcpResult) -> Vec<usize> {
    let far = t.nodes.iter().map(|n| n.hops).max().unwrap_or(0);
    let mut out: Vec<usize> = Vec::new();
    for hops in [1, far.div_ceil(2), far] {
        if let Some(i) = t.nodes.iter().position(|n| n.hops == hops) {
            if !out.contains(&i) {
                out.push(i);
            }
        }
    }
    out
}

/// `rto_series.csv`: per algorithm, for replication `replication` and the motes of
/// [`trace_nodes`], every recorded trace point: `kind` `rtt` (a Karn-valid RTT sample) or
/// `rto` (a retransmission timer armed; `retransmissions` = copies sent before it, `syn` =
/// set-up phase), times and values in seconds.
pub fn rto_series_csv(runs: &[(String, MultihopResult)], replication: u32) -> String {
    let mut out = String::from("algorithm,replication,node,hops,time_s,kind,value_s,retransmissions,syn\n");
    for (a, r) in runs {
        let Some(t) = &r.tcp else { continue };
        for i in trace_nodes(t) {
            let n = &t.nodes[i];
            for p in &n.trace {
                let kind = match p.kind {
                    TracePointKind::Rtt => "rtt",
                    TracePointKind::Rto => "rto",
                };
                out.push_str(&format!(
                    "{},{replication},{},{},{},{kind},{},{},{}\n",
                    q(a),
                    n.node,
                    n.hops,
                    num(p.at_ns as f64 / 1e9),
                    num(p.value_ns as f64 / 1e9),
                    p.retransmissions,
                    p.syn
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn student_t_intervals_use_the_small_sample_quantile() {
        let (m, ci) = mean_ci(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]);
        assert!((m - 5.5).abs() < 1e-12);
        // sd = 3.0277, se = 0.9574, t(9) = 2.262.
        assert!((ci - 2.262 * 0.957_427).abs() < 1e-4, "{ci}");
        assert_eq!(mean_ci(&[4.0]), (4.0, 0.0));
    }

    #[test]
    fn traced_motes_are_a_one_hop_a_middle_and_the_farthest_and_their_points_become_csv_rows() {
        use super::super::metrics::TcpNodeResult;
        use super::super::tcp::TracePoint;
        let node = |node: u16, hops: u32| TcpNodeResult { node, hops, ..TcpNodeResult::default() };
        let mut t = TcpResult {
            nodes: vec![node(0, 4), node(1, 3), node(2, 2), node(3, 1), node(4, 1), node(5, 4)],
            ..TcpResult::default()
        };
        assert_eq!(trace_nodes(&t), vec![3, 2, 0]);
        t.nodes[0].trace = vec![
            TracePoint {
                at_ns: 1_500_000_000,
                kind: TracePointKind::Rto,
                value_ns: 3_000_000_000,
                retransmissions: 0,
                syn: true,
            },
            TracePoint {
                at_ns: 2_000_000_000,
                kind: TracePointKind::Rtt,
                value_ns: 250_000_000,
                retransmissions: 0,
                syn: false,
            },
        ];
        let r = MultihopResult { tcp: Some(t), ..MultihopResult::default() };
        let csv = rto_series_csv(&[("uip".to_string(), r)], 0);
        let rows: Vec<&str> = csv.lines().collect();
        assert_eq!(rows[0], "algorithm,replication,node,hops,time_s,kind,value_s,retransmissions,syn");
        assert_eq!(&rows[1..], ["uip,0,0,4,1.5,rto,3,0,true", "uip,0,0,4,2,rtt,0.25,0,false"]);
    }

    fn metric(m: &[(&'static str, f64)], name: &str) -> f64 {
        m.iter().find(|(n, _)| *n == name).map(|(_, v)| *v).unwrap_or_else(|| panic!("no column `{name}`"))
    }

    #[test]
    fn tcp_runs_report_short_rtts_truncated_samples_the_settled_rto_and_retransmissions_per_delivered_segment() {
        use super::super::LimTcp;
        use super::super::metrics::TcpNodeResult;
        let cfg = MultihopConfig { workload: Workload::LimTcp(LimTcp::default()), ..MultihopConfig::default() };
        let payload = u64::from(LimTcp::default().payload_bytes);
        let node = |samples: u64, below: u64, truncated: u64, settled: Option<u64>, delivered: u64| TcpNodeResult {
            rtt_samples: samples,
            rtt_samples_below_1s: below,
            rtt_samples_truncated: truncated,
            max_rto_after_10_samples_ns: settled,
            delivered_bytes: delivered * payload,
            ..TcpNodeResult::default()
        };
        let tcp = TcpResult {
            nodes: vec![node(12, 9, 9, Some(3_000_000_000), 20), node(4, 3, 2, None, 5), node(0, 0, 0, None, 0)],
            retransmitted_segments: 30,
            ..TcpResult::default()
        };
        let r = MultihopResult { tcp: Some(tcp), ..MultihopResult::default() };
        let m = run_metrics(&cfg, &r);
        assert_eq!(metric(&m, "rtt_below_1s_fraction"), 12.0 / 16.0);
        assert_eq!(metric(&m, "rtt_samples_truncated"), 11.0);
        assert_eq!(metric(&m, "max_rto_after_10_samples_s"), 3.0);
        assert_eq!(metric(&m, "delivered_segments"), 25.0);
        assert_eq!(metric(&m, "retransmissions_per_delivered_segment"), 30.0 / 25.0);
        // The new columns follow the old ones, which keep their order.
        let names: Vec<&str> = m.iter().map(|(n, _)| *n).collect();
        let at = names.iter().position(|n| *n == "min_rtt_samples_per_node").unwrap();
        assert_eq!(names[at + 1], "rtt_below_1s_fraction");
        // No sample, no node past 10 samples, nothing delivered: undefined (an empty cell).
        let none = TcpResult { nodes: vec![node(0, 0, 0, None, 0)], ..TcpResult::default() };
        let m = run_metrics(&cfg, &MultihopResult { tcp: Some(none), ..MultihopResult::default() });
        for c in ["rtt_below_1s_fraction", "max_rto_after_10_samples_s", "retransmissions_per_delivered_segment"] {
            assert!(metric(&m, c).is_nan(), "{c}");
        }
    }

    #[test]
    fn saturated_coap_runs_report_goodput_per_sender_and_the_senders_one_hop_from_the_receiver() {
        use super::super::CoapSaturated;
        use super::super::metrics::CoapFlowResult;
        let cfg =
            MultihopConfig { workload: Workload::CoapSaturated(CoapSaturated::default()), ..MultihopConfig::default() };
        let flow = |hops: Option<u32>, distinct: u64| CoapFlowResult {
            node: Some(2),
            route_hops: hops,
            distinct_received_in_window: distinct,
            ..CoapFlowResult::default()
        };
        // A 900 s run with the 100 s warm-up: an 800 s window.
        let r = MultihopResult {
            end_ns: 900_000_000_000,
            coap: vec![flow(Some(1), 400), flow(Some(2), 400), flow(Some(1), 800), flow(None, 0)],
            ..MultihopResult::default()
        };
        let m = run_metrics(&cfg, &r);
        assert_eq!(metric(&m, "goodput_per_s"), 2.0);
        assert_eq!(metric(&m, "senders"), 4.0);
        assert_eq!(metric(&m, "goodput_per_sender_per_s"), 0.5);
        assert_eq!(metric(&m, "senders_one_hop_fraction"), 0.5);
        // Other CoAP workloads (Betzler's) keep their columns as they were.
        let betzler =
            MultihopConfig { workload: Workload::CoapOneToOne(Default::default()), ..MultihopConfig::default() };
        let names: Vec<&str> = run_metrics(&betzler, &r).iter().map(|(n, _)| *n).collect();
        assert_eq!(names.last(), Some(&"overhead"));
    }

    #[test]
    fn three_significant_digits_are_printed() {
        assert_eq!(sig(1234.5), "1234");
        assert_eq!(sig(0.012345), "0.0123");
        assert_eq!(sig(1.5), "1.50");
    }
}
