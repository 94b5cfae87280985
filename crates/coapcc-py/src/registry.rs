//! The algorithm registry, `coapcc replay` and the figure palette, from the same code the CLI
//! uses (`coapcc_core::registry`, `coapcc_driver::scenario`, `coapcc_driver::replay`,
//! `coapcc_report::figures`).

use coapcc_core::ALGORITHMS;
use coapcc_core::harness::Event;
use coapcc_driver::replay;
use coapcc_driver::scenario::Setting;
use coapcc_driver::scenario::algorithm_keys;
use coapcc_driver::scenario::algorithm_with_settings;
use coapcc_report::figures::{colour_hex, palette as fixed_colours};
use coapcc_sim::results::{Column, Columns};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrow::Table;
use crate::values::{settings, table_to_py};

/// A bad algorithm, key, value or script line as a `ValueError` with the CLI's message (the
/// CLI's exit code 2).
fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The registry as a table: the columns of `coapcc algorithms --format csv`.
#[pyfunction]
pub fn algorithms_table() -> PyResult<Table> {
    let text = |f: fn(&coapcc_core::AlgorithmInfo) -> String| Column::Str(ALGORITHMS.iter().map(f).collect());
    let columns = Columns {
        columns: vec![
            ("name".into(), text(|a| a.name.to_string())),
            ("family".into(), text(|a| a.family.to_string())),
            ("exactness".into(), text(|a| a.exactness.to_string())),
            ("state_bytes".into(), Column::U64(ALGORITHMS.iter().map(|a| a.state_bytes as u64).collect())),
            ("spec".into(), text(|a| a.spec.to_string())),
            ("source".into(), text(|a| a.source.to_string())),
        ],
    };
    Table::new(&columns)
}

/// One algorithm: its registry row, its configuration keys with their preset values (what
/// `coapcc algorithms NAME` prints), the other presets of its family, and its documentation
/// anchor. An unknown name is a `ValueError` listing the valid ones.
#[pyfunction]
pub fn algorithm_info<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let config = algorithm_with_settings(name, &[]).map_err(value_err)?;
    let d = PyDict::new(py);
    d.set_item("name", name)?;
    if let Some(a) = ALGORITHMS.iter().find(|a| a.name == name) {
        d.set_item("family", a.family.to_string())?;
        d.set_item("exactness", a.exactness.to_string())?;
        d.set_item("state_bytes", a.state_bytes)?;
        d.set_item("spec", a.spec)?;
        d.set_item("source", a.source)?;
        let presets: Vec<&str> =
            ALGORITHMS.iter().filter(|b| b.family.to_string() == a.family.to_string()).map(|b| b.name).collect();
        d.set_item("family_presets", presets)?;
    }
    d.set_item("keys", table_to_py(py, &algorithm_keys(&config))?)?;
    d.set_item("documentation", format!("docs/algorithms.md#{name}"))?;
    Ok(d)
}

/// `coapcc replay`: runs `script` on `algorithm` configured with `set` (`(key, text)` pairs,
/// as `--set`) and, when `no_dither`, `dither = false`; seeded with `seed` (1 by default; an
/// integer from 0 to 2⁶⁴−1, else a `ValueError` naming it). Returns the
/// events as a table: `t_ms`, `event`, `exchange`, `copy` (NaN where the JSON has null),
/// `timer_ms` (transmissions; else NaN), `rto_ms` (acks; NaN where null or not an ack).
/// Errors name the line or the key, as the CLI's do (`ValueError`).
#[pyfunction]
#[pyo3(signature = (algorithm, script, seed = None, set = Vec::new(), no_dither = false))]
pub fn replay_events(
    algorithm: &str,
    script: &str,
    seed: Option<&Bound<'_, PyAny>>,
    set: Vec<(String, String)>,
    no_dither: bool,
) -> PyResult<Table> {
    let seed = seed.map(|s| crate::values::seed(s, "seed")).transpose()?.unwrap_or(1);
    let mut set = settings(&set)?;
    if no_dither {
        set.push(Setting::new("dither", false).map_err(|e| PyRuntimeError::new_err(e.to_string()))?);
    }
    let config = algorithm_with_settings(algorithm, &set).map_err(value_err)?;
    let controller = config.build().map_err(value_err)?;
    let lines = replay::parse(script).map_err(value_err)?;
    let mut events = Vec::new();
    // Every error of a run without output is a script line's (a `ValueError`, as the CLI's exit code 2).
    replay::run_with(controller, &lines, seed, &mut |e| events.push(e)).map_err(value_err)?;
    // Exact milliseconds: nanoseconds (exact in f64 below 2^53) over 10^6, correctly rounded,
    // which is the double nearest to the CLI's decimal text.
    let ms = |d: std::time::Duration| d.as_nanos() as f64 / 1e6;
    let (mut t, mut kind, mut exchange, mut copy, mut timer, mut rto) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for e in &events {
        match *e {
            Event::Transmit { at, exchange: x, copy: c, timer: d } => {
                t.push(ms(at.since_epoch()));
                kind.push("transmit".to_string());
                exchange.push(u64::from(x));
                copy.push(f64::from(c));
                timer.push(ms(d));
                rto.push(f64::NAN);
            }
            Event::GiveUp { at, exchange: x } => {
                t.push(ms(at.since_epoch()));
                kind.push("give_up".to_string());
                exchange.push(u64::from(x));
                copy.push(f64::NAN);
                timer.push(f64::NAN);
                rto.push(f64::NAN);
            }
            Event::Ack { at, exchange: x, copy: c, rto: r } => {
                t.push(ms(at.since_epoch()));
                kind.push("ack".to_string());
                exchange.push(u64::from(x));
                copy.push(c.map_or(f64::NAN, f64::from));
                timer.push(f64::NAN);
                rto.push(r.map_or(f64::NAN, ms));
            }
        }
    }
    Table::new(&Columns {
        columns: vec![
            ("t_ms".into(), Column::F64(t)),
            ("event".into(), Column::Str(kind)),
            ("exchange".into(), Column::U64(exchange)),
            ("copy".into(), Column::F64(copy)),
            ("timer_ms".into(), Column::F64(timer)),
            ("rto_ms".into(), Column::F64(rto)),
        ],
    })
}

/// `#rrggbb` text of an RGB colour.
fn hex(c: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2])
}

/// The report's fixed colours: `(name, "#rrggbb")` per algorithm and series name, the same
/// table the SVG figures of `coapcc reproduce` use.
#[pyfunction]
pub fn palette() -> Vec<(String, String)> {
    fixed_colours().map(|(n, c)| (n.to_string(), hex(c))).collect()
}

/// The colour (`#rrggbb`) the report's figures give a series named `name` (an exact palette
/// entry, else the name before a space or `(`, else a stable colour derived from the name).
#[pyfunction]
pub fn colour_of(name: &str) -> String {
    colour_hex(name)
}
