//! Interoperability with real CoAP stacks (README, "Interoperability"): libcoap 4.3.1, aiocoap 0.4.17 and
//! Californium 3.14.0, on loopback. `scripts/setup-peers` installs them (run once by the first
//! test); a peer that cannot be installed fails the tests with the reason.
//!
//! - Our client against their servers: every algorithm of `coapcc algorithms` completes 20
//!   confirmable GETs and 20 PUTs (each exchange checked in the `--json` lines); a block-wise
//!   GET of 100 000 bytes and a block-wise PUT of 100 000 bytes (with `default`).
//! - Their clients against our server: GET, PUT, block-wise both ways, `/.well-known/core`.
//! - Their clients against each other's servers: the same checks, so a failure above can be
//!   told apart from a broken peer or harness.

use crate::interop_peers;

use interop_peers::{ClientKind, LARGE_BYTES, SMALL_BYTES, Server, ServerKind, client_checks, run_bounded};
use std::process::Command;
use std::time::Duration;

/// How long one `coapcc client` run may take before it is killed (each takes well under 1 s).
const OUR_CLIENT_LIMIT: Duration = Duration::from_secs(120);
/// Requests (confirmable exchanges) per run, as the issue asks.
const REQUESTS: u64 = 20;

// --- Their clients against our server -------------------------------------------------------

#[test]
fn libcoap_client_gets_puts_and_moves_block_wise_bodies_with_our_server() {
    client_checks(ClientKind::Libcoap, &Server::start(ServerKind::Coapcc));
}

#[test]
fn aiocoap_client_gets_puts_and_moves_block_wise_bodies_with_our_server() {
    client_checks(ClientKind::Aiocoap, &Server::start(ServerKind::Coapcc));
}

#[test]
fn californium_client_gets_puts_and_moves_block_wise_bodies_with_our_server() {
    client_checks(ClientKind::Californium, &Server::start(ServerKind::Coapcc));
}

// --- Our client against their servers -------------------------------------------------------

/// Every algorithm name, from `coapcc algorithms --format csv`.
fn algorithms() -> Vec<String> {
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc")).args(["algorithms", "--format", "csv"]).output().unwrap();
    assert!(out.status.success(), "coapcc algorithms: {}", String::from_utf8_lossy(&out.stderr));
    let names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .skip(1)
        .filter_map(|l| l.split(',').next())
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .collect();
    assert!(names.len() >= 19, "19 presets or more, got {names:?}");
    names
}

