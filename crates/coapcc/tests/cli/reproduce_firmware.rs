//! `coapcc reproduce firmware --quick`: the thesis's checkable facts (401 segments, 16 040
//! header bytes, 32.2 s for one error-free client) hold as computed from the run's own
//! `flows.csv`, and the result table (`results.csv`) is made of the run's cases.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The fields of one CSV line (double quotes group a field holding commas).
fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(ch),
        }
    }
    out.push(cur);
    out
}

/// A CSV file as rows of (column name → field).
fn rows(path: &Path) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header = fields(lines.next().unwrap());
    lines.map(|l| header.iter().cloned().zip(fields(l)).collect()).collect()
}

fn number(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s:?}"))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    assert!(n > 0, "no values");
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

#[test]
fn the_quick_firmware_run_gives_the_theses_segments_header_bytes_and_ideal_time_from_its_own_flows() {
    let dir = tempfile::Builder::new().prefix("coapcc-firmware-").tempdir().unwrap();
    let out = dir.path().join("out");
    let status = Command::new(env!("CARGO_BIN_EXE_coapcc"))
        .current_dir(root())
        .args(["reproduce", "firmware", "--quick", "--quiet", "--out"])
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());

    // The thesis's arithmetic, ours: 102 400 B and the 8-byte CoAP-over-TCP header in
    // segments of a 296-byte MTU less 40 B of IPv4 (20) and TCP (20) headers.
    let (response_bytes, header_bytes) = (102_400_u64 + 8, 20_u64 + 20);
    let segments = response_bytes.div_ceil(296 - header_bytes);

    let flows = rows(&out.join("data/firmware/tcp-1-client/flows.csv"));
    let claims = rows(&out.join("claims.csv"));
    let claim = |id: &str| claims.iter().find(|r| r["claim"] == id).unwrap_or_else(|| panic!("no claim {id}"));
    for a in ["cubic", "reno"] {
        let mine: Vec<_> = flows.iter().filter(|r| r["algorithm"] == a).collect();
        assert!(!mine.is_empty(), "no flows of {a}");
        let run_segments = median(mine.iter().map(|r| number(&r["data_segments"])).collect());
        let run_fct = median(mine.iter().map(|r| number(&r["fct_s"])).collect());
        assert_eq!(run_segments, segments as f64, "{a}: the run's data segments");
        assert!((run_fct - 32.2).abs() <= 0.05 * 32.2, "{a}: the run's FCT {run_fct} s is not within 5 % of 32.2 s");

        let s = claim(&format!("fw-segments-{a}"));
        assert_eq!(number(&s["ours"]), run_segments, "{a}: claims.csv's segments are not the run's");
        assert_eq!(s["verdict"], "holds");
        let f = claim(&format!("fw-ideal-fct-{a}"));
        assert!(
            (number(&f["ours"]) - run_fct).abs() < 1e-5,
            "{a}: claims.csv's FCT {} is not the run's {run_fct}",
            f["ours"]
        );
        assert_eq!(f["verdict"], "holds");
    }
    let h = claim("fw-header-bytes-cubic");
    assert_eq!(number(&h["ours"]), (segments * header_bytes) as f64);
    assert_eq!(h["verdict"], "holds");
    // Each published number counts once: only the CUBIC time is counted.
    let roles: Vec<(&str, &str)> =
        ["fw-segments-cubic", "fw-segments-reno", "fw-header-bytes-cubic", "fw-ideal-fct-cubic", "fw-ideal-fct-reno"]
            .iter()
            .map(|id| (*id, claim(id)["role"].as_str()))
            .collect();
    assert_eq!(
        roles,
        [
            ("fw-segments-cubic", "calibration"),
            ("fw-segments-reno", "restates"),
            ("fw-header-bytes-cubic", "derived"),
            ("fw-ideal-fct-cubic", "counted"),
            ("fw-ideal-fct-reno", "restates")
        ]
    );

    // The result table holds every firmware case's every algorithm, its numbers the run's.
    let results = rows(&out.join("results.csv"));
    let folder = root().join("scenarios/firmware");
    let mut checked = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let case = format!("firmware/{}", path.file_stem().unwrap().to_string_lossy());
        let scenario: toml::Table = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let summary = rows(&out.join("data").join(&case).join("summary.csv"));
        for a in scenario["algorithms"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()) {
            let r = results
                .iter()
                .find(|r| r["case"] == case && r["algorithm"] == a)
                .unwrap_or_else(|| panic!("results.csv has no row of {a} in {case}"));
            let s = summary.iter().find(|s| s["algorithm"] == a).unwrap();
            // summary.csv leaves an undefined median empty.
            let fct = number(&r["fct_median_s"]);
            let p50 = if s["fct_p50_s"].is_empty() { f64::NAN } else { number(&s["fct_p50_s"]) };
            if p50.is_nan() {
                assert!(fct.is_nan(), "{case} {a}: {fct} s where no flow finished");
                continue;
            }
            assert!((fct - p50).abs() < 1e-3, "{case} {a}: results.csv {fct} s, summary.csv {p50} s");
            let goodput = number(&r["goodput_kbps"]);
            assert!((goodput - 102_400.0 * 8.0 / fct / 1000.0).abs() < 1e-9, "{case} {a}: goodput {goodput}");
            checked += 1;
        }
    }
    assert!(checked >= 36, "only {checked} rows checked");

    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("measured CoAP-over-TCP results are not in the source text"), "the report does not say so");
}
