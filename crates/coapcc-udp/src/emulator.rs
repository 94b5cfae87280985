//! The link emulator: a UDP relay that applies, in real time, the simulator's own link stages
//! ([`coapcc_driver::link::Pipeline`]) in each direction.
//!
//! ```text
//! clients ──▶ listen socket ─▶ [uplink pipeline] ─▶ one upstream socket per client ──▶ server
//! clients ◀── listen socket ◀─ [downlink pipeline] ◀─ one upstream socket per client ◀── server
//! ```
//!
//! A datagram is offered to its direction's pipeline at the wall-clock instant it is taken from
//! its socket ([`Clock::now`]), with its size plus `header_bytes` (28: IPv4 + UDP, which count
//! against rates and buffers as in the simulator); the pipeline answers with the instant it
//! leaves the link or why it was dropped, and the relay sends it at that instant. There is one
//! pipeline per direction shared by every client (one FIFO per direction, as `coapcc sim`'s
//! `[network]`), and one upstream socket per client address so flows stay apart at the server.
//! The generators are those of replication 0 of a scenario seeded with `seed`
//! ([`Stream::LinkUp`]`(0)` and [`Stream::LinkDown`]`(0)`).
//!
//! ## Timing
//!
//! tokio's timers have a resolution of 1 ms. To send a packet at its computed departure the
//! relay sleeps until `spin` before it and then polls the clock, yielding to the other tasks,
//! until the instant has come. The timing error of every forwarded packet (send instant minus
//! model departure, taken just before the `send_to` call) is kept per direction and reported as
//! p50 / p99 / max. With `spin` zero the relay only uses the timer (errors of about 1 ms,
//! less CPU).
//!
//! ## Bounds
//!
//! At most [`MAX_CLIENTS`] client addresses get an upstream socket; datagrams of further
//! clients are counted as refused and dropped. Held packets are bounded by the link model
//! (the byte buffers); a link without a buffer holds at most what arrives within its delay.
//! At most [`MAX_TIMING_SAMPLES`] timing errors are kept per direction.

use std::collections::{BinaryHeap, HashMap};
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use coapcc_core::{Duration, Instant};
use coapcc_driver::link::{DropReason, Pipeline, PipelineTotals};
use coapcc_driver::pcap::PcapWriter;
use coapcc_driver::rng::Stream;
use coapcc_driver::scenario::NetworkConfig;
use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use crate::clock::Clock;

/// At most this many client addresses get an upstream socket.
pub const MAX_CLIENTS: usize = 4_096;
/// At most this many timing errors are kept per direction (the first ones).
pub const MAX_TIMING_SAMPLES: usize = 1 << 22;
/// The largest datagram relayed, bytes (larger ones are truncated by the socket).
pub const MAX_DATAGRAM_BYTES: usize = 65_535;
/// The IPv4 + UDP header bytes counted with every datagram by default.
pub const DEFAULT_HEADER_BYTES: u32 = 28;
/// The default spin window before a departure.
pub const DEFAULT_SPIN: Duration = Duration::from_millis(2);

/// What to emulate and where.
#[derive(Clone, Debug)]
pub struct EmulatorConfig {
    /// The address clients send to.
    pub listen: SocketAddr,
    /// The server the datagrams are relayed to.
    pub to: SocketAddr,
    /// The link (a scenario's `[network]`).
    pub network: NetworkConfig,
    /// Seed of the link's generators (with `replication`, as in a scenario with this seed).
    pub seed: u64,
    /// Replication whose link streams are used (0 for `coapcc emulate`).
    pub replication: u32,
    /// Bytes added to every datagram's size when offered to a pipeline (IPv4 + UDP: 28).
    pub header_bytes: u32,
    /// How long before a departure the relay stops sleeping and polls the clock.
    pub spin: Duration,
    /// Where to write a pcap of both sides (see [`coapcc_driver::pcap`]), if anywhere.
    pub pcap: Option<PathBuf>,
    /// Whether to keep a [`PacketRecord`] of every datagram (for the testbed).
    pub keep_log: bool,
}

