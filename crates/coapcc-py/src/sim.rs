//! Running scenarios from Python: every (scenario, algorithm, replication) job on a rayon pool
//! with the GIL released, Ctrl-C checked while they run (a job not yet started is not started);
//! one job alone (a sweep task on a Dask worker) with its output as bytes; and the results of
//! a run as Arrow tables, the CLI's files and `sweep.csv` rows.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use coapcc_sim::budget;
use coapcc_sim::results::{
    Summary, flows_columns, result_files, runs_columns, samples_columns, series_columns, summarise, summary_columns,
    summary_table,
};
use coapcc_sim::runner::{self, AlgorithmRuns, RunOutput};
use coapcc_sim::scenario::{Model, Scenario};
use coapcc_sim::sweep::sweep_csv_rows;
use coapcc_sim::wire;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rayon::prelude::*;

use crate::arrow::Table;
use crate::scenario::Resolved;

/// The results of one scenario.
#[pyclass(module = "coapcc._coapcc", frozen)]
pub struct Output {
    scenario: Scenario,
    runs: Vec<AlgorithmRuns>,
    summaries: Vec<Summary>,
}

impl Output {
    fn new(scenario: Scenario, runs: Vec<AlgorithmRuns>) -> Output {
        let summaries = summarise(&runs);
        Output { scenario, runs, summaries }
    }

    fn is_trace(&self) -> bool {
        matches!(self.scenario.model, Model::Trace(_))
    }
}

#[pymethods]
impl Output {
    /// `flows.csv` as a table (None for an RTT-trace scenario, which has no flows).
    fn flows(&self) -> PyResult<Option<Table>> {
        (!self.is_trace()).then(|| Table::new(&flows_columns(&self.runs))).transpose()
    }

    /// `runs.csv` as a table.
    fn runs(&self) -> PyResult<Table> {
        Table::new(&runs_columns(&self.runs))
    }

    /// `summary.csv` as a table.
    fn summary(&self) -> PyResult<Table> {
        Table::new(&summary_columns(&self.summaries))
    }

    /// `series.csv` as a table (None when the scenario has no series).
    fn series(&self) -> PyResult<Option<Table>> {
        series_columns(&self.runs).map(|c| Table::new(&c)).transpose()
    }

    /// `samples.csv` as a table (None for an RTT-trace scenario).
    fn samples(&self) -> PyResult<Option<Table>> {
        (!self.is_trace()).then(|| Table::new(&samples_columns(&self.runs))).transpose()
    }

    /// The files `coapcc sim` writes for this run, `(name, text)` in the order it writes them
    /// (`samples.csv` only when `samples`).
    #[pyo3(signature = (samples = false))]
    fn files(&self, samples: bool) -> Vec<(String, String)> {
        result_files(&self.scenario, &self.runs, &self.summaries, samples)
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect()
    }

    /// The summary table `coapcc sim` prints.
    fn summary_text(&self) -> String {
        summary_table(&self.summaries, self.is_trace())
    }

    /// This run's rows of `sweep.csv`, for the point `(key, text)` pairs.
    fn sweep_rows(&self, point: Vec<(String, String)>) -> PyResult<String> {
        Ok(sweep_csv_rows(&crate::scenario::point(&point)?, &self.summaries))
    }

    /// The resolved scenario of the run.
    fn scenario_toml(&self) -> String {
        self.scenario.to_toml()
    }
}

/// Checks a scenario as `coapcc sim` does before running it: what only the simulator knows,
/// then its memory budget on `threads` threads.
fn admit(s: &Scenario, threads: usize) -> PyResult<()> {
    runner::check(s).map_err(PyValueError::new_err)?;
    budget::admit(s, threads, budget::available_bytes()).map_err(PyValueError::new_err)?;
    Ok(())
}

