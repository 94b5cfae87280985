//! `coapcc client` and `coapcc server`: real CoAP over UDP through `coapcc-udp`.

use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;

use coapcc_proto::{Code, Endpoint};
use coapcc_sim::scenario::Setting;
use coapcc_udp::client::{ClientRun, Record};
use coapcc_udp::clock::{Clock, os_seed};
use coapcc_udp::runtime::{Options, spawn};
use coapcc_udp::server::Resources;

use crate::error::CliError;

/// Arguments of `coapcc client`.
#[derive(Clone, Debug, clap::Args)]
pub struct ClientArgs {
    /// The resource: `coap://HOST[:PORT]/PATH[?QUERY]` (port 5683 by default).
    pub uri: String,
    /// Congestion-control algorithm (see `coapcc algorithms`).
    #[arg(long, short, default_value = "default")]
    pub algorithm: String,
    /// Override one of the algorithm's keys (repeatable), as `coapcc replay --set`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<Setting>,
    /// Requests per flow (each one confirmable exchange, or one per block).
    #[arg(long, default_value_t = 1)]
    pub count: u32,
    /// Concurrent flows, each its own endpoint, controller and socket.
    #[arg(long, default_value_t = 1)]
    pub flows: u32,
    /// Request method.
    #[arg(long, value_enum, default_value = "get")]
    pub method: Method,
    /// Body of PUT/POST requests, bytes (block-wise, RFC 7959 Block1, beyond 1024).
    #[arg(long, default_value_t = 0)]
    pub payload_bytes: usize,
    /// Give up the whole run after this many seconds (exit status 1).
    #[arg(long)]
    pub timeout_s: Option<f64>,
    /// JSON lines: one object per exchange, per flow, then a summary (see docs/real-networks.md).
    #[arg(long)]
    pub json: bool,
    /// Seed of the flows' generators (dithering, Message IDs, tokens); from the OS when absent.
    /// The seed used is always printed.
    #[arg(long)]
    pub seed: Option<u64>,
}

/// Request methods of `coapcc client`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Method {
    /// GET (block-wise Block2 when the server sends blocks).
    #[value(name = "GET", alias = "get")]
    Get,
    /// PUT.
    #[value(name = "PUT", alias = "put")]
    Put,
    /// POST.
    #[value(name = "POST", alias = "post")]
    Post,
}

impl Method {
    fn code(self) -> Code {
        match self {
            Method::Get => Code::GET,
            Method::Put => Code::PUT,
            Method::Post => Code::POST,
        }
    }
}

/// Arguments of `coapcc server`.
#[derive(Clone, Debug, clap::Args)]
pub struct ServerArgs {
    /// Address and port to listen on (port 0: any free port, printed at start).
    #[arg(long, default_value = "127.0.0.1:5683")]
    pub bind: String,
    /// How long a request is remembered for duplicate detection (EXCHANGE_LIFETIME), seconds.
    #[arg(long, default_value_t = 247.0)]
    pub exchange_lifetime_s: f64,
    /// Stop after this many seconds (runs until interrupted when absent).
    #[arg(long)]
    pub duration_s: Option<f64>,
    /// Seed of the server's generator; from the OS when absent.
    #[arg(long)]
    pub seed: Option<u64>,
}

/// A parsed `coap://` URI.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CoapUri {
    /// Host (a name, an IPv4 address or an IPv6 address without brackets).
    pub host: String,
    /// Port.
    pub port: u16,
    /// Path, segments separated by `/`, percent-decoded.
    pub path: String,
    /// Query, `&`-separated, percent-decoded.
    pub query: String,
}

/// Parses `coap://HOST[:PORT]/PATH[?QUERY]`; the error names the problem.
pub fn parse_uri(uri: &str) -> Result<CoapUri, String> {
    let bad = |why: &str| format!("bad URI `{uri}`: {why}");
    let rest = uri.strip_prefix("coap://").ok_or_else(|| bad("the scheme must be coap://"))?;
    let (authority, path_query) = rest.split_at(rest.find(['/', '?']).unwrap_or(rest.len()));
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let end = v6.find(']').ok_or_else(|| bad("unclosed `[`"))?;
        let port = &v6[end + 1..];
        (&v6[..end], port.strip_prefix(':').unwrap_or(port))
    } else {
        match authority.rsplit_once(':') {
            Some((h, p)) => (h, p),
            None => (authority, ""),
        }
    };
    if host.is_empty() {
        return Err(bad("no host"));
    }
    let port = if port.is_empty() { 5683 } else { port.parse().map_err(|_| bad("the port must be 0-65535"))? };
    let (path, query) = path_query.split_once('?').unwrap_or((path_query, ""));
    let path = path.strip_prefix('/').unwrap_or(path);
    Ok(CoapUri {
        host: host.to_string(),
        port,
        path: percent_decode(path).ok_or_else(|| bad("bad %-escape in the path"))?,
        query: percent_decode(query).ok_or_else(|| bad("bad %-escape in the query"))?,
    })
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| CliError::Failure(e.to_string()))
}

fn seconds(name: &str, s: f64) -> Result<Duration, CliError> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| CliError::usage(format!("--{name}: must be a non-negative number of seconds")))
}