/// Runs `coapcc client` and checks its exit status and its `--json` records: `requests`
/// requests (one flow), each exchange answered with a 2.xx code (no give-up, no Reset), the
/// flow and the summary with every request completed and none failed; for a block-wise
/// request, the whole body moved (received or sent) in at least one exchange per 1 024 bytes.
fn our_client(
    server: &Server,
    path: &str,
    algorithm: &str,
    extra: &[&str],
    requests: u64,
    body: Option<(Direction, u64)>,
) {
    let uri = format!("coap://127.0.0.1:{}{path}", server.port);
    let count = requests.to_string();
    let mut command = Command::new(env!("CARGO_BIN_EXE_coapcc"));
    command.args(["client", &uri, "--algorithm", algorithm, "--count", &count, "--timeout-s", "60", "--json"]);
    command.args(extra);
    let shown = format!("{command:?}");
    let run = run_bounded(&mut command, OUR_CLIENT_LIMIT).unwrap_or_else(|e| panic!("{e}"));
    let context = || {
        format!(
            "{shown} against the {:?} server\nexit: {}\nstdout:\n{}\nstderr:\n{}\nserver log:\n{}",
            server.kind,
            run.status,
            run.stdout_text(),
            run.stderr_text(),
            server.log_text()
        )
    };
    assert!(run.status.success(), "exit status 0 (every exchange succeeded): {}", context());
    let records = records(&run.stdout_text()).unwrap_or_else(|e| panic!("{e}: {}", context()));
    let of_type = |t: &'static str| records.iter().filter(move |r| r["type"] == t);
    let exchanges: Vec<_> = of_type("exchange").collect();
    assert!(exchanges.len() as u64 >= requests, "an exchange record per exchange: {}", context());
    for e in &exchanges {
        let answered = e["code"].as_str().is_some_and(|c| c.starts_with("2."));
        assert!(
            answered && e["gave_up"] == false && e["reset"] == false,
            "every exchange answered with 2.xx: {e}: {}",
            context()
        );
    }
    let flows: Vec<_> = of_type("flow").collect();
    assert_eq!(flows.len(), 1, "one flow record: {}", context());
    assert_eq!(flows[0]["requests_ok"].as_u64(), Some(requests), "every request of the flow completed: {}", context());
    assert_eq!(flows[0]["requests_failed"].as_u64(), Some(0), "no request failed: {}", context());
    if let Some((direction, bytes)) = body {
        let field = match direction {
            Direction::Received => "bytes_received",
            Direction::Sent => "bytes_sent",
        };
        assert_eq!(flows[0][field].as_u64(), Some(bytes), "{field}: the whole body: {}", context());
        let blocks = bytes.div_ceil(1024);
        assert!(exchanges.len() as u64 >= blocks, "block-wise: {blocks} exchanges or more: {}", context());
    }
    let summary: Vec<_> = of_type("summary").collect();
    assert_eq!(summary.len(), 1, "one summary record: {}", context());
    assert_eq!(summary[0]["requests_ok"].as_u64(), Some(requests), "summary: {}", context());
    assert_eq!(summary[0]["requests_failed"].as_u64(), Some(0), "summary: {}", context());
    assert_eq!(summary[0]["timed_out"], false, "summary: {}", context());
}

/// Which way a block-wise body moves.
#[derive(Clone, Copy)]
enum Direction {
    /// Block2: the response body.
    Received,
    /// Block1: the request body.
    Sent,
}

/// The records of `coapcc client --json`: one JSON object a line, each with a `type`.
fn records(stdout: &str) -> Result<Vec<serde_json::Value>, String> {
    stdout
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let value: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("not a JSON line ({e}): {line}"))?;
            if value["type"].is_string() { Ok(value) } else { Err(format!("a record without a type: {line}")) }
        })
        .collect()
}

/// Every algorithm: 20 GETs and 20 PUTs of a small body; then, with `default`, one
/// block-wise GET of 100 000 bytes (Block2) and one block-wise PUT of 100 000 bytes (Block1).
///
/// The block-wise transfers (about 100 exchanges each) run with `default` only: the presets
/// of `idc`, `bdp`, `mbc` and `pcocoa` have no timer floor, so on loopback their timers fall
/// to about 2 ms (RTT ≈ 0.5 ms), and a server stall of 10 ms (the Python server, a loaded
/// machine) makes them give up after their last retransmission: measured 1 in 10 (`mbc`,
/// Block2) and 1 in 5 (`bdp`, Block1) against the aiocoap server, while their 20-exchange runs
/// never failed in 240 runs under load. That is the algorithms as specified, not an
/// interoperability fault; see README "Interoperability".
fn our_client_checks(kind: ServerKind) {
    let server = Server::start(kind);
    let small = SMALL_BYTES.to_string();
    for algorithm in algorithms() {
        our_client(&server, "/echo", &algorithm, &["--method", "GET"], REQUESTS, None);
        our_client(&server, "/echo", &algorithm, &["--method", "PUT", "--payload-bytes", &small], REQUESTS, None);
    }
    let (large, bytes) = (LARGE_BYTES as u64, LARGE_BYTES.to_string());
    let block2 = Some((Direction::Received, large));
    our_client(&server, &format!("/data?size={LARGE_BYTES}"), "default", &["--method", "GET"], 1, block2);
    let block1 = Some((Direction::Sent, large));
    our_client(&server, "/echo", "default", &["--method", "PUT", "--payload-bytes", &bytes], 1, block1);
}

#[test]
fn our_client_completes_every_algorithm_against_the_libcoap_server() {
    our_client_checks(ServerKind::Libcoap);
}

