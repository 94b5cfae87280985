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

fn of<'a>(c: &'a CaseResult, a: &str) -> Result<&'a Summary, String> {
    c.of(a).ok_or_else(|| format!("algorithm `{a}` not in case `{}`", c.case.name))
}

fn need<'a>(x: &'a Option<String>, what: &str) -> Result<&'a str, String> {
    x.as_deref().ok_or_else(|| format!("the claim names no `{what}`"))
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

fn place<'a>(cases: &'a [CaseResult], claim: &'a Claim) -> Result<Place<'a>, String> {
    if let Some(s) = claim.sweep.as_deref() {
        let mut pts = sweep_points(cases, s);
        if let Some([lo, hi]) = claim.resbw_range {
            pts.retain(|(x, _)| (lo..=hi).contains(&mean_resbw(s, *x)));
        }
        if pts.is_empty() {
            return Err(format!("sweep `{s}` was not run (or no point in the ResBW range)"));
        }
        return Ok(Place::Sweep(s, pts));
    }
    Ok(Place::Case(find(cases, need(&claim.case, "case")?)?))
}

/// A per-case quantity of one algorithm.
fn case_scalar(x: &str, s: &Summary) -> Option<f64> {
    Some(match x {
        "fct_median" => s.fct.p50,
        "fct_p10_p90" => s.fct.p90 - s.fct.p10,
        "unnecessary_median" => s.unnecessary.p50,
        "retransmissions_median" => s.retransmissions.p50,
        "expired_rto_median" => s.expired_rto.p50,
        "rtt_median" => s.rtt.p50,
        "goodput" => s.goodput_per_s,
        "loss_ratio" => s.loss_ratio,
        "overhead" => s.overhead,
        "rmse_ms" => s.rmse_ms,
        "spurious" => s.spurious,
        _ => return None,
    })
}