impl EmulatorConfig {
    /// A relay from `listen` to `to` over `network`, seed 1, default header bytes and spin,
    /// no pcap and no log.
    pub fn new(listen: SocketAddr, to: SocketAddr, network: NetworkConfig) -> Self {
        EmulatorConfig {
            listen,
            to,
            network,
            seed: 1,
            replication: 0,
            header_bytes: DEFAULT_HEADER_BYTES,
            spin: DEFAULT_SPIN,
            pcap: None,
            keep_log: false,
        }
    }
}

/// A link direction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Client → server.
    Uplink,
    /// Server → client.
    Downlink,
}

impl Direction {
    /// The name used in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Direction::Uplink => "uplink",
            Direction::Downlink => "downlink",
        }
    }

    const fn index(self) -> usize {
        match self {
            Direction::Uplink => 0,
            Direction::Downlink => 1,
        }
    }
}

/// One datagram that reached the emulator, for the testbed's analysis.
#[derive(Clone, Debug)]
pub struct PacketRecord {
    /// Its direction.
    pub direction: Direction,
    /// The client address of its flow.
    pub client: SocketAddr,
    /// When it was offered to the link.
    pub offered: Instant,
    /// When the model released it (the departure), or why it was dropped.
    pub outcome: Result<Instant, DropReason>,
    /// The datagram.
    pub datagram: Vec<u8>,
}

/// Timing errors of forwarded packets (actual send minus model departure), nanoseconds.
#[derive(Clone, Debug, Default)]
pub struct TimingErrors {
    samples_ns: Vec<u64>,
    /// Packets that were sent before their departure (cannot happen with a monotonic clock;
    /// counted, not kept).
    pub early: u64,
}

impl TimingErrors {
    fn push(&mut self, actual: Instant, model: Instant) {
        if actual < model {
            self.early += 1;
        } else if self.samples_ns.len() < MAX_TIMING_SAMPLES {
            self.samples_ns.push(actual.as_nanos() - model.as_nanos());
        }
    }

    /// Number of samples kept.
    pub fn len(&self) -> usize {
        self.samples_ns.len()
    }

    /// Whether no sample was kept.
    pub fn is_empty(&self) -> bool {
        self.samples_ns.is_empty()
    }

    /// The `q`-quantile (nearest rank, `q` in [0, 1]), if there is a sample.
    pub fn quantile(&self, q: f64) -> Option<Duration> {
        let mut v = self.samples_ns.clone();
        v.sort_unstable();
        let n = v.len();
        if n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * n as f64).ceil() as usize).clamp(1, n);
        Some(Duration::from_nanos(v[rank - 1]))
    }
}

/// What one direction did.
#[derive(Clone, Debug, Default)]
pub struct DirectionReport {
    /// The pipeline's counters: offered, delivered (= accepted by the model), drops by reason.
    pub totals: PipelineTotals,
    /// Datagrams actually sent (the model's deliveries that were due before the stop, and
    /// whose `send_to` succeeded).
    pub forwarded: u64,
    /// Bytes of those datagrams (without headers).
    pub forwarded_bytes: u64,
    /// `send_to` failures.
    pub send_errors: u64,
    /// Datagrams still held by the model when the emulator stopped.
    pub held_at_stop: u64,
    /// Timing errors of the forwarded datagrams.
    pub timing: TimingErrors,
}

/// What the emulator did: per direction, plus the clients seen and refused.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// Wall time from start to the report.
    pub elapsed: Duration,
    /// Uplink and downlink.
    pub directions: [DirectionReport; 2],
    /// Client addresses that got an upstream socket.
    pub clients: u64,
    /// Datagrams from clients beyond [`MAX_CLIENTS`], dropped.
    pub refused: u64,
    /// Every datagram, if [`EmulatorConfig::keep_log`].
    pub log: Vec<PacketRecord>,
    /// The (uplink, downlink) pipelines as they ended (in the final report only), for link
    /// figures such as utilisation.
    pub links: Option<Box<(Pipeline, Pipeline)>>,
}

impl Report {
    /// The report of `direction`.
    pub fn direction(&self, direction: Direction) -> &DirectionReport {
        &self.directions[direction.index()]
    }
}

