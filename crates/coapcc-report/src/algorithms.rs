//! The algorithm registry as text (`coapcc algorithms`): a table, CSV, and one algorithm's
//! configuration keys.

use std::fmt::Write;

use coapcc_core::ALGORITHMS;
use coapcc_driver::scenario::algorithm_keys;
use coapcc_driver::scenario::algorithm_with_settings;

use crate::error::ReportError;

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

/// The same table as CSV (RFC 4180, for pandas): a field with a comma, quote or line break is
/// quoted, quotes doubled.
pub fn algorithms_csv() -> String {
    let mut out = String::from("name,family,exactness,state_bytes,spec,source\n");
    for a in ALGORITHMS {
        let fields = [
            csv_field(a.name),
            csv_field(&a.family.to_string()),
            csv_field(&a.exactness.to_string()),
            a.state_bytes.to_string(),
            csv_field(a.spec),
            csv_field(a.source),
        ];
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

/// `coapcc algorithms NAME`: the configuration keys of algorithm `name` with their preset
/// values (TOML), between a heading and the link to its documentation. An unknown name is bad
/// input listing the valid ones.
pub fn algorithm_keys_text(name: &str) -> Result<String, ReportError> {
    let config = algorithm_with_settings(name, &[]).map_err(|e| ReportError::Options(e.to_string()))?;
    let keys = toml::to_string(&algorithm_keys(&config))?;
    // Every preset name is a heading of docs/algorithms.md (checked by a test).
    Ok(format!(
        "# {name}: configuration keys and preset values (change with --set KEY=VALUE)\n{keys}# documentation: docs/algorithms.md#{name}\n"
    ))
}

pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_csv_row_has_as_many_fields_as_the_header_when_quotes_are_respected() {
        let csv = algorithms_csv();
        let count = |line: &str| {
            let (mut n, mut quoted) = (1, false);
            for c in line.chars() {
                match c {
                    '"' => quoted = !quoted,
                    ',' if !quoted => n += 1,
                    _ => {}
                }
            }
            n
        };
        let mut lines = csv.lines();
        let header = count(lines.next().unwrap());
        for l in lines {
            assert_eq!(count(l), header, "{l}");
        }
        assert!(csv.contains("\"§8.1, §8.3\""), "the mbc spec field is quoted");
    }
}
