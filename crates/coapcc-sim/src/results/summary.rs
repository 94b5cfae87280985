//! The one summary type of every model ([`Summary`]: an algorithm's runs summarised, typed per
//! model) and what is made of it: `summary.csv` (text, rows, typed columns) and the table
//! `coapcc sim` prints. Network and RTT-trace summaries share one `summary.csv` layout (each
//! leaves the other's columns empty); a multihop summary is long-format, one row per run metric
//! with its mean and 95 % confidence interval.

use std::fmt::Write;

use super::columns::{Builder, Columns, full, quoted};
use super::median_ci::MedianInterval;
#[cfg(doc)]
use super::median_ci::median_ci95;
use super::metric::MultihopMetric;
use super::network::fixed;
use coapcc_driver::metrics::Quantiles;

/// The summary of one algorithm over all its runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Algorithm name.
    pub algorithm: String,
    /// Runs summarised.
    pub runs: usize,
    /// What the runs measured, by model.
    pub of: SummaryOf,
}

/// What a [`Summary`] holds, by model.
#[derive(Clone, Debug, PartialEq)]
pub enum SummaryOf {
    /// Network runs: flows and exchanges.
    Network(Box<NetworkSummary>),
    /// RTT-trace runs: the estimator's error.
    Trace(TraceSummary),
    /// Multihop runs: every run metric's mean and confidence interval.
    Multihop(MultihopSummary),
}

/// A summary of network runs.
#[derive(Clone, Debug, PartialEq)]
pub struct NetworkSummary {
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
    /// left out of the FCT quantiles (see [`coapcc_driver::metrics::RunMetrics::flows_unfinished`]).
    pub flows_unfinished: u64,
    /// Flows summed over all runs.
    pub flows_total: u64,
    /// CoAP RTT samples over all runs (the values of [`Self::rtt`]).
    pub rtt_samples: u64,
    /// Expired retransmission timers over all runs (the values of [`Self::expired_rto`]).
    pub expired_rto_count: u64,
    /// The 95 % interval, by order statistics, of the median over the replications of each
    /// run's median FCT ([`median_ci95`]; none with fewer than 6 replications), s.
    pub fct_run_median_ci: MedianInterval,
}

/// A summary of RTT-trace runs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceSummary {
    /// Mean RMSE of (RTO − RTT), ms.
    pub rmse_ms: f64,
    /// Mean spurious count.
    pub spurious: f64,
}

/// A summary of multihop runs.
#[derive(Clone, Debug, PartialEq)]
pub struct MultihopSummary {
    /// Whether the runs are Lim's TCP reports (their own metrics and table columns).
    pub tcp: bool,
    /// Every run metric of the runs, in `runs.csv` order.
    pub metrics: Vec<MetricSummary>,
}

/// One multihop run metric over the replications.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MetricSummary {
    /// The metric.
    pub metric: MultihopMetric,
    /// Mean over the replications.
    pub mean: f64,
    /// Student-t 95 % confidence half-width (0 for one replication).
    pub ci95: f64,
}

impl Summary {
    /// The network summary, if the runs were network runs.
    pub fn network(&self) -> Option<&NetworkSummary> {
        match &self.of {
            SummaryOf::Network(n) => Some(n),
            _ => None,
        }
    }

    /// The RTT-trace summary, if the runs were RTT-trace runs.
    pub fn trace(&self) -> Option<&TraceSummary> {
        match &self.of {
            SummaryOf::Trace(t) => Some(t),
            _ => None,
        }
    }

    /// The multihop summary, if the runs were multihop runs.
    pub fn multihop(&self) -> Option<&MultihopSummary> {
        match &self.of {
            SummaryOf::Multihop(m) => Some(m),
            _ => None,
        }
    }
}

impl MultihopSummary {
    /// The mean and confidence interval of `metric`, when the runs have it.
    pub fn get(&self, metric: MultihopMetric) -> Option<&MetricSummary> {
        self.metrics.iter().find(|m| m.metric == metric)
    }
}

const NO_QUANTILES: Quantiles = Quantiles { p10: f64::NAN, p25: f64::NAN, p50: f64::NAN, p75: f64::NAN, p90: f64::NAN };

