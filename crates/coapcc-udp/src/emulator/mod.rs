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
//! ([`Stream::LinkUp`](coapcc_driver::rng::Stream::LinkUp)`(0)` and
//! [`Stream::LinkDown`](coapcc_driver::rng::Stream::LinkDown)`(0)`).
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
//! At most [`EmulatorConfig::max_clients`] client addresses have an upstream socket at once
//! ([`MAX_CLIENTS`] by default): a new client beyond them takes the socket of the least
//! recently active one, and a client silent for [`EmulatorConfig::client_idle`]
//! ([`CLIENT_IDLE`] by default) loses its socket (`docs/real-networks.md`, "Bounds"). The
//! datagram path itself is [`relay::Relay`], sans-IO. Held packets are bounded by the link
//! model (the byte buffers); a link without a buffer holds at most what arrives within its
//! delay. At most [`MAX_TIMING_SAMPLES`] timing errors are kept per direction. An emulator
//! relaying to its own listening address is refused.

mod relay;

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use coapcc_core::{ConfigError, Duration, Instant};
use coapcc_driver::PcapWriter;
use coapcc_driver::link::{DropReason, Pipeline, PipelineTotals};
use coapcc_driver::scenario::NetworkConfig;
use tokio::net::UdpSocket;
use tokio::sync::mpsc;

use crate::clock::Clock;
pub use relay::{Admission, Held, Relay, RelayCounters};

/// By default at most this many client addresses have an upstream socket at once
/// ([`EmulatorConfig::max_clients`]).
pub const MAX_CLIENTS: usize = 4_096;
/// By default a client silent this long loses its upstream socket
/// ([`EmulatorConfig::client_idle`]): RFC 7252's EXCHANGE_LIFETIME, so no exchange outlives
/// its socket.
pub const CLIENT_IDLE: Duration = Duration::from_secs(247);
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
    /// Where to write a pcap of both sides (see [`coapcc_driver::PcapWriter`]), if anywhere;
    /// `-` is standard output. Every packet is flushed as it is written, so a reader
    /// (Wireshark, `tshark -r -`) follows the capture live.
    pub pcap: Option<PathBuf>,
    /// Whether to keep a [`PacketRecord`] of every datagram (for the testbed).
    pub keep_log: bool,
    /// At most this many clients have an upstream socket at once; a new one takes the
    /// socket of the least recently active one.
    pub max_clients: usize,
    /// A client silent (in both directions) this long loses its upstream socket.
    pub client_idle: Duration,
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
            max_clients: MAX_CLIENTS,
            client_idle: CLIENT_IDLE,
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

    pub(crate) const fn index(self) -> usize {
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
    /// Bytes of those datagrams (UDP payload, without headers; the report's `forwarded_B`
    /// adds [`EmulatorReport::header_bytes`] per datagram, as `offered_B`).
    pub forwarded_bytes: u64,
    /// `send_to` failures.
    pub send_errors: u64,
    /// Datagrams still held by the model when the emulator stopped.
    pub held_at_stop: u64,
    /// Timing errors of the forwarded datagrams.
    pub timing: TimingErrors,
}

/// What the emulator did: per direction, plus the clients seen, evicted, expired and refused.
#[derive(Clone, Debug, Default)]
pub struct EmulatorReport {
    /// Wall time from start to the report.
    pub elapsed: Duration,
    /// The header bytes counted with every datagram ([`EmulatorConfig::header_bytes`]): the
    /// byte columns of the report all include them.
    pub header_bytes: u32,
    /// Uplink and downlink.
    pub directions: [DirectionReport; 2],
    /// Client addresses that got an upstream socket (each time they got one).
    pub clients: u64,
    /// Clients with an upstream socket at the report.
    pub clients_now: u64,
    /// The client table's other counters: evictions, idle expiries, refusals (a socket that
    /// could not be opened), datagrams of clients without a socket.
    pub relay: RelayCounters,
    /// Datagrams of refused clients, dropped.
    pub refused: u64,
    /// Every datagram, if [`EmulatorConfig::keep_log`].
    pub log: Vec<PacketRecord>,
    /// The (uplink, downlink) pipelines as they ended (in the final report only), for link
    /// figures such as utilisation.
    pub links: Option<Box<(Pipeline, Pipeline)>>,
}

impl EmulatorReport {
    /// The report of `direction`.
    pub fn direction(&self, direction: Direction) -> &DirectionReport {
        &self.directions[direction.index()]
    }
}

