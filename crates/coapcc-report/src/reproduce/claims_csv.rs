//! Reading `claims.csv` back (the scoreboard of `status.md`, the claims of `causes.md`) by
//! column name; its columns ([`COLUMNS`]; the writer is `section::claims_csv`).

use crate::error::ReportError;

/// The columns of `claims.csv`, in order. `band_lo`/`band_hi` are the default band of a
/// `ratio` check (the headline verdict's); `verdict` is `holds`, `differs`, `inconclusive` or
/// `not evaluated`; `restates` the claim a restating claim restates; `role` whether the claim
/// is counted (`counted`) or why not (`restates`, `derived`, `calibration`, `illustration`),
/// `linked` the claims or parameter it rests on (`;`-separated); `own_band_*` a band of the
/// claim's own and the verdict on it (a second column, never the headline); `noise_lo`/`noise_hi`
/// the 95 % bootstrap interval of a direction claim's mean over the replications.
pub const COLUMNS: &str = "experiment,claim,metric,case,kind,published,ours,ratio,band_lo,band_hi,verdict,restates,role,linked,own_band_lo,own_band_hi,own_band_verdict,noise_lo,noise_hi";

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
