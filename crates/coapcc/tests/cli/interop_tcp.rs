//! Interoperability of CoAP over TCP (RFC 8323) with real stacks on loopback: libcoap 4.3.1
//! (`coap-server-notls` / `coap-client-notls`, `coap+tcp://` on the UDP port number) and
//! aiocoap 0.4.17 (its `tcpserver` / `tcpclient` transports, in its default server and client
//! transports). `scripts/setup-peers` installs them; a peer that cannot be installed fails.
//!
//! - Our client against their servers: GET, PUT of 64 bytes (echoed), a 100 000-byte GET and
//!   PUT in BERT blocks (both peers offer BERT in their CSMs), the PUT's echo fetched whole
//!   (RFC 7959 §2.7), a Ping answered by a Pong.
//! - Their clients against our server, and against each other's servers: the checks of the
//!   UDP interop tests over `coap+tcp://` (GET, PUT echoed, 100 000 bytes both ways, the link
//!   format).
//! - Californium's TCP connector: `interop_tcp_californium.rs`.
//! - A peer's Abort: a CSM with an unknown critical option (9) sent to each server through our
//!   own session ([`coapcc_proto::tcp::Session`] over a std `TcpStream`): aiocoap aborts
//!   naming it in Bad-CSM-Option; libcoap 4.3.1 does not abort (it sends an Empty message and
//!   keeps the connection), which the test states so that a change is noticed.

use crate::interop_peers;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use coapcc_proto::tcp::{Role, Session, SessionConfig, SessionEvent, TcpMessage};
use interop_peers::{ClientKind, LARGE_BYTES, SMALL_BYTES, Server, ServerKind, client_checks_over, digits, scratch};

/// `coapcc client coap+tcp://127.0.0.1:PORT{path}` with `args`; its exit status, transcript and
/// the body it wrote with `-o`.
fn our_client(port: u16, path: &str, args: &[&str]) -> (bool, String, Vec<u8>) {
    interop_peers::our_single_client(&format!("coap+tcp://127.0.0.1:{port}{path}"), args)
}

fn our_client_checks(kind: ServerKind) {
    let server = Server::start(kind);
    let port = server.port;
    let (ok, text, body) = our_client(port, "/echo", &["-m", "GET"]);
    assert!(ok && text.contains("2.05 Content"), "GET /echo over TCP: {text}\n{}", server.log_text());
    let _ = body;

    let small = scratch("small");
    std::fs::write(&small, digits(SMALL_BYTES)).unwrap();
    let (ok, text, body) = our_client(port, "/echo", &["-m", "PUT", "-f", small.to_str().unwrap()]);
    assert!(
        ok && text.contains("2.04 Changed") && body == digits(SMALL_BYTES),
        "PUT /echo of 64 bytes, echoed: {text}"
    );

    // libcoap's /data holds 100 000 bytes (created by the harness) and ignores the query.
    let (ok, text, body) = our_client(port, &format!("/data?size={LARGE_BYTES}"), &["-v"]);
    assert!(ok && body == digits(LARGE_BYTES), "100 000-byte GET over TCP, whole and exact: {text}");
    assert!(text.contains("BERT allowed") && text.contains("/BERT"), "both CSMs offer BERT and it is used: {text}");
    let gets = sent_frames(&text, "0.01 GET").len();
    assert_eq!(gets, 2, "100 000 bytes in two BERT blocks of at most 64 KiB: {text}");

    let large = scratch("large");
    std::fs::write(&large, digits(LARGE_BYTES)).unwrap();
    let (ok, text, body) = our_client(port, "/echo", &["-m", "PUT", "-f", large.to_str().unwrap(), "-v"]);
    // Both servers announce a Max-Message-Size above 64 KiB + 512 and Block-Wise-Transfer, so
    // our client sends BERT blocks of its cap, 65 536 bytes: 100 000 bytes in two PUTs (with
    // 1 024-byte blocks it would take 98).
    let puts = sent_frames(&text, "0.03 PUT");
    let uploads = puts.iter().filter(|b| **b > 1024).count();
    assert!(ok && uploads == 2, "100 000-byte PUT in two BERT blocks ({puts:?}): {text}");
    // Both echo the body (libcoap's -e, aiocoap's /echo): the response to the last block
    // carries BERT block 0 of it, 65 536 bytes, and RFC 7959 §2.7 has the client ask for the
    // rest, 34 464 bytes, with one more PUT without Block1 and without a payload.
    let continuations = puts.iter().filter(|b| **b < 64).count();
    assert_eq!((continuations, puts.len()), (1, 3), "one PUT for the rest of the echo: {text}");
    assert!(body == digits(LARGE_BYTES), "the echo of 100 000 bytes is printed whole ({} bytes): {text}", body.len());

    let (ok, text, _) = our_client(port, "/", &["--ping"]);
    assert!(ok && text.contains("7.03 Pong"), "a Ping is answered by a Pong: {text}");
}

/// The frame sizes of the `-v` lines `sent {code}, …, N bytes`.
fn sent_frames(text: &str, code: &str) -> Vec<usize> {
    let marker = format!("sent {code}");
    text.lines()
        .filter(|l| l.contains(&marker))
        .filter_map(|l| l.rsplit(", ").next()?.strip_suffix(" bytes")?.parse().ok())
        .collect()
}

