//! The server's duplicate cache (RFC 7252 §4.5): what it remembers of each request, within
//! EXCHANGE_LIFETIME, to answer its copies with the same response.
//!
//! A message is a copy of a remembered request only when it *is* that request: same source,
//! Message ID, type, code, options and payload, and a token equal up to its last byte. The
//! only differences allowed are those the transmission-count echo makes between copies of one
//! request (spec §7.7): the token's last byte (FASOR's copy byte) and the Transmission-Count
//! option. Anything else reusing the Message ID is a new message. A copy is therefore as
//! large as its original, and its answer as large as the original answer give or take the
//! same echo bytes, so answering copies never amplifies beyond what answering the request
//! did (RFC 7252 §11.3).
//!
//! The cache is bounded twice: in entries and in bytes (see `docs/real-networks.md`,
//! "Bounds"); when either bound is reached the oldest requests are forgotten first.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use coapcc_core::Instant;
use rustc_hash::{FxHashMap, FxHasher};

use crate::message::{Code, Message, MessageType, OptionValue, Token, option};

/// What identifies a request among messages reusing its Message ID: everything but the
/// transmission-count echo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    mtype: MessageType,
    code: Code,
    token_len: u8,
    /// The token without its last byte.
    token_head: Token,
    /// The option values (but the transmission count's) and the payload, in bytes.
    len: usize,
    /// A hash of the option numbers and values (but the transmission count's) and the payload.
    hash: u64,
}

impl Fingerprint {
    pub(crate) fn of(msg: &Message) -> Fingerprint {
        let token = msg.token.as_bytes();
        let mut hasher = FxHasher::default();
        let mut len = msg.payload.len();
        for o in msg.options.iter().filter(|o| o.number != option::TRANSMISSION_COUNT) {
            o.number.hash(&mut hasher);
            o.value.as_slice().hash(&mut hasher);
            len += o.value.len();
        }
        hasher.write(&msg.payload);
        Fingerprint {
            mtype: msg.mtype,
            code: msg.code,
            token_len: token.len() as u8,
            token_head: Token::new(&token[..token.len().saturating_sub(1)]).unwrap_or_default(),
            len,
            hash: hasher.finish(),
        }
    }
}

/// What the server keeps of a request to answer it (and its copies).
#[derive(Clone, Debug)]
pub(crate) struct Asked {
    pub(crate) mtype: MessageType,
    pub(crate) token: Token,
    /// The transmission-count option's value, if the request carried one.
    pub(crate) echo: Option<OptionValue>,
}

impl Asked {
    /// What is kept of `request`.
    pub(crate) fn of(request: &Message) -> Asked {
        Asked {
            mtype: request.mtype,
            token: request.token,
            echo: request.option(option::TRANSMISSION_COUNT).map(OptionValue::from_slice),
        }
    }
}

/// A remembered request: answered or not yet.
#[derive(Clone, Debug)]
pub(crate) enum Seen {
    Pending,
    Answered(Arc<Message>),
}

#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// Which insertion this is (an expiry slot of a replaced entry names an older one).
    pub(crate) seq: u64,
    pub(crate) fingerprint: Fingerprint,
    pub(crate) asked: Asked,
    pub(crate) seen: Seen,
    /// What the entry counts against the byte bound.
    cost_bytes: usize,
}

/// The bounds of a [`DuplicateCache`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Bounds {
    pub(crate) entries: usize,
    pub(crate) bytes: usize,
}

/// Requests remembered per (source, Message ID), oldest first in `expiry`.
#[derive(Clone, Debug)]
pub(crate) struct DuplicateCache<A> {
    entries: FxHashMap<(A, u16), Entry>,
    /// Insertion order: (when, source, Message ID, seq). Slots of entries replaced since are
    /// stale and skipped; stale slots count against the entry bound too, so this queue
    /// never outgrows it.
    expiry: VecDeque<(Instant, A, u16, u64)>,
    bytes: usize,
    next_seq: u64,
}

impl<A> Default for DuplicateCache<A> {
    fn default() -> Self {
        DuplicateCache { entries: FxHashMap::default(), expiry: VecDeque::new(), bytes: 0, next_seq: 0 }
    }
}

/// The memory an entry takes besides its response's bytes: its map slot, its expiry slot
/// and the response's `Message` with its reference counts.
fn overhead_bytes<A>() -> usize {
    std::mem::size_of::<((A, u16), Entry)>()
        + std::mem::size_of::<(Instant, A, u16, u64)>()
        + std::mem::size_of::<Message>()
        + 2 * std::mem::size_of::<usize>()
}

