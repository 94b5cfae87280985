//! [`Recorder`]: per-flow and per-run numbers a driver can observe from its endpoints and its
//! links — flow completion times, exchanges, transmissions and retransmissions, RTT samples,
//! expired RTOs, request copies lost at the link, and the long-lived time series — turned into
//! a [`RunResult`] at the end ([`Recorder::finish`]).
//!
//! It is fed endpoint events and transmit records only; what needs ground truth a real network
//! cannot give (which retransmissions were unnecessary) is handed in by the simulator at the
//! end.
//!
//! What a run keeps beyond the counts is chosen by [`RecorderOptions`]: the network model and
//! the testbed keep every RTT sample and expired timer (their distributions are summarised) and
//! the long-lived time series (kept, or streamed window by window to a caller's
//! [`SeriesSink`] so that a run's memory does not grow with its length); the multihop model counts what ends inside a measurement window
//! and keeps per-flow trace lists (the first expired timers, the completion series).
//!
//! # Cap policy
//!
//! A list that is summarised (the RTT samples, the expired timers of `flows.csv`) is kept whole
//! ([`Distribution`] bins it past its exact limit). A **trace list** — what a run keeps to be
//! plotted or read entry by entry — keeps its first entries and ignores the rest ([`FirstN`]):
//! the first [`TIMERS_KEPT`] timers and the first [`COMPLETIONS_KEPT`] completions of a flow.

use coapcc_core::{Duration, Instant};

use crate::link::{DropReason, LinkSummary, Pipeline};
use crate::metrics::{Distribution, FlowResult, RunMetrics, RunResult, SeriesPoint, jain};
use crate::workload::{FlowSpec, Workload};

/// How many retransmission timers a flow's timer trace keeps (the first ones): enough for the
/// backoff chains of a flow's first exchanges.
pub const TIMERS_KEPT: usize = 64;

/// How many completions a flow's completion series keeps (the first ones): more than a
/// Betzler cross-traffic flow makes in its run.
pub const COMPLETIONS_KEPT: usize = 20_000;

/// A trace list: its first `N` entries, the rest ignored (the recorder's one cap policy, see
/// [`Recorder`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FirstN<T, const N: usize>(Vec<T>);

impl<T, const N: usize> Default for FirstN<T, N> {
    fn default() -> Self {
        FirstN(Vec::new())
    }
}

impl<T, const N: usize> FirstN<T, N> {
    /// Adds `x` unless `N` entries are kept already.
    #[inline]
    pub fn push(&mut self, x: T) {
        if self.0.len() < N {
            self.0.push(x);
        }
    }

    /// The entries kept, in the order they came.
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }
}

/// An exchange a flow's client completed (acknowledged).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// Flow-wide exchange index.
    pub exchange: u32,
    /// When the original copy was sent.
    pub first_sent: Instant,
    /// CoAP RTT: original transmission to first acknowledgement (the exchange's duration).
    pub rtt: Duration,
    /// Retransmissions made.
    pub retransmissions: u8,
    /// The controller's RTO towards the peer just after the acknowledgement; `None` unless the
    /// recorder asks for it (`Record::rto_after` of the flow loop) and the controller has one.
    pub rto_after: Option<Duration>,
}

/// An exchange a flow's client abandoned (MAX_RETRANSMIT exhausted, or a Reset).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Flow-wide exchange index.
    pub exchange: u32,
    /// Retransmissions made.
    pub retransmissions: u8,
    /// Whether a Reset ended it.
    pub reset: bool,
}

/// The measurement window `[start, end)`: what ends (or is received) inside it is counted
/// apart ([`WindowCounts`]; the multihop model's OQ-M19 window).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MeasurementWindow {
    /// First instant inside.
    pub start: Instant,
    /// First instant after.
    pub end: Instant,
}

impl MeasurementWindow {
    /// Whether `t` is inside.
    #[inline]
    pub fn contains(&self, t: Instant) -> bool {
        t >= self.start && t < self.end
    }
}

