//! Running scenarios from Python: every (scenario, algorithm, replication) job on a rayon pool
//! with the GIL released, Ctrl-C checked while they run (a job not yet started is not started);
//! one job alone (a sweep task on a Dask worker) with its output as bytes; and the results of
//! a run as Arrow tables, the CLI's files and `sweep.csv` rows. Every model (NB-IoT-like, RTT
//! trace, multihop) runs through the simulator's one runner and gives one [`Output`].

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use coapcc_driver::scenario::{Model, Scenario};
use coapcc_sim::budget;
use coapcc_sim::results::{
    Summary, flows_columns, nodes_columns, result_files, runs_columns, samples_columns, series_columns, summarise,
    summary_columns, summary_table, transfers_columns,
};
use coapcc_sim::sweep::store::{self, Piece};
use coapcc_sim::sweep::{sweep_csv_header, sweep_csv_rows};
use coapcc_sim::{AlgorithmRuns, RunOutput};
use coapcc_sim::{SimError, wire};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;

use crate::arrow::Table;
use crate::errors;
use crate::scenario::Resolved;

/// The results of one scenario, of any model.
#[pyclass(module = "coapcc._coapcc", frozen)]
pub struct Output {
    scenario: Scenario,
    runs: Vec<AlgorithmRuns>,
    summaries: Vec<Summary>,
}

impl Output {
    fn new(scenario: Scenario, runs: Vec<AlgorithmRuns>) -> Output {
        let summaries = summarise(&scenario, &runs);
        Output { scenario, runs, summaries }
    }

    fn is_trace(&self) -> bool {
        matches!(self.scenario.model, Model::Trace(_))
    }
}

#[pymethods]
impl Output {
    /// `flows.csv` as a table (None for an RTT-trace scenario, which has no flows): network
    /// flows, or multihop CoAP flows or TCP motes.
    fn flows(&self) -> PyResult<Option<Table>> {
        (!self.is_trace()).then(|| Table::new(&flows_columns(&self.runs))).transpose()
    }

    /// `runs.csv` as a table.
    fn runs(&self) -> PyResult<Table> {
        Table::new(&runs_columns(&self.scenario, &self.runs))
    }

    /// `summary.csv` as a table.
    fn summary(&self) -> PyResult<Table> {
        Table::new(&summary_columns(&self.summaries))
    }

    /// `series.csv` as a table (None when the scenario has no series).
    fn series(&self) -> PyResult<Option<Table>> {
        series_columns(&self.runs).map(|c| Table::new(&c)).transpose()
    }

    /// `transfers.csv` as a table (None unless the flows did block-wise transfers).
    fn transfers(&self) -> PyResult<Option<Table>> {
        transfers_columns(&self.runs).map(|c| Table::new(&c)).transpose()
    }

    /// `samples.csv` as a table (None unless a network scenario).
    fn samples(&self) -> PyResult<Option<Table>> {
        matches!(self.scenario.model, Model::Network { .. })
            .then(|| Table::new(&samples_columns(&self.runs)))
            .transpose()
    }

    /// `nodes.csv` as a table (None unless a multihop scenario).
    fn nodes(&self) -> PyResult<Option<Table>> {
        nodes_columns(&self.scenario, &self.runs).map(|c| Table::new(&c)).transpose()
    }

    /// The files `coapcc sim` writes for this run, `(name, text)` in the order it writes them
    /// (`samples.csv` only when `samples`, for a network scenario).
    #[pyo3(signature = (samples = false))]
    fn files(&self, samples: bool) -> Vec<(String, String)> {
        result_files(&self.scenario, &self.runs, &self.summaries, samples)
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect()
    }

    /// The summary table `coapcc sim` prints.
    fn summary_text(&self) -> String {
        summary_table(&self.summaries)
    }

    /// This run's rows of `sweep.csv`, for the point `(key, text)` pairs.
    fn sweep_rows(&self, point: Vec<(String, String)>) -> PyResult<String> {
        Ok(sweep_csv_rows(&crate::scenario::point(&point)?, &self.summaries))
    }

    /// The header line of `sweep.csv` for the point `(key, text)` pairs.
    fn sweep_header(&self, point: Vec<(String, String)>) -> PyResult<String> {
        Ok(sweep_csv_header(&crate::scenario::point(&point)?, &self.summaries))
    }

    /// The resolved scenario of the run.
    fn scenario_toml(&self) -> String {
        self.scenario.to_toml()
    }

    /// This run as a finished piece (`coapcc_sim::sweep::store`): the bytes `coapcc sim
    /// --sweep` keeps in a point's folder, taken back by [`kept_piece`] (or the CLI) for the
    /// same scenario and coapcc version.
    fn piece<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &store::encode(&self.scenario, &Piece::new(&self.runs, Vec::new())))
    }
}

/// The run kept in a finished piece's bytes, if they are whole and were written for
/// `scenario` by this coapcc version (else None: the point runs again).
#[pyfunction]
pub fn kept_piece(scenario: PyRef<'_, Resolved>, piece: &[u8]) -> Option<Output> {
    let piece = store::decode(&scenario.scenario, piece)?;
    Some(Output::new(scenario.scenario.clone(), piece.algorithm_runs()))
}

/// Checks a scenario as `coapcc sim` does first ([`coapcc_sim::check`]): a [`errors::ScenarioError`]
/// with the CLI's message (a multihop scenario's naming the file as it was given).
fn check_resolved(r: &Resolved) -> PyResult<()> {
    coapcc_sim::check(&r.scenario).map_err(|mut e| {
        if let Model::Multihop(_) = r.scenario.model {
            e.file = r.file.clone();
        }
        errors::scenario(e)
    })
}