fn us(d: Option<Duration>) -> String {
    d.map_or_else(|| "-".into(), |d| format!("{:.0}", d.as_secs_f64() * 1e6))
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "emulator: {:.1} s, {} client(s), {} datagram(s) of refused clients",
            self.elapsed.as_secs_f64(),
            self.clients,
            self.refused
        )?;
        writeln!(
            f,
            "{:<9} {:>9} {:>9} {:>11} {:>11} {:>8} {:>8} {:>8} {:>6} {:>7} {:>7} {:>7}",
            "direction",
            "offered",
            "forwarded",
            "offered_B",
            "forwarded_B",
            "buffer",
            "error",
            "no_token",
            "held",
            "p50_us",
            "p99_us",
            "max_us"
        )?;
        for (dir, d) in [Direction::Uplink, Direction::Downlink].iter().zip(&self.directions) {
            let t = &d.totals;
            writeln!(
                f,
                "{:<9} {:>9} {:>9} {:>11} {:>11} {:>8} {:>8} {:>8} {:>6} {:>7} {:>7} {:>7}",
                dir.name(),
                t.offered.packets,
                d.forwarded,
                t.offered.bytes,
                d.forwarded_bytes,
                t.dropped.buffer.packets,
                t.dropped.error.packets,
                t.dropped.no_token.packets,
                d.held_at_stop,
                us(d.timing.quantile(0.5)),
                us(d.timing.quantile(0.99)),
                us(d.timing.quantile(1.0)),
            )?;
        }
        f.write_str("(offered_B counts the IP/UDP header bytes of every datagram; forwarded_B does not)")
    }
}

/// A datagram held until its departure.
#[derive(Debug, PartialEq, Eq)]
struct Held {
    depart: Instant,
    seq: u64,
    direction: Direction,
    client: SocketAddr,
    data: Vec<u8>,
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

/// A client's upstream socket and the task reading it.
struct Upstream {
    socket: Arc<UdpSocket>,
    reader: tokio::task::JoinHandle<()>,
}

/// A bound emulator, ready to run.
pub struct Emulator {
    config: EmulatorConfig,
    listen: UdpSocket,
    pipelines: [Pipeline; 2],
    clock: Clock,
    unix_offset: std::time::Duration,
}

impl fmt::Debug for Emulator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Emulator").field("listen", &self.listen.local_addr().ok()).finish_non_exhaustive()
    }
}

/// Why the emulator could not start.
#[derive(Debug)]
pub enum EmulatorError {
    /// The link configuration is invalid (names the key).
    Config(String),
    /// A socket or file operation failed.
    Io(io::Error),
}

impl fmt::Display for EmulatorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmulatorError::Config(m) => f.write_str(m),
            EmulatorError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for EmulatorError {}

impl From<io::Error> for EmulatorError {
    fn from(e: io::Error) -> Self {
        EmulatorError::Io(e)
    }
}

impl Emulator {
    /// Checks the link and binds the listening socket (port 0 picks one: see
    /// [`Emulator::local_addr`]).
    pub async fn bind(config: EmulatorConfig, clock: Clock) -> Result<Emulator, EmulatorError> {
        let (up, down) = config.network.pipelines();
        let bad = |dir: &str, e: coapcc_core::config::ConfigError| {
            EmulatorError::Config(format!("{dir}: key `{}`: {}", e.key, e.problem))
        };
        let up = Pipeline::new(&up, config.seed, config.replication, Stream::LinkUp(0).id())
            .map_err(|e| bad("uplink", e))?;
        let down = Pipeline::new(&down, config.seed, config.replication, Stream::LinkDown(0).id())
            .map_err(|e| bad("downlink", e))?;
        let listen = UdpSocket::bind(config.listen).await?;
        let unix_offset = crate::clock::unix_now().saturating_sub(clock.now().since_epoch());
        Ok(Emulator { config, listen, pipelines: [up, down], clock, unix_offset })
    }

