//! Replay scripts (`coapcc replay`, the Python package's `coapcc.replay`): a script in the
//! replay language ([`coapcc_core::harness::script`]: `send`, `wait MS`, `ack`, `ack copy K`)
//! run on one controller, one destination, one exchange at a time.
//!
//! Output: one JSON object per line, in time order (see [`format_event`]).

use std::cell::Cell;
use std::fmt;
use std::io::Write;
use std::time::Duration;

use coapcc_core::duration::Millis;
use coapcc_core::harness::script::parse_line;
use coapcc_core::harness::{Event, StopAndWait};
use coapcc_core::{AnyController, Instant};
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;

pub use coapcc_core::harness::script::Command;

/// Why a script could not be read or run.
#[derive(Debug)]
pub enum ReplayError {
    /// A line that does not parse, or a command that cannot run there (`ack` with no exchange
    /// open): its 1-based number and the problem.
    Line {
        /// The line number.
        number: usize,
        /// What is wrong.
        problem: String,
    },
    /// Writing an event failed.
    Io(std::io::Error),
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Line { number, problem } => write!(f, "line {number}: {problem}"),
            ReplayError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReplayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReplayError::Io(e) => Some(e),
            ReplayError::Line { .. } => None,
        }
    }
}

/// A command and the script line it came from (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// Line number.
    pub number: usize,
    /// The command.
    pub command: Command,
}

/// Parses a script. Errors name the line: `line 3: unknown command `snd``.
pub fn parse(script: &str) -> Result<Vec<Line>, ReplayError> {
    let mut lines = Vec::new();
    for (i, raw) in script.lines().enumerate() {
        let number = i + 1;
        match parse_line(raw) {
            Ok(Some(command)) => lines.push(Line { number, command }),
            Ok(None) => {}
            Err(e) => return Err(ReplayError::Line { number, problem: e.to_string() }),
        }
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
pub fn run(controller: AnyController, lines: &[Line], seed: u64, out: &mut dyn Write) -> Result<(), ReplayError> {
    let mut io_error: Option<std::io::Error> = None;
    let mut emit = |e: Event| {
        if io_error.is_none()
            && let Err(err) = writeln!(out, "{}", format_event(&e))
        {
            io_error = Some(err);
        }
    };
    run_with(controller, lines, seed, &mut emit)?;
    match io_error {
        Some(e) => Err(ReplayError::Io(e)),
        None => Ok(()),
    }
}

/// Runs a parsed script on `controller`, handing each event to `emit` as it happens (the
/// events before a failing line are emitted before the error). Timers still pending at the
/// end of the script are not fired. The one runner of `coapcc replay` and the Python
/// package's `coapcc.replay`.
pub fn run_with(
    controller: AnyController,
    lines: &[Line],
    seed: u64,
    emit: &mut dyn FnMut(Event),
) -> Result<(), ReplayError> {
    let mut harness = StopAndWait::new(&controller);
    let mut rng = Pcg64Mcg::seed_from_u64(seed);
    let mut now = Instant::ZERO;
    for line in lines {
        let result = match line.command {
            Command::Send => harness.send(now, &mut rng, &mut *emit),
            Command::Wait(d) => {
                now = now.saturating_add(d);
                harness.advance_to(now, &mut rng, &mut *emit);
                Ok(())
            }
            Command::Ack(copy) => harness.ack(now, copy, &mut rng, &mut *emit),
        };
        result.map_err(|e| ReplayError::Line { number: line.number, problem: e.to_string() })?;
    }
    Ok(())
}

/// One exchange of a probe's script as the replay runs it: when the application starts it
/// (since the start of the run) and, if the probe answers it, which copy the answer follows and
/// how long after that copy left the answer arrives. An empty ACK (a separate response) is an
/// answer too: it stops the retransmissions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ScriptedExchange {
    /// When the application starts the exchange.
    pub start: Duration,
    /// `(copy, delay)`: the answer arrives `delay` after copy `copy` (0 = the original) left.
    pub answer: Option<(u8, Duration)>,
    /// Whether the answer names the copy it follows (a token or option echo).
    pub echo: bool,
}

/// A replay of a probe's script, one exchange at a time: [`run_scripted`] runs it whole; the
/// probe's match branches it (it is `Clone`) to give each exchange the random draw nearest the
/// client's.
#[derive(Clone, Debug)]
pub struct ScriptedReplay<'a> {
    harness: StopAndWait<&'a AnyController>,
    rng: Pcg64Mcg,
}

