//! Python values ↔ TOML values, and settings from the command line's value texts.
//!
//! The Python layer turns every override value into the text the CLI would read
//! (`20`, `1.5`, `false`, `1/4`, `makarem`, `["a", "b"]`), so a setting made in Python is
//! the very [`Setting`] `--set KEY=VALUE` makes ([`Value::parse`]), and a sweep task carries
//! only strings to the process that runs it.

use coapcc_driver::scenario::{Setting, Value};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// The setting `key = text`, the value read as the CLI reads `--set KEY=VALUE`. A bad key is
/// a `ScenarioError` naming it.
pub fn setting(key: &str, text: &str) -> PyResult<Setting> {
    Ok(Setting { key: key.parse().map_err(crate::errors::scenario)?, value: Value::parse(text) })
}

/// Settings from `(key, text)` pairs, in order.
pub fn settings(pairs: &[(String, String)]) -> PyResult<Vec<Setting>> {
    pairs.iter().map(|(k, t)| setting(k, t)).collect()
}

/// A seed argument `name`: an integer from 0 to 2⁶⁴−1, as `--seed` takes; another integer is a
/// `ValueError` naming the argument (not an `OverflowError`).
pub fn seed(v: &Bound<'_, PyAny>, name: &str) -> PyResult<u64> {
    if !v.is_instance_of::<PyInt>() {
        let kind = v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        return Err(PyTypeError::new_err(format!("{name}: a seed is an integer, not a value of type `{kind}`")));
    }
    v.extract::<u64>()
        .map_err(|_| PyValueError::new_err(format!("{name} = {}: a seed is an integer from 0 to {}", v, u64::MAX)))
}

/// A TOML value as a Python value (tables as dicts, arrays as lists, date-times as text).
pub fn to_py(py: Python<'_>, v: &toml::Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        toml::Value::String(s) => s.into_pyobject(py)?.into_any().unbind(),
        toml::Value::Integer(i) => i.into_pyobject(py)?.into_any().unbind(),
        toml::Value::Float(x) => x.into_pyobject(py)?.into_any().unbind(),
        toml::Value::Boolean(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        toml::Value::Datetime(d) => d.to_string().into_pyobject(py)?.into_any().unbind(),
        toml::Value::Array(a) => {
            let items = a.iter().map(|x| to_py(py, x)).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        toml::Value::Table(t) => table_to_py(py, t)?.into_any().unbind(),
    })
}

/// A TOML table as a Python dict (keys in the table's order).
pub fn table_to_py<'py>(py: Python<'py>, t: &toml::Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in t {
        d.set_item(k, to_py(py, v)?)?;
    }
    Ok(d)
}

/// A Python value as a TOML value: `bool`, `int`, `float`, `str`, lists and tuples, dicts
/// with string keys; anything else is a `TypeError` naming `path` (the key it was given for).
pub fn from_py(v: &Bound<'_, PyAny>, path: &str) -> PyResult<toml::Value> {
    if v.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(v.extract()?));
    }
    if v.is_instance_of::<PyInt>() {
        // TOML integers are signed 64-bit (TOML 1.1 §Integer): a larger one is written as its
        // decimal text, as scenario files write a seed above 2⁶³−1; the key then takes it
        // (`seed`, up to 2⁶⁴−1) or refuses it naming the key, as it would the file.
        return Ok(match v.extract::<i64>() {
            Ok(i) => toml::Value::Integer(i),
            Err(_) => toml::Value::String(v.str()?.to_string()),
        });
    }
    if v.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(v.extract()?));
    }
    if v.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(v.extract()?));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items = v.try_iter()?.map(|x| from_py(&x?, path)).collect::<PyResult<Vec<_>>>()?;
        return Ok(toml::Value::Array(items));
    }
    if let Ok(d) = v.cast::<PyDict>() {
        let mut t = toml::Table::new();
        for (k, x) in d.iter() {
            let k: String =
                k.extract().map_err(|_| PyTypeError::new_err(format!("key `{path}`: table keys must be strings")))?;
            let sub = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
            t.insert(k, from_py(&x, &sub)?);
        }
        return Ok(toml::Value::Table(t));
    }
    let kind = v.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
    Err(PyTypeError::new_err(format!("key `{path}`: a value of type `{kind}` cannot be written in a scenario")))
}
