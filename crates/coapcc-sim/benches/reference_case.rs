//! The cost of one replication of the reference case, `fasor/400-flows-infinite-buffer-
//! continuous` (400 continuous flows of 50 exchanges over the NB-IoT-like link), for each of
//! its algorithms. `cargo bench -p coapcc-sim`; `cargo test --benches` runs each once.
// `criterion_group!` defines an undocumented public function.
#![allow(missing_docs)]

use std::hint::black_box;
use std::path::Path;

use coapcc_driver::scenario::{self, Setting};
use coapcc_sim::run_job;
use criterion::{Criterion, criterion_group, criterion_main};

const REFERENCE: &str = "fasor/400-flows-infinite-buffer-continuous.toml";

fn reference_case(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(REFERENCE);
    let one: Setting = "replications=1".parse().unwrap();
    let s = scenario::load(&path, &[one]).unwrap();
    let mut group = c.benchmark_group("reference-case");
    // A replication takes a sizeable fraction of a second: the fewest samples criterion allows.
    group.sample_size(10);
    for (i, (name, _)) in s.algorithms.iter().enumerate() {
        group.bench_function(name.as_str(), |b| b.iter(|| black_box(run_job(&s, i, 0).unwrap())));
    }
    group.finish();
}

criterion_group!(benches, reference_case);
criterion_main!(benches);