impl<A: Copy + Eq + std::hash::Hash> DuplicateCache<A> {
    /// Requests remembered.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Bytes counted against the byte bound.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(crate) fn get(&self, from: A, mid: u16) -> Option<&Entry> {
        self.entries.get(&(from, mid))
    }

    /// Forgets what was remembered longer ago than `lifetime` (RFC 7252 §4.5: duplicates are
    /// detected within EXCHANGE_LIFETIME).
    pub(crate) fn expire(&mut self, now: Instant, lifetime: std::time::Duration) {
        while let Some(&(t, a, mid, seq)) = self.expiry.front() {
            if now.saturating_duration_since(t) <= lifetime {
                break;
            }
            self.expiry.pop_front();
            self.remove_if(a, mid, seq);
        }
    }

    /// Forgets the request `from`/`mid` (a new message reuses its Message ID).
    pub(crate) fn remove(&mut self, from: A, mid: u16) {
        if let Some(e) = self.entries.remove(&(from, mid)) {
            self.bytes -= e.cost_bytes;
        }
    }

    fn remove_if(&mut self, a: A, mid: u16, seq: u64) -> bool {
        if self.entries.get(&(a, mid)).is_some_and(|e| e.seq == seq) {
            self.remove(a, mid);
            true
        } else {
            false
        }
    }

    /// Forgets the oldest slot; whether it held a live entry.
    fn evict_oldest(&mut self) -> bool {
        match self.expiry.pop_front() {
            Some((_, a, mid, seq)) => self.remove_if(a, mid, seq),
            None => false,
        }
    }

    /// Remembers a new request (no entry for `key`, its source and Message ID, exists),
    /// answered with `response`
    /// (whose payload counts unless `payload_shared`) or pending; forgets the oldest first as
    /// far as the bounds need. Returns the entry's seq and how many live entries were evicted.
    pub(crate) fn insert(
        &mut self,
        now: Instant,
        key: (A, u16),
        fingerprint: Fingerprint,
        asked: Asked,
        answer: Option<(Arc<Message>, bool)>,
        bounds: Bounds,
    ) -> (u64, u64) {
        let cost_bytes = overhead_bytes::<A>() + answer.as_ref().map_or(0, |(r, shared)| response_bytes(r, *shared));
        let mut evicted = 0;
        while !self.expiry.is_empty()
            && (self.expiry.len() >= bounds.entries.max(1) || self.bytes + cost_bytes > bounds.bytes)
        {
            evicted += u64::from(self.evict_oldest());
        }
        let seq = self.next_seq;
        self.next_seq += 1;
        self.expiry.push_back((now, key.0, key.1, seq));
        let seen = answer.map_or(Seen::Pending, |(r, _)| Seen::Answered(r));
        self.bytes += cost_bytes;
        self.entries.insert(key, Entry { seq, fingerprint, asked, seen, cost_bytes });
        (seq, evicted)
    }

    /// Stores the answer of the pending or answered entry `from`/`mid` with insertion `seq`,
    /// then forgets the oldest entries while the byte bound is exceeded (possibly this one:
    /// an answer larger than the bound is sent but not remembered). Returns the request as
    /// asked (`None`: no such entry) and how many live entries were evicted.
    pub(crate) fn answer(
        &mut self,
        from: A,
        mid: u16,
        seq: u64,
        make: impl FnOnce(&Asked) -> Arc<Message>,
        bounds: Bounds,
    ) -> Option<(Arc<Message>, u64)> {
        let entry = self.entries.get_mut(&(from, mid)).filter(|e| e.seq == seq)?;
        let response = make(&entry.asked);
        let cost_bytes = overhead_bytes::<A>() + response_bytes(&response, false);
        self.bytes = self.bytes - entry.cost_bytes + cost_bytes;
        entry.cost_bytes = cost_bytes;
        entry.seen = Seen::Answered(Arc::clone(&response));
        let mut evicted = 0;
        while self.bytes > bounds.bytes && !self.expiry.is_empty() {
            evicted += u64::from(self.evict_oldest());
        }
        Some((response, evicted))
    }
}

/// The bytes a cached response holds: its encoded length, less the payload when that is
/// shared by every response (an automatic answer's).
fn response_bytes(response: &Message, payload_shared: bool) -> usize {
    response.wire_len() - if payload_shared { response.payload.len() } else { 0 }
}
