//! Investigations: sweeps of one modelling choice the paper leaves open, run beside an
//! experiment's cases to show where its differing claims would hold (docs/reproduction-status.md, "Why claims
//! differ"). The verdicts stay on the documented defaults; an investigation only
//! explains a difference.
//!
//! | module | what is there |
//! |---|---|
//! | this one | an experiment's `[[investigation]]` tables ([`InvestigationSpec`], by `kind`), and the general mechanism: a [`SweepSpec`] (base cases, one key, its values with the default marked, the claims it explains) → extra cases → each claim's own metric and verdict recomputed per point ([`sweep_investigation`]) → a figure and a sentence generated from the numbers |
//! | [`burst_scale`] | the FASOR burst-scale investigation (two modes of the Gilbert–Elliott chain, its own figure) |
//! | [`causes`] | the "why claims differ" section of docs/reproduction-status.md, from `claims.csv`, the data files' `cause` entries and the investigations' findings |

mod burst_scale;
pub(crate) mod causes;
pub(crate) mod spec;

use std::fmt::Write;

use coapcc_driver::scenario::{Setting, Value};
use coapcc_sim::results::{MedianInterval, median_ci95};
use serde::{Deserialize, Serialize};

pub use self::spec::{InvestigationSpec, SweepSpec};
use super::evaluate::{CaseResult, Outcome, Verdict, capitalised, evaluate, metric_words};
use super::experiments::Case;
use super::published::{Check, Claim, ClaimKind, DEFAULT_BAND, Published};
use crate::error::ReportError;
use crate::figures::{LinePanel, Series, SeriesStyle, line_figure_in_columns};

/// An investigation's result, for the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Investigation {
    /// Id (anchor `#inv-<id>` and figure file `figures/<id>.svg`).
    pub id: String,
    /// How a claim's row links to it ("the burst-scale investigation").
    pub short: String,
    /// Heading.
    pub title: String,
    /// What was varied and why.
    pub about: String,
    /// The finding in words, generated from the numbers.
    pub sentence: String,
    /// The figure (SVG).
    pub svg: String,
    /// The claims it bears on.
    pub claims: Vec<String>,
    /// Each claim's value and verdict at every point (the data a cause's numbers and its
    /// standing are taken from).
    pub results: Vec<ClaimPoints>,
}

/// One claim across an investigation's points (one axis of it): our value and the verdict at
/// each swept value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClaimPoints {
    /// The claim's id.
    pub claim: String,
    /// The axis, for an investigation with several (the burst scale's `time` and `packet`
    /// modes); empty otherwise.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub axis: String,
    /// The swept values, ascending.
    pub values: Vec<f64>,
    /// The documented default among them (the experiment's own case), if the axis has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<f64>,
    /// Our value of the claim at each value (NaN where it is not evaluated).
    pub ours: Vec<f64>,
    /// The verdict at each value: `holds`, `differs`, `inconclusive` or `not evaluated`.
    pub verdicts: Vec<String>,
}

impl ClaimPoints {
    /// Whether the claim holds at a swept value other than the documented default: the
    /// investigation shows that changing the parameter blamed makes it hold.
    pub fn holds_off_default(&self) -> bool {
        self.values.iter().zip(&self.verdicts).any(|(x, v)| v == "holds" && Some(*x) != self.default)
    }

    /// Our value at swept value `x`.
    pub fn at(&self, x: f64) -> Option<f64> {
        self.values.iter().position(|v| *v == x).map(|i| self.ours[i])
    }
}

/// An investigation's finding as kept in `investigations.toml` (a full run's copy is
/// `data/published/investigations-full.toml`, from which docs/reproduction-status.md is generated).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    /// Its id.
    pub id: String,
    /// The experiment it belongs to.
    pub experiment: String,
    /// Its heading.
    pub title: String,
    /// The finding in words.
    pub sentence: String,
    /// The claims it bears on.
    pub claims: Vec<String>,
    /// Each claim's value and verdict at every point.
    #[serde(default, rename = "result")]
    pub results: Vec<ClaimPoints>,
}

impl Finding {
    /// The results of claim `claim` (one per axis).
    pub fn of_claim<'a>(&'a self, claim: &'a str) -> impl Iterator<Item = &'a ClaimPoints> + 'a {
        self.results.iter().filter(move |r| r.claim == claim)
    }
}

/// The `investigations.toml` file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Findings {
    /// Every investigation of the run, in report order.
    #[serde(default, rename = "investigation")]
    pub investigations: Vec<Finding>,
}

