//! `coapcc reproduce`: the experiments' report ([`coapcc_report::run_reproduce`]), the
//! cross-check against the real-time testbed ([`coapcc_report::run_crosscheck`], on
//! [`crate::cmd::testbed::loopback`]), or the TCP model's against ns-3
//! ([`coapcc_report::run_crosscheck_tcp`]).

use std::io::Write;
use std::path::PathBuf;

use coapcc_driver::scenario::Catalogue;
use coapcc_report::{ReproduceOptions, RunRecord, command_line};

use crate::error::CliError;
use crate::progress::Bar;

/// Arguments of `coapcc reproduce`.
#[derive(Clone, Debug, clap::Args)]
pub struct ReproduceArgs {
    /// Experiment (see --list), or `all`.
    #[arg(required_unless_present = "list")]
    pub experiment: Option<String>,
    /// List the experiments.
    #[arg(long)]
    pub list: bool,
    /// A reduced version (fewer replications, shorter runs) that still draws every figure.
    #[arg(long)]
    pub quick: bool,
    /// Replications per case instead of the scenarios' own (crosscheck-tcp: instead of its 200).
    #[arg(long)]
    pub replications: Option<u32>,
    /// Output folder (default `reports/<experiment>/`).
    #[arg(long, help = "Output folder (default reports/<experiment>/)")]
    pub out: Option<PathBuf>,
    /// Worker threads, 1 to 1024 (default: one per core; never more than the runs). Results do
    /// not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Folder of the scenario files (laid out as the built-in ones; default: the built-in
    /// scenarios, see `coapcc scenarios`).
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<PathBuf>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Run every case again. Without it, a case finished by an earlier run of the same
    /// resolved scenario and coapcc version into the same folder is kept, so an interrupted
    /// reproduction continues where it stopped.
    #[arg(long)]
    pub force: bool,
}

/// Runs `coapcc reproduce` (with `--list`, prints the experiments).
pub fn run(args: &ReproduceArgs, out: &mut dyn Write) -> Result<(), CliError> {
    if args.list {
        out.write_all(coapcc_report::list_experiments()?.as_bytes())?;
        return Ok(());
    }
    let opts = ReproduceOptions {
        experiment: args.experiment.clone().unwrap_or_default(),
        quick: args.quick,
        replications: args.replications,
        out: args.out.clone(),
        jobs: args.jobs,
        scenarios: args.scenarios.clone().map_or(Catalogue::BuiltIn, Catalogue::Folder),
        run: Some(RunRecord::now(command_line())),
        force: args.force,
    };
    let progress = Bar::new(args.quiet);
    if opts.experiment == "crosscheck" {
        // One line per testbed replication (wall time, emulator timing error): on standard
        // error as it finishes, and in `emulator-timing.txt` with the report.
        let mut timing = String::new();
        let mut tb = crate::cmd::testbed::loopback(None, |r, run| {
            let line =
                format!("{} {}", r.scenario, crate::cmd::testbed::timing_line(r.algorithm_name, r.replication, run));
            if !args.quiet {
                eprintln!("crosscheck: {line}");
            }
            timing.push_str(&line);
            timing.push('\n');
        })?;
        coapcc_report::run_crosscheck(&opts, &mut tb, out, &progress)?;
        drop(tb);
        coapcc_report::write_atomic(&opts.out_dir().join("emulator-timing.txt"), timing.as_bytes())?;
    } else if opts.experiment == "crosscheck-tcp" {
        // The ns-3 program that scripts/setup-ns3 builds (COAPCC_NS3_TCP overrides its path).
        let path = std::env::var_os("COAPCC_NS3_TCP").map_or_else(
            || {
                let peers =
                    std::env::var_os("COAPCC_PEERS_DIR").map_or_else(|| PathBuf::from("target/peers"), PathBuf::from);
                peers.join("ns3-tcp").join("coapcc-ns3-tcp")
            },
            PathBuf::from,
        );
        coapcc_report::run_crosscheck_tcp(&opts, &mut coapcc_report::Ns3Program { path }, out, &progress)?;
    } else {
        coapcc_report::run_reproduce(&opts, out, &progress)?;
    }
    Ok(())
}