impl<'a> ScriptedReplay<'a> {
    /// A replay of `controller`, its draws from `seed`.
    pub fn new(controller: &'a AnyController, seed: u64) -> Self {
        ScriptedReplay { harness: StopAndWait::new(controller), rng: Pcg64Mcg::seed_from_u64(seed) }
    }

    /// The draws from here on come from `seed`.
    pub fn reseed(&mut self, seed: u64) {
        self.rng = Pcg64Mcg::seed_from_u64(seed);
    }

    /// Every timer, until the controller is idle (an exchange ends by an answer or a give-up
    /// after at most 256 copies).
    fn drain(&mut self, emit: &mut dyn FnMut(Event)) {
        for _ in 0..=u16::MAX {
            match self.harness.next_deadline() {
                Some(at) => self.harness.advance_to(at, &mut self.rng, &mut *emit),
                None => break,
            }
        }
    }

    /// Runs exchange `ex` (started at its `start`, or as soon as the controller is idle), then
    /// the timers until `next` (the next exchange's start; when the controller is still busy
    /// then, until it is idle; `None`: until it is idle). Every event of `ex` is emitted by
    /// this call.
    pub fn exchange(&mut self, ex: &ScriptedExchange, next: Option<Duration>, emit: &mut dyn FnMut(Event)) {
        let at = Instant::ZERO.saturating_add(ex.start);
        self.harness.advance_to(at, &mut self.rng, &mut *emit);
        if self.harness.is_busy() {
            self.drain(&mut *emit);
        }
        let start = self.harness.now().max(at);
        let sent_copy: Cell<Option<Instant>> = Cell::new(None);
        let want = ex.answer.map(|(copy, _)| copy);
        let mut watch = |e: Event| {
            if let Event::Transmit { at, copy, .. } = e
                && Some(copy) == want
            {
                sent_copy.set(Some(at));
            }
            emit(e);
        };
        // A send at a time the harness has reached cannot be refused: it is idle here.
        let _ = self.harness.send(start, &mut self.rng, &mut watch);
        if let Some((copy, delay)) = ex.answer {
            for _ in 0..=u16::MAX {
                if sent_copy.get().is_some() || !self.harness.is_busy() {
                    break;
                }
                match self.harness.next_deadline() {
                    Some(at) => self.harness.advance_to(at, &mut self.rng, &mut watch),
                    None => break,
                }
            }
            if let Some(left) = sent_copy.get() {
                let named = ex.echo.then_some(u16::from(copy));
                self.harness.advance_to(left.saturating_add(delay), &mut self.rng, &mut watch);
                // The exchange may have ended meanwhile (a give-up before the answer arrived).
                if self.harness.is_busy() {
                    let _ = self.harness.ack(self.harness.now(), named, &mut self.rng, &mut watch);
                }
            }
        }
        match next {
            Some(n) => {
                self.harness.advance_to(Instant::ZERO.saturating_add(n), &mut self.rng, &mut watch);
                if self.harness.is_busy() {
                    self.drain(&mut watch);
                }
            }
            None => self.drain(&mut watch),
        }
    }
}

/// Runs `exchanges` on `controller` the way a probe server reacts to a client: each exchange
/// starts at its `start` (or, when the controller is still busy with the previous one, as soon
/// as that one ends: it is run to its answer or give-up first), and is answered `delay` after
/// its copy `copy` leaves (never, if the controller gives up before sending that copy). After
/// the last exchange, timers run until the controller is idle. Events go to `emit` in time
/// order, as [`run_with`] gives them: the probe compares what a real client did with this.
pub fn run_scripted(
    controller: &AnyController,
    exchanges: &[ScriptedExchange],
    seed: u64,
    emit: &mut dyn FnMut(Event),
) {
    let mut replay = ScriptedReplay::new(controller, seed);
    for (i, ex) in exchanges.iter().enumerate() {
        replay.exchange(ex, exchanges.get(i + 1).map(|n| n.start), &mut *emit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
