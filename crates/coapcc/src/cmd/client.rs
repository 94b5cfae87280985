//! `coapcc client`: one request as `coap-client` makes it (the response printed; [`single`]),
//! or with `--count`, `--flows`, `--json` or `--payload-bytes` a load generator of confirmable
//! requests over real UDP through `coapcc-udp`'s client.

mod record;
mod show;
mod single;
mod tcp;

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
    /// The resource: `coap://HOST[:PORT]/PATH[?QUERY]` (port 5683 by default; each path
    /// segment and query argument percent-decoded after splitting, RFC 7252 §6.4), or
    /// `coap+tcp://…` for CoAP over TCP (RFC 8323; one request, no `--algorithm`).
    pub uri: String,
    /// Congestion-control algorithm (see `coapcc algorithms`).
    #[arg(long, short, default_value = "default")]
    pub algorithm: String,
    /// Override one of the algorithm's keys (repeatable), as `coapcc replay --set`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<Setting>,
    /// Load generator: requests per flow (each one confirmable exchange, or one per block).
    #[arg(long)]
    pub count: Option<u32>,
    /// Load generator: concurrent flows, each its own endpoint, controller and socket.
    #[arg(long)]
    pub flows: Option<u32>,
    /// Request method.
    #[arg(long, short, value_enum, default_value = "get")]
    pub method: Method,
    /// Load generator: a body of this many bytes for PUT/POST requests (block-wise, RFC 7959
    /// Block1, beyond 1024; at most 64 MiB).
    #[arg(long)]
    pub payload_bytes: Option<usize>,
    /// The request's payload, as text.
    #[arg(long = "payload", short = 'e', value_name = "TEXT", conflicts_with = "payload_file")]
    pub payload: Option<String>,
    /// The request's payload, from a file (`-`: standard input).
    #[arg(long, short = 'f', value_name = "FILE")]
    pub payload_file: Option<std::path::PathBuf>,
    /// Content-Format of the payload: a number or a media type (`text/plain`,
    /// `application/cbor`, `application/json`, or `text`, `json`, `cbor`, …).
    #[arg(long, short = 't', value_name = "FORMAT")]
    pub content_format: Option<String>,
    /// Accept: the Content-Format wanted (number or media type).
    #[arg(long, short = 'A', value_name = "FORMAT")]
    pub accept: Option<String>,
    /// Another option, `NUMBER,VALUE` (repeatable): a decimal value for an integer option
    /// (Observe, Max-Age, Size1…), `0x…` for bytes, otherwise text.
    #[arg(long = "option", short = 'O', value_name = "NUM,VALUE")]
    pub options: Vec<String>,
    /// A non-confirmable request (RFC 7252 §4.3): sent once, never retransmitted.
    #[arg(long, short = 'N')]
    pub non: bool,
    /// Ask for Block2 blocks of this size from the first request on (16–1024, a power of
    /// two; RFC 7959 §2.4). Without it a GET carries no Block2 option unless the server
    /// starts a block-wise transfer.
    #[arg(long, short = 'b', value_name = "BYTES")]
    pub block_size: Option<usize>,
    /// Observe the resource (RFC 7641) for this many seconds, printing every notification as
    /// it arrives, then deregister.
    #[arg(long = "observe-s", short = 's', value_name = "SECONDS")]
    pub observe_s: Option<f64>,
    /// Observe the resource until interrupted (Ctrl-C), then deregister.
    #[arg(long, conflicts_with = "observe_s")]
    pub observe: bool,
    /// Write the response payload to FILE (atomically) instead of printing it.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<std::path::PathBuf>,
    /// Record the run in folder DIR (created if missing; checked writable before the run):
    /// `run.json`, and `timeline.csv`, `messages.json`, `summary.json` for one request or
    /// `exchanges.csv`, `flows.csv`, `summary.json` for the load generator (see
    /// docs/real-networks.md).
    #[arg(long, value_name = "DIR")]
    pub out: Option<std::path::PathBuf>,
    /// Print every transmission on standard error as it happens: each copy with its timer,
    /// expiries, the ACK or response, with times since the request started.
    #[arg(long, short = 'v')]
    pub verbose: bool,
    /// Give up the whole run after this many seconds (exit status 1).
    #[arg(long, short = 'B')]
    pub timeout_s: Option<f64>,
    /// How long an exchange acknowledged with an empty ACK waits for its separate response
    /// (EXCHANGE_LIFETIME), seconds; then its request fails.
    #[arg(long, default_value_t = coapcc_udp::config::EXCHANGE_LIFETIME.as_secs_f64())]
    pub exchange_lifetime_s: f64,
    /// Load generator: JSON lines, one object per exchange, per flow, then a summary (see
    /// docs/real-networks.md).
    #[arg(long)]
    pub json: bool,
    /// Seed of the flows' generators (dithering, Message IDs, tokens); from the OS when absent.
    /// The seed used is always printed.
    #[arg(long)]
    pub seed: Option<u64>,
    /// CoAP over TCP only: send a 7.02 Ping (RFC 8323 §5.4) instead of the request and print
    /// the Pong with its round-trip time.
    #[arg(long)]
    pub ping: bool,
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
    /// DELETE.
    #[value(name = "DELETE", alias = "delete")]
    Delete,
}

