//! Compiles the experiment descriptions in: every `data/published/*.toml` whose top level
//! names an `experiment` becomes an entry of `$OUT_DIR/experiment_files.rs`, so that adding an
//! experiment is adding its file (`coapcc_report::reproduce::published::all` checks them).
//! Also sets `COAPCC_GIT_COMMIT`, the commit of the checkout it is built in (empty outside one).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// The commit of the checkout the crate is built in (`git rev-parse HEAD`), empty outside one
/// (or without git); rebuilt when HEAD or the branch it names moves.
fn git_commit() -> String {
    let dir = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        let o = Command::new("git").args(args).current_dir(dir).output().ok().filter(|o| o.status.success())?;
        Some(String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let Some(commit) = git(&["rev-parse", "HEAD"]) else { return String::new() };
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    for p in ["HEAD", "packed-refs"].into_iter().map(String::from).chain(branch) {
        // A path that does not exist would rerun this script on every build.
        if let Some(path) = git(&["rev-parse", "--git-path", &p]).map(|p| Path::new(dir).join(p)).filter(|p| p.exists())
        {
            println!("cargo::rerun-if-changed={}", path.display());
        }
    }
    commit
}

fn main() {
    println!("cargo::rustc-env=COAPCC_GIT_COMMIT={}", git_commit());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/published");
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut out = String::from("&[\n");
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        // An experiment's file says `experiment = "…"` at the top level, before any table.
        let mut top = text.lines().take_while(|l| !l.trim_start().starts_with('['));
        if !top.any(|l| l.trim_start().starts_with("experiment =")) {
            continue;
        }
        println!("cargo::rerun-if-changed={}", path.display());
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let _ = writeln!(out, "    ({name:?}, include_str!({:?})),", path.display().to_string());
    }
    out.push(']');
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("experiment_files.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("cannot write {}: {e}", dest.display()));
}
