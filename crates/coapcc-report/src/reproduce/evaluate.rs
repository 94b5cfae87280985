//! Our number for each published claim, and whether the claim holds.

use coapcc_driver::metrics::SeriesPoint;
use coapcc_sim::results::{MetricSummary, MultihopMetric, NetworkSummary, Summary, TraceSummary};

use super::experiments::Case;
use super::published::{At, Check, Claim, Comparison, DEFAULT_BAND, Kind, Quantity, Rows};
use super::transfer::Transfer;

/// Time series kept from the first replication of a case (for figures).
#[derive(Clone, Debug, Default)]
pub enum CaseSeries {
    /// Nothing worth plotting over time.
    #[default]
    None,
    /// RTT-trace runs: per algorithm, the leading (RTT, RTO) pairs in ms.
    Trace(Vec<(String, Vec<(f64, f64)>)>),
    /// Long-lived runs: per algorithm, per-window rates.
    Rates(Vec<(String, Vec<SeriesPoint>)>),
    /// Window-of-one TCP runs (Lim 2020 Figs. 2–3): per algorithm, the per-node traces of
    /// replication 0 (`rto_series.csv`).
    TcpTraces(Vec<(String, Vec<TcpTrace>)>),
    /// Continuous CoAP flows of a multihop run (Betzler's cross-traffic burst): per algorithm,
    /// per flow of replication 0, its server node and (completion time s, exchange duration s,
    /// RTO after it s).
    FlowSeries(Vec<(String, Vec<FlowSeries>)>),
}

/// One continuous flow's series: its server node and (completion time s, exchange duration s,
/// RTO after it s) per completed exchange.
pub type FlowSeries = (u16, Vec<(f64, f64, f64)>);

/// One mote's trace of a TCP run (spec multihop.md §4.4): its RTT samples and the timers armed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TcpTrace {
    /// The mote.
    pub node: u16,
    /// Its hop count to the border router.
    pub hops: u32,
    /// Karn-valid RTT samples: (time s, RTT s).
    pub rtt_s: Vec<(f64, f64)>,
    /// Retransmission timers as armed: (time s, RTO s).
    pub rto_s: Vec<(f64, f64)>,
}

/// Everything the report needs of one case.
#[derive(Clone, Debug)]
pub struct CaseResult {
    /// The case.
    pub case: Case,
    /// Its scenario's description and source.
    pub description: String,
    /// Its source.
    pub source: String,
    /// Seed and replications actually run.
    pub seed: u64,
    /// Replications per algorithm.
    pub replications: u32,
    /// Per algorithm, in scenario order.
    pub summaries: Vec<Summary>,
    /// Each replication's summaries alone (per algorithm, in scenario order), when the case ran
    /// enough replications for a 95 % interval of a median over them (the investigation
    /// figures' error bars); else empty.
    pub per_replication: Vec<Vec<Summary>>,
    /// Time series of replication 0.
    pub series: CaseSeries,
    /// The RTT trace of an RTT-trace case (`None` for every other model).
    pub trace: Option<coapcc_driver::TraceConfig>,
    /// A TCP multihop case drawn by a trace figure: per algorithm, each mote's Karn-valid RTT
    /// samples (s) in replication 0 (the run the figure draws); empty otherwise.
    pub rtt_samples_rep0: Vec<(String, Vec<Vec<f64>>)>,
    /// A case whose flows each fetch one object (`[tcp]`, `[coap.blockwise]`): the object's
    /// size and, over CoAP over TCP, what only TCP has; none for every other case.
    pub transfer: Option<Transfer>,
}

/// Mean and 95 % confidence half-width.
type MeanCi = (f64, f64);

impl CaseResult {
    /// The summary of `algorithm`.
    pub fn of(&self, algorithm: &str) -> Option<&Summary> {
        self.summaries.iter().find(|s| s.algorithm == algorithm)
    }

    /// Whether this is a multihop case (its summaries hold run metrics).
    pub fn is_multihop(&self) -> bool {
        self.summaries.iter().any(|s| s.multihop().is_some())
    }

    /// Multihop run metric `metric` of `algorithm` (its mean and 95 % confidence interval over
    /// the replications), when the case has it.
    pub fn metric(&self, algorithm: &str, metric: MultihopMetric) -> Option<&MetricSummary> {
        self.of(algorithm)?.multihop()?.get(metric)
    }
}

/// How a claim came out.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Our number satisfies the claim's check.
    Holds,
    /// It does not.
    Differs,
    /// A direction claim whose value lies within the run-to-run noise: the noise test (the
    /// 95 % bootstrap interval of its mean over the replications, [`super::noise`]) does not
    /// lie wholly on one side of the check's bound (the interval and the bound, in words).
    Inconclusive(String),
    /// It could not be computed (the reason).
    NotEvaluated(String),
}

impl Verdict {
    /// A word for tables.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Differs => "differs",
            Verdict::Inconclusive(_) => "inconclusive",
            Verdict::NotEvaluated(_) => "not evaluated",
        }
    }

    /// A mark that tells the verdicts apart without colour: `✔` holds, `✘` differs, `~`
    /// inconclusive, `?` not evaluated.
    pub fn icon(&self) -> &'static str {
        match self {
            Verdict::Holds => "✔",
            Verdict::Differs => "✘",
            Verdict::Inconclusive(_) => "~",
            Verdict::NotEvaluated(_) => "?",
        }
    }

    /// The reason of a verdict that is neither holds nor differs.
    pub fn reason(&self) -> Option<&str> {
        match self {
            Verdict::Inconclusive(r) | Verdict::NotEvaluated(r) => Some(r),
            _ => None,
        }
    }

    /// The mark and the word, as the report pages show a verdict (`✔ holds`).
    pub fn label(&self) -> String {
        format!("{} {}", self.icon(), self.word())
    }
}

/// A claim with our number.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The claim.
    pub claim: Claim,
    /// Our value (NaN when not evaluated).
    pub ours: f64,
    /// ours / published (NaN when undefined).
    pub ratio: f64,
    /// The verdict.
    pub verdict: Verdict,
    /// The rule applied, in words (`holds if 0.8 ≤ ours/published ≤ 1.25`).
    pub rule: String,
    /// A direction claim's noise test: the 95 % bootstrap interval of the mean over the
    /// replications of its value on each replication alone (none when not tested).
    pub noise: Option<[f64; 2]>,
    /// A numeric claim with a band of its own (wider, with its reason): that band and whether
    /// ours/published lies in it. A second verdict, never the headline's.
    pub own_band: Option<([f64; 2], bool)>,
}

fn find<'a>(cases: &'a [CaseResult], name: &str) -> Result<&'a CaseResult, String> {
    cases.iter().find(|c| c.case.name == name).ok_or_else(|| format!("case `{name}` was not run"))
}

/// The network part of a summary: every quantity NaN for another model's (as the columns of
/// `summary.csv`).
pub(crate) fn net(s: &Summary) -> &NetworkSummary {
    s.network().unwrap_or(&NetworkSummary::NONE)
}

/// The RTT-trace part of a summary: NaN for another model's.
pub(crate) fn tr(s: &Summary) -> &TraceSummary {
    s.trace().unwrap_or(&TraceSummary::NONE)
}

fn of<'a>(c: &'a CaseResult, a: &str) -> Result<&'a Summary, String> {
    c.of(a).ok_or_else(|| format!("algorithm `{a}` not in case `{}`", c.case.name))
}

/// The points of a sweep: (x, case) for every case run as part of `sweep`.
pub fn sweep_points<'a>(cases: &'a [CaseResult], sweep: &str) -> Vec<(f64, &'a CaseResult)> {
    cases
        .iter()
        .filter_map(|c| match &c.case.sweep {
            Some((s, x)) if s == sweep => Some((*x, c)),
            _ => None,
        })
        .collect()
}

/// Mean ResBW of a sweep point: the low-variability sweep's x is the mean; the high-variability
/// sweep is centred on 1 packet/s.
fn mean_resbw(sweep: &str, x: f64) -> f64 {
    if sweep.contains("high-variability") { 1.0 } else { x }
}

/// Where a base quantity is measured: one case, or the points of a sweep.
enum Place<'a> {
    Case(&'a CaseResult),
    Sweep(&'a str, Vec<(f64, &'a CaseResult)>),
}

