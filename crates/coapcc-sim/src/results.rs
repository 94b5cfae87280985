//! Results as files a researcher loads into pandas (`flows.csv`, `runs.csv`, `summary.csv`,
//! `series.csv`, `samples.csv`) and as the summary table the CLI prints. Everything here is a pure function
//! of the runs, so the bytes depend only on the scenario and its seed.
//!
//! Numbers are written with fixed precision (6 decimals for seconds and ratios); a missing
//! value (NaN) is an empty field.

use std::fmt::Write;

use crate::metrics::{Distribution, Quantiles, mean};
use crate::runner::{AlgorithmRuns, RunOutput};
use crate::scenario::{Model, Scenario};

fn num(x: f64) -> String {
    if x.is_finite() { format!("{x:.6}") } else { String::new() }
}

/// `flows.csv`: one row per algorithm × replication × flow.
pub fn flows_csv(all: &[AlgorithmRuns]) -> String {
    let mut s = String::from(
        "algorithm,replication,flow,fct_s,exchanges_completed,exchanges_failed,transmissions,retransmissions,unnecessary_retransmissions,median_rtt_s\n",
    );
    for a in all {
        for (r, out) in a.runs.iter().enumerate() {
            if let RunOutput::Network(run) = out {
                for f in &run.flows {
                    let _ = writeln!(
                        s,
                        "{},{r},{},{},{},{},{},{},{},{}",
                        a.algorithm,
                        f.flow,
                        num(f.fct_s),
                        f.exchanges_completed,
                        f.exchanges_failed,
                        f.transmissions,
                        f.retransmissions,
                        f.unnecessary_retransmissions,
                        num(f.median_rtt_s)
                    );
                }
            }
        }
    }
    s
}

/// `samples.csv` (`coapcc sim --samples`): every CoAP RTT sample and every expired
/// retransmission timer, one row each, per algorithm × replication × flow in the order they
/// occurred: `kind` is `rtt` or `expired_rto`, `count` is 1. A flow with more than
/// [`Distribution::EXACT_LIMIT`] values of a kind has them binned: one row per bin, its mean
/// and `count` values (see `docs/deviations.md`).
pub fn samples_csv(all: &[AlgorithmRuns]) -> String {
    let mut s = String::from("algorithm,replication,flow,kind,value_s,count\n");
    for a in all {
        for (r, out) in a.runs.iter().enumerate() {
            if let RunOutput::Network(run) = out {
                for f in &run.flows {
                    for (kind, d) in [("rtt", &f.rtts), ("expired_rto", &f.expired_rto)] {
                        for (x, n) in d.weighted() {
                            let _ = writeln!(s, "{},{r},{},{kind},{},{n}", a.algorithm, f.flow, num(x));
                        }
                    }
                }
            }
        }
    }
    s
}

/// The header of `runs.csv` for RTT-trace runs.
const RUNS_TRACE_HEADER: &str = "algorithm,replication,samples,rmse_ms,spurious,mean_rtt_ms,mean_rto_ms\n";

/// The header of `runs.csv` for network runs.
const RUNS_NETWORK_HEADER: &str = "algorithm,replication,duration_s,exchanges_completed,exchanges_failed,goodput_per_s,loss_ratio,overhead,utilisation_up,utilisation_down,packets_up,packets_down,drops_buffer,drops_error,drops_no_token,jain_fct,events,sim_time_s,queue_delay_up_s,queue_delay_down_s,max_queue_up_bytes,max_queue_down_bytes,flows_unfinished\n";

