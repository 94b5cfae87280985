//! One CoAP request as `coap-client` (libcoap) and `aiocoap-client` make it: `coapcc client`
//! without `--count`, `--flows`, `--json` or `--payload-bytes`.
//!
//! A confirmable request goes through the flow's endpoint and controller exactly as one of
//! the load generator ([`crate::client`]); a non-confirmable one (RFC 7252 §4.3) is sent as it
//! is and its response taken by token. A plain GET carries no Block2 option unless asked
//! ([`SingleRequest::block2_szx`]); when the server answers with blocks, the client fetches
//! the rest (RFC 7959 §2.4, the server's size). A body over 1 024 bytes is sent block-wise
//! (Block1, RFC 7959 §2.5); when the response to its last block carries Block2 block 0 with
//! More set (libcoap's `coap-server -e` echoes a large body so), the rest of that response
//! body is fetched with requests of the same method and options, without Block1 and without
//! a payload (RFC 7959 §2.7), and the whole is the response's body. With [`SingleRequest::observe`] the GET registers an
//! observation (RFC 7641 §3.1: Observe 0), every notification is handed on as it arrives, and
//! at the end the client deregisters with a GET carrying Observe 1 and the same token (§3.6).
//! A notification (or the registration's response) that carries Block2 block 0 with More set
//! is completed first: the rest of its body is fetched with GETs carrying Block2 and no
//! Observe (RFC 7959 §3.4); when the ETag changes during that, the representation changed and
//! the notification is dropped (a newer one follows). With FASOR's token echo
//! ([`EchoMode::Token`]) every copy of the registration carries the token plus its copy byte,
//! and the server keeps whichever copy's token it received first: notifications with any of
//! them belong to the observation. The deregistration carries the token of copy 0.
//!
//! Everything the endpoint does (each copy, its timer, the ACK or response) reaches the sink
//! as [`RequestEvent::Timeline`], for `coapcc client -v`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use coapcc_core::AnyConfig;
use coapcc_driver::rng::{Stream, stream_rng};
use coapcc_proto::{Code, EchoMode, EndpointConfig, Message, MessageType, Payload, Token, encode_uint, option};
use rand_core::Rng;
use tokio::sync::mpsc;

use crate::block::{self, Block, MAX_SZX, size_of_szx};
use crate::client::MAX_RECEIVED_BODY_BYTES;
use crate::clock::Clock;
use crate::runtime::{ExchangeFailure, Handle, TaskOptions, TaskReport, spawn};
use coapcc_proto::option::OBSERVE;

/// The ETag option (RFC 7252 §5.10.6).
const ETAG: u16 = 4;

/// Why a block-wise transfer stopped when the representation changed under it (the blocks'
/// ETags differ, RFC 7959 §2.4).
const CHANGED: &str = "the representation changed during the transfer (another ETag)";

/// How long a deregistration (RFC 7641 §3.6) may take before the client stops anyway.
pub const DEREGISTRATION_WAIT: Duration = Duration::from_secs(5);

/// One request to make.
#[derive(Clone, Debug)]
pub struct SingleRequest {
    /// The server.
    pub target: SocketAddr,
    /// Code, options (Uri-Path, Uri-Query, Content-Format, any other) and the whole body.
    pub template: Message,
    /// Confirmable (the default) or non-confirmable (RFC 7252 §4.3).
    pub confirmable: bool,
    /// Ask for blocks of `2^(szx+4)` bytes from the first request on (RFC 7959 §2.4); `None`:
    /// no Block2 option unless the server starts a block-wise transfer.
    pub block2_szx: Option<u8>,
    /// Observe the resource for this long (RFC 7641), or until `stop` resolves.
    pub observe: Option<Duration>,
    /// The configured algorithm of the confirmable exchanges.
    pub algorithm: AnyConfig,
    /// Seed of the endpoint's generator (Message IDs, tokens, dithering).
    pub seed: u64,
    /// EXCHANGE_LIFETIME: how long a separate response, or the response to a non-confirmable
    /// request, is waited for.
    pub exchange_lifetime: Duration,
}

