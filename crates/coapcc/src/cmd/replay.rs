//! `coapcc replay`: a script run on one controller ([`coapcc_driver::replay`]), events as
//! JSON lines.

use std::io::{self, Read, Write};
use std::path::PathBuf;

use clap::Args;
use coapcc_driver::replay;
use coapcc_driver::scenario::{Setting, algorithm_with_settings};

use crate::error::CliError;

/// The text after `coapcc replay --help`.
pub const HELP: &str = "\
SCRIPT FORMAT (one event per line; `#` starts a comment; blank lines are ignored):
  send          the application starts a new exchange now (one exchange at a time)
  wait MS       the clock advances MS milliseconds (decimals allowed, up to 6);
                every timer that expires meanwhile (or exactly at the end) fires in order,
                retransmitting or giving up; a rate-based algorithm's held copy leaves
  ack           the current exchange is acknowledged now
  ack copy K    ... and the acknowledgement names transmission K (0 is the original),
                as an echoed token byte or Rexmit-Cnt / Transmission Count option would

OUTPUT (JSON lines, in time order; times in milliseconds, exact to the nanosecond):
  {\"t_ms\":0.0,\"event\":\"transmit\",\"exchange\":1,\"copy\":0,\"timer_ms\":2000.0}
  {\"t_ms\":62000.0,\"event\":\"give_up\",\"exchange\":1}
  {\"t_ms\":400.0,\"event\":\"ack\",\"exchange\":1,\"copy\":null,\"rto_ms\":1600.0}
  `timer_ms` is the timer armed for that copy; `rto_ms` is the undithered timer the algorithm
  would arm for the next original transmission (null where that notion does not apply).

EXAMPLE:
  printf 'send\\nwait 400\\nack\\n' | coapcc replay --algorithm cocoa --no-dither

Errors (unknown algorithm, key or value; malformed script line) print one line naming the
line number or key and exit with code 2.";

/// Arguments of `coapcc replay`.
#[derive(Args)]
pub struct ReplayArgs {
    /// Algorithm name (see `coapcc algorithms`).
    #[arg(long, short)]
    algorithm: String,
    /// Override a configuration key (repeatable), e.g. `--set max_retransmit=20`.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<Setting>,
    /// Seed of the generator used for dithering.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Arm every timer at its undithered value (same as `--set dither=false`).
    #[arg(long)]
    no_dither: bool,
    /// Script file; standard input when absent or `-`.
    script: Option<PathBuf>,
}

fn read_script(path: Option<&PathBuf>) -> Result<String, CliError> {
    match path {
        Some(p) if p.as_os_str() != "-" => std::fs::read_to_string(p)
            .map_err(|e| CliError::usage(format!("cannot read script `{}`: {e}", p.display()))),
        _ => {
            let mut s = String::new();
            io::stdin()
                .read_to_string(&mut s)
                .map_err(|e| CliError::usage(format!("cannot read standard input: {e}")))?;
            Ok(s)
        }
    }
}

/// Runs `coapcc replay`.
pub fn run(args: &ReplayArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let mut set = args.set.clone();
    if args.no_dither {
        set.push(Setting::new("dither", false).map_err(|e| CliError::Failure(e.to_string()))?);
    }
    let config = algorithm_with_settings(&args.algorithm, &set)?;
    let controller = config.build().map_err(|e| CliError::usage(e.to_string()))?;
    let lines = replay::parse(&read_script(args.script.as_ref())?)?;
    Ok(replay::run(controller, &lines, args.seed, out)?)
}
