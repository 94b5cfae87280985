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
//! driven by a small private driver here (one task for all flows, one reader task per socket)
//! that calls the workload, the endpoint and the recorder in the same order, at the same
//! points, as the simulator's engine: a completed exchange lets the workload issue the next
//! request before anything else happens, and every copy is recorded from
//! `Transmit::origin` as it is sent. (The runtime's per-request `Outcome` futures and its
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

use coapcc_core::{AnyConfig, Duration, Instant};
use coapcc_driver::endpoints::Endpoints;
use coapcc_driver::metrics::RunResult;
use coapcc_driver::recorder::{Recorder, RunEnd};
use coapcc_driver::rng::{SimRng, Stream, stream_rng, sub_stream};
use coapcc_driver::scenario::{CoapConfig, NetworkConfig, WorkloadConfig};
use coapcc_driver::workload::{Next, Workload};
use coapcc_proto::{Endpoint, Event, Origin};
use tokio::net::UdpSocket;
use tokio::sync::{mpsc, oneshot};

use crate::clock::Clock;
use crate::emulator::{Direction, Emulator, EmulatorConfig, Report};

/// What one testbed replication produced.
#[derive(Debug)]
pub struct TestbedRun {
    /// The same record `coapcc sim` produces for a replication.
    pub result: RunResult,
    /// The emulator's counters and timing errors.
    pub emulator: Report,
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

/// A flow's current client: its endpoint, socket and reader task.
struct Client {
    ep: Ep,
    socket: Arc<UdpSocket>,
    reader: tokio::task::JoinHandle<()>,
    wake_at: Option<Instant>,
}

/// The flows: the workload, the recorder and one client per flow (a private driver of
/// [`coapcc_proto::Endpoint`], as the simulator's engine drives it).
struct Flows {
    clock: Clock,
    relay: SocketAddr,
    workload: Workload,
    recorder: Recorder,
    clients: Vec<Option<Client>>,
    done: Vec<bool>,
    prototype: Ep,
    template: coapcc_proto::Message,
    seed: u64,
    replication: u32,
    tx: mpsc::UnboundedSender<(u32, u32, Vec<u8>)>,
    events: u64,
    /// Every client socket address a flow used, and the flow.
    client_addresses: HashMap<SocketAddr, u32>,
}

impl Flows {
    async fn new_client(&mut self, f: u32, incarnation: u32) -> std::io::Result<Client> {
        let stream = sub_stream(Stream::Client(f).id(), u64::from(incarnation));
        let ep = self.prototype.renewed(stream_rng(self.seed, self.replication, stream));
        let socket = Arc::new(UdpSocket::bind("127.0.0.1:0").await?);
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
        socket.connect(self.relay).await?;
        Ok(Client { ep, socket, reader, wake_at: None })
    }

    async fn start(&mut self, f: u32) -> std::io::Result<()> {
        let c = self.new_client(f, 0).await?;
        self.clients[f as usize] = Some(c);
        self.workload.start(f, self.clock.now());
        self.pump(f).await?;
        self.after(f).await
    }

    async fn pump(&mut self, f: u32) -> std::io::Result<()> {
        loop {
            match self.workload.next(f) {
                Next::Request { .. } => {
                    let now = self.clock.now();
                    let relay = self.relay;
                    let Some(c) = self.clients[f as usize].as_mut() else { return Ok(()) };
                    c.ep.request(now, relay, self.template.clone());
                }
                Next::Replace { incarnation } => {
                    let c = self.new_client(f, incarnation).await?;
                    if let Some(old) = self.clients[f as usize].replace(c) {
                        old.reader.abort();
                    }
                }
                Next::Wait => return Ok(()),
                Next::Done => {
                    self.done[f as usize] = true;
                    return Ok(());
                }
            }
        }
    }