/// `runs.csv`: one row per algorithm × replication.
pub fn runs_csv(all: &[AlgorithmRuns]) -> String {
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
                    let m = &run.run;
                    let _ = writeln!(
                        s,
                        "{},{r},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                        a.algorithm,
                        num(m.duration_s),
                        m.exchanges_completed,
                        m.exchanges_failed,
                        num(m.goodput_per_s),
                        num(m.loss_ratio),
                        num(m.overhead),
                        num(m.utilisation_up),
                        num(m.utilisation_down),
                        m.packets_up,
                        m.packets_down,
                        m.drops_buffer,
                        m.drops_error,
                        m.drops_no_token,
                        num(m.jain_fct),
                        m.events,
                        num(m.sim_time_s),
                        num(m.queue_delay_up_s),
                        num(m.queue_delay_down_s),
                        m.max_queue_up_bytes,
                        m.max_queue_down_bytes,
                        m.flows_unfinished
                    );
                }
                RunOutput::Trace(t) => {
                    let _ = writeln!(
                        s,
                        "{},{r},{},{},{},{},{}",
                        a.algorithm,
                        t.samples,
                        num(t.rmse_ms),
                        t.spurious,
                        num(t.mean_rtt_ms),
                        num(t.mean_rto_ms)
                    );
                }
            }
        }
    }
    s
}

/// The summary of one algorithm over all its runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Algorithm name.
    pub algorithm: String,
    /// Runs summarised.
    pub runs: usize,
    /// FCT quantiles over all flows of all runs, s.
    pub fct: Quantiles,
    /// Retransmissions per flow (quantiles over all flows of all runs).
    pub retransmissions: Quantiles,
    /// Unnecessary retransmissions per flow (quantiles over all flows of all runs).
    pub unnecessary: Quantiles,
    /// Mean goodput, exchanges/s.
    pub goodput_per_s: f64,
    /// Mean application loss ratio.
    pub loss_ratio: f64,
    /// Mean overhead.
    pub overhead: f64,
    /// CoAP RTT quantiles over all samples, s.
    pub rtt: Quantiles,
    /// Expired RTO quantiles over all expiries, s.
    pub expired_rto: Quantiles,
    /// Unnecessary retransmissions summed over all flows of all runs.
    pub unnecessary_total: u64,
    /// Exchanges completed, summed over all runs.
    pub completed_total: u64,
    /// Packets dropped by full buffers, summed over all runs.
    pub drops_buffer_total: u64,
    /// Flows that did not finish before their run's time limit, summed over all runs; they are
    /// left out of the FCT quantiles (see [`crate::metrics::RunMetrics::flows_unfinished`]).
    pub flows_unfinished: u64,
    /// Flows summed over all runs (network models).
    pub flows_total: u64,
    /// Trace model: mean RMSE, ms.
    pub rmse_ms: f64,
    /// Trace model: mean spurious count.
    pub spurious: f64,
}

/// Summaries per algorithm, in scenario order.
pub fn summarise(all: &[AlgorithmRuns]) -> Vec<Summary> {
    all.iter()
        .map(|a| {
            let mut fct = Vec::new();
            let mut rexmit = Vec::new();
            let mut unnec = Vec::new();
            let mut rtts = Vec::new();
            let mut rtos = Vec::new();
            let (mut goodput, mut loss, mut overhead, mut rmse, mut spurious) =
                (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
            let (mut unnecessary_total, mut completed_total, mut drops_buffer_total) = (0u64, 0u64, 0u64);
            let (mut flows_unfinished, mut flows_total) = (0u64, 0u64);
            for out in &a.runs {
                match out {
                    RunOutput::Network(run) => {
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
                        rtts.extend(run.flows.iter().map(|f| &f.rtts));
                        rtos.extend(run.flows.iter().map(|f| &f.expired_rto));
                        goodput.push(run.run.goodput_per_s);
                        loss.push(run.run.loss_ratio);
                        overhead.push(run.run.overhead);
                    }
                    RunOutput::Trace(t) => {
                        rmse.push(t.rmse_ms);
                        spurious.push(t.spurious as f64);
                    }
                }
            }
            Summary {
                algorithm: a.algorithm.clone(),
                runs: a.runs.len(),
                fct: Quantiles::of(&mut fct),
                retransmissions: Quantiles::of(&mut rexmit),
                unnecessary: Quantiles::of(&mut unnec),
                goodput_per_s: mean(&goodput),
                loss_ratio: mean(&loss),
                overhead: mean(&overhead),
                rtt: Distribution::union(rtts).quantiles(),
                expired_rto: Distribution::union(rtos).quantiles(),
                unnecessary_total,
                completed_total,
                drops_buffer_total,
                flows_unfinished,
                flows_total,
                rmse_ms: mean(&rmse),
                spurious: mean(&spurious),
            }
        })
        .collect()
}

/// `summary.csv`: one row per algorithm.
pub fn summary_csv(summaries: &[Summary]) -> String {
    let mut s = String::from(
        "algorithm,runs,fct_p10_s,fct_p25_s,fct_p50_s,fct_p75_s,fct_p90_s,retransmissions_median,unnecessary_retransmissions_median,goodput_per_s,loss_ratio,overhead,rtt_p10_s,rtt_p25_s,rtt_p50_s,rtt_p75_s,rtt_p90_s,expired_rto_p10_s,expired_rto_p25_s,expired_rto_p50_s,expired_rto_p75_s,expired_rto_p90_s,rmse_ms,spurious,flows_unfinished\n",
    );
    for m in summaries {
        let q = |q: &Quantiles| format!("{},{},{},{},{}", num(q.p10), num(q.p25), num(q.p50), num(q.p75), num(q.p90));
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            m.algorithm,
            m.runs,
            q(&m.fct),
            num(m.retransmissions.p50),
            num(m.unnecessary.p50),
            num(m.goodput_per_s),
            num(m.loss_ratio),
            num(m.overhead),
            q(&m.rtt),
            q(&m.expired_rto),
            num(m.rmse_ms),
            num(m.spurious),
            m.flows_unfinished
        );
    }
    s
}

