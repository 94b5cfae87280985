//! [`Recorder`]: per-flow and per-run numbers a driver can observe from its endpoints and its
//! links — flow completion times, exchanges, transmissions and retransmissions, RTT samples,
//! expired RTOs, request copies lost at the link, and the long-lived time series — turned into
//! a [`RunResult`] at the end ([`Recorder::finish`]).
//!
//! It is fed endpoint events and transmit records only; what needs ground truth a real network
//! cannot give (which retransmissions were unnecessary) is handed in by the simulator at the
//! end.

use coapcc_core::{Duration, Instant};

use crate::link::{DropReason, LinkSummary, Pipeline};
use crate::metrics::{Distribution, FlowResult, RunMetrics, RunResult, SeriesPoint, jain};
use crate::workload::Workload;

/// What was seen of one flow.
#[derive(Clone, Debug, Default)]
pub struct FlowRecord {
    /// Request copies sent (originals and retransmissions).
    pub transmissions: u32,
    /// Retransmissions (copies after the first).
    pub retransmissions: u32,
    /// RTT samples of completed exchanges, seconds.
    pub rtts: Distribution,
    /// Values of the retransmission timers that expired, seconds.
    pub expired_rto: Distribution,
}

/// Length of one long-lived time-series window (`series.csv`).
pub const SERIES_WINDOW: Duration = Duration::from_secs(5);

/// Per window of a long-lived run: request copies sent, exchanges completed, the latest ResBW.
#[derive(Clone, Copy, Debug)]
struct Window {
    sends: u32,
    successes: u32,
    rate_pps: f64,
}

/// How a run ended, for [`Recorder::finish`].
#[derive(Clone, Copy, Debug)]
pub struct RunEnd {
    /// The instant of the last event handled.
    pub now: Instant,
    /// The cut-off ([`Workload::end`]).
    pub end: Option<Instant>,
    /// Events the driver handled.
    pub events: u64,
}

/// Per-flow and per-run records of one run.
#[derive(Clone, Debug)]
pub struct Recorder {
    flows: Vec<FlowRecord>,
    /// Long-lived runs keep the time series.
    series: bool,
    windows: Vec<Window>,
    request_copies_delivered: u64,
    request_copies_lost: u64,
}

impl Recorder {
    /// Records for `flows` flows; `series` keeps the per-window time series (long-lived runs).
    pub fn new(flows: u32, series: bool) -> Self {
        Recorder {
            flows: vec![FlowRecord::default(); flows as usize],
            series,
            windows: Vec::new(),
            request_copies_delivered: 0,
            request_copies_lost: 0,
        }
    }

    /// Records for one more flow, `flow` (flows are numbered in the order they are added).
    pub fn add_flow(&mut self, flow: u32) {
        let n = (flow as usize + 1).max(self.flows.len());
        self.flows.resize(n, FlowRecord::default());
    }

    #[inline]
    fn window_mut(&mut self, now: Instant) -> &mut Window {
        let w = (now.as_nanos() / SERIES_WINDOW.as_nanos().max(1) as u64) as usize;
        if self.windows.len() <= w {
            self.windows.resize(w + 1, Window { sends: 0, successes: 0, rate_pps: f64::NAN });
        }
        &mut self.windows[w]
    }

    /// Flow `f` sent copy `copy` (0 is the original) of a request at `now`.
    #[inline]
    pub fn transmitted(&mut self, f: u32, copy: u8, now: Instant) {
        if let Some(fl) = self.flows.get_mut(f as usize) {
            fl.transmissions += 1;
            if copy > 0 {
                fl.retransmissions += 1;
            }
        }
        if self.series {
            self.window_mut(now).sends += 1;
        }
    }

    /// A request copy was offered to the link: it entered (`accepted`) or was dropped at once.
    #[inline]
    pub fn offered(&mut self, accepted: bool) {
        if accepted {
            self.request_copies_delivered += 1;
        } else {
            self.request_copies_lost += 1;
        }
    }

    /// The uplink's residual bandwidth at `now`, packets per second (long-lived series).
    #[inline]
    pub fn link_rate(&mut self, now: Instant, rate_pps: f64) {
        if self.series {
            self.window_mut(now).rate_pps = rate_pps;
        }
    }

    /// An exchange of flow `f` completed at `now` after `rtt`.
    #[inline]
    pub fn completed(&mut self, f: u32, rtt: Duration, now: Instant) {
        if let Some(fl) = self.flows.get_mut(f as usize) {
            fl.rtts.push(rtt.as_secs_f64());
        }
        if self.series {
            self.window_mut(now).successes += 1;
        }
    }

    /// A retransmission timer of flow `f` set to `timer` expired.
    #[inline]
    pub fn timer_expired(&mut self, f: u32, timer: Duration) {
        if let Some(fl) = self.flows.get_mut(f as usize) {
            fl.expired_rto.push(timer.as_secs_f64());
        }
    }

