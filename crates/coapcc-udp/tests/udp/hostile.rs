//! `coapcc-udp` against hostile peers and input: a client facing a server that misbehaves,
//! the server's resources facing malformed requests, and the emulator's datagram path facing
//! more clients than it has sockets for. Loopback only; every test is bounded in time and
//! stops the tasks it started.

use std::net::SocketAddr;
use std::time::Duration;

use coapcc_core::Instant;
use coapcc_driver::link::{FifoJitterConfig, PipelineConfig, StageConfig};
use coapcc_driver::scenario::NetworkConfig;
use coapcc_proto::{Code, Message, MessageType, Token, codec};
use coapcc_proto::{Payload, option};
use coapcc_udp::block::Block;
use coapcc_udp::client::{self, ClientError, ClientRecord, ClientRun, ClientSummary};
use coapcc_udp::clock::Clock;
use coapcc_udp::config::{EXCHANGE_LIFETIME, UriPart, UriPartError, UriProblem, algorithm, parse_uri, uri_request};
use coapcc_udp::emulator::{Admission, Direction, Emulator, EmulatorConfig, EmulatorError, Relay};
use coapcc_udp::server::reply;
use tokio::net::UdpSocket;

/// Every test ends within this, whatever the code under test does.
const LIMIT: Duration = Duration::from_secs(30);

fn spec(target: SocketAddr, name: &str, settings: &[&str], method: Code, path: &str) -> ClientRun {
    let settings: Vec<_> = settings.iter().map(|s| s.parse().unwrap()).collect();
    ClientRun {
        target,
        path: path.into(),
        query: String::new(),
        method,
        payload_bytes: 0,
        count: 1,
        flows: 1,
        algorithm_name: name.into(),
        algorithm: algorithm(name, &settings).unwrap(),
        seed: 9,
        timeout: None,
        exchange_lifetime: EXCHANGE_LIFETIME,
    }
}

/// Runs `run` (no `--timeout-s`: the client's own bounds must end it) within [`LIMIT`].
async fn bounded(run: &ClientRun) -> (ClientSummary, Vec<ClientRecord>) {
    let mut records = Vec::new();
    let summary = tokio::time::timeout(LIMIT, client::run(run, |r| records.push(r.clone())))
        .await
        .expect("the client did not end on its own")
        .unwrap();
    (summary, records)
}

/// What a [`peer`] received.
type Seen = std::sync::Arc<std::sync::Mutex<Vec<Message>>>;

/// A peer answering every datagram with what `answer` makes of it; returns its address, what
/// it received and its task (aborted by the caller).
async fn peer(
    answer: impl Fn(&Message) -> Vec<Message> + Send + 'static,
) -> (SocketAddr, Seen, tokio::task::JoinHandle<()>) {
    let socket = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = socket.local_addr().unwrap();
    let seen = Seen::default();
    let log = std::sync::Arc::clone(&seen);
    let task = tokio::spawn(async move {
        let mut buf = vec![0u8; 2048];
        while let Ok((n, from)) = socket.recv_from(&mut buf).await {
            let Ok(m) = codec::decode(&buf[..n]) else { continue };
            for out in answer(&m) {
                let _ = socket.send_to(&codec::encode(&out), from).await;
            }
            log.lock().unwrap().push(m);
        }
    });
    (addr, seen, task)
}

fn ack(req: &Message, token: Token) -> Message {
    Message { mtype: MessageType::Ack, code: Code::CONTENT, token, ..Message::empty(MessageType::Ack, req.mid) }
}

fn exchanges(records: &[ClientRecord]) -> Vec<&client::ExchangeRecord> {
    records.iter().filter_map(|r| if let ClientRecord::Exchange(e) = r { Some(e) } else { None }).collect()
}