impl Method {
    fn code(self) -> Code {
        match self {
            Method::Get => Code::GET,
            Method::Put => Code::PUT,
            Method::Post => Code::POST,
            Method::Delete => Code(4),
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

impl ClientArgs {
    /// Whether this is a load-generator run (`--count`, `--flows`, `--json`, `--payload-bytes`).
    fn is_load(&self) -> bool {
        self.count.is_some() || self.flows.is_some() || self.json || self.payload_bytes.is_some()
    }

    /// The first single-request option given, by its flag.
    fn single_option(&self) -> Option<&'static str> {
        [
            (self.payload.is_some(), "-e"),
            (self.payload_file.is_some(), "-f"),
            (self.content_format.is_some(), "-t"),
            (self.accept.is_some(), "-A"),
            (!self.options.is_empty(), "-O"),
            (self.non, "-N"),
            (self.block_size.is_some(), "-b"),
            (self.observe_s.is_some(), "-s"),
            (self.observe, "--observe"),
            (self.output.is_some(), "-o"),
            (self.verbose, "-v"),
        ]
        .into_iter()
        .find_map(|(given, flag)| given.then_some(flag))
    }
}

/// `coapcc client`: one request (see [`single`]), or the load generator. Exit status 1 if a
/// request failed, the response was not a success (2.xx) or the time-out passed.
pub fn run(args: &ClientArgs, out: &mut dyn Write) -> Result<(), CliError> {
    if args.uri.starts_with("coap+tcp://") {
        let (_, uri) =
            coapcc_udp::config::parse_uri_transport(&args.uri).map_err(|e| CliError::usage(e.to_string()))?;
        return tcp::run(args, uri, out);
    }
    if args.ping {
        return Err(CliError::usage("--ping: a Ping is CoAP over TCP's (RFC 8323 §5.4); use a coap+tcp:// URI"));
    }
    if !args.is_load() {
        return single::run(args, out);
    }
    if let Some(flag) = args.single_option() {
        return Err(CliError::usage(format!(
            "{flag} is an option of a single request, not of the load generator (--count, --flows, --json, --payload-bytes)"
        )));
    }
    let (count, flows, payload_bytes) =
        (args.count.unwrap_or(1), args.flows.unwrap_or(1), args.payload_bytes.unwrap_or(0));
    let uri = parse_uri(&args.uri).map_err(|e| CliError::usage(e.to_string()))?;
    let algorithm = coapcc_udp::config::algorithm(&args.algorithm, &args.set)?;
    let timeout = args.timeout_s.map(|t| seconds("timeout-s", t)).transpose()?;
    let exchange_lifetime = seconds("exchange-lifetime-s", args.exchange_lifetime_s)?;
    if flows == 0 {
        return Err(CliError::usage("--flows: must be at least 1"));
    }
    if payload_bytes > MAX_SENT_BODY_BYTES {
        return Err(CliError::usage(format!("--payload-bytes: at most {MAX_SENT_BODY_BYTES} bytes")));
    }
    let seed = args.seed.unwrap_or_else(os_seed);
    let out_dir = args.out.as_deref().map(record::OutDir::check).transpose()?;
    let rt = runtime()?;
    let target = resolve(&rt, &args.uri, &uri)?;
    let run = ClientRun {
        target,
        path: uri.path,
        query: uri.query,
        method: args.method.code(),
        payload_bytes,
        count,
        flows,
        algorithm_name: args.algorithm.clone(),
        algorithm,
        seed,
        timeout,
        exchange_lifetime,
    };
    let mut write_error = None;
    let (mut exchanges, mut flow_records, mut last) = (Vec::new(), Vec::new(), None);
    // A signal ends the run: what was printed is kept (every record is flushed at once).
    let summary = rt.block_on(async {
        let stop = single::interrupted();
        let sink = |r: &ClientRecord| {
            let res = if args.json { json_line(out, r) } else { human(out, r) };
            if let Err(e) = res {
                write_error.get_or_insert(e);
            }
            if out_dir.is_some() {
                match r {
                    ClientRecord::Exchange(e) => exchanges.push(e.clone()),
                    ClientRecord::Flow(f) => flow_records.push(f.clone()),
                    ClientRecord::Summary(s) => last = Some(s.clone()),
                    ClientRecord::Run { .. } => {}
                }
            }
        };
        tokio::select! {
            summary = coapcc_udp::client::run(&run, sink) => summary.map(Some),
            () = stop => Ok(None),
        }
    })?;
    if let Some(dir) = out_dir {
        dir.write(
            seed,
            &[
                ("exchanges.csv", record::exchanges_csv(&exchanges)),
                ("flows.csv", record::flows_csv(&flow_records)),
                ("summary.json", record::json(&last)),
            ],
        )?;
    }
    let Some(summary) = summary else {
        return Err(CliError::Failure("stopped by a signal".into()));
    };
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

/// The socket address of `uri`'s host (the first the resolver gives).
fn resolve(
    rt: &tokio::runtime::Runtime,
    text: &str,
    uri: &coapcc_udp::config::CoapUri,
) -> Result<std::net::SocketAddr, CliError> {
    rt.block_on(tokio::net::lookup_host((uri.host.as_str(), uri.port)))
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| CliError::usage(format!("bad URI `{text}`: cannot resolve host `{}`", uri.host)))
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