/// What happens during a request, in order.
#[derive(Clone, Debug)]
pub enum RequestEvent {
    /// A datagram sent or received, or an endpoint event (copy sent with its timer, timer
    /// expired, acknowledgement), at its instant since the request started.
    Timeline(TaskReport),
    /// The response (the last block's message; `body` is the whole body of a block-wise
    /// transfer), or with Observe the first notification.
    Response {
        /// The (last) response message.
        response: Arc<Message>,
        /// The whole payload.
        body: Payload,
    },
    /// A later notification of an observation (RFC 7641 §3.3).
    Notification {
        /// The notification (block 0 of a block-wise one).
        message: Arc<Message>,
        /// Its whole payload (all blocks, RFC 7959 §3.4).
        body: Payload,
    },
}

/// Why a request has no response.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// The algorithm or the endpoint configuration is out of range.
    #[error(transparent)]
    Config(#[from] coapcc_core::ConfigError),
    /// The socket could not be bound.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The confirmable request was never acknowledged (the algorithm gave up).
    #[error("no acknowledgement: gave up after {transmissions} transmission(s)")]
    GaveUp {
        /// Copies sent.
        transmissions: usize,
    },
    /// The server answered with a Reset.
    #[error("the server answered with a Reset")]
    Reset,
    /// No (separate or non-confirmable) response within EXCHANGE_LIFETIME.
    #[error("no response within EXCHANGE_LIFETIME ({0:?})")]
    NoResponse(Duration),
    /// The server's blocks do not make a body (RFC 7959 §2.2–§2.5).
    #[error("a broken block-wise transfer: {0}")]
    Blocks(&'static str),
}

/// How a request ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestSummary {
    /// The code of the (last) response.
    pub code: Option<Code>,
    /// Notifications received after the first response.
    pub notifications: u64,
    /// The observation was deregistered with an acknowledged GET (Observe 1).
    pub deregistered: bool,
}

/// Makes `req`; `sink` receives every [`RequestEvent`]; an observation ends after its
/// duration or when `stop` resolves (e.g. on SIGINT), then deregisters.
pub async fn run(
    req: &SingleRequest,
    stop: impl std::future::Future<Output = ()>,
    sink: impl FnMut(RequestEvent),
) -> Result<RequestSummary, RequestError> {
    let clock = Clock::start();
    let config = crate::config::client_config(&req.algorithm)?;
    let config = EndpointConfig { exchange_lifetime: req.exchange_lifetime, ..config };
    let endpoint = crate::client::endpoint(&config, req.seed, 0)?;
    let socket = crate::runtime::bind(crate::client::local_for(req.target))?;
    let (handle, reports) = spawn(socket, endpoint, clock, TaskOptions::client().with_reports());
    // Tokens and Message IDs of what the client sends itself (NON requests, observations).
    let mut rng = stream_rng(req.seed, 0, Stream::Client(1).id());
    let mut session = Session { req, handle, reports, sink, rng_mid: rng.next_u32() as u16, echo: config.echo };
    let token = Token::new(&rng.next_u32().to_be_bytes()).unwrap_or(Token::EMPTY);
    let result = session.request(token, stop).await;
    session.handle.stop().await;
    while let Ok(r) = session.reports.try_recv() {
        (session.sink)(RequestEvent::Timeline(r));
    }
    result
}

struct Session<'a, S> {
    req: &'a SingleRequest,
    handle: Handle,
    reports: mpsc::UnboundedReceiver<TaskReport>,
    sink: S,
    rng_mid: u16,
    /// How the endpoint marks the copies of a confirmable request.
    echo: EchoMode,
}

