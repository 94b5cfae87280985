//! Running scenarios from Python: every (scenario, algorithm, replication) job on a rayon pool
//! with the GIL released, Ctrl-C checked while they run (a job not yet started is not started);
//! one job alone (a sweep task on a Dask worker) with its output as bytes; and the results of
//! a run as Arrow tables, the CLI's files and `sweep.csv` rows. NB-IoT-like and RTT-trace
//! scenarios give an [`Output`], multihop scenarios (a `[multihop]` table) a
//! [`MultihopOutput`]; both kinds run through the same job seam.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use coapcc_sim::budget;
use coapcc_sim::multihop::engine::MultihopConfig;
use coapcc_sim::multihop::metrics::MultihopResult;
use coapcc_sim::multihop::output as mh_output;
use coapcc_sim::multihop::scenario::{self as mh, MultihopRuns};
use coapcc_sim::results::{
    Summary, flows_columns, result_files, runs_columns, samples_columns, series_columns, summarise, summary_columns,
    summary_table,
};
use coapcc_sim::runner::{self, AlgorithmRuns, RunOutput};
use coapcc_sim::scenario::{Model, Scenario};
use coapcc_sim::sweep::{sweep_csv_header, sweep_csv_header_for, sweep_csv_rows, sweep_csv_rows_for};
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

    /// The header line of `sweep.csv` for the point `(key, text)` pairs.
    fn sweep_header(&self, point: Vec<(String, String)>) -> PyResult<String> {
        Ok(sweep_csv_header(&crate::scenario::point(&point)?))
    }

    /// The resolved scenario of the run.
    fn scenario_toml(&self) -> String {
        self.scenario.to_toml()
    }
}

/// The results of one multihop scenario (spec multihop.md §2.5, §3.4, §4.4): the tables and
/// files of `coapcc sim` on it, from the same column model as its CSV writers
/// ([`coapcc_sim::multihop::output`]).
#[pyclass(module = "coapcc._coapcc", frozen)]
pub struct MultihopOutput {
    scenario: Scenario,
    cfgs: Vec<(String, MultihopConfig)>,
    runs: Vec<MultihopRuns>,
    summary: mh_output::Summary,
}

impl MultihopOutput {
    fn new(scenario: Scenario, cfgs: Vec<(String, MultihopConfig)>, runs: Vec<MultihopRuns>) -> MultihopOutput {
        let summary = mh_output::summarise(&cfgs, &runs);
        MultihopOutput { scenario, cfgs, runs, summary }
    }

    fn summary_csv(&self) -> String {
        mh_output::summary_csv(&self.summary, self.scenario.file.replications)
    }
}

#[pymethods]
impl MultihopOutput {
    /// `runs.csv` as a table: one row per algorithm × replication, every run metric.
    fn runs(&self) -> PyResult<Table> {
        Table::new(&mh_output::runs_columns(&self.cfgs, &self.runs, self.scenario.file.seed))
    }

    /// `flows.csv` as a table: CoAP per flow, or TCP per mote.
    fn flows(&self) -> PyResult<Table> {
        Table::new(&mh_output::flows_columns(&self.runs))
    }

    /// `nodes.csv` as a table: per run and mote, position, DODAG parent and hops, MAC counters.
    fn nodes(&self) -> PyResult<Table> {
        Table::new(&mh_output::nodes_columns(&self.cfgs, &self.runs, self.scenario.file.seed))
    }

    /// `summary.csv` as a table: per algorithm and metric, the mean and its 95 % CI half-width.
    fn summary(&self) -> PyResult<Table> {
        Table::new(&mh_output::summary_columns(&self.summary, self.scenario.file.replications))
    }

    /// The files `coapcc sim` writes for this run, `(name, text)` in the order it writes them.
    fn files(&self) -> Vec<(String, String)> {
        mh_output::result_files(&self.scenario, &self.cfgs, &self.runs, &self.summary)
            .into_iter()
            .map(|(n, t)| (n.to_string(), t))
            .collect()
    }

