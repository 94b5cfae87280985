//! Hostile input to `coapcc sim` (and `testbed`, `reproduce`): worker-thread counts, scenario
//! names that would write outside the output folder, repeated sweeps and algorithms, output
//! folders that cannot be written, and the largest seed. Each is refused before anything runs
//! (exit code 2, one line naming the option, key or path) or taken as documented.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_coapcc")).current_dir(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn tmp(name: &str) -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("coapcc-sim-inputs-{}-{name}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Two flows, one algorithm, one replication: a run of a few milliseconds.
const GOOD: &str = r#"
name = "t/good"
description = "d"
source = "s"
seed = 1
replications = 1
algorithms = ["default"]
[network.nbiot]
buffer_bytes = 2500
errors = "none"
[workload]
flows = 2
flow_type = "continuous"
"#;

/// A folder holding `GOOD` as `good.toml` (and a `work/` folder to run in); its path.
fn with_good(name: &str) -> (PathBuf, String) {
    let d = tmp(name);
    std::fs::create_dir_all(d.join("work")).unwrap();
    let f = d.join("good.toml");
    std::fs::write(&f, GOOD).unwrap();
    (d, f.display().to_string())
}

fn assert_refused(dir: &Path, args: &[&str], needles: &[&str]) -> String {
    let (code, out, err) = run_in(dir, args);
    assert_eq!(code, 2, "exit code for {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    for n in needles {
        assert!(err.contains(n), "`{n}` not in: {err}");
    }
    assert!(!out.contains("=="), "nothing ran before the refusal: {out}");
    err
}