#[tokio::test]
async fn empty_block2_blocks_with_the_more_flag_fail_the_request_at_the_first_block() {
    // The reproduction: a server answering every block with M=1 and no payload kept a client
    // asking for the same block forever (2.6 M exchanges in 60 s).
    let (server, _, task) = peer(|req| {
        if req.mtype != MessageType::Con || !req.code.is_request() {
            return Vec::new();
        }
        let asked = req.option(option::BLOCK2).and_then(Block::decode).unwrap_or(Block { num: 0, more: false, szx: 6 });
        let mut r = ack(req, req.token);
        r.add_option(option::BLOCK2, Block { more: true, ..asked }.encode());
        vec![r]
    })
    .await;
    let run = spec(server, "default", &[], Code::GET, "data");
    let (summary, records) = bounded(&run).await;
    task.abort();
    assert!(!summary.timed_out);
    assert_eq!((summary.requests_ok, summary.requests_failed), (0, 1), "{summary:?}");
    assert_eq!(exchanges(&records).len(), 1, "a block without progress ends the request");
}

#[tokio::test]
async fn an_empty_ack_never_followed_by_its_response_ends_the_exchange_after_exchange_lifetime() {
    // The reproduction: an empty ACK, then nothing (or a CON response with a foreign token,
    // which the client rejects): without --timeout-s the client waited forever.
    for foreign in [false, true] {
        let (server, seen, task) = peer(move |req| {
            if req.mtype != MessageType::Con || !req.code.is_request() {
                return Vec::new();
            }
            let mut out = vec![Message::empty(MessageType::Ack, req.mid)];
            if foreign {
                let t = Token::new(&[0xee; 3]).unwrap();
                out.push(Message { mtype: MessageType::Con, mid: 0x5151, ..ack(req, t) });
            }
            out
        })
        .await;
        let run = ClientRun {
            exchange_lifetime: Duration::from_millis(400),
            ..spec(server, "default", &[], Code::GET, "slow")
        };
        let clock = Clock::start();
        let (summary, records) = bounded(&run).await;
        task.abort();
        let seen = seen.lock().unwrap().clone();
        assert!(!summary.timed_out);
        assert_eq!(summary.requests_failed, 1, "{summary:?}");
        assert!(clock.now().since_epoch() >= Duration::from_millis(400));
        let e = exchanges(&records)[0].clone();
        assert!(e.code.is_none() && !e.gave_up, "{e:?}");
        if foreign {
            assert!(seen.iter().any(|m| m.mtype == MessageType::Rst && m.mid == 0x5151), "the foreign CON is reset");
        }
    }
}

#[tokio::test]
async fn a_separate_response_arriving_before_its_lost_empty_ack_completes_the_request_and_is_acknowledged() {
    // RFC 7252 §5.2.2. The peer "loses" its empty ACK and sends the response as a CON.
    let (server, seen, task) = peer(|req| {
        if req.mtype != MessageType::Con || !req.code.is_request() {
            return Vec::new();
        }
        let mut r = Message { mtype: MessageType::Con, mid: 0x6262, ..ack(req, req.token) };
        r.payload = Payload::from_static(b"separate");
        vec![r]
    })
    .await;
    let run = spec(server, "default", &[], Code::GET, "slow");
    let (summary, records) = bounded(&run).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    task.abort();
    assert_eq!(summary.requests_ok, 1, "{summary:?}");
    let e = exchanges(&records)[0].clone();
    assert!(e.separate && e.transmissions == 1 && e.payload_bytes == 8, "{e:?}");
    // The CON response was acknowledged, not reset.
    let acks: Vec<_> = seen.lock().unwrap().iter().filter(|m| m.mid == 0x6262).map(|m| m.mtype).collect();
    assert_eq!(acks, [MessageType::Ack]);
}

#[tokio::test]
async fn a_reply_whose_token_only_starts_with_the_request_token_is_not_taken_for_any_algorithm() {
    // RFC 7252 §5.3.2: tokens match exactly. The peer first answers with the request token
    // plus `eedd`, then, to the retransmission, with the exact token (plus FASOR's copy
    // byte, which is part of what was sent for that copy).
    for name in ["default", "fasor-token", "pcocoa"] {
        let answered = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = std::sync::Arc::clone(&answered);
        let (server, _, task) = peer(move |req| {
            if req.mtype != MessageType::Con || !req.code.is_request() {
                return Vec::new();
            }
            let token = if flag.swap(true, std::sync::atomic::Ordering::SeqCst) {
                req.token
            } else {
                Token::new(&[req.token.as_bytes(), &[0xee, 0xdd]].concat()).unwrap()
            };
            let mut r = ack(req, token);
            if let Some(v) = req.option(option::TRANSMISSION_COUNT) {
                r.add_option(option::TRANSMISSION_COUNT, v);
            }
            vec![r]
        })
        .await;
        let short = match name {
            "default" => "ack_timeout_ms=50",
            _ => "initial_rto_ms=50",
        };
        let run = spec(server, name, &["dither=false", short], Code::GET, "x");
        let (summary, records) = bounded(&run).await;
        task.abort();
        assert_eq!(summary.requests_ok, 1, "{name}: {summary:?}");
        let e = exchanges(&records)[0].clone();
        assert_eq!(e.transmissions, 2, "{name}: the prefixed reply was not taken: {e:?}");
    }
}

