//! What the report prints under each claim besides its numbers: our reading (`note`), a band of
//! its own and the verdict on it, why it is not counted (it restates a claim, is derived from
//! other claims' numbers, calibrates a fitted parameter, or illustrates our own model) with the
//! links, the fitted or chosen parameters it rests on, the noise test of a direction claim, and
//! its cause with the cause's standing ([`causes::standing`]) and numbers filled in from the
//! run ([`causes::render_text`]). Also each experiment's table of those parameters.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::evaluate::{Outcome, Verdict, num};
use super::investigate::Findings;
use super::investigate::causes;
use super::published::{ParameterKind, Role};
use super::section::Section;

/// A piece of a note: text, a link to a claim, or a link to a parameter (id, name).
pub enum Piece {
    /// Plain text.
    Text(String),
    /// A claim's id, linked to its row.
    Claim(String),
    /// A parameter (id, name), linked to its row of the parameter table.
    Parameter(String, String),
}

/// One note under a claim: a label (`Band`, `Not counted`) and its pieces.
pub struct Note {
    /// Its label (empty for our reading of the claim).
    pub label: &'static str,
    /// What it says.
    pub pieces: Vec<Piece>,
}

/// What the notes of a report need of the whole run: the investigations' data (the standing
/// of causes, their numbers) and our value of every claim.
pub struct Context {
    /// The run's investigations.
    pub findings: Findings,
    /// Our value of every claim of the run, by id.
    pub ours: BTreeMap<String, f64>,
}

impl Context {
    /// The context of a run's sections.
    pub fn of(sections: &[Section]) -> Context {
        Context {
            findings: Findings::of(
                sections.iter().map(|s| (s.published.experiment.as_str(), s.investigations.as_slice())),
            ),
            ours: sections.iter().flat_map(|s| s.outcomes.iter().map(|o| (o.claim.id.clone(), o.ours))).collect(),
        }
    }
}

fn text(t: impl Into<String>) -> Piece {
    Piece::Text(t.into())
}

/// The cause of a claim that does not hold, its standing and its text with the numbers filled in
/// (`None` when it holds or has no cause).
pub fn cause_words(o: &Outcome, cx: &Context) -> Option<String> {
    if o.verdict == Verdict::Holds {
        return None;
    }
    let c = o.claim.cause.as_ref()?;
    let stand = causes::standing(c, &o.claim.id, &cx.findings);
    let body = causes::render_text(&c.text, &|id| cx.ours.get(id).copied(), &cx.findings)
        .unwrap_or_else(|e| format!("{} (its numbers are not in this run: {e})", c.text));
    Some(format!("Cause ({}): {body}", stand.words()))
}