/// What a flow ended inside the measurement window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WindowCounts {
    /// Exchanges acknowledged inside the window.
    pub completed: u64,
    /// Exchanges abandoned inside the window.
    pub failed: u64,
    /// Request copies (originals and retransmissions) of the exchanges ended inside the window.
    pub transmissions: u64,
    /// Fresh requests of the flow its peer received inside the window ([`Recorder::received`]).
    pub received: u64,
}

/// One completion of a flow's completion series.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompletionPoint {
    /// When the acknowledgement came.
    pub at: Instant,
    /// The exchange's duration (CoAP RTT).
    pub duration: Duration,
    /// The controller's RTO towards the peer just after it, if it has one.
    pub rto_after: Option<Duration>,
}

/// What a recorder keeps besides the counts every run has.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecorderOptions {
    /// Keep the long-lived time series: request copies, completions and the link's residual
    /// bandwidth per [`SERIES_WINDOW`].
    pub time_series: bool,
    /// Keep every RTT sample and every expired timer value ([`FlowRecord::rtts`],
    /// [`FlowRecord::expired_rto`]).
    pub samples: bool,
    /// Count what ends inside this window ([`FlowRecord::in_window`]).
    pub window: Option<MeasurementWindow>,
    /// Keep each flow's first expired timers ([`FlowRecord::first_expired`]).
    pub first_expired: bool,
    /// Keep, for each flow added without an exchange budget ([`FlowSpec::exchanges`] `None`),
    /// its completion series ([`FlowRecord::completions`]), with the controller's RTO after each.
    pub completions: bool,
}

