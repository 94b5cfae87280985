//! Compiles the built-in scenarios in: every `*.toml` under the repository's `scenarios/`
//! folder becomes an entry `(name, text)` of `$OUT_DIR/built_in_scenarios.rs`, its name the
//! path below `scenarios/` without `.toml` (`fasor/10-flows-error-free-random`), in name order.
//! Without that folder (a crate packaged on its own) the catalogue is empty.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Every `*.toml` below `dir` (recursively), and every folder visited, for `rerun-if-changed`.
fn walk(dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    dirs.push(dir.to_path_buf());
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            walk(&p, files, dirs);
        } else if p.extension().is_some_and(|x| x == "toml") {
            files.push(p);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    walk(&root, &mut files, &mut dirs);
    for d in &dirs {
        println!("cargo::rerun-if-changed={}", d.display());
    }
    let mut entries: Vec<(String, PathBuf)> = files
        .into_iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(&root).ok()?.with_extension("");
            Some((rel.to_string_lossy().replace('\\', "/"), p))
        })
        .collect();
    entries.sort();
    let mut out = String::from("&[\n");
    for (name, path) in entries {
        println!("cargo::rerun-if-changed={}", path.display());
        let _ = writeln!(out, "    ({name:?}, include_str!({:?})),", path.display().to_string());
    }
    out.push(']');
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("built_in_scenarios.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
}
