//! The `coap+tcp://` listener of `coapcc server` (RFC 8323 §3): the resources of
//! [`crate::server`] (without `/obs`: Observe is not offered over TCP) answered on every
//! connection.
//!
//! Each connection is one task with one [`Session`] (the acceptor: it sends its CSM at once,
//! announcing [`MAX_MESSAGE_BYTES`] and Block-Wise-Transfer, so BERT is offered). Requests are
//! answered in the order they arrive, each before the next is read; a Ping is answered with a
//! Pong; the peer's Release closes the connection once everything received is answered; the
//! peer's Abort closes it at once; a protocol error of the peer makes the session send an
//! Abort and the connection close.
//!
//! Bounds (`docs/real-networks.md`, "CoAP over TCP"): at most
//! [`TcpServerOptions::max_connections`] connections at once (one more is closed as soon as it
//! is accepted, counted as refused); a frame over [`MAX_MESSAGE_BYTES`] aborts its connection
//! before its body is buffered; the peer's CSM must come within [`CSM_TIMEOUT`]; a connection
//! silent for [`TcpServerOptions::idle_timeout`] gets a Release and is closed
//! [`RELEASE_GRACE`] later; a write blocked for [`WRITE_TIMEOUT`] closes the connection; at most
//! 64 requests may wait for their responses (more abort).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use coapcc_proto::tcp::{Role, Session, SessionConfig, SessionError, SessionEvent, SessionStats, TcpMessage};
use coapcc_proto::{Code, Payload};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::{JoinHandle, JoinSet};

use super::{CSM_TIMEOUT, MAX_MESSAGE_BYTES, READ_CHUNK_BYTES, WRITE_TIMEOUT, events, flush};
use crate::server::{ReliableLimits, reply_reliable};

/// Connections served at once by default.
pub const MAX_CONNECTIONS: usize = 256;

/// How long a connection may stay silent by default before it is released, seconds (the UDP
/// server's EXCHANGE_LIFETIME rounded up).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// How long after its Release a connection waits for the peer to close it.
pub const RELEASE_GRACE: Duration = Duration::from_secs(5);

/// The most requests of one connection waiting for their responses.
pub const MAX_PENDING_REQUESTS: usize = 64;

/// What the listener allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TcpServerOptions {
    /// Connections at once.
    pub max_connections: usize,
    /// Silence after which a connection is released.
    pub idle_timeout: Duration,
}

impl Default for TcpServerOptions {
    fn default() -> Self {
        TcpServerOptions { max_connections: MAX_CONNECTIONS, idle_timeout: IDLE_TIMEOUT }
    }
}

/// Counters of the listener, summed over its connections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TcpServerStats {
    /// Connections accepted and served.
    pub connections: u64,
    /// Connections closed at once for [`TcpServerOptions::max_connections`].
    pub refused: u64,
    /// Messages received (any code).
    pub messages_received: u64,
    /// Messages sent (any code).
    pub messages_sent: u64,
    /// Requests answered.
    pub requests: u64,
    /// Pongs sent.
    pub pongs_sent: u64,
    /// Connections this side aborted (a protocol error of the peer, a missing CSM).
    pub aborts_sent: u64,
    /// Connections the peer aborted.
    pub aborts_received: u64,
    /// Connections released for silence.
    pub idle_releases: u64,
}

#[derive(Default)]
struct Counters {
    connections: AtomicU64,
    refused: AtomicU64,
    messages_received: AtomicU64,
    messages_sent: AtomicU64,
    requests: AtomicU64,
    pongs_sent: AtomicU64,
    aborts_sent: AtomicU64,
    aborts_received: AtomicU64,
    idle_releases: AtomicU64,
}

impl Counters {
    fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    fn snapshot(&self) -> TcpServerStats {
        let g = |c: &AtomicU64| c.load(Ordering::Relaxed);
        TcpServerStats {
            connections: g(&self.connections),
            refused: g(&self.refused),
            messages_received: g(&self.messages_received),
            messages_sent: g(&self.messages_sent),
            requests: g(&self.requests),
            pongs_sent: g(&self.pongs_sent),
            aborts_sent: g(&self.aborts_sent),
            aborts_received: g(&self.aborts_received),
            idle_releases: g(&self.idle_releases),
        }
    }
}

/// A running listener.
#[derive(Debug)]
pub struct TcpServer {
    local: SocketAddr,
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
    counters: Arc<CountersHandle>,
}

/// The counters behind an `Arc` (opaque).
pub struct CountersHandle(Counters);

impl std::fmt::Debug for CountersHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.snapshot().fmt(f)
    }
}

impl TcpServer {
    /// The listening address.
    pub fn local_addr(&self) -> SocketAddr {
        self.local
    }

    /// The counters so far.
    pub fn stats(&self) -> TcpServerStats {
        self.counters.0.snapshot()
    }

    /// Stops listening and closes every connection; returns the counters.
    pub async fn stop(self) -> TcpServerStats {
        let _ = self.stop.send(());
        let _ = self.task.await;
        self.counters.0.snapshot()
    }
}