impl Findings {
    /// The findings of a run's investigations, per experiment.
    pub fn of<'a>(by_experiment: impl IntoIterator<Item = (&'a str, &'a [Investigation])>) -> Findings {
        let mut investigations = Vec::new();
        for (e, invs) in by_experiment {
            for i in invs {
                investigations.push(Finding {
                    id: i.id.clone(),
                    experiment: e.to_string(),
                    title: i.title.clone(),
                    sentence: i.sentence.clone(),
                    claims: i.claims.clone(),
                    results: i.results.clone(),
                });
            }
        }
        Findings { investigations }
    }

    /// As TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    /// Reads `investigations.toml`.
    pub fn parse(text: &str) -> Result<Findings, ReportError> {
        toml::from_str(text).map_err(|e| ReportError::Description(format!("investigations.toml: {}", e.message())))
    }
}

impl InvestigationSpec {
    /// The claims it explains, from the description alone (no run).
    pub fn claims(&self, published: &Published) -> Vec<String> {
        match self {
            InvestigationSpec::Sweep(s) => s.claims.clone(),
            InvestigationSpec::BurstScale(_) => burst_scale::claims(published),
        }
    }

    /// The extra cases it runs, after the experiment's own cases `own`.
    pub fn cases(&self, own: &[Case], quick: bool, replications: Option<u32>) -> Result<Vec<Case>, ReportError> {
        match self {
            InvestigationSpec::Sweep(s) => sweep_cases(s, own, quick, replications),
            InvestigationSpec::BurstScale(b) => b.cases(quick, replications),
        }
    }

    /// The investigation from the experiment's results (`None` when its cases did not run).
    pub fn investigate(
        &self,
        results: &[CaseResult],
        published: &Published,
        quick: bool,
        replications: Option<u32>,
    ) -> Option<Investigation> {
        match self {
            InvestigationSpec::Sweep(s) => sweep_investigation(s, results, published, quick, replications),
            InvestigationSpec::BurstScale(b) => burst_scale::burst_scale(b, results, published),
        }
    }
}

fn set(key: &str, value: impl Into<Value>) -> Result<Setting, ReportError> {
    Setting::new(key, value).map_err(|e| ReportError::Description(e.to_string()))
}

/// The extra cases of `spec`: every base case at every swept value but the default (which is
/// the experiment's own case), named `<base>@<key>=<value>`.
pub fn sweep_cases(
    spec: &SweepSpec,
    own: &[Case],
    quick: bool,
    replications: Option<u32>,
) -> Result<Vec<Case>, ReportError> {
    let bases = spec.base_cases(own);
    if bases.is_empty() {
        return Err(ReportError::Description(format!(
            "investigation `{}`: none of its base cases {:?} is run",
            spec.id, spec.bases
        )));
    }
    let mut out = Vec::new();
    for &x in spec.values.iter().filter(|&&x| x != spec.default) {
        for b in &bases {
            let name = format!("{}@{}={}", b.name, spec.key, spec.fmt(x));
            let mut sets = b.sets.clone();
            sets.push(Setting::replications(spec.reps(quick, replications)));
            if !spec.algorithms.is_empty() {
                sets.push(Setting::algorithms(spec.algorithms.iter().cloned()));
            }
            sets.push(set("name", name.clone())?);
            for key in std::iter::once(&spec.key).chain(&spec.also) {
                sets.push(set(key, spec.value(x))?);
            }
            out.push(Case { name, file: b.file.clone(), sets, sweep: Some((spec.tag(&b.name), x)) });
        }
    }
    Ok(out)
}

/// One explained claim across the sweep: its outcome at every value.
#[derive(Clone, Debug)]
pub struct ClaimSweep {
    /// The claim's id.
    pub claim: String,
    /// (value, outcome) per swept value, ascending.
    pub points: Vec<(f64, Outcome)>,
    /// Per point (as `points`), the 95 % interval of the median over the replications of the
    /// claim's value evaluated on each replication alone ([`median_ci95`]; none with fewer than
    /// 6 replications at that point).
    pub intervals: Vec<MedianInterval>,
}

impl ClaimSweep {
    /// The values at which the claim holds.
    pub fn holds_at(&self) -> Vec<f64> {
        self.points.iter().filter(|(_, o)| o.verdict == Verdict::Holds).map(|(x, _)| *x).collect()
    }
}

