//! `coapcc probe` (docs/probe.md): our own client with every algorithm, the real stacks of the
//! interop tests (libcoap, aiocoap, Californium with and without its CoCoA), and servers.
//!
//! Our client runs with every `_ms` key of its algorithm at a tenth (and at most 6
//! retransmissions), so a silence run takes seconds; the probe must name the algorithm's
//! family and measure its first timeout within 5 % of the smallest first timer of 64 replays of
//! the same configuration (`coapcc replay`, the reference), and its MAX_RETRANSMIT exactly.
//! The real stacks run with their default timers (one silence run of up to 93 s each, a few
//! first-timeout runs); their values are checked against what their documentation states
//! (RFC 7252 defaults). `scripts/probe-validation` and `scripts/probe-stacks` are the 30-run
//! versions whose tables are in the README.

#[allow(dead_code, reason = "this test uses part of the interop harness")]
mod interop_peers;

use std::process::Command;
use std::time::Duration;

use interop_peers::{Server, ServerKind, peers, run_bounded};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_coapcc");
/// How long one probe may take (the real stacks' silence runs take up to 93 s).
const PROBE_LIMIT: Duration = Duration::from_secs(400);
/// The scale of our client's timers.
const SCALE: f64 = 0.1;
/// The largest MAX_RETRANSMIT our client runs with (uIP's 8 and Lim's 15 would take minutes).
const MAX_RETRANSMIT: u32 = 6;

fn coapcc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Whether `coapcc replay` accepts `sets` for `algorithm`.
fn accepted(algorithm: &str, sets: &[String]) -> bool {
    let mut command = Command::new(BIN);
    command.args(["replay", "--algorithm", algorithm]);
    for s in sets {
        command.args(["--set", s]);
    }
    let out = command.arg("/dev/null").output().unwrap();
    out.status.success()
}

/// `--set` arguments that put every `_ms` key of `algorithm` at [`SCALE`] (each key whose
/// scaled value the algorithm refuses keeps its preset value: FASOR's cap of at least 60 s)
/// and cap its MAX_RETRANSMIT, from `coapcc algorithms NAME`; and the MAX_RETRANSMIT it then
/// has.
fn scaled(algorithm: &str) -> (Vec<String>, u32) {
    let (wanted, max_retransmit) = scaled_keys(algorithm);
    let mut sets: Vec<String> = Vec::new();
    for s in wanted {
        sets.push(s);
        if !accepted(algorithm, &sets) {
            sets.pop();
        }
    }
    (sets, max_retransmit)
}

fn scaled_keys(algorithm: &str) -> (Vec<String>, u32) {
    let (code, text, err) = coapcc(&["algorithms", algorithm]);
    assert_eq!(code, 0, "{err}");
    let mut sets = Vec::new();
    let mut max_retransmit = 0;
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((key, value)) = line.split_once(" = ") else { continue };
        if key.ends_with("_ms")
            && let Ok(v) = value.parse::<f64>()
        {
            sets.push(format!("{key}={}", v * SCALE));
        }
        if key == "max_retransmit" {
            let n: u32 = value.parse().unwrap();
            max_retransmit = n.min(MAX_RETRANSMIT);
            sets.push(format!("max_retransmit={max_retransmit}"));
        }
    }
    (sets, max_retransmit)
}

/// The smallest first timer (seconds) of 64 replays of `algorithm` with `sets`.
fn reference_first_timeout(algorithm: &str, sets: &[String]) -> f64 {
    let mut smallest = f64::INFINITY;
    for seed in 0..64 {
        let mut command = Command::new(BIN);
        command.args(["replay", "--algorithm", algorithm, "--seed", &seed.to_string()]);
        for s in sets {
            command.args(["--set", s]);
        }
        let out =
            command.arg("-").stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped()).spawn().unwrap();
        let mut child = out;
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b"send\nwait 1\n").unwrap();
        let out = child.wait_with_output().unwrap();
        let line = String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_string();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("replay output {line:?}: {e}"));
        smallest = smallest.min(v["timer_ms"].as_f64().unwrap() / 1e3);
    }
    smallest
}