impl NetworkSummary {
    /// The summary of no network run (every quantile and mean NaN, every count 0): what an
    /// RTT-trace row of `summary.csv` holds in the network columns.
    pub const NONE: NetworkSummary = NetworkSummary {
        fct: NO_QUANTILES,
        retransmissions: NO_QUANTILES,
        unnecessary: NO_QUANTILES,
        goodput_per_s: f64::NAN,
        loss_ratio: f64::NAN,
        overhead: f64::NAN,
        rtt: NO_QUANTILES,
        expired_rto: NO_QUANTILES,
        unnecessary_total: 0,
        completed_total: 0,
        drops_buffer_total: 0,
        flows_unfinished: 0,
        flows_total: 0,
        rtt_samples: 0,
        expired_rto_count: 0,
        fct_run_median_ci: MedianInterval::NONE,
    };
}

impl TraceSummary {
    /// The summary of no RTT-trace run (NaN): what a network row of `summary.csv` holds in the
    /// trace columns.
    pub const NONE: TraceSummary = TraceSummary { rmse_ms: f64::NAN, spurious: f64::NAN };
}

/// The header of a network or RTT-trace `summary.csv`.
const FLOWS_HEADER: &str = "algorithm,runs,fct_p10_s,fct_p25_s,fct_p50_s,fct_p75_s,fct_p90_s,retransmissions_median,unnecessary_retransmissions_median,goodput_per_s,loss_ratio,overhead,rtt_p10_s,rtt_p25_s,rtt_p50_s,rtt_p75_s,rtt_p90_s,expired_rto_p10_s,expired_rto_p25_s,expired_rto_p50_s,expired_rto_p75_s,expired_rto_p90_s,rmse_ms,spurious,flows_unfinished,fct_run_median_ci95_lo_s,fct_run_median_ci95_hi_s,fct_run_median_ci_level";

/// The header of a multihop `summary.csv`.
const MULTIHOP_HEADER: &str = "algorithm,metric,mean,ci95,replications";

/// The (network, trace) columns of a network or RTT-trace summary; `None` for a multihop one.
fn flow_parts(m: &Summary) -> Option<(&NetworkSummary, &TraceSummary)> {
    match &m.of {
        SummaryOf::Network(n) => Some((n, &TraceSummary::NONE)),
        SummaryOf::Trace(t) => Some((&NetworkSummary::NONE, t)),
        SummaryOf::Multihop(_) => None,
    }
}

/// Whether `summaries` are multihop summaries (their `summary.csv` is long-format).
fn is_multihop(summaries: &[Summary]) -> bool {
    summaries.first().is_some_and(|s| s.multihop().is_some())
}

/// The header line of the `summary.csv` of `summaries` (without its newline): a multihop one
/// or, also for none, the network and RTT-trace one.
pub fn summary_csv_header(summaries: &[Summary]) -> &'static str {
    if is_multihop(summaries) { MULTIHOP_HEADER } else { FLOWS_HEADER }
}

/// The rows of `summary.csv` below its header, without their newlines: one per algorithm
/// (network, RTT trace; fixed precision), or one per algorithm and run metric (multihop;
/// full precision).
pub fn summary_csv_rows(summaries: &[Summary]) -> Vec<String> {
    let mut rows = Vec::new();
    for m in summaries {
        match flow_parts(m) {
            Some((n, t)) => {
                let q = |q: &Quantiles| {
                    format!("{},{},{},{},{}", fixed(q.p10), fixed(q.p25), fixed(q.p50), fixed(q.p75), fixed(q.p90))
                };
                let ci = &n.fct_run_median_ci;
                rows.push(format!(
                    "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                    m.algorithm,
                    m.runs,
                    q(&n.fct),
                    fixed(n.retransmissions.p50),
                    fixed(n.unnecessary.p50),
                    fixed(n.goodput_per_s),
                    fixed(n.loss_ratio),
                    fixed(n.overhead),
                    q(&n.rtt),
                    q(&n.expired_rto),
                    fixed(t.rmse_ms),
                    fixed(t.spurious),
                    n.flows_unfinished,
                    fixed(ci.lo),
                    fixed(ci.hi),
                    fixed(ci.level)
                ));
            }
            None => {
                for x in m.multihop().map_or(&[][..], |h| &h.metrics) {
                    let (a, name) = (quoted(&m.algorithm), quoted(x.metric.name()));
                    rows.push(format!("{a},{name},{},{},{}", full(x.mean), full(x.ci95), m.runs));
                }
            }
        }
    }
    rows
}

