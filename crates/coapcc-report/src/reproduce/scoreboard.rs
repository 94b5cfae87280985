//! The scoreboard (docs/reproduction-status.md, "Reproduction status"), counted from
//! `claims.csv` only, so that the report, the text `coapcc reproduce` prints and the README's
//! generated sections are the same numbers: per experiment, the **counted** claims (numeric on
//! the default band [0.8, 1.25] within / outside it; direction-only holding, differing or
//! inconclusive; not evaluated), the claims not counted (restating another, derived from other
//! claims' numbers, calibration of a fitted parameter, illustrations of our model), and, as a
//! second column never merged into the first, the numeric claims within a band of their own.

use std::fmt::Write;

use super::claims_csv::columns as claims_csv_columns;
use super::evaluate::Outcome;
use super::published::{self, DEFAULT_BAND};
use crate::error::ReportError;

/// The scoreboard of a set of claims.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Score {
    /// Counted numeric claims whose value lies within the default band.
    pub within: usize,
    /// Counted numeric claims whose value lies outside it.
    pub outside: usize,
    /// Counted direction-only claims that hold.
    pub direction_holds: usize,
    /// Counted direction-only claims that differ.
    pub direction_differs: usize,
    /// Counted direction-only claims within the run-to-run noise.
    pub inconclusive: usize,
    /// Counted claims not evaluated (undefined value, case not run).
    pub not_evaluated: usize,
    /// Claims that restate another (shown, not counted).
    pub restating: usize,
    /// Claims derived from other claims' published numbers (shown, not counted).
    pub derived: usize,
    /// Calibration claims of a fitted parameter (shown, not counted).
    pub calibration: usize,
    /// Illustrations of our own model (shown, not counted).
    pub illustration: usize,
    /// Counted numeric claims with a band of their own: evaluated, and within that band.
    pub own_band_claims: usize,
    /// Of those, the ones within their own band.
    pub own_band_within: usize,
    /// The own band (when all of them share one).
    pub own_band: Option<[f64; 2]>,
}

impl Score {
    /// Adds one claim by its `claims.csv` words: `kind` (numeric/direction), `verdict`, `role`
    /// (counted, restates, derived, calibration, illustration) and, for a numeric claim with a
    /// band of its own, that band and the verdict on it.
    pub fn add(&mut self, kind: &str, verdict: &str, role: &str, own: Option<([f64; 2], &str)>) {
        match role {
            "restates" => self.restating += 1,
            "derived" => self.derived += 1,
            "calibration" => self.calibration += 1,
            "illustration" => self.illustration += 1,
            _ => {
                match (kind, verdict) {
                    (_, "not evaluated") => self.not_evaluated += 1,
                    ("numeric", "holds") => self.within += 1,
                    ("numeric", _) => self.outside += 1,
                    (_, "holds") => self.direction_holds += 1,
                    (_, "inconclusive") => self.inconclusive += 1,
                    _ => self.direction_differs += 1,
                }
                if let Some((band, v)) = own.filter(|(_, v)| !v.is_empty()) {
                    self.own_band_claims += 1;
                    self.own_band_within += usize::from(v == "holds");
                    self.own_band = match (self.own_band_claims, self.own_band) {
                        (1, _) => Some(band),
                        (_, Some(b)) if b == band => Some(b),
                        _ => None,
                    };
                }
            }
        }
    }

    /// The claims counted.
    pub fn counted(&self) -> usize {
        self.within
            + self.outside
            + self.direction_holds
            + self.direction_differs
            + self.inconclusive
            + self.not_evaluated
    }

    /// The claims shown but not counted.
    pub fn not_counted(&self) -> usize {
        self.restating + self.derived + self.calibration + self.illustration
    }

    /// The sum of two scores.
    pub fn plus(self, o: Score) -> Score {
        let own_band_claims = self.own_band_claims + o.own_band_claims;
        Score {
            within: self.within + o.within,
            outside: self.outside + o.outside,
            direction_holds: self.direction_holds + o.direction_holds,
            direction_differs: self.direction_differs + o.direction_differs,
            inconclusive: self.inconclusive + o.inconclusive,
            not_evaluated: self.not_evaluated + o.not_evaluated,
            restating: self.restating + o.restating,
            derived: self.derived + o.derived,
            calibration: self.calibration + o.calibration,
            illustration: self.illustration + o.illustration,
            own_band_claims,
            own_band_within: self.own_band_within + o.own_band_within,
            own_band: match (self.own_band_claims, o.own_band_claims) {
                (0, _) => o.own_band,
                (_, 0) => self.own_band,
                _ if self.own_band == o.own_band => self.own_band,
                _ => None,
            },
        }
    }

