//! `coapcc probe`'s outputs: the human summary and the HTML page with the timeline figure
//! (every copy the probe received, run by run, against the windows where the closest
//! algorithm and RFC 7252 with its §4.8 defaults would send them).

use std::fmt::Write as _;

use coapcc_core::AnyConfig;
use coapcc_driver::probe::{End, Findings, Kind, Run, ServerFindings, Violation, Windows, windows};
use plotters::prelude::*;

use crate::figures::{Area, Drawn, FIGURE_WIDTH, TITLE_H, escape_xml, fail, render};

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "not measured".into(), f)
}

fn ci(v: Option<[f64; 2]>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(String::new, |[a, b]| format!(" (95 % CI {} to {})", f(a), f(b)))
}

fn secs(x: f64) -> String {
    format!("{x:.3} s")
}

/// The human summary of a client probe: parameters, behaviour, closest algorithm, violations
/// and warnings.
pub fn probe_summary(command: &str, f: &Findings) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "coapcc probe client: {command}");
    let _ = writeln!(s, "runs: {}; first timeouts measured: {}", f.runs, f.first_timeouts_s.len());
    let _ = writeln!(s, "ACK_TIMEOUT          {}{}", opt(f.ack_timeout_s, secs), ci(f.ack_timeout_ci_s, secs));
    let factor = |x: f64| format!("{x:.3}");
    let _ = writeln!(
        s,
        "ACK_RANDOM_FACTOR    {}{}",
        opt(f.ack_random_factor_max, factor),
        ci(f.ack_random_factor_max_ci, factor)
    );
    if let (Some(g), Some(fit)) = (f.first_timeout_step_s, &f.first_timeout_fit) {
        let _ = writeln!(
            s,
            "first timeouts       on a lattice of {g:.3} s steps: a discrete uniform fit over the values seen \
             (a value beyond an end is missed with probability {:.2} %)",
            fit.end_unseen_probability.unwrap_or(0.0) * 100.0
        );
    }
    let _ = writeln!(
        s,
        "backoff factor       {}",
        opt(f.backoff_factor, |b| format!("{b:.3} (ratios {:.3?})", f.backoff_factors))
    );
    let _ = writeln!(s, "MAX_RETRANSMIT       {}", opt(f.max_retransmit.map(f64::from), |n| format!("{n}")));
    let timeouts: Vec<String> = f.timeouts_s.iter().map(|t| format!("{t:.3}")).collect();
    let _ = writeln!(
        s,
        "timeouts             {} s; final wait {}; give-up after {}",
        if timeouts.is_empty() { "-".into() } else { timeouts.join(", ") },
        opt(f.final_wait_s, secs),
        opt(f.total_wait_s, secs)
    );
    let _ = writeln!(s, "NSTART (observed)    {}", opt(f.nstart.map(f64::from), |n| format!("{n}")));
    let adapt = match (f.adapts_to_rtt, f.after_strong) {
        (Some(a), Some(x)) => format!(
            "{} (first timeout {:.3} s after {} answers at {:.3} s)",
            if a { "yes" } else { "no" },
            x.first_timeout_s,
            x.samples,
            x.rtt_s
        ),
        _ => "not measured (needs --rtt-ms and a client that sends more requests)".into(),
    };
    let _ = writeln!(s, "adapts to the RTT    {adapt}");
    if let Some(w) = f.after_weak {
        let _ = writeln!(
            s,
            "after weak samples   {} (first timeout {:.3} s after {} answers to a retransmission)",
            if w.changed {
                "moved: samples from retransmitted exchanges are used (no Karn's rule)"
            } else {
                "unchanged: Karn's rule, or no adaptation"
            },
            w.first_timeout_s,
            w.samples
        );
    }
    if let Some(h) = f.separate {
        let _ = writeln!(
            s,
            "separate responses   {} acknowledged of {}, retransmitted after the empty ACK {}; duplicates {}: \
             acknowledged {}, Reset {}, ignored {}, not judged (nothing sent afterwards) {}",
            h.acknowledged,
            h.exchanges,
            h.retransmitted_after_empty_ack,
            h.duplicates_sent,
            h.duplicates_acknowledged,
            h.duplicates_reset,
            h.duplicates_ignored,
            h.duplicates_not_judged
        );
    }
    match f.candidates.first() {
        Some(m) => {
            let settings: Vec<String> = m.settings.iter().map(|(k, v)| format!("{k}={}", trim(*v))).collect();
            let _ = writeln!(
                s,
                "closest algorithm    {} ({}), distance {:.4}; settings {}",
                m.algorithm,
                m.family,
                m.distance,
                settings.join(" ")
            );
            if !f.same_algorithm.is_empty() {
                let _ = writeln!(
                    s,
                    "                     the same algorithm as {} with other parameters (fitted: the settings above)",
                    f.same_algorithm.join(", ")
                );
            }
            if !f.tied_with.is_empty() {
                let _ = writeln!(
                    s,
                    "                     as close (indistinguishable by these runs): {}",
                    f.tied_with.join(", ")
                );
            }
            let next: Vec<String> = f
                .candidates
                .iter()
                .skip(1 + f.same_algorithm.len() + f.tied_with.len())
                .take(3)
                .map(|m| format!("{} {:.4}", m.algorithm, m.distance))
                .collect();
            let _ = writeln!(s, "                     next: {}", next.join(", "));
            let _ = writeln!(s, "distance             {}", f.distance_kind);
        }
        None => {
            let _ = writeln!(s, "closest algorithm    none (no copy was received)");
        }
    }
    rule_findings(&mut s, &f.violations, &f.warnings);
    s
}

