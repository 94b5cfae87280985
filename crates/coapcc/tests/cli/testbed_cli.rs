//! `coapcc testbed`: the smallest cross-check agrees with the simulator (six real-time
//! replications compared by replication with twenty simulated ones, about 30 s), the output
//! files are those of `coapcc sim`, and a scenario too long for real time is refused with an
//! estimate. The other tests run a few seconds of real time on loopback.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn coapcc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_coapcc")).current_dir(repo()).args(args).output().unwrap()
}

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("coapcc-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_smallest_crosscheck_agrees_with_the_simulation() {
    let dir = temp("crosscheck-smallest");
    let out = coapcc(&[
        "reproduce",
        "crosscheck",
        "--quick",
        "--quiet",
        "--replications",
        "20",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // case,algorithm,metric,sim_replications,testbed_replications,sim_median,…,verdict
    let csv = std::fs::read_to_string(dir.join("crosscheck.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let comparisons: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    let metrics: Vec<&str> = comparisons.iter().map(|c| c[col("metric")]).collect();
    assert_eq!(
        metrics,
        [
            "fct_median_s",
            "error_drop_ratio",
            "buffer_drop_ratio",
            "retransmissions_per_flow",
            "unnecessary_retransmissions_per_flow"
        ],
        "the metrics of Default CoAP"
    );
    for c in &comparisons {
        assert_eq!((c[col("sim_replications")], c[col("testbed_replications")]), ("20", "6"), "{c:?}");
        assert_eq!(c[col("pairs")], "6", "{c:?}");
        let (sim, testbed): (f64, f64) =
            (c[col("sim_median")].parse().unwrap(), c[col("testbed_median")].parse().unwrap());
        assert!(testbed.is_finite() && sim.is_finite(), "{c:?}");
        // Six pairs give the interval between the extreme differences (96.9 %).
        assert_eq!(c[col("paired_ci_level")], "0.96875", "{c:?}");
        assert_eq!(c[col("verdict")], "agrees", "{c:?}");
    }
    let fct = &comparisons[0];
    let (lo, hi): (f64, f64) = (fct[col("paired_ci_lo")].parse().unwrap(), fct[col("paired_ci_hi")].parse().unwrap());
    let tolerance: f64 = fct[col("tolerance")].parse().unwrap();
    assert!(-tolerance <= lo && lo <= hi && hi <= tolerance, "{fct:?}");
    for side in ["sim", "testbed"] {
        for f in ["flows.csv", "runs.csv", "summary.csv", "scenario.toml"] {
            let file = dir.join("data/crosscheck/smallest").join(side).join(f);
            assert!(file.is_file(), "{side}/{f}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_testbed_writes_the_files_of_sim_with_the_same_columns() {
    let dir = temp("testbed-files");
    let (tb, sim) = (dir.join("tb"), dir.join("sim"));
    let out = coapcc(&[
        "testbed",
        "scenarios/crosscheck/smallest.toml",
        "--replications",
        "1",
        "--quiet",
        "--pcap",
        "--out",
        tb.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = coapcc(&[
        "sim",
        "scenarios/crosscheck/smallest.toml",
        "--replications",
        "1",
        "-q",
        "--out",
        sim.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    for f in ["flows.csv", "runs.csv", "summary.csv"] {
        let header = |d: &Path| std::fs::read_to_string(d.join(f)).unwrap().lines().next().unwrap().to_string();
        assert_eq!(header(&tb), header(&sim), "{f}");
        assert_eq!(
            std::fs::read_to_string(tb.join(f)).unwrap().lines().count(),
            std::fs::read_to_string(sim.join(f)).unwrap().lines().count(),
            "{f}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(tb.join("scenario.toml")).unwrap(),
        std::fs::read_to_string(sim.join("scenario.toml")).unwrap()
    );
    assert!(std::fs::metadata(tb.join("pcap/default-0.pcap")).unwrap().len() > 24, "the emulator's pcap has records");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_scenario_too_long_for_real_time_is_refused_with_an_estimate() {
    let out = coapcc(&["testbed", "scenarios/crosscheck/4-flows-medium-errors.toml"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("would take about") && err.contains("min) of real time"), "{err}");
}
