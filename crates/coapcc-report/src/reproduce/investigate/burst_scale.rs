//! The FASOR paper's **burst scale** of the Gilbert–Elliott link errors in
//! the 10-flow error cases (docs/testbeds.md §1.2). The paper's netem changes state per packet and
//! it says only that the states "alternate in suitably short intervals"; our default is a
//! time-driven chain with 1 s / 4 s mean sojourns. The sweep runs the medium- and high-error
//! cases with the sojourns scaled (time mode) and with per-packet bursts of a few mean lengths
//! (packet mode), always at the level's stationary loss, and compares FASOR's FCT gains with
//! the published ones.

use std::fmt::Write;

use coapcc_driver::scenario::{Setting, Value};
use coapcc_sim::results::{MedianInterval, Summary, median_ci95};

use super::{ERROR_BARS, Investigation, NO_ERROR_BARS};
use crate::error::ReportError;
use crate::figures::{LinePanel, Series, SeriesStyle, line_figure_in_columns};
use crate::reproduce::evaluate::{CaseResult, capitalised, net, sweep_points};
use crate::reproduce::experiments::Case;
use crate::reproduce::published::{DEFAULT_BAND, Metric, Published};

pub use super::spec::BurstScaleSpec;
/// Time mode: factors applied to the default sojourns (1 s burst, 4 s low-error).
pub const TIME_SCALES: [f64; 3] = [0.1, 0.3, 1.0];
/// Packet mode: mean burst lengths in packets (the low-error run is four times as long).
pub const PACKET_BURSTS: [f64; 3] = [1.0, 3.0, 10.0];
/// The error levels and flow types of the 10-flow error cases.
const CASES: [(&str, &str); 4] =
    [("medium", "continuous"), ("medium", "random"), ("high", "continuous"), ("high", "random")];
/// FASOR is compared with these (the published FCT gains).
const VERSUS: [&str; 3] = ["cocoa-fb1", "cocoa", "default"];

/// The two ways the state changes.
const MODES: [&str; 2] = ["time", "packet"];

fn points(mode: &str) -> &'static [f64] {
    if mode == "time" { &TIME_SCALES } else { &PACKET_BURSTS }
}

fn base_case(level: &str, flows: &str) -> String {
    format!("fasor/10-flows-{level}-errors-{flows}")
}

fn sweep_name(level: &str, flows: &str, mode: &str) -> String {
    format!("fasor/burst-scale/{level}-errors-{flows}/{mode}")
}

fn set(key: &str, value: impl Into<Value>) -> Result<Setting, ReportError> {
    Setting::new(key, value).map_err(|e| ReportError::Description(e.to_string()))
}

impl BurstScaleSpec {
    /// The sweep's cases: every 10-flow error case at every burst scale of both modes, with
    /// Default CoAP, CoCoA, CoCoA+FB1 and FASOR.
    pub fn cases(&self, quick: bool, replications: Option<u32>) -> Result<Vec<Case>, ReportError> {
        burst_scale_cases(replications.unwrap_or(self.replications[usize::from(quick)]))
    }
}

fn burst_scale_cases(reps: u32) -> Result<Vec<Case>, ReportError> {
    let mut out = Vec::new();
    for (level, flows) in CASES {
        for mode in MODES {
            for &x in points(mode) {
                let name = format!("fasor/burst-scale/10-flows-{level}-errors-{flows}@{mode}={x}");
                let mut sets = vec![
                    Setting::replications(reps),
                    Setting::algorithms(["default", "cocoa", "cocoa-fb1", "fasor"]),
                    set("name", name.clone())?,
                    set("errors_model", mode)?,
                ];
                if mode == "time" {
                    sets.push(set("errors_mean_bad_ms", (1000.0 * x).round() as i64)?);
                    sets.push(set("errors_mean_good_ms", (4000.0 * x).round() as i64)?);
                } else {
                    sets.push(set("errors_mean_bad_packets", x.round() as i64)?);
                }
                out.push(Case {
                    name,
                    file: format!("{}.toml", base_case(level, flows)).into(),
                    sets,
                    sweep: Some((sweep_name(level, flows, mode), x)),
                });
            }
        }
    }
    Ok(out)
}