/// What was seen of one flow.
#[derive(Clone, Debug, Default)]
pub struct FlowRecord {
    /// Request copies sent (originals and retransmissions).
    pub transmissions: u32,
    /// Retransmissions (copies after the first).
    pub retransmissions: u32,
    /// RTT samples of completed exchanges, seconds (with [`RecorderOptions::samples`]).
    pub rtts: Distribution,
    /// Values of the retransmission timers that expired, seconds (with
    /// [`RecorderOptions::samples`]).
    pub expired_rto: Distribution,
    /// Retransmissions of the exchanges that ended (acknowledged or abandoned); unlike
    /// `retransmissions`, an exchange still open when the run ends does not count.
    pub ended_retransmissions: u64,
    /// Sum of the durations (CoAP RTTs) of the acknowledged exchanges.
    pub acked_duration_sum: Duration,
    /// When the original copy of the first acknowledged exchange was sent.
    pub first_acked_sent: Option<Instant>,
    /// When the last acknowledgement came.
    pub last_ack: Option<Instant>,
    /// What ended inside the measurement window (zeros without one).
    pub in_window: WindowCounts,
    /// The first [`TIMERS_KEPT`] retransmission timers that expired, as armed (with
    /// [`RecorderOptions::first_expired`]).
    pub first_expired: FirstN<Duration, TIMERS_KEPT>,
    /// The first [`COMPLETIONS_KEPT`] completions (with [`RecorderOptions::completions`], for a
    /// flow without a budget).
    pub completions: FirstN<CompletionPoint, COMPLETIONS_KEPT>,
    /// Whether this flow keeps `completions`.
    keeps_completions: bool,
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

/// A window nothing happened in: no copies, no completions, no ResBW (NaN).
const EMPTY_WINDOW: Window = Window { sends: 0, successes: 0, rate_pps: f64::NAN };

impl Window {
    /// Window number `i` as a point of the series.
    fn point(&self, i: usize) -> SeriesPoint {
        let w = SERIES_WINDOW.as_secs_f64();
        SeriesPoint {
            t_s: i as f64 * w,
            resbw_per_s: self.rate_pps,
            send_rate_per_s: f64::from(self.sends) / w,
            success_rate_per_s: f64::from(self.successes) / w,
        }
    }
}

/// Where a long-lived run's time series goes while the run goes ([`Recorder::stream_series`]),
/// instead of staying in memory until it ends: every window from the first, empty ones
/// included, in time order, each once it is final. The caller owns what is done with a point
/// (a row written to a file, a count): the recorder does no I/O.
pub trait SeriesSink: Send {
    /// The next window of the series.
    fn point(&mut self, point: SeriesPoint);
}

impl<F: FnMut(SeriesPoint) + Send> SeriesSink for F {
    fn point(&mut self, point: SeriesPoint) {
        self(point);
    }
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

/// The counts of one run its [`RunMetrics`] are made of, whatever model ran it (the network
/// model and the testbed through [`Recorder::finish`], the TCP model directly).
#[derive(Clone, Copy, Debug)]
pub struct RunTally {
    /// First flow start → last flow end (or the cut-off of a long-lived run).
    pub duration: Duration,
    /// Exchanges completed.
    pub completed: u64,
    /// Exchanges failed.
    pub failed: u64,
    /// Flows that did not finish (short-lived runs).
    pub unfinished: u64,
    /// Request copies lost per copy delivered (NaN when the model does not count them).
    pub overhead: f64,
    /// Events the driver handled.
    pub events: u64,
    /// The instant of the last event handled.
    pub now: Instant,
}

/// A run's metrics from its tally, the FCTs of its finished flows in flow order (for Jain's
/// index) and, when the driver runs them, its (uplink, downlink) pipelines with the instant
/// their summaries are taken at (without links: NaN utilisation and delay, zero counts).
pub fn run_metrics(fcts_s: &[f64], tally: &RunTally, links: Option<(&Pipeline, &Pipeline, Instant)>) -> RunMetrics {
    let secs = tally.duration.as_secs_f64();
    let (completed, failed) = (tally.completed, tally.failed);
    let none = LinkSummary { utilisation: f64::NAN, mean_queueing_delay_s: f64::NAN, max_queue_bytes: 0 };
    let (lu, ld) = links.map_or((none, none), |(u, d, at)| (u.link_summary(at), d.link_summary(at)));
    let (ut, dt) = links.map_or_else(Default::default, |(u, d, _)| (u.totals(), d.totals()));
    let drops = |r: DropReason| ut.dropped.get(r).packets + dt.dropped.get(r).packets;
    RunMetrics {
        duration_s: secs,
        exchanges_completed: completed,
        exchanges_failed: failed,
        goodput_per_s: if secs > 0.0 { completed as f64 / secs } else { f64::NAN },
        loss_ratio: if completed + failed > 0 { failed as f64 / (completed + failed) as f64 } else { f64::NAN },
        overhead: tally.overhead,
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
        jain_fct: jain(fcts_s),
        events: tally.events,
        sim_time_s: tally.now.since_epoch().as_secs_f64(),
        flows_unfinished: tally.unfinished,
    }
}

/// Per-flow and per-run records of one run.
pub struct Recorder {
    flows: Vec<FlowRecord>,
    options: RecorderOptions,
    /// The windows of the time series from window number `first_window` on: every window
    /// when kept, the current one only when streamed.
    windows: Vec<Window>,
    first_window: usize,
    /// Where final windows go, when the series is streamed.
    sink: Option<Box<dyn SeriesSink>>,
    request_copies_delivered: u64,
    request_copies_lost: u64,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("flows", &self.flows)
            .field("options", &self.options)
            .field("windows", &self.windows)
            .field("first_window", &self.first_window)
            .field("streamed", &self.sink.is_some())
            .field("request_copies_delivered", &self.request_copies_delivered)
            .field("request_copies_lost", &self.request_copies_lost)
            .finish()
    }
}

impl Recorder {
    /// The records of a network or testbed run of `flows` flows: every RTT sample and expired
    /// timer; `series` keeps the per-window time series (long-lived runs).
    pub fn new(flows: u32, series: bool) -> Self {
        let mut r = Self::with_options(RecorderOptions { time_series: series, samples: true, ..Default::default() });
        r.flows = vec![FlowRecord::default(); flows as usize];
        r
    }

