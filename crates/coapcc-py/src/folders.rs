//! The output-folder check `coapcc sim` makes before a run, for `python -m coapcc sweep`: the
//! same function ([`coapcc_report::check_writable`]), and the same clean-up: the folders the
//! check created are removed again (each while still empty) when the run then fails.

use std::path::PathBuf;

use coapcc_report::{CreatedFolders, ReportError, check_writable as check};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// The folders a check created, as a context manager: leaving the `with` block normally keeps
/// them, leaving it by an exception (a failed or interrupted run) removes those still empty.
#[pyclass(module = "coapcc._coapcc")]
pub struct Created {
    /// None once kept or removed.
    folders: Option<CreatedFolders>,
}

#[pymethods]
impl Created {
    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (exc_type, _exc_value = None, _traceback = None))]
    fn __exit__(
        &mut self,
        exc_type: Option<Bound<'_, PyAny>>,
        _exc_value: Option<Bound<'_, PyAny>>,
        _traceback: Option<Bound<'_, PyAny>>,
    ) -> bool {
        match (self.folders.take(), exc_type) {
            (Some(f), None) => f.keep(),
            // Dropped: removed, innermost first, each only while empty.
            (Some(f), Some(_)) => drop(f),
            (None, _) => {}
        }
        // The exception, if any, goes on.
        false
    }
}

/// Checks that results can be written to `directory` before anything runs, as `coapcc sim`
/// does: the folder is created if missing and a file is created in it and removed. A path
/// that is a file, or a folder that cannot be created or written, is a `ValueError` naming it
/// (the CLI's usage error). Returns the folders it created (see [`Created`]).
#[pyfunction]
pub fn check_writable(directory: PathBuf) -> PyResult<Created> {
    match check(&directory) {
        Ok(folders) => Ok(Created { folders: Some(folders) }),
        Err(ReportError::Options(m)) => Err(PyValueError::new_err(m)),
        Err(e) => Err(PyOSError::new_err(e.to_string())),
    }
}
