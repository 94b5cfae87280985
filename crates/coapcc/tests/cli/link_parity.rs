//! The emulator's link is the simulator's link. Fed the datagrams of a simulated run at the
//! instants the simulator offered them to its link, the emulator's datagram path
//! (`coapcc_udp::emulator::Relay`, built as the testbed builds it: the scenario's
//! `[network]`, seed and replication, its IPv4 + UDP header bytes) drops exactly the
//! datagrams the simulator dropped, for the same reasons, and releases every other one at the
//! instant the simulator delivered it — Gilbert–Elliott states, loss draws, jitter and
//! queueing included. So, given the same arrival instants, the testbed and the simulator make
//! the same link decisions; what can make them differ is only when real time makes packets
//! arrive (docs/emulator-and-testbed.md, "Cross-check").

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::path::Path;

use coapcc_core::Instant;
use coapcc_driver::link::DropReason;
use coapcc_driver::scenario::{self, Model};
use coapcc_sim::{CapturePoint, capture_network};
use coapcc_udp::emulator::{Direction, EmulatorConfig, Relay};

/// The simulated server's address in a capture (`coapcc_sim::Captured`).
fn server() -> SocketAddr {
    SocketAddr::from(([10, 0, 0, 1], 5683))
}

/// What the link did with each datagram of one direction, in the order offered: the instant
/// it left the link, or why it was dropped.
type Fates = Vec<Result<Instant, DropReason>>;

/// One algorithm's replication replayed through the relay.
struct Replayed {
    algorithm: String,
    /// Per direction (uplink, downlink): the simulator's fates and the relay's.
    directions: [(Fates, Fates); 2],
    /// The simulator's link-error drops.
    drops_error: u64,
}

/// Replays the simulated replication `replication` of `scenario` through the emulator's
/// relay, for every algorithm of the scenario.
fn replay(scenario: &str, replication: u32) -> Vec<Replayed> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(scenario);
    let s = scenario::load(&path, &[]).unwrap();
    let Model::Network { network, workload } = &s.model else { panic!("{scenario} is not a network scenario") };
    let mut out = Vec::new();
    for (name, config) in &s.algorithms {
        let (result, captured) =
            capture_network(network, *workload, &s.file.coap, config, s.file.seed, replication).unwrap();
        let mut ec = EmulatorConfig::new(SocketAddr::from(([127, 0, 0, 1], 9)), server(), network.clone());
        ec.seed = s.file.seed;
        ec.replication = replication;
        ec.header_bytes = s.file.coap.ip_udp_header_bytes;
        ec.keep_log = true;
        let mut relay = Relay::new(&ec).unwrap();
        // The simulator's side: each direction is FIFO, so its deliveries, in order, belong to
        // the datagrams it did not drop, in the order they were sent.
        let mut delivered: [VecDeque<Instant>; 2] = Default::default();
        let mut sent = [0usize; 2];
        for c in &captured {
            let uplink = c.to.socket_addr() == server();
            let d = if uplink { Direction::Uplink } else { Direction::Downlink };
            match c.seen {
                CapturePoint::Sender => {
                    let data = coapcc_proto::codec::encode(&c.msg);
                    if uplink {
                        relay.admit(c.at, c.from.socket_addr());
                        relay.from_client(c.at, c.from.socket_addr(), data);
                    } else {
                        relay.from_server(c.at, c.to.socket_addr(), data);
                    }
                    sent[d as usize] += 1;
                }
                CapturePoint::Receiver => delivered[d as usize].push_back(c.at),
            }
        }
        let fates = |d: Direction| -> (Fates, Fates) {
            let relay_fates: Fates = relay.log().iter().filter(|r| r.direction == d).map(|r| r.outcome).collect();
            assert_eq!(relay_fates.len(), sent[d as usize], "{name}: every datagram offered once");
            // The simulator's fate of the k-th datagram: the next delivery if the relay
            // delivered it (checked equal below), a drop otherwise (its reason is checked
            // through the run's counters).
            let mut arrivals = delivered[d as usize].clone();
            let sim_fates: Fates = relay_fates
                .iter()
                .map(|f| match f {
                    Ok(_) => arrivals.pop_front().ok_or(DropReason::Error),
                    Err(reason) => Err(*reason),
                })
                .collect();
            assert!(arrivals.is_empty(), "{name} {d:?}: the simulator delivered more datagrams than the relay");
            (sim_fates, relay_fates)
        };
        let both = [fates(Direction::Uplink), fates(Direction::Downlink)];
        // The drop counts by reason of the relay are the simulator's own.
        let (up, down) = (relay.totals(Direction::Uplink), relay.totals(Direction::Downlink));
        assert_eq!(up.offered.packets, result.run.packets_up, "{name}");
        assert_eq!(down.offered.packets, result.run.packets_down, "{name}");
        for (reason, sim_drops) in [
            (DropReason::Buffer, result.run.drops_buffer),
            (DropReason::Error, result.run.drops_error),
            (DropReason::NoToken, result.run.drops_no_token),
        ] {
            assert_eq!(up.dropped.get(reason).packets + down.dropped.get(reason).packets, sim_drops, "{name} {reason}");
        }
        out.push(Replayed { algorithm: name.clone(), directions: both, drops_error: result.run.drops_error });
    }
    out
}

/// Replays replications `0..replications` of `scenario` and asserts the same fates; returns
/// the link-error drops of all of them.
fn assert_same_fates(scenario: &str, replications: u32) -> u64 {
    let mut error_drops = 0;
    for r in 0..replications {
        for Replayed { algorithm: name, directions, drops_error } in replay(scenario, r) {
            for (d, (sim, relay)) in directions.iter().enumerate() {
                assert!(!sim.is_empty(), "{name} r{r}: traffic in direction {d}");
                let first = sim.iter().zip(relay).position(|(a, b)| a != b);
                assert_eq!(first, None, "{name} r{r} direction {d}: first different fate");
            }
            error_drops += drops_error;
        }
    }
    error_drops
}

#[test]
fn fed_the_simulators_arrivals_the_emulator_drops_and_delays_exactly_the_same_packets() {
    // The cross-check's medium-error case: 4 flows × 20 exchanges, 2 500-byte buffers.
    let drops = assert_same_fates("crosscheck/4-flows-medium-errors.toml", 5);
    assert!(drops > 100, "link errors were exercised: {drops} error drops");
}

#[test]
fn the_six_flow_case_of_seed_21_replays_identically_too() {
    // The case in which the testbed seemed to see half the simulator's error drops.
    let drops = assert_same_fates("crosscheck/6-flows-medium-errors.toml", 4);
    assert!(drops > 20, "{drops} error drops");
}

#[test]
fn a_congested_link_queues_the_same_packets_in_both() {
    // The cross-check's congested case: 200 flows at once into 14 100-byte buffers, queues of
    // seconds, no link errors.
    assert_same_fates("crosscheck/200-flows-congested.toml", 2);
}