    /// The scoreboard of some outcomes (as [`scores_of_csv`] counts their rows).
    pub fn of(outcomes: &[Outcome]) -> Score {
        let mut s = Score::default();
        for o in outcomes {
            let own = o.own_band.map(|(b, holds)| {
                (
                    b,
                    if !o.ours.is_finite() {
                        ""
                    } else if holds {
                        "holds"
                    } else {
                        "differs"
                    },
                )
            });
            s.add(o.claim.kind().word(), o.verdict.word(), o.claim.role().word(), own);
        }
        s
    }
}

/// The scoreboard's column heads.
pub const SCORE_HEADS: [&str; 10] = [
    "experiment",
    "claims counted",
    "number within band",
    "number outside band",
    "direction holds",
    "direction differs",
    "direction inconclusive",
    "not evaluated",
    "not counted",
    "number within its own band",
];

/// The cells after the experiment's name.
pub fn score_cells(s: &Score) -> [String; 9] {
    let own = match (s.own_band_claims, s.own_band) {
        (0, _) => "–".to_string(),
        (n, Some([lo, hi])) => format!("{} of {n} in [{lo}, {hi}]", s.own_band_within),
        (n, None) => format!("{} of {n}", s.own_band_within),
    };
    [
        s.counted().to_string(),
        s.within.to_string(),
        s.outside.to_string(),
        s.direction_holds.to_string(),
        s.direction_differs.to_string(),
        s.inconclusive.to_string(),
        s.not_evaluated.to_string(),
        s.not_counted().to_string(),
        own,
    ]
}

/// Per experiment, from `claims.csv` (rows in file order).
pub fn scores_of_csv(csv: &str) -> Result<Vec<(String, Score)>, ReportError> {
    let mut out: Vec<(String, Score)> = Vec::new();
    let names = ["experiment", "kind", "verdict", "role", "own_band_lo", "own_band_hi", "own_band_verdict"];
    for [e, k, v, r, lo, hi, ov] in claims_csv_columns(csv, names)? {
        if out.last().is_none_or(|(x, _)| x != e) {
            out.push((e.to_string(), Score::default()));
        }
        let own = match (lo.parse::<f64>(), hi.parse::<f64>()) {
            (Ok(lo), Ok(hi)) => Some(([lo, hi], ov)),
            _ => None,
        };
        if let Some((_, s)) = out.last_mut() {
            s.add(k, v, r, own);
        }
    }
    Ok(out)
}

/// What is not counted, in words (`1 restating another claim, 59 derived …`), or empty.
fn not_counted_words(t: &Score) -> String {
    let parts: Vec<String> = [
        (t.restating, "restating another claim"),
        (t.derived, "derived from other claims' published numbers"),
        (t.calibration, "calibration of a fitted parameter"),
        (t.illustration, "illustrations of our own model"),
    ]
    .iter()
    .filter(|(n, _)| *n > 0)
    .map(|(n, w)| format!("{n} {w}"))
    .collect();
    parts.join(", ")
}

/// The bands of their own of the experiments that have one, with the reason given in their
/// data files (one line each).
fn own_band_lines(scores: &[(String, Score)]) -> Vec<String> {
    let mut out = Vec::new();
    for (e, s) in scores.iter().filter(|(_, s)| s.own_band_claims > 0) {
        let reason = published::load(e)
            .ok()
            .and_then(|p| p.claims.iter().find_map(|c| c.own_band().and(c.range_reason.clone())))
            .unwrap_or_default();
        let band = s.own_band.map(|[lo, hi]| format!("[{lo}, {hi}]")).unwrap_or_else(|| "its claims' own".into());
        out.push(format!(
            "{e}: {} of {} numeric claims lie within {band}, the band its data file gives them ({reason}); the headline \
counts them on [{}, {}] only.",
            s.own_band_within, s.own_band_claims, DEFAULT_BAND[0], DEFAULT_BAND[1]
        ));
    }
    out
}