fn us(d: Option<Duration>) -> String {
    d.map_or_else(|| "-".into(), |d| format!("{:.0}", d.as_secs_f64() * 1e6))
}

impl fmt::Display for EmulatorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "emulator: {:.1} s, {} client(s) ({} now; {} evicted, {} expired idle), {} datagram(s) of refused clients, {} for clients without a socket",
            self.elapsed.as_secs_f64(),
            self.clients,
            self.clients_now,
            self.relay.evicted,
            self.relay.expired,
            self.refused,
            self.relay.unknown_client
        )?;
        writeln!(
            f,
            "{:<9} {:>9} {:>9} {:>11} {:>11} {:>8} {:>8} {:>8} {:>6} {:>7} {:>7} {:>7} {:>9}",
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
            "max_us",
            "buffer_B"
        )?;
        for (dir, d) in [Direction::Uplink, Direction::Downlink].iter().zip(&self.directions) {
            let t = &d.totals;
            writeln!(
                f,
                "{:<9} {:>9} {:>9} {:>11} {:>11} {:>8} {:>8} {:>8} {:>6} {:>7} {:>7} {:>7} {:>9}",
                dir.name(),
                t.offered.packets,
                d.forwarded,
                t.offered.bytes,
                d.forwarded_bytes + d.forwarded * u64::from(self.header_bytes),
                t.dropped.buffer.packets,
                t.dropped.error.packets,
                t.dropped.no_token.packets,
                d.held_at_stop,
                us(d.timing.quantile(0.5)),
                us(d.timing.quantile(0.99)),
                us(d.timing.quantile(1.0)),
                t.dropped.buffer.bytes,
            )?;
        }
        write!(
            f,
            "(offered_B, forwarded_B, buffer_B: bytes at the IP layer, each datagram's UDP payload plus {} header bytes, as the link model counts them)",
            self.header_bytes
        )
    }
}

/// A client's upstream socket and the task reading it.
struct Upstream {
    socket: Arc<UdpSocket>,
    reader: tokio::task::JoinHandle<()>,
}

impl Drop for Upstream {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// A bound emulator, ready to run.
pub struct Emulator {
    config: EmulatorConfig,
    listen: UdpSocket,
    relay: Relay,
    pcap: Option<PcapWriter<Box<dyn io::Write + Send + Sync>>>,
    clock: Clock,
    unix_offset: std::time::Duration,
}

impl fmt::Debug for Emulator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Emulator").field("listen", &self.listen.local_addr().ok()).finish_non_exhaustive()
    }
}

