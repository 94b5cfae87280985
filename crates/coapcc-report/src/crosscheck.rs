//! `coapcc reproduce crosscheck`: simulation against reality. The scenarios of
//! `scenarios/crosscheck/` run with the simulator (many replications) and with the real-time
//! loopback testbed (a few, through the caller's [`Testbed`]); per algorithm, the testbed's median flow
//! completion time, median retransmissions and median unnecessary retransmissions per flow
//! must fall within 15 % of the simulation's, or inside the spread of the simulation's
//! per-replication medians. Not part
//! of `reproduce all` (it runs in real time, and its numbers depend on the host).

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use coapcc_driver::scenario::{Catalogue, Scenario, Setting};
use coapcc_sim::{AlgorithmRuns, RunOutput, run_scenario};

use crate::error::ReportError;
use crate::files::write_atomic;
use crate::progress::Progress;
use crate::realtime::{Testbed, run_all, write_results};
use crate::reproduce::ReproduceOptions;

/// The relative tolerance of the cross-check.
pub const TOLERANCE: f64 = 0.15;

/// The cross-check's scenarios (under the scenarios folder): full run, and `--quick`.
pub const CASES: [&str; 2] = ["crosscheck/4-flows-medium-errors.toml", "crosscheck/200-flows-congested.toml"];
/// The `--quick` case.
pub const QUICK_CASE: &str = "crosscheck/smallest.toml";
/// Testbed replications per algorithm (full run).
pub const TESTBED_REPLICATIONS: u32 = 3;

/// One compared metric of one algorithm.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricComparison {
    /// The algorithm.
    pub algorithm: String,
    /// `fct_median_s`, `retransmissions_median` or `unnecessary_retransmissions_median`
    /// (ground truth in the simulation, from the emulator's packet log in the testbed).
    pub metric: &'static str,
    /// The simulation's value over all its flows.
    pub sim: f64,
    /// The smallest and largest per-replication value of the simulation.
    pub sim_spread: (f64, f64),
    /// The testbed's value over all its flows.
    pub testbed: f64,
}

impl MetricComparison {
    /// (testbed − sim) / sim (0 when both are 0).
    pub fn relative_difference(&self) -> f64 {
        if self.sim == 0.0 && self.testbed == 0.0 { 0.0 } else { (self.testbed - self.sim) / self.sim.abs().max(1e-12) }
    }

