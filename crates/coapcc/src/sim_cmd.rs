//! `coapcc sim`: run scenarios, print a summary table, write the result files.

use std::io::Write;
use std::path::{Path, PathBuf};

use coapcc_sim::results::{flows_csv, runs_csv, series_csv, summarise, summary_csv, summary_table};
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
    // Check every scenario before running any, so a typo in the last one costs nothing.
    let loaded: Vec<scenario::Scenario> = args
        .scenarios
        .iter()
        .map(|p| scenario::load(p, &set).map_err(|e| CliError::usage(e.to_string())))
        .collect::<Result<_, _>>()?;
    let pool = progress::thread_pool(args.jobs)?;
    for s in &loaded {
        let total = job_count(s) as u64;
        let bar = progress::bar(total, args.quiet);
        bar.set_message(s.file.name.clone());
        let results = pool.install(|| run_scenario(s, &|| bar.inc(1))).map_err(CliError::Failure)?;
        bar.finish_and_clear();
        let summaries = summarise(&results);
        let dir = out_dir(args, &s.file.name);
        let trace = matches!(s.model, Model::Trace(_));
        if !trace {
            write_atomic(&dir.join("flows.csv"), flows_csv(&results).as_bytes())?;
        }
        write_atomic(&dir.join("runs.csv"), runs_csv(&results).as_bytes())?;
        write_atomic(&dir.join("summary.csv"), summary_csv(&summaries).as_bytes())?;
        if let Some(series) = series_csv(&results) {
            write_atomic(&dir.join("series.csv"), series.as_bytes())?;
        }
        write_atomic(&dir.join("scenario.toml"), s.to_toml().as_bytes())?;
        writeln!(out, "== {} (seed {}, {} replications)", s.file.name, s.file.seed, s.file.replications)?;
        out.write_all(summary_table(&summaries, trace).as_bytes())?;
        writeln!(out, "results: {}", dir.display())?;
    }
    Ok(())
}
