//! Measuring real CoAP on loopback (`coapcc bench --case udp`): datagram fuzzing throughput,
//! and exchanges per second with CPU time per exchange of our client against a server process
//! (ours, a `coapcc server`, or libcoap's `coap-server-notls`), next to libcoap's
//! `coap-client-notls` doing the same sequential work (one process per request, as that tool
//! works). Wall-clock and CPU time are read for measurement only. The caller prints.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use coapcc_driver::scenario::AlgorithmSettingsError;
use coapcc_proto::Code;

use crate::client::{ClientError, ClientRun, ClientSummary};
use crate::clock::Clock;
use crate::fuzz::FuzzStats;

/// CPU time (user + system) of process `pid` (`self` for this one), from `/proc/PID/stat`
/// (clock ticks of 10 ms on Linux), if known.
pub fn cpu_time(pid: &str) -> Option<Duration> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may contain spaces) start after the last ')'.
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// A server process, killed when dropped.
pub struct Peer {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Why a loopback measurement could not be made.
#[derive(Debug, thiserror::Error)]
pub enum UdpBenchError {
    /// A process or socket operation failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// `coapcc server` printed no listening address on its first line.
    #[error("coapcc server did not say where it listens: {line:?}")]
    NoAddress {
        /// The line it printed.
        line: String,
    },
    /// `coap-server-notls` started but did not answer a ping.
    #[error("coap-server-notls did not answer within 5 s")]
    PeerSilent,
    /// The client's algorithm could not be configured.
    #[error(transparent)]
    Algorithm(#[from] AlgorithmSettingsError),
    /// The client run was refused or failed.
    #[error(transparent)]
    Client(#[from] ClientError),
}

/// Starts `exe server` (a `coapcc` binary) on a free loopback port; it says where it listens
/// on its first line.
pub fn our_server(exe: &Path) -> Result<Peer, UdpBenchError> {
    let mut child = Command::new(exe)
        .args(["server", "--bind", "127.0.0.1:0", "--duration-s", "600"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let mut line = String::new();
    if let Some(out) = child.stdout.take() {
        BufReader::new(out).read_line(&mut line)?;
    }
    let addr = line
        .split_whitespace()
        .find_map(|w| w.parse::<SocketAddr>().ok())
        .ok_or_else(|| UdpBenchError::NoAddress { line: line.clone() })?;
    Ok(Peer { child, addr })
}

/// Starts libcoap's `coap-server-notls` on a free loopback port, ready when it answers a ping;
/// `None` when it is not installed.
pub fn libcoap_server() -> Result<Option<Peer>, UdpBenchError> {
    let port = std::net::UdpSocket::bind("127.0.0.1:0")?.local_addr()?.port();
    let child = match Command::new("coap-server-notls")
        .args(["-A", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(_) => return Ok(None),
    };
    // Ready when it answers (a ping gets a Reset).
    let probe = std::net::UdpSocket::bind("127.0.0.1:0")?;
    probe.set_read_timeout(Some(Duration::from_millis(100)))?;
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let peer = Peer { child, addr };
    for _ in 0..50 {
        probe.send_to(&[0x40, 0, 0x12, 0x34], addr)?;
        if probe.recv_from(&mut [0u8; 64]).is_ok() {
            return Ok(Some(peer));
        }
    }
    Err(UdpBenchError::PeerSilent)
}

/// One client run against a server process.
#[derive(Clone, Debug)]
pub struct Measured {
    /// The client's summary.
    pub summary: ClientSummary,
    /// Wall time of the run.
    pub wall: Duration,
    /// CPU time of this process during the run, if known.
    pub client_cpu: Option<Duration>,
    /// CPU time of the server process during the run, if known.
    pub server_cpu: Option<Duration>,
}

/// `flows` flows of `count` sequential GETs of `path` each against `peer`, with `default`.
pub fn measure(peer: &Peer, path: &str, count: u32, flows: u32) -> Result<Measured, UdpBenchError> {
    let run = ClientRun {
        target: peer.addr,
        path: path.into(),
        query: String::new(),
        method: Code::GET,
        payload_bytes: 0,
        count,
        flows,
        algorithm_name: "default".into(),
        algorithm: crate::config::algorithm("default", &[])?,
        seed: 1,
        timeout: Some(Duration::from_secs(300)),
        exchange_lifetime: crate::config::EXCHANGE_LIFETIME,
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let server_pid = peer.child.id().to_string();
    let (c0, s0) = (cpu_time("self"), cpu_time(&server_pid));
    let clock = Clock::start();
    let summary = rt.block_on(crate::client::run(&run, |_| {}))?;
    let wall = clock.now().since_epoch();
    let (c1, s1) = (cpu_time("self"), cpu_time(&server_pid));
    Ok(Measured {
        summary,
        wall,
        client_cpu: c0.zip(c1).map(|(a, b)| b.saturating_sub(a)),
        server_cpu: s0.zip(s1).map(|(a, b)| b.saturating_sub(a)),
    })
}

/// The endpoint fuzzer on `datagrams` datagrams, and its wall time.
pub fn fuzz_throughput(datagrams: u64) -> (FuzzStats, Duration) {
    let clock = Clock::start();
    let stats = crate::fuzz::run(datagrams, 1, 100);
    (stats, clock.now().since_epoch())
}

/// `n` sequential `coap-client-notls` processes fetching `/` of `peer`: how many answered, and
/// the wall time (process start-up included).
pub fn libcoap_client_sequential(peer: &Peer, n: u32) -> (u32, Duration) {
    let uri = format!("coap://127.0.0.1:{}/", peer.addr.port());
    let clock = Clock::start();
    let mut ok = 0;
    for _ in 0..n {
        let o = Command::new("coap-client-notls").args(["-B", "5", &uri]).stderr(Stdio::null()).output();
        ok += u32::from(o.is_ok_and(|o| !o.stdout.is_empty()));
    }
    (ok, clock.now().since_epoch())
}