/// The registry family of `algorithm`, from `coapcc algorithms --format csv`.
fn family(algorithm: &str) -> String {
    let (_, csv, _) = coapcc(&["algorithms", "--format", "csv"]);
    let line = csv.lines().find(|l| l.split(',').next() == Some(algorithm)).unwrap();
    line.split(',').nth(1).unwrap().to_string()
}

/// Runs `coapcc probe client ARGS -- COMMAND` (bounded) and returns the exit code and the JSON.
fn probe(args: &[&str], command: &[String]) -> (i32, Value, String) {
    let mut c = Command::new(BIN);
    c.args(["probe", "client", "--json"]).args(args).arg("--").args(command);
    let shown = format!("{c:?}");
    let run = run_bounded(&mut c, PROBE_LIMIT).unwrap_or_else(|e| panic!("{e}"));
    let text = run.stdout_text();
    let v: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{shown}: no JSON ({e})\nstdout:\n{text}\nstderr:\n{}", run.stderr_text()));
    (run.status.code().unwrap_or(-1), v, run.stderr_text())
}

fn requirement_violations(v: &Value) -> usize {
    v["violations"].as_array().unwrap().iter().filter(|x| x["kind"] == "requirement").count()
}

/// Probes our client with `algorithm` (scaled) and checks what the module doc says.
fn our_algorithm(algorithm: &str) {
    let (sets, max_retransmit) = scaled(algorithm);
    let mut command = vec![BIN.to_string(), "client".into(), "--algorithm".into(), algorithm.into()];
    for s in &sets {
        command.push("--set".into());
        command.push(s.clone());
    }
    command.push("{uri}".into());
    let (code, v, err) = probe(&["--runs", "30", "--separate-ms", "0", "--allow-tuned"], &command);
    let context = format!("{algorithm}: {}\n{err}", serde_json::to_string_pretty(&v).unwrap());
    let best = &v["candidates"][0];
    assert_eq!(best["family"].as_str(), Some(family(algorithm).as_str()), "family of {context}");
    let truth = reference_first_timeout(algorithm, &sets);
    let measured = v["ack_timeout_s"].as_f64().unwrap();
    assert!((measured / truth - 1.0).abs() <= 0.05, "ACK_TIMEOUT {measured} s, reference {truth} s: {context}");
    assert_eq!(v["max_retransmit"].as_u64(), Some(u64::from(max_retransmit)), "{context}");
    // With --allow-tuned, only a broken requirement fails.
    assert_eq!(code, if requirement_violations(&v) > 0 { 1 } else { 0 }, "{context}");
    eprintln!(
        "{algorithm}: closest {} (tied: {}), ACK_TIMEOUT {measured:.4} s vs {truth:.4} s",
        best["algorithm"], v["tied_with"]
    );
}

macro_rules! our_client {
    ($($test:ident => $name:literal),* $(,)?) => {$(
        #[test]
        fn $test() {
            our_algorithm($name);
        }
    )*};
}

our_client! {
    probing_our_client_with_default_names_its_family_and_timers => "default",
    probing_our_client_with_default_aggressive_names_its_family_and_timers => "default-aggressive",
    probing_our_client_with_default_fb1_names_its_family_and_timers => "default-fb1",
    probing_our_client_with_default_fb2_names_its_family_and_timers => "default-fb2",
    probing_our_client_with_cocoa_names_its_family_and_timers => "cocoa",
    probing_our_client_with_cocoa_strong_names_its_family_and_timers => "cocoa-strong",
    probing_our_client_with_cocoa_fb1_names_its_family_and_timers => "cocoa-fb1",
    probing_our_client_with_cocoa_fb2_names_its_family_and_timers => "cocoa-fb2",
    probing_our_client_with_cocoa_plus_names_its_family_and_timers => "cocoa-plus",
    probing_our_client_with_pcocoa_names_its_family_and_timers => "pcocoa",
    probing_our_client_with_four_state_names_its_family_and_timers => "four-state",
    probing_our_client_with_fasor_names_its_family_and_timers => "fasor",
    probing_our_client_with_fasor_token_names_its_family_and_timers => "fasor-token",
    probing_our_client_with_bdp_names_its_family_and_timers => "bdp",
    probing_our_client_with_idc_names_its_family_and_timers => "idc",
    probing_our_client_with_mbc_names_its_family_and_timers => "mbc",
    probing_our_client_with_uip_names_its_family_and_timers => "uip",
    probing_our_client_with_uip_dither_names_its_family_and_timers => "uip-dither",
    probing_our_client_with_lim_names_its_family_and_timers => "lim",
}

