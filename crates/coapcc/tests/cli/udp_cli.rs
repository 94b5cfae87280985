//! `coapcc client` and `coapcc server` as processes on loopback (ephemeral ports, every
//! process started here is stopped here by its handle): usage errors, a client against a
//! server process, and the give-up of every algorithm against a silent peer compared with
//! `coapcc replay` for the same algorithm and keys.

use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::coapcc_process::run as coapcc;

/// A `coapcc server` process on a free port; killed (by its own handle) when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_coapcc"))
            .args(["server", "--bind", "127.0.0.1:0", "--duration-s", "120"])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        // "coapcc server listening on 127.0.0.1:PORT (seed S)"
        let port = line.split(':').nth(1).and_then(|s| s.split_whitespace().next()).and_then(|p| p.parse().ok());
        let port = port.unwrap_or_else(|| panic!("no port in {line:?}"));
        Server { child, port }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn assert_usage_error(args: &[&str], needle: &str) {
    let (code, _, err) = coapcc(args, "");
    assert_eq!(code, 2, "exit code for {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "expected one line, got: {err}");
    assert!(err.contains(needle), "`{needle}` not in: {err}");
}

#[test]
fn bad_uris_algorithms_and_keys_are_one_line_naming_them_with_exit_code_2() {
    assert_usage_error(&["client", "http://127.0.0.1/x"], "bad URI `http://127.0.0.1/x`");
    assert_usage_error(&["client", "coap://127.0.0.1:70000/x"], "port");
    assert_usage_error(&["client", "coap://127.0.0.1/x", "--algorithm", "reno"], "unknown algorithm `reno`");
    assert_usage_error(&["client", "coap://127.0.0.1/x", "--set", "nope=1"], "unknown key `nope`");
    assert_usage_error(&["server", "--bind", "nowhere"], "--bind");
}

#[test]
fn the_client_process_completes_gets_and_a_block_wise_put_against_the_server_process() {
    let server = Server::start();
    let uri = format!("coap://127.0.0.1:{}/data?size=3000", server.port);
    let (code, out, err) = coapcc(&["client", &uri, "--count", "3", "--flows", "2", "--seed", "7", "--json"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.lines().next().unwrap().contains("\"seed\":7"), "{out}");
    let exchanges = out.lines().filter(|l| l.contains("\"type\":\"exchange\"")).count();
    assert_eq!(exchanges, 2 * 3 * 3, "three 1 024-byte blocks per request: {out}");
    assert_eq!(out.lines().filter(|l| l.contains("\"type\":\"flow\"")).count(), 2);
    assert!(out.lines().last().unwrap().contains("\"requests_ok\":6"), "{out}");
    let uri = format!("coap://127.0.0.1:{}/data", server.port);
    let (code, out, err) = coapcc(&["client", &uri, "--method", "PUT", "--payload-bytes", "5000"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("seed ") && out.contains("requests: 1 ok, 0 failed; exchanges 5"), "{out}");
    let (code, _, err) = coapcc(&["client", &format!("coap://127.0.0.1:{}/missing", server.port), "--count", "1"], "");
    assert_eq!(code, 1, "a 4.04 fails the run");
    assert!(err.contains("1 request(s) failed"), "{err}");
}

/// The settings that make each algorithm's whole give-up sequence short (< 2 s), with the
/// timers undithered.
fn short_timers(name: &str) -> Vec<&'static str> {
    let mut s = vec!["dither=false"];
    s.extend(match name {
        n if n.starts_with("default") => &["ack_timeout_ms=20"][..],
        n if n.starts_with("cocoa") => &["initial_rto_ms=10"][..],
        "idc" | "mbc" => &["initial_rto_ms=20", "min_rto_ms=10"][..],
        "uip" | "uip-dither" | "lim" => &["rtt_unit_ms=1", "tick_ms=1"][..],
        _ => &["initial_rto_ms=20"][..],
    });
    s
}

fn numbers_after(text: &str, key: &str) -> Vec<f64> {
    text.match_indices(key)
        .filter_map(|(i, _)| {
            let rest = &text[i + key.len()..];
            rest[..rest.find([',', '}', ']']).unwrap_or(rest.len())].parse().ok()
        })
        .collect()
}

#[test]
fn against_a_silent_server_every_algorithm_gives_up_after_exactly_the_timers_coapcc_replay_arms() {
    let names: Vec<String> = coapcc(&["algorithms", "--format", "csv"], "")
        .1
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    assert_eq!(names.len(), 19);
    // One silent socket per algorithm (bound, so no ICMP error ends anything early), all runs
    // at once: each takes at most ~1.3 s of timers.
    let runs: Vec<_> = names
        .iter()
        .map(|name| {
            let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
            let uri = format!("coap://{}/x", silent.local_addr().unwrap());
            let mut args: Vec<String> =
                ["client", &uri, "--json", "--timeout-s", "30", "-a", name].map(String::from).to_vec();
            for s in short_timers(name) {
                args.extend(["--set".to_string(), s.to_string()]);
            }
            let child = Command::new(env!("CARGO_BIN_EXE_coapcc"))
                .args(&args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (name.clone(), silent, child)
        })
        .collect();
    for (name, silent, child) in runs {
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{name}: a give-up fails the run");
        assert!(String::from_utf8_lossy(&out.stderr).contains("1 request(s) failed"), "{name}");
        let exchange =
            text.lines().find(|l| l.contains("\"type\":\"exchange\"")).unwrap_or_else(|| panic!("{name}: {text}"));
        assert!(exchange.contains("\"gave_up\":true"), "{name}: {exchange}");
        let timers_at = exchange.find("\"timers_ms\":[").unwrap() + "\"timers_ms\":[".len();
        let client_timers: Vec<f64> = exchange[timers_at..exchange[timers_at..].find(']').unwrap() + timers_at]
            .split(',')
            .map(|v| v.parse().unwrap())
            .collect();
        let mut replay_args = vec!["replay", "-a", name.as_str()];
        for s in short_timers(&name) {
            replay_args.extend(["--set", s]);
        }
        let (code, replay, err) = coapcc(&replay_args, "send\nwait 100000\n");
        assert_eq!(code, 0, "{err}");
        assert!(replay.contains("give_up"), "{name}: {replay}");
        let replay_timers = numbers_after(&replay, "\"timer_ms\":");
        assert_eq!(client_timers.len(), replay_timers.len(), "{name}: copies");
        for (c, r) in client_timers.iter().zip(&replay_timers) {
            assert!((c - r).abs() < 1e-6, "{name}: client timers {client_timers:?} vs replay {replay_timers:?}");
        }
        // Every copy reached the silent peer.
        silent.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
        let mut buf = [0u8; 256];
        let mut copies = 0;
        while silent.recv_from(&mut buf).is_ok() {
            copies += 1;
        }
        assert_eq!(copies, replay_timers.len(), "{name}: datagrams received");
    }
}

#[test]
fn a_run_still_waiting_at_its_time_out_stops_there_with_exit_code_1() {
    let silent = UdpSocket::bind("127.0.0.1:0").unwrap();
    let uri = format!("coap://{}/x", silent.local_addr().unwrap());
    let (code, out, err) = coapcc(&["client", &uri, "--timeout-s", "0.3", "--json"], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("time-out after 0.3 s"), "{err}");
    let last = out.lines().last().unwrap_or_default();
    assert!(last.contains("\"type\":\"summary\"") && last.contains("\"timed_out\":true"), "{out}");
}
