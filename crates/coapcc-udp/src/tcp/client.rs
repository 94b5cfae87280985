//! `coapcc client coap+tcp://…`: one request over CoAP over TCP (RFC 8323), or a Ping.
//!
//! The client connects, sends its CSM (announcing [`MAX_MESSAGE_BYTES`] and Block-Wise-Transfer,
//! so BERT is offered) and waits for the server's CSM ([`CSM_TIMEOUT`]) before its first
//! request, so that block sizes follow the server's Max-Message-Size and BERT is used only when
//! both CSMs offer it. Then:
//!
//! - **GET**: no Block2 option unless [`TcpRequest::block2_szx`] asks for one (SZX 0–6, or 7
//!   for BERT); when the server answers with blocks, the rest is fetched in the server's size:
//!   a BERT block (SZX 7) advances the block number by its payload over 1 024 bytes (RFC 8323
//!   §6), a plain one by one. Every block with the More flag must be full (a non-zero multiple
//!   of 1 024 bytes for BERT); the body may reach [`crate::client::MAX_RECEIVED_BODY_BYTES`].
//! - **PUT/POST/DELETE** with a body over 1 024 bytes (or one over the server's
//!   Max-Message-Size): Block1, in BERT blocks of the largest multiple of 1 024 bytes the
//!   server's Max-Message-Size takes (at most [`crate::server::MAX_BERT_PAYLOAD_BYTES`]) when
//!   BERT is allowed, else 1 024-byte blocks (smaller if the server's maximum needs it); a
//!   smaller size the server answers with is followed (RFC 7959 §2.5). When the response to
//!   the last block carries Block2 block 0 with More set (a response body too large for one
//!   message, as libcoap's `coap-server -e` echoes one), the rest is fetched like a GET's,
//!   with requests of the same method and options, no Block1 and no payload (RFC 7959 §2.7).
//! - **Ping** ([`TcpRequest::ping`]): a 7.02 Ping instead of a request, answered by a Pong.
//!
//! Each response must come within [`TcpRequest::answer_timeout`]. The server's Abort, Release
//! or closing the connection before the answer ends the request with the reason. At the end
//! the client closes the connection.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use coapcc_core::Instant;
use coapcc_proto::tcp::{
    BERT_UNIT_BYTES, PeerSettings, ProtocolError, Role, Session, SessionConfig, SessionError, SessionEvent, TcpMessage,
    bert_next_num, bert_payload_bytes, bert_payload_ok,
};
use coapcc_proto::{Code, Message, Payload, Token, encode_uint, option};
use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};

use super::{CSM_TIMEOUT, MAX_MESSAGE_BYTES, READ_CHUNK_BYTES, events, flush};
use crate::block::{self, BERT_SZX, Block, MAX_SZX, size_of_szx};
use crate::client::MAX_RECEIVED_BODY_BYTES;
use crate::clock::Clock;
use crate::server::MAX_BERT_PAYLOAD_BYTES;

/// One request (or Ping) to make.
#[derive(Clone, Debug)]
pub struct TcpRequest {
    /// The server.
    pub target: SocketAddr,
    /// Code, options and the whole body (type and Message ID are not used).
    pub template: Message,
    /// Ask for Block2 blocks of `2^(szx+4)` bytes (7: BERT) from the first request on.
    pub block2_szx: Option<u8>,
    /// Send a Ping instead of the request.
    pub ping: bool,
    /// How long each response (or the Pong) may take.
    pub answer_timeout: Duration,
}

