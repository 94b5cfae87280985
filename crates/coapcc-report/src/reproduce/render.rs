//! Figures and the report pages (self-contained HTML with inline SVG, and Markdown with the
//! SVG files beside it).

use std::fmt::Write;

use coapcc_driver::metrics::Quantiles;
use coapcc_sim::results::{MetricSummary, MultihopMetric};

use super::evaluate::{
    CaseResult, CaseSeries, Outcome, Verdict, capitalised, case_words, compared, metric_words, net, run_metric_words,
    sweep_points, tr, trace_words,
};
use super::investigate::Investigation;
use super::notes::{self, Context};
use super::published::{ClaimKind, DEFAULT_BAND, FigureKind, FigureSpec, Kind, Role};
pub use super::scoreboard::status_md;
use super::scoreboard::{SCORE_HEADS, Score, score_cells, scores_of_csv};
use super::section::{Section, claims_csv};
use crate::figures::{
    BarGroup, BoxPanel, BoxStats, LinePanel, Series, SeriesStyle, bar_figure, bar_figure_labelled, box_figure,
    box_figure_linear, line_figure, line_figure_in_columns,
};
use crate::run_record::RunRecord;

/// The investigations a differing (or not evaluated) claim is linked to: those listing it,
/// then those its `cause` names.
fn investigations_of<'a>(investigations: &'a [Investigation], o: &Outcome) -> Vec<&'a Investigation> {
    if o.verdict == Verdict::Holds {
        return Vec::new();
    }
    let named = o.claim.cause.as_ref().map(|c| c.investigations.as_slice()).unwrap_or_default();
    let mut out: Vec<&Investigation> = investigations.iter().filter(|i| i.claims.contains(&o.claim.id)).collect();
    out.extend(investigations.iter().filter(|i| named.contains(&i.id) && !i.claims.contains(&o.claim.id)));
    out
}

/// Our value as the claims tables show it: for a direction claim, with the values it compares,
/// their metric and unit (`-0.2 (median FCT: fasor 12.3 s vs cocoa 15.1 s)`), else bare.
fn ours_words(o: &Outcome, cases: &[CaseResult]) -> String {
    let n = num(o.ours);
    if o.claim.kind() != ClaimKind::Direction || !o.ours.is_finite() {
        return n;
    }
    match compared(cases, &o.claim) {
        Some(w) => format!("{n} ({w})"),
        None => format!("{n} ({})", o.claim.metric.name().replace('_', " ")),
    }
}

fn stats(q: &Quantiles, n: u64) -> BoxStats {
    BoxStats { p10: q.p10, p25: q.p25, p50: q.p50, p75: q.p75, p90: q.p90, n }
}

/// A multihop run metric's name in words with its unit (`goodput_bps` → `goodput (bit/s)`),
/// for figure titles and axes.
fn run_metric_label(of: &str) -> String {
    match run_metric_words(of) {
        (w, "") => w,
        (w, u) => match u.strip_prefix('/') {
            Some(per) => format!("{w} (per {per})"),
            None => format!("{w} ({u})"),
        },
    }
}

