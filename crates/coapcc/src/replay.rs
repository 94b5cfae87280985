//! The replay script language: one controller, one destination, one exchange at a time.
//!
//! ```text
//! # a comment; blank lines are ignored
//! send          # the application starts a new exchange now
//! wait 400      # the clock advances 400 ms (decimals allowed); expiring timers fire in order
//! ack           # the current exchange is acknowledged now
//! ack copy 1    # ... and the acknowledgement names transmission 1 (0 is the original)
//! ```
//!
//! Output: one JSON object per line, in time order (see [`format_event`]).

use std::io::Write;
use std::time::Duration;

use coapcc_core::harness::{Event, StopAndWait};
use coapcc_core::time::Millis;
use coapcc_core::{AnyController, Instant};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

use crate::error::CliError;

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

/// A command and the script line it came from (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// Line number.
    pub number: usize,
    /// The command.
    pub command: Command,
}

/// Parses a non-negative decimal number of milliseconds exactly (up to six decimals).
fn parse_ms(s: &str) -> Result<Duration, String> {
    let bad = || format!("expected a non-negative number of milliseconds (up to 6 decimals), got `{s}`");
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 6
    {
        return Err(bad());
    }
    let whole: u64 = if int.is_empty() { 0 } else { int.parse().map_err(|_| bad())? };
    let frac_ns: u64 = if frac.is_empty() { 0 } else { format!("{frac:0<6}").parse::<u64>().map_err(|_| bad())? };
    let ns = whole
        .checked_mul(1_000_000)
        .and_then(|v| v.checked_add(frac_ns))
        .ok_or_else(|| format!("`{s}` ms is too long"))?;
    Ok(Duration::from_nanos(ns))
}

/// Parses a script. Errors name the line: `line 3: unknown command `snd``.
pub fn parse(script: &str) -> Result<Vec<Line>, CliError> {
    let mut lines = Vec::new();
    for (i, raw) in script.lines().enumerate() {
        let number = i + 1;
        let text = raw.split('#').next().unwrap_or("").trim();
        if text.is_empty() {
            continue;
        }
        let err = |m: String| CliError::usage(format!("line {number}: {m}"));
        let words: Vec<&str> = text.split_whitespace().collect();
        let command = match words.as_slice() {
            ["send"] => Command::Send,
            ["wait", ms] => Command::Wait(parse_ms(ms).map_err(err)?),
            ["ack"] => Command::Ack(None),
            ["ack", "copy", k] => match k.parse::<u16>() {
                Ok(k) if k <= 255 => Command::Ack(Some(k)),
                _ => return Err(err(format!("copy must be a whole number from 0 to 255, got `{k}`"))),
            },
            ["send" | "ack", ..] | ["wait", ..] => {
                return Err(err(format!("malformed `{text}`; expected `send`, `wait MS`, `ack` or `ack copy K`")));
            }
            [other, ..] => {
                return Err(err(format!(
                    "unknown command `{other}`; expected `send`, `wait MS`, `ack` or `ack copy K`"
                )));
            }
            [] => continue,
        };
        lines.push(Line { number, command });
    }
    Ok(lines)
}