/// What happens on the connection, in order, with instants since the run started.
#[derive(Clone, Debug)]
pub enum TcpEvent {
    /// Connected to the server.
    Connected {
        /// When.
        at: Instant,
        /// This side's address.
        local: SocketAddr,
    },
    /// A frame was written.
    Sent {
        /// When.
        at: Instant,
        /// Its code.
        code: Code,
        /// Its token.
        token: Token,
        /// Frame length, bytes.
        bytes: usize,
    },
    /// A frame arrived.
    Received {
        /// When.
        at: Instant,
        /// Its code.
        code: Code,
        /// Its token.
        token: Token,
        /// Frame length, bytes.
        bytes: usize,
    },
    /// The server's CSM: its settings in force, and whether BERT is allowed.
    PeerCsm {
        /// When.
        at: Instant,
        /// The server's settings.
        settings: PeerSettings,
        /// Both CSMs offer BERT.
        bert: bool,
    },
    /// A response arrived (one per block), with the time since its request was written.
    Answered {
        /// When.
        at: Instant,
        /// Its code.
        code: Code,
        /// Request written to response read.
        rtt: Duration,
    },
    /// The Pong, with the time since the Ping was written.
    Pong {
        /// When.
        at: Instant,
        /// Ping written to Pong read.
        rtt: Duration,
        /// The server took custody.
        custody: bool,
    },
    /// The response (the last block's message; `body` is the whole body).
    Response {
        /// The (last) response.
        response: Arc<Message>,
        /// The whole payload.
        body: Payload,
    },
}

/// Why a request has no response.
#[derive(Debug, thiserror::Error)]
pub enum TcpRequestError {
    /// The connection could not be made or failed.
    #[error("{target}: {source}")]
    Io {
        /// The server.
        target: SocketAddr,
        /// What failed.
        source: std::io::Error,
    },
    /// The server's CSM did not come within [`CSM_TIMEOUT`].
    #[error("no CSM from the server within {} s (RFC 8323 §3.3)", CSM_TIMEOUT.as_secs())]
    NoCsm,
    /// No response (or Pong) within the answer time-out.
    #[error("no response within {0:?}")]
    NoResponse(Duration),
    /// The server aborted the connection (RFC 8323 §5.6).
    #[error("the server aborted the connection (7.05 Abort{}): {diagnostic}", bad_csm_option.map(|n| format!(", Bad-CSM-Option {n}")).unwrap_or_default())]
    PeerAbort {
        /// Bad-CSM-Option.
        bad_csm_option: Option<u16>,
        /// The diagnostic payload.
        diagnostic: String,
    },
    /// The server released the connection before answering (RFC 8323 §5.5).
    #[error("the server released the connection (7.04 Release): {0}")]
    Released(String),
    /// The server broke the protocol; this side sent an Abort.
    #[error("aborted: {0}")]
    Protocol(ProtocolError),
    /// The server closed the connection before answering.
    #[error("the server closed the connection before answering")]
    Closed,
    /// The request cannot be sent (e.g. over the server's Max-Message-Size).
    #[error(transparent)]
    Session(#[from] SessionError),
    /// The server's blocks do not make a body (RFC 7959 §2.2–§2.5, RFC 8323 §6).
    #[error("a broken block-wise transfer: {0}")]
    Blocks(&'static str),
}

/// How a request ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpSummary {
    /// The code of the (last) response (`None` for a Ping).
    pub code: Option<Code>,
    /// Requests (one per block) made.
    pub exchanges: u32,
    /// BERT was allowed by both CSMs.
    pub bert: bool,
}

/// Makes `req`; `sink` receives every [`TcpEvent`].
pub async fn run(req: &TcpRequest, sink: impl FnMut(TcpEvent)) -> Result<TcpSummary, TcpRequestError> {
    let clock = Clock::start();
    let io = |source| TcpRequestError::Io { target: req.target, source };
    let stream = TcpStream::connect(req.target).await.map_err(io)?;
    let _ = stream.set_nodelay(true);
    let local = stream.local_addr().map_err(io)?;
    let (rd, wr) = stream.into_split();
    let config =
        SessionConfig { max_message_bytes: MAX_MESSAGE_BYTES, block_wise_transfer: true, ..SessionConfig::default() };
    let mut conn = Conn {
        req,
        clock,
        rd,
        wr,
        session: Session::new(Role::Initiator, config),
        sink,
        buf: vec![0; READ_CHUNK_BYTES],
        last_sent: clock.now(),
    };
    (conn.sink)(TcpEvent::Connected { at: clock.now(), local });
    let result = conn.run().await;
    let _ = tokio::io::AsyncWriteExt::shutdown(&mut conn.wr).await;
    result
}

struct Conn<'a, S> {
    req: &'a TcpRequest,
    clock: Clock,
    rd: OwnedReadHalf,
    wr: OwnedWriteHalf,
    session: Session,
    sink: S,
    buf: Vec<u8>,
    /// When the last frame was written (RTTs count from it).
    last_sent: Instant,
}

