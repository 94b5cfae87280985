//! One job's output ([`RunOutput`], or a multihop job's [`MultihopResult`]) as bytes and back, exactly (every `f64` by its bits): a
//! distributed sweep runs jobs in other processes and gathers their outputs here, where
//! [`crate::runner::assemble`] and [`crate::results`] turn them into the same files as a
//! local run.
//!
//! The format is private to one version of coapcc (a version tag starts it): little-endian
//! integers and `f64` bits, lengths before sequences.

use crate::metrics::{Distribution, FlowResult, RunMetrics, RunResult, SeriesPoint};
use crate::multihop::metrics::{CoapFlowResult, MacCounters, MultihopResult, TcpNodeResult, TcpResult};
use crate::multihop::tcp::{TracePoint, TracePointKind};
use crate::runner::RunOutput;
use crate::trace::TraceResult;

/// First bytes of every encoding: format version (bumped when a result type changes).
const TAG: &[u8; 8] = b"coapcc1\0";

/// Encodes one job's output.
pub fn encode(out: &RunOutput) -> Vec<u8> {
    let mut w = Writer(TAG.to_vec());
    match out {
        RunOutput::Network(run) => {
            w.u(0);
            w.u(run.flows.len() as u64);
            for f in &run.flows {
                w.u(u64::from(f.flow));
                w.f(f.fct_s);
                for n in [
                    f.exchanges_completed,
                    f.exchanges_failed,
                    f.transmissions,
                    f.retransmissions,
                    f.unnecessary_retransmissions,
                ] {
                    w.u(u64::from(n));
                }
                w.f(f.median_rtt_s);
                w.distribution(&f.rtts);
                w.distribution(&f.expired_rto);
            }
            let m = &run.run;
            w.f(m.duration_s);
            w.u(m.exchanges_completed);
            w.u(m.exchanges_failed);
            for x in [
                m.goodput_per_s,
                m.loss_ratio,
                m.overhead,
                m.utilisation_up,
                m.utilisation_down,
                m.queue_delay_up_s,
                m.queue_delay_down_s,
            ] {
                w.f(x);
            }
            for n in [
                m.max_queue_up_bytes,
                m.max_queue_down_bytes,
                m.packets_up,
                m.packets_down,
                m.drops_buffer,
                m.drops_error,
                m.drops_no_token,
            ] {
                w.u(n);
            }
            w.f(m.jain_fct);
            w.u(m.events);
            w.f(m.sim_time_s);
            w.u(m.flows_unfinished);
            w.u(run.series.len() as u64);
            for p in &run.series {
                for x in [p.t_s, p.resbw_per_s, p.send_rate_per_s, p.success_rate_per_s] {
                    w.f(x);
                }
            }
        }
        RunOutput::Trace(t) => {
            w.u(1);
            w.u(u64::from(t.samples));
            w.f(t.rmse_ms);
            w.u(t.spurious);
            w.f(t.mean_rtt_ms);
            w.f(t.mean_rto_ms);
            w.u(t.series.len() as u64);
            for &(a, b) in &t.series {
                w.f(a);
                w.f(b);
            }
        }
    }
    w.0
}

/// Decodes what [`encode`] wrote; an error (not a panic) on any other bytes.
pub fn decode(bytes: &[u8]) -> Result<RunOutput, String> {
    let rest = bytes.strip_prefix(TAG.as_slice()).ok_or("not a job output of this coapcc version")?;
    let mut r = Reader(rest);
    let out = match r.u()? {
        0 => {
            let n = r.len()?;
            let mut flows = Vec::with_capacity(n);
            for _ in 0..n {
                flows.push(FlowResult {
                    flow: r.u32()?,
                    fct_s: r.f()?,
                    exchanges_completed: r.u32()?,
                    exchanges_failed: r.u32()?,
                    transmissions: r.u32()?,
                    retransmissions: r.u32()?,
                    unnecessary_retransmissions: r.u32()?,
                    median_rtt_s: r.f()?,
                    rtts: r.distribution()?,
                    expired_rto: r.distribution()?,
                });
            }
            let run = RunMetrics {
                duration_s: r.f()?,
                exchanges_completed: r.u()?,
                exchanges_failed: r.u()?,
                goodput_per_s: r.f()?,
                loss_ratio: r.f()?,
                overhead: r.f()?,
                utilisation_up: r.f()?,
                utilisation_down: r.f()?,
                queue_delay_up_s: r.f()?,
                queue_delay_down_s: r.f()?,
                max_queue_up_bytes: r.u()?,
                max_queue_down_bytes: r.u()?,
                packets_up: r.u()?,
                packets_down: r.u()?,
                drops_buffer: r.u()?,
                drops_error: r.u()?,
                drops_no_token: r.u()?,
                jain_fct: r.f()?,
                events: r.u()?,
                sim_time_s: r.f()?,
                flows_unfinished: r.u()?,
            };
            let n = r.len()?;
            let mut series = Vec::with_capacity(n);
            for _ in 0..n {
                series.push(SeriesPoint {
                    t_s: r.f()?,
                    resbw_per_s: r.f()?,
                    send_rate_per_s: r.f()?,
                    success_rate_per_s: r.f()?,
                });
            }
            RunOutput::Network(Box::new(RunResult { flows, run, series }))
        }
        1 => {
            let samples = r.u32()?;
            let rmse_ms = r.f()?;
            let spurious = r.u()?;
            let mean_rtt_ms = r.f()?;
            let mean_rto_ms = r.f()?;
            let n = r.len()?;
            let mut series = Vec::with_capacity(n);
            for _ in 0..n {
                series.push((r.f()?, r.f()?));
            }
            RunOutput::Trace(TraceResult { samples, rmse_ms, spurious, mean_rtt_ms, mean_rto_ms, series })
        }
        k => return Err(format!("unknown job output kind {k}")),
    };
    if !r.0.is_empty() {
        return Err(format!("{} bytes after the job output", r.0.len()));
    }
    Ok(out)
}

