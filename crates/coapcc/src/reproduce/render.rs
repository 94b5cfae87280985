//! Figures and the report pages (self-contained HTML with inline SVG, and Markdown with the
//! SVG files beside it).

use std::fmt::Write;

use coapcc_sim::metrics::Quantiles;

use super::evaluate::{CaseResult, CaseSeries, Outcome, Verdict, sweep_points};
use super::published::{FigureSpec, Published};
use crate::figures::{
    BarGroup, BoxPanel, BoxStats, LinePanel, Series, SeriesStyle, bar_figure, box_figure, line_figure,
};

/// One experiment's evaluated report content.
pub struct Section {
    /// The published data.
    pub published: Published,
    /// The cases run.
    pub cases: Vec<CaseResult>,
    /// Claim outcomes, in data-file order.
    pub outcomes: Vec<Outcome>,
    /// Figures: (spec, SVG).
    pub figures: Vec<(FigureSpec, String)>,
}

fn stats(q: &Quantiles) -> BoxStats {
    BoxStats { p10: q.p10, p25: q.p25, p50: q.p50, p75: q.p75, p90: q.p90 }
}

/// A short label for a case in a panel title.
fn label(case: &str) -> String {
    case.rsplit('/').next().unwrap_or(case).replace('-', " ")
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

/// Draws one of their figures from our cases.
pub fn figure(spec: &FigureSpec, cases: &[CaseResult]) -> String {
    let what = match spec.kind.as_str() {
        "fct-box" => "Flow completion time",
        "retransmissions-box" => "Retransmissions per flow",
        "unnecessary-box" => "Unnecessary retransmissions per flow",
        "rtt-box" => "CoAP round-trip time",
        "expired-rto-box" => "Expired RTO values",
        "rto-trace" => "RTO against RTT",
        "rmse-bars" => "RMSE of RTO − RTT per scenario",
        "spurious-bars" => "Spurious transmissions per scenario",
        "rate-timeseries" => "Sending and success rates against ResBW",
        "goodput-sweep" => "Goodput against residual bandwidth",
        "loss-sweep" => "Application loss ratio against residual bandwidth",
        "overhead-sweep" => "Overhead against residual bandwidth",
        _ => "Figure",
    };
    let title = if spec.their.starts_with("none") {
        format!("{what} (ours)")
    } else {
        format!("{what} (ours; their {})", spec.their)
    };
    let find = |name: &str| cases.iter().find(|c| c.case.name == name);
    let boxed = |pick: fn(&coapcc_sim::results::Summary) -> &Quantiles, y: &str| {
        let panels: Vec<BoxPanel> = spec
            .cases
            .iter()
            .filter_map(|n| find(n))
            .map(|c| BoxPanel {
                title: label(&c.case.name),
                y_label: y.to_string(),
                boxes: algorithms_of(spec, c)
                    .into_iter()
                    .filter_map(|a| c.of(a).map(|s| (a.to_string(), stats(pick(s)))))
                    .collect(),
            })
            .collect();
        box_figure(&title, &panels, false)
    };
    match spec.kind.as_str() {
        "fct-box" => boxed(|s| &s.fct, "flow completion time (s)"),
        "retransmissions-box" => boxed(|s| &s.retransmissions, "retransmissions per flow"),
        "unnecessary-box" => boxed(|s| &s.unnecessary, "unnecessary retransmissions per flow"),
        "rtt-box" => boxed(|s| &s.rtt, "CoAP RTT (s)"),
        "expired-rto-box" => boxed(|s| &s.expired_rto, "expired RTO (s)"),
        "rto-trace" => {
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
                        title: label(&c.case.name),
                        x_label: "transmission".into(),
                        y_label: "RTT, RTO (ms)".into(),
                        series,
                        log_y: false,
                    }
                })
                .collect();
            line_figure(&title, &panels)
        }
        "rmse-bars" | "spurious-bars" => {
            let rmse = spec.kind == "rmse-bars";
            let rows: Vec<&CaseResult> = if spec.cases.is_empty() {
                cases.iter().filter(|c| c.trace).collect()
            } else {
                spec.cases.iter().filter_map(|n| find(n)).collect()
            };
            let groups: Vec<BarGroup> = rows
                .iter()
                .map(|c| BarGroup {
                    label: c.case.name.rsplit('-').next().unwrap_or("").trim_start_matches('0').to_string(),
                    bars: algorithms_of(spec, c)
                        .into_iter()
                        .filter_map(|a| c.of(a).map(|s| (a.to_string(), if rmse { s.rmse_ms } else { s.spurious })))
                        .collect(),
                })
                .collect();
            let y = if rmse { "RMSE of RTO − RTT (ms)" } else { "spurious transmissions (mean per run)" };
            bar_figure(&title, y, &groups, false)
        }
        "rate-timeseries" => {
            let mut panels = Vec::new();
            for c in spec.cases.iter().filter_map(|n| find(n)) {
                if let CaseSeries::Rates(per) = &c.series {
                    for (a, pts) in per {
                        if !(spec.algorithms.is_empty() || spec.algorithms.contains(a)) {
                            continue;
                        }
                        let (t, res, send, ok): (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>) =
                            pts.iter().fold((vec![], vec![], vec![], vec![]), |(mut t, mut r, mut s, mut o), p| {
                                t.push(p.t_s);
                                r.push(p.resbw_per_s);
                                s.push(p.send_rate_per_s);
                                o.push(p.success_rate_per_s);
                                (t, r, s, o)
                            });
                        let zip = |v: &[f64]| t.iter().copied().zip(v.iter().copied()).collect::<Vec<_>>();
                        panels.push(LinePanel {
                            title: a.clone(),
                            x_label: "time (s)".into(),
                            y_label: "packets/s".into(),
                            series: vec![
                                Series { name: "ResBW".into(), points: zip(&res), style: SeriesStyle::Step },
                                Series { name: "sending rate".into(), points: zip(&send), style: SeriesStyle::Line },
                                Series { name: "success rate".into(), points: zip(&ok), style: SeriesStyle::Line },
                            ],
                            log_y: false,
                        });
                    }
                }
            }
            line_figure(&title, &panels)
        }
        "goodput-sweep" | "loss-sweep" | "overhead-sweep" => {
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
                                    let y = match spec.kind.as_str() {
                                        "goodput-sweep" => s.goodput_per_s,
                                        "loss-sweep" => s.loss_ratio,
                                        _ => s.overhead,
                                    };
                                    (*x, y)
                                })
                            })
                            .collect(),
                        style: SeriesStyle::Line,
                    })
                    .collect();
                if spec.kind == "goodput-sweep" && !high {
                    let xs: Vec<f64> = pts.iter().map(|(x, _)| *x).collect();
                    series.extend(analytic_goodput(&xs));
                }
                let y_label = match spec.kind.as_str() {
                    "goodput-sweep" => "goodput (messages/s)",
                    "loss-sweep" => "application loss ratio",
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
        other => line_figure(&format!("{title}: unknown figure kind `{other}`"), &[]),
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
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

/// Counts of verdicts: (holds, differs, not evaluated).
pub fn tally(outcomes: &[Outcome]) -> (usize, usize, usize) {
    outcomes.iter().fold((0, 0, 0), |(h, d, n), o| match o.verdict {
        Verdict::Holds => (h + 1, d, n),
        Verdict::Differs => (h, d + 1, n),
        Verdict::NotEvaluated(_) => (h, d, n + 1),
    })
}

const STYLE: &str = "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}\
table{border-collapse:collapse;margin:1em 0;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}\
th{background:#f3f3f3}td.n{text-align:right;font-variant-numeric:tabular-nums}tr.holds td.v{background:#e6f4e6}tr.differs td.v{background:#fbe3e3}\
tr.not-evaluated td.v{background:#f3f0dc}figure{margin:2em 0;border-top:1px solid #ddd;padding-top:1em}figure svg{width:100%;height:auto}\
figcaption{font-size:.9em;color:#444;margin-bottom:.5em}code{background:#f5f5f5;padding:0 .2em}.small{font-size:.85em;color:#555}\
figure:target{position:fixed;top:0;left:0;right:0;bottom:0;z-index:9;background:#fff;overflow:auto;margin:0;padding:1em}";

/// The HTML page.
pub fn html(title: &str, intro: &str, sections: &[Section]) -> String {
    let mut h = String::new();
    let all: Vec<&Outcome> = sections.iter().flat_map(|s| &s.outcomes).collect();
    let (hold, differ, ne) = all.iter().fold((0, 0, 0), |(a, b, c), o| match o.verdict {
        Verdict::Holds => (a + 1, b, c),
        Verdict::Differs => (a, b + 1, c),
        Verdict::NotEvaluated(_) => (a, b, c + 1),
    });
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\
<title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n<p class=\"small\">Tip: a figure's link (<code>#fig-…</code>) shows that figure alone.</p>\n<p>{}</p>\n<p><strong>{} published claims: {hold} hold, {differ} differ, {ne} not evaluated.</strong></p>\n",
        esc(title),
        esc(title),
        intro,
        all.len()
    );
    for s in sections {
        let p = &s.published;
        let (a, b, c) = tally(&s.outcomes);
        let _ = write!(
            h,
            "<section class=\"experiment\" id=\"exp-{id}\">\n<h2>{}</h2>\n<p class=\"small\">{} (seed file {}). {} claims: {a} hold, {b} differ, {c} not evaluated.</p>\n",
            esc(&p.title),
            esc(&p.paper),
            esc(&p.seed),
            s.outcomes.len(),
            id = esc(&p.experiment)
        );
        h.push_str("<h3>Published claims</h3>\n<table class=\"claims\"><tr><th>claim</th><th>source</th><th>published</th><th>ours</th><th>ours / published</th><th>verdict</th></tr>\n");
        for o in &s.outcomes {
            let class = o.verdict.word().replace(' ', "-");
            let why = match &o.verdict {
                Verdict::NotEvaluated(r) => format!("<br><span class=\"small\">{}</span>", esc(r)),
                _ => format!("<br><span class=\"small\">{}</span>", esc(&o.rule)),
            };
            let note = o
                .claim
                .note
                .as_deref()
                .map(|n| format!("<br><span class=\"small\">{}</span>", esc(n)))
                .unwrap_or_default();
            let _ = writeln!(
                h,
                "<tr class=\"claim {class}\" id=\"claim-{id}\"><td>{}{note}</td><td class=\"small\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"v\">{}{why}</td></tr>",
                esc(&o.claim.text),
                esc(&o.claim.source),
                if o.claim.qualitative { "qualitative".to_string() } else { num(o.claim.published) },
                num(o.ours),
                if o.claim.qualitative { "–".to_string() } else { num(o.ratio) },
                o.verdict.word(),
                id = esc(&o.claim.id)
            );
        }
        h.push_str("</table>\n<h3>Figures</h3>\n");
        for (spec, svg) in &s.figures {
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

fn case_table(c: &CaseResult) -> String {
    let mut t = String::from("<table>");
    if c.trace {
        t.push_str("<tr><th>algorithm</th><th>RMSE (ms)</th><th>spurious</th></tr>");
        for s in &c.summaries {
            let _ = write!(
                t,
                "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                esc(&s.algorithm),
                num(s.rmse_ms),
                num(s.spurious)
            );
        }
    } else {
        t.push_str("<tr><th>algorithm</th><th>FCT p10</th><th>p25</th><th>median</th><th>p75</th><th>p90 (s)</th><th>retransmissions (median/flow)</th><th>unnecessary</th><th>goodput (/s)</th><th>loss ratio</th><th>overhead</th></tr>");
        for s in &c.summaries {
            let _ = write!(
                t,
                "<tr><td>{}</td>{}</tr>",
                esc(&s.algorithm),
                [
                    s.fct.p10,
                    s.fct.p25,
                    s.fct.p50,
                    s.fct.p75,
                    s.fct.p90,
                    s.retransmissions.p50,
                    s.unnecessary.p50,
                    s.goodput_per_s,
                    s.loss_ratio,
                    s.overhead
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

/// The Markdown version, with figures referenced as `figures/<id>.svg`.
pub fn markdown(title: &str, intro: &str, sections: &[Section]) -> String {
    let mut m = format!("# {title}\n\n{}\n\n", intro.replace("<code>", "`").replace("</code>", "`"));
    for s in sections {
        let (a, b, c) = tally(&s.outcomes);
        let p = &s.published;
        let _ = write!(
            m,
            "## {}\n\n{} (seed file {}). {} claims: {a} hold, {b} differ, {c} not evaluated.\n\n",
            p.title,
            p.paper,
            p.seed,
            s.outcomes.len()
        );
        m.push_str("| claim | source | published | ours | ours / published | verdict |\n|---|---|---|---|---|---|\n");
        for o in &s.outcomes {
            let why = match &o.verdict {
                Verdict::NotEvaluated(r) => r.clone(),
                _ => o.rule.clone(),
            };
            let _ = writeln!(
                m,
                "| {} | {} | {} | {} | {} | **{}** ({}) |",
                o.claim.text.replace('|', "\\|"),
                o.claim.source.replace('|', "\\|"),
                if o.claim.qualitative { "qualitative".to_string() } else { num(o.claim.published) },
                num(o.ours),
                if o.claim.qualitative { "–".to_string() } else { num(o.ratio) },
                o.verdict.word(),
                why.replace('|', "\\|")
            );
        }
        m.push('\n');
        for (spec, _) in &s.figures {
            let _ = write!(
                m,
                "### {} — ours against their {}\n\n*What their figure shows:* {}\n\n![{}](figures/{}.svg)\n\n",
                spec.caption, spec.their, spec.shows, spec.id, spec.id
            );
        }
    }
    m
}

/// `claims.csv`.
pub fn claims_csv(sections: &[Section]) -> String {
    let mut s = String::from("experiment,claim,metric,case,published,ours,ratio,verdict\n");
    for sec in sections {
        for o in &sec.outcomes {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{}",
                sec.published.experiment,
                o.claim.id,
                o.claim.metric.name(),
                o.claim.metric.case_or_sweep().unwrap_or(""),
                o.claim.published,
                if o.ours.is_finite() { format!("{:.6}", o.ours) } else { String::new() },
                if o.ratio.is_finite() { format!("{:.6}", o.ratio) } else { String::new() },
                o.verdict.word()
            );
        }
    }
    s
}
