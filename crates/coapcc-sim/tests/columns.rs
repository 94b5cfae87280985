//! The typed columns of every results table (what the Python package hands to Arrow) hold
//! exactly the CSV files' values: formatted as the CSV formats them, they give the CSV's bytes.
//! And one (algorithm, replication) job run alone equals the same job within a whole run.

use std::path::{Path, PathBuf};

use coapcc_driver::scenario::{self, Scenario, Setting};
use coapcc_sim::results::{
    Column, Columns, flows_columns, flows_csv, runs_columns, runs_csv, samples_columns, samples_csv, series_columns,
    series_csv, summarise, summary_columns, summary_csv,
};
use coapcc_sim::{JobError, SimError};
use coapcc_sim::{assemble, run_job, run_scenario};

fn scenario_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(rel)
}

fn load(rel: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<Setting> = sets.iter().map(|s| s.parse().unwrap()).collect();
    scenario::load(&scenario_path(rel), &sets).unwrap()
}

/// The columns written as the CSV writers write them.
fn as_csv(c: &Columns) -> String {
    let names: Vec<&str> = c.columns.iter().map(|(n, _)| n.as_str()).collect();
    let mut out = format!("{}\n", names.join(","));
    let rows = c.columns.first().map_or(0, |(_, c)| c.len());
    for (_, col) in &c.columns {
        assert_eq!(col.len(), rows, "every column has every row");
    }
    for i in 0..rows {
        let cells: Vec<String> = c
            .columns
            .iter()
            .map(|(_, col)| match col {
                Column::Str(v) => v[i].clone(),
                Column::U64(v) => v[i].to_string(),
                Column::F64(v) if v[i].is_finite() => format!("{:.6}", v[i]),
                Column::F64(_) => String::new(),
                Column::Bool(v) => v[i].to_string(),
                Column::OptU64(v) => v[i].map_or(String::new(), |x| x.to_string()),
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

#[test]
fn network_columns_format_to_the_csv_bytes() {
    let s = load("fasor/10-flows-high-errors-random.toml", &["replications=2"]);
    let runs = run_scenario(&s, &|| {}).unwrap();
    assert_eq!(as_csv(&flows_columns(&runs)), flows_csv(&runs));
    assert_eq!(as_csv(&runs_columns(&s, &runs)), runs_csv(&s, &runs));
    assert_eq!(as_csv(&samples_columns(&runs)), samples_csv(&runs));
    let summaries = summarise(&s, &runs);
    assert_eq!(as_csv(&summary_columns(&summaries)), summary_csv(&summaries));
    assert_eq!(series_columns(&runs).map(|c| as_csv(&c)), series_csv(&runs));
}

#[test]
fn trace_columns_format_to_the_csv_bytes() {
    let s = load("makarem/rtt-trace/row-01.toml", &["replications=2"]);
    let runs = run_scenario(&s, &|| {}).unwrap();
    assert_eq!(as_csv(&runs_columns(&s, &runs)), runs_csv(&s, &runs));
    let summaries = summarise(&s, &runs);
    assert_eq!(as_csv(&summary_columns(&summaries)), summary_csv(&summaries));
    let series = series_columns(&runs).expect("a trace run has a series");
    assert_eq!(Some(as_csv(&series)), series_csv(&runs));
}

#[test]
fn a_job_run_alone_equals_the_same_job_within_a_whole_run() {
    let s = load("fasor/10-flows-high-errors-random.toml", &["replications=3"]);
    let whole = run_scenario(&s, &|| {}).unwrap();
    // Backwards, one at a time: no state is shared between jobs.
    let mut jobs = Vec::new();
    for a in (0..s.algorithms.len()).rev() {
        for r in (0..3).rev() {
            jobs.push(((a, r), run_job(&s, a, r).unwrap()));
        }
    }
    assert_eq!(assemble(&s, jobs).unwrap(), whole);
}

#[test]
fn assembling_with_a_job_missing_names_it() {
    let s = load("fasor/10-flows-high-errors-random.toml", &["replications=2"]);
    let one = run_job(&s, 0, 0).unwrap();
    let e = assemble(&s, [((0, 0), one)]).unwrap_err();
    assert!(matches!(e, SimError::Job(JobError::Missing { replication: 1, .. })), "{e}");
    assert!(e.to_string().ends_with("default, replication 1: missing"), "{e}");
    assert!(e.is_bad_input());
}

#[test]
fn a_job_output_survives_encoding_bit_for_bit() {
    use coapcc_sim::wire::{decode, encode};
    for (rel, sets) in [
        ("fasor/10-flows-high-errors-random.toml", &["replications=1"][..]),
        ("makarem/rtt-trace/row-01.toml", &["replications=1"][..]),
    ] {
        let s = load(rel, sets);
        let out = run_job(&s, 0, 0).unwrap();
        let bytes = encode(&out);
        let back = decode(&bytes).unwrap();
        assert_eq!(encode(&back), bytes);
        assert!(decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(decode(b"garbage").is_err());
    }
}