fn place<'a>(cases: &'a [CaseResult], at: At<'a>) -> Result<Place<'a>, String> {
    match at {
        At::Sweep(s, range) => {
            let mut pts = sweep_points(cases, s);
            if let Some([lo, hi]) = range {
                pts.retain(|(x, _)| (lo..=hi).contains(&mean_resbw(s, *x)));
            }
            if pts.is_empty() {
                return Err(format!("sweep `{s}` was not run (or no point in the ResBW range)"));
            }
            Ok(Place::Sweep(s, pts))
        }
        At::Case(c) => Ok(Place::Case(find(cases, c)?)),
    }
}

/// A per-case quantity of one algorithm.
fn case_scalar(x: Quantity, s: &Summary) -> Option<f64> {
    Some(match x {
        Quantity::FctMedian => net(s).fct.p50,
        Quantity::FctP10P90 => net(s).fct.p90 - net(s).fct.p10,
        Quantity::UnnecessaryMedian => net(s).unnecessary.p50,
        Quantity::RetransmissionsMedian => net(s).retransmissions.p50,
        Quantity::ExpiredRtoMedian => net(s).expired_rto.p50,
        Quantity::RttMedian => net(s).rtt.p50,
        Quantity::Goodput => net(s).goodput_per_s,
        Quantity::LossRatio => net(s).loss_ratio,
        Quantity::Overhead => net(s).overhead,
        Quantity::RmseMs => tr(s).rmse_ms,
        Quantity::Spurious => tr(s).spurious,
        _ => return None,
    })
}

/// A base quantity X of algorithm `a` at a place.
fn base(x: Quantity, at: &Place<'_>, a: &str) -> Result<f64, String> {
    match at {
        Place::Case(c) if matches!(x, Quantity::DataSegmentsMedian | Quantity::HeaderBytesMedian) => {
            let t = c.transfer.as_ref().and_then(|t| t.tcp_of(a)).ok_or_else(|| {
                format!("`{}` needs a CoAP-over-TCP case with `{a}`; `{}` is not one", x.name(), c.case.name)
            })?;
            Ok(match x {
                Quantity::HeaderBytesMedian => t.header_bytes_median(),
                _ => t.data_segments_median,
            })
        }
        Place::Case(c) => {
            case_scalar(x, of(c, a)?).ok_or_else(|| format!("metric `{}` needs a sweep or is unknown", x.name()))
        }
        Place::Sweep(sweep, pts) => {
            let xy: Vec<(f64, &Summary)> =
                pts.iter().map(|(x, c)| Ok((mean_resbw(sweep, *x), of(c, a)?))).collect::<Result<_, String>>()?;
            let g: Vec<(f64, f64)> = xy.iter().map(|(x, s)| (*x, net(s).goodput_per_s)).collect();
            let o: Vec<f64> = xy.iter().map(|(_, s)| net(s).overhead).filter(|v| v.is_finite()).collect();
            Ok(match x {
                Quantity::GoodputSlope => slope(&g),
                Quantity::GoodputLinearityR2 => r_squared(&g),
                Quantity::PlateauGoodput => {
                    let v: Vec<f64> = if sweep.contains("high-variability") {
                        g.iter().map(|p| p.1).collect()
                    } else {
                        g.iter().filter(|p| p.0 >= 0.5).map(|p| p.1).collect()
                    };
                    coapcc_driver::metrics::mean(&v)
                }
                Quantity::MeanGoodput => coapcc_driver::metrics::mean(&g.iter().map(|p| p.1).collect::<Vec<_>>()),
                Quantity::MaxOverhead => o.iter().copied().fold(f64::NAN, |m, v| if m >= v { m } else { v }),
                Quantity::MeanOverhead => coapcc_driver::metrics::mean(&o),
                other => return Err(format!("metric `{}` is not defined over a sweep", other.name())),
            })
        }
    }
}

fn ratio_minus_one(x: f64, y: f64) -> f64 {
    if y == 0.0 { f64::NAN } else { x / y - 1.0 }
}

fn reduction(x: f64, y: f64) -> f64 {
    if y == 0.0 { f64::NAN } else { 1.0 - x / y }
}

fn trace_rows(cases: &[CaseResult]) -> Vec<&CaseResult> {
    cases.iter().filter(|c| c.trace.is_some()).collect()
}

fn wins(cases: &[CaseResult], ab: &Rows, pick: impl Fn(&Summary, &Summary) -> bool) -> Result<f64, String> {
    let rows = trace_rows(cases);
    if rows.is_empty() {
        return Err("no RTT-trace case was run".into());
    }
    let (a, b) = (ab.a.as_str(), ab.b.as_str());
    let mut n = 0usize;
    for c in &rows {
        if pick(of(c, a)?, of(c, b)?) {
            n += 1;
        }
    }
    Ok(n as f64 / rows.len() as f64)
}

fn fold_max(v: impl Iterator<Item = f64>) -> f64 {
    v.filter(|x| x.is_finite()).fold(f64::NAN, |m, x| if m >= x { m } else { x })
}

/// Multihop run metric `of` of algorithm `a` in case `case`: its mean and 95 % confidence
/// half-width over the replications.
fn mh_values(cases: &[CaseResult], case: &str, a: &str, of: &str) -> Result<MeanCi, String> {
    let c = find(cases, case)?;
    let m =
        c.of(a).and_then(Summary::multihop).ok_or_else(|| format!("algorithm `{a}` not in multihop case `{case}`"))?;
    of.parse::<MultihopMetric>()
        .ok()
        .and_then(|metric| m.get(metric))
        .map(|x| (x.mean, x.ci95))
        .ok_or_else(|| format!("case `{case}` has no run metric `{of}`"))
}

/// The multihop metrics (`mh_mean`, `mh_gain`, `mh_diff`, `mh_ci_gap`, `mh_ratio`,
/// `mh_spread_diff`, `mh_drop_diff`, `mh_decrease_min`, `mh_gain_diff`).
fn mh_metric(cases: &[CaseResult], kind: Kind<'_>) -> Result<f64, String> {
    let pair = |m: &super::published::MhOf| -> Result<(MeanCi, MeanCi), String> {
        let b = m.b.as_deref().unwrap_or(&m.a);
        let case_b = m.case_b.as_deref().unwrap_or(&m.case);
        Ok((mh_values(cases, &m.case, &m.a, &m.of)?, mh_values(cases, case_b, b, &m.of)?))
    };
    match kind {
        Kind::MhMean(m) => Ok(mh_values(cases, &m.case, &m.a, &m.of)?.0),
        Kind::MhGain(m) => pair(m).map(|((a, _), (b, _))| a / b - 1.0),
        Kind::MhDiff(m) => pair(m).map(|((a, _), (b, _))| a - b),
        Kind::MhRatio(m) => pair(m).map(|((a, _), (b, _))| a / b),
        Kind::MhCiGap(m) => pair(m).map(|((a, ca), (b, cb))| ci_gap(a, ca, b, cb)),
        Kind::MhSpreadDiff(m) => {
            let spread = |case: &str| -> Result<f64, String> {
                let means: Vec<f64> = m
                    .algorithms
                    .iter()
                    .map(|a| mh_values(cases, case, a, &m.of).map(|v| v.0))
                    .collect::<Result<_, _>>()?;
                let max = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let min = means.iter().copied().fold(f64::INFINITY, f64::min);
                Ok(if min > 0.0 { max / min - 1.0 } else { f64::NAN })
            };
            Ok(spread(&m.case)? - spread(&m.case_b)?)
        }
        Kind::MhDropDiff(m) => {
            let drop = |[from, to]: &[String; 2]| -> Result<f64, String> {
                let x = mh_values(cases, from, &m.a, &m.of)?.0;
                let y = mh_values(cases, to, &m.a, &m.of)?.0;
                Ok(reduction(y, x))
            };
            Ok(drop(&m.cases)? - drop(&m.cases_b)?)
        }
        Kind::MhDecreaseMin(m) => {
            let means: Vec<f64> =
                m.cases.iter().map(|c| mh_values(cases, c, &m.a, &m.of).map(|v| v.0)).collect::<Result<_, _>>()?;
            // NaN as soon as one step is undefined (min ignores NaN, so fold by hand).
            Ok(means
                .windows(2)
                .map(|w| reduction(w[1], w[0]))
                .fold(f64::INFINITY, |lo, d| if lo.is_nan() || d.is_nan() { f64::NAN } else { lo.min(d) }))
        }
        Kind::MhGainDiff(m) => {
            let gain = |case: &str| -> Result<f64, String> {
                let a = mh_values(cases, case, &m.a, &m.of)?.0;
                let b = mh_values(cases, case, &m.b, &m.of)?.0;
                Ok(ratio_minus_one(a, b))
            };
            Ok(gain(&m.case)? - gain(&m.case_b)?)
        }
        _ => Err("not a multihop metric".into()),
    }
}

