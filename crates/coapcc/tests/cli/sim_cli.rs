//! `coapcc sim` from the command line: result files, error messages and exit codes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn coapcc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A fresh folder for one test, removed when the value is dropped (also when the test fails).
struct Tmp(tempfile::TempDir);

impl std::ops::Deref for Tmp {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<std::ffi::OsStr> for Tmp {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.path().as_os_str()
    }
}

fn tmp(name: &str) -> Tmp {
    Tmp(tempfile::Builder::new().prefix(&format!("coapcc-sim-cli-{name}-")).tempdir().unwrap())
}

fn scenario(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(rel).display().to_string()
}

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

fn assert_scenario_error(text: &str, needles: &[&str]) {
    let d = tmp("bad");
    let f = d.join("bad.toml");
    std::fs::write(&f, text).unwrap();
    let (code, _, err) = coapcc(&["sim", f.to_str().unwrap(), "--out", d.join("out").to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains("bad.toml"), "names the file: {err}");
    for n in needles {
        assert!(err.contains(n), "`{n}` not in: {err}");
    }
    assert!(!d.join("out").exists(), "nothing written for a bad scenario");
}

#[test]
fn a_missing_key_is_named_with_the_file() {
    assert_scenario_error(&GOOD.replace("flows = 2\n", ""), &["flows"]);
}

#[test]
fn a_negative_rate_is_named_with_the_file_and_key() {
    let text = GOOD.replace(
        "[network.nbiot]\nbuffer_bytes = 2500\nerrors = \"none\"",
        "[network.residual]\nmin_rate_pps = -1\nmax_rate_pps = 2",
    );
    assert_scenario_error(&text, &["min_rate_pps"]);
}

#[test]
fn an_unknown_algorithm_is_named_with_the_file_and_key() {
    assert_scenario_error(&GOOD.replace("[\"default\"]", "[\"default\", \"reno\"]"), &["key `algorithms`", "reno"]);
}

#[test]
fn an_unknown_algorithm_key_is_named() {
    assert_scenario_error(
        &format!("{GOOD}\n[algorithm.default]\nbogus = 1\n"),
        &["algorithm.default.bogus", "valid keys"],
    );
}

#[test]
fn a_bad_set_is_named() {
    let (code, _, err) = coapcc(&["sim", &scenario("fasor/10-flows-error-free-continuous.toml"), "--set", "nope=1"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nope"), "{err}");
}

#[test]
fn a_set_of_the_wrong_type_names_the_file_and_the_resolved_key_in_one_line() {
    let (code, _, err) =
        coapcc(&["sim", &scenario("fasor/10-flows-error-free-continuous.toml"), "--set", "flows=abc", "-q"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains("10-flows-error-free-continuous.toml") && err.contains("key `workload.flows`"), "{err}");
}

#[test]
fn an_unknown_algorithm_option_lists_the_valid_names_in_one_line() {
    let (code, _, err) =
        coapcc(&["sim", &scenario("fasor/10-flows-error-free-continuous.toml"), "--algorithm", "reno", "-q"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(err.contains("unknown algorithm `reno`") && err.contains("fasor-token"), "{err}");
}

#[test]
fn a_malformed_set_or_sweep_is_a_one_line_usage_error() {
    for (opt, val, needle) in [("--set", "flows", "expected KEY=VALUE"), ("--sweep", "=1,2", "bad --sweep")] {
        let (code, _, err) = coapcc(&["sim", &scenario("fasor/10-flows-error-free-continuous.toml"), opt, val]);
        assert_eq!(code, 2, "{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(err.contains(needle), "{err}");
    }
}

#[test]
fn typed_overrides_reach_the_resolved_scenario_as_written() {
    let d = tmp("typed");
    let (code, _, err) = coapcc(&[
        "sim",
        &scenario("fasor/10-flows-error-free-continuous.toml"),
        "--algorithm",
        "pcocoa",
        "--set",
        "algorithm.pcocoa.alpha=1/4",
        "--set",
        "network.nbiot.errors=high",
        "--set",
        "start_window_ms=1.5",
        "--set",
        "algorithm.pcocoa.dither=false",
        "--set",
        "flows=2",
        "--replications",
        "1",
        "--seed",
        "7",
        "--out",
        d.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    let resolved = std::fs::read_to_string(d.join("scenario.toml")).unwrap();
    for needle in [
        "alpha = \"1/4\"",
        "errors = \"high\"",
        "start_window_ms = 1.5",
        "dither = false",
        "flows = 2",
        "seed = 7",
        "algorithms = [\"pcocoa\"]",
    ] {
        assert!(resolved.contains(needle), "`{needle}` not in: {resolved}");
    }
}

#[test]
fn a_run_writes_flows_runs_summary_and_the_resolved_scenario() {
    let d = tmp("good");
    let (code, out, err) = coapcc(&[
        "sim",
        &scenario("fasor/10-flows-medium-errors-random.toml"),
        "--replications",
        "2",
        "--algorithm",
        "fasor",
        "--algorithm",
        "default",
        "--set",
        "flows=4",
        "--out",
        d.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("fasor") && out.contains("fct_med"), "{out}");
    let flows = std::fs::read_to_string(d.join("flows.csv")).unwrap();
    assert!(flows.starts_with("algorithm,replication,flow,fct_s,exchanges_completed,exchanges_failed,transmissions,retransmissions,unnecessary_retransmissions,median_rtt_s\n"));
    assert_eq!(flows.lines().count(), 1 + 2 * 2 * 4, "algorithms × replications × flows rows");
    assert_eq!(std::fs::read_to_string(d.join("runs.csv")).unwrap().lines().count(), 1 + 2 * 2);
    assert_eq!(std::fs::read_to_string(d.join("summary.csv")).unwrap().lines().count(), 1 + 2);
    let resolved = std::fs::read_to_string(d.join("scenario.toml")).unwrap();
    assert!(resolved.contains("replications = 2") && resolved.contains("flows = 4"), "{resolved}");
    // The resolved scenario reruns to the same bytes.
    let d2 = tmp("rerun");
    let (code, _, err) =
        coapcc(&["sim", d.join("scenario.toml").to_str().unwrap(), "--out", d2.to_str().unwrap(), "-q"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(std::fs::read_to_string(d2.join("flows.csv")).unwrap(), flows);
}

#[test]
fn a_sweep_runs_every_combination_and_collects_their_summaries() {
    let d = tmp("sweep");
    let (code, out, err) = coapcc(&[
        "sim",
        &scenario("fasor/10-flows-error-free-continuous.toml"),
        "--replications",
        "1",
        "-a",
        "fasor",
        "--sweep",
        "flows=2,3",
        "--sweep",
        "buffer_bytes=2500,28200",
        "--out",
        d.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("== fasor/10-flows-error-free-continuous [").count(), 4, "{out}");
    let sweep = std::fs::read_to_string(d.join("sweep.csv")).unwrap();
    let lines: Vec<&str> = sweep.lines().collect();
    assert!(lines[0].starts_with("flows,buffer_bytes,algorithm,runs,fct_p10_s"), "{}", lines[0]);
    assert_eq!(lines.len(), 1 + 4);
    assert!(lines[1].starts_with("\"2\",\"2500\",fasor,1,"), "{}", lines[1]);
    assert!(d.join("flows=3,buffer_bytes=28200/flows.csv").exists());
    let (code, _, err) = coapcc(&["sim", &scenario("fasor/10-flows-error-free-continuous.toml"), "--sweep", "flows"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad --sweep"), "{err}");
}

#[test]
fn samples_csv_holds_every_rtt_of_each_flow_and_its_median_is_the_flows() {
    let d = tmp("samples");
    let out = d.join("out");
    let (code, _, err) = coapcc(&[
        "sim",
        &scenario("fasor/10-flows-medium-errors-continuous.toml"),
        "--algorithm",
        "cocoa",
        "--replications",
        "1",
        "--samples",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let samples = std::fs::read_to_string(out.join("samples.csv")).unwrap();
    let flows = std::fs::read_to_string(out.join("flows.csv")).unwrap();
    let mut lines = samples.lines();
    assert_eq!(lines.next(), Some("algorithm,replication,flow,kind,value_s,count"));
    let mut rtts: std::collections::BTreeMap<String, Vec<f64>> = Default::default();
    let mut expired = 0;
    for l in lines {
        let c: Vec<&str> = l.split(',').collect();
        assert_eq!(c[5], "1", "exact values: {l}");
        match c[3] {
            "rtt" => rtts.entry(c[2].to_string()).or_default().push(c[4].parse().unwrap()),
            "expired_rto" => expired += 1,
            k => panic!("unknown kind {k}"),
        }
    }
    assert!(expired > 0, "medium errors make timers expire");
    for l in flows.lines().skip(1) {
        let c: Vec<&str> = l.split(',').collect();
        let mut v = rtts.remove(c[2]).unwrap_or_default();
        assert_eq!(v.len(), c[4].parse::<usize>().unwrap(), "one RTT per completed exchange: {l}");
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        assert!((median - c[9].parse::<f64>().unwrap()).abs() < 2e-6, "median of flow {}", c[2]);
    }
    assert!(rtts.is_empty());
    // Without the flag, no samples file.
    let out2 = d.join("out2");
    let scen = scenario("fasor/10-flows-medium-errors-continuous.toml");
    let (code, _, _) =
        coapcc(&["sim", &scen, "-a", "cocoa", "--replications", "1", "-q", "--out", out2.to_str().unwrap()]);
    assert_eq!(code, 0);
    assert!(!out2.join("samples.csv").exists());
}

#[test]
fn a_response_larger_than_the_mtu_is_a_configuration_error_found_at_load() {
    assert_scenario_error(
        &format!("{GOOD}[coap]\nresponse_payload_bytes = 400\n"),
        &["coap.mtu_bytes", "a 440-byte datagram does not fit the 296-byte MTU"],
    );
}

#[test]
fn an_nbiot_rate_is_a_key_of_the_preset_and_lands_in_the_resolved_scenario() {
    let d = tmp("nbiot-key");
    let f = d.join("good.toml");
    std::fs::write(&f, GOOD).unwrap();
    let out = d.join("out");
    let (code, _, err) = coapcc(&[
        "sim",
        f.to_str().unwrap(),
        "--set",
        "network.nbiot.downlink_kbps=20",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{err}");
    let resolved = std::fs::read_to_string(out.join("scenario.toml")).unwrap();
    assert!(resolved.contains("downlink_kbps = 20\n") && resolved.contains("uplink_kbps = 60\n"), "{resolved}");
    let (code, _, err) = coapcc(&["sim", f.to_str().unwrap(), "--set", "network.nbiot.downlink_kbps=0.0001"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("key `network.nbiot.downlink_kbps`"), "{err}");
}

#[test]
fn a_scenario_too_large_for_the_machine_is_refused_with_its_estimate_before_allocating() {
    // Without the estimate this aborts in a 6-terabyte allocation (exit 134).
    let d = tmp("huge");
    let (code, out, err) = coapcc(&[
        "sim",
        &scenario("fasor/400-flows-infinite-buffer-continuous.toml"),
        "--set",
        "flows=4294967295",
        "--out",
        d.join("out").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.contains("needs an estimated") && err.contains("TiB of memory") && err.contains("is available"),
        "{err}"
    );
    assert!(out.is_empty() && !d.join("out").exists(), "nothing run or written");
}

#[test]
fn a_very_long_run_announces_its_event_count_and_wall_time_before_starting() {
    // The long scenario is announced while every scenario is checked; the second one is
    // refused, so nothing runs.
    let d = tmp("long");
    let f = d.join("good.toml");
    std::fs::write(&f, GOOD).unwrap();
    let (code, _, err) = coapcc(&[
        "sim",
        f.to_str().unwrap(),
        "--sweep",
        "flows=400,4294967295",
        "--set",
        "exchanges_per_flow=100000",
        "--jobs",
        "1",
        "--out",
        d.join("out").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("t/good: an estimated 440000000 events, about 220 s on 1 thread(s)"), "{err}");
    assert!(err.contains("needs an estimated"), "{err}");
    assert!(!d.join("out").exists(), "nothing run or written");
}

#[test]
fn an_algorithm_the_rtt_trace_model_cannot_feed_is_refused_at_load() {
    let d = tmp("trace-alg");
    let (code, out, err) = coapcc(&[
        "sim",
        &scenario("makarem/rtt-trace/row-01.toml"),
        "--algorithm",
        "uip",
        "--out",
        d.join("out").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("key `algorithms`: `uip`: the RTT-trace model has no RTO estimator"), "{err}");
    assert!(out.is_empty() && !d.join("out").exists(), "nothing run or written");
}

/// The values of column `name` (found by its header) of every row of `csv`.
fn column(csv: &str, name: &str) -> Vec<String> {
    let i = csv.lines().next().and_then(|h| h.split(',').position(|c| c == name));
    let i = i.unwrap_or_else(|| panic!("no column `{name}` in {csv}"));
    csv.lines().skip(1).map(|l| l.split(',').nth(i).unwrap_or_default().to_string()).collect()
}

fn unfinished(csv: &str) -> Vec<String> {
    column(csv, "flows_unfinished")
}

#[test]
fn flows_cut_off_by_the_time_limit_are_counted_in_runs_and_summary_and_warned_about() {
    // The uplink alone takes 200 ms one way: with a 100-ms time limit no flow can finish its
    // single exchange, so each run has exactly 3 unfinished flows.
    let text = GOOD.replace("flows = 2\n", "flows = 3\nexchanges_per_flow = 1\ntime_limit_ms = 100\n");
    let d = tmp("unfinished");
    let f = d.join("s.toml");
    std::fs::write(&f, &text).unwrap();
    let out_dir = d.join("out");
    let (code, out, err) =
        coapcc(&["sim", f.to_str().unwrap(), "--replications", "2", "--out", out_dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let runs = std::fs::read_to_string(out_dir.join("runs.csv")).unwrap();
    assert!(runs.lines().next().unwrap().ends_with(",max_queue_down_bytes,flows_unfinished"), "{runs}");
    assert_eq!(unfinished(&runs), ["3", "3"]);
    let summary = std::fs::read_to_string(out_dir.join("summary.csv")).unwrap();
    assert!(summary.lines().next().unwrap().contains(",spurious,flows_unfinished,"), "{summary}");
    assert_eq!(unfinished(&summary), ["6"]);
    assert!(out.contains("warning: default: 6 of 6 flows did not finish before the time limit"), "{out}");
    assert!(out.lines().next().is_some_and(|l| l.starts_with("==")), "{out}");
    assert!(out.lines().nth(1).is_some_and(|l| l.ends_with("unfinished")), "{out}");

    // The same scenario with the default (one day) time limit: every flow finishes, no warning.
    std::fs::write(&f, text.replace("time_limit_ms = 100\n", "")).unwrap();
    let out_dir = d.join("out2");
    let (code, out, err) =
        coapcc(&["sim", f.to_str().unwrap(), "--replications", "2", "--out", out_dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(unfinished(&std::fs::read_to_string(out_dir.join("runs.csv")).unwrap()), ["0", "0"]);
    assert_eq!(unfinished(&std::fs::read_to_string(out_dir.join("summary.csv")).unwrap()), ["0"]);
    assert!(!out.contains("warning"), "{out}");
}

#[test]
fn the_unfinished_count_of_a_run_is_the_number_of_its_flows_without_a_completion_time() {
    // Ten flows over a lossy link, cut off after 110 s (near the median FCT): some finish, some do not.
    let d = tmp("cutoff");
    let (code, out, err) = coapcc(&[
        "sim",
        &scenario("fasor/10-flows-high-errors-continuous.toml"),
        "--replications",
        "2",
        "--algorithm",
        "default",
        "--set",
        "time_limit_ms=110000",
        "--out",
        d.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let flows = std::fs::read_to_string(d.join("flows.csv")).unwrap();
    let missing = |r: &str| {
        flows.lines().skip(1).filter(|l| l.split(',').nth(1) == Some(r) && l.split(',').nth(3) == Some("")).count()
    };
    let per_run: Vec<String> = ["0", "1"].iter().map(|r| missing(r).to_string()).collect();
    assert_eq!(unfinished(&std::fs::read_to_string(d.join("runs.csv")).unwrap()), per_run);
    let total = missing("0") + missing("1");
    assert!(total > 0 && total < 20, "a mix of finished and unfinished flows: {total}");
    assert_eq!(unfinished(&std::fs::read_to_string(d.join("summary.csv")).unwrap()), [total.to_string()]);
    assert!(out.contains(&format!("warning: default: {total} of 20 flows did not finish")), "{out}");
}

#[test]
fn the_summary_interval_of_the_median_is_the_second_and_eighth_run_median_of_nine_at_96_1_percent() {
    // Nine replications: the sign-test interval (x(k), x(10−k)) covers the median with
    // probability 1 − 2·P(Binomial(9, 1/2) ≤ k − 1); k = 2 gives 1 − 2·(1 + 9)/512 = 0.9609375,
    // k = 3 only 1 − 2·(1 + 9 + 36)/512 = 0.8203125 < 0.95.
    let d = tmp("median-ci");
    let (code, out, err) = coapcc(&[
        "sim",
        &scenario("fasor/10-flows-high-errors-random.toml"),
        "--replications",
        "9",
        "--algorithm",
        "cocoa",
        "--out",
        d.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains("too few for a 95 % interval"), "{out}");
    // Each replication's median FCT, from flows.csv (the mean of the middle two of an even count).
    let flows = std::fs::read_to_string(d.join("flows.csv")).unwrap();
    let (rep, fct) = (column(&flows, "replication"), column(&flows, "fct_s"));
    let mut medians: Vec<f64> = (0..9)
        .map(|r| {
            let mut xs: Vec<f64> = rep
                .iter()
                .zip(&fct)
                .filter(|(p, x)| **p == r.to_string() && !x.is_empty())
                .map(|(_, x)| x.parse().unwrap())
                .collect();
            xs.sort_by(f64::total_cmp);
            let m = xs.len();
            (xs[(m - 1) / 2] + xs[m / 2]) / 2.0
        })
        .collect();
    medians.sort_by(f64::total_cmp);
    let summary = std::fs::read_to_string(d.join("summary.csv")).unwrap();
    let value = |name: &str| column(&summary, name)[0].parse::<f64>().unwrap();
    assert!((value("fct_run_median_ci95_lo_s") - medians[1]).abs() < 1e-6, "{summary} {medians:?}");
    assert!((value("fct_run_median_ci95_hi_s") - medians[7]).abs() < 1e-6, "{summary} {medians:?}");
    assert_eq!(column(&summary, "fct_run_median_ci_level"), ["0.960938"]);

    // Five replications: even (x(1), x(5)) covers only 1 − 2/32 = 93.75 %; the columns are
    // empty and the printed table says why.
    let d = tmp("median-ci-5");
    let args =
        ["sim", &scenario("fasor/10-flows-high-errors-random.toml"), "--replications", "5", "--algorithm", "cocoa"];
    let (code, out, err) = coapcc(&[&args[..], &["--out", d.to_str().unwrap()]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("note: 5 replications are too few for a 95 % interval of the median FCT"), "{out}");
    let summary = std::fs::read_to_string(d.join("summary.csv")).unwrap();
    assert_eq!(column(&summary, "fct_run_median_ci95_lo_s"), [""]);
    assert_eq!(column(&summary, "fct_run_median_ci_level"), [""]);
}

const MULTIHOP: &str = r#"
name = "t/multihop"
description = "d"
source = "s"
seed = 1
replications = 2
algorithms = ["default", "cocoa"]
[multihop]
rdc = "contikimac"
duration_ms = 30000
[multihop.topology]
kind = "line"
nodes = 3
spacing_m = 40.0
[multihop.workload]
kind = "coap_saturated"
window_start_ms = 0
senders = [2]
receiver = 0
"#;

#[test]
fn a_multihop_run_writes_its_csv_files_identically_for_any_thread_count() {
    let d = tmp("multihop");
    let f = d.join("m.toml");
    std::fs::write(&f, MULTIHOP).unwrap();
    let mut outputs = Vec::new();
    for jobs in ["1", "2"] {
        let out = d.join(format!("out{jobs}"));
        let (code, stdout, err) =
            coapcc(&["sim", f.to_str().unwrap(), "--out", out.to_str().unwrap(), "--jobs", jobs, "-q"]);
        assert_eq!(code, 0, "{err}");
        assert!(stdout.contains("throughput_per_s") && stdout.contains("cocoa"), "{stdout}");
        let files: Vec<String> = ["runs.csv", "flows.csv", "nodes.csv", "summary.csv"]
            .iter()
            .map(|n| std::fs::read_to_string(out.join(n)).unwrap())
            .collect();
        outputs.push(files);
    }
    assert_eq!(outputs[0], outputs[1]);
    let runs = &outputs[0][0];
    assert_eq!(runs.lines().count(), 5, "header + 2 algorithms × 2 replications:\n{runs}");
    let nodes = &outputs[0][2];
    assert!(nodes.lines().nth(1).unwrap().contains("border_router"), "{nodes}");
}

#[test]
fn a_bad_multihop_key_is_named_with_the_file_and_its_dotted_path() {
    assert_scenario_error(&MULTIHOP.replace("rdc = \"contikimac\"", "rdc = \"xmac\""), &["multihop.rdc", "xmac"]);
    assert_scenario_error(
        &format!("{MULTIHOP}[multihop.csma]\nqueuebuf_num = 0\n"),
        &["multihop.csma.queuebuf_num", "at least 1"],
    );
    assert_scenario_error(&MULTIHOP.replace("receiver = 0", "receiver = 7"), &["multihop.workload"]);
}

#[test]
fn describe_prints_the_routing_tree_and_writes_a_map() {
    let d = tmp("describe");
    let (code, stdout, err) =
        coapcc(&["sim", "--describe", &scenario("lim/e2-contikimac-4x4.toml"), "--out", d.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    // Spec multihop.md §6 check 10: Lim 4 × 4 mean hop count 3.2, max 6.
    assert!(stdout.contains("mean 3.20, max 6"), "{stdout}");
    assert!(stdout.contains("carrier sense 47.6 m"), "{stdout}");
    let svg = std::fs::read_to_string(d.join("map.svg")).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("DODAG edge"), "{}", &svg[..200.min(svg.len())]);
    let (code, stdout, err) =
        coapcc(&["sim", "--describe", &scenario("nbiot/400-flows-14100-byte-buffer-continuous.toml")]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("uplink (client → server) link stages"), "{stdout}");
}

#[test]
fn every_multihop_scenario_loads_and_describes() {
    for dir in ["lim", "betzler", "makarem-cooja"] {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(dir);
        let mut n = 0;
        for e in std::fs::read_dir(&root).unwrap() {
            let p = e.unwrap().path();
            let d = tmp("every");
            let (code, stdout, err) = coapcc(&["sim", "--describe", p.to_str().unwrap(), "--out", d.to_str().unwrap()]);
            assert_eq!(code, 0, "{}: {err}", p.display());
            assert!(stdout.contains("hop counts to the border router"), "{stdout}");
            n += 1;
        }
        assert!(n >= 5, "{dir}: {n} scenarios");
    }
}

// Hostile input: worker-thread counts, scenario names that would write outside the output
// folder, repeated sweeps and algorithms, output folders that cannot be written, and the largest
// seed. Each is refused before anything runs (exit code 2, one line naming the option, key or
// path) or taken as documented.

/// `coapcc ARGS` run in folder `dir`.
fn run_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out: Output = Command::new(env!("CARGO_BIN_EXE_coapcc")).current_dir(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// A folder holding `GOOD` as `good.toml` (and a `work/` folder to run in); its path.
fn with_good(name: &str) -> (Tmp, String) {
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
fn an_output_folder_that_cannot_be_written_is_refused_before_sim_or_testbed_runs_naming_it() {
    let (d, f) = with_good("out");
    let work = d.join("work");
    let file = d.join("a-file");
    std::fs::write(&file, "x").unwrap();
    for out in [file.clone(), file.join("below")] {
        let out = out.to_str().unwrap();
        assert_refused(&work, &["sim", &f, "--out", out, "-q"], &[out]);
        assert_refused(&work, &["sim", &f, "--out", out, "--sweep", "flows=1,2", "-q"], &[out]);
        // Without --quiet: one line on stderr means not even the real-time estimate was made.
        let err = assert_refused(&work, &["testbed", &f, "--out", out], &[out, "cannot write results"]);
        assert!(!err.contains("testbed:"), "{err}");
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x", "the file is untouched");
    // A read-only folder, unless this user writes anyway (root does).
    let ro = d.join("read-only");
    std::fs::create_dir(&ro).unwrap();
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&ro, perms).unwrap();
    if std::fs::write(ro.join("probe"), "x").is_err() {
        for command in ["sim", "testbed"] {
            assert_refused(&work, &[command, &f, "--out", ro.to_str().unwrap(), "-q"], &[ro.to_str().unwrap()]);
        }
    }
    let mut perms = std::fs::metadata(&ro).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(&ro, perms).unwrap();
}

#[test]
fn a_run_refused_after_the_output_check_leaves_no_folder_the_check_created() {
    let (d, f) = with_good("leftovers");
    let work = d.join("work");
    // Bad input found after the check: --pcap of a multihop scenario (sim), a scenario longer
    // than --max-wall-s (testbed); each --out two folders deep, neither existing.
    let multihop = scenario("lim/e1-nullrdc-4x4.toml");
    assert_refused(&work, &["sim", &multihop, "--pcap", "--out", "new/nested", "-q"], &["--pcap"]);
    let multihop2 = scenario("lim/e2-contikimac-4x4.toml");
    assert_refused(&work, &["sim", &multihop, &multihop2, "--pcap", "--out", "new/nested", "-q"], &["--pcap"]);
    let args = ["testbed", &f, "--max-wall-s", "0", "--pcap", "--out", "new/nested", "-q"];
    assert_refused(&work, &args, &["--max-wall-s 0"]);
    assert!(!work.join("new").exists(), "left behind: {:?}", files_below(&work));
    // The default output folder (`results/…`) is not left behind either.
    assert_refused(&work, &["testbed", &f, "--max-wall-s", "0", "-q"], &["--max-wall-s 0"]);
    assert!(!work.join("results").exists());
    // A folder that existed stays, even empty, and so does what a finished scenario wrote.
    std::fs::create_dir(work.join("kept")).unwrap();
    assert_refused(&work, &["testbed", &f, "--max-wall-s", "0", "--out", "kept", "-q"], &["--max-wall-s 0"]);
    assert!(work.join("kept").is_dir());
    let (code, _, err) = run_in(&work, &["sim", &f, &multihop, "--pcap", "--out", "both", "-q"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        work.join("both/t/good/flows.csv").is_file() && !work.join("both/lim").exists(),
        "{:?}",
        files_below(&work)
    );
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
