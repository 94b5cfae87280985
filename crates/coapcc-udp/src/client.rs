//! `coapcc client`: F concurrent flows, each its own endpoint, controller and socket, each
//! making N requests in turn against one server, block-wise (RFC 7959) when the body is large.
//!
//! A *request* is one application request (a GET of a whole resource, a PUT of a whole
//! body); it takes one confirmable *exchange* per block (Block2 for GET: the client asks for
//! 1 024-byte blocks from the start, RFC 7959 §2.4, and follows a smaller size if the server
//! answers with one; Block1 for PUT/POST bodies over 1 024 bytes, likewise). Every exchange
//! goes through the flow's controller, exactly as in the simulator.
//!
//! Records ([`ClientRecord`]) are JSON objects with a `"type"`: `run` (first: the seed and the
//! settings), `exchange` (one per CON exchange), `flow` (one per flow, when it ends), and
//! `summary` (last). Field names carry their units.

use std::net::SocketAddr;
use std::time::Duration;

use coapcc_core::{AnyConfig, Instant};
use coapcc_driver::rng::{Stream, stream_rng};
use coapcc_proto::{Code, Endpoint, EndpointConfig, Message};
use coapcc_proto::{Payload, encode_uint, option};
use serde::Serialize;
use tokio::sync::mpsc;

use crate::block::{Block, MAX_SZX, size_of_szx};
use crate::clock::Clock;
use crate::config::UriPartError;
use crate::runtime::{ExchangeFailure, Handle, TaskOptions, spawn};

/// The largest body a client accepts from a block-wise GET, bytes: with the block progress
/// rule (every block with the More flag is full, RFC 7959 §2.2), a server that never clears
/// the More flag cannot keep a flow going forever (`docs/real-networks.md`, "Bounds").
pub const MAX_RECEIVED_BODY_BYTES: usize = 64 << 20;

/// The largest body a client sends (PUT/POST, `payload_bytes`), bytes
/// (`docs/real-networks.md`, "Bounds").
pub const MAX_SENT_BODY_BYTES: usize = 64 << 20;

/// What one `coapcc client` run does.
#[derive(Clone, Debug)]
pub struct ClientRun {
    /// The server.
    pub target: SocketAddr,
    /// The URI's path without its first `/`, as written (segments separated by `/`,
    /// percent-encoded: [`crate::config::uri_request`]).
    pub path: String,
    /// The URI's query, as written (`&`-separated, percent-encoded).
    pub query: String,
    /// GET, PUT or POST.
    pub method: Code,
    /// Body of PUT/POST requests, bytes (block-wise beyond 1 024; at most
    /// [`MAX_SENT_BODY_BYTES`]).
    pub payload_bytes: usize,
    /// Requests per flow.
    pub count: u32,
    /// Concurrent flows.
    pub flows: u32,
    /// Name of the algorithm (for the records).
    pub algorithm_name: String,
    /// The configured algorithm.
    pub algorithm: AnyConfig,
    /// Seed of every flow's generator (flow `i` draws from stream `Client(i)`).
    pub seed: u64,
    /// Stop everything after this long (the run then fails).
    pub timeout: Option<Duration>,
    /// EXCHANGE_LIFETIME: how long after its first copy an exchange acknowledged with an
    /// empty ACK waits for its separate response ([`crate::config::EXCHANGE_LIFETIME`] by
    /// default); then the request fails.
    pub exchange_lifetime: Duration,
}

/// One record of a run (see the module documentation).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientRecord {
    /// The run's settings (first record).
    Run {
        /// Seed used (repeat a run with `--seed`).
        seed: u64,
        /// Algorithm name.
        algorithm: String,
        /// Server address.
        target: String,
        /// Flows.
        flows: u32,
        /// Requests per flow.
        count: u32,
        /// Method.
        method: String,
    },
    /// One confirmable exchange.
    Exchange(ExchangeRecord),
    /// One flow, when it ended.
    Flow(ClientFlowRecord),
    /// The whole run (last record).
    Summary(ClientSummary),
}

/// One confirmable exchange (one block of a request).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExchangeRecord {
    /// Flow number (0-based).
    pub flow: u32,
    /// Request number within the flow (0-based).
    pub request: u32,
    /// Block number for block-wise transfers (`null` for a plain exchange).
    pub block: Option<u32>,
    /// When the original copy left, seconds since the run started.
    pub start_s: f64,
    /// CoAP RTT (original copy to first acknowledgement), milliseconds; `null` on failure.
    pub rtt_ms: Option<f64>,
    /// Copies sent (original and retransmissions).
    pub transmissions: u32,
    /// The timer armed for each copy, milliseconds.
    pub timers_ms: Vec<f64>,
    /// The copy the acknowledgement echoed (token byte or option), when the algorithm uses one.
    pub echoed_copy: Option<u8>,
    /// The exchange was abandoned after the algorithm's last retransmission.
    pub gave_up: bool,
    /// The server answered with a Reset.
    pub reset: bool,
    /// Acknowledged with an empty ACK, but the separate response did not come within
    /// EXCHANGE_LIFETIME.
    pub no_response: bool,
    /// The response came separately (empty ACK, then the response).
    pub separate: bool,
    /// Response code as `c.dd` (`null` without a response).
    pub code: Option<String>,
    /// Response payload, bytes.
    pub payload_bytes: usize,
}