#[test]
fn our_client_completes_every_algorithm_against_the_aiocoap_server() {
    our_client_checks(ServerKind::Aiocoap);
}

#[test]
fn our_client_completes_every_algorithm_against_the_californium_server() {
    our_client_checks(ServerKind::Californium);
}

/// RFC 7959 §2.7: when the response to the last Block1 block carries Block2 block 0 with More
/// set, the client asks for the other blocks (same method and options, no Block1, no payload)
/// and the response body is all of them. libcoap's `-e` and aiocoap's `/echo` echo a
/// 100 000-byte PUT so; the single-request client prints (here: writes with `-o`) the echo
/// whole. In 1 024-byte blocks the upload takes ⌈100 000 / 1 024⌉ = 98 PUTs and the echo's
/// last block is number 97 (97 × 1 024 = 99 328, 672 bytes left).
#[test]
fn our_single_request_client_prints_the_whole_echo_of_a_block_wise_put() {
    let large = interop_peers::scratch("large");
    std::fs::write(&large, interop_peers::digits(LARGE_BYTES)).unwrap();
    for kind in [ServerKind::Libcoap, ServerKind::Aiocoap] {
        let server = Server::start(kind);
        let uri = format!("coap://127.0.0.1:{}/echo", server.port);
        let (ok, text, body) = interop_peers::our_single_client(&uri, &["-m", "PUT", "-f", large.to_str().unwrap()]);
        assert!(ok && text.contains("2.04 Changed"), "{kind:?} server: {text}\n{}", server.log_text());
        assert!(text.contains("Block2: 97/0/1024"), "{kind:?} server: the echo's last block is 97: {text}");
        assert!(
            body == interop_peers::digits(LARGE_BYTES),
            "{kind:?} server: the echo is whole ({} bytes): {text}",
            body.len()
        );
    }
}

// --- Their clients against each other's servers (the harness and the peers themselves) ------

#[test]
fn libcoap_client_and_aiocoap_server_interoperate() {
    client_checks(ClientKind::Libcoap, &Server::start(ServerKind::Aiocoap));
}

#[test]
fn libcoap_client_and_californium_server_interoperate() {
    client_checks(ClientKind::Libcoap, &Server::start(ServerKind::Californium));
}

#[test]
fn aiocoap_client_and_libcoap_server_interoperate() {
    client_checks(ClientKind::Aiocoap, &Server::start(ServerKind::Libcoap));
}

#[test]
fn aiocoap_client_and_californium_server_interoperate() {
    client_checks(ClientKind::Aiocoap, &Server::start(ServerKind::Californium));
}

#[test]
fn californium_client_and_libcoap_server_interoperate() {
    client_checks(ClientKind::Californium, &Server::start(ServerKind::Libcoap));
}

#[test]
fn californium_client_and_aiocoap_server_interoperate() {
    client_checks(ClientKind::Californium, &Server::start(ServerKind::Aiocoap));
}

#[test]
fn a_server_that_is_started_answers_the_probe_and_is_gone_after_its_guard_drops() {
    let server = Server::start(ServerKind::Aiocoap);
    let port = server.port;
    assert!(interop_peers::probe(port, &["echo"]), "the started server answers");
    drop(server);
    assert!(!interop_peers::probe(port, &["echo"]), "nothing answers on its port once the guard dropped");
}

#[test]
fn every_peer_client_reports_no_body_for_a_missing_resource() {
    // The harness must see failures: libcoap's client exits 0 even on 4.04.
    let server = Server::start(ServerKind::Aiocoap);
    for client in [ClientKind::Libcoap, ClientKind::Aiocoap, ClientKind::Californium] {
        let reply = interop_peers::request(client, server.port, interop_peers::Method::Get, "/missing", None);
        assert_eq!(reply.code.as_deref(), Some("4.04"), "{client:?} client: {}", reply.transcript);
        assert!(reply.body.is_empty(), "{client:?} client: a 4.04 gives no body: {}", reply.transcript);
    }
}
