//! Same scenario and seed → byte-identical results, whatever the thread count; another seed
//! → different results. Plus snapshot tests of small summary tables (reviewable as text).

use std::path::{Path, PathBuf};

use coapcc_driver::scenario::{self, Scenario, Setting};
use coapcc_sim::results::{flows_csv, runs_csv, summarise, summary_table};
use coapcc_sim::run_scenario;

fn scenario_path(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(rel)
}

fn load(rel: &str, sets: &[&str]) -> Scenario {
    let sets: Vec<Setting> = sets.iter().map(|s| s.parse().unwrap()).collect();
    scenario::load(&scenario_path(rel), &sets).unwrap()
}

fn flows_with(threads: usize, s: &Scenario) -> String {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    let runs = pool.install(|| run_scenario(s, &|| {})).unwrap();
    flows_csv(&runs)
}

#[test]
fn the_same_seed_gives_byte_identical_flows_with_one_or_two_threads() {
    // Link errors and random flows exercise every random stream.
    let s = load("fasor/10-flows-high-errors-random.toml", &["replications=4"]);
    let a = flows_with(1, &s);
    let b = flows_with(2, &s);
    let c = flows_with(2, &s);
    assert!(a.lines().count() > 100);
    assert_eq!(a, b);
    assert_eq!(b, c);
}

#[test]
fn a_different_seed_changes_the_flows() {
    let s1 = load("fasor/10-flows-high-errors-random.toml", &["replications=2"]);
    let s2 = load("fasor/10-flows-high-errors-random.toml", &["replications=2", "seed=2"]);
    assert_ne!(flows_with(2, &s1), flows_with(2, &s2));
}

#[test]
fn a_multihop_scenario_is_deterministic_too_and_its_replications_differ() {
    let s = load("lim/e1-nullrdc-4x4.toml", &["replications=2", "algorithms=[\"uip\"]", "multihop.duration_ms=60000"]);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let a = one.install(|| run_scenario(&s, &|| {})).unwrap();
    let b = two.install(|| run_scenario(&s, &|| {})).unwrap();
    assert_eq!(a, b);
    let digest = |r: &coapcc_sim::RunOutput| match r {
        coapcc_sim::RunOutput::Multihop(m) => m.trace_digest,
        other => panic!("not a multihop output: {other:?}"),
    };
    assert_ne!(digest(&a[0].runs[0]), digest(&a[0].runs[1]), "each replication has its own seed");
}

#[test]
fn a_trace_scenario_is_deterministic_too() {
    let s = load("makarem/rtt-trace/row-08.toml", &["replications=3", "samples=5000"]);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let a = runs_csv(&s, &pool.install(|| run_scenario(&s, &|| {})).unwrap());
    let pool1 = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let b = runs_csv(&s, &pool1.install(|| run_scenario(&s, &|| {})).unwrap());
    assert_eq!(a, b);
}

fn table(rel: &str, sets: &[&str]) -> String {
    let s = load(rel, sets);
    let runs = run_scenario(&s, &|| {}).unwrap();
    summary_table(&summarise(&s, &runs))
}

#[test]
fn snapshot_of_ten_flows_with_high_link_errors() {
    insta::assert_snapshot!(table("fasor/10-flows-high-errors-continuous.toml", &["replications=3"]));
}

#[test]
fn snapshot_of_the_infinite_buffer_case_with_150_flows() {
    insta::assert_snapshot!(table("fasor/400-flows-infinite-buffer-continuous.toml", &["replications=2", "flows=150"]));
}

#[test]
fn snapshot_of_an_rtt_trace_row() {
    insta::assert_snapshot!(table("makarem/rtt-trace/row-05.toml", &["replications=2", "samples=20000"]));
}

#[test]
fn snapshot_of_residual_bandwidth() {
    insta::assert_snapshot!(table("makarem/residual-instantaneous.toml", &["replications=1", "duration_ms=1800000"]));
}
