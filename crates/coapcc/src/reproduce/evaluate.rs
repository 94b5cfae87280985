//! Our number for each published claim, and whether the claim holds.

use coapcc_sim::metrics::SeriesPoint;
use coapcc_sim::results::Summary;

use super::experiments::Case;
use super::published::Claim;

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
    /// Time series of replication 0.
    pub series: CaseSeries,
    /// Whether this is an RTT-trace case.
    pub trace: bool,
}

impl CaseResult {
    /// The summary of `algorithm`.
    pub fn of(&self, algorithm: &str) -> Option<&Summary> {
        self.summaries.iter().find(|s| s.algorithm == algorithm)
    }
}

/// How a claim came out.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Our number satisfies the claim's check.
    Holds,
    /// It does not.
    Differs,
    /// It could not be computed (the reason).
    NotEvaluated(String),
}

impl Verdict {
    /// A word for tables.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Differs => "differs",
            Verdict::NotEvaluated(_) => "not evaluated",
        }
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
    /// The rule applied, in words (`holds if 0.5 ≤ ours/published ≤ 2`).
    pub rule: String,
}

fn find<'a>(cases: &'a [CaseResult], name: &str) -> Result<&'a CaseResult, String> {
    cases.iter().find(|c| c.case.name == name).ok_or_else(|| format!("case `{name}` was not run"))
}

fn alg<'a>(c: &'a CaseResult, a: &Option<String>) -> Result<&'a Summary, String> {
    let a = a.as_deref().ok_or("the claim names no algorithm `a`/`b`")?;
    c.of(a).ok_or_else(|| format!("algorithm `{a}` not in case `{}`", c.case.name))
}

fn reduction(x: f64, y: f64) -> f64 {
    if y == 0.0 { f64::NAN } else { 1.0 - x / y }
}