#[test]
fn uris_are_split_then_percent_decoded_with_empty_segments_kept_and_fragments_refused() {
    // RFC 7252 §6.4: step 4 (a fragment fails), steps 8–9 (split at `/` and `&`, then
    // percent-decode each part; every segment, empty or not, is a Uri-Path option).
    assert_eq!(parse_uri("coap://h/a#frag").unwrap_err().problem, UriProblem::Fragment);
    let u = parse_uri("coap://h/a//b/?x=1&y=%26").unwrap();
    let m = uri_request(Code::GET, &u.path, &u.query).unwrap();
    let values =
        |n: u16| -> Vec<Vec<u8>> { m.options.iter().filter(|o| o.number == n).map(|o| o.value.to_vec()).collect() };
    assert_eq!(values(option::URI_PATH), [&b"a"[..], b"", b"b", b""]);
    assert_eq!(values(option::URI_QUERY), [&b"x=1"[..], b"y=&"]);
    assert_eq!(values(option::URI_PATH).len(), 4);
    let m = uri_request(Code::GET, &parse_uri("coap://h/").unwrap().path, "").unwrap();
    assert!(m.options.is_empty(), "a path of one slash has no Uri-Path option");
    let m = uri_request(Code::GET, "a%2Fb", "").unwrap();
    assert_eq!(m.options.len(), 1, "an escaped slash stays within its segment");
    let long = format!("coap://h/{}", "s".repeat(256));
    // RFC 7252 §5.10: Uri-Path and Uri-Query values are 0–255 bytes long.
    let too_long = |part| UriProblem::Part(UriPartError::TooLong { part, bytes: 256 });
    assert_eq!(parse_uri(&long).unwrap_err().problem, too_long(UriPart::PathSegment), "a 256-byte segment");
    assert!(parse_uri(&format!("coap://h/{}", "s".repeat(255))).is_ok());
    assert_eq!(
        parse_uri(&format!("coap://h/x?{}", "q".repeat(256))).unwrap_err().problem,
        too_long(UriPart::QueryArgument)
    );
    let e = parse_uri("coap://h/%zz").unwrap_err();
    assert_eq!(e.problem, UriProblem::Part(UriPartError::Escape { part: UriPart::PathSegment, text: "%zz".into() }));
    assert_eq!(e.to_string(), "bad URI `coap://h/%zz`: bad %-escape in the path segment `%zz`");
}

#[tokio::test]
async fn a_body_larger_than_the_client_sends_is_refused_before_anything_is_sent() {
    let run =
        ClientRun { payload_bytes: usize::MAX, ..spec("127.0.0.1:9".parse().unwrap(), "default", &[], Code::PUT, "x") };
    let err = client::run(&run, |_| {}).await.unwrap_err();
    assert!(matches!(err, ClientError::PayloadTooLarge { bytes: usize::MAX }), "{err}");
    assert!(err.is_bad_input() && err.to_string().contains("payload"), "{err}");
}

/// A request as bytes: CON, Message ID 0x0101, no token, `options`, `payload`.
fn request(code: Code, options: &[(u16, &[u8])], payload: &[u8]) -> Message {
    let mut m = Message { code, ..Message::empty(MessageType::Con, 0x0101) };
    for (n, v) in options {
        m.add_option(*n, v);
    }
    m.payload = Payload::copy_from_slice(payload);
    m
}

/// The response the endpoint would send for `reply(request)`: its encoded length.
fn response_len(req: &Message) -> usize {
    let r = reply(req);
    Message { mtype: MessageType::Ack, code: r.code, options: r.options, payload: r.payload, ..req.clone() }.wire_len()
}