/// The scoreboard as plain text (printed by `coapcc reproduce`).
pub fn scoreboard_text(scores: &[(String, Score)]) -> String {
    let total = scores.iter().fold(Score::default(), |a, (_, s)| a.plus(*s));
    let n = SCORE_HEADS.len();
    let mut rows: Vec<Vec<String>> = vec![SCORE_HEADS.iter().map(|h| h.to_string()).collect()];
    for (e, s) in scores.iter().map(|(e, s)| (e.as_str(), s)).chain(std::iter::once(("all", &total))) {
        rows.push(std::iter::once(e.to_string()).chain(score_cells(s)).collect());
    }
    let widths: Vec<usize> = (0..n).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    let mut t = String::new();
    for r in &rows {
        let cells: Vec<String> = r
            .iter()
            .enumerate()
            .map(|(i, c)| if i == 0 { format!("{c:<w$}", w = widths[i]) } else { format!("{c:>w$}", w = widths[i]) })
            .collect();
        t.push_str(cells.join("  ").trim_end());
        t.push('\n');
    }
    let words = not_counted_words(&total);
    if !words.is_empty() {
        let _ = writeln!(t, "(not counted, shown and linked in the report: {words})");
    }
    t
}

/// The scoreboard `coapcc reproduce` prints, from `claims.csv` (the README shows the full
/// run's).
pub fn printed_scoreboard(claims_csv: &str) -> Result<String, ReportError> {
    Ok(scoreboard_text(&scores_of_csv(claims_csv)?))
}

/// `status.md`: the README's "Reproduction status" scoreboard, generated from `claims.csv`.
pub fn status_md(claims_csv: &str) -> Result<String, ReportError> {
    let scores = scores_of_csv(claims_csv)?;
    let total = scores.iter().fold(Score::default(), |a, (_, s)| a.plus(*s));
    let mut m = format!(
        "{} published claims counted: {} numeric within the band [{}, {}], {} numeric outside it, {} direction-only \
hold, {} differ, {} are inconclusive (within the run-to-run noise), {} not evaluated",
        total.counted(),
        total.within,
        DEFAULT_BAND[0],
        DEFAULT_BAND[1],
        total.outside,
        total.direction_holds,
        total.direction_differs,
        total.inconclusive,
        total.not_evaluated
    );
    let words = not_counted_words(&total);
    if !words.is_empty() {
        let _ = write!(m, ". Not counted (shown, linked to what they rest on): {words}");
    }
    m.push_str(".\n\n| ");
    m.push_str(&SCORE_HEADS.join(" | "));
    m.push_str(" |\n|");
    m.push_str(&"---|".repeat(SCORE_HEADS.len()));
    m.push('\n');
    for (e, s) in scores.iter().map(|(e, s)| (e.as_str(), s)).chain(std::iter::once(("**all**", &total))) {
        let _ = writeln!(m, "| {e} | {} |", score_cells(s).join(" | "));
    }
    let lines = own_band_lines(&scores);
    if !lines.is_empty() {
        m.push('\n');
        for l in lines {
            let _ = writeln!(m, "{l}");
        }
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "experiment,kind,verdict,role,own_band_lo,own_band_hi,own_band_verdict\n";

    #[test]
    fn only_counted_claims_enter_the_headline_and_an_own_band_is_a_second_column() {
        let csv = format!(
            "{HEAD}x,numeric,holds,counted,,,\nx,numeric,differs,counted,0.5,1.5,holds\nx,numeric,differs,counted,0.5,1.5,differs\n\
x,direction,inconclusive,counted,,,\nx,direction,holds,derived,,,\nx,numeric,holds,calibration,,,\nx,numeric,holds,illustration,,,\n\
x,numeric,holds,restates,,,\ny,direction,differs,counted,,,\ny,numeric,not evaluated,counted,,,\n"
        );
        let s = scores_of_csv(&csv).unwrap();
        let x = s[0].1;
        assert_eq!((x.counted(), x.within, x.outside, x.inconclusive, x.not_counted()), (4, 1, 2, 1, 4));
        assert_eq!((x.own_band_within, x.own_band_claims, x.own_band), (1, 2, Some([0.5, 1.5])));
        assert_eq!(score_cells(&x)[8], "1 of 2 in [0.5, 1.5]");
        let y = s[1].1;
        assert_eq!((y.counted(), y.direction_differs, y.not_evaluated), (2, 1, 1));
        assert_eq!(score_cells(&y)[8], "–");
        let text = scoreboard_text(&s);
        assert!(text.lines().nth(3).unwrap().starts_with("all"), "{text}");
        assert!(text.contains("(not counted, shown and linked in the report: 1 restating another claim, 1 derived"));
    }
}
