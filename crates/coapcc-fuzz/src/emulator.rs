//! Fuzz target `emulator`: the emulator's datagram path without sockets
//! ([`coapcc_udp::emulator::Relay`]) fed datagrams from more client addresses than it has
//! sockets for, server replies for any of them, sockets that cannot be opened, and time
//! jumps, in an order the input chooses, with a model of the sockets the I/O shell would hold.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use coapcc_core::{Instant, Ratio};
use coapcc_driver::link::presets::{LinkErrors, NbiotConfig};
use coapcc_driver::scenario::NetworkConfig;
use coapcc_udp::emulator::{Admission, Direction, EmulatorConfig, Relay, RelayCounters};

use crate::input::Input;

/// Client addresses the input picks from (more than any table it configures holds).
const ADDRESSES: u8 = 24;
/// At most this many operations per input.
const MAX_STEPS: usize = 2_000;

/// The I/O shell as the relay should see it: which clients have a socket, since when they
/// were last active, and every datagram offered and not yet released.
#[derive(Default)]
struct Model {
    sockets: HashMap<SocketAddr, Instant>,
    /// Datagrams the relay accepted and holds (or dropped in its link model, which the
    /// pipeline's totals count), by direction.
    in_flight: [Vec<(SocketAddr, Vec<u8>)>; 2],
    /// Datagrams for or from clients without a socket, refused before the link.
    unknown: u64,
    /// Datagrams offered to the link, by direction.
    offered: [u64; 2],
    released: [u64; 2],
    last_release: Instant,
}

/// Runs one input: three set-up bytes (table size, idle time, link), then operations, one
/// byte each with their arguments after them. After every operation:
/// * the clients with a socket are exactly the model's, never more than the table holds;
/// * a client is admitted as new only without a socket, and the client it evicts is the
///   least recently active one;
/// * released datagrams were offered in their direction for their client, leave no earlier
///   than their departure and in order of departure, and an uplink one only for a client
///   with a socket;
/// * every datagram is accounted for: refused (no socket), dropped by the link, held, or
///   released; after an expiry at `now`, no client is idle past its bound and the next
///   expiry is later than `now`.
pub fn run(data: &[u8]) {
    exercise(data);
}

/// [`run`], answering the relay's counters at the end (`None`: the set-up bytes name no link).
fn exercise(data: &[u8]) -> Option<RelayCounters> {
    let mut input = Input::new(data);
    let (max_clients, idle_ms, link) = (1 + usize::from(input.byte() % 8), input.byte(), input.byte());
    let network = match link % 4 {
        0 => NetworkConfig::Custom { uplink: Default::default(), downlink: Default::default() },
        1 => NetworkConfig::Nbiot(NbiotConfig::testbed(100 + 50 * u64::from(link >> 2), LinkErrors::None)),
        2 => NetworkConfig::Nbiot(NbiotConfig::testbed(2_500, LinkErrors::High)),
        _ => NetworkConfig::Residual {
            min_rate_pps: Ratio::new(1, 2),
            max_rate_pps: Ratio::new(u32::from(1 + (link >> 2) % 8), 1),
            depth_packets: 1,
        },
    };
    let mut config = EmulatorConfig::new(address(0), address(255), network);
    config.max_clients = max_clients;
    config.client_idle = Duration::from_millis(1 + u64::from(idle_ms) * 10);
    config.seed = u64::from(link);
    let mut relay = Relay::new(&config).ok()?;
    let mut model = Model::default();
    let mut now = Instant::ZERO;
    for _ in 0..MAX_STEPS {
        if input.is_empty() {
            break;
        }
        match input.byte() % 5 {
            0 => {
                let (client, len, refuse) = (address(input.byte() % ADDRESSES), input.byte(), input.byte() == 0xff);
                let data = input.take(usize::from(len)).to_vec();
                match relay.admit(now, client) {
                    Admission::Known => assert!(model.sockets.contains_key(&client), "{client} known without a socket"),
                    Admission::New { evicted } => {
                        assert!(!model.sockets.contains_key(&client), "{client} admitted again");
                        match evicted {
                            Some(e) => {
                                assert_eq!(model.sockets.len(), max_clients, "{e} evicted from a table not full");
                                let oldest = model.sockets.values().min().copied();
                                assert_eq!(model.sockets.remove(&e), oldest, "{e} is not the least recently active");
                            }
                            None => assert!(model.sockets.len() < max_clients),
                        }
                        model.sockets.insert(client, now);
                        if refuse {
                            relay.refuse(client);
                            model.sockets.remove(&client);
                        }
                    }
                }
                if let Some(t) = model.sockets.get_mut(&client) {
                    *t = now;
                    model.in_flight[0].push((client, data.clone()));
                    model.offered[0] += 1;
                } else {
                    model.unknown += 1;
                }
                relay.from_client(now, client, data);
            }
            1 => {
                let (client, len) = (address(input.byte() % ADDRESSES), input.byte());
                let data = input.take(usize::from(len)).to_vec();
                if let Some(t) = model.sockets.get_mut(&client) {
                    *t = now;
                    model.in_flight[1].push((client, data.clone()));
                    model.offered[1] += 1;
                } else {
                    model.unknown += 1;
                }
                relay.from_server(now, client, data);
            }
            2 => {
                now =
                    now.saturating_add(Duration::from_millis(u64::from(input.u16()) * u64::from(1 + input.byte() % 8)));
                expire(&mut relay, &mut model, now, config.client_idle);
            }
            3 => {
                if let Some(t) = relay.next_departure().into_iter().chain(relay.next_expiry()).min() {
                    now = now.max(t);
                }
                expire(&mut relay, &mut model, now, config.client_idle);
            }
            _ => release(&mut relay, &mut model, now),
        }
        check(&relay, &model, max_clients);
    }
    release(&mut relay, &mut model, now);
    check(&relay, &model, max_clients);
    for i in 0..ADDRESSES {
        let a = address(i);
        assert_eq!(relay.is_client(a), model.sockets.contains_key(&a), "{a}");
    }
    Some(relay.counters())
}