    /// Records kept as `options` say, for flows added with [`Recorder::add_flow`].
    pub fn with_options(options: RecorderOptions) -> Self {
        Recorder {
            flows: Vec::new(),
            options,
            windows: Vec::new(),
            first_window: 0,
            sink: None,
            request_copies_delivered: 0,
            request_copies_lost: 0,
        }
    }

    /// Records for one more flow, `flow` (flows are numbered in the order they are added), of
    /// budget and concurrency `spec`.
    pub fn add_flow(&mut self, flow: u32, spec: &FlowSpec) {
        let n = (flow as usize + 1).max(self.flows.len());
        self.flows.resize(n, FlowRecord::default());
        if let Some(r) = self.flows.get_mut(flow as usize) {
            r.keeps_completions = self.options.completions && spec.exchanges.is_none();
        }
    }

    /// Whether flow `f` keeps a completion series (and so wants the controller's RTO after each
    /// acknowledgement).
    #[inline]
    pub fn keeps_completions(&self, f: u32) -> bool {
        self.flows.get(f as usize).is_some_and(|r| r.keeps_completions)
    }

    /// Sends the time series to `sink` window by window, each as soon as it is final, instead
    /// of keeping it: [`Recorder::finish`] sends the windows left and returns no series. A
    /// window is final once a later one is touched (the instants a driver reports never go
    /// backwards), so only the current window is held, whatever the run's length.
    pub fn stream_series(&mut self, sink: Box<dyn SeriesSink>) {
        self.sink = Some(sink);
    }

    /// How many windows of the time series the recorder holds now: every window so far when
    /// the series is kept, at most one when it is streamed ([`Recorder::stream_series`]).
    pub fn series_windows_held(&self) -> usize {
        self.windows.len()
    }

    #[inline]
    fn window_mut(&mut self, now: Instant) -> &mut Window {
        let w = (now.as_nanos() / SERIES_WINDOW.as_nanos().max(1) as u64) as usize;
        // An instant before the held windows (never, from a driver) counts in the first held.
        let w = w.max(self.first_window);
        if self.first_window + self.windows.len() <= w {
            if self.sink.is_some() {
                self.flush_windows(w);
            }
            self.windows.resize(w + 1 - self.first_window, EMPTY_WINDOW);
        }
        &mut self.windows[w - self.first_window]
    }

