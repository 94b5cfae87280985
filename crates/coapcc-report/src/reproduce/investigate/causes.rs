//! The README's "why claims differ" section (`causes.md` of a run), generated — never written by
//! hand — from the run's `claims.csv` (the verdicts), the `cause` entries of the data files and
//! the investigations' findings (`investigations.toml`). The README keeps the full run's copy;
//! `crates/coapcc/tests/cli/report.rs` checks it against `data/published/claims-full.csv` and
//! `data/published/investigations-full.toml`.
//!
//! A cause's standing is decided by a rule on the investigation data ([`standing`]), never by
//! its prose, and the numbers it quotes are placeholders filled from the run's data
//! ([`render_text`]).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::Findings;
use crate::error::ReportError;
use crate::reproduce::claims_csv::columns as claims_csv_columns;
use crate::reproduce::published::{self, Cause, CauseKind};

/// One claim that differs or is not evaluated, as `claims.csv` gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// Experiment id.
    pub experiment: String,
    /// Claim id.
    pub claim: String,
    /// Its kind (`numeric`, `direction`).
    pub kind: String,
    /// Published value.
    pub published: String,
    /// Ours (empty when not evaluated).
    pub ours: String,
    /// `differs` or `not evaluated`.
    pub verdict: String,
}

/// The counted claims of `claims.csv` (role `counted`) whose verdict is one of `verdicts`.
fn counted_rows(claims_csv: &str, verdicts: &[&str]) -> Result<Vec<Row>, ReportError> {
    let names = ["experiment", "claim", "kind", "published", "ours", "verdict", "role"];
    Ok(claims_csv_columns(claims_csv, names)?
        .into_iter()
        .filter(|[.., v, role]| verdicts.contains(v) && *role == "counted")
        .map(|[e, c, k, p, o, v, _]| Row {
            experiment: e.into(),
            claim: c.into(),
            kind: k.into(),
            published: p.into(),
            ours: o.into(),
            verdict: v.into(),
        })
        .collect())
}

/// The counted claims of `claims.csv` whose verdict is `differs` or `not evaluated` (claims that
/// are not counted — derived, calibration, illustrations, restatements — are shown in the report
/// with their links, not here).
pub fn differing(claims_csv: &str) -> Result<Vec<Row>, ReportError> {
    counted_rows(claims_csv, &["differs", "not evaluated"])
}

/// A claim's `cause` entry in its data file, if any.
pub fn cause_of(experiment: &str, claim: &str) -> Option<Cause> {
    let p = published::load(experiment).ok()?;
    p.claims.into_iter().find(|c| c.id == claim).and_then(|c| c.cause)
}

/// The investigations that bear on a claim: those listing it, then those its cause names.
pub fn investigations_of(findings: &Findings, row: &Row, cause: Option<&Cause>) -> Vec<String> {
    let mut ids: Vec<String> = findings
        .investigations
        .iter()
        .filter(|f| f.experiment == row.experiment && f.claims.contains(&row.claim))
        .map(|f| f.id.clone())
        .collect();
    for i in cause.map(|c| c.investigations.as_slice()).unwrap_or_default() {
        if !ids.contains(i) {
            ids.push(i.clone());
        }
    }
    ids
}

/// How a cause stands, by [`standing`]'s rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// An investigation it names makes the claim hold when the parameter blamed changes.
    Investigated,
    /// It names investigations, but none makes the claim hold at any swept value.
    OpenHypothesis,
    /// No sweep can test it (a reconstructed algorithm, a reading of the specification),
    /// said plainly with the reason.
    NoSweep,
    /// A candidate no investigation sweeps yet.
    NotSwept,
}

impl Standing {
    /// Its words after "Cause" in the report and the README.
    pub fn words(self) -> &'static str {
        match self {
            Standing::Investigated => "investigated",
            Standing::OpenHypothesis => "open hypothesis: its investigation does not make the claim hold",
            Standing::NoSweep => "no sweep explains it",
            Standing::NotSwept => "open hypothesis: not swept yet",
        }
    }
}

/// The rule, in words (printed with the causes).
pub const STANDING_RULE: &str = "A cause counts as investigated only when one of the investigations it names follows the \
claim and shows it holding at a swept value other than the documented default (the same check as the verdict, the \
noise test included); otherwise it is an open hypothesis, said plainly.";

