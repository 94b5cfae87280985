//! `coapcc` from an empty folder, as a new user runs it outside the clone: built-in scenarios
//! by name (`sim`, `reproduce`, `scenarios`), and `run.json` beside every result.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `coapcc ARGS` in `dir`: exit code, standard output, standard error.
fn coapcc_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc")).args(args).current_dir(dir).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A new empty folder outside the repository.
fn empty_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("coapcc-anywhere-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn repo_file(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(rel)).unwrap()
}

/// `dir/run.json` with every field checked; returns it.
fn run_json(dir: &Path, command_start: &str) -> serde_json::Value {
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    assert_eq!(v["coapcc_version"], env!("CARGO_PKG_VERSION"));
    // Built from this checkout: a 40-hex-digit commit.
    let commit = v["git_commit"].as_str().unwrap_or_default();
    assert!(commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()), "{v}");
    let date = v["date_utc"].as_str().unwrap();
    assert!(date.len() == 20 && date.ends_with('Z') && date.as_bytes()[10] == b'T', "{date}");
    assert!(v["command"].as_str().unwrap().starts_with(command_start), "{v}");
    assert!(v["host_cores"].as_u64().unwrap() >= 1);
    v
}

#[test]
fn a_built_in_scenario_runs_by_name_from_an_empty_folder_and_its_folder_records_the_run() {
    let d = empty_dir("sim");
    let name = "fasor/10-flows-error-free-random";
    let (code, out, err) =
        coapcc_in(&d, &["sim", name, "-a", "default", "--replications", "1", "--seed", "5", "-q", "--out", "r"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with(&format!("== {name} (seed 5, 1 replications)")), "{out}");
    for f in ["flows.csv", "runs.csv", "summary.csv", "scenario.toml", "run.json"] {
        assert!(d.join("r").join(f).is_file(), "{f}");
    }
    let v = run_json(&d.join("r"), &format!("coapcc sim {name} -a default"));
    assert_eq!(v["seed"], 5, "--seed is the run's seed");
    // With `.toml` it is the same scenario.
    let (code, _, err) = coapcc_in(
        &d,
        &["sim", &format!("{name}.toml"), "-a", "default", "--replications", "1", "--seed", "5", "-q", "--out", "r2"],
    );
    assert_eq!(code, 0, "{err}");
    let read = |dir: &str| std::fs::read(d.join(dir).join("summary.csv")).unwrap();
    assert_eq!(read("r"), read("r2"));
    // A file of that name in the folder wins over the built-in one.
    std::fs::create_dir_all(d.join("fasor")).unwrap();
    std::fs::write(d.join("fasor/10-flows-error-free-random.toml"), "not a scenario").unwrap();
    let (code, _, err) = coapcc_in(&d, &["sim", &format!("{name}.toml"), "-q", "--out", "r3"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("error: fasor/10-flows-error-free-random.toml:"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn reproduce_runs_from_an_empty_folder_on_the_built_in_scenarios_and_its_report_shows_the_run() {
    let d = empty_dir("reproduce");
    let (code, out, err) = coapcc_in(&d, &["reproduce", "makarem-rto", "--quick", "-q", "--out", "r"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("report: r/index.html"), "{out}");
    let v = run_json(&d.join("r"), "coapcc reproduce makarem-rto --quick");
    assert!(v["seed"].is_null(), "several scenarios, each its own seed");
    let md = std::fs::read_to_string(d.join("r/report.md")).unwrap();
    let line = md.lines().find(|l| l.starts_with("Run: ")).unwrap();
    assert!(
        line.contains(v["date_utc"].as_str().unwrap()) && line.contains(v["git_commit"].as_str().unwrap()),
        "{line}"
    );
    let html = std::fs::read_to_string(d.join("r/index.html")).unwrap();
    assert!(html.contains(&format!("<code>{}</code>", v["command"].as_str().unwrap())), "the header of index.html");
    // A folder of the user's instead: one without the experiment's files is bad input naming it.
    std::fs::create_dir_all(d.join("mine")).unwrap();
    let (code, _, err) =
        coapcc_in(&d, &["reproduce", "makarem-rto", "--quick", "-q", "--scenarios", "mine", "--out", "r2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("mine"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn scenarios_lists_every_built_in_file_in_three_formats_and_shows_one() {
    let d = empty_dir("scenarios");
    let (code, text, err) = coapcc_in(&d, &["scenarios"]);
    assert_eq!(code, 0, "{err}");
    // Every `*.toml` under the repository's scenarios/ is one line (after the header).
    fn count(dir: &Path) -> usize {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| if p.is_dir() { count(&p) } else { usize::from(p.extension().is_some_and(|x| x == "toml")) })
            .sum()
    }
    let n = count(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios"));
    assert_eq!(text.lines().count(), n + 1);
    assert!(text.lines().any(|l| l.starts_with("lim/e2-contikimac-5x5 ") && l.contains("multihop")), "{text}");
    let (_, csv, _) = coapcc_in(&d, &["scenarios", "--format", "csv"]);
    assert_eq!(csv.lines().next(), Some("name,model,description"));
    assert_eq!(csv.lines().count(), n + 1);
    let (_, json, _) = coapcc_in(&d, &["scenarios", "--format", "json"]);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&json).unwrap();
    assert_eq!(rows.len(), n);
    assert!(rows.iter().all(|r| r["name"].is_string() && r["model"].is_string() && r["description"].is_string()));
    let (code, file, _) = coapcc_in(&d, &["scenarios", "makarem/rtt-trace/row-04"]);
    assert_eq!(code, 0);
    assert_eq!(file, repo_file("makarem/rtt-trace/row-04.toml"), "the file as it is in the repository");
    std::fs::remove_dir_all(&d).unwrap();
}