/// One comparison of the sweep: our gains per point and the published one.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The published claim's id.
    pub claim: String,
    /// `medium` or `high`.
    pub level: &'static str,
    /// `continuous` or `random`.
    pub flows: &'static str,
    /// `time` or `packet`.
    pub mode: &'static str,
    /// FASOR against this algorithm.
    pub versus: &'static str,
    /// The published gain (1 − FCT_FASOR / FCT_versus, medians).
    pub published: f64,
    /// The band of ours/published in which the claim holds.
    pub band: [f64; 2],
    /// (burst scale, our gain) per point.
    pub ours: Vec<(f64, f64)>,
    /// Per point (as `ours`), the 95 % interval of the median over replications of the gain
    /// computed on each replication alone ([`median_ci95`]; none with fewer than 6).
    pub intervals: Vec<MedianInterval>,
}

impl Line {
    /// Whether the claim holds at burst scale `x`.
    pub fn holds_at(&self, x: f64) -> bool {
        self.ours.iter().any(|&(px, g)| px == x && (self.band[0]..=self.band[1]).contains(&(g / self.published)))
    }
}

fn median_fct(summaries: &[Summary], a: &str) -> Option<f64> {
    summaries.iter().find(|s| s.algorithm == a).map(|s| net(s).fct.p50).filter(|v| v.is_finite() && *v > 0.0)
}

/// FASOR's FCT gain over `b`: 1 − median FCT of FASOR / median FCT of `b`.
fn gain(summaries: &[Summary], b: &str) -> Option<f64> {
    Some(1.0 - median_fct(summaries, "fasor")? / median_fct(summaries, b)?)
}

/// The 95 % interval of the median of the gain over `b` computed on each replication of `c`
/// alone (replication r of both algorithms together: they share seed + r).
fn gain_interval(c: &CaseResult, b: &str) -> MedianInterval {
    let per: Vec<f64> = c.per_replication.iter().map(|r| gain(r, b).unwrap_or(f64::NAN)).collect();
    median_ci95(&per)
}

/// The published FCT-gain claim of FASOR against `b` in `case`.
fn claim_for<'a>(published: &'a Published, case: &str, b: &str) -> Option<&'a crate::reproduce::published::Claim> {
    published.claims.iter().find(|c| match &c.metric {
        Metric::FctMedianReduction(v) => v.case.as_deref() == Some(case) && v.a == "fasor" && v.b == b,
        _ => false,
    })
}

/// The burst-scale investigation from the experiment's results (`None` when its cases did not
/// run).
pub fn burst_scale(spec: &BurstScaleSpec, results: &[CaseResult], published: &Published) -> Option<Investigation> {
    let lines = lines(results, published);
    if lines.is_empty() {
        return None;
    }
    // Every point runs the same replications (the spec's, or --replications).
    let reps = results.iter().filter(|r| r.case.name.starts_with("fasor/burst-scale/")).map(|r| r.replications).max();
    let svg = figure(&lines, reps.unwrap_or(0));
    let claims = {
        let mut c: Vec<String> = lines.iter().map(|l| l.claim.clone()).collect();
        c.sort();
        c.dedup();
        c
    };
    let sentence = sentence(&lines);
    Some(Investigation {
        id: spec.id.clone(),
        short: "the burst-scale investigation".into(),
        title: "Investigation: the burst scale of the link errors (10 flows, medium and high errors)".into(),
        about: ABOUT.into(),
        sentence,
        svg,
        claims,
        results: lines
            .iter()
            .map(|l| super::ClaimPoints {
                claim: l.claim.clone(),
                axis: l.mode.to_string(),
                values: l.ours.iter().map(|p| p.0).collect(),
                // Time mode at scale 1 is the default chain; packet mode has no default.
                default: (l.mode == "time").then_some(1.0),
                ours: l.ours.iter().map(|p| p.1).collect(),
                verdicts: l
                    .ours
                    .iter()
                    .map(|&(x, _)| if l.holds_at(x) { "holds" } else { "differs" }.to_string())
                    .collect(),
            })
            .collect(),
    })
}

