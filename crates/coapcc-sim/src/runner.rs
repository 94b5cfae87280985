//! The one runner of every model (network, RTT trace, multihop, CoAP over TCP): every (algorithm, replication)
//! of a scenario in parallel, with results in a fixed order (byte-identical output whatever the
//! thread count); one job alone ([`run_job`], the unit of work of a distributed sweep) and the
//! gathering of job outputs ([`assemble`]).

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::engine::{Streams, run_network_with};
use crate::error::{JobError, RunError, SimError};
use crate::linux_tcp::{TcpRunResult, run_tcp};
use crate::multihop::MultihopResult;
use crate::multihop::{check_configs, run_one};
use crate::trace::{TraceResult, run_trace};
use coapcc_driver::SeriesSink;
use coapcc_driver::metrics::RunResult;
use coapcc_driver::scenario::{Model, Scenario, ScenarioError};

/// What one replication of one algorithm produced.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RunOutput {
    /// A network run.
    Network(Box<RunResult>),
    /// An RTT-trace run.
    Trace(TraceResult),
    /// A multihop run.
    Multihop(Box<MultihopResult>),
    /// A CoAP-over-TCP run.
    Tcp(Box<TcpRunResult>),
}

/// All runs of one algorithm, replication 0 first.
#[derive(Clone, Debug, PartialEq)]
pub struct AlgorithmRuns {
    /// The algorithm name.
    pub algorithm: String,
    /// One output per replication.
    pub runs: Vec<RunOutput>,
}

/// Where the time series of each job goes, for [`run_scenario_streaming`]: called once per
/// (algorithm index, replication) job as it starts; a sink receives that job's long-lived
/// series window by window while it runs (network models), `None` keeps it in the job's
/// output.
pub type SeriesSinks<'a> = dyn Fn(usize, u32) -> Option<Box<dyn SeriesSink>> + Sync + 'a;

/// How many (algorithm, replication) jobs a scenario has.
pub fn job_count(s: &Scenario) -> usize {
    s.algorithm_names().len() * s.file.replications as usize
}

/// Checks what only the simulator knows about a loaded scenario, before anything runs: every
/// algorithm of an RTT-trace scenario must have an RTO estimator the trace model can feed, and
/// every configuration of a multihop scenario must build a run (node ids inside the topology,
/// frames that fit). The error names the scenario and the key.
pub fn check(s: &Scenario) -> Result<(), ScenarioError> {
    match &s.model {
        Model::Multihop(_) => check_configs(s),
        Model::Trace(t) => {
            for (name, config) in &s.algorithms {
                // An empty trace builds the estimator and feeds it nothing.
                run_trace(t, config, &[]).map_err(|e| ScenarioError {
                    file: s.file.name.clone(),
                    line: None,
                    key: Some("algorithms".into()),
                    problem: format!("`{name}`: {e}"),
                })?;
            }
            Ok(())
        }
        Model::Network { .. } | Model::Tcp(_) => Ok(()),
    }
}

/// Runs replication `replication` of the scenario's algorithm number `algorithm` (its index in
/// `s.algorithms`). Every random stream derives from (scenario seed, replication, stream), so
/// a job run alone (in another process, on another machine) gives the same output as within
/// [`run_scenario`]: this is the unit of work of a distributed sweep.
pub fn run_job(s: &Scenario, algorithm: usize, replication: u32) -> Result<RunOutput, SimError> {
    run_job_streaming(s, algorithm, replication, None)
}

/// [`run_job`], a network run's long-lived time series sent to `series` while the run goes
/// instead of kept in its output (whose `series` is then empty; see
/// [`crate::Streams::series`]). Other models keep what they keep (an RTT-trace run's
/// series is bounded by its trace, given in the scenario) and never call the sink.
pub fn run_job_streaming(
    s: &Scenario,
    algorithm: usize,
    replication: u32,
    series: Option<Box<dyn SeriesSink>>,
) -> Result<RunOutput, SimError> {
    let names = s.algorithm_names();
    let name = names.get(algorithm).ok_or_else(|| JobError::NoAlgorithm {
        scenario: s.file.name.clone(),
        algorithm,
        count: names.len(),
    })?;
    if replication >= s.file.replications {
        return Err(
            JobError::NoReplication { scenario: s.file.name.clone(), replication, count: s.file.replications }.into()
        );
    }
    let output = match &s.model {
        Model::Network { network, workload } => {
            let config = coap_config(s, algorithm)?;
            let (seed, coap) = (s.file.seed, &s.file.coap);
            let streams = Streams { series, capture: None };
            run_network_with(network, *workload, coap, config, seed, replication, streams)
                .map(|n| RunOutput::Network(Box::new(n)))
                .map_err(RunError::from)
        }
        Model::Trace(t) => {
            let config = coap_config(s, algorithm)?;
            let trace = t.generate(s.file.seed, replication);
            run_trace(t, config, &trace).map(RunOutput::Trace).map_err(RunError::from)
        }
        Model::Tcp(m) => match m.congestion.get(algorithm) {
            Some((_, kind)) => {
                run_tcp(m, *kind, s.file.seed, replication).map(|r| RunOutput::Tcp(Box::new(r))).map_err(RunError::Tcp)
            }
            None => {
                return Err(JobError::NoAlgorithm {
                    scenario: s.file.name.clone(),
                    algorithm,
                    count: m.congestion.len(),
                }
                .into());
            }
        },
        Model::Multihop(m) => match m.configs.get(algorithm) {
            Some((_, cfg)) => run_one(cfg, s.file.seed, replication)
                .map(|r| RunOutput::Multihop(Box::new(r)))
                .map_err(RunError::Multihop),
            None => {
                return Err(
                    JobError::NoAlgorithm { scenario: s.file.name.clone(), algorithm, count: m.configs.len() }.into()
                );
            }
        },
    };
    output.map_err(|source| SimError::Run { algorithm: name.clone(), replication, source })
}

