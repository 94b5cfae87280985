//! The `coapcc algorithms` table.

use std::fmt::Write;

use coapcc_core::registry::ALGORITHMS;

/// A plain-text table of every algorithm name with its family, source, exactness and state size.
pub fn algorithms_table() -> String {
    let header = ["name", "family", "exactness", "state_bytes", "spec", "source"];
    let rows: Vec<[String; 6]> = ALGORITHMS
        .iter()
        .map(|a| {
            [
                a.name.to_string(),
                a.family.to_string(),
                a.exactness.to_string(),
                a.state_bytes.to_string(),
                a.spec.to_string(),
                a.source.to_string(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for r in &rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut s = String::new();
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            if i == 3 {
                let _ = write!(s, "{c:>w$}  ");
            } else if i + 1 == cells.len() {
                s.push_str(c);
            } else {
                let _ = write!(s, "{c:<w$}  ");
            }
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(&header);
    for r in &rows {
        line(&r.iter().map(String::as_str).collect::<Vec<_>>());
    }
    out
}

/// The same table as CSV (for pandas).
pub fn algorithms_csv() -> String {
    let mut out = String::from("name,family,exactness,state_bytes,spec,source\n");
    for a in ALGORITHMS {
        let _ = writeln!(
            out,
            "{},{},{},{},{},\"{}\"",
            a.name,
            a.family,
            a.exactness,
            a.state_bytes,
            a.spec,
            a.source.replace('"', "\"\"")
        );
    }
    out
}
