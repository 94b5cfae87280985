//! One experiment's evaluated content ([`Section`]) and what is written of it for every claim,
//! `claims.csv` ([`claims_csv`]).

use std::fmt::Write;

use super::claims_csv::COLUMNS;
use super::evaluate::{CaseResult, Outcome};
use super::investigate::Investigation;
use super::published::{Check, DEFAULT_BAND, FigureSpec, Published};

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
    /// Investigations of open modelling choices (figure and finding), after the figures.
    pub investigations: Vec<Investigation>,
}

/// The band of a `ratio` check, if it is one: the default band, on which every headline
/// verdict is reached (a claim's own band is [`Outcome::own_band`]).
pub fn band(o: &Outcome) -> Option<[f64; 2]> {
    match o.claim.check {
        Check::Ratio { .. } => Some(DEFAULT_BAND),
        _ => None,
    }
}

/// A finite number with six decimals, else empty.
fn six(x: f64) -> String {
    if x.is_finite() { format!("{x:.6}") } else { String::new() }
}

/// `claims.csv`: one row per claim (see [`COLUMNS`]).
pub fn claims_csv(sections: &[Section]) -> String {
    let mut s = format!("{COLUMNS}\n");
    for sec in sections {
        for o in &sec.outcomes {
            let (blo, bhi) = band(o).map(|[l, h]| (l.to_string(), h.to_string())).unwrap_or_default();
            let role = o.claim.role();
            let (olo, ohi, ov) = match o.own_band {
                Some(([l, h], holds)) => (
                    l.to_string(),
                    h.to_string(),
                    if !o.ratio.is_finite() {
                        ""
                    } else if holds {
                        "holds"
                    } else {
                        "differs"
                    },
                ),
                None => (String::new(), String::new(), ""),
            };
            let (nlo, nhi) = o.noise.map(|[a, b]| (six(a), six(b))).unwrap_or_default();
            let _ = writeln!(
                s,
                "{},{},{},{},{},{},{},{},{blo},{bhi},{},{},{},{},{olo},{ohi},{ov},{nlo},{nhi}",
                sec.published.experiment,
                o.claim.id,
                o.claim.metric.name(),
                o.claim.metric.case_or_sweep().unwrap_or(""),
                o.claim.kind().word(),
                o.claim.published,
                six(o.ours),
                six(o.ratio),
                o.verdict.word(),
                o.claim.restates.as_deref().unwrap_or(""),
                role.word(),
                role.linked(),
            );
        }
    }
    s
}