#[test]
fn error_responses_stay_within_three_times_the_request() {
    // The reproductions: an 11-byte GET with Uri-Query 0xff drew a 35-byte 4.00, a 12-byte
    // PUT with Block1 M=1 and no payload a 43-byte one (RFC 7252 §11.3).
    let get = request(Code::GET, &[(option::URI_PATH, b"data"), (option::URI_QUERY, &[0xff])], b"");
    assert_eq!(codec::encode(&get).len(), 11);
    assert_eq!(reply(&get).code, Code::BAD_REQUEST);
    assert!(response_len(&get) <= 3 * 11, "{} bytes", response_len(&get));
    let put = request(Code::PUT, &[(option::URI_PATH, b"echo"), (option::BLOCK1, &[0x0e])], b"");
    assert_eq!(codec::encode(&put).len(), 12);
    assert_eq!(reply(&put).code, Code::BAD_REQUEST);
    assert!(response_len(&put) <= 3 * 12, "{} bytes", response_len(&put));
    // A request large enough keeps its diagnostic.
    let mut big = get.clone();
    big.token = Token::new(&[1; 8]).unwrap();
    big.add_option(option::URI_QUERY, [b'q'; 20]);
    assert!(!reply(&big).payload.is_empty());
}

#[test]
fn repeated_non_repeatable_critical_options_and_out_of_range_lengths_get_4_02() {
    // RFC 7252 §5.4.5: a supernumerary occurrence is an unrecognised option; §5.4.3: so is
    // a value length outside the option's range; §5.4.1: critical → 4.02 Bad Option.
    let path = (option::URI_PATH, &b"echo"[..]);
    let cases: [(&str, Options); 8] = [
        ("Uri-Host twice", vec![(option::URI_HOST, b"a"), (option::URI_HOST, b"b"), path]),
        ("Uri-Port twice", vec![(option::URI_PORT, &[1]), (option::URI_PORT, &[2]), path]),
        ("Accept twice", vec![path, (17, &[0]), (17, &[0])]),
        ("Block2 twice", vec![path, (option::BLOCK2, &[0x06]), (option::BLOCK2, &[0x16])]),
        ("Block1 twice", vec![path, (option::BLOCK1, &[0x06]), (option::BLOCK1, &[0x16])]),
        ("Uri-Port of 3 bytes", vec![(option::URI_PORT, &[1, 2, 3]), path]),
        ("Accept of 5 bytes", vec![path, (17, &[0, 0, 0, 0, 1])]),
        ("Uri-Host of 0 bytes", vec![(option::URI_HOST, b""), path]),
    ];
    for (what, options) in cases {
        let req = request(Code::GET, &options, b"");
        assert_eq!(reply(&req).code, Code(0x82), "{what}");
    }
    // Repeatable ones may repeat.
    let req = request(Code::GET, &[path, (option::URI_QUERY, b"a"), (option::URI_QUERY, b"b")], b"");
    assert_eq!(reply(&req).code, Code::CONTENT);
}

/// Option numbers and values, in order.
type Options<'a> = Vec<(u16, &'a [u8])>;

fn relay_config(max_clients: usize, idle: Duration) -> EmulatorConfig {
    let mut c = EmulatorConfig::new(
        "127.0.0.1:0".parse().unwrap(),
        "127.0.0.1:9".parse().unwrap(),
        NetworkConfig::Custom { uplink: Default::default(), downlink: Default::default() },
    );
    c.max_clients = max_clients;
    c.client_idle = idle;
    c
}

fn client(i: u32) -> SocketAddr {
    SocketAddr::from((std::net::Ipv4Addr::from(0x0a00_0000 + i), 5683))
}

