//! The hostile suite: `coapcc server`, `coapcc emulate` and `coapcc client` as processes on
//! loopback, fed what an adversary sends, with the figures printed (run with `--nocapture`
//! to see them) and their bounds asserted (`docs/real-networks.md`, "Bounds"):
//!
//! * the server's resident memory after 20 000 PUTs of 60 kB (at most 64 MB);
//! * the largest reply-to-request byte ratio over every duplicate and malformed case (at most
//!   3 unless the request asked for block-wise transfer, RFC 7252 §11.3);
//! * the emulator serving a new client after 5 000 distinct ones;
//!
//! and the command-line reproductions of the issues found on the client and the emulator.
//! Every process started here is stopped here, by its PID.

use crate::coapcc_process;

use std::net::{SocketAddr, UdpSocket};
use std::process::Command;
use std::time::Duration;

use coapcc_process::Process;

use coapcc_proto::{Code, Message, MessageType, Token, codec};
use coapcc_proto::{Payload, option};
use coapcc_udp::clock::Clock;

/// The bound on the server's resident memory after the PUT flood, bytes.
const SERVER_RSS_BOUND_BYTES: u64 = 64 << 20;
/// RFC 7252 §11.3.
const AMPLIFICATION_FACTOR: f64 = 3.0;

/// A `coapcc server` on a free port, and its address.
fn server() -> (Process, SocketAddr) {
    let mut p = Process::spawn(&["server", "--bind", "127.0.0.1:0", "--duration-s", "300"]);
    // "coapcc server listening on 127.0.0.1:PORT (seed S)"
    let line = p.first_line(false);
    let addr = line.split_whitespace().nth(4).and_then(|a| a.parse().ok());
    (p, addr.unwrap_or_else(|| panic!("no address in {line:?}")))
}

fn socket() -> UdpSocket {
    let s = UdpSocket::bind("127.0.0.1:0").unwrap();
    s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    s
}

/// Sends `bytes` to `to`, then an empty CON with Message ID `sentinel`; returns every
/// datagram received before the sentinel's Reset (the server handles datagrams in order).
fn replies(s: &UdpSocket, to: SocketAddr, bytes: &[u8], sentinel: u16) -> Vec<Vec<u8>> {
    s.send_to(bytes, to).unwrap();
    s.send_to(&codec::encode(&Message::empty(MessageType::Con, sentinel)), to).unwrap();
    let mut out = Vec::new();
    let mut buf = vec![0u8; 65_536];
    loop {
        let (n, _) = s.recv_from(&mut buf).expect("no answer to the sentinel");
        let d = buf[..n].to_vec();
        if let Ok(m) = codec::decode(&d)
            && m.mtype == MessageType::Rst
            && m.mid == sentinel
        {
            return out;
        }
        out.push(d);
    }
}

fn message(
    mtype: MessageType,
    code: Code,
    mid: u16,
    token: &[u8],
    options: &[(u16, &[u8])],
    payload: &[u8],
) -> Message {
    let mut m = Message { code, token: Token::new(token).unwrap(), ..Message::empty(mtype, mid) };
    for (n, v) in options {
        m.add_option(*n, v);
    }
    m.payload = Payload::copy_from_slice(payload);
    m
}

fn con(code: Code, mid: u16, options: &[(u16, &[u8])], payload: &[u8]) -> Message {
    message(MessageType::Con, code, mid, &[0x5a, mid as u8], options, payload)
}

fn resident_bytes(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with(field)).unwrap_or_else(|| panic!("no {field}"));
    let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kb * 1024
}