/// The gap between the intervals `a ± ca` and `b ± cb`, relative to `b`: > 0 iff a's interval
/// lies wholly above b's, < 0 iff wholly below, 0 if they overlap (or touch).
pub fn ci_gap(a: f64, ca: f64, b: f64, cb: f64) -> f64 {
    let scale = if b.abs() > 0.0 { b.abs() } else { 1.0 };
    if a - ca > b + cb {
        (a - ca - (b + cb)) / scale
    } else if a + ca < b - cb {
        (a + ca - (b - cb)) / scale
    } else {
        0.0
    }
}

/// Our value for a claim's metric (definitions: `data/published/README.md`).
pub(crate) fn metric(cases: &[CaseResult], claim: &Claim) -> Result<f64, String> {
    match claim.metric.kind() {
        k @ (Kind::MhMean(_)
        | Kind::MhGain(_)
        | Kind::MhDiff(_)
        | Kind::MhCiGap(_)
        | Kind::MhRatio(_)
        | Kind::MhSpreadDiff(_)
        | Kind::MhDropDiff(_)
        | Kind::MhDecreaseMin(_)
        | Kind::MhGainDiff(_)) => mh_metric(cases, k),
        Kind::FctMedianSpread(m) => {
            let c = find(cases, &m.case)?;
            let meds: Vec<f64> =
                m.algorithms.iter().map(|a| of(c, a).map(|s| net(s).fct.p50)).collect::<Result<_, _>>()?;
            let max = meds.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let min = meds.iter().copied().fold(f64::INFINITY, f64::min);
            Ok(max / min - 1.0)
        }
        Kind::UnnecessaryReductionMax(m) => unnecessary_reduction_max(cases, &m.cases, &[[m.a.clone(), m.b.clone()]]),
        Kind::MhTraceNodes(m) => {
            let c = find(cases, &m.case)?;
            let motes = c.rtt_samples_rep0.iter().find(|(a, _)| *a == m.a).map(|(_, n)| n).ok_or_else(|| {
                format!(
                    "case `{}` kept no RTT traces of `{}` (replication 0 is traced for a case a trace figure draws)",
                    m.case, m.a
                )
            })?;
            let few_and_long =
                |s: &&Vec<f64>| !s.is_empty() && s.len() <= m.max_samples as usize && s.iter().all(|&x| x > m.above_s);
            Ok(motes.iter().filter(few_and_long).count() as f64)
        }
        Kind::UnnecessaryReductionMaxPairs(m) => unnecessary_reduction_max(cases, &m.cases, &m.pairs),
        Kind::UnnecessaryTotal(m) | Kind::BufferDropsTotal(m) => {
            let unnecessary = matches!(claim.metric.kind(), Kind::UnnecessaryTotal(_));
            let names: Vec<&str> = match &m.case {
                Some(c) if m.cases.is_empty() => vec![c.as_str()],
                _ => m.cases.iter().map(String::as_str).collect(),
            };
            let mut total = 0u64;
            for n in names {
                let c = find(cases, n)?;
                for a in &m.algorithms {
                    let s = of(c, a)?;
                    total += if unnecessary { net(s).unnecessary_total } else { net(s).drops_buffer_total };
                }
            }
            Ok(total as f64)
        }
        Kind::WastedCapacityFraction(m) => {
            let s = of(find(cases, &m.case)?, &m.a)?;
            let (u, c) = (net(s).unnecessary_total as f64, net(s).completed_total as f64);
            Ok(if u + c == 0.0 { f64::NAN } else { u / (u + c) })
        }
        Kind::LossRatioMax(m) => {
            let c = find(cases, &m.case)?;
            let v: Vec<f64> =
                m.algorithms.iter().map(|a| of(c, a).map(|s| net(s).loss_ratio)).collect::<Result<_, _>>()?;
            Ok(fold_max(v.into_iter()))
        }
        Kind::MaxOverheadOver(m) => {
            let at = place(cases, At::Sweep(&m.sweep, m.resbw_range))?;
            let v: Vec<f64> =
                m.algorithms.iter().map(|a| base(Quantity::MaxOverhead, &at, a)).collect::<Result<_, _>>()?;
            Ok(fold_max(v.into_iter()))
        }
        Kind::RmseWins(m) => wins(cases, m, |a, b| tr(a).rmse_ms < tr(b).rmse_ms),
        Kind::SpuriousWins(m) => wins(cases, m, |a, b| tr(a).spurious < tr(b).spurious),
        Kind::RmseAndSpuriousWins(m) => {
            wins(cases, m, |a, b| tr(a).rmse_ms < tr(b).rmse_ms && tr(a).spurious < tr(b).spurious)
        }
        // X_increase: X(a in cases[0]) / X(a in cases[1]) − 1.
        Kind::Increase(x, m) => {
            let [first, second] = &m.cases;
            let v1 = defined_base(x, &Place::Case(find(cases, first)?), &m.a)?;
            let v2 = defined_base(x, &Place::Case(find(cases, second)?), &m.a)?;
            nonzero(x, &m.a, v2, "increase")?;
            Ok(ratio_minus_one(v1, v2))
        }
        // X_reduction_min / X_gain_min over `against` (not empty: checked on load).
        Kind::CompareMin(x, how, m) => {
            let at = place(cases, m.at())?;
            let va = defined_base(x, &at, &m.a)?;
            let mut best = f64::INFINITY;
            for b in &m.against {
                let vb = defined_base(x, &at, b)?;
                nonzero(x, b, vb, how.word())?;
                best = best.min(compare(how, va, vb));
            }
            Ok(best)
        }
        // X_reduction / X_gain against `b`.
        Kind::Compare(x, how, m) => {
            let at = place(cases, m.at())?;
            let va = defined_base(x, &at, &m.a)?;
            let vb = defined_base(x, &at, &m.b)?;
            nonzero(x, &m.b, vb, how.word())?;
            Ok(compare(how, va, vb))
        }
        // A base quantity of `a`.
        Kind::Base(x, m) => defined_base(x, &place(cases, m.at())?, &m.a),
    }
}

/// A base quantity that must be defined: undefined (0/0, no samples, NaN) is an error saying which.
fn defined_base(x: Quantity, at: &Place<'_>, a: &str) -> Result<f64, String> {
    let v = base(x, at, a)?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(format!("`{}` of `{a}` is undefined in our run (0/0, no samples or NaN)", x.name()))
    }
}

/// The denominator of a comparison must not be 0.
fn nonzero(x: Quantity, b: &str, v: f64, what: &str) -> Result<(), String> {
    if v == 0.0 {
        Err(format!("`{}` of `{b}` is 0 in our run, so the {what} relative to it is undefined", x.name()))
    } else {
        Ok(())
    }
}

fn compare(how: Comparison, x: f64, y: f64) -> f64 {
    match how {
        Comparison::Reduction => reduction(x, y),
        Comparison::Gain => ratio_minus_one(x, y),
    }
}

/// The largest `unnecessary_median_reduction` over `names` and `pairs`.
fn unnecessary_reduction_max(cases: &[CaseResult], names: &[String], pairs: &[[String; 2]]) -> Result<f64, String> {
    let mut vals = Vec::new();
    for name in names {
        let c = find(cases, name)?;
        for [a, b] in pairs {
            vals.push(reduction(net(of(c, a)?).unnecessary.p50, net(of(c, b)?).unnecessary.p50));
        }
    }
    Ok(fold_max(vals.into_iter()))
}

/// R² of the least-squares line of y on x.
pub fn r_squared(xy: &[(f64, f64)]) -> f64 {
    let v: Vec<(f64, f64)> = xy.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
    if v.len() < 2 {
        return f64::NAN;
    }
    let n = v.len() as f64;
    let mx = v.iter().map(|p| p.0).sum::<f64>() / n;
    let my = v.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = v.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let syy: f64 = v.iter().map(|p| (p.1 - my).powi(2)).sum();
    let sxy: f64 = v.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx == 0.0 || syy == 0.0 { f64::NAN } else { sxy * sxy / (sxx * syy) }
}

