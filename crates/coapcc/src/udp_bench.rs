//! `coapcc bench --case udp`: the real-network numbers the README quotes — datagram fuzzing
//! throughput (10⁷ datagrams), and exchanges per second with CPU time per exchange on
//! loopback: our client against our server (a `coapcc server` process) and against libcoap's
//! `coap-server-notls`, next to libcoap's `coap-client-notls` doing the same sequential work
//! (one process per request, as that tool works). Wall-clock and CPU time are read here only
//! for measurement.
#![allow(clippy::disallowed_methods)]

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use coapcc_proto::Code;
use coapcc_udp::client::{ClientRun, Summary};

use crate::error::CliError;

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

/// A server process, killed by its own handle when dropped.
struct Peer {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn our_server() -> Result<Peer, CliError> {
    let exe = std::env::current_exe()?;
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
        .ok_or_else(|| CliError::Failure(format!("coapcc server did not say where it listens: {line:?}")))?;
    Ok(Peer { child, addr })
}

fn free_port() -> Result<u16, CliError> {
    Ok(std::net::UdpSocket::bind("127.0.0.1:0")?.local_addr()?.port())
}

fn libcoap_server() -> Result<Option<Peer>, CliError> {
    let port = free_port()?;
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
    Err(CliError::Failure("coap-server-notls did not answer within 5 s".into()))
}

struct Measured {
    summary: Summary,
    wall: Duration,
    client_cpu: Option<Duration>,
    server_cpu: Option<Duration>,
}

fn measure(peer: &Peer, path: &str, count: u32, flows: u32) -> Result<Measured, CliError> {
    let run = ClientRun {
        target: peer.addr,
        path: path.into(),
        query: String::new(),
        method: Code::GET,
        payload_bytes: 0,
        count,
        flows,
        algorithm_name: "default".into(),
        algorithm: coapcc_udp::config::algorithm("default", &[]).map_err(CliError::Failure)?,
        seed: 1,
        timeout: Some(Duration::from_secs(300)),
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let server_pid = peer.child.id().to_string();
    let (c0, s0) = (cpu_time("self"), cpu_time(&server_pid));
    let t0 = Instant::now();
    let summary = rt.block_on(coapcc_udp::client::run(&run, |_| {}))?;
    let wall = t0.elapsed();
    let (c1, s1) = (cpu_time("self"), cpu_time(&server_pid));
    Ok(Measured {
        summary,
        wall,
        client_cpu: c0.zip(c1).map(|(a, b)| b.saturating_sub(a)),
        server_cpu: s0.zip(s1).map(|(a, b)| b.saturating_sub(a)),
    })
}

fn per_exchange(d: Option<Duration>, n: u64) -> String {
    d.map_or_else(|| "?".into(), |d| format!("{:.1} µs", d.as_secs_f64() * 1e6 / n.max(1) as f64))
}

fn report(out: &mut dyn Write, what: &str, m: &Measured) -> Result<(), CliError> {
    let n = m.summary.exchanges;
    writeln!(
        out,
        "{what}: {n} exchanges ({} failed, {} retransmissions) in {:.2} s = {:.0} exchanges/s; CPU per exchange: client {}, server {}; RTT p50 {:.3} ms",
        m.summary.requests_failed,
        m.summary.retransmissions,
        m.wall.as_secs_f64(),
        n as f64 / m.wall.as_secs_f64(),
        per_exchange(m.client_cpu, n),
        per_exchange(m.server_cpu, n),
        m.summary.rtt_p50_ms.unwrap_or(f64::NAN)
    )?;
    Ok(())
}

/// Runs the benchmark and writes one line per measurement.
pub fn run(out: &mut dyn Write) -> Result<(), CliError> {
    let t0 = Instant::now();
    let stats = coapcc_udp::fuzz::run(10_000_000, 1, 100);
    let wall = t0.elapsed();
    writeln!(
        out,
        "fuzz: {} datagrams to a client and a server endpoint in {:.1} s ({:.2} M/s), {} decoded, {} requests answered, no panic, cache at most {} entries",
        stats.datagrams,
        wall.as_secs_f64(),
        stats.datagrams as f64 / wall.as_secs_f64() / 1e6,
        stats.decoded,
        stats.requests_answered,
        stats.max_cache_entries
    )?;
    out.flush()?;
    let ours = our_server()?;
    report(out, "our client -> our server, 1 flow x 5000 sequential", &measure(&ours, "echo", 5_000, 1)?)?;
    report(out, "our client -> our server, 200 flows x 50 concurrent", &measure(&ours, "echo", 50, 200)?)?;
    out.flush()?;
    drop(ours);
    match libcoap_server()? {
        None => writeln!(out, "coap-server-notls: not installed (apt-get install -y libcoap3-bin); skipped")?,
        Some(libcoap) => {
            report(
                out,
                "our client -> coap-server-notls, 1 flow x 5000 sequential",
                &measure(&libcoap, "", 5_000, 1)?,
            )?;
            report(
                out,
                "our client -> coap-server-notls, 200 flows x 50 concurrent",
                &measure(&libcoap, "", 50, 200)?,
            )?;
            let uri = format!("coap://127.0.0.1:{}/", libcoap.addr.port());
            let n = 200u32;
            let t0 = Instant::now();
            let mut ok = 0;
            for _ in 0..n {
                let o = Command::new("coap-client-notls").args(["-B", "5", &uri]).stderr(Stdio::null()).output();
                ok += u32::from(o.is_ok_and(|o| !o.stdout.is_empty()));
            }
            let wall = t0.elapsed();
            writeln!(
                out,
                "coap-client-notls -> coap-server-notls, {n} sequential (one process each): {ok} answered in {:.2} s = {:.0} exchanges/s ({:.2} ms each, process start-up included)",
                wall.as_secs_f64(),
                f64::from(n) / wall.as_secs_f64(),
                wall.as_secs_f64() * 1e3 / f64::from(n)
            )?;
        }
    }
    Ok(())
}
