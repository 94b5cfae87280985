//! The `coapcc` command-line tool. See `coapcc --help`. Each subcommand is a module of
//! [`cmd`]: its arguments, and a call into the library that does the work (`coapcc-report`,
//! `coapcc-sim`, `coapcc-udp`, `coapcc-driver`); [`error`] turns the libraries' errors into
//! one line and an exit code (2 for bad input, 1 for a failed run).

mod cmd;
mod error;
mod progress;

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser, Subcommand};

use crate::cmd::*;
use crate::error::CliError;

#[derive(Parser)]
#[command(name = "coapcc", version, about = "Congestion control for CoAP: algorithms, replay, simulation, reports")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List every algorithm (family, source, exact or reconstructed, per-destination state
    /// size), or show one algorithm's configuration keys and defaults.
    Algorithms(algorithms::AlgorithmsArgs),
    /// List the built-in scenarios (name, model, description), or print one scenario's file;
    /// `coapcc sim NAME` runs one from any folder.
    Scenarios(scenarios::ScenariosArgs),
    /// Simulate scenarios (testbeds of the source papers): print a summary table and write
    /// flows.csv, runs.csv, summary.csv and the resolved scenario.toml.
    Sim(sim::SimArgs),
    /// Reproduce the source papers' experiments: run them, compare with the published numbers,
    /// and write a report (index.html, report.md, figures/, data/, claims.csv).
    Reproduce(reproduce::ReproduceArgs),
    /// Measure the simulator: events per second, simulated seconds per wall second, wall time
    /// per replication, peak memory.
    Bench(bench::BenchArgs),
    /// Run one controller through a scripted exchange sequence and print what it does.
    #[command(after_long_help = replay::HELP)]
    Replay(replay::ReplayArgs),
    /// Relay UDP between clients and a server through the simulator's link model, in real
    /// time (rates, buffers, delays, errors); counters on Ctrl-C and SIGUSR1.
    Emulate(emulate::EmulateArgs),
    /// Run a scenario file in real time on loopback (server, link emulator and flows in one
    /// process) and write the same CSV files as `coapcc sim`.
    Testbed(testbed::TestbedArgs),
    /// Real CoAP over UDP: one request with its response printed (as coap-client: -e, -f, -t,
    /// -O, -N, -s Observe, -o, -v), or with --count/--flows/--json N confirmable requests per
    /// flow, F concurrent flows; per-exchange RTT, transmissions, timers; per-flow FCT.
    Client(client::ClientArgs),
    /// Real CoAP over UDP: serve /echo, /data?size=N, /obs (observable) and /.well-known/core.
    Server(server::ServerArgs),
    /// Measure a CoAP stack from the outside: run a client under test against a scripted
    /// probe server (`probe client -- COMMAND {uri}`) and infer its ACK_TIMEOUT,
    /// ACK_RANDOM_FACTOR, backoff, MAX_RETRANSMIT, NSTART, RTT adaptation and the closest
    /// coapcc algorithm; or check a server (`probe server URI`). Exit 1 on a violation.
    Probe(probe::ProbeArgs),
    /// Print the shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(shell::CompletionsArgs),
    /// Print the manual page (roff): `coapcc man > coapcc.1`.
    Man(shell::ManArgs),
}

fn run(cli: Cli) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match &cli.command {
        Command::Algorithms(args) => algorithms::run(args, &mut out)?,
        Command::Scenarios(args) => scenarios::run(args, &mut out)?,
        Command::Sim(args) => sim::run(args, &mut out)?,
        Command::Reproduce(args) => reproduce::run(args, &mut out)?,
        Command::Bench(args) => bench::run(args, &mut out)?,
        Command::Replay(args) => replay::run(args, &mut out)?,
        Command::Emulate(args) => emulate::run(args, &mut out)?,
        Command::Testbed(args) => testbed::run(args, &mut out)?,
        Command::Client(args) => client::run(args, &mut out)?,
        Command::Server(args) => server::run(args, &mut out)?,
        Command::Probe(args) => probe::run(args, &mut out)?,
        Command::Completions(args) => shell::completions(args, Cli::command(), &mut out)?,
        Command::Man(args) => shell::man(args, Cli::command(), &mut out)?,
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
            ExitCode::from(e.exit_code())
        }
    }
}
