//! The smallest case of `coapcc reproduce crosscheck-tcp`: coapcc's TCP model against ns-3's
//! TCP on one error-free client with an unlimited buffer, CUBIC and Reno, in the matched
//! configuration and with Linux's defaults (no loss: both give the ideal). `scripts/setup-ns3`
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
    let rows: Vec<Vec<&str>> = csv.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "CUBIC and Reno:\n{csv}");
    for r in &rows {
        let (ours, theirs, linux): (f64, f64, f64) =
            (r[2].parse().unwrap(), r[3].parse().unwrap(), r[8].parse().unwrap());
        // Every side must give the thesis's ideal: 118 448 B at 30 kbit/s (31.586 s) plus the
        // GET's way up and the last segment's way down: about 32.2 s.
        assert!((32.15..32.30).contains(&ours), "coapcc matched {ours} s\n{csv}");
        assert!((32.15..32.30).contains(&linux), "coapcc Linux defaults {linux} s\n{csv}");
        assert!((32.15..32.30).contains(&theirs), "ns-3 {theirs} s\n{csv}");
        assert_eq!(r[5], "true", "{csv}");
        // Nothing is lost, so no timer expires and every flow finishes, on every side.
        assert_eq!(&r[10..18], ["0"; 8], "timeouts and unfinished flows\n{csv}");
        // The ns-3-alike configuration: the same ideal, agreeing, no timeout, all finished.
        let alike: f64 = r[18].parse().unwrap();
        assert!((32.15..32.30).contains(&alike), "coapcc ns-3-alike {alike} s\n{csv}");
        assert_eq!(&r[20..23], ["true", "0", "0"], "{csv}");
    }
    assert!(
        std::fs::read_to_string(out.join("crosscheck-tcp.md"))
            .unwrap()
            .contains("| firmware/tcp-1-client-1410000-none | cubic |")
    );
    let _ = std::fs::remove_dir_all(&out);
}