/// What was varied and why.
const ABOUT: &str = "The paper's netem changes the Gilbert–Elliott state per packet and the paper says only that the \
states \"alternate in suitably short intervals\"; our default is a time-driven chain with mean sojourns of 1 s \
(burst) and 4 s (low-error). Here the medium- and high-error cases run with the sojourns scaled (time mode; x = \
mean burst sojourn) and with netem's per-packet chain (packet mode; x = mean burst length in packets, low-error \
runs four times as long), always at the level's stationary loss. The verdicts above stay on the default; dashed \
lines are the published gains.";

/// Every comparison the sweep's results allow.
fn lines(results: &[CaseResult], published: &Published) -> Vec<Line> {
    let mut lines = Vec::new();
    for (level, flows) in CASES {
        for mode in MODES {
            let pts = sweep_points(results, &sweep_name(level, flows, mode));
            if pts.is_empty() {
                continue;
            }
            for b in VERSUS {
                let Some(claim) = claim_for(published, &base_case(level, flows), b) else { continue };
                // The headline band (a claim's own band is never the verdict's).
                let band = DEFAULT_BAND;
                let (ours, intervals) =
                    pts.iter().filter_map(|(x, c)| Some(((*x, gain(&c.summaries, b)?), gain_interval(c, b)))).unzip();
                lines.push(Line {
                    claim: claim.id.clone(),
                    level,
                    flows,
                    mode,
                    versus: b,
                    published: claim.published,
                    band,
                    ours,
                    intervals,
                });
            }
        }
    }
    lines
}

/// One panel per case and mode: ours per point with its error bars, the published gains dashed;
/// `reps` replications per point.
fn figure(lines: &[Line], reps: u32) -> String {
    let mut panels = Vec::new();
    for (level, flows) in CASES {
        for mode in MODES {
            let here: Vec<&Line> =
                lines.iter().filter(|l| l.level == level && l.flows == flows && l.mode == mode).collect();
            if here.is_empty() {
                continue;
            }
            let xs = points(mode);
            let (lo, hi) = (xs[0], xs[xs.len() - 1]);
            let mut series = Vec::new();
            for l in &here {
                // Named after the algorithm FASOR is compared with, so it takes that
                // algorithm's palette colour; its published gain is the dashed line of the same colour.
                series.push(Series::new(
                    format!("{} (ours: FASOR's gain over it)", l.versus),
                    l.ours.clone(),
                    SeriesStyle::Line,
                ));
            }
            for l in &here {
                // Error bars in the colour of the line they belong to (named after its algorithm).
                for ((x, _), ci) in l.ours.iter().zip(&l.intervals).filter(|(_, ci)| ci.lo.is_finite()) {
                    series.push(Series::new(
                        format!("{} — {ERROR_BARS}", l.versus),
                        vec![(*x, ci.lo), (*x, ci.hi)],
                        SeriesStyle::Line,
                    ));
                }
            }
            for l in &here {
                series.push(Series::new(
                    format!("{} (published gain)", l.versus),
                    vec![(lo, l.published), (hi, l.published)],
                    SeriesStyle::Dashed,
                ));
            }
            panels.push(LinePanel {
                title: capitalised(&format!("{level} errors, {flows} flows, {mode} mode")),
                x_label: if mode == "time" {
                    "mean burst-state sojourn (s)".into()
                } else {
                    "mean burst length (packets)".into()
                },
                y_label: "FCT gain of FASOR (1 − median ratio)".into(),
                series,
                log_y: false,
            });
        }
    }
    // Without a bar anywhere, the legend says why (an entry with nothing to draw).
    if !lines.iter().flat_map(|l| &l.intervals).any(|ci| ci.lo.is_finite()) {
        if let Some(first) = panels.first_mut() {
            first.series.push(Series::new(NO_ERROR_BARS, Vec::new(), SeriesStyle::Points));
        }
    }
    let title = format!(
        "FASOR's FCT gains against the burst scale (10 flows, link errors; {reps} replication{} per point)",
        if reps == 1 { "" } else { "s" }
    );
    line_figure_in_columns(&title, &panels, 2)
}

