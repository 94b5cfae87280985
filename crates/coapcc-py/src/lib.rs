//! # coapcc-py
//!
//! The native module `coapcc._coapcc` of the Python package `coapcc` (PyO3, abi3): thin
//! wrappers of the Rust crates, so Python gets the CLI's behaviour and bytes. The Python API
//! researchers use (`coapcc.sim`, `coapcc.sweep`, `coapcc.Scenario`, …, with pandas frames)
//! is the pure-Python layer in `python/coapcc/`; this module hands it results as Arrow
//! tables (`arrow::Table`, the Arrow C stream interface), never as CSV text.
//!
//! | module | what is there |
//! |---|---|
//! | `arrow` | results columns as Arrow record batches, exported through a PyCapsule |
//! | `values` | Python values ↔ TOML values; CLI value texts as typed settings |
//! | `registry` | `algorithms()`, `algorithm(name)`, `replay(…)`, the figure palette |
//! | `scenario` | a resolved scenario (file text + settings, checked as `coapcc sim` checks it) |
//! | `sim` | running scenarios (NB-IoT-like, RTT-trace, multihop) without the GIL, interruptible; one job alone; one result type (`sim::Output`) with its tables and files |
//! | `folders` | the CLI's output-folder check before a run, and the removal of the folders it created when the run fails |
//! | `run_json` | `run.json` of the folders `save` writes (the CLI's record and writer, with the Python call) |
//! | `errors` | the exception classes (`ScenarioError`, `BudgetError`, `RunError`) and the mapping of the Rust errors onto them |
//!
//! Errors: what the CLI reports as a usage error (exit code 2) is a `ValueError` with the
//! same message (a `ScenarioError` or `BudgetError` where the Rust error says which); a
//! failure (exit code 1) is a `RuntimeError` (`RunError` for a failed run); Ctrl-C is
//! `KeyboardInterrupt`.

// Private: the Python names are what `_coapcc` below registers (and `python/coapcc`
// re-exports), not Rust paths.
mod arrow;
mod errors;
mod folders;
mod registry;
mod run_json;
mod scenario;
mod sim;
mod values;

use pyo3::prelude::*;

/// The native module.
#[pymodule]
fn _coapcc(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    errors::register(m)?;
    m.add_class::<arrow::Table>()?;
    m.add_class::<scenario::Resolved>()?;
    m.add_class::<sim::Output>()?;
    m.add_class::<folders::Created>()?;
    m.add_function(wrap_pyfunction!(registry::algorithms_table, m)?)?;
    m.add_function(wrap_pyfunction!(registry::algorithm_info, m)?)?;
    m.add_function(wrap_pyfunction!(registry::replay_events, m)?)?;
    m.add_function(wrap_pyfunction!(registry::palette, m)?)?;
    m.add_function(wrap_pyfunction!(registry::colour_of, m)?)?;
    m.add_function(wrap_pyfunction!(folders::check_writable, m)?)?;
    m.add_function(wrap_pyfunction!(run_json::write_run_json, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::resolve, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::dict_to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::read_scenario, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::parse_sweep, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::sweep_label, m)?)?;
    m.add_function(wrap_pyfunction!(sim::simulate_many, m)?)?;
    m.add_function(wrap_pyfunction!(sim::check, m)?)?;
    m.add_function(wrap_pyfunction!(sim::run_job, m)?)?;
    m.add_function(wrap_pyfunction!(sim::gather, m)?)?;
    m.add_function(wrap_pyfunction!(sim::kept_piece, m)?)?;
    Ok(())
}
