//! `coapcc client` as a CoAP client (one request, its response printed), checked against the
//! RFCs: the datagram it sends (decoded here: RFC 7252 §6.4 URI options, §4.3 NON, no Block2
//! on a plain GET), and its output for GET, PUT, NON and Observe against our server and
//! libcoap's `coap-server` (RFC 7252 §5.8 codes, payload bytes, RFC 7641 sequence numbers).
//! Every server is started here and stopped by its PID; every client run is bounded.

use crate::interop_peers;

use std::net::UdpSocket;
use std::process::Command;
use std::time::Duration;

use coapcc_proto::{Code, Message, MessageType, Payload, codec, decode_uint, option};
use interop_peers::{Run, Server, ServerKind, digits, run_bounded};

/// How long one client run may take (each takes well under a second, Observe its duration).
const LIMIT: Duration = Duration::from_secs(30);

fn client(args: &[&str]) -> Run {
    let mut c = Command::new(env!("CARGO_BIN_EXE_coapcc"));
    c.arg("client").args(args);
    run_bounded(&mut c, LIMIT).unwrap_or_else(|e| panic!("{e}"))
}

fn options(m: &Message, number: u16) -> Vec<Vec<u8>> {
    m.options.iter().filter(|o| o.number == number).map(|o| o.value.to_vec()).collect()
}

/// A socket playing the server: receives one request, answers it with `answer(request)`,
/// and returns the request with the client's output.
fn one_exchange(uri_tail: &str, args: &[&str], answer: impl FnOnce(&Message) -> Message) -> (Message, Run) {
    let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
    peer.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let uri = format!("coap://{}/{uri_tail}", peer.local_addr().unwrap());
    let mut all = vec![uri.as_str()];
    all.extend(args);
    let all: Vec<String> = all.iter().map(|s| s.to_string()).collect();
    let run = std::thread::spawn(move || client(&all.iter().map(String::as_str).collect::<Vec<_>>()));
    let mut buf = [0u8; 2048];
    let (n, from) = peer.recv_from(&mut buf).expect("the client sends its request");
    let request = codec::decode(&buf[..n]).expect("the request decodes");
    peer.send_to(&codec::encode(&answer(&request)), from).unwrap();
    (request, run.join().unwrap())
}

fn piggybacked(request: &Message, code: Code, payload: &'static [u8]) -> Message {
    Message {
        mtype: MessageType::Ack,
        code,
        mid: request.mid,
        token: request.token,
        options: Default::default(),
        payload: Payload::from_static(payload),
    }
}

#[test]
fn a_uri_is_split_before_percent_decoding_and_a_plain_get_carries_no_block2() {
    let (req, run) = one_exchange("a%2Fb/c?x=a%26b&y", &[], |r| piggybacked(r, Code::CONTENT, b"ok"));
    // RFC 7252 §6.4 steps 8-9: `%2F` and `%26` stay inside their segment and argument.
    assert_eq!(options(&req, option::URI_PATH), [b"a/b".to_vec(), b"c".to_vec()]);
    assert_eq!(options(&req, option::URI_QUERY), [b"x=a&b".to_vec(), b"y".to_vec()]);
    assert_eq!((req.mtype, req.code), (MessageType::Con, Code::GET));
    assert!(options(&req, option::BLOCK2).is_empty(), "no Block2 unless asked: {req:?}");
    assert!(run.status.success(), "{}", run.stderr_text());
    assert_eq!(run.stdout_text(), "2.05 Content\n\nok\n");
}

#[test]
fn a_put_carries_its_payload_content_format_and_extra_options_and_prints_the_response() {
    let args = ["-m", "PUT", "-e", "héllo", "-t", "application/json", "-O", "14,300", "-O", "2048,0xbeef"];
    let (req, run) = one_exchange("r", &args, |r| {
        let mut a = piggybacked(r, Code::CHANGED, b"");
        a.add_option(4, [0xde, 0xad]);
        a
    });
    assert_eq!(req.code, Code::PUT);
    assert_eq!(&req.payload[..], "héllo".as_bytes());
    // RFC 7252 §12.3: application/json is Content-Format 50; Max-Age (14) is a uint.
    assert_eq!(options(&req, option::CONTENT_FORMAT), [vec![50]]);
    assert_eq!(options(&req, 14), [vec![0x01, 0x2c]]);
    assert_eq!(options(&req, 2048), [vec![0xbe, 0xef]]);
    assert_eq!(run.stdout_text(), "2.04 Changed\nETag: 0xdead\n");
}