/// The CoAP algorithm configuration of job `algorithm` of a network or RTT-trace scenario.
fn coap_config(s: &Scenario, algorithm: usize) -> Result<&coapcc_core::AnyConfig, SimError> {
    s.algorithms.get(algorithm).map(|(_, c)| c).ok_or_else(|| {
        JobError::NoAlgorithm { scenario: s.file.name.clone(), algorithm, count: s.algorithms.len() }.into()
    })
}

/// Gathers job outputs (`((algorithm, replication), output)`, in any order, every job once)
/// into [`AlgorithmRuns`] in scenario order, replication 0 first: the order [`run_scenario`]
/// returns. A job outside the scenario, a job given twice or a missing one is an error naming
/// it.
pub fn assemble(
    s: &Scenario,
    outputs: impl IntoIterator<Item = ((usize, u32), RunOutput)>,
) -> Result<Vec<AlgorithmRuns>, SimError> {
    let reps = s.file.replications as usize;
    let mut slots: Vec<Vec<Option<RunOutput>>> =
        s.algorithm_names().iter().map(|_| (0..reps).map(|_| None).collect()).collect();
    let scenario = || s.file.name.clone();
    for ((algorithm, replication), out) in outputs {
        let slot = slots
            .get_mut(algorithm)
            .and_then(|v| v.get_mut(replication as usize))
            .ok_or_else(|| JobError::Outside { scenario: scenario(), algorithm, replication })?;
        if slot.replace(out).is_some() {
            return Err(JobError::Twice { scenario: scenario(), algorithm, replication }.into());
        }
    }
    s.algorithm_names()
        .iter()
        .zip(slots)
        .map(|(name, runs)| {
            let runs = runs
                .into_iter()
                .zip(0..)
                .map(|(o, replication)| {
                    o.ok_or_else(|| JobError::Missing { scenario: scenario(), algorithm: name.clone(), replication })
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(AlgorithmRuns { algorithm: name.clone(), runs })
        })
        .collect()
}

/// Runs the scenario on the current rayon pool (after [`check`]). `progress` is called once
/// per finished job (from worker threads).
pub fn run_scenario(s: &Scenario, progress: &(dyn Fn() + Sync)) -> Result<Vec<AlgorithmRuns>, SimError> {
    run_scenario_until(s, progress, &|| false)
}

/// [`run_scenario`], except that a job not yet started when `stop()` returns true is not
/// started and the run ends with [`SimError::Interrupted`] (a Python caller's Ctrl-C).
///
/// Never inlined: `coapcc bench` counts the instructions spent inside it (callgrind's
/// `--toggle-collect`), so it must stay a function of its own.
#[inline(never)]
pub fn run_scenario_until(
    s: &Scenario,
    progress: &(dyn Fn() + Sync),
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<AlgorithmRuns>, SimError> {
    run_scenario_streaming(s, progress, stop, &|_, _| None)
}

/// [`run_scenario_until`], each job's time series sent to the sink `series` gives it (when it
/// gives one) while the job runs, instead of kept in its output: what a caller writing
/// `series.csv` as the runs go passes, so that memory does not grow with a run's length.
pub fn run_scenario_streaming(
    s: &Scenario,
    progress: &(dyn Fn() + Sync),
    stop: &(dyn Fn() -> bool + Sync),
    series: &SeriesSinks<'_>,
) -> Result<Vec<AlgorithmRuns>, SimError> {
    check(s)?;
    let reps = s.file.replications;
    let jobs: Vec<(usize, u32)> = (0..s.algorithm_names().len()).flat_map(|a| (0..reps).map(move |r| (a, r))).collect();
    let outputs: Vec<Result<RunOutput, SimError>> = jobs
        .par_iter()
        .map(|&(a, r)| {
            if stop() {
                return Err(SimError::Interrupted);
            }
            let out = run_job_streaming(s, a, r, series(a, r));
            progress();
            out
        })
        .collect();
    let mut result: Vec<AlgorithmRuns> =
        s.algorithm_names().iter().map(|n| AlgorithmRuns { algorithm: n.clone(), runs: Vec::new() }).collect();
    for ((a, _), out) in jobs.into_iter().zip(outputs) {
        result[a].runs.push(out?);
    }
    Ok(result)
}
