//! `run.json` for the folders the Python package writes (`SimResult.save`, `SweepResult.save`):
//! the same record, written by the same function, as the CLI's
//! ([`coapcc_report::write_run_json`]), with the Python call in place of the command line.

use std::path::PathBuf;

use coapcc_report::{RunRecord, write_run_json as write};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;

/// Writes `directory/run.json` (atomically): this build's version and commit, the date, `call`
/// (the Python call that made the results), `seed`, the host's cores.
#[pyfunction]
#[pyo3(signature = (directory, call, seed = None))]
pub fn write_run_json(directory: PathBuf, call: &str, seed: Option<u64>) -> PyResult<()> {
    let record = RunRecord::now(call);
    let record = match seed {
        Some(s) => record.with_seed(s),
        None => record,
    };
    write(&directory, &record).map_err(|e| PyOSError::new_err(e.to_string()))
}
