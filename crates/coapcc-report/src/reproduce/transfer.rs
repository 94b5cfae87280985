//! Transfer cases, whose flows each fetch one object (CoAP over TCP, `[tcp]`; CoAP over UDP
//! block-wise, `[coap.blockwise]`): what the report keeps of them beyond the summaries
//! ([`Transfer`]: the object's size, and over TCP each algorithm's data segments), and the
//! result tables of an experiment with a `[result_table]` (the firmware update): median FCT,
//! median retransmissions per flow and the goodput of the median flow, per algorithm and
//! group of cases, in the report and as `results.csv`.

use std::fmt::Write;

use coapcc_driver::metrics::median;
use coapcc_driver::scenario::{Model, Scenario};
use coapcc_sim::{AlgorithmRuns, RunOutput};

use super::evaluate::{CaseResult, net};
use super::published::{ResultGrid, ResultTable};
use super::section::Section;
use crate::figures::escape_xml;

/// What a transfer case measures beyond its summaries.
#[derive(Clone, Debug, PartialEq)]
pub struct Transfer {
    /// The object each flow fetches, bytes (102 400 for the firmware image).
    pub object_bytes: u64,
    /// Over CoAP over TCP, per algorithm (congestion control): its data segments; empty over UDP.
    pub tcp: Vec<(String, TcpTransfer)>,
}

/// One congestion control's segments in a CoAP-over-TCP case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcpTransfer {
    /// Median over every flow of every replication of the response's distinct data segments
    /// (first transmissions).
    pub data_segments_median: f64,
    /// IPv4 and TCP header bytes of each segment (40; 52 with timestamps).
    pub header_bytes_per_segment: u32,
}

impl TcpTransfer {
    /// The header bytes of the median flow's data segments.
    pub fn header_bytes_median(&self) -> f64 {
        self.data_segments_median * f64::from(self.header_bytes_per_segment)
    }
}

impl Transfer {
    /// What a case of scenario `s` with runs `runs` transfers; none unless its flows each fetch
    /// one object.
    pub fn of_runs(s: &Scenario, runs: &[AlgorithmRuns]) -> Option<Transfer> {
        match &s.model {
            Model::Tcp(m) => {
                let tcp = runs
                    .iter()
                    .map(|a| {
                        let mut segments: Vec<f64> = a
                            .runs
                            .iter()
                            .filter_map(|r| match r {
                                RunOutput::Tcp(t) => Some(t.flows.iter().map(|f| f.data_segments as f64)),
                                _ => None,
                            })
                            .flatten()
                            .collect();
                        let t = TcpTransfer {
                            data_segments_median: median(&mut segments),
                            header_bytes_per_segment: m.tcp.header_bytes(),
                        };
                        (a.algorithm.clone(), t)
                    })
                    .collect();
                Some(Transfer { object_bytes: m.tcp.object_bytes, tcp })
            }
            Model::Network { .. } => s
                .file
                .coap
                .blockwise
                .as_ref()
                .map(|b| Transfer { object_bytes: u64::from(b.object_bytes), tcp: Vec::new() }),
            _ => None,
        }
    }

    /// Algorithm `algorithm`'s segments, over CoAP over TCP.
    pub fn tcp_of(&self, algorithm: &str) -> Option<&TcpTransfer> {
        self.tcp.iter().find(|(a, _)| a == algorithm).map(|(_, t)| t)
    }
}

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

/// The metrics of a result table: heading, and a cell's value in words.
const METRICS: [(&str, fn(&Cell) -> String); 3] = [
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use coapcc_driver::scenario::{Catalogue, Model};

    use super::super::published::{Check, load};

    #[test]
    fn the_firmware_claims_are_the_theses_arithmetic_and_our_tcp_scenario_segments_the_object_so() {
        let p = load("firmware").unwrap();
        let claim = |id: &str| p.claims.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no claim {id}"));
        // The thesis: 102 400 B and the 8-byte CoAP-over-TCP header; 40 B of minimal IPv4 (20)
        // and TCP (20) headers in each segment of a 296-byte MTU.
        let (response_bytes, header_bytes, mtu_bytes) = (102_400_u64 + 8, 20_u64 + 20, 296_u64);
        let segments = response_bytes.div_ceil(mtu_bytes - header_bytes);
        assert_eq!(segments, 401);
        assert_eq!(claim("fw-segments-cubic").published, segments as f64);
        assert_eq!(claim("fw-segments-reno").published, segments as f64);
        assert_eq!(claim("fw-header-bytes-cubic").published, (segments * header_bytes) as f64);
        // "MSS of 296" read as the MSS would give 346 segments: why the reading is fitted to 401.
        assert_eq!(response_bytes.div_ceil(mtu_bytes), 346);
        // 32.2 s is the downlink's serialisation of data and headers at 30 kbit/s, plus the
        // request's 200 ms up, the last segment's 400 ms down and 10–20 ms of the rest of the
        // path each way (docs/testbeds.md §1).
        let serialisation_s = ((response_bytes + segments * header_bytes) * 8) as f64 / 30_000.0;
        for rest_s in [0.02, 0.04] {
            let ideal_s = serialisation_s + 0.2 + 0.4 + rest_s;
            assert!((ideal_s - claim("fw-ideal-fct-cubic").published).abs() < 0.05, "{ideal_s}");
        }
        for id in ["fw-ideal-fct-cubic", "fw-ideal-fct-reno"] {
            let Check::Within { tolerance } = claim(id).check else { panic!("{id}: not a `within` check") };
            assert!((tolerance - 0.05 * 32.2).abs() < 1e-9, "{id}: 5 % of 32.2 s is 1.61 s, not {tolerance}");
        }
        // The scenario the claims are measured in segments the response so.
        let s = Catalogue::BuiltIn.load(Path::new("firmware/tcp-1-client.toml"), &[]).unwrap();
        let Model::Tcp(m) = &s.model else { panic!("firmware/tcp-1-client is not a TCP scenario") };
        assert_eq!(u64::from(m.tcp.mss()), mtu_bytes - header_bytes);
        assert_eq!(u64::from(m.tcp.header_bytes()), header_bytes);
        assert_eq!(m.tcp.sizes().response, response_bytes);
    }
}
