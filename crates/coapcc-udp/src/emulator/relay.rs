//! The emulator's datagram path without sockets or clock: which clients have an upstream
//! socket (bounded, least recently used evicted, idle ones expired), the two link pipelines,
//! and the datagrams held until their departure. [`super::Emulator`] feeds it what its
//! sockets receive with wall-clock instants and sends what it releases; the fuzz target
//! `emulator` (crates/coapcc-fuzz) feeds it arbitrary datagrams and addresses.
//!
//! ```text
//! admit(now, client)            a datagram arrived from `client`: New { evicted } → open its socket (close evicted's)
//! from_client(now, client, d)   … offered to the uplink
//! from_server(now, client, d)   the server answered on `client`'s upstream socket: offered to the downlink
//! pop_due(now)                  the next datagram whose departure has come, with where it goes
//! expire_idle(now)              clients silent for `client_idle`: close their sockets
//! next_departure(), next_expiry()   when to wake up
//! ```

use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::net::SocketAddr;

use coapcc_core::{Duration, Instant};
use coapcc_driver::link::{DropReason, Pipeline, PipelineTotals};
use coapcc_driver::rng::Stream;

use super::{Direction, EmulatorConfig, EmulatorError, PacketRecord};

/// A datagram held until its departure (and then released by [`Relay::pop_due`]).
#[derive(Debug, PartialEq, Eq)]
pub struct Held {
    /// The instant the link model releases it.
    pub depart: Instant,
    /// Arrival order (ties on `depart` leave in arrival order).
    seq: u64,
    /// Its direction.
    pub direction: Direction,
    /// The client of its flow: the source of an uplink datagram, the destination of a
    /// downlink one.
    pub client: SocketAddr,
    /// The datagram.
    pub data: Vec<u8>,
}

impl Ord for Held {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        // A min-heap on (departure, arrival order).
        (other.depart, other.seq).cmp(&(self.depart, self.seq))
    }
}

impl PartialOrd for Held {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// What [`Relay::admit`] decided about a client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Admission {
    /// It has an upstream socket already.
    Known,
    /// It needs one; `evicted` (the least recently active client, when the table was full)
    /// lost its own.
    New {
        /// The client whose socket to close first.
        evicted: Option<SocketAddr>,
    },
}

/// What happened to clients and datagrams besides the link model's own counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RelayCounters {
    /// Clients admitted (each time one got an upstream socket).
    pub admitted: u64,
    /// Clients evicted because the table was full (least recently active first).
    pub evicted: u64,
    /// Clients whose upstream socket expired after `client_idle` without traffic.
    pub expired: u64,
    /// Clients refused because their upstream socket could not be opened ([`Relay::refuse`]).
    pub refused: u64,
    /// Datagrams that could not be relayed because their client had no upstream socket
    /// (a reply for a client evicted or expired meanwhile, an uplink datagram whose client
    /// lost its socket before its departure, a datagram of a client never admitted).
    pub unknown_client: u64,
}

/// The sans-IO core of the emulator (see the module documentation).
#[derive(Debug)]
pub struct Relay {
    pipelines: [Pipeline; 2],
    header_bytes: u32,
    keep_log: bool,
    max_clients: usize,
    client_idle: Duration,
    /// Each client's last activity and its key in `by_activity`.
    clients: HashMap<SocketAddr, (Instant, u64)>,
    /// Clients by last activity, least recent first.
    by_activity: BTreeMap<(Instant, u64), SocketAddr>,
    touches: u64,
    held: BinaryHeap<Held>,
    seq: u64,
    counters: RelayCounters,
    log: Vec<PacketRecord>,
}

