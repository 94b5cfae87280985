//! Californium 3.14.0's CoAP-over-TCP connector (`element-connector-tcp-netty`), which its
//! maintainers describe as experimental and based on an early draft of RFC 8323, against our
//! client and server and against libcoap 4.3.1 and aiocoap 0.4.17, on loopback. The program is
//! `tests/interop/californium` (its server listens on UDP and TCP on one port number; its
//! client takes `coap+tcp://` URIs and a `PING` method), built by `scripts/setup-peers`.
//!
//! These tests state what happens, so that a change on either side is noticed
//! (docs/real-networks.md, "CoAP over TCP", the finding): Californium sends no CSM (RFC 8323
//! §3.3 and §5.3 ask every endpoint for one first), drops every signalling message it
//! receives (CSM, Ping, Abort: "illegal message code") without a Pong or an Abort, sends an
//! Empty message (0.00) for `CoapClient.ping()`, and answers in BERT blocks of 4 096 bytes that
//! no CSM offered. So it interoperates with none of the three RFC 8323 stacks: they wait for
//! its CSM (our client, libcoap's) or abort the connection at its first message (our server,
//! aiocoap), and Californium's client takes no answer from a server that aborts.

use crate::interop_peers;
use crate::raw_tcp;

use std::net::TcpListener;
use std::process::Command;
use std::time::Duration;

use coapcc_proto::tcp::{ABORT, CSM, Signal, TcpMessage, encode, header};
use coapcc_proto::{Code, Payload, Token, option};
use coapcc_udp::block::Block;
use interop_peers::{ClientKind, LARGE_BYTES, Method, Run, Server, ServerKind, digits, run_bounded, scratch};
use raw_tcp::{RawTcp, csm, request};

/// How long an answer of a peer may take (a JVM's first request takes a second or two).
const LIMIT: Duration = Duration::from_secs(30);
/// How long a Californium client run may take (its own wait is at most 10 s).
const RUN_LIMIT: Duration = Duration::from_secs(90);
/// RFC 8323 §5.3.1: the Max-Message-Size in force until a CSM says otherwise.
const BASE_MAX_MESSAGE_BYTES: usize = 1152;

fn token(t: u8) -> Token {
    Token::new(&[t]).unwrap()
}

/// `coapcc.interop.Client METHOD URI ARGS…` with Californium's "ban" log (every message it
/// drops, with its first bytes in hex) on standard error.
fn californium(method: &str, uri: &str, args: &[&str]) -> Run {
    let peers = interop_peers::peers();
    let mut c = Command::new("java");
    c.arg("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
        .arg("-Dorg.slf4j.simpleLogger.log.org.eclipse.californium.ban=info")
        .arg("-cp")
        .arg(interop_peers::californium_classpath(peers))
        .args(["coapcc.interop.Client", method, uri])
        .args(args);
    run_bounded(&mut c, RUN_LIMIT).unwrap_or_else(|e| panic!("{e}"))
}

/// The codes of the messages Californium dropped as "illegal message code", in order (read
/// from the first bytes it logs in hex: the code follows the length field, RFC 8323 §3.2).
fn dropped_codes(log: &str) -> Vec<Code> {
    log.lines()
        .filter_map(|l| l.split("illegal message code; ").nth(1)?.split_whitespace().next())
        .map(|hex| {
            let bytes: Vec<u8> =
                (0..hex.len() / 2).filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()).collect();
            let h = header(&bytes).ok().flatten().unwrap_or_else(|| panic!("a frame header in {hex}"));
            Code(bytes[h.len_bytes])
        })
        .collect()
}

