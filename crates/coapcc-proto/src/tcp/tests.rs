//! Session behaviour (RFC 8323 §3.3–§5) and the chunked round trip of the codec.

use proptest::prelude::*;

use super::*;
use crate::message::{Code, Payload, Token, option};

/// A session's transmits, concatenated.
fn drain(s: &mut Session) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(t) = s.poll_transmit() {
        out.extend_from_slice(&t.bytes);
    }
    out
}

fn events(s: &mut Session) -> Vec<SessionEvent> {
    std::iter::from_fn(|| s.poll_event()).filter(|e| !matches!(e, SessionEvent::Received { .. })).collect()
}

fn config(max: u32, bwt: bool) -> SessionConfig {
    SessionConfig { max_message_bytes: max, block_wise_transfer: bwt, ..SessionConfig::default() }
}

/// Two sessions with their CSMs exchanged.
fn pair(client: SessionConfig, server: SessionConfig) -> (Session, Session) {
    let mut c = Session::new(Role::Initiator, client);
    let mut s = Session::new(Role::Acceptor, server);
    s.receive(&drain(&mut c));
    c.receive(&drain(&mut s));
    events(&mut c);
    events(&mut s);
    (c, s)
}

fn get(path: &str) -> TcpMessage {
    let mut m = TcpMessage::new(Code::GET);
    m.add_option(option::URI_PATH, path);
    m
}

#[test]
fn each_side_sends_its_csm_first_and_learns_the_peers() {
    let mut c = Session::new(Role::Initiator, config(66_048, true));
    let first = c.poll_transmit().unwrap();
    assert_eq!(first.code, CSM);
    assert_eq!(first.bytes, [0x50, 0xe1, 0x23, 0x01, 0x02, 0x00, 0x20]);
    assert_eq!(c.peer(), PeerSettings { max_message_bytes: 1152, block_wise_transfer: false }, "base values");
    let mut s = Session::new(Role::Acceptor, config(2048, false));
    c.receive(&drain(&mut s));
    assert!(c.peer_csm_received());
    assert_eq!(
        events(&mut c),
        [SessionEvent::PeerCsm(PeerSettings { max_message_bytes: 2048, block_wise_transfer: false })]
    );
}

#[test]
fn a_first_message_other_than_a_csm_aborts_the_connection() {
    let mut s = Session::new(Role::Acceptor, SessionConfig::default());
    drain(&mut s);
    // An Empty message first is fine (§3.4); a GET is not.
    s.receive(&[0x00, 0x00]);
    assert!(!s.is_closed());
    s.receive(&encode(&get("x")).unwrap());
    assert!(s.is_closed());
    assert_eq!(events(&mut s), [SessionEvent::Aborted(ProtocolError::MissingCsm(Code::GET))]);
    let abort = decode(&drain(&mut s)).unwrap();
    assert_eq!(abort.code, ABORT);
    assert!(String::from_utf8_lossy(&abort.payload).contains("not a CSM"));
}

#[test]
fn requests_and_responses_are_matched_by_token_in_any_order() {
    let (mut c, mut s) = pair(SessionConfig::default(), SessionConfig::default());
    let t1 = c.request(get("a")).unwrap();
    let t2 = c.request(get("b")).unwrap();
    assert_ne!(t1, t2);
    s.receive(&drain(&mut c));
    let reqs: Vec<TcpMessage> = events(&mut s)
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::Request(m) => Some(m),
            _ => None,
        })
        .collect();
    assert_eq!(reqs.len(), 2);
    // Answered in reverse order.
    for r in reqs.iter().rev() {
        let resp = TcpMessage {
            payload: Payload::from(r.option(option::URI_PATH).unwrap().to_vec()),
            ..TcpMessage::new(Code::CONTENT)
        };
        s.respond(r.token, resp).unwrap();
    }
    assert_eq!(s.respond(t1, TcpMessage::new(Code::CONTENT)), Err(SessionError::NotPending), "answered once");
    c.receive(&drain(&mut s));
    let got: Vec<(Token, Vec<u8>)> = events(&mut c)
        .into_iter()
        .filter_map(|e| match e {
            SessionEvent::Response(m) => Some((m.token, m.payload.to_vec())),
            _ => None,
        })
        .collect();
    assert_eq!(got, [(t2, b"b".to_vec()), (t1, b"a".to_vec())]);
    assert_eq!(c.outstanding_requests(), 0);
    // A response to nothing is ignored and counted.
    let stray = TcpMessage { token: Token::new(&[9, 9]).unwrap(), ..TcpMessage::new(Code::CONTENT) };
    c.receive(&encode(&stray).unwrap());
    assert_eq!((events(&mut c), c.stats().unmatched_responses), (vec![], 1));
}