/// `series.csv`: time series for figures — (RTT, RTO) pairs of replication 0 for trace runs,
/// per-window rates for long-lived runs.
pub fn series_csv(all: &[AlgorithmRuns]) -> Option<String> {
    let first = all.iter().find_map(|a| a.runs.first())?;
    let mut s = String::new();
    match first {
        RunOutput::Trace(_) => {
            s.push_str("algorithm,sample,rtt_ms,rto_ms\n");
            for a in all {
                if let Some(RunOutput::Trace(t)) = a.runs.first() {
                    for (i, (rtt, rto)) in t.series.iter().enumerate() {
                        let _ = writeln!(s, "{},{i},{},{}", a.algorithm, num(*rtt), num(*rto));
                    }
                }
            }
        }
        RunOutput::Network(r) => {
            if r.series.is_empty() {
                return None;
            }
            s.push_str("algorithm,t_s,resbw_per_s,send_rate_per_s,success_rate_per_s\n");
            for a in all {
                if let Some(RunOutput::Network(r)) = a.runs.first() {
                    for p in &r.series {
                        let _ = writeln!(
                            s,
                            "{},{},{},{},{}",
                            a.algorithm,
                            num(p.t_s),
                            num(p.resbw_per_s),
                            num(p.send_rate_per_s),
                            num(p.success_rate_per_s)
                        );
                    }
                }
            }
        }
    }
    Some(s)
}