#[test]
fn californiums_tcp_server_sends_no_csm_drops_our_csm_and_ping_and_answers_in_bert_blocks_nobody_offered() {
    let server = Server::start(ServerKind::Californium);
    // No CSM from this side either: the first frame back is the response itself, so the
    // server sent no CSM before it. It is a BERT block (SZX 7) of 4 × 1 024 bytes in a frame
    // over 1152 bytes, though no CSM offered Block-Wise-Transfer (RFC 8323 §5.3.2, §6) or a
    // larger Max-Message-Size (§5.3.1).
    let mut bare = RawTcp::connect(server.port);
    bare.send(&[request(Code::GET, 1, "data", "size=5000", b"")]);
    let frames = bare.until_token(token(1), LIMIT);
    assert_eq!(frames.len(), 1, "nothing before the response, no CSM: {frames:?}");
    let r = &frames[0];
    let b = r.option(option::BLOCK2).and_then(Block::decode_reliable);
    assert_eq!((r.code, b.map(|b| (b.num, b.more, b.szx)), r.payload.len()), (Code::CONTENT, Some((0, true, 7)), 4096));
    // Content-Format (1 + 1 bytes), Block2 (1 + 1), Size2 5000 (1 + 2), the payload marker and
    // 4 096 bytes: Len 4 104 with a 16-bit extension (RFC 8323 §3.2), a 1-byte token: 4 109.
    assert_eq!(r.wire_len(), 4109, "{r:?}");
    assert!(r.wire_len() > BASE_MAX_MESSAGE_BYTES);

    // Our CSM, a Ping (RFC 8323 §5.4: it MUST be answered by a Pong) and a GET in one write:
    // the only answer is the GET's; the CSM and the Ping are dropped without a Pong or an
    // Abort, and the connection goes on (a second GET is answered too).
    let mut c = RawTcp::connect(server.port);
    c.send(&[
        csm(Some(66_048), true),
        Signal::Ping { custody: false }.to_message(token(0x42)),
        request(Code::GET, 2, "echo", "", b""),
    ]);
    let codes: Vec<Code> = c.until_token(token(2), LIMIT).iter().map(|m| m.code).collect();
    assert_eq!(codes, [Code::CONTENT], "no CSM, no Pong, no Abort before the response");
    c.send(&[request(Code::GET, 3, "echo", "", b"")]);
    let codes: Vec<Code> = c.until_token(token(3), LIMIT).iter().map(|m| m.code).collect();
    assert_eq!(codes, [Code::CONTENT], "{}", server.log_text());

    // Californium's own client and server do work together: a 100 000-byte GET.
    let uri = format!("coap+tcp://127.0.0.1:{}/data?size={LARGE_BYTES}", server.port);
    let run = californium("GET", &uri, &["--timeout-s", "20"]);
    let out = run.stdout_text();
    assert!(run.status.success() && out.contains("code=2.05 bytes=100000"), "{out}{}", run.stderr_text());
}

#[test]
fn our_tcp_client_gives_up_on_californiums_tcp_server_for_want_of_its_csm() {
    // Our client waits for the server's CSM before its first request (RFC 8323 §3.3 lets it;
    // §5.3: the server's CSM MUST come) and gives up after 10 s: a GET, a 100 000-byte PUT and
    // a Ping, at once, each with nothing sent after its own CSM.
    let server = Server::start(ServerKind::Californium);
    let large = scratch("large");
    std::fs::write(&large, digits(LARGE_BYTES)).unwrap();
    let uri = |path: &str| format!("coap+tcp://127.0.0.1:{}{path}", server.port);
    let runs: Vec<(String, Vec<String>)> = vec![
        (uri("/echo"), vec!["-v".into()]),
        (uri("/echo"), vec!["-v".into(), "-m".into(), "PUT".into(), "-f".into(), large.display().to_string()]),
        (uri("/"), vec!["-v".into(), "--ping".into()]),
    ];
    let threads: Vec<_> = runs
        .into_iter()
        .map(|(uri, args)| {
            std::thread::spawn(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                interop_peers::our_single_client(&uri, &args)
            })
        })
        .collect();
    for t in threads {
        let (ok, text, _) = t.join().unwrap();
        assert!(!ok && text.contains("exit status: 1"), "exit status 1: {text}");
        assert!(text.contains("error: no CSM from the server within 10 s (RFC 8323 §3.3)"), "{text}");
        let sent: Vec<&str> = text.lines().filter(|l| l.contains(" sent ")).collect();
        assert!(sent.len() == 1 && sent[0].contains("sent 7.01 CSM"), "only our CSM was sent: {text}");
        assert!(!text.contains("received"), "nothing came back: {text}");
    }
}

#[test]
fn californiums_tcp_client_sends_no_csm_takes_an_answer_after_dropping_ours_and_pings_with_an_empty_message() {
    // A scripted server: the client's first frame is its request (an 8-byte token), not a
    // CSM. Answered with a CSM and then the response, it drops the CSM (logged as an illegal
    // message code) and takes the response.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let uri = format!("coap+tcp://127.0.0.1:{}/echo", listener.local_addr().unwrap().port());
    let client = std::thread::spawn(move || californium("GET", &uri, &["--timeout-s", "20"]));
    let mut c = RawTcp::accept(&listener);
    let first = c.frame(LIMIT);
    assert_eq!((first.code, first.token.len()), (Code::GET, 8), "a GET first, no CSM: {first:?}");
    let ours = csm(Some(66_048), true);
    let mut answer = TcpMessage::new(Code::CONTENT);
    answer.token = first.token;
    answer.payload = Payload::from(b"ok".to_vec());
    c.send(&[ours.clone(), answer]);
    let run = client.join().unwrap();
    let (out, err) = (run.stdout_text(), run.stderr_text());
    assert!(run.status.success() && out.contains("code=2.05 bytes=2"), "{out}{err}");
    let hex: String = encode(&ours).unwrap().iter().map(|b| format!("{b:02X}")).collect();
    assert!(err.contains(&format!("illegal message code; {hex}")), "our CSM ({hex}) dropped: {err}");

    // CoapClient.ping() over TCP sends an Empty message (0.00: the two bytes 00 00, which
    // RFC 8323 §3.4 has the receiver ignore), not a 7.02 Ping (§5.4), so no peer answers it.
    let uri = format!("coap+tcp://127.0.0.1:{}/", listener.local_addr().unwrap().port());
    let client = std::thread::spawn(move || californium("PING", &uri, &["--timeout-s", "3"]));
    let mut c = RawTcp::accept(&listener);
    let ping = c.frame(LIMIT);
    assert_eq!((ping.code, ping.token, ping.wire_len()), (Code::EMPTY, Token::EMPTY, 2), "{ping:?}");
    let run = client.join().unwrap();
    assert!(!run.status.success() && run.stdout_text().contains("ping=false"), "{}", run.stdout_text());
}

