//! The `coapcc` command-line tool. See `coapcc --help`.

use std::io::{self, BufWriter, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use coapcc::error::CliError;
use coapcc::overrides::{Setting, configure, keys_of};
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
    Algorithms {
        /// Show this algorithm's configuration keys with their preset values (TOML).
        name: Option<String>,
        /// Output format of the list.
        #[arg(long, value_enum, default_value = "table")]
        format: Format,
    },
    /// Simulate scenarios (testbeds of the source papers): print a summary table and write
    /// flows.csv, runs.csv, summary.csv and the resolved scenario.toml.
    Sim {
        /// Scenario files (see scenarios/).
        #[arg(required = true)]
        scenarios: Vec<PathBuf>,
        /// Run this algorithm instead of the scenario's list (repeatable).
        #[arg(long = "algorithm", short = 'a')]
        algorithms: Vec<String>,
        /// Replications per algorithm instead of the scenario's.
        #[arg(long)]
        replications: Option<u32>,
        /// Seed instead of the scenario's.
        #[arg(long)]
        seed: Option<u64>,
        /// Override a scenario key (repeatable): `--set flows=50 --set buffer_bytes=28200`,
        /// `--set algorithm.cocoa.aging=off`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Output folder (default results/<scenario name>/).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long)]
        jobs: Option<usize>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
        /// Sweep a key over values (repeatable; every combination runs):
        /// `--sweep flows=100,200,400`. Each point goes to DIR/<key=value,…>/ and every
        /// point's summary rows to DIR/sweep.csv.
        #[arg(long, value_name = "KEY=V1,V2,…")]
        sweep: Vec<String>,
        /// Also write samples.csv: every CoAP RTT sample and every expired retransmission
        /// timer, per flow, in the order they occurred (network models).
        #[arg(long)]
        samples: bool,
    },
    /// Reproduce the source papers' experiments: run them, compare with the published numbers,
    /// and write a report (index.html, report.md, figures/, data/, claims.csv).
    Reproduce {
        /// Experiment (see --list), or `all`.
        #[arg(required_unless_present = "list")]
        experiment: Option<String>,
        /// List the experiments.
        #[arg(long)]
        list: bool,
        /// A reduced version (fewer replications, shorter runs) that still draws every figure.
        #[arg(long)]
        quick: bool,
        /// Replications per case instead of the scenarios' own.
        #[arg(long)]
        replications: Option<u32>,
        /// Output folder (default reports/<experiment>/).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Worker threads (default: all cores). Results do not depend on it.
        #[arg(long)]
        jobs: Option<usize>,
        /// Folder of the scenario files.
        #[arg(long, default_value = "scenarios")]
        scenarios: PathBuf,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Measure the simulator: events per second, simulated seconds per wall second, wall time
    /// per replication, peak memory.
    Bench {
        /// What to measure.
        #[arg(long, value_enum, default_value = "reference")]
        case: coapcc::bench::Case,
        /// Replications of the reference case (per repetition).
        #[arg(long, default_value_t = 10)]
        replications: u32,
        /// Simulated hours of the long case.
        #[arg(long, default_value_t = 5)]
        hours: u32,
        /// How many times to run the reference case (reported as median, min and max).
        #[arg(long, default_value_t = 5)]
        repeat: u32,
        /// Folder of the scenario files.
        #[arg(long, default_value = "scenarios")]
        scenarios: PathBuf,
    },
    /// Run one controller through a scripted exchange sequence and print what it does.
    #[command(after_long_help = REPLAY_HELP)]
    Replay {
        /// Algorithm name (see `coapcc algorithms`).
        #[arg(long, short)]
        algorithm: String,
        /// Override a configuration key (repeatable), e.g. `--set max_retransmit=20`.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// Seed of the generator used for dithering.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Arm every timer at its undithered value (same as `--set dither=false`).
        #[arg(long)]
        no_dither: bool,
        /// Script file; standard input when absent or `-`.
        script: Option<PathBuf>,
    },
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

fn parse_settings(raw: &[String]) -> Result<Vec<Setting>, CliError> {
    raw.iter().map(|s| s.parse::<Setting>().map_err(|e| CliError::usage(format!("bad --set: {e}")))).collect()
}

fn run(cli: Cli) -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match cli.command {
        Command::Algorithms { name: None, format } => {
            let text = match format {
                Format::Table => table::algorithms_table(),
                Format::Csv => table::algorithms_csv(),
            };
            out.write_all(text.as_bytes())?;
        }
        Command::Algorithms { name: Some(name), .. } => {
            let config = configure(&name, &[])?;
            writeln!(out, "# {name}: configuration keys and preset values (change with --set KEY=VALUE)")?;
            let table = keys_of(&config);
            out.write_all(toml::to_string(&table).map_err(|e| CliError::Failure(e.to_string()))?.as_bytes())?;
        }
        Command::Sim { scenarios, algorithms, replications, seed, set, out: out_dir, jobs, quiet, sweep, samples } => {
            let args =
                SimArgs { scenarios, algorithms, replications, seed, set, out: out_dir, jobs, quiet, sweep, samples };
            sim_cmd::run(&args, &mut out)?;
        }
        Command::Reproduce { experiment, list, quick, replications, out: out_dir, jobs, scenarios, quiet } => {
            if list {
                out.write_all(coapcc::reproduce::list().as_bytes())?;
            } else {
                let args = coapcc::reproduce::ReproduceArgs {
                    experiment: experiment.unwrap_or_default(),
                    quick,
                    replications,
                    out: out_dir,
                    jobs,
                    scenarios,
                    quiet,
                };
                coapcc::reproduce::run(&args, &mut out)?;
            }
        }
        Command::Bench { case, replications, hours, repeat, scenarios } => {
            coapcc::bench::run(case, &scenarios, replications.max(1), hours.max(1), repeat.max(1), &mut out)?;
        }
        Command::Replay { algorithm, set, seed, no_dither, script } => {
            let mut set = parse_settings(&set)?;
            if no_dither {
                set.push(Setting { key: "dither".into(), value: "false".into() });
            }
            let config = configure(&algorithm, &set)?;
            let controller = config.build().map_err(|e| CliError::usage(e.to_string()))?;
            let lines = replay::parse(&read_script(script.as_ref())?)?;
            replay::run(controller, &lines, seed, &mut out)?;
        }
    }
    match out.flush() {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Failure(m)) if m.contains("Broken pipe") => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
