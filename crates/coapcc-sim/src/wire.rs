//! One job's output ([`RunOutput`]) as bytes and back, exactly (every `f64` by its bits): a
//! distributed sweep runs jobs in other processes and gathers their outputs here, where
//! [`crate::runner::assemble`] and [`crate::results`] turn them into the same files as a
//! local run.
//!
//! The format is private to one version of coapcc (a version tag starts it): little-endian
//! integers and `f64` bits, lengths before sequences.

use crate::metrics::{Distribution, FlowResult, RunMetrics, RunResult, SeriesPoint};
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

struct Writer(Vec<u8>);

impl Writer {
    fn u(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    fn f(&mut self, x: f64) {
        self.u(x.to_bits());
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
