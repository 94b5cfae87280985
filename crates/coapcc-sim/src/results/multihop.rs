//! What multihop runs report (spec multihop.md §2.5, §3.4, §4.4): the typed run metrics
//! ([`MultihopMetric`], one row of `runs.csv` per run), per-flow / per-node application
//! results (`flows.csv`), per-node link-layer counters with position, role, hop count and duty
//! cycle (`nodes.csv`), their summary over replications, and the per-node TCP traces
//! (`rto_series.csv`). Every file is long-format CSV with a header row, loadable with
//! `pandas.read_csv`.

use super::columns::{Builder, Column, Columns, full, quoted};
use super::metric::MultihopMetric;
use super::summary::{MetricSummary, MultihopSummary, mean_ci};
use coapcc_driver::scenario::multihop::Role;

use crate::multihop::{MultihopConfig, MultihopSim, MultihopWorkload, NodeId};
use crate::multihop::{MultihopResult, TcpResult, TracePointKind, run_seed};
use crate::runner::{AlgorithmRuns, RunOutput};
use coapcc_driver::scenario::{Model, Scenario};

/// The metrics of one run, in a fixed order for a given workload kind. Units in the names.
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
pub fn run_metrics(cfg: &MultihopConfig, r: &MultihopResult) -> Vec<(MultihopMetric, f64)> {
    use MultihopMetric as M;
    let mut m: Vec<(MultihopMetric, f64)> = Vec::new();
    let sim_s = r.end_ns as f64 / 1e9;
    m.push((M::Events, r.events as f64));
    m.push((M::SimulatedS, sim_s));
    m.push((M::PacketsDelivered, r.packets_delivered as f64));
    m.push((M::PacketsDropped, r.packets_dropped as f64));
    let t = r.mac_total();
    m.push((M::MacDataFrames, t.data_frames as f64));
    m.push((M::MacNoack, t.tx_noack as f64));
    m.push((M::MacCollision, t.tx_collision as f64));
    m.push((M::MacCcaBusy, t.cca_busy as f64));
    m.push((M::MacRxCorrupted, t.rx_corrupted as f64));
    m.push((
        M::MacDrops,
        (t.drop_no_neighbor_queue + t.drop_no_buffer + t.drop_queue_full + t.drop_retry_limit) as f64,
    ));
    m.push((M::CopiesPerOkTrain, ratio(t.copies_in_ok_trains as f64, t.tx_ok as f64)));
    let root = cfg.topology.build().ok().and_then(|t| t.border_router()).map(NodeId::index);
    let duty: Vec<f64> =
        r.mac.iter().enumerate().filter(|(i, _)| Some(*i) != root).map(|(_, c)| c.duty_cycle(r.end_ns)).collect();
    m.push((M::DutyCycleMean, ratio(duty.iter().sum(), duty.len() as f64)));
    if let Some(tcp) = &r.tcp {
        m.push((M::GoodputBps, tcp.goodput_bps));
        m.push((M::OfferedBps, tcp.offered_bps));
        m.push((M::RetransmittedSegments, tcp.retransmitted_segments as f64));
        m.push((M::Fairness, tcp.fairness));
        m.push((M::SetupFailures, tcp.setup_failures as f64));
        m.push((M::Broken, tcp.broken as f64));
        m.push((M::ConnectionFailures, (tcp.setup_failures + tcp.broken) as f64));
        m.push((M::RttSamples, tcp.nodes.iter().map(|n| n.rtt_samples).sum::<u64>() as f64));
        m.push((
            M::MaxRetransmissionsDelivered,
            f64::from(tcp.nodes.iter().map(|n| n.max_retransmissions_delivered).max().unwrap_or(0)),
        ));
        m.push((M::MinRttSamplesPerNode, tcp.nodes.iter().map(|n| n.rtt_samples).min().unwrap_or(0) as f64));
        // Spec multihop.md §4.5 L3, L5, L13 (undefined values are NaN: an empty cell).
        let samples: u64 = tcp.nodes.iter().map(|n| n.rtt_samples).sum();
        let below: u64 = tcp.nodes.iter().map(|n| n.rtt_samples_below_1s).sum();
        m.push((M::RttBelow1sFraction, fraction(below as f64, samples as f64)));
        m.push((M::RttSamplesTruncated, tcp.nodes.iter().map(|n| n.rtt_samples_truncated).sum::<u64>() as f64));
        // L8: samples longer than 3 s; L2: the mean first timer armed (each mote's first SYN).
        m.push((M::RttSamplesAbove3s, tcp.nodes.iter().map(|n| n.rtt_samples_above_3s).sum::<u64>() as f64));
        let firsts: Vec<f64> =
            tcp.nodes.iter().filter_map(|n| n.timers_ns.first()).map(|&ns| ns as f64 / 1e9).collect();
        m.push((M::FirstTimerS, fraction(firsts.iter().sum(), firsts.len() as f64)));
        let settled = tcp.nodes.iter().filter_map(|n| n.max_rto_after_10_samples_ns).max();
        m.push((M::MaxRtoAfter10SamplesS, settled.map_or(f64::NAN, |ns| ns as f64 / 1e9)));
        let payload = match &cfg.workload {
            MultihopWorkload::LimTcp(w) => u64::from(w.payload_bytes),
            _ => 0,
        };
        let delivered: u64 = tcp.nodes.iter().map(|n| n.delivered_bytes.checked_div(payload).unwrap_or(0)).sum();
        m.push((M::DeliveredSegments, delivered as f64));
        m.push((M::RetransmissionsPerDeliveredSegment, fraction(tcp.retransmitted_segments as f64, delivered as f64)));
        return m;
    }
    let completed: u64 = r.coap.iter().map(|f| f.completed).sum();
    let failed: u64 = r.coap.iter().map(|f| f.failed).sum();
    let retrans: u64 = r.coap.iter().map(|f| f.retransmissions).sum();
    let dur_ns: u128 = r.coap.iter().map(|f| f.duration_sum_ns).sum();
    let duration = ratio(dur_ns as f64 / 1e9, completed as f64);
    let throughput = if matches!(cfg.workload, MultihopWorkload::CoapOneToOne(_)) {
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
    m.push((M::ExchangesCompleted, completed as f64));
    m.push((M::ExchangesFailed, failed as f64));
    m.push((M::RetriesPerExchange, ratio(retrans as f64, (completed + failed) as f64)));
    m.push((M::DurationMeanS, duration));
    m.push((M::ThroughputPerS, throughput));
    m.push((M::InverseDurationPerS, ratio(1.0, duration)));
    m.push((M::InFlightMean, throughput * duration));
    let window_s = match &cfg.workload {
        MultihopWorkload::CoapSaturated(w) => (sim_s - w.window_start.as_secs_f64()).max(0.0),
        _ => sim_s,
    };
    let distinct: u64 = r.coap.iter().map(|f| f.distinct_received_in_window).sum();
    let ended: u64 = r.coap.iter().map(|f| f.ended_in_window).sum();
    let failed_w: u64 = r.coap.iter().map(|f| f.failed_in_window).sum();
    let tx_w: u64 = r.coap.iter().map(|f| f.transmissions_in_window).sum();
    let done_w: u64 = r.coap.iter().map(|f| f.completed_in_window).sum();
    m.push((M::GoodputPerS, ratio(distinct as f64, window_s)));
    m.push((M::AppLossRatio, ratio(failed_w as f64, ended as f64)));
    m.push((M::Overhead, ratio(tx_w as f64 - done_w as f64, done_w as f64)));
    if matches!(cfg.workload, MultihopWorkload::CoapSaturated(_)) {
        // Spec multihop.md §3.5 M6, M7 (Makarem's senders; undefined values are NaN).
        let senders = r.coap.len() as f64;
        let one_hop = r.coap.iter().filter(|f| f.route_hops == Some(1)).count() as f64;
        m.push((M::Senders, senders));
        m.push((M::GoodputPerSenderPerS, fraction(distinct as f64 / window_s, senders)));
        m.push((M::SendersOneHopFraction, fraction(one_hop, senders)));
    }
    m
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

/// `a / b`, NaN (an empty cell, "not evaluated" in a claim) when `b` is 0: for the multihop
/// metrics, whose 0/0 must not read as a measured 0.
fn fraction(a: f64, b: f64) -> f64 {
    if b > 0.0 && a.is_finite() { a / b } else { f64::NAN }
}

/// A count metric's value as an integer when it is one that prints as the same text (finite,
/// whole, not negative, exact in `f64`).
fn whole(x: f64) -> Option<u64> {
    (x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 9_007_199_254_740_992.0).then_some(x as u64)
}

/// The configuration of each algorithm of multihop scenario `s`, in its order (none for a
/// scenario of another model).
fn configs(s: &Scenario) -> impl Iterator<Item = &MultihopConfig> {
    let configs = match &s.model {
        Model::Multihop(m) => m.configs.as_slice(),
        _ => &[],
    };
    configs.iter().map(|(_, c)| c)
}

/// The multihop results of an algorithm's runs, replication 0 first.
fn results(a: &AlgorithmRuns) -> impl Iterator<Item = &MultihopResult> {
    a.runs.iter().filter_map(|r| match r {
        RunOutput::Multihop(m) => Some(m.as_ref()),
        _ => None,
    })
}

/// The summary of one algorithm's runs `results` (configuration `cfg`): every run metric's
/// mean and 95 % confidence interval, in `runs.csv` order.
pub(super) fn summarise(cfg: &MultihopConfig, results: &[&MultihopResult]) -> MultihopSummary {
    let rows: Vec<Vec<(MultihopMetric, f64)>> = results.iter().map(|r| run_metrics(cfg, r)).collect();
    let names: Vec<MultihopMetric> = rows.first().map(|r| r.iter().map(|(n, _)| *n).collect()).unwrap_or_default();
    let metrics = names
        .iter()
        .enumerate()
        .map(|(i, &metric)| {
            let xs: Vec<f64> = rows.iter().map(|r| r[i].1).collect();
            let (mean, ci95) = mean_ci(&xs);
            MetricSummary { metric, mean, ci95 }
        })
        .collect();
    MultihopSummary { tcp: results.iter().any(|r| r.tcp.is_some()), metrics }
}

/// The summaries of multihop scenario `s`'s runs `all`, per algorithm in scenario order: the
/// runs and their summary.
pub(super) fn summaries<'a>(
    s: &'a Scenario,
    all: &'a [AlgorithmRuns],
) -> impl Iterator<Item = (&'a AlgorithmRuns, MultihopSummary)> {
    all.iter().zip(configs(s)).map(|(a, cfg)| (a, summarise(cfg, &results(a).collect::<Vec<_>>())))
}

/// The columns of `runs.csv`: `algorithm`, `replication`, `seed`, then every metric of
/// [`run_metrics`] in its order (counts as integers). No runs: no columns.
pub(super) fn runs_columns(s: &Scenario, all: &[AlgorithmRuns]) -> Columns {
    let mut names: Vec<MultihopMetric> = Vec::new();
    let (mut algorithm, mut replication, mut seeds) = (Vec::new(), Vec::new(), Vec::new());
    let mut values: Vec<Vec<f64>> = Vec::new();
    for (a, cfg) in all.iter().zip(configs(s)) {
        for (i, r) in results(a).enumerate() {
            let m = run_metrics(cfg, r);
            if algorithm.is_empty() {
                names = m.iter().map(|(n, _)| *n).collect();
                values = vec![Vec::new(); names.len()];
            }
            algorithm.push(a.algorithm.clone());
            replication.push(i as u64);
            seeds.push(run_seed(s.file.seed, i as u32));
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
        let counts: Option<Vec<u64>> = if name.is_count() { xs.iter().map(|&x| whole(x)).collect() } else { None };
        let column = counts.map_or(Column::F64(xs), Column::U64);
        columns.push((name.name().to_string(), column));
    }
    Columns { columns }
}

/// The columns of `flows.csv`: CoAP per flow (`client_node` / `server_node` are node ids or
/// `host`; `first_send_s` / `last_ack_s` NaN when there was none) or TCP per mote.
pub(super) fn flows_columns(all: &[AlgorithmRuns]) -> Columns {
    let tcp = all.iter().flat_map(results).any(|r| r.tcp.is_some());
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
    for a in all {
        for (i, r) in results(a).enumerate() {
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
pub(super) fn nodes_columns(s: &Scenario, all: &[AlgorithmRuns]) -> Columns {
    let mut b = Builder::new(
        "algorithm,replication,node,role,x_m,y_m,parent,hops,data_frames,acks_sent,tx_ok,tx_noack,tx_collision,\
cca_busy,rx_corrupted,rx_delivered,rx_duplicates,drop_no_neighbor_queue,drop_no_buffer,drop_queue_full,\
drop_retry_limit,copies_in_ok_trains,copies_per_ok_train,burst_followers_ok,radio_on_s,duty_cycle",
        "suusffoouuuuuuuuuuuuuufuff",
    );
    for (a, cfg) in all.iter().zip(configs(s)) {
        let Ok(topo) = cfg.topology.build() else { continue };
        for (i, r) in results(a).enumerate() {
            let sim = MultihopSim::new(cfg.clone(), run_seed(s.file.seed, i as u32)).ok();
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
                    quoted(a),
                    n.node,
                    n.hops,
                    full(p.at_ns as f64 / 1e9),
                    full(p.value_ns as f64 / 1e9),
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
    fn traced_motes_are_a_one_hop_a_middle_and_the_farthest_and_their_points_become_csv_rows() {
        use crate::multihop::TcpNodeResult;
        use crate::multihop::TracePoint;
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

    fn metric(m: &[(MultihopMetric, f64)], name: &str) -> f64 {
        let of: MultihopMetric = name.parse().unwrap();
        m.iter().find(|(n, _)| *n == of).map(|(_, v)| *v).unwrap_or_else(|| panic!("no column `{name}`"))
    }

    #[test]
    fn every_metric_reads_back_from_its_name_and_no_name_is_used_twice() {
        for &m in MultihopMetric::ALL {
            assert_eq!(m.name().parse::<MultihopMetric>(), Ok(m));
        }
        let mut names: Vec<&str> = MultihopMetric::ALL.iter().map(|m| m.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), MultihopMetric::ALL.len());
        assert_eq!("goodput".parse::<MultihopMetric>(), Err(super::super::metric::UnknownMetric("goodput".into())));
        assert!(MultihopMetric::Events.is_count() && !MultihopMetric::GoodputBps.is_count());
    }

    #[test]
    fn tcp_runs_report_short_rtts_truncated_samples_the_settled_rto_and_retransmissions_per_delivered_segment() {
        use crate::multihop::TcpNodeResult;
        use coapcc_driver::scenario::multihop::LimTcp;
        let cfg = MultihopConfig { workload: MultihopWorkload::LimTcp(LimTcp::default()), ..MultihopConfig::default() };
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
        let names: Vec<&str> = m.iter().map(|(n, _)| n.name()).collect();
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
        use crate::multihop::CoapFlowResult;
        use coapcc_driver::scenario::multihop::CoapSaturated;
        let cfg = MultihopConfig {
            workload: MultihopWorkload::CoapSaturated(CoapSaturated::default()),
            ..MultihopConfig::default()
        };
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
        let betzler = MultihopConfig {
            workload: MultihopWorkload::CoapOneToOne(Default::default()),
            ..MultihopConfig::default()
        };
        let names: Vec<MultihopMetric> = run_metrics(&betzler, &r).iter().map(|(n, _)| *n).collect();
        assert_eq!(names.last(), Some(&MultihopMetric::Overhead));
    }
}
