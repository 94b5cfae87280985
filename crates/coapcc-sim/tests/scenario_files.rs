//! Every scenario file checked in under `scenarios/` loads, validates and documents itself.

use std::path::{Path, PathBuf};

use coapcc_driver::scenario;

fn scenario_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            scenario_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

#[test]
fn every_scenario_file_loads_and_names_its_path_its_source_and_its_set_up() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = Vec::new();
    scenario_files(&root, &mut files);
    assert!(files.len() >= 57, "{} scenario files", files.len());
    let mut buffers = std::collections::BTreeSet::new();
    for path in &files {
        let s = scenario::load(path, &[]).unwrap_or_else(|e| panic!("{e}"));
        let rel = path.strip_prefix(&root).unwrap().with_extension("");
        assert_eq!(s.file.name, rel.to_string_lossy(), "{}: name is not the file's path", path.display());
        assert!(!s.file.description.is_empty() && !s.file.source.is_empty(), "{}", path.display());
        assert!(!s.file.algorithms.is_empty() && s.file.replications > 0, "{}", path.display());
        if let Some(scenario::NetworkConfig::Nbiot(c)) = &s.file.network {
            buffers.insert(c.buffer_bytes);
        }
    }
    // docs/testbeds.md §1: all four buffer sizes of the NB-IoT-like link have scenarios.
    assert_eq!(buffers.into_iter().collect::<Vec<_>>(), [2_500, 14_100, 28_200, 1_410_000]);
}

#[test]
fn every_scenario_file_fits_in_one_gigabyte_on_two_threads_by_the_estimate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files = Vec::new();
    scenario_files(&root, &mut files);
    let mut largest = (0u64, String::new());
    for path in &files {
        let s = scenario::load(path, &[]).unwrap_or_else(|e| panic!("{e}"));
        let e = coapcc_sim::budget::estimate(&s, 2);
        if e.bytes > largest.0 {
            largest = (e.bytes, s.file.name.clone());
        }
    }
    assert!(largest.0 < 1 << 30, "{} needs an estimated {} bytes", largest.1, largest.0);
}