/// Serves `listener` until [`TcpServer::stop`]. Must be called within a tokio runtime.
pub fn spawn(listener: TcpListener, options: TcpServerOptions) -> std::io::Result<TcpServer> {
    let local = listener.local_addr()?;
    let counters = Arc::new(CountersHandle(Counters::default()));
    let (stop, mut stopped) = oneshot::channel();
    let shared = counters.clone();
    let task = tokio::spawn(async move {
        let mut connections = JoinSet::new();
        loop {
            tokio::select! {
                _ = &mut stopped => break,
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
                accepted = listener.accept() => {
                    let Ok((stream, peer)) = accepted else { continue };
                    if connections.len() >= options.max_connections {
                        Counters::add(&shared.0.refused, 1);
                        drop(stream);
                        continue;
                    }
                    Counters::add(&shared.0.connections, 1);
                    let counters = shared.clone();
                    connections.spawn(async move { serve(stream, peer, options, &counters.0).await });
                }
            }
        }
        connections.abort_all();
        while connections.join_next().await.is_some() {}
    });
    Ok(TcpServer { local, stop, task, counters })
}

/// What ended a connection's read loop.
enum End {
    /// The peer closed its side, or the stream failed.
    Closed,
    /// The session closed (an Abort either way), or the peer released and everything is answered.
    Session,
    /// The connection was silent for the idle time-out.
    Idle,
}

/// One connection, to its end.
async fn serve(stream: TcpStream, _peer: SocketAddr, options: TcpServerOptions, counters: &Counters) {
    let _ = stream.set_nodelay(true);
    let (mut rd, mut wr) = stream.into_split();
    let config = SessionConfig {
        max_message_bytes: MAX_MESSAGE_BYTES,
        block_wise_transfer: true,
        max_pending_requests: MAX_PENDING_REQUESTS,
    };
    let mut session = Session::new(Role::Acceptor, config);
    let mut buf = vec![0u8; READ_CHUNK_BYTES];
    let csm_deadline = tokio::time::Instant::now() + CSM_TIMEOUT;
    // What the counters hold of this session so far (they are kept current, so that a
    // connection still open when the listener stops is counted too).
    let mut counted = SessionStats::default();
    let end = loop {
        let flushed = flush(&mut session, &mut wr, |_| {}).await;
        account(&session, &mut counted, counters);
        if flushed.is_err() {
            break End::Closed;
        }
        if session.is_closed() || (session.released_by_peer() && session.pending_requests() == 0) {
            break End::Session;
        }
        let deadline =
            if session.peer_csm_received() { tokio::time::Instant::now() + options.idle_timeout } else { csm_deadline };
        let n = match tokio::time::timeout_at(deadline, rd.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => break End::Closed,
            Ok(Ok(n)) => n,
            Err(_) if !session.peer_csm_received() => {
                session.abort(&format!("no CSM within {} s (RFC 8323 §3.3)", CSM_TIMEOUT.as_secs()));
                Counters::add(&counters.aborts_sent, 1);
                let _ = flush(&mut session, &mut wr, |_| {}).await;
                break End::Session;
            }
            Err(_) => break End::Idle,
        };
        session.receive(&buf[..n]);
        for e in events(&mut session) {
            match e {
                SessionEvent::Request(m) => answer(&mut session, &m, counters),
                SessionEvent::Aborted(_) => Counters::add(&counters.aborts_sent, 1),
                SessionEvent::PeerAbort { .. } => Counters::add(&counters.aborts_received, 1),
                _ => {}
            }
        }
    };
    if let End::Idle = end {
        Counters::add(&counters.idle_releases, 1);
        let secs = options.idle_timeout.as_secs_f64();
        if session.release(None, &format!("idle for {secs} s")).is_ok()
            && flush(&mut session, &mut wr, |_| {}).await.is_ok()
        {
            // RFC 8323 §5.5: the peer is to close; wait a little for it, reading and dropping.
            let grace = async { while matches!(rd.read(&mut buf).await, Ok(n) if n > 0) {} };
            let _ = tokio::time::timeout(RELEASE_GRACE, grace).await;
        }
    }
    account(&session, &mut counted, counters);
    let _ = tokio::time::timeout(WRITE_TIMEOUT, tokio::io::AsyncWriteExt::shutdown(&mut wr)).await;
}

/// Adds what `session` counted since `counted` to the listener's counters.
fn account(session: &Session, counted: &mut SessionStats, counters: &Counters) {
    let s = session.stats();
    Counters::add(&counters.messages_received, s.messages_received - counted.messages_received);
    Counters::add(&counters.messages_sent, s.messages_sent - counted.messages_sent);
    Counters::add(&counters.pongs_sent, s.pongs_sent - counted.pongs_sent);
    *counted = s;
}

/// Answers one request; a reply too large for the peer becomes 4.13 without a payload
/// (it cannot happen with the resources' sizing, but the peer's Max-Message-Size is the rule).
fn answer(session: &mut Session, request: &TcpMessage, counters: &Counters) {
    let peer = session.peer();
    let limits = ReliableLimits { peer_max_message_bytes: peer.max_message_bytes, bert: session.bert_allowed() };
    let reply = reply_reliable(&request.to_message(), limits);
    let response =
        TcpMessage { code: reply.code, token: request.token, options: reply.options, payload: reply.payload };
    if let Err(SessionError::TooLarge { .. }) = session.respond(request.token, response) {
        let small = TcpMessage { payload: Payload::new(), ..TcpMessage::new(Code::REQUEST_ENTITY_TOO_LARGE) };
        let _ = session.respond(request.token, small);
    }
    Counters::add(&counters.requests, 1);
}