/// Every file below `dir`, relative to it, sorted.
fn files_below(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn jobs_outside_1_to_1024_are_refused_before_anything_runs() {
    let (d, f) = with_good("jobs");
    let work = d.join("work");
    for jobs in ["0", "1025", "2000", "1000000"] {
        assert_refused(&work, &["sim", &f, "--jobs", jobs, "-q"], &["--jobs", "from 1 to 1024"]);
    }
    let (code, _, err) = run_in(&work, &["sim", &f, "--jobs", "1024", "-q", "--out", "o"]);
    assert_eq!(code, 0, "{err}");
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let args = ["reproduce", "fasor", "--quick", "--jobs", "5000", "-q", "--scenarios", scenarios.to_str().unwrap()];
    assert_refused(&work, &args, &["--jobs", "from 1 to 1024"]);
}

/// The largest number of threads `coapcc ARGS` had at once (sampled from `/proc`), or None
/// where `/proc/PID/task` does not exist.
fn peak_threads(dir: &Path, args: &[&str]) -> Option<usize> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .current_dir(dir)
        .args(args)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let tasks = PathBuf::from(format!("/proc/{}/task", child.id()));
    let mut peak = None;
    while child.try_wait().unwrap().is_none() {
        if let Ok(rd) = std::fs::read_dir(&tasks) {
            peak = peak.max(Some(rd.count()));
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    assert!(child.wait().unwrap().success());
    peak
}

#[test]
fn a_run_starts_no_more_worker_threads_than_it_has_runs_whatever_jobs_asks() {
    let (d, f) = with_good("threads");
    // Two runs long enough to be sampled (a fifth of a second): 2 × 200 flows × 50 exchanges.
    let args = ["sim", &f, "--set", "flows=200", "--set", "exchanges_per_flow=50", "--replications", "2"];
    let args = [&args[..], &["--jobs", "1000", "-q", "--out", "o"]].concat();
    let Some(peak) = peak_threads(&d.join("work"), &args) else { return };
    // The main thread, the two workers, and a margin for the runtime's own.
    assert!(peak <= 6, "{peak} threads for 2 runs with --jobs 1000");
}

#[test]
fn a_scenario_name_that_leaves_the_output_folder_is_refused_naming_the_key() {
    let (d, f) = with_good("name");
    let work = d.join("work");
    let abs = d.join("absolute-target");
    for name in ["../escaped", "../../../escaped", "a/../../escaped", abs.to_str().unwrap()] {
        let set = format!("name={name}");
        assert_refused(&work, &["sim", &f, "--set", &set, "-q"], &["key `name`"]);
        assert_refused(&work, &["sim", &f, "--set", &set, "--out", "o", "-q"], &["key `name`"]);
        assert_refused(&work, &["testbed", &f, "--set", &set, "-q"], &["key `name`"]);
    }
    let file = d.join("bad-name.toml");
    std::fs::write(&file, GOOD.replace("name = \"t/good\"", "name = \"../from-the-file\"")).unwrap();
    assert_refused(&work, &["sim", file.to_str().unwrap(), "-q"], &["bad-name.toml", "key `name`"]);
    assert_eq!(files_below(&d), ["bad-name.toml", "good.toml"], "nothing written anywhere");
    // A name of sub-folders stays allowed, and lands below results/.
    let (code, _, err) = run_in(&work, &["sim", &f, "--set", "name=a/b.c/d", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert!(work.join("results/a/b.c/d/summary.csv").is_file());
}

#[test]
fn one_key_in_two_sweeps_is_refused_naming_the_key() {
    let (d, f) = with_good("sweeps");
    let work = d.join("work");
    let args = ["sim", &f, "--sweep", "flows=1,2", "--sweep", "flows=3", "--out", "o", "-q"];
    assert_refused(&work, &args, &["--sweep", "`flows`"]);
    assert!(!work.join("o").exists());
    // Different keys still make every combination.
    let (code, _, err) = run_in(&work, &["sim", &f, "--sweep", "flows=1,2", "--sweep", "seed=3", "--out", "o", "-q"]);
    assert_eq!(code, 0, "{err}");
    let csv = std::fs::read_to_string(work.join("o/sweep.csv")).unwrap();
    assert_eq!(csv.lines().count(), 3, "a header and one row per point: {csv}");
}

#[test]
fn an_algorithm_given_twice_is_refused_naming_it_and_no_duplicate_rows_are_written() {
    let (d, f) = with_good("algorithms");
    let work = d.join("work");
    let args = ["sim", &f, "-a", "default", "-a", "cocoa", "-a", "default", "--out", "o", "-q"];
    assert_refused(&work, &args, &["key `algorithms`", "`default` is listed twice"]);
    let file = d.join("twice.toml");
    std::fs::write(&file, GOOD.replace("[\"default\"]", "[\"cocoa\", \"cocoa\"]")).unwrap();
    assert_refused(&work, &["sim", file.to_str().unwrap(), "--out", "o", "-q"], &["twice.toml", "`cocoa`"]);
    assert_refused(&work, &["testbed", &f, "-a", "default", "-a", "default", "-q"], &["listed twice"]);
    assert!(!work.join("o").exists());
}

#[test]
fn an_output_folder_that_cannot_be_written_is_refused_before_the_run_naming_it() {
    let (d, f) = with_good("out");
    let work = d.join("work");
    let file = d.join("a-file");
    std::fs::write(&file, "x").unwrap();
    for out in [file.clone(), file.join("below")] {
        let out = out.to_str().unwrap();
        assert_refused(&work, &["sim", &f, "--out", out, "-q"], &[out]);
        assert_refused(&work, &["sim", &f, "--out", out, "--sweep", "flows=1,2", "-q"], &[out]);
    }
    // A read-only folder, unless this user writes anyway (root does).
    let ro = d.join("read-only");
    std::fs::create_dir(&ro).unwrap();
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&ro, perms).unwrap();
    if std::fs::write(ro.join("probe"), "x").is_err() {
        assert_refused(&work, &["sim", &f, "--out", ro.to_str().unwrap(), "-q"], &[ro.to_str().unwrap()]);
    }
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&ro, perms).unwrap();
}

#[test]
fn the_largest_seed_runs_from_seed_or_set_and_its_resolved_scenario_runs_the_same() {
    let (d, f) = with_good("seed");
    let work = d.join("work");
    let max = "18446744073709551615";
    let (code, out, err) = run_in(&work, &["sim", &f, "--seed", max, "--out", "a", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(&format!("(seed {max},")), "{out}");
    let seed_line = format!("seed = \"{max}\"");
    let resolved = std::fs::read_to_string(work.join("a/scenario.toml")).unwrap();
    assert!(resolved.contains(&seed_line), "{resolved}");
    let set = format!("seed={max}");
    let (code, _, err) = run_in(&work, &["sim", &f, "--set", &set, "--out", "b", "-q"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run_in(&work, &["sim", "a/scenario.toml", "--out", "c", "-q"]);
    assert_eq!(code, 0, "{err}");
    let runs = |dir: &str| std::fs::read_to_string(work.join(dir).join("runs.csv")).unwrap();
    assert_eq!(runs("a"), runs("b"));
    assert_eq!(runs("a"), runs("c"));
    // A seed of 2^64 - 1 draws other streams than seed 1.
    let (code, _, err) = run_in(&work, &["sim", &f, "--out", "one", "-q"]);
    assert_eq!(code, 0, "{err}");
    assert_ne!(runs("a"), runs("one"));
    assert_refused(&work, &["sim", &f, "--set", "seed=-1", "-q"], &["key `seed`"]);
}