fn address(i: u8) -> SocketAddr {
    SocketAddr::from(([10, 0, 0, i], 5683))
}

fn expire(relay: &mut Relay, model: &mut Model, now: Instant, idle: Duration) {
    for gone in relay.expire_idle(now) {
        let last = model.sockets.remove(&gone);
        assert!(last.is_some_and(|t| t.saturating_add(idle) <= now), "{gone} expired early");
    }
    assert!(model.sockets.values().all(|t| t.saturating_add(idle) > now), "a client idle past its bound is kept");
    assert!(relay.next_expiry().is_none_or(|t| t > now), "an expiry due at {now:?} was not done");
}

fn release(relay: &mut Relay, model: &mut Model, now: Instant) {
    while let Some(h) = relay.pop_due(now) {
        assert!(h.depart <= now, "released at {now:?} before its departure {:?}", h.depart);
        assert!(h.depart >= model.last_release, "released out of departure order");
        model.last_release = h.depart;
        let d = usize::from(h.direction == Direction::Downlink);
        let i = model.in_flight[d].iter().position(|(c, data)| *c == h.client && *data == h.data);
        let i = i.unwrap_or_else(|| panic!("{:?} datagram for {} was never offered", h.direction, h.client));
        model.in_flight[d].swap_remove(i);
        model.released[d] += 1;
        if h.direction == Direction::Uplink {
            assert!(model.sockets.contains_key(&h.client), "uplink datagram of {} without a socket", h.client);
        }
    }
}

fn check(relay: &Relay, model: &Model, max_clients: usize) {
    assert!(relay.clients() <= max_clients);
    // As many clients as the model and each of the model's among them: the same set (every
    // address is compared once more at the end; asking all of them after every step made the
    // target spend most of its time hashing).
    assert_eq!(relay.clients(), model.sockets.len());
    for &a in model.sockets.keys() {
        assert!(relay.is_client(a), "{a} has a socket but is not a client");
    }
    let mut lost_at_release = 0;
    for (d, direction) in [Direction::Uplink, Direction::Downlink].into_iter().enumerate() {
        let t = relay.totals(direction);
        assert_eq!(t.offered.packets, t.delivered.packets + t.dropped.total().packets, "{direction:?}");
        // Accepted by the link: held, released, or (uplink) dropped for want of a socket.
        let accepted = t.delivered.packets;
        let kept = relay.held(direction) + model.released[d];
        assert!(kept <= accepted, "{direction:?}: {kept} held or released of {accepted} accepted");
        lost_at_release += accepted - kept;
        if direction == Direction::Downlink {
            assert_eq!(kept, accepted, "downlink datagrams are never dropped at release");
        }
        assert_eq!(
            t.offered.packets, model.offered[d],
            "{direction:?}: only datagrams of clients with a socket reach the link"
        );
    }
    assert_eq!(relay.counters().unknown_client, model.unknown + lost_at_release);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_clients_into_a_table_of_four_evict_the_two_least_recently_active() {
        // Table of 4, plain relay; clients 0–5 send one datagram each, then the server
        // answers client 5 (known) and client 0 (evicted: counted, not relayed).
        let mut data = vec![3, 10, 0];
        for i in 0..6 {
            data.extend([0, i, 4, 0, 0x40, 1, 0, i, 4]);
        }
        data.extend([1, 5, 4, 0x60, 0x45, 0, 5, 4, 1, 0, 4, 0x60, 0x45, 0, 0, 4]);
        let c = exercise(&data).unwrap();
        assert_eq!((c.admitted, c.evicted, c.unknown_client), (6, 2, 1));
    }

    #[test]
    fn a_client_silent_past_the_idle_time_expires() {
        // Idle time 1 + 10 × 10 = 101 ms; one datagram, then 200 ms pass.
        let c = exercise(&[7, 10, 0, 0, 1, 1, 0, 9, 2, 0, 200, 0]).unwrap();
        assert_eq!((c.admitted, c.expired), (1, 1));
    }
}
