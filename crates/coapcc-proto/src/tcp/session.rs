//! A CoAP-over-TCP session over any byte stream (RFC 8323 §3.3–§5), sans-IO.
//!
//! The caller owns the stream: it hands every chunk it reads to [`Session::receive`], writes
//! every [`Transmit`] from [`Session::poll_transmit`] in order, and closes the stream once
//! [`Session::is_closed`] is true and nothing is left to write. The session never reads a
//! clock: idle and answer time-outs are the caller's.
//!
//! - **CSM first** (§3.3): the session's first transmit is its own CSM (Max-Message-Size,
//!   Block-Wise-Transfer as configured); the peer's first message must be a CSM (Empty
//!   messages aside), else the session aborts. Until the peer's CSM arrives its base values
//!   are in force (1152 bytes, no block-wise); CSMs are cumulative (§5.3).
//! - **Requests and responses** are matched by token, scoped to the connection (§3.3): no
//!   types, Message IDs, acknowledgements or retransmission. Tokens of requests made here are
//!   a counter (connection-local; an off-path attacker cannot inject into a TCP stream, the
//!   reason RFC 7252 §5.3.1 gives for random tokens). A response whose token matches no
//!   outstanding request is ignored and counted (§7.2 allows an Abort; ignoring is kinder).
//! - **Sizes**: nothing is sent that exceeds the peer's Max-Message-Size
//!   ([`SessionError::TooLarge`]); a frame over this side's own is refused from its length
//!   field and aborts the session.
//! - **Ping/Pong** (§5.4): a Ping is answered with a Pong with its token; with Custody, the
//!   Pong (with Custody) waits until every request received before the Ping is answered.
//! - **Empty messages** (0.00, §3.4) are ignored (counted); [`Session::keep_alive`] sends one.
//! - **Release** (§5.5): the peer's is reported; the session still answers what it received
//!   (the caller closes when it is done). **Abort** (§5.6): the peer's closes the session at
//!   once; a protocol error of the peer (bad frame, missing CSM, unknown critical signalling
//!   option, reserved code class, an oversized frame, a request token already in use) makes
//!   the session send an Abort with a diagnostic (Bad-CSM-Option for a CSM) and close.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::message::{Code, Token};

use super::decoder::StreamDecoder;
use super::frame::{self, FrameError, TcpMessage};
use super::signal::{self, BASE_MAX_MESSAGE_SIZE, Csm, Signal, SignalError};

/// Which end of the connection this session is (RFC 8323 §2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The TCP active opener.
    Initiator,
    /// The TCP passive opener.
    Acceptor,
}

/// What this side announces and enforces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionConfig {
    /// The largest message this side receives (announced as Max-Message-Size), bytes.
    pub max_message_bytes: u32,
    /// Announce Block-Wise-Transfer (with a Max-Message-Size above 1152 this offers BERT).
    pub block_wise_transfer: bool,
    /// The most requests received and not yet answered; one more aborts the session.
    pub max_pending_requests: usize,
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig { max_message_bytes: BASE_MAX_MESSAGE_SIZE, block_wise_transfer: false, max_pending_requests: 64 }
    }
}

/// The peer's settings in force (its CSMs so far, §5.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeerSettings {
    /// The largest message the peer receives, bytes.
    pub max_message_bytes: u32,
    /// The peer offered block-wise transfer.
    pub block_wise_transfer: bool,
}

impl Default for PeerSettings {
    fn default() -> Self {
        PeerSettings { max_message_bytes: BASE_MAX_MESSAGE_SIZE, block_wise_transfer: false }
    }
}

impl PeerSettings {
    /// Whether these settings offer BERT (§5.3.2: Block-Wise-Transfer with a Max-Message-Size
    /// above 1152).
    pub fn offers_bert(&self) -> bool {
        self.block_wise_transfer && self.max_message_bytes > BASE_MAX_MESSAGE_SIZE
    }
}

