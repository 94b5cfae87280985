//! The C example client (`examples/c/coap_client.c`, docs/c-api.md "A CoAP client in C"),
//! compiled with the system C compiler (`-std=c11 -Wall -Wextra -Werror -pedantic`) against
//! `coapcc.h` and the static library of `coapcc-ffi`, on loopback:
//!
//! - against `coapcc server` and libcoap's `coap-server-notls`, a GET and a PUT with four
//!   algorithms (one without an echo, one of each echo kind), each printing the code and
//!   payload the server must answer (docs/real-networks.md "Resources"; RFC 7252 §5.8);
//! - against a peer of the test that never answers, the copies leave on RFC 7252 §4.2's
//!   binary exponential backoff and the client gives up after MAX_RETRANSMIT retransmissions;
//!   against one that answers only the second copy, the retransmission gets the response.
//!
//! Every server is started by the test and killed by its PID (the interop harness's guard);
//! every client run is bounded in time.

#![allow(
    clippy::disallowed_methods,
    reason = "the tests bound their waits and time the copies of real processes by the wall clock"
)]

use crate::cc;
use crate::interop_peers;

use interop_peers::{Run, Server, ServerKind, run_bounded};
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

/// How long one run of the C client may take (the longest, a give-up on timers of 100 ms to
/// 1.6 s, takes 3.1 s).
const CLIENT_LIMIT: Duration = Duration::from_secs(30);

/// One algorithm of each echo kind: none (`default`, `cocoa`), the transmission-count option
/// (`pcocoa`) and the token byte (`fasor-token`).
const ALGORITHMS: [&str; 4] = ["default", "cocoa", "pcocoa", "fasor-token"];

/// The C client, compiled once per test process.
fn client() -> &'static Path {
    static PROGRAM: OnceLock<PathBuf> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/c/coap_client.c");
        cc::compile(&[&source], "coap-client-c")
    })
}

