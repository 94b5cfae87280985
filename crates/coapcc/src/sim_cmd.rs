//! `coapcc sim`: run scenarios, print a summary table, write the result files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use coapcc_sim::results::{result_files, summarise, summary_csv, summary_table};
use coapcc_sim::runner::{job_count, run_scenario};
use coapcc_sim::scenario::{self, Model, Setting};
pub use coapcc_sim::sweep::{Point, Sweep, combinations};
use coapcc_sim::sweep::{sweep_csv_header_for, sweep_csv_rows_for};

use crate::error::CliError;
use crate::files::write_atomic;
use crate::progress;

/// Arguments of `coapcc sim`.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct SimArgs {
    /// Scenario files (see scenarios/).
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
    /// Worker threads (default: all cores). Results do not depend on it.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// No progress bar.
    #[arg(long, short)]
    pub quiet: bool,
    /// Sweep a key over values (repeatable; every combination runs):
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
}

/// The overrides of `args`, in the order they apply: `--set`, `--replications`, `--seed`,
/// `--algorithm` (then a sweep point's).
fn settings(args: &SimArgs) -> Vec<Setting> {
    let mut out = args.set.clone();
    out.extend(args.replications.map(Setting::replications));
    out.extend(args.seed.map(Setting::seed));
    if !args.algorithms.is_empty() {
        out.push(Setting::algorithms(args.algorithms.iter().cloned()));
    }
    out
}

/// The folder results of `name` go to.
pub fn out_dir(args: &SimArgs, name: &str) -> PathBuf {
    match &args.out {
        Some(d) if args.scenarios.len() > 1 => d.join(name),
        Some(d) => d.clone(),
        None => Path::new("results").join(name),
    }
}

/// Runs `coapcc sim`, writing tables to `out`.
pub fn run(args: &SimArgs, out: &mut dyn Write) -> Result<(), CliError> {
    if args.scenarios.is_empty() {
        return Err(CliError::usage("no scenario file given (see scenarios/)"));
    }
    if args.describe {
        return crate::multihop_cmd::describe(args, &settings(args), out);
    }
    let set = settings(args);
    let points = combinations(&args.sweep);
    // Check every scenario (and sweep point) before running any, so a typo in the last one
    // costs nothing.
    let mut loaded: Vec<(Point, scenario::Scenario)> = Vec::new();
    for p in &args.scenarios {
        for point in &points {
            let all: Vec<Setting> = set.iter().chain(point.settings.iter().map(|(_, s)| s)).cloned().collect();
            let s = scenario::load(p, &all).map_err(|e| CliError::usage(e.to_string()))?;
            if let Model::Multihop(_) = s.model {
                crate::multihop_cmd::check(p, &s)?;
            }
            coapcc_sim::runner::check(&s).map_err(CliError::usage)?;
            // Refused before anything is allocated for it; a long run says so first.
            let threads = args.jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
            match coapcc_sim::budget::admit(&s, threads, coapcc_sim::budget::available_bytes()) {
                Err(e) => return Err(CliError::usage(e)),
                Ok(Some(notice)) if !args.quiet => eprintln!("{notice}"),
                Ok(_) => {}
            }
            loaded.push((point.clone(), s));
        }
    }
    let pool = progress::thread_pool(args.jobs)?;
    // sweep.csv per output folder: every point's summary rows, the swept values first.
    let mut sweep_csv: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (point, s) in &loaded {
        let total = job_count(s) as u64;
        let bar = progress::bar(total, args.quiet);
        bar.set_message(s.file.name.clone());
        let base = out_dir(args, &s.file.name);
        let dir = if point.is_empty() { base.clone() } else { base.join(point.label()) };
        let label = if point.is_empty() { String::new() } else { format!(" [{}]", point.label()) };
        let summary_text = if let Model::Multihop(_) = s.model {
            if args.pcap {
                return Err(CliError::usage(format!(
                    "{}: --pcap writes the datagrams of NB-IoT-like and residual-bandwidth scenarios; a multihop scenario has none to write yet",
                    s.file.name
                )));
            }
            let (csv, table) = pool.install(|| crate::multihop_cmd::run_to(s, &dir, &|| bar.inc(1)))?;
            bar.finish_and_clear();
            writeln!(out, "== {}{label} (seed {}, {} replications)", s.file.name, s.file.seed, s.file.replications)?;
            out.write_all(table.as_bytes())?;
            writeln!(out, "results: {}", dir.display())?;
            csv
        } else {
            run_network_or_trace(args, s, &dir, &label, &pool, &bar, out)?
        };
        if !point.is_empty() {
            let text = sweep_csv.entry(base.clone()).or_insert_with(|| sweep_csv_header_for(point, &summary_text));
            text.push_str(&sweep_csv_rows_for(point, &summary_text));
            // Rewritten after every point: an interrupted sweep keeps the points it finished.
            write_atomic(&base.join("sweep.csv"), text.as_bytes())?;
        }
    }
    Ok(())
}

/// Runs a network or RTT-trace scenario into `dir`, prints its table; returns summary.csv.
fn run_network_or_trace(
    args: &SimArgs,
    s: &scenario::Scenario,
    dir: &Path,
    label: &str,
    pool: &rayon::ThreadPool,
    bar: &indicatif::ProgressBar,
    out: &mut dyn Write,
) -> Result<String, CliError> {
    {
        let results = pool.install(|| run_scenario(s, &|| bar.inc(1))).map_err(CliError::Failure)?;
        bar.finish_and_clear();
        let summaries = summarise(&results);
        let trace = matches!(s.model, Model::Trace(_));
        for (name, text) in result_files(s, &results, &summaries, args.samples) {
            write_atomic(&dir.join(name), text.as_bytes())?;
        }
        writeln!(out, "== {}{label} (seed {}, {} replications)", s.file.name, s.file.seed, s.file.replications)?;
        out.write_all(summary_table(&summaries, trace).as_bytes())?;
        writeln!(out, "results: {}", dir.display())?;
        if args.pcap {
            for f in crate::sim_pcap::write_captures(s, dir)? {
                writeln!(out, "pcap: {}", f.display())?;
            }
        }
        Ok(summary_csv(&summaries))
    }
}