/// One flow.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClientFlowRecord {
    /// Flow number (0-based).
    pub flow: u32,
    /// Requests completed with a success (2.xx) response.
    pub requests_ok: u32,
    /// Requests that failed (give-up, Reset, an error response, a broken block sequence).
    pub requests_failed: u32,
    /// Confirmable exchanges made.
    pub exchanges: u32,
    /// Copies sent.
    pub transmissions: u32,
    /// Retransmissions.
    pub retransmissions: u32,
    /// Flow completion time: first request sent to last response, milliseconds.
    pub fct_ms: f64,
    /// Payload bytes received.
    pub bytes_received: u64,
    /// Payload bytes sent.
    pub bytes_sent: u64,
}

/// The whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClientSummary {
    /// Flows that finished all their requests.
    pub flows_finished: u32,
    /// Requests completed successfully.
    pub requests_ok: u64,
    /// Requests failed.
    pub requests_failed: u64,
    /// Exchanges made.
    pub exchanges: u64,
    /// Copies sent.
    pub transmissions: u64,
    /// Retransmissions.
    pub retransmissions: u64,
    /// Exchanges that gave up.
    pub gave_up: u64,
    /// Wall time of the run, seconds.
    pub wall_s: f64,
    /// Median RTT of the exchanges that completed, milliseconds.
    pub rtt_p50_ms: Option<f64>,
    /// 99th percentile RTT, milliseconds.
    pub rtt_p99_ms: Option<f64>,
    /// Median FCT, milliseconds.
    pub fct_p50_ms: Option<f64>,
    /// The run stopped at `--timeout-s`.
    pub timed_out: bool,
}

