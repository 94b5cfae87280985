//! `coapcc sim`: run scenarios, print a summary table, write the result files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use coapcc_sim::results::{flows_csv, runs_csv, samples_csv, series_csv, summarise, summary_csv, summary_table};
use coapcc_sim::runner::{job_count, run_scenario};
use coapcc_sim::scenario::{self, Key, Model, Setting, SettingError, Value};

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
    /// Also write pcap/ALGORITHM.pcap: the datagrams of replication 0 of each algorithm at
    /// every node (IPv4/UDP headers, 10.0.0.x addresses, simulated timestamps), for Wireshark.
    #[arg(long)]
    pub pcap: bool,
}

/// One sweep dimension: a key and its values, each read once and kept with its text (which
/// names the point's folder and its rows in `sweep.csv`).
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The key (as for `--set`).
    pub key: Key,
    /// Its values, each with its text as written.
    pub values: Vec<(String, Value)>,
}

impl std::str::FromStr for Sweep {
    type Err = SettingError;
    /// Reads `KEY=V1,V2,…`.
    fn from_str(s: &str) -> Result<Sweep, SettingError> {
        let bad = || SettingError { key: None, problem: format!("bad --sweep `{s}`: expected KEY=V1,V2,…") };
        let (k, v) = s.split_once('=').ok_or_else(bad)?;
        let values: Vec<(String, Value)> =
            v.split(',').map(str::trim).filter(|x| !x.is_empty()).map(|x| (x.to_string(), Value::parse(x))).collect();
        if k.trim().is_empty() || values.is_empty() {
            return Err(bad());
        }
        Ok(Sweep { key: k.parse()?, values })
    }
}

/// One point of a sweep: a setting per swept key, with the value's text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Point {
    /// `(text as written, setting)`, one per sweep, in sweep order.
    pub settings: Vec<(String, Setting)>,
}

impl Point {
    /// A folder name for the point: `flows=200,buffer_bytes=28200`.
    fn label(&self) -> String {
        self.settings
            .iter()
            .map(|(text, s)| format!("{}={text}", s.key))
            .collect::<Vec<_>>()
            .join(",")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || "=,._-".contains(c) { c } else { '_' })
            .collect()
    }

    fn is_empty(&self) -> bool {
        self.settings.is_empty()
    }
}

/// Every combination of the sweeps' values, in order (the last sweep varies fastest).
pub fn combinations(sweeps: &[Sweep]) -> Vec<Point> {
    let mut out: Vec<Point> = vec![Point::default()];
    for s in sweeps {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                s.values.iter().map(move |(text, v)| {
                    let mut p = prefix.clone();
                    p.settings.push((text.clone(), Setting { key: s.key.clone(), value: v.clone() }));
                    p
                })
            })
            .collect();
    }
    out
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
    let set = settings(args);
    let points = combinations(&args.sweep);
    // Check every scenario (and sweep point) before running any, so a typo in the last one
    // costs nothing.
    let mut loaded: Vec<(Point, scenario::Scenario)> = Vec::new();
    for p in &args.scenarios {
        for point in &points {
            let all: Vec<Setting> = set.iter().chain(point.settings.iter().map(|(_, s)| s)).cloned().collect();
            let s = scenario::load(p, &all).map_err(|e| CliError::usage(e.to_string()))?;
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
        let results = pool.install(|| run_scenario(s, &|| bar.inc(1))).map_err(CliError::Failure)?;
        bar.finish_and_clear();
        let summaries = summarise(&results);
        let base = out_dir(args, &s.file.name);
        let dir = if point.is_empty() { base.clone() } else { base.join(point.label()) };
        let trace = matches!(s.model, Model::Trace(_));
        if !trace {
            write_atomic(&dir.join("flows.csv"), flows_csv(&results).as_bytes())?;
            if args.samples {
                write_atomic(&dir.join("samples.csv"), samples_csv(&results).as_bytes())?;
            }
        }
        write_atomic(&dir.join("runs.csv"), runs_csv(&results).as_bytes())?;
        write_atomic(&dir.join("summary.csv"), summary_csv(&summaries).as_bytes())?;
        if let Some(series) = series_csv(&results) {
            write_atomic(&dir.join("series.csv"), series.as_bytes())?;
        }
        write_atomic(&dir.join("scenario.toml"), s.to_toml().as_bytes())?;
        let label = if point.is_empty() { String::new() } else { format!(" [{}]", point.label()) };
        writeln!(out, "== {}{label} (seed {}, {} replications)", s.file.name, s.file.seed, s.file.replications)?;
        out.write_all(summary_table(&summaries, trace).as_bytes())?;
        writeln!(out, "results: {}", dir.display())?;
        if args.pcap {
            for f in crate::sim_pcap::write_captures(s, &dir)? {
                writeln!(out, "pcap: {}", f.display())?;
            }
        }
        if !point.is_empty() {
            let csv = summary_csv(&summaries);
            let mut lines = csv.lines();
            let header = lines.next().unwrap_or_default();
            let text = sweep_csv.entry(base.clone()).or_insert_with(|| {
                let keys: Vec<String> = point.settings.iter().map(|(_, s)| s.key.to_string()).collect();
                format!("{},{header}\n", keys.join(","))
            });
            let values: Vec<String> =
                point.settings.iter().map(|(text, _)| format!("\"{}\"", text.replace('"', "\"\""))).collect();
            for l in lines {
                text.push_str(&format!("{},{l}\n", values.join(",")));
            }
            // Rewritten after every point: an interrupted sweep keeps the points it finished.
            write_atomic(&base.join("sweep.csv"), text.as_bytes())?;
        }
    }
    Ok(())
}