#[test]
fn a_full_emulator_evicts_its_least_recently_used_client_and_serves_the_new_one() {
    // The reproduction: after 4 096 distinct sources every new client was refused forever.
    let mut relay = Relay::new(&relay_config(4_096, Duration::from_secs(247))).unwrap();
    let mut now = Instant::ZERO;
    for i in 0..5_000 {
        now = now.saturating_add(Duration::from_millis(1));
        relay.admit(now, client(i));
        relay.from_client(now, client(i), vec![0x40, 1, 0, 0]);
        while relay.pop_due(now).is_some() {}
    }
    assert_eq!(relay.clients(), 4_096);
    assert_eq!(relay.counters().evicted, 5_000 - 4_096);
    // Client 904 is the least recently used one now; 4 999 was active last.
    assert!(!relay.is_client(client(903)) && relay.is_client(client(904)));
    relay.from_server(now, client(904), vec![0x60, 0x45, 0, 0]);
    assert_eq!(relay.admit(now, client(9_999)), Admission::New { evicted: Some(client(905)) });
    relay.from_client(now, client(9_999), vec![0x40, 1, 0, 0]);
    let out = relay.pop_due(now).unwrap();
    assert_eq!((out.direction, out.client), (Direction::Downlink, client(904)));
    let out = relay.pop_due(now).unwrap();
    assert_eq!((out.direction, out.client), (Direction::Uplink, client(9_999)));
    // A reply for an evicted client goes nowhere, counted.
    relay.from_server(now, client(0), vec![0x60, 0x45, 0, 0]);
    assert!(relay.pop_due(now).is_none());
    assert_eq!(relay.counters().unknown_client, 1);
}

#[test]
fn idle_clients_expire_and_free_their_upstream_socket() {
    let idle = Duration::from_secs(10);
    let mut relay = Relay::new(&relay_config(16, idle)).unwrap();
    let t0 = Instant::ZERO;
    relay.admit(t0, client(1));
    relay.admit(t0.saturating_add(Duration::from_secs(5)), client(2));
    assert_eq!(relay.next_expiry(), Some(t0.saturating_add(idle)));
    // Traffic in either direction keeps a client.
    relay.from_server(t0.saturating_add(Duration::from_secs(9)), client(1), vec![0x60, 0x45, 0, 0]);
    assert!(relay.expire_idle(t0.saturating_add(Duration::from_secs(12))).is_empty());
    let gone = relay.expire_idle(t0.saturating_add(Duration::from_secs(15)).saturating_add(Duration::from_nanos(1)));
    assert_eq!(gone, [client(2)]);
    let gone = relay.expire_idle(t0.saturating_add(Duration::from_secs(20)));
    assert_eq!(gone, [client(1)]);
    assert_eq!((relay.clients(), relay.counters().expired), (0, 2));
}

#[test]
fn a_link_out_of_range_is_refused_naming_its_direction_and_key() {
    let mut c = relay_config(16, Duration::from_secs(1));
    // A uniform jitter in [2 ms, 1 ms]: lo above hi.
    let jitter = StageConfig::FifoJitter(FifoJitterConfig::new(Duration::from_millis(2), Duration::from_millis(1)));
    c.network = NetworkConfig::Custom { uplink: Default::default(), downlink: PipelineConfig { stages: vec![jitter] } };
    let e = Relay::new(&c).unwrap_err();
    assert!(matches!(&e, EmulatorError::Link { direction: Direction::Downlink, error } if error.key == "lo_ms"), "{e}");
    assert_eq!(e.to_string(), "downlink: key `lo_ms`: must not exceed hi_ms");
}

#[tokio::test]
async fn an_emulator_relaying_to_its_own_listening_address_is_refused() {
    // The reproduction: `--listen P --to P` made one datagram loop through every upstream
    // socket in under a second.
    let port = std::net::UdpSocket::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let mut c = relay_config(16, Duration::from_secs(1));
    c.listen = addr;
    c.to = addr;
    let e = Emulator::bind(c.clone(), Clock::start()).await.unwrap_err();
    assert!(matches!(e, EmulatorError::RelayToItself { to, listen } if to == addr && listen == addr), "{e}");
    assert!(e.to_string().contains("itself"), "{e}");
    c.listen = ([0, 0, 0, 0], port).into();
    assert!(Emulator::bind(c, Clock::start()).await.is_err(), "the wildcard address includes loopback");
}

#[tokio::test]
async fn a_pcap_that_cannot_be_created_fails_the_bind_naming_the_file() {
    let mut c = relay_config(16, Duration::from_secs(1));
    c.pcap = Some("/nonexistent/x.pcap".into());
    let e = Emulator::bind(c, Clock::start()).await.unwrap_err();
    assert!(e.to_string().contains("/nonexistent/x.pcap"), "{e}");
}
