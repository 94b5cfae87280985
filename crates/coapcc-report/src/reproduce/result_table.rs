//! The result tables of an experiment with a `[result_table]` (the firmware update), for
//! experiments whose source publishes no results to set beside ours: per algorithm and group of
//! cases, the median FCT, the median retransmissions per flow and the goodput of the median flow
//! (a transfer case's object bits over its median FCT, [`super::transfer::Transfer`]), in the
//! report and as `results.csv`.

use std::fmt::Write;

use super::evaluate::{CaseResult, net};
use super::published::{ResultGrid, ResultTable};
use super::section::Section;
use crate::figures::escape_xml;

/// One algorithm in one column of a result table: the numbers of the first of the column's
/// cases that ran it.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// The case the numbers come from.
    pub case: String,
    /// Median FCT of the flows that finished, s (NaN when none did).
    pub fct_median_s: f64,
    /// Median retransmissions per flow.
    pub retransmissions_median: f64,
    /// The object's bits over the median FCT, kbit/s (NaN without a median FCT or an object).
    pub goodput_kbps: f64,
    /// Flows that did not finish, and every flow, over all replications.
    pub unfinished: (u64, u64),
}

/// One table of a result table: its rows (algorithms, in the order the columns' cases first
/// name them) and per row one cell per column (none where no case of the column ran it).
type Grid<'a> = (&'a ResultGrid, Vec<(String, Vec<Option<Cell>>)>);

fn cell(c: &CaseResult, algorithm: &str) -> Option<Cell> {
    let s = net(c.of(algorithm)?);
    let object_bits = c.transfer.as_ref().map_or(f64::NAN, |t| t.object_bytes as f64 * 8.0);
    Some(Cell {
        case: c.case.name.clone(),
        fct_median_s: s.fct.p50,
        retransmissions_median: s.retransmissions.p50,
        goodput_kbps: object_bits / s.fct.p50 / 1000.0,
        unfinished: (s.flows_unfinished, s.flows_total),
    })
}

fn grids<'a>(spec: &'a ResultTable, cases: &[CaseResult]) -> Vec<Grid<'a>> {
    let find = |name: &str| cases.iter().find(|c| c.case.name == name);
    spec.tables
        .iter()
        .map(|g| {
            let mut algorithms: Vec<String> = Vec::new();
            for c in g.columns.iter().flat_map(|col| &col.cases).filter_map(|n| find(n)) {
                for s in &c.summaries {
                    if !algorithms.contains(&s.algorithm) {
                        algorithms.push(s.algorithm.clone());
                    }
                }
            }
            let rows = algorithms
                .into_iter()
                .map(|a| {
                    let cells = g
                        .columns
                        .iter()
                        .map(|col| col.cases.iter().filter_map(|n| find(n)).find_map(|c| cell(c, &a)))
                        .collect();
                    (a, cells)
                })
                .collect();
            (g, rows)
        })
        .collect()
}

/// A cell's value in words.
type Words = fn(&Cell) -> String;

/// The metrics of a result table: heading, and a cell's value in words.
const METRICS: [(&str, Words); 3] = [
    ("Median flow completion time (s; flows that did not finish are left out and counted)", fct_words),
    ("Median retransmissions per flow", retransmissions_words),
    ("Goodput of the median flow (kbit/s: the object's bits over the median FCT)", goodput_words),
];

fn retransmissions_words(c: &Cell) -> String {
    fixed(c.retransmissions_median, 1)
}

fn goodput_words(c: &Cell) -> String {
    fixed(c.goodput_kbps, 2)
}

fn fixed(x: f64, decimals: usize) -> String {
    if x.is_finite() { format!("{x:.decimals$}") } else { "–".into() }
}

fn fct_words(c: &Cell) -> String {
    let (left, all) = c.unfinished;
    if left == 0 {
        fixed(c.fct_median_s, 1)
    } else {
        format!("{} ({left} of {all} unfinished)", fixed(c.fct_median_s, 1))
    }
}

fn row_name<'a>(spec: &'a ResultTable, a: &'a str) -> &'a str {
    spec.names.get(a).map_or(a, String::as_str)
}

/// The result tables of section `s` in HTML (empty without a `[result_table]`).
pub fn tables_html(s: &Section) -> String {
    let Some(spec) = &s.published.result_table else { return String::new() };
    let mut h = format!("<h3>Results</h3>\n<p class=\"small\">{}</p>\n", escape_xml(&spec.about));
    for (g, rows) in grids(spec, &s.cases) {
        for (heading, words) in METRICS {
            let _ =
                write!(h, "<h4>{}: {}</h4>\n<table><tr><th>algorithm</th>", escape_xml(&g.title), escape_xml(heading));
            for col in &g.columns {
                let _ = write!(h, "<th>{}</th>", escape_xml(&col.label));
            }
            h.push_str("</tr>");
            for (a, cells) in &rows {
                let _ = write!(h, "<tr><td>{}</td>", escape_xml(row_name(spec, a)));
                for c in cells {
                    let _ = write!(h, "<td class=\"n\">{}</td>", c.as_ref().map(words).unwrap_or_default());
                }
                h.push_str("</tr>");
            }
            h.push_str("</table>\n");
        }
    }
    h
}

/// The result tables of section `s` in Markdown (empty without a `[result_table]`).
pub fn tables_md(s: &Section) -> String {
    let Some(spec) = &s.published.result_table else { return String::new() };
    let mut m = format!("### Results\n\n{}\n\n", spec.about);
    for (g, rows) in grids(spec, &s.cases) {
        for (heading, words) in METRICS {
            let _ = write!(m, "#### {}: {}\n\n| algorithm |", g.title, heading);
            for col in &g.columns {
                let _ = write!(m, " {} |", col.label);
            }
            m.push_str("\n|---|");
            m.push_str(&"---:|".repeat(g.columns.len()));
            m.push('\n');
            for (a, cells) in &rows {
                let _ = write!(m, "| {} |", row_name(spec, a));
                for c in cells {
                    let _ = write!(m, " {} |", c.as_ref().map(words).unwrap_or_default());
                }
                m.push('\n');
            }
            m.push('\n');
        }
    }
    m
}

/// `results.csv` of the sections with a `[result_table]` (none: `None`): one row per table,
/// column and algorithm.
pub fn results_csv(sections: &[Section]) -> Option<String> {
    let mut out = String::from(
        "experiment,table,column,case,algorithm,fct_median_s,retransmissions_median,goodput_kbps,flows_unfinished,flows_total\n",
    );
    let mut any = false;
    for s in sections {
        let Some(spec) = &s.published.result_table else { continue };
        any = true;
        for (g, rows) in grids(spec, &s.cases) {
            for (i, col) in g.columns.iter().enumerate() {
                for (a, cells) in &rows {
                    let Some(c) = &cells[i] else { continue };
                    let _ = writeln!(
                        out,
                        "{},\"{}\",\"{}\",{},{a},{},{},{},{},{}",
                        s.published.experiment,
                        g.title,
                        col.label,
                        c.case,
                        c.fct_median_s,
                        c.retransmissions_median,
                        c.goodput_kbps,
                        c.unfinished.0,
                        c.unfinished.1
                    );
                }
            }
        }
    }
    any.then_some(out)
}