    /// The summary table `coapcc sim` prints.
    fn summary_text(&self) -> String {
        let tcp = self.runs.iter().flat_map(|a| &a.runs).any(|r| r.tcp.is_some());
        mh_output::summary_table(&self.summary, tcp)
    }

    /// This run's rows of `sweep.csv`, for the point `(key, text)` pairs.
    fn sweep_rows(&self, point: Vec<(String, String)>) -> PyResult<String> {
        Ok(sweep_csv_rows_for(&crate::scenario::point(&point)?, &self.summary_csv()))
    }

    /// The header line of `sweep.csv` for the point `(key, text)` pairs.
    fn sweep_header(&self, point: Vec<(String, String)>) -> PyResult<String> {
        Ok(sweep_csv_header_for(&crate::scenario::point(&point)?, &self.summary_csv()))
    }

    /// The resolved scenario of the run.
    fn scenario_toml(&self) -> String {
        self.scenario.to_toml()
    }
}

/// Checks a multihop scenario's configuration as `coapcc sim` does first: a `ValueError`
/// naming the file (as it was given) and the dotted key, with the CLI's message.
fn check_multihop(r: &Resolved) -> PyResult<()> {
    if let Model::Multihop(_) = r.scenario.model {
        mh::configs(&r.scenario).map_err(|mut e| {
            e.file = r.file.clone();
            PyValueError::new_err(e.to_string())
        })?;
    }
    Ok(())
}

/// A multihop scenario's configurations (one per algorithm), or None for another kind; a bad
/// configuration is a `ValueError` naming the file and the key, as the CLI's.
fn multihop_plan(s: &Scenario) -> PyResult<Option<Vec<(String, MultihopConfig)>>> {
    match s.model {
        Model::Multihop(_) => mh::configs(s).map(Some).map_err(|e| PyValueError::new_err(e.to_string())),
        _ => Ok(None),
    }
}

/// What one job produced.
enum JobOutput {
    /// An NB-IoT-like or RTT-trace job.
    Single(RunOutput),
    /// A multihop job.
    Multihop(MultihopResult),
}

/// Runs job (`algorithm`, `replication`) of `s` (multihop when `plan` holds its configurations).
fn run_any(
    s: &Scenario,
    plan: Option<&[(String, MultihopConfig)]>,
    algorithm: usize,
    replication: u32,
) -> Result<JobOutput, String> {
    match plan {
        Some(cfgs) => mh::run_job(s, cfgs, algorithm, replication).map(JobOutput::Multihop),
        None => runner::run_job(s, algorithm, replication).map(JobOutput::Single),
    }
}

