//! The README's "why claims differ" section (`causes.md` of a run), generated — never written by
//! hand — from the run's `claims.csv` (the verdicts), the `cause` entries of the data files and
//! the investigations' findings (`investigations.toml`). The README keeps the full run's copy;
//! `crates/coapcc/tests/report.rs` checks it against `data/published/claims-full.csv` and
//! `data/published/investigations-full.toml`.

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

/// The rows of `claims.csv` whose verdict is `differs` or `not evaluated` (restating claims
/// included: they differ too, though not counted).
pub fn differing(claims_csv: &str) -> Result<Vec<Row>, ReportError> {
    let names = ["experiment", "claim", "kind", "published", "ours", "verdict"];
    Ok(claims_csv_columns(claims_csv, names)?
        .into_iter()
        .filter(|[.., v]| *v == "differs" || *v == "not evaluated")
        .map(|[e, c, k, p, o, v]| Row {
            experiment: e.into(),
            claim: c.into(),
            kind: k.into(),
            published: p.into(),
            ours: o.into(),
            verdict: v.into(),
        })
        .collect())
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

fn short(v: &str) -> String {
    match v.parse::<f64>() {
        Ok(x) if x.fract() == 0.0 => format!("{x:.0}"),
        Ok(x) if x.abs() >= 100.0 => format!("{x:.0}"),
        Ok(x) if x.abs() >= 1.0 => format!("{x:.2}"),
        Ok(x) => format!("{x:.3}"),
        Err(_) => v.to_string(),
    }
}

/// The section: per group of claims with the same cause and investigations, the claims (ours
/// against published), the cause in words and each investigation's finding.
pub fn causes_md(claims_csv: &str, findings: &Findings) -> Result<String, ReportError> {
    let rows = differing(claims_csv)?;
    // (experiment, cause, investigation ids) → claims, in claims.csv order.
    let mut groups: Vec<(Option<Cause>, Vec<String>, Vec<&Row>)> = Vec::new();
    for r in &rows {
        let cause = cause_of(&r.experiment, &r.claim);
        let invs = investigations_of(findings, r, cause.as_ref());
        match groups.iter_mut().find(|(c, i, claims)| *c == cause && *i == invs && claims[0].experiment == r.experiment)
        {
            Some((_, _, claims)) => claims.push(r),
            None => groups.push((cause, invs, vec![r])),
        }
    }
    let mut m = format!(
        "{} claims differ or are not evaluated; each is listed with its cause (the `cause` entry of its data file) and the \
findings of the investigations that sweep the parameter blamed (run by `coapcc reproduce`, shown in the report next to \
the claims). The verdicts stay on the documented defaults.\n",
        rows.len()
    );
    for (cause, invs, claims) in &groups {
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
        match cause {
            Some(c) => {
                let _ = writeln!(m, "  - *Cause ({}):* {}", c.kind.words(), c.text);
            }
            None if invs.is_empty() => m.push_str("  - *Cause:* none recorded.\n"),
            None => {}
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
        findings.investigations.iter().filter(|f| groups.iter().any(|(_, invs, _)| invs.contains(&f.id))).collect();
    if !used.is_empty() {
        m.push_str("\nWhat the investigations found (generated from their numbers):\n\n");
        for f in used {
            let _ = writeln!(m, "- *{}* (`{}`): {}", f.title.trim_start_matches("Investigation: "), f.id, f.sentence);
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reproduce::investigate::Finding;

    const CSV: &str = "experiment,claim,metric,case,kind,published,ours,ratio,band_lo,band_hi,verdict,restates\n\
fasor,a,m,c,numeric,0.7198,0.087460,0.12,0.8,1.25,differs,\n\
fasor,b,m,c,direction,1,0.5,,,,holds,\n\
fasor,c,m,c,direction,1,,,,,not evaluated,\n";

    #[test]
    fn only_claims_that_differ_or_are_not_evaluated_are_listed() {
        let rows = differing(CSV).unwrap();
        assert_eq!(rows.iter().map(|r| r.claim.as_str()).collect::<Vec<_>>(), ["a", "c"]);
        assert!(differing("experiment,claim\nx\n").is_err());
    }

    #[test]
    fn a_claim_an_investigation_lists_gets_its_finding_and_one_without_a_cause_says_so() {
        let findings = Findings {
            investigations: vec![Finding {
                id: "inv".into(),
                experiment: "fasor".into(),
                title: "Investigation: size".into(),
                sentence: "Holds from 40 B.".into(),
                claims: vec!["a".into()],
            }],
        };
        let m = causes_md(CSV, &findings).unwrap();
        assert!(m.starts_with("2 claims differ or are not evaluated"), "{m}");
        assert!(
            m.contains("- **fasor**: `a` (ours 0.087, published 0.720)\n  - *Investigations:* *size* (`inv`)\n"),
            "{m}"
        );
        assert!(m.contains("generated from their numbers):\n\n- *size* (`inv`): Holds from 40 B.\n"), "{m}");
        assert!(m.contains("- **fasor**: `c` (not evaluated)\n  - *Cause:* none recorded.\n"), "{m}");
    }
}