/// Formats one event as a JSON object (exact milliseconds, fixed key order).
pub fn format_event(e: &Event) -> String {
    let ms = |d: Duration| Millis(d).to_string();
    let opt = |d: Option<Duration>| d.map_or_else(|| "null".to_string(), ms);
    match *e {
        Event::Transmit { at, exchange, copy, timer } => format!(
            r#"{{"t_ms":{},"event":"transmit","exchange":{exchange},"copy":{copy},"timer_ms":{}}}"#,
            ms(at.since_epoch()),
            ms(timer)
        ),
        Event::GiveUp { at, exchange } => {
            format!(r#"{{"t_ms":{},"event":"give_up","exchange":{exchange}}}"#, ms(at.since_epoch()))
        }
        Event::Ack { at, exchange, copy, rto } => format!(
            r#"{{"t_ms":{},"event":"ack","exchange":{exchange},"copy":{},"rto_ms":{}}}"#,
            ms(at.since_epoch()),
            copy.map_or_else(|| "null".to_string(), |c| c.to_string()),
            opt(rto)
        ),
    }
}

/// Runs a parsed script on `controller`, writing each event as a JSON line to `out`.
/// Timers still pending at the end of the script are not fired.
pub fn run(controller: AnyController, lines: &[Line], seed: u64, out: &mut dyn Write) -> Result<(), CliError> {
    let mut harness = StopAndWait::new(&controller);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut now = Instant::ZERO;
    let mut io_error: Option<std::io::Error> = None;
    let mut emit = |e: Event| {
        if io_error.is_none()
            && let Err(err) = writeln!(out, "{}", format_event(&e))
        {
            io_error = Some(err);
        }
    };
    for line in lines {
        let result = match line.command {
            Command::Send => harness.send(now, &mut rng, &mut emit),
            Command::Wait(d) => {
                now = now.saturating_add(d);
                harness.advance_to(now, &mut rng, &mut emit);
                Ok(())
            }
            Command::Ack(copy) => harness.ack(now, copy, &mut rng, &mut emit),
        };
        result.map_err(|e| CliError::usage(format!("line {}: {e}", line.number)))?;
    }
    match io_error {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_parse_exactly_with_up_to_six_decimals() {
        assert_eq!(parse_ms("400"), Ok(Duration::from_millis(400)));
        assert_eq!(parse_ms("0.5"), Ok(Duration::from_micros(500)));
        assert_eq!(parse_ms("1.000001"), Ok(Duration::from_nanos(1_000_001)));
        assert!(parse_ms("-1").is_err());
        assert!(parse_ms("1.0000001").is_err());
        assert!(parse_ms("1e3").is_err());
        assert!(parse_ms(".").is_err());
        assert!(parse_ms("99999999999999999999").is_err());
    }

    #[test]
    fn comments_and_blank_lines_are_skipped_and_line_numbers_kept() {
        let lines = parse("# header\n\nsend   # go\nwait 2000\nack copy 1\n").unwrap();
        assert_eq!(
            lines,
            [
                Line { number: 3, command: Command::Send },
                Line { number: 4, command: Command::Wait(Duration::from_secs(2)) },
                Line { number: 5, command: Command::Ack(Some(1)) },
            ]
        );
    }

    #[test]
    fn a_malformed_line_is_reported_with_its_number() {
        let e = parse("send\nwait\n").unwrap_err().to_string();
        assert!(e.starts_with("line 2:"), "{e}");
        let e = parse("send\nsnd\n").unwrap_err().to_string();
        assert!(e.starts_with("line 2: unknown command `snd`"), "{e}");
        let e = parse("ack copy 256").unwrap_err().to_string();
        assert!(e.starts_with("line 1:"), "{e}");
    }

    #[test]
    fn events_format_with_exact_milliseconds_and_fixed_key_order() {
        let e = Event::Transmit { at: Instant::ZERO, exchange: 1, copy: 0, timer: Duration::from_secs(2) };
        assert_eq!(format_event(&e), r#"{"t_ms":0.0,"event":"transmit","exchange":1,"copy":0,"timer_ms":2000.0}"#);
        let e = Event::Ack {
            at: Instant::from_millis(400),
            exchange: 1,
            copy: None,
            rto: Some(Duration::from_millis(1600)),
        };
        assert_eq!(format_event(&e), r#"{"t_ms":400.0,"event":"ack","exchange":1,"copy":null,"rto_ms":1600.0}"#);
        let e = Event::GiveUp { at: Instant::from_millis(62_000), exchange: 3 };
        assert_eq!(format_event(&e), r#"{"t_ms":62000.0,"event":"give_up","exchange":3}"#);
    }
}
