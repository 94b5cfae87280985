//! The real-time testbed: a scenario file — the same one `coapcc sim` takes — run on loopback
//! sockets, in one process: a server endpoint, the [emulator](crate::emulator) with the
//! scenario's `[network]`, and the scenario's flows, driven by the same
//! [`Workload`], [`Endpoints`] and [`Recorder`] as the simulator, into the same
//! [`RunResult`] (so `coapcc testbed` writes the same CSV files as `coapcc sim`).
//!
//! ```text
//! flow 0 socket ─┐                                   ┌─ one upstream socket per client ─┐
//! flow 1 socket ─┼─▶ emulator (uplink ▸ downlink) ───┤                                  ├─▶ server endpoint
//! flow F socket ─┘                                   └──────────────────────────────────┘
//! ```
//!
//! The server endpoint runs on the `udp` runtime ([`crate::runtime::spawn`]). The flows are
//! driven by `coapcc-driver`'s flow loop ([`FlowLoop`], the one the simulator's engine runs,
//! so the workload, the endpoint and the recorder are called in the same order at the same
//! points), from one task for all flows with one reader task per socket; this module is its
//! [`Host`]: the wall clock, a socket per client, no wake-up timers of its own (it sleeps
//! until the loop's earliest wake-up). (The runtime's per-request `Outcome` futures and its
//! asynchronous report channel would interleave those steps differently.)
//!
//! Every flow has its own socket (a new one for each short-lived client of a random flow, as
//! a new process would); every random draw comes from the scenario's streams for the
//! replication ([`Stream`]), so a testbed replication and a simulated one share their link
//! trajectories, start offsets and dithering streams — but not their outcome, which now
//! depends on real scheduling.
//!
//! ## Unnecessary retransmissions, from the emulator's packet log
//!
//! The simulator knows which copy of a request an ACK answers; a real network does not. The
//! testbed derives it from what crossed the emulator, the way the FASOR testbed matched the
//! tcpdump traces taken at both ends:
//!
//! 1. The copies of one exchange are the uplink CON requests of one client address with one
//!    Message ID (a retransmission keeps its Message ID; the token may change with a
//!    transmission-count echo), in the order the emulator received them.
//! 2. The link is FIFO, so the server receives the delivered copies in that order and answers
//!    each (a duplicate from its cache): the `k`-th downlink ACK of that client and Message ID
//!    answers the `k`-th delivered copy.
//! 3. The exchange's first answered copy is the earliest copy whose matched ACK the downlink
//!    delivered; every copy sent after it is unnecessary (as in the simulator: copies after
//!    the first copy that completed the round trip). An exchange with no delivered ACK has none.
//!
//! The model's outcome is used for "delivered" (a packet still held when the run ends counts as
//! delivered), so the rule does not depend on when the run stops.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use coapcc_core::{AnyConfig, ConfigError, Duration, Instant};
use coapcc_driver::Endpoints;
use coapcc_driver::flow::{Datagram, FlowLoop, Host, Sent};
use coapcc_driver::metrics::RunResult;
use coapcc_driver::rng::{SimRng, Stream, stream_rng, sub_stream};
use coapcc_driver::scenario::{BlockwiseError, CoapConfig, NetworkConfig, WorkloadConfig};
use coapcc_driver::{BlockPlan, Workload};
use coapcc_driver::{Recorder, RunEnd};
use coapcc_proto::Endpoint;
use tokio::net::UdpSocket;
use tokio::sync::{mpsc, oneshot};

use crate::clock::Clock;
use crate::emulator::{Direction, Emulator, EmulatorConfig, EmulatorError, EmulatorReport};

/// What one testbed replication produced.
#[derive(Debug)]
pub struct TestbedRun {
    /// The same record `coapcc sim` produces for a replication.
    pub result: RunResult,
    /// The emulator's counters and timing errors.
    pub emulator: EmulatorReport,
    /// Wall time of the replication.
    pub wall: Duration,
}

/// One (algorithm, replication) of a network scenario, in real time on loopback.
#[derive(Clone, Debug)]
pub struct RunSpec {
    /// The scenario's `[network]`.
    pub network: NetworkConfig,
    /// The scenario's `[workload]`.
    pub workload: WorkloadConfig,
    /// The scenario's `[coap]`.
    pub coap: CoapConfig,
    /// The algorithm's configuration.
    pub algorithm: AnyConfig,
    /// The scenario's seed.
    pub seed: u64,
    /// The replication (selects every random stream).
    pub replication: u32,
    /// Where the emulator writes both sides, if anywhere.
    pub pcap: Option<PathBuf>,
}

