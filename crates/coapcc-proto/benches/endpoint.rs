//! The cost of one CoAP exchange through a client and a server endpoint: request, the
//! server's piggybacked response, completion at the client; decoded messages handed over
//! (as the simulator does) and, separately, bytes through the codec (as a socket driver
//! does). `cargo bench -p coapcc-proto`; `cargo test --benches` runs each once.
// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::sync::Arc;
use std::time::Duration;

use coapcc_core::{AnyConfig, Instant};
use coapcc_proto::{AutoResponse, Code, Endpoint, EndpointConfig, Event, Message, Payload, codec};
use criterion::{Criterion, criterion_group, criterion_main};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

const CLIENT: u32 = 1;
const SERVER: u32 = 0;
/// The time between the starts of two exchanges.
const GAP: Duration = Duration::from_millis(10);

fn pair(algorithm: &str) -> (Endpoint<u32, Pcg64Mcg>, Endpoint<u32, Pcg64Mcg>) {
    let alg = Arc::new(AnyConfig::from_name(algorithm).unwrap().build().unwrap());
    let client = EndpointConfig::echoing(Arc::clone(&alg));
    let server = EndpointConfig {
        auto_response: Some(AutoResponse { code: Code::CONTENT, payload: Payload::from(vec![0; 20]) }),
        ..EndpointConfig::echoing(alg)
    };
    (
        Endpoint::new(client, Pcg64Mcg::seed_from_u64(1)).unwrap(),
        Endpoint::new(server, Pcg64Mcg::seed_from_u64(2)).unwrap(),
    )
}

/// One exchange from request to completion; returns whether it completed.
fn exchange(c: &mut Endpoint<u32, Pcg64Mcg>, s: &mut Endpoint<u32, Pcg64Mcg>, now: Instant, bytes: bool) -> bool {
    c.request(now, SERVER, Message::con_request(Code::GET, "res"));
    while let Some(t) = c.poll_transmit() {
        if bytes {
            s.handle_datagram(now, CLIENT, &codec::encode(&t.msg))
        } else {
            s.handle_message(now, CLIENT, t.msg)
        }
    }
    while let Some(t) = s.poll_transmit() {
        if bytes {
            c.handle_datagram(now, SERVER, &codec::encode(&t.msg))
        } else {
            c.handle_message(now, SERVER, t.msg)
        }
    }
    let mut completed = false;
    while let Some(e) = c.poll_event() {
        completed |= matches!(e, Event::Completed { .. });
    }
    completed
}

fn round_trips(c: &mut Criterion) {
    let mut group = c.benchmark_group("round-trip");
    for (name, algorithm, bytes) in [
        ("messages/default", "default", false),
        ("messages/fasor-token", "fasor-token", false),
        ("bytes/default", "default", true),
    ] {
        group.bench_function(name, |b| {
            let (mut client, mut server) = pair(algorithm);
            let mut now = Instant::ZERO;
            b.iter(|| {
                now = now + GAP;
                assert!(exchange(&mut client, &mut server, now, bytes));
                black_box(client.stats().transmissions)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, round_trips);
criterion_main!(benches);