/// Multihop run metric `of` of the algorithms of case `c` the figure draws (all, or those of
/// `spec.algorithms`), in scenario order, for those that have it.
fn mh_means<'a>(
    spec: &'a FigureSpec,
    c: &'a CaseResult,
    of: &str,
) -> impl Iterator<Item = (String, &'a MetricSummary)> + 'a {
    let metric = of.parse::<MultihopMetric>().ok();
    c.summaries
        .iter()
        .filter(|s| spec.algorithms.is_empty() || spec.algorithms.contains(&s.algorithm))
        .filter_map(move |s| Some((s.algorithm.clone(), s.multihop()?.get(metric?)?)))
}

/// A multihop figure (`kind = "mh-ci:METRIC"`): per case a panel, per algorithm the mean of
/// run metric METRIC over the replications drawn as a line with its 95 % confidence interval
/// as the box (whiskers = box: the interval).
fn multihop_ci_figure(spec: &FigureSpec, cases: &[CaseResult], of: &str) -> String {
    let words = run_metric_label(of);
    let title = capitalised(&if spec.their.starts_with("none") {
        format!("{words}: mean and 95 % confidence interval (ours)")
    } else {
        format!("{words}: mean and 95 % confidence interval (ours; their {})", spec.their)
    });
    let panels: Vec<BoxPanel> = spec
        .cases
        .iter()
        .filter_map(|n| cases.iter().find(|c| &c.case.name == n))
        .map(|c| BoxPanel {
            title: label(&c.case.name),
            y_label: format!("{words} (mean, 95 % CI)"),
            boxes: mh_means(spec, c, of)
                .map(|(a, x)| {
                    let (m, ci) = (x.mean, x.ci95);
                    let n = u64::from(c.replications);
                    (a, BoxStats { p10: m - ci, p25: m - ci, p50: m, p75: m + ci, p90: m + ci, n })
                })
                .collect(),
        })
        .collect();
    box_figure_linear(&title, &panels)
}

/// A multihop figure (`kind = "mh-bars:METRIC"`): grouped bars, one group per case, one bar per
/// algorithm: the mean of run metric METRIC over the replications (their intervals are in the
/// case tables and the `mh-ci` figures).
fn multihop_bar_figure(spec: &FigureSpec, cases: &[CaseResult], of: &str) -> String {
    let words = run_metric_label(of);
    let title = capitalised(&format!("{words}: mean over the replications (ours; their {})", spec.their));
    let groups: Vec<BarGroup> = spec
        .cases
        .iter()
        .filter_map(|n| cases.iter().find(|c| &c.case.name == n))
        .map(|c| BarGroup {
            label: label(&c.case.name),
            bars: mh_means(spec, c, of).map(|(a, x)| (a, x.mean)).collect(),
        })
        .collect();
    bar_figure(&title, &words, &groups, false)
}

/// A per-node trace figure in the style of Lim 2020 Figs. 2–3 (`kind = "mh-trace:SCHEME"`):
/// per case and per traced mote (a 1-hop, a middle and the farthest one) a panel with the
/// Karn-valid RTT samples as dots and the retransmission timer as armed as a step line, over
/// time, for replication 0 of algorithm SCHEME (spec multihop.md §4.4).
fn multihop_trace_figure(spec: &FigureSpec, cases: &[CaseResult], scheme: &str) -> String {
    let title = if spec.their.starts_with("none") {
        format!("RTT samples and RTO over time, {scheme}, replication 0 (ours)")
    } else {
        format!("RTT samples and RTO over time, {scheme}, replication 0 (ours; their {})", spec.their)
    };
    let panels: Vec<LinePanel> = spec
        .cases
        .iter()
        .filter_map(|n| cases.iter().find(|c| &c.case.name == n))
        .flat_map(|c| {
            let nodes = match &c.series {
                CaseSeries::TcpTraces(per) => {
                    per.iter().find(|(a, _)| a == scheme).map(|(_, n)| n.clone()).unwrap_or_default()
                }
                _ => Vec::new(),
            };
            nodes.into_iter().map(move |n| LinePanel {
                title: format!(
                    "{}: node {} ({} hop{})",
                    label(&c.case.name),
                    n.node,
                    n.hops,
                    if n.hops == 1 { "" } else { "s" }
                ),
                x_label: "time (s)".into(),
                y_label: "RTT, RTO (s)".into(),
                series: vec![
                    Series::new("RTO", n.rto_s, SeriesStyle::Step),
                    Series::new("RTT", n.rtt_s, SeriesStyle::Points),
                ],
                log_y: false,
            })
        })
        .collect();
    line_figure(&title, &panels)
}

/// A time-series figure of continuous CoAP flows (`kind = "mh-series:ALGORITHM"`, Betzler's
/// cross-traffic burst slides): per case and flow a panel with each exchange's duration as a
/// dot at its completion time and the RTO after it as a step line, replication 0.
fn multihop_series_figure(spec: &FigureSpec, cases: &[CaseResult], alg: &str) -> String {
    let title = format!("Exchange duration (dots) and RTO over time, {alg}, replication 0 (ours)");
    let panels: Vec<LinePanel> = spec
        .cases
        .iter()
        .filter_map(|n| cases.iter().find(|c| &c.case.name == n))
        .flat_map(|c| {
            let flows = match &c.series {
                CaseSeries::FlowSeries(per) => {
                    per.iter().find(|(a, _)| a == alg).map(|(_, f)| f.clone()).unwrap_or_default()
                }
                _ => Vec::new(),
            };
            flows.into_iter().map(move |(server, pts)| LinePanel {
                title: format!("{}: flow to node {server}", label(&c.case.name)),
                x_label: "time (s)".into(),
                y_label: "duration, RTO (s)".into(),
                series: vec![
                    Series::new("RTO", pts.iter().map(|p| (p.0, p.2)).collect(), SeriesStyle::Step),
                    Series::new("RTT", pts.iter().map(|p| (p.0, p.1)).collect(), SeriesStyle::Points),
                ],
                log_y: false,
            })
        })
        .collect();
    line_figure_in_columns(&title, &panels, 2)
}

/// A short label for a case in a panel title.
fn label(case: &str) -> String {
    capitalised(&case_words(case))
}

fn algorithms_of<'a>(spec: &'a FigureSpec, c: &'a CaseResult) -> Vec<&'a str> {
    if spec.algorithms.is_empty() {
        c.summaries.iter().map(|s| s.algorithm.as_str()).collect()
    } else {
        spec.algorithms.iter().map(String::as_str).filter(|a| c.of(a).is_some()).collect()
    }
}

/// Analytic lines of Makarem §6.2 for goodput sweeps over mean ResBW (packets/s).
fn analytic_goodput(xs: &[f64]) -> Vec<Series> {
    let (lo, hi) =
        (xs.iter().copied().fold(f64::INFINITY, f64::min), xs.iter().copied().fold(f64::NEG_INFINITY, f64::max));
    if !lo.is_finite() || !hi.is_finite() {
        return Vec::new();
    }
    // Default CoAP plateau 1/(E[RTO_init] + RTT) = 1/(2.5 s + 0.5 s).
    let plateau = 1.0 / 3.0;
    // MBC: 7/(6·1.25 + 1 + 1.25/0.75) × ResBW.
    let mbc = 7.0 / (6.0 * 1.25 + 1.0 + 1.25 / 0.75);
    // IDC steady state (spec §8.2): n = −ln(iw)/ln(1−dw); goodput ≈ (dw/iw)·n/(1 − (1−dw)^(n+1))·B.
    let (iw, dw) = (1.5f64, 0.01f64);
    let n = -(iw.ln()) / (1.0 - dw).ln();
    let idc = (dw / iw) * n / (1.0 - (1.0 - dw).powf(n + 1.0));
    vec![
        Series {
            name: "analytic: capacity (ResBW)".into(),
            points: vec![(lo, lo), (hi, hi)],
            style: SeriesStyle::Dashed,
        },
        Series {
            name: "analytic: backoff plateau 1/(E[RTO_init]+RTT)".into(),
            points: vec![(lo, plateau), (hi, plateau)],
            style: SeriesStyle::Dashed,
        },
        Series {
            name: format!("analytic: MBC {mbc:.3}·ResBW"),
            points: vec![(lo, mbc * lo), (hi, mbc * hi)],
            style: SeriesStyle::Dashed,
        },
        Series {
            name: format!("analytic: IDC iw 1.5 {idc:.3}·ResBW"),
            points: vec![(lo, idc * lo), (hi, idc * hi)],
            style: SeriesStyle::Dashed,
        },
    ]
}

/// The window of a rate time series drawn at the paper's scale, s (Makarem Fig. 23 spans a
/// few hundred seconds).
pub const RATE_WINDOW_S: f64 = 300.0;
/// Moving average over that window, s.
pub const RATE_SHORT_AVERAGE_S: f64 = 30.0;
/// Moving average over the whole run, s.
pub const RATE_LONG_AVERAGE_S: f64 = 600.0;

/// Centred moving average of `(t, y)` points (sorted by t) over `width_s` seconds; NaN values
/// are skipped.
pub fn moving_average(points: &[(f64, f64)], width_s: f64) -> Vec<(f64, f64)> {
    let half = width_s / 2.0;
    let (mut lo, mut hi, mut sum, mut n) = (0usize, 0usize, 0.0, 0usize);
    let mut out = Vec::with_capacity(points.len());
    for &(t, _) in points {
        while hi < points.len() && points[hi].0 <= t + half {
            if points[hi].1.is_finite() {
                sum += points[hi].1;
                n += 1;
            }
            hi += 1;
        }
        while lo < hi && points[lo].0 < t - half {
            if points[lo].1.is_finite() {
                sum -= points[lo].1;
                n -= 1;
            }
            lo += 1;
        }
        out.push((t, if n == 0 { f64::NAN } else { sum / n as f64 }));
    }
    out
}

/// Draws one of their figures from our cases.
pub fn figure(spec: &FigureSpec, cases: &[CaseResult]) -> String {
    use FigureKind as F;
    let what = match &spec.kind {
        F::FctBox => "Flow completion time",
        F::RetransmissionsBox => "Retransmissions per flow",
        F::UnnecessaryBox => "Unnecessary retransmissions per flow",
        F::RttBox => "CoAP round-trip time",
        F::ExpiredRtoBox => "Expired RTO values",
        F::RtoTrace => "RTO against RTT",
        F::RmseBars => "RMSE of RTO − RTT per scenario",
        F::SpuriousBars => "Spurious transmissions per scenario",
        F::RateTimeseries => "Sending and success rates against ResBW",
        F::GoodputSweep => "Goodput against residual bandwidth",
        F::LossSweep => "Application loss ratio against residual bandwidth",
        F::OverheadSweep => "Overhead against residual bandwidth",
        F::MhCi(_) | F::MhBars(_) | F::MhSeries(_) | F::MhTrace(_) => "Figure",
    };
    let title = if spec.their.starts_with("none") {
        format!("{what} (ours)")
    } else {
        format!("{what} (ours; their {})", spec.their)
    };
    let find = |name: &str| cases.iter().find(|c| c.case.name == name);
    // The quantiles a box figure draws and the number of values they summarise.
    type Pick = fn(&coapcc_sim::results::NetworkSummary) -> (&Quantiles, u64);
    let boxed = |pick: Pick, y: &str| {
        let panels: Vec<BoxPanel> = spec
            .cases
            .iter()
            .filter_map(|n| find(n))
            .map(|c| BoxPanel {
                title: label(&c.case.name),
                y_label: y.to_string(),
                boxes: algorithms_of(spec, c)
                    .into_iter()
                    .filter_map(|a| {
                        c.of(a).map(|s| {
                            let (q, n) = pick(net(s));
                            (a.to_string(), stats(q, n))
                        })
                    })
                    .collect(),
            })
            .collect();
        box_figure(&title, &panels, false)
    };
    match &spec.kind {
        F::MhCi(of) => multihop_ci_figure(spec, cases, of),
        F::MhBars(of) => multihop_bar_figure(spec, cases, of),
        F::MhSeries(alg) => multihop_series_figure(spec, cases, alg),
        F::MhTrace(scheme) => multihop_trace_figure(spec, cases, scheme),
        // FCT: the flows that finished; per-flow counts: every flow.
        F::FctBox => boxed(|n| (&n.fct, n.flows_total - n.flows_unfinished), "flow completion time (s)"),
        F::RetransmissionsBox => boxed(|n| (&n.retransmissions, n.flows_total), "retransmissions per flow"),
        F::UnnecessaryBox => boxed(|n| (&n.unnecessary, n.flows_total), "unnecessary retransmissions per flow"),
        F::RttBox => boxed(|n| (&n.rtt, n.rtt_samples), "CoAP RTT (s)"),
        F::ExpiredRtoBox => boxed(|n| (&n.expired_rto, n.expired_rto_count), "expired RTO (s)"),
        F::RtoTrace => {
            let panels: Vec<LinePanel> = spec
                .cases
                .iter()
                .filter_map(|n| find(n))
                .map(|c| {
                    let mut series = Vec::new();
                    if let CaseSeries::Trace(per) = &c.series {
                        if let Some((_, first)) = per.first() {
                            series.push(Series {
                                name: "RTT".into(),
                                points: first.iter().enumerate().map(|(i, (rtt, _))| (i as f64, *rtt)).collect(),
                                style: SeriesStyle::Points,
                            });
                        }
                        for (a, s) in per {
                            if spec.algorithms.is_empty() || spec.algorithms.contains(a) {
                                series.push(Series {
                                    name: a.clone(),
                                    points: s.iter().enumerate().map(|(i, (_, rto))| (i as f64, *rto)).collect(),
                                    style: SeriesStyle::Line,
                                });
                            }
                        }
                    }
                    LinePanel {
                        // What the row is, not only its number.
                        title: c.trace.as_ref().map_or_else(|| label(&c.case.name), trace_words),
                        x_label: "transmission".into(),
                        y_label: "RTT, RTO (ms)".into(),
                        series,
                        log_y: false,
                    }
                })
                .collect();
            line_figure(&title, &panels)
        }
        F::RmseBars | F::SpuriousBars => {
            let rmse = spec.kind == F::RmseBars;
            let rows: Vec<&CaseResult> = if spec.cases.is_empty() {
                cases.iter().filter(|c| c.trace.is_some()).collect()
            } else {
                spec.cases.iter().filter_map(|n| find(n)).collect()
            };
            let groups: Vec<BarGroup> = rows
                .iter()
                .map(|c| BarGroup {
                    label: c.case.name.rsplit('-').next().unwrap_or("").trim_start_matches('0').to_string(),
                    bars: algorithms_of(spec, c)
                        .into_iter()
                        .filter_map(|a| {
                            c.of(a).map(|s| (a.to_string(), if rmse { tr(s).rmse_ms } else { tr(s).spurious }))
                        })
                        .collect(),
                })
                .collect();
            let y = if rmse { "RMSE of RTO − RTT (ms)" } else { "spurious transmissions (mean per run)" };
            bar_figure_labelled(&title, "row of Makarem's Table 1 (RTT trace)", y, &groups, false)
        }
        F::RateTimeseries => {
            // Per algorithm: the paper's scale (the first RATE_WINDOW_S, short moving average)
            // beside the whole run (long moving average); ResBW last, so drawn on top.
            let mut panels = Vec::new();
            for c in spec.cases.iter().filter_map(|n| find(n)) {
                if let CaseSeries::Rates(per) = &c.series {
                    for (a, pts) in per {
                        if !(spec.algorithms.is_empty() || spec.algorithms.contains(a)) {
                            continue;
                        }
                        let col = |f: fn(&coapcc_driver::metrics::SeriesPoint) -> f64| -> Vec<(f64, f64)> {
                            pts.iter().map(|p| (p.t_s, f(p))).collect()
                        };
                        let (res, send, ok) =
                            (col(|p| p.resbw_per_s), col(|p| p.send_rate_per_s), col(|p| p.success_rate_per_s));
                        let end = pts.last().map_or(0.0, |p| p.t_s);
                        for (window, avg) in [(RATE_WINDOW_S, RATE_SHORT_AVERAGE_S), (end, RATE_LONG_AVERAGE_S)] {
                            let cut = |v: &[(f64, f64)]| -> Vec<(f64, f64)> {
                                v.iter().copied().filter(|(t, _)| *t <= window).collect()
                            };
                            let whole = window >= end;
                            panels.push(LinePanel {
                                title: if whole {
                                    format!("{a}: whole run, {avg:.0}-s moving average")
                                } else {
                                    format!("{a}: first {window:.0} s, {avg:.0}-s moving average")
                                },
                                x_label: "time (s)".into(),
                                y_label: "packets/s".into(),
                                series: vec![
                                    Series {
                                        name: "sending rate (moving average)".into(),
                                        points: cut(&moving_average(&send, avg)),
                                        style: SeriesStyle::Line,
                                    },
                                    Series {
                                        name: "success rate (moving average)".into(),
                                        points: cut(&moving_average(&ok, avg)),
                                        style: SeriesStyle::Line,
                                    },
                                    Series {
                                        name: "ResBW".into(),
                                        points: if whole { moving_average(&res, avg) } else { cut(&res) },
                                        style: if whole { SeriesStyle::Line } else { SeriesStyle::Step },
                                    },
                                ],
                                log_y: false,
                            });
                            if whole {
                                break;
                            }
                        }
                    }
                }
            }
            line_figure_in_columns(&title, &panels, 2)
        }
        F::GoodputSweep | F::LossSweep | F::OverheadSweep => {
            let mut panels = Vec::new();
            for sweep in &spec.cases {
                let pts = sweep_points(cases, sweep);
                if pts.is_empty() {
                    continue;
                }
                let high = sweep.contains("high-variability");
                let x_label = if high {
                    "ResBW half-width w: range [1 − w, 1 + w] (packets/s)"
                } else {
                    "mean residual bandwidth (packets/s)"
                };
                let algs: Vec<String> = algorithms_of(spec, pts[0].1).into_iter().map(str::to_string).collect();
                let mut series: Vec<Series> = algs
                    .iter()
                    .map(|a| Series {
                        name: a.clone(),
                        points: pts
                            .iter()
                            .filter_map(|(x, c)| {
                                c.of(a).map(|s| {
                                    let y = match spec.kind {
                                        F::GoodputSweep => net(s).goodput_per_s,
                                        F::LossSweep => net(s).loss_ratio,
                                        _ => net(s).overhead,
                                    };
                                    (*x, y)
                                })
                            })
                            .collect(),
                        style: SeriesStyle::Line,
                    })
                    .collect();
                if spec.kind == F::GoodputSweep && !high {
                    let xs: Vec<f64> = pts.iter().map(|(x, _)| *x).collect();
                    series.extend(analytic_goodput(&xs));
                }
                let y_label = match spec.kind {
                    F::GoodputSweep => "goodput (messages/s)",
                    F::LossSweep => "application loss ratio",
                    _ => "overhead (lost / delivered packets)",
                };
                panels.push(LinePanel {
                    title: label(sweep),
                    x_label: x_label.into(),
                    y_label: y_label.into(),
                    series,
                    log_y: false,
                });
            }
            line_figure(&title, &panels)
        }
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

pub use super::evaluate::num;

/// The longest row label of the ratio plot, characters (longer ones end in `…`).
const ROW_LABEL_CHARS: usize = 96;

/// ours/published of every numeric claim on a log scale, the band shaded: one row per claim,
/// labelled by its metric in words.
pub fn ratio_plot(sections: &[Section]) -> String {
    let rows: Vec<(&str, &Outcome)> = sections
        .iter()
        .flat_map(|s| s.outcomes.iter().map(move |o| (s.published.experiment.as_str(), o)))
        .filter(|(_, o)| o.claim.kind() == ClaimKind::Numeric)
        .collect();
    let (label_w, plot_w, row_h, top, bottom) = (560.0, 520.0, 14.0, 58.0, 46.0);
    let groups = {
        let mut g: Vec<&str> = rows.iter().map(|(e, _)| *e).collect();
        g.dedup();
        g.len()
    };
    let height = top + bottom + row_h * (rows.len() + groups) as f64;
    let width = label_w + plot_w + 30.0;
    let (lo, hi) = (0.1f64.log10(), 10f64.log10());
    let x = |r: f64| label_w + (r.log10().clamp(lo, hi) - lo) / (hi - lo) * plot_w;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" \
font-family=\"sans-serif\" font-size=\"11\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
<text x=\"{}\" y=\"20\" font-size=\"15\" text-anchor=\"middle\">ours / published for every numeric claim (log scale; \
shaded: the default band [{}, {}])</text>\
<text x=\"{}\" y=\"38\" text-anchor=\"middle\">● ✔ holds (green) \u{2003} ✘ differs (red) \u{2003} ○ not counted \
(restates, derived, calibration, illustration) \u{2003} ◀ ▶ beyond 0.1 or 10, with the verdict's mark</text>",
        width / 2.0,
        DEFAULT_BAND[0],
        DEFAULT_BAND[1],
        width / 2.0,
    );
    let y_end = height - bottom;
    let _ = write!(
        svg,
        "<rect x=\"{:.1}\" y=\"{top}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#d8efd8\"/>",
        x(DEFAULT_BAND[0]),
        x(DEFAULT_BAND[1]) - x(DEFAULT_BAND[0]),
        y_end - top
    );
    for t in [0.1, 0.2, 0.5, 0.8, 1.0, 1.25, 2.0, 5.0, 10.0] {
        let _ = write!(
            svg,
            "<line x1=\"{xt:.1}\" x2=\"{xt:.1}\" y1=\"{top}\" y2=\"{y_end}\" stroke=\"{}\"/><text x=\"{xt:.1}\" y=\"{}\" \
text-anchor=\"middle\">{t}</text><text x=\"{xt:.1}\" y=\"{}\" text-anchor=\"middle\">{t}</text>",
            if t == 1.0 { "#555" } else { "#ddd" },
            top - 6.0,
            y_end + 14.0,
            xt = x(t)
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">ours / published (values beyond 0.1 or 10, and negative ones, \
are drawn at the edge as ◀ ▶)</text>",
        label_w + plot_w / 2.0,
        y_end + 32.0
    );
    let mut y = top;
    let mut last = "";
    for (e, o) in &rows {
        if *e != last {
            last = e;
            y += row_h;
            let _ = write!(svg, "<text x=\"4\" y=\"{:.1}\" font-weight=\"bold\">{}</text>", y - 3.0, esc(e));
        }
        y += row_h;
        let cy = y - row_h / 2.0;
        // The claim in words (its id is in the link and the tooltip).
        let words = metric_words(&o.claim.metric).0;
        let id: String = if words.chars().count() > ROW_LABEL_CHARS {
            words.chars().take(ROW_LABEL_CHARS - 1).chain(std::iter::once('…')).collect()
        } else {
            words
        };
        let _ = write!(
            svg,
            "<a href=\"#claim-{}\"><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" fill=\"#333\">{}</text></a>",
            esc(&o.claim.id),
            label_w - 28.0,
            y - 3.0,
            esc(&id)
        );
        // A band of the claim's own (a second verdict), lighter than the default band.
        if let Some(([blo, bhi], _)) = o.own_band {
            let _ = write!(
                svg,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#b9dcb9\"/>",
                x(blo),
                cy - 4.0,
                x(bhi) - x(blo),
                8.0
            );
        }
        let colour = match o.verdict {
            Verdict::Holds => "#1a8f1a",
            Verdict::Differs => "#c62828",
            Verdict::Inconclusive(_) | Verdict::NotEvaluated(_) => "#999",
        };
        let r = o.ratio;
        let title = format!(
            "{}: published {}, ours {}, ours/published {} ({}){}",
            o.claim.id,
            num(o.claim.published),
            num(o.ours),
            num(r),
            o.verdict.label(),
            match o.claim.role() {
                Role::Counted => String::new(),
                r => format!("; not counted ({} {})", r.word(), r.linked()),
            }
        );
        let fill = if o.claim.role() != Role::Counted { "white" } else { colour };
        if !r.is_finite() {
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"#999\"><title>{}</title>not evaluated</text>",
                label_w + 4.0,
                y - 3.0,
                esc(&title)
            );
        } else if r <= 0.1 || r >= 10.0 {
            let icon = o.verdict.icon();
            let (xe, glyph, anchor) = if r >= 10.0 {
                (x(10.0) + 2.0, format!("▶ {icon}"), "start")
            } else {
                (x(0.1) - 2.0, format!("{icon} ◀"), "end")
            };
            let _ = write!(
                svg,
                "<text x=\"{xe:.1}\" y=\"{:.1}\" fill=\"{colour}\" text-anchor=\"{anchor}\"><title>{}</title>{glyph}</text>",
                y - 3.0,
                esc(&title)
            );
        } else if o.verdict == Verdict::Differs {
            // A cross, not a dot: the verdict reads without its colour.
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"{:.1}\" fill=\"{colour}\" font-size=\"13\" text-anchor=\"middle\"><title>{}</title>✘</text>",
                x(r),
                cy + 4.5,
                esc(&title)
            );
        } else {
            let _ = write!(
                svg,
                "<circle cx=\"{:.1}\" cy=\"{cy:.1}\" r=\"4\" fill=\"{fill}\" stroke=\"{colour}\" stroke-width=\"1.5\"><title>{}</title></circle>",
                x(r),
                esc(&title)
            );
        }
    }
    svg.push_str("</svg>");
    svg
}

fn scoreboard_html(sections: &[Section]) -> String {
    let mut h = String::from("<table class=\"scoreboard\"><tr>");
    for head in SCORE_HEADS {
        let _ = write!(h, "<th>{head}</th>");
    }
    h.push_str("</tr>\n");
    // Counted from claims.csv, as the README's scoreboard and the printed one are.
    let scores = scores_of_csv(&claims_csv(sections)).unwrap_or_default();
    let total = scores.iter().fold(Score::default(), |a, (_, s)| a.plus(*s));
    for (e, s, link) in scores.iter().map(|(e, s)| (e.as_str(), s, true)).chain(std::iter::once(("all", &total, false)))
    {
        let name = if link { format!("<a href=\"#exp-{0}\">{0}</a>", esc(e)) } else { format!("<strong>{e}</strong>") };
        let c = score_cells(s);
        let classes = ["", "in", "out", "in", "out", "ne", "ne", "", ""];
        let cells: String =
            c.iter().zip(classes).map(|(v, class)| format!("<td class=\"n {class}\">{}</td>", esc(v))).collect();
        let _ = writeln!(h, "<tr><td>{name}</td>{cells}</tr>");
    }
    h.push_str("</table>\n");
    let board = status_md(&claims_csv(sections)).unwrap_or_default();
    // The status text's first line (what is counted and not) and the own-band lines.
    for line in board.lines().filter(|l| !l.is_empty() && !l.starts_with('|')) {
        let _ = writeln!(h, "<p class=\"small\">{}</p>", esc(line));
    }
    h
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}\
table{border-collapse:collapse;margin:1em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}\
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}tr.holds td.v{background:#e6f4e6}tr.differs td.v{background:#fbe3e3}\
tr.not-evaluated td.v{background:#f3f0dc}tr.inconclusive td.v{background:#ececec}figure{margin:2em 0;border-top:1px solid #ddd;padding-top:1em}figure svg{width:100%;height:auto}\
figcaption{font-size:.9em;color:#444;margin-bottom:.5em}code{background:#f5f5f5;padding:0 .2em}.small{font-size:.85em;color:#555}\
table.scoreboard td.in{background:#e6f4e6}table.scoreboard td.out{background:#fbe3e3}table.scoreboard td.ne{background:#f3f0dc}\
.ratio-plot svg{width:100%;height:auto}figure:target{position:fixed;top:0;left:0;right:0;bottom:0;z-index:9;background:#fff;overflow:auto;margin:0;padding:1em}";

/// The first figure number in `text` after `Fig`/`Figs.`, expanded over `A–B` and lists
/// (`"(Figs. 20–21)"` → 20, 21; `"(Fig. 23a, c)"` → 23).
fn figure_numbers(text: &str) -> Vec<u32> {
    let Some(at) = text.find("Fig") else { return Vec::new() };
    let rest = &text[at..];
    let end = rest.find([')', ';']).unwrap_or(rest.len());
    let mut out: Vec<u32> = Vec::new();
    let mut range_from: Option<u32> = None;
    let mut chars = rest[..end].char_indices().peekable();
    let mut after_digit_letter = false;
    while let Some((i, c)) = chars.next() {
        if c.is_ascii_digit() {
            let mut j = i;
            while let Some((k, d)) = chars.peek().copied() {
                if d.is_ascii_digit() {
                    j = k;
                    chars.next();
                } else {
                    break;
                }
            }
            let n: u32 = rest[i..=j].parse().unwrap_or(0);
            match range_from.take() {
                Some(f) if f < n && n - f < 20 => out.extend(f + 1..=n),
                _ => out.push(n),
            }
            after_digit_letter = false;
        } else if c == '–' || c == '-' {
            if !after_digit_letter {
                range_from = out.last().copied();
            }
        } else if c.is_alphabetic() && !out.is_empty() {
            after_digit_letter = true;
        }
    }
    out
}

/// The claims of a section grouped by the figure that shows them (first figure whose number
/// the claim's `source` names), in figure order; the rest last.
fn claims_by_figure(s: &Section) -> (Vec<Vec<&Outcome>>, Vec<&Outcome>) {
    let numbers: Vec<Option<u32>> = s.figures.iter().map(|(f, _)| figure_numbers(&f.their).first().copied()).collect();
    let mut by = vec![Vec::new(); s.figures.len()];
    let mut rest = Vec::new();
    for o in &s.outcomes {
        let theirs = figure_numbers(&o.claim.source);
        match numbers.iter().position(|n| n.is_some_and(|n| theirs.contains(&n))) {
            Some(i) => by[i].push(o),
            None => rest.push(o),
        }
    }
    (by, rest)
}

/// One published table rebuilt from the evaluated `mh_mean` claims: its title (the case
/// family, e.g. `1-to-1`), the algorithms (columns, claim order) and the rows (RDC label,
/// metric words, one outcome per algorithm where a claim exists).
type SideTable<'a> = (String, Vec<String>, Vec<(String, String, Vec<Option<&'a Outcome>>)>);

/// The published tables of `s` (for an experiment with `[side_tables]`): per case family
/// (`betzler/1-to-1-no-rdc` and `…-contikimac` make the `1-to-1` table), rows variant ×
/// metric, columns algorithm, each cell the claim on that (case, metric, algorithm). Renders
/// the claims already evaluated: no run of its own.
fn side_tables(s: &Section) -> Vec<SideTable<'_>> {
    let Some(spec) = &s.published.side_tables else { return Vec::new() };
    let split = |case: &str| -> Option<(String, String)> {
        let l = case.rsplit('/').next().unwrap_or(case);
        spec.variants
            .iter()
            .find_map(|[suffix, rdc]| l.strip_suffix(suffix.as_str()).map(|f| (f.to_string(), rdc.clone())))
    };
    let mut cells: Vec<(String, String, &str, &str, &Outcome)> = Vec::new();
    for o in &s.outcomes {
        if o.claim.restates.is_some() || o.claim.qualitative {
            continue;
        }
        let Kind::MhMean(m) = o.claim.metric.kind() else { continue };
        if !spec.metrics.iter().any(|[n, _]| *n == m.of) {
            continue;
        }
        let Some((family, rdc)) = split(&m.case) else { continue };
        if !cells.iter().any(|c| c.0 == family && c.1 == rdc && c.2 == m.of && c.3 == m.a) {
            cells.push((family, rdc, m.of.as_str(), m.a.as_str(), o));
        }
    }
    let mut families: Vec<String> = Vec::new();
    for c in &cells {
        if !families.contains(&c.0) {
            families.push(c.0.clone());
        }
    }
    families
        .into_iter()
        .map(|f| {
            let mine: Vec<_> = cells.iter().filter(|c| c.0 == f).collect();
            let mut algs: Vec<String> = Vec::new();
            let mut rdcs: Vec<String> = Vec::new();
            for c in &mine {
                if !algs.iter().any(|a| a == c.3) {
                    algs.push(c.3.to_string());
                }
                if !rdcs.contains(&c.1) {
                    rdcs.push(c.1.clone());
                }
            }
            let mut rows = Vec::new();
            for rdc in &rdcs {
                for [of, words] in &spec.metrics {
                    let row: Vec<Option<&Outcome>> = algs
                        .iter()
                        .map(|a| mine.iter().find(|c| &c.1 == rdc && c.2 == of && c.3 == a).map(|c| c.4))
                        .collect();
                    if row.iter().any(Option::is_some) {
                        rows.push((rdc.clone(), words.to_string(), row));
                    }
                }
            }
            (f, algs, rows)
        })
        .collect()
}

/// The cell colour of a verdict (as the claims tables).
fn verdict_colour(v: &Verdict) -> &'static str {
    match v {
        Verdict::Holds => "#e6f4e6",
        Verdict::Differs => "#fbe3e3",
        Verdict::Inconclusive(_) | Verdict::NotEvaluated(_) => "#f3f0dc",
    }
}

/// The published tables of `s` as HTML, each cell "published / ours" coloured by its verdict.
fn side_tables_html(s: &Section) -> String {
    let tables = side_tables(s);
    let Some(spec) = s.published.side_tables.as_ref().filter(|_| !tables.is_empty()) else { return String::new() };
    let mut h = String::from(
        "<h3 id=\"tables-side-by-side\">Their tables side by side with ours</h3>\n<p class=\"small\">Each cell: \
published / ours (mean over the replications), coloured by the verdict of its claim (green holds, red differs); the \
claims below give the rule and band.</p>\n",
    );
    for (family, algs, rows) in &tables {
        let _ = write!(
            h,
            "<table class=\"claims side\"><caption>{}</caption><tr><th>{}</th><th>metric</th>",
            esc(family),
            esc(&spec.variant_heading)
        );
        for a in algs {
            let _ = write!(h, "<th>{} <span class=\"small\">({})</span></th>", esc(spec.paper_name(a)), esc(a));
        }
        h.push_str("</tr>\n");
        for (rdc, words, cells) in rows {
            let _ = write!(h, "<tr><td>{}</td><td>{}</td>", esc(rdc), esc(words));
            for c in cells {
                match c {
                    Some(o) => {
                        let _ = write!(
                            h,
                            "<td class=\"n\" style=\"background:{}\" title=\"{}: {}\"><a href=\"#claim-{}\">{} {} / {}</a></td>",
                            verdict_colour(&o.verdict),
                            esc(o.verdict.word()),
                            esc(&o.rule),
                            esc(&o.claim.id),
                            o.verdict.icon(),
                            num(o.claim.published),
                            num(o.ours)
                        );
                    }
                    None => h.push_str("<td class=\"n\">–</td>"),
                }
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
    h
}

/// The published tables of `s` as Markdown, each cell "published / ours (verdict)".
fn side_tables_md(s: &Section) -> String {
    let tables = side_tables(s);
    let Some(spec) = s.published.side_tables.as_ref().filter(|_| !tables.is_empty()) else { return String::new() };
    let mut m = String::from(
        "### Their tables side by side with ours\n\nEach cell: published / ours (mean over the replications) and the verdict of its claim.\n\n",
    );
    for (family, algs, rows) in &tables {
        let _ = write!(m, "**{family}**\n\n| {} | metric |", spec.variant_heading);
        for a in algs {
            let _ = write!(m, " {} (`{a}`) |", spec.paper_name(a));
        }
        let _ = write!(m, "\n|---|---|{}\n", "---|".repeat(algs.len()));
        for (rdc, words, cells) in rows {
            let _ = write!(m, "| {rdc} | {words} |");
            for c in cells {
                match c {
                    Some(o) => {
                        let _ = write!(m, " {} / {} ({}) |", num(o.claim.published), num(o.ours), o.verdict.label());
                    }
                    None => m.push_str(" – |"),
                }
            }
            m.push('\n');
        }
        m.push('\n');
    }
    m
}

/// A claim's source as printed: with the work's short name when the claim comes from another
/// work than its file (`cites`, data/published/references.toml).
fn source_words(o: &Outcome, file_cites: &str) -> String {
    match o.claim.other_work(file_cites) {
        Some(w) => format!("{w}: {}", o.claim.source),
        None => o.claim.source.clone(),
    }
}

fn claims_table(outcomes: &[&Outcome], s: &Section, cx: &Context) -> String {
    let (investigations, file_cites) = (&s.investigations, &s.published.cites);
    let mut h = String::from(
        "<table class=\"claims\"><tr><th>claim</th><th>source</th><th>published</th><th>ours</th><th>ours / published</th><th>verdict</th></tr>\n",
    );
    for o in outcomes {
        let class = o.verdict.word().replace(' ', "-");
        let why = format!("<br><span class=\"small\">{}</span>", esc(o.verdict.reason().unwrap_or(&o.rule)));
        let mut note = notes::html(&notes::notes(o, s, cx));
        for i in investigations_of(investigations, o) {
            let _ = write!(
                note,
                "<br><span class=\"small\"><em>See <a href=\"#inv-{}\">{}</a>.</em></span>",
                esc(&i.id),
                esc(&i.short)
            );
        }
        let kind = if o.claim.kind() == ClaimKind::Numeric { "" } else { " (direction)" };
        let counted = if o.claim.role() == Role::Counted { "" } else { " (not counted)" };
        let _ = writeln!(
            h,
            "<tr class=\"claim {class}\" id=\"claim-{id}\"><td>{}{note}</td><td class=\"small\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"v\">{}{kind}{counted}{why}</td></tr>",
            esc(&o.claim.text),
            esc(&source_words(o, file_cites)),
            if o.claim.qualitative { "qualitative".to_string() } else { num(o.claim.published) },
            esc(&ours_words(o, &s.cases)),
            if o.claim.qualitative { "–".to_string() } else { num(o.ratio) },
            o.verdict.label(),
            id = esc(&o.claim.id)
        );
    }
    h.push_str("</table>\n");
    h
}

/// One experiment's counts in a sentence (under its heading).
fn section_counts(sc: &Score) -> String {
    format!(
        "{} claims counted: {} numeric within the band [{}, {}], {} outside it, {} direction-only hold, {} differ, {} \
inconclusive, {} not evaluated; {} shown but not counted.",
        sc.counted(),
        sc.within,
        DEFAULT_BAND[0],
        DEFAULT_BAND[1],
        sc.outside,
        sc.direction_holds,
        sc.direction_differs,
        sc.inconclusive,
        sc.not_evaluated,
        sc.not_counted()
    )
}

/// The run that made the report, on one line (its own paragraph, starting `Run: `): what
/// `run.json` says.
fn run_line(r: &RunRecord) -> String {
    let commit = r.git_commit.as_deref().map(|c| format!(", commit {c}")).unwrap_or_default();
    format!(
        "Run: coapcc {}{commit}, {}, {} host cores; command: `{}` (also in run.json).",
        r.coapcc_version, r.date_utc, r.host_cores, r.command
    )
}

/// The HTML page: the scoreboard and the plot of ours/published first, then per experiment
/// each figure followed by the claims it supports, in the paper's order.
pub fn html(title: &str, intro: &str, run: Option<&RunRecord>, sections: &[Section]) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
<title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n<h2 id=\"scoreboard\">Scoreboard</h2>\n<p class=\"small\">\
A numeric claim holds when ours/published lies in the band [{}, {}] (a band of the claim's own, with its reason, is a \
second verdict shown with the claim and in the last column, never merged into the headline). A direction-only claim \
states a direction, equality or bound; it holds or differs only when the 95 % bootstrap interval of its mean over the \
replications lies wholly on one side of the bound, and is inconclusive otherwise. A claim whose value is undefined in \
our run (0/0, no samples) is not evaluated, with the reason. Derived claims, calibration claims, illustrations of our \
model and restatements are shown, linked to what they rest on, and not counted.</p>\n{}<div class=\"ratio-plot\">{}</div>\n<p>{}</p>\n\
{}<p class=\"small\">Tip: a figure's link (<code>#fig-…</code>) shows that figure alone.</p>\n",
        esc(title),
        esc(title),
        DEFAULT_BAND[0],
        DEFAULT_BAND[1],
        scoreboard_html(sections),
        ratio_plot(sections),
        intro,
        run.map(|r| {
            // The command between <code> tags: the line's first and last backticks.
            let line = esc(&run_line(r));
            let (a, b) = (line.find('`').unwrap_or(0), line.rfind('`').unwrap_or(0));
            format!("<p class=\"small\">{}<code>{}</code>{}</p>\n", &line[..a], &line[a + 1..b], &line[b + 1..])
        })
        .unwrap_or_default(),
    );
    let cx = Context::of(sections);
    for s in sections {
        let p = &s.published;
        let _ = write!(
            h,
            "<section class=\"experiment\" id=\"exp-{id}\">\n<h2>{}</h2>\n<p class=\"small\">{}. {}</p>\n",
            esc(&p.title),
            esc(&p.paper),
            esc(&section_counts(&Score::of(&s.outcomes))),
            id = esc(&p.experiment)
        );
        h.push_str(&notes::parameters_html(s));
        h.push_str(&side_tables_html(s));
        h.push_str(&super::result_table::tables_html(s));
        let (by, rest) = claims_by_figure(s);
        for ((spec, svg), claims) in s.figures.iter().zip(&by) {
            let _ = writeln!(
                h,
                "<figure class=\"figure\" id=\"fig-{id}\"><figcaption><strong>Ours, against their {}:</strong> {}<br><em>What their figure shows:</em> {}{}</figcaption>\n{}\n</figure>",
                esc(&spec.their),
                esc(&spec.caption),
                esc(&spec.shows),
                spec.note.as_deref().map(|n| format!("<br><em>Note:</em> {}", esc(n))).unwrap_or_default(),
                svg,
                id = esc(&spec.id)
            );
            if !claims.is_empty() {
                let _ = write!(h, "<h4>Claims this figure supports</h4>\n{}", claims_table(claims, s, &cx));
            }
        }
        if !rest.is_empty() {
            let _ = write!(
                h,
                "<h3>{}</h3>\n{}",
                if by.iter().all(Vec::is_empty) {
                    "Published claims"
                } else {
                    "Claims not tied to one of these figures"
                },
                claims_table(&rest, s, &cx)
            );
        }
        for inv in &s.investigations {
            let _ = writeln!(
                h,
                "<h3 id=\"inv-{id}\">{}</h3>\n<p class=\"small\">{}</p>\n<figure class=\"figure\" id=\"fig-{id}\">{}</figure>\n<p><strong>Finding:</strong> {}</p>",
                esc(&inv.title),
                esc(&inv.about),
                inv.svg,
                esc(&inv.sentence),
                id = esc(&inv.id)
            );
        }
        h.push_str("<h3>Cases</h3>\n");
        for c in &s.cases {
            let dir = format!("data/{}", c.case.name);
            let _ = writeln!(
                h,
                "<details><summary><code>{}</code> — {} replications, seed {}</summary><p class=\"small\">{} Source: {}. Data: <a href=\"{dir}/summary.csv\">summary.csv</a>, <a href=\"{dir}/runs.csv\">runs.csv</a>, <a href=\"{dir}/scenario.toml\">scenario.toml</a>.</p>{}</details>",
                esc(&c.case.name),
                c.replications,
                c.seed,
                esc(&c.description),
                esc(&c.source),
                case_table(c)
            );
        }
        h.push_str("</section>\n");
    }
    h.push_str("</body></html>\n");
    h
}

/// Run metrics shown in a multihop case's table (those the case has).
const MH_TABLE: &[MultihopMetric] = &[
    MultihopMetric::GoodputBps,
    MultihopMetric::RetransmittedSegments,
    MultihopMetric::Fairness,
    MultihopMetric::ConnectionFailures,
    MultihopMetric::ThroughputPerS,
    MultihopMetric::DurationMeanS,
    MultihopMetric::RetriesPerExchange,
    MultihopMetric::GoodputPerS,
    MultihopMetric::AppLossRatio,
    MultihopMetric::Overhead,
    MultihopMetric::DutyCycleMean,
];

fn multihop_table(c: &CaseResult) -> String {
    let first = c.summaries.first().and_then(|s| s.multihop());
    let cols: Vec<MultihopMetric> =
        MH_TABLE.iter().copied().filter(|m| first.is_some_and(|s| s.get(*m).is_some())).collect();
    let mut t = String::from("<table><tr><th>algorithm</th>");
    for m in &cols {
        let _ = write!(t, "<th>{} (mean ± 95 % CI)</th>", esc(m.name()));
    }
    t.push_str("</tr>");
    for s in &c.summaries {
        let _ = write!(t, "<tr><td>{}</td>", esc(&s.algorithm));
        for m in &cols {
            let cell = s
                .multihop()
                .and_then(|h| h.get(*m))
                .map_or(String::new(), |x| format!("{} ± {}", num(x.mean), num(x.ci95)));
            let _ = write!(t, "<td class=\"n\">{cell}</td>");
        }
        t.push_str("</tr>");
    }
    t.push_str("</table>");
    t
}

fn case_table(c: &CaseResult) -> String {
    if c.is_multihop() {
        return multihop_table(c);
    }
    let mut t = String::from("<table>");
    if c.trace.is_some() {
        t.push_str("<tr><th>algorithm</th><th>RMSE (ms)</th><th>spurious</th></tr>");
        for s in &c.summaries {
            let _ = write!(
                t,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                esc(&s.algorithm),
                num(tr(s).rmse_ms),
                num(tr(s).spurious)
            );
        }
    } else {
        t.push_str("<tr><th>algorithm</th><th>FCT p10</th><th>p25</th><th>median</th><th>p75</th><th>p90 (s)</th><th>retransmissions (median/flow)</th><th>unnecessary</th><th>goodput (/s)</th><th>loss ratio</th><th>overhead</th></tr>");
        for s in &c.summaries {
            let n = net(s);
            let _ = write!(
                t,
                "<tr><td>{}</td>{}</tr>",
                esc(&s.algorithm),
                [
                    n.fct.p10,
                    n.fct.p25,
                    n.fct.p50,
                    n.fct.p75,
                    n.fct.p90,
                    n.retransmissions.p50,
                    n.unnecessary.p50,
                    n.goodput_per_s,
                    n.loss_ratio,
                    n.overhead
                ]
                .iter()
                .map(|x| format!("<td class=\"n\">{}</td>", num(*x)))
                .collect::<String>()
            );
        }
    }
    t.push_str("</table>");
    t
}

/// The Markdown version, with figures referenced as `figures/<id>.svg`: the scoreboard first.
pub fn markdown(title: &str, intro: &str, run: Option<&RunRecord>, sections: &[Section]) -> String {
    let csv = claims_csv(sections);
    let board = status_md(&csv).unwrap_or_else(|e| e.to_string());
    let mut m = format!("# {title}\n\n## Scoreboard\n\n{board}\n{}\n\n", markdown_of_intro(intro));
    if let Some(r) = run {
        let _ = write!(m, "{}\n\n", run_line(r));
    }
    let cx = Context::of(sections);
    let row = |m: &mut String, o: &Outcome, s: &Section| {
        let (investigations, file_cites) = (&s.investigations, &s.published.cites);
        let why = o.verdict.reason().unwrap_or(&o.rule).to_string();
        let mut extra = notes::md(&notes::notes(o, s, &cx));
        for i in investigations_of(investigations, o) {
            let _ = write!(extra, " (see [{}](#{}))", i.short, heading_anchor(&i.title));
        }
        let counted = if o.claim.role() == Role::Counted { "" } else { ", not counted" };
        let _ = writeln!(
            m,
            "| {}{extra} | {} | {} | {} | {} | **{}**{counted} ({}) |",
            o.claim.text.replace('|', "\\|"),
            source_words(o, file_cites).replace('|', "\\|"),
            if o.claim.qualitative { "qualitative".to_string() } else { num(o.claim.published) },
            ours_words(o, &s.cases).replace('|', "\\|"),
            if o.claim.qualitative { "–".to_string() } else { num(o.ratio) },
            o.verdict.label(),
            why.replace('|', "\\|")
        );
    };
    const HEAD: &str =
        "| claim | source | published | ours | ours / published | verdict |\n|---|---|---|---|---|---|\n";
    for s in sections {
        let p = &s.published;
        let _ = write!(m, "## {}\n\n{}. {}\n\n", p.title, p.paper, section_counts(&Score::of(&s.outcomes)));
        m.push_str(&notes::parameters_md(s));
        m.push_str(&side_tables_md(s));
        m.push_str(&super::result_table::tables_md(s));
        let (by, rest) = claims_by_figure(s);
        for ((spec, _), claims) in s.figures.iter().zip(&by) {
            let _ = write!(
                m,
                "### {} — ours against their {}\n\n*What their figure shows:* {}\n\n![{}](figures/{}.svg)\n\n",
                spec.caption,
                spec.their,
                spec.shows,
                spec.caption.replace(['[', ']'], ""),
                spec.id
            );
            if !claims.is_empty() {
                m.push_str(HEAD);
                for o in claims {
                    row(&mut m, o, s);
                }
                m.push('\n');
            }
        }
        if !rest.is_empty() {
            let _ = write!(m, "### Other claims\n\n{HEAD}");
            for o in rest {
                row(&mut m, o, s);
            }
            m.push('\n');
        }
        for inv in &s.investigations {
            let _ = write!(
                m,
                "### {}\n\n{}\n\n![{}](figures/{}.svg)\n\n**Finding:** {}\n\n",
                inv.title, inv.about, inv.title, inv.id, inv.sentence,
            );
        }
    }
    m
}

/// The intro paragraph (written for the HTML page, with `<code>` and `<strong>`) in Markdown.
fn markdown_of_intro(intro: &str) -> String {
    intro.replace("<code>", "`").replace("</code>", "`").replace("<strong>", "**").replace("</strong>", "**")
}

/// The anchor a Markdown renderer gives a heading (GitHub's rule: lower case, punctuation
/// other than `-` and `_` dropped, each space a `-`), so that report.md links its sections
/// without HTML anchors.
pub fn heading_anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BETZLER: &str = r#"
experiment = "betzler"
title = "t"
paper = "p"
cites = "betzler2014"

[[claim]]
id = "thr-coap"
text = "x"
source = "table"
metric = "mh_mean"
case = "betzler/1-to-1-no-rdc"
of = "throughput_per_s"
a = "default"
published = 0.67
check = "ratio"

[[claim]]
id = "ret-cocoa"
text = "y"
source = "table"
metric = "mh_mean"
case = "betzler/1-to-1-contikimac"
of = "retries_per_exchange"
a = "cocoa-2014"
published = 0.07
check = "ratio"
"#;

    fn section(experiment_line: &str) -> Section {
        let mut published =
            super::super::published::parse(&BETZLER.replace("experiment = \"betzler\"", experiment_line), "t")
                .expect("the test file parses");
        // The tables as data/published/betzler.toml describes them; another experiment has none.
        if experiment_line.contains("betzler") {
            published.side_tables = super::super::published::load("betzler").unwrap().side_tables;
        }
        let outcomes = published
            .claims
            .iter()
            .zip([(0.5, Verdict::Holds), (0.01, Verdict::Differs)])
            .map(|(c, (ours, verdict))| Outcome {
                claim: c.clone(),
                ours,
                ratio: ours / c.published,
                verdict,
                rule: "band".into(),
                noise: None,
                own_band: None,
            })
            .collect();
        Section { published, cases: Vec::new(), outcomes, figures: Vec::new(), investigations: Vec::new() }
    }

    #[test]
    fn betzler_tables_put_published_and_ours_per_rdc_metric_and_algorithm_with_the_verdict() {
        let s = section("experiment = \"betzler\"");
        let md = side_tables_md(&s);
        assert!(md.contains("**1-to-1**"), "{md}");
        assert!(md.contains("| RDC | metric | CoAP (`default`) | CoCoA (`cocoa-2014`) |"), "{md}");
        assert!(md.contains("| No RDC | throughput (requests/s) | 0.6700 / 0.5000 (✔ holds) | – |"), "{md}");
        assert!(md.contains("| ContikiMAC | retries per exchange | – | 0.0700 / 0.0100 (✘ differs) |"), "{md}");
        let html = side_tables_html(&s);
        assert!(html.contains("background:#fbe3e3"), "a differing cell is red");
        assert!(html.contains("href=\"#claim-thr-coap\""), "cells link their claims");
    }

    /// Raw HTML in Markdown: `<` then a letter, `/` or `!`, up to the next `>`.
    fn tags(md: &str) -> Vec<&str> {
        md.match_indices('<')
            .filter(|(i, _)| md[i + 1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '/' || c == '!'))
            .filter_map(|(i, _)| md[i..].find('>').map(|j| &md[i..=i + j]))
            .collect()
    }

    fn with_investigation(mut s: Section) -> Section {
        s.investigations.push(Investigation {
            id: "betzler-x".into(),
            short: "the x investigation".into(),
            title: "Investigation: frame loss, 1-to-1".into(),
            about: "a".into(),
            sentence: "f".into(),
            svg: "<svg></svg>".into(),
            claims: vec!["ret-cocoa".into()],
            results: Vec::new(),
        });
        s
    }

    #[test]
    fn verdicts_show_a_mark_and_a_word_in_both_pages() {
        let s = section("experiment = \"betzler\"");
        let md = markdown("t", "i", None, std::slice::from_ref(&s));
        assert!(md.contains("**✔ holds**") && md.contains("**✘ differs**"), "{md}");
        let html = html("t", "i", None, std::slice::from_ref(&s));
        assert!(html.contains("✔ holds") && html.contains("✘ differs"));
        assert!(html.contains("✔ 0.6700 / 0.5000"), "side-table cells carry the mark");
        let plot = ratio_plot(std::slice::from_ref(&s));
        assert!(plot.contains(">✘</text>") && plot.contains("✔ holds"), "the plot marks a difference by shape");
    }

    #[test]
    fn the_ratio_plot_labels_its_rows_in_words_and_links_them_by_claim_id() {
        let s = section("experiment = \"betzler\"");
        let plot = ratio_plot(std::slice::from_ref(&s));
        // Claim `thr-coap`: the mean throughput of default in the 1-to-1 No RDC case.
        assert!(plot.contains(">mean throughput of default (1 to 1 no RDC)</text>"), "{plot}");
        assert!(plot.contains("href=\"#claim-thr-coap\""), "{plot}");
        assert!(!plot.contains(">thr-coap</text>"), "{plot}");
    }

    #[test]
    fn panel_labels_are_capitalised_words_with_the_names_readers_know() {
        assert_eq!(label("betzler/1-to-1-no-rdc"), "1 to 1 no RDC");
        assert_eq!(label("lim/e2-contikimac-5x5"), "E2 ContikiMAC 5x5");
        assert_eq!(label("lim/e1-nullrdc-5x5"), "E1 NullRDC 5x5");
        assert_eq!(label("makarem/rate/low-variability"), "Low variability");
        assert_eq!(label("makarem-cooja/ring-12@tx=90"), "Ring 12@TX=90");
    }

    #[test]
    fn report_md_has_no_raw_html_and_links_investigations_by_their_heading() {
        let s = with_investigation(section("experiment = \"betzler\""));
        let intro = "Generated by <code>coapcc reproduce</code>. <strong>Quick mode.</strong>";
        let md = markdown("t", intro, None, &[s]);
        assert_eq!(tags(&md), Vec::<&str>::new(), "{md}");
        assert!(md.contains("`coapcc reproduce`") && md.contains("**Quick mode.**"));
        assert!(md.contains("### Investigation: frame loss, 1-to-1\n"), "{md}");
        assert!(md.contains("(see [the x investigation](#investigation-frame-loss-1-to-1))"), "{md}");
        assert_eq!(tags("a <a id=\"x\"></a> b < c, x<y"), vec!["<a id=\"x\">", "</a>"]);
    }

    #[test]
    fn direction_claims_show_the_values_compared_with_their_metric_and_unit() {
        use coapcc_sim::results::{MetricSummary, MultihopMetric, MultihopSummary, Summary, SummaryOf};
        let mut s = section("experiment = \"betzler\"");
        let p = super::super::published::parse(
            &BETZLER.replace("check = \"ratio\"\n\n[[claim]]", "qualitative = true\ncheck = \"sign\"\n\n[[claim]]"),
            "t",
        )
        .unwrap();
        s.outcomes[0].claim = p.claims[0].clone();
        let mh = |a: &str, mean: f64| Summary {
            algorithm: a.into(),
            runs: 3,
            of: SummaryOf::Multihop(MultihopSummary {
                tcp: false,
                metrics: vec![MetricSummary { metric: MultihopMetric::ThroughputPerS, mean, ci95: 0.0 }],
            }),
        };
        s.cases.push(CaseResult {
            case: super::super::experiments::Case {
                name: "betzler/1-to-1-no-rdc".into(),
                file: "x.toml".into(),
                sets: vec![],
                sweep: None,
            },
            description: String::new(),
            source: String::new(),
            seed: 1,
            replications: 3,
            summaries: vec![mh("default", 0.5)],
            series: CaseSeries::None,
            trace: None,
            rtt_samples_rep0: Vec::new(),
            transfer: None,
            per_replication: Vec::new(),
        });
        let md = markdown("t", "i", None, std::slice::from_ref(&s));
        assert!(md.contains("| 0.5000 (mean throughput: default 0.5000/s) |"), "{md}");
        assert!(html("t", "i", None, &[s]).contains("0.5000 (mean throughput: default 0.5000/s)"));
    }

    #[test]
    fn an_experiment_without_side_tables_gets_none() {
        let s = section("experiment = \"lim\"");
        assert_eq!(side_tables_md(&s), "");
        assert_eq!(side_tables_html(&s), "");
    }
}