/// A rayon pool with `jobs` threads (default: all cores).
fn pool(jobs: Option<usize>) -> PyResult<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(n) = jobs {
        if n == 0 {
            return Err(PyValueError::new_err("jobs must be at least 1"));
        }
        b = b.num_threads(n);
    }
    b.build().map_err(|e| PyRuntimeError::new_err(format!("cannot start the worker threads: {e}")))
}

/// Runs every job of every scenario on `jobs` threads (default: all cores), without the GIL;
/// results per scenario, in order, identical whatever `jobs`. Ctrl-C (any pending Python
/// signal) stops the run: jobs not yet started are not started, and the signal's exception
/// (`KeyboardInterrupt`) is raised once the running ones end.
#[pyfunction]
#[pyo3(signature = (scenarios, jobs = None))]
pub fn simulate_many(
    py: Python<'_>,
    scenarios: Vec<PyRef<'_, Resolved>>,
    jobs: Option<usize>,
) -> PyResult<Vec<Output>> {
    let scenarios: Vec<Scenario> = scenarios.iter().map(|r| r.scenario.clone()).collect();
    let pool = pool(jobs)?;
    for s in &scenarios {
        admit(s, pool.current_num_threads())?;
    }
    let all: Vec<(usize, usize, u32)> = scenarios
        .iter()
        .enumerate()
        .flat_map(|(i, s)| (0..s.algorithms.len()).flat_map(move |a| (0..s.file.replications).map(move |r| (i, a, r))))
        .collect();
    let stop = AtomicBool::new(false);
    let outputs = std::thread::scope(|scope| -> PyResult<Vec<Result<RunOutput, String>>> {
        let work = scope.spawn(|| {
            pool.install(|| {
                all.par_iter()
                    .map(|&(i, a, r)| {
                        if stop.load(Ordering::Relaxed) {
                            return Err("interrupted".to_string());
                        }
                        runner::run_job(&scenarios[i], a, r)
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
        per[i].push(((a, r), out.map_err(PyRuntimeError::new_err)?));
    }
    scenarios
        .into_iter()
        .zip(per)
        .map(|(s, outs)| {
            let runs = runner::assemble(&s, outs).map_err(PyRuntimeError::new_err)?;
            Ok(Output::new(s, runs))
        })
        .collect()
}

/// Runs one job (algorithm number `algorithm`, replication `replication`) of `scenario`
/// without the GIL: its output as bytes ([`wire::encode`]), the same wherever it runs.
#[pyfunction]
pub fn run_job<'py>(
    py: Python<'py>,
    scenario: PyRef<'py, Resolved>,
    algorithm: usize,
    replication: u32,
) -> PyResult<Bound<'py, PyBytes>> {
    let s = scenario.scenario.clone();
    if replication >= s.file.replications {
        return Err(PyValueError::new_err(format!(
            "{}: no replication {replication} (the scenario has {})",
            s.file.name, s.file.replications
        )));
    }
    let bytes = py.detach(move || runner::run_job(&s, algorithm, replication).map(|o| wire::encode(&o)));
    Ok(PyBytes::new(py, &bytes.map_err(PyRuntimeError::new_err)?))
}

/// The results of `scenario` from its jobs' outputs (`(algorithm, replication, bytes)`, in any
/// order, every job once): the same as running it whole.
#[pyfunction]
pub fn gather(
    py: Python<'_>,
    scenario: PyRef<'_, Resolved>,
    outputs: Vec<(usize, u32, Bound<'_, PyBytes>)>,
) -> PyResult<Output> {
    let s = scenario.scenario.clone();
    let outs = outputs
        .iter()
        .map(|(a, r, b)| Ok(((*a, *r), wire::decode(b.as_bytes()).map_err(PyValueError::new_err)?)))
        .collect::<PyResult<Vec<_>>>()?;
    let _ = py;
    let runs = runner::assemble(&s, outs).map_err(PyValueError::new_err)?;
    Ok(Output::new(s, runs))
}