/// Bytes to write to the stream, with what they are (for logs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transmit {
    /// The message's code.
    pub code: Code,
    /// The message's token.
    pub token: Token,
    /// The frame.
    pub bytes: Vec<u8>,
}

/// What happened on the session, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionEvent {
    /// A message arrived (before it is acted upon): its code, token and frame length.
    Received {
        /// Code.
        code: Code,
        /// Token.
        token: Token,
        /// Frame length, bytes.
        bytes: usize,
    },
    /// The peer's CSM: the settings now in force.
    PeerCsm(PeerSettings),
    /// A request to answer with [`Session::respond`].
    Request(TcpMessage),
    /// The response to a request made with [`Session::request`].
    Response(TcpMessage),
    /// A Pong to a Ping made with [`Session::ping`].
    Pong {
        /// The Ping's token.
        token: Token,
        /// The peer took custody (§5.4.1).
        custody: bool,
    },
    /// The peer asked for an orderly close.
    Release {
        /// Alternative-Address values.
        alternative_addresses: Vec<String>,
        /// Hold-Off, seconds.
        hold_off_s: Option<u32>,
        /// Its diagnostic.
        diagnostic: String,
    },
    /// The peer aborted the connection; the session is closed.
    PeerAbort {
        /// Bad-CSM-Option.
        bad_csm_option: Option<u16>,
        /// Its diagnostic.
        diagnostic: String,
    },
    /// This side aborted the connection for a protocol error of the peer; the session is closed.
    Aborted(ProtocolError),
}

/// A protocol error of the peer, for which the session aborts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProtocolError {
    /// A frame that does not decode, or one over this side's Max-Message-Size.
    #[error(transparent)]
    Frame(#[from] FrameError),
    /// The first message was not a CSM (§3.3).
    #[error("the first message was {0:?}, not a CSM (RFC 8323 §3.3)")]
    MissingCsm(Code),
    /// A signalling message that cannot be processed (§5.2).
    #[error(transparent)]
    Signal(#[from] SignalError),
    /// A code of the reserved classes 1 or 6.
    #[error("a message with the reserved code {0:?}")]
    ReservedCode(Code),
    /// A request with the token of a request still unanswered.
    #[error("a second request with token {0:?} before the first was answered")]
    TokenInUse(Token),
    /// More unanswered requests than [`SessionConfig::max_pending_requests`].
    #[error("more than {0} requests unanswered at once")]
    TooManyRequests(usize),
}

/// Why the session cannot do what was asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// The session is closed (aborted by either side).
    #[error("the connection is closed")]
    Closed,
    /// The message exceeds the peer's Max-Message-Size.
    #[error("a message of {bytes} bytes exceeds the peer's Max-Message-Size of {max} bytes")]
    TooLarge {
        /// The frame's length, bytes.
        bytes: usize,
        /// The peer's limit, bytes.
        max: u32,
    },
    /// A response to no request received (or to one answered already).
    #[error("no request with this token is waiting for its response")]
    NotPending,
    /// The message cannot be framed.
    #[error(transparent)]
    Encode(#[from] frame::EncodeError),
}

/// Counters of one session.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SessionStats {
    /// Messages received (any code).
    pub messages_received: u64,
    /// Messages sent (any code).
    pub messages_sent: u64,
    /// Bytes received.
    pub bytes_received: u64,
    /// Bytes sent.
    pub bytes_sent: u64,
    /// Empty messages received (keep-alives, ignored).
    pub empty_received: u64,
    /// Pings answered.
    pub pongs_sent: u64,
    /// Responses whose token matched no outstanding request (ignored).
    pub unmatched_responses: u64,
}

/// The longest diagnostic payload of an Abort sent here, bytes (within the base
/// Max-Message-Size of 1152 with room for the header and Bad-CSM-Option).
pub const MAX_DIAGNOSTIC_BYTES: usize = 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// The peer's CSM has not arrived.
    AwaitingCsm,
    /// Open.
    Open,
    /// Aborted by either side.
    Closed,
}