impl Relay {
    /// The relay of `config`: its link pipelines (checked; the error names the key) and
    /// client bounds.
    pub fn new(config: &EmulatorConfig) -> Result<Relay, EmulatorError> {
        let (up, down) = config.network.pipelines();
        let bad = |direction| move |error| EmulatorError::Link { direction, error };
        let up = Pipeline::new(&up, config.seed, config.replication, Stream::LinkUp(0).id())
            .map_err(bad(Direction::Uplink))?;
        let down = Pipeline::new(&down, config.seed, config.replication, Stream::LinkDown(0).id())
            .map_err(bad(Direction::Downlink))?;
        Ok(Relay {
            pipelines: [up, down],
            header_bytes: config.header_bytes,
            keep_log: config.keep_log,
            max_clients: config.max_clients.max(1),
            client_idle: config.client_idle,
            clients: HashMap::new(),
            by_activity: BTreeMap::new(),
            touches: 0,
            held: BinaryHeap::new(),
            seq: 0,
            counters: RelayCounters::default(),
            log: Vec::new(),
        })
    }

    /// A datagram from `client` arrived at `now`: marks it active and says whether it needs
    /// an upstream socket (evicting the least recently active client when
    /// `max_clients` have one).
    pub fn admit(&mut self, now: Instant, client: SocketAddr) -> Admission {
        if self.touch(now, client) {
            return Admission::Known;
        }
        let mut evicted = None;
        if self.clients.len() >= self.max_clients
            && let Some((_, oldest)) = self.by_activity.pop_first()
        {
            self.clients.remove(&oldest);
            self.counters.evicted += 1;
            evicted = Some(oldest);
        }
        self.touches += 1;
        self.clients.insert(client, (now, self.touches));
        self.by_activity.insert((now, self.touches), client);
        self.counters.admitted += 1;
        Admission::New { evicted }
    }

    /// `client`'s upstream socket could not be opened: it is forgotten (and counted).
    pub fn refuse(&mut self, client: SocketAddr) {
        if self.forget(client) {
            self.counters.admitted -= 1;
            self.counters.refused += 1;
        }
    }

    /// Marks a known client active at `now`; whether it was known.
    fn touch(&mut self, now: Instant, client: SocketAddr) -> bool {
        let Some(entry) = self.clients.get_mut(&client) else { return false };
        self.by_activity.remove(&(entry.0, entry.1));
        self.touches += 1;
        // Never backwards, so that the order stays that of activity.
        *entry = (entry.0.max(now), self.touches);
        self.by_activity.insert(*entry, client);
        true
    }

    fn forget(&mut self, client: SocketAddr) -> bool {
        match self.clients.remove(&client) {
            Some(key) => {
                self.by_activity.remove(&key);
                true
            }
            None => false,
        }
    }

    /// A datagram from admitted `client` at `now`, offered to the uplink (a client never
    /// admitted, or refused, is counted in [`RelayCounters::unknown_client`]).
    pub fn from_client(&mut self, now: Instant, client: SocketAddr, data: Vec<u8>) {
        if !self.clients.contains_key(&client) {
            self.counters.unknown_client += 1;
            return;
        }
        self.offer(Direction::Uplink, now, client, data);
    }

    /// The server's datagram on `client`'s upstream socket at `now`, offered to the downlink;
    /// it keeps the client active.
    pub fn from_server(&mut self, now: Instant, client: SocketAddr, data: Vec<u8>) {
        if !self.touch(now, client) {
            self.counters.unknown_client += 1;
            return;
        }
        self.offer(Direction::Downlink, now, client, data);
    }

    fn offer(&mut self, direction: Direction, now: Instant, client: SocketAddr, data: Vec<u8>) {
        let bytes = u32::try_from(data.len()).unwrap_or(u32::MAX).saturating_add(self.header_bytes);
        let outcome: Result<Instant, DropReason> = self.pipelines[direction.index()].offer(now, bytes);
        if self.keep_log {
            self.log.push(PacketRecord { direction, client, offered: now, outcome, datagram: data.clone() });
        }
        if let Ok(depart) = outcome {
            self.seq += 1;
            self.held.push(Held { depart, seq: self.seq, direction, client, data });
        }
    }

    /// The departure of the next held datagram.
    pub fn next_departure(&self) -> Option<Instant> {
        self.held.peek().map(|h| h.depart)
    }