#[test]
fn nothing_is_sent_beyond_the_peers_max_message_size() {
    let (mut c, _) = pair(SessionConfig::default(), config(100, false));
    let mut m = get("x");
    m.payload = Payload::from(vec![0; 100]);
    // Body: Uri-Path "x" (2) + marker + 100 = 103 (one extension byte); the session's first
    // token is one byte: 1 + 1 + 1 + 1 + 103 = 107.
    assert_eq!(c.request(m), Err(SessionError::TooLarge { bytes: 107, max: 100 }));
    assert!(c.poll_transmit().is_none(), "nothing queued");
}

#[test]
fn a_frame_over_our_max_message_size_aborts_before_its_body_arrives() {
    let (mut c, mut s) = pair(config(8 << 20, true), config(1152, true));
    let mut m = get("x");
    m.payload = Payload::from(vec![0; 2000]);
    let bytes = encode(&m).unwrap();
    s.receive(&bytes[..4]);
    assert!(s.is_closed());
    let e = events(&mut s);
    assert_eq!(
        e,
        [SessionEvent::Aborted(ProtocolError::Frame(FrameError::TooLarge { bytes: bytes.len() as u64, max: 1152 }))]
    );
    c.receive(&drain(&mut s));
    assert!(matches!(events(&mut c)[..], [SessionEvent::PeerAbort { bad_csm_option: None, .. }]));
    assert!(c.is_closed());
    assert_eq!(c.request(get("y")), Err(SessionError::Closed));
}

#[test]
fn a_ping_is_answered_with_a_pong_of_its_token_and_custody_waits_for_earlier_requests() {
    let (mut c, mut s) = pair(SessionConfig::default(), SessionConfig::default());
    let plain = c.ping(false).unwrap();
    s.receive(&drain(&mut c));
    c.receive(&drain(&mut s));
    assert_eq!(events(&mut c), [SessionEvent::Pong { token: plain, custody: false }]);
    // A request, then a Ping with Custody: the Pong waits for the response.
    let req = c.request(get("a")).unwrap();
    let custody = c.ping(true).unwrap();
    s.receive(&drain(&mut c));
    assert!(drain(&mut s).is_empty(), "no Pong before the request is answered");
    events(&mut s);
    s.respond(req, TcpMessage::new(Code::CONTENT)).unwrap();
    c.receive(&drain(&mut s));
    let e = events(&mut c);
    assert!(
        matches!(&e[..], [SessionEvent::Response(_), SessionEvent::Pong { token, custody: true }] if *token == custody),
        "{e:?}"
    );
}

#[test]
fn empty_messages_are_ignored_and_counted() {
    let (mut c, mut s) = pair(SessionConfig::default(), SessionConfig::default());
    c.keep_alive().unwrap();
    let bytes = drain(&mut c);
    assert_eq!(bytes, [0x00, 0x00]);
    s.receive(&bytes);
    assert_eq!((events(&mut s), s.stats().empty_received, s.is_closed()), (vec![], 1, false));
}

#[test]
fn a_csm_with_an_unknown_critical_option_is_aborted_naming_it() {
    let mut s = Session::new(Role::Acceptor, SessionConfig::default());
    drain(&mut s);
    let mut csm = TcpMessage::new(CSM);
    csm.add_option(9, []);
    s.receive(&encode(&csm).unwrap());
    let abort = Signal::parse(&decode(&drain(&mut s)).unwrap()).unwrap();
    assert!(matches!(abort, Signal::Abort { bad_csm_option: Some(9), .. }), "{abort:?}");
}

