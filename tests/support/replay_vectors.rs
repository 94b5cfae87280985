//! What the replay-vector tests of `coapcc` (through the binary) and `coapcc-proto` (through
//! the endpoint) share: the vectors themselves, `tests/replay/*.replay` at the repository root,
//! and how a run's output is compared with a vector's `.expected.jsonl` file. Each test
//! includes this file with `#[path]`.

use std::path::{Path, PathBuf};

/// Every replay script, sorted by file name.
pub fn scripts() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/replay");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("tests/replay exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "replay"))
        .collect();
    scripts.sort();
    scripts
}

/// The index of the first item in which `got` and `expected` differ (the shorter length when
/// one is the start of the other), or `None` when they are equal.
pub fn first_difference<T: PartialEq>(got: &[T], expected: &[T]) -> Option<usize> {
    (got != expected)
        .then(|| got.iter().zip(expected).position(|(a, b)| a != b).unwrap_or(got.len().min(expected.len())))
}
