//! Scenarios run in real time (`coapcc testbed`, and the testbed side of the cross-check):
//! which scenarios the testbed takes, how long one would take, running every replication
//! through a [`Testbed`] the caller supplies (this crate has no sockets), and the result files
//! (the same writers as `coapcc sim`).

use std::io::Write;
use std::path::Path;

use coapcc_core::AnyConfig;
use coapcc_driver::metrics::RunResult;
use coapcc_driver::scenario::{
    self, CoapConfig, Model, NetworkConfig, Scenario, ScenarioError, Setting, WorkloadConfig,
};
use coapcc_sim::results::{flows_csv, runs_csv, summarise, summary_csv, summary_table};
use coapcc_sim::run_network;
use coapcc_sim::{AlgorithmRuns, RunOutput};

use crate::error::{ReportError, network_run};
use crate::files::write_atomic;

/// The largest number of flows the testbed runs (one socket each, plus one per client at
/// the emulator).
pub const MAX_FLOWS: u32 = 500;

/// One (algorithm, replication) of a network scenario, as the testbed runs it.
#[derive(Clone, Copy, Debug)]
pub struct Replication<'a> {
    /// The scenario's name (`crosscheck/smallest`).
    pub scenario: &'a str,
    /// The algorithm's name in the scenario.
    pub algorithm_name: &'a str,
    /// Its configuration.
    pub algorithm: &'a AnyConfig,
    /// The scenario's `[network]`.
    pub network: &'a NetworkConfig,
    /// The scenario's `[workload]`.
    pub workload: &'a WorkloadConfig,
    /// The scenario's `[coap]`.
    pub coap: &'a CoapConfig,
    /// The scenario's seed.
    pub seed: u64,
    /// The replication (selects every random stream).
    pub replication: u32,
}

/// Runs one replication in real time and returns the record the simulator would make of it
/// (`coapcc-udp`'s testbed, supplied by the caller).
pub trait Testbed {
    /// Runs `r`.
    fn run(&mut self, r: &Replication<'_>) -> Result<RunResult, Box<dyn std::error::Error + Send + Sync>>;
}

impl<F> Testbed for F
where
    F: FnMut(&Replication<'_>) -> Result<RunResult, Box<dyn std::error::Error + Send + Sync>>,
{
    fn run(&mut self, r: &Replication<'_>) -> Result<RunResult, Box<dyn std::error::Error + Send + Sync>> {
        self(r)
    }
}

/// Loads scenario `path` with `settings` for the testbed: it must be a network model of at
/// most [`MAX_FLOWS`] flows (the error names the key).
pub fn load(path: &Path, settings: &[Setting]) -> Result<Scenario, ReportError> {
    let s = scenario::load(path, settings)?;
    let refused = |key: &str, problem: String| {
        Err(ReportError::Scenario(ScenarioError {
            file: s.file.name.clone(),
            line: None,
            key: Some(key.into()),
            problem,
        }))
    };
    match &s.model {
        Model::Network { workload, .. } if workload.flows > MAX_FLOWS => refused(
            "workload.flows",
            format!("{} flows is more than the testbed runs ({MAX_FLOWS}); use `coapcc sim`", workload.flows),
        ),
        Model::Network { .. } => Ok(s),
        Model::Trace(_) => {
            refused("trace", "an RTT-trace scenario has no packets to send; the testbed runs network scenarios".into())
        }
        Model::Multihop(_) => refused(
            "multihop",
            "a multihop mesh is not emulated on loopback; the testbed runs network scenarios (use `coapcc sim`)".into(),
        ),
    }
}

/// The real time the scenario would take, seconds: replication 0 of each algorithm simulated
/// (its duration from the first start, plus the start window), times the replications.
pub fn estimate_s(s: &Scenario) -> Result<f64, ReportError> {
    let Model::Network { network, workload } = &s.model else { return Ok(0.0) };
    let mut total = 0.0;
    for (name, config) in &s.algorithms {
        let r = run_network(network, *workload, &s.file.coap, config, s.file.seed, 0).map_err(network_run(name, 0))?;
        let one = r.run.duration_s + workload.start_window.as_secs_f64() + 0.5;
        total += one * f64::from(s.file.replications);
    }
    Ok(total)
}

/// Refuses scenario `s` when its estimated real time ([`estimate_s`], returned otherwise)
/// exceeds `max_wall_s` seconds; the error says by how much and what to lower.
pub fn admit(s: &Scenario, max_wall_s: u64) -> Result<f64, ReportError> {
    let estimate = estimate_s(s)?;
    if estimate > max_wall_s as f64 {
        return Err(ReportError::Options(format!(
            "{}: would take about {:.0} s ({:.1} min) of real time, more than --max-wall-s {}; lower `replications`, `flows` or `exchanges_per_flow`, or raise the limit",
            s.file.name,
            estimate,
            estimate / 60.0,
            max_wall_s
        )));
    }
    Ok(estimate)
}

/// Runs every (algorithm, replication) of `s` through `testbed`, one after the other.
pub fn run_all(s: &Scenario, testbed: &mut dyn Testbed) -> Result<Vec<AlgorithmRuns>, ReportError> {
    let Model::Network { network, workload } = &s.model else { return Ok(Vec::new()) };
    let mut all = Vec::new();
    for (name, config) in &s.algorithms {
        let mut runs = Vec::new();
        for r in 0..s.file.replications {
            let spec = Replication {
                scenario: &s.file.name,
                algorithm_name: name,
                algorithm: config,
                network,
                workload,
                coap: &s.file.coap,
                seed: s.file.seed,
                replication: r,
            };
            let result = testbed.run(&spec).map_err(|e| ReportError::Testbed {
                algorithm: name.clone(),
                replication: r,
                problem: e.to_string(),
            })?;
            runs.push(RunOutput::Network(Box::new(result)));
        }
        all.push(AlgorithmRuns { algorithm: name.clone(), runs });
    }
    Ok(all)
}

/// Writes the result files of `results` (runs of scenario `s`) into `dir`: `flows.csv`,
/// `runs.csv`, `summary.csv` and `scenario.toml`, as `coapcc sim` writes them.
pub fn write_results(dir: &Path, s: &Scenario, results: &[AlgorithmRuns]) -> Result<(), ReportError> {
    write_atomic(&dir.join("flows.csv"), flows_csv(results).as_bytes())?;
    write_atomic(&dir.join("runs.csv"), runs_csv(s, results).as_bytes())?;
    write_atomic(&dir.join("summary.csv"), summary_csv(&summarise(s, results)).as_bytes())?;
    write_atomic(&dir.join("scenario.toml"), s.to_toml().as_bytes())
}

/// `coapcc testbed`'s results: the files of [`write_results`], `emulator-timing.txt` (one line
/// per replication, `timing`), and the summary table printed to `out`.
pub fn report(
    dir: &Path,
    s: &Scenario,
    results: &[AlgorithmRuns],
    timing: &[String],
    out: &mut dyn Write,
) -> Result<(), ReportError> {
    write_results(dir, s, results)?;
    let timing_text: String = timing.iter().map(|l| format!("{l}\n")).collect();
    write_atomic(&dir.join("emulator-timing.txt"), timing_text.as_bytes())?;
    writeln!(
        out,
        "== {} on the loopback testbed (seed {}, {} replications)",
        s.file.name, s.file.seed, s.file.replications
    )?;
    out.write_all(summary_table(&summarise(s, results)).as_bytes())?;
    writeln!(out, "results: {}", dir.display())?;
    Ok(())
}