#[test]
fn a_non_request_is_sent_once_and_its_non_response_is_taken_by_its_token() {
    let (req, run) = one_exchange("n", &["-N"], |r| Message {
        mtype: MessageType::Non,
        mid: r.mid.wrapping_add(7),
        ..piggybacked(r, Code::CONTENT, &[0x00, 0xff, 0x10])
    });
    assert_eq!(req.mtype, MessageType::Non, "RFC 7252 §4.3");
    assert!(!req.token.is_empty(), "a NON response is matched by its token (RFC 7252 §5.3.2)");
    assert!(run.status.success(), "{}", run.stderr_text());
    // Not UTF-8: printed as hex.
    assert_eq!(run.stdout_text(), "2.05 Content\n\n(3 bytes, hex)\n00000000  00 ff 10\n");
}

#[test]
fn an_error_response_is_printed_and_fails_the_run() {
    let (_, run) = one_exchange("missing", &[], |r| piggybacked(r, Code::NOT_FOUND, b"no"));
    assert_eq!(run.status.code(), Some(1));
    assert!(run.stdout_text().starts_with("4.04 Not Found\n"), "{}", run.stdout_text());
    assert!(run.stderr_text().contains("4.04 Not Found"), "{}", run.stderr_text());
}

/// The notifications printed: their Observe numbers and payloads.
fn notifications(out: &str) -> Vec<(u32, String)> {
    out.split("\n\n2.05 Content\n")
        .filter_map(|block| {
            let seq = block.lines().find_map(|l| l.strip_prefix("Observe: "))?.parse().ok()?;
            Some((seq, block.lines().last().unwrap_or_default().to_string()))
        })
        .collect()
}

/// GET, PUT, NON and Observe against `server`; `get` is a path whose body is `body`.
fn the_four_requests(server: &Server, get: &str, body: &[u8], observable: &str, put_codes: &[&str]) {
    let uri = |path: &str| format!("coap://127.0.0.1:{}{path}", server.port);
    let run = client(&[&uri(get)]);
    assert!(run.status.success(), "{:?} GET: {}", server.kind, run.stderr_text());
    let out = run.stdout_text();
    assert!(out.starts_with("2.05 Content\n"), "{:?}: {out}", server.kind);
    let printed = &out[out.find("\n\n").unwrap() + 2..];
    assert_eq!(printed.trim_end().as_bytes(), body, "{:?}: the whole body (block-wise if need be)", server.kind);

    let run = client(&[&uri("/echo"), "-m", "PUT", "-e", "put by coapcc"]);
    assert!(run.status.success(), "{:?} PUT: {}", server.kind, run.stderr_text());
    let out = run.stdout_text();
    // RFC 7252 §5.8.3: 2.01 Created or 2.04 Changed; both servers echo the body.
    assert!(put_codes.iter().any(|c| out.starts_with(c)), "{:?}: {out}", server.kind);
    assert!(out.ends_with("\n\nput by coapcc\n"), "{:?}: {out}", server.kind);

    let run = client(&[&uri("/echo"), "-N"]);
    assert!(run.status.success(), "{:?} NON: {}", server.kind, run.stderr_text());
    assert!(run.stdout_text().starts_with("2.05 Content\n"), "{:?}: {}", server.kind, run.stdout_text());

    let run = client(&[&uri(observable), "-s", "2.5"]);
    assert!(run.status.success(), "{:?} Observe: {}", server.kind, run.stderr_text());
    let seen = notifications(&run.stdout_text());
    // The first response and a notification about every second (both servers' interval).
    assert!(seen.len() >= 3, "{:?}: {}", server.kind, run.stdout_text());
    // RFC 7641 §4.4: each notification's sequence number is greater than the one before.
    assert!(seen.windows(2).all(|w| w[1].0 > w[0].0), "{:?}: {seen:?}", server.kind);
}

#[test]
fn get_put_non_and_observe_against_our_server() {
    let server = Server::start(ServerKind::Coapcc);
    the_four_requests(&server, "/data?size=2500", &digits(2500), "/obs", &["2.04 Changed\n"]);
    let run = client(&[&format!("coap://127.0.0.1:{}/obs", server.port), "-s", "2.5"]);
    let seen = notifications(&run.stdout_text());
    // `/obs` counts: each notification carries the counter, one more each time.
    let counters: Vec<u64> = seen.iter().map(|(_, c)| c.parse().unwrap()).collect();
    assert!(counters.windows(2).all(|w| w[1] == w[0] + 1), "{counters:?}");
}

#[test]
fn get_put_non_and_observe_against_libcoaps_server() {
    let server = Server::start(ServerKind::Libcoap);
    // The harness PUT the digits to /data; libcoap serves them block-wise.
    the_four_requests(
        &server,
        "/data",
        &digits(interop_peers::LARGE_BYTES),
        "/time",
        &["2.04 Changed\n", "2.01 Created\n"],
    );
}