/// One CoAP-over-TCP connection's protocol state (see the module documentation).
#[derive(Debug)]
pub struct Session {
    role: Role,
    config: SessionConfig,
    peer: PeerSettings,
    state: State,
    decoder: StreamDecoder,
    transmits: VecDeque<Transmit>,
    events: VecDeque<SessionEvent>,
    /// Tokens of requests made here and not yet answered.
    outstanding: FxHashSet<Token>,
    /// Tokens of requests received and not yet answered, with their arrival number.
    pending: FxHashMap<Token, u64>,
    /// Pongs with Custody waiting for the requests that arrived before their Ping.
    custody_pongs: Vec<(Token, u64)>,
    arrivals: u64,
    next_token: u64,
    released_by_peer: bool,
    stats: SessionStats,
}

impl Session {
    /// A session whose first transmit is this side's CSM.
    pub fn new(role: Role, config: SessionConfig) -> Session {
        let mut s = Session {
            role,
            config,
            peer: PeerSettings::default(),
            state: State::AwaitingCsm,
            decoder: StreamDecoder::new(config.max_message_bytes),
            transmits: VecDeque::new(),
            events: VecDeque::new(),
            outstanding: FxHashSet::default(),
            pending: FxHashMap::default(),
            custody_pongs: Vec::new(),
            arrivals: 0,
            next_token: 1,
            released_by_peer: false,
            stats: SessionStats::default(),
        };
        let csm =
            Csm { max_message_size: Some(config.max_message_bytes), block_wise_transfer: config.block_wise_transfer };
        s.queue(Signal::Csm(csm).to_message(Token::EMPTY));
        s
    }

    /// This side's role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// This side's configuration.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The peer's settings in force.
    pub fn peer(&self) -> PeerSettings {
        self.peer
    }

    /// Whether the peer's CSM has arrived.
    pub fn peer_csm_received(&self) -> bool {
        self.state != State::AwaitingCsm
    }

    /// Whether both sides offered BERT (RFC 8323 §5.3.2, §6): only then are SZX 7 blocks sent.
    pub fn bert_allowed(&self) -> bool {
        let mine = PeerSettings {
            max_message_bytes: self.config.max_message_bytes,
            block_wise_transfer: self.config.block_wise_transfer,
        };
        mine.offers_bert() && self.peer.offers_bert()
    }

    /// Whether the session is closed (aborted by either side): write what is left, then close
    /// the stream.
    pub fn is_closed(&self) -> bool {
        self.state == State::Closed
    }

    /// Whether the peer sent a Release.
    pub fn released_by_peer(&self) -> bool {
        self.released_by_peer
    }

    /// Requests made here and not yet answered.
    pub fn outstanding_requests(&self) -> usize {
        self.outstanding.len()
    }

    /// Requests received and not yet answered.
    pub fn pending_requests(&self) -> usize {
        self.pending.len()
    }

    /// The counters.
    pub fn stats(&self) -> SessionStats {
        self.stats
    }

