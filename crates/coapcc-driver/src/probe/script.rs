//! What the probe server does with each exchange a client starts: its script.

use std::time::Duration;

/// What the probe does with one exchange (all copies of one request).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case", tag = "action")]
pub enum Action {
    /// Drop every copy: the client's timers run to its give-up.
    Drop,
    /// A piggybacked response (2.05) `delay` after copy `copy` (0 = the original) arrives;
    /// earlier copies are dropped.
    Piggybacked {
        /// The copy answered.
        copy: u8,
        /// How long after that copy arrives the response leaves.
        #[serde(rename = "delay_s", serialize_with = "super::secs")]
        delay: Duration,
    },
    /// An empty ACK at once to the original, then the response as a separate confirmable
    /// message `delay` later (RFC 7252 §5.2.2); with `duplicate`, that response is sent twice
    /// with the same Message ID, as a server whose first copy was lost would (§4.5).
    Separate {
        /// How long after the empty ACK the separate response leaves.
        #[serde(rename = "delay_s", serialize_with = "super::secs")]
        delay: Duration,
        /// Send the separate response twice.
        duplicate: bool,
    },
}

impl Action {
    /// The copy this action answers and how long after it: what a replay of it acknowledges
    /// (an empty ACK stops the retransmissions as a response does).
    pub fn answer(self) -> Option<(u8, Duration)> {
        match self {
            Action::Drop => None,
            Action::Piggybacked { copy, delay } => Some((copy, delay)),
            Action::Separate { .. } => Some((0, Duration::ZERO)),
        }
    }
}

/// The probe's script: an action for each exchange, in the order the client starts them; the
/// last action applies to every later exchange.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Script {
    actions: Vec<Action>,
}

/// Why a script's text is not a script.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScriptError {
    /// The text has no item.
    #[error("a probe script needs at least one item (drop, ack:MS, ack@K:MS, sep:MS, sepdup:MS)")]
    Empty,
    /// An item that does not parse.
    #[error("probe script item `{item}`: {problem}")]
    Item {
        /// The item.
        item: String,
        /// What is wrong.
        problem: &'static str,
    },
}

impl Script {
    /// A script of the given actions (at least one).
    pub fn new(actions: Vec<Action>) -> Result<Script, ScriptError> {
        if actions.is_empty() { Err(ScriptError::Empty) } else { Ok(Script { actions }) }
    }

    /// Every exchange dropped.
    pub fn silence() -> Script {
        Script { actions: vec![Action::Drop] }
    }

    /// The original of the first exchange dropped and its first retransmission answered at
    /// once: the run shows one first timeout.
    pub fn first_timeout() -> Script {
        Script { actions: vec![Action::Piggybacked { copy: 1, delay: Duration::ZERO }] }
    }

    /// `answered` exchanges answered `rtt` after their original, then silence.
    pub fn rtt(rtt: Duration, answered: usize) -> Script {
        let mut actions = vec![Action::Piggybacked { copy: 0, delay: rtt }; answered];
        actions.push(Action::Drop);
        Script { actions }
    }

    /// `answered` exchanges answered `rtt` after their first retransmission (each exchange
    /// gives only an ambiguous, "weak" RTT sample), then silence.
    pub fn weak_rtt(rtt: Duration, answered: usize) -> Script {
        let mut actions = vec![Action::Piggybacked { copy: 1, delay: rtt }; answered];
        actions.push(Action::Drop);
        Script { actions }
    }

    /// What a retransmitted exchange carries into the next: the first exchange answered at its
    /// second retransmission, the second at once (a clean exchange), every later one dropped.
    /// Full Backoff 1 arms the second with the backed-off timer and forgets it after the clean
    /// exchange, Full Backoff 2 halves it (ANRW'18; Pesola 2020): the third exchange's first
    /// timeout tells them apart, and both from RFC 7252, which forgets every timer.
    pub fn carry() -> Script {
        let answer = |copy| Action::Piggybacked { copy, delay: Duration::ZERO };
        Script { actions: vec![answer(2), answer(0), Action::Drop] }
    }