#[test]
fn the_servers_memory_stays_within_64_mb_under_20_000_puts_of_60_kb() {
    // The reproduction: three floods of 18 000 PUT /echo with 60 kB bodies took the server
    // from 4.9 MB to 975 MB.
    let (p, addr) = server();
    let s = socket();
    let body = vec![b'x'; 60_000];
    let clock = Clock::start();
    let mut buf = vec![0u8; 65_536];
    let mut answered = 0;
    for i in 0..20_000u32 {
        let m = message(MessageType::Con, Code::PUT, i as u16, &i.to_be_bytes(), &[(option::URI_PATH, b"echo")], &body);
        s.send_to(&codec::encode(&m), addr).unwrap();
        if let Ok((n, _)) = s.recv_from(&mut buf) {
            answered += usize::from(n > 60_000);
        }
    }
    let rss = resident_bytes(p.pid(), "VmRSS:");
    let peak = resident_bytes(p.pid(), "VmHWM:");
    let elapsed = clock.now().since_epoch();
    p.signal("TERM");
    let (code, out, err) = p.finish(Duration::from_secs(10));
    eprintln!(
        "hostile: server RSS after 20 000 PUTs of 60 kB: {:.1} MB (peak {:.1} MB, bound {} MB); {answered} echoed in {elapsed:.1?}",
        rss as f64 / 1e6,
        peak as f64 / 1e6,
        SERVER_RSS_BOUND_BYTES >> 20
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(answered > 19_000, "{answered} of 20 000 echoed");
    assert!(out.contains("cache evictions"), "{out}");
    assert!(rss <= SERVER_RSS_BOUND_BYTES, "{rss} bytes resident");
}

/// One hostile case: what was sent last (after `setup`, if any), and whether it asked for
/// block-wise transfer.
struct Case {
    name: &'static str,
    setup: Option<Message>,
    sent: Vec<u8>,
    blockwise: bool,
}

fn case(name: &'static str, setup: Option<Message>, sent: Vec<u8>) -> Case {
    let blockwise = codec::decode(&sent).is_ok_and(|m| m.option(option::BLOCK2).is_some());
    Case { name, setup, sent, blockwise }
}

fn cases() -> Vec<Case> {
    let bare = |mid: u16| vec![0x40, 0x01, (mid >> 8) as u8, mid as u8];
    let block2 = con(
        Code::GET,
        0x100,
        &[(option::URI_PATH, b"data"), (option::URI_QUERY, b"size=5000"), (option::BLOCK2, &[0x06])],
        b"",
    );
    let put = con(Code::PUT, 0x101, &[(option::URI_PATH, b"echo")], &[b'y'; 60_000]);
    let small_put = con(Code::PUT, 0x102, &[(option::URI_PATH, b"echo")], b"hello");
    let get = con(Code::GET, 0x103, &[(option::URI_PATH, b"data"), (option::URI_QUERY, b"size=5000")], b"");
    let fasor = message(MessageType::Con, Code::GET, 0x104, &[0x5a, 0x01, 0x00], &[(option::URI_PATH, b"echo")], b"");
    let core = con(Code::GET, 0x105, &[(option::URI_PATH, b".well-known"), (option::URI_PATH, b"core")], b"");
    let counted = {
        let mut m = con(Code::POST, 0x106, &[(option::URI_PATH, b"echo")], b"abc");
        m.add_option(option::TRANSMISSION_COUNT, []);
        m
    };
    let recount = {
        let mut m = counted.clone();
        m.set_option(option::TRANSMISSION_COUNT, [2]);
        m
    };
    let mut marker = codec::encode(&con(Code::GET, 0x200, &[(option::URI_PATH, b"echo")], b""));
    marker.push(0xff);
    let raw = |m: Message| codec::encode(&m);
    vec![
        // Duplicates and Message ID reuse: the last datagram reuses the setup's Message ID.
        case("bare header after a Block2 GET", Some(block2.clone()), bare(0x100)),
        case("copy of a Block2 GET", Some(block2.clone()), raw(block2)),
        case("bare header after a 60 kB PUT", Some(put.clone()), bare(0x101)),
        case(
            "60 kB PUT's header with 1 byte",
            Some(put.clone()),
            raw(Message { payload: Payload::from_static(b"z"), ..put.clone() }),
        ),
        case("60 kB PUT's header without payload", Some(put.clone()), raw(Message { payload: Payload::new(), ..put })),
        case(
            "NON reusing a CON's Message ID",
            Some(small_put.clone()),
            raw(Message { mtype: MessageType::Non, ..small_put.clone() }),
        ),
        case("copy of a PUT", Some(small_put.clone()), raw(small_put)),
        case("copy of an unsolicited large GET", Some(get.clone()), raw(get.clone())),
        case("bare header after a large GET", Some(get), bare(0x103)),
        case(
            "FASOR copy byte changed",
            Some(fasor.clone()),
            raw(Message { token: Token::new(&[0x5a, 0x01, 0x01]).unwrap(), ..fasor }),
        ),
        case("bare header after /.well-known/core", Some(core), bare(0x105)),
        case("transmission count changed", Some(counted), raw(recount)),
        // Malformed requests.
        case(
            "GET with Uri-Query 0xff (11 B)",
            None,
            raw(message(
                MessageType::Con,
                Code::GET,
                0x201,
                b"",
                &[(option::URI_PATH, b"data"), (option::URI_QUERY, &[0xff])],
                b"",
            )),
        ),
        case(
            "PUT Block1 M=1 without payload (12 B)",
            None,
            raw(message(
                MessageType::Con,
                Code::PUT,
                0x202,
                b"",
                &[(option::URI_PATH, b"echo"), (option::BLOCK1, &[0x0e])],
                b"",
            )),
        ),
        case("payload marker without payload", None, marker),
        case(
            "Uri-Host twice",
            None,
            raw(con(Code::GET, 0x203, &[(option::URI_HOST, b"a"), (option::URI_HOST, b"b")], b"")),
        ),
        case("Uri-Port of 3 bytes", None, raw(con(Code::GET, 0x204, &[(option::URI_PORT, &[1, 2, 3])], b""))),
        case("Accept of 5 bytes", None, raw(con(Code::GET, 0x205, &[(17, &[0, 0, 0, 0, 1])], b""))),
        case(
            "Block2 twice",
            None,
            raw(con(
                Code::GET,
                0x206,
                &[(option::URI_PATH, b"data"), (option::BLOCK2, &[6]), (option::BLOCK2, &[0x16])],
                b"",
            )),
        ),
        case("Proxy-Uri", None, raw(con(Code::GET, 0x207, &[(35, b"coap://elsewhere/x")], b""))),
        case("unknown critical option", None, raw(con(Code::GET, 0x208, &[(9, b"")], b""))),
        case(
            "bad size",
            None,
            raw(con(Code::GET, 0x209, &[(option::URI_PATH, b"data"), (option::URI_QUERY, b"size=x")], b"")),
        ),
        case(
            "size too large",
            None,
            raw(con(Code::GET, 0x20a, &[(option::URI_PATH, b"data"), (option::URI_QUERY, b"size=99999999999")], b"")),
        ),
        case(
            "reserved SZX 7",
            None,
            raw(con(Code::GET, 0x20b, &[(option::URI_PATH, b"data"), (option::BLOCK2, &[0x07])], b"")),
        ),
        case(
            "Block2 beyond the body",
            None,
            raw(con(Code::GET, 0x20c, &[(option::URI_PATH, b"data"), (option::BLOCK2, &[0x0f, 0xf6])], b"")),
        ),
        case(
            "Block1 not full",
            None,
            raw(con(Code::PUT, 0x20d, &[(option::URI_PATH, b"data"), (option::BLOCK1, &[0x08])], b"x")),
        ),
        case("empty CON (ping)", None, vec![0x40, 0x00, 0x02, 0x0e]),
        case("Empty message with a token", None, vec![0x41, 0x00, 0x02, 0x0f, 0xaa]),
        case("token length 9", None, vec![0x49, 0x01, 0x02, 0x10, 1, 2, 3, 4, 5, 6, 7, 8, 9]),
        case("option delta 15", None, vec![0x40, 0x01, 0x02, 0x11, 0xf0]),
        case("truncated option", None, vec![0x40, 0x01, 0x02, 0x12, 0xb4, b'e']),
        case("version 2", None, vec![0x80, 0x01, 0x02, 0x13]),
        case("reserved code class 1", None, vec![0x40, 0x21, 0x02, 0x14]),
        case(
            "NON response to nothing",
            None,
            raw(message(MessageType::Non, Code::CONTENT, 0x215, b"", &[], b"unasked")),
        ),
    ]
}

#[test]
fn no_duplicate_or_malformed_request_draws_a_reply_larger_than_three_times_itself() {
    let (p, addr) = server();
    let s = socket();
    let mut worst = (0.0_f64, "");
    let mut worst_blockwise = 0.0_f64;
    for (i, c) in cases().into_iter().enumerate() {
        let sentinel = 0xf000 + i as u16;
        if let Some(setup) = &c.setup {
            replies(&s, addr, &codec::encode(setup), sentinel);
        }
        let got = replies(&s, addr, &c.sent, sentinel.wrapping_add(0x100));
        let bytes: usize = got.iter().map(Vec::len).sum();
        let ratio = bytes as f64 / c.sent.len() as f64;
        eprintln!(
            "hostile: {:<40} {:>6} B → {:>6} B in {} datagram(s), ratio {ratio:.2}",
            c.name,
            c.sent.len(),
            bytes,
            got.len()
        );
        if c.blockwise {
            worst_blockwise = worst_blockwise.max(ratio);
        } else if ratio > worst.0 {
            worst = (ratio, c.name);
        }
    }
    p.signal("TERM");
    let (code, _, err) = p.finish(Duration::from_secs(10));
    assert_eq!(code, Some(0), "{err}");
    eprintln!(
        "hostile: largest reply-to-request ratio {:.2} ({}), bound {AMPLIFICATION_FACTOR}; block-wise asked: {worst_blockwise:.2}",
        worst.0, worst.1
    );
    assert!(worst.0 <= AMPLIFICATION_FACTOR, "{} draws {:.2}×", worst.1, worst.0);
}

/// A `coapcc emulate` with a plain relay to `to`, and its listening address.
fn emulator(to: SocketAddr, extra: &[&str]) -> (Process, SocketAddr) {
    let to = to.to_string();
    let mut args =
        vec!["emulate", "--listen", "127.0.0.1:0", "--to", &to, "--profile", "none", "--seed", "1", "--spin-us", "0"];
    args.extend(extra);
    let mut p = Process::spawn(&args);
    // "emulate: listening on 127.0.0.1:PORT, relaying to …"
    let line = p.first_line(true);
    let addr = line.split_whitespace().nth(3).map(|a| a.trim_end_matches(','));
    let addr = addr.and_then(|a| a.parse().ok()).unwrap_or_else(|| panic!("no address in {line:?}"));
    (p, addr)
}

fn get_echo(s: &UdpSocket, via: SocketAddr, mid: u16) -> bool {
    let m = con(Code::GET, mid, &[(option::URI_PATH, b"echo")], b"");
    s.send_to(&codec::encode(&m), via).unwrap();
    let mut buf = [0u8; 256];
    matches!(s.recv_from(&mut buf), Ok((n, _)) if codec::decode(&buf[..n]).is_ok_and(|r| r.mid == mid && r.code == Code::CONTENT))
}

#[test]
fn the_emulator_serves_a_new_client_after_5_000_distinct_ones() {
    // The reproduction: after 4 096 distinct sources every later client was refused forever.
    let (server, to) = server();
    let (emu, via) = emulator(to, &[]);
    let clock = Clock::start();
    let mut served = 0;
    // Kept open, so that no port (no client address) is used twice.
    let mut clients = Vec::with_capacity(5_000);
    for i in 0..5_000u16 {
        let s = socket();
        s.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
        served += usize::from(get_echo(&s, via, i));
        clients.push(s);
    }
    let newcomer = socket();
    let ok = get_echo(&newcomer, via, 0xbeef);
    let elapsed = clock.now().since_epoch();
    emu.signal("TERM");
    let (code, out, err) = emu.finish(Duration::from_secs(10));
    drop(server);
    let summary = out.lines().next().unwrap_or_default().to_string();
    eprintln!(
        "hostile: emulator after 5 000 distinct clients ({served} served in {elapsed:.1?}): new client served: {ok}; {summary}"
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(ok, "the 5 001st client is not served: {out}");
    assert!(served >= 4_990, "{served} of 5 000 served");
    assert!(summary.contains("5001 client(s) (4096 now; 905 evicted"), "{summary}");
}

fn coapcc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_coapcc")).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

fn assert_usage_error(args: &[&str], needle: &str) {
    let (code, _, err) = coapcc(args);
    assert_eq!(code, 2, "exit code for {args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "one line for {args:?}: {err}");
    assert!(err.contains(needle), "`{needle}` not in: {err}");
}

#[test]
fn absurd_payload_sizes_and_fragments_are_usage_errors_of_one_line() {
    // The reproductions: 2⁶⁴−1 panicked ("capacity overflow"), 10¹¹ aborted (exit 134).
    for size in ["18446744073709551615", "100000000000"] {
        assert_usage_error(
            &["client", "coap://127.0.0.1:9/x", "--method", "PUT", "--payload-bytes", size],
            "--payload-bytes",
        );
    }
    assert_usage_error(&["client", "coap://127.0.0.1:9/a#frag"], "fragment");
    assert_usage_error(&["client", &format!("coap://127.0.0.1:9/{}", "s".repeat(256))], "255");
}

#[test]
fn an_emulator_relaying_to_itself_or_to_an_impossible_pcap_is_refused_before_it_listens() {
    let port = UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let same = format!("127.0.0.1:{port}");
    assert_usage_error(&["emulate", "--listen", &same, "--to", &same], "itself");
    let (code, _, err) =
        coapcc(&["emulate", "--listen", "127.0.0.1:0", "--to", "127.0.0.1:9", "--pcap", "/nonexistent/x.pcap"]);
    assert_eq!(code, 2, "{err}");
    assert!(!err.contains("listening"), "{err}");
    assert!(err.contains("/nonexistent/x.pcap"), "{err}");
}

#[test]
fn a_client_without_a_time_out_ends_when_the_separate_response_never_comes() {
    // The reproduction: an empty ACK, then nothing: the client never exited without
    // --timeout-s. Here EXCHANGE_LIFETIME is shortened to half a second.
    let peer = socket();
    let uri = format!("coap://{}/slow", peer.local_addr().unwrap());
    let client = Process::spawn(&["client", &uri, "--count", "1", "--exchange-lifetime-s", "0.5", "--seed", "3"]);
    let mut buf = [0u8; 256];
    let (n, from) = peer.recv_from(&mut buf).unwrap();
    let req = codec::decode(&buf[..n]).unwrap();
    peer.send_to(&codec::encode(&Message::empty(MessageType::Ack, req.mid)), from).unwrap();
    let (code, out, err) = client.finish(Duration::from_secs(20));
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.contains("no separate response"), "{out}");
}

#[test]
fn a_client_stopped_by_a_signal_keeps_what_it_printed_and_the_emulator_prints_its_counters() {
    // The reproductions: block-buffered stdout lost even the seed line on SIGINT/SIGTERM;
    // the emulator printed no counters on SIGTERM.
    for signal in ["INT", "TERM"] {
        let silent = socket();
        let uri = format!("coap://{}/x", silent.local_addr().unwrap());
        let client = Process::spawn(&["client", &uri, "--count", "1", "--seed", "77"]);
        let mut buf = [0u8; 64];
        silent.recv_from(&mut buf).unwrap();
        client.signal(signal);
        let (_, out, _) = client.finish(Duration::from_secs(10));
        assert!(out.starts_with("coapcc client: ") && out.contains("seed 77"), "SIG{signal}: {out:?}");
    }
    let (emu, _) = emulator("127.0.0.1:9".parse().unwrap(), &[]);
    emu.signal("TERM");
    let (code, out, _) = emu.finish(Duration::from_secs(10));
    assert_eq!(code, Some(0));
    assert!(out.starts_with("emulator: ") && out.contains("uplink"), "{out:?}");
}