/// `coapcc client`: exit status 1 if any request failed or the time-out passed.
pub fn client(args: &ClientArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let uri = parse_uri(&args.uri).map_err(CliError::usage)?;
    let algorithm = coapcc_udp::config::algorithm(&args.algorithm, &args.set).map_err(CliError::usage)?;
    let timeout = args.timeout_s.map(|t| seconds("timeout-s", t)).transpose()?;
    if args.flows == 0 {
        return Err(CliError::usage("--flows: must be at least 1"));
    }
    let seed = args.seed.unwrap_or_else(os_seed);
    let rt = runtime()?;
    let target = rt
        .block_on(tokio::net::lookup_host((uri.host.as_str(), uri.port)))
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| CliError::usage(format!("bad URI `{}`: cannot resolve host `{}`", args.uri, uri.host)))?;
    let run = ClientRun {
        target,
        path: uri.path,
        query: uri.query,
        method: args.method.code(),
        payload_bytes: args.payload_bytes,
        count: args.count,
        flows: args.flows,
        algorithm_name: args.algorithm.clone(),
        algorithm,
        seed,
        timeout,
    };
    let mut write_error = None;
    let summary = rt.block_on(coapcc_udp::client::run(&run, |r| {
        let res = if args.json { json_line(out, r) } else { human(out, r) };
        if let Err(e) = res {
            write_error.get_or_insert(e);
        }
    }))?;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    if summary.success(&run) {
        Ok(())
    } else if summary.timed_out {
        Err(CliError::Failure(format!("time-out after {} s", args.timeout_s.unwrap_or(0.0))))
    } else {
        let missing = u64::from(run.count) * u64::from(run.flows) - summary.requests_ok - summary.requests_failed;
        Err(CliError::Failure(format!("{} request(s) failed, {missing} not finished", summary.requests_failed)))
    }
}

fn json_line(out: &mut dyn Write, r: &Record) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, r)?;
    writeln!(out)?;
    out.flush()
}

fn opt_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.3} ms"))
}

fn human(out: &mut dyn Write, r: &Record) -> std::io::Result<()> {
    match r {
        Record::Run { seed, algorithm, target, flows, count, method } => {
            writeln!(
                out,
                "coapcc client: {flows} flow(s) x {count} {method} request(s) to {target}, algorithm {algorithm}, seed {seed}"
            )
        }
        Record::Exchange(e) if e.gave_up || e.reset => writeln!(
            out,
            "flow {} request {}{}: {} after {} transmission(s), timers {:?} ms",
            e.flow,
            e.request,
            e.block.map(|b| format!(" block {b}")).unwrap_or_default(),
            if e.reset { "reset" } else { "gave up" },
            e.transmissions,
            e.timers_ms
        ),
        Record::Exchange(_) => Ok(()),
        Record::Flow(_) => Ok(()),
        Record::Summary(s) => {
            writeln!(
                out,
                "requests: {} ok, {} failed; exchanges {}, transmissions {}, retransmissions {}, gave up {}{}",
                s.requests_ok,
                s.requests_failed,
                s.exchanges,
                s.transmissions,
                s.retransmissions,
                s.gave_up,
                if s.timed_out { " (timed out)" } else { "" }
            )?;
            writeln!(
                out,
                "RTT p50 {}, p99 {}; FCT p50 {}; {} flow(s) finished in {:.3} s",
                opt_ms(s.rtt_p50_ms),
                opt_ms(s.rtt_p99_ms),
                opt_ms(s.fct_p50_ms),
                s.flows_finished,
                s.wall_s
            )
        }
    }
}

/// `coapcc server`: serves until interrupted (Ctrl-C, SIGTERM) or `--duration-s`; prints its
/// address at start and its counters at the end.
pub fn server(args: &ServerArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let bind: SocketAddr =
        args.bind.parse().map_err(|_| CliError::usage(format!("--bind: `{}` is not ADDRESS:PORT", args.bind)))?;
    let lifetime = seconds("exchange-lifetime-s", args.exchange_lifetime_s)?;
    let duration = args.duration_s.map(|d| seconds("duration-s", d)).transpose()?;
    let seed = args.seed.unwrap_or_else(os_seed);
    let config = coapcc_udp::config::server_config(lifetime).map_err(|e| CliError::Failure(e.to_string()))?;
    let rt = runtime()?;
    rt.block_on(async {
        let socket = tokio::net::UdpSocket::bind(bind)
            .await
            .map_err(|e| CliError::Failure(format!("--bind {bind}: {e}")))?;
        let local = socket.local_addr()?;
        let endpoint = Endpoint::new(config, coapcc_sim::rng::stream_rng(seed, 0, coapcc_sim::rng::Stream::Server(0).id()))
            .map_err(|e| CliError::Failure(e.to_string()))?;
        let (handle, _) = spawn(socket, endpoint, Clock::start(), Options::server(Resources));
        writeln!(out, "coapcc server listening on {local} (seed {seed})")?;
        out.flush()?;
        wait_for_stop(duration).await;
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
        Ok(())
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uri_gives_host_port_path_and_query() {
        let u = parse_uri("coap://127.0.0.1:5684/data?size=100&x=%41").unwrap();
        assert_eq!(
            (u.host.as_str(), u.port, u.path.as_str(), u.query.as_str()),
            ("127.0.0.1", 5684, "data", "size=100&x=A")
        );
        let u = parse_uri("coap://[::1]/a/b").unwrap();
        assert_eq!((u.host.as_str(), u.port, u.path.as_str()), ("::1", 5683, "a/b"));
        assert_eq!(parse_uri("coap://localhost").unwrap().path, "");
    }

    #[test]
    fn a_bad_uri_is_named_with_its_problem() {
        assert!(parse_uri("http://x/").unwrap_err().contains("scheme"));
        assert!(parse_uri("coap://:5683/").unwrap_err().contains("no host"));
        assert!(parse_uri("coap://h:99999/").unwrap_err().contains("port"));
        assert!(parse_uri("coap://h/%zz").unwrap_err().contains("%-escape"));
    }
}