/// `summary.csv`: its header, then [`summary_csv_rows`], one line each.
pub fn summary_csv(summaries: &[Summary]) -> String {
    let mut s = format!("{}\n", summary_csv_header(summaries));
    for row in summary_csv_rows(summaries) {
        s.push_str(&row);
        s.push('\n');
    }
    s
}

/// The columns of `summary.csv`.
pub fn summary_columns(summaries: &[Summary]) -> Columns {
    if is_multihop(summaries) {
        let mut b = Builder::new(MULTIHOP_HEADER, "ssffu");
        for m in summaries {
            for x in m.multihop().map_or(&[][..], |h| &h.metrics) {
                b.s(&m.algorithm).s(x.metric.name()).f(x.mean).f(x.ci95).u(m.runs as u64);
            }
        }
        return b.finish();
    }
    let mut b = Builder::new(FLOWS_HEADER, "suffffffffffffffffffffffufff");
    for (m, (n, t)) in summaries.iter().filter_map(|m| Some((m, flow_parts(m)?))) {
        b.s(&m.algorithm)
            .u(m.runs as u64)
            .q(&n.fct)
            .f(n.retransmissions.p50)
            .f(n.unnecessary.p50)
            .f(n.goodput_per_s)
            .f(n.loss_ratio)
            .f(n.overhead)
            .q(&n.rtt)
            .q(&n.expired_rto)
            .f(t.rmse_ms)
            .f(t.spurious)
            .u(n.flows_unfinished)
            .f(n.fct_run_median_ci.lo)
            .f(n.fct_run_median_ci.hi)
            .f(n.fct_run_median_ci.level);
    }
    b.finish()
}