/// The claims it explains, from the data file alone (no run): FASOR's FCT-gain claims against
/// the compared algorithms in the 10-flow error cases.
pub fn claims(published: &Published) -> Vec<String> {
    CASES
        .iter()
        .flat_map(|(level, flows)| VERSUS.iter().map(move |b| (base_case(level, flows), *b)))
        .filter_map(|(case, b)| claim_for(published, &case, b).map(|c| c.id.clone()))
        .collect()
}

/// The finding in words: per mode, how many of the swept claims hold at each point.
fn sentence(lines: &[Line]) -> String {
    let mut s = String::new();
    for mode in MODES {
        let here: Vec<&Line> = lines.iter().filter(|l| l.mode == mode).collect();
        if here.is_empty() {
            continue;
        }
        let n = here.len();
        let unit = |x: f64| match mode {
            "time" => " s",
            _ if x == 1.0 => " packet",
            _ => " packets",
        };
        let counts: Vec<(f64, usize)> =
            points(mode).iter().map(|&x| (x, here.iter().filter(|l| l.holds_at(x)).count())).collect();
        // Mean of ours / published over the swept claims, per point.
        let mean_ratio = |x: f64| {
            let r: Vec<f64> = here
                .iter()
                .filter_map(|l| l.ours.iter().find(|p| p.0 == x).map(|p| p.1 / l.published))
                .filter(|r| r.is_finite())
                .collect();
            r.iter().sum::<f64>() / r.len().max(1) as f64
        };
        let parts: Vec<String> = counts
            .iter()
            .map(|(x, k)| format!("{k} at {x}{} (mean ours/published {:.2})", unit(*x), mean_ratio(*x)))
            .collect();
        // The most claims hold here (the first such point, i.e. the shortest bursts, on a tie).
        let best = counts.iter().copied().fold((0.0, 0), |b, p| if p.1 > b.1 { p } else { b });
        let _ = write!(
            s,
            "{}: of the {n} FASOR FCT-gain claims swept, {} hold{}; ",
            if mode == "time" {
                "Time mode (x = mean bad-state sojourn)"
            } else {
                "Packet mode (x = mean burst length)"
            },
            parts.join(", "),
            if mode == "time" { " (the default is 1 s)" } else { "" },
        );
        if best.1 == 0 {
            s.push_str("none holds at any point. ");
        } else {
            let _ = write!(s, "the most ({} of {n}) at {}{}. ", best.1, best.0, unit(best.0));
        }
    }
    s.push_str("The paper gives no burst length, so the published gains are not a fixed target for this model.");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(mode: &'static str, ours: Vec<(f64, f64)>) -> Line {
        Line {
            claim: "c".into(),
            level: "high",
            flows: "random",
            mode,
            versus: "cocoa-fb1",
            published: 0.357,
            band: DEFAULT_BAND,
            ours,
            intervals: Vec::new(),
        }
    }

    #[test]
    fn a_claim_holds_at_a_point_only_when_ours_over_published_is_in_the_band() {
        let l = line("time", vec![(0.1, 0.38), (1.0, 0.25)]);
        assert!(l.holds_at(0.1));
        assert!(!l.holds_at(1.0), "0.25 / 0.357 = 0.70 < 0.8");
        assert!(!l.holds_at(0.3), "no point there");
    }

    #[test]
    fn the_sentence_counts_the_claims_that_hold_at_each_burst_scale() {
        let lines = [line("time", vec![(0.1, 0.38), (0.3, 0.30), (1.0, 0.25)])];
        let s = sentence(&lines);
        assert!(
            s.contains("1 at 0.1 s (mean ours/published 1.06), 1 at 0.3 s (mean ours/published 0.84), 0 at 1 s"),
            "{s}"
        );
        assert!(s.contains("The paper gives no burst length"), "{s}");
    }

    #[test]
    fn every_sweep_point_keeps_the_stationary_loss_and_names_its_case() {
        let spec = BurstScaleSpec { id: "b".into(), replications: [40, 2] };
        let cases = spec.cases(true, None).unwrap();
        assert!(cases.iter().all(|c| c.sets.contains(&Setting::replications(2))), "--quick's replications");
        assert_eq!(cases.len(), CASES.len() * (TIME_SCALES.len() + PACKET_BURSTS.len()));
        let c = cases.iter().find(|c| c.name == "fasor/burst-scale/10-flows-high-errors-random@time=0.1").unwrap();
        assert_eq!(c.file, std::path::Path::new("fasor/10-flows-high-errors-random.toml"));
        assert!(c.sets.contains(&set("errors_mean_bad_ms", 100_i64).unwrap()));
        assert!(c.sets.contains(&set("errors_mean_good_ms", 400_i64).unwrap()));
    }

    /// The time-mode sweep of the medium-error continuous case: FASOR's FCT is 1 s; each
    /// other algorithm's median FCT per replication is `reps` (the whole case's is 2 s).
    fn sweep(reps: &[f64]) -> Vec<CaseResult> {
        use crate::reproduce::evaluate::tests::summary;
        let all = |fct_others: f64| {
            let mut v = vec![summary("fasor", 1.0, 0.0, 0.0)];
            v.extend(VERSUS.iter().map(|a| summary(a, fct_others, 0.0, 0.0)));
            v
        };
        TIME_SCALES
            .iter()
            .map(|&x| CaseResult {
                case: Case {
                    name: format!("p{x}"),
                    file: "x.toml".into(),
                    sets: Vec::new(),
                    sweep: Some((sweep_name("medium", "continuous", "time"), x)),
                },
                description: String::new(),
                source: String::new(),
                seed: 1,
                replications: reps.len() as u32,
                summaries: all(2.0),
                per_replication: if reps.len() >= 6 { reps.iter().map(|&f| all(f)).collect() } else { Vec::new() },
                series: crate::reproduce::evaluate::CaseSeries::None,
                trace: None,
                rtt_samples_rep0: Vec::new(),
                transfer: None,
            })
            .collect()
    }

    #[test]
    fn each_point_gets_the_order_statistic_interval_of_the_gain_over_its_replications() {
        let published = crate::reproduce::published::all().unwrap().iter().find(|p| p.experiment == "fasor").unwrap();
        // Gains 1 − 1/FCT per replication: 0.5, 0.6, 0.75, 0.8, 0.9, 0.2; with n = 6 the 95 %
        // interval of the median is (x(1), x(6)) = (0.2, 0.9).
        let results = sweep(&[2.0, 2.5, 4.0, 5.0, 10.0, 1.25]);
        let swept = lines(&results, published);
        assert!(!swept.is_empty(), "the published FASOR claims of the case are found");
        for l in &swept {
            assert_eq!(l.ours.iter().map(|p| p.1).collect::<Vec<_>>(), vec![0.5; 3], "{}", l.claim);
            for ci in &l.intervals {
                assert!((ci.lo - 0.2).abs() < 1e-12 && (ci.hi - 0.9).abs() < 1e-12, "{ci:?}");
            }
        }
        let svg = figure(&swept, 6);
        assert!(svg.contains("6 replications per point"));
        assert!(svg.contains(ERROR_BARS) && !svg.contains(NO_ERROR_BARS));
        // Two replications: no interval, and the legend says why.
        let few = lines(&sweep(&[2.0, 2.0]), published);
        assert!(few.iter().flat_map(|l| &l.intervals).all(|ci| ci.lo.is_nan()));
        let svg = figure(&few, 2);
        assert!(svg.contains(NO_ERROR_BARS) && !svg.contains(ERROR_BARS));
    }
}