/// The table printed after a run: per algorithm, FCT quantiles and the per-flow and per-run
/// metrics (network models), or RMSE and spurious counts (trace model).
pub fn summary_table(summaries: &[Summary], trace: bool) -> String {
    let mut rows: Vec<Vec<String>> = Vec::new();
    let f = |x: f64, d: usize| if x.is_finite() { format!("{x:.d$}") } else { "-".into() };
    if trace {
        rows.push(vec!["algorithm".into(), "runs".into(), "rmse_ms".into(), "spurious".into()]);
        for m in summaries {
            rows.push(vec![m.algorithm.clone(), m.runs.to_string(), f(m.rmse_ms, 1), f(m.spurious, 1)]);
        }
    } else {
        rows.push(
            [
                "algorithm",
                "runs",
                "fct_p10",
                "fct_p25",
                "fct_med",
                "fct_p75",
                "fct_p90",
                "rexmit",
                "unnec",
                "goodput/s",
                "loss",
                "overhead",
                "unfinished",
            ]
            .map(String::from)
            .to_vec(),
        );
        for m in summaries {
            rows.push(vec![
                m.algorithm.clone(),
                m.runs.to_string(),
                f(m.fct.p10, 1),
                f(m.fct.p25, 1),
                f(m.fct.p50, 1),
                f(m.fct.p75, 1),
                f(m.fct.p90, 1),
                f(m.retransmissions.p50, 1),
                f(m.unnecessary.p50, 1),
                f(m.goodput_per_s, 3),
                f(m.loss_ratio, 4),
                f(m.overhead, 4),
                m.flows_unfinished.to_string(),
            ]);
        }
    }
    let cols = rows[0].len();
    let widths: Vec<usize> = (0..cols).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for r in &rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            if c == 0 {
                let _ = write!(line, "{cell:<w$}", w = widths[c]);
            } else {
                let _ = write!(line, "  {cell:>w$}", w = widths[c]);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    // Unfinished flows have no FCT: say so rather than let the quantiles look complete.
    for m in summaries.iter().filter(|m| !trace && m.flows_unfinished > 0) {
        let _ = writeln!(
            out,
            "warning: {}: {} of {} flows did not finish before the time limit (time_limit_ms); its FCT quantiles are over the finished flows only",
            m.algorithm, m.flows_unfinished, m.flows_total
        );
    }
    out
}

/// One column of a results table, typed: what a data-frame library builds its column from
/// (the Python package hands these to Arrow without going through text).
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    /// Text (algorithm names, kinds).
    Str(Vec<String>),
    /// Counts and indices.
    U64(Vec<u64>),
    /// Measurements; NaN where the CSV field is empty.
    F64(Vec<f64>),
    /// Flags (`true` / `false` in the CSV).
    Bool(Vec<bool>),
    /// Counts and ids that may be absent (an empty CSV field; a null in Arrow).
    OptU64(Vec<Option<u64>>),
}

impl Column {
    /// Number of rows.
    pub fn len(&self) -> usize {
        match self {
            Column::Str(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::F64(v) => v.len(),
            Column::Bool(v) => v.len(),
            Column::OptU64(v) => v.len(),
        }
    }

    /// Whether the column has no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A results table as named, typed columns, in the order (and with the names) of the
/// matching CSV file's header; the values are the CSV's before its fixed-precision formatting.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Columns {
    /// `(name, column)`, every column of the same length.
    pub columns: Vec<(String, Column)>,
}

/// Builds [`Columns`] row by row: one call per column of a row, in header order (shared by the
/// network-model writers here and the multihop ones).
pub(crate) struct Builder {
    columns: Vec<(String, Column)>,
    next: usize,
}

impl Builder {
    /// Columns named by the comma-separated `header`, typed by `kinds` (one letter per column:
    /// `s` text, `u` count, `f` measurement, `b` flag, `o` optional count).
    pub(crate) fn new(header: &str, kinds: &str) -> Builder {
        let columns = header
            .split(',')
            .zip(kinds.chars())
            .map(|(name, k)| {
                let c = match k {
                    's' => Column::Str(Vec::new()),
                    'u' => Column::U64(Vec::new()),
                    'b' => Column::Bool(Vec::new()),
                    'o' => Column::OptU64(Vec::new()),
                    _ => Column::F64(Vec::new()),
                };
                (name.to_string(), c)
            })
            .collect();
        Builder { columns, next: 0 }
    }

    fn slot(&mut self) -> &mut Column {
        let i = self.next % self.columns.len();
        self.next += 1;
        &mut self.columns[i].1
    }

    pub(crate) fn s(&mut self, x: &str) -> &mut Self {
        if let Column::Str(v) = self.slot() {
            v.push(x.to_string());
        }
        self
    }

    pub(crate) fn u(&mut self, x: u64) -> &mut Self {
        if let Column::U64(v) = self.slot() {
            v.push(x);
        }
        self
    }

    pub(crate) fn f(&mut self, x: f64) -> &mut Self {
        if let Column::F64(v) = self.slot() {
            v.push(x);
        }
        self
    }

    pub(crate) fn b(&mut self, x: bool) -> &mut Self {
        if let Column::Bool(v) = self.slot() {
            v.push(x);
        }
        self
    }

    pub(crate) fn o(&mut self, x: Option<u64>) -> &mut Self {
        if let Column::OptU64(v) = self.slot() {
            v.push(x);
        }
        self
    }

