//! The smallest case of `coapcc reproduce crosscheck-tcp`: coapcc's TCP model against ns-3's
//! TCP on one error-free client with an unlimited buffer, CUBIC and Reno, in the ns-3-alike
//! configuration (the checked one), the matched one and with Linux's defaults (no loss: every
//! side gives the ideal). `scripts/setup-ns3`
//! installs ns-3 3.44 and builds the ns-3 program first; a failure to install is a test
//! failure with the script's reason, never a skip.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Runs `command` to its end, killing it (by its PID, which this test started) after `limit`.
fn run_bounded(command: &mut Command, limit: Duration) -> Output {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("the program starts");
    // Time is counted in polls (a test reads no clock): at least `limit` of sleeping.
    let step = Duration::from_millis(50);
    let mut waited = Duration::ZERO;
    loop {
        if child.try_wait().expect("waiting for the program").is_some() {
            return child.wait_with_output().expect("its output");
        }
        if waited > limit {
            let _ = child.kill();
            let out = child.wait_with_output().expect("its output");
            panic!("{command:?} took more than {limit:?}; stderr: {}", String::from_utf8_lossy(&out.stderr));
        }
        std::thread::sleep(step);
        waited += step;
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root")
}

#[test]
fn the_smallest_firmware_case_agrees_with_ns3_within_ten_percent() {
    let root = root();
    let peers = std::env::var_os("COAPCC_PEERS_DIR").map_or_else(|| root.join("target/peers"), PathBuf::from);
    let setup = run_bounded(
        Command::new(root.join("scripts/setup-ns3")).env("COAPCC_PEERS_DIR", &peers).current_dir(&root),
        Duration::from_secs(1_800),
    );
    assert!(
        setup.status.success(),
        "scripts/setup-ns3 could not install ns-3:\n{}{}",
        String::from_utf8_lossy(&setup.stdout),
        String::from_utf8_lossy(&setup.stderr)
    );
    let out = std::env::temp_dir().join(format!("coapcc-crosscheck-tcp-{}", std::process::id()));
    let run = run_bounded(
        Command::new(env!("CARGO_BIN_EXE_coapcc"))
            .args(["reproduce", "crosscheck-tcp", "--quick", "-q", "--out"])
            .arg(&out)
            .env("COAPCC_PEERS_DIR", &peers)
            .current_dir(&root),
        Duration::from_secs(600),
    );
    let text = format!("{}{}", String::from_utf8_lossy(&run.stdout), String::from_utf8_lossy(&run.stderr));
    assert!(run.status.success(), "crosscheck-tcp failed:\n{text}");
    let csv = std::fs::read_to_string(out.join("crosscheck-tcp.csv")).expect("crosscheck-tcp.csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "CUBIC and Reno:\n{csv}");
    let col = |r: &Vec<&str>, name: &str| -> String {
        let i = header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}:\n{csv}"));
        r[i].to_string()
    };
    for r in &rows {
        // Every side must give the thesis's ideal: 118 448 B at 30 kbit/s (31.586 s) plus the
        // GET's way up and the last segment's way down: about 32.2 s.
        for side in ["ns3_alike", "reference", "matched", "dupthresh", "linux_default"] {
            let fct: f64 = col(r, &format!("{side}_fct_median_s")).parse().unwrap();
            assert!((32.15..32.30).contains(&fct), "{side}: {fct} s\n{csv}");
            // Nothing is lost, so no timer expires and every flow finishes, on every side.
            assert_eq!(col(r, &format!("timeouts_median_{side}")), "0", "{side}\n{csv}");
            assert_eq!(col(r, &format!("unfinished_{side}")), "0", "{side}\n{csv}");
        }
        // The check: the ns-3-alike configuration agrees (and so does the matched one).
        assert_eq!(col(r, "agrees"), "true", "{csv}");
        assert_eq!(col(r, "matched_agrees"), "true", "{csv}");
    }
    assert!(
        std::fs::read_to_string(out.join("crosscheck-tcp.md"))
            .unwrap()
            .contains("| firmware/tcp-1-client-1410000-none | cubic |")
    );
    let _ = std::fs::remove_dir_all(&out);
}