/// Runs the C client with `args`, bounded in time.
fn run_client(args: &[&str]) -> Run {
    let mut command = Command::new(client());
    command.args(args);
    run_bounded(&mut command, CLIENT_LIMIT).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs the C client and checks its exit status 0 and exactly `code` and `payload` printed.
fn expect(server: &Server, algorithm: &str, args: &[&str], path: &str, code: &str, payload: &str) {
    let uri = format!("coap://127.0.0.1:{}{path}", server.port);
    let mut all = vec!["-a", algorithm, "-v"];
    all.extend_from_slice(args);
    all.push(&uri);
    let run = run_client(&all);
    let expected = format!("{code}\n{payload}\n");
    assert!(
        run.status.success() && run.stdout_text() == expected,
        "coap_client {all:?} against the {:?} server: expected {expected:?}\nexit: {}\nstdout: {:?}\nstderr:\n{}\nserver log:\n{}",
        server.kind,
        run.status,
        run.stdout_text(),
        run.stderr_text(),
        server.log_text()
    );
    // An echo-asking algorithm names copy 0 where the server echoes: `coapcc server` echoes
    // both kinds; libcoap echoes the token whole but not the option (unknown to it, elective).
    let echoes = match (algorithm, server.kind) {
        ("fasor-token", _) | ("pcocoa", ServerKind::Coapcc) => "echo 0",
        _ => "echo 4294967295",
    };
    assert!(run.stderr_text().contains(echoes), "{algorithm}: `{echoes}` in the trace:\n{}", run.stderr_text());
}

#[test]
fn the_c_client_gets_and_puts_with_four_algorithms_against_our_server() {
    let server = Server::start(ServerKind::Coapcc);
    for algorithm in ALGORITHMS {
        // /data?size=N: N bytes of 0123456789 repeated; /echo: the request's payload.
        expect(&server, algorithm, &["-m", "GET"], "/data?size=12", "2.05", "012345678901");
        expect(&server, algorithm, &["-m", "PUT", "-e", "hello"], "/echo", "2.04", "hello");
        expect(&server, algorithm, &["-m", "GET"], "/echo", "2.05", "");
    }
}

#[test]
fn the_c_client_gets_and_puts_with_four_algorithms_against_the_libcoap_server() {
    let server = Server::start(ServerKind::Libcoap);
    for algorithm in ALGORITHMS {
        // A PUT creates a resource (2.01 Created, RFC 7252 §5.8.3; the server's -d) whose
        // body its -e echoes; a second PUT changes it (2.04); a GET reads it (2.05).
        let path = format!("/c-{algorithm}");
        let body = format!("body of {algorithm}");
        expect(&server, algorithm, &["-m", "PUT", "-e", "first"], &path, "2.01", "first");
        expect(&server, algorithm, &["-m", "PUT", "-e", &body], &path, "2.04", &body);
        expect(&server, algorithm, &["-m", "GET"], &path, "2.05", &body);
    }
}

/// The datagrams a scripted peer received, each with its arrival time since the peer started.
type Received = Vec<(Duration, Vec<u8>)>;

/// A peer of the test on a loopback port: it records every datagram it receives (with the time
/// since it started) for `listen`, and answers the copy numbered `answer` (0 is the first)
/// with a piggybacked 2.05 "late" (RFC 7252 §5.2.1: the request's Message ID and token).
fn scripted_peer(listen: Duration, answer: Option<usize>) -> (u16, thread::JoinHandle<Received>) {
    let socket = UdpSocket::bind("127.0.0.1:0").expect("a loopback port");
    let port = socket.local_addr().unwrap().port();
    socket.set_read_timeout(Some(Duration::from_millis(20))).unwrap();
    let peer = thread::spawn(move || {
        let (started, mut seen) = (Instant::now(), Vec::new());
        let mut buffer = [0u8; 1500];
        while started.elapsed() < listen {
            let Ok((n, from)) = socket.recv_from(&mut buffer) else { continue };
            let datagram = buffer[..n].to_vec();
            if Some(seen.len()) == answer {
                let tkl = usize::from(datagram[0] & 15);
                let mut ack = vec![0x60 | (datagram[0] & 15), 0x45, datagram[2], datagram[3]];
                ack.extend_from_slice(&datagram[4..4 + tkl]);
                ack.extend_from_slice(b"\xfflate");
                socket.send_to(&ack, from).unwrap();
            }
            seen.push((started.elapsed(), datagram));
        }
        seen
    });
    (port, peer)
}

/// `default` with ACK_TIMEOUT = 100 ms, undithered: timers of 100, 200, 400, 800 and 1 600 ms.
const FAST_DEFAULT: [&str; 6] = ["-a", "default", "-s", "ack_timeout_ms=100", "-s", "dither=false"];

#[test]
fn the_c_client_retransmits_on_binary_exponential_backoff_and_gives_up_after_four_retransmissions() {
    let (port, peer) = scripted_peer(Duration::from_millis(4000), None);
    let uri = format!("coap://127.0.0.1:{port}/silent");
    let run = run_client(&[&FAST_DEFAULT[..], &[uri.as_str()]].concat());
    let copies = peer.join().unwrap();
    assert_eq!(run.status.code(), Some(1), "given up: exit 1\n{}", run.stderr_text());
    assert!(run.stderr_text().contains("gave up after 5 copies"), "{}", run.stderr_text());
    // MAX_RETRANSMIT = 4: five copies, the same message each time (RFC 7252 §4.2).
    assert_eq!(copies.len(), 5, "five copies: {copies:?}");
    assert!(copies.iter().all(|(_, d)| *d == copies[0].1), "every copy is the same message: {copies:?}");
    // Copy k leaves 100·2^(k−1) ms after copy k−1 (the timer doubles). The peer's reading of a
    // copy may be late (a loaded machine), which lengthens one gap and shortens the next by
    // as much: the bounds allow 25 ms early and 100 ms late, narrower than any doubling.
    for k in 1..5 {
        let gap = copies[k].0 - copies[k - 1].0;
        let timer = Duration::from_millis(100 << (k - 1));
        assert!(
            gap >= timer - Duration::from_millis(25) && gap < timer + Duration::from_millis(100),
            "copy {k}: {gap:?} after the previous, timer {timer:?}"
        );
    }
}

#[test]
fn the_c_client_gets_the_response_to_its_first_retransmission() {
    let (port, peer) = scripted_peer(Duration::from_millis(800), Some(1));
    let uri = format!("coap://127.0.0.1:{port}/lossy");
    let run = run_client(&[&FAST_DEFAULT[..], &["-v", uri.as_str()]].concat());
    let copies = peer.join().unwrap();
    assert!(
        run.status.success() && run.stdout_text() == "2.05\nlate\n",
        "exit {}\n{}{}",
        run.status,
        run.stdout_text(),
        run.stderr_text()
    );
    assert_eq!(copies.len(), 2, "the original and one retransmission: {copies:?}");
    let gap = copies[1].0 - copies[0].0;
    assert!(
        gap >= Duration::from_millis(75) && gap < Duration::from_millis(200),
        "retransmitted {gap:?} after the original"
    );
    // No echo with `default`: the acknowledgement of a retransmission is ambiguous.
    assert!(
        run.stderr_text().contains("copy 1 sent") && run.stderr_text().contains("echo 4294967295"),
        "{}",
        run.stderr_text()
    );
}