/// What the client waits for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wait {
    Csm,
    Response(Token),
    Pong(Token),
}

impl<S: FnMut(TcpEvent)> Conn<'_, S> {
    async fn run(&mut self) -> Result<TcpSummary, TcpRequestError> {
        self.flush().await?;
        self.wait(Wait::Csm, CSM_TIMEOUT).await.map_err(|e| match e {
            TcpRequestError::NoResponse(_) => TcpRequestError::NoCsm,
            e => e,
        })?;
        let bert = self.session.bert_allowed();
        if self.req.ping {
            let token = self.session.ping(false)?;
            self.flush().await?;
            self.wait(Wait::Pong(token), self.req.answer_timeout).await?;
            return Ok(TcpSummary { code: None, exchanges: 0, bert });
        }
        let (response, body, exchanges) = self.whole().await?;
        let code = response.code;
        (self.sink)(TcpEvent::Response { response: Arc::new(response.to_message()), body });
        Ok(TcpSummary { code: Some(code), exchanges, bert })
    }

    async fn flush(&mut self) -> Result<(), TcpRequestError> {
        let (clock, sink, last) = (self.clock, &mut self.sink, &mut self.last_sent);
        flush(&mut self.session, &mut self.wr, |t| {
            *last = clock.now();
            sink(TcpEvent::Sent { at: *last, code: t.code, token: t.token, bytes: t.bytes.len() });
        })
        .await
        .map_err(|source| TcpRequestError::Io { target: self.req.target, source })
    }

    /// Reads until `what` arrives (returned for a response), within `limit`.
    async fn wait(&mut self, what: Wait, limit: Duration) -> Result<Option<TcpMessage>, TcpRequestError> {
        let start = self.last_sent;
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let n = match tokio::time::timeout_at(deadline, self.rd.read(&mut self.buf)).await {
                Err(_) => return Err(TcpRequestError::NoResponse(limit)),
                Ok(Ok(0)) => return Err(TcpRequestError::Closed),
                Ok(Err(source)) => return Err(TcpRequestError::Io { target: self.req.target, source }),
                Ok(Ok(n)) => n,
            };
            self.session.receive(&self.buf[..n]);
            let mut found = None;
            let mut failure = None;
            for e in events(&mut self.session) {
                let at = self.clock.now();
                match e {
                    SessionEvent::Received { code, token, bytes } => {
                        (self.sink)(TcpEvent::Received { at, code, token, bytes });
                    }
                    SessionEvent::PeerCsm(settings) => {
                        let bert = self.session.bert_allowed();
                        (self.sink)(TcpEvent::PeerCsm { at, settings, bert });
                        if what == Wait::Csm {
                            found = Some(None);
                        }
                    }
                    SessionEvent::Response(m) if what == Wait::Response(m.token) => {
                        (self.sink)(TcpEvent::Answered { at, code: m.code, rtt: at - start });
                        found = Some(Some(m));
                    }
                    // The client has one Ping outstanding at most, so any Pong answers it:
                    // libcoap 4.3.1 answers with an empty token (RFC 8323 §5.4 asks for the Ping's).
                    SessionEvent::Pong { custody, .. } if matches!(what, Wait::Pong(_)) => {
                        (self.sink)(TcpEvent::Pong { at, rtt: at - start, custody });
                        found = Some(None);
                    }
                    SessionEvent::PeerAbort { bad_csm_option, diagnostic } => {
                        failure.get_or_insert(TcpRequestError::PeerAbort { bad_csm_option, diagnostic });
                    }
                    SessionEvent::Aborted(e) => {
                        failure.get_or_insert(TcpRequestError::Protocol(e));
                    }
                    SessionEvent::Release { diagnostic, .. } if found.is_none() => {
                        // The server still answers what it received (§5.5); keep waiting, but a
                        // close that follows is reported as the Release.
                        let _ = diagnostic;
                    }
                    _ => {}
                }
            }
            // Whatever the session has to say (a Pong, an Abort) goes out first.
            self.flush().await?;
            if let Some(e) = failure {
                return Err(e);
            }
            if let Some(found) = found {
                return Ok(found);
            }
        }
    }

    /// One request's exchange: the response.
    async fn exchange(&mut self, m: TcpMessage) -> Result<TcpMessage, TcpRequestError> {
        let token = self.session.request(m)?;
        self.flush().await?;
        let released = self.session.released_by_peer();
        match self.wait(Wait::Response(token), self.req.answer_timeout).await {
            Ok(Some(r)) => Ok(r),
            Ok(None) => Err(TcpRequestError::Closed),
            Err(TcpRequestError::Closed) if released || self.session.released_by_peer() => {
                Err(TcpRequestError::Released("closed before answering".into()))
            }
            Err(e) => Err(e),
        }
    }

    /// The whole response: one exchange, or one per block (Block1 of a body over 1 024 bytes
    /// or over the server's maximum, then Block2 when the response to its last block starts
    /// a block-wise body, RFC 7959 §2.7).
    async fn whole(&mut self) -> Result<(TcpMessage, Payload, u32), TcpRequestError> {
        let template = TcpMessage::from_message(&self.req.template);
        let body = template.payload.clone();
        let peer = self.session.peer();
        let bert = self.session.bert_allowed();
        let whole_fits = TcpMessage { token: Token::new(&[0; 8]).unwrap_or_default(), ..template.clone() }.wire_len()
            <= peer.max_message_bytes as usize;
        // As on UDP, a body over 1 024 bytes goes block-wise; so does any that does not fit.
        let blockwise_put = template.code != Code::GET && (body.len() > size_of_szx(MAX_SZX) || !whole_fits);
        if !blockwise_put {
            return self.blocks2(template, None, 0).await;
        }
        let (resp, exchanges) = self.put_blocks(&template, bert).await?;
        if !block::block2_follows(resp.code, resp.option(option::BLOCK2).and_then(Block::decode_reliable)) {
            let payload = resp.payload.clone();
            return Ok((resp, payload, exchanges));
        }
        // RFC 7959 §2.7: the other blocks are asked for with requests like those of the
        // upload, without Block1 and without a payload.
        let rest = TcpMessage { payload: Payload::new(), ..template };
        self.blocks2(rest, Some(resp), exchanges).await
    }

    /// A response body, in Block2 blocks when the server sends it so: `first` is block 0 when
    /// it came already (the response to an upload's last block); `exchanges` counts the
    /// requests made so far.
    async fn blocks2(
        &mut self,
        template: TcpMessage,
        mut first: Option<TcpMessage>,
        mut exchanges: u32,
    ) -> Result<(TcpMessage, Payload, u32), TcpRequestError> {
        let mut szx = self.req.block2_szx;
        let mut num = 0u32;
        let mut received = Vec::new();
        loop {
            let resp = match first.take() {
                Some(resp) => resp,
                None => {
                    let mut m = template.clone();
                    if let Some(s) = szx {
                        m.options.retain(|o| o.number != option::BLOCK2);
                        m.add_option(option::BLOCK2, Block { num, more: false, szx: s }.encode());
                    }
                    exchanges += 1;
                    self.exchange(m).await?
                }
            };
            let Some(b) = resp.option(option::BLOCK2).map(Block::decode_reliable) else {
                return Ok((resp.clone(), resp.payload, exchanges));
            };
            let Some(b) = b else { return Err(TcpRequestError::Blocks("a Block2 option that does not decode")) };
            if b.offset_bytes() != received.len() {
                return Err(TcpRequestError::Blocks("a block at another offset than asked for"));
            }
            let full = if b.is_bert() {
                bert_payload_ok(resp.payload.len(), b.more)
            } else {
                !b.more || resp.payload.len() == b.size_bytes()
            };
            if !full {
                return Err(TcpRequestError::Blocks("a block with the More flag that is not full"));
            }
            received.extend_from_slice(&resp.payload);
            if !b.more || resp.code.class() != 2 {
                return Ok((resp, Payload::from(received), exchanges));
            }
            if received.len() > MAX_RECEIVED_BODY_BYTES {
                return Err(TcpRequestError::Blocks("a body over the client's limit"));
            }
            num = if b.is_bert() { bert_next_num(b.num, resp.payload.len()) } else { b.num + 1 };
            szx = Some(b.szx);
        }
    }

    /// A body sent in Block1 blocks (BERT when allowed): the response to the last block and
    /// the requests made.
    async fn put_blocks(&mut self, template: &TcpMessage, bert: bool) -> Result<(TcpMessage, u32), TcpRequestError> {
        let body = template.payload.clone();
        let peer = self.session.peer();
        let mut skeleton = TcpMessage { token: Token::new(&[0; 8]).unwrap_or_default(), ..template.clone() };
        skeleton.add_option(option::BLOCK1, Block { num: Block::MAX_NUM, more: true, szx: BERT_SZX }.encode());
        skeleton.add_option(option::SIZE1, encode_uint(u32::try_from(body.len()).unwrap_or(u32::MAX)));
        let bert_bytes =
            if bert { bert_payload_bytes(&skeleton, peer.max_message_bytes, MAX_BERT_PAYLOAD_BYTES) } else { 0 };
        let mut szx = if bert_bytes > 0 { BERT_SZX } else { MAX_SZX };
        while szx > 0
            && szx != BERT_SZX
            && (TcpMessage { payload: Payload::from(vec![0; size_of_szx(szx)]), ..skeleton.clone() }).wire_len()
                > peer.max_message_bytes as usize
        {
            szx -= 1;
        }
        let mut offset = 0usize;
        let mut exchanges = 0;
        loop {
            let size = if szx == BERT_SZX { bert_bytes } else { size_of_szx(szx) };
            let end = (offset + size).min(body.len());
            let more = end < body.len();
            let num = (offset / if szx == BERT_SZX { BERT_UNIT_BYTES } else { size_of_szx(szx) }) as u32;
            let mut m = template.clone();
            m.add_option(option::BLOCK1, Block { num, more, szx }.encode());
            if num == 0 {
                m.add_option(option::SIZE1, encode_uint(u32::try_from(body.len()).unwrap_or(u32::MAX)));
            }
            m.payload = body.slice(offset..end);
            let resp = self.exchange(m).await?;
            exchanges += 1;
            if !more || resp.code != Code::CONTINUE {
                return Ok((resp, exchanges));
            }
            offset = end;
            // RFC 7959 §2.5: follow a smaller size the server asks for.
            if let Some(Some(b)) = resp.option(option::BLOCK1).map(Block::decode_reliable)
                && b.szx < szx
            {
                szx = b.szx;
                if offset % size_of_szx(szx) != 0 {
                    return Err(TcpRequestError::Blocks("the server's block size does not divide what was sent"));
                }
            }
        }
    }
}