#[test]
fn the_observe_option_of_a_registration_is_zero_and_its_token_is_reused_to_deregister() {
    // RFC 7641 §3.1 and §3.6, on the wire: played by hand with one notification.
    let peer = UdpSocket::bind("127.0.0.1:0").unwrap();
    peer.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let uri = format!("coap://{}/o", peer.local_addr().unwrap());
    let run = std::thread::spawn(move || client(&[&uri, "-s", "0.5"]));
    let mut buf = [0u8; 512];
    let (n, from) = peer.recv_from(&mut buf).unwrap();
    let register = codec::decode(&buf[..n]).unwrap();
    assert_eq!(options(&register, 6), [Vec::<u8>::new()], "Observe 0 is the empty uint");
    let mut first = piggybacked(&register, Code::CONTENT, b"1");
    first.add_option(6, [5]);
    peer.send_to(&codec::encode(&first), from).unwrap();
    let mut next = Message { mtype: MessageType::Con, mid: 999, ..piggybacked(&register, Code::CONTENT, b"2") };
    next.add_option(6, [6]);
    peer.send_to(&codec::encode(&next), from).unwrap();
    let (n, _) = peer.recv_from(&mut buf).unwrap();
    let ack = codec::decode(&buf[..n]).unwrap();
    assert_eq!((ack.mtype, ack.code, ack.mid), (MessageType::Ack, Code::EMPTY, 999), "a CON notification is ACKed");
    let (n, from) = peer.recv_from(&mut buf).unwrap();
    let deregister = codec::decode(&buf[..n]).unwrap();
    assert_eq!(deregister.token, register.token);
    assert_eq!(options(&deregister, 6).iter().map(|v| decode_uint(v)).collect::<Vec<_>>(), [Some(1)]);
    peer.send_to(&codec::encode(&piggybacked(&deregister, Code::CONTENT, b"3")), from).unwrap();
    let run = run.join().unwrap();
    assert!(run.status.success(), "{}", run.stderr_text());
    assert_eq!(notifications(&run.stdout_text()), [(5, "1".to_string()), (6, "2".to_string())]);
}

/// The messages printed, each from its `2.05 Content` line: its option lines and its body
/// (without the line ends around it).
fn printed(out: &str) -> Vec<(String, String)> {
    out.split("2.05 Content\n")
        .skip(1)
        .map(|m| {
            let (head, body) = m.split_once("\n\n").unwrap_or((m, ""));
            (head.to_string(), body.trim_end().to_string())
        })
        .collect()
}

/// `/obs?size=n` of our server at counter `c`: the line `c\n` repeated, cut at n bytes.
fn counter_body(c: &str, n: usize) -> String {
    format!("{c}\n").chars().cycle().take(n).collect::<String>().trim_end().to_string()
}

#[test]
fn observe_with_fasors_token_echo_prints_every_notification_of_our_server() {
    // FASOR's token echo (spec §7.7) appends the copy byte to the registration's token; the
    // server notifies with the token it got, which the client must take as the observation's.
    let server = Server::start(ServerKind::Coapcc);
    let uri = format!("coap://127.0.0.1:{}/obs", server.port);
    let run = client(&[&uri, "-a", "fasor-token", "-s", "2.5"]);
    assert!(run.status.success(), "{}", run.stderr_text());
    let seen = notifications(&run.stdout_text());
    // The first response and a notification every second.
    assert!(seen.len() >= 3, "{}", run.stdout_text());
    let counters: Vec<u64> = seen.iter().map(|(_, c)| c.parse().unwrap()).collect();
    assert!(counters.windows(2).all(|w| w[1] == w[0] + 1), "{counters:?}");
}