impl<S: FnMut(RequestEvent)> Session<'_, S> {
    async fn request(
        &mut self,
        token: Token,
        stop: impl std::future::Future<Output = ()>,
    ) -> Result<RequestSummary, RequestError> {
        let req = self.req;
        let Some(duration) = req.observe else {
            let (response, body) = self.whole(token, None).await?;
            let code = response.code;
            (self.sink)(RequestEvent::Response { response, body });
            return Ok(RequestSummary { code: Some(code), ..RequestSummary::default() });
        };
        // RFC 7641 §3.1: register with Observe 0; every notification carries the token.
        let mut notifications = self.handle.watch_all(self.observation_tokens(token)).map_err(|_| stopped())?;
        let mut m = req.template.clone();
        m.token = token;
        m.set_option(OBSERVE, encode_uint(0));
        let first = self.exchange(m, Some(&mut notifications)).await?;
        let mut summary = RequestSummary { code: Some(first.code), ..RequestSummary::default() };
        let observing = first.option(OBSERVE).is_some();
        if let Some(body) = self.complete(token, first.clone()).await? {
            (self.sink)(RequestEvent::Response { response: first, body });
        }
        if !observing {
            // The server does not observe this resource: a plain response (RFC 7641 §3.1).
            return Ok(summary);
        }
        let until = tokio::time::sleep(duration);
        tokio::pin!(until, stop);
        loop {
            tokio::select! {
                n = notifications.recv() => match n {
                    Some(n) => {
                        summary.notifications += 1;
                        summary.code = Some(n.code);
                        let ended = n.option(OBSERVE).is_none() || n.code.class() != 2;
                        if let Some(body) = self.complete(token, n.clone()).await? {
                            (self.sink)(RequestEvent::Notification { message: n, body });
                        }
                        if ended {
                            // RFC 7641 §3.2: a notification without Observe (or an error) ends it.
                            return Ok(summary);
                        }
                    }
                    None => return Err(stopped()),
                },
                Some(r) = self.reports.recv() => (self.sink)(RequestEvent::Timeline(r)),
                () = &mut until => break,
                () = &mut stop => break,
            }
        }
        // RFC 7641 §3.6: deregister with a GET carrying Observe 1 and the same token.
        let mut m = req.template.clone();
        m.token = token;
        m.set_option(OBSERVE, encode_uint(1));
        let deregistration = self.exchange(m, Some(&mut notifications));
        if let Ok(Ok(r)) = tokio::time::timeout(DEREGISTRATION_WAIT, deregistration).await {
            summary.deregistered = r.option(OBSERVE).is_none();
        }
        Ok(summary)
    }

    /// The tokens the server may know the observation registered with `token` by: with the
    /// token echo, `token` plus any copy byte (the endpoint appends it, spec §7.7); else
    /// `token`.
    fn observation_tokens(&self, token: Token) -> Vec<Token> {
        if self.req.confirmable && self.echo == EchoMode::Token {
            (0..=u8::MAX).map(|c| token.with_suffix(c)).collect()
        } else {
            vec![token]
        }
    }

    /// The whole body of `msg`, a notification or the response to a registration: its
    /// payload, or, when it is block 0 of more (RFC 7959 §3.4), with the rest fetched; `None`
    /// when the representation changed during the fetch (another ETag).
    async fn complete(&mut self, token: Token, msg: Arc<Message>) -> Result<Option<Payload>, RequestError> {
        match msg.option(option::BLOCK2).map(Block::decode) {
            Some(Some(b)) if b.num == 0 && b.more && msg.code.class() == 2 => {
                match self.whole(token, Some(msg)).await {
                    Ok((_, body)) => Ok(Some(body)),
                    Err(RequestError::Blocks(CHANGED)) => Ok(None),
                    Err(e) => Err(e),
                }
            }
            _ => Ok(Some(msg.payload.clone())),
        }
    }

    /// The whole response: one exchange, or one per block (Block2 of a GET, Block1 of a
    /// body over 1 024 bytes, then Block2 when the response to its last block starts a
    /// block-wise body, RFC 7959 §2.7). With `first`, block 0 is that message (a
    /// notification's) and only the rest is asked for.
    async fn whole(
        &mut self,
        token: Token,
        first: Option<Arc<Message>>,
    ) -> Result<(Arc<Message>, Payload), RequestError> {
        let req = self.req;
        let body = req.template.payload.clone();
        // The request of every exchange, before its block options.
        let mut base = req.template.clone();
        let mut blockwise_put = first.is_none() && body.len() > size_of_szx(MAX_SZX);
        let mut szx = if blockwise_put { MAX_SZX } else { req.block2_szx.unwrap_or(MAX_SZX) };
        let mut num = 0u32;
        let mut received = Vec::new();
        let mut first = first;
        // The ETag of block 0: every later block must carry the same (RFC 7959 §2.4).
        let mut etag: Option<Option<Vec<u8>>> = None;
        loop {
            if let Some(resp) = first.take() {
                // Block 0 came as it is (a notification); take it as the answer to its request.
                let Some(b) = resp.option(option::BLOCK2).and_then(Block::decode) else {
                    return Err(RequestError::Blocks("a Block2 option that does not decode"));
                };
                etag = Some(resp.option(ETAG).map(<[u8]>::to_vec));
                received.extend_from_slice(&resp.payload);
                szx = b.szx;
                num = (received.len() / size_of_szx(szx)) as u32;
                continue;
            }
            let mut m = base.clone();
            if blockwise_put {
                let offset = num as usize * size_of_szx(szx);
                let end = (offset + size_of_szx(szx)).min(body.len());
                m.set_option(option::BLOCK1, Block { num, more: end < body.len(), szx }.encode());
                if num == 0 {
                    m.set_option(option::SIZE1, encode_uint(u32::try_from(body.len()).unwrap_or(u32::MAX)));
                }
                m.payload = body.slice(offset..end);
            } else if num > 0 || req.block2_szx.is_some() {
                m.set_option(option::BLOCK2, Block { num, more: false, szx }.encode());
            }
            // Each request of a block-wise transfer is a request of its own (RFC 7959 §2.3);
            // the NON ones get tokens of their own.
            let token = Token::new(&[token.as_bytes(), &num.to_be_bytes()].concat()[..8]).unwrap_or(token);
            let resp = if req.confirmable {
                self.exchange(m, None).await?
            } else {
                m.token = token;
                let mut rx = self.handle.watch(token).map_err(|_| stopped())?;
                let r = self.exchange(m, Some(&mut rx)).await;
                let _ = self.handle.unwatch(token);
                r?
            };
            if blockwise_put {
                let end = ((num as usize + 1) * size_of_szx(szx)).min(body.len());
                if end >= body.len() || resp.code != Code::CONTINUE {
                    if !block::block2_follows(resp.code, resp.option(option::BLOCK2).and_then(Block::decode)) {
                        let payload = resp.payload.clone();
                        return Ok((resp, payload));
                    }
                    // RFC 7959 §2.7: the response to the last block carries block 0 of a
                    // block-wise response body; the rest is asked for with requests like those
                    // of the upload, without Block1 and without a payload.
                    blockwise_put = false;
                    base.payload = Payload::new();
                    first = Some(resp);
                    continue;
                }
                // RFC 7959 §2.5: follow a smaller size the server asks for.
                if let Some(Some(b)) = resp.option(option::BLOCK1).map(Block::decode)
                    && b.szx < szx
                {
                    szx = b.szx;
                }
                if end % size_of_szx(szx) != 0 {
                    return Err(RequestError::Blocks("a Block1 size that does not divide the body sent"));
                }
                num = (end / size_of_szx(szx)) as u32;
                continue;
            }
            let Some(b) = resp.option(option::BLOCK2).map(Block::decode) else {
                let payload = if num == 0 { resp.payload.clone() } else { Payload::from(received) };
                return Ok((resp, payload));
            };
            let b = b.ok_or(RequestError::Blocks("a Block2 option that does not decode"))?;
            let tag = resp.option(ETAG).map(<[u8]>::to_vec);
            if etag.get_or_insert_with(|| tag.clone()) != &tag {
                return Err(RequestError::Blocks(CHANGED));
            }
            if b.offset_bytes() != received.len() {
                return Err(RequestError::Blocks("a block at another offset than the one asked for"));
            }
            if b.more && resp.payload.len() != b.size_bytes() {
                return Err(RequestError::Blocks("a block with the More flag that is not full"));
            }
            received.extend_from_slice(&resp.payload);
            if received.len() > MAX_RECEIVED_BODY_BYTES {
                return Err(RequestError::Blocks("a body over 64 MiB"));
            }
            if !b.more || resp.code.class() != 2 {
                return Ok((resp, Payload::from(received)));
            }
            szx = b.szx;
            num = (received.len() / size_of_szx(szx)) as u32;
        }
    }

    /// One exchange: confirmable through the endpoint, or non-confirmable (a message with
    /// `m`'s token, sent as it is, answered on `watched`). A response on `watched` (a separate
    /// response to a registration, a NON response) ends it as well; one that still carries
    /// Observe while `m` deregisters is a late notification and is handed on.
    async fn exchange(
        &mut self,
        m: Message,
        mut watched: Option<&mut mpsc::UnboundedReceiver<Arc<Message>>>,
    ) -> Result<Arc<Message>, RequestError> {
        let deregistering = m.option(OBSERVE).and_then(coapcc_proto::decode_uint) == Some(1);
        let lifetime = self.req.exchange_lifetime;
        let mut outcome = if self.req.confirmable {
            Some(self.handle.request(self.req.target, m).map_err(|_| stopped())?)
        } else {
            let mut m = m;
            m.mtype = MessageType::Non;
            m.mid = self.rng_mid;
            self.rng_mid = self.rng_mid.wrapping_add(1);
            self.handle.send(self.req.target, m).map_err(|_| stopped())?;
            None
        };
        let deadline = tokio::time::sleep(lifetime);
        tokio::pin!(deadline);
        loop {
            tokio::select! {
                biased;
                Some(r) = self.reports.recv() => (self.sink)(RequestEvent::Timeline(r)),
                o = async { outcome.as_mut().expect("guarded").await }, if outcome.is_some() => {
                    let Ok(o) = o else { return Err(stopped()) };
                    match o.result {
                        Ok(r) => return Ok(r),
                        // Answered separately, on `watched`.
                        Err(ExchangeFailure::NoResponse) if watched.is_some() => outcome = None,
                        Err(ExchangeFailure::NoResponse) => return Err(RequestError::NoResponse(lifetime)),
                        Err(ExchangeFailure::GaveUp) => {
                            return Err(RequestError::GaveUp { transmissions: o.transmissions() });
                        }
                        Err(ExchangeFailure::Reset) => return Err(RequestError::Reset),
                        Err(ExchangeFailure::Stopped) => return Err(stopped()),
                    }
                }
                r = async { watched.as_mut().expect("guarded").recv().await }, if watched.is_some() => match r {
                    Some(r) if deregistering && r.option(OBSERVE).is_some() => {
                        let body = r.payload.clone();
                        (self.sink)(RequestEvent::Notification { message: r, body });
                    }
                    Some(r) => return Ok(r),
                    None => return Err(stopped()),
                },
                () = &mut deadline, if outcome.is_none() => return Err(RequestError::NoResponse(lifetime)),
            }
        }
    }
}

/// The runtime stopped under the request (only when the process is ending).
fn stopped() -> RequestError {
    RequestError::Io(std::io::Error::other("the endpoint task stopped"))
}