#[test]
fn release_is_reported_and_the_session_still_answers() {
    let (mut c, mut s) = pair(SessionConfig::default(), SessionConfig::default());
    let t = c.request(get("a")).unwrap();
    s.receive(&drain(&mut c));
    events(&mut s);
    s.release(Some(60), "shutting down").unwrap();
    s.respond(t, TcpMessage::new(Code::CONTENT)).unwrap();
    c.receive(&drain(&mut s));
    let e = events(&mut c);
    assert!(
        matches!(&e[0], SessionEvent::Release { hold_off_s: Some(60), diagnostic, .. } if diagnostic == "shutting down")
    );
    assert!(matches!(&e[1], SessionEvent::Response(m) if m.token == t));
    assert!(c.released_by_peer() && !c.is_closed());
}

#[test]
fn bert_is_allowed_only_when_both_csms_offer_it() {
    let offers = config(66_048, true);
    assert!(pair(offers, offers).0.bert_allowed());
    assert!(!pair(offers, config(66_048, false)).0.bert_allowed(), "no Block-Wise-Transfer");
    assert!(!pair(offers, config(1152, true)).0.bert_allowed(), "Max-Message-Size not above 1152");
    assert!(!pair(config(1152, true), offers).0.bert_allowed(), "this side does not offer it");
}

#[test]
fn a_second_request_with_a_token_in_use_aborts() {
    let (_, mut s) = pair(SessionConfig::default(), SessionConfig::default());
    let m = TcpMessage { token: Token::new(&[5]).unwrap(), ..get("a") };
    s.receive(&encode(&m).unwrap());
    s.receive(&encode(&m).unwrap());
    assert!(s.is_closed());
}

fn message() -> impl Strategy<Value = TcpMessage> {
    (
        prop_oneof![
            Just(Code::GET),
            Just(Code::CONTENT),
            Just(Code::EMPTY),
            Just(CSM),
            Just(ABORT),
            any::<u8>().prop_map(Code)
        ],
        prop::collection::vec(any::<u8>(), 0..=8),
        prop::collection::vec((1u16..3000, prop::collection::vec(any::<u8>(), 0..300)), 0..4),
        prop_oneof![3 => 0usize..40, 1 => 200usize..70_000],
    )
        .prop_map(|(code, token, opts, payload)| {
            let mut m = TcpMessage { token: Token::new(&token).unwrap(), ..TcpMessage::new(code) };
            for (n, v) in opts {
                m.add_option(n, v);
            }
            m.payload = Payload::from((0..payload).map(|i| i as u8).collect::<Vec<u8>>());
            m
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn encoded_messages_split_at_random_chunk_boundaries_decode_to_themselves(
        msgs in prop::collection::vec(message(), 1..5),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..12),
    ) {
        let frames: Vec<Vec<u8>> = msgs.iter().map(|m| encode(m).unwrap()).collect();
        for (m, f) in msgs.iter().zip(&frames) {
            prop_assert_eq!(f.len(), m.wire_len());
            let h = header(f).unwrap().unwrap();
            prop_assert_eq!(h.frame_bytes(), f.len() as u64);
        }
        let stream = frames.concat();
        let mut at: Vec<usize> = cuts.iter().map(|i| i.index(stream.len() + 1)).collect();
        at.push(0);
        at.push(stream.len());
        at.sort_unstable();
        let mut d = StreamDecoder::new(u32::MAX);
        let mut out = Vec::new();
        for w in at.windows(2) {
            d.push(&stream[w[0]..w[1]]);
            while let Some(m) = d.next_message().unwrap() {
                out.push(m);
            }
        }
        prop_assert_eq!(out, msgs);
        prop_assert_eq!(d.buffered_bytes(), 0);
    }

    #[test]
    fn arbitrary_bytes_never_panic_the_decoder_or_the_session(bytes in prop::collection::vec(any::<u8>(), 0..200), split in 0usize..200) {
        let mut s = Session::new(Role::Acceptor, SessionConfig::default());
        let cut = split.min(bytes.len());
        s.receive(&bytes[..cut]);
        s.receive(&bytes[cut..]);
        while s.poll_event().is_some() {}
        while s.poll_transmit().is_some() {}
    }
}
