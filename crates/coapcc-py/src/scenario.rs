//! A resolved scenario: the scenario file's text with settings applied (in order) and checked
//! by `coapcc_driver::scenario::parse`, exactly as `coapcc sim FILE --set …` loads it; plus the
//! sweep points of `--sweep`.

use coapcc_driver::scenario::{self, Model, Scenario};
use coapcc_sim::sweep::{Point, Sweep};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors;
use crate::values::{from_py, setting, settings};

/// A checked scenario (immutable; a setting makes a new one).
#[pyclass(module = "coapcc._coapcc", frozen)]
pub struct Resolved {
    /// The scenario.
    pub scenario: Scenario,
    /// The file it was read from (or the name given for a text), as errors name it.
    pub file: String,
}

/// Parses `source` (a scenario file's text; `file` names it in errors) with `settings`
/// (`(key, text)` pairs, each read as `--set KEY=VALUE` reads it) applied in order. Errors
/// are the CLI's (`ScenarioError`), naming the file and the key.
#[pyfunction]
#[pyo3(signature = (source, file, settings = Vec::new()))]
pub fn resolve(source: &str, file: &str, settings: Vec<(String, String)>) -> PyResult<Resolved> {
    let all = self::settings(&settings)?;
    let scenario = scenario::parse(source, file, &all).map_err(errors::scenario)?;
    Ok(Resolved { scenario, file: file.to_string() })
}

/// The text of the scenario file at `path` (a `ScenarioError` naming the file, as the CLI's).
#[pyfunction]
pub fn read_scenario(path: std::path::PathBuf) -> PyResult<String> {
    scenario::read(&path).map_err(errors::scenario)
}

/// A dict of scenario keys as the text of a scenario file (TOML). Values: `bool`, `int`,
/// `float`, `str`, lists, dicts (tables).
#[pyfunction]
pub fn dict_to_toml(fields: &Bound<'_, PyDict>) -> PyResult<String> {
    match from_py(fields.as_any(), "")? {
        toml::Value::Table(t) => toml::to_string(&t).map_err(|e| PyValueError::new_err(e.to_string())),
        _ => Err(PyValueError::new_err("a scenario is a table of keys")),
    }
}

/// Reads `KEY=V1,V2,…` as `coapcc sim --sweep` does: the key and the value texts.
#[pyfunction]
pub fn parse_sweep(text: &str) -> PyResult<(String, Vec<String>)> {
    let s: Sweep = text.parse().map_err(errors::scenario)?;
    Ok((s.key.to_string(), s.values.into_iter().map(|(t, _)| t).collect()))
}

/// A sweep point from `(key, text)` pairs.
pub fn point(pairs: &[(String, String)]) -> PyResult<Point> {
    Ok(Point { settings: pairs.iter().map(|(k, t)| Ok((t.clone(), setting(k, t)?))).collect::<PyResult<_>>()? })
}

/// The folder name `coapcc sim --sweep` gives a point (`flows=200,buffer_bytes=28200`).
#[pyfunction]
pub fn sweep_label(point: Vec<(String, String)>) -> PyResult<String> {
    Ok(self::point(&point)?.label())
}

#[pymethods]
impl Resolved {
    /// The scenario's name (also its default output folder, `results/<name>/`).
    #[getter]
    fn name(&self) -> &str {
        &self.scenario.file.name
    }

    /// Its description.
    #[getter]
    fn description(&self) -> &str {
        &self.scenario.file.description
    }

    /// Where the case is published.
    #[getter]
    fn source(&self) -> &str {
        &self.scenario.file.source
    }

    /// The seed.
    #[getter]
    fn seed(&self) -> u64 {
        self.scenario.file.seed
    }

    /// Replications per algorithm.
    #[getter]
    fn replications(&self) -> u32 {
        self.scenario.file.replications
    }

    /// The algorithms (names, or `[variant.*]` names; a TCP scenario's congestion
    /// controls), in order.
    #[getter]
    fn algorithms(&self) -> Vec<String> {
        self.scenario.algorithm_names().to_vec()
    }

    /// `"network"`, `"trace"`, `"multihop"` or `"tcp"` (the model `sim` runs).
    #[getter]
    fn model(&self) -> &'static str {
        match self.scenario.model {
            Model::Network { .. } => "network",
            Model::Trace(_) => "trace",
            Model::Multihop(_) => "multihop",
            Model::Tcp(_) => "tcp",
        }
    }

    /// The fully resolved scenario as TOML (what `scenario.toml` of a result holds).
    fn to_toml(&self) -> String {
        self.scenario.to_toml()
    }
}