    /// Every exchange answered with an empty ACK and a separate response sent twice.
    pub fn separate(delay: Duration) -> Script {
        Script { actions: vec![Action::Separate { delay, duplicate: true }] }
    }

    /// The action for exchange `index` (0 = the first the client starts).
    pub fn action(&self, index: usize) -> Action {
        // `new` refuses an empty list.
        self.actions.get(index).or(self.actions.last()).copied().unwrap_or(Action::Drop)
    }

    /// The actions as given.
    pub fn actions(&self) -> &[Action] {
        &self.actions
    }

    /// Parses a script: comma-separated items, each `drop`, `ack:MS` (a piggybacked response
    /// MS milliseconds after the original), `ack@K:MS` (after copy K), `sep:MS` (empty ACK,
    /// separate response MS later) or `sepdup:MS` (the same, the response sent twice), with an
    /// optional repetition `*N`. Example: `ack:100*8,drop`.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let mut actions = Vec::new();
        for raw in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let bad = |problem| ScriptError::Item { item: raw.to_string(), problem };
            let (item, times) = match raw.split_once('*') {
                Some((i, n)) => {
                    (i.trim(), n.trim().parse::<usize>().map_err(|_| bad("repetition `*N` needs a whole number N"))?)
                }
                None => (raw, 1),
            };
            if times == 0 || times > 10_000 {
                return Err(bad("repetition `*N` must be between 1 and 10000"));
            }
            let ms = |v: &str| -> Result<Duration, ScriptError> {
                let x: f64 = v.trim().parse().map_err(|_| bad("expected a number of milliseconds"))?;
                Duration::try_from_secs_f64(x / 1e3).map_err(|_| bad("milliseconds must be finite and not negative"))
            };
            let action = match item.split_once(':') {
                None if item == "drop" => Action::Drop,
                None if item == "ack" => Action::Piggybacked { copy: 0, delay: Duration::ZERO },
                Some(("sep", v)) => Action::Separate { delay: ms(v)?, duplicate: false },
                Some(("sepdup", v)) => Action::Separate { delay: ms(v)?, duplicate: true },
                Some((a, v)) if a == "ack" || a.starts_with("ack@") => {
                    let copy = match a.strip_prefix("ack@") {
                        Some(k) => k.parse::<u8>().map_err(|_| bad("copy K of `ack@K` must be 0 to 255"))?,
                        None => 0,
                    };
                    Action::Piggybacked { copy, delay: ms(v)? }
                }
                _ => return Err(bad("expected drop, ack, ack:MS, ack@K:MS, sep:MS or sepdup:MS")),
            };
            actions.extend(std::iter::repeat_n(action, times));
        }
        Script::new(actions)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_repeat_and_the_last_one_applies_to_every_later_exchange() {
        let s = Script::parse("ack:100*2, ack@1:5,drop").unwrap();
        let ack = |copy, ms| Action::Piggybacked { copy, delay: Duration::from_millis(ms) };
        assert_eq!(s.action(0), ack(0, 100));
        assert_eq!(s.action(1), ack(0, 100));
        assert_eq!(s.action(2), ack(1, 5));
        assert_eq!(s.action(3), Action::Drop);
        assert_eq!(s.action(99), Action::Drop);
        assert_eq!(Script::parse("sepdup:20").unwrap(), Script::separate(Duration::from_millis(20)));
    }

    #[test]
    fn malformed_items_are_named() {
        assert_eq!(Script::parse(" , "), Err(ScriptError::Empty));
        let e = Script::parse("drop,ack:x").unwrap_err().to_string();
        assert!(e.contains("`ack:x`") && e.contains("milliseconds"), "{e}");
        let e = Script::parse("ack@300:1").unwrap_err().to_string();
        assert!(e.contains("0 to 255"), "{e}");
        let e = Script::parse("drop*0").unwrap_err().to_string();
        assert!(e.contains("between 1 and 10000"), "{e}");
        assert!(Script::parse("wait:3").is_err());
    }
}