/// Least-squares slope of y on x.
pub fn slope(xy: &[(f64, f64)]) -> f64 {
    let v: Vec<(f64, f64)> = xy.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
    let n = v.len() as f64;
    if v.len() < 2 {
        return f64::NAN;
    }
    let mx = v.iter().map(|p| p.0).sum::<f64>() / n;
    let my = v.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = v.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = v.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx == 0.0 { f64::NAN } else { sxy / sxx }
}

/// The rule of a check, in words, and whether `ours` satisfies it against `published`.
fn rule(check: Check, published: f64) -> (String, Box<dyn Fn(f64) -> bool>) {
    let p = published;
    match check {
        // The headline verdict is on the default band for every claim; a band of the claim's
        // own is a second verdict (`Outcome::own_band`).
        Check::Ratio { .. } => {
            let [lo, hi] = DEFAULT_BAND;
            (format!("holds if {lo} ≤ ours/published ≤ {hi}"), Box::new(move |o: f64| (lo..=hi).contains(&(o / p))))
        }
        Check::Sign {} => (
            "holds if ours has the sign of the published value".into(),
            Box::new(move |o: f64| o != 0.0 && (o > 0.0) == (p > 0.0)),
        ),
        Check::AtMost { value: v } => (format!("holds if ours ≤ {v}"), Box::new(move |o: f64| o <= v)),
        Check::AtLeast { value: v } => (format!("holds if ours ≥ {v}"), Box::new(move |o: f64| o >= v)),
        Check::Within { tolerance: t } => {
            (format!("holds if |ours − published| ≤ {t}"), Box::new(move |o: f64| (o - p).abs() <= t))
        }
    }
}

/// A base quantity in words and its unit (empty for a count or a fraction), for the values a
/// claim compares (`median FCT`, `s`).
pub fn quantity_words(x: Quantity) -> (&'static str, &'static str) {
    match x {
        Quantity::FctMedian => ("median FCT", "s"),
        Quantity::FctP10P90 => ("FCT p90 − p10", "s"),
        Quantity::UnnecessaryMedian => ("median unnecessary retransmissions per flow", ""),
        Quantity::RetransmissionsMedian => ("median retransmissions per flow", ""),
        Quantity::ExpiredRtoMedian => ("median expired RTO", "s"),
        Quantity::RttMedian => ("median CoAP RTT", "s"),
        Quantity::Goodput => ("goodput", "messages/s"),
        Quantity::LossRatio => ("loss ratio", ""),
        Quantity::Overhead => ("overhead (lost/delivered packets)", ""),
        Quantity::RmseMs => ("RMSE of RTO − RTT", "ms"),
        Quantity::Spurious => ("spurious timeouts", ""),
        Quantity::GoodputSlope => ("slope of goodput against mean ResBW", ""),
        Quantity::GoodputLinearityR2 => ("R² of goodput against mean ResBW", ""),
        Quantity::PlateauGoodput => ("plateau goodput", "messages/s"),
        Quantity::MeanGoodput => ("mean goodput", "messages/s"),
        Quantity::MaxOverhead => ("largest overhead", ""),
        Quantity::MeanOverhead => ("mean overhead", ""),
        Quantity::DataSegmentsMedian => ("median data segments per flow", ""),
        Quantity::HeaderBytesMedian => ("median header bytes of the data segments per flow", "B"),
    }
}

/// The last part of a case name in words (`fasor/400-flows-infinite-buffer-random` →
/// `400 flows infinite buffer random`), with the names a reader knows spelt as they are
/// (`1-to-1-no-rdc` → `1 to 1 no RDC`, `e2-contikimac-5x5` → `E2 ContikiMAC 5x5`).
pub fn case_words(case: &str) -> String {
    let last = case.rsplit('/').next().unwrap_or(case);
    let word = |w: &str| -> String {
        match w {
            "rdc" => "RDC".into(),
            "nullrdc" => "NullRDC".into(),
            "contikimac" => "ContikiMAC".into(),
            // Lim's experiments E0–E5.
            _ if w.len() == 2 && w.starts_with('e') && w[1..].chars().all(|c| c.is_ascii_digit()) => w.to_uppercase(),
            _ => w.replace("@tx=", "@TX=").replace("contikimac", "ContikiMAC"),
        }
    };
    last.split('-').map(word).collect::<Vec<_>>().join(" ")
}

/// An RTT-trace case's trace in words, for its panel title (Makarem's Table 1 notation:
/// U(lo, hi), N(mean, sd)): `Table 1 row 4: RTT U(100, 300) ms and N(3000, 100) ms,
/// alternating every 100 samples`.
pub fn trace_words(t: &coapcc_driver::TraceConfig) -> String {
    use coapcc_driver::RttDist;
    let dist = |d: &RttDist| match *d {
        RttDist::Uniform { lo_ms, hi_ms } => format!("U({lo_ms}, {hi_ms}) ms"),
        RttDist::Normal { mean_ms, sd_ms } => format!("N({mean_ms}, {sd_ms}) ms"),
        RttDist::Constant { ms } => format!("{ms} ms"),
        RttDist::Pareto { shape, scale_ms } => format!("Pareto(shape {shape}, scale {scale_ms} ms)"),
        RttDist::Wan { base_ms, .. } => format!("a synthetic WAN path ({base_ms} ms base)"),
    };
    let mut s = format!("Table 1 row {}: RTT {}", t.row, dist(&t.first));
    if let Some(second) = &t.second {
        s.push_str(&format!(" and {}, alternating every {} samples", dist(second), t.period));
    }
    if t.spikes {
        s.push_str(&format!(
            "; {} spikes of {} s per {} samples",
            t.spikes_per_block,
            t.spike_ms / 1000.0,
            t.spike_block
        ));
    }
    s
}

/// `s` with its first letter upper-case (a figure or panel title).
pub fn capitalised(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map(|c| c.to_uppercase().chain(chars).collect()).unwrap_or_default()
}

/// A claim's metric in words, for figure titles and axes: (what is compared, among which
/// algorithms and where; what the value is, with its unit, short enough for an axis since the
/// title names the quantity). `fct_median_reduction` of fasor against cocoa →
/// (`median FCT reduction: fasor vs cocoa (400 flows …)`, `reduction (fraction)`).
pub fn metric_words(metric: &super::published::Metric) -> (String, String) {
    let unit_of = |u: &str| if u.is_empty() { String::new() } else { format!(" ({u})") };
    let (what, value) = match metric.kind() {
        Kind::Base(x, m) => {
            let (w, u) = quantity_words(x);
            (format!("{w} of {}", m.a), format!("{w}{}", unit_of(u)))
        }
        Kind::Compare(x, how, m) => {
            let (w, _) = quantity_words(x);
            (format!("{w} {}: {} vs {}", how.word(), m.a, m.b), format!("{} (fraction)", how.word()))
        }
        Kind::CompareMin(x, how, m) => {
            let (w, _) = quantity_words(x);
            (
                format!("{w} {}: {} vs {}", how.word(), m.a, m.against.join(", ")),
                format!("smallest {} (fraction)", how.word()),
            )
        }
        Kind::Increase(x, m) => {
            let (w, _) = quantity_words(x);
            (
                format!("{w} increase of {}: {} vs {}", m.a, case_words(&m.cases[0]), case_words(&m.cases[1])),
                "increase (fraction)".to_string(),
            )
        }
        Kind::MhMean(m) => {
            let (w, u) = run_metric_words(&m.of);
            (format!("mean {w} of {}", m.a), format!("mean {w}{}", unit_of(u)))
        }
        Kind::MhGain(m) | Kind::MhDiff(m) | Kind::MhRatio(m) | Kind::MhCiGap(m) => {
            let (w, u) = run_metric_words(&m.of);
            let (how, axis) = match metric.kind() {
                Kind::MhGain(_) => ("gain", "gain (fraction)".to_string()),
                Kind::MhDiff(_) => ("difference", format!("difference of means{}", unit_of(u))),
                Kind::MhRatio(_) => ("ratio", "ratio of means".to_string()),
                _ => ("confidence-interval gap", "confidence-interval gap (fraction)".to_string()),
            };
            let b = m.b.as_deref().unwrap_or(&m.a);
            let versus = match &m.case_b {
                Some(cb) if *cb != m.case => format!("{} vs {b} in {}", m.a, case_words(cb)),
                _ => format!("{} vs {b}", m.a),
            };
            (format!("mean {w} {how}: {versus}"), axis)
        }
        Kind::UnnecessaryReductionMax(m) => (
            format!("largest median unnecessary-retransmission reduction: {} vs {}", m.a, m.b),
            "reduction (fraction)".to_string(),
        ),
        Kind::UnnecessaryReductionMaxPairs(m) => (
            format!("largest median unnecessary-retransmission reduction over {} pairs", m.pairs.len()),
            "reduction (fraction)".to_string(),
        ),
        Kind::MaxOverheadOver(m) => (
            format!("largest overhead of {}", m.algorithms.join(", ")),
            "overhead (lost / delivered packets)".to_string(),
        ),
        Kind::MhGainDiff(m) => {
            let (w, _) = run_metric_words(&m.of);
            (
                format!("mean {w} gain of {} over {} here minus in {}", m.a, m.b, case_words(&m.case_b)),
                "difference of gains (fraction)".to_string(),
            )
        }
        _ => {
            let w = metric.name().replace('_', " ");
            (w.clone(), w)
        }
    };
    match metric.case_or_sweep() {
        Some(c) => (format!("{what} ({})", case_words(c)), value),
        None => (what, value),
    }
}