    /// Flow `f`'s records.
    pub fn flow(&self, f: u32) -> Option<&FlowRecord> {
        self.flows.get(f as usize)
    }

    /// The run's results: flows in order, run metrics, time series. `unnecessary(f)` is flow
    /// `f`'s count of unnecessary retransmissions (ground truth, when the driver has it);
    /// `links` are the (uplink, downlink) pipelines when the driver runs them (a driver on a
    /// real network without emulated links passes `None`: link figures are then NaN or 0).
    pub fn finish(
        self,
        workload: &Workload,
        unnecessary: impl Fn(u32) -> u32,
        links: Option<(&Pipeline, &Pipeline)>,
        end: RunEnd,
    ) -> RunResult {
        let long_lived = workload.long_lived();
        let progress = workload.flows();
        let first_start = progress.iter().filter_map(|f| f.started).min().unwrap_or(Instant::ZERO);
        let duration = match (long_lived, end.end) {
            (true, Some(e)) => e - Instant::ZERO,
            _ => progress.iter().filter_map(|f| f.ended).max().unwrap_or(end.now) - first_start,
        };
        let mut flows = Vec::with_capacity(self.flows.len());
        let (mut completed, mut failed) = (0u64, 0u64);
        let mut fcts = Vec::new();
        let mut unfinished = 0u64;
        for (i, (mut r, p)) in self.flows.into_iter().zip(progress).enumerate() {
            r.rtts.shrink_to_fit();
            r.expired_rto.shrink_to_fit();
            let fct_s = match (p.started, p.ended) {
                (Some(s), Some(e)) => (e - s).as_secs_f64(),
                _ => f64::NAN,
            };
            if fct_s.is_finite() {
                fcts.push(fct_s);
            } else if !long_lived {
                unfinished += 1;
            }
            completed += u64::from(p.completed);
            failed += u64::from(p.failed);
            flows.push(FlowResult {
                flow: i as u32,
                fct_s,
                exchanges_completed: p.completed,
                exchanges_failed: p.failed,
                transmissions: r.transmissions,
                retransmissions: r.retransmissions,
                unnecessary_retransmissions: unnecessary(i as u32),
                median_rtt_s: r.rtts.quantile(0.5),
                rtts: r.rtts,
                expired_rto: r.expired_rto,
            });
        }
        let secs = duration.as_secs_f64();
        let end_instant = if long_lived { end.end.unwrap_or(end.now) } else { end.now };
        let none = LinkSummary { utilisation: f64::NAN, mean_queueing_delay_s: f64::NAN, max_queue_bytes: 0 };
        let (lu, ld) = links.map_or((none, none), |(u, d)| (u.link_summary(end_instant), d.link_summary(end_instant)));
        let (ut, dt) = links.map_or_else(Default::default, |(u, d)| (u.totals(), d.totals()));
        let drops = |r: DropReason| ut.dropped.get(r).packets + dt.dropped.get(r).packets;
        let run = RunMetrics {
            duration_s: secs,
            exchanges_completed: completed,
            exchanges_failed: failed,
            goodput_per_s: if secs > 0.0 { completed as f64 / secs } else { f64::NAN },
            loss_ratio: if completed + failed > 0 { failed as f64 / (completed + failed) as f64 } else { f64::NAN },
            overhead: if self.request_copies_delivered > 0 {
                self.request_copies_lost as f64 / self.request_copies_delivered as f64
            } else {
                f64::NAN
            },
            utilisation_up: lu.utilisation,
            utilisation_down: ld.utilisation,
            queue_delay_up_s: lu.mean_queueing_delay_s,
            queue_delay_down_s: ld.mean_queueing_delay_s,
            max_queue_up_bytes: lu.max_queue_bytes,
            max_queue_down_bytes: ld.max_queue_bytes,
            packets_up: ut.offered.packets,
            packets_down: dt.offered.packets,
            drops_buffer: drops(DropReason::Buffer),
            drops_error: drops(DropReason::Error),
            drops_no_token: drops(DropReason::NoToken),
            jain_fct: jain(&fcts),
            events: end.events,
            sim_time_s: end.now.since_epoch().as_secs_f64(),
            flows_unfinished: unfinished,
        };
        let w = SERIES_WINDOW.as_secs_f64();
        let series = self
            .windows
            .iter()
            .enumerate()
            .map(|(i, win)| SeriesPoint {
                t_s: i as f64 * w,
                resbw_per_s: win.rate_pps,
                send_rate_per_s: f64::from(win.sends) / w,
                success_rate_per_s: f64::from(win.successes) / w,
            })
            .collect();
        RunResult { flows, run, series }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::link::PipelineConfig;
    use crate::rng::{Stream, stream_rng};
    use crate::scenario::{Count, FlowType, WorkloadConfig};
    use crate::workload::Next;

    fn workload(flows: u32, flow_type: FlowType) -> Workload {
        let c = WorkloadConfig {
            flows,
            flow_type,
            exchanges_per_flow: 2,
            start_window: Duration::ZERO,
            random_min: 1,
            random_max: 1,
            duration: Some(Duration::from_secs(10)),
            nstart: 1,
            count: Count::Successes,
            time_limit: Duration::from_secs(100),
        };
        Workload::new(c, stream_rng(1, 0, Stream::Workload(0).id()))
    }

    fn empty_link() -> Pipeline {
        Pipeline::new(&PipelineConfig::default(), 1, 0, 0).unwrap_or_else(|e| panic!("{e}"))
    }

    fn at(ms: u64) -> Instant {
        Instant::ZERO + Duration::from_millis(ms)
    }

    #[test]
    fn the_recorder_counts_copies_rtts_and_flow_completion_times_exactly() {
        let mut w = workload(2, FlowType::Continuous);
        let mut r = Recorder::new(2, false);
        w.start(0, at(0));
        w.start(1, at(500));
        // Flow 0: two exchanges, the first needing a retransmission after a 2-s timer.
        assert_eq!(w.next(0), Next::Request { exchange: 0 });
        r.transmitted(0, 0, at(0));
        r.timer_expired(0, Duration::from_secs(2));
        r.transmitted(0, 1, at(2000));
        r.completed(0, Duration::from_millis(1500), at(3500));
        w.completed(0, at(3500));
        assert_eq!(w.next(0), Next::Request { exchange: 1 });
        r.transmitted(0, 0, at(3500));
        r.completed(0, Duration::from_millis(1000), at(4500));
        w.completed(0, at(4500));
        // Flow 1: one exchange that fails, so it never ends.
        assert_eq!(w.next(1), Next::Request { exchange: 0 });
        r.transmitted(1, 0, at(500));
        w.failed(1, at(9000));
        for accepted in [true, true, true, false] {
            r.offered(accepted);
        }
        let end = RunEnd { now: at(9000), end: w.end(), events: 42 };
        let res = r.finish(&w, |f| f, None, end);
        let f0 = &res.flows[0];
        assert_eq!((f0.transmissions, f0.retransmissions, f0.unnecessary_retransmissions), (3, 1, 0));
        assert_eq!((f0.exchanges_completed, f0.exchanges_failed), (2, 0));
        assert_eq!(f0.fct_s, 4.5);
        assert_eq!(f0.median_rtt_s, 1.25);
        assert_eq!(f0.expired_rto.len(), 1);
        let f1 = &res.flows[1];
        assert!(f1.fct_s.is_nan());
        assert_eq!(res.run.flows_unfinished, 1, "flow 1 never ended");
        assert_eq!((f1.exchanges_completed, f1.exchanges_failed, f1.unnecessary_retransmissions), (0, 1, 1));
        // Duration: first start to last flow end.
        assert_eq!(res.run.duration_s, 4.5);
        assert_eq!(res.run.goodput_per_s, 2.0 / 4.5);
        assert_eq!(res.run.loss_ratio, 1.0 / 3.0);
        assert_eq!(res.run.overhead, 1.0 / 3.0);
        assert_eq!(res.run.events, 42);
        assert_eq!(res.run.sim_time_s, 9.0);
        assert!(res.series.is_empty());
        assert!(res.run.utilisation_up.is_nan() && res.run.packets_up == 0);
    }

    #[test]
    fn a_long_lived_run_lasts_its_duration_and_keeps_five_second_windows() {
        let mut w = workload(1, FlowType::LongLived);
        let mut r = Recorder::new(1, true);
        w.start(0, at(0));
        for (sent, done) in [(0, 400), (4_000, 6_000), (6_000, 7_000)] {
            assert!(matches!(w.next(0), Next::Request { .. }));
            r.link_rate(at(sent), 3.0);
            r.transmitted(0, 0, at(sent));
            r.completed(0, Duration::from_millis(done - sent), at(done));
            w.completed(0, at(done));
        }
        let (up, down) = (empty_link(), empty_link());
        let res = r.finish(&w, |_| 0, Some((&up, &down)), RunEnd { now: at(7_000), end: w.end(), events: 6 });
        assert_eq!(res.run.duration_s, 10.0);
        assert_eq!(res.run.flows_unfinished, 0, "long-lived flows never finish by design");
        assert_eq!(res.series.len(), 2);
        let s: Vec<(f64, f64, f64, f64)> =
            res.series.iter().map(|p| (p.t_s, p.resbw_per_s, p.send_rate_per_s, p.success_rate_per_s)).collect();
        assert_eq!(s, [(0.0, 3.0, 0.4, 0.2), (5.0, 3.0, 0.2, 0.4)]);
        // A pipeline without a serializer has no utilisation; nothing was offered to it.
        assert!(res.run.utilisation_up.is_nan() && res.run.packets_up == 0 && res.run.max_queue_down_bytes == 0);
    }
}
