//! The replay script language, one line at a time, without allocation: what `coapcc replay`
//! runs through [`StopAndWait`](super::StopAndWait) and what the `coapcc-proto` replay
//! vectors run through the CoAP endpoint.
//!
//! ```text
//! # a comment; blank lines are ignored
//! send          # the application starts a new exchange now
//! wait 400      # the clock advances 400 ms (decimals allowed); expiring timers fire in order
//! ack           # the current exchange is acknowledged now
//! ack copy 1    # ... and the acknowledgement names transmission 1 (0 is the original)
//! ```

use core::time::Duration;

/// One script command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `send`
    Send,
    /// `wait MS`
    Wait(Duration),
    /// `ack` / `ack copy K`
    Ack(Option<u16>),
}

/// Why a script line is not a command; it borrows the offending text from the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ScriptError<'a> {
    /// `wait MS` with MS not a non-negative decimal with up to six decimals.
    #[error("expected a non-negative number of milliseconds (up to 6 decimals), got `{0}`")]
    BadMillis(&'a str),
    /// `wait MS` with MS longer than a `u64` of nanoseconds holds.
    #[error("`{0}` ms is too long")]
    TooLong(&'a str),
    /// `ack copy K` with K not a whole number from 0 to 255.
    #[error("copy must be a whole number from 0 to 255, got `{0}`")]
    BadCopy(&'a str),
    /// A known command with the wrong words after it (the whole line, comment stripped).
    #[error("malformed `{0}`; {EXPECTED}")]
    Malformed(&'a str),
    /// An unknown command (its first word).
    #[error("unknown command `{0}`; {EXPECTED}")]
    Unknown(&'a str),
}

const EXPECTED: &str = "expected `send`, `wait MS`, `ack` or `ack copy K`";

/// Parses a non-negative decimal number of milliseconds exactly (up to six decimals).
pub fn parse_ms(s: &str) -> Result<Duration, ScriptError<'_>> {
    let bad = ScriptError::BadMillis(s);
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 6
    {
        return Err(bad);
    }
    let whole: u64 = if int.is_empty() { 0 } else { int.parse().map_err(|_| bad)? };
    // Up to six digits, read as if padded with zeros to six: nanoseconds.
    let frac_ns: u64 = if frac.is_empty() { 0 } else { frac.parse::<u64>().map_err(|_| bad)? };
    let frac_ns = frac_ns * 10u64.pow(6 - frac.len() as u32);
    let ns = whole.checked_mul(1_000_000).and_then(|v| v.checked_add(frac_ns)).ok_or(ScriptError::TooLong(s))?;
    Ok(Duration::from_nanos(ns))
}

/// Parses one script line: `Ok(None)` for a blank or comment-only line.
pub fn parse_line(line: &str) -> Result<Option<Command>, ScriptError<'_>> {
    let text = line.split('#').next().unwrap_or("").trim();
    let mut words = text.split_whitespace();
    let (first, second, third, fourth) = (words.next(), words.next(), words.next(), words.next());
    let command = match (first, second, third, fourth) {
        (None, ..) => return Ok(None),
        (Some("send"), None, ..) => Command::Send,
        (Some("wait"), Some(ms), None, _) => Command::Wait(parse_ms(ms)?),
        (Some("ack"), None, ..) => Command::Ack(None),
        (Some("ack"), Some("copy"), Some(k), None) => match k.parse::<u16>() {
            Ok(k) if k <= 255 => Command::Ack(Some(k)),
            _ => return Err(ScriptError::BadCopy(k)),
        },
        (Some("send" | "ack" | "wait"), ..) => return Err(ScriptError::Malformed(text)),
        (Some(other), ..) => return Err(ScriptError::Unknown(other)),
    };
    Ok(Some(command))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_parse_exactly_with_up_to_six_decimals() {
        assert_eq!(parse_ms("400"), Ok(Duration::from_millis(400)));
        assert_eq!(parse_ms("0.5"), Ok(Duration::from_micros(500)));
        assert_eq!(parse_ms("1.000001"), Ok(Duration::from_nanos(1_000_001)));
        assert_eq!(parse_ms(".25"), Ok(Duration::from_micros(250)));
        assert!(parse_ms("-1").is_err());
        assert!(parse_ms("1.0000001").is_err());
        assert!(parse_ms("1e3").is_err());
        assert!(parse_ms(".").is_err());
        assert_eq!(parse_ms("99999999999999999999"), Err(ScriptError::BadMillis("99999999999999999999")));
        assert_eq!(parse_ms("18446744073709551615"), Err(ScriptError::TooLong("18446744073709551615")));
    }

    #[test]
    fn lines_parse_to_commands_and_comments_to_nothing() {
        assert_eq!(parse_line("  # only a comment"), Ok(None));
        assert_eq!(parse_line("send   # go"), Ok(Some(Command::Send)));
        assert_eq!(parse_line("wait 2000"), Ok(Some(Command::Wait(Duration::from_secs(2)))));
        assert_eq!(parse_line("ack"), Ok(Some(Command::Ack(None))));
        assert_eq!(parse_line("ack copy 1"), Ok(Some(Command::Ack(Some(1)))));
    }

    #[test]
    fn a_bad_line_names_what_is_wrong_with_it() {
        assert_eq!(parse_line("wait"), Err(ScriptError::Malformed("wait")));
        assert_eq!(parse_line("send now # x"), Err(ScriptError::Malformed("send now")));
        assert_eq!(parse_line("ack copy 1 2"), Err(ScriptError::Malformed("ack copy 1 2")));
        assert_eq!(parse_line("ack copy 256"), Err(ScriptError::BadCopy("256")));
        assert_eq!(parse_line("snd"), Err(ScriptError::Unknown("snd")));
    }
}
