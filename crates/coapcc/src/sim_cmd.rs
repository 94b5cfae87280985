//! `coapcc sim`: run scenarios, print a summary table, write the result files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use coapcc_sim::results::{flows_csv, runs_csv, samples_csv, series_csv, summarise, summary_csv, summary_table};
use coapcc_sim::runner::{job_count, run_scenario};
use coapcc_sim::scenario::{self, Model, Setting};

use crate::error::CliError;
use crate::files::write_atomic;
use crate::progress;

/// Arguments of `coapcc sim`.
#[derive(Clone, Debug, Default)]
pub struct SimArgs {
    /// Scenario files.
    pub scenarios: Vec<PathBuf>,
    /// Algorithms to run instead of the scenario's list.
    pub algorithms: Vec<String>,
    /// Replications instead of the scenario's.
    pub replications: Option<u32>,
    /// Seed instead of the scenario's.
    pub seed: Option<u64>,
    /// `KEY=VALUE` overrides.
    pub set: Vec<String>,
    /// Output folder (default `results/<scenario name>/`; with several scenarios, one
    /// sub-folder per scenario name below it).
    pub out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    pub jobs: Option<usize>,
    /// No progress bar.
    pub quiet: bool,
    /// Sweeps `KEY=V1,V2,…`: the scenario runs once per combination of values.
    pub sweep: Vec<String>,
    /// Also write `samples.csv`: every RTT sample and expired timer.
    pub samples: bool,
}

/// One sweep dimension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sweep {
    /// The key (as for `--set`).
    pub key: String,
    /// Its values.
    pub values: Vec<String>,
}

/// Parses `KEY=V1,V2,…`.
pub fn parse_sweep(s: &str) -> Result<Sweep, CliError> {
    let bad = || CliError::usage(format!("bad --sweep `{s}`: expected KEY=V1,V2,…"));
    let (k, v) = s.split_once('=').ok_or_else(bad)?;
    let values: Vec<String> = v.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect();
    if k.trim().is_empty() || values.is_empty() {
        return Err(bad());
    }
    Ok(Sweep { key: k.trim().to_string(), values })
}

/// Every combination of the sweeps' values, in order (the last sweep varies fastest).
pub fn combinations(sweeps: &[Sweep]) -> Vec<Vec<Setting>> {
    let mut out: Vec<Vec<Setting>> = vec![Vec::new()];
    for s in sweeps {
        out = out
            .into_iter()
            .flat_map(|prefix| {
                s.values.iter().map(move |v| {
                    let mut p = prefix.clone();
                    p.push(Setting { key: s.key.clone(), value: v.clone() });
                    p
                })
            })
            .collect();
    }
    out
}

/// A folder name for a sweep point: `flows=200,buffer_bytes=28200`.
fn point_label(point: &[Setting]) -> String {
    point
        .iter()
        .map(|s| format!("{}={}", s.key, s.value))
        .collect::<Vec<_>>()
        .join(",")
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "=,._-".contains(c) { c } else { '_' })
        .collect()
}

fn settings(args: &SimArgs) -> Result<Vec<Setting>, CliError> {
    let mut out: Vec<Setting> = args
        .set
        .iter()
        .map(|s| s.parse::<Setting>().map_err(|e| CliError::usage(format!("bad --set: {e}"))))
        .collect::<Result<_, _>>()?;
    if let Some(r) = args.replications {
        out.push(Setting { key: "replications".into(), value: r.to_string() });
    }
    if let Some(s) = args.seed {
        out.push(Setting { key: "seed".into(), value: s.to_string() });
    }
    if !args.algorithms.is_empty() {
        let list: Vec<String> = args.algorithms.iter().map(|a| format!("{a:?}")).collect();
        out.push(Setting { key: "algorithms".into(), value: format!("[{}]", list.join(", ")) });
    }
    Ok(out)
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
    let set = settings(args)?;
    let sweeps: Vec<Sweep> = args.sweep.iter().map(|s| parse_sweep(s)).collect::<Result<_, _>>()?;
    let points = combinations(&sweeps);
    // Check every scenario (and sweep point) before running any, so a typo in the last one
    // costs nothing.
    let mut loaded: Vec<(Vec<Setting>, scenario::Scenario)> = Vec::new();
    for p in &args.scenarios {
        for point in &points {
            let all: Vec<Setting> = set.iter().chain(point).cloned().collect();
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
        let dir = if point.is_empty() { base.clone() } else { base.join(point_label(point)) };
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
        let label = if point.is_empty() { String::new() } else { format!(" [{}]", point_label(point)) };
        writeln!(out, "== {}{label} (seed {}, {} replications)", s.file.name, s.file.seed, s.file.replications)?;
        out.write_all(summary_table(&summaries, trace).as_bytes())?;
        writeln!(out, "results: {}", dir.display())?;
        if !point.is_empty() {
            let csv = summary_csv(&summaries);
            let mut lines = csv.lines();
            let header = lines.next().unwrap_or_default();
            let text = sweep_csv.entry(base.clone()).or_insert_with(|| {
                let keys: Vec<&str> = point.iter().map(|p| p.key.as_str()).collect();
                format!("{},{header}\n", keys.join(","))
            });
            let values: Vec<String> = point.iter().map(|p| format!("\"{}\"", p.value.replace('"', "\"\""))).collect();
            for l in lines {
                text.push_str(&format!("{},{l}\n", values.join(",")));
            }
            // Rewritten after every point: an interrupted sweep keeps the points it finished.
            write_atomic(&base.join("sweep.csv"), text.as_bytes())?;
        }
    }
    Ok(())
}
