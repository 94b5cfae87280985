//! The `coapcc` command-line tool. See `coapcc --help`.

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{Args, Parser, Subcommand, ValueEnum};
use coapcc::bench::BenchArgs;
use coapcc::error::CliError;
use coapcc::overrides::{Setting, configure, keys_of};
use coapcc::reproduce::ReproduceArgs;
use coapcc::sim_cmd::{self, SimArgs};
use coapcc::{replay, table};

const REPLAY_HELP: &str = "\
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

#[derive(Parser)]
#[command(name = "coapcc", version, about = "Congestion control for CoAP: algorithms, replay, simulation, reports")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Table,
    Csv,
}

#[derive(Subcommand)]
enum Command {
    /// List every algorithm (family, source, exact or reconstructed, per-destination state
    /// size), or show one algorithm's configuration keys and defaults.
    Algorithms(AlgorithmsArgs),
    /// Simulate scenarios (testbeds of the source papers): print a summary table and write
    /// flows.csv, runs.csv, summary.csv and the resolved scenario.toml.
    Sim(SimArgs),
    /// Reproduce the source papers' experiments: run them, compare with the published numbers,
    /// and write a report (index.html, report.md, figures/, data/, claims.csv).
    Reproduce(ReproduceArgs),
    /// Measure the simulator: events per second, simulated seconds per wall second, wall time
    /// per replication, peak memory.
    Bench(BenchArgs),
    /// Run one controller through a scripted exchange sequence and print what it does.
    #[command(after_long_help = REPLAY_HELP)]
    Replay(ReplayArgs),
    /// Relay UDP between clients and a server through the simulator's link model, in real
    /// time (rates, buffers, delays, errors); counters on Ctrl-C and SIGUSR1.
    Emulate(coapcc::emulate_cmd::EmulateArgs),
    /// Run a scenario file in real time on loopback (server, link emulator and flows in one
    /// process) and write the same CSV files as `coapcc sim`.
    Testbed(coapcc::testbed_cmd::TestbedArgs),
    /// Real CoAP over UDP: N confirmable requests per flow, F concurrent flows, against any
    /// CoAP server; per-exchange RTT, transmissions, timers; per-flow FCT.
    Client(coapcc::udp_cmd::ClientArgs),
    /// Real CoAP over UDP: serve /echo, /data?size=N and /.well-known/core.
    Server(coapcc::udp_cmd::ServerArgs),
}

/// Arguments of `coapcc algorithms`.
#[derive(Args)]
struct AlgorithmsArgs {
    /// Show this algorithm's configuration keys with their preset values (TOML).
    name: Option<String>,
    /// Output format of the list.
    #[arg(long, value_enum, default_value = "table")]
    format: Format,
}

/// Arguments of `coapcc replay`.
#[derive(Args)]
struct ReplayArgs {
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

fn algorithms(args: AlgorithmsArgs, out: &mut dyn Write) -> Result<(), CliError> {
    match args.name {
        None => {
            let text = match args.format {
                Format::Table => table::algorithms_table(),
                Format::Csv => table::algorithms_csv(),
            };
            out.write_all(text.as_bytes())?;
        }
        Some(name) => {
            let config = configure(&name, &[])?;
            writeln!(out, "# {name}: configuration keys and preset values (change with --set KEY=VALUE)")?;
            let table = keys_of(&config);
            out.write_all(toml::to_string(&table).map_err(|e| CliError::Failure(e.to_string()))?.as_bytes())?;
            // Every preset name is a heading of docs/algorithms.md (checked by a test).
            writeln!(out, "# documentation: docs/algorithms.md#{name}")?;
        }
    }
    Ok(())
}

fn replay(args: ReplayArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let mut set = args.set;
    if args.no_dither {
        set.push(Setting::new("dither", false).map_err(|e| CliError::Failure(e.to_string()))?);
    }
    let config = configure(&args.algorithm, &set)?;
    let controller = config.build().map_err(|e| CliError::usage(e.to_string()))?;
    let lines = replay::parse(&read_script(args.script.as_ref())?)?;
    replay::run(controller, &lines, args.seed, out)
}

fn run(cli: Cli) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match cli.command {
        Command::Algorithms(args) => algorithms(args, &mut out)?,
        Command::Sim(args) => sim_cmd::run(&args, &mut out)?,
        Command::Reproduce(args) => coapcc::reproduce::run(&args, &mut out)?,
        Command::Bench(args) => coapcc::bench::run(&args, &mut out)?,
        Command::Replay(args) => replay(args, &mut out)?,
        Command::Emulate(args) => coapcc::emulate_cmd::run(&args, &mut out)?,
        Command::Testbed(args) => coapcc::testbed_cmd::run(&args, &mut out)?,
        Command::Client(args) => coapcc::udp_cmd::client(&args, &mut out)?,
        Command::Server(args) => coapcc::udp_cmd::server(&args, &mut out)?,
    }
    match out.flush() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

/// Parses the command line. A value that does not parse (`--set` without `=`, a malformed
/// `--sweep`) is one line on standard error and exit code 2, like every other usage error;
/// help, version and other argument errors are clap's own.
fn parse_cli() -> Result<Cli, ExitCode> {
    Cli::try_parse().map_err(|e| match e.kind() {
        ErrorKind::ValueValidation => {
            let text = e.to_string();
            eprintln!("{}", text.lines().next().unwrap_or("error: invalid value"));
            ExitCode::from(2)
        }
        _ => e.exit(),
    })
}

fn main() -> ExitCode {
    let cli = match parse_cli() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Failure(m)) if m.contains("Broken pipe") => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