/// The result object of scenario `s` from its jobs' outputs, in any order.
fn result_of(
    py: Python<'_>,
    s: Scenario,
    plan: Option<Vec<(String, MultihopConfig)>>,
    outputs: Vec<((usize, u32), JobOutput)>,
) -> PyResult<Py<PyAny>> {
    match plan {
        Some(cfgs) => {
            let outs = outputs.into_iter().filter_map(|(k, o)| match o {
                JobOutput::Multihop(m) => Some((k, m)),
                JobOutput::Single(_) => None,
            });
            let runs = mh::assemble(&s, outs).map_err(PyRuntimeError::new_err)?;
            Ok(Py::new(py, MultihopOutput::new(s, cfgs, runs))?.into_any())
        }
        None => {
            let outs = outputs.into_iter().filter_map(|(k, o)| match o {
                JobOutput::Single(r) => Some((k, r)),
                JobOutput::Multihop(_) => None,
            });
            let runs = runner::assemble(&s, outs).map_err(PyRuntimeError::new_err)?;
            Ok(Py::new(py, Output::new(s, runs))?.into_any())
        }
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
/// results per scenario (an [`Output`], or a [`MultihopOutput`] for a multihop scenario), in
/// order, identical whatever `jobs`. Ctrl-C (any pending Python signal) stops the run: jobs
/// not yet started are not started, and the signal's exception (`KeyboardInterrupt`) is
/// raised once the running ones end.
#[pyfunction]
#[pyo3(signature = (scenarios, jobs = None))]
pub fn simulate_many(
    py: Python<'_>,
    scenarios: Vec<PyRef<'_, Resolved>>,
    jobs: Option<usize>,
) -> PyResult<Vec<Py<PyAny>>> {
    for r in &scenarios {
        check_multihop(r)?;
    }
    let scenarios: Vec<Scenario> = scenarios.iter().map(|r| r.scenario.clone()).collect();
    let pool = pool(jobs)?;
    for s in &scenarios {
        admit(s, pool.current_num_threads())?;
    }
    let plans = scenarios.iter().map(multihop_plan).collect::<PyResult<Vec<_>>>()?;
    let all: Vec<(usize, usize, u32)> = scenarios
        .iter()
        .enumerate()
        .flat_map(|(i, s)| (0..s.algorithms.len()).flat_map(move |a| (0..s.file.replications).map(move |r| (i, a, r))))
        .collect();
    let stop = AtomicBool::new(false);
    let outputs = std::thread::scope(|scope| -> PyResult<Vec<Result<JobOutput, String>>> {
        let work = scope.spawn(|| {
            pool.install(|| {
                all.par_iter()
                    .map(|&(i, a, r)| {
                        if stop.load(Ordering::Relaxed) {
                            return Err("interrupted".to_string());
                        }
                        run_any(&scenarios[i], plans[i].as_deref(), a, r)
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
    let mut per: Vec<Vec<((usize, u32), JobOutput)>> = scenarios.iter().map(|_| Vec::new()).collect();
    for (&(i, a, r), out) in all.iter().zip(outputs) {
        per[i].push(((a, r), out.map_err(PyRuntimeError::new_err)?));
    }
    scenarios.into_iter().zip(plans).zip(per).map(|((s, plan), outs)| result_of(py, s, plan, outs)).collect()
}

/// Checks `scenario` as `coapcc sim` does before running anything (the configuration of a
/// multihop scenario, what only the simulator knows): a `ValueError` with the CLI's message.
/// A sweep on a cluster checks every point with it before submitting a task.
#[pyfunction]
pub fn check(scenario: PyRef<'_, Resolved>) -> PyResult<()> {
    check_multihop(&scenario)?;
    runner::check(&scenario.scenario).map_err(PyValueError::new_err)
}

/// Runs one job (algorithm number `algorithm`, replication `replication`) of `scenario`
/// without the GIL: its output as bytes ([`wire::encode`], [`wire::encode_multihop`]), the
/// same wherever it runs.
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
    let plan = multihop_plan(&s)?;
    let bytes = py.detach(move || {
        run_any(&s, plan.as_deref(), algorithm, replication).map(|o| match o {
            JobOutput::Single(r) => wire::encode(&r),
            JobOutput::Multihop(m) => wire::encode_multihop(&m),
        })
    });
    Ok(PyBytes::new(py, &bytes.map_err(PyRuntimeError::new_err)?))
}

/// The results of `scenario` from its jobs' outputs (`(algorithm, replication, bytes)`, in any
/// order, every job once): the same as running it whole ([`Output`] or [`MultihopOutput`]).
#[pyfunction]
pub fn gather(
    py: Python<'_>,
    scenario: PyRef<'_, Resolved>,
    outputs: Vec<(usize, u32, Bound<'_, PyBytes>)>,
) -> PyResult<Py<PyAny>> {
    let s = scenario.scenario.clone();
    let plan = multihop_plan(&s)?;
    let multihop = plan.is_some();
    let outs = outputs
        .iter()
        .map(|(a, r, b)| {
            let bytes = b.as_bytes();
            let out = if multihop {
                wire::decode_multihop(bytes).map(JobOutput::Multihop)
            } else {
                wire::decode(bytes).map(JobOutput::Single)
            };
            Ok(((*a, *r), out.map_err(PyValueError::new_err)?))
        })
        .collect::<PyResult<Vec<_>>>()?;
    result_of(py, s, plan, outs).map_err(|e| PyValueError::new_err(e.to_string()))
}
