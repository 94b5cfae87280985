//! `coapcc sim`: scenarios into result folders ([`coapcc_report::run_sim`]), or `--describe`
//! ([`coapcc_report::describe()`]).

use std::io::Write;
use std::path::PathBuf;

use coapcc_driver::scenario::Setting;
use coapcc_report::{RunRecord, SimOptions, command_line};
use coapcc_sim::sweep::Sweep;

use crate::error::CliError;
use crate::progress::Bar;

/// Arguments of `coapcc sim`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct SimArgs {
    /// Scenario files, or names of built-in scenarios (`fasor/10-flows-error-free-random`;
    /// `coapcc scenarios` lists them). A path that exists is read as a file.
    #[arg(required = true)]
    pub scenarios: Vec<PathBuf>,
    /// Run this algorithm instead of the scenario's list (repeatable; an algorithm name, see
    /// `coapcc algorithms`, or a `[variant.NAME]` of the scenario).
    #[arg(long = "algorithm", short = 'a')]
    pub algorithms: Vec<String>,
    /// Replications per algorithm instead of the scenario's.
    #[arg(long)]
    pub replications: Option<u32>,
    /// Seed instead of the scenario's.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Override a scenario key (repeatable): `--set flows=50 --set buffer_bytes=28200`,
    /// `--set algorithm.cocoa.aging=off`. VALUE is a TOML value (`20`, `1.5`, `false`,
    /// `[1, 2]`), a ratio (`1/4`) or a word (`makarem`).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<Setting>,
    /// Output folder (default `results/<scenario name>/`; with several scenarios, one
    /// sub-folder per scenario name below it).
    #[arg(
        long,
        help = "Output folder (default results/<scenario name>/; with several scenarios, one sub-folder per scenario name below it)"
    )]
    pub out: Option<PathBuf>,
    /// Worker threads, 1 to 1024 (default: one per core; never more than the runs). Results do
    /// not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Sweep a key over values (repeatable, one key once; every combination runs):
    /// `--sweep flows=100,200,400`. Each point goes to DIR/<key=value,…>/ and every
    /// point's summary rows to DIR/sweep.csv.
    #[arg(long, value_name = "KEY=V1,V2,…")]
    pub sweep: Vec<Sweep>,
    /// Also write samples.csv: every CoAP RTT sample and every expired retransmission
    /// timer, per flow, in the order they occurred (network models).
    #[arg(long)]
    pub samples: bool,
    /// Describe the scenarios instead of running them: topology, routing tree and hop counts
    /// (and map.svg) for a multihop scenario, the link stages for the others.
    #[arg(long)]
    pub describe: bool,
    /// Also write pcap/ALGORITHM.pcap: the datagrams of replication 0 of each algorithm at
    /// every node (IPv4/UDP headers, 10.0.0.x addresses, simulated timestamps), for Wireshark.
    #[arg(long)]
    pub pcap: bool,
    /// With --sweep: run every point again. Without it, a point finished by an earlier run of
    /// the same resolved scenario and coapcc version into the same folder is kept, so an
    /// interrupted sweep continues where it stopped.
    #[arg(long)]
    pub force: bool,
}

/// Runs `coapcc sim`.
pub fn run(args: &SimArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let opts = SimOptions {
        scenarios: args.scenarios.clone(),
        algorithms: args.algorithms.clone(),
        replications: args.replications,
        seed: args.seed,
        set: args.set.clone(),
        out: args.out.clone(),
        jobs: args.jobs,
        sweep: args.sweep.clone(),
        samples: args.samples,
        pcap: args.pcap,
        run: Some(RunRecord::now(command_line())),
        force: args.force,
    };
    if args.describe {
        coapcc_report::describe(&opts, out)?;
    } else {
        coapcc_report::run_sim(&opts, out, &Bar::new(args.quiet))?;
    }
    Ok(())
}