/// Why the emulator could not start or went on.
#[derive(Debug, thiserror::Error)]
pub enum EmulatorError {
    /// A link key of one direction is out of range (the error names the key).
    #[error("{}: key `{}`: {}", direction.name(), error.key, error.problem)]
    Link {
        /// The direction whose link is refused.
        direction: Direction,
        /// The key and the problem.
        error: ConfigError,
    },
    /// The emulator would relay to its own listening address: every datagram would loop.
    #[error("--to {to}: that is the emulator's listening address {listen} itself; every datagram would loop")]
    RelayToItself {
        /// The relay's destination.
        to: SocketAddr,
        /// The listening address it equals.
        listen: SocketAddr,
    },
    /// The pcap file could not be created or written.
    #[error("--pcap {}: {source}", path.display())]
    Pcap {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A socket operation failed.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// Whether datagrams sent to `to` reach a socket listening on `listen`: the same address, or
/// a wildcard listening address and `to` on this host (loopback or wildcard) with the same port.
fn relays_to_itself(listen: SocketAddr, to: SocketAddr) -> bool {
    listen.port() == to.port()
        && (listen.ip() == to.ip()
            || (listen.ip().is_unspecified() && (to.ip().is_loopback() || to.ip().is_unspecified())))
}

impl Emulator {
    /// Checks the link, refuses a relay to its own listening address, creates the pcap file
    /// and binds the listening socket (port 0 picks one: see [`Emulator::local_addr`]).
    pub async fn bind(config: EmulatorConfig, clock: Clock) -> Result<Emulator, EmulatorError> {
        let relay = Relay::new(&config)?;
        let loop_error = |listen: SocketAddr| EmulatorError::RelayToItself { to: config.to, listen };
        if relays_to_itself(config.listen, config.to) {
            return Err(loop_error(config.listen));
        }
        let pcap = match &config.pcap {
            Some(path) => {
                let pcap_error = |source| EmulatorError::Pcap { path: path.clone(), source };
                let out: Box<dyn io::Write + Send + Sync> = if path.as_os_str() == "-" {
                    Box::new(io::BufWriter::new(io::stdout()))
                } else {
                    Box::new(io::BufWriter::new(std::fs::File::create(path).map_err(pcap_error)?))
                };
                let mut w = PcapWriter::new(out).map_err(pcap_error)?;
                w.flush().map_err(pcap_error)?;
                Some(w)
            }
            None => None,
        };
        let listen = UdpSocket::bind(config.listen).await?;
        let local = listen.local_addr()?;
        if relays_to_itself(local, config.to) {
            return Err(loop_error(local));
        }
        let unix_offset = crate::clock::unix_now().saturating_sub(clock.now().since_epoch());
        Ok(Emulator { config, listen, relay, pcap, clock, unix_offset })
    }

    /// The address clients send to.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listen.local_addr()
    }

    /// Relays until `stop` completes (and, with `signals`, until Ctrl-C or SIGTERM), printing
    /// the report to standard error on SIGUSR1 when `signals` is set; returns the final report.
    pub async fn run(
        self,
        stop: impl std::future::Future<Output = ()>,
        signals: bool,
    ) -> Result<EmulatorReport, EmulatorError> {
        self.run_ready(stop, signals, |_| {}).await
    }

    /// [`Emulator::run`], calling `on_ready` with the listening address once the signal
    /// handlers are in place: a SIGTERM or Ctrl-C sent as soon as `on_ready` has announced
    /// the emulator stops it with its report, never by the default action.
    async fn run_ready(
        mut self,
        stop: impl std::future::Future<Output = ()>,
        signals: bool,
        on_ready: impl FnOnce(SocketAddr),
    ) -> Result<EmulatorReport, EmulatorError> {
        let clock = self.clock;
        let started = clock.now();
        let listen_addr = self.listen.local_addr()?;
        let mut report = EmulatorReport::default();
        let mut upstreams: HashMap<SocketAddr, Upstream> = HashMap::new();
        let (tx, mut rx) = mpsc::unbounded_channel::<(SocketAddr, Vec<u8>)>();
        let mut buf = vec![0_u8; MAX_DATAGRAM_BYTES];
        let signal = |kind| if signals { Some(tokio::signal::unix::signal(kind)).transpose() } else { Ok(None) };
        let mut usr1 = signal(tokio::signal::unix::SignalKind::user_defined1())?;
        let mut term = signal(tokio::signal::unix::SignalKind::terminate())?;
        let mut interrupt = signal(tokio::signal::unix::SignalKind::interrupt())?;
        let ctrl_c = async {
            match interrupt.as_mut() {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        on_ready(listen_addr);
        tokio::pin!(stop);
        tokio::pin!(ctrl_c);
        let unix_offset = self.unix_offset;
        let stamp = |at: Instant| unix_offset + at.since_epoch();
        let pcap_path = self.config.pcap.clone().unwrap_or_default();
        let pcap_error = |source| EmulatorError::Pcap { path: pcap_path.clone(), source };
        loop {
            let depart = self.relay.next_departure().map(|d| d.saturating_sub(self.config.spin));
            let wake = match (depart, self.relay.next_expiry()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
            .map(|t| clock.deadline(t));
            tokio::select! {
                biased;
                () = &mut stop => break,
                () = &mut ctrl_c => break,
                Some(()) = async { match term.as_mut() { Some(s) => s.recv().await, None => std::future::pending().await } } => break,
                Some(()) = async { match usr1.as_mut() { Some(s) => s.recv().await, None => std::future::pending().await } } => {
                    let snapshot = self.snapshot(&report, started);
                    eprintln!("{snapshot}");
                }
                () = async { match wake { Some(w) => tokio::time::sleep_until(w).await, None => std::future::pending().await } } => {
                    for client in self.relay.expire_idle(clock.now()) {
                        upstreams.remove(&client);
                    }
                    // Release everything due within the spin window, each at its departure.
                    while let Some(depart) = self.relay.next_departure() {
                        if depart.saturating_sub(self.config.spin) > clock.now() {
                            break;
                        }
                        while clock.now() < depart {
                            tokio::task::yield_now().await;
                        }
                        let Some(h) = self.relay.pop_due(clock.now()) else { continue };
                        let d = &mut report.directions[h.direction.index()];
                        let (socket, from, to) = match h.direction {
                            Direction::Uplink => match upstreams.get(&h.client) {
                                Some(u) => (&*u.socket, u.socket.local_addr()?, self.config.to),
                                None => {
                                    d.send_errors += 1;
                                    continue;
                                }
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
                                if let Some(w) = self.pcap.as_mut() {
                                    write_flushed(w, stamp(at), from, to, &h.data).map_err(pcap_error)?;
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
                    if let Some(w) = self.pcap.as_mut() {
                        write_flushed(w, stamp(now), client, listen_addr, &data).map_err(pcap_error)?;
                    }
                    if let Admission::New { evicted } = self.relay.admit(now, client) {
                        if let Some(e) = evicted {
                            upstreams.remove(&e);
                        }
                        match self.upstream(client, tx.clone()).await {
                            Ok(u) => {
                                upstreams.insert(client, u);
                            }
                            Err(_) => {
                                // Out of sockets (file descriptors): this client waits.
                                self.relay.refuse(client);
                                report.refused += 1;
                                continue;
                            }
                        }
                    }
                    self.relay.from_client(now, client, data);
                }
                Some((client, data)) = rx.recv() => {
                    let now = clock.now();
                    if let (Some(w), Some(u)) = (self.pcap.as_mut(), upstreams.get(&client)) {
                        write_flushed(w, stamp(now), self.config.to, u.socket.local_addr()?, &data).map_err(pcap_error)?;
                    }
                    self.relay.from_server(now, client, data);
                }
            }
        }
        drop(upstreams);
        if let Some(w) = self.pcap.take() {
            w.into_inner().map_err(pcap_error)?;
        }
        let final_report = self.snapshot(&report, started);
        let (log, [up, down]) = self.relay.into_parts();
        Ok(EmulatorReport { log, links: Some(Box::new((up, down))), ..final_report })
    }

    /// The report so far (without the log).
    fn snapshot(&self, report: &EmulatorReport, started: Instant) -> EmulatorReport {
        let counters = self.relay.counters();
        let mut r = EmulatorReport {
            elapsed: self.clock.now().saturating_duration_since(started),
            header_bytes: self.config.header_bytes,
            directions: report.directions.clone(),
            clients: counters.admitted,
            clients_now: self.relay.clients() as u64,
            relay: counters,
            refused: report.refused,
            log: Vec::new(),
            links: None,
        };
        for (direction, d) in [Direction::Uplink, Direction::Downlink].into_iter().zip(r.directions.iter_mut()) {
            d.totals = self.relay.totals(direction);
            d.held_at_stop = self.relay.held(direction);
        }
        r
    }

    /// Opens the upstream socket of `client` (same address family as the server, connected to
    /// it) and starts the task that passes what the server sends back to the main loop. The
    /// task keeps no buffer while it waits: an idle client costs a socket and a small task.
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
            loop {
                if reader_socket.readable().await.is_err() {
                    tokio::task::yield_now().await;
                    continue;
                }
                let mut buf = Vec::with_capacity(MAX_DATAGRAM_BYTES);
                match reader_socket.try_recv_buf(&mut buf) {
                    Ok(_) => {
                        buf.shrink_to_fit();
                        if tx.send((client, buf)).is_err() {
                            return;
                        }
                    }
                    // Not readable after all, or ICMP port unreachable surfacing on a connected
                    // socket: keep reading.
                    Err(_) => tokio::task::yield_now().await,
                }
            }
        });
        Ok(Upstream { socket, reader })
    }
}

/// Writes one packet to the pcap and flushes it, so that a reader sees it at once.
fn write_flushed(
    w: &mut PcapWriter<Box<dyn io::Write + Send + Sync>>,
    at: std::time::Duration,
    from: SocketAddr,
    to: SocketAddr,
    data: &[u8],
) -> io::Result<()> {
    w.write_udp(at, from, to, data)?;
    w.flush()
}

/// Runs an emulator on a runtime of its own until Ctrl-C or SIGTERM, or for `duration` when
/// given, printing the report on SIGUSR1 to standard error; `on_ready` is called with the
/// listening address once bound (and the pcap file created). Returns the final report.
pub fn run_until_interrupted(
    config: EmulatorConfig,
    duration: Option<std::time::Duration>,
    on_ready: impl FnOnce(SocketAddr),
) -> Result<EmulatorReport, EmulatorError> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let emulator = Emulator::bind(config, Clock::start()).await?;
        let stop = async {
            match duration {
                Some(d) => tokio::time::sleep(d).await,
                None => std::future::pending().await,
            }
        };
        emulator.run_ready(stop, true, on_ready).await
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