/// Each explained claim's outcome per point: the claim's own metric and check, evaluated on
/// the base cases as run at that value (the default: the experiment's own cases). The spec's
/// `fixed` cases (those a claim compares a base case with) enter every point unchanged.
pub fn claim_sweeps(spec: &SweepSpec, results: &[CaseResult], published: &Published) -> Vec<ClaimSweep> {
    let own: Vec<Case> = results.iter().filter(|r| !is_point(&r.case)).map(|r| r.case.clone()).collect();
    let bases = spec.base_cases(&own);
    let fixed: Vec<&CaseResult> = results
        .iter()
        .filter(|r| !is_point(&r.case) && spec.fixed.contains(&r.case.name))
        .filter(|r| !bases.iter().any(|b| b.name == r.case.name))
        .collect();
    let mut per_value: Vec<(f64, Vec<CaseResult>)> = Vec::new();
    for &x in &spec.values {
        let mut set = Vec::new();
        for b in &bases {
            let found = if x == spec.default {
                results.iter().find(|r| r.case.name == b.name).cloned()
            } else {
                let tag = spec.tag(&b.name);
                results.iter().find(|r| r.case.sweep.as_ref().is_some_and(|(s, v)| *s == tag && *v == x)).map(|r| {
                    // Seen by the claim as the base case itself.
                    CaseResult { case: (*b).clone(), ..r.clone() }
                })
            };
            set.extend(found);
        }
        if set.len() == bases.len() {
            set.extend(fixed.iter().map(|r| (*r).clone()));
            per_value.push((x, set));
        }
    }
    // Each point's replications alone (the noise test of direction claims at every point).
    let sets: Vec<Vec<Vec<CaseResult>>> =
        per_value.iter().map(|(_, cases)| crate::reproduce::noise::replication_sets(cases)).collect();
    spec.claims
        .iter()
        .filter_map(|id| published.claims.iter().find(|c| c.id == *id))
        .map(|claim| ClaimSweep {
            claim: claim.id.clone(),
            points: per_value
                .iter()
                .zip(&sets)
                .map(|((x, cases), sets)| (*x, crate::reproduce::noise::judge(evaluate(cases, claim), sets)))
                .collect(),
            intervals: sets.iter().map(|sets| interval(sets, claim)).collect(),
        })
        .collect()
}

/// The 95 % interval of the median over replications of `claim` evaluated on each replication
/// alone (`sets`, [`crate::reproduce::noise::replication_sets`]: replication r of every case
/// together, as they share seed + r); none with fewer than 6 replications defining it.
fn interval(sets: &[Vec<CaseResult>], claim: &Claim) -> MedianInterval {
    median_ci95(&sets.iter().map(|set| evaluate(set, claim).ours).collect::<Vec<f64>>())
}

/// Whether a case is a point of an investigation (not one of the experiment's own).
pub fn is_point(c: &Case) -> bool {
    c.sweep.as_ref().is_some_and(|(s, _)| s.starts_with("investigation/"))
}

/// The investigation of `spec` from the experiment's results (`None` when its cases did not run).
pub fn sweep_investigation(
    spec: &SweepSpec,
    results: &[CaseResult],
    published: &Published,
    quick: bool,
    replications: Option<u32>,
) -> Option<Investigation> {
    let sweeps = claim_sweeps(spec, results, published);
    if sweeps.iter().all(|s| s.points.len() < 2) {
        return None;
    }
    let own_reps: Vec<u32> = {
        let own: Vec<Case> = results.iter().filter(|r| !is_point(&r.case)).map(|r| r.case.clone()).collect();
        let names: Vec<&str> = spec.base_cases(&own).iter().map(|c| c.name.as_str()).collect();
        let mut r: Vec<u32> =
            results.iter().filter(|r| names.contains(&r.case.name.as_str())).map(|r| r.replications).collect();
        r.sort_unstable();
        r.dedup();
        r
    };
    let reps = spec.reps(quick, replications);
    let about = format!(
        "{} Swept: {} = {} (the documented default {} is the experiment's own case{}, with its {} replications; every other \
point runs {} replication{} per algorithm). Each claim's value is recomputed per point by its own metric and check; the \
verdicts above stay on the default.",
        spec.question,
        spec.key,
        spec.values.iter().map(|x| spec.fmt(*x)).collect::<Vec<_>>().join(", "),
        spec.with_unit(spec.default),
        if spec.base_cases(&results.iter().map(|r| r.case.clone()).collect::<Vec<_>>()).len() > 1 { "s" } else { "" },
        own_reps.iter().map(u32::to_string).collect::<Vec<_>>().join("/"),
        reps,
        if reps == 1 { "" } else { "s" },
    );
    let svg = figure(spec, &sweeps, published, reps);
    Some(Investigation {
        id: spec.id.clone(),
        short: spec.short.clone(),
        title: spec.title.clone(),
        about,
        sentence: sentence(spec, &sweeps),
        svg,
        claims: sweeps.iter().map(|s| s.claim.clone()).collect(),
        results: sweeps
            .iter()
            .map(|s| ClaimPoints {
                claim: s.claim.clone(),
                axis: String::new(),
                values: s.points.iter().map(|p| p.0).collect(),
                default: Some(spec.default),
                ours: s.points.iter().map(|p| p.1.ours).collect(),
                verdicts: s.points.iter().map(|p| p.1.verdict.word().to_string()).collect(),
            })
            .collect(),
    })
}