/// The table `coapcc sim` prints after a run: per algorithm, FCT quantiles and the per-flow and
/// per-run metrics (network), RMSE and spurious counts (RTT trace), or `mean ± ci95` of the
/// main run metrics (multihop).
pub fn summary_table(summaries: &[Summary]) -> String {
    if is_multihop(summaries) {
        let tcp = summaries.iter().filter_map(Summary::multihop).any(|m| m.tcp);
        return multihop_table(summaries, tcp);
    }
    let trace = summaries.iter().any(|s| s.trace().is_some());
    let mut rows: Vec<Vec<String>> = Vec::new();
    let f = |x: f64, d: usize| if x.is_finite() { format!("{x:.d$}") } else { "-".into() };
    if trace {
        rows.push(vec!["algorithm".into(), "runs".into(), "rmse_ms".into(), "spurious".into()]);
        for (m, (_, t)) in summaries.iter().filter_map(|m| Some((m, flow_parts(m)?))) {
            rows.push(vec![m.algorithm.clone(), m.runs.to_string(), f(t.rmse_ms, 1), f(t.spurious, 1)]);
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
        for (m, (n, _)) in summaries.iter().filter_map(|m| Some((m, flow_parts(m)?))) {
            rows.push(vec![
                m.algorithm.clone(),
                m.runs.to_string(),
                f(n.fct.p10, 1),
                f(n.fct.p25, 1),
                f(n.fct.p50, 1),
                f(n.fct.p75, 1),
                f(n.fct.p90, 1),
                f(n.retransmissions.p50, 1),
                f(n.unnecessary.p50, 1),
                f(n.goodput_per_s, 3),
                f(n.loss_ratio, 4),
                f(n.overhead, 4),
                n.flows_unfinished.to_string(),
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
    // summary.csv's interval of the median needs 6 replications with a median FCT: say why it
    // is empty (not for a run without any FCT, whose median is empty too).
    let no_interval = |n: &&NetworkSummary| n.fct.p50.is_finite() && n.fct_run_median_ci.lo.is_nan();
    if let Some(m) = summaries.iter().find(|m| m.network().filter(no_interval).is_some()) {
        let n = if m.runs == 1 { "1 replication is".to_string() } else { format!("{} replications are", m.runs) };
        let _ = writeln!(
            out,
            "note: {n} too few for a 95 % interval of the median FCT (6 with a median FCT are needed); summary.csv's fct_run_median_ci columns are empty"
        );
    }
    // Unfinished flows have no FCT: say so rather than let the quantiles look complete.
    for m in summaries {
        if let Some(n) = m.network().filter(|n| n.flows_unfinished > 0) {
            let _ = writeln!(
                out,
                "warning: {}: {} of {} flows did not finish before the time limit (time_limit_ms); its FCT quantiles are over the finished flows only",
                m.algorithm, n.flows_unfinished, n.flows_total
            );
        }
    }
    out
}

/// The metrics shown in the printed multihop table, by workload kind.
fn table_metrics(tcp: bool) -> &'static [MultihopMetric] {
    use MultihopMetric as M;
    if tcp {
        &[M::GoodputBps, M::RetransmittedSegments, M::Fairness, M::ConnectionFailures, M::DutyCycleMean]
    } else {
        &[
            M::ThroughputPerS,
            M::DurationMeanS,
            M::RetriesPerExchange,
            M::GoodputPerS,
            M::AppLossRatio,
            M::Overhead,
            M::DutyCycleMean,
        ]
    }
}

/// The printed multihop summary: one row per algorithm, `mean ± ci95` per main metric.
fn multihop_table(summaries: &[Summary], tcp: bool) -> String {
    let cols = table_metrics(tcp);
    let mut rows: Vec<Vec<String>> =
        vec![std::iter::once("algorithm".to_string()).chain(cols.iter().map(|c| c.name().to_string())).collect()];
    for m in summaries {
        let mut row = vec![m.algorithm.clone()];
        for c in cols {
            let cell = m
                .multihop()
                .and_then(|h| h.get(*c))
                .map_or(String::from("-"), |x| format!("{} ± {}", sig(x.mean), sig(x.ci95)));
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

#[cfg(test)]
mod tests {
    use super::super::columns::csv_of;
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
    fn three_significant_digits_are_printed() {
        assert_eq!(sig(1234.5), "1234");
        assert_eq!(sig(0.012345), "0.0123");
        assert_eq!(sig(1.5), "1.50");
    }

    fn trace(algorithm: &str, rmse_ms: f64, spurious: f64) -> Summary {
        Summary { algorithm: algorithm.into(), runs: 2, of: SummaryOf::Trace(TraceSummary { rmse_ms, spurious }) }
    }

    #[test]
    fn an_rtt_trace_row_leaves_the_network_columns_empty_and_counts_no_unfinished_flow() {
        let csv = summary_csv(&[trace("idc", 1229.912328, 592.0)]);
        assert_eq!(csv.lines().nth(1), Some("idc,2,,,,,,,,,,,,,,,,,,,,,1229.912328,592.000000,0,,,"));
        assert!(summary_table(&[trace("idc", 1229.912328, 592.0)]).starts_with("algorithm  runs  rmse_ms  spurious\n"));
    }

    #[test]
    fn a_multihop_summary_is_one_row_per_metric_and_its_text_is_its_columns() {
        let m = Summary {
            algorithm: "uip,x".into(),
            runs: 3,
            of: SummaryOf::Multihop(MultihopSummary {
                tcp: true,
                metrics: vec![
                    MetricSummary { metric: MultihopMetric::GoodputBps, mean: 960.5, ci95: 12.25 },
                    MetricSummary { metric: MultihopMetric::Fairness, mean: f64::NAN, ci95: 0.0 },
                ],
            }),
        };
        let csv = summary_csv(std::slice::from_ref(&m));
        assert_eq!(
            csv,
            "algorithm,metric,mean,ci95,replications\n\"uip,x\",goodput_bps,960.5,12.25,3\n\"uip,x\",fairness,,0,3\n"
        );
        assert_eq!(csv_of(&summary_columns(std::slice::from_ref(&m))), csv);
        let table = summary_table(&[m]);
        assert!(table.starts_with("algorithm  goodput_bps  retransmitted_segments"), "{table}");
        assert_eq!(
            table.lines().nth(1),
            Some("uip,x      960 ± 12.2   -                       NaN ± 0   -                    -")
        );
    }
}
