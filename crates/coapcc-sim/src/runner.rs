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

/// Runs replication `replication` of the scenario's algorithm number `algorithm` (its index in
/// `s.algorithms`). Every random stream derives from (scenario seed, replication, stream), so
/// a job run alone (in another process, on another machine) gives the same output as within
/// [`run_scenario`]: this is the unit of work of a distributed sweep.
pub fn run_job(s: &Scenario, algorithm: usize, replication: u32) -> Result<RunOutput, String> {
    let (name, config) = s.algorithms.get(algorithm).ok_or_else(|| {
        format!("{}: no algorithm number {algorithm} (the scenario has {})", s.file.name, s.algorithms.len())
    })?;
    match &s.model {
        Model::Network { network, workload } => {
            run_network(network, *workload, &s.file.coap, config, s.file.seed, replication)
                .map(|n| RunOutput::Network(Box::new(n)))
                .map_err(|e| e.to_string())
        }
        Model::Trace(t) => {
            let trace = t.generate(s.file.seed, replication);
            run_trace(t, config, &trace).map(RunOutput::Trace)
        }
        Model::Multihop(_) => Err("a multihop scenario runs through `multihop::scenario::run`".to_string()),
    }
    .map_err(|e| format!("{name}, replication {replication}: {e}"))
}

/// Gathers job outputs (`((algorithm, replication), output)`, in any order) into
/// [`AlgorithmRuns`] in scenario order, replication 0 first: the order [`run_scenario`]
/// returns. A missing or duplicated job is an error naming it.
pub fn assemble(
    s: &Scenario,
    outputs: impl IntoIterator<Item = ((usize, u32), RunOutput)>,
) -> Result<Vec<AlgorithmRuns>, String> {
    Ok(by_algorithm(s, outputs)?.into_iter().map(|(algorithm, runs)| AlgorithmRuns { algorithm, runs }).collect())
}

/// Sorts job results of any model (`((algorithm, replication), result)`, in any order, every
/// job once) into `(algorithm name, results by replication)` in scenario order. A job outside
/// the scenario, a job given twice or a missing one is an error naming it.
pub fn by_algorithm<T>(
    s: &Scenario,
    outputs: impl IntoIterator<Item = ((usize, u32), T)>,
) -> Result<Vec<(String, Vec<T>)>, String> {
    let reps = s.file.replications as usize;
    let mut slots: Vec<Vec<Option<T>>> = s.algorithms.iter().map(|_| (0..reps).map(|_| None).collect()).collect();
    for ((a, r), out) in outputs {
        let slot = slots
            .get_mut(a)
            .and_then(|v| v.get_mut(r as usize))
            .ok_or_else(|| format!("{}: no job (algorithm {a}, replication {r})", s.file.name))?;
        if slot.replace(out).is_some() {
            return Err(format!("{}: job (algorithm {a}, replication {r}) given twice", s.file.name));
        }
    }
    s.algorithms
        .iter()
        .zip(slots)
        .map(|((name, _), runs)| {
            let runs = runs
                .into_iter()
                .enumerate()
                .map(|(r, o)| o.ok_or_else(|| format!("{}: {name}, replication {r}: missing", s.file.name)))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((name.clone(), runs))
        })
        .collect()
}

/// Runs the scenario on the current rayon pool. `progress` is called once per finished job
/// (from worker threads).
///
/// A multihop scenario is refused: it runs through [`crate::multihop::scenario::run`].
pub fn run_scenario(s: &Scenario, progress: &(dyn Fn() + Sync)) -> Result<Vec<AlgorithmRuns>, String> {
    run_scenario_until(s, progress, &|| false)
}

/// [`run_scenario`], except that a job not yet started when `stop()` returns true is not
/// started and the run ends with the error `interrupted` (a Python caller's Ctrl-C).
pub fn run_scenario_until(
    s: &Scenario,
    progress: &(dyn Fn() + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<AlgorithmRuns>, String> {
    if let Model::Multihop(_) = &s.model {
        return Err(format!("{}: a multihop scenario runs through `multihop::scenario::run`", s.file.name));
    }
    let reps = s.file.replications;
    let jobs: Vec<(usize, u32)> = (0..s.algorithms.len()).flat_map(|a| (0..reps).map(move |r| (a, r))).collect();
    let outputs: Vec<Result<RunOutput, String>> = jobs
        .par_iter()
        .map(|&(a, r)| {
            if stop() {
                return Err("interrupted".to_string());
            }
            let out = run_job(s, a, r);
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