type Ep = Endpoint<SocketAddr, SimRng>;

/// Why a testbed replication could not run.
#[derive(Debug, thiserror::Error)]
pub enum TestbedError {
    /// The algorithm or an endpoint configuration is out of range (names the key).
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A socket operation failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The emulator refused its link or failed.
    #[error(transparent)]
    Emulator(#[from] EmulatorError),
    /// The emulator's task panicked or was cancelled.
    #[error("the emulator task failed: {0}")]
    Task(#[from] tokio::task::JoinError),
    /// The block-wise transfer's block size cannot be used.
    #[error("`coap.blockwise.block_bytes`: {0}")]
    Blockwise(#[from] BlockwiseError),
}

/// A flow's current client: its socket and the task reading it (stopped when the client is
/// replaced or the run ends).
struct Client {
    socket: Arc<UdpSocket>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Client {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// The testbed's side of the flow loop ([`Host`]): the clock, one socket per client towards
/// the emulator, the clients' addresses (for the packet log).
struct Sockets {
    clock: Clock,
    relay: SocketAddr,
    prototype: Ep,
    seed: u64,
    replication: u32,
    tx: mpsc::UnboundedSender<(u32, u32, Vec<u8>)>,
    events: u64,
    /// Every client socket address a flow used, and the flow.
    client_addresses: HashMap<SocketAddr, u32>,
    /// Datagrams a socket could not take at once, in order; sent by [`Sockets::flush`].
    backlog: Vec<(Arc<UdpSocket>, Vec<u8>)>,
}

impl Host for Sockets {
    type Addr = SocketAddr;
    type Rng = SimRng;
    type Client = Client;
    type Error = std::io::Error;

    fn now(&self) -> Instant {
        self.clock.now()
    }

    fn peer(&self, _flow: u32) -> SocketAddr {
        self.relay
    }

    /// A new endpoint from the replication's stream for the incarnation, on a new socket (as a
    /// new process would have) connected to the emulator, with its reader task.
    fn new_client(&mut self, f: u32, incarnation: u32) -> std::io::Result<(Ep, Client)> {
        let stream = sub_stream(Stream::Client(f).id(), u64::from(incarnation));
        let ep = self.prototype.renewed(stream_rng(self.seed, self.replication, stream));
        let socket = std::net::UdpSocket::bind(SocketAddr::from(([127, 0, 0, 1], 0)))?;
        socket.set_nonblocking(true)?;
        socket.connect(self.relay)?;
        let socket = Arc::new(UdpSocket::from_std(socket)?);
        self.client_addresses.insert(socket.local_addr()?, f);
        let reader_socket = Arc::clone(&socket);
        let tx = self.tx.clone();
        let reader = tokio::spawn(async move {
            let mut buf = vec![0_u8; 2048];
            while let Ok(n) = reader_socket.recv(&mut buf).await {
                if tx.send((f, incarnation, buf[..n].to_vec())).is_err() {
                    return;
                }
            }
        });
        Ok((ep, Client { socket, reader }))
    }

    /// Sends at once when the socket takes it (UDP on loopback nearly always does), else keeps
    /// it, and every later datagram, for [`Sockets::flush`]. Send errors are ignored: the
    /// datagram is lost, as on a network.
    fn send(&mut self, client: &mut Client, d: Datagram<SocketAddr>) -> Sent {
        let bytes = coapcc_proto::codec::encode(&d.transmit.msg);
        if self.backlog.is_empty() {
            match client.socket.try_send(&bytes) {
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                _ => return Sent::default(),
            }
        }
        self.backlog.push((Arc::clone(&client.socket), bytes));
        Sent::default()
    }

    /// The driver asks the loop for the earliest wake-up ([`FlowLoop::next_wake`]).
    fn set_wake(&mut self, _flow: u32, _at: Option<Instant>) {}
}

impl Sockets {
    /// Sends what a socket could not take at once, in order.
    async fn flush(&mut self) {
        for (socket, bytes) in std::mem::take(&mut self.backlog) {
            let _ = socket.send(&bytes).await;
        }
    }
}

/// Runs one replication in real time on loopback (call inside a tokio runtime with timers and
/// I/O enabled).
pub async fn run_replication(spec: &RunSpec) -> Result<TestbedRun, TestbedError> {
    let clock = Clock::start();
    let Endpoints { client, server, request } = Endpoints::new(&spec.coap, &spec.workload, &spec.algorithm)?;
    // Server.
    let server_ep = Endpoint::new(server, stream_rng(spec.seed, spec.replication, Stream::Server(0).id()))?;
    let server_socket = UdpSocket::bind("127.0.0.1:0").await?;
    let server_addr = server_socket.local_addr()?;
    // The `udp` runtime drives it; the endpoint's `auto_response` answers every request.
    let (server, _) = crate::runtime::spawn(server_socket, server_ep, clock, crate::runtime::TaskOptions::default());
    // Emulator.
    let mut ec = EmulatorConfig::new(SocketAddr::from(([127, 0, 0, 1], 0)), server_addr, spec.network.clone());
    ec.seed = spec.seed;
    ec.replication = spec.replication;
    ec.header_bytes = spec.coap.ip_udp_header_bytes;
    ec.keep_log = true;
    ec.pcap.clone_from(&spec.pcap);
    let emulator = Emulator::bind(ec, clock).await?;
    let relay = emulator.local_addr()?;
    let (emu_stop, emu_stopped) = oneshot::channel::<()>();
    let emu_task = tokio::spawn(emulator.run(
        async {
            let _ = emu_stopped.await;
        },
        false,
    ));
    // Flows.
    let prototype = Endpoint::new(client, stream_rng(spec.seed, spec.replication, Stream::Client(0).id()))?;
    // A block-wise transfer asks for one block per exchange, as in the simulator.
    let plan = BlockPlan::of(&spec.coap)?;
    let mut workload = Workload::new(spec.workload, stream_rng(spec.seed, spec.replication, Stream::Workload(0).id()))
        .with_blocks(plan);
    let n = spec.workload.flows;
    let mut starts = Vec::with_capacity(n as usize);
    workload.each_start(|f, at| starts.push((at, f)));
    starts.sort_unstable();
    let long_lived = workload.long_lived();
    let end = workload.end();
    let limit = Instant::ZERO.saturating_add(spec.workload.time_limit);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut flows = FlowLoop::new(workload, Recorder::new(n, long_lived), request);
    let mut host = Sockets {
        clock,
        relay,
        prototype,
        seed: spec.seed,
        replication: spec.replication,
        tx,
        events: 0,
        client_addresses: HashMap::new(),
        backlog: Vec::new(),
    };
    let mut next_start = 0;
    loop {
        let now = clock.now();
        if end.is_some_and(|e| now >= e) || now >= limit {
            break;
        }
        if next_start == starts.len() && flows.all_finished() {
            // Every flow has finished; let the last ACKs settle in the log.
            break;
        }
        let wake = flows
            .next_wake()
            .into_iter()
            .chain(starts.get(next_start).map(|(at, _)| *at))
            .chain(end)
            .min()
            .unwrap_or(limit)
            .min(limit);
        tokio::select! {
            Some((f, incarnation, bytes)) = rx.recv() => {
                host.events += 1;
                flows.handle_datagram(&mut host, f, incarnation, relay, &bytes)?;
            }
            () = tokio::time::sleep_until(clock.deadline(wake)) => {
                let now = clock.now();
                while let Some(&(at, f)) = starts.get(next_start) {
                    if at > now {
                        break;
                    }
                    next_start += 1;
                    host.events += 1;
                    flows.start(&mut host, f)?;
                }
                for f in 0..n {
                    if flows.wake_at(f).is_some_and(|w| w <= now) {
                        host.events += 1;
                        flows.handle_timeout(&mut host, f)?;
                    }
                }
            }
        }
        host.flush().await;
    }
    let finished = clock.now();
    // Dropping the clients stops their readers.
    let (workload, mut recorder) = flows.into_parts();
    let _ = emu_stop.send(());
    let report = emu_task.await??;
    let _ = server.stop().await;
    // What only the packet log tells: request copies the uplink accepted or dropped at once,
    // and unnecessary retransmissions per flow.
    for r in &report.log {
        if r.direction == Direction::Uplink && is_con_request(&r.datagram) {
            recorder.offered(r.outcome.is_ok());
        }
    }
    let mut unnecessary = vec![0_u32; n as usize];
    for (addr, count) in unnecessary_by_client(&report.log) {
        if let Some(&f) = host.client_addresses.get(&addr) {
            unnecessary[f as usize] += count;
        }
    }
    let links = report.links.as_deref().map(|(u, d)| (u, d));
    let result = recorder.finish(
        &workload,
        |f| unnecessary.get(f as usize).copied().unwrap_or(0),
        links,
        RunEnd { now: finished, end, events: host.events },
    );
    Ok(TestbedRun { result, emulator: report, wall: finished.saturating_duration_since(Instant::ZERO) })
}

/// The CoAP type (0 CON … 3 RST) and code of a datagram, if it has a CoAP header.
fn type_and_code(d: &[u8]) -> Option<(u8, u8)> {
    (d.len() >= 4 && d[0] >> 6 == 1).then(|| ((d[0] >> 4) & 3, d[1]))
}

/// The Message ID of a datagram with a CoAP header.
fn mid(d: &[u8]) -> u16 {
    u16::from_be_bytes([d[2], d[3]])
}

/// Whether a datagram is a confirmable request (type CON, code class 0, not Empty).
pub fn is_con_request(d: &[u8]) -> bool {
    matches!(type_and_code(d), Some((0, code)) if code != 0 && code >> 5 == 0)
}

/// Whether a datagram is a piggybacked response (type ACK, not Empty).
fn is_piggybacked_response(d: &[u8]) -> bool {
    matches!(type_and_code(d), Some((2, code)) if code != 0)
}

/// Unnecessary retransmissions per client address, from the emulator's packet log, by the
/// rule of the [module documentation](self#unnecessary-retransmissions-from-the-emulators-packet-log).
pub fn unnecessary_by_client(log: &[crate::emulator::PacketRecord]) -> HashMap<SocketAddr, u32> {
    // Per (client, Message ID): the copies' and the ACKs' delivery, in the emulator's order.
    let mut copies: HashMap<(SocketAddr, u16), Vec<bool>> = HashMap::new();
    let mut acks: HashMap<(SocketAddr, u16), Vec<bool>> = HashMap::new();
    for r in log {
        let key = |d: &[u8]| (r.client, mid(d));
        match r.direction {
            Direction::Uplink if is_con_request(&r.datagram) => {
                copies.entry(key(&r.datagram)).or_default().push(r.outcome.is_ok());
            }
            Direction::Downlink if is_piggybacked_response(&r.datagram) => {
                acks.entry(key(&r.datagram)).or_default().push(r.outcome.is_ok());
            }
            _ => {}
        }
    }
    let mut out: HashMap<SocketAddr, u32> = HashMap::new();
    for (key, sent) in &copies {
        let answers = acks.get(key).map_or(&[][..], Vec::as_slice);
        // The k-th ACK answers the k-th delivered copy (FIFO link, one answer per copy).
        let first_answered = sent
            .iter()
            .enumerate()
            .filter(|(_, delivered)| **delivered)
            .zip(answers)
            .find(|(_, ack_delivered)| **ack_delivered)
            .map(|((copy, _), _)| copy);
        if let Some(j) = first_answered {
            *out.entry(key.0).or_default() += (sent.len() - 1 - j) as u32;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulator::PacketRecord;
    use coapcc_driver::link::DropReason;

    fn rec(direction: Direction, bytes: [u8; 4], delivered: bool) -> PacketRecord {
        PacketRecord {
            direction,
            client: "127.0.0.1:40000".parse().unwrap(),
            offered: Instant::ZERO,
            outcome: if delivered { Ok(Instant::ZERO) } else { Err(DropReason::Error) },
            datagram: bytes.to_vec(),
        }
    }

    const CON: [u8; 4] = [0x40, 0x01, 0x00, 0x07];
    const ACK: [u8; 4] = [0x60, 0x45, 0x00, 0x07];

    #[test]
    fn copies_after_the_first_copy_whose_ack_arrived_are_unnecessary() {
        // Copy 0 reaches the server but its ACK is lost; copy 1 is dropped; copy 2 is answered;
        // copies 3 and 4 were sent before that ACK arrived: two unnecessary.
        let log = [
            rec(Direction::Uplink, CON, true),
            rec(Direction::Downlink, ACK, false),
            rec(Direction::Uplink, CON, false),
            rec(Direction::Uplink, CON, true),
            rec(Direction::Uplink, CON, true),
            rec(Direction::Uplink, CON, true),
            rec(Direction::Downlink, ACK, true),
            rec(Direction::Downlink, ACK, true),
            rec(Direction::Downlink, ACK, true),
        ];
        let u = unnecessary_by_client(&log);
        assert_eq!(u.values().copied().collect::<Vec<_>>(), [2]);
    }

    #[test]
    fn an_exchange_never_answered_has_no_unnecessary_copy() {
        let log = [rec(Direction::Uplink, CON, true), rec(Direction::Uplink, CON, false)];
        assert!(unnecessary_by_client(&log).values().all(|&c| c == 0));
        assert!(is_con_request(&CON) && !is_con_request(&ACK));
    }
}