/// The violations (a MUST broken, a default changed), then the warnings (a SHOULD not
/// followed), one line each with the RFC's keyword.
fn rule_findings(s: &mut String, violations: &[Violation], warnings: &[Violation]) {
    if violations.is_empty() {
        let _ = writeln!(s, "violations           none");
    }
    for v in violations.iter().chain(warnings) {
        let head = match v.kind {
            Kind::Requirement => "VIOLATION (MUST)",
            Kind::Default => "VIOLATION (default)",
            Kind::Recommendation => "WARNING (SHOULD)",
        };
        let _ = writeln!(s, "{head} {}: {} [{}]", v.rule, v.finding, v.evidence);
    }
}

/// A number without trailing zeros.
fn trim(v: f64) -> String {
    let t = format!("{v:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The human summary of a server probe.
pub fn server_summary(uri: &str, f: &ServerFindings) -> String {
    let o = &f.observation;
    let mut s = String::new();
    let _ = writeln!(s, "coapcc probe server: {uri}");
    let _ = writeln!(s, "answer               {:?}", o.answer);
    let _ = writeln!(s, "duplicate after {:.1} s {:?}", o.duplicate_after_s, o.duplicate);
    let _ = writeln!(s, "ping (empty CON)     {}", if o.ping_reset { "Reset" } else { "no Reset" });
    let _ = writeln!(s, "stray empty ACK      {}", if o.stray_ack_answered { "answered" } else { "ignored" });
    let _ =
        writeln!(s, "amplification        {:.2} ({} bytes for {})", f.amplification, o.response_bytes, o.request_bytes);
    rule_findings(&mut s, &f.violations, &f.warnings);
    s
}

const COPY: RGBColor = RGBColor(0x20, 0x20, 0x20);
const ANSWER: RGBColor = RGBColor(0x22, 0x99, 0x55);
const GIVE_UP: RGBColor = RGBColor(0xC0, 0x00, 0x00);
const CLOSEST: RGBColor = RGBColor(0xFF, 0x7F, 0x0E);
const RFC: RGBColor = RGBColor(0x1F, 0x77, 0xB4);

/// The timeline figure: one row per run, each copy at its time since the run's first copy;
/// shaded, where the closest algorithm (orange) and RFC 7252 with the §4.8 defaults (blue)
/// would send each retransmission of an unanswered request and give up.
pub fn timeline_svg(runs: &[Run], f: &Findings) -> String {
    let closest: Option<Windows> = f.candidates.first().and_then(|m| m.config()).and_then(|c| windows(&c));
    let rfc: Option<Windows> = AnyConfig::from_name("default").and_then(|c| windows(&c));
    let rows = runs.len().max(1);
    let height = (TITLE_H + 90 + (rows as u32) * 9).clamp(260, 900);
    let mut x_max = 1.0f64;
    for r in runs {
        let first = r.copies.first().map_or(0.0, |c| c.at.as_secs_f64());
        for c in &r.copies {
            x_max = x_max.max(c.at.as_secs_f64() - first);
        }
        x_max = x_max.max(r.end_at.as_secs_f64() - first);
    }
    let x_max = x_max * 1.05;
    render("Copies received by the probe, per run", (FIGURE_WIDTH, height), |root: &Area| -> Drawn {
        let area = root.margin(TITLE_H, 10, 10, 10);
        let mut chart = ChartBuilder::on(&area)
            .x_label_area_size(36)
            .y_label_area_size(44)
            .build_cartesian_2d(0.0..x_max, -0.5..(rows as f64 - 0.5))
            .map_err(fail)?;
        chart
            .configure_mesh()
            .x_desc("seconds since the run's first copy")
            .y_desc("run")
            .disable_y_mesh()
            .draw()
            .map_err(fail)?;
        let band = |w: &Windows, colour: RGBColor, alpha: f64| {
            let style = colour.mix(alpha).filled();
            let y = (-0.5, rows as f64 - 0.5);
            let mut v: Vec<Rectangle<(f64, f64)>> = w
                .copies_s
                .iter()
                .map(|[a, b]| Rectangle::new([(*a, y.0), (b.max(a + x_max * 0.002), y.1)], style))
                .collect();
            if let Some([a, b]) = w.give_up_s {
                v.push(Rectangle::new([(a, y.0), (b.max(a + x_max * 0.002), y.1)], colour.mix(alpha * 0.6).filled()));
            }
            v
        };
        if let Some(w) = &rfc {
            chart
                .draw_series(band(w, RFC, 0.18))
                .map_err(fail)?
                .label("RFC 7252 §4.2 with §4.8 defaults")
                .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], RFC.mix(0.3).filled()));
        }
        if let Some(w) = &closest {
            let name = f.closest_algorithm.clone().unwrap_or_default();
            chart
                .draw_series(band(w, CLOSEST, 0.25))
                .map_err(fail)?
                .label(format!("closest: {name} (fitted)"))
                .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], CLOSEST.mix(0.4).filled()));
        }
        for (i, r) in runs.iter().enumerate() {
            let first = r.copies.first().map_or(0.0, |c| c.at.as_secs_f64());
            let y = i as f64;
            chart
                .draw_series(r.copies.iter().map(|c| Circle::new((c.at.as_secs_f64() - first, y), 3, COPY.filled())))
                .map_err(fail)?;
            chart
                .draw_series(
                    r.sent.iter().map(|m| TriangleMarker::new((m.at.as_secs_f64() - first, y), 4, ANSWER.filled())),
                )
                .map_err(fail)?;
            if matches!(r.end, End::Exited(_)) {
                let x = r.end_at.as_secs_f64() - first;
                chart.draw_series(std::iter::once(Cross::new((x, y), 4, GIVE_UP.stroke_width(2)))).map_err(fail)?;
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .position(SeriesLabelPosition::LowerRight)
            .draw()
            .map_err(fail)
    })
}

/// The HTML page of a client probe: the summary, the figure, every run as JSON.
pub fn probe_html(command: &str, runs: &[Run], f: &Findings) -> String {
    let summary = probe_summary(command, f);
    let runs_json = serde_json::to_string_pretty(runs).unwrap_or_else(|e| format!("\"{e}\""));
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>coapcc probe</title>\
         <style>body{{font-family:sans-serif;max-width:960px;margin:2em auto}}pre{{background:#f6f6f6;padding:1em;overflow-x:auto}}</style>\
         </head><body>\n<h1>coapcc probe client</h1>\n<pre>{}</pre>\n{}\n\
         <p>Dots: copies the probe received; green triangles: the probe's answers; red crosses: the client exited. \
         Shaded: where each retransmission and the give-up of an unanswered request fall for the closest algorithm \
         (its replays, fitted) and for RFC 7252 with the §4.8 defaults.</p>\n\
         <details><summary>runs (JSON)</summary><pre>{}</pre></details>\n</body></html>\n",
        escape_xml(&summary),
        timeline_svg(runs, f),
        escape_xml(&runs_json)
    )
}