#[test]
fn every_registered_algorithm_has_a_probe_test_above() {
    let (_, csv, _) = coapcc(&["algorithms", "--format", "csv"]);
    let source = include_str!("probe_cli.rs");
    for name in csv.lines().skip(1).filter_map(|l| l.split(',').next()) {
        assert!(source.contains(&format!("=> \"{name}\"")), "no probe test for {name}");
    }
}

#[test]
fn a_long_lived_cocoa_client_adapts_to_the_rtt_and_default_coap_does_not() {
    for (algorithm, adapts) in [("cocoa", true), ("default", false)] {
        let (sets, _) = scaled(algorithm);
        let mut command = vec![BIN.to_string(), "client".into(), "--algorithm".into(), algorithm.into()];
        for s in &sets {
            command.push("--set".into());
            command.push(s.clone());
        }
        command.extend(["--count".into(), "12".into(), "--timeout-s".into(), "60".into(), "{uri}".into()]);
        let (_, v, err) = probe(
            &["--runs", "10", "--silence-runs", "0", "--separate-ms", "0", "--rtt-ms", "5", "--answered", "10"],
            &command,
        );
        assert_eq!(v["adapts_to_rtt"].as_bool(), Some(adapts), "{algorithm}: {v}\n{err}");
        assert_eq!(v["after_strong"]["samples"].as_u64(), Some(10), "{algorithm}: {v}");
    }
}

#[test]
fn our_client_acknowledges_a_separate_response_and_its_duplicate() {
    let (sets, _) = scaled("default");
    let mut command = vec![BIN.to_string(), "client".into()];
    for s in &sets {
        command.push("--set".into());
        command.push(s.clone());
    }
    command.push("{uri}".into());
    let (_, v, _) = probe(&["--runs", "0", "--silence-runs", "0", "--separate-ms", "30"], &command);
    let h = &v["separate"];
    assert_eq!(h["exchanges"], 1, "{v}");
    assert_eq!(h["acknowledged"], 1, "{v}");
    assert_eq!(h["retransmitted_after_empty_ack"], 0, "{v}");
}