#[test]
fn californiums_tcp_client_gets_no_answer_from_our_server_which_aborts_at_its_first_request() {
    // RFC 8323 §3.3: a first message other than a CSM is a connection error; our server sends
    // its CSM on accepting, then an Abort (§5.6) and closes. Californium drops both as illegal
    // message codes and waits out its time-out: a GET, a 100 000-byte PUT, and a Ping (an
    // Empty message, ignored before a CSM as always, §3.4: only our CSM is dropped then).
    let server = Server::start(ServerKind::Coapcc);
    let uri = |path: &str| format!("coap+tcp://127.0.0.1:{}{path}", server.port);
    let size = LARGE_BYTES.to_string();
    let runs: Vec<(&str, String, Vec<String>, &[Code])> = vec![
        ("GET", uri("/echo"), vec![], &[CSM, ABORT]),
        ("PUT", uri("/echo"), vec!["--payload-bytes".into(), size], &[CSM, ABORT]),
        ("PING", uri("/"), vec![], &[CSM]),
    ];
    let threads: Vec<_> = runs
        .into_iter()
        .map(|(method, uri, mut args, codes)| {
            args.extend(["--timeout-s".into(), "5".into()]);
            std::thread::spawn(move || {
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                (method, californium(method, &uri, &args), codes)
            })
        })
        .collect();
    for t in threads {
        let (method, run, codes) = t.join().unwrap();
        let (out, err) = (run.stdout_text(), run.stderr_text());
        assert_eq!(run.status.code(), Some(2), "{method}: no answer: {out}{err}");
        let expected = if method == "PING" { "ping=false" } else { "no response within 5000 ms" };
        assert!(out.contains(expected), "{method}: {out}");
        assert_eq!(dropped_codes(&err), codes, "{method}: what Californium dropped: {err}");
    }
}

#[test]
fn libcoap_and_aiocoap_do_not_interoperate_with_californium_over_tcp_either() {
    // The same missing CSM between Californium and the other two RFC 8323 stacks, both ways
    // (Californium's client against their servers in a thread meanwhile).
    let theirs = std::thread::spawn(|| {
        // libcoap's server sends its CSM and never answers a request that came without one;
        // aiocoap's sends its CSM, then an Abort.
        [(ServerKind::Libcoap, &[CSM][..]), (ServerKind::Aiocoap, &[CSM, ABORT][..])].map(|(kind, codes)| {
            let server = Server::start(kind);
            let uri = format!("coap+tcp://127.0.0.1:{}/echo", server.port);
            (kind, californium("GET", &uri, &["--timeout-s", "5"]), codes)
        })
    });
    let cf = Server::start(ServerKind::Californium);
    let echo = format!("coap+tcp://127.0.0.1:{}/echo", cf.port);
    // libcoap's client holds its request until the server's CSM, which never comes, and
    // drops it when it gives up the connection (after about 5 s).
    let libcoap = interop_peers::request_uri(ClientKind::Libcoap, &echo, Method::Get, None);
    assert!(libcoap.code.is_none(), "{}", libcoap.transcript);
    assert!(libcoap.transcript.contains("not transmitted after disconnect"), "{}", libcoap.transcript);
    // aiocoap's client aborts when the first message back is not a CSM.
    let aiocoap = interop_peers::request_uri(ClientKind::Aiocoap, &echo, Method::Get, None);
    assert!(aiocoap.code.is_none(), "{}", aiocoap.transcript);
    assert!(aiocoap.transcript.contains("Aborting connection: No CSM received"), "{}", aiocoap.transcript);

    for (kind, run, codes) in theirs.join().unwrap() {
        let (out, err) = (run.stdout_text(), run.stderr_text());
        assert!(run.status.code() == Some(2) && out.contains("no response within 5000 ms"), "{kind:?}: {out}{err}");
        assert_eq!(dropped_codes(&err), codes, "{kind:?}: what Californium dropped: {err}");
    }
}