/// How `cause` of claim `claim` stands: **investigated** only when one of the investigations
/// it names follows the claim and shows it holding at a swept value other than the documented
/// default ([`super::ClaimPoints::holds_off_default`]); otherwise an **open hypothesis**. A
/// cause that names no investigation keeps its kind (no sweep explains it; not swept yet, an
/// open hypothesis too).
pub fn standing(cause: &Cause, claim: &str, findings: &Findings) -> Standing {
    match cause.kind {
        CauseKind::NoSweep => Standing::NoSweep,
        CauseKind::NotSwept => Standing::NotSwept,
        CauseKind::Investigation => {
            let supported = findings
                .investigations
                .iter()
                .filter(|f| cause.investigations.contains(&f.id))
                .any(|f| f.of_claim(claim).any(super::ClaimPoints::holds_off_default));
            if supported { Standing::Investigated } else { Standing::OpenHypothesis }
        }
    }
}

/// A number as the causes quote it: integers bare, three significant decimals below 1.
pub fn short_number(x: f64) -> String {
    if !x.is_finite() {
        "–".into()
    } else if x.fract() == 0.0 || x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

fn short(v: &str) -> String {
    match v.parse::<f64>() {
        Ok(x) => short_number(x),
        Err(_) => v.to_string(),
    }
}

/// Why a cause's placeholder could not be filled (the text names the placeholder).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct PlaceholderError(String);

/// A cause's text with its placeholders filled from the run's data: `{CLAIM}` is our value of
/// the claim in the run (`ours`), `{CLAIM@INVESTIGATION=VALUE}` (or
/// `{CLAIM@INVESTIGATION:AXIS=VALUE}`) its value at that swept value of that investigation. An
/// unknown claim, investigation or value is an error naming the placeholder.
pub fn render_text(
    text: &str,
    ours: &dyn Fn(&str) -> Option<f64>,
    findings: &Findings,
) -> Result<String, PlaceholderError> {
    let e = PlaceholderError;
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let end = rest[at..].find('}').ok_or_else(|| e(format!("a `{{` without `}}` in `{text}`")))? + at;
        let inner = &rest[at + 1..end];
        let value = match inner.split_once('@') {
            None => ours(inner).ok_or_else(|| e(format!("`{{{inner}}}`: no claim `{inner}` in the run")))?,
            Some((claim, point)) => {
                let (inv, x) = point.split_once('=').ok_or_else(|| e(format!("`{{{inner}}}`: no `=VALUE`")))?;
                let (inv, axis) = inv.split_once(':').unwrap_or((inv, ""));
                let x: f64 = x.parse().map_err(|_| e(format!("`{{{inner}}}`: `{x}` is not a number")))?;
                let f = findings
                    .investigations
                    .iter()
                    .find(|f| f.id == inv)
                    .ok_or_else(|| e(format!("`{{{inner}}}`: no investigation `{inv}` in the run")))?;
                f.of_claim(claim)
                    .find(|r| r.axis == axis)
                    .and_then(|r| r.at(x))
                    .ok_or_else(|| e(format!("`{{{inner}}}`: `{inv}` has no value of `{claim}` at {x}")))?
            }
        };
        out.push_str(&short_number(value));
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The section: per group of claims with the same cause, standing and investigations, the
/// claims (ours against published), the cause in words and each investigation's finding; then
/// the direction claims that are inconclusive.
pub fn causes_md(claims_csv: &str, findings: &Findings) -> Result<String, ReportError> {
    let rows = differing(claims_csv)?;
    let ours: BTreeMap<String, f64> = claims_csv_columns(claims_csv, ["claim", "ours"])?
        .into_iter()
        .filter_map(|[c, o]| Some((c.to_string(), o.parse::<f64>().ok()?)))
        .collect();
    let ours_of = |c: &str| ours.get(c).copied();
    // (experiment, cause, standing, investigation ids) → claims, in claims.csv order.
    type Group<'a> = (Option<Cause>, Option<Standing>, Vec<String>, Vec<&'a Row>);
    let mut groups: Vec<Group<'_>> = Vec::new();
    for r in &rows {
        let cause = cause_of(&r.experiment, &r.claim);
        let stand = cause.as_ref().map(|c| standing(c, &r.claim, findings));
        let invs = investigations_of(findings, r, cause.as_ref());
        match groups.iter_mut().find(|(c, st, i, claims)| {
            *c == cause && *st == stand && *i == invs && claims[0].experiment == r.experiment
        }) {
            Some((_, _, _, claims)) => claims.push(r),
            None => groups.push((cause, stand, invs, vec![r])),
        }
    }
    let mut m = format!(
        "{} counted claims differ or are not evaluated; each is listed with its cause (the `cause` entry of its data file) \
and the findings of the investigations that sweep the parameter blamed (run by `coapcc reproduce`, shown in the report \
next to the claims). The verdicts stay on the documented defaults. {STANDING_RULE} The numbers in a cause are \
filled in from the run's data.\n",
        rows.len()
    );
    for (cause, stand, invs, claims) in &groups {
        m.push('\n');
        let listed: Vec<String> = claims
            .iter()
            .map(|r| {
                if r.verdict == "not evaluated" {
                    format!("`{}` (not evaluated)", r.claim)
                } else if r.kind == "numeric" {
                    format!("`{}` (ours {}, published {})", r.claim, short(&r.ours), short(&r.published))
                } else {
                    format!("`{}` (direction; ours {})", r.claim, short(&r.ours))
                }
            })
            .collect();
        let _ = writeln!(m, "- **{}**: {}", claims[0].experiment, listed.join(", "));
        match (cause, stand) {
            (Some(c), Some(st)) => {
                let text = render_text(&c.text, &ours_of, findings)
                    .map_err(|e| ReportError::Description(format!("the cause of `{}`: {e}", claims[0].claim)))?;
                let _ = writeln!(m, "  - *Cause ({}):* {text}", st.words());
            }
            _ if invs.is_empty() => m.push_str("  - *Cause:* none recorded.\n"),
            _ => {}
        }
        if !invs.is_empty() {
            let named: Vec<String> = invs
                .iter()
                .map(|id| match findings.investigations.iter().find(|f| f.id == *id) {
                    Some(f) => format!("*{}* (`{id}`)", f.title.trim_start_matches("Investigation: ")),
                    None => format!("`{id}` (not run)"),
                })
                .collect();
            let context =
                if cause.as_ref().is_some_and(|c| c.kind == CauseKind::NoSweep) { " (for context only)" } else { "" };
            let _ = writeln!(m, "  - *Investigations{context}:* {}", named.join("; "));
        }
    }
    let used: Vec<&super::Finding> =
        findings.investigations.iter().filter(|f| groups.iter().any(|(_, _, invs, _)| invs.contains(&f.id))).collect();
    if !used.is_empty() {
        m.push_str("\nWhat the investigations found (generated from their numbers):\n\n");
        for f in used {
            let _ = writeln!(m, "- *{}* (`{}`): {}", f.title.trim_start_matches("Investigation: "), f.id, f.sentence);
        }
    }
    let inconclusive = counted_rows(claims_csv, &["inconclusive"])?;
    if !inconclusive.is_empty() {
        let _ = write!(
            m,
            "\n{} counted direction claims are inconclusive: their difference or bound lies within the run-to-run noise \
(the 95 % bootstrap interval of the mean over the replications does not lie wholly on one side; the report gives the \
interval):\n\n",
            inconclusive.len()
        );
        let mut by: Vec<(&str, Vec<String>)> = Vec::new();
        for r in &inconclusive {
            let item = format!("`{}` (ours {})", r.claim, short(&r.ours));
            match by.iter_mut().find(|(e, _)| *e == r.experiment) {
                Some((_, v)) => v.push(item),
                None => by.push((&r.experiment, vec![item])),
            }
        }
        for (e, items) in by {
            let _ = writeln!(m, "- **{e}**: {}", items.join(", "));
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::investigate::{ClaimPoints, Finding};

    const CSV: &str = "experiment,claim,metric,case,kind,published,ours,ratio,band_lo,band_hi,verdict,restates,role\n\
fasor,a,m,c,numeric,0.7198,0.087460,0.12,0.8,1.25,differs,,counted\n\
fasor,b,m,c,direction,1,0.5,,,,holds,,counted\n\
fasor,c,m,c,direction,1,,,,,not evaluated,,counted\n\
fasor,d,m,c,direction,1,0.001,,,,inconclusive,,counted\n\
fasor,e,m,c,numeric,2,0.5,0.25,0.8,1.25,differs,,derived\n";

    fn finding(results: Vec<ClaimPoints>) -> Findings {
        Findings {
            investigations: vec![Finding {
                id: "inv".into(),
                experiment: "fasor".into(),
                title: "Investigation: size".into(),
                sentence: "Holds from 40 B.".into(),
                claims: vec!["a".into()],
                results,
            }],
        }
    }

    fn points(verdicts: &[&str]) -> ClaimPoints {
        ClaimPoints {
            claim: "a".into(),
            axis: String::new(),
            values: vec![20.0, 40.0, 60.0],
            default: Some(20.0),
            ours: vec![0.087, 0.5, 0.7],
            verdicts: verdicts.iter().map(|v| v.to_string()).collect(),
        }
    }

    #[test]
    fn only_counted_claims_that_differ_or_are_not_evaluated_are_listed() {
        let rows = differing(CSV).unwrap();
        assert_eq!(rows.iter().map(|r| r.claim.as_str()).collect::<Vec<_>>(), ["a", "c"]);
        assert!(differing("experiment,claim\nx\n").is_err());
    }

    #[test]
    fn a_claim_an_investigation_lists_gets_its_finding_and_one_without_a_cause_says_so() {
        let m = causes_md(CSV, &finding(Vec::new())).unwrap();
        assert!(m.starts_with("2 counted claims differ or are not evaluated"), "{m}");
        assert!(
            m.contains("- **fasor**: `a` (ours 0.087, published 0.720)\n  - *Investigations:* *size* (`inv`)\n"),
            "{m}"
        );
        assert!(m.contains("generated from their numbers):\n\n- *size* (`inv`): Holds from 40 B.\n"), "{m}");
        assert!(m.contains("- **fasor**: `c` (not evaluated)\n  - *Cause:* none recorded.\n"), "{m}");
        assert!(
            m.contains("1 counted direction claims are inconclusive") && m.contains("- **fasor**: `d` (ours 0.001)")
        );
        assert!(!m.contains("`e`"), "a derived claim is not counted: {m}");
    }

    #[test]
    fn a_cause_is_investigated_only_when_its_sweep_makes_the_claim_hold_off_the_default() {
        let cause = Cause { kind: CauseKind::Investigation, text: "t".into(), investigations: vec!["inv".into()] };
        let st = |v: &[&str]| standing(&cause, "a", &finding(vec![points(v)]));
        assert_eq!(st(&["differs", "holds", "differs"]), Standing::Investigated);
        // Holding only at the default, inconclusive, or nowhere: an open hypothesis.
        assert_eq!(st(&["holds", "differs", "differs"]), Standing::OpenHypothesis);
        assert_eq!(st(&["differs", "inconclusive", "not evaluated"]), Standing::OpenHypothesis);
        // An investigation that does not follow the claim supports nothing.
        assert_eq!(
            standing(&cause, "zz", &finding(vec![points(&["differs", "holds", "holds"])])),
            Standing::OpenHypothesis
        );
        let none = Cause { kind: CauseKind::NoSweep, text: "t".into(), investigations: Vec::new() };
        assert_eq!(standing(&none, "a", &finding(Vec::new())), Standing::NoSweep);
    }

    #[test]
    fn placeholders_are_filled_from_the_run_and_an_unknown_one_is_an_error() {
        let f = finding(vec![points(&["differs", "holds", "holds"])]);
        let ours = |c: &str| (c == "a").then_some(0.087_46);
        let t = render_text("ours {a}, at 40 B {a@inv=40}, at 60 B {a@inv=60}.", &ours, &f).unwrap();
        assert_eq!(t, "ours 0.087, at 40 B 0.500, at 60 B 0.700.");
        assert!(render_text("{a@inv=50}", &ours, &f).unwrap_err().to_string().contains("no value of `a` at 50"));
        assert!(render_text("{a@nope=40}", &ours, &f).unwrap_err().to_string().contains("no investigation `nope`"));
        assert!(render_text("{b}", &ours, &f).unwrap_err().to_string().contains("no claim `b`"));
        assert!(render_text("{a@inv:time=40}", &ours, &f).is_err(), "the axis must match");
    }
}
