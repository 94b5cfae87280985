//! The cost of offering one packet to a link pipeline: the NB-IoT-like uplink path of the
//! FASOR testbed (serializer behind a drop-tail buffer, Gilbert–Elliott errors, propagation,
//! rest of the path), error-free and with high errors. `cargo bench -p coapcc-driver`;
//! `cargo test --benches` runs each once.
// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;

use coapcc_core::{Duration, Instant};
use coapcc_driver::link::Pipeline;
use coapcc_driver::link::presets::{LinkErrors, nbiot_uplink_path};
use criterion::{Criterion, criterion_group, criterion_main};

/// The testbed's CON GET with IPv4 and UDP headers, in bytes.
const PACKET_BYTES: u32 = 50;
/// Packets arrive faster than 60 kbit/s drains them, so the buffer fills and drops too.
const GAP: Duration = Duration::from_millis(5);

fn offers(c: &mut Criterion) {
    let mut group = c.benchmark_group("pipeline");
    for errors in [LinkErrors::None, LinkErrors::High] {
        group.bench_function(format!("nbiot-uplink/{}-errors", errors.name()), |b| {
            let mut link = Pipeline::new(&nbiot_uplink_path(2_500, errors), 1, 0, 0).unwrap();
            let mut now = Instant::ZERO;
            b.iter(|| {
                now = now + GAP;
                black_box(link.offer(now, PACKET_BYTES))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, offers);
criterion_main!(benches);
