//! Fuzzing the endpoints with arbitrary and mutated datagrams: no panic, bounded memory.

use std::time::Duration;

use coapcc_driver::rng::stream_rng;
use coapcc_proto::{Code, Endpoint, EndpointConfig, Event, Message, MessageType, Token, codec};
use coapcc_udp::config::server_config;
use coapcc_udp::fuzz;

#[test]
fn a_million_arbitrary_and_mutated_datagrams_panic_neither_endpoint_keep_the_cache_bounded_and_amplify_nothing() {
    let stats = fuzz::run(1_000_000, 2026, 100);
    assert_eq!(stats.datagrams, 1_000_000);
    // The corpus mutations reach deep: many datagrams still decode, requests are answered,
    // client exchanges end and are replaced.
    assert!(stats.decoded > 200_000, "{stats:?}");
    assert!(stats.requests_answered > 10_000, "{stats:?}");
    assert!(stats.exchanges_ended > 1_000, "{stats:?}");
    assert!(stats.max_cache_entries <= 100, "{stats:?}");
    assert!(stats.evictions > 0, "{stats:?}");
    assert!(stats.max_client_pending <= 3, "{stats:?}");
    // RFC 7252 §11.3, for every answer, duplicates' included.
    assert!(stats.duplicates_answered > 10_000, "{stats:?}");
    assert_eq!(stats.amplified, 0, "{stats:?}");
}

#[test]
fn every_corpus_message_decodes() {
    for m in fuzz::corpus() {
        assert!(codec::decode(&m).is_ok(), "{m:?}");
    }
}

#[test]
fn a_flood_of_distinct_spoofed_requests_does_not_grow_the_server_past_its_cache_bound() {
    let config = EndpointConfig { duplicate_cache_entries: 4_096, ..server_config(Duration::from_secs(247)).unwrap() };
    let mut server: Endpoint<(u32, u16), _> = Endpoint::new(config, stream_rng(9, 0, 0)).unwrap();
    let mut m = Message::con_request(Code::GET, "echo");
    m.token = Token::new(&[1, 2, 3, 4]).unwrap();
    let mut max = 0;
    for i in 0..200_000u32 {
        // Every request from another (spoofed) address and port, so none is a duplicate.
        m.mid = i as u16;
        let now = coapcc_core::Instant::from_nanos(u64::from(i) * 1_000);
        server.handle_datagram(now, (i, (i >> 16) as u16), &codec::encode(&m));
        while let Some(e) = server.poll_event() {
            if let Event::Request { handle, request } = e {
                let r = coapcc_udp::server::reply(&request);
                server.respond_with(now, handle, r.code, r.options, r.payload);
            }
        }
        while let Some(t) = server.poll_transmit() {
            assert_eq!(t.msg.mtype, MessageType::Ack);
            // RFC 7252 §11.3: never more than 3 times the request.
            assert!(t.msg.wire_len() <= 3 * codec::encode(&m).len());
        }
        max = max.max(server.duplicate_cache_len());
    }
    assert_eq!(max, 4_096);
    assert_eq!(server.stats().duplicate_evictions, 200_000 - 4_096);
}
