//! `coapcc server`: the resources of `coapcc_udp::server` on a real UDP socket, and on
//! `coap+tcp://` (RFC 8323) on the same port number unless `--no-tcp`.

use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

use coapcc_proto::Endpoint;
use coapcc_udp::clock::{Clock, os_seed};
use coapcc_udp::runtime::{TaskOptions, spawn};
use coapcc_udp::server::{ObservableResources, Observers};
use coapcc_udp::tcp::server::TcpServerOptions;

use super::client::{runtime, seconds};
use crate::error::CliError;

/// Arguments of `coapcc server`.
#[derive(Clone, Debug, clap::Args)]
pub struct ServerArgs {
    /// Address and port to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:5683")]
    pub bind: String,
    /// How long a request is remembered for duplicate detection (EXCHANGE_LIFETIME), seconds.
    #[arg(long, default_value_t = coapcc_udp::config::EXCHANGE_LIFETIME.as_secs_f64())]
    pub exchange_lifetime_s: f64,
    /// Stop after this many seconds (runs until interrupted when absent).
    #[arg(long)]
    pub duration_s: Option<f64>,
    /// How often `/obs` (an observable counter, RFC 7641) advances and notifies its observers,
    /// milliseconds.
    #[arg(long, default_value_t = 1000)]
    pub observe_interval_ms: u64,
    /// Seed of the server's generator; from the OS when absent.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Serve UDP only (no `coap+tcp://` listener on the same port number).
    #[arg(long)]
    pub no_tcp: bool,
    /// CoAP over TCP: connections served at once (one more is closed when accepted).
    #[arg(long, default_value_t = coapcc_udp::tcp::server::MAX_CONNECTIONS)]
    pub tcp_max_connections: usize,
    /// CoAP over TCP: seconds of silence after which a connection gets a Release (RFC 8323
    /// §5.5) and is closed.
    #[arg(long, default_value_t = coapcc_udp::tcp::server::IDLE_TIMEOUT.as_secs_f64())]
    pub tcp_idle_timeout_s: f64,
}

/// How many times a port chosen for UDP (`--bind …:0`) is tried again when its TCP twin is taken.
const PORT_TRIES: usize = 20;

/// `coapcc server`: serves until interrupted (Ctrl-C, SIGTERM) or `--duration-s`; prints its
/// address at start and its counters at the end.
pub fn run(args: &ServerArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let bind: SocketAddr =
        args.bind.parse().map_err(|_| CliError::usage(format!("--bind: `{}` is not ADDRESS:PORT", args.bind)))?;
    let lifetime = seconds("exchange-lifetime-s", args.exchange_lifetime_s)?;
    let duration = args.duration_s.map(|d| seconds("duration-s", d)).transpose()?;
    let seed = args.seed.unwrap_or_else(os_seed);
    if args.observe_interval_ms == 0 {
        return Err(CliError::usage("--observe-interval-ms: must be at least 1"));
    }
    let interval = Duration::from_millis(args.observe_interval_ms);
    let idle = seconds("tcp-idle-timeout-s", args.tcp_idle_timeout_s)?;
    if idle.is_zero() {
        return Err(CliError::usage("--tcp-idle-timeout-s: must be above 0"));
    }
    if args.tcp_max_connections == 0 {
        return Err(CliError::usage("--tcp-max-connections: must be at least 1"));
    }
    let tcp_options = TcpServerOptions { max_connections: args.tcp_max_connections, idle_timeout: idle };
    let config = coapcc_udp::config::server_config(lifetime).map_err(|e| CliError::Failure(e.to_string()))?;
    let rt = runtime()?;
    rt.block_on(async {
        let (socket, tcp) = bind_both(bind, !args.no_tcp).await?;
        let local = socket.local_addr()?;
        let tcp = tcp.map(|l| coapcc_udp::tcp::server::spawn(l, tcp_options)).transpose()?;
        let endpoint = Endpoint::new(config, coapcc_driver::rng::stream_rng(seed, 0, coapcc_driver::rng::Stream::Server(0).id()))
            .map_err(|e| CliError::Failure(e.to_string()))?;
        // The notifications' Message IDs start at a value of their own (RFC 7252 §4.4).
        let observers = Observers::new(seed.rotate_left(17) as u16);
        let resources = ObservableResources { observers: observers.clone() };
        let (handle, _) = spawn(socket, endpoint, Clock::start(), TaskOptions::server(resources));
        // One write, so that a reader of the first line alone never closes the pipe under the second.
        let mut banner = format!("coapcc server listening on {local} (seed {seed})\n");
        if let Some(t) = &tcp {
            banner.push_str(&format!("coapcc server listening on coap+tcp://{}\n", t.local_addr()));
        }
        out.write_all(banner.as_bytes())?;
        out.flush()?;
        let stop = wait_for_stop(duration);
        tokio::pin!(stop);
        let mut tick = tokio::time::interval(interval);
        loop {
            tokio::select! {
                () = &mut stop => break,
                _ = tick.tick() => {
                    for (to, notification) in observers.notify() {
                        let _ = handle.send(to, notification);
                    }
                }
            }
        }
        let f = handle.stop().await;
        let e = f.endpoint;
        writeln!(
            out,
            "coapcc server stopped: {} datagram(s) in, {} out; duplicates answered {}, resets sent {}, malformed {}, cache evictions {}",
            f.runtime.datagrams_received,
            f.runtime.datagrams_sent,
            e.duplicates_answered,
            e.resets_sent,
            e.malformed,
            e.duplicate_evictions
        )?;
        if let Some(t) = tcp {
            let s = t.stop().await;
            writeln!(
                out,
                "coapcc server (coap+tcp) stopped: {} connection(s), {} refused; {} message(s) in, {} out; requests {}, pongs {}, aborts sent {}, aborts received {}, idle releases {}",
                s.connections,
                s.refused,
                s.messages_received,
                s.messages_sent,
                s.requests,
                s.pongs_sent,
                s.aborts_sent,
                s.aborts_received,
                s.idle_releases
            )?;
        }
        Ok(())
    })
}

/// The UDP socket on `bind`, and with `tcp` a TCP listener on the same address and port
/// number (for port 0, the UDP socket's port; another is tried when that TCP port is taken).
async fn bind_both(
    bind: SocketAddr,
    tcp: bool,
) -> Result<(tokio::net::UdpSocket, Option<tokio::net::TcpListener>), CliError> {
    let failed = |e: std::io::Error| CliError::Failure(format!("--bind {bind}: {e}"));
    let mut last = None;
    for _ in 0..PORT_TRIES {
        let socket = coapcc_udp::runtime::bind(bind).map_err(failed)?;
        if !tcp {
            return Ok((socket, None));
        }
        let local = socket.local_addr()?;
        match tokio::net::TcpListener::bind(local).await {
            Ok(l) => return Ok((socket, Some(l))),
            Err(e) if bind.port() == 0 => last = Some(e),
            Err(e) => {
                return Err(CliError::Failure(format!("--bind {bind}: TCP port {} (coap+tcp): {e}", local.port())));
            }
        }
    }
    Err(CliError::Failure(format!(
        "--bind {bind}: no port free for both UDP and TCP in {PORT_TRIES} tries ({})",
        last.map_or_else(String::new, |e| e.to_string())
    )))
}

async fn wait_for_stop(duration: Option<Duration>) {
    let timer = async {
        match duration {
            Some(d) => tokio::time::sleep(d).await,
            None => std::future::pending().await,
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = timer => {}
        () = term => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