    /// Sends every window before window number `until` (the held ones, then empty ones up to
    /// it) to the sink.
    #[cold]
    fn flush_windows(&mut self, until: usize) {
        let Some(sink) = self.sink.as_mut() else { return };
        let first = self.first_window;
        let gap = until.saturating_sub(first + self.windows.len());
        let done = self.windows.drain(..).chain(std::iter::repeat_n(EMPTY_WINDOW, gap));
        for (i, win) in done.enumerate() {
            sink.point(win.point(first + i));
        }
        self.first_window = until;
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
        if self.options.time_series {
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
        if self.options.time_series {
            self.window_mut(now).rate_pps = rate_pps;
        }
    }

    /// An exchange of flow `f` completed at `now`.
    #[inline]
    pub fn completed(&mut self, f: u32, now: Instant, exchange: &Completion) {
        let (options, in_window) = (self.options, self.in_window(now));
        if let Some(fl) = self.flows.get_mut(f as usize) {
            if options.samples {
                fl.rtts.push(exchange.rtt.as_secs_f64());
            }
            fl.ended_retransmissions += u64::from(exchange.retransmissions);
            fl.acked_duration_sum = fl.acked_duration_sum.saturating_add(exchange.rtt);
            fl.first_acked_sent.get_or_insert(exchange.first_sent);
            fl.last_ack = Some(now);
            if in_window {
                fl.in_window.completed += 1;
                fl.in_window.transmissions += 1 + u64::from(exchange.retransmissions);
            }
            if fl.keeps_completions {
                fl.completions.push(CompletionPoint { at: now, duration: exchange.rtt, rto_after: exchange.rto_after });
            }
        }
        if options.time_series {
            self.window_mut(now).successes += 1;
        }
    }

    /// An exchange of flow `f` was abandoned at `now`.
    #[inline]
    pub fn failed(&mut self, f: u32, now: Instant, exchange: &Failure) {
        let in_window = self.in_window(now);
        if let Some(fl) = self.flows.get_mut(f as usize) {
            fl.ended_retransmissions += u64::from(exchange.retransmissions);
            if in_window {
                fl.in_window.failed += 1;
                fl.in_window.transmissions += 1 + u64::from(exchange.retransmissions);
            }
        }
    }

    /// Flow `f`'s peer received a fresh request of it (not a duplicate) at `now`: counted
    /// inside the measurement window (Makarem's goodput, multihop.md §3.4).
    #[inline]
    pub fn received(&mut self, f: u32, now: Instant) {
        if self.in_window(now)
            && let Some(fl) = self.flows.get_mut(f as usize)
        {
            fl.in_window.received += 1;
        }
    }

    /// A retransmission timer of flow `f` set to `timer` expired.
    #[inline]
    pub fn timer_expired(&mut self, f: u32, timer: Duration) {
        let options = self.options;
        if let Some(fl) = self.flows.get_mut(f as usize) {
            if options.samples {
                fl.expired_rto.push(timer.as_secs_f64());
            }
            if options.first_expired {
                fl.first_expired.push(timer);
            }
        }
    }

    #[inline]
    fn in_window(&self, now: Instant) -> bool {
        self.options.window.is_some_and(|w| w.contains(now))
    }

    /// Flow `f`'s records.
    pub fn flow(&self, f: u32) -> Option<&FlowRecord> {
        self.flows.get(f as usize)
    }

    /// Every flow's records, in flow order, at the end of a run.
    pub fn into_flows(self) -> Vec<FlowRecord> {
        self.flows
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
        let end_instant = if long_lived { end.end.unwrap_or(end.now) } else { end.now };
        let overhead = if self.request_copies_delivered > 0 {
            self.request_copies_lost as f64 / self.request_copies_delivered as f64
        } else {
            f64::NAN
        };
        let tally = RunTally { duration, completed, failed, unfinished, overhead, events: end.events, now: end.now };
        let run = run_metrics(&fcts, &tally, links.map(|(u, d)| (u, d, end_instant)));
        let first = self.first_window;
        let series = match self.sink {
            Some(mut sink) => {
                for (i, win) in self.windows.iter().enumerate() {
                    sink.point(win.point(first + i));
                }
                Vec::new()
            }
            None => self.windows.iter().enumerate().map(|(i, win)| win.point(first + i)).collect(),
        };
        RunResult { flows, run, series, transfers: Vec::new() }
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

    fn spec(exchanges: Option<u32>) -> FlowSpec {
        FlowSpec { exchanges, concurrency: 1 }
    }

    fn acked(first_sent_ms: u64, rtt_ms: u64, retransmissions: u8, rto_after_ms: Option<u64>) -> Completion {
        Completion {
            exchange: 0,
            first_sent: at(first_sent_ms),
            rtt: Duration::from_millis(rtt_ms),
            retransmissions,
            rto_after: rto_after_ms.map(Duration::from_millis),
        }
    }

    fn failure(retransmissions: u8) -> Failure {
        Failure { exchange: 0, retransmissions, reset: false }
    }

    #[test]
    fn a_measurement_window_counts_what_ends_inside_it_and_excludes_its_end() {
        let window = MeasurementWindow { start: at(10_000), end: at(20_000) };
        let mut r = Recorder::with_options(RecorderOptions { window: Some(window), ..Default::default() });
        r.add_flow(0, &spec(Some(10)));
        // Before, inside (acknowledged after 2 retransmissions; abandoned after 4), at the end.
        r.completed(0, at(9_999), &acked(9_000, 999, 0, None));
        r.completed(0, at(10_000), &acked(8_000, 2_000, 2, None));
        r.failed(0, at(15_000), &failure(4));
        r.failed(0, at(20_000), &failure(4));
        for ms in [9_999, 10_000, 19_999, 20_000] {
            r.received(0, at(ms));
        }
        let f = r.flow(0).cloned().unwrap_or_default();
        // Copies of ended exchanges inside: (1 + 2) + (1 + 4).
        assert_eq!(f.in_window, WindowCounts { completed: 1, failed: 1, transmissions: 8, received: 2 });
        // Retransmissions of every ended exchange, inside the window or not.
        assert_eq!(f.ended_retransmissions, 10);
        assert_eq!(f.acked_duration_sum, Duration::from_millis(2_999));
        // The first acknowledged exchange was sent at 9 s; the last acknowledgement came at 10 s.
        assert_eq!((f.first_acked_sent, f.last_ack), (Some(at(9_000)), Some(at(10_000))));
        // Nothing else was asked for.
        assert!(f.rtts.is_empty() && f.first_expired.as_slice().is_empty() && f.completions.as_slice().is_empty());
        assert_eq!((f.transmissions, f.retransmissions), (0, 0), "copies are counted when they leave");
    }

    #[test]
    fn samples_are_kept_only_when_asked_and_first_expired_timers_as_armed_in_order() {
        // A network run: every RTT sample and expired timer, in seconds; no trace lists.
        let mut net = Recorder::new(1, false);
        // A multihop run: the first expired timers as armed, no samples.
        let mut mh = Recorder::with_options(RecorderOptions { first_expired: true, ..Default::default() });
        mh.add_flow(0, &spec(None));
        for r in [&mut net, &mut mh] {
            // Binary exponential backoff from 2.5 s (RFC 7252 §4.2): 2.5, 5, 10 s expire,
            // then an acknowledgement 1.25 s after the 4th copy, 18.75 s after the original.
            for k in 0..3 {
                r.timer_expired(0, Duration::from_millis(2_500 << k));
            }
            r.completed(0, at(18_750), &acked(0, 18_750, 3, Some(5_000)));
        }
        let (n, m) = (net.flow(0).cloned().unwrap_or_default(), mh.flow(0).cloned().unwrap_or_default());
        assert_eq!(n.expired_rto.values(), Some(&[2.5, 5.0, 10.0][..]));
        assert_eq!(n.rtts.values(), Some(&[18.75][..]));
        assert!(n.first_expired.as_slice().is_empty() && n.completions.as_slice().is_empty());
        let armed: Vec<Duration> = [2_500, 5_000, 10_000].map(Duration::from_millis).into();
        assert_eq!(m.first_expired.as_slice(), &armed[..]);
        assert!(m.expired_rto.is_empty() && m.rtts.is_empty());
        // Without `completions` no series is kept, even for a flow without a budget.
        assert!(!mh.keeps_completions(0) && m.completions.as_slice().is_empty());
        // Both count the ended exchange's retransmissions and its duration.
        for f in [&n, &m] {
            assert_eq!((f.ended_retransmissions, f.acked_duration_sum), (3, Duration::from_millis(18_750)));
            assert_eq!((f.first_acked_sent, f.last_ack), (Some(at(0)), Some(at(18_750))));
        }
    }

    #[test]
    fn trace_lists_keep_their_first_entries_and_only_unbudgeted_flows_keep_a_completion_series() {
        let mut r =
            Recorder::with_options(RecorderOptions { first_expired: true, completions: true, ..Default::default() });
        r.add_flow(0, &spec(None));
        r.add_flow(1, &spec(Some(50)));
        assert!(r.keeps_completions(0) && !r.keeps_completions(1) && !r.keeps_completions(2));
        for k in 1..=(TIMERS_KEPT as u64 + 6) {
            r.timer_expired(0, Duration::from_millis(k));
        }
        for k in 0..(COMPLETIONS_KEPT as u64 + 3) {
            for f in 0..2 {
                r.completed(f, at(k), &acked(0, k, 0, Some(2_000 + k)));
            }
        }
        let f0 = r.flow(0).cloned().unwrap_or_default();
        let timers = f0.first_expired.as_slice();
        assert_eq!(timers.len(), 64);
        assert_eq!((timers[0], timers[63]), (Duration::from_millis(1), Duration::from_millis(64)));
        let series = f0.completions.as_slice();
        assert_eq!(series.len(), 20_000);
        assert_eq!(
            series[19_999],
            CompletionPoint {
                at: at(19_999),
                duration: Duration::from_millis(19_999),
                rto_after: Some(Duration::from_millis(21_999))
            }
        );
        // The sums count every completion, kept in the series or not: 0 + 1 + … + 20 002 ms.
        assert_eq!(f0.acked_duration_sum, Duration::from_millis(20_002 * 20_003 / 2));
        assert!(r.flow(1).is_some_and(|f| f.completions.as_slice().is_empty()));
        let flows = r.into_flows();
        assert_eq!(flows.len(), 2);
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
        r.completed(0, at(3500), &acked(0, 1500, 0, None));
        w.completed(0, at(3500));
        assert_eq!(w.next(0), Next::Request { exchange: 1 });
        r.transmitted(0, 0, at(3500));
        r.completed(0, at(4500), &acked(0, 1000, 0, None));
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
    fn a_streamed_series_is_the_kept_one_point_for_point_and_only_the_current_window_is_held() {
        let (mut kept, mut streamed) = (Recorder::new(1, true), Recorder::new(1, true));
        let points = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = std::sync::Arc::clone(&points);
        streamed.stream_series(Box::new(move |p: SeriesPoint| {
            sink.lock().unwrap_or_else(|e| e.into_inner()).push(p);
        }));
        let mut w = workload(1, FlowType::LongLived);
        w.start(0, at(0));
        // Activity in windows 0 (0–5 s), 1 and 4 (2 and 3 empty), then 9; the ResBW of window
        // 1 changes twice, its last value counts.
        let sent = |p: &std::sync::Mutex<Vec<SeriesPoint>>| p.lock().map_or(0, |v| v.len());
        for (ms, rate) in
            [(100, 1.0), (4_900, 2.0), (5_000, 3.0), (7_500, 4.0), (20_000, 5.0), (24_999, 6.0), (45_000, 7.0)]
        {
            for r in [&mut kept, &mut streamed] {
                r.link_rate(at(ms), rate);
                r.transmitted(0, 0, at(ms));
                r.completed(0, at(ms), &acked(0, 1, 0, None));
            }
            // Every window before the current one has gone to the sink; one is held.
            let current = (ms / 5_000) as usize;
            assert_eq!((streamed.series_windows_held(), sent(&points)), (1, current));
            assert_eq!(kept.series_windows_held(), current + 1);
        }
        let end = RunEnd { now: at(45_000), end: Some(at(50_000)), events: 7 };
        let (up, down) = (empty_link(), empty_link());
        let kept = kept.finish(&w, |_| 0, Some((&up, &down)), end).series;
        assert!(streamed.finish(&w, |_| 0, Some((&up, &down)), end).series.is_empty(), "nothing kept when streamed");
        let streamed = points.lock().map(|v| v.clone()).unwrap_or_default();
        assert_eq!(kept.len(), 10, "windows 0 to 9, the last one touched");
        // NaN (an empty window's ResBW) is unequal to itself: compare the bits.
        let bits = |s: &[SeriesPoint]| -> Vec<[u64; 4]> {
            s.iter()
                .map(|p| [p.t_s, p.resbw_per_s, p.send_rate_per_s, p.success_rate_per_s].map(f64::to_bits))
                .collect()
        };
        assert_eq!(bits(&streamed), bits(&kept));
        // Window 1 (5–10 s): two copies and two completions, 0.4 per second; its last ResBW 4.
        let p = streamed[1];
        assert_eq!((p.t_s, p.send_rate_per_s, p.success_rate_per_s, p.resbw_per_s), (5.0, 0.4, 0.4, 4.0));
        // Window 2 (10–15 s) saw nothing: zero rates, no ResBW.
        assert!(streamed[2].send_rate_per_s == 0.0 && streamed[2].resbw_per_s.is_nan());
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
            r.completed(0, at(done), &acked(sent, done - sent, 0, None));
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
