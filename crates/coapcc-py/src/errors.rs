//! The exception classes of the package, one per kind of error the Rust crates tell apart, and
//! the mapping from their typed errors (the CLI maps the same errors to exit codes):
//!
//! | exception | base | raised for | CLI exit code |
//! |---|---|---|---|
//! | [`ScenarioError`] | `ValueError` | a scenario (file, key, value, override, sweep point) that does not check | 2 |
//! | [`BudgetError`] | `ValueError` | a scenario the memory budget refuses before anything runs | 2 |
//! | [`RunError`] | `RuntimeError` | a run (an algorithm's replication) that failed | 1 |
//!
//! `BudgetError` is a `ValueError`, like the CLI's exit code 2: the scenario as given is too
//! large, and a smaller one (fewer flows, replications or jobs) runs; nothing failed. Other bad
//! input (job outputs that do not fit their scenario, `jobs=0`) stays a plain `ValueError`.

use coapcc_sim::SimError;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    coapcc,
    ScenarioError,
    PyValueError,
    "A scenario (file, key, value, override or sweep point) that does not check; the message names the file and the key."
);
pyo3::create_exception!(
    coapcc,
    BudgetError,
    PyValueError,
    "A scenario the memory budget refuses before anything runs; the message states the estimate, the memory available and the keys that size the scenario."
);
pyo3::create_exception!(
    coapcc,
    RunError,
    PyRuntimeError,
    "A run (an algorithm's replication) that failed; the message names the algorithm and the replication."
);

/// A scenario error (anything with the CLI's message) as a [`ScenarioError`].
pub fn scenario(e: impl std::fmt::Display) -> PyErr {
    ScenarioError::new_err(e.to_string())
}

/// A simulator error as the exception of its kind.
pub fn sim(e: SimError) -> PyErr {
    match e {
        SimError::Scenario(e) => scenario(e),
        SimError::Budget(e) => BudgetError::new_err(e.to_string()),
        SimError::Job(_) | SimError::Wire(_) => PyValueError::new_err(e.to_string()),
        SimError::Run { .. } => RunError::new_err(e.to_string()),
        SimError::Interrupted => PyKeyboardInterrupt::new_err(e.to_string()),
    }
}

/// Adds the exception classes to module `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("BudgetError", py.get_type::<BudgetError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    Ok(())
}