/// Encodes one multihop job's result (kind 2 of the format). Every field of every result
/// type is destructured, so a field added to them does not compile until it is written here.
pub fn encode_multihop(result: &MultihopResult) -> Vec<u8> {
    let mut w = Writer(TAG.to_vec());
    w.u(2);
    let MultihopResult {
        end_ns,
        clients_done_ns,
        events,
        trace_digest,
        coap,
        tcp,
        mac,
        packets_delivered,
        packets_dropped,
    } = result;
    w.u(*end_ns);
    w.opt(*clients_done_ns);
    w.u(*events);
    w.u(*trace_digest);
    w.u(coap.len() as u64);
    for f in coap {
        let CoapFlowResult {
            node,
            peer,
            completed,
            failed,
            ended_in_window,
            completed_in_window,
            failed_in_window,
            transmissions_in_window,
            retransmissions,
            duration_sum_ns,
            first_send_ns,
            last_ack_ns,
            distinct_received_in_window,
            expired_timers_ns,
            series,
            route_hops,
        } = f;
        w.opt(node.map(u64::from));
        w.opt(peer.map(u64::from));
        w.opt(route_hops.map(u64::from));
        for n in [
            *completed,
            *failed,
            *ended_in_window,
            *completed_in_window,
            *failed_in_window,
            *transmissions_in_window,
            *retransmissions,
        ] {
            w.u(n);
        }
        w.u(*duration_sum_ns as u64);
        w.u((*duration_sum_ns >> 64) as u64);
        w.opt(*first_send_ns);
        w.opt(*last_ack_ns);
        w.u(*distinct_received_in_window);
        w.u(expired_timers_ns.len() as u64);
        expired_timers_ns.iter().for_each(|&t| w.u(t));
        w.u(series.len() as u64);
        for &(a, b, c) in series {
            w.u(a);
            w.u(b);
            w.u(c);
        }
    }
    match tcp {
        None => w.u(0),
        Some(t) => {
            w.u(1);
            let TcpResult { nodes, goodput_bps, offered_bps, retransmitted_segments, fairness, setup_failures, broken } =
                t;
            w.u(nodes.len() as u64);
            for n in nodes {
                let TcpNodeResult {
                    node,
                    hops,
                    reports,
                    delivered_bytes,
                    retransmitted_segments,
                    syn_retransmissions,
                    rtt_samples,
                    max_retransmissions_delivered,
                    setup_failed,
                    broken,
                    timers_ns,
                    trace,
                    rtt_samples_below_1s,
                    rtt_samples_truncated,
                    max_rto_after_10_samples_ns,
                    rtt_samples_above_3s,
                } = n;
                w.u(u64::from(*node));
                w.u(u64::from(*hops));
                for x in [
                    *reports,
                    *delivered_bytes,
                    *retransmitted_segments,
                    *syn_retransmissions,
                    *rtt_samples,
                    *rtt_samples_below_1s,
                    *rtt_samples_truncated,
                    *rtt_samples_above_3s,
                ] {
                    w.u(x);
                }
                w.opt(*max_rto_after_10_samples_ns);
                w.u(u64::from(*max_retransmissions_delivered));
                w.u(u64::from(*setup_failed));
                w.u(u64::from(*broken));
                w.u(timers_ns.len() as u64);
                timers_ns.iter().for_each(|&t| w.u(t));
                w.u(trace.len() as u64);
                for p in trace {
                    let TracePoint { at_ns, kind, value_ns, retransmissions, syn } = p;
                    w.u(*at_ns);
                    w.u(match kind {
                        TracePointKind::Rtt => 0,
                        TracePointKind::Rto => 1,
                    });
                    w.u(*value_ns);
                    w.u(u64::from(*retransmissions));
                    w.u(u64::from(*syn));
                }
            }
            w.f(*goodput_bps);
            w.f(*offered_bps);
            w.u(*retransmitted_segments);
            w.f(*fairness);
            w.u(*setup_failures);
            w.u(*broken);
        }
    }
    w.u(mac.len() as u64);
    for c in mac {
        let MacCounters {
            data_frames,
            acks_sent,
            tx_ok,
            tx_noack,
            tx_collision,
            cca_busy,
            rx_corrupted,
            rx_delivered,
            rx_duplicates,
            drop_no_neighbor_queue,
            drop_no_buffer,
            drop_queue_full,
            drop_retry_limit,
            copies_in_ok_trains,
            burst_followers_ok,
            radio_on_ns,
        } = c;
        for x in [
            data_frames,
            acks_sent,
            tx_ok,
            tx_noack,
            tx_collision,
            cca_busy,
            rx_corrupted,
            rx_delivered,
            rx_duplicates,
            drop_no_neighbor_queue,
            drop_no_buffer,
            drop_queue_full,
            drop_retry_limit,
            copies_in_ok_trains,
            burst_followers_ok,
            radio_on_ns,
        ] {
            w.u(*x);
        }
    }
    w.u(*packets_delivered);
    w.u(*packets_dropped);
    w.0
}

