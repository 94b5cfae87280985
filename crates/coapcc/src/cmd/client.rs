//! `coapcc client`: confirmable requests over real UDP through `coapcc-udp`'s client.

use std::io::Write;
use std::time::Duration;

use coapcc_driver::scenario::Setting;
use coapcc_proto::Code;
use coapcc_udp::client::{ClientRecord, ClientRun, MAX_SENT_BODY_BYTES};
use coapcc_udp::clock::os_seed;
use coapcc_udp::config::parse_uri;

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
    /// Body of PUT/POST requests, bytes (block-wise, RFC 7959 Block1, beyond 1024; at most
    /// 64 MiB).
    #[arg(long, default_value_t = 0)]
    pub payload_bytes: usize,
    /// Give up the whole run after this many seconds (exit status 1).
    #[arg(long)]
    pub timeout_s: Option<f64>,
    /// How long an exchange acknowledged with an empty ACK waits for its separate response
    /// (EXCHANGE_LIFETIME), seconds; then its request fails.
    #[arg(long, default_value_t = coapcc_udp::config::EXCHANGE_LIFETIME.as_secs_f64())]
    pub exchange_lifetime_s: f64,
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

/// A current-thread tokio runtime.
pub fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| CliError::Failure(e.to_string()))
}

/// `s` seconds as a duration; a negative or non-finite value is bad input naming `--NAME`.
pub fn seconds(name: &str, s: f64) -> Result<Duration, CliError> {
    Duration::try_from_secs_f64(s)
        .map_err(|_| CliError::usage(format!("--{name}: must be a non-negative number of seconds")))
}

/// `coapcc client`: exit status 1 if any request failed or the time-out passed.
pub fn run(args: &ClientArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let uri = parse_uri(&args.uri).map_err(|e| CliError::usage(e.to_string()))?;
    let algorithm = coapcc_udp::config::algorithm(&args.algorithm, &args.set)?;
    let timeout = args.timeout_s.map(|t| seconds("timeout-s", t)).transpose()?;
    let exchange_lifetime = seconds("exchange-lifetime-s", args.exchange_lifetime_s)?;
    if args.flows == 0 {
        return Err(CliError::usage("--flows: must be at least 1"));
    }
    if args.payload_bytes > MAX_SENT_BODY_BYTES {
        return Err(CliError::usage(format!("--payload-bytes: at most {MAX_SENT_BODY_BYTES} bytes")));
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
        exchange_lifetime,
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

fn json_line(out: &mut dyn Write, r: &ClientRecord) -> std::io::Result<()> {
    serde_json::to_writer(&mut *out, r)?;
    writeln!(out)?;
    out.flush()
}

fn opt_ms(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.3} ms"))
}

/// The human-readable lines of `r`, flushed at once: a run stopped by a signal keeps what it
/// printed, the seed line first.
fn human(out: &mut dyn Write, r: &ClientRecord) -> std::io::Result<()> {
    human_lines(out, r)?;
    out.flush()
}

fn human_lines(out: &mut dyn Write, r: &ClientRecord) -> std::io::Result<()> {
    match r {
        ClientRecord::Run { seed, algorithm, target, flows, count, method } => {
            writeln!(
                out,
                "coapcc client: {flows} flow(s) x {count} {method} request(s) to {target}, algorithm {algorithm}, seed {seed}"
            )
        }
        ClientRecord::Exchange(e) if e.gave_up || e.reset || e.no_response => writeln!(
            out,
            "flow {} request {}{}: {} after {} transmission(s), timers {:?} ms",
            e.flow,
            e.request,
            e.block.map(|b| format!(" block {b}")).unwrap_or_default(),
            if e.reset {
                "reset"
            } else if e.no_response {
                "no separate response within EXCHANGE_LIFETIME"
            } else {
                "gave up"
            },
            e.transmissions,
            e.timers_ms
        ),
        ClientRecord::Exchange(_) => Ok(()),
        ClientRecord::Flow(_) => Ok(()),
        ClientRecord::Summary(s) => {
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