#[test]
fn a_notification_larger_than_one_block_is_printed_whole_and_recorded_by_out() {
    // RFC 7959 §3.4: the notification carries block 0; the client GETs the rest.
    let server = Server::start(ServerKind::Coapcc);
    let uri = format!("coap://127.0.0.1:{}/obs?size=3000", server.port);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("rec");
    let run = client(&[&uri, "-s", "2.5", "--seed", "7", "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", run.stderr_text());
    let messages = printed(&run.stdout_text());
    assert!(messages.len() >= 3, "{}", run.stdout_text());
    for (head, _) in &messages[1..] {
        assert!(head.contains("Block2: 0/1/1024") && head.contains("Size2: 3000"), "a block-wise notification: {head}");
    }
    for (head, body) in &messages {
        let c = body.lines().next().unwrap_or_default();
        assert_eq!(body, &counter_body(c, 3000), "{head}: the whole body of counter {c}");
    }
    // --out: run.json with the seed, the messages with their whole payloads, the timeline.
    let run_json: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_json["seed"], 7);
    assert!(run_json["command"].as_str().unwrap().contains("--out"), "{run_json}");
    let recorded: Vec<serde_json::Value> =
        serde_json::from_slice(&std::fs::read(out.join("messages.json")).unwrap()).unwrap();
    assert_eq!(recorded.len(), messages.len());
    assert!(recorded.iter().all(|m| m["payload_bytes"] == 3000 && m["code"] == "2.05"), "{recorded:?}");
    let timeline = std::fs::read_to_string(out.join("timeline.csv")).unwrap();
    assert!(timeline.starts_with("t_ms,event,copy,mid,bytes,timer_ms,retransmissions,rtt_ms,code,peer\n"));
    // The registration, the rest of each body, the deregistration: every CON sent is a row.
    let sent = timeline.lines().filter(|l| l.split(',').nth(1) == Some("sent_con")).count();
    assert!(sent >= messages.len() * 2, "{sent} CON requests for {} messages of 3 blocks", messages.len());
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!((summary["ok"].as_bool(), summary["deregistered"].as_bool()), (Some(true), Some(true)));
}

#[test]
fn a_block_wise_notification_of_libcoaps_server_is_printed_whole() {
    // libcoap's `-d` resources are observable; a PUT notifies, block-wise beyond 1 024 bytes.
    let server = Server::start(ServerKind::Libcoap);
    let before = "x".repeat(79) + "\n";
    let after = "y".repeat(79) + "\n";
    let put = |line: &str| {
        let body = line.repeat(40);
        let r = interop_peers::request(
            interop_peers::ClientKind::Libcoap,
            server.port,
            interop_peers::Method::Put,
            "/big",
            Some(body.as_bytes()),
        );
        assert!(r.code.is_some(), "PUT /big: {}", r.transcript);
    };
    put(&before);
    let uri = format!("coap://127.0.0.1:{}/big", server.port);
    let observe = std::thread::spawn(move || client(&[&uri, "-s", "3"]));
    std::thread::sleep(Duration::from_secs(1));
    put(&after);
    let run = observe.join().unwrap();
    assert!(run.status.success(), "{}", run.stderr_text());
    let messages = printed(&run.stdout_text());
    let bodies: Vec<&str> = messages.iter().map(|(_, b)| b.as_str()).collect();
    assert_eq!(bodies.first(), Some(&before.repeat(40).trim_end()), "the registration's response, whole");
    let (head, body) = messages.last().unwrap();
    assert!(head.contains("Block2: 0/1/"), "the notification came block-wise: {head}");
    assert_eq!(body, after.repeat(40).trim_end(), "the notification, whole");
}

#[test]
fn out_must_be_a_writable_folder_before_anything_is_sent() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "x").unwrap();
    // A port nobody listens on: the run would fail (exit 1) if it started.
    for args in [vec!["coap://127.0.0.1:9/x"], vec!["coap://127.0.0.1:9/x", "--count", "2"]] {
        let mut all = args.clone();
        all.extend(["--out", file.to_str().unwrap(), "-B", "2"]);
        let run = client(&all);
        assert_eq!(run.status.code(), Some(2), "{}", run.stderr_text());
        assert!(run.stderr_text().contains("not a folder"), "{}", run.stderr_text());
    }
}

#[test]
fn the_load_generator_records_each_exchange_and_flow_with_out() {
    let server = Server::start(ServerKind::Coapcc);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("load");
    let uri = format!("coap://127.0.0.1:{}/data?size=10", server.port);
    let run = client(&[&uri, "--count", "3", "--flows", "2", "--seed", "11", "--out", out.to_str().unwrap()]);
    assert!(run.status.success(), "{}", run.stderr_text());
    let exchanges = std::fs::read_to_string(out.join("exchanges.csv")).unwrap();
    let rows: Vec<&str> = exchanges.lines().collect();
    assert_eq!(rows.len(), 1 + 3 * 2, "a header and one row per exchange: {exchanges}");
    assert!(rows[0].starts_with("flow,request,block,start_s,rtt_ms,transmissions,timers_ms,"), "{}", rows[0]);
    assert!(rows[1..].iter().all(|r| r.ends_with(",2.05,10")), "{exchanges}");
    assert_eq!(std::fs::read_to_string(out.join("flows.csv")).unwrap().lines().count(), 1 + 2);
    let summary: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["requests_ok"], 6);
    let run_json: serde_json::Value = serde_json::from_slice(&std::fs::read(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run_json["seed"], 11);
}