impl ClientSummary {
    /// Whether every request of every flow succeeded.
    pub fn success(&self, run: &ClientRun) -> bool {
        !self.timed_out && self.requests_failed == 0 && self.requests_ok == u64::from(run.count) * u64::from(run.flows)
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn secs(i: Instant) -> f64 {
    i.as_nanos() as f64 / 1e9
}

/// `GET`, `POST`, `PUT`, `DELETE`, or the code as `0.dd`.
pub fn method_name(c: Code) -> String {
    match c {
        Code::GET => "GET".into(),
        Code::POST => "POST".into(),
        Code::PUT => "PUT".into(),
        Code(0x04) => "DELETE".into(),
        c => code_text(c),
    }
}

fn code_text(c: Code) -> String {
    format!("{c:?}")
}

/// The body of PUT/POST requests: `payload_bytes` of the digits `0`–`9` repeated.
pub fn request_body(len: usize) -> Payload {
    Payload::from(crate::server::data_body(len))
}

/// Why [`run`] could not run: a run that is not one to make (refused before anything is
/// sent), or a socket that could not be bound.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// A request body over [`MAX_SENT_BODY_BYTES`].
    #[error("a payload of {bytes} bytes (at most {MAX_SENT_BODY_BYTES})")]
    PayloadTooLarge {
        /// The body asked for.
        bytes: usize,
    },
    /// A path segment or query argument that cannot be an option.
    #[error(transparent)]
    Uri(#[from] UriPartError),
    /// The algorithm or the endpoint configuration is out of range (names the key).
    #[error(transparent)]
    Config(#[from] coapcc_core::ConfigError),
    /// A socket could not be bound.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

impl ClientError {
    /// Whether the run was refused for its input (payload, URI, configuration) rather than
    /// failed on a socket.
    pub fn is_bad_input(&self) -> bool {
        !matches!(self, ClientError::Io(_))
    }
}

/// Runs every flow; `sink` receives every record in order of completion (`run` first,
/// `summary` last). Errors when a socket cannot be bound, and before anything is sent when
/// the run is not one to make (a bad path or query, a body over [`MAX_SENT_BODY_BYTES`]).
pub async fn run(run: &ClientRun, mut sink: impl FnMut(&ClientRecord)) -> Result<ClientSummary, ClientError> {
    if run.payload_bytes > MAX_SENT_BODY_BYTES {
        return Err(ClientError::PayloadTooLarge { bytes: run.payload_bytes });
    }
    let template = crate::config::uri_request(run.method, &run.path, &run.query)?;
    let clock = Clock::start();
    let config = crate::config::client_config(&run.algorithm)?;
    let config = EndpointConfig { exchange_lifetime: run.exchange_lifetime, ..config };
    sink(&ClientRecord::Run {
        seed: run.seed,
        algorithm: run.algorithm_name.clone(),
        target: run.target.to_string(),
        flows: run.flows,
        count: run.count,
        method: method_name(run.method),
    });
    let bind = local_for(run.target);
    let (tx, mut rx) = mpsc::unbounded_channel();
    let mut tasks = tokio::task::JoinSet::new();
    for f in 0..run.flows {
        let socket = crate::runtime::bind(bind)?;
        let endpoint = endpoint(&config, run.seed, f)?;
        let (handle, _) = spawn(socket, endpoint, clock, TaskOptions::client());
        let (tx, run, template) = (tx.clone(), run.clone(), template.clone());
        tasks.spawn(async move {
            let record = flow(&handle, &run, &template, f, clock, &tx).await;
            let _ = tx.send(ClientRecord::Flow(record));
            handle.stop().await;
        });
    }
    drop(tx);
    let mut summary = ClientSummary::default();
    let mut rtts = Vec::new();
    let mut fcts = Vec::new();
    let deadline = run.timeout.map(|t| tokio::time::Instant::now() + t);
    loop {
        let next = match deadline {
            Some(d) => match tokio::time::timeout_at(d, rx.recv()).await {
                Ok(r) => r,
                Err(_) => {
                    summary.timed_out = true;
                    None
                }
            },
            None => rx.recv().await,
        };
        let Some(record) = next else { break };
        match &record {
            ClientRecord::Exchange(e) => {
                summary.exchanges += 1;
                summary.transmissions += u64::from(e.transmissions);
                summary.retransmissions += u64::from(e.transmissions.saturating_sub(1));
                summary.gave_up += u64::from(e.gave_up);
                rtts.extend(e.rtt_ms);
            }
            ClientRecord::Flow(f) => {
                summary.flows_finished += 1;
                summary.requests_ok += u64::from(f.requests_ok);
                summary.requests_failed += u64::from(f.requests_failed);
                fcts.push(f.fct_ms);
            }
            _ => {}
        }
        sink(&record);
    }
    tasks.abort_all();
    while tasks.join_next().await.is_some() {}
    summary.wall_s = secs(clock.now());
    summary.rtt_p50_ms = quantile(&mut rtts, 0.5);
    summary.rtt_p99_ms = quantile(&mut rtts, 0.99);
    summary.fct_p50_ms = quantile(&mut fcts, 0.5);
    sink(&ClientRecord::Summary(summary.clone()));
    Ok(summary)
}

/// The local address a client socket towards `target` binds: a loopback target gets a
/// loopback socket (nothing listens on other interfaces), any other the unspecified address;
/// an ephemeral port.
pub fn local_for(target: SocketAddr) -> SocketAddr {
    match target {
        SocketAddr::V4(t) if t.ip().is_loopback() => ([127, 0, 0, 1], 0).into(),
        SocketAddr::V4(_) => ([0, 0, 0, 0], 0).into(),
        SocketAddr::V6(t) if t.ip().is_loopback() => (std::net::Ipv6Addr::LOCALHOST, 0).into(),
        SocketAddr::V6(_) => (std::net::Ipv6Addr::UNSPECIFIED, 0).into(),
    }
}

/// The endpoint of flow `f`: its own generator, stream `Client(f)` of `seed`.
pub fn endpoint(
    config: &EndpointConfig,
    seed: u64,
    f: u32,
) -> Result<crate::runtime::UdpEndpoint, coapcc_core::ConfigError> {
    Endpoint::new(config.clone(), stream_rng(seed, 0, Stream::Client(f).id()))
}

/// The `q` quantile (nearest rank) of `v` (sorted in place); `None` when empty.
pub fn quantile(v: &mut [f64], q: f64) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let i = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    Some(v[i])
}

/// One flow: `run.count` requests in turn.
async fn flow(
    handle: &Handle,
    run: &ClientRun,
    template: &Message,
    f: u32,
    clock: Clock,
    tx: &mpsc::UnboundedSender<ClientRecord>,
) -> ClientFlowRecord {
    let mut rec = ClientFlowRecord { flow: f, ..ClientFlowRecord::default() };
    let mut first: Option<Instant> = None;
    let mut last = clock.now();
    let body = if run.method == Code::GET { Payload::new() } else { request_body(run.payload_bytes) };
    for r in 0..run.count {
        let ok = request(handle, run, template, f, r, &body, &mut rec, &mut first, &mut last, tx).await;
        if ok {
            rec.requests_ok += 1;
        } else {
            rec.requests_failed += 1;
        }
    }
    rec.fct_ms = first.map_or(0.0, |t| ms(last - t));
    rec
}

/// One request: one exchange, or one per block. Returns whether it succeeded.
#[allow(clippy::too_many_arguments)]
async fn request(
    handle: &Handle,
    run: &ClientRun,
    template: &Message,
    f: u32,
    r: u32,
    body: &Payload,
    rec: &mut ClientFlowRecord,
    first: &mut Option<Instant>,
    last: &mut Instant,
    tx: &mpsc::UnboundedSender<ClientRecord>,
) -> bool {
    let blockwise_put = run.method != Code::GET && body.len() > size_of_szx(MAX_SZX);
    let mut szx = MAX_SZX;
    let mut num = 0u32;
    let mut offset = 0usize;
    let mut received = 0usize;
    loop {
        let mut m = template.clone();
        let mut block = None;
        if run.method == Code::GET {
            // RFC 7959 §2.4: ask for the block size from the first request on.
            m.add_option(option::BLOCK2, Block { num, more: false, szx }.encode());
            // Numbered when the transfer turns out block-wise (see below).
            block = (num > 0).then_some(num);
        } else if blockwise_put {
            let size = size_of_szx(szx);
            let end = (offset + size).min(body.len());
            let more = end < body.len();
            m.add_option(option::BLOCK1, Block { num, more, szx }.encode());
            if num == 0 {
                m.add_option(option::SIZE1, encode_uint(u32::try_from(body.len()).unwrap_or(u32::MAX)));
            }
            m.payload = body.slice(offset..end);
            block = Some(num);
        } else {
            m.payload = body.clone();
        }
        let sent_bytes = m.payload.len();
        let Ok(rx) = handle.request(run.target, m) else { return false };
        let Ok(out) = rx.await else { return false };
        let start = out.first_sent.unwrap_or(out.ended);
        first.get_or_insert(start);
        *last = out.ended;
        rec.exchanges += 1;
        rec.transmissions += u32::from(out.copies);
        rec.retransmissions += u32::from(out.copies.saturating_sub(1));
        rec.bytes_sent += sent_bytes as u64;
        let response = out.result.as_ref().ok();
        if run.method == Code::GET && response.is_some_and(|m| m.option(option::BLOCK2).is_some()) {
            block = Some(num);
        }
        let e = ExchangeRecord {
            flow: f,
            request: r,
            block,
            start_s: secs(start),
            rtt_ms: out.rtt.map(ms),
            transmissions: u32::from(out.copies),
            timers_ms: out.timers.iter().copied().map(ms).collect(),
            echoed_copy: out.echoed_copy,
            gave_up: out.result == Err(ExchangeFailure::GaveUp),
            reset: out.result == Err(ExchangeFailure::Reset),
            no_response: out.result == Err(ExchangeFailure::NoResponse),
            separate: out.separate,
            code: response.map(|m| code_text(m.code)),
            payload_bytes: response.map_or(0, |m| m.payload.len()),
        };
        let _ = tx.send(ClientRecord::Exchange(e));
        let Some(resp) = response else { return false };
        rec.bytes_received += resp.payload.len() as u64;
        if resp.code.class() != 2 {
            return false;
        }
        if run.method == Code::GET {
            let Some(b) = resp.option(option::BLOCK2).map(Block::decode) else { return true };
            let Some(b) = b else { return false };
            // RFC 7959 §2.2: every block but the last fills its size, so each exchange of a
            // transfer makes progress; one that does not ends it.
            if b.offset_bytes() != received || (b.more && resp.payload.len() != b.size_bytes()) {
                return false;
            }
            received += resp.payload.len();
            if !b.more {
                return true;
            }
            // Follow the server's block size (it may only shrink, RFC 7959 §2.4).
            szx = szx.min(b.szx);
            if received > MAX_RECEIVED_BODY_BYTES || received % size_of_szx(szx) != 0 {
                return false;
            }
            num = (received / size_of_szx(szx)) as u32;
        } else if blockwise_put {
            offset = (offset + size_of_szx(szx)).min(body.len());
            if offset >= body.len() {
                return true;
            }
            if resp.code != Code::CONTINUE {
                // A final response before the last block: the server took what it wanted.
                return resp.code.class() == 2;
            }
            if let Some(Some(b)) = resp.option(option::BLOCK1).map(Block::decode) {
                szx = szx.min(b.szx);
            }
            if offset % size_of_szx(szx) != 0 {
                return false;
            }
            num = (offset / size_of_szx(szx)) as u32;
        } else {
            return true;
        }
    }
}