    /// The next frame to write.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.transmits.pop_front()
    }

    /// The next event.
    pub fn poll_event(&mut self) -> Option<SessionEvent> {
        self.events.pop_front()
    }

    /// Feeds bytes read from the stream (any chunking); ignored once the session is closed.
    pub fn receive(&mut self, bytes: &[u8]) {
        if self.is_closed() {
            return;
        }
        self.stats.bytes_received += bytes.len() as u64;
        self.decoder.push(bytes);
        while !self.is_closed() {
            match self.decoder.next_message() {
                Ok(Some(m)) => self.on_message(m),
                Ok(None) => break,
                Err(e) => self.abort_for(ProtocolError::Frame(e)),
            }
        }
    }

    /// Sends a request (its token is assigned here and returned).
    pub fn request(&mut self, mut msg: TcpMessage) -> Result<Token, SessionError> {
        if self.is_closed() {
            return Err(SessionError::Closed);
        }
        msg.token = self.fresh_token();
        self.send_checked(msg.clone())?;
        self.outstanding.insert(msg.token);
        Ok(msg.token)
    }

    /// Sends the response to the request received with `token` (the response's token is set).
    pub fn respond(&mut self, token: Token, mut response: TcpMessage) -> Result<(), SessionError> {
        if self.is_closed() {
            return Err(SessionError::Closed);
        }
        if !self.pending.contains_key(&token) {
            return Err(SessionError::NotPending);
        }
        response.token = token;
        self.send_checked(response)?;
        self.pending.remove(&token);
        self.release_custody_pongs();
        Ok(())
    }

    /// Sends a Ping (§5.4); its Pong arrives as [`SessionEvent::Pong`] with the returned token.
    pub fn ping(&mut self, custody: bool) -> Result<Token, SessionError> {
        if self.is_closed() {
            return Err(SessionError::Closed);
        }
        let token = self.fresh_token();
        self.send_checked(Signal::Ping { custody }.to_message(token))?;
        Ok(token)
    }

    /// Sends an Empty message (§3.4), a keep-alive the peer ignores.
    pub fn keep_alive(&mut self) -> Result<(), SessionError> {
        if self.is_closed() {
            return Err(SessionError::Closed);
        }
        self.send_checked(TcpMessage::new(Code::EMPTY))
    }

    /// Sends a Release (§5.5); the peer is expected to close the connection.
    pub fn release(&mut self, hold_off_s: Option<u32>, diagnostic: &str) -> Result<(), SessionError> {
        if self.is_closed() {
            return Err(SessionError::Closed);
        }
        let s = Signal::Release { alternative_addresses: Vec::new(), hold_off_s, diagnostic: diagnostic.into() };
        self.send_checked(s.to_message(Token::EMPTY))
    }

    /// Sends an Abort (§5.6) with `diagnostic` and closes the session.
    pub fn abort(&mut self, diagnostic: &str) {
        self.abort_with(None, diagnostic);
    }

    fn fresh_token(&mut self) -> Token {
        loop {
            let n = self.next_token;
            self.next_token = self.next_token.wrapping_add(1).max(1);
            let bytes = n.to_be_bytes();
            let skip = bytes.iter().take_while(|b| **b == 0).count();
            let token = Token::new(&bytes[skip..]).unwrap_or(Token::EMPTY);
            if !self.outstanding.contains(&token) {
                return token;
            }
        }
    }

    /// Queues `msg` if it fits the peer's Max-Message-Size.
    fn send_checked(&mut self, msg: TcpMessage) -> Result<(), SessionError> {
        let len = msg.wire_len();
        if len > self.peer.max_message_bytes as usize {
            return Err(SessionError::TooLarge { bytes: len, max: self.peer.max_message_bytes });
        }
        self.queue_checked(msg)
    }

    fn queue_checked(&mut self, msg: TcpMessage) -> Result<(), SessionError> {
        let bytes = frame::encode(&msg)?;
        self.stats.messages_sent += 1;
        self.stats.bytes_sent += bytes.len() as u64;
        self.transmits.push_back(Transmit { code: msg.code, token: msg.token, bytes });
        Ok(())
    }

    /// Queues a signal of this side (CSM, Pong, Abort: small, always framed).
    fn queue(&mut self, msg: TcpMessage) {
        let _ = self.queue_checked(msg);
    }

    fn abort_for(&mut self, e: ProtocolError) {
        let bad = match &e {
            ProtocolError::Signal(s) => s.bad_csm_option(),
            _ => None,
        };
        self.abort_with(bad, &e.to_string());
        self.events.push_back(SessionEvent::Aborted(e));
    }

    fn abort_with(&mut self, bad_csm_option: Option<u16>, diagnostic: &str) {
        if self.is_closed() {
            return;
        }
        // The diagnostic is cut to what the peer's base Max-Message-Size surely takes.
        let mut cut = diagnostic.len().min(MAX_DIAGNOSTIC_BYTES);
        while !diagnostic.is_char_boundary(cut) {
            cut -= 1;
        }
        let text = diagnostic[..cut].to_string();
        self.queue(Signal::Abort { bad_csm_option, diagnostic: text }.to_message(Token::EMPTY));
        self.close();
    }

    fn close(&mut self) {
        self.state = State::Closed;
        self.outstanding.clear();
        self.pending.clear();
        self.custody_pongs.clear();
    }

    fn on_message(&mut self, m: TcpMessage) {
        self.stats.messages_received += 1;
        self.events.push_back(SessionEvent::Received { code: m.code, token: m.token, bytes: m.wire_len() });
        if m.code == Code::EMPTY {
            // §3.4: always allowed, always ignored.
            self.stats.empty_received += 1;
            return;
        }
        if self.state == State::AwaitingCsm && m.code != signal::CSM {
            return self.abort_for(ProtocolError::MissingCsm(m.code));
        }
        match m.code.class() {
            7 => self.on_signal(&m),
            0 => self.on_request(m),
            2..=5 => self.on_response(m),
            _ => self.abort_for(ProtocolError::ReservedCode(m.code)),
        }
    }

    fn on_signal(&mut self, m: &TcpMessage) {
        let s = match Signal::parse(m) {
            Ok(s) => s,
            Err(e) => return self.abort_for(ProtocolError::Signal(e)),
        };
        match s {
            Signal::Csm(c) => {
                if let Some(size) = c.max_message_size {
                    self.peer.max_message_bytes = size;
                }
                // §5.3: capabilities are cumulative; one indicated stays indicated.
                self.peer.block_wise_transfer |= c.block_wise_transfer;
                self.state = State::Open;
                self.events.push_back(SessionEvent::PeerCsm(self.peer));
            }
            Signal::Ping { custody } => {
                let seen = self.arrivals;
                if custody && self.pending.values().any(|a| *a <= seen) {
                    self.custody_pongs.push((m.token, seen));
                } else {
                    self.pong(m.token, custody);
                }
            }
            Signal::Pong { custody } => self.events.push_back(SessionEvent::Pong { token: m.token, custody }),
            Signal::Release { alternative_addresses, hold_off_s, diagnostic } => {
                self.released_by_peer = true;
                self.events.push_back(SessionEvent::Release { alternative_addresses, hold_off_s, diagnostic });
            }
            Signal::Abort { bad_csm_option, diagnostic } => {
                self.close();
                self.events.push_back(SessionEvent::PeerAbort { bad_csm_option, diagnostic });
            }
        }
    }

    fn pong(&mut self, token: Token, custody: bool) {
        self.stats.pongs_sent += 1;
        self.queue(Signal::Pong { custody }.to_message(token));
    }

    fn release_custody_pongs(&mut self) {
        let waiting = std::mem::take(&mut self.custody_pongs);
        for (token, seen) in waiting {
            if self.pending.values().any(|a| *a <= seen) {
                self.custody_pongs.push((token, seen));
            } else {
                self.pong(token, true);
            }
        }
    }

    fn on_request(&mut self, m: TcpMessage) {
        if self.pending.contains_key(&m.token) {
            return self.abort_for(ProtocolError::TokenInUse(m.token));
        }
        if self.pending.len() >= self.config.max_pending_requests {
            return self.abort_for(ProtocolError::TooManyRequests(self.config.max_pending_requests));
        }
        self.arrivals += 1;
        self.pending.insert(m.token, self.arrivals);
        self.events.push_back(SessionEvent::Request(m));
    }

    fn on_response(&mut self, m: TcpMessage) {
        if self.outstanding.remove(&m.token) {
            self.events.push_back(SessionEvent::Response(m));
        } else {
            self.stats.unmatched_responses += 1;
        }
    }
}
