//! Every committed corpus file (`fuzz/corpus/<target>/`) and crash artifact
//! (`fuzz/artifacts/<target>/`) of every fuzz target runs through the target's body on each
//! `cargo test`, so a fixed finding stays fixed without nightly Rust or libFuzzer.

use std::path::{Path, PathBuf};

use coapcc_fuzz::TARGETS;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `dir`, sorted (none when it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).filter(|p| p.is_file()).collect();
    files.sort();
    files
}

#[test]
fn every_corpus_file_and_crash_artifact_runs_clean_through_its_target() {
    for target in TARGETS {
        let corpus = files(&fuzz_dir().join("corpus").join(target.name));
        assert!(corpus.len() >= 4, "fuzz/corpus/{} has {} seeds; expected at least 4", target.name, corpus.len());
        let artifacts = files(&fuzz_dir().join("artifacts").join(target.name));
        for file in corpus.iter().chain(&artifacts) {
            let data = std::fs::read(file).unwrap();
            let outcome = std::panic::catch_unwind(|| (target.run)(&data));
            assert!(outcome.is_ok(), "{} fails on {}", target.name, file.display());
        }
    }
}

#[test]
fn every_target_has_a_cargo_fuzz_entry_point() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).unwrap();
    for target in TARGETS {
        let source = fuzz_dir().join("fuzz_targets").join(format!("{}.rs", target.name));
        let text = std::fs::read_to_string(&source).unwrap_or_else(|e| panic!("{}: {e}", source.display()));
        assert!(
            text.contains(&format!("coapcc_fuzz::{}::run", target.name)),
            "{} calls another body",
            source.display()
        );
        assert!(
            manifest.contains(&format!("name = \"{}\"", target.name)),
            "fuzz/Cargo.toml lacks [[bin]] {}",
            target.name
        );
    }
}