/// One panel per claim: ours per point, the published value (or a direction claim's bound)
/// dashed, the band of a numeric claim shaded, the documented default marked.
fn figure(spec: &SweepSpec, sweeps: &[ClaimSweep], published: &Published, reps: u32) -> String {
    let (lo, hi) = (spec.values[0], spec.values[spec.values.len() - 1]);
    let mut panels = Vec::new();
    for s in sweeps {
        let Some(claim) = published.claims.iter().find(|c| c.id == s.claim) else { continue };
        let ours: Vec<(f64, f64)> = s.points.iter().map(|(x, o)| (*x, o.ours)).collect();
        let mut series = Vec::new();
        let bound = match claim.check {
            Check::AtMost { value } | Check::AtLeast { value } => value,
            Check::Sign {} => 0.0,
            _ => claim.published,
        };
        if claim.kind() == ClaimKind::Numeric {
            let band = match claim.check {
                // The headline band: a claim's own band is never the verdict's.
                Check::Ratio { .. } => DEFAULT_BAND,
                Check::Within { tolerance } => {
                    [1.0 - tolerance / claim.published.abs(), 1.0 + tolerance / claim.published.abs()]
                }
                _ => DEFAULT_BAND,
            };
            let (a, b) = (band[0] * claim.published, band[1] * claim.published);
            series.push(Series::new(
                format!(
                    "band in which a numeric claim holds (default [{}, {}] × published)",
                    DEFAULT_BAND[0], DEFAULT_BAND[1]
                ),
                vec![(lo, a.min(b)), (hi, a.max(b))],
                SeriesStyle::Band,
            ));
        }
        series.push(Series::new(
            "published value (direction claims: the bound, 0 for a sign)",
            vec![(lo, bound), (hi, bound)],
            SeriesStyle::Dashed,
        ));
        series.push(Series::new("ours", ours.clone(), SeriesStyle::Line));
        series.push(Series::new("ours", ours.clone(), SeriesStyle::Points));
        // Error bars: one vertical segment per point that has an interval.
        for ((x, _), ci) in s.points.iter().zip(&s.intervals).filter(|(_, ci)| ci.lo.is_finite()) {
            series.push(Series::new(ERROR_BARS, vec![(*x, ci.lo), (*x, ci.hi)], SeriesStyle::Line));
        }
        series.push(Series::new(
            "documented default (the verdict)",
            ours.iter().filter(|p| p.0 == spec.default).copied().collect(),
            SeriesStyle::Points,
        ));
        let mut kind = if claim.kind() == ClaimKind::Numeric { "" } else { " (direction)" }.to_string();
        if ours.iter().all(|p| !p.1.is_finite()) {
            kind.push_str(": not evaluated at any value");
        }
        let (what, value) = metric_words(&claim.metric);
        panels.push(LinePanel {
            title: format!("{what}{kind}"),
            x_label: {
                let at = s.holds_at();
                let at = if at.is_empty() {
                    "holds at no value".to_string()
                } else {
                    format!("holds at {}", at.iter().map(|x| spec.fmt(*x)).collect::<Vec<_>>().join(", "))
                };
                format!("{} — {at}", spec.x_label())
            },
            y_label: value,
            series,
            log_y: false,
        });
    }
    let title = capitalised(spec.title.trim_start_matches("Investigation: "));
    // Without a bar anywhere, the legend says why (an entry with nothing to draw).
    if !sweeps.iter().flat_map(|s| &s.intervals).any(|ci| ci.lo.is_finite()) {
        if let Some(first) = panels.first_mut() {
            first.series.push(Series::new(NO_ERROR_BARS, Vec::new(), SeriesStyle::Points));
        }
    }
    line_figure_in_columns(
        &format!("{title} ({reps} replication{} per point)", if reps == 1 { "" } else { "s" }),
        &panels,
        2,
    )
}