/// The notes under a claim, in order.
pub fn notes(o: &Outcome, s: &Section, cx: &Context) -> Vec<Note> {
    let c = &o.claim;
    let mut out = Vec::new();
    if let Some(n) = &c.note {
        out.push(Note { label: "", pieces: vec![text(n.clone())] });
    }
    if let (Some(([lo, hi], holds)), Some(r)) = (o.own_band, &c.range_reason) {
        let verdict = if !o.ratio.is_finite() {
            "not evaluated"
        } else if holds {
            "within it"
        } else {
            "outside it"
        };
        out.push(Note {
            label: "Band of its own (second column, not the headline)",
            pieces: vec![text(format!("[{lo}, {hi}]: ours is {verdict}. {r}"))],
        });
    }
    match c.role() {
        Role::Counted => {}
        Role::Restates(id) => out.push(Note {
            label: "Not counted",
            pieces: vec![text("restates "), Piece::Claim(id.to_string()), text(".")],
        }),
        Role::Derived(ids) => {
            let mut pieces = vec![text("derived from the published numbers of ")];
            for (i, id) in ids.iter().enumerate() {
                if i > 0 {
                    pieces.push(text(", "));
                }
                pieces.push(Piece::Claim(id.clone()));
            }
            pieces.push(text(format!(": {}", c.derivation.as_deref().unwrap_or_default())));
            out.push(Note { label: "Not counted", pieces });
        }
        Role::Calibration(p) => {
            let name = s.published.parameters.iter().find(|x| x.id == p).map_or(p.to_string(), |x| x.name.clone());
            out.push(Note {
                label: "Not counted",
                pieces: vec![
                    text("calibration: "),
                    Piece::Parameter(p.to_string(), name),
                    text(" was fitted to it, or its fit alone sets our value."),
                ],
            });
        }
        Role::Illustration => out.push(Note {
            label: "Not counted",
            pieces: vec![text(format!(
                "an illustration of our own model, not a published claim: {}",
                c.illustration.as_deref().unwrap_or_default()
            ))],
        }),
    }
    let params: Vec<_> = s.published.parameters.iter().filter(|p| p.affects(c)).collect();
    if !params.is_empty() {
        let mut pieces = Vec::new();
        for (i, p) in params.iter().enumerate() {
            if i > 0 {
                pieces.push(text("; "));
            }
            pieces.push(Piece::Parameter(p.id.clone(), p.name.clone()));
            pieces.push(text(format!(" = {} ({})", p.value, p.kind.word())));
        }
        out.push(Note { label: "Rests on", pieces });
    }
    if let Some([a, b]) = o.noise {
        out.push(Note {
            label: "Noise test",
            pieces: vec![text(format!(
                "95 % bootstrap interval of the mean over the replications [{}, {}]{}",
                num(a),
                num(b),
                match &o.verdict {
                    Verdict::Inconclusive(_) => ": inconclusive",
                    _ => "",
                }
            ))],
        });
    }
    if let Some(w) = cause_words(o, cx) {
        out.push(Note { label: "", pieces: vec![text(w)] });
    }
    out
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The notes as HTML lines (each `<br><span class="small">…</span>`).
pub fn html(notes: &[Note]) -> String {
    let mut h = String::new();
    for n in notes {
        let mut body = String::new();
        for p in &n.pieces {
            match p {
                Piece::Text(t) => body.push_str(&esc(t)),
                Piece::Claim(id) => {
                    let _ = write!(body, "<a href=\"#claim-{0}\">{0}</a>", esc(id));
                }
                Piece::Parameter(id, name) => {
                    let _ = write!(body, "<a href=\"#param-{}\">{}</a>", esc(id), esc(name));
                }
            }
        }
        if n.label.is_empty() {
            let _ = write!(h, "<br><span class=\"small\">{body}</span>");
        } else {
            let _ = write!(h, "<br><span class=\"small\"><em>{}:</em> {body}</span>", esc(n.label));
        }
    }
    h
}

/// The notes as Markdown, each ` *Label:* …` (claim ids in backticks), on one table row.
pub fn md(notes: &[Note]) -> String {
    let mut m = String::new();
    for n in notes {
        let body: String = n
            .pieces
            .iter()
            .map(|p| match p {
                Piece::Text(t) => t.clone(),
                Piece::Claim(id) => format!("`{id}`"),
                Piece::Parameter(_, name) => name.clone(),
            })
            .collect();
        if n.label.is_empty() {
            let _ = write!(m, " *{body}*");
        } else {
            let _ = write!(m, " *{}:* {body}", n.label);
        }
    }
    m.replace('|', "\\|")
}

/// The claims a parameter was fitted to (their ids) and the claims it affects (how many).
fn fitted_and_affected(s: &Section, id: &str) -> (Vec<String>, usize) {
    let p = s.published.parameters.iter().find(|p| p.id == id);
    let fitted = s.published.claims.iter().filter(|c| c.calibration.as_deref() == Some(id)).map(|c| c.id.clone());
    let affected = s.published.claims.iter().filter(|c| p.is_some_and(|p| p.affects(c))).count();
    (fitted.collect(), affected)
}

/// The experiment's fitted and chosen parameters as an HTML table (empty when it has none).
pub fn parameters_html(s: &Section) -> String {
    let ps = &s.published.parameters;
    if ps.is_empty() {
        return String::new();
    }
    let mut h = String::from(
        "<h3 id=\"parameters\">Parameters we fitted or chose</h3>\n<p class=\"small\">The sources do not give these; \
each claim they affect says so under it. A claim a parameter was fitted to is calibration, not evidence: it is not \
counted.</p>\n<table class=\"claims\"><tr><th>parameter</th><th>value</th><th>how</th><th>why</th><th>claims affected</th></tr>\n",
    );
    for p in ps {
        let (fitted, affected) = fitted_and_affected(s, &p.id);
        let key = p.key.as_deref().map(|k| format!("<br><code>{}</code>", esc(k))).unwrap_or_default();
        let how = match p.kind {
            ParameterKind::Fitted => {
                let links: Vec<String> =
                    fitted.iter().map(|id| format!("<a href=\"#claim-{0}\">{0}</a>", esc(id))).collect();
                format!("fitted to {}", links.join(", "))
            }
            ParameterKind::Chosen => "chosen".into(),
        };
        let _ = writeln!(
            h,
            "<tr id=\"param-{}\"><td>{}{key}</td><td>{}</td><td>{how}</td><td class=\"small\">{}</td><td class=\"n\">{affected}</td></tr>",
            esc(&p.id),
            esc(&p.name),
            esc(&p.value),
            esc(&p.why)
        );
    }
    h.push_str("</table>\n");
    h
}

/// The experiment's fitted and chosen parameters as a Markdown table (empty when it has none).
pub fn parameters_md(s: &Section) -> String {
    let ps = &s.published.parameters;
    if ps.is_empty() {
        return String::new();
    }
    let mut m = String::from(
        "### Parameters we fitted or chose\n\nThe sources do not give these; each claim they affect says so under it. A \
claim a parameter was fitted to is calibration, not evidence: it is not counted.\n\n| parameter | value | how | why | \
claims affected |\n|---|---|---|---|---|\n",
    );
    for p in ps {
        let (fitted, affected) = fitted_and_affected(s, &p.id);
        let key = p.key.as_deref().map(|k| format!(" (`{k}`)")).unwrap_or_default();
        let how = match p.kind {
            ParameterKind::Fitted => {
                format!("fitted to {}", fitted.iter().map(|id| format!("`{id}`")).collect::<Vec<_>>().join(", "))
            }
            ParameterKind::Chosen => "chosen".into(),
        };
        let _ = writeln!(
            m,
            "| {}{key} | {} | {how} | {} | {affected} |",
            p.name.replace('|', "\\|"),
            p.value.replace('|', "\\|"),
            p.why.replace('|', "\\|")
        );
    }
    m.push('\n');
    m
}