/// Decodes what [`encode_multihop`] wrote; an error (not a panic) on any other bytes.
pub fn decode_multihop(bytes: &[u8]) -> Result<MultihopResult, String> {
    let rest = bytes.strip_prefix(TAG.as_slice()).ok_or("not a job output of this coapcc version")?;
    let mut r = Reader(rest);
    match r.u()? {
        2 => {}
        k => return Err(format!("job output kind {k} is not a multihop result")),
    }
    let end_ns = r.u()?;
    let clients_done_ns = r.opt()?;
    let events = r.u()?;
    let trace_digest = r.u()?;
    let n = r.len()?;
    let mut coap = Vec::with_capacity(n);
    for _ in 0..n {
        let node = r.opt()?.map(u16::try_from).transpose().map_err(|e| e.to_string())?;
        let peer = r.opt()?.map(u16::try_from).transpose().map_err(|e| e.to_string())?;
        let route_hops = r.opt()?.map(u32::try_from).transpose().map_err(|e| e.to_string())?;
        let completed = r.u()?;
        let failed = r.u()?;
        let ended_in_window = r.u()?;
        let completed_in_window = r.u()?;
        let failed_in_window = r.u()?;
        let transmissions_in_window = r.u()?;
        let retransmissions = r.u()?;
        let duration_sum_ns = u128::from(r.u()?) | (u128::from(r.u()?) << 64);
        let first_send_ns = r.opt()?;
        let last_ack_ns = r.opt()?;
        let distinct_received_in_window = r.u()?;
        let k = r.len()?;
        let expired_timers_ns = (0..k).map(|_| r.u()).collect::<Result<Vec<_>, _>>()?;
        let k = r.len()?;
        let series = (0..k).map(|_| Ok((r.u()?, r.u()?, r.u()?))).collect::<Result<Vec<_>, String>>()?;
        coap.push(CoapFlowResult {
            node,
            peer,
            completed,
            failed,
            ended_in_window,
            completed_in_window,
            failed_in_window,
            transmissions_in_window,
            retransmissions,
            duration_sum_ns,
            first_send_ns,
            last_ack_ns,
            distinct_received_in_window,
            expired_timers_ns,
            series,
            route_hops,
        });
    }
    let tcp = match r.u()? {
        0 => None,
        _ => {
            let n = r.len()?;
            let mut nodes = Vec::with_capacity(n);
            for _ in 0..n {
                let node = u16::try_from(r.u()?).map_err(|e| e.to_string())?;
                let hops = r.u32()?;
                let reports = r.u()?;
                let delivered_bytes = r.u()?;
                let retransmitted_segments = r.u()?;
                let syn_retransmissions = r.u()?;
                let rtt_samples = r.u()?;
                let rtt_samples_below_1s = r.u()?;
                let rtt_samples_truncated = r.u()?;
                let rtt_samples_above_3s = r.u()?;
                let max_rto_after_10_samples_ns = r.opt()?;
                let max_retransmissions_delivered = u8::try_from(r.u()?).map_err(|e| e.to_string())?;
                let setup_failed = r.u()? != 0;
                let broken = r.u()? != 0;
                let k = r.len()?;
                let timers_ns = (0..k).map(|_| r.u()).collect::<Result<Vec<_>, _>>()?;
                let k = r.len()?;
                let mut trace = Vec::with_capacity(k);
                for _ in 0..k {
                    let at_ns = r.u()?;
                    let kind = if r.u()? == 0 { TracePointKind::Rtt } else { TracePointKind::Rto };
                    let value_ns = r.u()?;
                    let retransmissions = u8::try_from(r.u()?).map_err(|e| e.to_string())?;
                    let syn = r.u()? != 0;
                    trace.push(TracePoint { at_ns, kind, value_ns, retransmissions, syn });
                }
                nodes.push(TcpNodeResult {
                    node,
                    hops,
                    reports,
                    delivered_bytes,
                    retransmitted_segments,
                    syn_retransmissions,
                    rtt_samples,
                    max_retransmissions_delivered,
                    setup_failed,
                    broken,
                    timers_ns,
                    trace,
                    rtt_samples_below_1s,
                    rtt_samples_truncated,
                    max_rto_after_10_samples_ns,
                    rtt_samples_above_3s,
                });
            }
            Some(TcpResult {
                nodes,
                goodput_bps: r.f()?,
                offered_bps: r.f()?,
                retransmitted_segments: r.u()?,
                fairness: r.f()?,
                setup_failures: r.u()?,
                broken: r.u()?,
            })
        }
    };
    let n = r.len()?;
    let mut mac = Vec::with_capacity(n);
    for _ in 0..n {
        mac.push(MacCounters {
            data_frames: r.u()?,
            acks_sent: r.u()?,
            tx_ok: r.u()?,
            tx_noack: r.u()?,
            tx_collision: r.u()?,
            cca_busy: r.u()?,
            rx_corrupted: r.u()?,
            rx_delivered: r.u()?,
            rx_duplicates: r.u()?,
            drop_no_neighbor_queue: r.u()?,
            drop_no_buffer: r.u()?,
            drop_queue_full: r.u()?,
            drop_retry_limit: r.u()?,
            copies_in_ok_trains: r.u()?,
            burst_followers_ok: r.u()?,
            radio_on_ns: r.u()?,
        });
    }
    let out = MultihopResult {
        end_ns,
        clients_done_ns,
        events,
        trace_digest,
        coap,
        tcp,
        mac,
        packets_delivered: r.u()?,
        packets_dropped: r.u()?,
    };
    if !r.0.is_empty() {
        return Err(format!("{} bytes after the job output", r.0.len()));
    }
    Ok(out)
}