fn sweep_points<'a>(cases: &'a [CaseResult], sweep: &str) -> Vec<(f64, &'a CaseResult)> {
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

fn trace_rows(cases: &[CaseResult]) -> Vec<&CaseResult> {
    cases.iter().filter(|c| c.trace).collect()
}

fn wins(cases: &[CaseResult], claim: &Claim, pick: impl Fn(&Summary, &Summary) -> bool) -> Result<f64, String> {
    let rows = trace_rows(cases);
    if rows.is_empty() {
        return Err("no RTT-trace case was run".into());
    }
    let mut n = 0usize;
    for c in &rows {
        if pick(alg(c, &claim.a)?, alg(c, &claim.b)?) {
            n += 1;
        }
    }
    Ok(n as f64 / rows.len() as f64)
}

/// Our value for a claim's metric.
pub fn metric(cases: &[CaseResult], claim: &Claim) -> Result<f64, String> {
    let case = || -> Result<&CaseResult, String> { find(cases, claim.case.as_deref().ok_or("the claim names no case")?) };
    let sweep = || -> Result<(String, Vec<(f64, &CaseResult)>), String> {
        let s = claim.sweep.as_deref().ok_or("the claim names no sweep")?;
        let pts = sweep_points(cases, s);
        if pts.is_empty() {
            return Err(format!("sweep `{s}` was not run"));
        }
        Ok((s.to_string(), pts))
    };
    Ok(match claim.metric.as_str() {
        "fct_median_reduction" => {
            let c = case()?;
            reduction(alg(c, &claim.a)?.fct.p50, alg(c, &claim.b)?.fct.p50)
        }
        "fct_median_spread" => {
            let c = case()?;
            let meds: Vec<f64> = claim
                .algorithms
                .iter()
                .map(|a| c.of(a).map(|s| s.fct.p50).ok_or_else(|| format!("algorithm `{a}` not in case `{}`", c.case.name)))
                .collect::<Result<_, _>>()?;
            let max = meds.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let min = meds.iter().copied().fold(f64::INFINITY, f64::min);
            max / min - 1.0
        }
        "unnecessary_median" => alg(case()?, &claim.a)?.unnecessary.p50,
        "retransmissions_median" => alg(case()?, &claim.a)?.retransmissions.p50,
        "unnecessary_median_reduction" => {
            let c = case()?;
            reduction(alg(c, &claim.a)?.unnecessary.p50, alg(c, &claim.b)?.unnecessary.p50)
        }
        "unnecessary_reduction_max" => {
            let mut best = f64::NEG_INFINITY;
            for name in &claim.cases {
                let c = find(cases, name)?;
                let r = reduction(alg(c, &claim.a)?.unnecessary.p50, alg(c, &claim.b)?.unnecessary.p50);
                if r.is_finite() {
                    best = best.max(r);
                }
            }
            if best.is_finite() { best } else { f64::NAN }
        }
        "expired_rto_median" => alg(case()?, &claim.a)?.expired_rto.p50,
        "rtt_median" => alg(case()?, &claim.a)?.rtt.p50,
        "goodput" => alg(case()?, &claim.a)?.goodput_per_s,
        "loss_ratio" => alg(case()?, &claim.a)?.loss_ratio,
        "overhead" => alg(case()?, &claim.a)?.overhead,
        "rmse_ms" => alg(case()?, &claim.a)?.rmse_ms,
        "spurious" => alg(case()?, &claim.a)?.spurious,
        "goodput_slope" => {
            let (s, pts) = sweep()?;
            let xy: Vec<(f64, f64)> = pts
                .iter()
                .map(|(x, c)| Ok((mean_resbw(&s, *x), alg(c, &claim.a)?.goodput_per_s)))
                .collect::<Result<_, String>>()?;
            slope(&xy)
        }
        "plateau_goodput" => {
            let (s, pts) = sweep()?;
            let v: Vec<f64> = pts
                .iter()
                .filter(|(x, _)| mean_resbw(&s, *x) >= 0.5)
                .map(|(_, c)| alg(c, &claim.a).map(|m| m.goodput_per_s))
                .collect::<Result<_, _>>()?;
            coapcc_sim::metrics::mean(&v)
        }
        "max_overhead" => {
            let (_, pts) = sweep()?;
            let mut best = f64::NAN;
            for (_, c) in pts {
                let o = alg(c, &claim.a)?.overhead;
                if o.is_finite() && !(best >= o) {
                    best = o;
                }
            }
            best
        }
        "rmse_wins" => wins(cases, claim, |a, b| a.rmse_ms < b.rmse_ms)?,
        "spurious_wins" => wins(cases, claim, |a, b| a.spurious < b.spurious)?,
        "rmse_and_spurious_wins" => wins(cases, claim, |a, b| a.rmse_ms < b.rmse_ms && a.spurious < b.spurious)?,
        other => return Err(format!("metric `{other}` is not implemented")),
    })
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

/// Evaluates a claim against the cases.
pub fn evaluate(cases: &[CaseResult], claim: &Claim) -> Outcome {
    let p = claim.published;
    let (rule, check): (String, Box<dyn Fn(f64) -> bool>) = match claim.check.as_str() {
        "ratio" => {
            let [lo, hi] = claim.range.unwrap_or([0.5, 2.0]);
            (format!("holds if {lo} ≤ ours/published ≤ {hi}"), Box::new(move |o: f64| (lo..=hi).contains(&(o / p))))
        }
        "sign" => ("holds if ours has the sign of the published value".into(), Box::new(move |o: f64| o != 0.0 && (o > 0.0) == (p > 0.0))),
        "at_most" => {
            let v = claim.value.unwrap_or(p);
            (format!("holds if ours ≤ {v}"), Box::new(move |o: f64| o <= v))
        }
        "at_least" => {
            let v = claim.value.unwrap_or(p);
            (format!("holds if ours ≥ {v}"), Box::new(move |o: f64| o >= v))
        }
        "within" => {
            let t = claim.tolerance.unwrap_or(0.0);
            (format!("holds if |ours − published| ≤ {t}"), Box::new(move |o: f64| (o - p).abs() <= t))
        }
        other => (format!("unknown check `{other}`"), Box::new(|_| false)),
    };
    let known_check = matches!(claim.check.as_str(), "ratio" | "sign" | "at_most" | "at_least" | "within");
    match metric(cases, claim) {
        Ok(ours) if ours.is_finite() && known_check => Outcome {
            claim: claim.clone(),
            ours,
            ratio: if p != 0.0 { ours / p } else { f64::NAN },
            verdict: if check(ours) { Verdict::Holds } else { Verdict::Differs },
            rule,
        },
        Ok(_) if !known_check => Outcome {
            claim: claim.clone(),
            ours: f64::NAN,
            ratio: f64::NAN,
            verdict: Verdict::NotEvaluated(format!("unknown check `{}`", claim.check)),
            rule,
        },
        Ok(ours) => Outcome {
            claim: claim.clone(),
            ours,
            ratio: f64::NAN,
            verdict: Verdict::NotEvaluated("our value is undefined (e.g. a division by zero)".into()),
            rule,
        },
        Err(e) => Outcome { claim: claim.clone(), ours: f64::NAN, ratio: f64::NAN, verdict: Verdict::NotEvaluated(e), rule },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_slope_of_a_line_is_its_gradient() {
        assert!((slope(&[(0.0, 1.0), (1.0, 3.0), (2.0, 5.0)]) - 2.0).abs() < 1e-12);
        assert!(slope(&[(1.0, 1.0)]).is_nan());
    }

    #[test]
    fn reductions_are_one_minus_the_ratio() {
        assert!((reduction(86.0, 100.0) - 0.14).abs() < 1e-12);
        assert!(reduction(1.0, 0.0).is_nan());
    }
}