/// A multihop run metric's column name (unit in the name) in words and its unit:
/// `duration_mean_s` → (`duration`, `s`), `goodput_bps` → (`goodput`, `bit/s`).
pub fn run_metric_words(name: &str) -> (String, &'static str) {
    let (stem, unit) = [("_per_s", "/s"), ("_bps", "bit/s"), ("_ms", "ms"), ("_s", "s")]
        .iter()
        .find_map(|(suffix, unit)| name.strip_suffix(suffix).map(|stem| (stem, *unit)))
        .unwrap_or((name, ""));
    // The metrics are means already (`duration_mean_s`): "mean" is said once, by the caller.
    let stem = stem.strip_suffix("_mean").unwrap_or(stem);
    (stem.replace('_', " "), unit)
}

/// A value with its unit (`12.3 s`; a count or fraction bare).
fn with_unit(v: f64, unit: &str) -> String {
    let n = num(v);
    match unit {
        "" => n,
        u if u.starts_with('/') => format!("{n}{u}"),
        u => format!("{n} {u}"),
    }
}

/// The values a claim compares (or the one it bounds), in words with the metric and its unit
/// (`median FCT: fasor 12.3 s vs cocoa 15.1 s`), so that a direction claim's "ours" reads as
/// more than a bare number. `None` for a metric that is no value of one quantity per algorithm
/// (counts of wins, sums, spreads) or when a value is missing.
pub fn compared(cases: &[CaseResult], claim: &Claim) -> Option<String> {
    let pairs: Vec<(String, f64)>;
    let (words, unit): (String, &str) = match claim.metric.kind() {
        Kind::Compare(x, _, m) => {
            let at = place(cases, m.at()).ok()?;
            pairs = vec![(m.a.clone(), base(x, &at, &m.a).ok()?), (m.b.clone(), base(x, &at, &m.b).ok()?)];
            let (w, u) = quantity_words(x);
            (w.to_string(), u)
        }
        Kind::CompareMin(x, _, m) => {
            let at = place(cases, m.at()).ok()?;
            let mut p = vec![(m.a.clone(), base(x, &at, &m.a).ok()?)];
            for b in &m.against {
                p.push((b.clone(), base(x, &at, b).ok()?));
            }
            pairs = p;
            let (w, u) = quantity_words(x);
            (w.to_string(), u)
        }
        Kind::Increase(x, m) => {
            let v = |case: &str| base(x, &Place::Case(find(cases, case).ok()?), &m.a).ok();
            let label = |case: &str| case.rsplit('/').next().unwrap_or(case).to_string();
            pairs = vec![(label(&m.cases[0]), v(&m.cases[0])?), (label(&m.cases[1]), v(&m.cases[1])?)];
            let (w, u) = quantity_words(x);
            (format!("{w} of {}", m.a), u)
        }
        Kind::Base(x, m) => {
            pairs = vec![(m.a.clone(), base(x, &place(cases, m.at()).ok()?, &m.a).ok()?)];
            let (w, u) = quantity_words(x);
            (w.to_string(), u)
        }
        Kind::MhMean(m) => {
            pairs = vec![(m.a.clone(), mh_values(cases, &m.case, &m.a, &m.of).ok()?.0)];
            let (w, u) = run_metric_words(&m.of);
            (format!("mean {w}"), u)
        }
        Kind::MhGain(m) | Kind::MhDiff(m) | Kind::MhRatio(m) | Kind::MhCiGap(m) => {
            let b = m.b.as_deref().unwrap_or(&m.a);
            let case_b = m.case_b.as_deref().unwrap_or(&m.case);
            let label = |a: &str, case: &str| {
                if case_b == m.case {
                    a.to_string()
                } else {
                    format!("{a} in {}", case.rsplit('/').next().unwrap_or(case))
                }
            };
            pairs = vec![
                (label(&m.a, &m.case), mh_values(cases, &m.case, &m.a, &m.of).ok()?.0),
                (label(b, case_b), mh_values(cases, case_b, b, &m.of).ok()?.0),
            ];
            let (w, u) = run_metric_words(&m.of);
            (format!("mean {w}"), u)
        }
        _ => return None,
    };
    if pairs.iter().any(|(_, v)| !v.is_finite()) {
        return None;
    }
    let values: Vec<String> = pairs.iter().map(|(a, v)| format!("{a} {}", with_unit(*v, unit))).collect();
    Some(format!("{words}: {}", values.join(" vs ")))
}

/// Evaluates a claim against the cases.
pub fn evaluate(cases: &[CaseResult], claim: &Claim) -> Outcome {
    let p = claim.published;
    let (rule, check) = rule(claim.check, p);
    match metric(cases, claim) {
        Ok(ours) if ours.is_finite() => {
            let ratio = if p != 0.0 && !claim.qualitative { ours / p } else { f64::NAN };
            Outcome {
                claim: claim.clone(),
                ours,
                ratio,
                verdict: if check(ours) { Verdict::Holds } else { Verdict::Differs },
                rule,
                noise: None,
                own_band: claim.own_band().map(|[lo, hi]| ([lo, hi], (lo..=hi).contains(&ratio))),
            }
        }
        // The evaluation rules (docs/reproduction-status.md, "Reproduction status"): an undefined value (0/0, no samples, NaN) is not evaluated, with the
        // reason, never "holds" or "differs" by accident.
        Ok(ours) => Outcome {
            claim: claim.clone(),
            ours: f64::NAN,
            ratio: f64::NAN,
            verdict: Verdict::NotEvaluated(format!(
                "our value is undefined ({}): a zero denominator (0/0), no samples or NaN",
                if ours.is_nan() { "NaN" } else { "infinite" }
            )),
            rule,
            noise: None,
            own_band: None,
        },
        Err(e) => Outcome {
            claim: claim.clone(),
            ours: f64::NAN,
            ratio: f64::NAN,
            verdict: Verdict::NotEvaluated(e),
            rule,
            noise: None,
            own_band: None,
        },
    }
}

