//! Property tests: every named algorithm, dithered or not, with several retransmission
//! limits, driven through random event sequences (sends, waits from zero to days, ACKs
//! naming any copy or none). Invariants: no panic or overflow (tests run with overflow
//! checks), every armed timer within the controller's declared bounds, events in time order,
//! retransmissions numbered 1, 2, … and a give-up exactly after MAX_RETRANSMIT of them.

use coapcc_core::harness::{Event, StopAndWait};
use coapcc_core::{ALGORITHMS, AnyConfig, Controller, Duration, Instant};
use proptest::prelude::*;
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

#[derive(Clone, Debug)]
enum Op {
    Send,
    Wait(u64),
    Ack(Option<u16>),
}

fn wait_ns() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 0u64..5_000_000,                       // under 5 ms: zero-ish RTTs
        4 => 0u64..5_000_000_000,                   // up to 5 s
        2 => 0u64..120_000_000_000,                 // up to 2 min
        1 => 0u64..(10 * 86_400_000_000_000),       // up to 10 days
        1 => Just(0u64),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => Just(Op::Send),
        5 => wait_ns().prop_map(Op::Wait),
        2 => Just(Op::Ack(None)),
        2 => (0u16..24).prop_map(|k| Op::Ack(Some(k))),
    ]
}

fn check(config: AnyConfig, ops: &[Op], seed: u64) -> Result<(), TestCaseError> {
    let name = format!("{config:?}");
    let max_retransmit = config.max_retransmit();
    let controller = config.build().map_err(|e| TestCaseError::fail(format!("{name}: {e}")))?;
    let bounds = controller.timer_bounds();
    // The harness borrows the shared algorithm, as endpoints share it behind an `Arc`.
    let mut h = StopAndWait::new(&controller);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut events = Vec::new();
    let mut now = Instant::ZERO;
    for op in ops {
        let mut emit = |e: Event| events.push(e);
        match *op {
            Op::Send => {
                let _ = h.send(now, &mut rng, &mut emit);
            }
            Op::Wait(ns) => {
                now = now + Duration::from_nanos(ns);
                h.advance_to(now, &mut rng, &mut emit);
            }
            Op::Ack(copy) => {
                let _ = h.ack(now, copy, &mut rng, &mut emit);
            }
        }
        let _ = h.controller().rto(h.state(), now);
        let _ = h.controller().earliest_send(h.state(), now);
    }
    let mut last_t = Instant::ZERO;
    let mut copies = 0u32;
    for e in &events {
        let t = match *e {
            Event::Transmit { at, copy, timer, .. } => {
                prop_assert!(
                    timer >= bounds.min && timer <= bounds.max,
                    "{name}: timer {timer:?} outside {bounds:?} (copy {copy})"
                );
                prop_assert_eq!(
                    u32::from(copy),
                    if copy == 0 { 0 } else { copies },
                    "{}: copies numbered in order",
                    name
                );
                prop_assert!(
                    u32::from(copy) <= u32::from(max_retransmit),
                    "{}: copy {} beyond MAX_RETRANSMIT",
                    name,
                    copy
                );
                copies = u32::from(copy) + 1;
                at
            }
            Event::GiveUp { at, .. } => {
                prop_assert_eq!(
                    copies,
                    u32::from(max_retransmit) + 1,
                    "{}: give-up after MAX_RETRANSMIT retransmissions",
                    name
                );
                at
            }
            Event::Ack { at, .. } => at,
        };
        prop_assert!(t >= last_t, "{}: events out of time order", name);
        last_t = t;
    }
    Ok(())
}

fn configs() -> Vec<AnyConfig> {
    let mut out = Vec::new();
    for a in ALGORITHMS {
        for dither in [true, false] {
            for max_retransmit in [0u8, 1, 4, 20] {
                let mut c = (a.preset)();
                c.set_dither(dither);
                c.set_max_retransmit(max_retransmit);
                if c.build().is_ok() {
                    out.push(c);
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_algorithm_survives_random_event_sequences_within_its_bounds(
        ops in prop::collection::vec(op(), 1..120),
        seed in any::<u64>(),
    ) {
        for config in configs() {
            check(config, &ops, seed)?;
        }
    }
}

#[test]
fn every_preset_builds_with_every_tested_retransmission_limit() {
    assert_eq!(configs().len(), ALGORITHMS.len() * 8);
}

/// Presets whose declared timer bounds are open at one end, each with the documented reason;
/// any other preset must declare a lower bound above zero and an upper bound below
/// `u64::MAX` ns, or the bounds property above checks nothing at that end.
const OPEN_BOUNDS: &[(&str, Open, &str)] = &[
    ("pcocoa", Open::Min, "RTO_init follows the samples down to zero: no floor in pCoCoA [S1]"),
    (
        "four-state",
        Open::Min,
        "the preset's estimator has no granularity term (granularity_ms = 0): zero RTTs give zero",
    ),
    ("fasor", Open::Min, "no lower bound on FastRTO (FASOR-02 §4.1): a zero RTT gives a zero timer"),
    ("fasor-token", Open::Min, "as fasor (FASOR-02 §4.1)"),
    ("bdp", Open::Min, "samples of zero drive the overall RTO towards zero; only max_rto bounds it"),
    ("idc", Open::Both, "the Makarem estimator has no min_rto and no max_rto in the preset: SRTT + 7·RTTVAR saturates"),
    ("mbc", Open::Both, "as idc (the Makarem estimator without min_rto or max_rto)"),
];

/// Which end of a preset's timer bounds is open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    /// `min == 0`.
    Min,
    /// `max == u64::MAX` ns.
    Max,
    /// Both.
    Both,
}

#[test]
fn every_preset_declares_real_timer_bounds_or_documents_why_not() {
    let mut undocumented = Vec::new();
    for a in ALGORITHMS {
        let b = (a.preset)().build().unwrap().timer_bounds();
        let open = match (b.min == Duration::ZERO, b.max == Duration::from_nanos(u64::MAX)) {
            (false, false) => None,
            (true, false) => Some(Open::Min),
            (false, true) => Some(Open::Max),
            (true, true) => Some(Open::Both),
        };
        let documented = OPEN_BOUNDS.iter().find(|(n, _, _)| *n == a.name).map(|(_, o, _)| *o);
        if open != documented {
            undocumented.push(format!(
                "{}: declares {:?}..{:?}, open {open:?}, documented {documented:?}",
                a.name, b.min, b.max
            ));
        }
    }
    assert!(undocumented.is_empty(), "{undocumented:#?}");
}
