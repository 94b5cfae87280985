//! CoAP over TCP (RFC 8323) between `coapcc` processes and scripted peers on loopback: our
//! client against our server, the server's bounds (idle Release, connection cap, CSM time-out,
//! a peer without a CSM), replies sized to the peer's Max-Message-Size (4.13, smaller blocks,
//! BERT), the client's refusals and its reports of a server's Abort or Release. Every number
//! asserted is derived here from the RFC's framing and the configured sizes. Every process
//! started here is stopped here, by its PID; every wait is bounded.

use crate::coapcc_process;
use crate::raw_tcp;

use std::net::TcpListener;
use std::process::Command;
use std::time::Duration;

use coapcc_process::{Process, server_addresses};
use coapcc_proto::tcp::{ABORT, BERT_UNIT_BYTES, CSM, PONG, RELEASE, Signal};
use coapcc_proto::{Code, Token, option};
use coapcc_udp::block::Block;
use coapcc_udp::clock::Clock;
use raw_tcp::{Next, RawTcp, csm, digits, request, signal};

/// How long a frame the server sends at once may take on a loaded 2-core machine.
const PROMPT: Duration = Duration::from_secs(10);
/// The Max-Message-Size `coapcc server` announces: 64 KiB + 512 (docs/real-networks.md).
const SERVER_MAX_MESSAGE_BYTES: u32 = 66_048;
/// RFC 8323 §5.3.1: the Max-Message-Size in force until a CSM says otherwise.
const BASE_MAX_MESSAGE_BYTES: u32 = 1152;

/// `coapcc server` on a free loopback port pair with `extra` arguments: the process and its
/// TCP port (the same number as its UDP port).
fn server(extra: &[&str]) -> (Process, u16) {
    let mut args = vec!["server", "--bind", "127.0.0.1:0", "--duration-s", "300"];
    args.extend_from_slice(extra);
    let mut p = Process::spawn(&args);
    let (udp, tcp) = server_addresses(&p.first_lines(2, false));
    let tcp = tcp.unwrap_or_else(|| panic!("no coap+tcp address printed (UDP {udp})"));
    assert_eq!(tcp.port(), udp.port(), "coap+tcp listens on the UDP port number");
    (p, tcp.port())
}

/// Stops `server` with SIGTERM (by its PID) and returns its `(coap+tcp) stopped: …` line.
fn tcp_counters(server: Process) -> String {
    server.signal("TERM");
    let (code, out, err) = server.finish(Duration::from_secs(30));
    assert_eq!(code, Some(0), "the server ends cleanly on SIGTERM: {out}{err}");
    out.lines().find(|l| l.contains("(coap+tcp) stopped:")).unwrap_or_else(|| panic!("no TCP counters: {out}")).into()
}

/// Runs `coapcc ARGS…` to its end (every run here bounds itself with `-B`): exit code, stdout,
/// stderr.
fn coapcc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc")).args(args).output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// A connection to our server with the CSM exchange done: this side announces `max` and
/// Block-Wise-Transfer `bwt`; the server's first frame must be its CSM (RFC 8323 §3.3).
fn connected(port: u16, max: Option<u32>, bwt: bool) -> RawTcp {
    let mut c = RawTcp::connect(port);
    c.send(&[csm(max, bwt)]);
    let first = c.frame(PROMPT);
    assert_eq!(first.code, CSM, "the server's first frame is its CSM: {first:?}");
    match signal(&first) {
        Signal::Csm(s) => {
            assert_eq!(s.max_message_size, Some(SERVER_MAX_MESSAGE_BYTES), "{s:?}");
            assert!(s.block_wise_transfer, "the server offers block-wise transfer: {s:?}");
        }
        other => panic!("{other:?}"),
    }
    c
}

fn block2(m: &coapcc_proto::tcp::TcpMessage) -> Block {
    m.option(option::BLOCK2).and_then(Block::decode_reliable).unwrap_or_else(|| panic!("no Block2: {m:?}"))
}