    /// The address clients send to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listen.local_addr()
    }

    /// Relays until `stop` completes (and, with `signals`, until Ctrl-C), printing the report
    /// to standard error on SIGUSR1 when `signals` is set; returns the final report.
    pub async fn run(
        mut self,
        stop: impl std::future::Future<Output = ()>,
        signals: bool,
    ) -> Result<Report, EmulatorError> {
        let clock = self.clock;
        let started = clock.now();
        let listen_addr = self.listen.local_addr()?;
        let mut pcap = match &self.config.pcap {
            Some(p) => Some(PcapWriter::new(io::BufWriter::new(std::fs::File::create(p)?))?),
            None => None,
        };
        let mut report = Report::default();
        let mut upstreams: HashMap<SocketAddr, Upstream> = HashMap::new();
        let mut heap: BinaryHeap<Held> = BinaryHeap::new();
        let mut seq = 0_u64;
        let (tx, mut rx) = mpsc::unbounded_channel::<(SocketAddr, Vec<u8>)>();
        let mut buf = vec![0_u8; MAX_DATAGRAM_BYTES];
        let mut usr1 = if signals {
            Some(tokio::signal::unix::signal(tokio::signal::unix::SignalKind::user_defined1())?)
        } else {
            None
        };
        let ctrl_c = async {
            if signals {
                let _ = tokio::signal::ctrl_c().await;
            } else {
                std::future::pending::<()>().await;
            }
        };
        tokio::pin!(stop);
        tokio::pin!(ctrl_c);
        let unix_offset = self.unix_offset;
        let stamp = |at: Instant| unix_offset + at.since_epoch();
        loop {
            let wake = heap.peek().map(|h| clock.deadline(h.depart.saturating_sub(self.config.spin)));
            tokio::select! {
                biased;
                () = &mut stop => break,
                () = &mut ctrl_c => break,
                Some(()) = async { match usr1.as_mut() { Some(s) => s.recv().await, None => std::future::pending().await } } => {
                    let snapshot = self.snapshot(&report, &heap, started, upstreams.len());
                    eprintln!("{snapshot}");
                }
                () = async { match wake { Some(w) => tokio::time::sleep_until(w).await, None => std::future::pending().await } } => {
                    // Release everything due within the spin window, each at its departure.
                    while let Some(top) = heap.peek() {
                        let now = clock.now();
                        if top.depart.saturating_sub(self.config.spin) > now {
                            break;
                        }
                        while clock.now() < top.depart {
                            tokio::task::yield_now().await;
                        }
                        let Some(h) = heap.pop() else { break };
                        let d = &mut report.directions[h.direction.index()];
                        let (socket, from, to) = match h.direction {
                            Direction::Uplink => match upstreams.get(&h.client) {
                                Some(u) => (&*u.socket, u.socket.local_addr()?, self.config.to),
                                None => continue,
                            },
                            Direction::Downlink => (&self.listen, listen_addr, h.client),
                        };
                        let at = clock.now();
                        let sent = match h.direction {
                            Direction::Uplink => socket.send(&h.data).await,
                            Direction::Downlink => socket.send_to(&h.data, to).await,
                        };
                        d.timing.push(at, h.depart);
                        match sent {
                            Ok(_) => {
                                d.forwarded += 1;
                                d.forwarded_bytes += h.data.len() as u64;
                                if let Some(w) = pcap.as_mut() {
                                    w.write_udp(stamp(at), from, to, &h.data)?;
                                }
                            }
                            Err(_) => d.send_errors += 1,
                        }
                    }
                }
                r = self.listen.recv_from(&mut buf) => {
                    let Ok((n, client)) = r else { continue };
                    let now = clock.now();
                    let data = buf[..n].to_vec();
                    if let Some(w) = pcap.as_mut() {
                        w.write_udp(stamp(now), client, listen_addr, &data)?;
                    }
                    if !upstreams.contains_key(&client) {
                        if upstreams.len() >= MAX_CLIENTS {
                            report.refused += 1;
                            continue;
                        }
                        let u = self.upstream(client, tx.clone()).await?;
                        upstreams.insert(client, u);
                    }
                    self.offer(Direction::Uplink, client, now, data, &mut heap, &mut seq, &mut report);
                }
                Some((client, data)) = rx.recv() => {
                    let now = clock.now();
                    if let (Some(w), Some(u)) = (pcap.as_mut(), upstreams.get(&client)) {
                        w.write_udp(stamp(now), self.config.to, u.socket.local_addr()?, &data)?;
                    }
                    self.offer(Direction::Downlink, client, now, data, &mut heap, &mut seq, &mut report);
                }
            }
        }
        for u in upstreams.values() {
            u.reader.abort();
        }
        if let Some(w) = pcap {
            w.into_inner()?;
        }
        let mut final_report = self.snapshot(&report, &heap, started, upstreams.len());
        final_report.log = report.log;
        let [up, down] = self.pipelines;
        final_report.links = Some(Box::new((up, down)));
        Ok(final_report)
    }

    /// The report so far (without the log).
    fn snapshot(&self, report: &Report, heap: &BinaryHeap<Held>, started: Instant, clients: usize) -> Report {
        let mut r = Report {
            elapsed: self.clock.now().saturating_duration_since(started),
            directions: report.directions.clone(),
            clients: clients as u64,
            refused: report.refused,
            log: Vec::new(),
            links: None,
        };
        for (i, d) in r.directions.iter_mut().enumerate() {
            d.totals = self.pipelines[i].totals();
            d.held_at_stop = heap.iter().filter(|h| h.direction.index() == i).count() as u64;
        }
        r
    }

    #[allow(clippy::too_many_arguments)]
    fn offer(
        &mut self,
        direction: Direction,
        client: SocketAddr,
        now: Instant,
        data: Vec<u8>,
        heap: &mut BinaryHeap<Held>,
        seq: &mut u64,
        report: &mut Report,
    ) {
        let bytes = u32::try_from(data.len()).unwrap_or(u32::MAX).saturating_add(self.config.header_bytes);
        let outcome = self.pipelines[direction.index()].offer(now, bytes);
        if self.config.keep_log {
            report.log.push(PacketRecord { direction, client, offered: now, outcome, datagram: data.clone() });
        }
        if let Ok(depart) = outcome {
            *seq += 1;
            heap.push(Held { depart, seq: *seq, direction, client, data });
        }
    }

    /// Opens the upstream socket of `client` (same address family as the server, connected to
    /// it) and starts the task that passes what the server sends back to the main loop.
    async fn upstream(
        &self,
        client: SocketAddr,
        tx: mpsc::UnboundedSender<(SocketAddr, Vec<u8>)>,
    ) -> io::Result<Upstream> {
        let any: SocketAddr = if self.config.to.is_ipv4() { "0.0.0.0:0" } else { "[::]:0" }
            .parse()
            .map_err(|_| io::Error::other("unspecified address"))?;
        let socket = UdpSocket::bind(any).await?;
        socket.connect(self.config.to).await?;
        let socket = Arc::new(socket);
        let reader_socket = Arc::clone(&socket);
        let reader = tokio::spawn(async move {
            let mut buf = vec![0_u8; MAX_DATAGRAM_BYTES];
            loop {
                match reader_socket.recv(&mut buf).await {
                    Ok(n) => {
                        if tx.send((client, buf[..n].to_vec())).is_err() {
                            return;
                        }
                    }
                    // ICMP port unreachable surfaces as an error on a connected socket: keep reading.
                    Err(_) => tokio::task::yield_now().await,
                }
            }
        });
        Ok(Upstream { socket, reader })
    }
}

/// Runs an emulator on a runtime of its own until Ctrl-C, printing the report on SIGUSR1 and
/// at the end to standard error; `on_ready` is called with the listening address once bound.
pub fn run_until_interrupted(
    config: EmulatorConfig,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<Report, EmulatorError> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let emulator = Emulator::bind(config, Clock::start()).await?;
        on_ready(emulator.local_addr()?);
        emulator.run(std::future::pending(), true).await
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank() {
        let mut t = TimingErrors::default();
        for i in 1..=100 {
            t.push(Instant::from_nanos(i * 1_000), Instant::from_nanos(0));
        }
        assert_eq!(t.quantile(0.5), Some(Duration::from_micros(50)));
        assert_eq!(t.quantile(0.99), Some(Duration::from_micros(99)));
        assert_eq!(t.quantile(1.0), Some(Duration::from_micros(100)));
        assert_eq!(TimingErrors::default().quantile(0.5), None);
    }
}