/// A number for tables: fractions as given, three significant decimals.
pub fn num(x: f64) -> String {
    if !x.is_finite() {
        "–".into()
    } else if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.4}")
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::published::parse;
    use super::*;
    use coapcc_driver::metrics::Quantiles;

    fn q(median: f64) -> Quantiles {
        Quantiles { p10: median * 0.5, p25: median * 0.75, p50: median, p75: median * 1.5, p90: median * 2.0 }
    }

    /// A hand-made summary: median FCT and unnecessary retransmissions, loss ratio.
    pub(crate) fn summary(algorithm: &str, fct: f64, unnecessary: f64, loss_ratio: f64) -> Summary {
        let n = NetworkSummary {
            fct: q(fct),
            retransmissions: q(unnecessary + 1.0),
            unnecessary: q(unnecessary),
            goodput_per_s: 1.0 / fct,
            loss_ratio,
            overhead: 0.1,
            rtt: q(1.0),
            expired_rto: q(2.0),
            unnecessary_total: (unnecessary * 10.0) as u64,
            completed_total: 10,
            drops_buffer_total: 0,
            flows_unfinished: 0,
            flows_total: 10,
            rtt_samples: 0,
            expired_rto_count: 0,
            fct_run_median_ci: coapcc_sim::results::MedianInterval::NONE,
        };
        Summary { algorithm: algorithm.into(), runs: 1, of: coapcc_sim::results::SummaryOf::Network(Box::new(n)) }
    }

    fn case(name: &str, summaries: Vec<Summary>) -> CaseResult {
        CaseResult {
            case: Case { name: name.into(), file: "x.toml".into(), sets: Vec::new(), sweep: None },
            description: String::new(),
            source: String::new(),
            seed: 1,
            replications: 1,
            summaries,
            per_replication: Vec::new(),
            series: CaseSeries::None,
            trace: None,
            rtt_samples_rep0: Vec::new(),
            transfer: None,
        }
    }

    /// A multihop summary of `algorithm` whose goodput took `goodput_bps` in its replications.
    fn mh_summary(algorithm: &str, goodput_bps: &[f64]) -> Summary {
        let (mean, ci95) = coapcc_sim::results::mean_ci(goodput_bps);
        let metrics = vec![MetricSummary { metric: MultihopMetric::GoodputBps, mean, ci95 }];
        Summary {
            algorithm: algorithm.into(),
            runs: goodput_bps.len(),
            of: coapcc_sim::results::SummaryOf::Multihop(coapcc_sim::results::MultihopSummary { tcp: true, metrics }),
        }
    }

    fn mh_case(name: &str, algs: &[(&str, &[f64])]) -> CaseResult {
        case(name, algs.iter().map(|(a, v)| mh_summary(a, v)).collect())
    }

    fn mh_claim(body: &str) -> Claim {
        let text = format!(
            "experiment = \"x\"\ntitle = \"t\"\npaper = \"p\"\ncites = \"lim2020\"\n[[claim]]\nid = \"c\"\ntext = \"t\"\nsource = \"s\"\n{body}"
        );
        parse(&text, "x.toml").unwrap().claims.remove(0)
    }

    #[test]
    fn a_comparison_claim_names_the_metric_the_algorithms_and_their_values_with_the_unit() {
        let cases = vec![case("x/c", vec![summary("fasor", 12.3, 0.0, 0.0), summary("cocoa", 15.1, 0.0, 0.0)])];
        let fct = mh_claim(
            "metric = \"fct_median_reduction\"\ncase = \"x/c\"\na = \"fasor\"\nb = \"cocoa\"\npublished = 1.0\nqualitative = true\ncheck = \"sign\"\n",
        );
        assert_eq!(compared(&cases, &fct).as_deref(), Some("median FCT: fasor 12.3000 s vs cocoa 15.1000 s"));
        let (title, axis) = metric_words(&fct.metric);
        assert_eq!(title, "median FCT reduction: fasor vs cocoa (c)");
        assert_eq!(axis, "reduction (fraction)");
        let mh = vec![mh_case("x/m", &[("lim", &[30.0, 30.0]), ("cocoa", &[20.0, 20.0])])];
        let gain = mh_claim(
            "metric = \"mh_gain\"\ncase = \"x/m\"\nof = \"goodput_bps\"\na = \"lim\"\nb = \"cocoa\"\npublished = 1.0\nqualitative = true\ncheck = \"sign\"\n",
        );
        assert_eq!(compared(&mh, &gain).as_deref(), Some("mean goodput: lim 30.0000 bit/s vs cocoa 20.0000 bit/s"));
        assert_eq!(run_metric_words("throughput_per_s"), ("throughput".to_string(), "/s"));
        // An RTT-trace row in Makarem's Table 1 notation (the row 4 scenario's [trace] table).
        let row4: coapcc_driver::TraceConfig = toml::from_str(
            "row = 4\nperiod = 100\nfirst = { dist = \"uniform\", lo_ms = 100, hi_ms = 300 }\n\
second = { dist = \"normal\", mean_ms = 3000, sd_ms = 100 }\nspikes = false\n",
        )
        .unwrap();
        assert_eq!(
            trace_words(&row4),
            "Table 1 row 4: RTT U(100, 300) ms and N(3000, 100) ms, alternating every 100 samples"
        );
        assert_eq!(
            compared(
                &cases,
                &mh_claim("metric = \"rmse_wins\"\na = \"a\"\nb = \"b\"\npublished = 1.0\ncheck = \"sign\"\n")
            ),
            None
        );
    }

    #[test]
    fn verdicts_carry_a_mark_that_reads_without_colour() {
        assert_eq!(Verdict::Holds.label(), "✔ holds");
        assert_eq!(Verdict::Differs.label(), "✘ differs");
        assert_eq!(Verdict::NotEvaluated("x".into()).label(), "? not evaluated");
    }

    #[test]
    fn confidence_intervals_that_overlap_give_a_gap_of_zero_and_separate_ones_its_sign() {
        assert_eq!(ci_gap(10.0, 1.0, 9.5, 1.0), 0.0);
        assert!((ci_gap(10.0, 1.0, 5.0, 1.0) - 0.6).abs() < 1e-12);
        assert!((ci_gap(5.0, 1.0, 10.0, 1.0) + 0.3).abs() < 1e-12);
    }

    #[test]
    fn multihop_metrics_compare_algorithms_and_cases_by_their_replication_means() {
        let cases = [
            mh_case("m/x", &[("lim", &[10.0, 12.0]), ("uip", &[5.0, 5.0])]),
            mh_case("m/y", &[("lim", &[20.0, 24.0])]),
        ];
        let gain = mh_claim(
            "metric = \"mh_gain\"\ncase = \"m/x\"\nof = \"goodput_bps\"\na = \"lim\"\nb = \"uip\"\npublished = 1.0\nqualitative = true\ncheck = \"sign\"",
        );
        assert!((metric(&cases, &gain).unwrap() - 1.2).abs() < 1e-12);
        assert_eq!(evaluate(&cases, &gain).verdict, Verdict::Holds);
        let ratio = mh_claim(
            "metric = \"mh_ratio\"\ncase = \"m/x\"\ncase_b = \"m/y\"\nof = \"goodput_bps\"\na = \"lim\"\npublished = 0.5\ncheck = \"at_most\"\nvalue = 0.8",
        );
        assert!((metric(&cases, &ratio).unwrap() - 0.5).abs() < 1e-12);
        let diff = mh_claim(
            "metric = \"mh_diff\"\ncase = \"m/y\"\ncase_b = \"m/x\"\nof = \"goodput_bps\"\na = \"lim\"\npublished = 1.0\nqualitative = true\ncheck = \"sign\"",
        );
        assert!((metric(&cases, &diff).unwrap() - 11.0).abs() < 1e-12);
        // lim's interval in m/x: 11 ± 12.706·1 (t with 1 degree of freedom) overlaps uip's 5 ± 0.
        let gap = mh_claim(
            "metric = \"mh_ci_gap\"\ncase = \"m/x\"\nof = \"goodput_bps\"\na = \"lim\"\nb = \"uip\"\npublished = 1.0\nqualitative = true\ncheck = \"sign\"",
        );
        assert_eq!(metric(&cases, &gap).unwrap(), 0.0);
        assert_eq!(evaluate(&cases, &gap).verdict, Verdict::Differs);
        let missing = mh_claim(
            "metric = \"mh_mean\"\ncase = \"m/x\"\nof = \"fairness\"\na = \"lim\"\npublished = 1.0\ncheck = \"ratio\"",
        );
        assert!(matches!(evaluate(&cases, &missing).verdict, Verdict::NotEvaluated(_)));
    }

    #[test]
    fn spreads_drops_trends_and_gain_differences_compare_cases_by_their_replication_means() {
        let cases = [
            mh_case("m/p", &[("lim", &[9.0, 11.0]), ("uip", &[5.0, 5.0])]),
            mh_case("m/q", &[("lim", &[6.0, 6.0]), ("uip", &[5.0, 5.0])]),
            mh_case("m/r", &[("lim", &[2.0, 2.0]), ("uip", &[4.0, 4.0])]),
            mh_case("m/zero", &[("lim", &[0.0, 0.0])]),
        ];
        let value = |body: &str| metric(&cases, &mh_claim(body)).unwrap();
        const OF: &str = "of = \"goodput_bps\"\npublished = -1.0\nqualitative = true\ncheck = \"sign\"";
        // Spread max/min − 1: 10/5 − 1 = 1 in m/p, 6/5 − 1 = 0.2 in m/q; q against p: −0.8.
        let spread = value(&format!(
            "metric = \"mh_spread_diff\"\ncase = \"m/q\"\ncase_b = \"m/p\"\nalgorithms = [\"lim\", \"uip\"]\n{OF}"
        ));
        assert!((spread + 0.8).abs() < 1e-12, "{spread}");
        // Drops of lim: p → q 1 − 6/10 = 0.4, p → r 1 − 2/10 = 0.8; the first less by 0.4.
        let drop = value(&format!(
            "metric = \"mh_drop_diff\"\ncases = [\"m/p\", \"m/q\"]\ncases_b = [\"m/p\", \"m/r\"]\na = \"lim\"\n{OF}"
        ));
        assert!((drop + 0.4).abs() < 1e-12, "{drop}");
        // lim over p, q, r: 10, 6, 2 falls by 0.4 then 2/3: the smallest step is 0.4.
        let trend = |a: &str, list: &str| {
            mh_claim(&format!(
                "metric = \"mh_decrease_min\"\ncases = {list}\na = \"{a}\"\nof = \"goodput_bps\"\npublished = 1.0\nqualitative = true\ncheck = \"sign\""
            ))
        };
        let lim = trend("lim", "[\"m/p\", \"m/q\", \"m/r\"]");
        assert!((metric(&cases, &lim).unwrap() - 0.4).abs() < 1e-12);
        assert_eq!(evaluate(&cases, &lim).verdict, Verdict::Holds);
        // uip: 5, 5, 4 is not strictly decreasing: its smallest step is exactly 0.
        let uip = trend("uip", "[\"m/p\", \"m/q\", \"m/r\"]");
        assert_eq!(metric(&cases, &uip).unwrap(), 0.0);
        assert_eq!(evaluate(&cases, &uip).verdict, Verdict::Differs);
        // A step from a mean of 0 is undefined: not evaluated.
        let from_zero = trend("lim", "[\"m/zero\", \"m/p\"]");
        assert!(matches!(evaluate(&cases, &from_zero).verdict, Verdict::NotEvaluated(_)));
        // Gains of lim over uip: 10/5 − 1 = 1 in m/p, 2/4 − 1 = −0.5 in m/r: 1.5 larger in p.
        let gain = value(&format!(
            "metric = \"mh_gain_diff\"\ncase = \"m/p\"\ncase_b = \"m/r\"\na = \"lim\"\nb = \"uip\"\n{OF}"
        ));
        assert!((gain - 1.5).abs() < 1e-12, "{gain}");
    }

    #[test]
    fn spreads_and_trends_over_fewer_than_two_algorithms_or_cases_are_refused_when_the_file_loads() {
        let head = "experiment = \"x\"\ntitle = \"t\"\npaper = \"p\"\ncites = \"lim2020\"\n[[claim]]\nid = \"c\"\ntext = \"t\"\nsource = \"s\"\npublished = 1.0\ncheck = \"sign\"\nof = \"goodput_bps\"\n";
        for (body, says) in [
            (
                "metric = \"mh_spread_diff\"\ncase = \"m/x\"\ncase_b = \"m/y\"\nalgorithms = [\"lim\"]",
                "two `algorithms`",
            ),
            ("metric = \"mh_decrease_min\"\ncases = [\"m/x\"]\na = \"lim\"", "two `cases`"),
            (
                "metric = \"mh_drop_diff\"\ncases = [\"m/x\", \"m/y\"]\ncases_b = [\"m/x\", \"m/z\"]\na = \"lim\"\nb = \"uip\"",
                "unknown field `b`",
            ),
            ("metric = \"mh_gain_diff\"\ncase = \"m/x\"\ncase_b = \"m/y\"\na = \"lim\"", "missing field `b`"),
        ] {
            let e = parse(&format!("{head}{body}"), "x.toml").unwrap_err().to_string();
            assert!(e.contains("claim `c`") && e.contains(says), "{e}");
        }
    }

    #[test]
    fn a_multihop_comparison_without_b_or_case_b_is_refused_when_the_file_loads() {
        let text = "experiment = \"x\"\ntitle = \"t\"\npaper = \"p\"\ncites = \"lim2020\"\n[[claim]]\nid = \"c\"\ntext = \"t\"\nsource = \"s\"\nmetric = \"mh_gain\"\ncase = \"m/x\"\nof = \"goodput_bps\"\na = \"lim\"\npublished = 1.0\ncheck = \"sign\"";
        let e = parse(text, "x.toml").unwrap_err().to_string();
        assert!(e.contains("needs `b` or `case_b`"), "{e}");
    }

    /// Our run: in case `c`, a's median FCT is 50 against b's 100 (a reduction of exactly
    /// 0.5), c's 40; unnecessary medians a 0, b 10, c 0; loss ratios NaN (0/0) for a, 0.1 for b.
    fn cases() -> Vec<CaseResult> {
        vec![
            case(
                "c",
                vec![summary("a", 50.0, 0.0, f64::NAN), summary("b", 100.0, 10.0, 0.1), summary("c", 40.0, 0.0, 0.2)],
            ),
            case("d", vec![summary("a", 100.0, 4.0, 0.0), summary("b", 100.0, 5.0, 0.0)]),
        ]
    }

    /// Evaluates one claim given as the TOML lines after `published`.
    fn outcome(published: f64, rest: &str) -> Outcome {
        let text = format!(
            "experiment = \"x\"\ntitle = \"t\"\npaper = \"p\"\ncites = \"lim2020\"\n[[claim]]\nid = \"the-claim\"\ntext = \"t\"\n\
             source = \"s\"\npublished = {published:?}\n{rest}"
        );
        let p = parse(&text, "x.toml").unwrap_or_else(|e| panic!("{e}"));
        evaluate(&cases(), &p.claims[0])
    }

    const REDUCTION: &str = "metric = \"fct_median_reduction\"\ncase = \"c\"\na = \"a\"\nb = \"b\"\n";

    #[test]
    fn the_default_band_holds_from_0_8_to_1_25_of_the_published_value_edges_included() {
        let ratio = format!("{REDUCTION}check = \"ratio\"\n");
        // ours = 0.5 (1 − 50/100): ours/published is exactly 0.8 for 0.625, 1.25 for 0.4.
        for (published, want) in [
            (0.625, Verdict::Holds),
            (0.4, Verdict::Holds),
            (0.5, Verdict::Holds),
            (0.5 / 0.79, Verdict::Differs),
            (0.5 / 1.26, Verdict::Differs),
            // The old band [0.5, 2] no longer applies: ours is half the published value.
            (1.0, Verdict::Differs),
        ] {
            let o = outcome(published, &ratio);
            assert_eq!(o.verdict, want, "published {published}: ours/published {}", o.ratio);
            assert_eq!(o.ours, 0.5);
        }
        assert_eq!(outcome(0.5, &ratio).rule, "holds if 0.8 ≤ ours/published ≤ 1.25");
    }

    #[test]
    fn a_band_of_its_own_is_a_second_verdict_and_the_headline_stays_on_the_default_band() {
        let rest = format!("{REDUCTION}check = \"ratio\"\nrange = [0.5, 2.0]\nrange_reason = \"read off a plot\"\n");
        // ours = 0.5: against 1.0 the ratio is 0.5, outside [0.8, 1.25] but inside [0.5, 2].
        let o = outcome(1.0, &rest);
        assert_eq!((o.verdict, o.own_band), (Verdict::Differs, Some(([0.5, 2.0], true))));
        assert_eq!(o.rule, "holds if 0.8 ≤ ours/published ≤ 1.25");
        // Against 1.01 the ratio 0.495 is outside both.
        assert_eq!(outcome(1.01, &rest).own_band, Some(([0.5, 2.0], false)));
        // Against 0.5 the ratio is 1: within both.
        let o = outcome(0.5, &rest);
        assert_eq!((o.verdict, o.own_band), (Verdict::Holds, Some(([0.5, 2.0], true))));
        // Without a band of its own there is no second verdict.
        assert_eq!(outcome(0.5, &format!("{REDUCTION}check = \"ratio\"\n")).own_band, None);
    }

    #[test]
    fn a_sign_check_holds_on_the_same_sign_and_never_on_zero() {
        // ours = 0.5 > 0.
        assert_eq!(outcome(1.0, &format!("{REDUCTION}qualitative = true\ncheck = \"sign\"\n")).verdict, Verdict::Holds);
        assert_eq!(
            outcome(-1.0, &format!("{REDUCTION}qualitative = true\ncheck = \"sign\"\n")).verdict,
            Verdict::Differs
        );
        // In case d, a and b have the same median FCT: a reduction of exactly 0 has no sign.
        let zero = "metric = \"fct_median_reduction\"\ncase = \"d\"\na = \"a\"\nb = \"b\"\nqualitative = true\ncheck = \"sign\"\n";
        for p in [1.0, -1.0] {
            let o = outcome(p, zero);
            assert_eq!((o.ours, &o.verdict), (0.0, &Verdict::Differs), "published {p}");
        }
    }

    #[test]
    fn at_most_at_least_and_within_hold_at_their_edges() {
        // ours = 0.5, published 0.25.
        let check = |c: &str| outcome(0.25, &format!("{REDUCTION}{c}\n")).verdict;
        assert_eq!(check("check = \"at_most\"\nvalue = 0.5"), Verdict::Holds);
        assert_eq!(check("check = \"at_most\"\nvalue = 0.49"), Verdict::Differs);
        assert_eq!(check("check = \"at_least\"\nvalue = 0.5"), Verdict::Holds);
        assert_eq!(check("check = \"at_least\"\nvalue = 0.51"), Verdict::Differs);
        assert_eq!(check("check = \"within\"\ntolerance = 0.25"), Verdict::Holds);
        assert_eq!(check("check = \"within\"\ntolerance = 0.24"), Verdict::Differs);
    }

    #[test]
    fn an_undefined_value_is_not_evaluated_with_the_reason() {
        // Loss ratio 0/0 (NaN) of a: its own value, and any comparison with it.
        for rest in [
            "metric = \"loss_ratio\"\ncase = \"c\"\na = \"a\"\ncheck = \"ratio\"\n",
            "metric = \"loss_ratio_reduction_min\"\ncase = \"c\"\na = \"a\"\nagainst = [\"b\"]\nqualitative = true\ncheck = \"sign\"\n",
            "metric = \"loss_ratio_reduction_min\"\ncase = \"c\"\na = \"b\"\nagainst = [\"c\", \"a\"]\nqualitative = true\ncheck = \"sign\"\n",
        ] {
            let o = outcome(1.0, rest);
            match &o.verdict {
                Verdict::NotEvaluated(why) => assert!(why.contains("`loss_ratio` of `a` is undefined"), "{why}"),
                v => panic!("{rest}: {v:?}"),
            }
            assert!(o.ours.is_nan() && o.ratio.is_nan());
        }
        // A zero denominator: b's loss ratio is 0 in case d.
        let o = outcome(
            1.0,
            "metric = \"unnecessary_median_reduction\"\ncase = \"c\"\na = \"b\"\nb = \"a\"\nqualitative = true\ncheck = \"sign\"\n",
        );
        match &o.verdict {
            Verdict::NotEvaluated(why) => assert!(why.contains("`unnecessary_median` of `a` is 0"), "{why}"),
            v => panic!("{v:?}"),
        }
        // A case not run.
        let o = outcome(1.0, "metric = \"fct_median\"\ncase = \"nowhere\"\na = \"a\"\ncheck = \"ratio\"\n");
        assert_eq!(o.verdict, Verdict::NotEvaluated("case `nowhere` was not run".into()));
    }

    #[test]
    fn the_max_over_comparisons_skips_undefined_ones_and_is_not_evaluated_when_all_are() {
        // b against a: case c is 1 − 10/0 (undefined), skipped; case d is 1 − 5/4 = −0.25.
        let pairs = |pairs: &str| {
            outcome(
                1.0,
                &format!(
                    "metric = \"unnecessary_reduction_max_pairs\"\ncases = [\"c\", \"d\"]\npairs = {pairs}\nqualitative = true\ncheck = \"sign\"\n"
                ),
            )
        };
        let o = pairs("[[\"b\", \"a\"]]");
        assert_eq!((o.ours, &o.verdict), (-0.25, &Verdict::Differs));
        // With a against b too (case c: 1 − 0/10 = 1; case d: 1 − 4/5), the largest is 1.
        let o = pairs("[[\"b\", \"a\"], [\"a\", \"b\"]]");
        assert_eq!((o.ours, &o.verdict), (1.0, &Verdict::Holds));
        // Every comparison undefined: not evaluated.
        let o = outcome(
            1.0,
            "metric = \"unnecessary_reduction_max\"\ncases = [\"c\"]\na = \"b\"\nb = \"a\"\nqualitative = true\ncheck = \"sign\"\n",
        );
        assert!(matches!(o.verdict, Verdict::NotEvaluated(_)), "{:?}", o.verdict);
        // The min over `against` is the least favourable comparison: a against b is 0.5,
        // against c is 1 − 50/40 = −0.25.
        let o = outcome(
            1.0,
            "metric = \"fct_median_reduction_min\"\ncase = \"c\"\na = \"a\"\nagainst = [\"b\", \"c\"]\nqualitative = true\ncheck = \"sign\"\n",
        );
        assert_eq!((o.ours, &o.verdict), (-0.25, &Verdict::Differs));
    }

    #[test]
    fn a_claim_file_with_a_wrong_metric_or_a_missing_field_is_rejected_with_the_claims_id() {
        let file = |rest: &str| {
            format!(
                "experiment = \"x\"\ntitle = \"t\"\npaper = \"p\"\ncites = \"lim2020\"\n[[claim]]\nid = \"bad-claim\"\n\
                 text = \"t\"\nsource = \"s\"\npublished = 0.2\n{rest}"
            )
        };
        for (rest, says) in [
            (
                "metric = \"fct_median_reductoin\"\ncase = \"c\"\na = \"a\"\nb = \"b\"\ncheck = \"ratio\"\n",
                "fct_median_reductoin",
            ),
            ("metric = \"fct_median_reduction\"\ncase = \"c\"\na = \"a\"\ncheck = \"ratio\"\n", "missing field `b`"),
            ("metric = \"fct_median_reduction\"\ncase = \"c\"\na = \"a\"\nb = \"b\"\n", "check"),
            (&format!("{REDUCTION}check = \"ratio\"\nrange = [0.5, 2.0]\n"), "range_reason"),
            (&format!("{REDUCTION}check = \"ratio\"\nrange_reason = \"why\"\n"), "range_reason"),
            (&format!("{REDUCTION}check = \"ratio\"\nrestates = \"no-such-claim\"\n"), "no-such-claim"),
        ] {
            let e = parse(&file(rest), "data/published/x.toml").unwrap_err().to_string();
            assert!(e.starts_with("data/published/x.toml: claim `bad-claim`"), "{e}");
            assert!(e.contains(says), "{e}");
        }
        let e = parse(
            &file(&format!("{REDUCTION}check = \"ratio\"\n")).replace("published = 0.2", "published = 0.0"),
            "x.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("claim `bad-claim`") && e.contains("non-zero `published`"), "{e}");
    }

    #[test]
    fn a_restating_claim_is_shown_but_not_counted() {
        let text = format!(
            "experiment = \"x\"\ntitle = \"t\"\npaper = \"p\"\ncites = \"lim2020\"\n\
             [[claim]]\nid = \"first\"\ntext = \"t\"\nsource = \"s\"\npublished = 0.5\n{REDUCTION}check = \"ratio\"\n\
             [[claim]]\nid = \"second\"\ntext = \"t\"\nsource = \"s\"\npublished = 0.9\n{REDUCTION}check = \"ratio\"\nrestates = \"first\"\n"
        );
        let p = parse(&text, "x.toml").unwrap();
        let outcomes: Vec<Outcome> = p.claims.iter().map(|c| evaluate(&cases(), c)).collect();
        let s = super::super::scoreboard::Score::of(&outcomes);
        assert_eq!((s.within, s.outside, s.restating, s.counted()), (1, 0, 1, 1));
    }

    #[test]
    fn the_slope_of_a_line_is_its_gradient() {
        assert!((slope(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]) - 2.0).abs() < 1e-12);
        assert!(slope(&[(1.0, 1.0)]).is_nan());
    }

    #[test]
    fn r_squared_is_one_on_a_line_and_low_on_noise() {
        assert!((r_squared(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]) - 1.0).abs() < 1e-12);
        assert!(r_squared(&[(0.0, 1.0), (1.0, -1.0), (2.0, 1.0), (3.0, -1.0)]) < 0.3);
    }

    #[test]
    fn reductions_are_one_minus_the_ratio() {
        assert!((reduction(86.0, 100.0) - 0.14).abs() < 1e-12);
        assert!(reduction(1.0, 0.0).is_nan());
    }
}