#[test]
fn our_client_and_server_get_put_move_100_kb_in_two_bert_blocks_each_way_and_ping() {
    let (srv, port) = server(&[]);
    let uri = |path: &str| format!("coap+tcp://127.0.0.1:{port}{path}");
    let dir = tempfile::tempdir().unwrap();
    let body_file = dir.path().join("body");

    let (code, out, err) = coapcc(&["client", &uri("/echo"), "-B", "30"]);
    assert_eq!((code, out.lines().next()), (0, Some("2.05 Content")), "GET /echo: {out}{err}");
    let (code, out, err) = coapcc(&["client", &uri("/echo"), "-B", "30", "-m", "PUT", "-e", "hello tcp"]);
    assert!(code == 0 && out.starts_with("2.04 Changed") && out.trim_end().ends_with("hello tcp"), "{out}{err}");

    // Both CSMs offer BERT (Block-Wise-Transfer with a Max-Message-Size above 1152, RFC 8323
    // §5.3.2): the largest multiple of 1 024 bytes within 66 048 bytes less the header and
    // options, capped at 64 KiB, is 65 536. 100 000 bytes = 65 536 + 34 464: two blocks, the
    // second numbered 65 536 / 1 024 = 64 (§6: BERT numbers count 1 024-byte units).
    let out_file = body_file.to_str().unwrap();
    let (code, out, err) = coapcc(&["client", &uri("/data?size=100000"), "-B", "30", "-v", "-o", out_file]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(std::fs::read(&body_file).unwrap(), digits(100_000), "the body, whole and exact");
    assert!(out.contains("Block2: 64/0/BERT"), "the last block is BERT block 64: {out}");
    assert!(err.contains("BERT allowed"), "{err}");
    assert_eq!(err.lines().filter(|l| l.contains("sent 0.01 GET")).count(), 2, "two GETs: {err}");

    let upload = dir.path().join("upload");
    std::fs::write(&upload, digits(100_000)).unwrap();
    let (code, out, err) =
        coapcc(&["client", &uri("/data"), "-B", "30", "-v", "-m", "PUT", "-f", upload.to_str().unwrap()]);
    assert!(code == 0 && out.starts_with("2.04 Changed"), "{out}{err}");
    let puts: Vec<&str> = err.lines().filter(|l| l.contains("sent 0.03 PUT")).collect();
    assert_eq!(puts.len(), 2, "two BERT PUTs: {err}");
    // 65 536 + 34 464 bytes of payload, each with its header, token and options on top.
    let sizes: Vec<usize> =
        puts.iter().filter_map(|l| l.rsplit(", ").next()?.strip_suffix(" bytes")?.parse().ok()).collect();
    assert!(sizes.len() == 2 && sizes[0] > 65_536 && sizes[1] > 34_464 && sizes[1] < 35_000, "{sizes:?}");
    assert!(sizes[0] <= SERVER_MAX_MESSAGE_BYTES as usize, "within the server's Max-Message-Size: {sizes:?}");

    let (code, out, err) = coapcc(&["client", &uri("/"), "-B", "30", "--ping"]);
    assert!(code == 0 && out.starts_with("7.03 Pong (RTT "), "{out}{err}");

    // Five connections, six requests (1 + 1 + 2 + 2), one Pong; nothing aborted or released.
    let counters = tcp_counters(srv);
    assert!(counters.contains("5 connection(s), 0 refused"), "{counters}");
    assert!(counters.contains("requests 6, pongs 1, aborts sent 0, aborts received 0, idle releases 0"), "{counters}");
}

#[test]
fn a_silent_connection_gets_a_release_after_the_idle_time_out_and_is_closed_after_the_grace() {
    let (srv, port) = server(&["--tcp-idle-timeout-s", "1"]);
    // A connection that talks is not idle: a Ping every 100 ms for 2 s, each answered by a
    // Pong with its token (RFC 8323 §5.4), never a Release.
    let mut busy = connected(port, None, false);
    for n in 1..=20u8 {
        let token = Token::new(&[n]).unwrap();
        busy.send(&[Signal::Ping { custody: false }.to_message(token)]);
        let pong = busy.frame(PROMPT);
        assert_eq!((pong.code, pong.token), (PONG, token), "a Pong with the Ping's token: {pong:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    drop(busy);

    // RFC 8323 §5.5: the server may end a connection it no longer wants with a Release, then
    // close it. Silent after the CSMs: the Release comes after at least 1 s.
    let clock = Clock::start();
    let mut idle = connected(port, None, false);
    let release = idle.frame(Duration::from_secs(30));
    let after = clock.now().since_epoch();
    assert_eq!(release.code, RELEASE, "{release:?}");
    assert!(after >= Duration::from_secs(1), "not before the idle time-out: {after:?}");
    match signal(&release) {
        Signal::Release { diagnostic, .. } => assert_eq!(diagnostic, "idle for 1 s"),
        other => panic!("{other:?}"),
    }
    // This side does not close: the server does, 5 s after its Release (RELEASE_GRACE; the
    // Release's own way here may have taken part of it on a loaded machine, hence 4 s).
    let clock = Clock::start();
    assert!(matches!(idle.next(Duration::from_secs(60)), Next::Closed), "the server closes the connection");
    let grace = clock.now().since_epoch();
    assert!(grace >= Duration::from_secs(4), "the grace of 5 s is waited for: {grace:?}");
    let counters = tcp_counters(srv);
    assert!(counters.contains("idle releases 1"), "{counters}");
}

#[test]
fn a_connection_beyond_the_cap_is_closed_at_once_and_served_again_once_one_ends() {
    let (srv, port) = server(&["--tcp-max-connections", "2"]);
    let first = connected(port, None, false);
    let _second = connected(port, None, false);
    // The third is accepted by the kernel and closed by the server without a CSM.
    let mut third = RawTcp::connect(port);
    assert!(matches!(third.next(PROMPT), Next::Closed), "closed without a frame");
    drop(first);
    // Once the first is gone the server takes one more; its task may take a moment to end,
    // so a connection refused meanwhile is tried again (each refusal is counted).
    let clock = Clock::start();
    let mut refused = 1;
    loop {
        let mut c = RawTcp::connect(port);
        c.send(&[csm(None, false)]);
        match c.next(PROMPT) {
            Next::Frame(m) if m.code == CSM => break,
            Next::Closed => refused += 1,
            other => panic!("{other:?}"),
        }
        assert!(clock.now().since_epoch() < Duration::from_secs(30), "served again within 30 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    let counters = tcp_counters(srv);
    assert!(counters.contains(&format!("3 connection(s), {refused} refused")), "{counters}");
}

#[test]
fn a_peer_without_a_csm_is_aborted_at_its_first_other_message_or_after_the_csm_time_out() {
    // RFC 8323 §3.3: a missing or invalid CSM is a connection error: Abort (§5.6), then close.
    let (srv, port) = server(&[]);
    let mut eager = RawTcp::connect(port);
    eager.send(&[request(Code::GET, 1, "echo", "", b"")]);
    assert_eq!(eager.frame(PROMPT).code, CSM, "the server's CSM comes first");
    let abort = eager.frame(PROMPT);
    assert_eq!(abort.code, ABORT, "{abort:?}");
    match signal(&abort) {
        Signal::Abort { bad_csm_option: None, diagnostic } => {
            assert!(
                diagnostic.starts_with("the first message was") && diagnostic.ends_with("not a CSM (RFC 8323 §3.3)")
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(eager.next(PROMPT), Next::Closed));

    // Silent: the Abort comes after the server's CSM time-out of 10 s.
    let clock = Clock::start();
    let mut silent = RawTcp::connect(port);
    assert_eq!(silent.frame(PROMPT).code, CSM);
    let abort = silent.frame(Duration::from_secs(60));
    let after = clock.now().since_epoch();
    assert!(after >= Duration::from_secs(10), "not before the CSM time-out: {after:?}");
    match signal(&abort) {
        Signal::Abort { bad_csm_option: None, diagnostic } => {
            assert_eq!(diagnostic, "no CSM within 10 s (RFC 8323 §3.3)")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(silent.next(PROMPT), Next::Closed));
    let counters = tcp_counters(srv);
    assert!(counters.contains("aborts sent 2"), "{counters}");
}

#[test]
fn a_reply_over_the_peers_max_message_size_becomes_a_4_13_without_payload() {
    // RFC 8323 §5.3.1: without a Max-Message-Size in its CSM, a peer receives messages of at
    // most 1152 bytes. The echo of a PUT of P bytes is 2.04 with a 1-byte token, no option and
    // the payload: Len = 1 + P ≥ 269 takes 2 extended-length bytes (§3.2), so the frame is
    // 1 + 2 + 1 (code) + 1 (token) + 1 + P = P + 6 bytes: P = 1146 fits exactly, 1147 does not.
    let (srv, port) = server(&[]);
    let mut c = connected(port, None, false);
    c.send(&[request(Code::PUT, 1, "echo", "", &digits(1146))]);
    let fits = c.until_token(Token::new(&[1]).unwrap(), PROMPT).pop().unwrap();
    assert_eq!((fits.code, fits.payload.len(), fits.wire_len()), (Code::CHANGED, 1146, 1152));
    c.send(&[request(Code::PUT, 2, "echo", "", &digits(1147))]);
    let refused = c.until_token(Token::new(&[2]).unwrap(), PROMPT).pop().unwrap();
    assert_eq!((refused.code, refused.payload.len()), (Code::REQUEST_ENTITY_TOO_LARGE, 0), "{refused:?}");
    // The connection goes on.
    c.send(&[request(Code::GET, 3, "echo", "", b"")]);
    assert_eq!(c.until_token(Token::new(&[3]).unwrap(), PROMPT).pop().unwrap().code, Code::CONTENT);
    assert!(c.frame_bytes.iter().all(|b| *b <= BASE_MAX_MESSAGE_BYTES as usize), "{:?}", c.frame_bytes);
    drop(c);
    drop(srv);
}

/// GETs `/data?size={size}` block by block over `c` (the server's block size, Block2 with
/// the next number), checking every block; the responses.
fn fetch(c: &mut RawTcp, size: usize) -> Vec<coapcc_proto::tcp::TcpMessage> {
    let query = format!("size={size}");
    let mut responses = Vec::new();
    let mut body = Vec::new();
    let mut next: Option<Block> = None;
    for token in 1..=64u8 {
        let mut m = request(Code::GET, token, "data", &query, b"");
        if let Some(b) = next {
            m.add_option(option::BLOCK2, b.encode());
        }
        c.send(&[m]);
        let r = c.until_token(Token::new(&[token]).unwrap(), PROMPT).pop().unwrap();
        let b = block2(&r);
        assert_eq!((r.code, b.offset_bytes()), (Code::CONTENT, body.len()), "{r:?}");
        body.extend_from_slice(&r.payload);
        responses.push(r);
        if !b.more {
            assert_eq!(body, digits(size), "the body, whole and exact");
            return responses;
        }
        let num = if b.is_bert() {
            b.num + (responses.last().unwrap().payload.len() / BERT_UNIT_BYTES) as u32
        } else {
            b.num + 1
        };
        next = Some(Block { num, more: false, szx: b.szx });
    }
    panic!("more than 64 blocks");
}

#[test]
fn blocks_shrink_to_a_small_peer_maximum_and_fill_a_larger_one_with_bert() {
    let (srv, port) = server(&[]);
    // Max-Message-Size 300, no block-wise offer: plain Block2. A 256-byte block (SZX 4) with
    // a 1-byte token, Block2 (1 + 1 + up to 3 bytes: option 23 needs an extended delta) and
    // Size2 2000 (1 + 2 bytes) has Len = 3..5 + 3 + 1 + 256 < 269 (1 extended-length byte):
    // at most 1 + 1 + 1 + 1 + 265 = 269 bytes ≤ 300; a 512-byte block could not fit. 2000
    // bytes = 7 × 256 + 208: eight blocks.
    let mut small = connected(port, Some(300), false);
    let blocks = fetch(&mut small, 2000);
    assert_eq!(blocks.len(), 8);
    assert!(blocks.iter().all(|r| block2(r).szx == 4 && !block2(r).is_bert()), "{blocks:?}");
    assert!(small.frame_bytes.iter().all(|b| *b <= 300), "{:?}", small.frame_bytes);

    // Max-Message-Size 5000 with Block-Wise-Transfer: BERT (RFC 8323 §6), the largest multiple
    // of 1 024 bytes that fits 5000 with the header and options: 4 096 (5 120 would not).
    // 10 000 bytes = 4 096 + 4 096 + 1 808: three blocks, numbered 0, 4 and 8.
    let mut bert = connected(port, Some(5000), true);
    let blocks = fetch(&mut bert, 10_000);
    let shape: Vec<(u32, bool, usize)> =
        blocks.iter().map(|r| (block2(r).num, block2(r).is_bert(), r.payload.len())).collect();
    assert_eq!(shape, [(0, true, 4096), (4, true, 4096), (8, true, 1808)]);
    assert!(bert.frame_bytes.iter().all(|b| *b <= 5000), "{:?}", bert.frame_bytes);
    drop(srv);
}

/// A scripted server on a free port: sends its CSM (`max`, Block-Wise-Transfer `bwt`), then
/// hands the connection to `script`, in a thread; the port and the thread.
fn scripted(
    max: Option<u32>,
    bwt: bool,
    script: impl FnOnce(&mut RawTcp) + Send + 'static,
) -> (u16, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let thread = std::thread::spawn(move || {
        let mut c = RawTcp::accept(&listener);
        let first = c.frame(PROMPT);
        assert_eq!(first.code, CSM, "the client's first frame is its CSM (RFC 8323 §3.3): {first:?}");
        c.send(&[csm(max, bwt)]);
        script(&mut c);
    });
    (port, thread)
}

#[test]
fn the_client_reports_a_servers_abort_or_release_and_exits_1() {
    // RFC 8323 §5.6: an Abort ends the connection at once; its diagnostic is the reason.
    let (port, thread) = scripted(None, false, |c| {
        let req = c.frame(PROMPT);
        assert_eq!(req.code, Code::GET);
        let abort = Signal::Abort { bad_csm_option: Some(2), diagnostic: "scripted abort".into() };
        c.send(&[abort.to_message(Token::EMPTY)]);
    });
    let (code, out, err) = coapcc(&["client", &format!("coap+tcp://127.0.0.1:{port}/x"), "-B", "30"]);
    thread.join().unwrap();
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(err.trim(), "error: the server aborted the connection (7.05 Abort, Bad-CSM-Option 2): scripted abort");

    // §5.5: a Release, then the close, before the answer.
    let (port, thread) = scripted(None, false, |c| {
        let _request = c.frame(PROMPT);
        let release = Signal::Release { alternative_addresses: vec![], hold_off_s: None, diagnostic: "bye".into() };
        c.send(&[release.to_message(Token::EMPTY)]);
    });
    let (code, out, err) = coapcc(&["client", &format!("coap+tcp://127.0.0.1:{port}/x"), "-B", "30"]);
    thread.join().unwrap();
    assert_eq!(code, 1, "{out}{err}");
    assert_eq!(err.trim(), "error: the server released the connection (7.04 Release): closed before answering");
}

#[test]
fn the_client_cuts_its_upload_to_the_servers_max_message_size_and_fetches_an_echo_block_wise() {
    // A server announcing Max-Message-Size 600 without block-wise transfer: 1 024-byte blocks
    // do not fit, 512-byte ones do (a PUT frame of 512 bytes of payload with Uri-Path, Block1
    // and Size1 stays near 530 bytes). 2000 bytes = 3 × 512 + 464: four PUTs. The answer to
    // the last block starts a 2-block echo (Block2 0, More), so RFC 7959 §2.7 has the client
    // send one more PUT, with Block2 1 and neither Block1 nor payload.
    let (port, thread) = scripted(Some(600), false, |c| {
        let mut uploads = Vec::new();
        loop {
            let req = c.frame(PROMPT);
            assert!(req.wire_len() <= 600, "within our Max-Message-Size: {req:?}");
            let b1 = req.option(option::BLOCK1).and_then(Block::decode_reliable).expect("Block1");
            uploads.push((b1.num, b1.szx, req.payload.len()));
            let mut r = coapcc_proto::tcp::TcpMessage::new(if b1.more { Code::CONTINUE } else { Code::CHANGED });
            r.token = req.token;
            r.add_option(option::BLOCK1, b1.encode());
            if !b1.more {
                r.add_option(option::BLOCK2, Block { num: 0, more: true, szx: 2 }.encode());
                r.payload = coapcc_proto::Payload::from(
                    b"0123456789012345678901234567890123456789012345678901234567890123".to_vec(),
                );
                c.send(&[r]);
                break;
            }
            c.send(&[r]);
        }
        assert_eq!(uploads, [(0, 5, 512), (1, 5, 512), (2, 5, 512), (3, 5, 464)]);
        let rest = c.frame(PROMPT);
        assert_eq!(rest.code, Code::PUT);
        assert_eq!(block2(&rest), Block { num: 1, more: false, szx: 2 });
        assert!(rest.option(option::BLOCK1).is_none() && rest.payload.is_empty(), "{rest:?}");
        let mut r = coapcc_proto::tcp::TcpMessage::new(Code::CHANGED);
        r.token = rest.token;
        r.add_option(option::BLOCK2, Block { num: 1, more: false, szx: 2 }.encode());
        r.payload = coapcc_proto::Payload::from(b"tail".to_vec());
        c.send(&[r]);
    });
    let dir = tempfile::tempdir().unwrap();
    let upload = dir.path().join("upload");
    std::fs::write(&upload, digits(2000)).unwrap();
    let uri = format!("coap+tcp://127.0.0.1:{port}/up");
    let (code, out, err) = coapcc(&["client", &uri, "-B", "30", "-m", "PUT", "-f", upload.to_str().unwrap()]);
    thread.join().unwrap();
    assert_eq!(code, 0, "{out}{err}");
    let echo = format!("{}tail", String::from_utf8(digits(64)).unwrap());
    assert!(out.starts_with("2.04 Changed") && out.trim_end().ends_with(&echo), "the whole echo: {out}");
}

#[test]
fn the_client_refuses_congestion_control_and_udp_only_options_on_tcp_with_exit_2() {
    let uri = "coap+tcp://127.0.0.1:9/x";
    let cases: [(&[&str], &str); 6] = [
        (&["--algorithm", "cocoa"], "CoAP over TCP has no CoAP-layer congestion control"),
        (&["--set", "initial_rto_ms=500"], "CoAP over TCP has no CoAP-layer congestion control"),
        (&["-N"], "-N: CoAP over TCP has no message types (RFC 8323 §3.2)"),
        (&["-s", "5"], "Observe over coap+tcp:// is not offered"),
        (&["--observe"], "Observe over coap+tcp:// is not offered"),
        (&["--count", "3"], "--count: the load generator runs over UDP only"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["client", uri];
        args.extend_from_slice(extra);
        let (code, out, err) = coapcc(&args);
        assert_eq!(code, 2, "{extra:?}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{extra:?}: one line: {err}");
        assert!(err.contains(needle), "{extra:?}: `{needle}` in {err}");
    }
    let (code, _, err) = coapcc(&["client", "coap://127.0.0.1:9/x", "--ping"]);
    assert!(code == 2 && err.contains("use a coap+tcp:// URI"), "--ping on UDP: {err}");
}