/// The legend name of the error bars.
const ERROR_BARS: &str = "95 % interval of the median over replications (order statistics)";

/// The legend entry of a figure without error bars.
const NO_ERROR_BARS: &str = "no 95 % interval of the median: fewer than 6 replications per point";

/// The finding in words, from the verdicts per point: how many claims hold at each value, then
/// each group of claims by where it holds, then what the sources say about the parameter.
pub fn sentence(spec: &SweepSpec, sweeps: &[ClaimSweep]) -> String {
    let n = sweeps.len();
    let mut s = String::new();
    let counts: Vec<String> = spec
        .values
        .iter()
        .map(|&x| {
            let k = sweeps.iter().filter(|c| c.holds_at().contains(&x)).count();
            let d = if x == spec.default { " (default)" } else { "" };
            format!("{k} at {}{d}", spec.with_unit(x))
        })
        .collect();
    let _ = write!(
        s,
        "Of the {n} claim{} explained, {} hold{}. ",
        if n == 1 { "" } else { "s" },
        counts.join(", "),
        if n == 1 { "s" } else { "" }
    );
    // Group the claims by where they hold.
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    let mut threshold_above_default = false;
    for c in sweeps {
        let at = c.holds_at();
        let evaluated: Vec<f64> = c.points.iter().map(|p| p.0).collect();
        let phrase = if at.is_empty() {
            "hold at no swept value".to_string()
        } else if at.len() == evaluated.len() {
            "hold at every swept value".to_string()
        } else if !spec.words.is_empty() {
            format!("hold only at {} = {}", spec.key, at.iter().map(|x| spec.fmt(*x)).collect::<Vec<_>>().join(", "))
        } else if evaluated.iter().skip_while(|x| !at.contains(x)).all(|x| at.contains(x)) {
            let from = at[0];
            if from > spec.default {
                threshold_above_default = true;
            }
            format!("hold from {} = {}", spec.key, spec.with_unit(from))
        } else if evaluated.iter().take_while(|x| at.contains(x)).count() == at.len() {
            format!("hold up to {} = {}", spec.key, spec.with_unit(at[at.len() - 1]))
        } else {
            format!("hold only at {}", at.iter().map(|x| spec.with_unit(*x)).collect::<Vec<_>>().join(", "))
        };
        match groups.iter_mut().find(|(p, _)| *p == phrase) {
            Some((_, ids)) => ids.push(&c.claim),
            None => groups.push((phrase, vec![&c.claim])),
        }
    }
    let parts: Vec<String> = groups
        .iter()
        .map(|(phrase, ids)| {
            let phrase = if ids.len() == 1 { phrase.replacen("hold", "holds", 1) } else { phrase.clone() };
            format!("{} {phrase} ({})", ids.len(), ids.join(", "))
        })
        .collect();
    let _ = write!(s, "{}. ", parts.join("; "));
    if threshold_above_default {
        let _ = write!(s, "The default {} lies below that threshold. ", spec.with_unit(spec.default));
    }
    s.push_str(&spec.unknown);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::published::parse;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn spec() -> SweepSpec {
        SweepSpec {
            id: "x-size".into(),
            experiment: "x".into(),
            short: "the size investigation".into(),
            title: "Investigation: size".into(),
            question: "Does size matter?".into(),
            bases: strings(&["x/base"]),
            fixed: vec![],
            key: "response_payload_bytes".into(),
            axis: "response payload size".into(),
            also: vec![],
            words: vec![],
            unit: "B".into(),
            values: vec![20.0, 40.0, 60.0, 80.0],
            default: 20.0,
            algorithms: vec![],
            replications: [8, 1],
            claims: strings(&["c1", "c2"]),
            unknown: "The testbed's sizes are not published.".into(),
        }
    }

    fn outcome(v: Verdict) -> Outcome {
        let p = parse(
            "experiment = \"x\"\ntitle = \"t\"\npaper = \"p\"\ncites = \"lim2020\"\n[[claim]]\nid = \"c\"\ntext = \"t\"\n\
source = \"s\"\nmetric = \"fct_median\"\ncase = \"x/base\"\na = \"cocoa\"\npublished = 1.0\ncheck = \"ratio\"\n",
            "x.toml",
        )
        .unwrap();
        Outcome {
            claim: p.claims[0].clone(),
            ours: 1.0,
            ratio: 1.0,
            verdict: v,
            rule: String::new(),
            noise: None,
            own_band: None,
        }
    }

    fn sweep(id: &str, holds: &[bool]) -> ClaimSweep {
        ClaimSweep {
            claim: id.into(),
            points: spec()
                .values
                .iter()
                .zip(holds)
                .map(|(x, h)| (*x, outcome(if *h { Verdict::Holds } else { Verdict::Differs })))
                .collect(),
            intervals: Vec::new(),
        }
    }

    #[test]
    fn the_sentence_names_the_threshold_above_the_default_and_what_is_unpublished() {
        let s =
            sentence(&spec(), &[sweep("c1", &[false, true, true, true]), sweep("c2", &[false, false, false, false])]);
        assert!(
            s.starts_with("Of the 2 claims explained, 0 at 20 B (default), 1 at 40 B, 1 at 60 B, 1 at 80 B hold."),
            "{s}"
        );
        assert!(s.contains("1 holds from response_payload_bytes = 40 B (c1); 1 holds at no swept value (c2)."), "{s}");
        assert!(
            s.contains("The default 20 B lies below that threshold. The testbed's sizes are not published."),
            "{s}"
        );
    }

    #[test]
    fn claims_holding_at_scattered_values_are_listed_and_no_threshold_is_claimed() {
        let s = sentence(&spec(), &[sweep("c1", &[true, false, true, false])]);
        assert!(s.contains("1 holds only at 20 B, 60 B (c1)"), "{s}");
        assert!(!s.contains("threshold"), "{s}");
        let s = sentence(&spec(), &[sweep("c1", &[true, true, false, false]), sweep("c2", &[true; 4])]);
        assert!(
            s.contains("1 holds up to response_payload_bytes = 40 B (c1); 1 holds at every swept value (c2)"),
            "{s}"
        );
    }

    #[test]
    fn point_cases_copy_the_base_case_and_set_the_key_except_at_the_default() {
        let own = vec![
            Case { name: "x/base".into(), file: "x/base.toml".into(), sets: vec![], sweep: None },
            Case { name: "x/other".into(), file: "x/other.toml".into(), sets: vec![], sweep: None },
        ];
        let cases = sweep_cases(&spec(), &own, false, None).unwrap();
        assert_eq!(cases.len(), 3, "40, 60, 80 B of the one base case");
        let c = &cases[0];
        assert_eq!(c.name, "x/base@response_payload_bytes=40");
        assert_eq!(c.file, std::path::Path::new("x/base.toml"));
        assert!(c.sets.contains(&set("response_payload_bytes", 40_i64).unwrap()));
        assert!(c.sets.contains(&Setting::replications(8)));
        assert!(is_point(c) && !is_point(&own[0]));
        let quick = sweep_cases(&spec(), &own, true, None).unwrap();
        assert!(quick[0].sets.contains(&Setting::replications(1)));
        let none = SweepSpec { bases: strings(&["x/missing"]), ..spec() };
        assert!(sweep_cases(&none, &own, false, None).unwrap_err().to_string().contains("x-size"));
    }

    #[test]
    fn a_word_valued_key_is_set_as_text_on_every_key_named() {
        let spec = SweepSpec {
            key: "algorithm.cocoa.vbf_selection".into(),
            also: strings(&["algorithm.cocoa-fb1.vbf_selection"]),
            words: strings(&["per-exchange", "per-step"]),
            unit: String::new(),
            values: vec![0.0, 1.0],
            default: 0.0,
            ..spec()
        };
        let own = vec![Case { name: "x/base".into(), file: "x/base.toml".into(), sets: vec![], sweep: None }];
        let cases = sweep_cases(&spec, &own, false, None).unwrap();
        assert_eq!(cases.len(), 1);
        assert_eq!(cases[0].name, "x/base@algorithm.cocoa.vbf_selection=per-step");
        assert!(cases[0].sets.contains(&set("algorithm.cocoa.vbf_selection", "per-step").unwrap()));
        assert!(cases[0].sets.contains(&set("algorithm.cocoa-fb1.vbf_selection", "per-step").unwrap()));
        assert_eq!(spec.x_label(), "response payload size (0 = per-exchange, 1 = per-step)");
        assert_eq!(spec.with_unit(0.0), "per-exchange");
    }

    fn mh_result(name: &str, sweep: Option<(&str, f64)>, goodput: f64) -> CaseResult {
        use coapcc_sim::results::{MetricSummary, MultihopMetric, MultihopSummary, Summary, SummaryOf};
        CaseResult {
            case: Case {
                name: name.into(),
                file: "x.toml".into(),
                sets: vec![],
                sweep: sweep.map(|(s, x)| (s.to_string(), x)),
            },
            description: String::new(),
            source: String::new(),
            seed: 1,
            replications: 1,
            summaries: vec![Summary {
                algorithm: "lim".into(),
                runs: 1,
                of: SummaryOf::Multihop(MultihopSummary {
                    tcp: true,
                    metrics: vec![MetricSummary { metric: MultihopMetric::GoodputBps, mean: goodput, ci95: 0.0 }],
                }),
            }],
            per_replication: Vec::new(),
            series: super::super::evaluate::CaseSeries::None,
            trace: None,
            rtt_samples_rep0: Vec::new(),
            transfer: None,
        }
    }

    /// Claim `c1`: lim's goodput in x/base minus x/other's, a sign claim.
    fn base_minus_other() -> Published {
        parse(
            "experiment = \"x\"\ntitle = \"t\"\npaper = \"p\"\ncites = \"lim2020\"\n[[claim]]\nid = \"c1\"\ntext = \"t\"\n\
source = \"s\"\nmetric = \"mh_diff\"\ncase = \"x/base\"\ncase_b = \"x/other\"\nof = \"goodput_bps\"\na = \"lim\"\n\
published = 1.0\nqualitative = true\ncheck = \"sign\"\n",
            "x.toml",
        )
        .unwrap()
    }

    #[test]
    fn a_claim_comparing_a_swept_case_with_a_fixed_one_is_evaluated_at_every_point() {
        let p = base_minus_other();
        let spec = SweepSpec { values: vec![20.0, 40.0], claims: strings(&["c1"]), ..spec() };
        // x/base's goodput rises above x/other's (15) at 40 B, in each of two replications.
        let results = vec![
            with_replications(mh_result("x/base", None, 10.0), &[9.0, 11.0]),
            with_replications(mh_result("x/other", None, 15.0), &[15.0, 15.0]),
            with_replications(
                mh_result("x/base@response_payload_bytes=40", Some(("investigation/x-size/x/base", 40.0)), 20.0),
                &[19.0, 21.0],
            ),
        ];
        let unfixed = claim_sweeps(&spec, &results, &p);
        assert!(unfixed[0].points.iter().all(|(_, o)| matches!(o.verdict, Verdict::NotEvaluated(_))));
        let fixed = SweepSpec { fixed: strings(&["x/other"]), ..spec };
        let s = claim_sweeps(&fixed, &results, &p);
        assert_eq!(s[0].points.iter().map(|(_, o)| o.ours).collect::<Vec<_>>(), vec![-5.0, 5.0]);
        // Per replication −6, −4 at 20 B (wholly below 0: differs) and 4, 6 at 40 B (holds).
        assert_eq!(s[0].points[0].1.verdict, Verdict::Differs);
        assert_eq!(s[0].points[1].1.noise, Some([4.0, 6.0]));
        assert_eq!(s[0].holds_at(), vec![40.0]);
    }

    #[test]
    fn a_sign_claim_whose_replications_straddle_zero_is_inconclusive_and_one_without_replications_too() {
        let p = base_minus_other();
        let spec =
            SweepSpec { values: vec![20.0, 40.0], claims: strings(&["c1"]), fixed: strings(&["x/other"]), ..spec() };
        // At 40 B the mean difference is +1 (holds on the means), but the replications give −3
        // and +5: the bootstrap interval of their mean is [−3, 5], across 0.
        let results = vec![
            with_replications(mh_result("x/base", None, 10.0), &[9.0, 11.0]),
            with_replications(mh_result("x/other", None, 15.0), &[15.0, 15.0]),
            with_replications(
                mh_result("x/base@response_payload_bytes=40", Some(("investigation/x-size/x/base", 40.0)), 16.0),
                &[12.0, 20.0],
            ),
        ];
        let s = claim_sweeps(&spec, &results, &p);
        let at40 = &s[0].points[1].1;
        assert_eq!((at40.ours, at40.noise), (1.0, Some([-3.0, 5.0])));
        assert!(
            matches!(&at40.verdict, Verdict::Inconclusive(why) if why.contains("[-3.0000, 5.0000]")),
            "{:?}",
            at40.verdict
        );
        assert!(s[0].holds_at().is_empty());
        // One replication: no test of the noise can be made.
        let single: Vec<CaseResult> =
            results.into_iter().map(|r| CaseResult { per_replication: Vec::new(), ..r }).collect();
        let s = claim_sweeps(&spec, &single, &p);
        assert!(matches!(&s[0].points[1].1.verdict, Verdict::Inconclusive(why) if why.contains("no noise test")));
    }

    /// `result` with one replication's goodput per value of `goodputs` kept alone.
    fn with_replications(result: CaseResult, goodputs: &[f64]) -> CaseResult {
        let one = |g: f64| mh_result("r", None, g).summaries;
        CaseResult { per_replication: goodputs.iter().map(|g| one(*g)).collect(), ..result }
    }

    #[test]
    fn each_point_gets_the_order_statistic_interval_of_the_claim_over_its_replications() {
        let p = base_minus_other();
        let spec =
            SweepSpec { values: vec![20.0, 40.0], claims: strings(&["c1"]), fixed: strings(&["x/other"]), ..spec() };
        let results = vec![
            with_replications(mh_result("x/base", None, 11.5), &[10.0, 12.0, 9.0, 14.0, 11.0, 13.0]),
            with_replications(mh_result("x/other", None, 15.0), &[15.0; 6]),
            // Five replications: no 95 % interval.
            with_replications(
                mh_result("x/base@response_payload_bytes=40", Some(("investigation/x-size/x/base", 40.0)), 20.0),
                &[20.0, 21.0, 22.0, 23.0, 24.0],
            ),
        ];
        let s = claim_sweeps(&spec, &results, &p);
        // Per replication base − other: −5, −3, −6, −1, −4, −2; with n = 6 the interval is
        // (x(1), x(6)) = (−6, −1) at 1 − 2·(1/64) = 0.96875.
        let ci = s[0].intervals[0];
        assert_eq!((ci.lo, ci.hi, ci.level), (-6.0, -1.0, 0.96875));
        assert!(s[0].intervals[1].lo.is_nan() && s[0].intervals[1].level.is_nan());
        let svg = figure(&spec, &s, &p, 5);
        assert!(svg.contains(ERROR_BARS) && !svg.contains(NO_ERROR_BARS), "{svg}");
        // Without six replications anywhere, the caption says there is no interval.
        let few: Vec<CaseResult> =
            results.into_iter().map(|r| CaseResult { per_replication: Vec::new(), ..r }).collect();
        let svg = figure(&spec, &claim_sweeps(&spec, &few, &p), &p, 5);
        assert!(svg.contains(NO_ERROR_BARS) && !svg.contains(ERROR_BARS), "{svg}");
    }

    /// A slug: no space, or words joined by `_`, or four or more parts joined by `-` (a case or
    /// claim id; algorithm names such as `cocoa-plus-makarem` have at most three).
    fn is_slug(s: &str) -> bool {
        !s.contains(' ') || s.contains('_') || s.split([' ', '(', ')', ',', ':']).any(|t| t.split('-').count() >= 4)
    }

    #[test]
    fn the_slug_test_tells_slugs_from_words() {
        assert!(is_slug("link-errors"));
        assert!(is_slug("400-infinite-random-fct-fasor-vs-cocoa"));
        assert!(is_slug("median FCT of fasor (fasor/400-flows-infinite-buffer-random)"));
        assert!(is_slug("response_payload_bytes (B)"));
        assert!(!is_slug("Link error rate"));
        assert!(!is_slug("median FCT reduction: cocoa-fb1 vs cocoa (400 flows infinite buffer random)"));
    }

    #[test]
    fn no_investigation_panel_title_or_axis_is_a_slug() {
        for p in crate::reproduce::published::all().unwrap() {
            for inv in &p.investigations {
                let InvestigationSpec::Sweep(spec) = inv else { continue };
                assert!(!is_slug(&spec.x_label()), "{}: x axis `{}`", spec.id, spec.x_label());
                for id in &spec.claims {
                    let claim = p.claims.iter().find(|c| c.id == *id).unwrap();
                    let (title, value) = metric_words(&claim.metric);
                    assert!(!is_slug(&title), "{}: panel `{title}` of claim {id}", spec.id);
                    assert!(!is_slug(&value), "{}: y axis `{value}` of claim {id}", spec.id);
                }
            }
        }
    }
}