/// The result object of scenario `s` from its jobs' outputs, in any order.
fn result_of(s: Scenario, outputs: Vec<((usize, u32), RunOutput)>) -> PyResult<Output> {
    let runs = coapcc_sim::assemble(&s, outputs).map_err(errors::sim)?;
    Ok(Output::new(s, runs))
}

/// A rayon pool for `runs` jobs on `jobs` threads (default: one per core), as the CLI's
/// ([`coapcc_report::thread_pool`]): never more threads than jobs; `jobs` outside 1
/// to 1024 is a `ValueError`.
fn pool(jobs: Option<usize>, runs: usize) -> PyResult<rayon::ThreadPool> {
    coapcc_report::thread_pool(jobs, runs).map_err(|e| match e {
        coapcc_report::ReportError::Options(m) => PyValueError::new_err(m),
        e => PyRuntimeError::new_err(format!("cannot start the worker threads: {e}")),
    })
}

/// Runs every job of every scenario on `jobs` threads (default: one per core; never more than
/// jobs; `jobs` from 1 to 1024, else a `ValueError`), without the GIL;
/// one [`Output`] per scenario, in order, identical whatever `jobs`. Ctrl-C (any pending
/// Python signal) stops the run: jobs not yet started are not started, and the signal's
/// exception (`KeyboardInterrupt`) is raised once the running ones end. A scenario that does
/// not check is a `ScenarioError`, one the memory budget refuses a `BudgetError`, a failed
/// run a `RunError`.
#[pyfunction]
#[pyo3(signature = (scenarios, jobs = None))]
pub fn simulate_many(
    py: Python<'_>,
    scenarios: Vec<PyRef<'_, Resolved>>,
    jobs: Option<usize>,
) -> PyResult<Vec<Output>> {
    for r in &scenarios {
        check_resolved(r)?;
    }
    let scenarios: Vec<Scenario> = scenarios.iter().map(|r| r.scenario.clone()).collect();
    let all: Vec<(usize, usize, u32)> = scenarios
        .iter()
        .enumerate()
        .flat_map(|(i, s)| (0..s.algorithms.len()).flat_map(move |a| (0..s.file.replications).map(move |r| (i, a, r))))
        .collect();
    let pool = pool(jobs, all.len())?;
    for s in &scenarios {
        budget::admit(s, pool.current_num_threads(), budget::available_bytes()).map_err(|e| errors::sim(e.into()))?;
    }
    let stop = AtomicBool::new(false);
    let outputs = std::thread::scope(|scope| -> PyResult<Vec<Result<RunOutput, SimError>>> {
        let work = scope.spawn(|| {
            pool.install(|| {
                all.par_iter()
                    .map(|&(i, a, r)| {
                        if stop.load(Ordering::Relaxed) {
                            return Err(SimError::Interrupted);
                        }
                        coapcc_sim::run_job(&scenarios[i], a, r)
                    })
                    .collect::<Vec<_>>()
            })
        });
        while !work.is_finished() {
            py.detach(|| std::thread::sleep(Duration::from_millis(20)));
            if let Err(e) = py.check_signals() {
                stop.store(true, Ordering::Relaxed);
                let _ = py.detach(|| work.join());
                return Err(e);
            }
        }
        work.join().map_err(|_| PyRuntimeError::new_err("a simulation thread panicked"))
    })?;
    let mut per: Vec<Vec<((usize, u32), RunOutput)>> = scenarios.iter().map(|_| Vec::new()).collect();
    for (&(i, a, r), out) in all.iter().zip(outputs) {
        per[i].push(((a, r), out.map_err(errors::sim)?));
    }
    scenarios.into_iter().zip(per).map(|(s, outs)| result_of(s, outs)).collect()
}

/// Checks `scenario` as `coapcc sim` does before running anything (what only the simulator
/// knows, such as a multihop scenario's built configurations): a `ScenarioError` with the
/// CLI's message. A sweep on a cluster checks every point with it before submitting a task.
#[pyfunction]
pub fn check(scenario: PyRef<'_, Resolved>) -> PyResult<()> {
    check_resolved(&scenario)
}

/// Runs one job (algorithm number `algorithm`, replication `replication`) of `scenario`
/// without the GIL: its output as bytes ([`wire::encode`], of any model), the same wherever
/// it runs.
#[pyfunction]
pub fn run_job<'py>(
    py: Python<'py>,
    scenario: PyRef<'py, Resolved>,
    algorithm: usize,
    replication: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let s = scenario.scenario.clone();
    let out = py.detach(move || coapcc_sim::run_job(&s, algorithm, replication)).map_err(errors::sim)?;
    Ok(PyBytes::new(py, &wire::encode(&out)))
}

/// The results of `scenario` from its jobs' outputs (`(algorithm, replication, bytes)`, in any
/// order, every job once): the same [`Output`] as running it whole. Bytes that are not a job
/// output, or outputs that do not fit the scenario, are a `ValueError`.
#[pyfunction]
pub fn gather(scenario: PyRef<'_, Resolved>, outputs: Vec<(usize, u32, Bound<'_, PyBytes>)>) -> PyResult<Output> {
    let outs = outputs
        .iter()
        .map(|(a, r, b)| Ok(((*a, *r), wire::decode(b.as_bytes()).map_err(|e| errors::sim(e.into()))?)))
        .collect::<PyResult<Vec<_>>>()?;
    result_of(scenario.scenario.clone(), outs)
}