    async fn after(&mut self, f: u32) -> std::io::Result<()> {
        loop {
            let mut progressed = false;
            while let Some(t) = self.clients[f as usize].as_mut().and_then(|c| c.ep.poll_transmit()) {
                progressed = true;
                if let Origin::Request { copy, .. } = t.origin {
                    self.recorder.transmitted(f, copy, self.clock.now());
                }
                if let Some(c) = self.clients[f as usize].as_ref() {
                    let _ = c.socket.send(&coapcc_proto::codec::encode(&t.msg)).await;
                }
            }
            while let Some(e) = self.clients[f as usize].as_mut().and_then(|c| c.ep.poll_event()) {
                progressed = true;
                let now = self.clock.now();
                match e {
                    Event::TimerExpired { timer, .. } => self.recorder.timer_expired(f, timer),
                    Event::Completed { rtt, .. } => {
                        self.recorder.completed(f, rtt, now);
                        self.workload.completed(f, now);
                        Box::pin(self.pump(f)).await?;
                    }
                    Event::Failed { .. } => {
                        self.workload.failed(f, now);
                        Box::pin(self.pump(f)).await?;
                    }
                    _ => {}
                }
            }
            if !progressed {
                break;
            }
        }
        if let Some(c) = self.clients[f as usize].as_mut() {
            c.wake_at = c.ep.poll_timeout();
        }
        Ok(())
    }
}

/// Runs one replication in real time on loopback (call inside a tokio runtime with timers and
/// I/O enabled).
pub async fn run_replication(spec: &RunSpec) -> Result<TestbedRun, String> {
    let io = |e: std::io::Error| e.to_string();
    let clock = Clock::start();
    let Endpoints { client, server, request } =
        Endpoints::new(&spec.coap, &spec.workload, &spec.algorithm).map_err(|e| e.to_string())?;
    // Server.
    let server_ep = Endpoint::new(server, stream_rng(spec.seed, spec.replication, Stream::Server(0).id()))
        .map_err(|e| e.to_string())?;
    let server_socket = UdpSocket::bind("127.0.0.1:0").await.map_err(io)?;
    let server_addr = server_socket.local_addr().map_err(io)?;
    // The `udp` runtime drives it; the endpoint's `auto_response` answers every request.
    let (server, _) = crate::runtime::spawn(server_socket, server_ep, clock, crate::runtime::Options::default());
    // Emulator.
    let mut ec = EmulatorConfig::new("127.0.0.1:0".parse().map_err(|_| "address")?, server_addr, spec.network.clone());
    ec.seed = spec.seed;
    ec.replication = spec.replication;
    ec.header_bytes = spec.coap.ip_udp_header_bytes;
    ec.keep_log = true;
    ec.pcap.clone_from(&spec.pcap);
    let emulator = Emulator::bind(ec, clock).await.map_err(|e| e.to_string())?;
    let relay = emulator.local_addr().map_err(io)?;
    let (emu_stop, emu_stopped) = oneshot::channel::<()>();
    let emu_task = tokio::spawn(emulator.run(
        async {
            let _ = emu_stopped.await;
        },
        false,
    ));
    // Flows.
    let prototype = Endpoint::new(client, stream_rng(spec.seed, spec.replication, Stream::Client(0).id()))
        .map_err(|e| e.to_string())?;
    let mut workload = Workload::new(spec.workload, stream_rng(spec.seed, spec.replication, Stream::Workload(0).id()));
    let n = spec.workload.flows;
    let mut starts = Vec::with_capacity(n as usize);
    workload.each_start(|f, at| starts.push((at, f)));
    starts.sort_unstable();
    let long_lived = workload.long_lived();
    let end = workload.end();
    let limit = Instant::ZERO.saturating_add(spec.workload.time_limit);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut flows = Flows {
        clock,
        relay,
        recorder: Recorder::new(n, long_lived),
        workload,
        clients: (0..n).map(|_| None).collect(),
        done: vec![false; n as usize],
        prototype,
        template: request,
        seed: spec.seed,
        replication: spec.replication,
        tx,
        events: 0,
        client_addresses: HashMap::new(),
    };
    let mut next_start = 0;
    loop {
        let now = clock.now();
        if end.is_some_and(|e| now >= e) || now >= limit {
            break;
        }
        if next_start == starts.len() && flows.done.iter().all(|d| *d) {
            // Every flow has finished; let the last ACKs settle in the log.
            break;
        }
        let wake = flows
            .clients
            .iter()
            .filter_map(|c| c.as_ref().and_then(|c| c.wake_at))
            .chain(starts.get(next_start).map(|(at, _)| *at))
            .chain(end)
            .min()
            .unwrap_or(limit)
            .min(limit);
        tokio::select! {
            Some((f, incarnation, bytes)) = rx.recv() => {
                flows.events += 1;
                let now = clock.now();
                let current = flows.workload.flow(f).map(|p| p.incarnation);
                if current == Some(incarnation) {
                    if let Some(c) = flows.clients[f as usize].as_mut() {
                        c.ep.handle_datagram(now, relay, &bytes);
                    }
                    flows.after(f).await.map_err(io)?;
                }
            }
            () = tokio::time::sleep_until(clock.deadline(wake)) => {
                let now = clock.now();
                while let Some(&(at, f)) = starts.get(next_start) {
                    if at > now {
                        break;
                    }
                    next_start += 1;
                    flows.events += 1;
                    flows.start(f).await.map_err(io)?;
                }
                for f in 0..n {
                    let due = flows.clients[f as usize].as_ref().and_then(|c| c.wake_at).is_some_and(|w| w <= now);
                    if due {
                        flows.events += 1;
                        if let Some(c) = flows.clients[f as usize].as_mut() {
                            c.wake_at = None;
                            c.ep.handle_timeout(now);
                        }
                        flows.after(f).await.map_err(io)?;
                    }
                }
            }
        }
    }
    let finished = clock.now();
    for c in flows.clients.iter().flatten() {
        c.reader.abort();
    }
    let _ = emu_stop.send(());
    let report = emu_task.await.map_err(|e| e.to_string())?.map_err(|e| e.to_string())?;
    let _ = server.stop().await;
    // What only the packet log tells: request copies the uplink accepted or dropped at once,
    // and unnecessary retransmissions per flow.
    let mut recorder = flows.recorder;
    for r in &report.log {
        if r.direction == Direction::Uplink && is_con_request(&r.datagram) {
            recorder.offered(r.outcome.is_ok());
        }
    }
    let mut unnecessary = vec![0_u32; n as usize];
    for (addr, count) in unnecessary_by_client(&report.log) {
        if let Some(&f) = flows.client_addresses.get(&addr) {
            unnecessary[f as usize] += count;
        }
    }
    let links = report.links.as_deref().map(|(u, d)| (u, d));
    let result = recorder.finish(
        &flows.workload,
        |f| unnecessary.get(f as usize).copied().unwrap_or(0),
        links,
        RunEnd { now: finished, end, events: flows.events },
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
