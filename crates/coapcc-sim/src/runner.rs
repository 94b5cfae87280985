//! Runs every (algorithm, replication) of a scenario, in parallel, with results in a fixed
//! order: byte-identical output whatever the thread count.

use rayon::prelude::*;

use crate::engine::run_network;
use crate::metrics::RunResult;
use crate::scenario::{Model, Scenario};
use crate::trace::{TraceResult, run_trace};

/// What one replication of one algorithm produced.
#[derive(Clone, Debug, PartialEq)]
pub enum RunOutput {
    /// A network run.
    Network(Box<RunResult>),
    /// An RTT-trace run.
    Trace(TraceResult),
}

/// All runs of one algorithm, replication 0 first.
#[derive(Clone, Debug, PartialEq)]
pub struct AlgorithmRuns {
    /// The algorithm name.
    pub algorithm: String,
    /// One output per replication.
    pub runs: Vec<RunOutput>,
}

/// How many (algorithm, replication) jobs a scenario has.
pub fn job_count(s: &Scenario) -> usize {
    s.algorithms.len() * s.file.replications as usize
}

/// Checks what only the simulator knows about a loaded scenario, before anything runs: every
/// algorithm of an RTT-trace scenario must have an RTO estimator the trace model can feed.
/// The error names the file's scenario and the key.
pub fn check(s: &Scenario) -> Result<(), String> {
    if let Model::Multihop(_) = &s.model {
        crate::multihop::scenario::configs(s).map_err(|e| e.to_string())?;
    }
    if let Model::Trace(t) = &s.model {
        for (name, config) in &s.algorithms {
            // An empty trace builds the estimator and feeds it nothing.
            run_trace(t, config, &[]).map_err(|e| format!("{}: key `algorithms`: `{name}`: {e}", s.file.name))?;
        }
    }
    Ok(())
}

/// Runs the scenario on the current rayon pool. `progress` is called once per finished job
/// (from worker threads).
///
/// A multihop scenario is refused: it runs through [`crate::multihop::scenario::run`].
pub fn run_scenario(s: &Scenario, progress: &(dyn Fn() + Sync)) -> Result<Vec<AlgorithmRuns>, String> {
    if let Model::Multihop(_) = &s.model {
        return Err(format!("{}: a multihop scenario runs through `multihop::scenario::run`", s.file.name));
    }
    let reps = s.file.replications;
    let jobs: Vec<(usize, u32)> = (0..s.algorithms.len()).flat_map(|a| (0..reps).map(move |r| (a, r))).collect();
    let outputs: Vec<Result<RunOutput, String>> = jobs
        .par_iter()
        .map(|&(a, r)| {
            let (name, config) = &s.algorithms[a];
            let out = match &s.model {
                Model::Network { network, workload } => {
                    run_network(network, *workload, &s.file.coap, config, s.file.seed, r)
                        .map(|n| RunOutput::Network(Box::new(n)))
                }
                Model::Trace(t) => {
                    let trace = t.generate(s.file.seed, r);
                    run_trace(t, config, &trace).map(RunOutput::Trace)
                }
                Model::Multihop(_) => Err("refused above".to_string()),
            }
            .map_err(|e| format!("{name}, replication {r}: {e}"));
            progress();
            out
        })
        .collect();
    let mut result: Vec<AlgorithmRuns> =
        s.algorithms.iter().map(|(n, _)| AlgorithmRuns { algorithm: n.clone(), runs: Vec::new() }).collect();
    for ((a, _), out) in jobs.into_iter().zip(outputs) {
        result[a].runs.push(out?);
    }
    Ok(result)
}