    /// Within 15 % ([`CROSSCHECK_TOLERANCE`](crate::CROSSCHECK_TOLERANCE)) or inside the simulation's replication spread.
    pub fn agrees(&self) -> bool {
        self.relative_difference().abs() <= TOLERANCE
            || (self.sim_spread.0 <= self.testbed && self.testbed <= self.sim_spread.1)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// Per-flow values of one metric in one run.
fn per_flow(run: &RunOutput, metric: &str) -> Vec<f64> {
    let RunOutput::Network(r) = run else { return Vec::new() };
    r.flows
        .iter()
        .map(|f| match metric {
            "fct_median_s" => f.fct_s,
            "unnecessary_retransmissions_median" => f64::from(f.unnecessary_retransmissions),
            _ => f64::from(f.retransmissions),
        })
        .collect()
}

/// Compares the testbed's runs with the simulation's, per algorithm and metric.
pub fn compare(sim: &[AlgorithmRuns], testbed: &[AlgorithmRuns]) -> Vec<MetricComparison> {
    let mut out = Vec::new();
    for t in testbed {
        let Some(s) = sim.iter().find(|s| s.algorithm == t.algorithm) else { continue };
        for metric in ["fct_median_s", "retransmissions_median", "unnecessary_retransmissions_median"] {
            let all = |runs: &[RunOutput]| median(runs.iter().flat_map(|r| per_flow(r, metric)).collect());
            let reps: Vec<f64> = s.runs.iter().map(|r| median(per_flow(r, metric))).collect();
            let lo = reps.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = reps.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            out.push(MetricComparison {
                algorithm: t.algorithm.clone(),
                metric,
                sim: all(&s.runs),
                sim_spread: (lo, hi),
                testbed: all(&t.runs),
            });
        }
    }
    out
}

/// Runs one case (`file` in `scenarios`) both ways: the simulation with the scenario's replications (or
/// `sim_replications`), the testbed with `testbed_replications` through `testbed`. Writes each
/// side's CSV files under `dir/sim/` and `dir/testbed/`.
pub fn run_case(
    scenarios: &Catalogue,
    file: &Path,
    sim_replications: Option<u32>,
    testbed_replications: u32,
    dir: &Path,
    testbed: &mut dyn Testbed,
) -> Result<(Scenario, Vec<MetricComparison>), ReportError> {
    let sim_set: Vec<Setting> = sim_replications.map(Setting::replications).into_iter().collect();
    let s = scenarios.load(file, &sim_set)?;
    let sim = run_scenario(&s, &|| {})?;
    let t = scenarios.load(file, &[Setting::replications(testbed_replications)])?;
    let real = run_all(&t, testbed)?;
    for (side, runs, sc) in [("sim", &sim, &s), ("testbed", &real, &t)] {
        write_results(&dir.join(side), sc, runs)?;
    }
    let comparisons = compare(&sim, &real);
    Ok((s, comparisons))
}

const WHY: &str = "\
What differs and why:
- Timer granularity and scheduling: the testbed's clock is real. tokio's timers fire up to
  about 1 ms late (the emulator polls the clock for the last 2 ms before a departure, so its
  sends are within tens of µs at the median, a few ms at p99 on a loaded host); the
  endpoints' retransmission timers and the flows' start offsets fire late by the same
  scheduling delays, which the simulator's instants never are.
- Real work takes time: encoding, decoding and the loopback sockets add tens of µs per
  datagram, and a host busy with other processes delays the single-threaded testbed.
- Randomness: both sides draw link trajectories, start offsets and dithering from the same
  per-replication streams, but a different instant changes which draws meet which packets, so
  runs diverge after the first difference: compare distributions, not runs.
- Unnecessary retransmissions are ground truth in the simulator and derived from the
  emulator's packet log in the testbed (FIFO matching of copies and ACKs,
  docs/emulator-and-testbed.md).
";

/// Runs `coapcc reproduce crosscheck` (the options' experiment, jobs and list are not used):
/// the report goes to the options' folder and its text to `out`; each case is announced
/// through `progress`.
pub fn run_crosscheck(
    opts: &ReproduceOptions,
    testbed: &mut dyn Testbed,
    out: &mut dyn Write,
    progress: &dyn Progress,
) -> Result<(), ReportError> {
    let dir = opts.out_dir();
    let cases: Vec<&str> = if opts.quick { vec![QUICK_CASE] } else { CASES.to_vec() };
    let testbed_reps = if opts.quick { 2 } else { TESTBED_REPLICATIONS };
    let mut md = String::from("# coapcc reproduce crosscheck: simulation against the loopback testbed\n\n");
    let mut csv = String::from(
        "case,algorithm,metric,sim,sim_replication_min,sim_replication_max,testbed,relative_difference,agrees\n",
    );
    let mut all_agree = true;
    for case in cases {
        let name = case.trim_end_matches(".toml");
        progress.note(&format!(
            "crosscheck: {name} (simulation, then {testbed_reps} real-time replications per algorithm)"
        ));
        let (s, comparisons) = run_case(
            &opts.scenarios,
            Path::new(case),
            opts.replications,
            testbed_reps,
            &dir.join("data").join(name),
            testbed,
        )?;
        let _ = writeln!(
            md,
            "## {name}\n\n{}\n\nSimulation: {} replications; testbed: {testbed_reps} (seed {}).\n",
            s.file.description, s.file.replications, s.file.seed
        );
        md.push_str("| algorithm | metric | simulation | sim. replication spread | testbed | difference | agrees |\n");
        md.push_str("|---|---|---|---|---|---|---|\n");
        for c in &comparisons {
            all_agree &= c.agrees();
            let _ = writeln!(
                md,
                "| {} | {} | {:.3} | {:.3} – {:.3} | {:.3} | {:+.1} % | {} |",
                c.algorithm,
                c.metric,
                c.sim,
                c.sim_spread.0,
                c.sim_spread.1,
                c.testbed,
                100.0 * c.relative_difference(),
                if c.agrees() { "yes" } else { "no" }
            );
            let _ = writeln!(
                csv,
                "{name},{},{},{},{},{},{},{},{}",
                c.algorithm,
                c.metric,
                c.sim,
                c.sim_spread.0,
                c.sim_spread.1,
                c.testbed,
                c.relative_difference(),
                c.agrees()
            );
        }
        md.push('\n');
    }
    md.push_str(WHY);
    write_atomic(&dir.join("crosscheck.md"), md.as_bytes())?;
    write_atomic(&dir.join("crosscheck.csv"), csv.as_bytes())?;
    if let Some(r) = &opts.run {
        crate::run_record::write_run_json(&dir, r)?;
    }
    out.write_all(md.as_bytes())?;
    writeln!(out, "\nreport: {}", dir.join("crosscheck.md").display())?;
    if !all_agree {
        writeln!(out, "some testbed figures are outside the tolerance (see the table)")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_agrees_within_15_percent_or_inside_the_spread() {
        let c = |sim, spread, testbed| MetricComparison {
            algorithm: "a".into(),
            metric: "m",
            sim,
            sim_spread: spread,
            testbed,
        };
        assert!(c(10.0, (9.0, 11.0), 11.4).agrees());
        assert!(!c(10.0, (9.0, 11.0), 11.6).agrees());
        assert!(c(10.0, (8.0, 12.0), 11.6).agrees());
        assert!(c(0.0, (0.0, 0.0), 0.0).agrees());
        assert!(!c(0.0, (0.0, 0.0), 1.0).agrees());
    }
}