#[test]
fn a_command_without_the_uri_placeholder_or_that_cannot_start_is_bad_usage() {
    let (code, _, err) = coapcc(&["probe", "client", "--", "true"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("{uri}"), "{err}");
    let (code, _, err) = coapcc(&["probe", "client", "--runs", "1", "--", "/nonexistent/client", "{uri}"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot start `/nonexistent/client`"), "{err}");
    let (code, _, err) = coapcc(&["probe", "client", "--html", "/nonexistent/dir/p.html", "--", "true", "{uri}"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = coapcc(&["probe", "server", "http://x/"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn the_html_page_holds_the_timeline_figure_and_the_summary() {
    let (sets, _) = scaled("default");
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("probe.html");
    let mut c = Command::new(BIN);
    c.args(["probe", "client", "--runs", "3", "--separate-ms", "0", "--allow-tuned", "--html"]).arg(&page);
    c.args(["--", BIN, "client"]);
    for s in &sets {
        c.args(["--set", s]);
    }
    c.arg("{uri}");
    let run = run_bounded(&mut c, PROBE_LIMIT).unwrap();
    assert_eq!(run.status.code(), Some(0), "{}", run.stderr_text());
    assert!(run.stdout_text().contains("closest algorithm    default"), "{}", run.stdout_text());
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<svg") && html.contains("Copies received by the probe"), "no figure");
    assert!(html.contains("RFC 7252 §4.2 with §4.8 defaults") && html.contains("closest: default"), "no legend");
    assert!(html.contains("ACK_TIMEOUT"), "no summary");
}

// --- Real stacks ------------------------------------------------------------------------------

/// Probes a real stack with its default timers: 3 first-timeout runs, one silence run, one
/// separate response. RFC 7252 defaults are checked where the stack documents them.
fn real_stack(command: &[String], rfc_timers: bool) -> Value {
    let (_, v, err) = probe(&["--runs", "3", "--separate-ms", "50"], command);
    let context = format!("{command:?}: {}\n{err}", serde_json::to_string_pretty(&v).unwrap());
    assert_eq!(v["max_retransmit"].as_u64(), Some(4), "{context}");
    assert_eq!(v["separate"]["acknowledged"], 1, "{context}");
    assert_eq!(v["separate"]["retransmitted_after_empty_ack"], 0, "{context}");
    let firsts = v["first_timeouts_s"].as_array().unwrap();
    assert_eq!(firsts.len(), 4, "{context}");
    if rfc_timers {
        // RFC 7252 §4.2 with the §4.8 defaults: the first timeout in [2, 3] s, then doubling.
        for t in firsts.iter().map(|t| t.as_f64().unwrap()) {
            assert!((1.99..=3.05).contains(&t), "first timeout {t} s: {context}");
        }
        let b = v["backoff_factor"].as_f64().unwrap();
        assert!((b / 2.0 - 1.0).abs() < 0.05, "backoff {b}: {context}");
        assert_eq!(v["candidates"][0]["family"], "backoff", "{context}");
    }
    v
}

fn californium(extra: &[&str]) -> Vec<String> {
    let p = peers();
    let cp = format!("{0}/californium/build/classes:{0}/californium/lib/*", p.dir.display());
    let mut c: Vec<String> =
        ["java", "-cp", &cp, "coapcc.interop.Client", "GET", "{uri}", "--timeout-s", "200"].map(String::from).to_vec();
    c.extend(extra.iter().map(|s| s.to_string()));
    c
}

#[test]
fn libcoap_client_has_rfc_7252_default_timers() {
    peers();
    real_stack(&["coap-client-notls", "-m", "get", "-B", "200", "{uri}"].map(String::from), true);
}

#[test]
fn aiocoap_client_has_rfc_7252_default_timers() {
    let client = peers().dir.join("venv/bin/aiocoap-client").display().to_string();
    real_stack(&[client, "{uri}".into()], true);
}

#[test]
fn californium_client_has_rfc_7252_default_timers() {
    real_stack(&californium(&[]), true);
}

#[test]
fn californium_client_with_cocoa_is_probed() {
    // Californium's CoCoA (peers: RTO clamped to [0.5, 60] s, VBF): a fresh client starts
    // from the 2 s initial RTO; the probe names a backoff algorithm.
    let v = real_stack(&californium(&["--congestion-control", "COCOA"]), false);
    assert_eq!(v["candidates"][0]["family"], "backoff", "{v}");
}

// --- Servers -----------------------------------------------------------------------------------

fn probe_server(port: u16) -> (i32, Value) {
    let uri = format!("coap://127.0.0.1:{port}/echo");
    let mut c = Command::new(BIN);
    c.args(["probe", "server", &uri, "--json", "--duplicate-after-s", "0.5", "--wait-s", "3"]);
    let run = run_bounded(&mut c, Duration::from_secs(60)).unwrap();
    let v: Value = serde_json::from_str(&run.stdout_text())
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout_text(), run.stderr_text()));
    (run.status.code().unwrap_or(-1), v)
}

#[test]
fn our_server_answers_duplicates_alike_pings_with_a_reset_and_ignores_stray_acks() {
    let server = Server::start(ServerKind::Coapcc);
    let (code, v) = probe_server(server.port);
    let o = &v["observation"];
    assert_eq!(o["answer"], "piggybacked", "{v}");
    assert_eq!(o["duplicate"], "same_answer", "{v}");
    assert_eq!(o["ping_reset"], true, "{v}");
    assert_eq!(o["stray_ack_answered"], false, "{v}");
    assert_eq!(code, 0, "{v}");
}

#[test]
fn libcoap_server_is_probed_like_ours() {
    let server = Server::start(ServerKind::Libcoap);
    let (_, v) = probe_server(server.port);
    let o = &v["observation"];
    assert_eq!(o["ping_reset"], true, "{v}");
    assert_eq!(o["stray_ack_answered"], false, "{v}");
    assert_ne!(o["duplicate"], "ignored", "{v}");
}