    /// The next held datagram whose departure is at or before `now`. An uplink datagram whose
    /// client lost its upstream socket meanwhile is dropped (counted) and the next one looked at.
    pub fn pop_due(&mut self, now: Instant) -> Option<Held> {
        while self.held.peek().is_some_and(|h| h.depart <= now) {
            let h = self.held.pop()?;
            if h.direction == Direction::Uplink && !self.clients.contains_key(&h.client) {
                self.counters.unknown_client += 1;
                continue;
            }
            return Some(h);
        }
        None
    }

    /// When the least recently active client expires, if nothing is heard from it.
    pub fn next_expiry(&self) -> Option<Instant> {
        self.by_activity.first_key_value().map(|((t, _), _)| t.saturating_add(self.client_idle))
    }

    /// Forgets every client silent for `client_idle` or longer at `now`; their upstream
    /// sockets are to be closed.
    pub fn expire_idle(&mut self, now: Instant) -> Vec<SocketAddr> {
        let mut gone = Vec::new();
        while let Some((&(t, _), &client)) = self.by_activity.first_key_value() {
            if t.saturating_add(self.client_idle) > now {
                break;
            }
            self.forget(client);
            self.counters.expired += 1;
            gone.push(client);
        }
        gone
    }

    /// Whether `client` has an upstream socket.
    pub fn is_client(&self, client: SocketAddr) -> bool {
        self.clients.contains_key(&client)
    }

    /// Clients with an upstream socket now (at most `max_clients`).
    pub fn clients(&self) -> usize {
        self.clients.len()
    }

    /// The counters.
    pub fn counters(&self) -> RelayCounters {
        self.counters
    }

    /// The link model's counters of `direction`.
    pub fn totals(&self, direction: Direction) -> PipelineTotals {
        self.pipelines[direction.index()].totals()
    }

    /// Datagrams held in `direction`.
    pub fn held(&self, direction: Direction) -> u64 {
        self.held.iter().filter(|h| h.direction == direction).count() as u64
    }

    /// Every datagram offered so far, if the configuration keeps a log.
    pub fn log(&self) -> &[PacketRecord] {
        &self.log
    }

    /// The log and the (uplink, downlink) pipelines, as the relay ends.
    pub fn into_parts(self) -> (Vec<PacketRecord>, [Pipeline; 2]) {
        (self.log, self.pipelines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coapcc_driver::link::presets::{LinkErrors, NbiotConfig};
    use coapcc_driver::scenario::NetworkConfig;

    #[test]
    fn each_directions_long_run_error_drops_are_the_profiles_stationary_loss() {
        // The NB-IoT profile with medium errors and a buffer that never fills: one client sends
        // a 60-byte datagram every 500 ms and the server answers each 250 ms later, for
        // 100 000 s. Each direction's Gilbert–Elliott chain runs on the emulator's clock,
        // whatever the traffic, so the fraction of its packets lost to errors estimates the
        // stationary loss π_bad·loss_bad = (1 s / 5 s)·0.5 = 0.1.
        let errors = LinkErrors::Medium;
        let network = NetworkConfig::Nbiot(NbiotConfig::testbed(1_410_000, errors));
        let client: SocketAddr = "127.0.0.1:40000".parse().unwrap();
        let mut config =
            EmulatorConfig::new("127.0.0.1:5684".parse().unwrap(), "127.0.0.1:5683".parse().unwrap(), network);
        config.seed = 7;
        let mut relay = Relay::new(&config).unwrap();
        let n: u64 = 200_000;
        for k in 0..n {
            let at = Instant::from_millis(k * 500);
            relay.admit(at, client);
            relay.from_client(at, client, vec![0; 60]);
            relay.from_server(at + Duration::from_millis(250), client, vec![0; 60]);
            while relay.pop_due(at + Duration::from_millis(250)).is_some() {}
        }
        let c = errors.config();
        let se = c.loss_rate_standard_error(Duration::from_secs(100_000), n);
        for d in [Direction::Uplink, Direction::Downlink] {
            let t = relay.totals(d);
            assert_eq!((t.offered.packets, t.dropped.buffer.packets), (n, 0));
            let ratio = t.dropped.error.packets as f64 / n as f64;
            assert!((ratio - c.stationary_loss()).abs() < 5.0 * se, "{d:?}: {ratio} against 0.1 ± 5·{se}");
        }
    }
}
