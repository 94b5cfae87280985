//! The cost of the controller calls of one exchange, for every named algorithm: an exchange
//! acknowledged at once (`start` + `on_ack`), and one that loses its original (`start` +
//! `on_timeout` + `retransmit` + `on_ack`). The destination's state carries over from one
//! iteration to the next, as on a long-lived flow. `cargo bench -p coapcc-core`;
//! `cargo test --benches` runs each once.
// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::Duration;

use coapcc_core::{ALGORITHMS, Ack, Controller, Instant, Retry};
use criterion::{Criterion, criterion_group, criterion_main};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// A round-trip time every algorithm's first timer exceeds.
const RTT: Duration = Duration::from_millis(300);
/// The time between the starts of two exchanges (ages any estimator a little).
const GAP: Duration = Duration::from_secs(1);

fn exchanges(c: &mut Criterion) {
    let mut group = c.benchmark_group("exchange");
    for a in ALGORITHMS {
        let alg = (a.preset)().build().expect("every preset builds");
        group.bench_function(format!("{}/acknowledged", a.name), |b| {
            let (mut st, mut rng, mut now) = (alg.new_state(), Pcg64Mcg::seed_from_u64(1), Instant::ZERO);
            b.iter(|| {
                now = alg.earliest_send(&st, now + GAP);
                let ex = alg.start(&mut st, now, 0, &mut rng);
                alg.on_ack(&mut st, now + RTT, &ex, &Ack::AMBIGUOUS);
                black_box(ex.timer())
            })
        });
        group.bench_function(format!("{}/one-loss", a.name), |b| {
            let (mut st, mut rng, mut now) = (alg.new_state(), Pcg64Mcg::seed_from_u64(1), Instant::ZERO);
            b.iter(|| {
                now = alg.earliest_send(&st, now + GAP);
                let mut ex = alg.start(&mut st, now, 0, &mut rng);
                now = ex.deadline();
                if alg.on_timeout(&mut st, now, &mut ex) == Retry::Retransmit {
                    now = alg.earliest_send(&st, now);
                    alg.retransmit(&mut st, now, &mut ex, &mut rng);
                    alg.on_ack(&mut st, now + RTT, &ex, &Ack::AMBIGUOUS);
                }
                black_box(ex.timer())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, exchanges);
criterion_main!(benches);
