//! `claims.csv`, written from a run's outcomes and read back (the scoreboard of `status.md`,
//! the claims of `causes.md`) by column name.

use std::fmt::Write;

use super::render::{Section, band};
use crate::error::ReportError;

/// The columns of `claims.csv`, in order. `band_lo`/`band_hi` are the default band of a
/// `ratio` check (the headline verdict's); `verdict` is `holds`, `differs`, `inconclusive` or
/// `not evaluated`; `restates` the claim a restating claim restates; `role` whether the claim
/// is counted (`counted`) or why not (`restates`, `derived`, `calibration`, `illustration`),
/// `linked` the claims or parameter it rests on (`;`-separated); `own_band_*` a band of the
/// claim's own and the verdict on it (a second column, never the headline); `noise_lo`/`noise_hi`
/// the 95 % bootstrap interval of a direction claim's mean over the replications.
pub const COLUMNS: &str = "experiment,claim,metric,case,kind,published,ours,ratio,band_lo,band_hi,verdict,restates,role,linked,own_band_lo,own_band_hi,own_band_verdict,noise_lo,noise_hi";

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

/// The columns `names` of every row of `claims.csv`, in file order; an error names the
/// missing column or the line with the wrong number of fields.
pub(crate) fn columns<'a, const N: usize>(csv: &'a str, names: [&str; N]) -> Result<Vec<[&'a str; N]>, ReportError> {
    let bad = |m: String| ReportError::Description(m);
    let mut lines = csv.lines();
    let head: Vec<&str> = lines.next().ok_or_else(|| bad("claims.csv is empty".into()))?.split(',').collect();
    let mut at = [0; N];
    for (slot, name) in at.iter_mut().zip(names) {
        *slot =
            head.iter().position(|h| *h == name).ok_or_else(|| bad(format!("claims.csv has no column `{name}`")))?;
    }
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != head.len() {
            return Err(bad(format!("claims.csv line {}: {} fields, expected {}", i + 2, f.len(), head.len())));
        }
        out.push(at.map(|c| f[c]));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_are_found_by_name_and_a_short_line_is_named() {
        let rows = columns("a,b,c\n1,2,3\n4,5,6\n", ["c", "a"]).unwrap();
        assert_eq!(rows, [["3", "1"], ["6", "4"]]);
        assert!(columns("a,b\n1,2\n", ["z"]).unwrap_err().to_string().contains("no column `z`"));
        assert!(columns("a,b\n1,2\n3\n", ["a"]).unwrap_err().to_string().contains("line 3: 1 fields, expected 2"));
        assert!(columns("", ["a"]).unwrap_err().to_string().contains("empty"));
    }
}