#[test]
fn our_tcp_client_gets_puts_moves_bert_bodies_and_pings_the_libcoap_server() {
    our_client_checks(ServerKind::Libcoap);
}

#[test]
fn our_tcp_client_gets_puts_moves_bert_bodies_and_pings_the_aiocoap_server() {
    our_client_checks(ServerKind::Aiocoap);
}

#[test]
fn libcoap_tcp_client_gets_puts_and_moves_large_bodies_with_our_server() {
    client_checks_over("coap+tcp", ClientKind::Libcoap, &Server::start(ServerKind::Coapcc));
}

#[test]
fn aiocoap_tcp_client_gets_puts_and_moves_large_bodies_with_our_server() {
    client_checks_over("coap+tcp", ClientKind::Aiocoap, &Server::start(ServerKind::Coapcc));
}

#[test]
fn libcoap_and_aiocoap_interoperate_over_tcp_both_ways() {
    client_checks_over("coap+tcp", ClientKind::Libcoap, &Server::start(ServerKind::Aiocoap));
    client_checks_over("coap+tcp", ClientKind::Aiocoap, &Server::start(ServerKind::Libcoap));
}

/// Connects our session to `port`, exchanges CSMs, sends a CSM carrying the unknown critical
/// option 9, and returns every event of the next second (or until the server closes).
fn bad_csm_to(port: u16) -> (Vec<SessionEvent>, bool) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
    let mut session = Session::new(Role::Initiator, SessionConfig::default());
    let mut bad = TcpMessage::new(coapcc_proto::tcp::CSM);
    bad.add_option(9, []);
    let mut bytes: Vec<u8> = std::iter::from_fn(|| session.poll_transmit()).flat_map(|t| t.bytes).collect();
    bytes.extend(coapcc_proto::tcp::encode(&bad).unwrap());
    stream.write_all(&bytes).unwrap();
    let mut events = Vec::new();
    let mut closed = false;
    let mut buf = [0u8; 4096];
    for _ in 0..5 {
        match stream.read(&mut buf) {
            Ok(0) => {
                closed = true;
                break;
            }
            Ok(n) => session.receive(&buf[..n]),
            Err(_) => {}
        }
        events.extend(std::iter::from_fn(|| session.poll_event()));
    }
    (events, closed)
}

#[test]
fn aiocoap_aborts_a_csm_with_an_unknown_critical_option_naming_it() {
    let server = Server::start(ServerKind::Aiocoap);
    let (events, closed) = bad_csm_to(server.port);
    let abort = events.iter().find_map(|e| match e {
        SessionEvent::PeerAbort { bad_csm_option, diagnostic } => Some((*bad_csm_option, diagnostic.clone())),
        _ => None,
    });
    assert_eq!(abort, Some((Some(9), "Option not supported".to_string())), "{events:?}");
    assert!(closed, "aiocoap closes the connection after its Abort");
}

#[test]
fn libcoap_4_3_1_answers_a_csm_with_an_unknown_critical_option_with_an_empty_message_not_an_abort() {
    // RFC 8323 §5.3/§5.6 asks for an Abort (with Bad-CSM-Option); libcoap 4.3.1 sends an Empty
    // message (0.00, 2 bytes) and keeps the connection open. Stated here so that a change shows.
    let server = Server::start(ServerKind::Libcoap);
    let (events, closed) = bad_csm_to(server.port);
    let received: Vec<(coapcc_proto::Code, usize)> = events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Received { code, bytes, .. } => Some((*code, *bytes)),
            _ => None,
        })
        .collect();
    assert_eq!(received.first().map(|r| r.0), Some(coapcc_proto::tcp::CSM), "its CSM first: {events:?}");
    assert!(received.contains(&(coapcc_proto::Code::EMPTY, 2)), "an Empty message: {events:?}");
    assert!(!events.iter().any(|e| matches!(e, SessionEvent::PeerAbort { .. })), "no Abort: {events:?}");
    assert!(!closed, "the connection stays open");
}

#[test]
fn libcoap_4_3_1_answers_a_ping_with_an_empty_token_pong_carrying_custody() {
    // RFC 8323 §5.4: "the receiver MUST return a Pong message with an identical token".
    // libcoap 4.3.1 answers the Ping 0x01 0xe2 0x42 (Figure 11) with 0x10 0xe3 0x20: a Pong with
    // no token and the Custody option. Our client accepts any Pong to its one Ping.
    let server = Server::start(ServerKind::Libcoap);
    let mut stream = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut session = Session::new(Role::Initiator, SessionConfig::default());
    let csm: Vec<u8> = std::iter::from_fn(|| session.poll_transmit()).flat_map(|t| t.bytes).collect();
    stream.write_all(&csm).unwrap();
    let mut buf = [0u8; 64];
    let n = stream.read(&mut buf).unwrap();
    session.receive(&buf[..n]);
    stream.write_all(&[0x01, 0xe2, 0x42]).unwrap();
    let n = stream.read(&mut buf).unwrap();
    assert_eq!(&buf[..n], [0x10, 0xe3, 0x20]);
}
