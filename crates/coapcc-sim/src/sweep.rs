//! Sweeps: a key swept over values (`--sweep flows=100,200,400`), every combination of the
//! sweeps' values (a *point*), and the `sweep.csv` rows of a point. One copy for every
//! driver of a sweep: `coapcc sim --sweep` and the Python package's `coapcc.sweep` (local or
//! on a Dask cluster) build the same points in the same order and write the same rows.
//!
//! A point's scenario is the scenario file with the run's settings and then the point's
//! settings applied (in that order); its seed is the scenario's, and replication `r` of it
//! draws every random stream from (seed, r, stream) ([`coapcc_driver::rng::stream_rng`]), so one
//! (point, algorithm, replication) job gives the same output wherever it runs
//! ([`crate::runner::run_job`]).

pub mod store;

use std::fmt::Write;

use crate::results::{Summary, summary_csv_header, summary_csv_rows};
use coapcc_driver::scenario::{Key, Setting, SettingError, Value};

/// One sweep dimension: a key and its values, each read once and kept with its text (which
/// names the point's folder and its rows in `sweep.csv`).
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The key (as for `--set`).
    pub key: Key,
    /// Its values, each with its text as written.
    pub values: Vec<(String, Value)>,
}

impl std::str::FromStr for Sweep {
    type Err = SettingError;
    /// Reads `KEY=V1,V2,…`.
    fn from_str(s: &str) -> Result<Sweep, SettingError> {
        let bad = || SettingError { key: None, problem: format!("bad --sweep `{s}`: expected KEY=V1,V2,…") };
        let (k, v) = s.split_once('=').ok_or_else(bad)?;
        let values: Vec<(String, Value)> =
            v.split(',').map(str::trim).filter(|x| !x.is_empty()).map(|x| (x.to_string(), Value::parse(x))).collect();
        if k.trim().is_empty() || values.is_empty() {
            return Err(bad());
        }
        Ok(Sweep { key: k.parse()?, values })
    }
}

/// One point of a sweep: a setting per swept key, with the value's text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Point {
    /// `(text as written, setting)`, one per sweep, in sweep order.
    pub settings: Vec<(String, Setting)>,
}

impl Point {
    /// A folder name for the point: `flows=200,buffer_bytes=28200`.
    pub fn label(&self) -> String {
        self.settings
            .iter()
            .map(|(text, s)| format!("{}={text}", s.key))
            .collect::<Vec<_>>()
            .join(",")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || "=,._-".contains(c) { c } else { '_' })
            .collect()
    }

    /// Whether the point has no setting (a run without `--sweep`).
    pub fn is_empty(&self) -> bool {
        self.settings.is_empty()
    }

    /// The point's settings, in sweep order (applied after the run's own settings).
    pub fn settings(&self) -> impl Iterator<Item = &Setting> {
        self.settings.iter().map(|(_, s)| s)
    }
}

/// Every combination of the sweeps' values, in order (the last sweep varies fastest).
pub fn combinations(sweeps: &[Sweep]) -> Vec<Point> {
    let mut out: Vec<Point> = vec![Point::default()];
    for s in sweeps {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                s.values.iter().map(move |(text, v)| {
                    let mut p = prefix.clone();
                    p.settings.push((text.clone(), Setting { key: s.key.clone(), value: v.clone() }));
                    p
                })
            })
            .collect();
    }
    out
}

/// The header line of `sweep.csv` (with its newline): the swept keys, then the columns of
/// the points' `summary.csv` (network and RTT-trace points, or multihop ones: `summaries` of
/// any point tell which; none, the former).
pub fn sweep_csv_header(point: &Point, summaries: &[Summary]) -> String {
    let keys: Vec<String> = point.settings.iter().map(|(_, s)| s.key.to_string()).collect();
    format!("{},{}\n", keys.join(","), summary_csv_header(summaries))
}

/// The rows of `sweep.csv` for one point (each with its newline): the point's value texts
/// (quoted), then each of the point's `summary.csv` rows, from its typed `summaries`.
pub fn sweep_csv_rows(point: &Point, summaries: &[Summary]) -> String {
    let values: Vec<String> =
        point.settings.iter().map(|(text, _)| format!("\"{}\"", text.replace('"', "\"\""))).collect();
    let mut out = String::new();
    for row in summary_csv_rows(summaries) {
        let _ = writeln!(out, "{},{row}", values.join(","));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_sweep_varies_fastest() {
        let a: Sweep = "flows=1,2".parse().unwrap();
        let b: Sweep = "buffer_bytes=10,20".parse().unwrap();
        let labels: Vec<String> = combinations(&[a, b]).iter().map(Point::label).collect();
        assert_eq!(
            labels,
            [
                "flows=1,buffer_bytes=10",
                "flows=1,buffer_bytes=20",
                "flows=2,buffer_bytes=10",
                "flows=2,buffer_bytes=20"
            ]
        );
    }

    #[test]
    fn a_sweep_without_values_is_rejected() {
        assert!("flows=".parse::<Sweep>().is_err());
        assert!("flows".parse::<Sweep>().is_err());
    }

    #[test]
    fn sweep_rows_quote_the_value_texts_before_the_summary_columns() {
        let p = &combinations(&["algorithm.cocoa.aging=\"off\"".parse().unwrap()])[0];
        assert!(sweep_csv_header(p, &[]).starts_with("algorithm.cocoa.aging,algorithm,runs,"));
        assert_eq!(sweep_csv_rows(p, &[]), "");
    }
}
