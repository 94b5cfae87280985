//! What a probe saw in one run of a client: every copy of every request, the client's answers
//! to the probe's separate responses, what the probe sent, and how the run ended. Times are
//! since the client was started.

use std::time::Duration;

use super::script::{Action, Script};

/// One copy of a request the probe received.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Copy {
    /// When it arrived.
    #[serde(rename = "t_s", serialize_with = "super::secs")]
    pub at: Duration,
    /// The client's UDP port (an exchange is one Message ID from one port).
    pub port: u16,
    /// Exchange number in the run, from 0, in the order the client started them.
    pub exchange: u32,
    /// Copy number within the exchange: 0 is the original.
    pub copy: u8,
}

/// What the client sent back for a confirmable separate response of the probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyKind {
    /// An empty ACK.
    Ack,
    /// A Reset.
    Reset,
}

/// The client's answer to one copy of a separate response.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ClientReply {
    /// When it arrived.
    #[serde(rename = "t_s", serialize_with = "super::secs")]
    pub at: Duration,
    /// The exchange whose separate response it answers.
    pub exchange: u32,
    /// What it was.
    pub kind: ReplyKind,
}

/// What the probe sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SentKind {
    /// A piggybacked response.
    Piggybacked,
    /// An empty ACK.
    EmptyAck,
    /// A separate (confirmable) response; `copy` 1 is its duplicate.
    Separate,
}

/// One message the probe sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Sent {
    /// When it left.
    #[serde(rename = "t_s", serialize_with = "super::secs")]
    pub at: Duration,
    /// The exchange it answers.
    pub exchange: u32,
    /// What it was.
    pub kind: SentKind,
    /// 0, or 1 for the duplicate of a separate response.
    pub copy: u8,
}

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum End {
    /// The client exited by itself, with this status (`None`: killed by a signal).
    Exited(Option<i32>),
    /// The probe stopped the client: what it came for was seen.
    Stopped,
    /// The run's time limit passed; the probe stopped the client.
    TimeLimit,
}

/// Everything one run showed.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Run {
    /// The probe's script.
    pub script: Script,
    /// Every copy of every request, in arrival order.
    pub copies: Vec<Copy>,
    /// The client's ACKs and Resets of the probe's separate responses.
    pub replies: Vec<ClientReply>,
    /// What the probe sent.
    pub sent: Vec<Sent>,
    /// When the run ended.
    #[serde(rename = "end_s", serialize_with = "super::secs")]
    pub end_at: Duration,
    /// How.
    pub end: End,
}

/// One exchange of a run, as the inference reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    /// Its number in the run.
    pub number: u32,
    /// The client's port.
    pub port: u16,
    /// Arrival of each copy, in copy order.
    pub copies: Vec<Duration>,
    /// What the probe did with it.
    pub action: Action,
    /// Whether the probe answered it (the copy the action waits for arrived).
    pub answered: bool,
    /// When the client was done with it, if that is known: for an unanswered exchange, the
    /// next exchange's start from the same port, or the client's exit after it.
    pub ended: Option<Duration>,
}

impl Exchange {
    /// The intervals between successive copies (the timeouts that expired), then, for an
    /// unanswered exchange whose end is known, the wait after the last copy.
    pub fn intervals(&self) -> Vec<Duration> {
        let mut v: Vec<Duration> = self.copies.windows(2).map(|w| w[1].saturating_sub(w[0])).collect();
        if let (false, Some(end), Some(&last)) = (self.answered, self.ended, self.copies.last()) {
            v.push(end.saturating_sub(last));
        }
        v
    }
}

impl Run {
    /// The run's exchanges, in the order the client started them.
    pub fn exchanges(&self) -> Vec<Exchange> {
        let mut out: Vec<Exchange> = Vec::new();
        for c in &self.copies {
            let i = c.exchange as usize;
            while out.len() <= i {
                let number = out.len() as u32;
                out.push(Exchange {
                    number,
                    port: c.port,
                    copies: Vec::new(),
                    action: self.script.action(number as usize),
                    answered: false,
                    ended: None,
                });
            }
            let ex = &mut out[i];
            if ex.copies.is_empty() {
                ex.port = c.port;
            }
            ex.copies.push(c.at);
        }
        let exited = matches!(self.end, End::Exited(_));
        for i in 0..out.len() {
            let want = out[i].action.answer().map(|(copy, _)| copy as usize);
            out[i].answered = want.is_some_and(|k| out[i].copies.len() > k);
            let (port, last) = (out[i].port, out[i].copies.last().copied());
            let next = out[i + 1..].iter().find(|e| e.port == port).and_then(|e| e.copies.first().copied());
            // A next exchange that starts while this one still sends copies (NSTART > 1)
            // says nothing about this one's end.
            out[i].ended = match next {
                Some(t) if Some(t) >= last => Some(t),
                _ if exited => Some(self.end_at),
                _ => None,
            };
        }
        out
    }
}