/// A base quantity X of algorithm `a` at a place.
fn base(x: &str, at: &Place<'_>, a: &str) -> Result<f64, String> {
    match at {
        Place::Case(c) => case_scalar(x, of(c, a)?).ok_or_else(|| format!("metric `{x}` needs a sweep or is unknown")),
        Place::Sweep(sweep, pts) => {
            let xy: Vec<(f64, &Summary)> =
                pts.iter().map(|(x, c)| Ok((mean_resbw(sweep, *x), of(c, a)?))).collect::<Result<_, String>>()?;
            let g: Vec<(f64, f64)> = xy.iter().map(|(x, s)| (*x, s.goodput_per_s)).collect();
            let o: Vec<f64> = xy.iter().map(|(_, s)| s.overhead).filter(|v| v.is_finite()).collect();
            Ok(match x {
                "goodput_slope" => slope(&g),
                "goodput_linearity_r2" => r_squared(&g),
                "plateau_goodput" => {
                    let v: Vec<f64> = if sweep.contains("high-variability") {
                        g.iter().map(|p| p.1).collect()
                    } else {
                        g.iter().filter(|p| p.0 >= 0.5).map(|p| p.1).collect()
                    };
                    coapcc_sim::metrics::mean(&v)
                }
                "mean_goodput" => coapcc_sim::metrics::mean(&g.iter().map(|p| p.1).collect::<Vec<_>>()),
                "max_overhead" => o.iter().copied().fold(f64::NAN, |m, v| if m >= v { m } else { v }),
                "mean_overhead" => coapcc_sim::metrics::mean(&o),
                other => return Err(format!("metric `{other}` is not defined over a sweep")),
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
    cases.iter().filter(|c| c.trace).collect()
}

fn wins(cases: &[CaseResult], claim: &Claim, pick: impl Fn(&Summary, &Summary) -> bool) -> Result<f64, String> {
    let rows = trace_rows(cases);
    if rows.is_empty() {
        return Err("no RTT-trace case was run".into());
    }
    let (a, b) = (need(&claim.a, "a")?, need(&claim.b, "b")?);
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

/// Our value for a claim's metric (definitions: `data/published/README.md`).
pub fn metric(cases: &[CaseResult], claim: &Claim) -> Result<f64, String> {
    let m = claim.metric.as_str();
    // Metrics with a shape of their own.
    match m {
        "fct_median_spread" => {
            let c = find(cases, need(&claim.case, "case")?)?;
            let meds: Vec<f64> =
                claim.algorithms.iter().map(|a| of(c, a).map(|s| s.fct.p50)).collect::<Result<_, _>>()?;
            let max = meds.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let min = meds.iter().copied().fold(f64::INFINITY, f64::min);
            return Ok(max / min - 1.0);
        }
        "unnecessary_reduction_max" | "unnecessary_reduction_max_pairs" => {
            let pairs: Vec<(String, String)> = if m == "unnecessary_reduction_max" {
                vec![(need(&claim.a, "a")?.to_string(), need(&claim.b, "b")?.to_string())]
            } else {
                claim.pairs.iter().map(|[a, b]| (a.clone(), b.clone())).collect()
            };
            let mut vals = Vec::new();
            for name in &claim.cases {
                let c = find(cases, name)?;
                for (a, b) in &pairs {
                    vals.push(reduction(of(c, a)?.unnecessary.p50, of(c, b)?.unnecessary.p50));
                }
            }
            return Ok(fold_max(vals.into_iter()));
        }
        "unnecessary_total" | "buffer_drops_total" => {
            let names: Vec<&str> = if claim.cases.is_empty() {
                vec![need(&claim.case, "case")?]
            } else {
                claim.cases.iter().map(String::as_str).collect()
            };
            let mut total = 0u64;
            for n in names {
                let c = find(cases, n)?;
                for a in &claim.algorithms {
                    let s = of(c, a)?;
                    total += if m == "unnecessary_total" { s.unnecessary_total } else { s.drops_buffer_total };
                }
            }
            return Ok(total as f64);
        }
        "wasted_capacity_fraction" => {
            let s = of(find(cases, need(&claim.case, "case")?)?, need(&claim.a, "a")?)?;
            let (u, c) = (s.unnecessary_total as f64, s.completed_total as f64);
            return Ok(if u + c == 0.0 { f64::NAN } else { u / (u + c) });
        }
        "loss_ratio_max" => {
            let c = find(cases, need(&claim.case, "case")?)?;
            let v: Vec<f64> =
                claim.algorithms.iter().map(|a| of(c, a).map(|s| s.loss_ratio)).collect::<Result<_, _>>()?;
            return Ok(fold_max(v.into_iter()));
        }
        "max_overhead_over" => {
            let at = place(cases, claim)?;
            let v: Vec<f64> =
                claim.algorithms.iter().map(|a| base("max_overhead", &at, a)).collect::<Result<_, _>>()?;
            return Ok(fold_max(v.into_iter()));
        }
        "rmse_wins" => return wins(cases, claim, |a, b| a.rmse_ms < b.rmse_ms),
        "spurious_wins" => return wins(cases, claim, |a, b| a.spurious < b.spurious),
        "rmse_and_spurious_wins" => return wins(cases, claim, |a, b| a.rmse_ms < b.rmse_ms && a.spurious < b.spurious),
        _ => {}
    }
    // X_increase: X(a in cases[0]) / X(a in cases[1]) − 1.
    if let Some(x) = m.strip_suffix("_increase") {
        let [first, second] = claim.cases.as_slice() else {
            return Err("an `_increase` metric needs `cases = [x, y]`".into());
        };
        let a = need(&claim.a, "a")?;
        let v1 = base(x, &Place::Case(find(cases, first)?), a)?;
        let v2 = base(x, &Place::Case(find(cases, second)?), a)?;
        return Ok(ratio_minus_one(v1, v2));
    }
    // X_reduction_min / X_gain_min over `against`; X_reduction / X_gain against `b`.
    for (suffix, f, min) in [
        ("_reduction_min", reduction as fn(f64, f64) -> f64, true),
        ("_gain_min", ratio_minus_one, true),
        ("_reduction", reduction, false),
        ("_gain", ratio_minus_one, false),
    ] {
        if let Some(x) = m.strip_suffix(suffix) {
            let at = place(cases, claim)?;
            let a = need(&claim.a, "a")?;
            let va = base(x, &at, a)?;
            if min {
                if claim.against.is_empty() {
                    return Err(format!("`{m}` needs `against`"));
                }
                let mut best = f64::INFINITY;
                for b in &claim.against {
                    let v = f(va, base(x, &at, b)?);
                    if !v.is_finite() {
                        return Ok(f64::NAN);
                    }
                    best = best.min(v);
                }
                return Ok(best);
            }
            return Ok(f(va, base(x, &at, need(&claim.b, "b")?)?));
        }
    }
    // A base quantity of `a`.
    base(m, &place(cases, claim)?, need(&claim.a, "a")?)
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

/// Evaluates a claim against the cases.
pub fn evaluate(cases: &[CaseResult], claim: &Claim) -> Outcome {
    let p = claim.published;
    let (rule, check): (String, Box<dyn Fn(f64) -> bool>) = match claim.check.as_str() {
        "ratio" => {
            let [lo, hi] = claim.range.unwrap_or([0.5, 2.0]);
            (format!("holds if {lo} ≤ ours/published ≤ {hi}"), Box::new(move |o: f64| (lo..=hi).contains(&(o / p))))
        }
        "sign" => (
            "holds if ours has the sign of the published value".into(),
            Box::new(move |o: f64| o != 0.0 && (o > 0.0) == (p > 0.0)),
        ),
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
            ratio: if p != 0.0 && !claim.qualitative { ours / p } else { f64::NAN },
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
        // data/published/README.md: an undefined value (a zero denominator) does not hold.
        Ok(ours) => Outcome {
            claim: claim.clone(),
            ours,
            ratio: f64::NAN,
            verdict: Verdict::Differs,
            rule: format!("{rule}; ours is undefined (a zero denominator), so it does not hold"),
        },
        Err(e) => {
            Outcome { claim: claim.clone(), ours: f64::NAN, ratio: f64::NAN, verdict: Verdict::NotEvaluated(e), rule }
        }
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