struct Writer(Vec<u8>);

impl Writer {
    fn u(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    fn f(&mut self, x: f64) {
        self.u(x.to_bits());
    }

    fn opt(&mut self, x: Option<u64>) {
        match x {
            None => self.u(0),
            Some(x) => {
                self.u(1);
                self.u(x);
            }
        }
    }

    fn distribution(&mut self, d: &Distribution) {
        let (exact, bins, count) = d.to_parts();
        self.u(count);
        self.u(exact.len() as u64);
        exact.iter().for_each(|&x| self.f(x));
        match bins {
            None => self.u(0),
            Some(bins) => {
                self.u(1);
                self.u(bins.len() as u64);
                for (k, n, sum) in bins {
                    self.u(k);
                    self.u(n);
                    self.f(sum);
                }
            }
        }
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn u(&mut self) -> Result<u64, String> {
        let (head, rest) = self.0.split_first_chunk::<8>().ok_or("job output cut short")?;
        self.0 = rest;
        Ok(u64::from_le_bytes(*head))
    }

    fn u32(&mut self) -> Result<u32, String> {
        u32::try_from(self.u()?).map_err(|e| e.to_string())
    }

    fn f(&mut self) -> Result<f64, String> {
        self.u().map(f64::from_bits)
    }

    /// A sequence length, checked against the bytes left (8 per element at least).
    fn len(&mut self) -> Result<usize, String> {
        let n = self.u()?;
        match usize::try_from(n) {
            Ok(n) if n <= self.0.len() / 8 => Ok(n),
            _ => Err(format!("job output claims {n} elements, more than it holds")),
        }
    }

    fn opt(&mut self) -> Result<Option<u64>, String> {
        match self.u()? {
            0 => Ok(None),
            _ => self.u().map(Some),
        }
    }

    fn distribution(&mut self) -> Result<Distribution, String> {
        let count = self.u()?;
        let n = self.len()?;
        let exact = (0..n).map(|_| self.f()).collect::<Result<Vec<_>, _>>()?;
        let bins = match self.u()? {
            0 => None,
            _ => {
                let n = self.len()?;
                Some((0..n).map(|_| Ok((self.u()?, self.u()?, self.f()?))).collect::<Result<Vec<_>, String>>()?)
            }
        };
        Ok(Distribution::from_parts(exact, bins, count))
    }
}