    fn q(&mut self, q: &Quantiles) -> &mut Self {
        self.f(q.p10).f(q.p25).f(q.p50).f(q.p75).f(q.p90)
    }

    pub(crate) fn finish(self) -> Columns {
        Columns { columns: self.columns }
    }
}

/// The header line of a CSV text.
fn header(csv: &str) -> &str {
    csv.lines().next().unwrap_or_default()
}

/// The columns of `flows.csv`.
pub fn flows_columns(all: &[AlgorithmRuns]) -> Columns {
    let mut b = Builder::new(header(&flows_csv(&[])), "suufuuuuuf");
    for a in all {
        for (r, out) in a.runs.iter().enumerate() {
            if let RunOutput::Network(run) = out {
                for f in &run.flows {
                    b.s(&a.algorithm)
                        .u(r as u64)
                        .u(u64::from(f.flow))
                        .f(f.fct_s)
                        .u(u64::from(f.exchanges_completed))
                        .u(u64::from(f.exchanges_failed))
                        .u(u64::from(f.transmissions))
                        .u(u64::from(f.retransmissions))
                        .u(u64::from(f.unnecessary_retransmissions))
                        .f(f.median_rtt_s);
                }
            }
        }
    }
    b.finish()
}

/// The columns of `samples.csv`.
pub fn samples_columns(all: &[AlgorithmRuns]) -> Columns {
    let mut b = Builder::new(header(&samples_csv(&[])), "suusfu");
    for a in all {
        for (r, out) in a.runs.iter().enumerate() {
            if let RunOutput::Network(run) = out {
                for f in &run.flows {
                    for (kind, d) in [("rtt", &f.rtts), ("expired_rto", &f.expired_rto)] {
                        for (x, n) in d.weighted() {
                            b.s(&a.algorithm).u(r as u64).u(u64::from(f.flow)).s(kind).f(x).u(n);
                        }
                    }
                }
            }
        }
    }
    b.finish()
}

/// The columns of `runs.csv`.
pub fn runs_columns(all: &[AlgorithmRuns]) -> Columns {
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
                    let m = &run.run;
                    b.s(&a.algorithm)
                        .u(r as u64)
                        .f(m.duration_s)
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

/// The columns of `summary.csv`.
pub fn summary_columns(summaries: &[Summary]) -> Columns {
    let mut b = Builder::new(header(&summary_csv(&[])), "suffffffffffffffffffffffu");
    for m in summaries {
        b.s(&m.algorithm)
            .u(m.runs as u64)
            .q(&m.fct)
            .f(m.retransmissions.p50)
            .f(m.unnecessary.p50)
            .f(m.goodput_per_s)
            .f(m.loss_ratio)
            .f(m.overhead)
            .q(&m.rtt)
            .q(&m.expired_rto)
            .f(m.rmse_ms)
            .f(m.spurious)
            .u(m.flows_unfinished);
    }
    b.finish()
}

/// The columns of `series.csv`, when there is one (see [`series_csv`]).
pub fn series_columns(all: &[AlgorithmRuns]) -> Option<Columns> {
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

/// The files of one run of `s`, as `coapcc sim` writes them into its output folder, in the
/// order it writes them (`summaries` are [`summarise`]'s of `results`): `flows.csv` (network models), `samples.csv` (when asked for;
/// network models), `runs.csv`, `summary.csv`, `series.csv` (when there is a series) and the
/// resolved `scenario.toml`. One list for the CLI and the Python package's `save`.
pub fn result_files(
    s: &Scenario,
    results: &[AlgorithmRuns],
    summaries: &[Summary],
    samples: bool,
) -> Vec<(&'static str, String)> {
    let trace = matches!(s.model, Model::Trace(_));
    let mut files = Vec::new();
    if !trace {
        files.push(("flows.csv", flows_csv(results)));
        if samples {
            files.push(("samples.csv", samples_csv(results)));
        }
    }
    files.push(("runs.csv", runs_csv(results)));
    files.push(("summary.csv", summary_csv(summaries)));
    if let Some(series) = series_csv(results) {
        files.push(("series.csv", series));
    }
    files.push(("scenario.toml", s.to_toml()));
    files
}
